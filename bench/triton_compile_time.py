#!/usr/bin/env python3
"""Compile-time reference: Triton compiling a TTIR file to a cubin, in this process, N times with a
fresh cache each time (median, min, max ms). Run beside `gemmc FILE --emit=cubin --time` on the same
machine (bench/compile_vs_triton.sh does both). Usage:

    triton_compile_time.py FILE.ttir [runs] [--gemmc 'COMMAND' ...]

With --gemmc (repeatable), each round also runs each COMMAND once as a process right after Triton's
compile, and the report adds each command's median and the median of the per-round ratios
(command / Triton): rounds interleaved this way keep the ratio fair on a machine whose speed
changes between runs (the GPU machine's CPU is bimodal: docs/perf-notes.md, 65 and 75).
(TRITON_ALWAYS_COMPILE=1: no run is a cache hit.)"""
import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time


def parse_args(argv):
    ap = argparse.ArgumentParser(description="Triton's compile time of a TTIR file, beside gemmc's.")
    ap.add_argument("path", help="the TTIR file")
    ap.add_argument("runs", nargs="?", type=int, default=10, help="timed rounds (default 10)")
    ap.add_argument("--gemmc", action="append", default=[], metavar="COMMAND",
                    help="a command run once per round right after Triton's compile (repeatable)")
    args = ap.parse_args(argv)
    return args.path, args.runs, args.gemmc


def run_timed(command, failed):
    """Wall time of one run of `command` (ms), or None when it fails (its first failure is
    printed and kept in `failed`, and the command is not run again)."""
    if command in failed:
        return None
    t0 = time.perf_counter()
    done = subprocess.run(shlex.split(command), capture_output=True, text=True)
    t1 = time.perf_counter()
    if done.returncode != 0:
        failed.add(command)
        print(f"'{command}' failed ({done.returncode}): {done.stderr.strip()[-500:]}", file=sys.stderr)
        return None
    return (t1 - t0) * 1e3


def main():
    path, runs, commands = parse_args(sys.argv[1:])
    # Triton reads its knobs when it is imported: no cache, ever (every run compiles).
    os.environ["TRITON_ALWAYS_COMPILE"] = "1"
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="triton-cache-")
    try:
        import triton
        from triton.backends.compiler import GPUTarget
    except Exception as e:  # noqa: BLE001 - any import failure means "no Triton here"
        print(f"triton: not available ({e})")
        return 0
    target = GPUTarget("cuda", 90, 32)
    times = []
    others = [[] for _ in commands]
    failed = set()
    for i in range(runs + 1):
        t0 = time.perf_counter()
        kernel = triton.compile(path, target=target)
        t1 = time.perf_counter()
        asm = getattr(kernel, "asm", {})
        assert "cubin" in asm, "Triton produced no cubin"
        mine = [run_timed(c, failed) for c in commands]
        if i:  # the first round pays for imports and one-time initialization
            times.append((t1 - t0) * 1e3)
            for k, ms in enumerate(mine):
                others[k].append(ms)
    print(f"triton {triton.__version__}: {path} -> cubin: median {statistics.median(times):.1f} ms, "
          f"min {min(times):.1f}, max {max(times):.1f} ({runs} runs in one process, no cache)")
    for command, ms in zip(commands, others):
        if command in failed:
            print(f"  interleaved with it: '{command}': failed (above)")
            continue
        ratios = [m / t for m, t in zip(ms, times)]
        print(f"  interleaved with it: '{command}': median {statistics.median(ms):.1f} ms per process, "
              f"min {min(ms):.1f}; per-round ratio to Triton: median {statistics.median(ratios):.3f}, "
              f"min {min(ratios):.3f}, max {max(ratios):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

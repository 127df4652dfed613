#!/usr/bin/env python3
"""Compile-time reference: Triton compiling a TTIR file to a cubin, in this process, N times with a
fresh cache each time (median, min, max ms). Run beside `gemmc FILE --emit=cubin --time` on the same
machine (bench/compile_vs_triton.sh does both). Usage: triton_compile_time.py FILE.ttir [runs]
(TRITON_ALWAYS_COMPILE=1: no run is a cache hit.)"""
import os
import statistics
import sys
import tempfile
import time


def main():
    path = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 10
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
    for i in range(runs + 1):
        t0 = time.perf_counter()
        kernel = triton.compile(path, target=target)
        t1 = time.perf_counter()
        if i:  # the first run pays for imports and one-time initialization
            times.append((t1 - t0) * 1e3)
        asm = getattr(kernel, "asm", {})
        assert "cubin" in asm, "Triton produced no cubin"
    print(f"triton {triton.__version__}: {path} -> cubin: median {statistics.median(times):.1f} ms, "
          f"min {min(times):.1f}, max {max(times):.1f} ({runs} runs in one process, no cache)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Writes Triton 3.6's own IR for the kernels gemmc must match (scripts/triton_kernels.py), on the GPU
machine: for each case, <case>.ttir, .ttgir, .llir, .ptx, the kernel's Python source (.py) and
<case>.json (config, launch grid, problem shape and strides, Triton's metadata: num_warps, num_stages,
shared memory, registers and spills), packed into one triton-dumps.tar.gz in --out (the GPU run
returns at most 8 files). Each case is compiled with JITFunction.warmup (no launch) in its own
try/except: a failing case leaves <case>.error.txt and the others go on.

Usage (GPU machine):  python3 scripts/triton-dump.py --out "$OUT" [--cases REGEX]
Here (no torch/triton):  python3 scripts/triton-dump.py --dry-run   (lists what would be dumped)

The archive unpacks to triton-dumps/ with index.json (one entry per case: files or error) and
env.json (GPU, driver, torch, triton versions). test/triton-dumps/README.md says how gemmc's lit
tests use it.
"""
import argparse
import dataclasses
import inspect
import json
import os
import shutil
import sys
import tarfile
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import triton_kernels as tk  # noqa: E402


def dump_shape(case):
    """The problem used for compiling: 4096-sized (Triton specializes on divisibility by 16 only)."""
    if case.kind == "batched":
        return tk.Shape(4096, 4096, 4096, 16)
    return tk.Shape(4096, 4096, 4096)


def metadata_dict(ck):
    md = getattr(ck, "metadata", None)
    if md is None:
        return {}
    if hasattr(md, "_asdict"):
        md = md._asdict()
    elif not isinstance(md, dict):
        md = vars(md)
    return {k: (v if isinstance(v, (int, float, str, bool, type(None), list, tuple, dict)) else str(v))
            for k, v in md.items()}


def dump_case(case, folder, log):
    import torch
    shape = dump_shape(case)
    p = tk.make_problem(case, shape)
    args, kw, grid = tk.launch_spec(case, p)
    t0 = time.perf_counter()
    ck = case.kernel.warmup(*args, grid=grid, **kw)
    compile_s = time.perf_counter() - t0
    files = []
    for key, val in ck.asm.items():
        if isinstance(val, str):
            name = f"{case.name}.{key}"
            with open(os.path.join(folder, name), "w") as f:
                f.write(val)
            files.append(name)
    src_name = f"{case.name}.py"
    with open(os.path.join(folder, src_name), "w") as f:
        f.write("# Triton kernel source of case %s (scripts/triton_kernels.py)\n" % case.name)
        fn = getattr(case.kernel, "fn", case.kernel)
        f.write(inspect.getsource(fn))
    files.append(src_name)
    info = {
        "case": case.name, "kind": case.kind, "dtype": case.dtype, "acc": case.acc,
        "config": dataclasses.asdict(case.config), "warp_specialize": case.warp_specialize, "note": case.note,
        "shape": dataclasses.asdict(shape), "grid": list(grid),
        "constexprs": {k: v for k, v in kw.items() if k not in ("num_warps", "num_stages")},
        "num_warps": kw.get("num_warps"), "num_stages": kw.get("num_stages"),
        "strides": {"a": list(p.a.stride()), "b": list(p.b.stride()), "c": list(p.c.stride())},
        "compile_seconds": round(compile_s, 3),
        "triton_metadata": metadata_dict(ck),
        "asm_keys": sorted(ck.asm.keys()),
    }
    try:
        ck._init_handles()
        info.update(n_regs=ck.n_regs, n_spills=ck.n_spills, n_max_threads=getattr(ck, "n_max_threads", None))
    except Exception as e:  # noqa: BLE001 - registers are extra information
        info["n_regs_error"] = str(e)
    with open(os.path.join(folder, f"{case.name}.json"), "w") as f:
        json.dump(info, f, indent=1, default=str)
    files.append(f"{case.name}.json")
    del p
    torch.cuda.empty_cache()
    md = info["triton_metadata"]
    log(f"  ok: {compile_s:.1f} s, num_warps {md.get('num_warps')}, num_stages {md.get('num_stages')}, "
        f"shared {md.get('shared')}, regs {info.get('n_regs')}, spills {info.get('n_spills')}, grid {list(grid)}")
    return files


def environment():
    import torch
    import triton
    env = {"torch": torch.__version__, "triton": triton.__version__, "cuda": torch.version.cuda,
           "device": torch.cuda.get_device_name(0), "capability": list(torch.cuda.get_device_capability(0)),
           "sms": torch.cuda.get_device_properties(0).multi_processor_count}
    try:
        import subprocess
        env["nvidia_smi"] = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm",
                                            "--format=csv,noheader"], capture_output=True, text=True,
                                           timeout=20).stdout.strip()
    except Exception as e:  # noqa: BLE001
        env["nvidia_smi"] = str(e)
    return env


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/gemmc-out"))
    ap.add_argument("--cases", default=".", help="regex over case names")
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args()
    import re
    cases = [c for c in tk.all_cases() if re.search(args.cases, c.name)]
    if args.dry_run:
        for c in cases:
            s = dump_shape(c)
            print(f"{c.name}: {c.kind}, {c.dtype} (acc {c.acc}), {c.config.tag()}, ws={c.warp_specialize}, "
                  f"compiled at {s.tag()} -> {c.name}.{{ttir,ttgir,llir,ptx,py,json}}")
        print(f"{len(cases)} cases -> {os.path.join(args.out, 'triton-dumps.tar.gz')} (HAVE_TRITON={tk.HAVE_TRITON})")
        return 0
    if not tk.HAVE_TRITON:
        print("triton-dump: needs torch and triton (the GPU machine); use --dry-run here", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    stage = tempfile.mkdtemp(prefix="triton-dumps-")
    folder = os.path.join(stage, "triton-dumps")
    os.makedirs(folder)
    log_lines = []

    def log(msg):
        print(msg, flush=True)
        log_lines.append(msg)

    index = {}
    env = environment()
    log(f"environment: {json.dumps(env)}")
    with open(os.path.join(folder, "env.json"), "w") as f:
        json.dump(env, f, indent=1)
    failures = 0
    for case in cases:
        log(f"{case.name}")
        try:
            index[case.name] = {"files": dump_case(case, folder, log)}
        except Exception as e:  # noqa: BLE001 - record and go on with the next case
            failures += 1
            tb = traceback.format_exc()
            with open(os.path.join(folder, f"{case.name}.error.txt"), "w") as f:
                f.write(tb)
            index[case.name] = {"error": f"{type(e).__name__}: {e}"[:500]}
            log(f"  FAILED: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
    with open(os.path.join(folder, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    with open(os.path.join(folder, "dump.log"), "w") as f:
        f.write("\n".join(log_lines) + "\n")
    archive = os.path.join(args.out, "triton-dumps.tar.gz")
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname="triton-dumps")
    shutil.rmtree(stage, ignore_errors=True)
    log(f"{len(cases) - failures} of {len(cases)} cases dumped -> {archive} ({os.path.getsize(archive)} bytes)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

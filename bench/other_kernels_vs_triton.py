#!/usr/bin/env python3
"""Times gemmc beside Triton on every kernel of test/gpu/triton_other_kernels.py (attention forward and backward, a W4A16 GEMM, cross-entropy, norms, rotary embedding, GEMMs as users write them, ...), and cuBLAS (torch's matmul of the same operands) beside the GEMM rows, same process, outputs checked first (GPU machine only; a benchmark, not a test)."""
# Each row: Triton 3.6 runs its kernel (which also gives its TTIR), gemmc compiles that TTIR and
# runs it with the same arguments on a poisoned output, checked against the row's reference; then
# both are timed with triton.testing.do_bench (CUDA events, L2 flushed), interleaved rounds, and
# the medians printed with the ratio. A row gemmc gets wrong is reported and not timed.
#
# Usage (after `source scripts/device-unpack.sh`):
#   python3 bench/other_kernels_vs_triton.py [--rows REGEX] [--rounds 3]
import argparse
import os
import re
import statistics
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "test", "gpu"))
import triton_other_kernels as tok  # noqa: E402  (its rows, and triton_compare through scripts/bench)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default="", help="only rows whose name matches this regular expression")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds (default 3)")
    args = ap.parse_args()
    import triton_compare
    modules = triton_compare.gpu_modules_and_gemmc()
    if not modules:
        return 0
    torch, _, tc, gemmc = modules
    from triton.testing import do_bench
    torch.manual_seed(1)
    print(f"{'kernel':44s} {'gemmc us':>9s} {'Triton us':>9s} {'cuBLAS us':>9s} {'gemmc/Triton':>12s} "
          f"{'gemmc/cuBLAS':>12s}")
    for name, launch, values, grid, out, ref, warps, stages, tol, *extra in tok.rows(torch):
        cublas = extra[0] if extra else None
        if args.rows and not re.search(args.rows, name):
            continue
        try:
            ck = launch()
            torch.cuda.synchronize()
            expect = ref()
            ptx, meta, _ = gemmc.compile(ck.asm["ttir"], name.split()[0] + ".ttir", warps, stages)
            fn, _ = gemmc.load(ptx, meta)
            run = gemmc.launcher(fn, meta, values, grid)
            outs, expects = (out, expect) if isinstance(out, tuple) else ((out,), (expect,))
            for o in outs:
                tok.poison(torch, o)
            outs = tuple(tok.output_tensor(o) for o in outs)
            run()
            torch.cuda.synchronize()
            err = max((o.float() - e).abs().max().item() / (e.abs().max().item() or 1.0) for o, e in zip(outs, expects))
            if not err <= tol:
                print(f"{name:44s} WRONG (max|err|/max|ref| = {err:.2e}), not timed", flush=True)
                continue
        except Exception as e:  # noqa: BLE001 - a row that cannot run is reported, the rest go on
            print(f"{name:44s} error: {tc.first_line(e)}", flush=True)
            continue
        tg, tt, tb = [], [], []
        for _ in range(args.rounds):
            tg.append(do_bench(run, rep=100))
            tt.append(do_bench(launch, rep=100))
            if cublas:
                tb.append(do_bench(cublas, rep=100))
        g, t = statistics.median(tg) * 1e3, statistics.median(tt) * 1e3
        b = f"{statistics.median(tb) * 1e3:9.1f}" if tb else f"{'-':>9s}"
        ratio = f"{statistics.median(tb) * 1e3 / g:12.2f}" if tb else f"{'-':>12s}"
        print(f"{name:44s} {g:9.1f} {t:9.1f} {b} {t / g:12.2f} {ratio}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

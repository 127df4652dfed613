#!/usr/bin/env python3
"""gemmc on Triton's TTIR of the tutorial kernel with other layouts, dtypes and epilogues (scripts/triton_kernels.py: VARIANTS), or of tutorial 08's grouped GEMM (--grouped), beside Triton and cuBLAS in one process (GPU machine only; a benchmark, not a test)."""
# Each row: Triton 3.6 running its kernel, gemmc compiling Triton's TTIR of the same kernel
# (libgemmc, launched with Triton's arguments), and cuBLAS through torch on the same tensors
# (torch.matmul with TF32 allowed for the tf32 rows, torch._int_mm for int8, torch._scaled_mm for
# fp8 with K-major B; the bias and leaky_relu rows time cuBLAS's plain GEMM, i.e. without their
# epilogue). Every column is checked against the float reference first (C poisoned); a wrong
# column is reported and not timed. Times: median of interleaved rounds of
# triton.testing.do_bench (CUDA events, L2 flushed).
#
# Usage (after `source scripts/device-unpack.sh`):
#   python3 bench/triton_variants.py [--variants REGEX] [--sizes 4096,8192] [--rounds 3] [--csv FILE]
#   python3 bench/triton_variants.py --grouped
import argparse
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "scripts"))
sys.path.insert(0, os.path.join(root, "bench"))

# The config each variant is timed at: the tutorial's 128x128 tile, its K step by element size.
CONFIG_BY_SIZE = {1: (128, 128, 128, 3, 4), 2: (128, 128, 64, 3, 4), 4: (128, 128, 32, 3, 4)}
WIDE_BY_SIZE = {1: (128, 256, 128, 3, 8), 2: (128, 256, 64, 3, 8), 4: (128, 256, 32, 3, 8)}


def cublas_runner(v, p):
    """A closure computing the variant's GEMM with cuBLAS through torch, writing p's C; None where
    torch has no cuBLAS call for the layout (fp8 with row-major B)."""
    import torch
    a, b, c = p["a"], p["b"], p["c"]
    if v.dtype == "i8":
        return lambda: c.copy_(torch._int_mm(a, b))
    if v.dtype == "fp8e4m3":
        if not v.b_col:
            return None
        one = torch.ones((), device="cuda", dtype=torch.float32)
        return lambda: c.copy_(torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=c.dtype))
    if v.out != v.dtype:
        return lambda: c.copy_(torch.matmul(a, b))

    def run():
        torch.matmul(a, b, out=c)
    return run


def measure_row(torch, tc, gemmc, case, p, ref, flops, rounds, cublas, cublas_checked):
    """Checks and times one row: gemmc on Triton's TTIR of the case, Triton, and `cublas` (None: no
    column; `cublas_checked` False: it computes something else than the case, so it is not checked).
    Returns (TFLOP/s by column, notes)."""
    cfg = case.config
    values, grid, _, _ = case.arguments(p)
    ck = case.compile_only(p)
    ptx, meta, _ = gemmc.compile(ck.asm["ttir"], f"{case.name}.ttir", cfg.num_warps, cfg.num_stages)
    fn, _ = gemmc.load(ptx, meta)
    columns = {"gemmc": gemmc.launcher(fn, meta, values, grid), "Triton": case.launcher(p)}
    if cublas:
        columns["cuBLAS"] = cublas
    tf32 = getattr(case, "dtype", "") == "f32"
    timed, notes = {}, []
    for key, run in columns.items():
        case.poison(p)
        prev = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = tf32
        try:
            run()
            torch.cuda.synchronize()
        finally:
            torch.backends.cuda.matmul.allow_tf32 = prev
        ok, why = case.check(p, ref) if key != "cuBLAS" or cublas_checked else (True, "")
        if ok:
            timed[key] = run
        else:
            notes.append(f"{key} WRONG: {why}")
    samples = {k: [] for k in timed}
    torch.backends.cuda.matmul.allow_tf32 = tf32
    for r in range(rounds):
        order = list(timed.items()) if r % 2 == 0 else list(reversed(list(timed.items())))
        for key, run in order:
            samples[key].append(tc.bench_ms(run, False, False)[0])
    torch.backends.cuda.matmul.allow_tf32 = False
    return {k: flops / (sorted(s)[len(s) // 2] * 1e-3) / 1e12 for k, s in samples.items()}, notes


def print_row(tc, rows, name, shape_tag, tf, notes):
    g, t, c = tf.get("gemmc"), tf.get("Triton"), tf.get("cuBLAS")
    row = dict(variant=name, shape=shape_tag, gemmc=g, triton=t, cublas=c, g_over_t=g / t if g and t else None,
               g_over_cublas=g / c if g and c else None, note="; ".join(notes))
    rows.append(row)
    print(f"{name:44s} {shape_tag:16s} {tc.fmt(g):>7s} {tc.fmt(t):>7s} {tc.fmt(c):>7s} "
          f"{tc.fmt(row['g_over_t'], 2):>5s} {tc.fmt(row['g_over_cublas'], 2):>8s} {row['note']}", flush=True)


# Tutorial 08's grouped GEMM (--grouped): the tutorial's own problem list and a larger one; cuBLAS
# is one torch.matmul per problem, back to back (what the tutorial compares against).
GROUPED_CASES = [((128, 128, 32, 3, 4), [(1024, 1024, 1024), (512, 512, 512), (256, 256, 256), (128, 128, 128)]),
                 ((128, 128, 64, 3, 4), [(4096, 4096, 4096), (2048, 2048, 2048), (1024, 1024, 1024)] * 2)]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--variants", default=None, help="regex over variant names")
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--wide", action="store_true", help="also the 128x256 8-warp tile")
    ap.add_argument("--grouped", action="store_true", help="tutorial 08's grouped GEMM instead of the variants")
    ap.add_argument("--csv", default=None)
    args = ap.parse_args()
    import triton_compare
    modules = triton_compare.gpu_modules_and_gemmc()
    if not modules:
        return 0
    torch, tk, tc, gemmc = modules
    rows = []
    print(f"device: {torch.cuda.get_device_name(0)}; TFLOP/s, median of {args.rounds} interleaved rounds")
    print(f"{'variant':44s} {'shape':16s} {'gemmc':>7s} {'Triton':>7s} {'cuBLAS':>7s} {'g/T':>5s} {'g/cuBLAS':>8s}")
    if args.grouped:
        for cfg, sizes in GROUPED_CASES:
            case = tk.Grouped(cfg, sizes)
            shape = tk.Shape(*sizes[0], batch=len(sizes))
            p = case.problem(shape, seed=len(sizes))
            ref = case.reference(p)

            def cublas(p=p):
                for a, b, c in zip(p["a"], p["b"], p["c"]):
                    torch.matmul(a, b, out=c)
            flops = sum(2.0 * m * n * k for m, n, k in sizes)
            tf, notes = measure_row(torch, tc, gemmc, case, p, ref, flops, args.rounds, cublas, True)
            print_row(tc, rows, case.name, shape.tag(), tf, notes)
    for spec in [] if args.grouped else tk.VARIANTS:
        if args.variants and not re.search(args.variants, spec[0]):
            continue
        size = {"i8": 1, "fp8e4m3": 1, "f32": 4}.get(spec[1], 2)
        configs = [CONFIG_BY_SIZE[size]] + ([WIDE_BY_SIZE[size]] if args.wide else [])
        for cfg in configs:
            v = tk.Variant(spec, cfg)
            for n in (int(s) for s in args.sizes.split(",")):
                shape = tk.Shape(n, n, n)
                p = v.problem(shape, seed=n)
                ref = v.reference(p)
                # cuBLAS computes the plain GEMM: it is checked only where the variant is one.
                tf, notes = measure_row(torch, tc, gemmc, v, p, ref, shape.flops(), args.rounds, cublas_runner(v, p),
                                        not (v.bias or v.has_activation))
                print_row(tc, rows, v.name, shape.tag(), tf, notes)
                del p, ref
                torch.cuda.empty_cache()
    if args.csv:
        import csv
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["variant"])
            w.writeheader()
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Triton 3.6's own TTIR and TTGIR of the tutorial matmul at every config of the tutorial's autotune lists, of the seed's batched kernel, of tutorial 09's persistent and descriptor kernels, of tutorial 08's grouped GEMM and of the tutorial's kernel with other layouts, dtypes and epilogues, compiled by libgemmc and run on ragged shapes against torch (GPU machine only)."""
# What a user of Triton would hand gemmc: the kernel printed for the shape's argument
# specialization (a K of 70 gives strides without tt.divisibility, so the TTIR differs), launched
# on Triton's grid with Triton's arguments. Every output is poisoned with NaN first; a result is
# correct when C is finite everywhere and within the dtype's tolerance of a float32 torch
# reference (scripts/triton_kernels.py: check). Triton's own launch is checked the same way first:
# a row Triton gets wrong too is reported and not counted. Fresh random inputs per run (--seed).
# Not timed: bench/triton_compare.py measures.
#
# Usage (after `source scripts/device-unpack.sh`):
#   python3 test/gpu/triton_ttir_sweep.py [--cases REGEX] [--stages ttir,ttgir] [--seed N]
# Exit 0 when every row is correct, 1 otherwise; without torch, Triton or a GPU: "skipped", exit 0.
import argparse
import os
import random
import re
import sys
import time
import traceback

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(root, "scripts"))
sys.path.insert(0, os.path.join(root, "bench"))

# Triton's tutorial 03, get_cuda_autotune_config() and get_autotune_config()'s fp8 list.
TUTORIAL_CONFIGS = [(128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
                    (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 5, 2), (32, 64, 32, 5, 2),
                    (128, 128, 64, 3, 4)]
FP8_CONFIGS = [(128, 256, 128, 3, 8), (256, 128, 128, 3, 8), (256, 64, 128, 4, 4), (64, 256, 128, 4, 4),
               (128, 128, 128, 4, 4), (128, 64, 64, 4, 4), (64, 128, 64, 4, 4), (128, 32, 64, 4, 4)]
# The seed's batched kernel at its two configs and the 8-warp tile.
BATCHED_CONFIGS = [(128, 128, 64, 4, 4, "f32"), (128, 128, 32, 4, 4, "f16"), (128, 256, 64, 3, 8, "f32"),
                   (128, 256, 64, 3, 8, "f16")]
# Tiles cut at every edge; K tile counts odd and even, below one tile, and K steps of 32 that leave
# a two-step ring stage half full; strides that are and are not 16-byte aligned (K = 70, N = 300).
SHAPES = [(512, 512, 96), (257, 129, 1000), (1000, 300, 70), (33, 65, 2048), (2048, 2048, 8), (1536, 768, 160),
          (4096, 4096, 4096)]
FP8_SHAPES = [(512, 512, 96), (257, 144, 1024), (1536, 768, 160)]
# The seed's batched kernel loads without masks (its K a multiple of BLOCK_K, rows and columns
# past M and N read but never stored), so its shapes keep to whole tiles.
BATCHED_SHAPES = [(3, 256, 256, 192), (4, 512, 256, 128), (2, 256, 512, 1024), (16, 512, 512, 512)]
# Tutorial 09's persistent, TMA (host descriptors) and device-descriptor kernels, at the cases
# bench/triton_compare.py times: rows and columns cut at the edges, K tails; K and N multiples of
# 8 (a TMA descriptor's strides are 16-byte multiples, Triton's host descriptors require it).
DESCRIPTOR_KINDS = ("persistent", "tma", "tma_persistent", "desc_persistent")
DESCRIPTOR_SHAPES = [(1000, 296, 72), (257, 136, 1000), (1536, 768, 160), (2048, 2048, 64)]
# (kind, stage) pairs whose IR gemmc does not lower, with why: reported as not run, not counted.
# None now (desc_persistent's TTGIR, ttg.global_scratch_alloc + ttng.tensormap_create, runs).
NOT_LOWERED: dict = {}

# The tutorial's kernel as users change it: scripts/triton_kernels.py's VARIANTS, at these configs
# (by input element size) and shapes.
VARIANT_CONFIGS = {1: [(128, 128, 128, 3, 4), (128, 256, 128, 3, 8), (64, 128, 64, 4, 4)],
                   2: [(128, 128, 64, 3, 4), (128, 256, 64, 3, 8), (64, 128, 32, 4, 4), (128, 128, 32, 4, 4)],
                   4: [(128, 128, 32, 3, 4), (128, 256, 32, 3, 8), (64, 64, 32, 4, 4)]}
VARIANT_SHAPES = [(512, 512, 96), (257, 129, 1000), (1000, 304, 72), (2048, 2048, 512)]


# Tutorial 08's grouped GEMM: problem lists (tile multiples: the kernel has no masks) and configs.
GROUPED_SIZES = [[(1024, 1024, 1024), (512, 512, 512), (256, 256, 256), (128, 128, 128)],
                 [(256, 512, 768), (1024, 256, 128), (384, 640, 256)]]
GROUPED_CONFIGS = [(128, 128, 32, 3, 4), (64, 64, 32, 4, 4), (128, 128, 64, 3, 8)]


def grouped_rows(tk):
    out = []
    for cfg in GROUPED_CONFIGS:
        for sizes in GROUPED_SIZES:  # the row's shape names the list: its count and first problem
            out.append((tk.Grouped(cfg, sizes), tk.Shape(*sizes[0], batch=len(sizes))))
    return out


def variant_rows(tk):
    out = []
    for spec in tk.VARIANTS:
        size = {"i8": 1, "fp8e4m3": 1, "f32": 4}.get(spec[1], 2)
        for cfg in VARIANT_CONFIGS[size]:
            v = tk.Variant(spec, cfg)
            out += [(v, tk.Shape(m, n, k)) for m, n, k in VARIANT_SHAPES]
    return out


def cases_and_shapes(tk):
    out = []
    for dtype in ("f16", "bf16"):
        for bm, bn, bk, s, w in TUTORIAL_CONFIGS:
            case = tk._tutorial(dtype, tk.Config(bm, bn, bk, s, w))
            out += [(case, tk.Shape(m, n, k)) for m, n, k in SHAPES]
    for bm, bn, bk, s, w in FP8_CONFIGS:
        case = tk._tutorial("fp8e4m3", tk.Config(bm, bn, bk, s, w))
        out += [(case, tk.Shape(m, n, k)) for m, n, k in FP8_SHAPES]
    for bm, bn, bk, s, w, acc in BATCHED_CONFIGS:
        cfg = tk.Config(bm, bn, bk, s, w)
        case = tk.Case(f"batched_f16_acc{acc}_{cfg.tag()}", "batched", "f16", acc, cfg)
        out += [(case, tk.Shape(m, n, k, b)) for b, m, n, k in BATCHED_SHAPES]
    for case in tk.all_cases():
        if case.kind in DESCRIPTOR_KINDS:
            out += [(case, tk.Shape(m, n, k)) for m, n, k in DESCRIPTOR_SHAPES]
    return out + variant_rows(tk) + grouped_rows(tk)


def run_triton(tk, tc, case, shape, seed):
    """(problem, reference, Triton's compiled kernel, gemmc's argument values, grid, Triton's verdict)."""
    import torch
    if isinstance(case, (tk.Variant, tk.Grouped)):
        p = case.problem(shape, seed)
        ref = case.reference(p)
        values, grid, _, _ = case.arguments(p)
        ck = case.compile_only(p)
        case.launcher(p)()
        torch.cuda.synchronize()
        return p, ref, ck, values, grid, case.check(p, ref)
    p = tk.make_problem(case, shape, seed=seed)
    ref = tk.reference(p)
    ck = tk.compile_only(case, p)
    values, grid = tc.triton_arguments(case, p)
    tk.launcher(case, p)()
    torch.cuda.synchronize()
    return p, ref, ck, values, grid, tk.check(case, p.c, ref)


def poison_and_check(tk, case, p, ref, run):
    """Poisons C, runs gemmc's launch and checks it."""
    import torch
    if isinstance(case, (tk.Variant, tk.Grouped)):
        case.poison(p)
        run()
        torch.cuda.synchronize()
        return case.check(p, ref)
    p.c.fill_(float("nan"))
    run()
    torch.cuda.synchronize()
    return tk.check(case, p.c, ref)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cases", default=None, help="regex over 'case shape' (e.g. '128x128x32|x70$')")
    ap.add_argument("--stages", default="ttir,ttgir", help="which of Triton's IRs gemmc compiles")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--libgemmc", default=None)
    ap.add_argument("--budget-s", type=float, default=0, help="stop starting rows after this many seconds")
    args = ap.parse_args()
    import triton_compare
    modules = triton_compare.gpu_modules_and_gemmc(args.libgemmc)
    if not modules:
        return 0
    torch, tk, tc, gemmc = modules
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    stages = [s for s in args.stages.split(",") if s]
    todo = cases_and_shapes(tk)
    if args.cases:
        todo = [(c, s) for c, s in todo if re.search(args.cases, f"{c.name} {s.tag()}")]
    print(f"device: {torch.cuda.get_device_name(0)}; libgemmc {gemmc.path}; {len(todo)} rows x {stages}; seed {seed}",
          flush=True)
    passed = failed = 0
    t0 = time.time()
    for i, (case, shape) in enumerate(todo):
        if args.budget_s and time.time() - t0 > args.budget_s:
            print(f"time budget spent: {len(todo) - i} rows left out")
            break
        try:
            p, ref, ck, values, grid, (triton_ok, triton_why) = run_triton(tk, tc, case, shape, seed + i)
        except Exception as e:  # noqa: BLE001 - Triton itself could not build the row: not gemmc's
            print(f"SKIP  {case.name:44s} {shape.tag():18s} triton: {tc.first_line(e)}", flush=True)
            continue
        if not triton_ok:
            print(f"SKIP  {case.name:44s} {shape.tag():18s} Triton's own result is wrong too: {triton_why}",
                  flush=True)
            continue
        for stage in stages:
            if (case.kind, stage) in NOT_LOWERED:
                print(f"NOTRUN {case.name:43s} {shape.tag():18s} {stage:5s} {NOT_LOWERED[(case.kind, stage)]}")
                continue
            try:
                ptx, meta, _ = gemmc.compile(ck.asm[stage], f"{case.name}.{stage}", case.config.num_warps,
                                             case.config.num_stages)
                fn, _ = gemmc.load(ptx, meta)
                run = gemmc.launcher(fn, meta, values, grid)
                ok, why = poison_and_check(tk, case, p, ref, run)
            except Exception as e:  # noqa: BLE001 - a compile or launch error fails the row
                ok, why = False, "error: " + tc.first_line(e)
                traceback.print_exc(limit=1)
            passed += ok
            failed += not ok
            print(f"{'PASS' if ok else 'FAIL'}  {case.name:44s} {shape.tag():18s} {stage:5s} {why}", flush=True)
        del p, ref
        torch.cuda.empty_cache()
    print(f"{time.time() - t0:.0f} s, seed {seed}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

/* gemmc_matmul's candidate kernels and the constants of the model that ranks them: data only, retuned by hand as kernels improve (docs/matmul.md says how). */
#include "matmul_internal.h"

/*
 * Each row is one kernel gemmc_matmul may build: a template of lib/matmul/templates, its tile,
 * warps and pipeline stages, the class of arithmetic it serves, and two numbers the model uses:
 *
 *   efficiency     the fraction of the class's peak (matmul_machines) the kernel reaches when
 *                  the GPU is full of its tiles. Measured where a date is given, else a guess
 *                  from its tile size; autotuning (GEMMC_TUNE=1) corrects wrong guesses per shape.
 *   blocks_per_sm  how many of its blocks fit on one SM (ptxas -v registers x threads against
 *                  64K registers, stages x tile bytes against 227 KiB of shared memory).
 *
 * To add a kernel variant (a wgmma template, a warp-specialized one, another -D choice), add a
 * row; its name must be unique. `defines` passes extra constants to the template; rows are only
 * considered on GPUs with compute capability in [min_cc, max_cc] (max 0: no limit).
 *
 * H200 measurements (bench-gemm, 2026-11-22, mma.sync + cp.async): 128x128x32 s4 w4 453.5
 * TFLOP/s and 128x128x64 s3 w4 426 TFLOP/s on 4096^3 f16 (989 TFLOP/s dense peak).
 *
 * sm_90 rows (H100, 2026-11-24, docs/perf-notes.md): wgmma; 8-warp 128x256 kernels become
 * persistent and warp-specialized (TMA, one block per SM), 715 TFLOP/s at 4096^3 f16 (0.72 of the
 * 989 peak), 762 at 8192^3, but only 552-557 at 2048^3 where every block does one tile after
 * building its tensor maps and barriers (about 3 us: setup_us); the same tile on cp.async rings
 * (path 2) ran 614 at 2048^3, 717 at 4096^3, 741 at 8192^3. 4-warp 128x128x64 kernels become
 * persistent pairs kernels (two consumer warpgroups on two programs sharing B; 1.03-1.05x
 * ping-pong at 4096^3-8192^3, perf-notes 29: efficiency scaled from ping-pong's) or, path 1,
 * persistent ping-pong ones (two consumer warpgroups on alternate tiles, a 4-stage TMA ring):
 * 603 / 623 TFLOP/s at 4096^3 / 8192^3 f16 against 596 / 536 for the same tile on cp.async rings
 * (perf-notes 20, same run). 4-warp 128x128x32 kernels (16 KiB per K step) become pairs kernels
 * with two K steps per ring stage since 2026-11-25 (perf-notes 34: 606-652 TFLOP/s at
 * 4096^3-8192^3 f16, 672 on the seed's batched f16-accumulation shape, against 530-540 and 502
 * on cp.async rings in the same run); the cp.async row stays for small shapes. The pairs row
 * asks for the 4 stages the compiler gives one-step pairs anyway since 2026-12-07
 * (GEMMC_PAIRS_MIN_STAGES: +2-4% at 2048^3-8192^3, perf-notes 67); its efficiency is still the
 * 3-stage one, which the model's picks were fitted with. The rest are guesses scaled from those.
 *
 * Through gemmc_matmul with a cold L2 (bench-gemm --api, H100, 2026-11-25, every row on 28 shapes,
 * perf-notes 55) the 128x256 cp.async row beat the warp-specialized one at every K >= 2048:
 * 731 / 756 / 749 against 697 / 703 / 704 TFLOP/s at 4096^3 / 8192^3 / 6144^3, 741 against 655 at
 * 16 x 4096^3; the warp-specialized row won only at K <= 1024 (482 against 458 at 4096x4096x512).
 * Its efficiency is set below the cp.async row's so the model takes the faster one.
 *
 * The cluster row (path 3, H100, 2026-11-25, perf-notes 57) is the warp-specialized row in
 * 2-block clusters sharing B through TMA multicast: 1-2% over it at 4096^3-8192^3, +22-28% where
 * rows start 16 bytes off a 32-byte sector (3000^3, 5000^3, 7000^3: TMA's L2 requests halved for
 * B), -7% / -12% at 2048^3 / 1024^3 (one tile per block). Its efficiency is the warp-specialized
 * row's; beside half the L2 reads of B, what sets it apart is its off_sector factors. It never
 * splits K: split 2 / 3 / 4 ran 2056^3 at 238 / 207 / 183 TFLOP/s against 300 unsplit, 4104^3 at
 * 384 / 348 / 315 against 521 (perf-notes 60).
 *
 * The pairs cluster row (path 3 on the 4-warp pairs kernel, H100, 2026-12-07, perf-notes 69) runs
 * blocks in 2-block clusters whose units read the same A tiles, each block copying one of the two
 * into both (TMA multicast): 3-9% slower than the pairs row on aligned rows, 1.25-1.4x it where
 * both operands' rows start 16 bytes off a 32-byte sector (3000^3 489 against 391, 5000^3 600
 * against 427 TFLOP/s in bursts). Like the other cluster row it never splits K.
 *
 * off_sector (H100, 2026-11-25, perf-notes 58): the efficiency's factor when tile rows start 16
 * bytes off a 32-byte sector (leading dimensions of 8 mod 16 f16 elements), for A's rows only,
 * B's only, and both: each row's median of (time with aligned rows) / (time off the sector) over
 * 4 / 3 / 6-10 shape pairs from 3000 to 9000 (3000^3 against 3008^3, 5008x5008x5000 against
 * 5008^3, ...; bench-gemm --api --api-config, cold L2). No single factor fits every row: TMA
 * kernels lose most where B's rows are off (0.84 warp-specialized, 0.74 ping-pong) unless B is
 * multicast (0.97), pairs where A's are (0.85; 0.67 with 64-byte K steps); cp.async rows read
 * such rows through L1 (`.ca`, perf-notes 56) and lose 0.86-0.92 on both. With these factors the
 * model took a row within 1.4% of the best on 50 measured shapes (geometric mean; 5.4% before;
 * the machine's tile start took it further, see matmul_machines). Not measured:
 * wgmma_128x64x32_s4 (its mirror's factors), the sm_80 rows and the other classes (1.00).
 *
 * Small and skinny problems, where each SM has about one tile, are bound by the latency of the
 * operand loads, not by the tensor cores: the deep-ring rows (64x128 / 128x64 tiles, K step 64,
 * 8 cp.async stages: 192 KiB in flight, as cuBLAS's 128x64_64x8 kernel has) ran 1024^3 at 256 TFLOP/s
 * against 182 for the best row before, 1024x1024x4096 472 against 329, 128x8192x8192 341 against
 * 285, 256x4096x16384 542 against 495, without splitting K (splitting them measured slower:
 * 64x4096x4096 105 / 101 at split 2 / 4 against 116). 128x128 (6 stages), 128x256 (4) and 64x256
 * (5) rings of the same depth were never the fastest and are not rows.
 */
/* One row per line, whatever its length. */
/* clang-format off */
const matmul_config matmul_configs[] = {
    /* name                template              class          cc       BM   BN   BK  G  W  S  split  eff   b/SM  defines path setup_us off_sector{A, B, both} */
    {"wgmma_ws_128x256x64_s3", "gemm.tir", MM_CLASS_F16, 90, 0, 128, 256, 64, 8, 8, 3, 8, 0.69, 1, NULL, 0, 3.0, {0.97, 0.84, 0.75}},
    {"wgmma_ws_cl2_128x256x64_s3", "gemm.tir", MM_CLASS_F16, 90, 0, 128, 256, 64, 8, 8, 3, 1, 0.69, 1, NULL, 3, 3.0, {0.96, 0.97, 0.93}},
    {"wgmma_128x256x64_s3_cp", "gemm.tir", MM_CLASS_F16, 90, 0, 128, 256, 64, 8, 8, 3, 8, 0.72, 1, NULL, 2, 0, {0.92, 0.92, 0.86}},
    {"wgmma_pairs_128x128x64_s4", "gemm.tir", MM_CLASS_F16, 90, 0, 128, 128, 64, 8, 4, 4, 16, 0.66, 1, NULL, 0, 3.0, {0.85, 0.92, 0.73}},
    {"wgmma_pairs_cl2_128x128x64_s4", "gemm.tir", MM_CLASS_F16, 90, 0, 128, 128, 64, 8, 4, 4, 1, 0.63, 1, NULL, 3, 3.0, {0.98, 0.97, 0.95}},
    {"wgmma_pp_128x128x64_s3", "gemm.tir", MM_CLASS_F16, 90, 0, 128, 128, 64, 8, 4, 3, 16, 0.64, 1, NULL, 1, 3.0, {0.88, 0.74, 0.69}},
    {"wgmma_128x128x64_s3_cp", "gemm.tir", MM_CLASS_F16, 90, 0, 128, 128, 64, 8, 4, 3, 16, 0.60, 2, NULL, 2, 0, {0.88, 0.94, 0.74}},
    {"wgmma_pairs_128x128x32_s4", "gemm.tir", MM_CLASS_F16, 90, 0, 128, 128, 32, 8, 4, 4, 16, 0.64, 1, NULL, 0, 3.0, {0.67, 0.87, 0.60}},
    {"wgmma_128x128x32_s4_cp", "gemm.tir", MM_CLASS_F16, 90, 0, 128, 128, 32, 8, 4, 4, 16, 0.56, 2, NULL, 2, 0, {0.88, 0.93, 0.80}},
    {"wgmma_tail_128x256x64_s3_cp", "gemm_tail_split.tir", MM_CLASS_F16, 90, 0, 128, 256, 64, 8, 8, 3, 1, 0.72, 1, NULL, 2, 0, {0.92, 0.92, 0.86}},
    {"wgmma_64x128x64_s8_cp", "gemm.tir", MM_CLASS_F16, 90, 0, 64, 128, 64, 8, 4, 8, 1, 0.50, 1, NULL, 2, 0, {0.96, 1.00, 0.86}},
    {"wgmma_128x64x64_s8_cp", "gemm.tir", MM_CLASS_F16, 90, 0, 128, 64, 64, 8, 4, 8, 1, 0.45, 1, NULL, 2, 0, {0.91, 0.94, 0.80}},
    {"wgmma_64x128x32_s4", "gemm.tir", MM_CLASS_F16, 90, 0, 64, 128, 32, 8, 4, 4, 16, 0.45, 4, NULL, 0, 0, {0.94, 0.94, 0.88}},
    {"wgmma_128x64x32_s4", "gemm.tir", MM_CLASS_F16, 90, 0, 128, 64, 32, 8, 4, 4, 16, 0.45, 4, NULL, 0, 0, {0.94, 0.94, 0.88}},
    {"mma_128x128x32_s4", "gemm.tir", MM_CLASS_F16, 80, 89, 128, 128, 32, 8, 4, 4, 16, 0.46, 2, NULL, 0, 0, {1.00, 1.00, 1.00}},
    {"mma_128x128x64_s3", "gemm.tir", MM_CLASS_F16, 80, 89, 128, 128, 64, 8, 4, 3, 16, 0.43, 2, NULL, 0, 0, {1.00, 1.00, 1.00}},
    {"mma_128x256x64_s3", "gemm.tir", MM_CLASS_F16, 80, 89, 128, 256, 64, 8, 8, 3, 8, 0.40, 1, NULL, 0, 0, {1.00, 1.00, 1.00}},
    {"mma_64x256x32_s4", "gemm.tir", MM_CLASS_F16, 80, 89, 64, 256, 32, 8, 4, 4, 16, 0.38, 2, NULL, 0, 0, {1.00, 1.00, 1.00}},
    {"mma_128x64x32_s4", "gemm.tir", MM_CLASS_F16, 80, 89, 128, 64, 32, 8, 4, 4, 16, 0.36, 4, NULL, 0, 0, {1.00, 1.00, 1.00}},
    {"mma_64x128x32_s4", "gemm.tir", MM_CLASS_F16, 80, 89, 64, 128, 32, 8, 4, 4, 16, 0.36, 4, NULL, 0, 0, {1.00, 1.00, 1.00}},
    {"mma_128x32x32_s4", "gemm.tir", MM_CLASS_F16, 80, 0, 128, 32, 32, 8, 4, 4, 16, 0.25, 5, NULL, 0, 0, {1.00, 1.00, 1.00}},
    {"mma_64x32x32_s5_w2", "gemm.tir", MM_CLASS_F16, 80, 0, 64, 32, 32, 8, 2, 5, 16, 0.20, 8, NULL, 0, 0, {1.00, 1.00, 1.00}},
    {"mma_32x64x32_s5_w2", "gemm.tir", MM_CLASS_F16, 80, 0, 32, 64, 32, 8, 2, 5, 16, 0.20, 8, NULL, 0, 0, {1.00, 1.00, 1.00}},
    /* tf32: k8 MMAs, 4-byte elements (half the tile depth for the same shared memory) */
    {"tf32_128x128x32_s3", "gemm.tir", MM_CLASS_TF32, 80, 0, 128, 128, 32, 8, 4, 3, 16, 0.40, 1, NULL, 0, 0, {1.00, 1.00, 1.00}},
    {"tf32_128x64x32_s3", "gemm.tir", MM_CLASS_TF32, 80, 0, 128, 64, 32, 8, 4, 3, 16, 0.35, 2, NULL, 0, 0, {1.00, 1.00, 1.00}},
    {"tf32_64x64x32_s3", "gemm.tir", MM_CLASS_TF32, 80, 0, 64, 64, 32, 8, 4, 3, 16, 0.28, 4, NULL, 0, 0, {1.00, 1.00, 1.00}},
    /* full f32 on FMA units (no tensor cores, no cp.async pipelining) */
    {"fma_64x64x16", "gemm.tir", MM_CLASS_F32, 80, 0, 64, 64, 16, 8, 4, 1, 16, 0.30, 4, NULL, 0, 0, {1.00, 1.00, 1.00}},
    {"fma_32x32x16", "gemm.tir", MM_CLASS_F32, 80, 0, 32, 32, 16, 8, 4, 1, 16, 0.15, 8, NULL, 0, 0, {1.00, 1.00, 1.00}},
    /* int8: k32 MMAs */
    {"i8_128x128x64_s3", "gemm.tir", MM_CLASS_I8, 80, 0, 128, 128, 64, 8, 4, 3, 16, 0.40, 2, NULL, 0, 0, {1.00, 1.00, 1.00}},
    {"i8_128x64x64_s3", "gemm.tir", MM_CLASS_I8, 80, 0, 128, 64, 64, 8, 4, 3, 16, 0.34, 4, NULL, 0, 0, {1.00, 1.00, 1.00}},
    {"i8_64x64x64_s3", "gemm.tir", MM_CLASS_I8, 80, 0, 64, 64, 64, 8, 4, 3, 16, 0.25, 6, NULL, 0, 0, {1.00, 1.00, 1.00}},
    /* fp8 (sm_89+): where no fp8 MMA fits, accelerate-matmul gives the dot f16 operands
     * (tt.fp_to_fp after the loads), so this runs at f16 mma.sync speed (a guess). */
    {"f8_128x128x64_s3", "gemm.tir", MM_CLASS_F8, 89, 0, 128, 128, 64, 8, 4, 3, 16, 0.40, 2, NULL, 0, 0, {1.00, 1.00, 1.00}},
};
/* clang-format on */
const int matmul_num_configs = sizeof matmul_configs / sizeof matmul_configs[0];

/* Peak dense throughput per SM (TFLOP/s, TOP/s for int8) by class, DRAM and L2 bandwidth.
 * The first matching row wins. tile start: fitted on the H100 (perf-notes 60: the model's pick
 * against the best of 11 measured rows on 55 shapes, geometric mean 0.983 -> 0.992 with 2 us);
 * 0 where nothing was measured. */
const matmul_machine matmul_machines[] = {
    /* cc range      f16     tf32    f32     i8      f8        DRAM GB/s  L2 GB/s  launch us  tile start us */
    {90, 99, {7.49, 3.74, 0.51, 14.99, 14.99}, 4000.0, 10000.0, 3.0, 2.0}, /* H100 / H200 SXM: 989 TF / 132 SMs */
    {89, 89, {1.38, 0.69, 0.65, 2.76, 2.76}, 864.0, 3000.0, 3.0, 0},       /* L40S-class */
    {86, 88, {0.89, 0.45, 0.43, 1.78, 0.0}, 760.0, 2500.0, 3.0, 0},        /* A10/A40/RTX 30 */
    {80, 85, {2.89, 1.44, 0.18, 5.78, 0.0}, 1900.0, 5000.0, 3.0, 0},       /* A100: 312 TF / 108 SMs */
    {0, 1000, {1.0, 0.5, 0.2, 2.0, 2.0}, 1000.0, 3000.0, 3.0, 0},          /* anything else */
};
const int matmul_num_machines = sizeof matmul_machines / sizeof matmul_machines[0];

/* Split-K's reduce kernel (gemm_splitk_reduce.tir): 32 x 128 tiles, 4 warps. */
const int matmul_reduce_block_m = 32, matmul_reduce_block_n = 128, matmul_reduce_num_warps = 4;

const int matmul_split_choices[] = {1, 2, 3, 4, 6, 8, 12, 16};
const int matmul_num_split_choices = sizeof matmul_split_choices / sizeof matmul_split_choices[0];

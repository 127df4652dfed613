/* Unit test of gemmc_matmul's host side without a GPU: argument checks, the move from cuBLAS's column-major operands to the kernels' row-major coordinates (checked by evaluating the kernel's formula on host memory), argument facts, and the model's choices. */
#include "matmul/matmul_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static uint64_t rng_state = 12345;
static uint64_t next_u64(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static int64_t rand_in(int64_t lo, int64_t hi) { return lo + (int64_t)(next_u64() % (uint64_t)(hi - lo + 1)); }

/* The template's formula on host floats: D'[b](i, j) = alpha sum_kk A'(i, kk) B'(kk, j) + beta C'(i, j) + bias[j],
 * every operand addressed as the kernel addresses it (pointer slots, element strides). */
static float kernel_formula(const mm_problem *p, int64_t b, int64_t i, int64_t j) {
  const uint64_t *v = p->values;
  const float *a = (const float *)(uintptr_t)v[MM_SLOT_A_PTR], *bm = (const float *)(uintptr_t)v[MM_SLOT_B_PTR];
  const float *c = (const float *)(uintptr_t)v[MM_SLOT_C_PTR], *bias = (const float *)(uintptr_t)v[MM_SLOT_BIAS_PTR];
  int64_t sam = (int64_t)v[MM_SLOT_STRIDE_AM], sak = (int64_t)v[MM_SLOT_STRIDE_AK], sbk = (int64_t)v[MM_SLOT_STRIDE_BK],
          sbn = (int64_t)v[MM_SLOT_STRIDE_BN], scm = (int64_t)v[MM_SLOT_STRIDE_CM], scn = (int64_t)v[MM_SLOT_STRIDE_CN];
  double sum = 0;
  for (int64_t kk = 0; kk < p->K; kk++)
    sum += (double)a[b * (int64_t)v[MM_SLOT_STRIDE_AB] + i * sam + kk * sak] *
           (double)bm[b * (int64_t)v[MM_SLOT_STRIDE_BB] + kk * sbk + j * sbn];
  float alpha, beta;
  uint32_t bits = (uint32_t)v[MM_SLOT_ALPHA];
  memcpy(&alpha, &bits, 4);
  bits = (uint32_t)v[MM_SLOT_BETA];
  memcpy(&beta, &bits, 4);
  double out = alpha * sum;
  if (p->has_c) out += beta * (double)c[b * (int64_t)v[MM_SLOT_STRIDE_CB] + i * scm + j * scn];
  if (p->has_bias) out += bias[j];
  return (float)out;
}

static void test_mapping(void) {
  for (int trial = 0; trial < 200; trial++) {
    gemmc_matmul_desc d;
    gemmc_matmul_desc_init(&d);
    d.a_type = d.b_type = d.c_type = d.d_type = GEMMC_R_32F;
    d.compute = GEMMC_COMPUTE_32F;
    d.transa = next_u64() % 2 ? GEMMC_OP_T : GEMMC_OP_N;
    d.transb = next_u64() % 2 ? GEMMC_OP_T : GEMMC_OP_N;
    d.m = rand_in(1, 9), d.n = rand_in(1, 9), d.k = rand_in(1, 9), d.batch_count = rand_in(1, 3);
    int64_t a_rows = d.transa == GEMMC_OP_N ? d.m : d.k, a_cols = d.transa == GEMMC_OP_N ? d.k : d.m;
    int64_t b_rows = d.transb == GEMMC_OP_N ? d.k : d.n, b_cols = d.transb == GEMMC_OP_N ? d.n : d.k;
    d.lda = a_rows + rand_in(0, 3), d.ldb = b_rows + rand_in(0, 3), d.ldc = d.m + rand_in(0, 3), d.ldd = d.m + rand_in(0, 3);
    d.stride_a = d.lda * a_cols + rand_in(0, 5), d.stride_b = d.ldb * b_cols + rand_in(0, 5);
    d.stride_c = d.ldc * d.n + rand_in(0, 5), d.stride_d = d.ldd * d.n;
    float alpha = (float)rand_in(-3, 3) * 0.5f, beta = (float)rand_in(-2, 2) * 0.5f;
    if (alpha == 0) alpha = 1;
    d.alpha = &alpha, d.beta = &beta;
    float *A = malloc(sizeof(float) * (size_t)(d.stride_a * d.batch_count)), *B = malloc(sizeof(float) * (size_t)(d.stride_b * d.batch_count));
    float *C = malloc(sizeof(float) * (size_t)(d.stride_c * d.batch_count)), *bias = malloc(sizeof(float) * (size_t)d.m);
    float *D = malloc(sizeof(float) * (size_t)(d.stride_d * d.batch_count));
    for (int64_t q = 0; q < d.stride_a * d.batch_count; q++) A[q] = (float)rand_in(-4, 4);
    for (int64_t q = 0; q < d.stride_b * d.batch_count; q++) B[q] = (float)rand_in(-4, 4);
    for (int64_t q = 0; q < d.stride_c * d.batch_count; q++) C[q] = (float)rand_in(-4, 4);
    for (int64_t q = 0; q < d.m; q++) bias[q] = (float)rand_in(-4, 4);
    d.A = A, d.B = B, d.C = C, d.D = D;
    d.bias = next_u64() % 2 ? bias : NULL;
    mm_problem p;
    gemmc_status st = mm_problem_from_desc(&d, &p);
    CHECK(st.code == GEMMC_OK, "trial %d: %s", trial, st.message);
    CHECK(p.M == d.n && p.N == d.m, "kernel M = n, N = m");
    bool all_ok = true;
    for (int64_t b = 0; b < d.batch_count && all_ok; b++)
      for (int64_t i = 0; i < d.m && all_ok; i++)
        for (int64_t j = 0; j < d.n && all_ok; j++) {
          /* cuBLAS: D(i, j) = alpha sum op(A)(i, kk) op(B)(kk, j) + beta C(i, j) + bias[i] */
          double sum = 0;
          for (int64_t kk = 0; kk < d.k; kk++) {
            double a = d.transa == GEMMC_OP_N ? A[b * d.stride_a + i + kk * d.lda] : A[b * d.stride_a + kk + i * d.lda];
            double bv = d.transb == GEMMC_OP_N ? B[b * d.stride_b + kk + j * d.ldb] : B[b * d.stride_b + j + kk * d.ldb];
            sum += a * bv;
          }
          double want = alpha * sum + (beta != 0 ? beta * C[b * d.stride_c + i + j * d.ldc] : 0) + (d.bias ? bias[i] : 0);
          /* The kernel writes D'(j, i) at D + b stride_db + j stride_dm + i stride_dn. */
          float got = kernel_formula(&p, b, j, i);
          int64_t at = b * (int64_t)p.values[MM_SLOT_STRIDE_DB] + j * (int64_t)p.values[MM_SLOT_STRIDE_DM] +
                       i * (int64_t)p.values[MM_SLOT_STRIDE_DN];
          all_ok = fabs(got - want) < 1e-3 && at == b * d.stride_d + i + j * d.ldd;
          CHECK(all_ok, "trial %d (%c%c m%lld n%lld k%lld): D(%lld,%lld) got %g want %g, store at %lld", trial,
                d.transa ? 'T' : 'N', d.transb ? 'T' : 'N', (long long)d.m, (long long)d.n, (long long)d.k, (long long)i,
                (long long)j, got, want, (long long)at);
        }
    free(A), free(B), free(C), free(bias), free(D);
  }
}

static void test_checks(void) {
  gemmc_matmul_desc d;
  gemmc_matmul_desc_init(&d);
  float one = 1, zero = 0;
  d.alpha = &one, d.beta = &zero;
  d.m = d.n = d.k = 64, d.lda = d.ldb = d.ldc = d.ldd = 64;
  d.A = d.B = d.D = (void *)(uintptr_t)4096;
  mm_problem p;
  CHECK(mm_problem_from_desc(&d, &p).code == GEMMC_OK, "a plain f16 GEMM");
  CHECK(!p.has_c && !p.has_alpha, "alpha 1 and beta 0 need no epilogue");
  uint64_t div = mm_div_of_values(p.values);
  uint32_t unit = mm_unit_of_values(p.values);
  CHECK(mm_div_of_slot(div, MM_SLOT_A_PTR) == 16 && mm_div_of_slot(div, MM_SLOT_M) == 16 && (unit >> MM_SLOT_STRIDE_AK) & 1 &&
            (unit >> MM_SLOT_STRIDE_BN) & 1,
        "aligned NN: 16-divisible pointers and sizes, unit K stride of A' and N stride of B'");
  d.A = (void *)(uintptr_t)4098;
  mm_problem_from_desc(&d, &p);
  div = mm_div_of_values(p.values);
  CHECK(mm_div_of_slot(div, MM_SLOT_B_PTR) == 1, "a pointer off by one f16 is not even 4-byte aligned (B' is cuBLAS's A)");
  d.A = (void *)(uintptr_t)4104;
  d.m = d.n = d.k = 1000, d.lda = d.ldb = d.ldc = d.ldd = 1000;
  mm_problem_from_desc(&d, &p);
  div = mm_div_of_values(p.values);
  CHECK(mm_div_of_slot(div, MM_SLOT_B_PTR) == 8 && mm_div_of_slot(div, MM_SLOT_K) == 8 &&
            mm_div_of_slot(div, MM_SLOT_STRIDE_BK) == 8 && mm_div_of_slot(div, MM_SLOT_A_PTR) == 16,
        "1000 and a pointer 8 bytes past 4096 divide by 8, not 16");
  unit = mm_unit_of_values(p.values);
  CHECK(mm_operand_rows_off_sector(unit, div, 2, 'a') && mm_operand_rows_off_sector(unit, div, 2, 'b'),
        "f16 rows 2000 bytes apart may start 16 bytes off a sector");
  CHECK(!mm_operand_rows_off_sector(unit, div, 4, 'a') && !mm_operand_rows_off_sector(unit, div, 1, 'b'),
        "f32 rows 4000 bytes apart start on sectors; 1-byte rows cannot be told");
  d.ldb = 1024;
  mm_problem_from_desc(&d, &p);
  div = mm_div_of_values(p.values), unit = mm_unit_of_values(p.values);
  CHECK(!mm_operand_rows_off_sector(unit, div, 2, 'a') && mm_operand_rows_off_sector(unit, div, 2, 'b'),
        "ldb 1024, lda 1000: A' (cuBLAS's B) on sectors, B' (cuBLAS's A) not");
  d.ldb = 1000;
  d.lda = 1004;
  mm_problem_from_desc(&d, &p);
  CHECK(mm_div_of_slot(mm_div_of_values(p.values), MM_SLOT_STRIDE_BK) == 4, "1004 divides by 4");
  CHECK(mm_div_of_slot(mm_div_keep(mm_div_of_values(p.values), 1u << MM_SLOT_K), MM_SLOT_STRIDE_BK) == 1 &&
            mm_div_of_slot(mm_div_keep(mm_div_of_values(p.values), 1u << MM_SLOT_K), MM_SLOT_K) == 8,
        "mm_div_keep keeps only the given slots");
  d.m = d.n = d.k = 64, d.lda = d.ldb = d.ldc = d.ldd = 64;
  d.A = (void *)(uintptr_t)4098;
  d.lda = 10;
  CHECK(mm_problem_from_desc(&d, &p).code == GEMMC_ERROR_INVALID_ARGUMENT, "lda < m");
  d.lda = INT64_MAX; /* (k - 1) * lda overflows int64: checked, not undefined */
  CHECK(mm_problem_from_desc(&d, &p).code == GEMMC_ERROR_UNSUPPORTED, "lda of 2^63 - 1 spans more than 2^31");
  d.lda = ((int64_t)1 << 31) / 63 + 1;
  CHECK(mm_problem_from_desc(&d, &p).code == GEMMC_ERROR_UNSUPPORTED, "63 * lda just past 2^31");
  d.lda = 64;
  d.a_type = GEMMC_R_16BF;
  CHECK(mm_problem_from_desc(&d, &p).code == GEMMC_ERROR_UNSUPPORTED, "mixed input types");
  d.a_type = d.b_type = GEMMC_R_8I;
  d.c_type = d.d_type = GEMMC_R_32I;
  d.compute = GEMMC_COMPUTE_32I;
  int32_t ione = 1, izero = 0;
  d.alpha = &ione, d.beta = &izero;
  CHECK(mm_problem_from_desc(&d, &p).code == GEMMC_OK && p.cls == MM_CLASS_I8 && p.acc == MM_ACC_I32, "int8 -> int32");
  d.activation = GEMMC_ACT_RELU;
  CHECK(mm_problem_from_desc(&d, &p).code == GEMMC_ERROR_UNSUPPORTED, "no int8 activation");
  gemmc_matmul_desc_init(&d);
  d.alpha = &one, d.beta = &zero;
  d.m = 0, d.n = 5, d.k = 5, d.lda = d.ldb = d.ldd = 5;
  CHECK(mm_problem_from_desc(&d, &p).code == GEMMC_OK && p.N == 0, "m = 0 is nothing to do");
  d.m = 5, d.batch_count = 0;
  CHECK(mm_problem_from_desc(&d, &p).code == GEMMC_OK && p.batch == 0, "batch_count = 0 is nothing to do");
  d.batch_count = 70000;
  d.A = d.B = d.D = (void *)(uintptr_t)4096;
  CHECK(mm_problem_from_desc(&d, &p).code == GEMMC_ERROR_UNSUPPORTED, "batches above 65535 say so");
  d.batch_count = 1;
  d.a_type = d.b_type = GEMMC_R_8F_E4M3;
  CHECK(mm_problem_from_desc(&d, &p).code == GEMMC_OK && p.cls == MM_CLASS_F8, "fp8 reaches the kernel builder");
}

static void test_model(void) {
  gemmc_device_info h200;
  memset(&h200, 0, sizeof h200);
  snprintf(h200.name, sizeof h200.name, "NVIDIA H200");
  h200.compute_capability_major = 9, h200.multiprocessor_count = 132;
  gemmc_matmul_desc d;
  gemmc_matmul_desc_init(&d);
  float one = 1, zero = 0;
  d.alpha = &one, d.beta = &zero;
  d.A = d.B = d.D = (void *)(uintptr_t)4096;
  static const int64_t sizes[][4] = {{4096, 4096, 4096, 1}, {8192, 8192, 8192, 1}, {4096, 4096, 4096, 16}};
  for (int s = 0; s < 3; s++) {
    d.m = d.n = sizes[s][0], d.k = sizes[s][2], d.batch_count = sizes[s][3];
    d.lda = d.ldb = d.ldd = d.m, d.stride_a = d.stride_b = d.stride_d = d.m * d.m;
    mm_problem p;
    CHECK(mm_problem_from_desc(&d, &p).code == GEMMC_OK, "a valid %lld^3", (long long)d.m);
    mm_choice c;
    CHECK(mm_choose(&p, &h200, false, &c), "a choice for %lld^3", (long long)d.m);
    /* Measured through gemmc_matmul with a cold L2 (H100, 2026-11-25, perf-notes 55): the 128x256
     * cp.async row, 731 / 756 / 741 TFLOP/s against the warp-specialized row's 697 / 703 / 655. */
    const char *name = matmul_configs[c.config].name;
    bool ok = !strcmp(name, "wgmma_128x256x64_s3_cp");
    CHECK(c.split == 1 && ok, "big f16 GEMMs take the measured best config (got %s split %d)", name, c.split);
  }
  /* 2048^3: one tile per SM, where the persistent kernel's setup shows: the cp.async row. */
  {
    d.m = d.n = d.k = 2048, d.batch_count = 1;
    d.lda = d.ldb = d.ldd = 2048, d.stride_a = d.stride_b = d.stride_d = 2048 * 2048;
    mm_problem p;
    mm_choice c;
    CHECK(mm_problem_from_desc(&d, &p).code == GEMMC_OK && mm_choose(&p, &h200, false, &c) &&
              !strcmp(matmul_configs[c.config].name, "wgmma_128x256x64_s3_cp"),
          "2048^3 takes the cp.async 128x256 row (got %s)", c.config >= 0 ? matmul_configs[c.config].name : "none");
  }
  /* Rows 16 bytes off a 32-byte sector (leading dimensions of 8 mod 16 f16 elements): measured
   * through gemmc_matmul (H100, 2026-11-25, perf-notes 58), the cluster row ran 3000^3 at 455
   * TFLOP/s against 393 for the row the model took before (pairs) and 7000^3 at 634 against 583
   * (the cp.async 128x256 row); one element more per row (3008) keeps the aligned choice. The
   * pairs cluster row (H100, 2026-12-07, perf-notes 69) ran 3000^3 at 480 and 5000^3 at 594
   * against the 8-warp cluster row's 455 / 557, and 7000^3 at 605 against its 637. */
  static const struct {
    int64_t mnk, ld;
    const char *want;
  } sector_cases[] = {{3000, 3000, "wgmma_pairs_cl2_128x128x64_s4"},
                      {5000, 5000, "wgmma_pairs_cl2_128x128x64_s4"},
                      {7000, 7000, "wgmma_ws_cl2_128x256x64_s3"},
                      {3008, 3008, "wgmma_pairs_128x128x64_s4"},
                      {4096, 4096, "wgmma_128x256x64_s3_cp"}};
  for (size_t s = 0; s < sizeof sector_cases / sizeof sector_cases[0]; s++) {
    d.m = d.n = d.k = sector_cases[s].mnk, d.batch_count = 1;
    d.lda = d.ldb = d.ldd = sector_cases[s].ld, d.stride_a = d.stride_b = d.stride_d = 0;
    mm_problem p;
    mm_choice c;
    CHECK(mm_problem_from_desc(&d, &p).code == GEMMC_OK && mm_choose(&p, &h200, false, &c) &&
              !strcmp(matmul_configs[c.config].name, sector_cases[s].want),
          "%lld^3 (ld %lld) takes %s (got %s)", (long long)d.m, (long long)d.lda, sector_cases[s].want,
          c.config >= 0 ? matmul_configs[c.config].name : "none");
  }
  /* Short K on many tiles: a kernel that is not persistent fills its ring again for every tile
   * (the machine's tile start); measured (perf-notes 60) the warp-specialized row ran 4096 x 4096
   * x 512 at 475 TFLOP/s and 8192 x 8192 x 256 at 405-411 against the cp.async row's 456 / 347. */
  static const int64_t short_k[][2] = {{4096, 512}, {8192, 256}};
  for (int s = 0; s < 2; s++) {
    d.m = d.n = short_k[s][0], d.k = short_k[s][1], d.batch_count = 1;
    d.lda = d.ldd = d.m, d.ldb = d.k, d.stride_a = d.stride_b = d.stride_d = 0;
    mm_problem p;
    mm_choice c;
    CHECK(mm_problem_from_desc(&d, &p).code == GEMMC_OK && mm_choose(&p, &h200, false, &c) &&
              !strcmp(matmul_configs[c.config].name, "wgmma_ws_128x256x64_s3"),
          "%lldx%lldx%lld takes the persistent warp-specialized row (got %s)", (long long)d.m, (long long)d.n,
          (long long)d.k, c.config >= 0 ? matmul_configs[c.config].name : "none");
  }
  /* Small output, deep K: split-K. */
  d.m = d.n = 64, d.k = 16384, d.batch_count = 1, d.lda = d.ldd = 64, d.ldb = 16384;
  mm_problem p;
  CHECK(mm_problem_from_desc(&d, &p).code == GEMMC_OK, "a valid 64x64x16384");
  mm_choice c;
  CHECK(mm_choose(&p, &h200, false, &c) && c.split > 1, "64x64x16384 splits K (split %d)", c.split);
  CHECK(mm_choose(&p, &h200, true, &c) && c.split == 1, "batch-invariant never splits");
  /* Batch-invariant choices do not depend on cuBLAS's m (the kernel's N). */
  int first = -1;
  bool same = true;
  for (int64_t m = 1; m <= 8192; m *= 3) {
    d.m = m, d.n = 512, d.k = 1024, d.lda = m, d.ldb = 1024, d.ldd = m;
    CHECK(mm_problem_from_desc(&d, &p).code == GEMMC_OK, "a valid m = %lld", (long long)m);
    mm_choose(&p, &h200, true, &c);
    if (first < 0) first = c.config;
    same &= c.config == first;
  }
  CHECK(same, "the batch-invariant config is the same for every m");
  /* Every class has a row on Hopper; fp8 has none on sm_80. */
  gemmc_device_info a100 = h200;
  a100.compute_capability_major = 8, a100.multiprocessor_count = 108;
  d.m = d.n = d.k = 256, d.lda = d.ldb = d.ldd = 256;
  d.a_type = d.b_type = GEMMC_R_8F_E4M3;
  CHECK(mm_problem_from_desc(&d, &p).code == GEMMC_OK, "a valid fp8 problem");
  CHECK(mm_choose(&p, &h200, false, &c) && !mm_choose(&p, &a100, false, &c), "fp8 rows only on sm_89+");
  /* Names are unique. */
  for (int i = 0; i < matmul_num_configs; i++)
    for (int j = i + 1; j < matmul_num_configs; j++)
      CHECK(strcmp(matmul_configs[i].name, matmul_configs[j].name), "duplicate config name %s", matmul_configs[i].name);
}

/* The tail split's shape: the tiles past the last whole wave shared by K, every shared block
 * resident at once, segments of two K steps at least, flags enough; the model leaves the rows to
 * tuning and forcing, and batch invariance never gets them. */
static void test_tail_split(void) {
  gemmc_device_info h100;
  memset(&h100, 0, sizeof h100);
  h100.compute_capability_major = 9, h100.multiprocessor_count = 132;
  int row = mm_config_find("wgmma_tail_128x256x64_s3_cp");
  CHECK(row >= 0 && mm_config_is_tail_split(&matmul_configs[row]), "the table has the tail-split row");
  if (row < 0) return;
  const matmul_config *c = &matmul_configs[row];
  gemmc_matmul_desc d;
  gemmc_matmul_desc_init(&d);
  float one = 1, zero = 0;
  d.alpha = &one, d.beta = &zero;
  d.A = d.B = d.D = (void *)(uintptr_t)4096;
  /* cuBLAS m x n x k (the kernel's N x M x K): tiles, shared tiles, the least and most ways. */
  static const struct {
    int64_t m, n, k, batch, tiles, shared, min_ways, max_ways;
  } cases[] = {
      {1024, 1024, 8192, 1, 32, 32, 2, 4},   /* fewer tiles than SMs, long K: split */
      {4096, 4096, 4096, 1, 512, 116, 1, 1}, /* 116 tiles past 3 waves: no room to split them */
      {3072, 3072, 3072, 1, 288, 24, 2, 5},  /* 24 tiles past 2 waves */
      {1000, 300, 0, 1, 12, 12, 1, 1},       /* K = 0: one step, the epilogue alone */
      {256, 256, 100, 1, 2, 2, 1, 1},        /* two K steps: segments of two steps at least */
      {512, 512, 4096, 3, 24, 24, 2, 5},     /* a batch: tiles of every matrix */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    d.m = cases[i].m, d.n = cases[i].n, d.k = cases[i].k, d.batch_count = cases[i].batch;
    d.lda = d.ldd = d.m, d.ldb = d.k > 0 ? d.k : 1;
    d.stride_a = d.m * d.k, d.stride_b = d.k * d.n, d.stride_d = d.m * d.n;
    mm_problem p;
    CHECK(mm_problem_from_desc(&d, &p).code == GEMMC_OK, "a valid %lldx%lldx%lld", (long long)d.m, (long long)d.n,
          (long long)d.k);
    mm_tail_split_shape k = mm_tail_split_shape_of(&p, &h100, c);
    CHECK(k.tiles == cases[i].tiles && k.shared_tiles == cases[i].shared,
          "%lldx%lldx%lld: %lld tiles, %lld shared (got %lld, %lld)", (long long)d.m, (long long)d.n, (long long)d.k,
          (long long)cases[i].tiles, (long long)cases[i].shared, (long long)k.tiles, (long long)k.shared_tiles);
    CHECK(k.ways >= cases[i].min_ways && k.ways <= cases[i].max_ways, "%lldx%lldx%lld: %lld to %lld ways (got %lld)",
          (long long)d.m, (long long)d.n, (long long)d.k, (long long)cases[i].min_ways, (long long)cases[i].max_ways,
          (long long)k.ways);
    CHECK(k.shared_tiles * k.ways <= k.slots && k.slots == 132 && k.shared_tiles * k.ways <= MM_TAIL_SPLIT_MAX_BLOCKS,
          "every shared block resident at once, and flagged");
    CHECK(k.ways == 1 || k.k_steps >= 2 * k.ways, "segments of two K steps at least");
    CHECK(k.grid == k.shared_tiles * k.ways + k.tiles - k.shared_tiles, "the grid: shared blocks, then whole tiles");
    CHECK(mm_workspace_bytes(&p, &h100, row, 1) == (uint64_t)(k.shared_tiles * k.ways) * 128 * 256 * 4,
          "one f32 tile of partial sums per shared block");
    CHECK(mm_config_serves(&p, &h100, row, 1) && !mm_config_serves(&p, &h100, row, 2), "the row serves, unsplit only");
    mm_choice choice;
    CHECK(mm_choose(&p, &h100, false, &choice) && !mm_config_is_tail_split(&matmul_configs[choice.config]),
          "the model leaves the tail-split row to tuning");
    CHECK(!mm_config_keeps_rows_invariant(row, 1), "a tail split is not batch invariant");
    CHECK(mm_predict_ms(&p, &h100, row, 1) > 0, "the model prices the row (for the tuner's list)");
  }
  gemmc_device_info a100 = h100;
  a100.compute_capability_major = 8;
  mm_problem p;
  d.m = d.n = d.k = 1024, d.batch_count = 1, d.lda = d.ldb = d.ldd = 1024;
  CHECK(mm_problem_from_desc(&d, &p).code == GEMMC_OK && !mm_config_serves(&p, &a100, row, 1), "wgmma rows: sm_90 only");
}

int main(void) {
  test_mapping();
  test_checks();
  test_model();
  test_tail_split();
  printf("%d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}

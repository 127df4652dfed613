/* A program that uses an installed gemmc (headers and libgemmc only): compiles a kernel, and on a GPU runs gemmc_matmul and checks it. */
#include <gemmc/gemmc.h>
#include <gemmc/matmul.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char kernel[] =
    "module {\n"
    "  tt.func public @fill(%out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) attributes {noinline = false} {\n"
    "    %c = arith.constant dense<4.200000e+01> : tensor<256xf32>\n"
    "    %offs = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>\n"
    "    %base = tt.splat %out : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>\n"
    "    %ptrs = tt.addptr %base, %offs : tensor<256x!tt.ptr<f32>>, tensor<256xi32>\n"
    "    tt.store %ptrs, %c : tensor<256x!tt.ptr<f32>>\n"
    "    tt.return\n"
    "  }\n"
    "}\n";

int main(void) {
  printf("gemmc %s\n", gemmc_version());
  gemmc_context *ctx = gemmc_context_create();
  gemmc_compiled *c = NULL;
  if (!ctx || !gemmc_compile(ctx, kernel, strlen(kernel), "fill.tir", NULL, &c)) {
    fprintf(stderr, "compile failed:\n%s", c ? gemmc_compiled_diagnostics(c) : "out of memory\n");
    return 1;
  }
  size_t len = 0;
  gemmc_compiled_ptx(c, &len);
  printf("compiled %s: %zu bytes of PTX\n", gemmc_compiled_kernel(c)->name, len);
  gemmc_compiled_destroy(c);
  gemmc_context_destroy(ctx);

  gemmc_handle *h = NULL;
  gemmc_status st = gemmc_handle_create(NULL, &h);
  if (st.code == GEMMC_ERROR_NO_DRIVER) {
    printf("no CUDA driver: skipping gemmc_matmul (%s)\n", st.message);
    return 0;
  }
  if (st.code != GEMMC_OK) {
    fprintf(stderr, "gemmc_handle_create: %s\n", st.message);
    return 1;
  }
  /* D = A B, 96 x 80 x 64, f32 in and out, column-major. */
  enum { M = 96, N = 80, K = 64 };
  static float a[M * K], b[K * N], d[M * N];
  for (int i = 0; i < M * K; i++) a[i] = (float)((i * 7) % 13) - 6;
  for (int i = 0; i < K * N; i++) b[i] = (float)((i * 5) % 11) - 5;
  gemmc_runtime *rt = gemmc_handle_runtime(h);
  gemmc_devptr da, db, dd;
  float one = 1, zero = 0;
  if (gemmc_runtime_mem_alloc(rt, sizeof a, &da).code || gemmc_runtime_mem_alloc(rt, sizeof b, &db).code ||
      gemmc_runtime_mem_alloc(rt, sizeof d, &dd).code || gemmc_runtime_copy_htod(rt, da, a, sizeof a).code ||
      gemmc_runtime_copy_htod(rt, db, b, sizeof b).code)
    return 1;
  st = gemmc_matmul(h, GEMMC_OP_N, GEMMC_OP_N, M, N, K, &one, (void *)da, GEMMC_R_32F, M, (void *)db, GEMMC_R_32F, K, &zero,
                    NULL, GEMMC_R_32F, M, (void *)dd, GEMMC_R_32F, M, GEMMC_COMPUTE_32F);
  if (st.code == GEMMC_OK) st = gemmc_runtime_copy_dtoh(rt, d, dd, sizeof d);
  if (st.code != GEMMC_OK) {
    fprintf(stderr, "gemmc_matmul: %s\n", st.message);
    return 1;
  }
  int wrong = 0;
  for (int j = 0; j < N; j++)
    for (int i = 0; i < M; i++) {
      double sum = 0;
      for (int k = 0; k < K; k++) sum += (double)a[i + k * M] * b[k + j * K];
      wrong += fabs(d[i + j * M] - sum) > 1e-3;
    }
  printf("gemmc_matmul %dx%dx%d: %s\n", M, N, K, wrong ? "WRONG" : "correct");
  gemmc_handle_destroy(h);
  return wrong ? 1 : 0;
}

/* Host program of examples/transpose.tir: transposes a random M x N f32 matrix (1000 x 1000 by default) and checks every element. */
#include "example_common.h"

int main(int argc, char **argv) {
  example_args args;
  if (!example_parse_args(argc, argv, "transpose.tir", &args)) return 1;
  example ex;
  int started = example_start("transpose", &args, &ex);
  if (started <= 0) {
    example_finish(&ex);
    return started == 0 ? 0 : 1;
  }
  long m = example_arg(&args, "m", 1000), n = example_arg(&args, "n", 1000);
  long tile = example_constant(&ex, "TILE");
  const long guard = 1024;
  int result = 1;
  size_t count = (size_t)m * (size_t)n;
  float *src = malloc(count * sizeof *src), *dst = malloc((count + (size_t)guard) * sizeof *dst);
  gemmc_devptr dsrc = 0, ddst = 0;
  if (!src || !dst || tile <= 0 || m <= 0 || n <= 0 || count > INT32_MAX) {
    fprintf(stderr, "transpose: bad sizes (m=%ld, n=%ld, TILE=%ld) or out of memory\n", m, n, tile);
    goto fail;
  }
  uint64_t rng = ex.seed;
  for (size_t i = 0; i < count; i++) src[i] = example_uniform(&rng, -100.0f, 100.0f);
  EXAMPLE_CHECK(&ex, gemmc_runtime_mem_alloc(ex.rt, count * sizeof(float), &dsrc));
  EXAMPLE_CHECK(&ex, gemmc_runtime_mem_alloc(ex.rt, (count + (size_t)guard) * sizeof(float), &ddst));
  EXAMPLE_CHECK(&ex, gemmc_runtime_copy_htod(ex.rt, dsrc, src, count * sizeof(float)));
  EXAMPLE_CHECK(&ex, gemmc_runtime_memset_d32(ex.rt, ddst, EXAMPLE_POISON, count + (size_t)guard));
  /* src is m x n (row stride n); dst is n x m (row stride m). */
  int32_t src_stride = (int32_t)n, dst_stride = (int32_t)m, m32 = (int32_t)m, n32 = (int32_t)n;
  void *kargs[] = {&dsrc, &src_stride, &ddst, &dst_stride, &m32, &n32};
  unsigned gx = (unsigned)((m + tile - 1) / tile), gy = (unsigned)((n + tile - 1) / tile);
  EXAMPLE_CHECK(&ex, example_launch(&ex, gx, gy, kargs));
  EXAMPLE_CHECK(&ex, gemmc_runtime_copy_dtoh(ex.rt, dst, ddst, (count + (size_t)guard) * sizeof(float)));

  long bad = 0, first_i = -1, first_j = -1;
  for (long i = 0; i < m; i++)
    for (long j = 0; j < n; j++) {
      uint32_t got, want;
      memcpy(&got, &dst[j * m + i], sizeof got);
      memcpy(&want, &src[i * n + j], sizeof want);
      if (got != want) { /* a copy: bit-exact */
        if (first_i < 0) first_i = i, first_j = j;
        bad++;
      }
    }
  long guard_hits = 0;
  for (size_t k = count; k < count + (size_t)guard; k++) {
    uint32_t bits;
    memcpy(&bits, &dst[k], sizeof bits);
    guard_hits += bits != EXAMPLE_POISON;
  }
  printf("transpose: %ldx%ld TILE=%ld grid=%ux%u: %ld wrong, %ld writes past the end -> %s\n", m, n, tile, gx, gy,
         bad, guard_hits, bad || guard_hits ? "FAIL" : "PASS");
  if (bad)
    printf("  first wrong: dst[%ld][%ld] = %.9g, expected src[%ld][%ld] = %.9g\n", first_j, first_i,
           dst[first_j * m + first_i], first_i, first_j, src[first_i * n + first_j]);
  result = bad || guard_hits ? 1 : 0;
fail:
  if (dsrc) gemmc_runtime_mem_free(ex.rt, dsrc);
  if (ddst) gemmc_runtime_mem_free(ex.rt, ddst);
  free(src);
  free(dst);
  example_finish(&ex);
  return result;
}

/* Host program of examples/vector_add.tir: compiles it with libgemmc, runs z = x + y on random data, checks against the CPU. */
#include <math.h>

#include "example_common.h"

int main(int argc, char **argv) {
  example_args args;
  if (!example_parse_args(argc, argv, "vector_add.tir", &args)) return 1;
  example ex;
  int started = example_start("vector_add", &args, &ex);
  if (started <= 0) {
    example_finish(&ex);
    return started == 0 ? 0 : 1;
  }
  /* Ragged by default: not a multiple of any block size. */
  long n = example_arg(&args, "n", 1000003);
  long block = example_constant(&ex, "BLOCK");
  const long guard = 1024; /* poisoned elements after the output that the kernel must not touch */
  int result = 1;
  float *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
  float *z = malloc((size_t)(n + guard) * sizeof *z);
  gemmc_devptr dx = 0, dy = 0, dz = 0;
  if (!x || !y || !z || block <= 0 || n <= 0 || n > INT32_MAX) {
    fprintf(stderr, "vector_add: bad sizes (n=%ld, BLOCK=%ld) or out of memory\n", n, block);
    goto fail;
  }
  uint64_t rng = ex.seed;
  for (long i = 0; i < n; i++) {
    x[i] = example_uniform(&rng, -1.0f, 1.0f);
    y[i] = example_uniform(&rng, -1.0f, 1.0f);
  }
  EXAMPLE_CHECK(&ex, gemmc_runtime_mem_alloc(ex.rt, (size_t)n * sizeof(float), &dx));
  EXAMPLE_CHECK(&ex, gemmc_runtime_mem_alloc(ex.rt, (size_t)n * sizeof(float), &dy));
  EXAMPLE_CHECK(&ex, gemmc_runtime_mem_alloc(ex.rt, (size_t)(n + guard) * sizeof(float), &dz));
  EXAMPLE_CHECK(&ex, gemmc_runtime_copy_htod(ex.rt, dx, x, (size_t)n * sizeof(float)));
  EXAMPLE_CHECK(&ex, gemmc_runtime_copy_htod(ex.rt, dy, y, (size_t)n * sizeof(float)));
  EXAMPLE_CHECK(&ex, gemmc_runtime_memset_d32(ex.rt, dz, EXAMPLE_POISON, (size_t)(n + guard)));
  int32_t n32 = (int32_t)n;
  void *kargs[] = {&dx, &dy, &dz, &n32};
  unsigned grid = (unsigned)((n + block - 1) / block);
  EXAMPLE_CHECK(&ex, example_launch(&ex, grid, 1, kargs));
  EXAMPLE_CHECK(&ex, gemmc_runtime_copy_dtoh(ex.rt, z, dz, (size_t)(n + guard) * sizeof(float)));

  long bad = 0, first_bad = -1;
  double max_err = 0;
  for (long i = 0; i < n; i++) {
    double ref = (double)x[i] + (double)y[i];
    double err = fabs((double)z[i] - ref);
    if (!(err <= 1e-6 * fabs(ref) + 1e-7)) { /* one f32 rounding of the sum; NaN fails */
      if (first_bad < 0) first_bad = i;
      bad++;
    } else if (err > max_err) {
      max_err = err;
    }
  }
  long guard_hits = 0;
  for (long i = n; i < n + guard; i++) {
    uint32_t bits;
    memcpy(&bits, &z[i], sizeof bits);
    guard_hits += bits != EXAMPLE_POISON;
  }
  printf("vector_add: n=%ld BLOCK=%ld grid=%u: %ld wrong, max error %.3g, %ld writes past the end -> %s\n", n,
         block, grid, bad, max_err, guard_hits, bad || guard_hits ? "FAIL" : "PASS");
  if (bad) printf("  first wrong element %ld: got %.9g, expected %.9g\n", first_bad, z[first_bad], x[first_bad] + y[first_bad]);
  result = bad || guard_hits ? 1 : 0;
fail:
  if (dx) gemmc_runtime_mem_free(ex.rt, dx);
  if (dy) gemmc_runtime_mem_free(ex.rt, dy);
  if (dz) gemmc_runtime_mem_free(ex.rt, dz);
  free(x);
  free(y);
  free(z);
  example_finish(&ex);
  return result;
}

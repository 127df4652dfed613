/* Host program of examples/softmax.tir: row softmax of a random matrix with a ragged column count, checked against a double-precision CPU softmax. */
#include <math.h>

#include "example_common.h"

int main(int argc, char **argv) {
  example_args args;
  if (!example_parse_args(argc, argv, "softmax.tir", &args)) return 1;
  example ex;
  int started = example_start("softmax", &args, &ex);
  if (started <= 0) {
    example_finish(&ex);
    return started == 0 ? 0 : 1;
  }
  long rows = example_arg(&args, "rows", 1823), cols = example_arg(&args, "cols", 781);
  long block = example_constant(&ex, "BLOCK");
  const long guard = 1024;
  int result = 1;
  size_t count = (size_t)rows * (size_t)cols;
  float *in = malloc(count * sizeof *in), *out = malloc((count + (size_t)guard) * sizeof *out);
  gemmc_devptr din = 0, dout = 0;
  if (!in || !out || rows <= 0 || cols <= 0 || cols > block || count > INT32_MAX) {
    fprintf(stderr, "softmax: bad sizes (rows=%ld, cols=%ld, BLOCK=%ld: need cols <= BLOCK) or out of memory\n",
            rows, cols, block);
    goto fail;
  }
  uint64_t rng = ex.seed;
  for (size_t i = 0; i < count; i++) in[i] = example_uniform(&rng, -8.0f, 8.0f);
  EXAMPLE_CHECK(&ex, gemmc_runtime_mem_alloc(ex.rt, count * sizeof(float), &din));
  EXAMPLE_CHECK(&ex, gemmc_runtime_mem_alloc(ex.rt, (count + (size_t)guard) * sizeof(float), &dout));
  EXAMPLE_CHECK(&ex, gemmc_runtime_copy_htod(ex.rt, din, in, count * sizeof(float)));
  EXAMPLE_CHECK(&ex, gemmc_runtime_memset_d32(ex.rt, dout, EXAMPLE_POISON, count + (size_t)guard));
  int32_t stride = (int32_t)cols, n_cols = (int32_t)cols;
  void *kargs[] = {&dout, &din, &stride, &stride, &n_cols};
  EXAMPLE_CHECK(&ex, example_launch(&ex, (unsigned)rows, 1, kargs));
  EXAMPLE_CHECK(&ex, gemmc_runtime_copy_dtoh(ex.rt, out, dout, (count + (size_t)guard) * sizeof(float)));

  /* f32 exp and division: a few ulp of the largest output; absolute 1e-6 covers the small ones. */
  long bad = 0, first_bad = -1;
  double max_err = 0, first_ref = 0;
  for (long r = 0; r < rows; r++) {
    const float *x = in + r * cols;
    double mx = -INFINITY, sum = 0;
    for (long c = 0; c < cols; c++) mx = fmax(mx, x[c]);
    for (long c = 0; c < cols; c++) sum += exp((double)x[c] - mx);
    for (long c = 0; c < cols; c++) {
      double ref = exp((double)x[c] - mx) / sum;
      double err = fabs((double)out[r * cols + c] - ref);
      if (!(err <= 1e-6 + 1e-4 * ref)) {
        if (first_bad < 0) first_bad = r * cols + c, first_ref = ref;
        bad++;
      } else if (err > max_err) {
        max_err = err;
      }
    }
  }
  long guard_hits = 0;
  for (size_t k = count; k < count + (size_t)guard; k++) {
    uint32_t bits;
    memcpy(&bits, &out[k], sizeof bits);
    guard_hits += bits != EXAMPLE_POISON;
  }
  printf("softmax: %ld rows x %ld cols BLOCK=%ld: %ld wrong, max error %.3g, %ld writes past the end -> %s\n", rows,
         cols, block, bad, max_err, guard_hits, bad || guard_hits ? "FAIL" : "PASS");
  if (bad)
    printf("  first wrong element [%ld][%ld]: got %.9g, expected %.9g\n", first_bad / cols, first_bad % cols,
           out[first_bad], first_ref);
  result = bad || guard_hits ? 1 : 0;
fail:
  if (din) gemmc_runtime_mem_free(ex.rt, din);
  if (dout) gemmc_runtime_mem_free(ex.rt, dout);
  free(in);
  free(out);
  example_finish(&ex);
  return result;
}

/* gemmc's tuner: compile many kernel configs in parallel (one gemmc_context per thread, through the kernel cache) and time launches with events. */
#ifndef GEMMC_TUNE_H
#define GEMMC_TUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gemmc/cache.h"
#include "gemmc/gemmc.h"
#include "gemmc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* gemmc_matmul's autotuning, the gemmc-tune tool and bench-gemm all use these two steps. */

/* One kernel to build: a .tir text (caller's) and its compile options (caller's arrays). */
typedef struct gemmc_tune_source {
  const char *label; /* for progress lines */
  const char *text;
  size_t len;
  const char *filename;
  gemmc_compile_options options;
} gemmc_tune_source;

typedef struct gemmc_tune_compiled {
  gemmc_kernel_image *image; /* the caller's after the call (gemmc_kernel_image_destroy); may be NULL */
  bool ok;                   /* compiled, and JIT-compiled to a cubin when a runtime was given */
  bool cache_hit;
  double compile_ms;         /* gemmc_cache_compile in its thread (a hit: reading the entry) */
  double jit_ms;             /* the driver's JIT in its thread (0 when the entry had a cubin) */
  char error[1024];          /* the diagnostics' or the driver's first lines */
} gemmc_tune_compiled;

/* Compiles sources[0..n) on `threads` threads (0: one per CPU, at most n), each compile in its
 * own gemmc_context, through `cache` (NULL: no disk cache). With rt, each thread also makes
 * rt current and JIT-compiles its PTX (gemmc_cache_jit), so loading afterwards is cheap.
 * `progress` (or NULL) gets one line per finished source. *wall_ms: the whole batch.
 * Fails only for bad arguments or no memory; each source's outcome is in out[i]. */
gemmc_status gemmc_tune_compile(gemmc_runtime *rt, gemmc_cache *cache, int driver_version,
                                const gemmc_tune_source *sources, int n, int threads, FILE *progress,
                                gemmc_tune_compiled *out, double *wall_ms);

/* Enqueues one run of the thing being timed (asynchronously, on the stream given to
 * gemmc_tune_time). launch_index counts from 0, so that a caller may rotate input buffers. */
typedef bool (*gemmc_tune_launch_fn)(void *user, int launch_index, char *err, size_t errlen);

typedef struct gemmc_tune_timing {
  double median_ms, min_ms; /* per launch */
  int samples, launches_per_sample;
} gemmc_tune_timing;

/* Times fn with events on `stream`: `warmup` launches, then `samples` samples of n launches,
 * n chosen so that a sample lasts at least min_sample_ms (at most 1000 launches); the median
 * and the minimum per launch. */
gemmc_status gemmc_tune_time(gemmc_runtime *rt, gemmc_runtime_stream *stream, gemmc_tune_launch_fn fn, void *user,
                             int warmup, int samples, double min_sample_ms, gemmc_tune_timing *out);

/* Times fn as benchmarks that flush the L2 do (Triton's do_bench, bench-gemm's rotated inputs):
 * `warmup` launches, then `samples` samples of one launch each, before each of which
 * flush_bytes of scratch memory are written (pass at least twice the L2's size), so that the
 * launch reads its inputs from DRAM; the median and the minimum per launch
 * (launches_per_sample is 1). When the scratch cannot be allocated it returns the driver's
 * error and times nothing. */
gemmc_status gemmc_tune_time_cold(gemmc_runtime *rt, gemmc_runtime_stream *stream, gemmc_tune_launch_fn fn,
                                  void *user, int warmup, int samples, size_t flush_bytes, gemmc_tune_timing *out);

#ifdef __cplusplus
}
#endif
#endif /* GEMMC_TUNE_H */

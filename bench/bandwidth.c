/* Memory-bandwidth benchmark: gemmc's vector add, transpose and softmax against a device-to-device copy timed in the same run. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemmc/gemmc.h"
#include "gemmc/runtime.h"

#ifndef GEMMC_EXAMPLES_DIR
#define GEMMC_EXAMPLES_DIR "examples"
#endif

enum { WARMUP_RUNS = 3, TIMED_RUNS = 25 };

typedef struct bench {
  gemmc_runtime *rt;
  gemmc_context *ctx;
  gemmc_runtime_event *start, *stop;
  bool failed;
} bench;

/* A compiled, loaded kernel. */
typedef struct bench_kernel {
  gemmc_compiled *compiled;
  const gemmc_kernel_metadata *md;
  gemmc_runtime_module *module;
  gemmc_runtime_kernel *function;
} bench_kernel;

static bool check(bench *b, gemmc_status st, const char *what) {
  if (st.code == GEMMC_OK) return true;
  fprintf(stderr, "bandwidth: %s: %s\n", what, st.message);
  b->failed = true;
  return false;
}

static bool load_kernel(bench *b, const char *file, const gemmc_define *defines, int num_defines, bench_kernel *k) {
  memset(k, 0, sizeof *k);
  char path[4096];
  const char *dir = getenv("GEMMC_EXAMPLES_DIR"); /* set when the binary runs away from its source tree */
  snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : GEMMC_EXAMPLES_DIR, file);
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return false;
  }
  static char text[1 << 20];
  size_t len = fread(text, 1, sizeof text, f);
  fclose(f);
  gemmc_compile_options opts;
  gemmc_compile_options_init(&opts);
  const char *target = gemmc_runtime_device_info(b->rt)->target_name;
  if (target[0]) opts.target = target;
  opts.defines = defines;
  opts.num_defines = num_defines;
  if (!gemmc_compile(b->ctx, text, len, path, &opts, &k->compiled)) {
    fprintf(stderr, "bandwidth: compiling %s failed\n%s", path,
            k->compiled ? gemmc_compiled_diagnostics(k->compiled) : "out of memory\n");
    return false;
  }
  k->md = gemmc_compiled_kernel(k->compiled);
  size_t ptx_len = 0;
  const char *ptx = gemmc_compiled_ptx(k->compiled, &ptx_len);
  return check(b, gemmc_runtime_module_load(b->rt, ptx, ptx_len, &k->module), "module load") &&
         check(b, gemmc_runtime_module_get_kernel(b->rt, k->module, k->md->name, &k->function), "kernel lookup");
}

static void unload_kernel(bench *b, bench_kernel *k) {
  if (k->module) gemmc_runtime_module_unload(b->rt, k->module);
  gemmc_compiled_destroy(k->compiled);
}

static int compare_floats(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* One timed thing: a kernel launch (function != NULL) or a copy of copy_bytes. */
typedef struct timed_op {
  bench_kernel *kernel;
  unsigned grid[2];
  void **args;
  gemmc_devptr copy_dst, copy_src;
  size_t copy_bytes;
} timed_op;

static bool run_once(bench *b, const timed_op *op) {
  if (!op->kernel)
    return check(b, gemmc_runtime_copy_dtod(b->rt, op->copy_dst, op->copy_src, op->copy_bytes), "copy");
  gemmc_launch_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.grid[0] = op->grid[0];
  cfg.grid[1] = op->grid[1];
  cfg.grid[2] = 1;
  cfg.block[0] = (unsigned)op->kernel->md->threads_per_block;
  cfg.block[1] = cfg.block[2] = 1;
  cfg.dynamic_shared_bytes = (unsigned)op->kernel->md->dynamic_shared_bytes;
  return check(b, gemmc_runtime_launch(b->rt, op->kernel->function, &cfg, op->args), "launch");
}

/* Median time in milliseconds over TIMED_RUNS after WARMUP_RUNS, each run between two events. */
static double median_ms(bench *b, const timed_op *op) {
  for (int i = 0; i < WARMUP_RUNS; i++)
    if (!run_once(b, op)) return -1;
  if (!check(b, gemmc_runtime_synchronize(b->rt), "warm-up")) return -1;
  float times[TIMED_RUNS];
  for (int i = 0; i < TIMED_RUNS; i++) {
    if (!check(b, gemmc_runtime_event_record(b->rt, b->start, NULL), "event record") || !run_once(b, op) ||
        !check(b, gemmc_runtime_event_record(b->rt, b->stop, NULL), "event record") ||
        !check(b, gemmc_runtime_event_synchronize(b->rt, b->stop), "event sync") ||
        !check(b, gemmc_runtime_event_elapsed_ms(b->rt, b->start, b->stop, &times[i]), "elapsed"))
      return -1;
  }
  qsort(times, TIMED_RUNS, sizeof times[0], compare_floats);
  return times[TIMED_RUNS / 2];
}

static void report(const char *name, double bytes, double kernel_ms, double copy_bytes, double copy_ms) {
  if (kernel_ms <= 0 || copy_ms <= 0) {
    printf("%-34s %10s %10s %7s\n", name, "failed", "-", "-");
    return;
  }
  double gbs = bytes / (kernel_ms * 1e6), copy_gbs = copy_bytes / (copy_ms * 1e6);
  printf("%-34s %10.1f %10.1f %7.2f\n", name, gbs, copy_gbs, gbs / copy_gbs);
}

static void fill_random(float *x, size_t n, uint64_t seed) {
  for (size_t i = 0; i < n; i++) {
    seed ^= seed >> 12;
    seed ^= seed << 25;
    seed ^= seed >> 27;
    x[i] = (float)((seed * 0x2545F4914F6CDD1DULL) >> 40) * (1.0f / 16777216.0f) - 0.5f;
  }
}

int main(void) {
  bench b;
  memset(&b, 0, sizeof b);
  gemmc_status st = gemmc_runtime_create(GEMMC_BACKEND_CUDA, 0, &b.rt);
  if (st.code == GEMMC_ERROR_NO_DRIVER) {
    printf("no CUDA driver: %s; nothing to measure\n", st.message);
    return 0;
  }
  if (!check(&b, st, "runtime")) return 1;
  b.ctx = gemmc_context_create();
  const size_t mib = 1u << 20;
  const size_t n = 256 * mib / sizeof(float); /* 256 MB per operand */
  const int side = 8192;                       /* transpose: 8192 x 8192 f32 = 256 MB */
  const int sm_rows = 65536, sm_cols = 1024;   /* softmax: 256 MB in, 256 MB out */
  float *host = malloc(n * sizeof *host);
  gemmc_devptr x = 0, y = 0, z = 0;
  bench_kernel add, tr, sm;
  memset(&add, 0, sizeof add);
  memset(&tr, 0, sizeof tr);
  memset(&sm, 0, sizeof sm);
  if (!host || !b.ctx) {
    fprintf(stderr, "bandwidth: out of memory\n");
    return 1;
  }
  bool ok = check(&b, gemmc_runtime_event_create(b.rt, &b.start), "event") &&
            check(&b, gemmc_runtime_event_create(b.rt, &b.stop), "event") &&
            check(&b, gemmc_runtime_mem_alloc(b.rt, n * sizeof(float), &x), "alloc") &&
            check(&b, gemmc_runtime_mem_alloc(b.rt, n * sizeof(float), &y), "alloc") &&
            check(&b, gemmc_runtime_mem_alloc(b.rt, n * sizeof(float), &z), "alloc");
  if (ok) {
    fill_random(host, n, 0x9E3779B97F4A7C15ULL);
    ok = check(&b, gemmc_runtime_copy_htod(b.rt, x, host, n * sizeof(float)), "upload");
    fill_random(host, n, 0xD1B54A32D192ED03ULL);
    ok = ok && check(&b, gemmc_runtime_copy_htod(b.rt, y, host, n * sizeof(float)), "upload");
  }
  const gemmc_define block_1024[] = {{"BLOCK", "1024"}};
  ok = ok && load_kernel(&b, "vector_add.tir", block_1024, 1, &add) && load_kernel(&b, "transpose.tir", NULL, 0, &tr) &&
       load_kernel(&b, "softmax.tir", block_1024, 1, &sm);
  if (!ok) goto done;

  printf("device: %s (%s), median of %d runs after %d warm-up runs\n", gemmc_runtime_device_info(b.rt)->name,
         add.md->target, TIMED_RUNS, WARMUP_RUNS);
  printf("%-34s %10s %10s %7s\n", "kernel", "GB/s", "copy GB/s", "ratio");

  /* vector add: reads x and y, writes z (3 x 256 MB); the copy moves 256 MB (read + write). */
  int32_t n32 = (int32_t)n;
  void *add_args[] = {&x, &y, &z, &n32};
  timed_op add_op = {&add, {(unsigned)((n + 1023) / 1024), 1}, add_args, 0, 0, 0};
  timed_op copy_op = {NULL, {0, 0}, NULL, z, x, n * sizeof(float)};
  double add_ms = median_ms(&b, &add_op), copy_ms = median_ms(&b, &copy_op);
  /* A sampled correctness check, so that a broken kernel is not reported as fast. */
  if (add_ms > 0 && run_once(&b, &add_op) && check(&b, gemmc_runtime_synchronize(b.rt), "vector add")) {
    float *zs = malloc(n * sizeof *zs), *xs = malloc(n * sizeof *xs);
    if (zs && xs && check(&b, gemmc_runtime_copy_dtoh(b.rt, zs, z, n * sizeof(float)), "download") &&
        check(&b, gemmc_runtime_copy_dtoh(b.rt, xs, x, n * sizeof(float)), "download")) {
      for (size_t i = 0; i < n; i += 4099)
        if (fabsf(zs[i] - (xs[i] + host[i])) > 1e-6f) {
          fprintf(stderr, "bandwidth: vector add is wrong at %zu\n", i);
          add_ms = -1;
          b.failed = true;
          break;
        }
    }
    free(zs);
    free(xs);
  }
  char name[64];
  snprintf(name, sizeof name, "vector_add n=%zu (256 MB/operand)", n);
  report(name, 3.0 * (double)n * 4, add_ms, 2.0 * (double)n * 4, copy_ms);

  /* transpose: reads and writes 256 MB; compared with a copy of the same 256 MB. */
  int32_t s32 = side;
  void *tr_args[] = {&x, &s32, &z, &s32, &s32, &s32};
  long tile = strtol(gemmc_kernel_constant(tr.md, "TILE") ? gemmc_kernel_constant(tr.md, "TILE") : "64", NULL, 10);
  timed_op tr_op = {&tr, {(unsigned)((side + tile - 1) / tile), (unsigned)((side + tile - 1) / tile)}, tr_args, 0, 0, 0};
  double bytes = 2.0 * side * (double)side * 4;
  report("transpose 8192x8192 f32", bytes, median_ms(&b, &tr_op), bytes, median_ms(&b, &copy_op));

  /* softmax: 65536 rows of 1024 f32, read once and written once. */
  int32_t stride = sm_cols, cols = sm_cols;
  void *sm_args[] = {&z, &x, &stride, &stride, &cols};
  timed_op sm_op = {&sm, {(unsigned)sm_rows, 1}, sm_args, 0, 0, 0};
  bytes = 2.0 * sm_rows * (double)sm_cols * 4;
  report("softmax 65536x1024 f32", bytes, median_ms(&b, &sm_op), bytes, median_ms(&b, &copy_op));

done:
  unload_kernel(&b, &add);
  unload_kernel(&b, &tr);
  unload_kernel(&b, &sm);
  if (x) gemmc_runtime_mem_free(b.rt, x);
  if (y) gemmc_runtime_mem_free(b.rt, y);
  if (z) gemmc_runtime_mem_free(b.rt, z);
  if (b.start) gemmc_runtime_event_destroy(b.rt, b.start);
  if (b.stop) gemmc_runtime_event_destroy(b.rt, b.stop);
  free(host);
  gemmc_context_destroy(b.ctx);
  gemmc_runtime_destroy(b.rt);
  return b.failed || !ok ? 1 : 0;
}

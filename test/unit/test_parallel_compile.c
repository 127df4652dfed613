/* Unit test of compiling in parallel (what autotuning does): N threads, one gemmc_context each, compile N kernels at once, some through one shared kernel cache with the same key; every result must equal the serial compile. Built normally and under ThreadSanitizer (scripts/test-tsan.sh). */
#include "gemmc/cache.h"
#include "gemmc/matmul.h"
#include "gemmc/tune.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

enum { THREADS = 4 };

/* The library's GEMM template with different tiles and epilogues: one kernel per thread. */
typedef struct job {
  gemmc_define defines[8];
  int num_defines;
  int num_warps, num_stages;
  char *text;
  size_t len;
  gemmc_cache *cache; /* shared by all threads, or NULL */
  char *ptx;          /* what the thread compiled (malloc'ed) */
  size_t ptx_len;
  bool ok;
  char error[512];
} job;

static void *compile_job(void *arg) {
  job *j = arg;
  gemmc_compile_options o;
  gemmc_compile_options_init(&o);
  o.defines = j->defines;
  o.num_defines = j->num_defines;
  o.num_warps = j->num_warps;
  o.num_stages = j->num_stages;
  gemmc_kernel_image *img = NULL;
  j->ok = gemmc_cache_compile(j->cache, j->text, j->len, "gemm.tir", &o, 0, &img);
  if (j->ok) {
    size_t n = 0;
    const char *ptx = gemmc_kernel_image_ptx(img, &n);
    j->ptx = malloc(n + 1);
    if (j->ptx) memcpy(j->ptx, ptx, n + 1);
    j->ptx_len = n;
  } else {
    snprintf(j->error, sizeof j->error, "%.500s", img ? gemmc_kernel_image_diagnostics(img) : "out of memory");
  }
  gemmc_kernel_image_destroy(img);
  return NULL;
}

static void setup(job *j, int variant, gemmc_cache *cache) {
  memset(j, 0, sizeof *j);
  static const char *const tiles[][3] = {{"64", "64", "32"}, {"128", "64", "32"}, {"64", "128", "32"}, {"32", "32", "32"}};
  j->defines[j->num_defines++] = (gemmc_define){"BLOCK_M", tiles[variant % 4][0]};
  j->defines[j->num_defines++] = (gemmc_define){"BLOCK_N", tiles[variant % 4][1]};
  j->defines[j->num_defines++] = (gemmc_define){"BLOCK_K", tiles[variant % 4][2]};
  if (variant % 2) {
    j->defines[j->num_defines++] = (gemmc_define){"HAS_C", "1"};
    j->defines[j->num_defines++] = (gemmc_define){"ACT_NONE", "0"};
    j->defines[j->num_defines++] = (gemmc_define){"ACT_RELU", "1"};
  }
  j->num_warps = 4;
  j->num_stages = 2 + variant % 2;
  char err[256];
  if (!gemmc_matmul_template("gemm.tir", j->defines, j->num_defines, &j->text, &j->len, err, sizeof err))
    CHECK(0, "template: %s", err);
  j->cache = cache;
}

static void run_threads(job *jobs, int n) {
  pthread_t ids[THREADS * 2];
  for (int i = 0; i < n; i++) CHECK(pthread_create(&ids[i], NULL, compile_job, &jobs[i]) == 0, "pthread_create");
  for (int i = 0; i < n; i++) pthread_join(ids[i], NULL);
}

static void free_jobs(job *jobs, int n) {
  for (int i = 0; i < n; i++) {
    free(jobs[i].text);
    free(jobs[i].ptx);
  }
}

int main(void) {
  /* Serial reference compiles. */
  job serial[THREADS];
  for (int i = 0; i < THREADS; i++) {
    setup(&serial[i], i, NULL);
    compile_job(&serial[i]);
    CHECK(serial[i].ok, "serial compile %d: %s", i, serial[i].error);
  }
  /* N threads, N different kernels, no cache. */
  job parallel[THREADS];
  for (int i = 0; i < THREADS; i++) setup(&parallel[i], i, NULL);
  run_threads(parallel, THREADS);
  for (int i = 0; i < THREADS; i++)
    CHECK(parallel[i].ok && parallel[i].ptx_len == serial[i].ptx_len && !memcmp(parallel[i].ptx, serial[i].ptx, serial[i].ptx_len),
          "thread %d compiles what the serial compile does: %s", i, parallel[i].error);
  /* 2N threads through one cache: each kernel compiled by two threads at once (same key). */
  char dir[256];
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/gemmc-parallel-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  gemmc_cache *cache = NULL;
  char err[256];
  CHECK(gemmc_cache_open(dir, 0, &cache, err, sizeof err), "cache: %s", err);
  job shared[2 * THREADS];
  for (int i = 0; i < 2 * THREADS; i++) setup(&shared[i], i % THREADS, cache);
  run_threads(shared, 2 * THREADS);
  for (int i = 0; i < 2 * THREADS; i++) {
    const job *ref = &serial[i % THREADS];
    CHECK(shared[i].ok && shared[i].ptx_len == ref->ptx_len && !memcmp(shared[i].ptx, ref->ptx, ref->ptx_len),
          "cached thread %d compiles what the serial compile does: %s", i, shared[i].error);
  }
  gemmc_cache_stats st;
  CHECK(gemmc_cache_stats_get(cache, &st) && st.entries == THREADS, "one entry per kernel (%lld)", (long long)st.entries);
  /* The tuner's own threads. */
  gemmc_tune_source src[THREADS];
  gemmc_tune_compiled out[THREADS];
  for (int i = 0; i < THREADS; i++) {
    memset(&src[i], 0, sizeof src[i]);
    src[i].label = "gemm";
    src[i].text = serial[i].text;
    src[i].len = serial[i].len;
    src[i].filename = "gemm.tir";
    gemmc_compile_options_init(&src[i].options);
    src[i].options.defines = serial[i].defines;
    src[i].options.num_defines = serial[i].num_defines;
    src[i].options.num_warps = serial[i].num_warps;
    src[i].options.num_stages = serial[i].num_stages;
  }
  double wall = 0;
  gemmc_tune_compile(NULL, NULL, 0, src, THREADS, THREADS, NULL, out, &wall);
  for (int i = 0; i < THREADS; i++) {
    size_t n = 0;
    const char *ptx = out[i].image ? gemmc_kernel_image_ptx(out[i].image, &n) : NULL;
    CHECK(out[i].ok && ptx && n == serial[i].ptx_len && !memcmp(ptx, serial[i].ptx, n), "tuner thread %d: %s", i, out[i].error);
    gemmc_kernel_image_destroy(out[i].image);
  }
  gemmc_cache_trim(cache, 0);
  gemmc_cache_close(cache);
  char sub[300];
  snprintf(sub, sizeof sub, "%s/kernels-v1", dir);
  rmdir(sub);
  rmdir(dir);
  free_jobs(serial, THREADS);
  free_jobs(parallel, THREADS);
  free_jobs(shared, 2 * THREADS);
  printf("%d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}

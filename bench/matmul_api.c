/* gemmc_matmul's product numbers on the GPU: speed beside the best hand-picked config, warm-call overhead beside a raw cuLaunchKernel, cold first call, and N processes sharing one fresh kernel cache. */
#include <dlfcn.h>
#include <dirent.h>
#include <sys/wait.h>

#include "../examples/matmul_host.h"
#include "gemmc/matmul.h"

/* Modes (any combination; default: all):
 *   --perf       4096^3 and 8192^3 f16 and the seed's batched 16 x 4096^3: the best of the seed's
 *                8 configs of examples/{matmul,batched_matmul}.tir (gemmc's tuner) against
 *                gemmc_matmul with the model's config and with autotuning, on the same buffers.
 *   --overhead   host time of one warm gemmc_matmul call against cuLaunchKernel of the very
 *                kernel and arguments it launched (gemmc_matmul_last_info), 64x64x64 f16.
 *   --cold       in a child process with an empty kernel cache: handle creation and the first
 *                gemmc_matmul (compile with the model's config + JIT + load + run); then a second
 *                process with that cache (a disk hit).
 *   --procs N    N processes start at once on an empty cache, each runs and checks a GEMM; then
 *                the cache must hold one valid entry per kernel, and a new process must hit it. */

static double now_ms(void) { return mh_now_seconds() * 1e3; }

static bool tmp_dir(char *out, size_t n) {
  const char *t = getenv("TMPDIR");
  snprintf(out, n, "%s/gemmc-bench-XXXXXX", t && *t ? t : "/tmp");
  return mkdtemp(out) != NULL;
}

static int count_entries(const char *cache, int *temps) {
  char path[600];
  snprintf(path, sizeof path, "%s/kernels-v1", cache);
  int n = 0;
  *temps = 0;
  DIR *d = opendir(path);
  if (!d) return 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len > 4 && !strcmp(e->d_name + len - 4, ".gck")) n++;
    if (!strncmp(e->d_name, "tmp-", 4)) (*temps)++;
  }
  closedir(d);
  return n;
}

/* Column-major f16 GEMM on device buffers from random host data; when `check`, the result is
 * compared with a CPU reference on a sample of columns. */
typedef struct gemm_buffers {
  gemmc_devptr a, b, d;
  int64_t m, n, k, batch;
  uint16_t *ha, *hb;
} gemm_buffers;

static bool buffers_make(gemmc_runtime *rt, gemm_buffers *g, int64_t m, int64_t n, int64_t k, int64_t batch, mh_rng *rng, mh_error *e) {
  memset(g, 0, sizeof *g);
  g->m = m, g->n = n, g->k = k, g->batch = batch;
  size_t ea = (size_t)(m * k * batch), eb = (size_t)(k * n * batch), ed = (size_t)(m * n * batch);
  g->ha = malloc(ea * 2), g->hb = malloc(eb * 2);
  if (!g->ha || !g->hb) return mh_fail(e, "out of host memory");
  for (size_t i = 0; i < ea; i++) g->ha[i] = mh_f32_to_f16_bits((float)mh_rng_uniform(rng));
  for (size_t i = 0; i < eb; i++) g->hb[i] = mh_f32_to_f16_bits((float)mh_rng_uniform(rng));
  return mh_ok(gemmc_runtime_mem_alloc(rt, ea * 2, &g->a), "alloc A", e) && mh_ok(gemmc_runtime_mem_alloc(rt, eb * 2, &g->b), "alloc B", e) &&
         mh_ok(gemmc_runtime_mem_alloc(rt, ed * 2, &g->d), "alloc D", e) &&
         mh_ok(gemmc_runtime_copy_htod(rt, g->a, g->ha, ea * 2), "upload A", e) &&
         mh_ok(gemmc_runtime_copy_htod(rt, g->b, g->hb, eb * 2), "upload B", e) &&
         mh_ok(gemmc_runtime_memset_d8(rt, g->d, 0xff, ed * 2), "poison D", e);
}

static void buffers_free(gemmc_runtime *rt, gemm_buffers *g) {
  if (g->a) gemmc_runtime_mem_free(rt, g->a);
  if (g->b) gemmc_runtime_mem_free(rt, g->b);
  if (g->d) gemmc_runtime_mem_free(rt, g->d);
  free(g->ha), free(g->hb);
  memset(g, 0, sizeof *g);
}

/* D (m x n, ld m) = A (m x k, ld m) B (k x n, ld k), column-major, f16 in/out, f32 accumulation. */
static gemmc_status run_gemm(gemmc_handle *h, const gemm_buffers *g) {
  float one = 1, zero = 0;
  return gemmc_matmul_strided_batched(h, GEMMC_OP_N, GEMMC_OP_N, g->m, g->n, g->k, &one, (const void *)(uintptr_t)g->a,
                                      GEMMC_R_16F, g->m, g->m * g->k, (const void *)(uintptr_t)g->b, GEMMC_R_16F, g->k,
                                      g->k * g->n, &zero, NULL, GEMMC_R_16F, g->m, 0, (void *)(uintptr_t)g->d, GEMMC_R_16F,
                                      g->m, g->m * g->n, g->batch, GEMMC_COMPUTE_32F);
}

/* Checks 16 columns of batch 0 against a double reference. */
static bool check_gemm(gemmc_runtime *rt, const gemm_buffers *g, double *max_err, mh_error *e) {
  size_t ed = (size_t)(g->m * g->n);
  uint16_t *hd = malloc(ed * 2);
  if (!hd) return mh_fail(e, "out of host memory");
  if (!mh_ok(gemmc_runtime_synchronize(rt), "running", e) || !mh_ok(gemmc_runtime_copy_dtoh(rt, hd, g->d, ed * 2), "download D", e)) {
    free(hd);
    return false;
  }
  *max_err = 0;
  for (int c = 0; c < 16; c++) {
    int64_t j = c == 0 ? 0 : c == 1 ? g->n - 1 : (int64_t)((uint64_t)c * 7919u % (uint64_t)g->n);
    for (int64_t i = 0; i < g->m; i++) {
      double sum = 0, abs_sum = 0;
      for (int64_t kk = 0; kk < g->k; kk++) {
        double p = (double)mh_f16_bits_to_f32(g->ha[i + kk * g->m]) * mh_f16_bits_to_f32(g->hb[kk + j * g->k]);
        sum += p;
        abs_sum += fabs(p);
      }
      double got = mh_f16_bits_to_f32(hd[i + j * g->m]);
      double err = fabs(got - sum) / (abs_sum > 1e-30 ? abs_sum : 1e-30);
      if (isnan(err)) err = INFINITY;
      if (err > *max_err) *max_err = err;
    }
  }
  free(hd);
  return *max_err <= 2 * 0x1p-11 + 2 * sqrt((double)g->k) * 0x1p-24 + 1e-5;
}

/* ------------------------------------------------------------------ --perf */

typedef struct matmul_launch {
  gemmc_handle *h;
  const gemm_buffers *g;
} matmul_launch;

static bool launch_matmul(void *user, int index, char *err, size_t errlen) {
  (void)index;
  matmul_launch *l = user;
  gemmc_status st = run_gemm(l->h, l->g);
  if (st.code != GEMMC_OK) snprintf(err, errlen, "%s", st.message);
  return st.code == GEMMC_OK;
}

static int perf(gemmc_runtime *rt, const char *cache_dir, int samples) {
  static const int64_t shapes[][4] = {{4096, 4096, 4096, 1}, {8192, 8192, 8192, 1}, {4096, 4096, 4096, 16}};
  int failures = 0;
  mh_rng rng = {mh_fresh_seed()};
  gemmc_cache *cache = NULL;
  char err[256];
  gemmc_cache_open(cache_dir, 0, &cache, err, sizeof err);
  printf("%-22s %-36s %10s %10s %10s %8s %8s\n", "shape", "gemmc_matmul config (model / tuned)", "best cfg", "model", "tuned",
         "model/b", "tuned/b");
  for (int s = 0; s < 3; s++) {
    int64_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2], B = shapes[s][3];
    mh_error e = {""};
    /* gemmc_matmul computes column-major D = A B; the examples' row-major kernel on the same
     * bytes computes D^T = B^T A^T: their A is our B, their B our A, their M x N our n x m. */
    gemm_buffers g;
    if (!buffers_make(rt, &g, M, N, K, B, &rng, &e)) {
      printf("%lldx%lldx%lld: %s\n", (long long)M, (long long)N, (long long)K, e.message);
      buffers_free(rt, &g);
      failures++;
      continue;
    }
    mh_gemm hg;
    memset(&hg, 0, sizeof hg);
    hg.kind = B > 1 ? MH_KERNEL_BATCHED : MH_KERNEL_MATMUL;
    hg.batch = (int)B, hg.m = (int)N, hg.n = (int)M, hg.k = (int)K;
    hg.in = hg.out = MH_F16, hg.acc = MH_F32, hg.tf32 = true;
    mh_gemm_layout(&hg);
    char path[4096];
    mh_find_tir(hg.kind, NULL, path, sizeof path);
    mh_tuned tuned[MH_NUM_SEED_CONFIGS];
    int best = -1;
    double wall = 0;
    mh_tune_buffers tb = {&g.b, &g.a, &g.d, 1};
    mh_tune(rt, cache, &hg, path, mh_target(rt), mh_seed_configs, MH_NUM_SEED_CONFIGS, &tb, samples, 0, NULL, tuned, &best, NULL,
            &wall, &e);
    double best_ms = best >= 0 ? tuned[best].timing.median_ms : NAN;
    char best_cfg[64] = "-";
    if (best >= 0) mh_config_str(&tuned[best].config, best_cfg, sizeof best_cfg);
    double ms[2] = {NAN, NAN};
    char cfg[2][128] = {"-", "-"};
    for (int tune = 0; tune < 2; tune++) {
      gemmc_handle_options o;
      gemmc_handle_options_init(&o);
      o.runtime = rt;
      o.cache_dir = cache_dir;
      o.tune = tune;
      gemmc_handle *h = NULL;
      gemmc_status st = gemmc_handle_create(&o, &h);
      if (st.code == GEMMC_OK) st = run_gemm(h, &g); /* builds (and with tune: tunes) */
      double max_err = 0;
      if (st.code == GEMMC_OK && !check_gemm(rt, &g, &max_err, &e)) {
        printf("  gemmc_matmul (%s) is WRONG: max rel err %.2e %s\n", tune ? "tuned" : "model", max_err, e.message);
        failures++;
      }
      gemmc_matmul_info info;
      if (st.code == GEMMC_OK && gemmc_matmul_last_info(h, &info).code == GEMMC_OK) snprintf(cfg[tune], sizeof cfg[tune], "%s", info.config);
      matmul_launch l = {h, &g};
      gemmc_tune_timing t;
      if (st.code == GEMMC_OK) st = gemmc_tune_time(rt, NULL, launch_matmul, &l, 3, samples, 1.0, &t);
      if (st.code == GEMMC_OK) ms[tune] = t.median_ms;
      else {
        printf("  gemmc_matmul (%s): %s\n", tune ? "tuned" : "model", st.message);
        failures++;
      }
      gemmc_handle_destroy(h);
    }
    char shape[64];
    snprintf(shape, sizeof shape, "%s%lldx%lldx%lld", B > 1 ? "16 x " : "", (long long)M, (long long)N, (long long)K);
    double flops = 2.0 * M * N * K * B;
    printf("%-22s %-36.36s %10.1f %10.1f %10.1f %8.3f %8.3f  (TFLOP/s; best hand-picked %s)\n", shape, cfg[0], flops / best_ms / 1e9,
           flops / ms[0] / 1e9, flops / ms[1] / 1e9, best_ms / ms[0], best_ms / ms[1], best_cfg);
    printf("%-22s %-36.36s\n", "", cfg[1]);
    if (!(best_ms / ms[0] >= 0.95)) printf("  below the 0.95x bar with the model's config\n");
    fflush(stdout);
    buffers_free(rt, &g);
  }
  gemmc_cache_close(cache);
  return failures;
}

/* ------------------------------------------------------------------ --overhead */

typedef int (*launch_fn)(void *f, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **);

static int overhead(gemmc_runtime *rt, const char *cache_dir) {
  mh_error e = {""};
  mh_rng rng = {1};
  gemm_buffers g;
  gemmc_handle_options o;
  gemmc_handle_options_init(&o);
  o.runtime = rt;
  o.cache_dir = cache_dir;
  o.tune = 0;
  gemmc_handle *h = NULL;
  gemmc_status st = gemmc_handle_create(&o, &h);
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  launch_fn raw = cuda ? (launch_fn)(uintptr_t)dlsym(cuda, "cuLaunchKernel") : NULL;
  if (st.code != GEMMC_OK || !raw || !buffers_make(rt, &g, 64, 64, 64, 1, &rng, &e)) {
    printf("overhead: setup failed: %s %s\n", st.message, e.message);
    return 1;
  }
  st = run_gemm(h, &g);
  gemmc_matmul_info info;
  if (st.code == GEMMC_OK) st = gemmc_matmul_last_info(h, &info);
  if (st.code != GEMMC_OK) {
    printf("overhead: %s\n", st.message);
    return 1;
  }
  enum { ROUNDS = 50, PER_ROUND = 200 };
  /* Host time of the calls only: each round enqueues PER_ROUND launches (well below the
   * driver's queue depth, so no call blocks), then waits untimed. Best of the rounds' means. */
  double best_api = INFINITY, best_raw = INFINITY, sum_api = 0, sum_raw = 0;
  for (int r = 0; r < ROUNDS; r++) {
    double t0 = now_ms();
    for (int i = 0; i < PER_ROUND; i++) run_gemm(h, &g);
    double t1 = now_ms();
    gemmc_runtime_synchronize(rt);
    double t2 = now_ms();
    for (int i = 0; i < PER_ROUND; i++)
      raw(info.kernel, info.launch.grid[0], info.launch.grid[1], info.launch.grid[2], info.launch.block[0], info.launch.block[1],
          info.launch.block[2], info.launch.dynamic_shared_bytes, info.launch.stream, info.args, NULL);
    double t3 = now_ms();
    gemmc_runtime_synchronize(rt);
    double api = (t1 - t0) * 1e3 / PER_ROUND, rawus = (t3 - t2) * 1e3 / PER_ROUND;
    if (r >= 5) { /* the first rounds warm caches */
      sum_api += api, sum_raw += rawus;
      if (api < best_api) best_api = api;
      if (rawus < best_raw) best_raw = rawus;
    }
  }
  double mean_api = sum_api / (ROUNDS - 5), mean_raw = sum_raw / (ROUNDS - 5);
  double max_err = 0;
  bool correct = check_gemm(rt, &g, &max_err, &e);
  printf("warm call, 64x64x64 f16 (%s):\n", info.config);
  printf("  gemmc_matmul      %7.2f us per call (mean of %d rounds of %d; best round %.2f)\n", mean_api, ROUNDS - 5, PER_ROUND, best_api);
  printf("  cuLaunchKernel    %7.2f us per call (best round %.2f)\n", mean_raw, best_raw);
  printf("  difference        %7.2f us (bar: <= 5 us)%s\n", mean_api - mean_raw, correct ? "" : "  RESULT WRONG");
  buffers_free(rt, &g);
  gemmc_handle_destroy(h);
  return correct && mean_api - mean_raw <= 5.0 ? 0 : 1;
}

/* ------------------------------------------------------------------ child processes */

/* One process: handle, one checked GEMM; prints a line, exits 0 when correct. */
static int child_gemm(const char *cache_dir, int64_t size, const char *label) {
  double t0 = now_ms();
  gemmc_handle_options o;
  gemmc_handle_options_init(&o);
  o.cache_dir = cache_dir;
  o.tune = 0;
  gemmc_handle *h = NULL;
  gemmc_status st = gemmc_handle_create(&o, &h);
  double t1 = now_ms();
  if (st.code != GEMMC_OK) {
    printf("%s: gemmc_handle_create: %s\n", label, st.message);
    return 1;
  }
  gemmc_runtime *rt = gemmc_handle_runtime(h);
  mh_rng rng = {(uint64_t)getpid()};
  mh_error e = {""};
  gemm_buffers g;
  if (!buffers_make(rt, &g, size, size, size, 1, &rng, &e)) {
    printf("%s: %s\n", label, e.message);
    return 1;
  }
  gemmc_runtime_synchronize(rt);
  double t2 = now_ms();
  st = run_gemm(h, &g);
  if (st.code == GEMMC_OK) st = gemmc_runtime_synchronize(rt);
  double t3 = now_ms();
  double max_err = 0;
  bool ok = st.code == GEMMC_OK && check_gemm(rt, &g, &max_err, &e);
  gemmc_matmul_info info;
  memset(&info, 0, sizeof info);
  gemmc_matmul_last_info(h, &info);
  printf("%s: pid %d: handle %.1f ms, first call %.1f ms (compile %.1f ms%s, JIT + load %.1f ms), %s%s\n", label, (int)getpid(),
         t1 - t0, t3 - t2, info.compile_ms, info.disk_cache_hit ? " = disk cache hit" : "", info.load_ms,
         ok ? "correct" : "WRONG", st.code == GEMMC_OK ? "" : st.message);
  buffers_free(rt, &g);
  gemmc_handle_destroy(h);
  return ok ? (info.disk_cache_hit ? 10 : 0) : 1;
}

static int cold(void) {
  char dir[512];
  if (!tmp_dir(dir, sizeof dir)) return 1;
  int failures = 0;
  static const char *const labels[] = {"cold (empty cache)", "second process (cache filled)"};
  for (int round = 0; round < 2; round++) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) _exit(child_gemm(dir, 1024, labels[round]));
    int status = 0;
    waitpid(pid, &status, 0);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 99;
    bool want_hit = round == 1;
    if ((code != 0 && code != 10) || (code == 10) != want_hit) {
      printf("  %s: unexpected outcome (exit %d)\n", labels[round], code);
      failures++;
    }
  }
  printf("(bar: a cold first call <= 300 ms; cache folder %s)\n", dir);
  return failures;
}

static int procs(int n) {
  char dir[512];
  if (!tmp_dir(dir, sizeof dir)) return 1;
  int go[2];
  if (pipe(go) != 0) return 1;
  fflush(stdout);
  pid_t *pids = calloc((size_t)n, sizeof *pids);
  for (int i = 0; pids && i < n; i++) {
    pids[i] = fork();
    if (pids[i] == 0) {
      close(go[1]);
      char byte;
      if (read(go[0], &byte, 1) != 0) _exit(3); /* everyone starts when the parent closes the pipe */
      char label[32];
      snprintf(label, sizeof label, "process %d", i);
      _exit(child_gemm(dir, 512, label));
    }
  }
  close(go[0]);
  close(go[1]);
  int ok = 0;
  for (int i = 0; pids && i < n; i++) {
    int status = 0;
    waitpid(pids[i], &status, 0);
    if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 10)) ok++;
  }
  free(pids);
  int temps = 0, entries = count_entries(dir, &temps);
  printf("%d of %d processes succeeded; the cache holds %d entries, %d temporary files\n", ok, n, entries, temps);
  /* A new process must read that entry (a hit proves it whole: entries are checksummed). */
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) _exit(child_gemm(dir, 512, "after them"));
  int status = 0;
  waitpid(pid, &status, 0);
  bool hit = WIFEXITED(status) && WEXITSTATUS(status) == 10;
  int entries_after = count_entries(dir, &temps);
  printf("a later process %s the cache (%d entries after it)\n", hit ? "hit" : "did NOT hit", entries_after);
  bool pass = ok == n && entries == 1 && temps == 0 && hit && entries_after == 1;
  printf("%s: %d processes compiling one kernel at once all succeed and leave one valid entry\n", pass ? "PASS" : "FAIL", n);
  return pass ? 0 : 1;
}

int main(int argc, char **argv) {
  bool do_perf = false, do_overhead = false, do_cold = false;
  int nprocs = 0, samples = 10;
  const char *cache_dir = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--perf")) do_perf = true;
    else if (!strcmp(argv[i], "--overhead")) do_overhead = true;
    else if (!strcmp(argv[i], "--cold")) do_cold = true;
    else if (!strcmp(argv[i], "--procs") && i + 1 < argc) nprocs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--samples") && i + 1 < argc) samples = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--cache-dir") && i + 1 < argc) cache_dir = argv[++i];
    else {
      printf("usage: %s [--perf] [--overhead] [--cold] [--procs N] [--samples N] [--cache-dir DIR]\n"
             "gemmc_matmul's speed beside the best hand-picked config, warm-call overhead beside cuLaunchKernel,\n"
             "the cold first call, and N processes sharing a fresh kernel cache (default: all, N = 8).\n",
             argv[0]);
      return strcmp(argv[i], "--help") ? 2 : 0;
    }
  }
  if (!do_perf && !do_overhead && !do_cold && !nprocs) do_perf = do_overhead = do_cold = true, nprocs = 8;
  int failures = 0;
  /* Children first: they must start before this process opens the driver. */
  if (do_cold || nprocs) {
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cuda) {
      printf("skipped: no CUDA driver (libcuda.so.1 not found)\n");
      return 0;
    }
  }
  if (do_cold) failures += cold();
  if (nprocs) failures += procs(nprocs);
  if (do_perf || do_overhead) {
    mh_error e = {""};
    gemmc_runtime *rt = NULL;
    if (!mh_runtime_open(&rt, &e)) {
      printf("bench-matmul_api: %s\n", e.message);
      return 1;
    }
    if (!rt) {
      printf("skipped: %s\n", e.message);
      return 0;
    }
    const gemmc_device_info *info = gemmc_runtime_device_info(rt);
    printf("device: %s (sm_%d%d, %d SMs), driver %d, gemmc %s\n", info->name, info->compute_capability_major,
           info->compute_capability_minor, info->multiprocessor_count, info->driver_version, gemmc_version());
    if (do_overhead) failures += overhead(rt, cache_dir);
    if (do_perf) failures += perf(rt, cache_dir, samples);
    gemmc_runtime_destroy(rt);
  }
  printf("%d failures\n", failures);
  return failures ? 1 : 0;
}

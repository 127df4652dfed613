/* Unit test of gemmc_matmul's host side against a stand-in CUDA driver (fake-cuda/libcuda.so.1, test/unit/fake_cuda.c): plans, warm calls, the disk cache across handles, split-K, batches, every dtype, errors, autotuning and its stored winners, batch invariance, forced configs. Kernels are built for real and not run. */
#include "gemmc/matmul.h"
#include "gemmc/tune.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

typedef struct fake_stats {
  int modules_loaded, modules_unloaded, launches, links;
  char last_kernel[128];
  unsigned last_grid[3], last_block[3], last_shared;
  int launches_ex, last_programmatic;
  unsigned last_cluster_x;
} fake_stats;

static fake_stats *fake;
static char cache_dir[256], tune_dir[300];

static gemmc_handle *open_handle(const char *dir, int tune, bool batch_invariant, const char *config) {
  gemmc_handle_options o;
  gemmc_handle_options_init(&o);
  o.cache_dir = dir;
  o.tune = tune;
  o.batch_invariant = batch_invariant;
  o.config = config;
  gemmc_handle *h = NULL;
  gemmc_status st = gemmc_handle_create(&o, &h);
  CHECK(st.code == GEMMC_OK, "gemmc_handle_create: %s", st.message);
  return h;
}

/* Device buffers big enough for every call below (the fake's memory is host memory). */
static void *A, *B, *C, *D, *bias;

static gemmc_status gemm(gemmc_handle *h, int64_t m, int64_t n, int64_t k, gemmc_datatype in, gemmc_datatype out,
                         gemmc_compute_type compute, int64_t batch) {
  gemmc_matmul_desc d;
  gemmc_matmul_desc_init(&d);
  static float one = 1, zero = 0;
  static int32_t ione = 1, izero = 0;
  bool ints = compute == GEMMC_COMPUTE_32I;
  d.m = m, d.n = n, d.k = k, d.batch_count = batch;
  d.alpha = ints ? (const void *)&ione : (const void *)&one;
  d.beta = ints ? (const void *)&izero : (const void *)&zero;
  d.A = A, d.B = B, d.C = C, d.D = D;
  d.a_type = d.b_type = in, d.c_type = d.d_type = out, d.compute = compute;
  d.lda = m ? m : 1, d.ldb = k ? k : 1, d.ldc = d.ldd = m ? m : 1;
  d.stride_a = m * k, d.stride_b = k * n, d.stride_c = d.stride_d = m * n;
  return gemmc_matmul_ex(h, &d);
}

static gemmc_matmul_info info_of(gemmc_handle *h) {
  gemmc_matmul_info info;
  gemmc_status st = gemmc_matmul_last_info(h, &info);
  CHECK(st.code == GEMMC_OK, "last_info: %s", st.message);
  return info;
}

static bool count_launch(void *user, int index, char *err, size_t errlen) {
  (void)index, (void)err, (void)errlen;
  ++*(int *)user;
  return true;
}

/* Loads `image`, launches its kernel `k` once through gemmc_runtime_launch (cluster_x as given)
 * and unloads it; false when any step fails. */
static bool launch_image(gemmc_runtime *rt, const char *image, unsigned cluster_x) {
  gemmc_runtime_module *m = NULL;
  gemmc_runtime_kernel *k = NULL;
  gemmc_kernel_info ki;
  int arg = 0;
  void *args[1] = {&arg};
  gemmc_launch_config lc = {{2, 1, 1}, {128, 1, 1}, 0, NULL, cluster_x};
  bool ok = gemmc_runtime_module_load(rt, image, strlen(image), &m).code == GEMMC_OK &&
            gemmc_runtime_module_get_kernel(rt, m, "k", &k).code == GEMMC_OK &&
            gemmc_runtime_kernel_get_info(rt, k, &ki).code == GEMMC_OK &&
            gemmc_runtime_kernel_set_max_dynamic_shared(rt, k, 100000).code == GEMMC_OK &&
            gemmc_runtime_launch(rt, k, &lc, args).code == GEMMC_OK && !strcmp(fake->last_kernel, "k");
  if (m) ok = gemmc_runtime_module_unload(rt, m).code == GEMMC_OK && ok;
  return ok;
}

/* Modules that define GEMMC_PROGRAMMATIC_LAUNCH_GLOBAL (warp-specialized kernels) are launched
 * with programmatic stream serialization when the runtime's programmatic launch is on
 * (GEMMC_PROGRAMMATIC_LAUNCH=1 or the API), others never, also a module loaded where an unloaded
 * marked one was (the stand-in reuses freed memory); the handles are the driver's own. */
static void check_programmatic_launch(void) {
  const char *marked = ".visible .global .align 4 .u32 " GEMMC_PROGRAMMATIC_LAUNCH_GLOBAL " = 1;\n.visible .entry k()\n";
  const char *plain = ".visible .entry k()\n";
  for (int on = 0; on < 2; on++) {
    if (on) setenv("GEMMC_PROGRAMMATIC_LAUNCH", "1", 1);
    else unsetenv("GEMMC_PROGRAMMATIC_LAUNCH");
    gemmc_runtime *rt = NULL;
    CHECK(gemmc_runtime_create(GEMMC_BACKEND_CUDA, 0, &rt).code == GEMMC_OK, "runtime");
    gemmc_runtime_module *m = NULL;
    gemmc_runtime_kernel *k = NULL;
    CHECK(gemmc_runtime_module_load(rt, marked, strlen(marked), &m).code == GEMMC_OK &&
              gemmc_runtime_module_get_kernel(rt, m, "k", &k).code == GEMMC_OK && ((uintptr_t)m & 7) == 0 &&
              ((uintptr_t)k & 7) == 0 && gemmc_runtime_module_unload(rt, m).code == GEMMC_OK,
          "a marked module's handles are the driver's (aligned pointers)");
    int ex = fake->launches_ex, unloaded = fake->modules_unloaded;
    CHECK(launch_image(rt, marked, 0) && fake->last_programmatic == on && fake->launches_ex == ex + on &&
              fake->modules_unloaded == unloaded + 1,
          "a marked module, GEMMC_PROGRAMMATIC_LAUNCH %s: programmatic %d", on ? "1" : "unset", fake->last_programmatic);
    CHECK(launch_image(rt, plain, 0) && fake->last_programmatic == 0 && fake->launches_ex == ex + on,
          "an unmarked module is launched plainly");
    CHECK(launch_image(rt, marked, 2) && fake->last_programmatic == on && fake->last_cluster_x == 2,
          "clusters and the programmatic attribute together (%d, %u)", fake->last_programmatic, fake->last_cluster_x);
    /* The API overrides what the environment said. */
    CHECK(gemmc_runtime_set_programmatic_launch(rt, !on).code == GEMMC_OK && launch_image(rt, marked, 0) &&
              fake->last_programmatic == !on,
          "gemmc_runtime_set_programmatic_launch(%d)", !on);
    gemmc_runtime_destroy(rt);
  }
  unsetenv("GEMMC_PROGRAMMATIC_LAUNCH");
  CHECK(gemmc_runtime_set_programmatic_launch(NULL, true).code == GEMMC_ERROR_INVALID_ARGUMENT, "no runtime");
}

static int tuning_lines(const char *dir) {
  char path[512];
  snprintf(path, sizeof path, "%s/tuning", dir);
  DIR *d = opendir(path);
  int lines = 0;
  for (struct dirent *e; d && (e = readdir(d));) {
    if (!strstr(e->d_name, ".tsv")) continue;
    char file[800];
    snprintf(file, sizeof file, "%s/%s", path, e->d_name);
    FILE *f = fopen(file, "r");
    for (int c; f && (c = fgetc(f)) != EOF;) lines += c == '\n';
    if (f) fclose(f);
  }
  if (d) closedir(d);
  return lines;
}

int main(void) {
  gemmc_runtime *probe = NULL;
  gemmc_status st = gemmc_runtime_create(GEMMC_BACKEND_CUDA, 0, &probe);
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  fake_stats *(*stats_fn)(void) = lib ? (fake_stats * (*)(void))(uintptr_t)dlsym(lib, "fake_cuda_stats") : NULL;
  if (st.code != GEMMC_OK || !stats_fn) {
    printf("skipped: not running on the stand-in driver (LD_LIBRARY_PATH=.../fake-cuda)\n");
    gemmc_runtime_destroy(probe);
    return 0;
  }
  gemmc_runtime_destroy(probe);
  fake = stats_fn();
  const char *tmp = getenv("TMPDIR");
  snprintf(cache_dir, sizeof cache_dir, "%s/gemmc-fake-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  CHECK(mkdtemp(cache_dir) != NULL, "mkdtemp");
  snprintf(tune_dir, sizeof tune_dir, "%s/tuned", cache_dir);
  size_t big = 64u << 20;
  A = malloc(big), B = malloc(big), C = malloc(big), D = malloc(big), bias = malloc(1 << 20);

  /* A first call builds one kernel; the second is a launch. */
  gemmc_handle *h = open_handle(cache_dir, 0, false, NULL);
  if (!h) return 1;
  st = gemm(h, 256, 256, 256, GEMMC_R_16F, GEMMC_R_16F, GEMMC_COMPUTE_32F, 1);
  CHECK(st.code == GEMMC_OK, "256^3 f16: %s", st.message);
  gemmc_matmul_info info = info_of(h);
  CHECK(fake->launches == 1 && !strcmp(fake->last_kernel, "gemmc_gemm"), "one launch of gemmc_gemm (%d, %s)", fake->launches,
        fake->last_kernel);
  CHECK(strstr(info.config, "(model)") && info.split_k == 1 && !info.disk_cache_hit && info.compile_ms > 0, "config %s",
        info.config);
  CHECK(info.launch.grid[1] == 1 && info.launch.grid[2] == 1 && info.launch.block[0] % 32 == 0 && info.num_args == 24,
        "grid %u,%u,%u block %u, %d args", info.launch.grid[0], info.launch.grid[1], info.launch.grid[2], info.launch.block[0],
        info.num_args);
  CHECK(info.arg_values[0] == (uint64_t)(uintptr_t)B && info.arg_values[1] == (uint64_t)(uintptr_t)A &&
            info.arg_values[3] == (uint64_t)(uintptr_t)D && info.arg_values[5] == 256,
        "arguments in kernel coordinates: a_ptr is cuBLAS's B, b_ptr its A, d_ptr D, M = n");
  int loaded = fake->modules_loaded, links = fake->links;
  st = gemm(h, 256, 256, 256, GEMMC_R_16F, GEMMC_R_16F, GEMMC_COMPUTE_32F, 1);
  CHECK(st.code == GEMMC_OK && fake->launches == 2 && fake->modules_loaded == loaded, "a warm call only launches");
  CHECK(links == 1, "the first build ran the driver's JIT once (%d)", links);

  /* Another handle (another process, as far as the disk is concerned) reads the entry, cubin included. */
  gemmc_handle *h2 = open_handle(cache_dir, 0, false, NULL);
  st = gemm(h2, 256, 256, 256, GEMMC_R_16F, GEMMC_R_16F, GEMMC_COMPUTE_32F, 1);
  info = info_of(h2);
  CHECK(st.code == GEMMC_OK && info.disk_cache_hit && fake->links == links && fake->modules_loaded == loaded + 1,
        "a new handle hits the disk cache without a JIT (hit %d, links %d)", info.disk_cache_hit, fake->links);
  gemmc_handle_destroy(h2);

  /* Deep K, small output: split-K, two kernels. */
  int before = fake->launches;
  st = gemm(h, 64, 64, 16384, GEMMC_R_16F, GEMMC_R_16F, GEMMC_COMPUTE_32F, 1);
  info = info_of(h);
  CHECK(st.code == GEMMC_OK && info.split_k > 1 && info.has_reduce && fake->launches == before + 2 &&
            !strcmp(fake->last_kernel, "gemmc_gemm_splitk_reduce") && info.launch.grid[2] == (unsigned)info.split_k,
        "split-K: %s, %d launches, last %s", info.config, fake->launches - before, fake->last_kernel);

  /* Batches on grid y. */
  st = gemm(h, 100, 70, 30, GEMMC_R_16BF, GEMMC_R_16BF, GEMMC_COMPUTE_32F, 3);
  CHECK(st.code == GEMMC_OK && fake->last_grid[1] == 3, "batch of 3 on grid y (%u): %s", fake->last_grid[1], st.message);

  /* Every type combination builds. */
  static const struct {
    gemmc_datatype in, out;
    gemmc_compute_type compute;
  } combos[] = {{GEMMC_R_16F, GEMMC_R_32F, GEMMC_COMPUTE_32F}, {GEMMC_R_32F, GEMMC_R_32F, GEMMC_COMPUTE_32F},
                {GEMMC_R_32F, GEMMC_R_32F, GEMMC_COMPUTE_32F_FAST_TF32}, {GEMMC_R_16F, GEMMC_R_16F, GEMMC_COMPUTE_16F},
                {GEMMC_R_8I, GEMMC_R_32I, GEMMC_COMPUTE_32I}};
  for (size_t i = 0; i < sizeof combos / sizeof combos[0]; i++) {
    st = gemm(h, 33, 17, 65, combos[i].in, combos[i].out, combos[i].compute, 1);
    CHECK(st.code == GEMMC_OK, "combination %zu: %s", i, st.message);
  }
  /* A full epilogue on unaligned, padded operands. */
  gemmc_matmul_desc d;
  gemmc_matmul_desc_init(&d);
  float alpha = 0.5f, beta = 2;
  d.transa = GEMMC_OP_T, d.m = 45, d.n = 37, d.k = 29, d.alpha = &alpha, d.beta = &beta;
  d.A = (char *)A + 2, d.B = (char *)B + 2, d.C = (char *)C + 2, d.D = (char *)D + 2, d.bias = (char *)bias + 2;
  d.lda = 31, d.ldb = 30, d.ldc = 47, d.ldd = 46, d.activation = GEMMC_ACT_GELU;
  st = gemmc_matmul_ex(h, &d);
  CHECK(st.code == GEMMC_OK, "unaligned, transposed, padded, with C, bias and gelu: %s", st.message);

  /* Nothing to do, and what must fail cleanly. */
  before = fake->launches;
  CHECK(gemm(h, 0, 5, 5, GEMMC_R_16F, GEMMC_R_16F, GEMMC_COMPUTE_32F, 1).code == GEMMC_OK && fake->launches == before,
        "m = 0 launches nothing");
  /* fp8 inputs build (accelerate-matmul gives the dot f16 operands where no fp8 MMA fits). */
  st = gemm(h, 64, 64, 64, GEMMC_R_8F_E4M3, GEMMC_R_16F, GEMMC_COMPUTE_32F, 1);
  CHECK(st.code == GEMMC_OK, "fp8 e4m3 -> f16: %.300s", st.message);
  st = gemm(h, 48, 80, 96, GEMMC_R_8F_E5M2, GEMMC_R_32F, GEMMC_COMPUTE_32F, 1);
  CHECK(st.code == GEMMC_OK, "fp8 e5m2 -> f32: %.300s", st.message);
  st = gemm(h, 64, 64, 64, GEMMC_R_8F_E4M3, GEMMC_R_8F_E4M3, GEMMC_COMPUTE_32F, 1);
  CHECK(st.code == GEMMC_ERROR_UNSUPPORTED, "fp8 outputs are not offered: %.200s", st.message);
  gemmc_matmul_desc_init(&d);
  d.m = d.n = d.k = 64, d.lda = 8, d.ldb = d.ldd = 64, d.alpha = &alpha, d.A = A, d.B = B, d.D = D;
  CHECK(gemmc_matmul_ex(h, &d).code == GEMMC_ERROR_INVALID_ARGUMENT, "lda < m is invalid");

  /* prepare builds; the call after it only launches. */
  gemmc_matmul_desc_init(&d);
  d.m = 512, d.n = 384, d.k = 128, d.lda = 512, d.ldb = 128, d.ldd = 512, d.alpha = &alpha;
  CHECK(gemmc_matmul_prepare(h, &d).code == GEMMC_OK, "prepare");
  loaded = fake->modules_loaded;
  d.A = A, d.B = B, d.D = D;
  CHECK(gemmc_matmul_ex(h, &d).code == GEMMC_OK && fake->modules_loaded == loaded, "prepared kernels are reused");
  /* Many shapes at once: built in parallel, then every call only launches. */
  enum { MANY = 12 };
  gemmc_matmul_desc many[MANY];
  static const gemmc_datatype types[][2] = {{GEMMC_R_16F, GEMMC_R_16F}, {GEMMC_R_16BF, GEMMC_R_32F}, {GEMMC_R_32F, GEMMC_R_32F}};
  for (int i = 0; i < MANY; i++) {
    gemmc_matmul_desc_init(&many[i]);
    many[i].m = 40 + 37 * i, many[i].n = 24 + 11 * i, many[i].k = 8 + 100 * i;
    many[i].a_type = many[i].b_type = types[i % 3][0], many[i].c_type = many[i].d_type = types[i % 3][1];
    many[i].transb = i % 2 ? GEMMC_OP_T : GEMMC_OP_N;
    many[i].lda = many[i].m, many[i].ldb = i % 2 ? many[i].n : many[i].k, many[i].ldd = many[i].m;
    many[i].alpha = &alpha;
  }
  double wall = 0;
  st = gemmc_matmul_prepare_many(h, many, MANY, &wall);
  CHECK(st.code == GEMMC_OK, "prepare_many: %s", st.message);
  loaded = fake->modules_loaded;
  before = fake->launches;
  for (int i = 0; i < MANY; i++) {
    many[i].A = A, many[i].B = B, many[i].D = (char *)D + 256;
    st = gemmc_matmul_ex(h, &many[i]);
    CHECK(st.code == GEMMC_OK, "prepared shape %d: %s", i, st.message);
  }
  CHECK(fake->modules_loaded == loaded && fake->launches >= before + MANY, "the prepared shapes only launch (%d new modules)",
        fake->modules_loaded - loaded);
  gemmc_handle_destroy(h);
  CHECK(fake->modules_unloaded > 0, "destroying the handle unloads its modules");

  /* The cold timer: warm-up launches, then one launch per sample, each after the scratch write. */
  {
    gemmc_runtime *rt = NULL;
    CHECK(gemmc_runtime_create(GEMMC_BACKEND_CUDA, 0, &rt).code == GEMMC_OK, "a runtime for the timer");
    int calls = 0;
    gemmc_tune_timing timing;
    st = gemmc_tune_time_cold(rt, NULL, count_launch, &calls, 2, 5, 1u << 20, &timing);
    CHECK(st.code == GEMMC_OK && calls == 7 && timing.samples == 5 && timing.launches_per_sample == 1 &&
              timing.median_ms >= timing.min_ms && timing.min_ms >= 0,
          "gemmc_tune_time_cold: 2 + 5 launches, one per sample (%d calls, %d per sample): %s", calls,
          timing.launches_per_sample, st.message);
    st = gemmc_tune_time_cold(rt, NULL, count_launch, &calls, 0, 5, 0, &timing);
    CHECK(st.code == GEMMC_ERROR_INVALID_ARGUMENT, "gemmc_tune_time_cold without scratch: invalid (%s)", st.message);
    gemmc_runtime_destroy(rt);
  }

  /* Autotuning: one line per candidate on stderr, the winner stored; a later handle uses it. */
  CHECK(tuning_lines(tune_dir) == 0, "no tuning results yet");
  gemmc_handle *tuner = open_handle(tune_dir, 1, false, NULL);
  st = gemm(tuner, 1024, 1024, 1024, GEMMC_R_16F, GEMMC_R_16F, GEMMC_COMPUTE_32F, 1);
  info = info_of(tuner);
  CHECK(st.code == GEMMC_OK && strstr(info.config, "(tuned)"), "tuned: %s %s", info.config, st.message);
  CHECK(tuning_lines(tune_dir) == 1, "one stored winner (%d)", tuning_lines(tune_dir));
  char tuned_config[128];
  snprintf(tuned_config, sizeof tuned_config, "%s", info.config);
  gemmc_handle_destroy(tuner);
  gemmc_handle *later = open_handle(tune_dir, 0, false, NULL);
  st = gemm(later, 1000, 1100, 900, GEMMC_R_16F, GEMMC_R_16F, GEMMC_COMPUTE_32F, 1); /* another shape, same class? no: 1000 is not 16-divisible */
  st = gemm(later, 1024, 1024, 1024, GEMMC_R_16F, GEMMC_R_16F, GEMMC_COMPUTE_32F, 1);
  info = info_of(later);
  CHECK(st.code == GEMMC_OK && !strcmp(info.config, tuned_config), "a later handle uses the stored winner (%s, stored %s)",
        info.config, tuned_config);
  gemmc_handle_destroy(later);

  /* Batch invariance: the config does not follow m. */
  gemmc_handle *bi = open_handle(cache_dir, 0, true, NULL);
  char first[128] = "";
  bool same = true;
  for (int64_t m = 1; m <= 4096; m *= 4) {
    st = gemm(bi, m, 512, 1024, GEMMC_R_16F, GEMMC_R_16F, GEMMC_COMPUTE_32F, 1);
    info = info_of(bi);
    if (!first[0]) snprintf(first, sizeof first, "%s", info.config);
    same &= st.code == GEMMC_OK && !strcmp(first, info.config) && info.split_k == 1 && info.batch_invariant;
  }
  CHECK(same, "batch-invariant: one config for every m (%s)", first);
  gemmc_handle_destroy(bi);

  /* A forced config. */
  gemmc_handle *forced = open_handle(cache_dir, 0, false, "wgmma_64x128x32_s4");
  st = gemm(forced, 300, 200, 100, GEMMC_R_16F, GEMMC_R_16F, GEMMC_COMPUTE_32F, 1);
  info = info_of(forced);
  CHECK(st.code == GEMMC_OK && strstr(info.config, "wgmma_64x128x32_s4") && strstr(info.config, "(forced)"), "forced: %s",
        info.config);
  st = gemm(forced, 300, 200, 100, GEMMC_R_8I, GEMMC_R_32I, GEMMC_COMPUTE_32I, 1);
  CHECK(st.code == GEMMC_ERROR_UNSUPPORTED, "a forced f16 config cannot run int8: %s", st.message);
  gemmc_handle_destroy(forced);
  gemmc_handle_options o;
  gemmc_handle_options_init(&o);
  o.config = "no_such_config";
  gemmc_handle *none = NULL;
  CHECK(gemmc_handle_create(&o, &none).code == GEMMC_ERROR_INVALID_ARGUMENT && !none, "an unknown config name");

  check_programmatic_launch();

  free(A), free(B), free(C), free(D), free(bias);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_dir);
  CHECK(system(cmd) == 0, "clean up");
  printf("%d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}

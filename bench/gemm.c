/* GEMM benchmark: gemmc's matmul kernels against cuBLAS (dlopen'ed) in one process on the GPU, with an optional autotuning sweep; table, CSV and SVG out. */
#include <dlfcn.h>

#include "../examples/matmul_host.h"
#include "gemmc/matmul.h"

/* Method (shared/device.md): CUDA events after a warm-up, median of >= 10 samples, each sample
 * several launches when one is short; inputs random (never zeros) and rotated over enough copies
 * to exceed twice the L2 (50-60 MB) so that small problems do not time cache hits. cuBLAS runs in
 * the same process on the same stream: the fastest of cublasGemmEx / cublasGemmStridedBatchedEx
 * over their algo list and cublasLt's heuristic algos (the seed searched the algos the same way). */

/* ------------------------------------------------------------------ cuBLAS through dlopen */

/* The few cuBLAS / cuBLASLt declarations used, with the values of cublas_api.h / cublasLt.h. */
typedef void *cublas_handle;
typedef void *cublaslt_handle, *cublaslt_desc, *cublaslt_layout, *cublaslt_pref;
typedef struct cublaslt_algo {
  uint64_t data[8];
} cublaslt_algo;
typedef struct cublaslt_heuristic {
  cublaslt_algo algo;
  size_t workspace_size;
  int state;
  float waves_count;
  int reserved[4];
} cublaslt_heuristic;
enum {
  CUDA_R_32F = 0, CUDA_R_16F = 2, CUDA_R_16BF = 14,
  CUBLAS_COMPUTE_16F = 64, CUBLAS_COMPUTE_32F = 68,
  CUBLAS_OP_N = 0,
  CUBLAS_GEMM_DEFAULT = -1, CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99,
  CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6,
  CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1,
};

typedef struct cublas_api {
  void *lib, *lt_lib;
  cublas_handle handle;
  cublaslt_handle lt;
  gemmc_devptr workspace;
  size_t workspace_bytes;
  int (*create)(cublas_handle *);
  int (*destroy)(cublas_handle);
  int (*gemm_ex)(cublas_handle, int, int, int, int, int, const void *, const void *, int, int, const void *, int, int,
                 const void *, void *, int, int, int, int);
  int (*gemm_strided_batched_ex)(cublas_handle, int, int, int, int, int, const void *, const void *, int, int, long long,
                                 const void *, int, int, long long, const void *, void *, int, int, long long, int, int, int);
  int (*lt_create)(cublaslt_handle *);
  int (*lt_destroy)(cublaslt_handle);
  int (*lt_desc_create)(cublaslt_desc *, int, int);
  int (*lt_desc_destroy)(cublaslt_desc);
  int (*lt_layout_create)(cublaslt_layout *, int, uint64_t, uint64_t, int64_t);
  int (*lt_layout_destroy)(cublaslt_layout);
  int (*lt_layout_set)(cublaslt_layout, int, const void *, size_t);
  int (*lt_pref_create)(cublaslt_pref *);
  int (*lt_pref_destroy)(cublaslt_pref);
  int (*lt_pref_set)(cublaslt_pref, int, const void *, size_t);
  int (*lt_heuristic)(cublaslt_handle, cublaslt_desc, cublaslt_layout, cublaslt_layout, cublaslt_layout, cublaslt_layout,
                      cublaslt_pref, int, cublaslt_heuristic *, int *);
  int (*lt_matmul)(cublaslt_handle, cublaslt_desc, const void *, const void *, cublaslt_layout, const void *,
                   cublaslt_layout, const void *, const void *, cublaslt_layout, void *, cublaslt_layout,
                   const cublaslt_algo *, void *, size_t, void *);
} cublas_api;

static void *open_first(const char *const *names) {
  for (int i = 0; names[i]; i++) {
    void *h = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
    if (h) return h;
  }
  return NULL;
}

#define LOAD_SYM(lib, field, name)                                   \
  do {                                                               \
    *(void **)(&api->field) = dlsym(lib, name);                      \
    if (!api->field) return mh_fail(e, "%s missing from cuBLAS", name); \
  } while (0)

/* Opens cuBLASLt and cuBLAS (either may be absent: false with a message) on rt's context. */
static bool cublas_open(gemmc_runtime *rt, cublas_api *api, mh_error *e) {
  memset(api, 0, sizeof *api);
  static const char *const lt_names[] = {"libcublasLt.so", "libcublasLt.so.13", "libcublasLt.so.12",
                                         "/usr/local/cuda/lib64/libcublasLt.so", NULL};
  static const char *const names[] = {"libcublas.so", "libcublas.so.13", "libcublas.so.12",
                                      "/usr/local/cuda/lib64/libcublas.so", NULL};
  api->lt_lib = open_first(lt_names);
  api->lib = open_first(names);
  if (!api->lib || !api->lt_lib) return mh_fail(e, "cuBLAS not found (libcublas.so / libcublasLt.so: %s)", dlerror());
  LOAD_SYM(api->lib, create, "cublasCreate_v2");
  LOAD_SYM(api->lib, destroy, "cublasDestroy_v2");
  LOAD_SYM(api->lib, gemm_ex, "cublasGemmEx");
  LOAD_SYM(api->lib, gemm_strided_batched_ex, "cublasGemmStridedBatchedEx");
  LOAD_SYM(api->lt_lib, lt_create, "cublasLtCreate");
  LOAD_SYM(api->lt_lib, lt_destroy, "cublasLtDestroy");
  LOAD_SYM(api->lt_lib, lt_desc_create, "cublasLtMatmulDescCreate");
  LOAD_SYM(api->lt_lib, lt_desc_destroy, "cublasLtMatmulDescDestroy");
  LOAD_SYM(api->lt_lib, lt_layout_create, "cublasLtMatrixLayoutCreate");
  LOAD_SYM(api->lt_lib, lt_layout_destroy, "cublasLtMatrixLayoutDestroy");
  LOAD_SYM(api->lt_lib, lt_layout_set, "cublasLtMatrixLayoutSetAttribute");
  LOAD_SYM(api->lt_lib, lt_pref_create, "cublasLtMatmulPreferenceCreate");
  LOAD_SYM(api->lt_lib, lt_pref_destroy, "cublasLtMatmulPreferenceDestroy");
  LOAD_SYM(api->lt_lib, lt_pref_set, "cublasLtMatmulPreferenceSetAttribute");
  LOAD_SYM(api->lt_lib, lt_heuristic, "cublasLtMatmulAlgoGetHeuristic");
  LOAD_SYM(api->lt_lib, lt_matmul, "cublasLtMatmul");
  int st;
  if ((st = api->create(&api->handle)) != 0) return mh_fail(e, "cublasCreate failed (status %d)", st);
  if ((st = api->lt_create(&api->lt)) != 0) return mh_fail(e, "cublasLtCreate failed (status %d)", st);
  api->workspace_bytes = 64u << 20;
  return mh_ok(gemmc_runtime_mem_alloc(rt, api->workspace_bytes, &api->workspace), "allocating the cuBLAS workspace", e);
}

static void cublas_close(gemmc_runtime *rt, cublas_api *api) {
  if (api->handle) api->destroy(api->handle);
  if (api->lt) api->lt_destroy(api->lt);
  if (api->workspace) gemmc_runtime_mem_free(rt, api->workspace);
  /* The libraries stay loaded: unloading cuBLAS before the process ends gains nothing. */
}

/* ------------------------------------------------------------------ one benchmark case */

enum { MAX_SETS = 32 };

/* The rotated copies of A, B and C of one case on the device. */
typedef struct bench_buffers {
  gemmc_devptr a[MAX_SETS], b[MAX_SETS], c[MAX_SETS];
  int sets;
} bench_buffers;

/* What a timed callable does: one GEMM on copy `set`. */
typedef enum runner_kind { RUN_GEMMC, RUN_GEMM_EX, RUN_LT, RUN_API } runner_kind;
typedef struct runner {
  runner_kind kind;
  const mh_gemm *g;
  const bench_buffers *buf;
  /* gemmc */
  const mh_kernel *kernel;
  const mh_config *config;
  /* cuBLAS */
  cublas_api *api;
  int algo;
  cublaslt_desc desc;
  cublaslt_layout la, lb, lc;
  cublaslt_algo lt_algo;
  size_t lt_workspace;
  /* gemmc_matmul (--api) */
  gemmc_handle *handle;
} runner;

static int cuda_type(mh_dtype t) { return t == MH_F16 ? CUDA_R_16F : t == MH_BF16 ? CUDA_R_16BF : CUDA_R_32F; }

static bool run_once(gemmc_runtime *rt, const runner *r, int set, mh_error *e) {
  const mh_gemm *g = r->g;
  gemmc_devptr a = r->buf->a[set], b = r->buf->b[set], c = r->buf->c[set];
  if (r->kind == RUN_GEMMC) return mh_launch(rt, r->kernel, g, r->config, a, b, c, e);
  if (r->kind == RUN_API) {
    /* The same operand swap as cuBLAS below: row-major C = A B is column-major C^T = B^T A^T. */
    float one = 1.0f, beta = (float)g->beta;
    gemmc_datatype t = g->in == MH_F16 ? GEMMC_R_16F : g->in == MH_BF16 ? GEMMC_R_16BF : GEMMC_R_32F;
    gemmc_datatype to = g->out == MH_F16 ? GEMMC_R_16F : g->out == MH_BF16 ? GEMMC_R_16BF : GEMMC_R_32F;
    gemmc_compute_type ct = g->acc == MH_F16 ? GEMMC_COMPUTE_16F : GEMMC_COMPUTE_32F;
    const void *pa = (const void *)(uintptr_t)a, *pb = (const void *)(uintptr_t)b;
    void *pc = (void *)(uintptr_t)c;
    gemmc_status st = gemmc_matmul_strided_batched(r->handle, GEMMC_OP_N, GEMMC_OP_N, g->n, g->m, g->k, &one, pb, t,
                                                   g->stride_bk, g->stride_bb, pa, t, g->stride_am, g->stride_ab, &beta,
                                                   g->beta != 0 ? pc : NULL, to, g->stride_cm, g->stride_cb, pc, to, g->stride_cm,
                                                   g->stride_cb, g->batch > 0 ? g->batch : 1, ct);
    return mh_ok(st, "gemmc_matmul", e);
  }
  /* Row-major C = A B is column-major C^T = B^T A^T: swap the operands, M and N. */
  float alpha32 = 1.0f, beta32 = (float)g->beta;
  uint16_t alpha16 = mh_f32_to_f16_bits(1.0f), beta16 = mh_f32_to_f16_bits((float)g->beta);
  bool f16_compute = g->acc == MH_F16;
  const void *alpha = f16_compute ? (const void *)&alpha16 : (const void *)&alpha32;
  const void *beta = f16_compute ? (const void *)&beta16 : (const void *)&beta32;
  int compute = f16_compute ? CUBLAS_COMPUTE_16F : CUBLAS_COMPUTE_32F, ti = cuda_type(g->in), to = cuda_type(g->out);
  int st;
  if (r->kind == RUN_GEMM_EX) {
    if (g->kind == MH_KERNEL_BATCHED)
      st = r->api->gemm_strided_batched_ex(r->api->handle, CUBLAS_OP_N, CUBLAS_OP_N, g->n, g->m, g->k, alpha, (void *)b, ti,
                                           (int)g->stride_bk, g->stride_bb, (void *)a, ti, (int)g->stride_am, g->stride_ab,
                                           beta, (void *)c, to, (int)g->stride_cm, g->stride_cb, g->batch, compute, r->algo);
    else
      st = r->api->gemm_ex(r->api->handle, CUBLAS_OP_N, CUBLAS_OP_N, g->n, g->m, g->k, alpha, (void *)b, ti, (int)g->stride_bk,
                           (void *)a, ti, (int)g->stride_am, beta, (void *)c, to, (int)g->stride_cm, compute, r->algo);
  } else {
    st = r->api->lt_matmul(r->api->lt, r->desc, alpha, (void *)b, r->lb, (void *)a, r->la, beta, (void *)c, r->lc, (void *)c,
                           r->lc, &r->lt_algo, (void *)r->api->workspace, r->lt_workspace, NULL);
  }
  return st == 0 ? true : mh_fail(e, "cuBLAS returned status %d", st);
}

typedef struct timing {
  double median_ms, min_ms;
  int samples, launches_per_sample;
} timing;


typedef struct runner_state {
  gemmc_runtime *rt;
  const runner *r;
} runner_state;

static bool runner_launch(void *user, int index, char *err, size_t errlen) {
  runner_state *s = user;
  mh_error e;
  if (run_once(s->rt, s->r, index % s->r->buf->sets, &e)) return true;
  snprintf(err, errlen, "%s", e.message);
  return false;
}

/* gemmc's timing (gemmc_tune_time): warm-up, then `samples` samples of n launches each (n so that
 * a sample lasts >= ~1 ms), rotating over the copies; median per launch. cuBLAS is timed the
 * same way as gemmc's configs. */
static bool time_runner(gemmc_runtime *rt, gemmc_runtime_event *start, gemmc_runtime_event *end, const runner *r,
                        int samples, int warmup, timing *t, mh_error *e) {
  (void)start, (void)end;
  runner_state s = {rt, r};
  gemmc_tune_timing tt;
  if (!mh_ok(gemmc_tune_time(rt, NULL, runner_launch, &s, warmup, samples, 1.0, &tt), "timing", e)) return false;
  t->median_ms = tt.median_ms;
  t->min_ms = tt.min_ms;
  t->samples = tt.samples;
  t->launches_per_sample = tt.launches_per_sample;
  return true;
}

/* Random (never zero) inputs: one random block of the input type, copied over every buffer. */
static bool fill_random(gemmc_runtime *rt, gemmc_devptr dst, size_t bytes, const void *block, size_t block_bytes, mh_error *e) {
  for (size_t at = 0; at < bytes; at += block_bytes) {
    size_t n = bytes - at < block_bytes ? bytes - at : block_bytes;
    if (!mh_ok(gemmc_runtime_copy_htod(rt, dst + at, block, n), "uploading inputs", e)) return false;
  }
  return true;
}

static void buffers_free(gemmc_runtime *rt, bench_buffers *b) {
  for (int i = 0; i < b->sets; i++) {
    if (b->a[i]) gemmc_runtime_mem_free(rt, b->a[i]);
    if (b->b[i]) gemmc_runtime_mem_free(rt, b->b[i]);
    if (b->c[i]) gemmc_runtime_mem_free(rt, b->c[i]);
  }
  memset(b, 0, sizeof *b);
}

static bool buffers_init(gemmc_runtime *rt, const mh_gemm *g, mh_rng *rng, bench_buffers *b, mh_error *e) {
  memset(b, 0, sizeof *b);
  size_t ab = g->a_elems * mh_dtype_size(g->in), bb = g->b_elems * mh_dtype_size(g->in), cb = g->c_elems * mh_dtype_size(g->out);
  const size_t rotate_bytes = 256u << 20; /* more than twice the largest Hopper L2 */
  size_t set_bytes = ab + bb + cb;
  int sets = (int)((rotate_bytes + set_bytes - 1) / set_bytes);
  if (sets > MAX_SETS) sets = MAX_SETS;
  const gemmc_device_info *info = gemmc_runtime_device_info(rt);
  while (sets > 1 && (double)set_bytes * sets > 0.6 * (double)info->total_memory) sets--;
  size_t block_elems = 1u << 22, block_bytes = block_elems * mh_dtype_size(g->in);
  void *block = malloc(block_bytes);
  if (!block) return mh_fail(e, "out of host memory");
  for (size_t i = 0; i < block_elems; i++) mh_store(g->in, block, i, mh_rng_uniform(rng));
  bool ok = true;
  for (int s = 0; ok && s < sets; s++) {
    b->sets = s + 1;
    ok = mh_ok(gemmc_runtime_mem_alloc(rt, ab, &b->a[s]), "allocating A", e) &&
         mh_ok(gemmc_runtime_mem_alloc(rt, bb, &b->b[s]), "allocating B", e) &&
         mh_ok(gemmc_runtime_mem_alloc(rt, cb, &b->c[s]), "allocating C", e) &&
         fill_random(rt, b->a[s], ab, block, block_bytes, e) && fill_random(rt, b->b[s], bb, block, block_bytes, e) &&
         mh_ok(gemmc_runtime_memset_d8(rt, b->c[s], MH_OUTPUT_POISON, cb), "poisoning C", e);
  }
  free(block);
  if (!ok) buffers_free(rt, b);
  return ok;
}

/* ------------------------------------------------------------------ cuBLAS: pick the fastest */

typedef struct cublas_choice {
  bool ok;
  runner r;
  timing t;
  char name[96];
} cublas_choice;

static void lt_release(cublas_api *api, runner *r) {
  if (r->desc) api->lt_desc_destroy(r->desc);
  if (r->la) api->lt_layout_destroy(r->la);
  if (r->lb) api->lt_layout_destroy(r->lb);
  if (r->lc) api->lt_layout_destroy(r->lc);
  r->desc = r->la = r->lb = r->lc = NULL;
}

/* Quick-times every GemmEx algo and cublasLt's top heuristic algos (3 samples each), then times
 * the fastest like gemmc. `keep` holds the Lt descriptors of the choice (release with lt_release). */
static bool cublas_best(gemmc_runtime *rt, gemmc_runtime_event *ev0, gemmc_runtime_event *ev1, cublas_api *api,
                        const mh_gemm *g, const bench_buffers *buf, int samples, cublas_choice *out, mh_error *e) {
  memset(out, 0, sizeof *out);
  runner best = {0};
  double best_ms = INFINITY;
  mh_error ignored;
  for (int algo = -1; algo <= 115; algo++) {
    if (algo > 23 && algo < 99) continue;
    runner r = {RUN_GEMM_EX, g, buf, NULL, NULL, api, algo, NULL, NULL, NULL, NULL, {{0}}, 0, NULL};
    timing t;
    if (!run_once(rt, &r, 0, &ignored)) continue; /* algo not supported for these types */
    if (!time_runner(rt, ev0, ev1, &r, 3, 1, &t, e)) return false;
    if (t.median_ms < best_ms) best_ms = t.median_ms, best = r, snprintf(out->name, sizeof out->name, "%s algo %d",
                                                                         g->kind == MH_KERNEL_BATCHED ? "GemmStridedBatchedEx" : "GemmEx", algo);
  }
  /* cublasLt: same operand swap; batched through the layouts' batch attributes. */
  runner lt = {RUN_LT, g, buf, NULL, NULL, api, 0, NULL, NULL, NULL, NULL, {{0}}, 0, NULL};
  bool f16_compute = g->acc == MH_F16;
  int ti = cuda_type(g->in), to = cuda_type(g->out);
  bool lt_ok = api->lt_desc_create(&lt.desc, f16_compute ? CUBLAS_COMPUTE_16F : CUBLAS_COMPUTE_32F,
                                   f16_compute ? CUDA_R_16F : CUDA_R_32F) == 0 &&
               api->lt_layout_create(&lt.lb, ti, (uint64_t)g->n, (uint64_t)g->k, g->stride_bk) == 0 &&
               api->lt_layout_create(&lt.la, ti, (uint64_t)g->k, (uint64_t)g->m, g->stride_am) == 0 &&
               api->lt_layout_create(&lt.lc, to, (uint64_t)g->n, (uint64_t)g->m, g->stride_cm) == 0;
  if (lt_ok && g->kind == MH_KERNEL_BATCHED) {
    int32_t count = g->batch;
    int64_t sa = g->stride_ab, sb = g->stride_bb, sc = g->stride_cb;
    lt_ok = api->lt_layout_set(lt.la, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count) == 0 &&
            api->lt_layout_set(lt.lb, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count) == 0 &&
            api->lt_layout_set(lt.lc, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count) == 0 &&
            api->lt_layout_set(lt.la, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sa, sizeof sa) == 0 &&
            api->lt_layout_set(lt.lb, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sb, sizeof sb) == 0 &&
            api->lt_layout_set(lt.lc, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sc, sizeof sc) == 0;
  }
  cublaslt_heuristic results[8];
  int found = 0;
  if (lt_ok) {
    cublaslt_pref pref = NULL;
    uint64_t ws = api->workspace_bytes;
    if (api->lt_pref_create(&pref) == 0) {
      api->lt_pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
      if (api->lt_heuristic(api->lt, lt.desc, lt.lb, lt.la, lt.lc, lt.lc, pref, 8, results, &found) != 0) found = 0;
      api->lt_pref_destroy(pref);
    }
  }
  int best_lt = -1;
  for (int i = 0; i < found; i++) {
    lt.lt_algo = results[i].algo;
    lt.lt_workspace = results[i].workspace_size;
    timing t;
    if (!run_once(rt, &lt, 0, &ignored)) continue;
    if (!time_runner(rt, ev0, ev1, &lt, 3, 1, &t, e)) {
      lt_release(api, &lt);
      return false;
    }
    if (t.median_ms < best_ms) best_ms = t.median_ms, best_lt = i;
  }
  if (best_lt >= 0) {
    lt.lt_algo = results[best_lt].algo;
    lt.lt_workspace = results[best_lt].workspace_size;
    best = lt;
    snprintf(out->name, sizeof out->name, "cublasLt heuristic #%d", best_lt);
  } else {
    lt_release(api, &lt);
  }
  if (!isfinite(best_ms)) return mh_fail(e, "no cuBLAS algorithm ran for these types");
  out->r = best;
  if (!time_runner(rt, ev0, ev1, &out->r, samples, 3, &out->t, e)) return false;
  out->ok = true;
  return true;
}

/* ------------------------------------------------------------------ results */

typedef struct result {
  char label[96];
  mh_gemm g;
  mh_config config;
  bool gemmc_ok, cublas_ok;
  timing gemmc_t, cublas_t;
  char cublas_name[96], gemmc_error[256];
  char api_config[128]; /* --api: what gemmc_matmul chose ("name split=S (model)") */
  double check_rel_diff; /* max |gemmc - cuBLAS| / max |cuBLAS| on copy 0; NAN when not compared */
} result;

static double tflops(const mh_gemm *g, double ms) { return ms > 0 ? mh_gemm_flops(g) / (ms * 1e-3) / 1e12 : 0; }

/* Compares gemmc's and cuBLAS' outputs for copy 0 (both just ran on it). */
static bool compare_outputs(gemmc_runtime *rt, const mh_gemm *g, const runner *gr, const runner *cr, double *rel, mh_error *e) {
  size_t bytes = g->c_elems * mh_dtype_size(g->out);
  void *x = malloc(bytes), *y = malloc(bytes);
  bool ok = x && y && run_once(rt, gr, 0, e) && mh_ok(gemmc_runtime_synchronize(rt), "running gemmc", e) &&
            mh_ok(gemmc_runtime_copy_dtoh(rt, x, gr->buf->c[0], bytes), "downloading C", e) && run_once(rt, cr, 0, e) &&
            mh_ok(gemmc_runtime_synchronize(rt), "running cuBLAS", e) &&
            mh_ok(gemmc_runtime_copy_dtoh(rt, y, cr->buf->c[0], bytes), "downloading C", e);
  if (ok) {
    double max_diff = 0, max_ref = 0;
    size_t n = g->c_elems - MH_GUARD_ELEMS;
    for (size_t i = 0; i < n; i++) {
      double a = mh_load(g->out, x, i), b = mh_load(g->out, y, i), d = fabs(a - b);
      if (isnan(d)) d = INFINITY;
      if (d > max_diff) max_diff = d;
      if (fabs(b) > max_ref) max_ref = fabs(b);
    }
    *rel = max_ref > 0 ? max_diff / max_ref : max_diff;
  }
  free(x);
  free(y);
  return ok;
}

static void write_csv(const char *path, const result *rs, int n) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "bench-gemm: cannot write %s: %s\n", path, strerror(errno));
    return;
  }
  fprintf(f, "case,dtype,acc,out,batch,M,N,K,config,gemmc_ms,gemmc_tflops,cublas_ms,cublas_tflops,cublas_kernel,ratio,check_rel_diff\n");
  for (int i = 0; i < n; i++) {
    const result *r = &rs[i];
    char cfg[128];
    mh_config_str(&r->config, cfg, sizeof cfg);
    if (r->api_config[0]) snprintf(cfg, sizeof cfg, "gemmc_matmul: %s", r->api_config);
    double gt = r->gemmc_ok ? tflops(&r->g, r->gemmc_t.median_ms) : 0, ct = r->cublas_ok ? tflops(&r->g, r->cublas_t.median_ms) : 0;
    fprintf(f, "%s,%s,%s,%s,%d,%d,%d,%d,%s,%.5f,%.2f,%.5f,%.2f,%s,%.3f,%.3g\n", r->label, mh_dtype_name(r->g.in),
            mh_dtype_name(r->g.acc), mh_dtype_name(r->g.out), r->g.batch, r->g.m, r->g.n, r->g.k, cfg,
            r->gemmc_ok ? r->gemmc_t.median_ms : NAN, gt, r->cublas_ok ? r->cublas_t.median_ms : NAN, ct,
            r->cublas_ok ? r->cublas_name : "", gt > 0 && ct > 0 ? gt / ct : NAN, r->check_rel_diff);
  }
  fclose(f);
}

/* Hand-written SVG: one row per case, a gemmc bar and a cuBLAS bar, TFLOP/s printed beside. */
static void write_svg(const char *path, const result *rs, int n, const char *device) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "bench-gemm: cannot write %s: %s\n", path, strerror(errno));
    return;
  }
  double max_t = 1;
  for (int i = 0; i < n; i++) {
    if (rs[i].gemmc_ok && tflops(&rs[i].g, rs[i].gemmc_t.median_ms) > max_t) max_t = tflops(&rs[i].g, rs[i].gemmc_t.median_ms);
    if (rs[i].cublas_ok && tflops(&rs[i].g, rs[i].cublas_t.median_ms) > max_t) max_t = tflops(&rs[i].g, rs[i].cublas_t.median_ms);
  }
  const int left = 330, bar_w = 520, row_h = 44, top = 56, width = left + bar_w + 150, height = top + n * row_h + 40;
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n",
          width, height);
  fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
  fprintf(f, "<text x=\"10\" y=\"22\" font-size=\"16\">GEMM TFLOP/s: gemmc vs cuBLAS (%s)</text>\n", device);
  fprintf(f, "<rect x=\"10\" y=\"32\" width=\"12\" height=\"12\" fill=\"#3b6fb6\"/><text x=\"28\" y=\"43\">gemmc</text>\n");
  fprintf(f, "<rect x=\"90\" y=\"32\" width=\"12\" height=\"12\" fill=\"#5aa55a\"/><text x=\"108\" y=\"43\">cuBLAS</text>\n");
  for (int i = 0; i < n; i++) {
    const result *r = &rs[i];
    int y = top + i * row_h;
    double gt = r->gemmc_ok ? tflops(&r->g, r->gemmc_t.median_ms) : 0, ct = r->cublas_ok ? tflops(&r->g, r->cublas_t.median_ms) : 0;
    fprintf(f, "<text x=\"10\" y=\"%d\">%s</text>\n", y + 24, r->label);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"#3b6fb6\"/>\n", left, y + 4, bar_w * gt / max_t);
    fprintf(f, "<text x=\"%.1f\" y=\"%d\">%s</text>\n", left + bar_w * gt / max_t + 4, y + 16,
            r->gemmc_ok ? "" : "failed");
    if (r->gemmc_ok) fprintf(f, "<text x=\"%.1f\" y=\"%d\">%.1f</text>\n", left + bar_w * gt / max_t + 4, y + 16, gt);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"#5aa55a\"/>\n", left, y + 22, bar_w * ct / max_t);
    if (r->cublas_ok) fprintf(f, "<text x=\"%.1f\" y=\"%d\">%.1f</text>\n", left + bar_w * ct / max_t + 4, y + 34, ct);
    if (gt > 0 && ct > 0) fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#555\">%.2fx</text>\n", left + bar_w + 90, y + 24, gt / ct);
  }
  fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>\n", left, top, left, top + n * row_h);
  fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#555\">bar length: TFLOP/s (longest %.0f); right: gemmc / cuBLAS</text>\n", left,
          top + n * row_h + 24, max_t);
  fprintf(f, "</svg>\n");
  fclose(f);
}

/* ------------------------------------------------------------------ main */

typedef struct bench_case {
  const char *label_prefix;
  int batch, m, n, k;
  mh_dtype in, acc;
} bench_case;

static const int square_sizes[][3] = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192}, {9728, 8192, 65536}};

static void usage(FILE *f, const char *program) {
  fprintf(f,
          "usage: %s [options]\n"
          "Times gemmc's matmul kernels and cuBLAS in one process: squares 1024..8192 and 9728x8192x65536\n"
          "for f16 and bf16 (f32 accumulation), f16 with f16 accumulation, and batched 16x4096^3.\n"
          "\n"
          "  --quick            one shape (4096^3 f16, f32 accumulation)\n"
          "  --only TEXT        cases whose label contains TEXT (e.g. 'bf16', '8192', 'batch')\n"
          "  --shapes LIST      these f16 shapes instead (f32 accumulation): MxNxK[xBATCH],... (at most 32)\n"
          "  --config C         gemmc config BMxBNxBK[:gG][:wW][:sS] (default 128x128x64:g8:w4:s3)\n"
          "  --tune             sweep the seed's 8 configs per case, keep the fastest (prints each)\n"
          "  --samples N        timed samples per measurement, >= 10 (default 10)\n"
          "  --tir-dir DIR      folder with matmul.tir and batched_matmul.tir\n"
          "  --csv FILE         write the results as CSV\n"
          "  --svg FILE         write a bar chart (SVG)\n"
          "  --no-cublas        time gemmc only\n"
          "  --api              time gemmc_matmul (the library call, its own config choice) instead of a\n"
          "                     config, on more shapes (512^3 up, skinny M or N = 256 with K = 16384)\n"
          "  --api-config NAME[:SPLIT]  with --api: force gemmc_matmul's config row (and split-K)\n"
          "  --beta B           with --api: C = A B + B C in place, for gemmc_matmul and cuBLAS alike (the\n"
          "                     epilogue that reads C; outputs are not compared: each accumulates its own)\n"
          "  --target T         gemmc target (default: the device's)\n",
          program);
}

int main(int argc, char **argv) {
  const char *program = argv[0], *csv = NULL, *svg = NULL, *tir_dir = NULL, *only = NULL, *target = NULL,
             *shapes = NULL, *api_config = NULL;
  bool quick = false, tune = false, no_cublas = false, api_mode = false;
  double beta = 0;
  int samples = 10;
  mh_config config = mh_default_config;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout, program);
      return 0;
    } else if (!strcmp(a, "--quick")) quick = true;
    else if (!strcmp(a, "--tune")) tune = true;
    else if (!strcmp(a, "--no-cublas")) no_cublas = true;
    else if (!strcmp(a, "--api")) api_mode = true;
    else if (v && !strcmp(a, "--csv")) csv = argv[++i];
    else if (v && !strcmp(a, "--svg")) svg = argv[++i];
    else if (v && !strcmp(a, "--tir-dir")) tir_dir = argv[++i];
    else if (v && !strcmp(a, "--only")) only = argv[++i];
    else if (v && !strcmp(a, "--shapes")) shapes = argv[++i];
    else if (v && !strcmp(a, "--api-config")) api_config = argv[++i];
    else if (v && !strcmp(a, "--beta")) beta = atof(argv[++i]);
    else if (v && !strcmp(a, "--target")) target = argv[++i];
    else if (v && !strcmp(a, "--samples")) samples = atoi(argv[++i]);
    else if (v && !strcmp(a, "--config")) {
      if (!mh_config_parse(argv[++i], &config)) {
        fprintf(stderr, "%s: bad config '%s'\n", program, argv[i]);
        return 2;
      }
    } else {
      fprintf(stderr, "%s: unknown option or missing value: %s (try --help)\n", program, a);
      return 2;
    }
  }
  if (samples < 10) samples = 10;

  /* The case list. */
  bench_case cases[32];
  int ncases = 0;
  if (shapes) {
    for (const char *c = shapes; *c;) {
      int m = 0, n = 0, k = 0, batch = 1, used = 0;
      int got = sscanf(c, "%dx%dx%d%n", &m, &n, &k, &used);
      if (got == 3 && c[used] == 'x') {
        int more = 0;
        if (sscanf(c + used + 1, "%d%n", &batch, &more) == 1) used += 1 + more;
      }
      if (got != 3 || m < 1 || n < 1 || k < 1 || batch < 1 || (c[used] && c[used] != ',') || ncases == 32) {
        fprintf(stderr, "%s: bad --shapes '%s' (MxNxK[xBATCH],..., at most 32)\n", program, shapes);
        return 2;
      }
      cases[ncases++] = (bench_case){batch > 1 ? "batch " : "", batch, m, n, k, MH_F16, MH_F32};
      c += used + (c[used] == ',');
    }
  } else if (quick) {
    cases[ncases++] = (bench_case){"", 1, 4096, 4096, 4096, MH_F16, MH_F32};
  } else {
    const struct {
      mh_dtype in, acc;
    } kinds[] = {{MH_F16, MH_F32}, {MH_BF16, MH_F32}, {MH_F16, MH_F16}};
    for (int k = 0; k < 3; k++)
      for (int s = 0; s < 5; s++)
        cases[ncases++] = (bench_case){"", 1, square_sizes[s][0], square_sizes[s][1], square_sizes[s][2], kinds[k].in, kinds[k].acc};
    cases[ncases++] = (bench_case){"batch=16 ", 16, 4096, 4096, 4096, MH_F16, MH_F32};
    cases[ncases++] = (bench_case){"batch=16 ", 16, 4096, 4096, 4096, MH_F16, MH_F16};
  }
  if (api_mode && !quick && !shapes) { /* issue 10's small and skinny shapes, where the library's choice matters */
    static const int extra[][3] = {{512, 512, 512}, {256, 4096, 16384}, {4096, 256, 16384}, {128, 8192, 8192}, {8192, 1024, 8192}};
    for (int s = 0; s < 5; s++) cases[ncases++] = (bench_case){"", 1, extra[s][0], extra[s][1], extra[s][2], MH_F16, MH_F32};
  }

  mh_error e = {""};
  gemmc_runtime *rt = NULL;
  if (!mh_runtime_open(&rt, &e)) {
    printf("bench-gemm: %s\n", e.message);
    return 1;
  }
  if (!rt) {
    /* Still compile the default kernels so that the build machine catches a broken .tir. */
    mh_gemm g = {0};
    g.kind = MH_KERNEL_MATMUL, g.batch = 1, g.m = g.n = g.k = 4096, g.in = g.out = MH_F16, g.acc = MH_F32;
    mh_gemm_layout(&g);
    mh_defines d;
    memset(&d, 0, sizeof d);
    char path[4096], joined[4096];
    snprintf(joined, sizeof joined, "%s/%s", tir_dir ? tir_dir : "", mh_default_tir(g.kind));
    mh_find_tir(g.kind, tir_dir ? joined : NULL, path, sizeof path);
    mh_kernel k;
    if (!mh_gemm_defines(&g, &config, &d, &e) || !mh_kernel_build(NULL, path, &config, &d, target ? target : "sm_90a", &k, &e)) {
      printf("bench-gemm: %s\n", e.message);
      return 1;
    }
    mh_kernel_destroy(NULL, &k);
    printf("bench-gemm: compiled %s to PTX; no CUDA driver: skipping the run\n", path);
    return 0;
  }
  const gemmc_device_info *info = gemmc_runtime_device_info(rt);
  printf("device: %s (sm_%d%d, %d SMs, %.0f GiB), gemmc %s, target %s, %d samples per measurement\n", info->name,
         info->compute_capability_major, info->compute_capability_minor, info->multiprocessor_count,
         info->total_memory / 1073741824.0, gemmc_version(), target ? target : mh_target(rt), samples);
  gemmc_cache *cache = NULL;
  char cache_err[256];
  if (!gemmc_cache_open(NULL, 0, &cache, cache_err, sizeof cache_err)) {
    printf("kernel cache unavailable (%s): compiling every config\n", cache_err);
    gemmc_cache_open("", 0, &cache, cache_err, sizeof cache_err);
  }
  cublas_api api;
  bool have_cublas = false;
  if (!no_cublas) {
    have_cublas = cublas_open(rt, &api, &e);
    if (!have_cublas) printf("cuBLAS not found: timing gemmc only (%s)\n", e.message);
  }
  gemmc_runtime_event *ev0 = NULL, *ev1 = NULL;
  if (!mh_ok(gemmc_runtime_event_create(rt, &ev0), "creating an event", &e) ||
      !mh_ok(gemmc_runtime_event_create(rt, &ev1), "creating an event", &e)) {
    printf("bench-gemm: %s\n", e.message);
    return 1;
  }
  gemmc_handle *handle = NULL;
  if (api_mode) {
    gemmc_handle_options ho;
    gemmc_handle_options_init(&ho);
    ho.runtime = rt;
    if (target) ho.target = target;
    char forced[96] = "";
    if (api_config) {
      snprintf(forced, sizeof forced, "%s", api_config);
      char *colon = strchr(forced, ':');
      if (colon) *colon = 0, ho.split_k = atoi(colon + 1);
      ho.config = forced;
    }
    gemmc_status hs = gemmc_handle_create(&ho, &handle);
    if (hs.code != GEMMC_OK) {
      printf("bench-gemm: gemmc_handle_create: %s\n", hs.message);
      return 1;
    }
  }
  mh_rng rng = {mh_fresh_seed()};
  result results[32];
  int nresults = 0;
  int failures = 0;
  printf("%-36s %-22s %10s %10s %8s  %s\n", "case", "gemmc config", "gemmc", "cuBLAS", "ratio", "cuBLAS kernel / notes");
  fflush(stdout);
  for (int ci = 0; ci < ncases; ci++) {
    const bench_case *bc = &cases[ci];
    result *r = &results[nresults];
    memset(r, 0, sizeof *r);
    r->check_rel_diff = NAN;
    mh_gemm *g = &r->g;
    g->kind = bc->batch > 1 ? MH_KERNEL_BATCHED : MH_KERNEL_MATMUL;
    g->batch = bc->batch, g->m = bc->m, g->n = bc->n, g->k = bc->k;
    g->in = bc->in, g->acc = bc->acc, g->out = bc->in;
    g->beta = api_mode ? beta : 0;
    mh_gemm_layout(g);
    snprintf(r->label, sizeof r->label, "%s%dx%dx%d %s acc=%s", bc->label_prefix, g->m, g->n, g->k, mh_dtype_name(g->in),
             mh_dtype_name(g->acc));
    if (only && !strstr(r->label, only)) continue;
    nresults++;
    bench_buffers buf;
    if (!mh_gemm_check(g, &e) || !buffers_init(rt, g, &rng, &buf, &e)) {
      printf("%-36s skipped: %s\n", r->label, e.message);
      failures++;
      continue;
    }
    char path[4096], joined[4096];
    snprintf(joined, sizeof joined, "%s/%s", tir_dir ? tir_dir : "", mh_default_tir(g->kind));
    mh_find_tir(g->kind, tir_dir ? joined : NULL, path, sizeof path);
    /* gemmc: the given config, or the fastest of the seed's list, through gemmc's tuner
     * (parallel compiles through the kernel cache, then event timing over the rotated copies). */
    mh_kernel best_kernel = {0};
    runner api_runner = {RUN_API, g, &buf, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, {{0}}, 0, handle};
    if (api_mode) {
      gemmc_matmul_info ai;
      if (run_once(rt, &api_runner, 0, &e) && mh_ok(gemmc_runtime_synchronize(rt), "running gemmc_matmul", &e) &&
          mh_ok(gemmc_matmul_last_info(handle, &ai), "gemmc_matmul_last_info", &e) &&
          time_runner(rt, ev0, ev1, &api_runner, samples, 3, &r->gemmc_t, &e)) {
        r->gemmc_ok = true;
        snprintf(r->api_config, sizeof r->api_config, "%s", ai.config);
      } else {
        snprintf(r->gemmc_error, sizeof r->gemmc_error, "%.250s", e.message);
      }
    } else {
    int nconfigs = tune ? MH_NUM_SEED_CONFIGS : 1;
    const mh_config *list = tune ? mh_seed_configs : &config;
    mh_tuned tuned[MH_NUM_SEED_CONFIGS];
    mh_tune_buffers tb = {buf.a, buf.b, buf.c, buf.sets};
    int best = -1;
    double compile_wall = 0;
    if (!mh_tune(rt, cache, g, path, target ? target : mh_target(rt), list, nconfigs, &tb, samples, 0, NULL, tuned, &best,
                 &best_kernel, &compile_wall, &e))
      snprintf(r->gemmc_error, sizeof r->gemmc_error, "%.250s", e.message);
    for (int k = 0; k < nconfigs; k++) {
      char cfg[64], first[200];
      mh_config_str(&tuned[k].config, cfg, sizeof cfg);
      const char *nl = strchr(tuned[k].error, '\n');
      snprintf(first, sizeof first, "%.*s", nl ? (int)(nl - tuned[k].error) : (int)strlen(tuned[k].error), tuned[k].error);
      if (tune && tuned[k].ok)
        printf("  tune %-22s %8.1f TFLOP/s (%.3f ms, %d registers, compiled in %.0f ms%s)\n", cfg,
               tflops(g, tuned[k].timing.median_ms), tuned[k].timing.median_ms, tuned[k].info.num_registers,
               tuned[k].compile_ms + tuned[k].jit_ms, tuned[k].cache_hit ? ", cache" : "");
      else if (tune)
        printf("  tune %-22s failed: %s\n", cfg, first);
      if (!tuned[k].ok && !r->gemmc_error[0]) snprintf(r->gemmc_error, sizeof r->gemmc_error, "%s", first);
    }
    if (tune) printf("  tune: %d configs compiled and JIT-compiled in %.0f ms (parallel)\n", nconfigs, compile_wall);
    if (best >= 0) {
      r->gemmc_ok = true;
      r->config = tuned[best].config;
      r->gemmc_t.median_ms = tuned[best].timing.median_ms;
      r->gemmc_t.min_ms = tuned[best].timing.min_ms;
      r->gemmc_t.samples = tuned[best].timing.samples;
      r->gemmc_t.launches_per_sample = tuned[best].timing.launches_per_sample;
    }
    fflush(stdout);
    }
    if (!r->gemmc_ok) r->config = tune ? mh_seed_configs[0] : config;
    cublas_choice cb = {0};
    if (have_cublas) {
      if (cublas_best(rt, ev0, ev1, &api, g, &buf, samples, &cb, &e)) {
        r->cublas_ok = true;
        r->cublas_t = cb.t;
        snprintf(r->cublas_name, sizeof r->cublas_name, "%s", cb.name);
      } else {
        snprintf(r->cublas_name, sizeof r->cublas_name, "failed: %.80s", e.message);
      }
    }
    if (r->gemmc_ok && r->cublas_ok && g->beta == 0) {
      runner gr = {RUN_GEMMC, g, &buf, &best_kernel, &r->config, NULL, 0, NULL, NULL, NULL, NULL, {{0}}, 0, NULL};
      if (!compare_outputs(rt, g, api_mode ? &api_runner : &gr, &cb.r, &r->check_rel_diff, &e)) r->check_rel_diff = NAN;
    }
    if (cb.r.kind == RUN_LT) lt_release(&api, &cb.r);
    if (r->gemmc_ok && !api_mode) mh_kernel_destroy(rt, &best_kernel);
    buffers_free(rt, &buf);

    char cfg[128], gs[32] = "failed", cs[32] = "-", ratio[32] = "-", notes[400];
    mh_config_str(&r->config, cfg, sizeof cfg);
    if (api_mode) snprintf(cfg, sizeof cfg, "%s", r->api_config[0] ? r->api_config : "gemmc_matmul");
    if (r->gemmc_ok) snprintf(gs, sizeof gs, "%.1f", tflops(g, r->gemmc_t.median_ms));
    if (r->cublas_ok) snprintf(cs, sizeof cs, "%.1f", tflops(g, r->cublas_t.median_ms));
    if (r->gemmc_ok && r->cublas_ok) snprintf(ratio, sizeof ratio, "%.3f", r->cublas_t.median_ms / r->gemmc_t.median_ms);
    /* A gemmc result that disagrees with cuBLAS makes its speed meaningless: say so. */
    bool mismatch = !isnan(r->check_rel_diff) && r->check_rel_diff > (g->acc == MH_F16 ? 5e-2 : 2e-2);
    snprintf(notes, sizeof notes, "%s%s%s", r->cublas_name, r->gemmc_ok ? "" : "; gemmc: ", r->gemmc_ok ? "" : r->gemmc_error);
    if (!isnan(r->check_rel_diff))
      snprintf(notes + strlen(notes), sizeof notes - strlen(notes), "; vs cuBLAS max diff %.1e%s", r->check_rel_diff,
               mismatch ? " MISMATCH" : "");
    if (!r->gemmc_ok || mismatch) failures++;
    printf("%-36s %-22s %10s %10s %8s  %s\n", r->label, cfg, gs, cs, ratio, notes);
    fflush(stdout);
  }
  printf("(TFLOP/s from the median of %d samples; ratio = gemmc / cuBLAS)\n", samples);
  if (csv) write_csv(csv, results, nresults);
  if (svg) write_svg(svg, results, nresults, info->name);
  gemmc_runtime_event_destroy(rt, ev0);
  gemmc_runtime_event_destroy(rt, ev1);
  if (have_cublas) cublas_close(rt, &api);
  if (handle) gemmc_handle_destroy(handle);
  gemmc_cache_close(cache);
  gemmc_runtime_destroy(rt);
  return failures ? 1 : 0;
}

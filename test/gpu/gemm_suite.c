/* GPU correctness suite for the matmul kernels: the seed's shapes x dtypes, ragged shapes, batched, column-major B, leaky_relu; built as test_gpu_gemm. */
#include "../../examples/matmul_host.h"

/* Every case compiles examples/{matmul,batched_matmul,matmul_leaky_relu}.tir with the -D
 * constants its problem needs (kernels with equal constants are compiled once), runs it on fresh
 * random inputs with the output poisoned, and compares with a double-precision CPU reference
 * (matmul_host.h says how the error bound follows the dtypes). One line per case, then
 * "N passed, N failed"; exit 1 on any failure. Without a CUDA driver: "skipped: no CUDA driver". */

/* A case before its dtypes and config are filled in. */
typedef struct shape {
  int batch, m, n, k;
} shape;

/* The seed's test_correctness shape list (its duplicates dropped). */
static const shape seed_shapes[] = {{1, 128, 256, 32}, {1, 128, 16, 32}, {1, 32, 128, 64},  {1, 128, 128, 64}, {1, 64, 128, 128},
                                    {1, 64, 64, 32},   {1, 32, 32, 128}, {1, 512, 512, 512}, {1, 1024, 1024, 1024}};
/* M, N, K not multiples of any block; K below BLOCK_K; a single element. */
static const shape ragged_shapes[] = {{1, 1, 1, 1},     {1, 17, 33, 7},   {1, 100, 70, 30},  {1, 63, 65, 17},
                                      {1, 257, 129, 65}, {1, 1000, 300, 70}, {1, 129, 257, 1000}};
static const shape batched_shapes[] = {{4, 128, 128, 64}, {8, 100, 70, 30}, {16, 256, 256, 128}, {5, 64, 128, 128}, {12, 33, 65, 257}};

/* The seed's dtype pairs with this project's accumulators: in, acc, out, tf32. */
typedef struct dtypes {
  mh_dtype in, acc, out;
  bool tf32;
} dtypes;
static const dtypes seed_dtypes[] = {{MH_I8, MH_I32, MH_I32, false}, {MH_F16, MH_F32, MH_F16, false},
                                     {MH_BF16, MH_F32, MH_BF16, false}, {MH_F16, MH_F32, MH_F32, false},
                                     {MH_F32, MH_F32, MH_F32, true},   {MH_F32, MH_F32, MH_F32, false}};
enum { NUM_SEED_DTYPES = sizeof seed_dtypes / sizeof seed_dtypes[0] };
static const dtypes f16_acc = {MH_F16, MH_F16, MH_F16, false};

enum { MAX_CASES = 1024, MAX_CONFIGS = 16, MAX_KERNELS = 256 };

/* A compiled kernel and what it was compiled from (the cache key). */
typedef struct cached_kernel {
  char key[6200];
  bool ok;
  mh_kernel kernel;
  char error[1536];
} cached_kernel;

typedef struct suite {
  mh_gemm cases[MAX_CASES];
  int num_cases;
  mh_config configs[MAX_CONFIGS];
  int num_configs;
  cached_kernel *kernels; /* MAX_KERNELS, on the heap: each holds a long key and message */
  int num_kernels;
  const char *tir_dir, *target, *filter;
  bool compile_only, verbose;
  uint64_t seed;
} suite;

/* *g becomes the case: the shape, dtypes, B's layout and row padding, alpha 0.01. */
static void make_case(mh_gemm *g, mh_kernel_kind kind, shape sh, dtypes dt, bool b_col_major, int pad) {
  memset(g, 0, sizeof *g);
  g->kind = kind;
  g->batch = kind == MH_KERNEL_BATCHED ? sh.batch : 1;
  g->m = sh.m, g->n = sh.n, g->k = sh.k;
  g->in = dt.in, g->acc = dt.acc, g->out = dt.out, g->tf32 = dt.tf32;
  g->b_col_major = b_col_major;
  g->pad = pad;
  g->alpha = 0.01;
  mh_gemm_layout(g);
}

static void add_case(suite *s, mh_kernel_kind kind, shape sh, dtypes dt, bool b_col_major, int pad) {
  if (s->num_cases < MAX_CASES) make_case(&s->cases[s->num_cases++], kind, sh, dt, b_col_major, pad);
}

/* A case with M, N or K not a multiple of 64 (the tile edges: masked loads and stores, TMA bounds). */
static bool is_ragged(const mh_gemm *g) { return g->m % 64 || g->n % 64 || g->k % 64; }

/* The case list; --quick keeps the small seed shapes, one ragged, one batched and one column-major
 * case; --ragged the full list's ragged cases only (the sanitizer runs). */
static void build_cases(suite *s, bool quick, bool ragged) {
  int n_seed = sizeof seed_shapes / sizeof seed_shapes[0];
  for (int i = 0; i < n_seed; i++) {
    if (quick && seed_shapes[i].m * seed_shapes[i].n * seed_shapes[i].k > 128 * 128 * 128) continue;
    for (int d = 0; d < NUM_SEED_DTYPES; d++) add_case(s, MH_KERNEL_MATMUL, seed_shapes[i], seed_dtypes[d], false, 0);
  }
  /* fp16 accumulation (the seed's batched benchmark compared with it) */
  add_case(s, MH_KERNEL_MATMUL, (shape){1, 128, 128, 64}, f16_acc, false, 0);
  if (!quick) add_case(s, MH_KERNEL_MATMUL, (shape){1, 512, 512, 512}, f16_acc, false, 0);
  /* ragged: masks on M, N (stores) and K (loads), with and without padded rows */
  const dtypes ragged_dtypes[] = {seed_dtypes[1], seed_dtypes[2], seed_dtypes[4], seed_dtypes[0]};
  int n_ragged = quick ? 2 : (int)(sizeof ragged_shapes / sizeof ragged_shapes[0]);
  for (int i = 0; i < n_ragged; i++)
    for (int d = 0; d < 4; d++) add_case(s, MH_KERNEL_MATMUL, ragged_shapes[i], ragged_dtypes[d], false, (i + d) % 2 ? 3 : 0);
  /* column-major B */
  const shape col_shapes[] = {{1, 128, 256, 32}, {1, 100, 70, 30}, {1, 512, 512, 512}};
  for (int i = 0; i < (quick ? 1 : 3); i++)
    for (int d = 0; d < 4; d++) add_case(s, MH_KERNEL_MATMUL, col_shapes[i], ragged_dtypes[d], true, i == 1 ? 5 : 0);
  /* batched, B = 4..16 */
  int n_batched = quick ? 1 : (int)(sizeof batched_shapes / sizeof batched_shapes[0]);
  for (int i = 0; i < n_batched; i++) {
    add_case(s, MH_KERNEL_BATCHED, batched_shapes[i], seed_dtypes[1], i == 3, i == 1 ? 2 : 0);
    if (!quick) add_case(s, MH_KERNEL_BATCHED, batched_shapes[i], seed_dtypes[2], i == 4, 0);
  }
  if (!quick) add_case(s, MH_KERNEL_BATCHED, (shape){6, 128, 128, 64}, f16_acc, false, 0);
  /* leaky_relu epilogue: the tutorial's and the seed's (+1) variants */
  add_case(s, MH_KERNEL_LEAKY_RELU, (shape){1, 256, 128, 64}, seed_dtypes[1], false, 0);
  s->cases[s->num_cases - 1].bias = 0.0;
  add_case(s, MH_KERNEL_LEAKY_RELU, (shape){1, 100, 70, 30}, seed_dtypes[3], false, 1);
  s->cases[s->num_cases - 1].bias = 1.0;
  /* fp8 (warpgroup MMA only): e4m3 and e5m2 inputs, the reference reads the same bytes; B both
   * majors (K-major B is what the instruction reads; N-major B is transposed into it). */
  const dtypes fp8[] = {{MH_E4M3, MH_F32, MH_F16, false}, {MH_E5M2, MH_F32, MH_F32, false}};
  const shape fp8_shapes[] = {{1, 256, 256, 256}, {1, 129, 200, 70}, {1, 512, 384, 1024}};
  for (int i = 0; i < (quick ? 1 : 3); i++)
    for (int d = 0; d < 2; d++) {
      add_case(s, MH_KERNEL_MATMUL, fp8_shapes[i], fp8[d], true, i == 1 ? 4 : 0);
      add_case(s, MH_KERNEL_MATMUL, fp8_shapes[i], fp8[d], false, 0);
    }
  add_case(s, MH_KERNEL_BATCHED, (shape){4, 128, 256, 128}, fp8[0], true, 0);
  if (ragged) {
    int kept = 0;
    for (int i = 0; i < s->num_cases; i++)
      if (is_ragged(&s->cases[i])) s->cases[kept++] = s->cases[i];
    s->num_cases = kept;
  }
}

/* Compiles (or finds) the kernel for case g and config c. */
static cached_kernel *get_kernel(suite *s, gemmc_runtime *rt, const mh_gemm *g, const mh_config *c) {
  char path[4096];
  if (s->tir_dir) {
    char joined[4096];
    snprintf(joined, sizeof joined, "%s/%s", s->tir_dir, mh_default_tir(g->kind));
    mh_find_tir(g->kind, joined, path, sizeof path);
  } else {
    mh_find_tir(g->kind, NULL, path, sizeof path);
  }
  mh_defines d;
  memset(&d, 0, sizeof d);
  mh_error e = {""};
  char key[6200], defs[1800];
  if (!mh_gemm_defines(g, c, &d, &e)) return NULL;
  mh_defines_str(&d, defs, sizeof defs);
  snprintf(key, sizeof key, "%s w%d %s", path, c->num_warps, defs);
  for (int i = 0; i < s->num_kernels; i++)
    if (!strcmp(s->kernels[i].key, key)) return &s->kernels[i];
  if (s->num_kernels == MAX_KERNELS) return NULL;
  cached_kernel *ck = &s->kernels[s->num_kernels++];
  memset(ck, 0, sizeof *ck);
  snprintf(ck->key, sizeof ck->key, "%s", key);
  ck->ok = mh_kernel_build(rt, path, c, &d, s->target ? s->target : mh_target(rt), &ck->kernel, &e);
  if (!ck->ok) {
    snprintf(ck->error, sizeof ck->error, "%s", e.message);
    /* The full diagnostics once per kernel; the case lines carry the first line only. */
    fprintf(stderr, "%s\n", e.message);
  }
  return ck;
}

static void first_line(const char *text, char *out, size_t n) {
  const char *nl = strchr(text, '\n');
  size_t len = nl ? (size_t)(nl - text) : strlen(text);
  if (len >= n) len = n - 1;
  memcpy(out, text, len);
  out[len] = 0;
}

static void usage(FILE *f, const char *program) {
  fprintf(f,
          "usage: %s [options]\n"
          "GEMM correctness suite: the seed's shapes x dtypes (i8->i32, f16->f16, bf16->bf16, f16->f32,\n"
          "f32->f32 tf32 and ieee), fp16 accumulation, ragged shapes, column-major B, batched (4..16),\n"
          "leaky_relu, fp8 (e4m3, e5m2; sm_90a only). Prints one line per case and 'N passed, N failed';\n"
          "exit 1 on any failure.\n"
          "\n"
          "  --tir-dir DIR     folder with matmul.tir, batched_matmul.tir, matmul_leaky_relu.tir\n"
          "                    (default: $GEMMC_EXAMPLES_DIR, ./examples, the source tree's examples/)\n"
          "  --configs LIST    comma-separated BMxBNxBK[:gG][:wW][:sS][:tma|:cp|:pp|:cl2|:ws] (default\n"
          "                    128x128x64:g8:w4:s3,64x32x32:g8:w2:s5; :tma TMA without warp specialization,\n"
          "                    :cp cp.async only, :pp ping-pong consumer groups instead of pairs, :cl2 2-block\n"
          "                    clusters, :ws warp-specialized wherever legal (8-warp kernels))\n"
          "  --seed-configs    run every case with each of the seed's 8 configs\n"
          "  --quick           a smaller case list (a few seconds)\n"
          "  --ragged          only the cases with M, N or K not a multiple of 64, from the full list\n"
          "  --filter TEXT     only cases whose line contains TEXT (e.g. 'bf16', 'batch=', 'B=col')\n"
          "  --compile-only    compile every kernel to PTX (no driver needed) and report compile errors\n"
          "  --target T        gemmc target (default: the device's, else sm_90a; gfx942 with --backend hip)\n"
          "  --backend B       cuda (default) or hip (libamdhip64; no HIP runtime is a failure)\n"
          "  --seed N          replay a run (default: fresh inputs every run)\n",
          program);
}

static int run_suite(suite *s, int argc, char **argv);

enum { CONCURRENT = 3 };

/* Launches of one kernel on CONCURRENT streams at once, each on its own problem: the first holds a
 * few blocks for a long K loop while the others start, so blocks of different launches want the
 * same device-built tensor-map slot (lower_tma.c: a block first tries the slot of its block id,
 * then takes tickets). The problems share one kernel (same divisibility); each is checked. */
static bool run_concurrent(suite *s, gemmc_runtime *rt, const mh_config *c, mh_rng *rng, char *verdict, size_t n) {
  const shape shapes[CONCURRENT] = {{1, 256, 256, 16384}, {1, 2048, 1024, 512}, {1, 1024, 1024, 1024}};
  mh_gemm g[CONCURRENT];
  mh_host h[CONCURRENT];
  mh_device d[CONCURRENT];
  gemmc_runtime_stream *streams[CONCURRENT];
  memset(h, 0, sizeof h), memset(d, 0, sizeof d), memset(streams, 0, sizeof streams);
  cached_kernel *ck = NULL;
  mh_error e = {""};
  bool ok = true;
  for (int i = 0; ok && i < CONCURRENT; i++) {
    make_case(&g[i], MH_KERNEL_MATMUL, shapes[i], seed_dtypes[1], false, 0);
    cached_kernel *k = get_kernel(s, rt, &g[i], c);
    if (!k || !k->ok || (ck && k != ck)) {
      snprintf(verdict, n, "%s", !k ? "too many distinct kernels" : !k->ok ? "compile failed" : "the problems need different kernels");
      ok = false;
      break;
    }
    ck = k;
    ok = mh_host_init(&g[i], rng, &h[i], &e) && mh_device_init(rt, &g[i], &h[i], &d[i], &e) &&
         mh_ok(gemmc_runtime_stream_create(rt, &streams[i]), "creating a stream", &e);
  }
  for (int i = 0; ok && i < CONCURRENT; i++) ok = mh_launch_on(rt, &ck->kernel, &g[i], c, d[i].a, d[i].b, d[i].c, streams[i], &e);
  ok = ok && mh_ok(gemmc_runtime_synchronize(rt), "running the kernels", &e);
  bool pass = ok;
  char *at = verdict;
  size_t left = n;
  at[0] = '\0';
  for (int i = 0; ok && i < CONCURRENT; i++) {
    mh_check_result r;
    ok = mh_ok(gemmc_runtime_copy_dtoh(rt, h[i].c, d[i].c, g[i].c_elems * mh_dtype_size(g[i].out)), "downloading C", &e) &&
         mh_check(&g[i], &h[i], rng, &r, &e);
    if (!ok) break;
    pass = pass && mh_check_passed(&r);
    char one[256];
    mh_check_str(&r, one, sizeof one);
    int w = snprintf(at, left, "%s%dx%dx%d: %s", i ? "; " : "", g[i].m, g[i].n, g[i].k, one);
    if (w > 0 && (size_t)w < left) at += w, left -= (size_t)w;
  }
  if (!ok && e.message[0]) snprintf(verdict, n, "%s", e.message);
  for (int i = 0; i < CONCURRENT; i++) {
    if (streams[i]) gemmc_runtime_stream_destroy(rt, streams[i]);
    mh_device_free(rt, &d[i]);
    mh_host_free(&h[i]);
  }
  return ok && pass;
}

enum { CHAIN = 40 };

/* Back-to-back launches where each reads what the one before wrote and writes what the one before
 * read (X_{i+1} = X_i * P into two buffers in turn, P shifting columns by one; small integers, so
 * every product is exact), launched plainly and then with programmatic dependent launch
 * (gemmc/runtime.h): a warp-specialized kernel that touched its operands before its
 * griddepcontrol.wait would read a stale X or overwrite one still being read. 1024^3 leaves SMs
 * free, so each launch's blocks do start while the previous grid runs. */
static bool run_chain(suite *s, gemmc_runtime *rt, const mh_config *c, bool programmatic, mh_rng *rng, char *verdict,
                      size_t n) {
  const int size = 1024;
  mh_gemm g;
  make_case(&g, MH_KERNEL_MATMUL, (shape){1, size, size, size}, seed_dtypes[1], false, 0);
  cached_kernel *k = get_kernel(s, rt, &g, c);
  if (!k || !k->ok) {
    snprintf(verdict, n, "%s", !k ? "too many distinct kernels" : "compile failed");
    return false;
  }
  size_t elems = g.a_elems > g.c_elems ? g.a_elems : g.c_elems, bytes = elems * 2;
  uint16_t *x0 = calloc(elems, 2), *p = calloc(g.b_elems, 2), *out = calloc(elems, 2);
  gemmc_devptr buf[2] = {0, 0}, pd = 0;
  mh_error e = {""};
  bool ok = x0 && p && out;
  if (!ok) snprintf(e.message, sizeof e.message, "out of memory");
  for (int64_t r = 0; ok && r < size; r++)
    for (int64_t q = 0; q < size; q++) x0[r * g.stride_am + q] = mh_f32_to_f16_bits((float)((int)(mh_rng_next(rng) % 17) - 8));
  for (int64_t q = 0; ok && q < size; q++) p[q * g.stride_bk + (q + 1) % size] = mh_f32_to_f16_bits(1.0f);
  ok = ok && mh_ok(gemmc_runtime_mem_alloc(rt, bytes, &buf[0]), "allocating X", &e) &&
       mh_ok(gemmc_runtime_mem_alloc(rt, bytes, &buf[1]), "allocating X", &e) &&
       mh_ok(gemmc_runtime_mem_alloc(rt, g.b_elems * 2, &pd), "allocating P", &e) &&
       mh_ok(gemmc_runtime_copy_htod(rt, buf[0], x0, bytes), "uploading X", &e) &&
       mh_ok(gemmc_runtime_memset_d8(rt, buf[1], 0xff, bytes), "poisoning X", &e) &&
       mh_ok(gemmc_runtime_copy_htod(rt, pd, p, g.b_elems * 2), "uploading P", &e) &&
       mh_ok(gemmc_runtime_synchronize(rt), "uploading", &e);
  ok = ok && mh_ok(gemmc_runtime_set_programmatic_launch(rt, programmatic), "programmatic launch", &e);
  for (int i = 0; ok && i < CHAIN; i++) ok = mh_launch_on(rt, &k->kernel, &g, c, buf[i % 2], pd, buf[(i + 1) % 2], NULL, &e);
  gemmc_runtime_set_programmatic_launch(rt, false);
  ok = ok && mh_ok(gemmc_runtime_synchronize(rt), "running the kernels", &e) &&
       mh_ok(gemmc_runtime_copy_dtoh(rt, out, buf[CHAIN % 2], bytes), "downloading X", &e);
  long wrong = 0;
  for (int64_t r = 0; ok && r < size; r++)
    for (int64_t q = 0; q < size; q++)
      wrong += out[r * g.stride_cm + q] != x0[r * g.stride_am + ((q - CHAIN) % size + size) % size];
  if (ok) snprintf(verdict, n, "%d launches of %dx%dx%d, %ld of %ld elements wrong", CHAIN, size, size, size, wrong,
                   (long)size * size);
  else snprintf(verdict, n, "%s", e.message);
  for (int i = 0; i < 2; i++)
    if (buf[i]) gemmc_runtime_mem_free(rt, buf[i]);
  if (pd) gemmc_runtime_mem_free(rt, pd);
  free(x0), free(p), free(out);
  return ok && wrong == 0;
}

/* Owns the suite's memory, so every way out of run_suite frees it (LeakSanitizer runs in CI). */
int main(int argc, char **argv) {
  suite *s = calloc(1, sizeof *s);
  if (!s) return 2;
  s->kernels = calloc(MAX_KERNELS, sizeof *s->kernels);
  if (!s->kernels) {
    free(s);
    return 2;
  }
  int rc = run_suite(s, argc, argv);
  free(s->kernels);
  free(s);
  return rc;
}

static int run_suite(suite *s, int argc, char **argv) {
  s->seed = mh_fresh_seed();
  bool quick = false, ragged = false, seed_configs = false;
  gemmc_backend backend = GEMMC_BACKEND_CUDA;
  const char *config_list = "128x128x64:g8:w4:s3,64x32x32:g8:w2:s5";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout, argv[0]);
      return 0;
    } else if (!strcmp(a, "--quick")) quick = true;
    else if (!strcmp(a, "--ragged")) ragged = true;
    else if (!strcmp(a, "--seed-configs")) seed_configs = true;
    else if (!strcmp(a, "--compile-only")) s->compile_only = true;
    else if (v && !strcmp(a, "--tir-dir")) s->tir_dir = argv[++i];
    else if (v && !strcmp(a, "--configs")) config_list = argv[++i];
    else if (v && !strcmp(a, "--filter")) s->filter = argv[++i];
    else if (v && !strcmp(a, "--target")) s->target = argv[++i];
    else if (v && !strcmp(a, "--seed")) s->seed = strtoull(argv[++i], NULL, 10);
    else if (v && !strcmp(a, "--backend") && mh_backend_parse(v, &backend)) i++;
    else {
      fprintf(stderr, "%s: unknown option or missing value: %s (try --help)\n", argv[0], a);
      return 2;
    }
  }
  if (seed_configs) {
    for (int i = 0; i < MH_NUM_SEED_CONFIGS; i++) s->configs[s->num_configs++] = mh_seed_configs[i];
  } else {
    char list[1024];
    snprintf(list, sizeof list, "%s", config_list);
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
      if (s->num_configs == MAX_CONFIGS || !mh_config_parse(tok, &s->configs[s->num_configs])) {
        fprintf(stderr, "%s: bad config '%s' (expected BMxBNxBK[:gG][:wW][:sS])\n", argv[0], tok);
        return 2;
      }
      s->num_configs++;
    }
  }

  mh_error e = {""};
  gemmc_runtime *rt = NULL;
  if (!mh_runtime_open_backend(backend, &rt, &e)) {
    printf("FAIL: %s\n0 passed, 1 failed\n", e.message);
    return 1;
  }
  if (!rt && !s->compile_only) {
    printf("skipped: %s\n", e.message); /* "no CUDA driver (libcuda.so.1 not found)" */
    return 0;
  }
  build_cases(s, quick && !ragged, ragged);
  if (rt) {
    const gemmc_device_info *info = gemmc_runtime_device_info(rt);
    printf("device: %s (sm_%d%d, %d SMs), target %s, seed %llu\n", info->name, info->compute_capability_major,
           info->compute_capability_minor, info->multiprocessor_count, s->target ? s->target : mh_target(rt),
           (unsigned long long)s->seed);
  }
  fflush(stdout);

  mh_rng rng = {s->seed};
  int passed = 0, failed = 0;
  double t_start = mh_now_seconds();
  for (int ci = 0; ci < s->num_configs; ci++) {
    const mh_config *c = &s->configs[ci];
    char cfg[64];
    mh_config_str(c, cfg, sizeof cfg);
    for (int i = 0; i < s->num_cases; i++) {
      const mh_gemm *g = &s->cases[i];
      char shape_s[160], dt[96], line[512], verdict[1024];
      mh_gemm_shape_str(g, shape_s, sizeof shape_s);
      mh_gemm_dtypes_str(g, dt, sizeof dt);
      const char *kname = g->kind == MH_KERNEL_BATCHED ? "batched" : g->kind == MH_KERNEL_LEAKY_RELU ? "leaky_relu" : "matmul";
      snprintf(line, sizeof line, "%-10s %-34s %-24s cfg=%s%s", kname, shape_s, dt, cfg,
               g->kind == MH_KERNEL_LEAKY_RELU && g->bias != 0 ? " bias=1" : "");
      if (s->filter && !strstr(line, s->filter)) continue;
      const char *target = s->target ? s->target : mh_target(rt);
      if (mh_dtype_is_fp8(g->in) && strcmp(target, "sm_90a") != 0) {
        printf("SKIP  %s  fp8 dots need warpgroup MMA (sm_90a), not %s\n", line, target);
        continue;
      }
      if (!mh_gemm_check(g, &e)) {
        printf("FAIL  %s  bad case: %s\n", line, e.message);
        failed++;
        continue;
      }
      cached_kernel *ck = get_kernel(s, rt, g, c);
      bool pass = false;
      if (!ck) {
        snprintf(verdict, sizeof verdict, "too many distinct kernels");
      } else if (!ck->ok) {
        char first[400];
        first_line(ck->error, first, sizeof first);
        snprintf(verdict, sizeof verdict, "compile: %s", first);
      } else if (!rt) {
        pass = true;
        snprintf(verdict, sizeof verdict, "compiled (%.2f s)", ck->kernel.compile_seconds);
      } else {
        mh_check_result r;
        if (mh_run_checked(rt, &ck->kernel, g, c, &rng, &r, &e)) {
          pass = mh_check_passed(&r);
          mh_check_str(&r, verdict, sizeof verdict);
        } else {
          first_line(e.message, verdict, sizeof verdict);
          /* A kernel fault leaves the context unusable: every later case would fail the same way. */
          if (strstr(e.message, "running the kernel")) {
            printf("FAIL  %s  %s\n", line, verdict);
            failed++;
            printf("stopping: the CUDA context is lost after a kernel fault\n");
            goto done;
          }
        }
      }
      printf("%s  %s  %s\n", pass ? "PASS" : "FAIL", line, verdict);
      fflush(stdout);
      if (pass) passed++;
      else failed++;
    }
  }
  if (rt && !ragged) {
    /* Concurrent launches of the default config's kernel (its device-built tensor maps on sm_90a). */
    char line[160], verdict[1024];
    char cfg[64];
    mh_config_str(&mh_default_config, cfg, sizeof cfg);
    snprintf(line, sizeof line, "%-10s %-34s %-24s cfg=%s", "matmul", "3 streams at once", "f16*f16+f32->f16", cfg);
    if (!s->filter || strstr(line, s->filter)) {
      bool pass = run_concurrent(s, rt, &mh_default_config, &rng, verdict, sizeof verdict);
      printf("%s  %s  %s\n", pass ? "PASS" : "FAIL", line, verdict);
      if (pass) passed++;
      else failed++;
    }
    for (int programmatic = 0; programmatic < 2; programmatic++) {
      snprintf(line, sizeof line, "%-10s %-34s %-24s cfg=%s%s", "matmul", "each launch reads the last one's C",
               "f16*f16+f32->f16", cfg, programmatic ? " programmatic" : "");
      if (s->filter && !strstr(line, s->filter)) continue;
      bool pass = run_chain(s, rt, &mh_default_config, programmatic, &rng, verdict, sizeof verdict);
      printf("%s  %s  %s\n", pass ? "PASS" : "FAIL", line, verdict);
      if (pass) passed++;
      else failed++;
    }
  }
done:
  printf("%.1f s, %d kernels compiled, seed %llu\n", mh_now_seconds() - t_start, s->num_kernels,
         (unsigned long long)s->seed);
  printf("%d passed, %d failed\n", passed, failed);
  for (int i = 0; i < s->num_kernels; i++)
    if (s->kernels[i].ok) mh_kernel_destroy(rt, &s->kernels[i].kernel);
  gemmc_runtime_destroy(rt); /* s and s->kernels belong to main, which frees them */
  return failed ? 1 : 0;
}

/* gemmc_matmul: the handle, the in-process plan and kernel tables, building kernels through the kernel cache, and the launch path of every call. */
#include "matmul_internal.h"
#include "matmul_tune.h"
#include "template.h"
#include "gemmc/tune.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * A call goes: desc -> mm_problem (kernel coordinates, every argument in its slot) -> plan key
 * (types, epilogue, facts about the arguments, exact sizes) -> plan (config, split, loaded
 * kernels) -> launch. Plans and kernels are kept in the handle, so a repeated call is a hash
 * lookup and cuLaunchKernel; a new plan reuses loaded kernels by their spec, and a new kernel
 * comes from the disk cache or a compile.
 */

typedef struct mm_kernel {
  mm_spec spec;
  gemmc_runtime_module *module;
  gemmc_runtime_kernel *fn;
  int num_args;
  uint8_t arg_slot[GEMMC_MATMUL_MAX_ARGS];
  unsigned threads, shared_bytes;
  int cluster_size; /* gemmc_kernel_metadata.cluster_size */
  char key[65];
  double compile_ms, load_ms;
  bool disk_hit;
  gemmc_status failure; /* code != GEMMC_OK: building failed (remembered, not retried) */
} mm_kernel;

/* What decides a plan. Padding is zeroed, so memcmp and hashing see only the fields. */
typedef struct mm_plan_key {
  uint8_t at, out, acc, tf32, has_alpha, has_c, has_bias, act;
  uint32_t unit;
  uint64_t div;
  int64_t M, N, K, batch;
} mm_plan_key;

typedef struct mm_plan {
  mm_plan_key key;
  int config, split;
  const char *origin; /* "model", "tuned", "forced" */
  mm_kernel *main, *reduce;
  unsigned grid[3], reduce_grid[3];
  mm_tail_split_shape tail; /* tail-split rows: shared tiles and ways, fixed by the plan's sizes */
} mm_plan;

/* Open-addressing tables of pointers, keyed by the pointee's key bytes. */
typedef struct ptr_table {
  void **slots;
  size_t cap, count;
} ptr_table;

struct gemmc_handle {
  gemmc_runtime *rt;
  bool owns_rt;
  gemmc_device_info info;
  char target[32];
  gemmc_cache *cache;
  gemmc_runtime_stream *stream;
  gemmc_devptr user_ws, own_ws;
  size_t user_ws_bytes, own_ws_bytes;
  /* Tail-split kernels' flags, one per shared block (MM_TAIL_SPLIT_MAX_BLOCKS): zeroed once when
   * made, and every launch leaves them 0 again (gemm_tail_split.tir). */
  gemmc_devptr tail_split_flags;
  int tune;
  bool batch_invariant, verbose;
  int forced_config, forced_split;
  ptr_table plans, kernels;
  mm_tuning_db tuning;
  /* The last successful call, for gemmc_matmul_last_info. */
  const mm_plan *last_plan;
  uint64_t last_values[MM_SLOT_COUNT];
};

/* Success without zeroing the 1 KiB message (this runs on every call). */
static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ------------------------------------------------------------------ tables */

static uint64_t hash_bytes(const void *data, size_t n) {
  const unsigned char *p = data;
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h ^ (h >> 29);
}

/* The slot where key (key_len bytes at key_offset in each entry) is, or the empty one for it. */
static void **table_find(ptr_table *t, const void *key, size_t key_len) {
  if (!t->cap) return NULL;
  size_t mask = t->cap - 1, i = (size_t)hash_bytes(key, key_len) & mask;
  for (;; i = (i + 1) & mask) {
    if (!t->slots[i] || !memcmp(t->slots[i], key, key_len)) return &t->slots[i];
  }
}

/* Entries start with their key, so the key of an entry is its first key_len bytes. */
static bool table_insert(ptr_table *t, void *entry, size_t key_len) {
  if ((t->count + 1) * 2 > t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 64;
    void **slots = calloc(cap, sizeof *slots);
    if (!slots) return false;
    ptr_table grown = {slots, cap, 0};
    for (size_t i = 0; i < t->cap; i++)
      if (t->slots[i]) {
        *table_find(&grown, t->slots[i], key_len) = t->slots[i];
        grown.count++;
      }
    free(t->slots);
    *t = grown;
  }
  *table_find(t, entry, key_len) = entry;
  t->count++;
  return true;
}

/* ------------------------------------------------------------------ the handle */

void gemmc_handle_options_init(gemmc_handle_options *o) {
  memset(o, 0, sizeof *o);
  o->tune = -1;
}

static bool env_flag(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

gemmc_status gemmc_handle_create(const gemmc_handle_options *opts, gemmc_handle **out) {
  if (!out) return mm_status_error(GEMMC_ERROR_INVALID_ARGUMENT, "gemmc_handle_create: no output pointer");
  *out = NULL;
  gemmc_handle_options defaults;
  if (!opts) {
    gemmc_handle_options_init(&defaults);
    opts = &defaults;
  }
  gemmc_handle *h = calloc(1, sizeof *h);
  if (!h) return mm_status_error(GEMMC_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
  h->forced_config = -1;
  if (opts->runtime) {
    h->rt = opts->runtime;
  } else {
    gemmc_status st = gemmc_runtime_create(GEMMC_BACKEND_CUDA, opts->device, &h->rt);
    if (st.code != GEMMC_OK) {
      free(h);
      return st;
    }
    h->owns_rt = true;
  }
  h->info = *gemmc_runtime_device_info(h->rt);
  snprintf(h->target, sizeof h->target, "%s", opts->target ? opts->target : h->info.target_name[0] ? h->info.target_name : "sm_90a");
  char err[512];
  if (!gemmc_cache_open(opts->cache_dir, opts->cache_max_bytes, &h->cache, err, sizeof err)) {
    /* Without a usable folder gemmc_matmul still works; it compiles in every process. */
    if (!gemmc_cache_open("", 0, &h->cache, err, sizeof err)) {
      gemmc_handle_destroy(h);
      return mm_status_error(GEMMC_ERROR_OUT_OF_HOST_MEMORY, "gemmc_handle_create: %s", err);
    }
  }
  h->tune = opts->tune >= 0 ? opts->tune : env_flag("GEMMC_TUNE");
  h->batch_invariant = opts->batch_invariant;
  h->verbose = opts->verbose || env_flag("GEMMC_VERBOSE");
  const char *forced = opts->config ? opts->config : getenv("GEMMC_MATMUL_CONFIG");
  if (forced && *forced) {
    h->forced_config = mm_config_find(forced);
    if (h->forced_config < 0) {
      gemmc_handle_destroy(h);
      return mm_status_error(GEMMC_ERROR_INVALID_ARGUMENT, "gemmc_handle_create: no config named '%s' (gemmc_matmul_configs lists them)", forced);
    }
    h->forced_split = opts->split_k;
  }
  mm_tuning_db_init(&h->tuning, gemmc_cache_dir(h->cache), &h->info);
  *out = h;
  return mm_status_ok();
}

static void kernel_free(gemmc_handle *h, mm_kernel *k) {
  if (k->module) gemmc_runtime_module_unload(h->rt, k->module);
  free(k);
}

void gemmc_handle_destroy(gemmc_handle *h) {
  if (!h) return;
  if (h->rt) gemmc_runtime_stream_synchronize(h->rt, h->stream);
  for (size_t i = 0; i < h->plans.cap; i++) free(h->plans.slots[i]);
  for (size_t i = 0; i < h->kernels.cap; i++)
    if (h->kernels.slots[i]) kernel_free(h, h->kernels.slots[i]);
  free(h->plans.slots);
  free(h->kernels.slots);
  if (h->own_ws) gemmc_runtime_mem_free(h->rt, h->own_ws);
  if (h->tail_split_flags) gemmc_runtime_mem_free(h->rt, h->tail_split_flags);
  mm_tuning_db_free(&h->tuning);
  gemmc_cache_close(h->cache);
  if (h->owns_rt) gemmc_runtime_destroy(h->rt);
  free(h);
}

gemmc_runtime *gemmc_handle_runtime(gemmc_handle *h) { return h ? h->rt : NULL; }

#define REQUIRE_HANDLE(h, fn)                                                                      \
  do {                                                                                             \
    if (!(h)) return mm_status_error(GEMMC_ERROR_INVALID_ARGUMENT, "%s: no handle", fn);              \
  } while (0)

gemmc_status gemmc_handle_set_stream(gemmc_handle *h, gemmc_runtime_stream *stream) {
  REQUIRE_HANDLE(h, "gemmc_handle_set_stream");
  h->stream = stream;
  return mm_status_ok();
}

gemmc_status gemmc_handle_set_workspace(gemmc_handle *h, void *workspace, size_t bytes) {
  REQUIRE_HANDLE(h, "gemmc_handle_set_workspace");
  h->user_ws = (gemmc_devptr)(uintptr_t)workspace;
  h->user_ws_bytes = workspace ? bytes : 0;
  return mm_status_ok();
}

gemmc_status gemmc_handle_set_batch_invariant(gemmc_handle *h, bool on) {
  REQUIRE_HANDLE(h, "gemmc_handle_set_batch_invariant");
  h->batch_invariant = on; /* plans remember how they were chosen: new ones follow the flag */
  return mm_status_ok();
}

gemmc_status gemmc_handle_set_tune(gemmc_handle *h, int tune) {
  REQUIRE_HANDLE(h, "gemmc_handle_set_tune");
  h->tune = tune > 0;
  return mm_status_ok();
}

/* ------------------------------------------------------------------ kernels */

/* The slots a kernel of this spec reads; facts about the others must not split the key. */
static uint32_t relevant_slots(const mm_spec *s) {
  uint32_t m = 0;
#define BIT(x) (1u << MM_SLOT_##x)
  if (s->kind == MM_KIND_REDUCE) {
    m = BIT(D_PTR) | BIT(M) | BIT(N) | BIT(STRIDE_DM) | BIT(STRIDE_DN) | BIT(STRIDE_DB) | BIT(STRIDE_WZ);
  } else {
    m = BIT(A_PTR) | BIT(B_PTR) | BIT(D_PTR) | BIT(M) | BIT(N) | BIT(K) | BIT(STRIDE_AM) | BIT(STRIDE_AK) |
        BIT(STRIDE_BK) | BIT(STRIDE_BN) | BIT(STRIDE_DM) | BIT(STRIDE_DN) | BIT(STRIDE_AB) | BIT(STRIDE_BB) |
        BIT(STRIDE_DB) | (s->split ? BIT(STRIDE_DZ) : 0);
  }
  if (s->has_c) m |= BIT(C_PTR) | BIT(STRIDE_CM) | BIT(STRIDE_CN) | BIT(STRIDE_CB);
  if (s->has_bias) m |= BIT(BIAS_PTR);
#undef BIT
  return m;
}

static void spec_facts(mm_spec *s, const uint64_t *values) {
  uint32_t mask = relevant_slots(s);
  s->div = mm_div_keep(mm_div_of_values(values), mask);
  s->unit = mm_unit_of_values(values) & mask;
}

static void spec_describe(const mm_spec *s, char *buf, size_t n) {
  if (s->kind == MM_KIND_REDUCE)
    snprintf(buf, n, "split-K reduce %s->%s", s->acc == MM_ACC_I32 ? "i32" : s->acc == MM_ACC_F16 ? "f16" : "f32",
             mm_dtype_ir((gemmc_datatype)s->out));
  else
    snprintf(buf, n, "%s %s%s", matmul_configs[s->config].name, mm_dtype_ir((gemmc_datatype)s->at), s->split ? " split-K part" : "");
}

static void compile_options_for(const gemmc_handle *h, const mm_kernel_source *src, gemmc_compile_options *opts) {
  gemmc_compile_options_init(opts);
  opts->target = h->target;
  opts->num_warps = src->num_warps;
  opts->num_stages = src->num_stages;
  opts->tma = src->tma;
  opts->warp_specialize = src->warp_specialize;
  opts->cluster_size = src->cluster_size;
  opts->defines = src->defines;
  opts->num_defines = src->num_defines;
}

/* Finds the loaded kernel for spec, or builds it: template -> gemmc_cache_compile -> JIT/load.
 * `prebuilt` (or NULL) is an image already compiled for this spec (autotuning compiles in
 * parallel first); it stays the caller's. */
static mm_kernel *get_kernel_from(gemmc_handle *h, const mm_spec *spec, gemmc_kernel_image *prebuilt) {
  void **slot = table_find(&h->kernels, spec, sizeof *spec);
  if (slot && *slot) return *slot;
  mm_kernel *k = calloc(1, sizeof *k);
  if (!k) return NULL;
  k->spec = *spec;
  char err[1024] = "", what[160];
  spec_describe(spec, what, sizeof what);
  mm_kernel_source src;
  char *text = NULL;
  size_t len = 0;
  if (!prebuilt && (!mm_kernel_source_for(spec, &src, err, sizeof err) ||
                    !template_instantiate(src.template_name, src.defines, src.num_defines, &text, &len, err, sizeof err))) {
    k->failure = mm_status_error(GEMMC_ERROR_COMPILE, "gemmc_matmul: %s: %s", what, err);
  } else {
    gemmc_compile_options opts;
    if (!prebuilt) compile_options_for(h, &src, &opts);
    double start = now_ms();
    gemmc_kernel_image *img = prebuilt;
    bool ok = prebuilt ? gemmc_kernel_image_ok(prebuilt)
                       : gemmc_cache_compile(h->cache, text, len, src.template_name, &opts, h->info.driver_version, &img);
    k->compile_ms = prebuilt ? 0 : now_ms() - start;
    k->disk_hit = ok && gemmc_kernel_image_from_cache(img);
    if (!ok) {
      const char *diag = img ? gemmc_kernel_image_diagnostics(img) : "out of memory";
      /* A kernel gemmc cannot lower yet (fp8) is "unsupported", not a crash or a wrong answer. */
      bool not_yet = strstr(diag, "not implemented yet") || strstr(diag, "not supported yet");
      k->failure = mm_status_error(not_yet ? GEMMC_ERROR_UNSUPPORTED : GEMMC_ERROR_COMPILE, "gemmc_matmul: %s %s:\n%s",
                                not_yet ? "gemmc cannot build" : "compiling", what, diag);
    } else {
      snprintf(k->key, sizeof k->key, "%s", gemmc_kernel_image_key(img));
      start = now_ms();
      gemmc_status st = gemmc_cache_load(h->rt, h->cache, img, &k->module, &k->fn);
      k->load_ms = now_ms() - start;
      const gemmc_kernel_metadata *md = gemmc_kernel_image_metadata(img);
      if (st.code != GEMMC_OK) {
        k->failure = st;
      } else if (md->num_args > GEMMC_MATMUL_MAX_ARGS) {
        k->failure = mm_status_error(GEMMC_ERROR_COMPILE, "gemmc_matmul: %s has %d arguments", what, md->num_args);
      } else {
        k->num_args = md->num_args;
        k->threads = (unsigned)md->threads_per_block;
        k->shared_bytes = (unsigned)md->dynamic_shared_bytes;
        k->cluster_size = md->cluster_size;
        for (int i = 0; i < md->num_args && k->failure.code == GEMMC_OK; i++) {
          int s = 0;
          while (s < MM_SLOT_COUNT && strcmp(mm_slot_names[s], md->args[i].name)) s++;
          if (s == MM_SLOT_COUNT)
            k->failure = mm_status_error(GEMMC_ERROR_COMPILE, "gemmc_matmul: template argument '%s' has no value", md->args[i].name);
          k->arg_slot[i] = (uint8_t)s;
        }
      }
      if (h->verbose)
        fprintf(stderr, "gemmc: %s: %s %.1f ms, loaded in %.1f ms (%s)\n", what,
                k->disk_hit ? "read from the kernel cache in" : "compiled in", k->compile_ms, k->load_ms,
                k->failure.code == GEMMC_OK ? "ok" : k->failure.message);
    }
    if (img != prebuilt) gemmc_kernel_image_destroy(img);
  }
  free(text);
  if (!table_insert(&h->kernels, k, sizeof k->spec)) {
    kernel_free(h, k);
    return NULL;
  }
  return k;
}

static mm_kernel *get_kernel(gemmc_handle *h, const mm_spec *spec) { return get_kernel_from(h, spec, NULL); }

/* ------------------------------------------------------------------ plans */

static void plan_key_of(const mm_problem *p, mm_plan_key *key) {
  memset(key, 0, sizeof *key);
  key->at = (uint8_t)p->at, key->out = (uint8_t)p->out, key->acc = (uint8_t)p->acc, key->tf32 = p->tf32;
  key->has_alpha = p->has_alpha, key->has_c = p->has_c, key->has_bias = p->has_bias, key->act = (uint8_t)p->act;
  mm_spec s;
  memset(&s, 0, sizeof s);
  s.kind = MM_KIND_GEMM;
  s.has_c = p->has_c, s.has_bias = p->has_bias;
  spec_facts(&s, p->values);
  key->div = s.div, key->unit = s.unit;
  key->M = p->M, key->N = p->N, key->K = p->K, key->batch = p->batch;
}

static void base_spec(const mm_problem *p, mm_spec *s) {
  memset(s, 0, sizeof *s);
  s->at = (uint8_t)p->at, s->out = (uint8_t)p->out, s->acc = (uint8_t)p->acc, s->tf32 = p->tf32;
  s->has_alpha = p->has_alpha, s->has_c = p->has_c, s->has_bias = p->has_bias, s->act = (uint8_t)p->act;
}

/* The argument values of the split-K partial kernel and of the reduce kernel. */
static void split_values(const mm_problem *p, int split, gemmc_devptr ws, uint64_t *main, uint64_t *reduce) {
  memcpy(main, p->values, sizeof p->values);
  uint64_t mn = (uint64_t)p->M * (uint64_t)p->N;
  main[MM_SLOT_D_PTR] = ws;
  main[MM_SLOT_STRIDE_DM] = (uint64_t)p->N;
  main[MM_SLOT_STRIDE_DN] = 1;
  main[MM_SLOT_STRIDE_DB] = mn;
  main[MM_SLOT_STRIDE_DZ] = mn * (uint64_t)p->batch;
  memcpy(reduce, p->values, sizeof p->values);
  reduce[MM_SLOT_WS_PTR] = ws;
  reduce[MM_SLOT_SPLITS] = (uint64_t)split;
  reduce[MM_SLOT_STRIDE_WZ] = mn * (uint64_t)p->batch;
}

/* Makes sure the workspace holds `bytes`; returns its address (0 when it cannot). */
static gemmc_devptr workspace(gemmc_handle *h, uint64_t bytes, gemmc_status *st) {
  if (h->user_ws && h->user_ws_bytes >= bytes && h->user_ws % 16 == 0) return h->user_ws;
  if (h->own_ws && h->own_ws_bytes >= bytes) return h->own_ws;
  if (h->own_ws) {
    /* Work already queued may still read the old one. */
    gemmc_runtime_stream_synchronize(h->rt, h->stream);
    gemmc_runtime_mem_free(h->rt, h->own_ws);
    h->own_ws = 0;
    h->own_ws_bytes = 0;
  }
  uint64_t size = bytes < (1u << 20) ? (1u << 20) : bytes;
  *st = gemmc_runtime_mem_alloc(h->rt, size, &h->own_ws);
  if (st->code != GEMMC_OK) return 0;
  h->own_ws_bytes = size;
  return h->own_ws;
}

static unsigned cdiv_u(int64_t a, int64_t b) { return (unsigned)((a + b - 1) / b); }

/* The tail-split flags (made and zeroed on first use; 0 when that fails, with *st saying why). */
static gemmc_devptr tail_split_flags(gemmc_handle *h, gemmc_status *st) {
  if (h->tail_split_flags) return h->tail_split_flags;
  gemmc_devptr flags = 0;
  *st = gemmc_runtime_mem_alloc(h->rt, MM_TAIL_SPLIT_MAX_BLOCKS * sizeof(uint32_t), &flags);
  if (st->code != GEMMC_OK) return 0;
  *st = gemmc_runtime_memset_d32(h->rt, flags, 0, MM_TAIL_SPLIT_MAX_BLOCKS);
  if (st->code != GEMMC_OK) {
    gemmc_runtime_mem_free(h->rt, flags);
    return 0;
  }
  return h->tail_split_flags = flags;
}

/* A tail-split launch's workspace, flags and split (the plan's shape) in its argument values;
 * false (with *st) when they cannot be had. */
static bool tail_split_values(gemmc_handle *h, const mm_problem *p, const mm_plan *plan, uint64_t *values,
                              gemmc_status *st) {
  gemmc_devptr ws = workspace(h, mm_tail_split_workspace_bytes(p, &matmul_configs[plan->config], &plan->tail), st);
  gemmc_devptr flags = ws ? tail_split_flags(h, st) : 0;
  values[MM_SLOT_WS_PTR] = ws;
  values[MM_SLOT_FLAGS_PTR] = flags;
  values[MM_SLOT_SHARED_TILES] = (uint64_t)plan->tail.shared_tiles;
  values[MM_SLOT_WAYS] = (uint64_t)plan->tail.ways;
  return ws && flags;
}

/* A cluster-ready kernel runs in clusters only where the cluster size divides the grid's x
 * (gemmc_launch_cluster_x), and an odd tile count would run it without (perf-notes 58: 3080^3
 * then lost the whole gain of the multicast). The template lets gemmc_matmul round the grid up
 * by one program: a tile count is odd only when the tile rows and columns both are, so with
 * GROUP_SIZE_M even the last group is partial and program `tiles` maps to tile column
 * num_pid_n, past N: its loads wrap (`% N`) or fall outside the tensor and its stores are all
 * masked or clipped, so it writes nothing. */
static void pad_grid_to_clusters(const matmul_config *c, const mm_kernel *k, unsigned grid[3]) {
  if (k->cluster_size == 2 && c->group_m % 2 == 0 && grid[0] % 2) grid[0]++;
}

/* Loads the kernels of (config, split) for p into plan. */
static gemmc_status plan_load(gemmc_handle *h, const mm_problem *p, mm_plan *plan) {
  const matmul_config *c = &matmul_configs[plan->config];
  mm_spec main_spec;
  base_spec(p, &main_spec);
  main_spec.kind = MM_KIND_GEMM;
  main_spec.config = (uint16_t)plan->config;
  plan->grid[0] = cdiv_u(p->M, c->block_m) * cdiv_u(p->N, c->block_n);
  plan->grid[1] = (unsigned)p->batch;
  plan->grid[2] = (unsigned)plan->split;
  plan->reduce = NULL;
  if (mm_config_is_tail_split(c)) {
    plan->tail = mm_tail_split_shape_of(p, &h->info, c);
    plan->grid[0] = (unsigned)plan->tail.grid;
    plan->grid[1] = plan->grid[2] = 1;
    /* The workspace and flags exist before the first launch (a failure is this call's). */
    gemmc_status st = mm_status_ok();
    uint64_t values[MM_SLOT_COUNT];
    if (!tail_split_values(h, p, plan, values, &st)) return st;
    spec_facts(&main_spec, p->values);
  } else if (plan->split > 1) {
    gemmc_status st = mm_status_ok();
    gemmc_devptr ws = workspace(h, mm_split_workspace_bytes(p, plan->split), &st);
    if (!ws) return st;
    uint64_t mv[MM_SLOT_COUNT], rv[MM_SLOT_COUNT];
    split_values(p, plan->split, ws, mv, rv);
    main_spec.split = 1;
    main_spec.has_alpha = main_spec.has_c = main_spec.has_bias = 0;
    main_spec.act = GEMMC_ACT_NONE;
    spec_facts(&main_spec, mv);
    mm_spec reduce_spec;
    base_spec(p, &reduce_spec);
    reduce_spec.kind = MM_KIND_REDUCE;
    spec_facts(&reduce_spec, rv);
    plan->reduce = get_kernel(h, &reduce_spec);
    if (!plan->reduce) return mm_status_error(GEMMC_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
    if (plan->reduce->failure.code != GEMMC_OK) return plan->reduce->failure;
    plan->reduce_grid[0] = cdiv_u(p->M, matmul_reduce_block_m) * cdiv_u(p->N, matmul_reduce_block_n);
    plan->reduce_grid[1] = (unsigned)p->batch;
    plan->reduce_grid[2] = 1;
  } else {
    spec_facts(&main_spec, p->values);
  }
  plan->main = get_kernel(h, &main_spec);
  if (!plan->main) return mm_status_error(GEMMC_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
  pad_grid_to_clusters(c, plan->main, plan->grid);
  return plan->main->failure;
}

/* How k is launched on `grid` (what gemmc_matmul_last_info reports too). */
static gemmc_launch_config launch_config_of(const gemmc_handle *h, const mm_kernel *k, const unsigned grid[3]) {
  gemmc_launch_config lc = {{grid[0], grid[1], grid[2]},
                            {k->threads, 1, 1},
                            k->shared_bytes,
                            h->stream,
                            gemmc_launch_cluster_x(k->cluster_size, grid[0])};
  return lc;
}

static gemmc_status launch_kernel(gemmc_handle *h, const mm_kernel *k, const unsigned grid[3], uint64_t *values) {
  void *args[GEMMC_MATMUL_MAX_ARGS];
  for (int i = 0; i < k->num_args; i++) args[i] = &values[k->arg_slot[i]];
  gemmc_launch_config lc = launch_config_of(h, k, grid);
  return gemmc_runtime_launch(h->rt, k->fn, &lc, args);
}

/* Runs plan on p's arguments (asynchronously). */
static gemmc_status plan_run(gemmc_handle *h, const mm_plan *plan, const mm_problem *p, uint64_t *main_values) {
  gemmc_status st = mm_status_ok();
  if (plan->split <= 1) {
    memcpy(main_values, p->values, sizeof p->values);
    if (mm_config_is_tail_split(&matmul_configs[plan->config]) && !tail_split_values(h, p, plan, main_values, &st))
      return st;
    return launch_kernel(h, plan->main, plan->grid, main_values);
  }
  gemmc_devptr ws = workspace(h, mm_split_workspace_bytes(p, plan->split), &st);
  if (!ws) return st;
  uint64_t rv[MM_SLOT_COUNT];
  split_values(p, plan->split, ws, main_values, rv);
  st = launch_kernel(h, plan->main, plan->grid, main_values);
  if (st.code == GEMMC_OK) st = launch_kernel(h, plan->reduce, plan->reduce_grid, rv);
  return st;
}

/* ------------------------------------------------------------------ autotuning */

typedef struct tune_run {
  gemmc_handle *h;
  const mm_plan *plan;
  const mm_problem *p;
  uint64_t values[MM_SLOT_COUNT];
} tune_run;

static bool tune_launch(void *user, int index, char *err, size_t errlen) {
  (void)index;
  tune_run *r = user;
  gemmc_status st = plan_run(r->h, r->plan, r->p, r->values);
  if (st.code != GEMMC_OK) snprintf(err, errlen, "%s", st.message);
  return st.code == GEMMC_OK;
}

typedef struct tune_candidate {
  int config, split;
  mm_spec main, reduce;
  bool usable;
  gemmc_tune_timing timing;
} tune_candidate;

static void plan_specs(const mm_problem *p, int config, int split, gemmc_devptr ws, mm_spec *main, mm_spec *reduce);
static void build_specs(gemmc_handle *h, const mm_spec *specs, int n, FILE *progress, double *wall_ms);

/* The specs plan_load builds for (config, split), with the workspace at ws. */
static void plan_specs(const mm_problem *p, int config, int split, gemmc_devptr ws, mm_spec *main, mm_spec *reduce) {
  base_spec(p, main);
  main->kind = MM_KIND_GEMM;
  main->config = (uint16_t)config;
  if (split > 1) {
    uint64_t mv[MM_SLOT_COUNT], rv[MM_SLOT_COUNT];
    split_values(p, split, ws, mv, rv);
    main->split = 1;
    main->has_alpha = main->has_c = main->has_bias = 0;
    main->act = GEMMC_ACT_NONE;
    spec_facts(main, mv);
    base_spec(p, reduce);
    reduce->kind = MM_KIND_REDUCE;
    spec_facts(reduce, rv);
  } else {
    spec_facts(main, p->values);
  }
}

/* The kernels of specs[0..n) that are not loaded yet, compiled (and JIT-compiled) in parallel
 * on one thread per CPU, then loaded; `progress` gets a line per kernel. The wall time goes to
 * *wall_ms. Failures stay with their kernels (get_kernel reports them). */
static void build_specs(gemmc_handle *h, const mm_spec *specs, int n, FILE *progress, double *wall_ms) {
  mm_spec *todo = calloc((size_t)n + 1, sizeof *todo);
  gemmc_tune_source *sources = calloc((size_t)n + 1, sizeof *sources);
  mm_kernel_source *ksrc = calloc((size_t)n + 1, sizeof *ksrc);
  char **texts = calloc((size_t)n + 1, sizeof *texts);
  char (*labels)[160] = calloc((size_t)n + 1, sizeof *labels);
  gemmc_tune_compiled *built = calloc((size_t)n + 1, sizeof *built);
  int m = 0;
  *wall_ms = 0;
  for (int i = 0; todo && sources && ksrc && texts && labels && built && i < n; i++) {
    bool seen = false;
    for (int j = 0; j < m && !seen; j++) seen = !memcmp(&todo[j], &specs[i], sizeof specs[i]);
    void **known = table_find(&h->kernels, &specs[i], sizeof specs[i]);
    if (seen || (known && *known)) continue;
    char err[512];
    size_t len = 0;
    if (!mm_kernel_source_for(&specs[i], &ksrc[m], err, sizeof err) ||
        !template_instantiate(ksrc[m].template_name, ksrc[m].defines, ksrc[m].num_defines, &texts[m], &len, err, sizeof err))
      continue; /* get_kernel reports it when the kernel is asked for */
    todo[m] = specs[i];
    spec_describe(&specs[i], labels[m], sizeof labels[m]);
    sources[m].label = labels[m];
    sources[m].text = texts[m];
    sources[m].len = len;
    sources[m].filename = ksrc[m].template_name;
    compile_options_for(h, &ksrc[m], &sources[m].options);
    m++;
  }
  if (m) {
    gemmc_tune_compile(h->rt, h->cache, h->info.driver_version, sources, m, 0, progress, built, wall_ms);
    for (int j = 0; j < m; j++) get_kernel_from(h, &todo[j], built[j].image);
  }
  for (int j = 0; built && j < m; j++) gemmc_kernel_image_destroy(built[j].image);
  for (int j = 0; texts && j < m; j++) free(texts[j]);
  free(todo), free(sources), free(ksrc), free(texts), free(labels), free(built);
}

/* Times every row of the table that serves p (and, when the model would split K, that row's
 * best split too) on p's own A, B and C with a scratch D, after compiling them all in parallel;
 * stores the fastest under `cls`. One line per candidate on stderr. */
static bool autotune(gemmc_handle *h, const mm_problem *p, const char *cls, int *config_out, int *split_out) {
  enum { MAX_CANDIDATES = 96 };
  tune_candidate *cands = calloc(MAX_CANDIDATES, sizeof *cands);
  if (!cands) return false;
  int n = 0;
  for (int i = 0; i < matmul_num_configs && n < MAX_CANDIDATES - 1; i++) {
    if (!mm_config_serves(p, &h->info, i, 1) || (h->batch_invariant && !mm_config_keeps_rows_invariant(i, 1))) continue;
    cands[n++] = (tune_candidate){.config = i, .split = 1};
    if (h->batch_invariant) continue;
    int best_split = 1;
    double best = mm_predict_ms(p, &h->info, i, 1);
    for (int s = 0; s < matmul_num_split_choices; s++) {
      double t = mm_predict_ms(p, &h->info, i, matmul_split_choices[s]);
      if (t >= 0 && t < best * 0.9) best = t, best_split = matmul_split_choices[s];
    }
    if (best_split > 1) cands[n++] = (tune_candidate){.config = i, .split = best_split};
  }
  /* A scratch D with the real D's alignment: the user's D (and C) stay untouched. */
  const uint64_t *v = p->values;
  uint64_t d_elems = (uint64_t)(p->batch - 1) * v[MM_SLOT_STRIDE_DB] + (uint64_t)(p->M - 1) * v[MM_SLOT_STRIDE_DM] + (uint64_t)p->N;
  uint64_t d_bytes = d_elems * (uint64_t)mm_dtype_bytes(p->out) + 512;
  gemmc_devptr scratch = 0, ws = 0;
  uint64_t ws_bytes = 0;
  for (int i = 0; i < n; i++) {
    uint64_t b = mm_workspace_bytes(p, &h->info, cands[i].config, cands[i].split);
    if (b > ws_bytes) ws_bytes = b;
  }
  gemmc_status st = gemmc_runtime_mem_alloc(h->rt, d_bytes, &scratch);
  if (st.code == GEMMC_OK && ws_bytes) ws = workspace(h, ws_bytes, &st);
  if (st.code != GEMMC_OK || (ws_bytes && !ws)) {
    fprintf(stderr, "gemmc: tune %s: no memory for the trial runs (%s); using the model's choice\n", cls, st.message);
    if (scratch) gemmc_runtime_mem_free(h->rt, scratch);
    free(cands);
    return false;
  }
  mm_problem q = *p;
  q.values[MM_SLOT_D_PTR] = scratch + (v[MM_SLOT_D_PTR] & 255);
  if (!q.has_c) q.values[MM_SLOT_C_PTR] = q.values[MM_SLOT_D_PTR];
  if (!q.has_bias) q.values[MM_SLOT_BIAS_PTR] = q.values[MM_SLOT_D_PTR];

  /* Every distinct kernel, compiled (and JIT-compiled) in parallel. */
  mm_spec *specs = calloc(2 * (size_t)n, sizeof *specs);
  int nspecs = 0;
  bool ok = specs != NULL;
  for (int i = 0; ok && i < n; i++) {
    plan_specs(&q, cands[i].config, cands[i].split, ws, &cands[i].main, &cands[i].reduce);
    specs[nspecs++] = cands[i].main;
    if (cands[i].split > 1) specs[nspecs++] = cands[i].reduce;
  }
  double wall = 0;
  if (ok) {
    fprintf(stderr, "gemmc: tune %s: building the kernels of %d candidates\n", cls, n);
    build_specs(h, specs, nspecs, h->verbose ? stderr : NULL, &wall);
  }
  int best = -1;
  for (int i = 0; ok && i < n; i++) {
    tune_candidate *c = &cands[i];
    mm_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.config = c->config;
    plan.split = c->split;
    plan.origin = "tuning";
    st = plan_load(h, &q, &plan);
    const char *name = matmul_configs[c->config].name;
    if (st.code == GEMMC_OK) {
      tune_run run = {h, &plan, &q, {0}};
      /* Timed with the L2 flushed before each launch, as benchmarks time GEMMs: on a warm L2 small
       * problems ranked the rows differently (perf-notes 55). Without room for the flush, warm. */
      st = gemmc_tune_time_cold(h->rt, h->stream, tune_launch, &run, 2, 7, (size_t)128 << 20, &c->timing);
      if (st.code != GEMMC_OK && !strstr(st.message, "launch failed"))
        st = gemmc_tune_time(h->rt, h->stream, tune_launch, &run, 2, 5, 5.0, &c->timing);
    }
    if (st.code != GEMMC_OK) {
      const char *nl = strchr(st.message, '\n');
      fprintf(stderr, "gemmc: tune [%d/%d] %s split %d: failed: %.*s\n", i + 1, n, name, c->split,
              nl ? (int)(nl - st.message) : (int)strlen(st.message), st.message);
      if (st.code == GEMMC_ERROR_DRIVER && strstr(st.message, "launch failed")) break; /* the context may be gone */
      continue;
    }
    c->usable = true;
    double flops = 2.0 * (double)q.M * (double)q.N * (double)(q.K ? q.K : 1) * (double)q.batch;
    fprintf(stderr, "gemmc: tune [%d/%d] %s split %d: %.4f ms, %.1f TFLOP/s\n", i + 1, n, name, c->split,
            c->timing.median_ms, flops / (c->timing.median_ms * 1e-3) / 1e12);
    if (best < 0 || c->timing.median_ms < cands[best].timing.median_ms) best = i;
  }
  if (best >= 0) {
    *config_out = cands[best].config;
    *split_out = cands[best].split;
    mm_tuning_db_store(&h->tuning, cls, cands[best].config, cands[best].split, cands[best].timing.median_ms);
    fprintf(stderr, "gemmc: tune %s: %s split %d (%.4f ms; compiled in %.0f ms)\n", cls, matmul_configs[cands[best].config].name,
            cands[best].split, cands[best].timing.median_ms, wall);
  }
  gemmc_runtime_stream_synchronize(h->rt, h->stream);
  gemmc_runtime_mem_free(h->rt, scratch);
  free(specs);
  free(cands);
  return best >= 0;
}

/* The plan's config: forced, tuned before (on disk), tuned now, or the model's. */
static gemmc_status choose(gemmc_handle *h, const mm_problem *p, mm_plan *plan, bool allow_tune) {
  if (h->forced_config >= 0) {
    plan->config = h->forced_config;
    plan->split = h->forced_split > 0 ? h->forced_split : 1;
    plan->origin = "forced";
    if (!mm_config_serves(p, &h->info, plan->config, plan->split))
      return mm_status_error(GEMMC_ERROR_UNSUPPORTED, "gemmc_matmul: config %s (split %d) cannot run this problem on %s",
                          matmul_configs[plan->config].name, plan->split, h->info.name);
    return mm_status_ok();
  }
  mm_choice choice;
  if (!mm_choose(p, &h->info, h->batch_invariant, &choice))
    return mm_status_error(GEMMC_ERROR_UNSUPPORTED, "gemmc_matmul: no kernel in the config table serves %s inputs on %s (sm_%d%d)",
                        mm_dtype_ir(p->at), h->info.name, h->info.compute_capability_major, h->info.compute_capability_minor);
  plan->config = choice.config;
  plan->split = choice.split;
  plan->origin = "model";
  char cls[192];
  mm_shape_class(p, plan->key.div, plan->key.unit, h->batch_invariant, cls, sizeof cls);
  int config = -1, split = 1;
  if (mm_tuning_db_lookup(&h->tuning, cls, &config, &split) && mm_config_serves(p, &h->info, config, split) &&
      !(h->batch_invariant && !mm_config_keeps_rows_invariant(config, split))) {
    plan->config = config;
    plan->split = split;
    plan->origin = "tuned";
  } else if (h->tune && allow_tune && autotune(h, p, cls, &config, &split)) {
    plan->config = config;
    plan->split = split;
    plan->origin = "tuned";
  }
  return mm_status_ok();
}

/* allow_tune: false when p's pointers are stand-ins (prepare), which trial runs must not touch. */
static gemmc_status get_plan(gemmc_handle *h, const mm_problem *p, bool allow_tune, mm_plan **out) {
  mm_plan_key key;
  plan_key_of(p, &key);
  void **slot = table_find(&h->plans, &key, sizeof key);
  if (slot && *slot) {
    *out = *slot;
    return mm_status_ok();
  }
  mm_plan *plan = calloc(1, sizeof *plan);
  if (!plan) return mm_status_error(GEMMC_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
  plan->key = key;
  gemmc_status st = choose(h, p, plan, allow_tune);
  if (st.code == GEMMC_OK) st = plan_load(h, p, plan);
  if (st.code != GEMMC_OK) {
    free(plan); /* not kept: a later call tries again (kernels that failed stay failed) */
    return st;
  }
  if (!table_insert(&h->plans, plan, sizeof plan->key)) {
    free(plan);
    return mm_status_error(GEMMC_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
  }
  *out = plan;
  return mm_status_ok();
}

/* ------------------------------------------------------------------ the calls */

gemmc_status gemmc_matmul_ex(gemmc_handle *h, const gemmc_matmul_desc *desc) {
  REQUIRE_HANDLE(h, "gemmc_matmul");
  mm_problem p;
  gemmc_status st = mm_problem_from_desc(desc, &p);
  if (st.code != GEMMC_OK || p.M == 0 || p.N == 0 || p.batch == 0) return st;
  mm_plan *plan = NULL;
  st = get_plan(h, &p, true, &plan);
  if (st.code != GEMMC_OK) return st;
  st = plan_run(h, plan, &p, h->last_values);
  if (st.code == GEMMC_OK) h->last_plan = plan;
  return st;
}

/* A descriptor whose missing pointers stand for 256-byte aligned ones. */
static gemmc_status stand_in_problem(const gemmc_matmul_desc *desc, mm_problem *p) {
  gemmc_matmul_desc d = *desc;
  const void *aligned = (const void *)(uintptr_t)256;
  if (!d.A) d.A = aligned;
  if (!d.B) d.B = aligned;
  if (!d.C) d.C = aligned;
  if (!d.D) d.D = (void *)(uintptr_t)256;
  return mm_problem_from_desc(&d, p);
}

gemmc_status gemmc_matmul_prepare(gemmc_handle *h, const gemmc_matmul_desc *desc) {
  REQUIRE_HANDLE(h, "gemmc_matmul_prepare");
  if (!desc) return mm_status_error(GEMMC_ERROR_INVALID_ARGUMENT, "gemmc_matmul_prepare: no descriptor");
  mm_problem p;
  gemmc_status st = stand_in_problem(desc, &p);
  if (st.code != GEMMC_OK || p.M == 0 || p.N == 0 || p.batch == 0) return st;
  mm_plan *plan = NULL;
  return get_plan(h, &p, false, &plan);
}

gemmc_status gemmc_matmul_prepare_many(gemmc_handle *h, const gemmc_matmul_desc *descs, int n, double *wall_ms) {
  REQUIRE_HANDLE(h, "gemmc_matmul_prepare_many");
  if (wall_ms) *wall_ms = 0;
  if (n < 0 || (n && !descs)) return mm_status_error(GEMMC_ERROR_INVALID_ARGUMENT, "gemmc_matmul_prepare_many: no descriptors");
  double start = now_ms();
  gemmc_status first = mm_status_ok();
  mm_spec *specs = calloc(2 * (size_t)n + 1, sizeof *specs);
  if (!specs) return mm_status_error(GEMMC_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
  /* The specs every descriptor's plan needs, then all the missing kernels at once. */
  int nspecs = 0;
  for (int i = 0; i < n; i++) {
    mm_problem p;
    gemmc_status st = stand_in_problem(&descs[i], &p);
    if (st.code == GEMMC_OK && (p.M == 0 || p.N == 0 || p.batch == 0)) continue;
    mm_plan plan;
    memset(&plan, 0, sizeof plan);
    plan_key_of(&p, &plan.key);
    if (st.code == GEMMC_OK) st = choose(h, &p, &plan, false);
    gemmc_devptr ws = 0;
    if (st.code == GEMMC_OK && plan.split > 1) ws = workspace(h, mm_split_workspace_bytes(&p, plan.split), &st);
    if (st.code != GEMMC_OK) {
      if (first.code == GEMMC_OK) first = st;
      continue;
    }
    plan_specs(&p, plan.config, plan.split, ws, &specs[nspecs], &specs[nspecs + 1]);
    nspecs += plan.split > 1 ? 2 : 1;
  }
  double wall = 0;
  build_specs(h, specs, nspecs, h->verbose ? stderr : NULL, &wall);
  free(specs);
  /* Plans (their kernels are loaded now, or remember why they failed). */
  for (int i = 0; i < n; i++) {
    mm_problem p;
    gemmc_status st = stand_in_problem(&descs[i], &p);
    mm_plan *plan = NULL;
    if (st.code == GEMMC_OK && p.M && p.N && p.batch) st = get_plan(h, &p, false, &plan);
    if (st.code != GEMMC_OK && first.code == GEMMC_OK) first = st;
  }
  if (wall_ms) *wall_ms = now_ms() - start;
  return first;
}

gemmc_status gemmc_matmul(gemmc_handle *h, gemmc_operation transa, gemmc_operation transb, int64_t m, int64_t n,
                          int64_t k, const void *alpha, const void *A, gemmc_datatype a_type, int64_t lda,
                          const void *B, gemmc_datatype b_type, int64_t ldb, const void *beta, const void *C,
                          gemmc_datatype c_type, int64_t ldc, void *D, gemmc_datatype d_type, int64_t ldd,
                          gemmc_compute_type compute) {
  gemmc_matmul_desc d;
  gemmc_matmul_desc_init(&d);
  d.transa = transa, d.transb = transb, d.m = m, d.n = n, d.k = k, d.alpha = alpha, d.beta = beta;
  d.A = A, d.a_type = a_type, d.lda = lda, d.B = B, d.b_type = b_type, d.ldb = ldb;
  d.C = C, d.c_type = c_type, d.ldc = ldc, d.D = D, d.d_type = d_type, d.ldd = ldd, d.compute = compute;
  return gemmc_matmul_ex(h, &d);
}

gemmc_status gemmc_matmul_strided_batched(gemmc_handle *h, gemmc_operation transa, gemmc_operation transb,
                                          int64_t m, int64_t n, int64_t k, const void *alpha, const void *A,
                                          gemmc_datatype a_type, int64_t lda, int64_t stride_a, const void *B,
                                          gemmc_datatype b_type, int64_t ldb, int64_t stride_b, const void *beta,
                                          const void *C, gemmc_datatype c_type, int64_t ldc, int64_t stride_c,
                                          void *D, gemmc_datatype d_type, int64_t ldd, int64_t stride_d,
                                          int64_t batch_count, gemmc_compute_type compute) {
  gemmc_matmul_desc d;
  gemmc_matmul_desc_init(&d);
  d.transa = transa, d.transb = transb, d.m = m, d.n = n, d.k = k, d.alpha = alpha, d.beta = beta;
  d.A = A, d.a_type = a_type, d.lda = lda, d.stride_a = stride_a;
  d.B = B, d.b_type = b_type, d.ldb = ldb, d.stride_b = stride_b;
  d.C = C, d.c_type = c_type, d.ldc = ldc, d.stride_c = stride_c;
  d.D = D, d.d_type = d_type, d.ldd = ldd, d.stride_d = stride_d;
  d.batch_count = batch_count, d.compute = compute;
  return gemmc_matmul_ex(h, &d);
}

gemmc_status gemmc_matmul_last_info(const gemmc_handle *h, gemmc_matmul_info *out) {
  if (!h || !out) return mm_status_error(GEMMC_ERROR_INVALID_ARGUMENT, "gemmc_matmul_last_info: no handle or output");
  memset(out, 0, sizeof *out);
  const mm_plan *plan = h->last_plan;
  if (!plan) return mm_status_error(GEMMC_ERROR_INVALID_ARGUMENT, "gemmc_matmul_last_info: no call has run yet");
  const mm_kernel *k = plan->main;
  snprintf(out->config, sizeof out->config, "%s split=%d (%s)", matmul_configs[plan->config].name, plan->split, plan->origin);
  snprintf(out->kernel_key, sizeof out->kernel_key, "%s", k->key);
  out->split_k = plan->split;
  out->batch_invariant = h->batch_invariant;
  out->kernel = k->fn;
  out->launch = launch_config_of(h, k, plan->grid);
  out->num_args = k->num_args;
  for (int i = 0; i < k->num_args; i++) {
    out->arg_values[i] = h->last_values[k->arg_slot[i]];
    out->args[i] = &out->arg_values[i];
  }
  out->has_reduce = plan->reduce != NULL;
  out->compile_ms = k->compile_ms + (plan->reduce ? plan->reduce->compile_ms : 0);
  out->load_ms = k->load_ms + (plan->reduce ? plan->reduce->load_ms : 0);
  out->disk_cache_hit = k->disk_hit;
  return mm_status_ok();
}

int gemmc_matmul_configs(const char **names, int max_names) {
  for (int i = 0; names && i < matmul_num_configs && i < max_names; i++) names[i] = matmul_configs[i].name;
  return matmul_num_configs;
}

bool gemmc_matmul_template(const char *name, const gemmc_define *defines, int num_defines, char **text, size_t *len,
                           char *err, size_t errlen) {
  return template_instantiate(name, defines, num_defines, text, len, err, errlen);
}

/* gemmc-tune: compile a matmul .tir for a list of configs in parallel (gemmc's tuner, through the kernel cache), time each on the GPU for given shapes, print a table. */
#include "../../examples/matmul_host.h"

#include <string.h>
#include <sys/stat.h>

#include "tool_args.h"

static void usage(FILE *f) {
  fputs("usage: gemmc-tune KERNEL.tir [options]\n"
        "Compiles KERNEL.tir once per config, all configs in parallel (one gemmc context per thread, through\n"
        "the kernel cache, with the driver's JIT when there is a GPU), then times each config on random\n"
        "inputs for every --shape and prints a table. Without a CUDA driver (or with --compile-only) it\n"
        "compiles only and prints compile times. KERNEL.tir follows the examples' matmul conventions\n"
        "(examples/matmul.tir, batched_matmul.tir, matmul_leaky_relu.tir): arguments a_ptr, b_ptr, c_ptr,\n"
        "M, N, K, stride_am .. stride_cn (batched: batch, stride_ab, stride_bb, stride_cb) and the -D\n"
        "constants BLOCK_M BLOCK_N BLOCK_K GROUP_SIZE_M DT ACC OUT ... (see examples/matmul.tir).\n"
        "\n"
        "  --shape MxNxK[xB]      a problem (repeatable; default 4096x4096x4096; B: the batch)\n"
        "  --configs LIST         comma-separated BMxBNxBK[:gG][:wW][:sS]\n"
        "  --seed-configs         the seed's 8 configs (the default)\n"
        "  --kind K               matmul, batched or leaky_relu (default: from the file name)\n"
        "  --dtype T --acc T --out T   element types (default f16, f32, the input type)\n"
        "  --precision tf32|ieee  f32 inputs\n"
        "  --b-col-major          B stored column-major\n"
        "  --samples N            timed samples per config, 3..100000 (default 10)\n"
        "  --threads N            compile threads, 0..1024 (default 0: one per CPU)\n"
        "  --compile-only         no GPU runs: compile times only\n"
        "  --target T             gemmc target (default: the device's, else sm_90a)\n"
        "  --cache-dir DIR        kernel cache folder (default: gemmc's); --no-cache compiles every time\n",
        f);
}

/* MxNxK or MxNxKxB, each a positive integer of at most 2^20 (B: the batch, default 1). */
static bool parse_shape(const char *text, int shape[4]) {
  char buf[96];
  if (strlen(text) >= sizeof buf) return false;
  snprintf(buf, sizeof buf, "%s", text);
  shape[3] = 1;
  int n = 0;
  for (char *save = NULL, *tok = strtok_r(buf, "x", &save); tok; tok = strtok_r(NULL, "x", &save)) {
    if (n == 4 || !tool_parse_int(tok, 1, 1 << 20, &shape[n])) return false;
    n++;
  }
  return n == 3 || n == 4;
}

int main(int argc, char **argv) {
  const char *tir = NULL, *config_list = NULL, *kind_name = NULL, *target = NULL, *cache_dir = NULL;
  bool compile_only = false, no_cache = false;
  int samples = 10, threads = 0;
  mh_gemm proto;
  memset(&proto, 0, sizeof proto);
  proto.in = MH_F16;
  proto.acc = MH_F32;
  proto.tf32 = true;
  proto.alpha = 0.01;
  bool out_set = false, acc_set = false;
  int shapes[16][4], nshapes = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--compile-only")) compile_only = true;
    else if (!strcmp(a, "--no-cache")) no_cache = true;
    else if (!strcmp(a, "--seed-configs")) config_list = NULL;
    else if (!strcmp(a, "--b-col-major")) proto.b_col_major = true;
    else if (a[0] != '-' && !tir) tir = a;
    else if (!v) {
      fprintf(stderr, "gemmc-tune: error: %s needs a value (try --help)\n", a);
      return 2;
    } else {
      i++;
      if (!strcmp(a, "--shape")) {
        if (nshapes == 16 || !parse_shape(v, shapes[nshapes])) {
          fprintf(stderr, "gemmc-tune: error: bad --shape '%s' (expected MxNxK or MxNxKxB, each 1..1048576; at most 16)\n", v);
          return 2;
        }
        nshapes++;
      } else if (!strcmp(a, "--configs")) config_list = v;
      else if (!strcmp(a, "--kind")) kind_name = v;
      else if (!strcmp(a, "--target")) target = v;
      else if (!strcmp(a, "--cache-dir")) cache_dir = v;
      else if (!strcmp(a, "--samples") && tool_parse_int(v, 3, 100000, &samples)) {
      } else if (!strcmp(a, "--threads") && tool_parse_int(v, 0, 1024, &threads)) {
      }
      else if (!strcmp(a, "--dtype") && mh_dtype_parse(v, &proto.in)) {
      } else if (!strcmp(a, "--acc") && mh_dtype_parse(v, &proto.acc)) acc_set = true;
      else if (!strcmp(a, "--out") && mh_dtype_parse(v, &proto.out)) out_set = true;
      else if (!strcmp(a, "--precision") && (!strcmp(v, "tf32") || !strcmp(v, "ieee"))) proto.tf32 = !strcmp(v, "tf32");
      else {
        fprintf(stderr, "gemmc-tune: error: unknown option or bad value: %s %s (try --help)\n", a, v);
        return 2;
      }
    }
  }
  if (!tir) {
    fprintf(stderr, "gemmc-tune: error: no input file (try --help)\n");
    return 2;
  }
  if (!acc_set) proto.acc = proto.in == MH_I8 ? MH_I32 : MH_F32;
  if (!out_set) proto.out = proto.in == MH_I8 ? MH_I32 : proto.in;
  const char *base = strrchr(tir, '/') ? strrchr(tir, '/') + 1 : tir;
  if (!kind_name) proto.kind = strstr(base, "batched") ? MH_KERNEL_BATCHED : strstr(base, "leaky") ? MH_KERNEL_LEAKY_RELU : MH_KERNEL_MATMUL;
  else if (!strcmp(kind_name, "matmul")) proto.kind = MH_KERNEL_MATMUL;
  else if (!strcmp(kind_name, "batched")) proto.kind = MH_KERNEL_BATCHED;
  else if (!strcmp(kind_name, "leaky_relu")) proto.kind = MH_KERNEL_LEAKY_RELU;
  else {
    fprintf(stderr, "gemmc-tune: error: bad --kind '%s' (matmul, batched or leaky_relu)\n", kind_name);
    return 2;
  }
  if (!nshapes) {
    shapes[0][0] = shapes[0][1] = shapes[0][2] = 4096;
    shapes[0][3] = proto.kind == MH_KERNEL_BATCHED ? 16 : 1;
    nshapes = 1;
  }
  mh_config configs[32];
  int nconfigs = 0;
  if (config_list) {
    char list[1024];
    snprintf(list, sizeof list, "%s", config_list);
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
      if (nconfigs == 32 || !mh_config_parse(tok, &configs[nconfigs])) {
        fprintf(stderr, "gemmc-tune: error: bad config '%s' (expected BMxBNxBK[:gG][:wW][:sS])\n", tok);
        return 2;
      }
      nconfigs++;
    }
  } else {
    for (int i = 0; i < MH_NUM_SEED_CONFIGS; i++) configs[nconfigs++] = mh_seed_configs[i];
  }

  mh_error e = {""};
  gemmc_runtime *rt = NULL;
  if (!compile_only && !mh_runtime_open(&rt, &e)) {
    fprintf(stderr, "gemmc-tune: error: %s\n", e.message);
    return 1;
  }
  if (!rt && !compile_only) printf("%s: compiling only\n", e.message);
  gemmc_cache *cache = NULL;
  char err[256];
  if (!gemmc_cache_open(no_cache ? "" : cache_dir, 0, &cache, err, sizeof err)) {
    fprintf(stderr, "gemmc-tune: error: %s\n", err);
    gemmc_runtime_destroy(rt);
    return 1;
  }
  const char *tgt = target ? target : mh_target(rt);
  int failures = 0;
  mh_rng rng = {mh_fresh_seed()};
  for (int si = 0; si < nshapes; si++) {
    mh_gemm g = proto;
    g.m = shapes[si][0], g.n = shapes[si][1], g.k = shapes[si][2];
    g.batch = proto.kind == MH_KERNEL_BATCHED ? shapes[si][3] : 1;
    mh_gemm_layout(&g);
    if (!mh_gemm_check(&g, &e)) {
      fprintf(stderr, "gemmc-tune: error: %s\n", e.message);
      failures++;
      continue;
    }
    char shape[160], dtypes[96];
    mh_gemm_shape_str(&g, shape, sizeof shape);
    mh_gemm_dtypes_str(&g, dtypes, sizeof dtypes);
    printf("%s: %s %s, %d configs, target %s%s\n", tir, shape, dtypes, nconfigs, tgt, gemmc_cache_dir(cache) ? "" : ", no cache");
    mh_host h;
    mh_device d;
    memset(&d, 0, sizeof d);
    bool have_data = false;
    if (rt) {
      have_data = mh_host_init(&g, &rng, &h, &e) && mh_device_init(rt, &g, &h, &d, &e);
      if (have_data) mh_host_free(&h);
      if (!have_data) {
        printf("  cannot set up inputs: %s\n", e.message);
        failures++;
        continue;
      }
    }
    mh_tune_buffers buf = {&d.a, &d.b, &d.c, 1};
    mh_tuned results[32];
    int best = -1;
    double wall = 0;
    if (!mh_tune(rt, cache, &g, tir, tgt, configs, nconfigs, &buf, samples, threads, NULL, results, &best, NULL, &wall, &e)) {
      printf("  %s\n", e.message);
      failures++;
    }
    printf("  %-24s %10s %8s %6s %5s %6s %10s %9s %8s\n", "config", "compile ms", "jit ms", "cache", "regs", "spills",
           rt ? "time ms" : "", rt ? "TFLOP/s" : "", rt ? "vs best" : "");
    for (int i = 0; i < nconfigs; i++) {
      const mh_tuned *r = &results[i];
      char cfg[64];
      mh_config_str(&r->config, cfg, sizeof cfg);
      if (!r->ok) {
        const char *nl = strchr(r->error, '\n');
        printf("  %-24s failed: %.*s\n", cfg, nl ? (int)(nl - r->error) : (int)strlen(r->error), r->error);
        failures++;
        continue;
      }
      if (!rt) {
        printf("  %-24s %10.1f %8s %6s\n", cfg, r->compile_ms, "-", r->cache_hit ? "hit" : "miss");
        continue;
      }
      double tf = mh_gemm_flops(&g) / (r->timing.median_ms * 1e-3) / 1e12;
      printf("  %-24s %10.1f %8.1f %6s %5d %6s %10.4f %9.1f %8.3f%s\n", cfg, r->compile_ms, r->jit_ms, r->cache_hit ? "hit" : "miss",
             r->info.num_registers, r->info.local_bytes ? "yes" : "no", r->timing.median_ms, tf,
             best >= 0 ? results[best].timing.median_ms / r->timing.median_ms : 0, i == best ? "  best" : "");
    }
    printf("  %d configs compiled%s in %.0f ms wall (parallel)\n", nconfigs, rt ? " and JIT-compiled" : "", wall);
    if (rt) mh_device_free(rt, &d);
    fflush(stdout);
  }
  gemmc_cache_close(cache);
  gemmc_runtime_destroy(rt);
  return failures ? 1 : 0;
}

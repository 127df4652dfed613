/* Unit test of the kernel cache: keys, hits and misses, damaged entries, cubins, LRU trimming, 8 processes compiling one kernel at once, and threads compiling at once (run it under ThreadSanitizer too). */
#include "gemmc/cache.h"
#include "gemmc/matmul.h"
#include "gemmc/tune.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

/* Vector add with a -D block size: small, so that each compile takes tens of milliseconds. */
static const char add_tir[] =
    "// gemmc-define: BLOCK=256\n"
    "module {\n"
    "  tt.func public @add_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, "
    "%out_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) attributes {noinline = false} {\n"
    "    %c_block = arith.constant ${BLOCK} : i32\n"
    "    %pid = tt.get_program_id x : i32\n"
    "    %start = arith.muli %pid, %c_block : i32\n"
    "    %range = tt.make_range {end = ${BLOCK} : i32, start = 0 : i32} : tensor<${BLOCK}xi32>\n"
    "    %start_v = tt.splat %start : i32 -> tensor<${BLOCK}xi32>\n"
    "    %offs = arith.addi %start_v, %range : tensor<${BLOCK}xi32>\n"
    "    %n_v = tt.splat %n : i32 -> tensor<${BLOCK}xi32>\n"
    "    %mask = arith.cmpi slt, %offs, %n_v : tensor<${BLOCK}xi32>\n"
    "    %x_base = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<${BLOCK}x!tt.ptr<f32>>\n"
    "    %x_ptrs = tt.addptr %x_base, %offs : tensor<${BLOCK}x!tt.ptr<f32>>, tensor<${BLOCK}xi32>\n"
    "    %x = tt.load %x_ptrs, %mask : tensor<${BLOCK}x!tt.ptr<f32>>\n"
    "    %y_base = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<${BLOCK}x!tt.ptr<f32>>\n"
    "    %y_ptrs = tt.addptr %y_base, %offs : tensor<${BLOCK}x!tt.ptr<f32>>, tensor<${BLOCK}xi32>\n"
    "    %y = tt.load %y_ptrs, %mask : tensor<${BLOCK}x!tt.ptr<f32>>\n"
    "    %sum = arith.addf %x, %y : tensor<${BLOCK}xf32>\n"
    "    %o_base = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<${BLOCK}x!tt.ptr<f32>>\n"
    "    %o_ptrs = tt.addptr %o_base, %offs : tensor<${BLOCK}x!tt.ptr<f32>>, tensor<${BLOCK}xi32>\n"
    "    tt.store %o_ptrs, %sum, %mask : tensor<${BLOCK}x!tt.ptr<f32>>\n"
    "    tt.return\n"
    "  }\n"
    "}\n";

static char root[256];

static void make_root(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(root, sizeof root, "%s/gemmc-cache-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(root)) {
    perror("mkdtemp");
    exit(2);
  }
}

static void remove_tree(const char *path) {
  DIR *d = opendir(path);
  if (d) {
    for (struct dirent *e; (e = readdir(d));) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char sub[1024];
      snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
      remove_tree(sub);
    }
    closedir(d);
    rmdir(path);
  } else {
    unlink(path);
  }
}

/* Entry files (*.gck) and temporary files (tmp-*) in a cache's kernels folder. */
static void count_files(const char *dir, int *entries, int *temps) {
  char path[512];
  snprintf(path, sizeof path, "%s/kernels-v1", dir);
  *entries = *temps = 0;
  DIR *d = opendir(path);
  if (!d) return;
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n > 4 && !strcmp(e->d_name + n - 4, ".gck")) (*entries)++;
    if (!strncmp(e->d_name, "tmp-", 4)) (*temps)++;
  }
  closedir(d);
}

static gemmc_compile_options options_with_block(gemmc_define *def, const char *block) {
  gemmc_compile_options o;
  gemmc_compile_options_init(&o);
  def->name = "BLOCK";
  def->value = block;
  o.defines = def;
  o.num_defines = 1;
  return o;
}

static void test_keys(void) {
  gemmc_define d1, d2;
  gemmc_compile_options a = options_with_block(&d1, "256"), b = options_with_block(&d2, "512");
  char k1[65], k2[65], k3[65], k4[65], k5[65];
  gemmc_cache_key(add_tir, strlen(add_tir), &a, 13000, k1);
  gemmc_cache_key(add_tir, strlen(add_tir), &a, 13000, k2);
  CHECK(!strcmp(k1, k2), "the same input gives the same key");
  gemmc_cache_key(add_tir, strlen(add_tir), &b, 13000, k3);
  CHECK(strcmp(k1, k3), "a -D value changes the key");
  gemmc_cache_key(add_tir, strlen(add_tir), &a, 12080, k4);
  CHECK(strcmp(k1, k4), "the driver version changes the key");
  a.num_warps = 8;
  gemmc_cache_key(add_tir, strlen(add_tir), &a, 13000, k5);
  CHECK(strcmp(k1, k5), "num_warps changes the key");
  a.disable_fp_fusion = true;
  char k6[65];
  gemmc_cache_key(add_tir, strlen(add_tir), &a, 13000, k6);
  CHECK(strcmp(k5, k6), "disable_fp_fusion changes the key");
  CHECK(strlen(k1) == 64, "a key is 64 hex digits");
}

static void test_hit_miss_damage(void) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s/single", root);
  gemmc_cache *cache = NULL;
  char err[256];
  CHECK(gemmc_cache_open(dir, 0, &cache, err, sizeof err), "open: %s", err);
  if (!cache) return;
  gemmc_define d;
  gemmc_compile_options o = options_with_block(&d, "256");
  gemmc_kernel_image *miss = NULL, *hit = NULL;
  CHECK(gemmc_cache_compile(cache, add_tir, strlen(add_tir), "add.tir", &o, 0, &miss), "first compile: %s",
        miss ? gemmc_kernel_image_diagnostics(miss) : "no image");
  CHECK(!gemmc_kernel_image_from_cache(miss), "the first compile is a miss");
  CHECK(gemmc_cache_compile(cache, add_tir, strlen(add_tir), "add.tir", &o, 0, &hit), "second compile");
  CHECK(gemmc_kernel_image_from_cache(hit), "the second compile is a hit");
  size_t l1 = 0, l2 = 0;
  const char *p1 = gemmc_kernel_image_ptx(miss, &l1), *p2 = gemmc_kernel_image_ptx(hit, &l2);
  CHECK(p1 && p2 && l1 == l2 && !memcmp(p1, p2, l1), "a hit returns the same PTX");
  const gemmc_kernel_metadata *m1 = gemmc_kernel_image_metadata(miss), *m2 = gemmc_kernel_image_metadata(hit);
  CHECK(m1 && m2 && !strcmp(m1->name, "add_kernel") && !strcmp(m2->name, "add_kernel"), "kernel name");
  CHECK(m1 && m2 && m1->source_name && m2->source_name && !strcmp(m2->source_name, "add_kernel"),
        "the source name survives the cache");
  CHECK(m1 && m2 && m1->num_args == 4 && m2->num_args == 4 && m2->args[0].divisibility == 16 &&
            !strcmp(m2->args[3].name, "n") && m2->args[3].kind == GEMMC_ARG_INT && !strcmp(m2->args[0].pointee, "f32"),
        "arguments survive the cache");
  CHECK(m2 && !strcmp(gemmc_kernel_constant(m2, "BLOCK"), "256") && m2->threads_per_block == m1->threads_per_block,
        "constants and block size survive the cache");
  size_t j1 = 0, j2 = 0;
  const char *json1 = gemmc_kernel_image_metadata_json(miss, &j1), *json2 = gemmc_kernel_image_metadata_json(hit, &j2);
  CHECK(j1 == j2 && j1 > 0 && !memcmp(json1, json2, j1), "kernel.json survives the cache");

  /* A cubin joins the entry; the next hit has it. */
  static const unsigned char fake_cubin[] = {0x7f, 'E', 'L', 'F', 1, 2, 3, 4};
  CHECK(gemmc_cache_add_cubin(cache, hit, fake_cubin, sizeof fake_cubin), "add a cubin");
  gemmc_kernel_image *with_cubin = NULL;
  gemmc_cache_compile(cache, add_tir, strlen(add_tir), "add.tir", &o, 0, &with_cubin);
  size_t cl = 0;
  const void *cb = gemmc_kernel_image_cubin(with_cubin, &cl);
  CHECK(gemmc_kernel_image_from_cache(with_cubin) && cb && cl == sizeof fake_cubin && !memcmp(cb, fake_cubin, cl),
        "the cubin comes back from the cache");

  /* A damaged entry (one byte flipped, then a truncated one) is a miss that compiles again. */
  char path[1024];
  snprintf(path, sizeof path, "%s/kernels-v1/%s.gck", dir, gemmc_kernel_image_key(hit));
  int fd = open(path, O_RDWR);
  CHECK(fd >= 0, "the entry is at %s", path);
  if (fd >= 0) {
    unsigned char byte;
    CHECK(pread(fd, &byte, 1, 200) == 1, "read a byte");
    byte ^= 0x40;
    CHECK(pwrite(fd, &byte, 1, 200) == 1, "write a byte");
    close(fd);
  }
  gemmc_kernel_image *again = NULL;
  CHECK(gemmc_cache_compile(cache, add_tir, strlen(add_tir), "add.tir", &o, 0, &again), "compile after damage");
  CHECK(!gemmc_kernel_image_from_cache(again), "a damaged entry is not used");
  size_t l3 = 0;
  const char *p3 = gemmc_kernel_image_ptx(again, &l3);
  CHECK(p3 && l3 == l1 && !memcmp(p1, p3, l1), "the recompiled PTX is the same");
  CHECK(truncate(path, 100) == 0, "truncate the entry");
  gemmc_kernel_image *again2 = NULL;
  gemmc_cache_compile(cache, add_tir, strlen(add_tir), "add.tir", &o, 0, &again2);
  CHECK(gemmc_kernel_image_ok(again2) && !gemmc_kernel_image_from_cache(again2), "a truncated entry is not used");

  /* A failed compile keeps its diagnostics and writes nothing. */
  gemmc_kernel_image *bad = NULL;
  const char broken[] = "module {\n  tt.func public @k() {\n    %x = arith.constant 1 : i32\n  }\n}\n";
  CHECK(!gemmc_cache_compile(cache, broken, strlen(broken), "broken.tir", NULL, 0, &bad), "a broken kernel fails");
  CHECK(bad && strstr(gemmc_kernel_image_diagnostics(bad), "broken.tir:"), "its diagnostics name the file: %s",
        bad ? gemmc_kernel_image_diagnostics(bad) : "");
  int entries = 0, temps = 0;
  count_files(dir, &entries, &temps);
  CHECK(entries == 1 && temps == 0, "one entry, no temporary files (%d, %d)", entries, temps);

  gemmc_kernel_image_destroy(miss);
  gemmc_kernel_image_destroy(hit);
  gemmc_kernel_image_destroy(with_cubin);
  gemmc_kernel_image_destroy(again);
  gemmc_kernel_image_destroy(again2);
  gemmc_kernel_image_destroy(bad);
  gemmc_cache_close(cache);
}

/* A kernel taking host-built tensor descriptors: what the host must encode survives the cache. */
static const char *desc_tir =
    "module {\n"
    "  tt.func public @copy_tile(%d: !tt.tensordesc<tensor<64x128xf16>>, %out: !tt.tensordesc<tensor<64x128xf16>>) {\n"
    "    %c0 = arith.constant 0 : i32\n"
    "    %x = tt.descriptor_load %d[%c0, %c0] : !tt.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16>\n"
    "    tt.descriptor_store %out[%c0, %c0], %x : !tt.tensordesc<tensor<64x128xf16>>, tensor<64x128xf16>\n"
    "    tt.return\n"
    "  }\n"
    "}\n";

static void test_tensor_map_args(void) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s/tensor-map", root);
  gemmc_cache *cache = NULL;
  char err[256];
  CHECK(gemmc_cache_open(dir, 0, &cache, err, sizeof err), "open: %s", err);
  if (!cache) return;
  gemmc_compile_options o;
  gemmc_compile_options_init(&o);
  gemmc_kernel_image *miss = NULL, *hit = NULL;
  CHECK(gemmc_cache_compile(cache, desc_tir, strlen(desc_tir), "copy.tir", &o, 0, &miss), "first compile: %s",
        miss ? gemmc_kernel_image_diagnostics(miss) : "no image");
  CHECK(gemmc_cache_compile(cache, desc_tir, strlen(desc_tir), "copy.tir", &o, 0, &hit), "second compile");
  CHECK(gemmc_kernel_image_from_cache(hit), "the second compile is a hit");
  const gemmc_kernel_metadata *m = gemmc_kernel_image_metadata(hit);
  const gemmc_tensor_map_info *t = m && m->num_args == 2 ? &m->args[1].tensor_map : NULL;
  CHECK(t && m->args[1].kind == GEMMC_ARG_TENSOR_MAP && m->args[1].size_bytes == GEMMC_TENSOR_MAP_BYTES &&
            !strcmp(t->elem, "f16") && t->rank == 2 && t->block[0] == 64 && t->block[1] == 128 && t->box[0] == 64 &&
            t->box[1] == 64 && t->swizzle_bytes == 128,
        "a tensor map argument's element type, block, box and swizzle survive the cache");
  size_t j1 = 0, j2 = 0;
  const char *json1 = gemmc_kernel_image_metadata_json(miss, &j1), *json2 = gemmc_kernel_image_metadata_json(hit, &j2);
  CHECK(j1 == j2 && j1 > 0 && !memcmp(json1, json2, j1) && strstr(json1, "\"kind\": \"tensor_map\""),
        "kernel.json with tensor maps survives the cache");
  gemmc_kernel_image_destroy(miss);
  gemmc_kernel_image_destroy(hit);
  gemmc_cache_close(cache);
}

static void test_trim(void) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s/trim", root);
  gemmc_cache *cache = NULL;
  char err[256];
  CHECK(gemmc_cache_open(dir, 0, &cache, err, sizeof err), "open: %s", err);
  if (!cache) return;
  static const char *const blocks[] = {"64", "128", "256", "512"};
  char keys[4][65];
  for (int i = 0; i < 4; i++) {
    gemmc_define d;
    gemmc_compile_options o = options_with_block(&d, blocks[i]);
    gemmc_kernel_image *img = NULL;
    CHECK(gemmc_cache_compile(cache, add_tir, strlen(add_tir), "add.tir", &o, 0, &img), "compile BLOCK=%s", blocks[i]);
    snprintf(keys[i], sizeof keys[i], "%s", gemmc_kernel_image_key(img));
    gemmc_kernel_image_destroy(img);
    /* Distinct modification times, oldest first. */
    char path[1024];
    snprintf(path, sizeof path, "%s/kernels-v1/%s.gck", dir, keys[i]);
    struct timespec times[2] = {{1000000 + i, 0}, {1000000 + i, 0}};
    utimensat(AT_FDCWD, path, times, 0);
  }
  gemmc_cache_stats st;
  CHECK(gemmc_cache_stats_get(cache, &st) && st.entries == 4, "4 entries (%lld)", (long long)st.entries);
  /* A hit makes the oldest entry the newest: trimming to half keeps it. */
  gemmc_define d;
  gemmc_compile_options o = options_with_block(&d, blocks[0]);
  gemmc_kernel_image *img = NULL;
  gemmc_cache_compile(cache, add_tir, strlen(add_tir), "add.tir", &o, 0, &img);
  CHECK(gemmc_kernel_image_from_cache(img), "a hit");
  gemmc_kernel_image_destroy(img);
  CHECK(gemmc_cache_trim(cache, (uint64_t)st.bytes / 2 + 1), "trim");
  char path[1024];
  snprintf(path, sizeof path, "%s/kernels-v1/%s.gck", dir, keys[0]);
  CHECK(access(path, F_OK) == 0, "the recently used entry stays");
  snprintf(path, sizeof path, "%s/kernels-v1/%s.gck", dir, keys[1]);
  CHECK(access(path, F_OK) != 0, "the least recently used entry goes");
  gemmc_cache_stats after;
  CHECK(gemmc_cache_stats_get(cache, &after) && after.bytes <= st.bytes / 2 + 1 && after.entries >= 1,
        "at most half the bytes remain (%lld of %lld)", (long long)after.bytes, (long long)st.bytes);
  gemmc_cache_close(cache);

  /* A bounded cache trims itself after writes. */
  snprintf(dir, sizeof dir, "%s/bounded", root);
  CHECK(gemmc_cache_open(dir, 20000, &cache, err, sizeof err), "open bounded: %s", err);
  for (int i = 0; cache && i < 4; i++) {
    gemmc_compile_options o2 = options_with_block(&d, blocks[i]);
    gemmc_cache_compile(cache, add_tir, strlen(add_tir), "add.tir", &o2, 0, &img);
    gemmc_kernel_image_destroy(img);
  }
  CHECK(cache && gemmc_cache_stats_get(cache, &after) && after.bytes <= 20000, "the bounded cache holds %lld bytes",
        (long long)after.bytes);
  gemmc_cache_close(cache);

  /* GEMMC_CACHE_DIR=off: compiles work and nothing is written. */
  CHECK(gemmc_cache_open("", 0, &cache, err, sizeof err) && gemmc_cache_dir(cache) == NULL, "a cache that is off");
  gemmc_cache_compile(cache, add_tir, strlen(add_tir), "add.tir", &o, 0, &img);
  CHECK(gemmc_kernel_image_ok(img) && !gemmc_kernel_image_from_cache(img), "compiles without a folder");
  gemmc_kernel_image_destroy(img);
  gemmc_cache_close(cache);
}

/* 8 processes compile the same kernel into an empty cache at the same moment. */
static void test_processes(void) {
  enum { PROCS = 8 };
  char dir[512];
  snprintf(dir, sizeof dir, "%s/procs", root);
  int go[2];
  if (pipe(go) != 0) {
    CHECK(0, "pipe");
    return;
  }
  pid_t pids[PROCS];
  for (int i = 0; i < PROCS; i++) {
    pids[i] = fork();
    if (pids[i] == 0) {
      close(go[1]);
      char byte;
      if (read(go[0], &byte, 1) != 0) _exit(3); /* wait until the parent closes the pipe: all start together */
      gemmc_cache *cache = NULL;
      char err[256];
      if (!gemmc_cache_open(dir, 0, &cache, err, sizeof err)) _exit(4);
      gemmc_define d;
      gemmc_compile_options o = options_with_block(&d, "128");
      gemmc_kernel_image *img = NULL;
      bool ok = gemmc_cache_compile(cache, add_tir, strlen(add_tir), "add.tir", &o, 0, &img);
      ok = ok && gemmc_kernel_image_ptx(img, NULL) && strstr(gemmc_kernel_image_ptx(img, NULL), ".entry add_kernel");
      gemmc_kernel_image_destroy(img);
      gemmc_cache_close(cache);
      _exit(ok ? 0 : 1);
    }
  }
  close(go[0]);
  close(go[1]); /* every child's read returns now */
  int succeeded = 0;
  for (int i = 0; i < PROCS; i++) {
    int status = 0;
    if (pids[i] > 0 && waitpid(pids[i], &status, 0) == pids[i] && WIFEXITED(status) && WEXITSTATUS(status) == 0) succeeded++;
  }
  CHECK(succeeded == PROCS, "all %d processes succeed (%d did)", PROCS, succeeded);
  int entries = 0, temps = 0;
  count_files(dir, &entries, &temps);
  CHECK(entries == 1 && temps == 0, "one entry and no temporary files remain (%d, %d)", entries, temps);
  gemmc_cache *cache = NULL;
  char err[256];
  gemmc_cache_open(dir, 0, &cache, err, sizeof err);
  gemmc_define d;
  gemmc_compile_options o = options_with_block(&d, "128");
  gemmc_kernel_image *img = NULL;
  CHECK(gemmc_cache_compile(cache, add_tir, strlen(add_tir), "add.tir", &o, 0, &img) && gemmc_kernel_image_from_cache(img),
        "the entry they left is valid");
  gemmc_kernel_image_destroy(img);
  gemmc_cache_close(cache);
}

/* Threads compile different kernels at once (one gemmc_context each), without a disk cache;
 * each result must equal the same compile done alone. */
static void test_threads(void) {
  enum { N = 6 };
  static const char *const blocks[N] = {"64", "128", "256", "512", "1024", "2048"};
  gemmc_define defs[N];
  gemmc_tune_source src[N];
  for (int i = 0; i < N; i++) {
    memset(&src[i], 0, sizeof src[i]);
    src[i].label = blocks[i];
    src[i].text = add_tir;
    src[i].len = strlen(add_tir);
    src[i].filename = "add.tir";
    src[i].options = options_with_block(&defs[i], blocks[i]);
  }
  gemmc_tune_compiled out[N];
  double wall = 0;
  gemmc_status st = gemmc_tune_compile(NULL, NULL, 0, src, N, N, NULL, out, &wall);
  CHECK(st.code == GEMMC_OK, "gemmc_tune_compile: %s", st.message);
  for (int i = 0; i < N; i++) {
    CHECK(out[i].ok, "thread compile BLOCK=%s: %s", blocks[i], out[i].error);
    gemmc_kernel_image *alone = NULL;
    gemmc_cache_compile(NULL, add_tir, strlen(add_tir), "add.tir", &src[i].options, 0, &alone);
    size_t a = 0, b = 0;
    const char *pa = gemmc_kernel_image_ptx(alone, &a), *pb = out[i].image ? gemmc_kernel_image_ptx(out[i].image, &b) : NULL;
    CHECK(pa && pb && a == b && !memcmp(pa, pb, a), "BLOCK=%s: the same PTX from a thread and alone", blocks[i]);
    gemmc_kernel_image_destroy(alone);
    gemmc_kernel_image_destroy(out[i].image);
  }
}

/* The same input gives byte-identical PTX: twice in one context, in a second context, and for
 * the library's own GEMM template (with an epilogue) as for a small kernel. */
static void test_determinism(void) {
  static const gemmc_define gemm_defs[] = {{"HAS_C", "1"}, {"HAS_BIAS", "1"}, {"ACT_NONE", "0"}, {"ACT_GELU", "1"}};
  char *gemm = NULL, err[256];
  size_t gemm_len = 0;
  CHECK(gemmc_matmul_template("gemm.tir", gemm_defs, 4, &gemm, &gemm_len, err, sizeof err), "template: %s", err);
  struct {
    const char *text;
    size_t len;
    const gemmc_define *defs;
    int n;
  } inputs[2] = {{add_tir, strlen(add_tir), NULL, 0}, {gemm, gemm_len, gemm_defs, 4}};
  for (int k = 0; k < 2 && gemm; k++) {
    gemmc_compile_options o;
    gemmc_compile_options_init(&o);
    o.defines = inputs[k].defs;
    o.num_defines = inputs[k].n;
    o.keep_ttgir = true;
    gemmc_context *c1 = gemmc_context_create(), *c2 = gemmc_context_create();
    gemmc_compiled *a = NULL, *b = NULL, *c = NULL;
    bool ok = gemmc_compile(c1, inputs[k].text, inputs[k].len, "in.tir", &o, &a) &&
              gemmc_compile(c1, inputs[k].text, inputs[k].len, "in.tir", &o, &b) &&
              gemmc_compile(c2, inputs[k].text, inputs[k].len, "in.tir", &o, &c);
    CHECK(ok, "input %d compiles: %s", k, a ? gemmc_compiled_diagnostics(a) : "");
    size_t la = 0, lb = 0, lc = 0;
    const char *pa = gemmc_compiled_ptx(a, &la), *pb = gemmc_compiled_ptx(b, &lb), *pc = gemmc_compiled_ptx(c, &lc);
    CHECK(ok && la == lb && !memcmp(pa, pb, la), "input %d: the same PTX twice in one context", k);
    CHECK(ok && la == lc && !memcmp(pa, pc, la), "input %d: the same PTX in another context", k);
    const char *ta = gemmc_compiled_ttgir(a, &la), *tc = gemmc_compiled_ttgir(c, &lc);
    CHECK(ok && la == lc && !memcmp(ta, tc, la), "input %d: the same TTGIR in another context", k);
    gemmc_compiled_destroy(a);
    gemmc_compiled_destroy(b);
    gemmc_compiled_destroy(c);
    gemmc_context_destroy(c1);
    gemmc_context_destroy(c2);
  }
  free(gemm);
}

int main(void) {
  make_root();
  test_determinism();
  test_keys();
  test_hit_miss_damage();
  test_tensor_map_args();
  test_trim();
  test_processes();
  test_threads();
  remove_tree(root);
  printf("%d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}

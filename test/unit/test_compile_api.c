/* Unit test of the compile API's misuse rules (gemmc.h): every rule has its diagnostic, *out is never NULL, accessors take NULL. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gemmc/gemmc.h"
#include "gemmc/ir.h"
#include "gemmc/limits.h"

static const char kernel[] =
    "module {\n"
    "  tt.func public @k(%p: !tt.ptr<i32>, %a: i32) {\n"
    "    %b = arith.constant $B : i32\n"
    "    %c = arith.addi %a, %b : i32\n"
    "    tt.store %p, %c : !tt.ptr<i32>\n"
    "    tt.return\n"
    "  }\n"
    "}\n";

/* Compiles with opts and checks the outcome: ok as expected, *out set, and on failure a
 * diagnostic containing `want`. */
static void expect(gemmc_context *ctx, const char *text, size_t len, const gemmc_compile_options *opts,
                   bool want_ok, const char *want, int line) {
  gemmc_compiled *out = (gemmc_compiled *)(uintptr_t)1; /* must be overwritten */
  bool ok = gemmc_compile(ctx, text, len, "api.tir", opts, &out);
  CHECK(ok == want_ok, "line %d: gemmc_compile returned %d: %s", line, ok, gemmc_compiled_diagnostics(out));
  CHECK(out != NULL && out != (gemmc_compiled *)(uintptr_t)1, "line %d: *out not set", line);
  CHECK(gemmc_compiled_ok(out) == want_ok, "line %d: gemmc_compiled_ok", line);
  const char *diags = gemmc_compiled_diagnostics(out);
  if (!want_ok) {
    CHECK(diags && strstr(diags, "error:"), "line %d: no error diagnostic: '%s'", line, diags ? diags : "(null)");
    CHECK(diags && strstr(diags, want), "line %d: diagnostics lack '%s': '%s'", line, want, diags ? diags : "(null)");
    CHECK(gemmc_compiled_ptx(out, NULL) == NULL && gemmc_compiled_kernel(out) == NULL,
          "line %d: a failed compile keeps only diagnostics", line);
  }
  gemmc_compiled_destroy(out);
}
#define EXPECT_FAIL(ctx, text, len, opts, want) expect((ctx), (text), (len), (opts), false, (want), __LINE__)
#define EXPECT_OK(ctx, text, len, opts) expect((ctx), (text), (len), (opts), true, "", __LINE__)

static void test_null_accessors(void) {
  size_t len = 99;
  CHECK(!gemmc_compiled_ok(NULL), "ok(NULL)");
  CHECK(strcmp(gemmc_compiled_diagnostics(NULL), "") == 0, "diagnostics(NULL)");
  CHECK(gemmc_compiled_ttgir(NULL, &len) == NULL && len == 0, "ttgir(NULL)");
  len = 99;
  CHECK(gemmc_compiled_llvm_ir(NULL, &len) == NULL && len == 0, "llvm_ir(NULL)");
  len = 99;
  CHECK(gemmc_compiled_ptx(NULL, &len) == NULL && len == 0, "ptx(NULL)");
  len = 99;
  CHECK(gemmc_compiled_cubin(NULL, &len) == NULL && len == 0, "cubin(NULL)");
  len = 99;
  CHECK(gemmc_compiled_metadata_json(NULL, &len) == NULL && len == 0, "json(NULL)");
  CHECK(gemmc_compiled_ptxas_report(NULL) == NULL, "ptxas_report(NULL)");
  CHECK(gemmc_compiled_kernel(NULL) == NULL, "kernel(NULL)");
  CHECK(gemmc_compiled_phase_times(NULL) == NULL, "phase_times(NULL)");
  CHECK(gemmc_kernel_constant(NULL, "B") == NULL, "constant(NULL)");
  gemmc_compiled_destroy(NULL);
  gemmc_compile_options_init(NULL);
  gemmc_context_destroy(NULL);
}

static void test_rules(void) {
  gemmc_context *ctx = gemmc_context_create();
  CHECK(ctx != NULL, "context");
  if (!ctx) return;
  gemmc_define b = {"B", "7"};
  gemmc_compile_options o;
  size_t n = strlen(kernel);

  /* out NULL: false, nothing to look at. */
  CHECK(!gemmc_compile(ctx, kernel, n, NULL, NULL, NULL), "out NULL");
  /* ctx NULL: a static result that says so. */
  EXPECT_FAIL(NULL, kernel, n, NULL, "ctx is NULL");
  EXPECT_FAIL(ctx, NULL, 10, NULL, "text is NULL but len is 10");
  /* NULL text with len 0 is the empty module: no kernel to compile. */
  EXPECT_FAIL(ctx, NULL, 0, NULL, "no public tt.func");

  gemmc_compile_options_init(&o);
  o.stage = (gemmc_stage)7;
  EXPECT_FAIL(ctx, kernel, n, &o, "stage must be GEMMC_STAGE_TTGIR .. GEMMC_STAGE_HSACO, got 7");
  gemmc_compile_options_init(&o);
  o.stage = (gemmc_stage)-1;
  EXPECT_FAIL(ctx, kernel, n, &o, "stage must be");
  gemmc_compile_options_init(&o);
  o.opt_level = 4;
  EXPECT_FAIL(ctx, kernel, n, &o, "optimization level must be 0..3, got 4");
  gemmc_compile_options_init(&o);
  o.num_warps = 3;
  EXPECT_FAIL(ctx, kernel, n, &o, "num-warps must be a power of two from 1 to 32, got 3");
  gemmc_compile_options_init(&o);
  o.num_warps = 64;
  EXPECT_FAIL(ctx, kernel, n, &o, "got 64");
  gemmc_compile_options_init(&o);
  o.num_stages = -1;
  EXPECT_FAIL(ctx, kernel, n, &o, "num-stages must be 0 (the default, 3) or 1 .. 8, got -1");
  gemmc_compile_options_init(&o);
  o.num_stages = 1000;
  EXPECT_FAIL(ctx, kernel, n, &o, "got 1000");
  gemmc_compile_options_init(&o);
  o.tma = 2;
  EXPECT_FAIL(ctx, kernel, n, &o, "tma must be -1 (off), 0 (auto) or 1 (on), got 2");
  gemmc_compile_options_init(&o);
  o.warp_specialize = 4;
  EXPECT_FAIL(ctx, kernel, n, &o,
              "warp_specialize must be 0 (where measured faster), -1 (never), 1 (ping-pong), 2 (pairs) or 3 (wherever "
              "legal), got 4");
  gemmc_compile_options_init(&o);
  o.stage = GEMMC_STAGE_HSACO; /* sm_90a */
  EXPECT_FAIL(ctx, kernel, n, &o, "--emit=hsaco is for AMD targets");
  gemmc_compile_options_init(&o);
  o.kpack = 2; /* an AMD option for an NVIDIA target */
  EXPECT_FAIL(ctx, kernel, n, &o, "--kpack applies to AMD targets");
  gemmc_compile_options_init(&o);
  o.num_defines = -1;
  EXPECT_FAIL(ctx, kernel, n, &o, "num_defines must not be negative, got -1");
  gemmc_compile_options_init(&o);
  o.num_defines = 2;
  EXPECT_FAIL(ctx, kernel, n, &o, "num_defines is 2 but defines is NULL");
  gemmc_compile_options_init(&o);
  gemmc_define bad_name = {NULL, "1"};
  o.defines = &bad_name;
  o.num_defines = 1;
  EXPECT_FAIL(ctx, kernel, n, &o, "bad -D name ''");
  gemmc_define no_value = {"B", NULL};
  o.defines = &no_value;
  EXPECT_FAIL(ctx, kernel, n, &o, "-D B has no value");
  gemmc_define two_lines = {"B", "1\n2"};
  o.defines = &two_lines;
  EXPECT_FAIL(ctx, kernel, n, &o, "contains a line break");
  gemmc_compile_options_init(&o);
  o.target = "sm_99";
  o.defines = &b;
  o.num_defines = 1;
  EXPECT_FAIL(ctx, kernel, n, &o, "unknown target 'sm_99'");
  gemmc_compile_options_init(&o);
  EXPECT_FAIL(ctx, kernel, n, &o, "undefined constant '$B'");
  EXPECT_FAIL(ctx, kernel, GEMMC_MAX_INPUT_BYTES + 1, &o, "gemmc reads at most 8 MiB");

  /* And the rules let a correct call through, several times on one context. */
  o.defines = &b;
  o.num_defines = 1;
  o.stage = GEMMC_STAGE_TTGIR;
  EXPECT_OK(ctx, kernel, n, &o);
  o.stage = GEMMC_STAGE_PTX;
  EXPECT_OK(ctx, kernel, n, &o);
  gemmc_context_destroy(ctx);
}

/* Out of memory at the context's limit: a diagnostic, never a NULL result; and the context stays
 * usable (a larger limit afterwards compiles). */
static void test_memory_limit(void) {
  gemmc_context *ctx = gemmc_context_create();
  if (!ctx) return;
  gemmc_define b = {"B", "7"};
  gemmc_compile_options o;
  gemmc_compile_options_init(&o);
  o.defines = &b;
  o.num_defines = 1;
  o.stage = GEMMC_STAGE_TTGIR;
  size_t used = gemmc_context_memory_in_use(ctx);
  gemmc_context_set_memory_limit(ctx, used + 2000);
  EXPECT_FAIL(ctx, kernel, strlen(kernel), &o, "out of memory");
  CHECK(gemmc_context_over_memory_limit(ctx), "the limit was the cause");
  gemmc_context_set_memory_limit(ctx, 0); /* back to the default */
  EXPECT_OK(ctx, kernel, strlen(kernel), &o);
  gemmc_context_destroy(ctx);
}

/* A context whose allocator gives up after N allocations, for every N up to a full compile:
 * every failure is an error with a diagnostic or a NULL context, never a crash or a leak. */
typedef struct failing_allocator {
  long left;
} failing_allocator;

static void *failing_alloc(void *user, void *ptr, size_t old_size, size_t new_size) {
  (void)old_size;
  failing_allocator *f = user;
  if (new_size == 0) {
    free(ptr);
    return NULL;
  }
  if (f->left-- <= 0) return NULL;
  return realloc(ptr, new_size);
}

static void test_failing_allocator(void) {
  gemmc_define b = {"B", "7"};
  gemmc_compile_options o;
  gemmc_compile_options_init(&o);
  o.defines = &b;
  o.num_defines = 1;
  o.stage = GEMMC_STAGE_TTGIR;
  int succeeded_at = -1;
  for (long n = 0; n < 4000 && succeeded_at < 0; n += 1 + n / 16) {
    failing_allocator f = {n};
    gemmc_context *ctx = gemmc_context_create_with_allocator(failing_alloc, &f);
    if (!ctx) continue;
    gemmc_compiled *out = NULL;
    bool ok = gemmc_compile(ctx, kernel, strlen(kernel), "api.tir", &o, &out);
    CHECK(out != NULL, "allocator failing after %ld: *out NULL", n);
    if (ok) {
      succeeded_at = (int)n;
    } else {
      const char *d = gemmc_compiled_diagnostics(out);
      CHECK(strstr(d, "error:") != NULL, "allocator failing after %ld: no diagnostic", n);
    }
    gemmc_compiled_destroy(out);
    gemmc_context_destroy(ctx);
  }
  CHECK(succeeded_at > 0, "a compile succeeds once the allocator lets it");
}

/* The TTGIR and LLVM IR texts are kept at their own stage, and past it only when asked for
 * (printing them is a tenth of a compile or more). */
static void test_keep_texts(void) {
  gemmc_define b = {"B", "7"};
  gemmc_context *ctx = gemmc_context_create();
  const struct {
    gemmc_stage stage;
    bool keep_ttgir, keep_llvm, want_ttgir, want_llvm;
  } cases[] = {{GEMMC_STAGE_TTGIR, false, false, true, false}, {GEMMC_STAGE_LLVM, false, false, false, true},
               {GEMMC_STAGE_PTX, false, false, false, false},  {GEMMC_STAGE_PTX, false, true, false, true},
               {GEMMC_STAGE_PTX, true, false, true, false},    {GEMMC_STAGE_LLVM, true, false, true, true}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    gemmc_compile_options o;
    gemmc_compile_options_init(&o);
    o.defines = &b;
    o.num_defines = 1;
    o.stage = cases[i].stage;
    o.keep_ttgir = cases[i].keep_ttgir;
    o.keep_llvm_ir = cases[i].keep_llvm;
    gemmc_compiled *out = NULL;
    CHECK(gemmc_compile(ctx, kernel, strlen(kernel), "api.tir", &o, &out), "case %zu: %s", i,
          gemmc_compiled_diagnostics(out));
    size_t len = 0;
    const char *ttgir = gemmc_compiled_ttgir(out, &len);
    if (cases[i].want_ttgir)
      CHECK(ttgir && len > 0 && strstr(ttgir, "tt.func") != NULL, "case %zu: TTGIR text missing", i);
    else
      CHECK(ttgir == NULL && len == 0, "case %zu: TTGIR text kept unasked", i);
    const char *ir = gemmc_compiled_llvm_ir(out, &len);
    if (cases[i].want_llvm)
      CHECK(ir && len > 0 && strstr(ir, "define") != NULL, "case %zu: LLVM IR text missing", i);
    else
      CHECK(ir == NULL && len == 0, "case %zu: LLVM IR text kept unasked", i);
    CHECK((gemmc_compiled_ptx(out, NULL) != NULL) == (cases[i].stage == GEMMC_STAGE_PTX), "case %zu: PTX", i);
    gemmc_compiled_destroy(out);
  }
  gemmc_context_destroy(ctx);
}

/* Triton's enable_fp_fusion: a * b + c is one fma by default, two roundings with disable_fp_fusion. */
static void test_fp_fusion(void) {
  static const char axpy[] = "module {\n"
                             "  tt.func public @axpy(%p: !tt.ptr<f32>, %a: f32, %b: f32, %c: f32) {\n"
                             "    %m = arith.mulf %a, %b : f32\n"
                             "    %s = arith.addf %m, %c : f32\n"
                             "    tt.store %p, %s : !tt.ptr<f32>\n"
                             "    tt.return\n"
                             "  }\n"
                             "}\n";
  gemmc_context *ctx = gemmc_context_create();
  for (int disable = 0; disable < 2; disable++) {
    gemmc_compile_options o;
    gemmc_compile_options_init(&o);
    CHECK(!o.disable_fp_fusion, "fusion is on by default");
    o.disable_fp_fusion = disable;
    gemmc_compiled *out = NULL;
    CHECK(gemmc_compile(ctx, axpy, strlen(axpy), "axpy.tir", &o, &out), "disable=%d: %s", disable,
          gemmc_compiled_diagnostics(out));
    const char *ptx = gemmc_compiled_ptx(out, NULL);
    CHECK(ptx && (strstr(ptx, "fma.rn.f32") != NULL) == !disable, "disable=%d: fma.rn.f32 %s", disable,
          disable ? "present" : "missing");
    CHECK(ptx && (strstr(ptx, "mul.rn.f32") != NULL) == disable, "disable=%d: mul.rn.f32", disable);
    gemmc_compiled_destroy(out);
  }
  gemmc_context_destroy(ctx);
}

int main(void) {
  test_null_accessors();
  test_keep_texts();
  test_fp_fusion();
  test_rules();
  test_memory_limit();
  test_failing_allocator();
  printf("test_compile_api: %d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}

/* Unit test of the targets: lookup and validation, PTX and AMDGCN emission, ptxas and a GPU run when present. */
#include "gemmc/runtime.h"
#include "gemmc/target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "leaks.h"
#include "target/target.h"

static int failures;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                     \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

static void check_contains(const char *file, int line, const char *text, const char *needle) {
  if (!text || !strstr(text, needle)) {
    fprintf(stderr, "%s:%d: expected \"%s\" in:\n%s\n", file, line, needle, text ? text : "(null)");
    failures++;
  }
}
#define CHECK_CONTAINS(text, needle) check_contains(__FILE__, __LINE__, (text), (needle))

/* void store_tid(ptr addrspace(1) out) { out[tid] = tid; } with tid from the given intrinsic. */
static LLVMValueRef build_store_tid(LLVMModuleRef m, const char *tid_intrinsic) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), i64 = LLVMInt64TypeInContext(ctx);
  LLVMTypeRef global_ptr = LLVMPointerTypeInContext(ctx, 1);
  LLVMTypeRef fn_type = LLVMFunctionType(LLVMVoidTypeInContext(ctx), &global_ptr, 1, 0);
  LLVMValueRef fn = LLVMAddFunction(m, "store_tid", fn_type);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, fn, "entry");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, entry);
  unsigned id = LLVMLookupIntrinsicID(tid_intrinsic, strlen(tid_intrinsic));
  LLVMValueRef tid_fn = LLVMGetIntrinsicDeclaration(m, id, NULL, 0);
  LLVMValueRef tid = LLVMBuildCall2(b, LLVMGlobalGetValueType(tid_fn), tid_fn, NULL, 0, "tid");
  LLVMValueRef index = LLVMBuildZExt(b, tid, i64, "index");
  LLVMValueRef slot = LLVMBuildInBoundsGEP2(b, i32, LLVMGetParam(fn, 0), &index, 1, "slot");
  LLVMBuildStore(b, tid, slot);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

static void test_lookup(void) {
  char err[512] = "";
  CHECK(gemmc_target_lookup("sm_99", err, sizeof err) == NULL);
  CHECK_CONTAINS(err, "unknown target 'sm_99'");
  CHECK_CONTAINS(err, "sm_75, sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, gfx942");
  CHECK(gemmc_target_lookup(NULL, err, sizeof err) == NULL);

  const gemmc_target *h100 = gemmc_target_lookup("sm_90a", err, sizeof err);
  CHECK(h100 != NULL);
  if (!h100)
    return;
  CHECK(strcmp(h100->cpu, "sm_90a") == 0 && strcmp(h100->features, "+ptx85") == 0);
  CHECK(h100->ptx_version == 85 && h100->warp_size == 32);
  CHECK(h100->mma_kinds & GEMMC_MMA_WGMMA);
  CHECK(!(gemmc_target_lookup("sm_90", err, sizeof err)->mma_kinds & GEMMC_MMA_WGMMA));
  CHECK(gemmc_target_lookup("gfx942", err, sizeof err)->warp_size == 64);
  /* TMA's 16-byte rule where there is TMA, none elsewhere. */
  CHECK(gemmc_target_tma_alignment(h100) == 16 && gemmc_target_tma_alignment(gemmc_target_lookup("sm_90", err, sizeof err)) == 16);
  CHECK(gemmc_target_tma_alignment(gemmc_target_lookup("sm_80", err, sizeof err)) == 0 &&
        gemmc_target_tma_alignment(gemmc_target_lookup("gfx942", err, sizeof err)) == 0 && gemmc_target_tma_alignment(NULL) == 0);

  int count = 0;
  const gemmc_target *all = gemmc_target_list(&count);
  CHECK(count == 8);
  for (int i = 0; i < count; i++) {
    CHECK(gemmc_target_validate(&all[i], err, sizeof err));
    if (!gemmc_target_validate(&all[i], err, sizeof err))
      fprintf(stderr, "  %s: %s\n", all[i].name, err);
  }
}

static void test_ptx_version(void) {
  char err[512] = "";
  gemmc_target t = *gemmc_target_lookup("sm_90a", err, sizeof err);
  CHECK(!gemmc_target_set_ptx_version(&t, "8.6", err, sizeof err));
  CHECK_CONTAINS(err, "not known to LLVM 19");
  CHECK(!gemmc_target_set_ptx_version(&t, "ptx86", err, sizeof err));
  CHECK(!gemmc_target_set_ptx_version(&t, "7.8", err, sizeof err));
  CHECK_CONTAINS(err, "too old for sm_90a");
  CHECK(!gemmc_target_set_ptx_version(&t, "ptx8.3", err, sizeof err));
  CHECK(!gemmc_target_set_ptx_version(&t, "eight", err, sizeof err));
  CHECK(!gemmc_target_set_ptx_version(&t, "8.", err, sizeof err));
  CHECK(t.ptx_version == 85 && strcmp(t.features, "+ptx85") == 0); /* failures leave t alone */
  CHECK(gemmc_target_set_ptx_version(&t, "8.3", err, sizeof err));
  CHECK(t.ptx_version == 83 && strcmp(t.features, "+ptx83") == 0);
  CHECK(gemmc_target_set_ptx_version(&t, "ptx80", err, sizeof err) && t.ptx_version == 80);
  CHECK(gemmc_target_set_ptx_version(&t, "84", err, sizeof err) && t.ptx_version == 84);
  gemmc_target amd = *gemmc_target_lookup("gfx942", err, sizeof err);
  CHECK(!gemmc_target_set_ptx_version(&amd, "8.5", err, sizeof err));

  /* Hand-made records with what LLVM would silently ignore are refused. */
  gemmc_target bad = *gemmc_target_lookup("sm_90a", err, sizeof err);
  snprintf(bad.features, sizeof bad.features, "+ptx86");
  CHECK(!gemmc_target_validate(&bad, err, sizeof err));
  CHECK_CONTAINS(err, "+ptx86");
  snprintf(bad.features, sizeof bad.features, "+ptx85,+fast-wgmma");
  CHECK(!gemmc_target_validate(&bad, err, sizeof err));
  CHECK_CONTAINS(err, "+fast-wgmma");
  bad = *gemmc_target_lookup("sm_90a", err, sizeof err);
  bad.cpu = "sm_100a";
  CHECK(!gemmc_target_validate(&bad, err, sizeof err));
  CHECK_CONTAINS(err, "sm_100a");
}

/* Emits PTX for `name` (PTX version override optional) and checks its directives. */
static char *emit_for(LLVMModuleRef m, const char *name, const char *ptx_version,
                      const char *expect_version) {
  char err[1024] = "";
  gemmc_target t = *gemmc_target_lookup(name, err, sizeof err);
  if (ptx_version)
    CHECK(gemmc_target_set_ptx_version(&t, ptx_version, err, sizeof err));
  char *ptx = NULL;
  size_t len = 0;
  bool ok = gemmc_target_emit_ptx(&t, m, 3, &ptx, &len, err, sizeof err);
  CHECK(ok);
  if (!ok) {
    fprintf(stderr, "  emit %s: %s\n", name, err);
    return NULL;
  }
  CHECK(len == strlen(ptx));
  char target_line[64];
  snprintf(target_line, sizeof target_line, ".target %s\n", name);
  CHECK_CONTAINS(ptx, target_line);
  CHECK_CONTAINS(ptx, expect_version);
  CHECK_CONTAINS(ptx, ".entry store_tid");
  CHECK_CONTAINS(ptx, ".maxntid 128, 1, 1");
  CHECK_CONTAINS(ptx, "%tid.x");
  CHECK_CONTAINS(ptx, "st.global.u32");
  return ptx;
}

static void assemble(const char *ptx, const char *name) {
  char err[4096] = "", report[4096] = "";
  const gemmc_target *t = gemmc_target_lookup(name, err, sizeof err);
  bool ok = gemmc_target_run_ptxas(ptx, t, NULL, report, sizeof report, err, sizeof err);
  CHECK(ok);
  if (!ok)
    fprintf(stderr, "  ptxas %s: %s\n", name, err);
  CHECK_CONTAINS(report, "Compiling entry function 'store_tid' for 'sm_");
  CHECK_CONTAINS(report, "registers");
}

/* Loads the emitted PTX through the runtime and checks that out[i] == i. */
static void run_on_gpu(gemmc_runtime *rt, const char *ptx) {
  enum { N = 128 };
  gemmc_runtime_module *module = NULL;
  gemmc_runtime_kernel *kernel = NULL;
  gemmc_devptr out = 0;
  gemmc_status s = gemmc_runtime_module_load(rt, ptx, strlen(ptx), &module);
  if (s.code == GEMMC_OK)
    s = gemmc_runtime_module_get_kernel(rt, module, "store_tid", &kernel);
  if (s.code == GEMMC_OK)
    s = gemmc_runtime_mem_alloc(rt, N * sizeof(unsigned), &out);
  if (s.code == GEMMC_OK)
    s = gemmc_runtime_memset_d32(rt, out, 0xdeadbeefu, N); /* poison: never test on zeros */
  void *args[] = {&out};
  gemmc_launch_config config = {{1, 1, 1}, {N, 1, 1}, 0, NULL, 0};
  if (s.code == GEMMC_OK)
    s = gemmc_runtime_launch(rt, kernel, &config, args);
  if (s.code == GEMMC_OK)
    s = gemmc_runtime_synchronize(rt);
  unsigned host[N];
  if (s.code == GEMMC_OK)
    s = gemmc_runtime_copy_dtoh(rt, host, out, sizeof host);
  CHECK(s.code == GEMMC_OK);
  if (s.code != GEMMC_OK)
    fprintf(stderr, "  GPU run: %s\n", s.message);
  else
    for (unsigned i = 0; i < N; i++)
      CHECK(host[i] == i);
  gemmc_runtime_mem_free(rt, out);
  if (module)
    gemmc_runtime_module_unload(rt, module);
}

static void test_emit_ptx(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("gemmc_test", ctx);
  LLVMValueRef fn = build_store_tid(m, "llvm.nvvm.read.ptx.sreg.tid.x");
  gemmc_target_mark_kernel(m, fn, 128);

  char *ptx80 = emit_for(m, "sm_80", NULL, ".version 8.5\n");
  char *ptx90a = emit_for(m, "sm_90a", NULL, ".version 8.5\n");
  char *ptx90a_83 = emit_for(m, "sm_90a", "8.3", ".version 8.3\n");
  /* Emission works on a clone: the caller's module keeps no triple and can be emitted again. */
  CHECK(strcmp(LLVMGetTarget(m), "") == 0);

  char err[1024] = "";
  char *text = NULL;
  CHECK(!gemmc_target_emit_ptx(gemmc_target_lookup("gfx942", err, sizeof err), m, 3, &text, NULL,
                               err, sizeof err));
  CHECK_CONTAINS(err, "not an NVIDIA target");
  CHECK(!gemmc_target_emit_ptx(gemmc_target_lookup("sm_80", err, sizeof err), m, 4, &text, NULL,
                               err, sizeof err));
  CHECK_CONTAINS(err, "optimization level 4");

  if (gemmc_target_find_ptxas(NULL, 0)) {
    if (ptx80)
      assemble(ptx80, "sm_80");
    if (ptx90a)
      assemble(ptx90a, "sm_90a");
    char report[2048] = "";
    CHECK(!gemmc_target_run_ptxas(".version 8.5\n.target sm_90a\n.address_size 64\nbogus;\n",
                                  gemmc_target_lookup("sm_90a", err, sizeof err), NULL, report,
                                  sizeof report, err, sizeof err));
    CHECK_CONTAINS(err, "ptxas -arch=sm_90a failed");
    printf("test_nvptx: ptxas checked\n");
  } else {
    CHECK(!gemmc_target_run_ptxas(ptx90a ? ptx90a : "", gemmc_target_lookup("sm_90a", NULL, 0),
                                  NULL, NULL, 0, err, sizeof err));
    CHECK_CONTAINS(err, "ptxas not found on PATH");
    printf("test_nvptx: skip ptxas (not on PATH)\n");
  }

  gemmc_runtime *rt = NULL;
  gemmc_status s = gemmc_runtime_create(GEMMC_BACKEND_CUDA, 0, &rt);
  if (s.code == GEMMC_OK) {
    const gemmc_device_info *info = gemmc_runtime_device_info(rt);
    printf("test_nvptx: running on %s (%s)\n", info->name, info->target_name);
    const char *ptx = strcmp(info->target_name, "sm_90a") == 0 ? ptx90a : ptx80;
    if (ptx)
      run_on_gpu(rt, ptx);
    gemmc_runtime_destroy(rt);
  } else {
    printf("test_nvptx: skip GPU run (%s)\n", s.message);
  }

  free(ptx80);
  free(ptx90a);
  free(ptx90a_83);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

static void test_emit_amdgpu(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("gemmc_test_amd", ctx);
  LLVMValueRef fn = build_store_tid(m, "llvm.amdgcn.workitem.id.x");
  const gemmc_target *t = gemmc_target_lookup("gfx942", NULL, 0);
  gemmc_target_mark_kernel_for(t, m, fn, 256);
  char err[1024] = "", *text = NULL;
  bool ok = gemmc_target_emit_amdgpu_asm(t, m, 3, &text, NULL, err, sizeof err);
  CHECK(ok);
  if (!ok)
    fprintf(stderr, "  emit gfx942: %s\n", err);
  CHECK_CONTAINS(text, "gfx942");
  CHECK_CONTAINS(text, ".amdhsa_kernel store_tid");
  CHECK_CONTAINS(text, "global_store_dword");
  free(text);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

/* LLVM's report_fatal_error (here: a symbol name PTX cannot spell, which gemmc itself never
 * emits any more) becomes a failed call with the reason, and the process lives on; a second
 * compile afterwards works. The longjmp past LLVM's frames leaks what they held (documented),
 * so LeakSanitizer is told not to count this call. */
static void test_llvm_fatal_error(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("gemmc_fatal", ctx);
  LLVMValueRef fn = build_store_tid(m, "llvm.nvvm.read.ptx.sreg.tid.x");
  LLVMSetValueName2(fn, "a b", 3);
  gemmc_target_mark_kernel(m, fn, 128);
  char err[1024] = "", *text = NULL;
  const gemmc_target *t = gemmc_target_lookup("sm_90a", NULL, 0);
  LEAKS_ALLOWED_BEGIN();
  bool ok = gemmc_target_emit_ptx(t, m, 3, &text, NULL, err, sizeof err);
  LEAKS_ALLOWED_END();
  CHECK(!ok);
  CHECK(text == NULL);
  CHECK_CONTAINS(err, "LLVM fatal error: Symbol name with unsupported characters");
  LLVMSetValueName2(fn, "a_b", 3);
  ok = gemmc_target_emit_ptx(t, m, 3, &text, NULL, err, sizeof err);
  CHECK(ok);
  CHECK_CONTAINS(text, ".entry a_b(");
  free(text);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

/* The kernel-name escaping: valid names unchanged, every other byte $xx, one-to-one. */
static void test_symbol_names(void) {
  static const char *const cases[][2] = {
      {"add_kernel", "add_kernel"}, {"_a1", "_a1"}, {"a.b", "a$2eb"}, {"_", "$5f"},
      {"1abc", "$31abc"}, {"a b", "a$20b"}, {"a$2eb", "a$242eb"}, {"\xff", "$ff"},
      {"llvm.x", "llvm$2ex"}, {"%r", "$25r"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char out[64];
    size_t n = gemmc_ptx_symbol_name(cases[i][0], out, sizeof out);
    CHECK(n == strlen(cases[i][1]));
    if (strcmp(out, cases[i][1]) != 0) {
      fprintf(stderr, "symbol name of '%s': got '%s', want '%s'\n", cases[i][0], out, cases[i][1]);
      failures++;
    }
  }
  char small[4];
  CHECK(gemmc_ptx_symbol_name("abcdef", small, sizeof small) == 6 && strcmp(small, "abc") == 0);
  CHECK(gemmc_ptx_symbol_name("a.b", NULL, 0) == 5);
}

/* The PTX peephole: power-of-two mul.wide.s32 in wgmma kernels with asynchronous copies becomes
 * cvt + shl.b64; anything else (other constants, register operands, unsigned, kernels without wgmma
 * or without cp.async / TMA copies) is left as it is. */
static void test_split_wide_shifts(void) {
  static const char in[] =
      "\tcp.async.cg.shared.global [%r1], [%rd1], 16;\n"
      "\twgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {...};\n"
      "\tmul.wide.s32 \t%rd11, %r192, 2;\n"
      "\tmul.wide.s32 \t%rd12, %r7, 16; // offset\n"
      "\tmul.wide.s32 \t%rd13, %r8, 6;\n"
      "\tmul.wide.s32 \t%rd14, %r8, %r9;\n"
      "\tmul.wide.u32 \t%rd15, %r8, 4;\n"
      "\tmul.wide.s32 \t%rd16, %r10, 1073741824;\n";
  static const char want[] =
      "\tcp.async.cg.shared.global [%r1], [%rd1], 16;\n"
      "\twgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {...};\n"
      "\tcvt.s64.s32 \t%rd11, %r192;\n\tshl.b64 \t%rd11, %rd11, 1;\n"
      "\tcvt.s64.s32 \t%rd12, %r7;\n\tshl.b64 \t%rd12, %rd12, 4; // offset\n"
      "\tmul.wide.s32 \t%rd13, %r8, 6;\n"
      "\tmul.wide.s32 \t%rd14, %r8, %r9;\n"
      "\tmul.wide.u32 \t%rd15, %r8, 4;\n"
      "\tcvt.s64.s32 \t%rd16, %r10;\n\tshl.b64 \t%rd16, %rd16, 30;\n";
  char *ptx = strdup(in);
  size_t len = strlen(in);
  CHECK(ptx && target_ptx_split_wide_shifts(&ptx, &len));
  CHECK(ptx && strcmp(ptx, want) == 0 && len == strlen(want));
  if (ptx && strcmp(ptx, want) != 0) fprintf(stderr, "got:\n%s\nwant:\n%s\n", ptx, want);
  free(ptx);
  /* No wgmma, or wgmma with no asynchronous copy: unchanged. */
  static const char *const unchanged[] = {
      "\tmul.wide.s32 \t%rd11, %r192, 2;\n",
      "\twgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {...};\n\tmul.wide.s32 \t%rd11, %r192, 2;\n",
  };
  for (size_t i = 0; i < sizeof unchanged / sizeof unchanged[0]; i++) {
    ptx = strdup(unchanged[i]);
    len = strlen(unchanged[i]);
    CHECK(ptx && target_ptx_split_wide_shifts(&ptx, &len) && strcmp(ptx, unchanged[i]) == 0 &&
          len == strlen(unchanged[i]));
    free(ptx);
  }
}

int main(void) {
  test_split_wide_shifts();
  test_symbol_names();
  test_llvm_fatal_error();
  test_lookup();
  test_ptx_version();
  test_emit_ptx();
  test_emit_amdgpu();
  if (failures) {
    fprintf(stderr, "test_nvptx: %d check(s) failed\n", failures);
    return 1;
  }
  printf("test_nvptx: ok\n");
  return 0;
}

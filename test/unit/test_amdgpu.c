/* Unit test of AMDGPU code objects: kernel attributes, object emission, linking with ld.lld, the metadata note reader (on our objects and Triton's), kernarg packing, the AMD options. */
#include "gemmc/amdgpu.h"
#include "gemmc/ir.h"
#include "gemmc/layout.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>

#include "leaks.h"

#include "amdgpu_test_kernel.h"
#include "check.h"

/* --write-hsaco PATH: the linked code object of the hand-written kernel also goes to PATH (the
 * lit test test/driver/amdgpu-code-object.tir reads it with llvm-readelf and llvm-objdump). */
static const char *write_hsaco_path;

/* One MFMA and an inline-asm s_nop, in a kernel that stores the 4 accumulator values:
 * the object path must assemble inline asm (AMDGPU asm parser) and keep the v_mfma. */
static LLVMModuleRef build_mfma_kernel(LLVMContextRef ctx) {
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("amdgpu_mfma", ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), i64 = LLVMInt64TypeInContext(ctx);
  LLVMTypeRef f32 = LLVMFloatTypeInContext(ctx), f16 = LLVMHalfTypeInContext(ctx);
  LLVMTypeRef v4f16 = LLVMVectorType(f16, 4), v4f32 = LLVMVectorType(f32, 4);
  LLVMTypeRef params[] = {LLVMPointerTypeInContext(ctx, 1), LLVMPointerTypeInContext(ctx, 1)};
  LLVMValueRef fn = LLVMAddFunction(m, "one_mfma", LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, 2, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
  LLVMValueRef tid = call_intrinsic(m, b, "llvm.amdgcn.workitem.id.x", NULL, 0, NULL, 0, "tid");
  LLVMValueRef wide = LLVMBuildZExt(b, tid, i64, "wide");
  LLVMValueRef a = LLVMBuildLoad2(b, v4f16, LLVMBuildInBoundsGEP2(b, v4f16, LLVMGetParam(fn, 0), &wide, 1, "a_at"), "a");
  LLVMValueRef mfma_args[] = {a, a, LLVMConstNull(v4f32), LLVMConstInt(i32, 0, 0), LLVMConstInt(i32, 0, 0),
                              LLVMConstInt(i32, 0, 0)};
  LLVMValueRef acc = call_intrinsic(m, b, "llvm.amdgcn.mfma.f32.16x16x16f16", NULL, 0, mfma_args, 6, "acc");
  LLVMTypeRef asm_type = LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 0);
  LLVMValueRef nop = LLVMGetInlineAsm(asm_type, "s_nop 0", 7, "", 0, 1, 0, LLVMInlineAsmDialectATT, 0);
  LLVMBuildCall2(b, asm_type, nop, NULL, 0, "");
  LLVMBuildStore(b, acc, LLVMBuildInBoundsGEP2(b, v4f32, LLVMGetParam(fn, 1), &wide, 1, "c_at"));
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  gemmc_amdgpu_kernel_attrs attrs = {64, 0, false, true};
  gemmc_target_amdgpu_mark_kernel(m, fn, &attrs);
  return m;
}

static bool contains(const char *text, const char *needle) { return text && strstr(text, needle); }

static int count_occurrences(const char *text, const char *needle) {
  int n = 0;
  for (const char *p = text ? strstr(text, needle) : NULL; p; p = strstr(p + 1, needle)) n++;
  return n;
}

static void test_kernel_attributes(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = build_lds_kernel(ctx);
  char *ir = LLVMPrintModuleToString(m);
  CHECK(contains(ir, "define amdgpu_kernel void @copy_through_lds"), "%s", ir ? ir : "(null)");
  CHECK(contains(ir, "\"amdgpu-flat-work-group-size\"=\"1,256\""), "flat work-group size");
  CHECK(contains(ir, "\"amdgpu-waves-per-eu\"=\"2, 2\""), "waves per EU in Triton 3.6's spelling");
  CHECK(contains(ir, "\"denormal-fp-math-f32\"=\"ieee\""), "denormal mode");
  CHECK(contains(ir, "\"uniform-work-group-size\"=\"true\""), "uniform work-group size");
  CHECK(contains(ir, "!{i32 1, !\"amdhsa_code_object_version\", i32 500}"), "code object version 5 flag");
  CHECK(!contains(ir, "inreg"), "no kernarg preload unless asked");
  LLVMDisposeMessage(ir);
  /* Marking again (the driver adds waves_per_eu after the lowering marked the kernel) does not
   * duplicate the module flag. */
  gemmc_amdgpu_kernel_attrs again = {256, 3, true, false};
  gemmc_target_amdgpu_mark_kernel(m, LLVMGetNamedFunction(m, "copy_through_lds"), &again);
  ir = LLVMPrintModuleToString(m);
  CHECK(count_occurrences(ir, "amdhsa_code_object_version") == 1, "one module flag");
  CHECK(contains(ir, "\"amdgpu-waves-per-eu\"=\"3, 3\"") && !contains(ir, "\"2, 2\""), "replaced: %s", ir ? ir : "(null)");
  CHECK(contains(ir, "\"denormal-fp-math-f32\"=\"preserve-sign\""), "flush denormals");
  LLVMDisposeMessage(ir);
  LLVMDisposeModule(m);

  m = build_mfma_kernel(ctx);
  ir = LLVMPrintModuleToString(m);
  CHECK(contains(ir, "ptr addrspace(1) inreg %0, ptr addrspace(1) inreg %1"), "kernarg preload: %s", ir ? ir : "(null)");
  LLVMDisposeMessage(ir);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

static void test_options(void) {
  char err[512] = "";
  const gemmc_target *gfx942 = gemmc_target_lookup("gfx942", NULL, 0), *gfx90a = gemmc_target_lookup("gfx90a", NULL, 0);
  const gemmc_target *h100 = gemmc_target_lookup("sm_90a", NULL, 0);
  CHECK(gfx90a && gfx90a->warp_size == 64 && (gfx90a->mma_kinds & GEMMC_MMA_MFMA) &&
            !(gfx90a->mma_kinds & GEMMC_MMA_MFMA_FP8),
        "gfx90a target record");
  CHECK(gemmc_target_amdgpu_max_waves_per_eu(gfx942) == 8 && gemmc_target_amdgpu_max_waves_per_eu(h100) == 0, "max");
  CHECK(gemmc_target_amdgpu_check_options(gfx942, 0, 0, 0, err, sizeof err), "defaults: %s", err);
  CHECK(gemmc_target_amdgpu_check_options(gfx942, 8, 32, 2, err, sizeof err), "maxima: %s", err);
  CHECK(gemmc_target_amdgpu_check_options(gfx90a, 3, 16, 1, err, sizeof err), "seed config: %s", err);
  CHECK(gemmc_target_amdgpu_check_options(h100, 0, 0, 0, err, sizeof err), "NVIDIA without AMD options");
  CHECK(!gemmc_target_amdgpu_check_options(gfx942, 9, 0, 0, err, sizeof err) && contains(err, "1 to 8"), "%s", err);
  CHECK(!gemmc_target_amdgpu_check_options(gfx942, 0, 8, 0, err, sizeof err) && contains(err, "16 or 32"), "%s", err);
  CHECK(!gemmc_target_amdgpu_check_options(gfx942, 0, 0, 4, err, sizeof err) && contains(err, "1 or 2"), "%s", err);
  CHECK(!gemmc_target_amdgpu_check_options(h100, 2, 0, 0, err, sizeof err) &&
            contains(err, "--waves-per-eu applies to AMD targets (gfx90a, gfx942), not sm_90a"),
        "%s", err);
  CHECK(!gemmc_target_amdgpu_check_options(h100, 0, 0, 2, err, sizeof err) && contains(err, "--kpack"), "%s", err);
}

static void check_lds_kernel_info(const gemmc_amdgpu_kernel_info *k, const char *what) {
  CHECK(k != NULL, "%s: kernel copy_through_lds in the note", what);
  if (!k) return;
  CHECK(!strcmp(k->symbol, "copy_through_lds.kd"), "%s: symbol %s", what, k->symbol);
  CHECK(!strcmp(k->target, "amdgcn-amd-amdhsa--gfx942"), "%s: target %s", what, k->target);
  CHECK(k->code_object_version == 5, "%s: code object version %d", what, k->code_object_version);
  CHECK(k->group_segment_fixed_size == 1024, "%s: LDS %lld", what, (long long)k->group_segment_fixed_size);
  CHECK(k->private_segment_fixed_size == 0, "%s: scratch %lld", what, (long long)k->private_segment_fixed_size);
  CHECK(k->wavefront_size == 64 && k->max_flat_workgroup_size == 256, "%s: wave %d, max flat %d", what,
        k->wavefront_size, k->max_flat_workgroup_size);
  CHECK(k->vgpr_count > 0 && k->vgpr_count <= 256 && k->sgpr_count > 0, "%s: vgpr %d sgpr %d", what, k->vgpr_count,
        k->sgpr_count);
  CHECK(k->num_explicit_kernargs == 2, "%s: %d explicit arguments", what, k->num_explicit_kernargs);
  if (k->num_kernargs < 2) return;
  CHECK(k->kernargs[0].offset == 0 && k->kernargs[0].size == 8 && !strcmp(k->kernargs[0].value_kind, "global_buffer") &&
            k->kernargs[0].address_space && !strcmp(k->kernargs[0].address_space, "global") && !k->kernargs[0].hidden,
        "%s: out", what);
  CHECK(k->kernargs[1].offset == 8 && k->kernargs[1].size == 4 && !strcmp(k->kernargs[1].value_kind, "by_value") &&
            !k->kernargs[1].address_space,
        "%s: n", what);
  CHECK(k->kernarg_segment_size >= 12 && k->kernarg_segment_align == 8, "%s: kernarg %d align %d", what,
        k->kernarg_segment_size, k->kernarg_segment_align);
  CHECK(gemmc_amdgpu_explicit_kernarg_bytes(k) == 12, "%s: explicit bytes", what);
}

static void test_objects(void) {
  char err[4096] = "";
  const gemmc_target *t = gemmc_target_lookup("gfx942", NULL, 0);
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = build_lds_kernel(ctx);

  char *asm_text = NULL;
  bool ok = gemmc_target_emit_amdgpu_asm(t, m, 3, &asm_text, NULL, err, sizeof err);
  CHECK(ok, "assembly: %s", err);
  CHECK(contains(asm_text, ".amdhsa_code_object_version 5"), "COV5 in the assembly");
  CHECK(contains(asm_text, ".amdhsa_kernel copy_through_lds"), "kernel descriptor");
  CHECK(contains(asm_text, "s_barrier") && contains(asm_text, "ds_write") && contains(asm_text, "global_store_dword"),
        "barrier, LDS and global store in:\n%s", asm_text);
  CHECK(contains(asm_text, ".amdhsa_group_segment_fixed_size 1024"), "LDS in the descriptor");
  free(asm_text);

  void *obj = NULL;
  size_t obj_len = 0;
  ok = gemmc_target_emit_amdgpu_object(t, m, 3, &obj, &obj_len, err, sizeof err);
  CHECK(ok && obj_len > 64, "object: %s", err);
  /* The relocatable object already carries the note. */
  gemmc_amdgpu_code_object *co = NULL;
  CHECK(gemmc_amdgpu_read_code_object(obj, obj_len, &co, err, sizeof err), "object note: %s", err);
  check_lds_kernel_info(gemmc_amdgpu_code_object_kernel(co, "copy_through_lds"), "object");
  gemmc_amdgpu_code_object_free(co);
  /* The caller's module is untouched (a clone went to the code generator): emit it again. */
  void *obj2 = NULL;
  size_t obj2_len = 0;
  CHECK(gemmc_target_emit_amdgpu_object(t, m, 3, &obj2, &obj2_len, err, sizeof err) && obj2_len == obj_len,
        "second emission: %s", err);
  free(obj2);

  if (!gemmc_target_find_lld(NULL, 0)) {
    printf("test_amdgpu: skip linking (no ld.lld-19)\n");
  } else {
    void *hsaco = NULL;
    size_t hsaco_len = 0;
    ok = gemmc_target_link_hsaco(obj, obj_len, &hsaco, &hsaco_len, err, sizeof err);
    CHECK(ok, "link: %s", err);
    if (ok) {
      const unsigned char *e = hsaco;
      CHECK(e[0x10] == 3 && e[8] == 3, "a shared object (ET_DYN) of code object version 5");
      CHECK(gemmc_amdgpu_read_code_object(hsaco, hsaco_len, &co, err, sizeof err), "hsaco note: %s", err);
      if (co) {
        CHECK(co->num_kernels == 1 && co->metadata_version[0] == 1 && co->metadata_version[1] == 2,
              "%d kernels, metadata version %d.%d", co->num_kernels, co->metadata_version[0], co->metadata_version[1]);
        const gemmc_amdgpu_kernel_info *k = gemmc_amdgpu_code_object_kernel(co, "copy_through_lds");
        check_lds_kernel_info(k, "hsaco");
        CHECK(gemmc_amdgpu_code_object_kernel(co, "nope") == NULL, "unknown kernel");
        gemmc_amdgpu_code_object_free(co);
      }
      if (write_hsaco_path) {
        FILE *f = fopen(write_hsaco_path, "wb");
        CHECK(f && fwrite(hsaco, 1, hsaco_len, f) == hsaco_len && fclose(f) == 0, "writing %s", write_hsaco_path);
      }
      /* A cubin-like or truncated input is refused with a message. */
      CHECK(!gemmc_target_link_hsaco(hsaco, hsaco_len, &obj2, &obj2_len, err, sizeof err) &&
                contains(err, "ELF type 3, expected 1"),
            "linking a linked object: %s", err);
    }
    free(hsaco);
  }
  /* Without a linker: one line that says what to install ($GEMMC_LLD names one that is not there). */
  const char *saved_lld = getenv("GEMMC_LLD");
  setenv("GEMMC_LLD", "/nonexistent/ld.lld", 1);
  void *none = NULL;
  size_t none_len = 0;
  CHECK(!gemmc_target_find_lld(NULL, 0) && !gemmc_target_link_hsaco(obj, obj_len, &none, &none_len, err, sizeof err) &&
            !strncmp(err, "ld.lld from LLVM 19 not found (looked for $GEMMC_LLD", 52) && strstr(err, "apt-get install lld-19") &&
            !strchr(err, '\n') && none == NULL,
        "no linker: %s", err);
  if (saved_lld) setenv("GEMMC_LLD", saved_lld, 1);
  else unsetenv("GEMMC_LLD");
  free(obj);
  LLVMDisposeModule(m);

  /* Inline asm and an MFMA through the object path; the asm shows v_mfma. */
  m = build_mfma_kernel(ctx);
  ok = gemmc_target_emit_amdgpu_object(t, m, 3, &obj, &obj_len, err, sizeof err);
  CHECK(ok, "MFMA + inline asm object: %s", err);
  free(obj);
  CHECK(gemmc_target_emit_amdgpu_asm(t, m, 3, &asm_text, NULL, err, sizeof err), "MFMA asm: %s", err);
  CHECK(contains(asm_text, "v_mfma_f32_16x16x16_f16") && contains(asm_text, "s_nop 0"), "MFMA in:\n%s", asm_text);
  CHECK(contains(asm_text, ".amdhsa_user_sgpr_kernarg_preload_length"), "kernarg preload in the descriptor");
  free(asm_text);
  /* gfx90a has the same MFMA. */
  CHECK(gemmc_target_emit_amdgpu_asm(gemmc_target_lookup("gfx90a", NULL, 0), m, 3, &asm_text, NULL, err, sizeof err) &&
            contains(asm_text, "v_mfma_f32_16x16x16f16") && contains(asm_text, ".amdgcn_target \"amdgcn-amd-amdhsa--gfx90a"),
        "gfx90a: %s", err);
  free(asm_text);
  /* A module that asks for another code object version is refused. */
  LLVMModuleRef other = LLVMModuleCreateWithNameInContext("cov4", ctx);
  LLVMAddModuleFlag(other, LLVMModuleFlagBehaviorError, "amdhsa_code_object_version", 26,
                    LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), 400, 0)));
  CHECK(!gemmc_target_emit_amdgpu_object(t, other, 3, &obj, &obj_len, err, sizeof err) &&
            contains(err, "another code object version than 5"),
        "COV4 refused: %s", err);
  CHECK(!gemmc_target_emit_amdgpu_object(gemmc_target_lookup("sm_90a", NULL, 0), m, 3, &obj, &obj_len, err, sizeof err) &&
            contains(err, "not an AMD target"),
        "NVIDIA target refused: %s", err);
  LLVMDisposeModule(other);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

/* ------------------------------------------------------------------ Triton's code object */

/* Expected values: `llvm-readelf --notes` of the same file (and issue 11: 208 VGPRs, no scratch). */
static void check_triton_note(const gemmc_amdgpu_code_object *co) {
  CHECK(co->num_kernels == 1 && !strcmp(co->target, "amdgcn-amd-amdhsa--gfx942") && co->code_object_version == 5,
        "triton: %d kernels, %s, v%d", co->num_kernels, co->target, co->code_object_version);
  const gemmc_amdgpu_kernel_info *k = gemmc_amdgpu_code_object_kernel(co, "matmul_kernel");
  CHECK(k != NULL, "triton: matmul_kernel");
  if (!k) return;
  CHECK(!strcmp(k->symbol, "matmul_kernel.kd"), "symbol");
  CHECK(k->kernarg_segment_size == 64 && k->kernarg_segment_align == 8, "kernarg %d", k->kernarg_segment_size);
  CHECK(k->group_segment_fixed_size == 0 && k->private_segment_fixed_size == 0, "LDS %lld scratch %lld",
        (long long)k->group_segment_fixed_size, (long long)k->private_segment_fixed_size);
  CHECK(k->vgpr_count == 208 && k->agpr_count == 0 && k->sgpr_count == 31, "vgpr %d agpr %d sgpr %d", k->vgpr_count,
        k->agpr_count, k->sgpr_count);
  CHECK(k->vgpr_spill_count == 0 && k->sgpr_spill_count == 0 && !k->uses_dynamic_stack, "no spills");
  CHECK(k->wavefront_size == 64 && k->max_flat_workgroup_size == 256, "wave %d flat %d", k->wavefront_size,
        k->max_flat_workgroup_size);
  /* a, b, c, M, N, K, stride_am, stride_bk, stride_cm, then Triton's two scratch pointers. */
  static const int offsets[] = {0, 8, 16, 24, 28, 32, 36, 40, 44, 48, 56};
  static const int sizes[] = {8, 8, 8, 4, 4, 4, 4, 4, 4, 8, 8};
  CHECK(k->num_kernargs == 11 && k->num_explicit_kernargs == 11, "%d arguments", k->num_kernargs);
  for (int i = 0; i < k->num_kernargs && i < 11; i++) {
    const gemmc_kernarg *a = &k->kernargs[i];
    bool pointer = sizes[i] == 8;
    CHECK(a->offset == offsets[i] && a->size == sizes[i] &&
              !strcmp(a->value_kind, pointer ? "global_buffer" : "by_value") &&
              (pointer ? a->address_space && !strcmp(a->address_space, "global") : !a->address_space),
          "argument %d: offset %d size %d %s", i, a->offset, a->size, a->value_kind);
  }
}

/* Packs Triton's launch arguments and checks every byte against the note's layout. */
static void check_triton_packing(const gemmc_amdgpu_kernel_info *k) {
  uint64_t ptrs[5] = {0x7f0000001000ull, 0x7f0000002000ull, 0x7f0000003000ull, 0, 0};
  int32_t ints[6] = {4096, 4096, 4096, 4096, 4096, 4096};
  void *args[11] = {&ptrs[0], &ptrs[1], &ptrs[2], &ints[0], &ints[1], &ints[2], &ints[3], &ints[4], &ints[5], &ptrs[3],
                    &ptrs[4]};
  ints[1] = 2048;
  ints[5] = -7;
  unsigned char buf[128];
  memset(buf, 0xab, sizeof buf);
  char err[256] = "";
  size_t used = 0;
  CHECK(gemmc_amdgpu_pack_kernargs(k, args, 11, buf, sizeof buf, &used, err, sizeof err), "pack: %s", err);
  CHECK(used == 64, "used %zu", used);
  uint64_t p;
  memcpy(&p, buf + 8, 8);
  CHECK(p == 0x7f0000002000ull, "b_ptr at 8");
  int32_t v;
  memcpy(&v, buf + 28, 4);
  CHECK(v == 2048, "N at 28: %d", v);
  memcpy(&v, buf + 44, 4);
  CHECK(v == -7, "stride_cm at 44: %d", v);
  memcpy(&p, buf + 48, 8);
  CHECK(p == 0, "scratch pointer at 48");
  CHECK(buf[64] == 0xab, "nothing written past the explicit arguments");
  CHECK(!gemmc_amdgpu_pack_kernargs(k, args, 10, buf, sizeof buf, &used, err, sizeof err) &&
            contains(err, "takes 11 arguments, the launch gives 10"),
        "%s", err);
  CHECK(!gemmc_amdgpu_pack_kernargs(k, args, 11, buf, 63, &used, err, sizeof err) && contains(err, "needs 64 bytes"),
        "%s", err);
  args[4] = NULL;
  CHECK(!gemmc_amdgpu_pack_kernargs(k, args, 11, buf, sizeof buf, &used, err, sizeof err) &&
            contains(err, "argument 4 (by_value) has no value"),
        "%s", err);
}

/* A layout with gaps and hidden arguments, as LLVM makes for kernels that read the implicit
 * arguments: the hidden ones are skipped, the gaps are zero. */
static void test_packing_with_hidden(void) {
  gemmc_kernarg layout[] = {
      {0, 8, "global_buffer", "global", false}, {8, 2, "by_value", NULL, false},
      {12, 4, "by_value", NULL, false},         {16, 4, "hidden_block_count_x", NULL, true},
      {24, 8, "by_value", NULL, false},
  };
  gemmc_amdgpu_kernel_info k;
  memset(&k, 0, sizeof k);
  k.name = "gaps";
  k.kernargs = layout;
  k.num_kernargs = 5;
  k.num_explicit_kernargs = 4;
  k.kernarg_segment_size = 32;
  uint64_t p = 0x1122334455667788ull, d = 0x0102030405060708ull;
  uint16_t h = 0xbeef;
  int32_t i = 42;
  void *args[] = {&p, &h, &i, &d};
  unsigned char buf[64];
  memset(buf, 0xcc, sizeof buf);
  size_t used = 0;
  char err[256];
  CHECK(gemmc_amdgpu_pack_kernargs(&k, args, 4, buf, sizeof buf, &used, err, sizeof err) && used == 32, "%s", err);
  static const unsigned char want[32] = {0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0xef, 0xbe, 0, 0, 42, 0, 0, 0,
                                         0,    0,    0,    0,    0,    0,    0,    0,    8,    7,    6, 5, 4,  3, 2, 1};
  CHECK(memcmp(buf, want, 32) == 0, "packed bytes");
}

static void test_triton_code_object(void) {
  char path[4096];
  triton_hsaco_path(path, sizeof path);
  size_t len = 0;
  unsigned char *elf = read_whole_file(path, &len);
  if (!elf) {
    printf("test_amdgpu: skip Triton's code object (%s not found)\n", path);
    return;
  }
  char err[512] = "";
  gemmc_amdgpu_code_object *co = NULL;
  CHECK(gemmc_amdgpu_read_code_object(elf, len, &co, err, sizeof err), "Triton's hsaco: %s", err);
  if (co) {
    check_triton_note(co);
    const gemmc_amdgpu_kernel_info *k = gemmc_amdgpu_code_object_kernel(co, "matmul_kernel");
    if (k) check_triton_packing(k);
    gemmc_amdgpu_code_object_free(co);
  }
  /* Every truncation and every single-byte corruption of the file either reads or fails with a
   * message: never a crash (the sanitizer build watches the reads). */
  int accepted = 0, refused = 0;
  for (size_t cut = 0; cut < len; cut += 7) {
    co = NULL;
    if (gemmc_amdgpu_read_code_object(elf, cut, &co, err, sizeof err)) accepted++;
    else refused += err[0] != 0;
    gemmc_amdgpu_code_object_free(co);
  }
  CHECK(refused > 0 && accepted == 0, "truncations: %d accepted, %d refused", accepted, refused);
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (int trial = 0; trial < 4000; trial++) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    size_t at = (size_t)(state % len);
    unsigned char saved = elf[at];
    elf[at] = (unsigned char)(state >> 32);
    co = NULL;
    err[0] = 0;
    if (!gemmc_amdgpu_read_code_object(elf, len, &co, err, sizeof err)) CHECK(err[0] != 0, "refusal without a message");
    gemmc_amdgpu_code_object_free(co);
    elf[at] = saved;
  }
  CHECK(!gemmc_amdgpu_read_code_object("not an elf", 10, &co, err, sizeof err) && contains(err, "not an ELF"), "%s", err);
  free(elf);
}

/* #ttg.amd_rotating_shared (Triton's B buffer of the gfx942 matmul: 64x128 f16, vec 4, perPhase
 * 1, maxPhase 16, order [0, 1]): every element's offset is Triton's formula, row-major along the
 * order with the 4-element group index XORed by phase ^ block, phase = row / perPhase % maxPhase,
 * block = row / perPhase / maxPhase % maxPhase; and the offsets are a permutation. */
static void test_rotating_shared(void) {
  gemmc_context *ctx = gemmc_context_create();
  ir_layout_params p;
  memset(&p, 0, sizeof p);
  p.rank = 2;
  p.vec = 4;
  p.per_phase = 1;
  p.max_phase = 16;
  p.order[0] = 0;
  p.order[1] = 1;
  const ir_attr *rotating = ir_layout_attr(ctx, AT_AMD_ROTATING_SHARED, &p);
  const ir_attr *swizzled = ir_layout_attr(ctx, AT_SWIZZLED_SHARED, &p);
  CHECK(layout_is_shared(rotating) && rotating != swizzled, "a shared layout of its own");
  const int64_t shape[2] = {64, 128}; /* dim 0 is the contiguous one (order [0, 1]) */
  static unsigned char seen[64 * 128];
  int wrong = 0, differs_from_swizzled = 0;
  for (int64_t row = 0; row < 128; row++)
    for (int64_t col = 0; col < 64; col++) {
      int64_t coord[2] = {col, row};
      int64_t phase = row / 1 % 16, block = row / 1 / 16 % 16, groups = 64 / 4;
      int64_t want = row * 64 + ((col / 4) ^ ((phase ^ block) % groups)) * 4 + col % 4;
      int64_t got = layout_shared_offset(rotating, 2, shape, coord);
      wrong += got != want;
      if (got >= 0 && got < 64 * 128) seen[got]++;
      differs_from_swizzled += got != layout_shared_offset(swizzled, 2, shape, coord);
      int64_t back[2] = {-1, -1};
      wrong += !layout_shared_coord(rotating, 2, shape, got, back) || back[0] != col || back[1] != row;
    }
  int holes = 0;
  for (int i = 0; i < 64 * 128; i++) holes += seen[i] != 1;
  CHECK(wrong == 0 && holes == 0, "%d wrong offsets, %d offsets not hit exactly once", wrong, holes);
  CHECK(differs_from_swizzled > 0, "rows past the first 16 rotate");
  gemmc_context_destroy(ctx);
}

/* An MFMA gfx942 does not have (gfx90a's 8-bit integer form) makes LLVM's instruction selector
 * call report_fatal_error ("Cannot select"). Through gemmc's object emission that is a failed
 * call with the reason, never the end of the process; the longjmp past LLVM's frames leaks what
 * they held (docs/limits.md), so LeakSanitizer is told not to count it. */
static void test_object_fatal_error(void) {
  static const char ir[] =
      "target triple = \"amdgcn-amd-amdhsa\"\n"
      "declare <4 x i32> @llvm.amdgcn.mfma.i32.16x16x16i8(i32, i32, <4 x i32>, i32 immarg, i32 immarg, i32 immarg)\n"
      "define amdgpu_kernel void @k(ptr addrspace(1) %p, i32 %a, i32 %b) {\n"
      "  %c = load <4 x i32>, ptr addrspace(1) %p\n"
      "  %d = call <4 x i32> @llvm.amdgcn.mfma.i32.16x16x16i8(i32 %a, i32 %b, <4 x i32> %c, i32 0, i32 0, i32 0)\n"
      "  store <4 x i32> %d, ptr addrspace(1) %p\n"
      "  ret void\n"
      "}\n";
  const gemmc_target *t = gemmc_target_lookup("gfx942", NULL, 0);
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, sizeof ir - 1, "fatal.ll");
  LLVMModuleRef m = NULL;
  char *message = NULL;
  bool parsed = !LLVMParseIRInContext(ctx, buf, &m, &message);
  CHECK(parsed, "the IR parses: %s", message ? message : "");
  LLVMDisposeMessage(message);
  if (parsed) {
    char err[4096] = "";
    void *obj = NULL;
    size_t len = 0;
    LEAKS_ALLOWED_BEGIN();
    bool ok = gemmc_target_codegen_amdgpu_object(t, m, 3, &obj, &len, err, sizeof err);
    LEAKS_ALLOWED_END();
    CHECK(!ok && obj == NULL, "gfx90a's i8 MFMA on gfx942 is refused");
    CHECK(contains(err, "LLVM fatal error:") && contains(err, "Cannot select"), "the reason is kept: %s", err);
    free(obj);
    LLVMDisposeModule(m);
  }
  LLVMContextDispose(ctx);
}

int main(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], "--write-hsaco")) write_hsaco_path = argv[i + 1];
  test_kernel_attributes();
  test_options();
  test_objects();
  test_packing_with_hidden();
  test_triton_code_object();
  test_rotating_shared();
  test_object_fatal_error();
  if (failures) {
    printf("test_amdgpu: %d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("test_amdgpu: ok (%d checks)\n", checks);
  return 0;
}

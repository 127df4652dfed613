/* AMDGPU back end: LLVM registration, kernel attributes (calling convention, work-group size, waves per EU, denormals, code object version), the AMD-only options, AMDGCN assembly. */
#include "gemmc/amdgpu.h"

#include "target.h"

#include <stdio.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

/* Code object version 5 (ROCm 5.3+; what Triton 3.6 emits): the module flag says 500. */
#define CODE_OBJECT_VERSION_FLAG "amdhsa_code_object_version"
#define CODE_OBJECT_VERSION_VALUE 500

/* The asm parser is registered too: emitting objects from modules with inline asm needs it. */
void target_amdgpu_initialize(void) {
  LLVMInitializeAMDGPUTargetInfo();
  LLVMInitializeAMDGPUTarget();
  LLVMInitializeAMDGPUTargetMC();
  LLVMInitializeAMDGPUAsmPrinter();
  LLVMInitializeAMDGPUAsmParser();
}

static void add_string_attribute(LLVMValueRef fn, const char *key, const char *value) {
  LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(fn));
  LLVMAttributeRef attr = LLVMCreateStringAttribute(ctx, key, (unsigned)strlen(key), value, (unsigned)strlen(value));
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, attr);
}

bool target_amdgpu_set_code_object_version(LLVMModuleRef m, char *err, size_t errlen) {
  size_t key_len = strlen(CODE_OBJECT_VERSION_FLAG);
  LLVMMetadataRef existing = LLVMGetModuleFlag(m, CODE_OBJECT_VERSION_FLAG, key_len);
  if (existing) {
    /* The flag's value is constant metadata; the C API unwraps it as a one-operand node. */
    LLVMValueRef wrapped = LLVMMetadataAsValue(LLVMGetModuleContext(m), existing), value = NULL;
    if (LLVMGetMDNodeNumOperands(wrapped) == 1)
      LLVMGetMDNodeOperands(wrapped, &value);
    if (!value || !LLVMIsAConstantInt(value) || LLVMConstIntGetZExtValue(value) != CODE_OBJECT_VERSION_VALUE)
      return target_fail(err, errlen, "the module asks for another code object version than 5 (%s)",
                         CODE_OBJECT_VERSION_FLAG);
    return true;
  }
  LLVMValueRef v500 = LLVMConstInt(LLVMInt32TypeInContext(LLVMGetModuleContext(m)), CODE_OBJECT_VERSION_VALUE, 0);
  LLVMAddModuleFlag(m, LLVMModuleFlagBehaviorError, CODE_OBJECT_VERSION_FLAG, key_len, LLVMValueAsMetadata(v500));
  return true;
}

void gemmc_target_amdgpu_mark_kernel(LLVMModuleRef m, LLVMValueRef fn, const gemmc_amdgpu_kernel_attrs *a) {
  gemmc_amdgpu_kernel_attrs none;
  memset(&none, 0, sizeof none);
  if (!a)
    a = &none;
  LLVMSetFunctionCallConv(fn, LLVMAMDGPUKERNELCallConv);
  char value[32];
  /* The flat work-group size bounds the block size, which sizes the register budget (the
   * counterpart of .maxntid). */
  if (a->max_threads > 0) {
    snprintf(value, sizeof value, "1,%d", a->max_threads);
    add_string_attribute(fn, "amdgpu-flat-work-group-size", value);
  }
  /* "N, N": at least and at most N waves per SIMD, i.e. at most 512/N VGPRs per lane. */
  if (a->waves_per_eu > 0) {
    snprintf(value, sizeof value, "%d, %d", a->waves_per_eu, a->waves_per_eu);
    add_string_attribute(fn, "amdgpu-waves-per-eu", value);
  }
  add_string_attribute(fn, "denormal-fp-math-f32", a->flush_denormals ? "preserve-sign" : "ieee");
  /* Launch grids are whole blocks, so no work-group is partial; LLVM may drop the bounds checks. */
  add_string_attribute(fn, "uniform-work-group-size", "true");
  if (a->preload_kernargs) {
    LLVMContextRef ctx = LLVMGetModuleContext(m);
    unsigned kind = LLVMGetEnumAttributeKindForName("inreg", 5);
    for (unsigned i = 0; i < LLVMCountParams(fn); i++)
      LLVMAddAttributeAtIndex(fn, i + 1, LLVMCreateEnumAttribute(ctx, kind, 0));
  }
  /* Only fails for a module that already asks for another version; the object emission checks
   * the flag again and reports that. */
  target_amdgpu_set_code_object_version(m, NULL, 0);
}

/* The old entry point (gemmc_target_mark_kernel_for): a kernel with a block size only. */
void target_amdgpu_mark_kernel(LLVMModuleRef m, LLVMValueRef fn, int max_threads) {
  gemmc_amdgpu_kernel_attrs attrs;
  memset(&attrs, 0, sizeof attrs);
  attrs.max_threads = max_threads;
  gemmc_target_amdgpu_mark_kernel(m, fn, &attrs);
}

/* CDNA2 and CDNA3 run at most 8 waves per SIMD (AMD's CDNA3 ISA guide, "Wave scheduling"). */
int gemmc_target_amdgpu_max_waves_per_eu(const gemmc_target *t) {
  return t && t->arch == GEMMC_ARCH_AMDGPU ? 8 : 0;
}

bool gemmc_target_amdgpu_check_options(const gemmc_target *t, int waves_per_eu, int matrix_instr_nonkdim,
                                       int kpack, char *err, size_t errlen) {
  if (!t)
    return target_fail(err, errlen, "no target");
  if (t->arch != GEMMC_ARCH_AMDGPU) {
    const char *option = waves_per_eu ? "--waves-per-eu" : matrix_instr_nonkdim ? "--matrix-instr-nonkdim"
                         : kpack      ? "--kpack"
                                      : NULL;
    if (option)
      return target_fail(err, errlen, "%s applies to AMD targets (gfx90a, gfx942), not %s", option, t->name);
    return true;
  }
  int max_waves = gemmc_target_amdgpu_max_waves_per_eu(t);
  if (waves_per_eu < 0 || waves_per_eu > max_waves)
    return target_fail(err, errlen, "--waves-per-eu=%d is out of range for %s (1 to %d; 0: no limit)", waves_per_eu,
                       t->name, max_waves);
  if (matrix_instr_nonkdim != 0 && matrix_instr_nonkdim != 16 && matrix_instr_nonkdim != 32)
    return target_fail(err, errlen, "--matrix-instr-nonkdim=%d: MFMA instructions are 16x16 or 32x32 (16 or 32)",
                       matrix_instr_nonkdim);
  if (kpack < 0 || kpack > 2)
    return target_fail(err, errlen, "--kpack=%d: expected 1 or 2 (MFMA K groups per LDS read)", kpack);
  return true;
}

bool gemmc_target_emit_amdgpu_asm(const gemmc_target *t, LLVMModuleRef m, int opt_level, char **asm_out,
                                  size_t *len_out, char *err, size_t errlen) {
  if (!asm_out)
    return target_fail(err, errlen, "no output pointer for the assembly");
  *asm_out = NULL;
  if (!t || t->arch != GEMMC_ARCH_AMDGPU)
    return target_fail(err, errlen, "target %s is not an AMD target", t ? t->name : "(null)");
  /* target_emit_assembly works on a clone: AMDGPU code generation mutates the module. */
  return target_emit_assembly(t, m, opt_level, asm_out, len_out, err, errlen);
}

bool gemmc_target_codegen_amdgpu_asm(const gemmc_target *t, LLVMModuleRef m, int opt_level, char **asm_out,
                                     size_t *len_out, char *err, size_t errlen) {
  if (!asm_out)
    return target_fail(err, errlen, "no output pointer for the assembly");
  *asm_out = NULL;
  if (!t || t->arch != GEMMC_ARCH_AMDGPU)
    return target_fail(err, errlen, "target %s is not an AMD target", t ? t->name : "(null)");
  if (!target_amdgpu_set_code_object_version(m, err, errlen))
    return false;
  LLVMModuleRef clone = LLVMCloneModule(m);
  bool ok = target_codegen_optimized(t, clone, opt_level, asm_out, len_out, err, errlen);
  LLVMDisposeModule(clone);
  return ok;
}

/* AMDGPU back end (minimal): kernel marking and AMDGCN assembly emission through LLVM 19. */
#include "target.h"

#include <stdio.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

/* The asm parser is registered too: emitting objects from modules with inline asm needs it. */
void target_amdgpu_initialize(void) {
  LLVMInitializeAMDGPUTargetInfo();
  LLVMInitializeAMDGPUTarget();
  LLVMInitializeAMDGPUTargetMC();
  LLVMInitializeAMDGPUAsmPrinter();
  LLVMInitializeAMDGPUAsmParser();
}

/* amdgpu_kernel makes fn an entry point; the flat work-group size bounds the block size, which
 * the backend uses to size register budgets (the counterpart of .maxntid). */
void target_amdgpu_mark_kernel(LLVMModuleRef m, LLVMValueRef fn, int max_threads) {
  LLVMSetFunctionCallConv(fn, LLVMAMDGPUKERNELCallConv);
  if (max_threads > 0) {
    LLVMContextRef ctx = LLVMGetModuleContext(m);
    char value[32];
    int n = snprintf(value, sizeof value, "1,%d", max_threads);
    static const char key[] = "amdgpu-flat-work-group-size";
    LLVMAttributeRef attr =
        LLVMCreateStringAttribute(ctx, key, (unsigned)strlen(key), value, (unsigned)n);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, attr);
  }
}

bool gemmc_target_emit_amdgpu_asm(const gemmc_target *t, LLVMModuleRef m, int opt_level,
                                  char **asm_out, size_t *len_out, char *err, size_t errlen) {
  if (!asm_out)
    return target_fail(err, errlen, "no output pointer for the assembly");
  *asm_out = NULL;
  if (!t || t->arch != GEMMC_ARCH_AMDGPU)
    return target_fail(err, errlen, "target %s is not an AMD target", t ? t->name : "(null)");
  /* target_emit_assembly works on a clone: AMDGPU code generation mutates the module. */
  return target_emit_assembly(t, m, opt_level, asm_out, len_out, err, errlen);
}

/* The target interface's lookup and the helpers its implementations share (intrinsic calls, inline assembly). */
#include "codegen.h"

#include <string.h>

extern const target_codegen target_nvptx_codegen;
extern const target_codegen target_amdgpu_codegen;

const target_codegen *target_codegen_of(const gemmc_target *t) {
  if (t && t->arch == GEMMC_ARCH_NVPTX) return &target_nvptx_codegen;
  if (t && t->arch == GEMMC_ARCH_AMDGPU) return &target_amdgpu_codegen;
  return NULL;
}

/* The most arguments an intrinsic call or asm statement takes (a wgmma with a 256-wide
 * accumulator has 128 f32 registers in and out). */
enum { MAX_CALL_ARGS = 256 };

LLVMValueRef target_call(const target_emitter *e, const char *name, LLVMTypeRef ret, LLVMValueRef *args, int n) {
  LLVMTypeRef params[MAX_CALL_ARGS];
  if (n > MAX_CALL_ARGS) return NULL;
  for (int i = 0; i < n; i++) params[i] = LLVMTypeOf(args[i]);
  LLVMTypeRef fty = LLVMFunctionType(ret, params, (unsigned)n, 0);
  LLVMValueRef f = LLVMGetNamedFunction(e->mod, name);
  if (!f) f = LLVMAddFunction(e->mod, name, fty);
  return LLVMBuildCall2(e->b, fty, f, args, (unsigned)n, "");
}

LLVMValueRef target_inline_asm(const target_emitter *e, const char *text, const char *constraints, LLVMTypeRef ret,
                               LLVMValueRef *args, int n, bool side_effects) {
  LLVMTypeRef params[MAX_CALL_ARGS];
  if (n > MAX_CALL_ARGS) return NULL;
  for (int i = 0; i < n; i++) params[i] = LLVMTypeOf(args[i]);
  LLVMTypeRef fty = LLVMFunctionType(ret, params, (unsigned)n, 0);
  LLVMValueRef a = LLVMGetInlineAsm(fty, (char *)text, strlen(text), (char *)constraints, strlen(constraints),
                                    side_effects, 0, LLVMInlineAsmDialectATT, 0);
  return LLVMBuildCall2(e->b, fty, a, args, (unsigned)n, "");
}

int target_asm_register_bits(const gemmc_target *t, char letter) {
  if (t->arch == GEMMC_ARCH_AMDGPU) return letter == 'v' ? -1 : 0;
  switch (letter) {
  case 'b': return 1;
  case 'h': return 16;
  case 'r': case 'f': return 32;
  case 'l': case 'd': return 64;
  default: return 0;
  }
}

int target_scalar_bits(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMIntegerTypeKind: return (int)LLVMGetIntTypeWidth(t);
  case LLVMHalfTypeKind:
  case LLVMBFloatTypeKind: return 16;
  case LLVMFloatTypeKind: return 32;
  case LLVMDoubleTypeKind: return 64;
  default: return 0;
  }
}

LLVMValueRef target_i32(const target_emitter *e, long long v) {
  return LLVMConstInt(LLVMInt32TypeInContext(e->ctx), (unsigned long long)v, 1);
}

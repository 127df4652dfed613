/* The hand-written AMDGPU kernel the code-object and HIP-shim unit tests share, built with the LLVM C API as the lowering will build kernels. */
#ifndef GEMMC_TEST_AMDGPU_TEST_KERNEL_H
#define GEMMC_TEST_AMDGPU_TEST_KERNEL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "gemmc/amdgpu.h"

static inline LLVMValueRef call_intrinsic(LLVMModuleRef m, LLVMBuilderRef b, const char *name,
                                          LLVMTypeRef *overloads, size_t num_overloads, LLVMValueRef *args,
                                          unsigned num_args, const char *result) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(m, id, overloads, num_overloads);
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, num_args, result);
}

/* The kernel every AMDGPU back end needs first, written with the C API as the lowering will:
 *   kernel void copy_through_lds(global float *out, int n):
 *     lds[tid] = tid; s_barrier; i = workgroup_id * 256 + tid; if (i < n) out[i] = lds[255 - tid]
 * amdgpu_kernel calling convention, flat work-group size 256, 2 waves per EU, LDS in address
 * space 3, a barrier, workitem and workgroup ids, a global store. */
static inline LLVMModuleRef build_lds_kernel(LLVMContextRef ctx) {
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("amdgpu_test", ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), i64 = LLVMInt64TypeInContext(ctx);
  LLVMTypeRef f32 = LLVMFloatTypeInContext(ctx);
  LLVMTypeRef params[] = {LLVMPointerTypeInContext(ctx, 1), i32};
  LLVMValueRef fn = LLVMAddFunction(m, "copy_through_lds", LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, 2, 0));
  LLVMTypeRef lds_type = LLVMArrayType2(f32, 256);
  LLVMValueRef lds = LLVMAddGlobalInAddressSpace(m, lds_type, "lds", 3);
  LLVMSetInitializer(lds, LLVMGetPoison(lds_type));
  LLVMSetLinkage(lds, LLVMInternalLinkage);
  LLVMSetAlignment(lds, 16);

  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, fn, "entry");
  LLVMBasicBlockRef store = LLVMAppendBasicBlockInContext(ctx, fn, "store");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(ctx, fn, "done");
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef tid = call_intrinsic(m, b, "llvm.amdgcn.workitem.id.x", NULL, 0, NULL, 0, "tid");
  LLVMValueRef bid = call_intrinsic(m, b, "llvm.amdgcn.workgroup.id.x", NULL, 0, NULL, 0, "bid");
  LLVMValueRef zero = LLVMConstInt(i32, 0, 0);
  LLVMValueRef slot_index[] = {zero, tid};
  LLVMValueRef slot = LLVMBuildInBoundsGEP2(b, lds_type, lds, slot_index, 2, "slot");
  LLVMBuildStore(b, LLVMBuildUIToFP(b, tid, f32, "tidf"), slot);
  call_intrinsic(m, b, "llvm.amdgcn.s.barrier", NULL, 0, NULL, 0, "");
  LLVMValueRef mirror_index[] = {zero, LLVMBuildSub(b, LLVMConstInt(i32, 255, 0), tid, "mirror")};
  LLVMValueRef mirror = LLVMBuildInBoundsGEP2(b, lds_type, lds, mirror_index, 2, "mirror_slot");
  LLVMValueRef value = LLVMBuildLoad2(b, f32, mirror, "value");
  LLVMValueRef i = LLVMBuildAdd(b, LLVMBuildMul(b, bid, LLVMConstInt(i32, 256, 0), "base"), tid, "i");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, i, LLVMGetParam(fn, 1), "in_range"), store, done);
  LLVMPositionBuilderAtEnd(b, store);
  LLVMValueRef wide = LLVMBuildZExt(b, i, i64, "wide");
  LLVMBuildStore(b, value, LLVMBuildInBoundsGEP2(b, f32, LLVMGetParam(fn, 0), &wide, 1, "out_slot"));
  LLVMBuildBr(b, done);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);

  gemmc_amdgpu_kernel_attrs attrs = {256, 2, false, false};
  gemmc_target_amdgpu_mark_kernel(m, fn, &attrs);
  return m;
}

static inline void *read_whole_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *data = size > 0 ? malloc((size_t)size) : NULL;
  if (data && fread(data, 1, (size_t)size, f) != (size_t)size) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *len = data ? (size_t)size : 0;
  return data;
}

/* shared/ beside the checkout (where lit's triton-dumps feature looks): ../../../.. of this file. */
static inline void triton_hsaco_path(char *out, size_t n) {
  char here[2048];
  snprintf(here, sizeof here, "%s", __FILE__);
  for (int up = 0; up < 4; up++) {
    char *slash = strrchr(here, '/');
    if (slash) *slash = 0;
  }
  snprintf(out, n, "%s/shared/triton-3.6-amd/matmul_gfx942_128x128x64_w4_s2_wpe2.hsaco", here);
}

/* Emits m for gfx942 and links it with ld.lld-19: the code object, or NULL (with a message in
 * err) when that fails or there is no ld.lld-19. */
static inline void *link_test_kernel(LLVMModuleRef m, size_t *len, char *err, size_t errlen) {
  const gemmc_target *t = gemmc_target_lookup("gfx942", NULL, 0);
  void *obj = NULL, *hsaco = NULL;
  size_t obj_len = 0;
  *len = 0;
  if (gemmc_target_emit_amdgpu_object(t, m, 3, &obj, &obj_len, err, errlen))
    gemmc_target_link_hsaco(obj, obj_len, &hsaco, len, err, errlen);
  free(obj);
  return hsaco;
}

#endif

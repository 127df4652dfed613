/* The lowering state: its memory, the value map, LLVM types of IR elements and small emission helpers. */
#include "lower_state.h"

#include <string.h>

/* ---------------------------------------------------------------- the state */

void lower_state_init(lower_state *s, gemmc_context *ctx, const gemmc_target *target, const target_codegen *cg,
                      LLVMContextRef llctx, const char *module_name, int num_warps, int threads_per_warp) {
  memset(s, 0, sizeof *s);
  s->ctx = ctx;
  s->map.ctx = ctx;
  s->tma_scratch_offsets.ctx = ctx;
  s->target = target;
  s->cg = cg;
  s->llctx = llctx;
  s->num_warps = num_warps;
  s->threads_per_warp = threads_per_warp;
  s->mod = LLVMModuleCreateWithNameInContext(module_name, llctx);
  LLVMSetTarget(s->mod, target->triple);
  s->b = LLVMCreateBuilderInContext(llctx);
  s->kernel_threads.pro = LLVMCreateBuilderInContext(llctx);
  s->em = (target_emitter){llctx, s->mod, s->b, target->ptx_version, target->compute_capability};
  s->i1 = LLVMInt1TypeInContext(llctx);
  s->i8 = LLVMInt8TypeInContext(llctx);
  s->i16 = LLVMInt16TypeInContext(llctx);
  s->i32 = LLVMInt32TypeInContext(llctx);
  s->i64 = LLVMInt64TypeInContext(llctx);
  s->f32 = LLVMFloatTypeInContext(llctx);
  s->voidt = LLVMVoidTypeInContext(llctx);
  s->gptr = LLVMPointerTypeInContext(llctx, cg->global_addr_space);
  s->sptr = LLVMPointerTypeInContext(llctx, cg->shared_addr_space);
  /* Dynamic shared memory: one external array; every buffer is an offset into it. */
  s->smem = LLVMAddGlobalInAddressSpace(s->mod, LLVMArrayType2(s->i8, 0), "global_smem", cg->shared_addr_space);
  LLVMSetLinkage(s->smem, LLVMExternalLinkage);
  LLVMSetAlignment(s->smem, 16);
}

void lower_state_dispose(lower_state *s) {
  lower_state_forget_function(s);
  LLVMDisposeBuilder(s->b);
  LLVMDisposeBuilder(s->kernel_threads.pro);
}

/* ---------------------------------------------------------------- memory */

/* The context's arena: freed with the context, like the IR the lowering reads. */
void *lower_alloc(lower_state *s, size_t size) {
  void *p = ir_alloc(s->ctx, size);
  if (!p) s->oom = true;
  return p;
}

void lower_state_forget_function(lower_state *s) {
  ptr_map_free(&s->map);
  ptr_map_free(&s->tma_scratch_offsets);
  s->kernel_threads.layouts = NULL;
}

lower_values *lower_values_new(lower_state *s, const ir_op *op, int n) {
  lower_values *vals = lower_alloc(s, sizeof *vals);
  LLVMValueRef *v = lower_alloc(s, sizeof(LLVMValueRef) * (size_t)(n > 0 ? n : 1));
  if (!vals || !v) {
    ir_op_error(s->ctx, op, "out of memory while lowering to LLVM IR");
    return NULL;
  }
  vals->n = n;
  vals->v = v;
  return vals;
}

/* ---------------------------------------------------------------- value map */

/* The map holds pointers to lowered values in the arena, never the values
 * themselves: callers keep what lower_get returns across later lower_set calls (a loop keeps
 * its bounds while its body is lowered), and a table that grows must not move them. */
bool lower_set(lower_state *s, const ir_value *v, const lower_values *vals) {
  lower_values *stable = lower_alloc(s, sizeof *stable);
  if (!stable || !ptr_map_put(&s->map, v, stable)) {
    s->oom = true;
    ir_error(s->ctx, v->loc, "out of memory while lowering to LLVM IR");
    return false;
  }
  *stable = *vals;
  return true;
}

bool lower_set1(lower_state *s, const ir_value *v, LLVMValueRef x) {
  LLVMValueRef *one = lower_alloc(s, sizeof *one);
  if (!one) return false;
  one[0] = x;
  lower_values vals = {1, one};
  return lower_set(s, v, &vals);
}

const lower_values *lower_get(lower_state *s, const ir_op *op, const ir_value *v) {
  const lower_values *vals = ptr_map_get(&s->map, v);
  if (vals) return vals;
  ir_op_error(s->ctx, op, "internal error: operand of '%s' was not lowered", ir_op_name(op));
  return NULL;
}

LLVMValueRef lower_elem(const lower_values *vals, int i) { return vals->n == 1 ? vals->v[0] : vals->v[i]; }

/* ---------------------------------------------------------------- types and helpers */

LLVMTypeRef lower_elem_type(lower_state *s, const ir_type *t) {
  const ir_type *e = ir_type_element(t);
  switch (e->kind) {
  case TY_INT: return LLVMIntTypeInContext(s->llctx, e->width);
  case TY_INDEX: return s->i64;
  case TY_PTR: return LLVMPointerTypeInContext(s->llctx, (unsigned)e->addr_space);
  case TY_FLOAT:
    switch (e->float_kind) {
    case FLT_F16: return LLVMHalfTypeInContext(s->llctx);
    case FLT_BF16: return LLVMBFloatTypeInContext(s->llctx);
    case FLT_F32: return s->f32;
    case FLT_F64: return LLVMDoubleTypeInContext(s->llctx);
    case FLT_TF32: return s->f32;
    default: return s->i8; /* fp8: storage only */
    }
  default: return NULL;
  }
}

int lower_elem_bytes(const ir_type *t) {
  const ir_type *e = ir_type_element(t);
  if (e->kind == TY_PTR || e->kind == TY_INDEX) return 8;
  int bits = (int)e->width;
  return bits < 8 ? 1 : bits / 8;
}

LLVMValueRef lower_i32(lower_state *s, int64_t v) { return LLVMConstInt(s->i32, (unsigned long long)v, 1); }

LLVMValueRef lower_f32(lower_state *s, double v) { return LLVMConstReal(s->f32, v); }

LLVMValueRef lower_fma_f32(lower_state *s, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c) {
  LLVMValueRef args[3] = {a, b, c};
  return lower_call(s, "llvm.fma.f32", s->f32, args, 3);
}

LLVMValueRef lower_thread0(lower_state *s) {
  return LLVMBuildICmp(s->b, LLVMIntEQ, s->threads->tid, lower_i32(s, 0), "");
}

LLVMBasicBlockRef lower_begin_if(lower_state *s, LLVMValueRef cond, const char *name) {
  LLVMBasicBlockRef then = LLVMAppendBasicBlockInContext(s->llctx, s->fn, name);
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "");
  LLVMBuildCondBr(s->b, cond, then, done);
  LLVMPositionBuilderAtEnd(s->b, then);
  return done;
}

void lower_end_if(lower_state *s, LLVMBasicBlockRef done) {
  LLVMBuildBr(s->b, done);
  LLVMPositionBuilderAtEnd(s->b, done);
}

LLVMValueRef lower_index_i32(lower_state *s, LLVMValueRef v) {
  unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(v));
  if (w < 32) return LLVMBuildSExt(s->b, v, s->i32, "");
  if (w == 32) return v;
  LLVMValueRef low = LLVMBuildTrunc(s->b, v, s->i32, "");
  LLVMValueRef fits = LLVMBuildICmp(s->b, LLVMIntEQ, LLVMBuildSExt(s->b, low, LLVMTypeOf(v), ""), v, "");
  return LLVMBuildSelect(s->b, fits, low, lower_i32(s, -1), "");
}

/* The vector elems[0] was extracted from, when every elems[i] is lane i of that one vector of
 * type vt; else NULL. */
static LLVMValueRef extracted_from(LLVMTypeRef vt, const LLVMValueRef *elems, int n) {
  LLVMValueRef source = NULL;
  for (int i = 0; i < n; i++) {
    if (!LLVMIsAExtractElementInst(elems[i])) return NULL;
    LLVMValueRef vec = LLVMGetOperand(elems[i], 0), lane = LLVMGetOperand(elems[i], 1);
    if (!LLVMIsAConstantInt(lane) || LLVMConstIntGetZExtValue(lane) != (unsigned long long)i) return NULL;
    if (i == 0) source = vec;
    else if (vec != source) return NULL;
  }
  return source && LLVMTypeOf(source) == vt ? source : NULL;
}

LLVMValueRef lower_build_vector(lower_state *s, LLVMTypeRef vt, const LLVMValueRef *elems, int n) {
  LLVMValueRef v = extracted_from(vt, elems, n);
  if (v) return v;
  v = LLVMGetUndef(vt);
  for (int i = 0; i < n; i++) v = LLVMBuildInsertElement(s->b, v, elems[i], lower_i32(s, i), "");
  return v;
}

LLVMValueRef lower_pack_f16x2(lower_state *s, const LLVMValueRef pair[2]) {
  LLVMTypeRef half2 = LLVMVectorType(LLVMHalfTypeInContext(s->llctx), 2);
  return LLVMBuildBitCast(s->b, lower_build_vector(s, half2, pair, 2), s->i32, "");
}

void lower_unpack_f16x2(lower_state *s, LLVMValueRef packed, LLVMValueRef pair[2]) {
  LLVMValueRef v = LLVMBuildBitCast(s->b, packed, LLVMVectorType(LLVMHalfTypeInContext(s->llctx), 2), "");
  for (int h = 0; h < 2; h++) pair[h] = LLVMBuildExtractElement(s->b, v, lower_i32(s, h), "");
}

LLVMValueRef lower_call(lower_state *s, const char *name, LLVMTypeRef ret, LLVMValueRef *args, int n) {
  return target_call(&s->em, name, ret, args, n);
}

/* Whether a and b are calls of one function with the same arguments. */
static bool same_call(LLVMValueRef a, LLVMValueRef b) {
  if (!a || !b || !LLVMIsACallInst(a) || !LLVMIsACallInst(b)) return false;
  if (LLVMGetCalledValue(a) != LLVMGetCalledValue(b) || LLVMGetNumArgOperands(a) != LLVMGetNumArgOperands(b)) return false;
  for (unsigned i = 0; i < LLVMGetNumArgOperands(a); i++)
    if (LLVMGetOperand(a, i) != LLVMGetOperand(b, i)) return false;
  return true;
}

void lower_barrier(lower_state *s) {
  s->barrier_deferred = false;
  s->owed_store = NULL;
  s->smem_read_pending = false;
  LLVMBasicBlockRef block = LLVMGetInsertBlock(s->b);
  LLVMValueRef before = LLVMGetLastInstruction(block);
  if (s->threads && s->threads->barrier_id > 0)
    s->cg->barrier_named(&s->em, s->threads->barrier_value ? s->threads->barrier_value : lower_i32(s, s->threads->barrier_id),
                         s->threads->num_warps * s->threads_per_warp);
  else
    s->cg->barrier(&s->em);
  /* The same barrier right after itself orders nothing more (an op's closing barrier followed by
   * the next op's opening one): the second goes. */
  LLVMValueRef after = LLVMGetLastInstruction(block);
  if (after != before && LLVMGetPreviousInstruction(after) == before && same_call(before, after))
    LLVMInstructionEraseFromParent(after);
}

void lower_barrier_defer(lower_state *s) {
  s->barrier_deferred = true;
  s->owed_store = NULL;
}

void lower_barrier_settle(lower_state *s) {
  if (s->barrier_deferred) lower_barrier(s);
}

static unsigned type_bits(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMHalfTypeKind:
  case LLVMBFloatTypeKind: return 16;
  case LLVMFloatTypeKind: return 32;
  case LLVMDoubleTypeKind:
  case LLVMPointerTypeKind: return 64;
  case LLVMIntegerTypeKind: return LLVMGetIntTypeWidth(t);
  default: return 0;
  }
}

LLVMValueRef lower_shuffle_xor(lower_state *s, LLVMValueRef x, int lane_mask) {
  LLVMTypeRef t = LLVMTypeOf(x);
  unsigned bits = type_bits(t);
  LLVMTypeRef it = LLVMIntTypeInContext(s->llctx, bits);
  bool is_ptr = LLVMGetTypeKind(t) == LLVMPointerTypeKind;
  LLVMValueRef xi = is_ptr                                      ? LLVMBuildPtrToInt(s->b, x, it, "")
                    : LLVMGetTypeKind(t) == LLVMIntegerTypeKind ? x
                                                                : LLVMBuildBitCast(s->b, x, it, "");
  LLVMValueRef r;
  if (bits == 64) {
    LLVMTypeRef v2 = LLVMVectorType(s->i32, 2);
    LLVMValueRef v = LLVMBuildBitCast(s->b, xi, v2, "");
    LLVMValueRef lo = s->cg->shuffle_xor(&s->em, LLVMBuildExtractElement(s->b, v, lower_i32(s, 0), ""), lane_mask);
    LLVMValueRef hi = s->cg->shuffle_xor(&s->em, LLVMBuildExtractElement(s->b, v, lower_i32(s, 1), ""), lane_mask);
    v = LLVMBuildInsertElement(s->b, LLVMGetUndef(v2), lo, lower_i32(s, 0), "");
    v = LLVMBuildInsertElement(s->b, v, hi, lower_i32(s, 1), "");
    r = LLVMBuildBitCast(s->b, v, it, "");
  } else if (bits < 32) {
    r = LLVMBuildTrunc(s->b, s->cg->shuffle_xor(&s->em, LLVMBuildZExt(s->b, xi, s->i32, ""), lane_mask), it, "");
  } else {
    r = s->cg->shuffle_xor(&s->em, xi, lane_mask);
  }
  if (is_ptr) return LLVMBuildIntToPtr(s->b, r, t, "");
  return LLVMGetTypeKind(t) == LLVMIntegerTypeKind ? r : LLVMBuildBitCast(s->b, r, t, "");
}

LLVMTypeRef lower_memory_type(lower_state *s, LLVMTypeRef t) {
  return LLVMGetTypeKind(t) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) == 1 ? s->i8 : t;
}

LLVMValueRef lower_smem_ptr(lower_state *s, int64_t byte_offset, LLVMTypeRef elem, LLVMValueRef index) {
  return lower_smem_ptr_from(s, s->smem, byte_offset, elem, index);
}

LLVMValueRef lower_smem_ptr_from(lower_state *s, LLVMValueRef base, int64_t byte_offset, LLVMTypeRef elem,
                                 LLVMValueRef index) {
  if (byte_offset) {
    LLVMValueRef off = lower_i32(s, byte_offset);
    base = LLVMBuildGEP2(s->b, s->i8, base, &off, 1, "");
  }
  return LLVMBuildGEP2(s->b, elem, base, &index, 1, "");
}

int64_t lower_scratch_offset(lower_state *s, const ir_op *op) {
  return gemmc_allocation_offset(s->alloc, op);
}

LLVMValueRef lower_shared_base(lower_state *s, const ir_op *op) {
  int64_t offset = lower_scratch_offset(s, op);
  if (offset < 0) return NULL;
  LLVMValueRef at = lower_i32(s, offset);
  int64_t stride = gemmc_allocation_copy_stride(s->alloc, op);
  if (stride > 0 && s->threads->replica)
    at = LLVMBuildAdd(s->b, at, LLVMBuildMul(s->b, s->threads->replica, lower_i32(s, stride), ""), "");
  return LLVMBuildGEP2(s->b, s->i8, s->smem, &at, 1, "");
}

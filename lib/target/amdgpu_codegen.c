/* AMDGPU implementation of the target interface (codegen.h): llvm.amdgcn.* intrinsics for wave64 CDNA (gfx90a, gfx942), LDS in address space 3, MFMA. */
#include "codegen.h"

#include <stdio.h>
#include <string.h>

#include "target.h"

/*
 * What differs from NVIDIA (docs/amd.md, "What the lowering needs from the target interface"):
 * - A wave has 64 lanes; shuffles move 32-bit values through DPP (lane distance 1, 2, 4, 8 in a
 *   row of 16), ds_swizzle (16) or ds_bpermute (32, and any other pattern).
 * - There is no predicated load: a masked access is a branch around an ordinary load, and a phi
 *   gives masked-off lanes `other` (what Triton emits); LLVM turns the branch into EXEC masking.
 * - The block barrier is Triton's `s_waitcnt lgkmcnt(0); s_barrier`: LDS accesses of this wave
 *   are complete, then every wave arrives. A workgroup fence would also wait for this wave's
 *   global loads in flight (vmcnt(0)) and so end the overlap of the next tile's loads with the
 *   MFMAs. LLVM does not move memory accesses across either intrinsic (both have side effects
 *   that LLVM cannot see through).
 */

/* s_waitcnt's immediate on gfx9: vmcnt (bits 3:0, 15:14) and expcnt (6:4) at their maximum, so
 * not waited for; lgkmcnt (11:8) = 0: every LDS, scalar-memory and message access is done. */
enum { WAITCNT_LGKM0 = 0xC07F };

static LLVMTypeRef i32_type(const target_emitter *e) { return LLVMInt32TypeInContext(e->ctx); }
static LLVMTypeRef f32_type(const target_emitter *e) { return LLVMFloatTypeInContext(e->ctx); }
static LLVMTypeRef void_type(const target_emitter *e) { return LLVMVoidTypeInContext(e->ctx); }

static LLVMValueRef amdgpu_thread_id(const target_emitter *e) {
  return target_call(e, "llvm.amdgcn.workitem.id.x", i32_type(e), NULL, 0);
}

static LLVMValueRef amdgpu_program_id(const target_emitter *e, int axis) {
  static const char *const names[3] = {"llvm.amdgcn.workgroup.id.x", "llvm.amdgcn.workgroup.id.y",
                                       "llvm.amdgcn.workgroup.id.z"};
  return target_call(e, names[axis], i32_type(e), NULL, 0);
}

/* Code object v5: the hidden kernel arguments start with hidden_block_count_x, _y, _z (u32), the
 * grid size in work-groups. Reading them makes LLVM emit the hidden arguments. */
static LLVMValueRef amdgpu_num_programs(const target_emitter *e, int axis) {
  LLVMTypeRef constant_ptr = LLVMPointerTypeInContext(e->ctx, 4);
  LLVMValueRef base = target_call(e, "llvm.amdgcn.implicitarg.ptr", constant_ptr, NULL, 0);
  LLVMValueRef off = target_i32(e, 4 * axis);
  LLVMValueRef p = LLVMBuildGEP2(e->b, LLVMInt8TypeInContext(e->ctx), base, &off, 1, "");
  LLVMValueRef n = LLVMBuildLoad2(e->b, i32_type(e), p, "");
  LLVMSetAlignment(n, 4);
  return n;
}

/* The last instruction before the builder's position. */
static LLVMValueRef previous_instruction(const target_emitter *e) {
  LLVMBasicBlockRef bb = LLVMGetInsertBlock(e->b);
  return bb ? LLVMGetLastInstruction(bb) : NULL;
}

static bool is_call_to(LLVMValueRef inst, const char *name) {
  if (!inst || !LLVMIsACallInst(inst)) return false;
  LLVMValueRef callee = LLVMGetCalledValue(inst);
  size_t len = 0;
  const char *got = callee ? LLVMGetValueName2(callee, &len) : NULL;
  return got && len == strlen(name) && memcmp(got, name, len) == 0;
}

static void amdgpu_barrier(const target_emitter *e) {
  /* Two barriers with nothing between them are one (a shared-memory write ends with a barrier
   * and the next one starts with another). */
  if (is_call_to(previous_instruction(e), "llvm.amdgcn.s.barrier")) return;
  LLVMValueRef imm = target_i32(e, WAITCNT_LGKM0);
  target_call(e, "llvm.amdgcn.s.waitcnt", void_type(e), &imm, 1);
  target_call(e, "llvm.amdgcn.s.barrier", void_type(e), NULL, 0);
}

/* ---------------------------------------------------------------- cross-lane moves (32-bit) */

/* DPP controls (the AMD GCN/CDNA ISA's DPP_CTRL): quad_perm, row_shl:n, row_shr:n. */
enum { DPP_QUAD_PERM_XOR1 = 0xB1, DPP_QUAD_PERM_XOR2 = 0x4E, DPP_ROW_SHL = 0x100, DPP_ROW_SHR = 0x110 };

static LLVMValueRef update_dpp(const target_emitter *e, LLVMValueRef old, LLVMValueRef x, int ctrl, int bank_mask) {
  LLVMValueRef args[6] = {old, x, target_i32(e, ctrl), target_i32(e, 0xF), target_i32(e, bank_mask),
                          LLVMConstInt(LLVMInt1TypeInContext(e->ctx), 0, 0)};
  return target_call(e, "llvm.amdgcn.update.dpp.i32", i32_type(e), args, 6);
}

static LLVMValueRef lane_id(const target_emitter *e) {
  LLVMValueRef lo_args[2] = {target_i32(e, -1), target_i32(e, 0)};
  LLVMValueRef lo = target_call(e, "llvm.amdgcn.mbcnt.lo", i32_type(e), lo_args, 2);
  LLVMValueRef hi_args[2] = {target_i32(e, -1), lo};
  return target_call(e, "llvm.amdgcn.mbcnt.hi", i32_type(e), hi_args, 2);
}

static LLVMValueRef amdgpu_shuffle_xor(const target_emitter *e, LLVMValueRef x, int lane_mask) {
  switch (lane_mask) {
  case 1: return update_dpp(e, x, x, DPP_QUAD_PERM_XOR1, 0xF);
  case 2: return update_dpp(e, x, x, DPP_QUAD_PERM_XOR2, 0xF);
  case 4:
  case 8: {
    /* In each row of 16 lanes, the banks (groups of 4 lanes) whose lane has the bit set take the
     * value from n lanes below (row_shr), the others from n lanes above (row_shl). */
    int upper = lane_mask == 4 ? 0xA : 0xC, lower = lane_mask == 4 ? 0x5 : 0x3;
    LLVMValueRef v = update_dpp(e, x, x, DPP_ROW_SHR + lane_mask, upper);
    return update_dpp(e, v, x, DPP_ROW_SHL + lane_mask, lower);
  }
  case 16: {
    /* ds_swizzle bit mode: lane' = ((lane & and) | or) ^ xor within 32 lanes; and = 0x1F. */
    LLVMValueRef args[2] = {x, target_i32(e, 0x1F | (16 << 10))};
    return target_call(e, "llvm.amdgcn.ds.swizzle", i32_type(e), args, 2);
  }
  default: {
    LLVMValueRef src_lane = LLVMBuildXor(e->b, lane_id(e), target_i32(e, lane_mask & 63), "");
    LLVMValueRef args[2] = {LLVMBuildShl(e->b, src_lane, target_i32(e, 2), ""), x};
    return target_call(e, "llvm.amdgcn.ds.bpermute", i32_type(e), args, 2);
  }
  }
}

/* ---------------------------------------------------------------- global memory */

/* The access as one LLVM value: <words x i32>, or an i8 / i16 for narrow ones. */
static LLVMTypeRef access_type(const target_emitter *e, const target_global_access *a) {
  if (a->bits < 32) return LLVMIntTypeInContext(e->ctx, (unsigned)a->bits);
  return a->words == 1 ? i32_type(e) : LLVMVectorType(i32_type(e), (unsigned)a->words);
}

/* A branch on pred around what the caller emits next: returns the block to continue in after it
 * (the builder is left in the guarded block). */
static LLVMBasicBlockRef begin_guard(const target_emitter *e, LLVMValueRef pred, LLVMBasicBlockRef *from) {
  *from = LLVMGetInsertBlock(e->b);
  LLVMBasicBlockRef then_bb = LLVMCreateBasicBlockInContext(e->ctx, "guarded");
  LLVMBasicBlockRef merge = LLVMCreateBasicBlockInContext(e->ctx, "guard.end");
  LLVMInsertExistingBasicBlockAfterInsertBlock(e->b, then_bb);
  LLVMBuildCondBr(e->b, pred, then_bb, merge);
  LLVMPositionBuilderAtEnd(e->b, then_bb);
  LLVMInsertExistingBasicBlockAfterInsertBlock(e->b, merge);
  return merge;
}

static bool always(LLVMValueRef pred) {
  return !pred || (LLVMIsAConstantInt(pred) && LLVMConstIntGetZExtValue(pred) != 0);
}

static void set_access_flags(LLVMValueRef inst, const target_global_access *a) {
  LLVMSetAlignment(inst, (unsigned)(a->bits / 8));
  if (a->is_volatile) LLVMSetVolatile(inst, 1);
}

static void amdgpu_load_global(const target_emitter *e, const target_global_access *a, LLVMValueRef *words) {
  LLVMTypeRef t = access_type(e, a);
  LLVMValueRef loaded;
  if (always(a->pred)) {
    loaded = LLVMBuildLoad2(e->b, t, a->ptr, "");
    set_access_flags(loaded, a);
  } else {
    /* Masked-off lanes take `other` (zero when absent), assembled before the branch. */
    LLVMValueRef other = LLVMConstNull(t);
    if (a->bits < 32) {
      if (a->other[0]) other = LLVMBuildTrunc(e->b, a->other[0], t, "");
    } else if (a->words == 1) {
      if (a->other[0]) other = a->other[0];
    } else {
      for (int k = 0; k < a->words; k++)
        if (a->other[k]) other = LLVMBuildInsertElement(e->b, other, a->other[k], target_i32(e, k), "");
    }
    LLVMBasicBlockRef from;
    LLVMBasicBlockRef merge = begin_guard(e, a->pred, &from);
    LLVMValueRef v = LLVMBuildLoad2(e->b, t, a->ptr, "");
    set_access_flags(v, a);
    LLVMBasicBlockRef loaded_in = LLVMGetInsertBlock(e->b);
    LLVMBuildBr(e->b, merge);
    LLVMPositionBuilderAtEnd(e->b, merge);
    loaded = LLVMBuildPhi(e->b, t, "");
    LLVMValueRef vals[2] = {v, other};
    LLVMBasicBlockRef blocks[2] = {loaded_in, from};
    LLVMAddIncoming(loaded, vals, blocks, 2);
  }
  if (a->bits < 32) words[0] = LLVMBuildZExt(e->b, loaded, i32_type(e), "");
  else if (a->words == 1) words[0] = loaded;
  else
    for (int k = 0; k < a->words; k++) words[k] = LLVMBuildExtractElement(e->b, loaded, target_i32(e, k), "");
}

static void amdgpu_store_global(const target_emitter *e, const target_global_access *a, LLVMValueRef const *words) {
  LLVMTypeRef t = access_type(e, a);
  LLVMValueRef v;
  if (a->bits < 32) {
    v = LLVMBuildTrunc(e->b, words[0], t, "");
  } else if (a->words == 1) {
    v = words[0];
  } else {
    v = LLVMGetUndef(t);
    for (int k = 0; k < a->words; k++) v = LLVMBuildInsertElement(e->b, v, words[k], target_i32(e, k), "");
  }
  LLVMBasicBlockRef from, merge = NULL;
  if (!always(a->pred)) merge = begin_guard(e, a->pred, &from);
  set_access_flags(LLVMBuildStore(e->b, v, a->ptr), a);
  if (merge) {
    LLVMBuildBr(e->b, merge);
    LLVMPositionBuilderAtEnd(e->b, merge);
  }
}

/* ---------------------------------------------------------------- atomics */

/* LLVM's atomicrmw / cmpxchg at the system scope (LLVM 19's C API sets no narrower one) with
 * Triton's ordering; a masked-off element reads zero. */
static LLVMValueRef amdgpu_atomic(const target_emitter *e, const target_atomic *a) {
  static const LLVMAtomicOrdering orders[] = {LLVMAtomicOrderingMonotonic, LLVMAtomicOrderingAcquire,
                                              LLVMAtomicOrderingRelease, LLVMAtomicOrderingAcquireRelease};
  if (a->vec > 1) return NULL; /* one element at a time */
  LLVMTypeRef t = LLVMTypeOf(a->val);
  LLVMTypeKind k = LLVMGetTypeKind(t);
  bool is_float = k != LLVMIntegerTypeKind;
  LLVMAtomicRMWBinOp op = LLVMAtomicRMWBinOpXchg;
  switch (a->op) {
  case TARGET_ATOMIC_AND: op = LLVMAtomicRMWBinOpAnd; break;
  case TARGET_ATOMIC_OR: op = LLVMAtomicRMWBinOpOr; break;
  case TARGET_ATOMIC_XOR: op = LLVMAtomicRMWBinOpXor; break;
  case TARGET_ATOMIC_ADD: op = LLVMAtomicRMWBinOpAdd; break;
  case TARGET_ATOMIC_FADD: op = LLVMAtomicRMWBinOpFAdd; break;
  case TARGET_ATOMIC_MAX: op = LLVMAtomicRMWBinOpMax; break;
  case TARGET_ATOMIC_MIN: op = LLVMAtomicRMWBinOpMin; break;
  case TARGET_ATOMIC_UMAX: op = LLVMAtomicRMWBinOpUMax; break;
  case TARGET_ATOMIC_UMIN: op = LLVMAtomicRMWBinOpUMin; break;
  case TARGET_ATOMIC_EXCH:
  case TARGET_ATOMIC_CAS: break;
  }
  if ((a->op == TARGET_ATOMIC_FADD) != is_float && a->op != TARGET_ATOMIC_EXCH && a->op != TARGET_ATOMIC_CAS)
    return NULL;
  LLVMBasicBlockRef from = NULL, merge = NULL;
  if (!always(a->pred)) merge = begin_guard(e, a->pred, &from);
  LLVMAtomicOrdering order = orders[a->sem];
  LLVMValueRef r;
  if (a->op == TARGET_ATOMIC_CAS) {
    LLVMTypeRef it = LLVMIntTypeInContext(e->ctx, (unsigned)target_scalar_bits(t));
    LLVMValueRef cmp = is_float ? LLVMBuildBitCast(e->b, a->cmp, it, "") : a->cmp;
    LLVMValueRef val = is_float ? LLVMBuildBitCast(e->b, a->val, it, "") : a->val;
    /* the failure ordering may not release */
    LLVMAtomicOrdering fail = order == LLVMAtomicOrderingRelease ? LLVMAtomicOrderingMonotonic
                              : order == LLVMAtomicOrderingAcquireRelease ? LLVMAtomicOrderingAcquire : order;
    LLVMValueRef pair = LLVMBuildAtomicCmpXchg(e->b, a->ptr, cmp, val, order, fail, 0);
    r = LLVMBuildExtractValue(e->b, pair, 0, "");
    if (is_float) r = LLVMBuildBitCast(e->b, r, t, "");
  } else {
    r = LLVMBuildAtomicRMW(e->b, op, a->ptr, a->val, order, 0);
  }
  if (merge) {
    LLVMBasicBlockRef done_from = LLVMGetInsertBlock(e->b);
    LLVMBuildBr(e->b, merge);
    LLVMPositionBuilderAtEnd(e->b, merge);
    LLVMValueRef phi = LLVMBuildPhi(e->b, t, "");
    LLVMValueRef vals[2] = {r, LLVMConstNull(t)};
    LLVMBasicBlockRef blocks[2] = {done_from, from};
    LLVMAddIncoming(phi, vals, blocks, 2);
    r = phi;
  }
  return r;
}

/* ---------------------------------------------------------------- special functions and conversions */

static LLVMValueRef call_f32(const target_emitter *e, const char *name, LLVMValueRef x) {
  return target_call(e, name, f32_type(e), &x, 1);
}

static LLVMValueRef amdgpu_special_f32(const target_emitter *e, target_special_fn fn, LLVMValueRef x) {
  switch (fn) {
  /* The raw hardware instructions (v_exp_f32, v_rsq_f32, v_rcp_f32): about 1 ulp, flush
   * denormal results, as NVIDIA's .approx forms. */
  case TARGET_SPECIAL_EXP2: return call_f32(e, "llvm.amdgcn.exp2.f32", x);
  case TARGET_SPECIAL_RSQRT: return call_f32(e, "llvm.amdgcn.rsq.f32", x);
  case TARGET_SPECIAL_RCP: return call_f32(e, "llvm.amdgcn.rcp.f32", x);
  }
  return NULL;
}

static LLVMValueRef amdgpu_rsqrt_f64(const target_emitter *e, LLVMValueRef x) {
  return target_call(e, "llvm.amdgcn.rsq.f64", LLVMTypeOf(x), &x, 1);
}

static LLVMValueRef amdgpu_truncate_rtz(const target_emitter *e, LLVMValueRef x, LLVMTypeRef to) {
  if (LLVMGetTypeKind(to) == LLVMHalfTypeKind) {
    /* v_cvt_pkrtz_f16_f32 converts two floats toward zero; the low half is ours. */
    LLVMValueRef args[2] = {x, LLVMConstReal(f32_type(e), 0.0)};
    LLVMValueRef pair = target_call(e, "llvm.amdgcn.cvt.pkrtz", LLVMVectorType(to, 2), args, 2);
    return LLVMBuildExtractElement(e->b, pair, target_i32(e, 0), "");
  }
  /* bf16 toward zero: the upper 16 bits of the f32, a quiet NaN for NaN (whose payload may sit
   * in the low bits only). */
  LLVMTypeRef i16 = LLVMInt16TypeInContext(e->ctx);
  LLVMValueRef bits = LLVMBuildBitCast(e->b, x, i32_type(e), "");
  LLVMValueRef hi = LLVMBuildTrunc(e->b, LLVMBuildLShr(e->b, bits, target_i32(e, 16), ""), i16, "");
  LLVMValueRef nan = LLVMBuildFCmp(e->b, LLVMRealUNO, x, x, "");
  LLVMValueRef quiet = LLVMBuildOr(e->b, hi, LLVMConstInt(i16, 0x0040, 0), "");
  return LLVMBuildBitCast(e->b, LLVMBuildSelect(e->b, nan, quiet, hi, ""), to, "");
}

/* ---------------------------------------------------------------- MFMA */

/* The LLVM type of one operand register of an MFMA intrinsic: kBase elements of this lane. */
static LLVMTypeRef mfma_operand_type(const target_emitter *e, const target_mma *instr) {
  int k_base = target_mfma_k_base(instr);
  switch (instr->a) {
  case TARGET_DT_F16: return LLVMVectorType(LLVMHalfTypeInContext(e->ctx), (unsigned)k_base);
  case TARGET_DT_BF16: return LLVMVectorType(LLVMInt16TypeInContext(e->ctx), (unsigned)k_base);
  case TARGET_DT_F32: return f32_type(e);
  case TARGET_DT_TF32: return LLVMVectorType(f32_type(e), (unsigned)k_base);
  default: /* 8-bit types: packed into one integer (i32 for 4, i64 for 8) */
    return LLVMIntTypeInContext(e->ctx, (unsigned)(8 * k_base));
  }
}

/* args: A and B (a vector of the lane's kBase elements each), then the C registers (m*n/64
 * scalars); returns the D registers as a struct. */
static LLVMValueRef amdgpu_mma(const target_emitter *e, const target_mma *instr, LLVMValueRef *args, int num_args) {
  enum { MAX_ACC = 16 };
  int num_acc = num_args - 2;
  if (num_acc < 1 || num_acc > MAX_ACC) return NULL;
  LLVMTypeRef op_type = mfma_operand_type(e, instr);
  LLVMValueRef ab[2];
  for (int i = 0; i < 2; i++) {
    LLVMValueRef v = args[i];
    if (LLVMGetTypeKind(op_type) != LLVMVectorTypeKind && LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMVectorTypeKind &&
        LLVMGetVectorSize(LLVMTypeOf(v)) == 1)
      v = LLVMBuildExtractElement(e->b, v, target_i32(e, 0), "");
    ab[i] = LLVMTypeOf(v) == op_type ? v : LLVMBuildBitCast(e->b, v, op_type, "");
  }
  LLVMTypeRef c_elem = instr->c == TARGET_DT_I32 ? i32_type(e) : f32_type(e);
  LLVMTypeRef c_type = LLVMVectorType(c_elem, (unsigned)num_acc);
  LLVMValueRef c = LLVMGetUndef(c_type);
  for (int i = 0; i < num_acc; i++) c = LLVMBuildInsertElement(e->b, c, args[2 + i], target_i32(e, i), "");
  LLVMValueRef call_args[6] = {ab[0], ab[1], c, target_i32(e, 0), target_i32(e, 0), target_i32(e, 0)};
  LLVMValueRef d = target_call(e, instr->intrinsic, c_type, call_args, 6);
  LLVMTypeRef fields[MAX_ACC];
  for (int i = 0; i < num_acc; i++) fields[i] = c_elem;
  LLVMValueRef out = LLVMGetUndef(LLVMStructTypeInContext(e->ctx, fields, (unsigned)num_acc, 0));
  for (int i = 0; i < num_acc; i++)
    out = LLVMBuildInsertValue(e->b, out, LLVMBuildExtractElement(e->b, d, target_i32(e, i), ""), (unsigned)i, "");
  return out;
}

/* ---------------------------------------------------------------- scheduling hints */

static void amdgpu_set_priority(const target_emitter *e, int priority) {
  LLVMValueRef p = LLVMConstInt(LLVMInt16TypeInContext(e->ctx), (unsigned long long)priority, 0);
  target_call(e, "llvm.amdgcn.s.setprio", void_type(e), &p, 1);
}

static void amdgpu_sched_barrier(const target_emitter *e, int mask) {
  LLVMValueRef m = target_i32(e, mask);
  target_call(e, "llvm.amdgcn.sched.barrier", void_type(e), &m, 1);
}

/* ---------------------------------------------------------------- kernels */

/* The amdgpu_kernel calling convention, the flat work-group size and the module's code object
 * version; the waves per EU come from the compile options (the driver adds them). */
static void amdgpu_mark_kernel(const target_emitter *e, LLVMValueRef fn, const target_kernel_attrs *attrs) {
  target_amdgpu_mark_kernel(e->mod, fn, attrs->threads_per_block);
}

const target_codegen target_amdgpu_codegen = {
    .name = "amdgpu",
    .global_addr_space = 1,
    .shared_addr_space = 3,
    .max_global_access_bits = 128, /* global_load_dwordx4 */
    .max_shared_access_bytes = 16, /* ds_read_b128 */
    .thread_id = amdgpu_thread_id,
    .program_id = amdgpu_program_id,
    .num_programs = amdgpu_num_programs,
    .barrier = amdgpu_barrier,
    .shuffle_xor = amdgpu_shuffle_xor,
    .load_global = amdgpu_load_global,
    .store_global = amdgpu_store_global,
    .atomic = amdgpu_atomic,
    .special_f32 = amdgpu_special_f32,
    .rsqrt_f64 = amdgpu_rsqrt_f64,
    .truncate_rtz = amdgpu_truncate_rtz,
    .mma = amdgpu_mma,
    .set_priority = amdgpu_set_priority,
    .sched_barrier = amdgpu_sched_barrier,
    .mark_kernel = amdgpu_mark_kernel,
};

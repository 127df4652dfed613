/* Op dispatch: each op kind to its family (lower_ops.h), block by block. */
#include "lower_dispatch.h"

#include "lower_ops.h"

static bool lower_unsupported(lower_state *s, ir_op *op) {
  ir_op_error(s->ctx, op, "lowering of '%s' is not implemented yet", ir_op_name(op));
  return false;
}

bool lower_op(lower_state *s, ir_op *op) {
  switch (op->kind) {
  case OP_GET_PROGRAM_ID:
  case OP_GET_NUM_PROGRAMS: return lower_program_id(s, op);
  case OP_MAKE_RANGE:
  case OP_SPLAT:
  case OP_EXPAND_DIMS:
  case OP_BROADCAST:
  case OP_RESHAPE:
  case OP_TRANS:
  case OP_SPLIT:
  case OP_JOIN:
  case OP_ADDPTR:
  case OP_LOAD:
  case OP_STORE: return lower_memory(s, op);
  case OP_SCF_FOR:
  case OP_SCF_WHILE:
  case OP_SCF_IF: return lower_control(s, op);
  case OP_REDUCE: return lower_reduce(s, op);
  case OP_SCAN: return lower_scan(s, op);
  case OP_CONVERT_LAYOUT: return lower_is_convert_to_mma_operand(op) ? lower_convert_to_dot_operand(s, op) : lower_convert(s, op);
  case OP_DOT: return lower_dot(s, op);
  case OP_GATHER: return lower_gather(s, op);
  case OP_HISTOGRAM: return lower_histogram(s, op);
  case OP_GPU_BARRIER: lower_barrier(s); return true;
  case OP_ATOMIC_RMW:
  case OP_ATOMIC_CAS: return lower_atomic(s, op);
  case OP_LOCAL_ALLOC:
  case OP_LOCAL_LOAD:
  case OP_LOCAL_STORE:
  case OP_LOCAL_DEALLOC:
  case OP_MEMDESC_INDEX:
  case OP_MEMDESC_TRANS:
  case OP_MEMDESC_REINTERPRET: return lower_local_memory(s, op);
  case OP_ASYNC_COPY:
  case OP_ASYNC_COMMIT_GROUP:
  case OP_ASYNC_WAIT: return lower_async(s, op);
  case OP_WARP_GROUP_DOT:
  case OP_WARP_GROUP_DOT_WAIT: return lower_wgmma(s, op);
  case OP_IN_THREAD_TRANSPOSE: return lower_convert(s, op); /* registers only, as a conversion */
  case OP_ROCDL_SETPRIO:
  case OP_ROCDL_SCHED_BARRIER: return lower_sched_hint(s, op);
  case OP_MAKE_TENSOR_DESC:
  case OP_GLOBAL_SCRATCH_ALLOC:
  case OP_TENSORMAP_CREATE:
  case OP_TENSORMAP_FENCEPROXY_ACQUIRE:
  case OP_REINTERPRET_TENSOR_DESC:
  case OP_TMA_LOAD:
  case OP_TMA_STORE:
  case OP_TMA_REDUCE:
  case OP_TMA_STORE_WAIT:
  case OP_FENCE_ASYNC_SHARED:
  case OP_INIT_BARRIER:
  case OP_INVAL_BARRIER:
  case OP_BARRIER_EXPECT:
  case OP_ARRIVE_BARRIER:
  case OP_CLUSTER_ARRIVE:
  case OP_CLUSTER_WAIT:
  case OP_FENCE_MBARRIER_INIT:
  case OP_WAIT_BARRIER: return lower_tma(s, op);
  case OP_WARP_SPECIALIZE: return lower_warp_specialize(s, op);
  case OP_NUM_WORKERS: return lower_num_workers(s, op);
  case OP_CLUSTER_SIZE:
    if (!s->cg->cluster_size) {
      ir_op_error(s->ctx, op, "target %s has no thread block clusters", s->target->name);
      return false;
    }
    return lower_set1(s, &op->results[0], s->cg->cluster_size(&s->em));
  case OP_REPLICA_ID: return lower_set1(s, &op->results[0], s->threads->replica ? s->threads->replica : lower_i32(s, 0));
  case OP_CONSTANT: return lower_elementwise(s, op);
  case OP_LLVM_ASSUME:
    return lower_assume(s, op);
  case OP_ELEMENTWISE_INLINE_ASM: return lower_inline_asm(s, op);
  case OP_PRINT: return lower_print(s, op);
  case OP_ASSERT: return lower_assert(s, op);
  default:
    /* arith, math, casts, tt.int_to_ptr / ptr_to_int / bitcast / fp_to_fp (tt.addptr, elementwise
     * too, is lowered with the pointer ops above) */
    if (ir_op_info_of(op->kind)->traits & TRAIT_ELEMENTWISE) return lower_elementwise(s, op);
    return lower_unsupported(s, op);
  }
}

/* Ops that compute in registers only, or read global memory, or start with a barrier of their
 * own (a ttg.local_alloc with a value: its barrier pays what is owed): a deferred barrier may
 * wait past them. */
static bool keeps_barrier_deferred(const ir_op *op) {
  switch (op->kind) {
  case OP_LOAD:
  case OP_LOCAL_ALLOC:
  case OP_CONSTANT:
  case OP_LLVM_ASSUME:
  case OP_GET_PROGRAM_ID:
  case OP_GET_NUM_PROGRAMS:
  case OP_MAKE_RANGE:
  case OP_SPLAT:
  case OP_EXPAND_DIMS:
  case OP_BROADCAST:
  case OP_RESHAPE:
  case OP_TRANS:
  case OP_SPLIT:
  case OP_JOIN:
  case OP_ADDPTR:
  case OP_MEMDESC_INDEX: /* a view: address arithmetic */
  case OP_MEMDESC_TRANS:
  case OP_MEMDESC_REINTERPRET: return true;
  default: return (ir_op_info_of(op->kind)->traits & TRAIT_ELEMENTWISE) && ir_op_is_pure(op);
  }
}

ir_op *lower_block(lower_state *s, ir_block *block, bool *ok) {
  *ok = true;
  /* A nested block is entered from before its op and, for a loop, from its own end. */
  const ir_op *owner = block->parent ? block->parent->parent : NULL;
  if (owner && owner->kind != OP_FUNC) s->smem_read_pending = true;
  for (ir_op *op = block->first; op; op = op->next) {
    if (!keeps_barrier_deferred(op)) lower_barrier_settle(s);
    if (ir_op_info_of(op->kind)->traits & TRAIT_TERMINATOR) return op;
    if (!lower_op(s, op) || s->oom) {
      if (s->oom) ir_op_error(s->ctx, op, "out of memory while lowering to LLVM IR");
      *ok = false;
      return NULL;
    }
    if (op->num_regions) s->smem_read_pending = true; /* its blocks' reads join here */
  }
  return NULL;
}

ir_op *lower_block_until(lower_state *s, const ir_op *op, ir_block *block, ir_op_kind kind, int num_operands,
                         const char *what) {
  bool ok;
  ir_op *term = lower_block(s, block, &ok);
  if (!ok) return NULL;
  if (!term || term->kind != kind || term->num_operands != num_operands) {
    ir_op_error(s->ctx, op, "%s must end with %s of %d values", what, ir_op_info_of(kind)->name, num_operands);
    return NULL;
  }
  return term;
}

bool lower_combine_region(lower_state *s, ir_op *op, LLVMValueRef const *lhs, LLVMValueRef const *rhs,
                          LLVMValueRef *out) {
  int n = op->num_operands;
  ir_op_kind ret_kind = op->kind == OP_SCAN ? OP_SCAN_RETURN : OP_REDUCE_RETURN;
  const char *what = op->kind == OP_SCAN ? "the combine region of tt.scan" : "the combine region of tt.reduce";
  ir_block *block = op->num_regions ? ir_region_entry(&op->regions[0]) : NULL;
  if (!block || block->num_args != 2 * n) {
    ir_op_error(s->ctx, op, "%s must take %d arguments", what, 2 * n);
    return false;
  }
  for (int k = 0; k < n; k++)
    if (!lower_set1(s, block->args[k], lhs[k]) || !lower_set1(s, block->args[n + k], rhs[k])) return false;
  ir_op *ret = lower_block_until(s, op, block, ret_kind, n, what);
  if (!ret) return false;
  for (int k = 0; k < n; k++) {
    const lower_values *v = lower_get(s, ret, ret->operands[k].value);
    if (!v) return false;
    out[k] = v->v[0];
  }
  return true;
}

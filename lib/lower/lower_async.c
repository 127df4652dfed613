/* Asynchronous copies: ttg.async_copy_global_to_local (zero-filled under its mask), ttg.async_commit_group, ttg.async_wait (+ barrier), through the target's async-copy hooks. */
#include "lower_memory.h"
#include "lower_ops.h"
#include "lower_shared.h"

static bool is_zero_constant(const ir_value *v) {
  const ir_op *def = v->def_op;
  const ir_attr *a = def && def->kind == OP_CONSTANT ? ir_op_get_attr(def, "value") : NULL;
  if (!a || a->kind != AT_DENSE || !a->dense_splat || a->num_elems != 1) return false;
  const ir_attr *e = a->elems[0];
  return (e->kind == AT_INT && e->int_value == 0) || (e->kind == AT_FLOAT && e->float_value == 0.0);
}

static bool lower_async_copy(lower_state *s, ir_op *op) {
  const ir_value *ptr = op->operands[0].value, *dst = op->operands[1].value;
  const ir_value *mask = op->num_operands > 2 ? op->operands[2].value : NULL;
  const ir_type *mt = dst->type;
  if (!(s->target->caps & GEMMC_CAP_CP_ASYNC) || !s->cg->async_copy) {
    ir_op_error(s->ctx, op, "'%s' needs asynchronous copies (NVIDIA: sm_80 or newer)", ir_op_name(op));
    return false;
  }
  if (op->num_operands > 3 && !is_zero_constant(op->operands[3].value)) {
    ir_op_error(s->ctx, op, "lowering of '%s' with a nonzero 'other' is not implemented yet (async copies fill zeros)",
                ir_op_name(op));
    return false;
  }
  if (mt->kind != TY_MEMDESC || !mt->encoding || !layout_is_shared(mt->encoding)) {
    ir_op_error(s->ctx, op, "cannot lower '%s': the destination needs a shared layout", ir_type_str(s->ctx, mt));
    return false;
  }
  const lower_values *p = lower_get(s, op, ptr), *mem = lower_get(s, op, dst);
  const lower_values *m = mask ? lower_get(s, op, mask) : NULL;
  lower_layout_info *li = lower_layout_of(s, op, ptr->type);
  LLVMTypeRef et = lower_elem_type(s, mt);
  if (!p || !mem || (mask && !m) || !li || !et) return false;
  lower_smem_map map;
  if (!lower_smem_map_build(s, op, li, mt->encoding, mt->rank, mt->shape, &map)) return false;
  int bytes = lower_elem_bytes(mt);
  int vec = lower_smem_vector_width(&map, bytes);
  int gvec = (int)axis_info_access_width(s->axis, ptr, mask, 8 * bytes);
  if (gvec < vec) vec = gvec;
  int chunk = vec * bytes;
  /* Threads that hold a broadcast copy (a row vector replicated over warps) do not write it
   * again: two writers of one address race (racecheck), and a masked-off cp.async writes zeros.
   * cp.async is predicated on the owner; the narrow fallback branches around its loads and stores.
   * (Copying each element once costs attention backward's w4 loop ~20% against every replica
   * copying it: perf-notes 46; not understood.) */
  LLVMBasicBlockRef done_bb = NULL;
  if (li->owner && chunk < 4) {
    LLVMBasicBlockRef own_bb = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "async.copy.own");
    done_bb = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "async.copy.done");
    LLVMBuildCondBr(s->b, li->owner, own_bb, done_bb);
    LLVMPositionBuilderAtEnd(s->b, own_bb);
  }
  if (chunk < 4) {
    /* Too few contiguous bytes on one side for cp.async (a 1-byte operand whose shared layout
     * runs along the other dim: fp8 or int8 B that is N-major in memory but K-major for the
     * MMA): vectorized loads into registers and ordinary stores, fenced for the tensor cores
     * like a local_store (the wait's barrier then publishes them). */
    const ir_type *pt = ptr->type;
    const ir_type *values_type = ir_tensor_type(s->ctx, pt->rank, pt->shape, mt->elem, pt->encoding);
    lower_values *vals;
    if (!lower_global_load_values(s, op, ptr, mask, NULL, values_type, &vals)) return false;
    lower_smem_store_values(s, mem->v[0], &map, li, et, bytes, vals);
    if (mt->encoding->kind == AT_NVMMA_SHARED && s->cg->fence_async_shared) s->cg->fence_async_shared(&s->em);
  } else {
    target_cache cache = lower_cache_modifier(op);
    for (int r0 = 0; r0 < li->num_regs; r0 += vec) {
      if (r0 & li->reg_dup_mask) continue; /* a broadcast copy of a register copied already */
      LLVMValueRef off = lower_smem_offset(s, map.lw, map.lw_mask, lower_smem_reg_offset(&map, r0));
      LLVMValueRef to = LLVMBuildGEP2(s->b, et, mem->v[0], &off, 1, "");
      LLVMValueRef from = lower_elem(p, r0);
      LLVMValueRef pred = m ? lower_elem(m, r0) : NULL;
      s->cg->async_copy(&s->em, to, from, chunk, pred, li->owner, cache);
    }
  }
  if (done_bb) {
    LLVMBuildBr(s->b, done_bb);
    LLVMPositionBuilderAtEnd(s->b, done_bb);
  }
  return lower_set1(s, &op->results[0], LLVMGetUndef(s->i32)); /* tokens carry no data */
}

bool lower_async(lower_state *s, ir_op *op) {
  switch (op->kind) {
  case OP_ASYNC_COPY:
    /* Other threads may still be reading the bytes this copy overwrites: Triton's pipeliner
     * refills the buffer an iteration has just read (its membar analysis puts a barrier here). */
    if (s->smem_read_pending) lower_barrier(s);
    return lower_async_copy(s, op);
  case OP_ASYNC_COMMIT_GROUP:
    s->cg->async_commit(&s->em);
    return lower_set1(s, &op->results[0], LLVMGetUndef(s->i32));
  case OP_ASYNC_WAIT: {
    /* This thread's groups but the newest `num` are done; the barrier makes every thread's visible. */
    /* No proxy fence: asynchronous copies are not generic-proxy stores (Triton's FenceInsertion
     * fences only register -> shared copies, local_alloc with a value and local_store, which
     * lower_shared.c does). */
    s->cg->async_wait(&s->em, (int)ir_op_get_int_attr(op, "num", 0));
    lower_barrier(s);
    return lower_set1(s, &op->results[0], LLVMGetUndef(s->i32));
  }
  default:
    ir_op_error(s->ctx, op, "internal error: '%s' is not an async-copy op", ir_op_name(op));
    return false;
  }
}

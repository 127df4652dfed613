/* tt.gather: the source goes to shared memory in row-major order, then every thread reads its result elements at the coordinates its indices name. */
#include "lower_index.h"
#include "lower_ops.h"

/* An element as it sits in shared memory: i1 takes a byte. */
static LLVMValueRef to_memory(lower_state *s, LLVMValueRef x, bool is_bool) {
  return is_bool ? LLVMBuildZExt(s->b, x, LLVMInt8TypeInContext(s->llctx), "") : x;
}

bool lower_gather(lower_state *s, ir_op *op) {
  const ir_type *st = op->operands[0].value->type, *it = op->operands[1].value->type, *rt = op->results[0].type;
  int64_t axis = ir_op_get_int_attr(op, "axis", 0);
  LLVMValueRef base = lower_shared_base(s, op);
  LLVMTypeRef et = lower_elem_type(s, st->elem);
  if (!base || !et) {
    if (!base)
      ir_op_error(s->ctx, op, "internal error: tt.gather has no shared scratch");
    else
      ir_op_error(s->ctx, op, "lowering of tt.gather of %s is not implemented", ir_type_str(s->ctx, st));
    return false;
  }
  lower_layout_info *sl = lower_layout_of(s, op, st), *il = lower_layout_of(s, op, it);
  const lower_values *src = lower_get(s, op, op->operands[0].value), *idx = lower_get(s, op, op->operands[1].value);
  if (!sl || !il || !src || !idx) return false;
  LLVMTypeRef mt = lower_memory_type(s, et);
  bool is_bool = mt != et;

  /* Earlier readers of the scratch bytes are done; every copy of a replicated element writes the
   * same value. */
  lower_barrier(s);
  for (int r = 0; r < sl->num_regs && r < src->n; r++) {
    if (r & sl->reg_dup_mask) continue;
    LLVMValueRef c[IR_MAX_RANK] = {0};
    for (int d = 0; d < st->rank; d++) c[d] = lower_coord(s, sl, r, d);
    LLVMBuildStore(s->b, to_memory(s, src->v[r], is_bool),
                   lower_smem_ptr_from(s, base, 0, mt, lower_row_major_offset(s, st, c)));
  }
  lower_barrier(s);

  /* Out-of-range indices are undefined in Triton; here they read element 0 of their line rather
   * than memory past the buffer. */
  int n = il->num_regs;
  lower_values *out = lower_values_new(s, op, n);
  if (!out) return false;
  for (int r = 0; r < n && r < idx->n; r++) {
    LLVMValueRef c[IR_MAX_RANK] = {0};
    for (int d = 0; d < rt->rank; d++) c[d] = lower_coord(s, il, r, d);
    LLVMValueRef i = lower_index_i32(s, idx->v[r]);
    LLVMValueRef in_range = LLVMBuildICmp(s->b, LLVMIntULT, i, lower_i32(s, st->shape[axis]), "");
    c[axis] = LLVMBuildSelect(s->b, in_range, i, lower_i32(s, 0), "gather.index");
    LLVMValueRef x =
        LLVMBuildLoad2(s->b, mt, lower_smem_ptr_from(s, base, 0, mt, lower_row_major_offset(s, st, c)), "");
    out->v[r] = is_bool ? LLVMBuildTrunc(s->b, x, et, "") : x;
  }
  s->smem_read_pending = true;
  return lower_set(s, &op->results[0], out);
}

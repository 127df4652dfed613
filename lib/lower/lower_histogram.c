/* tt.histogram: bins in shared memory, zeroed, counted with shared-memory atomics by the threads that own each source element, then read in the result's layout. */
#include "lower_index.h"
#include "lower_ops.h"

bool lower_histogram(lower_state *s, ir_op *op) {
  const ir_type *st = op->operands[0].value->type, *rt = op->results[0].type;
  int64_t bins = rt->shape[0];
  LLVMValueRef base = lower_shared_base(s, op);
  if (!base) {
    ir_op_error(s->ctx, op, "internal error: tt.histogram has no shared scratch");
    return false;
  }
  lower_layout_info *sl = lower_layout_of(s, op, st), *rl = lower_layout_of(s, op, rt);
  const lower_values *src = lower_get(s, op, op->operands[0].value);
  const lower_values *mask = op->num_operands > 1 ? lower_get(s, op, op->operands[1].value) : NULL;
  if (!sl || !rl || !src || (op->num_operands > 1 && !mask)) return false;
  LLVMTypeRef rt_elem = lower_elem_type(s, rt->elem);

  /* Zero the bins: thread t takes bins t, t + T, ...; past the end it writes the last bin's
   * zero again rather than branching. */
  lower_barrier(s);
  int64_t threads = (int64_t)s->threads->num_warps * s->threads_per_warp;
  for (int64_t k = 0; k * threads < bins; k++) {
    LLVMValueRef i = LLVMBuildAdd(s->b, s->threads->tid, lower_i32(s, k * threads), "");
    LLVMValueRef last = lower_i32(s, bins - 1);
    i = LLVMBuildSelect(s->b, LLVMBuildICmp(s->b, LLVMIntULT, i, last, ""), i, last, "");
    LLVMBuildStore(s->b, lower_i32(s, 0), lower_smem_ptr_from(s, base, 0, s->i32, i));
  }
  lower_barrier(s);

  /* Count: each element once (its owning thread, its first register), in range and unmasked;
   * the others add 0 to bin 0. */
  for (int r = 0; r < sl->num_regs && r < src->n; r++) {
    if (r & sl->reg_dup_mask) continue;
    LLVMValueRef bin = lower_index_i32(s, src->v[r]); /* -1: no bin */
    LLVMValueRef counts = LLVMBuildICmp(s->b, LLVMIntULT, bin, lower_i32(s, bins), "");
    if (mask) counts = LLVMBuildAnd(s->b, counts, lower_elem(mask, r), "");
    if (sl->owner) counts = LLVMBuildAnd(s->b, counts, sl->owner, "");
    LLVMValueRef at = LLVMBuildSelect(s->b, counts, bin, lower_i32(s, 0), "histogram.bin");
    LLVMBuildAtomicRMW(s->b, LLVMAtomicRMWBinOpAdd, lower_smem_ptr_from(s, base, 0, s->i32, at),
                       LLVMBuildZExt(s->b, counts, s->i32, ""), LLVMAtomicOrderingMonotonic, false);
  }
  lower_barrier(s);

  lower_values *out = lower_values_new(s, op, rl->num_regs);
  if (!out) return false;
  for (int r = 0; r < rl->num_regs; r++) {
    LLVMValueRef x =
        LLVMBuildLoad2(s->b, s->i32, lower_smem_ptr_from(s, base, 0, s->i32, lower_coord(s, rl, r, 0)), "");
    unsigned w = LLVMGetIntTypeWidth(rt_elem);
    out->v[r] = w > 32 ? LLVMBuildZExt(s->b, x, rt_elem, "") : w < 32 ? LLVMBuildTrunc(s->b, x, rt_elem, "") : x;
  }
  s->smem_read_pending = true;
  return lower_set(s, &op->results[0], out);
}

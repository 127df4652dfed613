/* Layout inference rules of the shape ops (Triton's DialectInferLayoutInterface): which layout expand_dims, reduce and trans give their results, or ask of their operands. */
#include "gemmc/layout.h"

const ir_attr *layout_infer_expand_dims_operand(gemmc_context *ctx, const ir_attr *result, int axis) {
  return result ? layout_slice_get(ctx, axis, result) : NULL;
}

const ir_attr *layout_infer_expand_dims_result(const ir_attr *operand, int axis) {
  /* slice(axis, P) expanded along axis is P */
  if (!operand || operand->kind != AT_SLICE || operand->layout.dim != axis) return NULL;
  return operand->layout.parent;
}

const ir_attr *layout_infer_reduce_result(gemmc_context *ctx, const ir_attr *operand, int axis) {
  return operand ? layout_slice_get(ctx, axis, operand) : NULL;
}

const ir_attr *layout_infer_trans_result(gemmc_context *ctx, const ir_attr *operand, const int *perm, int rank) {
  if (!operand || operand->kind != AT_BLOCKED || operand->layout.rank != rank) return NULL;
  ir_layout_params p = operand->layout;
  int inverse[IR_MAX_RANK];
  for (int d = 0; d < rank; d++) inverse[perm[d]] = d;
  for (int d = 0; d < rank; d++) {
    p.size_per_thread[d] = operand->layout.size_per_thread[perm[d]];
    p.threads_per_warp[d] = operand->layout.threads_per_warp[perm[d]];
    p.warps_per_cta[d] = operand->layout.warps_per_cta[perm[d]];
    p.order[d] = inverse[operand->layout.order[d]];
  }
  return ir_layout_attr(ctx, AT_BLOCKED, &p);
}

/* Layout inference rules of the shape ops (Triton's DialectInferLayoutInterface): which layout expand_dims, reduce,
 * trans, reshape, split and join give their results, or ask of their operands. */
#include "gemmc/layout.h"

#include <string.h>

#include "util.h"

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

/* ------------------------------------------------------------------ register renames through linear layouts */

/* tt.reshape, tt.trans, tt.split and tt.join move no data between threads when the result's layout
 * is the operand's linear layout with its bases re-expressed in the result's coordinates (Triton's
 * inferReshapeOpEncoding / inferTransOpEncoding / inferSplitOpEncoding / inferJoinOpEncoding via
 * linear layouts): the result is a #ttg.linear attribute for the result's shape. */

/* The operand's linear layout and an empty result of rank dst_rank over dst_shape; false when
 * either shape is not a power of two per dim or the operand has no linear form. */
static bool begin_rename(const ir_attr *operand, int src_rank, const int64_t *src_shape, int dst_rank,
                         const int64_t *dst_shape, layout_linear *src, layout_linear *dst) {
  if (!operand || src_rank < 1 || src_rank > IR_MAX_RANK || dst_rank < 1 || dst_rank > IR_MAX_RANK ||
      !layout_is_distributed(operand) || !layout_to_linear(operand, src_rank, src_shape, src))
    return false;
  for (int d = 0; d < src_rank; d++)
    if (log2_exact(src_shape[d]) < 0) return false;
  memset(dst, 0, sizeof *dst);
  dst->rank = dst_rank;
  for (int d = 0; d < dst_rank; d++)
    if ((dst->out_log2[d] = log2_exact(dst_shape[d])) < 0) return false;
  return true;
}

const ir_attr *layout_infer_reshape_result(gemmc_context *ctx, const ir_attr *operand, int src_rank,
                                           const int64_t *src_shape, int dst_rank, const int64_t *dst_shape) {
  layout_linear src, dst;
  if (!begin_rename(operand, src_rank, src_shape, dst_rank, dst_shape, &src, &dst)) return NULL;
  /* Row-major: with power-of-two extents a coordinate's bits are bits of the linear index. */
  for (int in = 0; in < LAYOUT_IN_COUNT; in++) {
    dst.num_bases[in] = src.num_bases[in];
    for (int i = 0; i < src.num_bases[in]; i++) {
      int64_t lin = 0;
      for (int d = 0; d < src_rank; d++) lin = lin * src_shape[d] + src.bases[in][i][d];
      for (int d = dst_rank - 1; d >= 0; d--) {
        dst.bases[in][i][d] = (int32_t)(lin % dst_shape[d]);
        lin /= dst_shape[d];
      }
    }
  }
  return layout_linear_get(ctx, &dst);
}

const ir_attr *layout_infer_permute_result(gemmc_context *ctx, const ir_attr *operand, const int *perm, int rank,
                                           const int64_t *src_shape) {
  const ir_attr *blocked = layout_infer_trans_result(ctx, operand, perm, rank);
  if (blocked) return blocked;
  int64_t dst_shape[IR_MAX_RANK];
  for (int d = 0; d < rank && d < IR_MAX_RANK; d++) dst_shape[d] = src_shape[perm[d]];
  layout_linear src, dst;
  if (!begin_rename(operand, rank, src_shape, rank, dst_shape, &src, &dst)) return NULL;
  for (int in = 0; in < LAYOUT_IN_COUNT; in++) {
    dst.num_bases[in] = src.num_bases[in];
    for (int i = 0; i < src.num_bases[in]; i++)
      for (int d = 0; d < rank; d++) dst.bases[in][i][d] = src.bases[in][i][perm[d]];
  }
  return layout_linear_get(ctx, &dst);
}

const ir_attr *layout_infer_split_result(gemmc_context *ctx, const ir_attr *operand, int rank, const int64_t *shape) {
  if (rank < 2 || shape[rank - 1] != 2) return NULL;
  layout_linear src, dst;
  if (!begin_rename(operand, rank, shape, rank - 1, shape, &src, &dst)) return NULL;
  /* The halves must be one register bit of every thread: exactly one basis reaches the last
   * dim, a register basis that moves along nothing else. */
  int found = -1;
  for (int in = 0; in < LAYOUT_IN_COUNT; in++)
    for (int i = 0; i < src.num_bases[in]; i++) {
      if (!src.bases[in][i][rank - 1]) continue;
      bool pure = in == LAYOUT_IN_REGISTER && found < 0;
      for (int d = 0; d < rank - 1; d++) pure = pure && !src.bases[in][i][d];
      if (!pure) return NULL;
      found = i;
    }
  if (found < 0) return NULL;
  for (int in = 0; in < LAYOUT_IN_COUNT; in++)
    for (int i = 0; i < src.num_bases[in]; i++) {
      if (in == LAYOUT_IN_REGISTER && i == found) continue;
      int k = dst.num_bases[in]++;
      for (int d = 0; d < rank - 1; d++) dst.bases[in][k][d] = src.bases[in][i][d];
    }
  return layout_linear_get(ctx, &dst);
}

const ir_attr *layout_infer_join_result(gemmc_context *ctx, const ir_attr *operand, int rank, const int64_t *shape) {
  int64_t dst_shape[IR_MAX_RANK];
  if (rank < 1 || rank >= IR_MAX_RANK) return NULL;
  for (int d = 0; d < rank; d++) dst_shape[d] = shape[d];
  dst_shape[rank] = 2;
  layout_linear src, dst;
  if (!begin_rename(operand, rank, shape, rank + 1, dst_shape, &src, &dst)) return NULL;
  /* The two operands' elements side by side in each thread: the new dim is the first register
   * bit, so a pair of joined values sits in adjacent registers. */
  dst.num_bases[LAYOUT_IN_REGISTER] = 1;
  dst.bases[LAYOUT_IN_REGISTER][0][rank] = 1;
  for (int in = 0; in < LAYOUT_IN_COUNT; in++)
    for (int i = 0; i < src.num_bases[in]; i++) {
      if (dst.num_bases[in] == LAYOUT_MAX_BASES) return NULL;
      int k = dst.num_bases[in]++;
      for (int d = 0; d < rank; d++) dst.bases[in][k][d] = src.bases[in][i][d];
    }
  return layout_linear_get(ctx, &dst);
}

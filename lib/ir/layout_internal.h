/* Private helpers of the layout library: building linear layouts the way Triton composes them. */
#ifndef GEMMC_LAYOUT_INTERNAL_H
#define GEMMC_LAYOUT_INTERNAL_H

#include "gemmc/layout.h"
#include "util.h" /* log2_exact */

/* An empty layout with `rank` out dims of extent 1 and no out-dim order yet. */
void ll_init(layout_linear *ll, int rank);
/* Records dim as the next out dim in Triton's out-dim order (no-op when already there). */
void ll_touch_out(layout_linear *ll, int dim);
/* ll *= identity1D(size, in, dim): `size` new bases of `in`, each walking `dim` above the
 * extent already covered. False when size is not a power of two or bases overflow. */
bool ll_identity1d(layout_linear *ll, int64_t size, layout_in_dim in, int dim);
/* ll *= zeros1D(size, in, dim): broadcast bits. */
bool ll_zeros1d(layout_linear *ll, int64_t size, layout_in_dim in, int dim);
/* identityStandardND: identity1d over dims in `order`, sizes[order[i]] each. */
bool ll_identity_nd(layout_linear *ll, layout_in_dim in, const int *sizes, const int *order, int rank);
/* Appends one explicit basis (a vector of rank values). */
bool ll_push_basis(layout_linear *ll, layout_in_dim in, const int32_t *basis);
/* Recomputes each out extent as the smallest power of two above every basis value (what
 * Triton's LinearLayout(bases, outDims) constructor infers). */
void ll_infer_out_sizes(layout_linear *ll);
/* ll *= other (other's bases shifted past ll's extents; other's new out dims appended). */
bool ll_product(layout_linear *ll, const layout_linear *other);
/* Triton's ensureLayoutNotSmallerThan: repetition bases of `in`, out dims in out-dim order. */
bool ll_ensure_not_smaller(layout_linear *ll, layout_in_dim in, const int *shape_log2);
/* Triton's ensureLayoutNotLargerThan (broadcastRegisters = true): zero the largest bases. */
void ll_ensure_not_larger(layout_linear *ll, const int *shape_log2);
/* Triton's combineCtaCgaWithShape for a one- or multi-CTA layout; cga may be NULL. */
bool ll_combine_with_shape(layout_linear *ll, layout_in_dim fill_in, const ir_attr *cga, int rank,
                           const int64_t *shape);
/* Bases of a `[[..], [..]]` array attribute (linear layouts, CGALayout) into `in`. */
bool ll_push_bases_attr(layout_linear *ll, layout_in_dim in, const ir_attr *bases);
/* Rank (length of the first basis) of a bases array attribute; -1 when it has none. */
int ll_bases_attr_rank(const ir_attr *bases);

/* The bases of a #ttg.linear attribute as written (not fitted to any shape). */
bool ll_from_linear_attr(const ir_attr *layout, int rank, layout_linear *ll);

/* Triton's getMatrixOrder(rank, rowMajor) and getOrderForDotOperand(opIdx, rank, kContig). */
void layout_matrix_order(int rank, bool row_major, int *order);
void layout_dot_operand_order(int op_idx, int rank, bool k_contig, int *order);

/* The shared layout's swizzled 2D tile (plus outer dims when `with_outer`): in-dim OFFSET. */
bool layout_shared_to_linear(const ir_attr *layout, int rank, const int64_t *shape, bool with_outer,
                             layout_linear *ll);

#endif

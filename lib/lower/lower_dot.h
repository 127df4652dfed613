/* Tensor-core fragments of register layouts, shared by mma.sync (lower_dot.c) and warpgroup MMA (lower_wgmma.c). */
#ifndef GEMMC_LOWER_DOT_H
#define GEMMC_LOWER_DOT_H

#include "lower_index.h"

/* The dims of a dot tensor: rank 2, or 3 with the batch dim first. */
typedef struct lower_dot_dims {
  int rank;
} lower_dot_dims;

lower_dot_dims lower_dot_dims_of(int rank);
/* Whether dim 0 is the batch dim. */
static inline bool lower_dot_batched(const lower_dot_dims *dd) { return dd->rank == 3; }
/* The coordinate of element (batch, row, col) of a tensor of dims dd (batch ignored for 2-D). */
void lower_dot_coord(const lower_dot_dims *dd, int64_t batch, int64_t row, int64_t col, int64_t *coord);

/* The register of `li` that holds element `slot` of an MMA instruction's fragment (the target's
 * formulas, lib/target/mma.h) for the instruction tile at (batch, row0, col0): checked for
 * every lane of warp 0; -1 when the layout does not hold the fragment. */
int64_t lower_mma_fragment_register(const lower_layout_info *li, target_mma_operand kind, int bits, int slot,
                                    int64_t batch, int64_t row0, int64_t col0);

#endif

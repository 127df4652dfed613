/* Tensor-core fragments of register layouts, shared by mma.sync (lower_dot.c) and warpgroup MMA (lower_wgmma.c). */
#ifndef GEMMC_LOWER_DOT_H
#define GEMMC_LOWER_DOT_H

#include "lower_index.h"

/* The register of `li` that holds element `slot` of an MMA instruction's fragment (the target's
 * formulas, lib/target/mma.h) for the instruction tile at (batch, row0, col0): checked for
 * every lane of warp 0; -1 when the layout does not hold the fragment. */
int64_t lower_mma_fragment_register(const lower_layout_info *li, target_mma_operand kind, int bits, int slot,
                                    int64_t batch, int64_t row0, int64_t col0);

#endif

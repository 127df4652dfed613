/* Op dispatch: lowering a block op by op, each op through its family (lower_dispatch.c); ops with regions (scf.for, scf.if, tt.reduce) come back here for their bodies. */
#ifndef GEMMC_LOWER_DISPATCH_H
#define GEMMC_LOWER_DISPATCH_H

#include "lower_state.h"

/* Lowers one op through its family; false after an error at the op. */
bool lower_op(lower_state *s, ir_op *op);
/* Lowers the ops of a block, stopping before its terminator, which is returned (NULL on error). */
ir_op *lower_block(lower_state *s, ir_block *block, bool *ok);
/* Lowers a region's block whose terminator must be a `kind` with `num_operands` operands and
 * returns that terminator; NULL after an error, or (reported at op as "<what> must end with
 * <kind> of N values") when the terminator is not that. */
ir_op *lower_block_until(lower_state *s, const ir_op *op, ir_block *block, ir_op_kind kind, int num_operands,
                         const char *what);

#endif

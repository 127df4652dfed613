/* Op dispatch: lowering a block op by op, each op through its family (lower_dispatch.c); ops with regions (scf.for, scf.if, tt.reduce, tt.scan) come back here for their bodies. */
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

/* The most operands of a tt.reduce / tt.scan that the lowering combines. */
#define LOWER_COMBINE_MAX_OPERANDS 8

/* Lowers the combine region of a tt.reduce or tt.scan (op) once, here: its arguments are
 * lhs[0..n) (the earlier elements) then rhs[0..n), n = op's operand count; out[0..n) receives
 * what its tt.reduce.return / tt.scan.return returns. */
bool lower_combine_region(lower_state *s, ir_op *op, LLVMValueRef const *lhs, LLVMValueRef const *rhs,
                          LLVMValueRef *out);

#endif

/* Shared by the NVIDIA (accelerate_matmul.c) and AMD (accelerate_amd_matmul.c) halves of accelerate-matmul: the tt.dot rewrite to an MMA layout. */
#ifndef GEMMC_TRANSFORMS_ACCELERATE_MATMUL_H
#define GEMMC_TRANSFORMS_ACCELERATE_MATMUL_H

#include "gemmc/ir.h"
#include "gemmc/passes.h"

/* Replaces `dot` by a tt.dot whose result has the layout `mma` and whose operands are converted
 * to #ttg.dot_op<{opIdx, parent = mma, kWidth = k_width}> (from the first source of their
 * convert_layout chains); the accumulator is converted in and the result back, and a loop
 * accumulator is carried in `mma` (the conversions leave the loop). Returns the new tt.dot. */
ir_op *accelerate_rewrite_dot(gemmc_context *ctx, ir_op *dot, const ir_attr *mma, int k_width);

/* accelerate-matmul for AMD targets: #ttg.amd_mfma (accelerate_amd_matmul.c). */
bool accelerate_amd_matmul(const gemmc_pass_context *pc, ir_op *module);

#endif

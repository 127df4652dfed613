/* MMA dot operands read from shared memory: conversions to #ttg.dot_op through a swizzled buffer, and operands whose reads are deferred to their tt.dot (lower_dot_operand.c). */
#ifndef GEMMC_LOWER_DOT_OPERAND_H
#define GEMMC_LOWER_DOT_OPERAND_H

#include "lower_shared.h"

/* A convert to an MMA operand, or a local_load, whose shared-memory reads are left to its tt.dot
 * (each ldmatrix right before the instructions that use it, which keeps fewer fragments live):
 * its only user is a tt.dot of the same block and nothing between the two writes shared memory. */
bool lower_operand_is_deferred(const ir_op *def);
/* The loader of a deferred operand's buffer (a convert has stored it already). */
bool lower_deferred_operand_loader(lower_state *s, ir_op *def, lower_smem_loader *ld);

#endif

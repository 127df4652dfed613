/* What the verifier's parts share: the walk state (opaque), diagnostics and region helpers. */
#ifndef GEMMC_VERIFIER_INTERNAL_H
#define GEMMC_VERIFIER_INTERNAL_H

#include "gemmc/ir.h"

typedef struct verifier verifier;

/* `'<op>' op <message>` at the op, counted as a verifier error. */
void vfy_error(verifier *v, const ir_op *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *vfy_type(verifier *v, const ir_type *t);
const char *vfy_attr(verifier *v, const ir_attr *a);
gemmc_context *vfy_context(verifier *v);
/* Region `r` of op has one block ending with `term`; returns it, or NULL (error reported). */
ir_block *vfy_single_block_region(verifier *v, const ir_op *op, int r, const char *region_name, ir_op_kind term);
/* Room for n types in the context's arena (NULL when out of memory). */
const ir_type **vfy_type_list(verifier *v, int n);
/* A terminator's operand types against what its parent expects. */
void vfy_check_yield_types(verifier *v, const ir_op *owner, const ir_op *term, int n, const ir_type *const *want,
                           const char *what);

/* verifier_nvgpu.c: the rules of the Hopper ops (tensor descriptors, block pointers, mbarriers, TMA,
 * tensor maps, shared-memory views, warp specialization). False when op is none of them. */
bool verify_nvgpu_op(verifier *v, const ir_op *op);
/* num_warps of partition `index` of a ttg.warp_specialize, or 0 when its attribute does not say. */
int verify_partition_num_warps(const ir_op *ws, int index);

#endif

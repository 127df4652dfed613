/* Axis-info analysis: per-dimension contiguity, divisibility and constancy of integer and pointer values (Triton's AxisInfo). */
#ifndef GEMMC_AXIS_INFO_H
#define GEMMC_AXIS_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gemmc/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The lattice value of one SSA value, one entry per tensor dim (scalars and pointers have
 * rank 1), with Triton's definitions:
 *   contiguity[d]   length of the shortest run of consecutive (+1) integers along d;
 *   divisibility[d] largest power of two dividing the first element of every such run
 *                   (elements for integers, BYTES for pointers);
 *   constancy[d]    length of the shortest run of equal values along d;
 *   constant        the value, when the whole tensor is one known integer.
 * All three are powers of two; 2^62 (AXIS_INFO_MAX_DIVISOR) stands for "any power of two"
 * (the divisibility of 0). rank 0 is the uninitialised (optimistic) state; the analysis
 * never returns it for a value it has seen.
 */
#define AXIS_INFO_MAX_DIVISOR ((int64_t)1 << 62)

typedef struct axis_info {
  int rank;
  int64_t contiguity[IR_MAX_RANK];
  int64_t divisibility[IR_MAX_RANK];
  int64_t constancy[IR_MAX_RANK];
  bool has_constant;
  int64_t constant; /* sign-extended from the value's integer width */
} axis_info;

/* The results for every value of a module or a function. Owned by the caller; free it with
 * axis_info_free. Memory comes from the context's allocator; the per-value infos live in its
 * arena, so a pointer from axis_info_of stays valid until the context is destroyed. */
typedef struct axis_info_analysis axis_info_analysis;

/* Runs the analysis over a module (every tt.func, callers before callees, with call-site
 * information flowing into the callees' arguments as Triton's ModuleAxisInfoAnalysis does) or
 * over one tt.func. Returns NULL only when memory runs out. */
axis_info_analysis *axis_info_run(gemmc_context *ctx, ir_op *func_or_module);
void axis_info_free(axis_info_analysis *analysis);

/* The info of v, or NULL for a value the analysis did not reach (not under the op it ran on). */
const axis_info *axis_info_of(const axis_info_analysis *analysis, const ir_value *v);

int axis_info_rank(const axis_info *info);
/* Per-dim queries; 1 for a dim out of range or a NULL info (the pessimistic answer). */
int64_t axis_info_contiguity(const axis_info *info, int dim);
int64_t axis_info_divisibility(const axis_info *info, int dim);
int64_t axis_info_constancy(const axis_info *info, int dim);
/* True (and *value set) when the value is one known integer. */
bool axis_info_constant(const axis_info *info, int64_t *value);

/* Writes "contiguity = [..], divisibility = [..], constancy = [..], constant_value = <none>"
 * (Triton's AxisInfo::print) into buf; returns the length it needed, as snprintf does. */
int axis_info_format(const axis_info *info, char *buf, size_t size);

/* Triton's getOrderFromContiguity: dims sorted by decreasing contiguity, ties kept in the
 * order [rank-1, ..., 0]. order_out receives rank entries. */
void axis_info_order_from_contiguity(const axis_info *info, int rank, int *order_out);

/* Queries of Triton's ModuleAxisInfoAnalysis, for a tensor value with a layout (a tensor
 * without encoding is taken as row-major). The fastest dim is the layout's order[0].
 * getAlignment: min(divisibility in elements (bytes / pointee bytes for pointers),
 *                   contiguity) along the fastest dim; 1 for scalars. */
unsigned axis_info_ptr_alignment(const axis_info_analysis *analysis, const ir_value *v);
/* getContiguity: the alignment capped by the elements a thread holds contiguously in the
 * value's layout (layout_contig_per_thread). */
unsigned axis_info_ptr_contiguity(const axis_info_analysis *analysis, const ir_value *v);
/* getMaskAlignment: constancy along the fastest dim of the mask's layout (at least 1). */
unsigned axis_info_mask_alignment(const axis_info_analysis *analysis, const ir_value *mask);
/* Elements one vectorized global access of a tensor of pointers covers (lowering's vector width,
 * Triton's getContiguity and getMaskAlignment): the pointer's contiguity, at most the mask's
 * alignment and 128 bits of elem_bits-bit elements, rounded down to a power of two; 1 for scalars. */
unsigned axis_info_access_width(const axis_info_analysis *analysis, const ir_value *ptr, const ir_value *mask,
                                int elem_bits);

#ifdef __cplusplus
}
#endif
#endif

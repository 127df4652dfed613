/* Tile-access analysis: the pointer and mask of a 2-D tt.load / tt.store as base + per-dim index * stride with per-dim bounds, and the proof that a wrapped index only feeds masked-off outputs (what a TMA copy needs). */
#ifndef GEMMC_TILE_ACCESS_H
#define GEMMC_TILE_ACCESS_H

#include <stdbool.h>
#include <stdint.h>

#include "gemmc/axis_info.h"
#include "gemmc/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { TILE_MAX_FACTORS = 4, TILE_MAX_OFFSETS = 4 };

/* c * f[0] * ... * f[n-1]: a constant times scalar SSA integers (i32 or i64). */
typedef struct tile_coef {
  int64_t c;
  int n;
  ir_value *f[TILE_MAX_FACTORS];
} tile_coef;

/* How the tile's index runs along one dim: element i (0 <= i < shape) of the tile sits at index
 * (start + i) [mod wrap] + iteration * advance, and the load keeps it when that index < bound. */
typedef struct tile_dim {
  ir_value *start;   /* scalar i32 (NULL: 0) */
  ir_value *wrap;    /* scalar i32 the index is taken modulo (arith.remsi), NULL when not wrapped */
  tile_coef stride;  /* elements between neighbours along the dim */
  int64_t advance;   /* indices the tile moves per iteration of `loop` */
  ir_value *bound;   /* scalar i32: the mask keeps indices below it; NULL when the mask does not clip */
} tile_dim;

/* ptr[i][j] = base + sum(offsets) + sum_d index_d * stride_d. */
typedef struct tile_access {
  ir_value *base; /* scalar pointer, defined outside `loop` */
  int num_offsets;
  tile_coef offsets[TILE_MAX_OFFSETS]; /* scalar element offsets (outside `loop`) */
  int rank;                            /* 2 */
  tile_dim dim[2];
  ir_op *loop; /* the scf.for (lower bound 0, constant step) whose iterations advance the tile;
                * NULL when nothing advances */
  /* Conjuncts of the mask that are one scalar condition for the whole tile (tt.splat of an i1):
   * not per-element bounds; the user decides whether it can express them. */
  int num_scalar_masks;
  ir_value *scalar_masks[2];
} tile_access;

/* Decomposes a 2-D tt.load (pointer, mask, `other` zero or absent) or tt.store (pointer, mask)
 * of a tensor of pointers: true when the pointer is base + offsets + index * stride per dim, each
 * dim's index being (start + arange) [remsi wrap], advanced through loop-carried tt.addptr by a
 * multiple of one dim's stride per iteration or by a loop counter in the index (an integer iter
 * arg from 0 that grows by a constant each iteration: Triton's rewrite of block pointers), and the
 * mask (if any) a conjunction of at most one `index < bound` per dim (absolute, or relative to the
 * advance: `arange < bound - iv * c` with c * step == advance, or `arange < bound - iv` with
 * step == advance) and of `index >= 0` conjuncts, which carry no bound (a TMA box clips below 0
 * too). Starts and bounds computed in i64 by sign extension are given as their i32 sources; a
 * start that is i64 otherwise is not decomposed. */
bool tile_access_of(ir_op *op, tile_access *out);

/* The wrapped rows (or columns) of a load do not matter: the loaded tile's dim `dim` only flows
 * through shared-memory copies, (warp-group) dots in its M or N position, loop-carried
 * accumulators, layout conversions and elementwise ops into tt.stores whose masks hold
 * `start + arange < wrap` along that dim (same start and wrap values). Then replacing the values
 * at indices >= wrap with zeros stores the same result. */
bool tile_wrap_is_masked_off(gemmc_context *ctx, ir_op *load, int dim, const ir_value *start, const ir_value *wrap);

/* A scalar offset c * f0 * f1.. as index * stride where index is the one factor that differs
 * between programs (an i32 computed from tt.get_program_id: the batch of a batched GEMM) and
 * stride the rest; false when no factor or more than one does. */
bool tile_split_program_offset(gemmc_context *ctx, const tile_coef *c, ir_value **index, tile_coef *stride);

/* Equal as products (same constant, same factors in any order). */
bool tile_coef_equal(const tile_coef *a, const tile_coef *b);

/* The power of two the value c * f0 * f1.. divides by, from the factors' divisibility in `ai`
 * (AXIS_INFO_MAX_DIVISOR for 0, and where the product reaches it). */
int64_t tile_coef_divisibility(const axis_info_analysis *ai, const tile_coef *c);

/* Whether a count of elements of elem_bytes bytes that divides by `divisibility` (a power of two, up
 * to AXIS_INFO_MAX_DIVISOR) is a multiple of `align` bytes (a power of two): computed modulo
 * `align`, so no product of the two overflows (a zero stride divides by 2^62). */
bool tile_bytes_aligned(int64_t divisibility, int64_t elem_bytes, int64_t align);

#ifdef __cplusplus
}
#endif
#endif

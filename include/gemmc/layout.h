/* Layout library: every question about a layout encoding (blocked, slice, mma, dot_op, shared, linear). */
#ifndef GEMMC_LAYOUT_H
#define GEMMC_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "gemmc/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Conventions (all of them Triton's):
 * - `rank` is the rank of the tensor (or memdesc) the layout is attached to; `shape` its shape.
 * - An order lists dims fastest-first (order[0] is the most contiguous dim).
 * - Every layout is evaluated as a linear layout over GF(2) (see layout_linear below), so the
 *   maps need power-of-two shapes, as Triton's do. Functions that cannot answer (unsupported
 *   parameters, non-power-of-two shape) return false / -1 / 0 as documented.
 * - Attributes are interned by the context, so two equal layouts are the same pointer.
 * - Nothing here allocates except the builders, which intern attributes in ctx.
 */

/* ------------------------------------------------------------------ linear layouts */

/* Input dimensions of a linear layout. Register layouts use REGISTER/LANE/WARP/BLOCK;
 * shared-memory layouts use OFFSET (the element offset inside the buffer). */
typedef enum {
  LAYOUT_IN_REGISTER,
  LAYOUT_IN_LANE,
  LAYOUT_IN_WARP,
  LAYOUT_IN_BLOCK,
  LAYOUT_IN_OFFSET,
  LAYOUT_IN_COUNT
} layout_in_dim;

#define LAYOUT_MAX_BASES 32

/* A map (register, lane, warp, block | offset) -> tensor coordinate, linear over GF(2): bit i of
 * input dim `in` maps to bases[in][i]; a general input maps to the XOR of the bases of its set
 * bits. Plain value type (about 5 KiB): build it once per (layout, shape) on hot paths. */
typedef struct layout_linear {
  int rank;                      /* number of output (tensor) dims */
  int out_log2[IR_MAX_RANK];     /* log2 of the extent the layout covers along each dim */
  /* Triton's out-dim order of the layout under construction: which dim gets repetition
   * registers first when the layout is stretched to a shape. */
  int num_out_order;
  int out_order[IR_MAX_RANK];
  int num_bases[LAYOUT_IN_COUNT];
  int32_t bases[LAYOUT_IN_COUNT][LAYOUT_MAX_BASES][IR_MAX_RANK];
} layout_linear;

/* The linear layout of `layout` for a tensor of `shape` (Triton's toLinearLayout). Works for
 * every layout kind (shared ones use LAYOUT_IN_OFFSET). False when unsupported. */
bool layout_to_linear(const ir_attr *layout, int rank, const int64_t *shape, layout_linear *out);
/* The bits of input dim `in` whose bases are zero: flipping one reaches another register, lane or
 * warp holding the same element (broadcast copies). */
int64_t layout_linear_copy_bits(const layout_linear *ll, layout_in_dim in);
/* XOR of the bases of the set bits of in[LAYOUT_IN_COUNT] (bits beyond the bases are ignored). */
void layout_linear_apply(const layout_linear *ll, const int64_t in[LAYOUT_IN_COUNT], int64_t *coord_out);
/* Inverse: some input that maps to coord, the smallest when several do, comparing
 * block, then warp, then lane, then register (then offset). False when no input maps there. */
bool layout_linear_invert(const layout_linear *ll, const int64_t *coord, int64_t in_out[LAYOUT_IN_COUNT]);
/* layout_linear_invert for many coordinates of one layout: the elimination done once. */
typedef struct layout_linear_solver {
  int rank;
  int out_log2[IR_MAX_RANK];
  int num_inputs;                           /* input bits, least significant first */
  int8_t owner_in[64], owner_bit[64];       /* which input dim and bit each one is */
  uint64_t has_pivot, has_kernel;           /* bit sets over output bits / input bits */
  uint64_t pivot_vec[64], pivot_comb[64];   /* reduced basis by leading output bit, and its inputs */
  uint64_t kernel[64];                      /* input combinations that map to 0 */
} layout_linear_solver;
bool layout_linear_solver_init(layout_linear_solver *solver, const layout_linear *ll);
/* The same answer as layout_linear_invert(ll, coord, in_out). */
bool layout_linear_solve(const layout_linear_solver *solver, const int64_t *coord, int64_t in_out[LAYOUT_IN_COUNT]);
/* The register that holds coord in lane 0 of warp 0 (the smallest input, as above); -1 when no
 * input maps there or only other lanes or warps hold it. */
int64_t layout_linear_register_at(const layout_linear *ll, const int64_t *coord);
/* The same with the elimination done once (layout_linear_solver_init). */
int64_t layout_linear_solver_register_at(const layout_linear_solver *solver, const int64_t *coord);
/* The register bits whose bases stay inside an aligned block of block[d] elements along every
 * dim d (block[d] a power of two): flipping them never moves an element out of its block. With a
 * value's axis-info constancy as the block, registers that differ only in these bits hold equal
 * values (Triton's maybeDeduplicate). */
int64_t layout_linear_register_bits_within(const layout_linear *ll, const int64_t *block);
/* Size of an input dim: 2^num_bases. */
int64_t layout_linear_in_size(const layout_linear *ll, layout_in_dim in);

/* ------------------------------------------------------------------ identity and structure */

/* Attributes are interned, so this is pointer equality (NULL equals NULL). */
bool layout_equal(const ir_attr *a, const ir_attr *b);
/* True for the shared-memory encodings (swizzled_shared, amd_rotating_shared, nvmma_shared). */
bool layout_is_shared(const ir_attr *layout);
/* True for the register (distributed) encodings. */
bool layout_is_distributed(const ir_attr *layout);
/* Rank of the tensors the layout describes (slice: parent rank - 1); 0 when it cannot tell. */
int layout_rank(const ir_attr *layout);
/* Fastest-first order. slice: the parent's order without dim, renumbered; nvidia_mma and
 * amd_mfma: [rank-1..0]; dot_op: K-contiguous (Triton's getOrderForDotOperand, kContig=true);
 * nvmma_shared: [rank-1..0], with the last two swapped when transposed; linear: dims sorted by
 * the first register, then lane, then warp bit that moves them. */
void layout_order(const ir_attr *layout, int rank, int *order_out);

/* Per-dim parameters. blocked: its own; slice: the parent's with dim removed; nvidia_mma,
 * amd_mfma: warps from the attribute, the rest read off the linear layout of one tile; dot_op:
 * parent's warps with K set to 1, the rest read off its linear layout of one tile; linear: read
 * off the bases (threads/warps: 2^(number of bases that move the dim)). */
void layout_size_per_thread(const ir_attr *layout, int rank, int *out);
void layout_threads_per_warp(const ir_attr *layout, int rank, int *out);
void layout_warps_per_cta(const ir_attr *layout, int rank, int *out);
/* Extent covered by all warps' lanes and one register tile: blocked spt*tpw*wpc; mma v2
 * [16*wm, 8*wn]; mma v3 [16*wm, N*wn]; mfma [M*wm, N*wn]; dot_op(mma) A [16*wm, 8*kWidth],
 * B [8*kWidth, 8*wn]; dot_op(blocked) the parent's with K = sizePerThread[K]; slice the parent's
 * without dim; linear the extent of its bases. */
void layout_shape_per_cta_tile(const ir_attr *layout, int rank, int64_t *out);

/* Registers (elements) a thread holds for a tensor of `shape`, with repetitions and broadcast
 * duplicates (Triton's getTotalElemsPerThread: the register size of the linear layout). 0 when
 * unsupported. */
int64_t layout_elems_per_thread(const ir_attr *layout, int rank, const int64_t *shape);
/* How many consecutive elements along `dim` a thread holds in consecutive registers
 * (Triton's getContigPerThread). */
int layout_contig_per_thread(const ir_attr *layout, int rank, const int64_t *shape, int dim);

/* ------------------------------------------------------------------ the map and its inverse */

/* (register, lane, warp) -> tensor coordinate (block 0). Coordinates are zero when unsupported.
 * Builds the linear layout on every call: use layout_to_linear + layout_linear_apply in loops. */
void layout_coords(const ir_attr *layout, int rank, const int64_t *shape, int64_t reg, int lane,
                   int warp, int64_t *coord_out);
/* Tensor coordinate -> the thread holding it. With broadcast (several holders) it returns the
 * lowest warp, then the lowest lane, then the lowest register. False when out of the tensor. */
bool layout_thread_of(const ir_attr *layout, int rank, const int64_t *shape, const int64_t *coord,
                      int64_t *reg, int *lane, int *warp);

/* ------------------------------------------------------------------ shared memory */

/* Element offset of coord inside a shared buffer of `shape` (swizzle applied), for
 * swizzled_shared, amd_rotating_shared and nvmma_shared. Outer dims (beyond the swizzled 2D tile) may have any size,
 * e.g. the stage dim of a pipelined buffer. -1 when unsupported or out of range. */
int64_t layout_shared_offset(const ir_attr *layout, int rank, const int64_t *shape, const int64_t *coord);
/* Inverse of layout_shared_offset. */
bool layout_shared_coord(const ir_attr *layout, int rank, const int64_t *shape, int64_t offset,
                         int64_t *coord_out);
/* vec / perPhase / maxPhase of a shared layout: swizzled_shared's own; nvmma_shared's derived
 * ones (vec = 128/elemBits, perPhase = 128/swizzle, maxPhase = swizzle/16; 1s unswizzled). */
void layout_shared_swizzle(const ir_attr *layout, int *vec, int *per_phase, int *max_phase);

/* Whether shared layout `view` over `view_shape` addresses every element where `buffer` over
 * `buffer_shape` has it when view dim d is buffer dim perm[d] (a ttg.memdesc_trans view): checked
 * on the basis coordinates, which decides it for these XOR-linear layouts. */
bool layout_shared_is_permuted_view(const ir_attr *view, const int64_t *view_shape, const ir_attr *buffer,
                                    const int64_t *buffer_shape, int rank, const int *perm);

/* How TMA moves a tensor descriptor's block into the block's nvmma_shared layout: boxes of box[]
 * elements (innermost dim first), num_boxes of them side by side along the innermost dim (one
 * swizzle width each), box k starting at element box_offset[k] of the buffer. */
typedef struct layout_tma_box {
  int rank;
  int box[5];
  int num_boxes;
  int box_elems;
  int swizzle_bytes;
  int elem_bytes;
  int64_t box_offset[8];
} layout_tma_box;

/* The boxes of `block` (a !tt.tensordesc or a memdesc type with a non-transposed nvmma_shared
 * encoding), checked against layout_shared_offset: every basis element of a box sits where TMA's
 * swizzle puts it and every box starts on a whole box. False (and *out undefined) when TMA cannot
 * write that layout. Lowering (the copies, device-built maps) and kernel.json (the boxes a host
 * must encode) both ask this. */
bool layout_tma_boxes(const ir_type *block, layout_tma_box *out);

/* ------------------------------------------------------------------ conversions between layouts */

/* Maps a coordinate of the destination tensor to the source tensor's (identity for a
 * convert_layout; drop an axis for expand_dims; zero broadcast dims; reshape's linear index). */
typedef void (*layout_project_fn)(const void *ctx, const int64_t *dst_coord, int64_t *src_coord);
void layout_project_identity(const void *rank_ptr, const int64_t *dst_coord, int64_t *src_coord);

/* When every thread already holds, in `src`, the elements it must hold in `dst` (after
 * projecting dst coordinates onto src): true, and map_out[r] (when given; dst's register
 * count entries) is the src register holding dst register r. False when data must move between
 * threads. */
bool layout_register_map(const layout_linear *dst, const layout_linear *src, layout_project_fn project,
                         const void *project_ctx, int *map_out);
/* True when converting a tensor of `shape` from `src` to `dst` moves data between threads, so it
 * goes through shared memory (the allocation reserves scratch for exactly these conversions and
 * the lowering finds it there). */
bool layout_conversion_needs_scratch(const ir_attr *src, const ir_attr *dst, int rank, const int64_t *shape);
/* True when a convert_layout from `src` to `dst` produces an MMA operand: dst is a #ttg.dot_op
 * whose parent is an #ttg.nvidia_mma (any version) and src a register layout. */
bool layout_is_mma_operand_conversion(const ir_attr *src, const ir_attr *dst);
/* An operand of a dot on the FMA path: #ttg.dot_op whose parent is #blocked. */
bool layout_is_fma_dot_operand(const ir_attr *enc);

/* A register layout composed with the inverse of a shared layout: the element offset in the
 * buffer of each register/lane/warp basis (zero bases at offset 0). Offsets of an input are the
 * XOR of its set bits' offsets, since both layouts are linear over GF(2). */
typedef struct layout_offset_map {
  int num_bases[LAYOUT_IN_COUNT];
  int64_t off[LAYOUT_IN_COUNT][LAYOUT_MAX_BASES];
} layout_offset_map;
/* False when some element of `reg` has no place in the buffer of `shape` in `shared`. */
bool layout_compose_shared(const layout_linear *reg, const ir_attr *shared, int rank, const int64_t *shape,
                           layout_offset_map *out);
/* Offset of register r at lane 0, warp 0. */
int64_t layout_offset_map_register(const layout_offset_map *m, int64_t r);
/* Elements per vector access: registers 0..v-1 at offsets 0..v-1 and every other basis a
 * multiple of v, with v at most max_elems (a power of two). */
int layout_offset_map_vector_width(const layout_offset_map *m, int max_elems);

/* ------------------------------------------------------------------ inference rules of shape ops */

/* tt.expand_dims along axis: the operand layout for a result in `result` (slice(axis, result)). */
const ir_attr *layout_infer_expand_dims_operand(gemmc_context *ctx, const ir_attr *result, int axis);
/* tt.expand_dims along axis: the result layout for an operand in `operand`: the parent when the
 * operand is slice(axis, parent); NULL otherwise. */
const ir_attr *layout_infer_expand_dims_result(const ir_attr *operand, int axis);
/* tt.reduce along axis: the result layout of an operand in `operand` (slice(axis, operand)). */
const ir_attr *layout_infer_reduce_result(gemmc_context *ctx, const ir_attr *operand, int axis);
/* tt.trans with permutation perm (result dim d is operand dim perm[d]): the result layout of a
 * blocked operand (Triton's inferTransOpEncoding for blocked); NULL for other layouts. */
const ir_attr *layout_infer_trans_result(gemmc_context *ctx, const ir_attr *operand, const int *perm, int rank);
/* The rules below give the result a #ttg.linear layout for the result's shape that keeps every
 * element in the thread and register it had (the op lowers to a renaming of registers); NULL
 * when the operand's layout has no linear form or the op cannot keep elements in place. */
/* tt.trans of any distributed layout (blocked stays blocked, as above). */
const ir_attr *layout_infer_permute_result(gemmc_context *ctx, const ir_attr *operand, const int *perm, int rank,
                                           const int64_t *src_shape);
/* tt.reshape (row-major) of a power-of-two shape. */
const ir_attr *layout_infer_reshape_result(gemmc_context *ctx, const ir_attr *operand, int src_rank,
                                           const int64_t *src_shape, int dst_rank, const int64_t *dst_shape);
/* tt.split of `shape` (last dim 2): NULL unless the last dim is one register bit of each thread. */
const ir_attr *layout_infer_split_result(gemmc_context *ctx, const ir_attr *operand, int rank, const int64_t *shape);
/* tt.join of two operands of `shape` (rank dims): the new last dim is the first register bit. */
const ir_attr *layout_infer_join_result(gemmc_context *ctx, const ir_attr *operand, int rank, const int64_t *shape);

/* ------------------------------------------------------------------ builders */

/* Triton's BlockedEncodingAttr::get(shape, sizePerThread, order, numWarps, threadsPerWarp). */
const ir_attr *layout_blocked_get(gemmc_context *ctx, int rank, const int64_t *shape,
                                  const int *size_per_thread, const int *order, int num_warps,
                                  int threads_per_warp);
/* The TTIR -> TTGIR default: sizePerThread all 1, order [rank-1..0]. */
const ir_attr *layout_default_blocked(gemmc_context *ctx, int rank, const int64_t *shape,
                                      int num_warps, int threads_per_warp);
/* Triton's NVIDIA SwizzledSharedEncodingAttr builder for an MMA operand (needTrans = false):
 * perPhase, maxPhase and vec chosen so that ldmatrix reads are bank-conflict free. */
const ir_attr *layout_swizzled_shared_for_dot_operand(gemmc_context *ctx, int op_idx, int k_width,
                                                      int rank, const int64_t *shape,
                                                      const int *order, int elem_bits);
/* Triton's shared layout for an MFMA operand (AMDMfmaEncodingAttr::composeSharedLayoutForOperand,
 * gfx90a / gfx942: 32 banks of 4 bytes, 16-lane SIMD rows): when K is the contiguous dim, vec
 * elements (the operand's kWidth: one ds_read per lane and instruction group) swizzled over
 * perPhase = max(1, 1024 bits / (elem_bits * K)) rows, maxPhase = max(min(16 / perPhase, K / vec), 1)
 * phases; unswizzled when K is not contiguous. `rotating`: the #ttg.amd_rotating_shared form
 * of the same parameters (what Triton's in-thread transpose stores B into). */
const ir_attr *layout_shared_for_mfma_operand(gemmc_context *ctx, int op_idx, int vec, int rank,
                                              const int64_t *shape, const int *order, int elem_bits,
                                              bool rotating);
/* A #ttg.linear attribute holding ll's register, lane, warp (and block) bases. */
const ir_attr *layout_linear_get(gemmc_context *ctx, const layout_linear *ll);
/* Triton's AMD in-thread transpose (createInThreadTransposedEncoding): the linear layout of
 * `blocked` for `shape` with the registers of one thread's sizePerThread tile walking the two
 * innermost dims of its order in swapped order (K first for an N-contiguous B), so that a
 * thread holds K-consecutive values to store as one vector into K-contiguous LDS. NULL when
 * `blocked` is not a blocked layout. */
const ir_attr *layout_in_thread_transposed(gemmc_context *ctx, const ir_attr *blocked, int rank,
                                           const int64_t *shape);
/* Triton's NVMMASharedEncodingAttr::get: the widest swizzle (128/64/32 bytes, else 0) that
 * divides the contiguous row; transposed when the contiguous dim is not the last one. */
const ir_attr *layout_nvmma_shared_get(gemmc_context *ctx, int rank, const int64_t *shape,
                                       const int *order, int elem_bits, bool fp4_padded);
/* Unswizzled shared layout {vec=1, perPhase=1, maxPhase=1, order}. */
const ir_attr *layout_swizzled_shared_get(gemmc_context *ctx, int rank, int vec, int per_phase,
                                          int max_phase, const int *order);
/* Slice and dot_op wrappers (parent must be interned). */
const ir_attr *layout_slice_get(gemmc_context *ctx, int dim, const ir_attr *parent);
const ir_attr *layout_dot_op_get(gemmc_context *ctx, int op_idx, const ir_attr *parent, int k_width);

/* ------------------------------------------------------------------ verification */

/* NULL when the layout is valid for a tensor of this rank in a kernel with num_warps warps of
 * threads_per_warp lanes; otherwise a static message such as
 * "threadsPerWarp multiplies to 16, expected 32". */
const char *layout_check(const ir_attr *layout, int rank, int num_warps, int threads_per_warp);

#ifdef __cplusplus
}
#endif
#endif

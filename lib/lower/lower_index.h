/* Per-thread coordinates of tensor elements from linear layouts: the lane/warp part computed once per layout in the prologue, register parts as constants (lower_index.c). */
#ifndef GEMMC_LOWER_INDEX_H
#define GEMMC_LOWER_INDEX_H

#include "lower_state.h"

/* Per (layout, shape): the linear layout and what every op using it needs, computed once in the
 * kernel's prologue block so that loops never recompute lane/warp index math. */
struct lower_layout_info {
  const ir_attr *layout;
  int rank;
  int64_t shape[IR_MAX_RANK];
  layout_linear ll;
  int num_regs;
  /* The lane/warp part of each coordinate (i32); the register part is a compile-time constant
   * combined by XOR (Triton's applyLinearLayout). */
  LLVMValueRef lw_coord[IR_MAX_RANK];
  /* Registers that duplicate another register (zero register bases): bits to skip on stores. */
  int64_t reg_dup_mask;
  /* i1: this thread owns its elements (its lane/warp bits along broadcast bases are 0); NULL when
   * every thread owns what it holds. */
  LLVMValueRef owner;
  struct lower_layout_info *next;
};

/* The per-layout info of a tensor type (built on first use; prologue code emitted then). */
lower_layout_info *lower_layout_of(lower_state *s, const ir_op *op, const ir_type *tensor);
/* Compile-time coordinate of register r (lane 0, warp 0). */
void lower_reg_coord(const lower_layout_info *li, int64_t r, int64_t *coord);
/* Runtime i32 coordinate along dim d of register r: lw_coord[d] ^ reg part. */
LLVMValueRef lower_coord(lower_state *s, const lower_layout_info *li, int64_t r, int d);
/* The same for any compile-time coordinate k of this thread's lane/warp part: lw_coord[d] ^ k[d]
 * (lower_coord is k = the coordinate of register r). */
LLVMValueRef lower_coord_at(lower_state *s, const lower_layout_info *li, const int64_t *k, int d);
/* Row-major element offset (i32) in a tensor of type t of the coordinates c. */
LLVMValueRef lower_row_major_offset(lower_state *s, const ir_type *t, LLVMValueRef const *c);
/* Applies the lane/warp bases of a linear map whose outputs are one integer (e.g. shared
 * offsets): value = XOR over set bits i of lane (warp) of lane_vals[i] (warp_vals[i]). Emits into
 * the prologue. */
LLVMValueRef lower_apply_bits(lower_state *s, LLVMValueRef x, const int64_t *vals, int nbits);
/* The lane part XOR the warp part of a register/lane/warp -> offset map (i32, in the prologue). */
LLVMValueRef lower_lane_warp_offset(lower_state *s, const layout_offset_map *m);
/* The register bits of v (a result of op) whose flip keeps its value, by v's axis-info constancy:
 * element i equals element i & ~bits, so only those are computed (Triton's maybeDeduplicate).
 * 0 for scalars and values the analysis did not reach; false (diagnosed) when v's layout has no
 * registers. */
bool lower_equal_register_bits(lower_state *s, const ir_op *op, const ir_value *v, int64_t *bits);
/* Maps every register of dst to a register of src when the two layouts place data on the same
 * lanes and warps after projecting dst coordinates onto src (layout_register_map); false when not. */
bool lower_register_map(const lower_layout_info *dst, const lower_layout_info *src, layout_project_fn project,
                        const void *project_ctx, int *map_out);

#endif

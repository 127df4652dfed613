/* Shared-memory access from registers: register <-> shared offset maps from the layouts, vectorized stores, and a loader that reads a tensor's registers with ld.shared vectors or the target's matrix loads (ldmatrix) on demand (lower_shared.c). */
#ifndef GEMMC_LOWER_SHARED_H
#define GEMMC_LOWER_SHARED_H

#include "lower_index.h"

/* Where the elements of a register layout live in a shared buffer: the element offset of
 * (register r, lane, warp) is reg part(r) ^ lane part ^ warp part, each the XOR of the offsets of
 * its set bits (the shared layout is a bijection over GF(2), so its inverse is linear too). */
typedef struct lower_smem_map {
  layout_offset_map map; /* the layout module's register/lane/warp -> offset map */
  int64_t lw_mask;       /* every bit the lane and warp parts can set */
  LLVMValueRef lw;       /* i32 lane ^ warp part (computed in the prologue) */
} lower_smem_map;

/* Builds the map of `reg` (a tensor's layout info) into a shared buffer of `shape` with layout
 * `shared`; false (error at op) when the layouts do not fit. */
bool lower_smem_map_build(lower_state *s, const ir_op *op, const lower_layout_info *reg, const ir_attr *shared,
                          int rank, const int64_t *shape, lower_smem_map *m);
/* Fills lw_mask and lw of a map whose `map` is set (lower_smem_map_build does it itself). */
void lower_smem_map_finish(lower_state *s, lower_smem_map *m);
/* Elements per shared-memory vector access for a register -> offset map: registers 0..v-1 at
 * offsets 0..v-1 and every other basis a multiple of v, at most 16 bytes. */
int lower_smem_vector_width(const lower_smem_map *m, int elem_bytes);
/* Compile-time offset of register r (lane 0, warp 0). */
int64_t lower_smem_reg_offset(const lower_smem_map *m, int64_t r);
/* Runtime element offset (i32) of `reg_offset` XOR the lane/warp part: the bits the lane/warp part
 * may touch are XOR'ed, the rest added, so constant offsets fold into addressing modes. */
LLVMValueRef lower_smem_offset(lower_state *s, LLVMValueRef lw, int64_t lw_mask, int64_t reg_offset);

/* How a warp's matrix instructions (ldmatrix / stmatrix: 8x8 matrices of 16-bit elements, one
 * 16-byte row per lane address) move a register -> offset map: 1 << group_shift registers per
 * instruction of num_mats matrices; the lane's row address is addr_lw (lane/warp part, bits in
 * addr_mask) combined with the group's first register offset. */
typedef struct lower_matrix_rows {
  int group_shift;
  int num_mats;   /* x1, x2, x4 */
  bool trans;
  LLVMValueRef addr_lw;
  int64_t addr_mask;
} lower_matrix_rows;

/* Whether matrix instructions fit the map (and the layout info's duplicated registers); fills
 * `p` (code for addr_lw goes to the prologue) when they do. */
bool lower_matrix_rows_plan(lower_state *s, const layout_offset_map *m, int64_t reg_dup_mask, lower_matrix_rows *p);

/* Stores the values of a tensor (layout `li`, elements `et` of `bytes` bytes) into the shared
 * buffer at `base` (ptr addrspace(3)) through the map `m`: stmatrix where the target has it and
 * the map fits, else ordinary stores vectorized up to 16 bytes. */
void lower_smem_store_values(lower_state *s, LLVMValueRef base, const lower_smem_map *m, const lower_layout_info *li,
                             LLVMTypeRef et, int bytes, const lower_values *vals);
/* Registers per stmatrix that lower_smem_store_values would use for this map; 0: no stmatrix. */
int lower_smem_matrix_store_width(lower_state *s, const layout_offset_map *m, const lower_layout_info *li, int bytes);

/* Stores the per-thread values of a tensor into the shared buffer at `base` (ptr addrspace(3))
 * with lower_smem_store_values. */
bool lower_shared_store(lower_state *s, ir_op *op, LLVMValueRef base, const ir_attr *shared, int rank,
                        const int64_t *shape, const ir_type *tensor, const lower_values *vals);

/* Reads a tensor's registers from a shared buffer on demand, a whole ldmatrix (or ld.shared
 * vector) group at a time, so that a consumer can load each group right before it needs it. */
typedef struct lower_smem_loader {
  LLVMValueRef base;            /* ptr addrspace(3) to the buffer */
  const lower_layout_info *li;  /* the destination layout */
  lower_smem_map m;
  LLVMTypeRef et, mt;           /* element type, and its memory type (i1 -> i8) */
  int bytes;
  /* matrix-load plan (ldmatrix) */
  bool ldmatrix;
  lower_matrix_rows rows;
  /* ld.shared vector width (elements) otherwise */
  int vec;
  lower_values *out;            /* registers loaded so far (NULL entries: not yet) */
} lower_smem_loader;

bool lower_smem_loader_init(lower_state *s, ir_op *op, lower_smem_loader *ld, LLVMValueRef base, const ir_attr *shared,
                            int rank, const int64_t *shape, const ir_type *tensor);
/* The same for a map built elsewhere (a conversion's scratch tile, lower_smem_map_finish). */
bool lower_smem_loader_init_map(lower_state *s, ir_op *op, lower_smem_loader *ld, LLVMValueRef base,
                                const lower_smem_map *m, const ir_type *tensor);
/* Register r, loading its group first when needed (code goes where the builder is). */
LLVMValueRef lower_smem_loader_get(lower_state *s, lower_smem_loader *ld, int64_t r);
/* Loads a tensor of type `tensor` from the shared buffer at `base`: ldmatrix for 16-bit MMA dot
 * operands whose layouts allow it, vectorized ld.shared otherwise. */
bool lower_shared_load(lower_state *s, ir_op *op, LLVMValueRef base, const ir_attr *shared, int rank,
                       const int64_t *shape, const ir_type *tensor, lower_values **out);

#endif

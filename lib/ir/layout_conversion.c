/* Questions about moving a tensor from one layout to another: does it stay in registers (and which register goes where), is it an MMA operand, where do its elements land in a shared buffer, how wide can the accesses be. */
#include "gemmc/layout.h"

#include <string.h>

void layout_project_identity(const void *rank_ptr, const int64_t *dst_coord, int64_t *src_coord) {
  const int *rank = rank_ptr;
  memcpy(src_coord, dst_coord, sizeof(int64_t) * (size_t)*rank);
}

bool layout_register_map(const layout_linear *dst, const layout_linear *src, layout_project_fn project,
                         const void *project_ctx, int *map_out) {
  /* Lanes and warps must move the same (projected) coordinates in both layouts... */
  for (int in = LAYOUT_IN_LANE; in <= LAYOUT_IN_WARP; in++) {
    if (dst->num_bases[in] != src->num_bases[in]) return false;
    for (int i = 0; i < dst->num_bases[in]; i++) {
      int64_t c[IR_MAX_RANK], p[IR_MAX_RANK];
      for (int d = 0; d < dst->rank; d++) c[d] = dst->bases[in][i][d];
      project(project_ctx, c, p);
      for (int d = 0; d < src->rank; d++)
        if (p[d] != src->bases[in][i][d]) return false;
    }
  }
  /* ...and every destination register must be a register of lane 0, warp 0 in the source. */
  layout_linear_solver solver;
  if (!layout_linear_solver_init(&solver, src)) return false;
  int64_t num_regs = layout_linear_in_size(dst, LAYOUT_IN_REGISTER);
  for (int64_t r = 0; r < num_regs; r++) {
    int64_t c[IR_MAX_RANK], p[IR_MAX_RANK], in[LAYOUT_IN_COUNT] = {0};
    in[LAYOUT_IN_REGISTER] = r;
    layout_linear_apply(dst, in, c);
    project(project_ctx, c, p);
    int64_t reg = layout_linear_solver_register_at(&solver, p);
    if (reg < 0) return false;
    if (map_out) map_out[r] = (int)reg;
  }
  return true;
}

bool layout_conversion_needs_scratch(const ir_attr *src, const ir_attr *dst, int rank, const int64_t *shape) {
  layout_linear a, b;
  if (!src || !dst || !layout_to_linear(src, rank, shape, &a) || !layout_to_linear(dst, rank, shape, &b)) return false;
  return !layout_register_map(&b, &a, layout_project_identity, &rank, NULL);
}

bool layout_is_fma_dot_operand(const ir_attr *enc) {
  return enc && enc->kind == AT_DOT_OP && enc->layout.parent && enc->layout.parent->kind == AT_BLOCKED;
}

bool layout_is_mma_operand_conversion(const ir_attr *src, const ir_attr *dst) {
  if (!src || !dst || !layout_is_distributed(src)) return false;
  return dst->kind == AT_DOT_OP && dst->layout.parent && dst->layout.parent->kind == AT_NVIDIA_MMA;
}

bool layout_compose_shared(const layout_linear *reg, const ir_attr *shared, int rank, const int64_t *shape,
                           layout_offset_map *out) {
  memset(out, 0, sizeof *out);
  layout_linear sll;
  layout_linear_solver solver;
  if (reg->rank != rank || !layout_to_linear(shared, rank, shape, &sll) || !layout_linear_solver_init(&solver, &sll))
    return false;
  for (int k = LAYOUT_IN_REGISTER; k <= LAYOUT_IN_WARP; k++) {
    out->num_bases[k] = reg->num_bases[k];
    for (int i = 0; i < reg->num_bases[k]; i++) {
      int64_t coord[IR_MAX_RANK], in[LAYOUT_IN_COUNT];
      bool zero = true;
      for (int d = 0; d < rank; d++) {
        coord[d] = reg->bases[k][i][d];
        zero &= coord[d] == 0;
      }
      if (zero) continue; /* a broadcast bit: same element, same offset */
      if (!layout_linear_solve(&solver, coord, in)) return false;
      out->off[k][i] = in[LAYOUT_IN_OFFSET];
    }
  }
  return true;
}

int64_t layout_offset_map_register(const layout_offset_map *m, int64_t r) {
  int64_t off = 0;
  for (int i = 0; i < m->num_bases[LAYOUT_IN_REGISTER]; i++)
    if ((r >> i) & 1) off ^= m->off[LAYOUT_IN_REGISTER][i];
  return off;
}

int layout_offset_map_vector_width(const layout_offset_map *m, int max_elems) {
  int v = 1, bits = 0;
  const int64_t *reg = m->off[LAYOUT_IN_REGISTER];
  while (bits < m->num_bases[LAYOUT_IN_REGISTER] && reg[bits] == (INT64_C(1) << bits) && v * 2 <= max_elems) {
    v *= 2;
    bits++;
  }
  /* Shrink until every other basis keeps a vector aligned. */
  while (v > 1) {
    bool aligned = true;
    for (int k = LAYOUT_IN_REGISTER; k <= LAYOUT_IN_WARP && aligned; k++)
      for (int i = k == LAYOUT_IN_REGISTER ? bits : 0; i < m->num_bases[k]; i++)
        if (m->off[k][i] % v != 0) aligned = false;
    if (aligned) break;
    v /= 2;
    bits--;
  }
  return v;
}

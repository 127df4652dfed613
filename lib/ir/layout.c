/* Layout queries: rank, order, per-dim parameters, elements per thread, (reg, lane, warp) <-> coordinate. */
#include <string.h>

#include "layout_internal.h"

bool layout_equal(const ir_attr *a, const ir_attr *b) {
  /* Attributes are interned by the context: equal parameters give the same pointer. */
  return a == b;
}

bool layout_is_shared(const ir_attr *layout) {
  return layout && (layout->kind == AT_SWIZZLED_SHARED || layout->kind == AT_NVMMA_SHARED ||
                    layout->kind == AT_AMD_ROTATING_SHARED);
}

bool layout_is_distributed(const ir_attr *layout) {
  if (!layout) return false;
  switch (layout->kind) {
  case AT_BLOCKED:
  case AT_SLICE:
  case AT_NVIDIA_MMA:
  case AT_AMD_MFMA:
  case AT_DOT_OP:
  case AT_LINEAR: return true;
  default: return false;
  }
}

int layout_rank(const ir_attr *layout) {
  if (!layout) return 0;
  const ir_layout_params *p = &layout->layout;
  switch (layout->kind) {
  case AT_SLICE: {
    int r = layout_rank(p->parent);
    return r > 0 ? r - 1 : 0;
  }
  case AT_DOT_OP: return layout_rank(p->parent);
  case AT_NVMMA_SHARED:
    if (p->nvmma_rank > 0) return p->nvmma_rank;
    return p->rank > 0 ? p->rank : 2;
  case AT_LINEAR: {
    const ir_attr *all[] = {p->lin_register, p->lin_lane, p->lin_warp, p->lin_block};
    for (int i = 0; i < 4; i++) {
      int r = ll_bases_attr_rank(all[i]);
      if (r > 0) return r;
    }
    return p->rank;
  }
  default: return p->rank;
  }
}

/* Linear encodings: dims in the order the register, then lane, then warp bases first move them. */
static void linear_order(const ir_attr *layout, int rank, int *order) {
  layout_linear ll;
  int n = 0;
  bool used[IR_MAX_RANK] = {false};
  if (ll_from_linear_attr(layout, rank, &ll)) {
    static const layout_in_dim ins[] = {LAYOUT_IN_REGISTER, LAYOUT_IN_LANE, LAYOUT_IN_WARP};
    for (int k = 0; k < 3; k++)
      for (int i = 0; i < ll.num_bases[ins[k]]; i++)
        for (int d = 0; d < rank; d++)
          if (ll.bases[ins[k]][i][d] != 0 && !used[d]) {
            used[d] = true;
            order[n++] = d;
          }
  }
  for (int d = rank - 1; d >= 0; d--)
    if (!used[d]) order[n++] = d;
}

void layout_order(const ir_attr *layout, int rank, int *order_out) {
  if (rank < 1 || rank > IR_MAX_RANK) return;
  layout_matrix_order(rank, true, order_out); /* the answer for anything unknown */
  if (!layout) return;
  const ir_layout_params *p = &layout->layout;
  switch (layout->kind) {
  case AT_BLOCKED:
  case AT_SWIZZLED_SHARED:
  case AT_AMD_ROTATING_SHARED: memcpy(order_out, p->order, sizeof(int) * (size_t)rank); return;
  case AT_SLICE: {
    if (rank + 1 > IR_MAX_RANK) return;
    int parent_order[IR_MAX_RANK];
    layout_order(p->parent, rank + 1, parent_order);
    for (int i = 0, n = 0; i <= rank; i++) {
      int d = parent_order[i];
      if (d == p->dim) continue;
      order_out[n++] = d > p->dim ? d - 1 : d;
    }
    return;
  }
  case AT_DOT_OP: layout_dot_operand_order(p->op_idx, rank, true, order_out); return;
  case AT_NVMMA_SHARED: layout_matrix_order(rank, !p->transposed, order_out); return;
  case AT_LINEAR: linear_order(layout, rank, order_out); return;
  default: return; /* nvidia_mma, amd_mfma: row-major */
  }
}

/* Triton's basesPerDim(skipBroadcast = true): each basis doubles the first dim it moves. */
static void bases_per_dim(const layout_linear *ll, layout_in_dim in, int *out) {
  for (int d = 0; d < ll->rank; d++) out[d] = 1;
  for (int i = 0; i < ll->num_bases[in]; i++)
    for (int d = 0; d < ll->rank; d++)
      if (ll->bases[in][i][d] != 0) {
        out[d] *= 2;
        break;
      }
}

/* A parent's per-dim array with the slice dim removed. */
typedef void (*per_dim_fn)(const ir_attr *, int, int *);
static void slice_per_dim(const ir_attr *slice, int rank, int *out, per_dim_fn fn) {
  int parent[IR_MAX_RANK];
  if (rank + 1 > IR_MAX_RANK) return;
  fn(slice->layout.parent, rank + 1, parent);
  for (int d = 0, n = 0; d <= rank; d++)
    if (d != slice->layout.dim) out[n++] = parent[d];
}

/* The linear layout of one CTA tile, for reading per-dim parameters off it. */
static bool tile_linear(const ir_attr *layout, int rank, layout_linear *ll) {
  int64_t tile[IR_MAX_RANK] = {0};
  layout_shape_per_cta_tile(layout, rank, tile);
  return layout_to_linear(layout, rank, tile, ll);
}

void layout_size_per_thread(const ir_attr *layout, int rank, int *out) {
  for (int d = 0; d < rank; d++) out[d] = 1;
  if (!layout) return;
  if (layout->kind == AT_BLOCKED) {
    memcpy(out, layout->layout.size_per_thread, sizeof(int) * (size_t)rank);
    return;
  }
  if (layout->kind == AT_SLICE) {
    slice_per_dim(layout, rank, out, layout_size_per_thread);
    return;
  }
  layout_linear ll;
  if (!layout_is_distributed(layout) || !tile_linear(layout, rank, &ll)) return;
  /* Per dim, the run of register bases 1, 2, 4, .. along it: the thread's contiguous chunk. */
  for (int d = 0; d < rank; d++) {
    int32_t want = 1;
    bool found = true;
    while (found) {
      found = false;
      for (int i = 0; i < ll.num_bases[LAYOUT_IN_REGISTER]; i++) {
        const int32_t *b = ll.bases[LAYOUT_IN_REGISTER][i];
        bool unit = b[d] == want;
        for (int k = 0; k < rank && unit; k++) unit = k == d || b[k] == 0;
        if (unit) {
          found = true;
          want *= 2;
          break;
        }
      }
    }
    out[d] = want;
  }
}

void layout_threads_per_warp(const ir_attr *layout, int rank, int *out) {
  for (int d = 0; d < rank; d++) out[d] = 1;
  if (!layout) return;
  if (layout->kind == AT_BLOCKED) {
    memcpy(out, layout->layout.threads_per_warp, sizeof(int) * (size_t)rank);
    return;
  }
  if (layout->kind == AT_SLICE) {
    slice_per_dim(layout, rank, out, layout_threads_per_warp);
    return;
  }
  layout_linear ll;
  if (layout_is_distributed(layout) && tile_linear(layout, rank, &ll)) bases_per_dim(&ll, LAYOUT_IN_LANE, out);
}

void layout_warps_per_cta(const ir_attr *layout, int rank, int *out) {
  for (int d = 0; d < rank; d++) out[d] = 1;
  if (!layout) return;
  const ir_layout_params *p = &layout->layout;
  switch (layout->kind) {
  case AT_BLOCKED:
  case AT_NVIDIA_MMA:
  case AT_AMD_MFMA: memcpy(out, p->warps_per_cta, sizeof(int) * (size_t)rank); return;
  case AT_SLICE: slice_per_dim(layout, rank, out, layout_warps_per_cta); return;
  case AT_DOT_OP:
    /* Warps are broadcast along K, so K has one warp. */
    layout_warps_per_cta(p->parent, rank, out);
    if (rank >= 2) out[p->op_idx == 0 ? rank - 1 : rank - 2] = 1;
    return;
  case AT_LINEAR: {
    layout_linear ll;
    if (ll_from_linear_attr(layout, rank, &ll)) bases_per_dim(&ll, LAYOUT_IN_WARP, out);
    return;
  }
  default: return;
  }
}

void layout_shape_per_cta_tile(const ir_attr *layout, int rank, int64_t *out) {
  for (int d = 0; d < rank; d++) out[d] = 1;
  if (!layout || rank < 1 || rank > IR_MAX_RANK) return;
  const ir_layout_params *p = &layout->layout;
  switch (layout->kind) {
  case AT_BLOCKED:
    for (int d = 0; d < rank; d++)
      out[d] = (int64_t)p->size_per_thread[d] * p->threads_per_warp[d] * p->warps_per_cta[d];
    return;
  case AT_SLICE: {
    int64_t parent[IR_MAX_RANK];
    if (rank + 1 > IR_MAX_RANK) return;
    layout_shape_per_cta_tile(p->parent, rank + 1, parent);
    for (int d = 0, n = 0; d <= rank; d++)
      if (d != p->dim) out[n++] = parent[d];
    return;
  }
  case AT_NVIDIA_MMA:
  case AT_AMD_MFMA: {
    if (rank < 2) return;
    int64_t m = 0, n = 0;
    if (layout->kind == AT_AMD_MFMA || p->version_major == 3) {
      m = p->instr_shape[0];
      n = p->instr_shape[1];
    } else if (p->instr_rank >= 2) {
      m = p->instr_shape[p->instr_rank - 2];
      n = p->instr_shape[p->instr_rank - 1];
    }
    for (int d = 0; d < rank; d++) out[d] = p->warps_per_cta[d];
    out[rank - 2] *= m;
    out[rank - 1] *= n;
    return;
  }
  case AT_DOT_OP: {
    const ir_attr *parent = p->parent;
    if (!parent || rank < 2) return;
    int k_dim = p->op_idx == 0 ? rank - 1 : rank - 2;
    if (parent->kind == AT_BLOCKED) {
      layout_shape_per_cta_tile(parent, rank, out);
      out[k_dim] = parent->layout.size_per_thread[k_dim];
      return;
    }
    layout_shape_per_cta_tile(parent, rank, out);
    if (parent->kind == AT_NVIDIA_MMA) out[k_dim] = 8 * (int64_t)(p->k_width > 0 ? p->k_width : 1);
    else if (parent->kind == AT_AMD_MFMA)
      out[k_dim] = (int64_t)(p->k_width > 0 ? p->k_width : 1) * (parent->layout.instr_shape[0] == 32 ? 2 : 4);
    return;
  }
  case AT_LINEAR: {
    layout_linear ll;
    if (ll_from_linear_attr(layout, rank, &ll))
      for (int d = 0; d < rank; d++) out[d] = INT64_C(1) << ll.out_log2[d];
    return;
  }
  default: return;
  }
}

int64_t layout_elems_per_thread(const ir_attr *layout, int rank, const int64_t *shape) {
  layout_linear ll;
  if (!layout_is_distributed(layout) || !layout_to_linear(layout, rank, shape, &ll)) return 0;
  return layout_linear_in_size(&ll, LAYOUT_IN_REGISTER);
}

int layout_contig_per_thread(const ir_attr *layout, int rank, const int64_t *shape, int dim) {
  layout_linear ll;
  if (dim < 0 || dim >= rank || !layout_is_distributed(layout) || !layout_to_linear(layout, rank, shape, &ll))
    return 1;
  /* Walk the register bases in the layout's order: a run of 1, 2, 4, .. along one dim is the
   * contiguous chunk; it ends at the first basis that is anything else. */
  int order[IR_MAX_RANK], contig[IR_MAX_RANK];
  layout_order(layout, rank, order);
  for (int d = 0; d < rank; d++) contig[d] = 1;
  int next = 0, num_regs = ll.num_bases[LAYOUT_IN_REGISTER];
  for (int i = 0; i < rank; i++) {
    int d = order[i];
    int32_t want = 1;
    while (next < num_regs) {
      const int32_t *b = ll.bases[LAYOUT_IN_REGISTER][next];
      bool unit = b[d] == want;
      for (int k = 0; k < rank && unit; k++) unit = k == d || b[k] == 0;
      if (!unit) break;
      contig[d] *= 2;
      want *= 2;
      next++;
    }
  }
  /* A lane, warp or block basis that moves one of those low bits permutes each thread's run by
   * XOR (lane [0, 1] with register [0, 1]: lane 1 holds columns 1 then 0): only the bits below
   * the lowest such move stay in order from the thread's first register. */
  for (int in = LAYOUT_IN_LANE; in <= LAYOUT_IN_BLOCK; in++)
    for (int i = 0; i < ll.num_bases[in]; i++) {
      int32_t low = ll.bases[in][i][dim] & (contig[dim] - 1);
      if (low) contig[dim] = low & -low;
    }
  return contig[dim];
}

void layout_coords(const ir_attr *layout, int rank, const int64_t *shape, int64_t reg, int lane,
                   int warp, int64_t *coord_out) {
  layout_linear ll;
  for (int d = 0; d < rank; d++) coord_out[d] = 0;
  if (!layout_is_distributed(layout) || !layout_to_linear(layout, rank, shape, &ll)) return;
  int64_t in[LAYOUT_IN_COUNT] = {0};
  in[LAYOUT_IN_REGISTER] = reg;
  in[LAYOUT_IN_LANE] = lane;
  in[LAYOUT_IN_WARP] = warp;
  layout_linear_apply(&ll, in, coord_out);
}

bool layout_thread_of(const ir_attr *layout, int rank, const int64_t *shape, const int64_t *coord,
                      int64_t *reg, int *lane, int *warp) {
  layout_linear ll;
  if (!layout_is_distributed(layout) || !layout_to_linear(layout, rank, shape, &ll)) return false;
  for (int d = 0; d < rank; d++)
    if (coord[d] < 0 || coord[d] >= shape[d]) return false;
  int64_t in[LAYOUT_IN_COUNT];
  if (!layout_linear_invert(&ll, coord, in)) return false;
  if (reg) *reg = in[LAYOUT_IN_REGISTER];
  if (lane) *lane = (int)in[LAYOUT_IN_LANE];
  if (warp) *warp = (int)in[LAYOUT_IN_WARP];
  return true;
}

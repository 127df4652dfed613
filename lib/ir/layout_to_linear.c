/* layout_to_linear: each encoding as a linear layout, as Triton's LinearLayoutConversions.cpp builds it. */
#include <string.h>

#include "layout_internal.h"

void layout_matrix_order(int rank, bool row_major, int *order) {
  for (int i = 0; i < rank; i++) order[i] = rank - 1 - i;
  if (!row_major && rank >= 2) {
    int t = order[0];
    order[0] = order[1];
    order[1] = t;
  }
}

void layout_dot_operand_order(int op_idx, int rank, bool k_contig, int *order) {
  /* opIdx 0 is [.., M, K], opIdx 1 is [.., K, N]: K-contiguous means row-major for A. */
  bool row_major = (op_idx != 0) != k_contig;
  layout_matrix_order(rank, row_major, order);
}

static bool blocked_to_linear(const ir_attr *a, int rank, const int64_t *shape, layout_linear *ll) {
  const ir_layout_params *p = &a->layout;
  ll_init(ll, rank);
  return ll_identity_nd(ll, LAYOUT_IN_REGISTER, p->size_per_thread, p->order, rank) &&
         ll_identity_nd(ll, LAYOUT_IN_LANE, p->threads_per_warp, p->order, rank) &&
         ll_identity_nd(ll, LAYOUT_IN_WARP, p->warps_per_cta, p->order, rank) &&
         ll_combine_with_shape(ll, LAYOUT_IN_REGISTER, p->cga_layout, rank, shape);
}

static bool slice_to_linear(const ir_attr *a, int rank, const int64_t *shape, layout_linear *ll) {
  int dim = a->layout.dim;
  if (dim < 0 || dim > rank || rank + 1 > IR_MAX_RANK) return false;
  int64_t parent_shape[IR_MAX_RANK];
  for (int d = 0, s = 0; d <= rank; d++) parent_shape[d] = d == dim ? 1 : shape[s++];
  layout_linear parent;
  if (!layout_to_linear(a->layout.parent, rank + 1, parent_shape, &parent)) return false;
  /* Drop out-dim `dim` (its bases are zero along it already: its extent is 1), then the
   * register bases that became all-zero. */
  ll_init(ll, rank);
  for (int in = 0; in < LAYOUT_IN_COUNT; in++) {
    for (int i = 0; i < parent.num_bases[in]; i++) {
      int32_t basis[IR_MAX_RANK] = {0};
      bool nonzero = false;
      for (int d = 0, s = 0; d <= rank; d++) {
        if (d == dim) continue;
        basis[s] = parent.bases[in][i][d];
        nonzero |= basis[s] != 0;
        s++;
      }
      if (in == LAYOUT_IN_REGISTER && !nonzero) continue;
      if (!ll_push_basis(ll, (layout_in_dim)in, basis)) return false;
    }
  }
  for (int d = 0, s = 0; d <= rank; d++)
    if (d != dim) ll->out_log2[s++] = parent.out_log2[d];
  for (int i = 0; i < parent.num_out_order; i++) {
    int d = parent.out_order[i];
    if (d != dim) ll_touch_out(ll, d > dim ? d - 1 : d);
  }
  return true;
}

/* Triton's nvidiaMmaTile: kWidth registers and 4 lanes along the inner dim, 8 lanes along the
 * outer dim, then register repeats m/8 along outer and n/(4 kWidth) along inner. */
static bool nvidia_mma_tile(layout_linear *ll, int rank, const int *tile, int k_width, const int *order,
                            const int *rep_order) {
  ll_init(ll, rank);
  for (int i = 0; i < rank; i++) ll_touch_out(ll, rep_order[i]);
  int inner = order[0], outer = order[1];
  int m = tile[outer], n = tile[inner];
  if (k_width <= 0 || m % 8 != 0 || n % (k_width * 4) != 0) return false;
  return ll_identity1d(ll, k_width, LAYOUT_IN_REGISTER, inner) &&
         ll_identity1d(ll, 4, LAYOUT_IN_LANE, inner) && ll_identity1d(ll, 8, LAYOUT_IN_LANE, outer) &&
         ll_identity1d(ll, m / 8, LAYOUT_IN_REGISTER, outer) &&
         ll_identity1d(ll, n / (k_width * 4), LAYOUT_IN_REGISTER, inner);
}

/* The accumulator tile [M, N] of one MMA instruction, padded with 1s to rank. */
static bool mma_acc_tile(const ir_layout_params *p, int rank, int *tile) {
  if (rank < 2) return false;
  for (int d = 0; d < rank; d++) tile[d] = 1;
  if (p->version_major == 2) {
    if (p->instr_rank < 2) return false;
    tile[rank - 2] = p->instr_shape[p->instr_rank - 2];
    tile[rank - 1] = p->instr_shape[p->instr_rank - 1];
    return true;
  }
  if (p->version_major == 3) {
    if (p->instr_rank != 3) return false;
    tile[rank - 2] = p->instr_shape[0];
    tile[rank - 1] = p->instr_shape[1];
    return true;
  }
  return false; /* v1 and v5 (tensor memory) are not register layouts we model */
}

static bool nvidia_mma_to_linear(const ir_attr *a, int rank, const int64_t *shape, layout_linear *ll) {
  const ir_layout_params *p = &a->layout;
  int tile[IR_MAX_RANK], order[IR_MAX_RANK], warp_order[IR_MAX_RANK];
  if (!mma_acc_tile(p, rank, tile)) return false;
  layout_matrix_order(rank, true, order);
  /* Ampere warps go N-fastest; Hopper warps stack along M (a warpgroup covers 64 rows). */
  layout_matrix_order(rank, p->version_major != 3, warp_order);
  return nvidia_mma_tile(ll, rank, tile, 2, order, order) &&
         ll_identity_nd(ll, LAYOUT_IN_WARP, p->warps_per_cta, warp_order, rank) &&
         ll_combine_with_shape(ll, LAYOUT_IN_REGISTER, p->cga_layout, rank, shape);
}

/* Warps of a dot operand: the parent's warps, broadcast along K (every warp in a row of the
 * accumulator needs the same A rows). */
static bool broadcast_along_k(layout_linear *ll, layout_in_dim in, const int *sizes, const int *order,
                              int rank, int k_dim) {
  for (int i = 0; i < rank; i++) {
    int d = order[i];
    bool ok = d == k_dim ? ll_zeros1d(ll, sizes[d], in, d) : ll_identity1d(ll, sizes[d], in, d);
    if (!ok) return false;
  }
  return true;
}

static bool dot_mma_to_linear(const ir_attr *a, int rank, const int64_t *shape, layout_linear *ll) {
  const ir_layout_params *p = &a->layout;
  const ir_layout_params *mma = &p->parent->layout;
  bool is_a = p->op_idx == 0;
  int k_width = p->k_width;
  if (rank < 2 || k_width <= 0) return false;
  if (!is_a && mma->version_major != 2) return false; /* wgmma reads B from shared memory */
  int tile[IR_MAX_RANK], order[IR_MAX_RANK], warp_order[IR_MAX_RANK];
  for (int d = 0; d < rank; d++) tile[d] = 1;
  tile[rank - 2] = is_a ? 16 : 8 * k_width;
  tile[rank - 1] = is_a ? 8 * k_width : 8;
  layout_dot_operand_order(p->op_idx, rank, true, order);
  layout_matrix_order(rank, mma->version_major != 3, warp_order);
  int k_dim = is_a ? rank - 1 : rank - 2;
  return nvidia_mma_tile(ll, rank, tile, k_width, order, order) &&
         broadcast_along_k(ll, LAYOUT_IN_WARP, mma->warps_per_cta, warp_order, rank, k_dim) &&
         ll_combine_with_shape(ll, LAYOUT_IN_REGISTER, mma->cga_layout, rank, shape);
}

/* FMA path: each thread holds the whole K extent; lanes and warps broadcast along K. */
static bool dot_blocked_to_linear(const ir_attr *a, int rank, const int64_t *shape, layout_linear *ll) {
  const ir_layout_params *p = &a->layout;
  const ir_layout_params *blk = &p->parent->layout;
  if (rank < 2) return false;
  int k_dim = p->op_idx == 0 ? rank - 1 : rank - 2;
  int thread_size[IR_MAX_RANK];
  for (int d = 0; d < rank; d++) thread_size[d] = blk->size_per_thread[d];
  if (shape[k_dim] > INT32_MAX) return false;
  thread_size[k_dim] = (int)shape[k_dim];
  ll_init(ll, rank);
  return ll_identity_nd(ll, LAYOUT_IN_REGISTER, thread_size, blk->order, rank) &&
         broadcast_along_k(ll, LAYOUT_IN_LANE, blk->threads_per_warp, blk->order, rank, k_dim) &&
         broadcast_along_k(ll, LAYOUT_IN_WARP, blk->warps_per_cta, blk->order, rank, k_dim) &&
         ll_combine_with_shape(ll, LAYOUT_IN_REGISTER, blk->cga_layout, rank, shape);
}

/* Appends a basis given as (M offset, N offset) of a 2D MFMA tile. */
static bool push_mn(layout_linear *ll, layout_in_dim in, int m_dim, int m, int n_dim, int n) {
  int32_t basis[IR_MAX_RANK] = {0};
  basis[m_dim] = m;
  basis[n_dim] = n;
  return ll_push_basis(ll, in, basis);
}

static bool mfma_supported(const ir_layout_params *p) {
  if (p->instr_rank < 2 || p->instr_shape[0] != p->instr_shape[1]) return false;
  if (p->instr_shape[0] != 16 && p->instr_shape[0] != 32) return false;
  if (p->element_bit_width == 64) return false; /* f64 MFMA has its own register shape */
  for (int i = 0; i < p->tiles_per_warp_rank; i++)
    if (p->tiles_per_warp[i] != 1) return false;
  return true;
}

static bool mfma_to_linear(const ir_attr *a, int rank, const int64_t *shape, layout_linear *ll) {
  const ir_layout_params *p = &a->layout;
  if (rank < 2 || rank > 3 || !mfma_supported(p)) return false;
  int order[IR_MAX_RANK];
  layout_matrix_order(rank, true, order);
  int n_dim = order[0], m_dim = order[1];
  /* Transposed swaps the roles of M and N inside the tile. */
  int r_dim = p->is_transposed ? n_dim : m_dim; /* registers walk this dim */
  int l_dim = p->is_transposed ? m_dim : n_dim; /* lanes walk this dim first */
  ll_init(ll, rank);
  ll_touch_out(ll, n_dim);
  ll_touch_out(ll, m_dim);
  bool ok = true;
  if (p->instr_shape[0] == 32) {
    /* 4 consecutive rows per register group, lanes 0-31 along the other dim, lane 32 jumps 4
     * rows, registers 8 and 16 rows further. */
    static const int reg_steps[] = {1, 2, 8, 16};
    for (int i = 0; i < 4; i++) ok = ok && push_mn(ll, LAYOUT_IN_REGISTER, r_dim, reg_steps[i], l_dim, 0);
    for (int i = 0; i < 5; i++) ok = ok && push_mn(ll, LAYOUT_IN_LANE, l_dim, 1 << i, r_dim, 0);
    ok = ok && push_mn(ll, LAYOUT_IN_LANE, r_dim, 4, l_dim, 0);
  } else {
    ok = ok && push_mn(ll, LAYOUT_IN_REGISTER, r_dim, 1, l_dim, 0) &&
         push_mn(ll, LAYOUT_IN_REGISTER, r_dim, 2, l_dim, 0);
    for (int i = 0; i < 4; i++) ok = ok && push_mn(ll, LAYOUT_IN_LANE, l_dim, 1 << i, r_dim, 0);
    ok = ok && push_mn(ll, LAYOUT_IN_LANE, r_dim, 4, l_dim, 0) && push_mn(ll, LAYOUT_IN_LANE, r_dim, 8, l_dim, 0);
  }
  if (!ok) return false;
  ll_infer_out_sizes(ll);
  if (rank == 3) ll_touch_out(ll, 0);
  return ll_identity_nd(ll, LAYOUT_IN_WARP, p->warps_per_cta, order, rank) &&
         ll_combine_with_shape(ll, LAYOUT_IN_REGISTER, p->cga_layout, rank, shape);
}

static bool dot_mfma_to_linear(const ir_attr *a, int rank, const int64_t *shape, layout_linear *ll) {
  const ir_layout_params *p = &a->layout;
  const ir_layout_params *mfma = &p->parent->layout;
  int k_width = p->k_width;
  if (rank < 2 || rank > 3 || !mfma_supported(mfma) || log2_exact(k_width) < 0) return false;
  int order[IR_MAX_RANK], warp_order[IR_MAX_RANK];
  layout_dot_operand_order(p->op_idx, rank, true, order);
  int k_dim = order[0], nonk_dim = order[1];
  int64_t k_size = shape[k_dim];
  ll_init(ll, rank);
  bool ok = true;
  for (int e = 1; e < k_width; e *= 2) ok = ok && push_mn(ll, LAYOUT_IN_REGISTER, k_dim, e, nonk_dim, 0);
  int k_tile;
  if (mfma->instr_shape[0] == 32) {
    for (int i = 0; i < 5; i++) ok = ok && push_mn(ll, LAYOUT_IN_LANE, nonk_dim, 1 << i, k_dim, 0);
    ok = ok && push_mn(ll, LAYOUT_IN_LANE, k_dim, k_width, nonk_dim, 0);
    k_tile = k_width * 2;
  } else {
    for (int i = 0; i < 4; i++) ok = ok && push_mn(ll, LAYOUT_IN_LANE, nonk_dim, 1 << i, k_dim, 0);
    ok = ok && push_mn(ll, LAYOUT_IN_LANE, k_dim, k_width, nonk_dim, 0) &&
         push_mn(ll, LAYOUT_IN_LANE, k_dim, 2 * k_width, nonk_dim, 0);
    k_tile = k_width * 4;
  }
  for (int64_t e = k_tile; e < k_size && ok; e *= 2) ok = push_mn(ll, LAYOUT_IN_REGISTER, k_dim, (int)e, nonk_dim, 0);
  if (!ok) return false;
  ll_infer_out_sizes(ll);
  /* Repetitions go in standard dim order (Triton transposes the outs to dim0, dim1, ..). */
  for (int d = 0; d < rank; d++) ll_touch_out(ll, d);
  layout_matrix_order(rank, true, warp_order);
  return broadcast_along_k(ll, LAYOUT_IN_WARP, mfma->warps_per_cta, warp_order, rank, k_dim) &&
         ll_combine_with_shape(ll, LAYOUT_IN_REGISTER, mfma->cga_layout, rank, shape);
}

static bool dot_op_to_linear(const ir_attr *a, int rank, const int64_t *shape, layout_linear *ll) {
  const ir_attr *parent = a->layout.parent;
  if (!parent || a->layout.op_idx < 0 || a->layout.op_idx > 1) return false;
  switch (parent->kind) {
  case AT_BLOCKED: return dot_blocked_to_linear(a, rank, shape, ll);
  case AT_NVIDIA_MMA: return dot_mma_to_linear(a, rank, shape, ll);
  case AT_AMD_MFMA: return dot_mfma_to_linear(a, rank, shape, ll);
  default: return false;
  }
}

bool ll_from_linear_attr(const ir_attr *a, int rank, layout_linear *ll) {
  const ir_layout_params *p = &a->layout;
  ll_init(ll, rank);
  if (a->kind != AT_LINEAR || rank < 1 || rank > IR_MAX_RANK) return false;
  if (!ll_push_bases_attr(ll, LAYOUT_IN_REGISTER, p->lin_register) ||
      !ll_push_bases_attr(ll, LAYOUT_IN_LANE, p->lin_lane) ||
      !ll_push_bases_attr(ll, LAYOUT_IN_WARP, p->lin_warp) ||
      !ll_push_bases_attr(ll, LAYOUT_IN_BLOCK, p->lin_block))
    return false;
  ll_infer_out_sizes(ll);
  for (int d = 0; d < rank; d++) ll_touch_out(ll, d);
  return true;
}

static bool linear_attr_to_linear(const ir_attr *a, int rank, const int64_t *shape, layout_linear *ll) {
  if (!ll_from_linear_attr(a, rank, ll)) return false;
  int shape_log2[IR_MAX_RANK];
  for (int d = 0; d < rank; d++)
    if ((shape_log2[d] = log2_exact(shape[d])) < 0) return false;
  if (!ll_ensure_not_smaller(ll, LAYOUT_IN_REGISTER, shape_log2)) return false;
  ll_ensure_not_larger(ll, shape_log2);
  return true;
}

bool layout_to_linear(const ir_attr *layout, int rank, const int64_t *shape, layout_linear *out) {
  if (!layout || !out || rank < 1 || rank > IR_MAX_RANK || !shape) return false;
  switch (layout->kind) {
  case AT_BLOCKED: return blocked_to_linear(layout, rank, shape, out);
  case AT_SLICE: return slice_to_linear(layout, rank, shape, out);
  case AT_NVIDIA_MMA: return nvidia_mma_to_linear(layout, rank, shape, out);
  case AT_AMD_MFMA: return mfma_to_linear(layout, rank, shape, out);
  case AT_DOT_OP: return dot_op_to_linear(layout, rank, shape, out);
  case AT_LINEAR: return linear_attr_to_linear(layout, rank, shape, out);
  case AT_SWIZZLED_SHARED:
  case AT_AMD_ROTATING_SHARED:
  case AT_NVMMA_SHARED: return layout_shared_to_linear(layout, rank, shape, true, out);
  default: return false;
  }
}

/* Layout builders: Triton's blocked-layout builder, the default layout, shared layouts for MMA operands. */
#include <string.h>

#include "layout_internal.h"

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

const ir_attr *layout_blocked_get(gemmc_context *ctx, int rank, const int64_t *shape,
                                  const int *size_per_thread, const int *order, int num_warps,
                                  int threads_per_warp) {
  if (rank < 1 || rank > IR_MAX_RANK || num_warps < 1 || threads_per_warp < 1) return NULL;
  ir_layout_params p;
  memset(&p, 0, sizeof p);
  p.rank = rank;
  memcpy(p.size_per_thread, size_per_thread, sizeof(int) * (size_t)rank);
  memcpy(p.order, order, sizeof(int) * (size_t)rank);
  int64_t remaining_lanes = threads_per_warp, remaining_threads = (int64_t)num_warps * threads_per_warp;
  int64_t remaining_warps = num_warps, prev_lanes = 1, prev_warps = 1;
  /* From the contiguous dim outwards, give each dim as many threads as it has elements per
   * thread-chunk: lanes first, then warps. */
  for (int i = 0; i < rank - 1; i++) {
    int d = order[i];
    int64_t spt = size_per_thread[d] > 0 ? size_per_thread[d] : 1;
    int64_t max_threads = shape[d] / spt > 1 ? shape[d] / spt : 1;
    int64_t threads_per_cta = clamp64(remaining_threads, 1, max_threads);
    int64_t lanes = clamp64(threads_per_cta, 1, remaining_lanes);
    int64_t warps = clamp64(threads_per_cta / lanes, 1, remaining_warps);
    p.threads_per_warp[d] = (int)lanes;
    p.warps_per_cta[d] = (int)warps;
    remaining_warps /= warps;
    remaining_lanes /= lanes;
    remaining_threads /= threads_per_cta;
    prev_lanes *= lanes;
    prev_warps *= warps;
  }
  /* The slowest dim takes whatever lanes and warps are left. */
  p.threads_per_warp[order[rank - 1]] = (int)(threads_per_warp / prev_lanes);
  p.warps_per_cta[order[rank - 1]] = (int)(num_warps / prev_warps);
  return ir_layout_attr(ctx, AT_BLOCKED, &p);
}

const ir_attr *layout_default_blocked(gemmc_context *ctx, int rank, const int64_t *shape,
                                      int num_warps, int threads_per_warp) {
  int spt[IR_MAX_RANK], order[IR_MAX_RANK];
  if (rank < 1 || rank > IR_MAX_RANK) return NULL;
  for (int d = 0; d < rank; d++) {
    spt[d] = 1;
    order[d] = rank - 1 - d;
  }
  return layout_blocked_get(ctx, rank, shape, spt, order, num_warps, threads_per_warp);
}

const ir_attr *layout_swizzled_shared_get(gemmc_context *ctx, int rank, int vec, int per_phase,
                                          int max_phase, const int *order) {
  if (rank < 1 || rank > IR_MAX_RANK) return NULL;
  ir_layout_params p;
  memset(&p, 0, sizeof p);
  p.rank = rank;
  p.vec = vec;
  p.per_phase = per_phase;
  p.max_phase = max_phase;
  memcpy(p.order, order, sizeof(int) * (size_t)rank);
  return ir_layout_attr(ctx, AT_SWIZZLED_SHARED, &p);
}

const ir_attr *layout_swizzled_shared_for_dot_operand(gemmc_context *ctx, int op_idx, int k_width,
                                                      int rank, const int64_t *shape,
                                                      const int *order, int elem_bits) {
  if (rank < 1 || rank > IR_MAX_RANK || elem_bits <= 0) return NULL;
  if (rank == 1 || k_width <= 0) return layout_swizzled_shared_get(ctx, rank, 1, 1, 1, order);
  /* 1024 bits = the 32 four-byte banks. perPhase packs several short rows into one bank row. */
  int64_t contig = shape[order[0]] > 0 ? shape[order[0]] : 1;
  int per_phase = (int)(1024 / ((int64_t)elem_bits * contig));
  if (per_phase < 1) per_phase = 1;
  int mma_stride = 8;
  int vec = 4 * k_width;
  int k_dim = op_idx == 0 ? rank - 1 : rank - 2;
  /* ldmatrix reads 8 rows of 16 bytes along K; when K is not contiguous the roles swap. */
  if (order[0] != k_dim) {
    int t = vec;
    vec = mma_stride;
    mma_stride = t;
  }
  int max_phase = 1024 / (vec * elem_bits);
  if (max_phase > mma_stride) max_phase = mma_stride;
  if (max_phase < 1) max_phase = 1;
  max_phase /= per_phase;
  if (max_phase < 1) max_phase = 1;
  return layout_swizzled_shared_get(ctx, rank, vec, per_phase, max_phase, order);
}

const ir_attr *layout_shared_for_mfma_operand(gemmc_context *ctx, int op_idx, int vec, int rank,
                                              const int64_t *shape, const int *order, int elem_bits,
                                              bool rotating) {
  if (rank < 2 || rank > IR_MAX_RANK || elem_bits <= 0 || vec <= 0) return NULL;
  int k_dim = op_idx == 0 ? rank - 1 : rank - 2;
  if (order[0] != k_dim) return layout_swizzled_shared_get(ctx, rank, 1, 1, 1, order);
  enum { BANKS = 32, BANK_BITS = 32, SIMD_WIDTH = 16 };
  int64_t inner = shape[order[0]] > 0 ? shape[order[0]] : 1;
  int64_t elems_per_bank_row = BANKS * BANK_BITS / elem_bits;
  int per_phase = elems_per_bank_row / inner > 1 ? (int)(elems_per_bank_row / inner) : 1;
  int64_t max_phase = SIMD_WIDTH / per_phase < inner / vec ? SIMD_WIDTH / per_phase : inner / vec;
  if (max_phase < 1) max_phase = 1;
  ir_layout_params p;
  memset(&p, 0, sizeof p);
  p.rank = rank;
  p.vec = vec;
  p.per_phase = per_phase;
  p.max_phase = (int)max_phase;
  memcpy(p.order, order, sizeof(int) * (size_t)rank);
  return ir_layout_attr(ctx, rotating ? AT_AMD_ROTATING_SHARED : AT_SWIZZLED_SHARED, &p);
}

static const ir_attr *bases_attr(gemmc_context *ctx, const layout_linear *ll, layout_in_dim in) {
  int n = ll->num_bases[in];
  const ir_attr **bases = ir_alloc(ctx, sizeof *bases * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    const ir_attr *coords[IR_MAX_RANK];
    for (int d = 0; d < ll->rank; d++) coords[d] = ir_int_attr(ctx, ll->bases[in][i][d], NULL);
    bases[i] = ir_array_attr(ctx, ll->rank, coords);
  }
  return ir_array_attr(ctx, n, bases);
}

const ir_attr *layout_linear_get(gemmc_context *ctx, const layout_linear *ll) {
  ir_layout_params p;
  memset(&p, 0, sizeof p);
  p.rank = ll->rank;
  p.lin_register = bases_attr(ctx, ll, LAYOUT_IN_REGISTER);
  p.lin_lane = bases_attr(ctx, ll, LAYOUT_IN_LANE);
  p.lin_warp = bases_attr(ctx, ll, LAYOUT_IN_WARP);
  p.lin_block = bases_attr(ctx, ll, LAYOUT_IN_BLOCK);
  return ir_layout_attr(ctx, AT_LINEAR, &p);
}

const ir_attr *layout_in_thread_transposed(gemmc_context *ctx, const ir_attr *blocked, int rank,
                                           const int64_t *shape) {
  if (!blocked || blocked->kind != AT_BLOCKED || rank < 2 || rank > IR_MAX_RANK) return NULL;
  layout_linear ll, tile;
  if (!layout_to_linear(blocked, rank, shape, &ll)) return NULL;
  int order[IR_MAX_RANK];
  memcpy(order, blocked->layout.order, sizeof(int) * (size_t)rank);
  int t = order[rank - 2];
  order[rank - 2] = order[rank - 1];
  order[rank - 1] = t;
  ll_init(&tile, rank);
  if (!ll_identity_nd(&tile, LAYOUT_IN_REGISTER, blocked->layout.size_per_thread, order, rank)) return NULL;
  /* The tile's bases replace the first register bases (one thread's sizePerThread elements);
   * the repetitions after them stay. */
  for (int i = 0; i < tile.num_bases[LAYOUT_IN_REGISTER] && i < ll.num_bases[LAYOUT_IN_REGISTER]; i++)
    memcpy(ll.bases[LAYOUT_IN_REGISTER][i], tile.bases[LAYOUT_IN_REGISTER][i], sizeof ll.bases[0][0]);
  return layout_linear_get(ctx, &ll);
}

const ir_attr *layout_nvmma_shared_get(gemmc_context *ctx, int rank, const int64_t *shape,
                                       const int *order, int elem_bits, bool fp4_padded) {
  if (rank < 1 || rank > IR_MAX_RANK || elem_bits <= 0) return NULL;
  ir_layout_params p;
  memset(&p, 0, sizeof p);
  int64_t contig_bytes = shape[order[0]] * (fp4_padded ? 2 : 1) * elem_bits / 8;
  int swizzle = 0;
  if (contig_bytes >= 128 && contig_bytes % 128 == 0) swizzle = 128;
  else if (contig_bytes >= 64 && contig_bytes % 64 == 0) swizzle = 64;
  else if (contig_bytes >= 32 && contig_bytes % 32 == 0) swizzle = 32;
  /* The swizzle pattern repeats every 8 rows: fewer rows than that cannot be swizzled. */
  int64_t outer = 1;
  for (int i = 1; i < rank; i++) outer *= shape[order[i]];
  if (rank < 2 || outer < 8) swizzle = 0;
  p.swizzling_byte_width = swizzle;
  /* Triton: transposed = (order[0] == 0) for rank 2; generalised to "the second-to-last dim is
   * the contiguous one". */
  p.transposed = rank >= 2 && order[0] == rank - 2;
  p.element_bit_width = elem_bits;
  p.fp4_padded = fp4_padded;
  /* rank stays 0: nvmma_shared carries its rank only when it is not 2 (as printed). */
  p.nvmma_rank = rank != 2 ? rank : 0;
  return ir_layout_attr(ctx, AT_NVMMA_SHARED, &p);
}

const ir_attr *layout_slice_get(gemmc_context *ctx, int dim, const ir_attr *parent) {
  ir_layout_params p;
  memset(&p, 0, sizeof p);
  p.dim = dim;
  p.parent = parent; /* rank stays 0: derived from the parent, never stored */
  return ir_layout_attr(ctx, AT_SLICE, &p);
}

const ir_attr *layout_dot_op_get(gemmc_context *ctx, int op_idx, const ir_attr *parent, int k_width) {
  ir_layout_params p;
  memset(&p, 0, sizeof p);
  p.op_idx = op_idx;
  p.parent = parent;
  p.k_width = k_width; /* rank stays 0: derived from the parent */
  return ir_layout_attr(ctx, AT_DOT_OP, &p);
}

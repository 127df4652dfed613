/* Shared-memory layouts (swizzled_shared, amd_rotating_shared, nvmma_shared): offset <-> coordinate, swizzle included. */
#include "layout_internal.h"

void layout_shared_swizzle(const ir_attr *layout, int *vec, int *per_phase, int *max_phase) {
  int v = 1, pp = 1, mp = 1;
  if (layout && (layout->kind == AT_SWIZZLED_SHARED || layout->kind == AT_AMD_ROTATING_SHARED)) {
    v = layout->layout.vec;
    pp = layout->layout.per_phase;
    mp = layout->layout.max_phase;
  } else if (layout && layout->kind == AT_NVMMA_SHARED) {
    int swizzle = layout->layout.swizzling_byte_width;
    int bits = layout->layout.element_bit_width;
    if (swizzle > 0 && bits > 0) {
      v = 128 / bits > 0 ? 128 / bits : 1;
      pp = 128 / swizzle;
      mp = swizzle / 16;
    }
  }
  if (vec) *vec = v;
  if (per_phase) *per_phase = pp;
  if (max_phase) *max_phase = mp;
}

/* Dims of the swizzled 2D tile and the outer dims, outer listed fastest first. */
typedef struct shared_dims {
  int row, col;
  int num_outer;
  int outer[IR_MAX_RANK];
} shared_dims;

static bool shared_dims_of(const ir_attr *layout, int rank, shared_dims *sd) {
  sd->num_outer = 0;
  if (layout->kind == AT_SWIZZLED_SHARED || layout->kind == AT_AMD_ROTATING_SHARED) {
    /* An encoding of lower rank than the buffer (Triton's pipeline rings: a 2-D operand layout
     * on a stages x M x K buffer) lays out the trailing dims; the leading ones are outermost. */
    const int *order = layout->layout.order;
    int own = layout->layout.rank > 0 && layout->layout.rank < rank ? layout->layout.rank : rank;
    int shift = rank - own;
    sd->col = order[0] + shift;
    sd->row = own >= 2 ? order[1] + shift : -1;
    for (int i = 2; i < own; i++) sd->outer[sd->num_outer++] = order[i] + shift;
    for (int d = shift - 1; d >= 0; d--) sd->outer[sd->num_outer++] = d;
    return true;
  }
  if (layout->kind == AT_NVMMA_SHARED) {
    if (rank < 2) {
      sd->col = 0;
      sd->row = -1;
      return true;
    }
    int batch = rank - 2;
    bool transposed = layout->layout.transposed;
    sd->col = batch + (transposed ? 0 : 1);
    sd->row = batch + (transposed ? 1 : 0);
    /* Batch dims above the tile, the innermost batch dim fastest. */
    for (int d = batch - 1; d >= 0; d--) sd->outer[sd->num_outer++] = d;
    return true;
  }
  return false;
}

/* Offset bases of the swizzled 2D tile: columns are the identity, row bit i XORs the column by
 * vec * phase, phase = (2^i / perPhase) % maxPhase. amd_rotating_shared XORs the phase with the
 * block of rows it is in, (2^i / perPhase / maxPhase) % maxPhase, so that consecutive blocks of
 * maxPhase * perPhase rows start on different banks (Triton's sharedToLinearLayoutAMDRotating). */
static bool swizzled_tile(layout_linear *ll, const ir_attr *layout, const shared_dims *sd,
                          const int64_t *shape) {
  int64_t num_cols = shape[sd->col], num_rows = shape[sd->row];
  int lc = log2_exact(num_cols), lr = log2_exact(num_rows);
  int vec = layout->layout.vec, per_phase = layout->layout.per_phase, max_phase = layout->layout.max_phase;
  if (lc < 0 || lr < 0 || vec <= 0 || per_phase <= 0 || max_phase <= 0) return false;
  ll_touch_out(ll, sd->row);
  ll_touch_out(ll, sd->col);
  for (int j = 0; j < lc; j++) {
    int32_t b[IR_MAX_RANK] = {0};
    b[sd->col] = (int32_t)1 << j;
    if (!ll_push_basis(ll, LAYOUT_IN_OFFSET, b)) return false;
  }
  for (int i = 0; i < lr; i++) {
    int64_t row = INT64_C(1) << i;
    int32_t b[IR_MAX_RANK] = {0};
    b[sd->row] = (int32_t)row;
    int64_t phase = (row / per_phase) % max_phase;
    if (layout->kind == AT_AMD_ROTATING_SHARED) phase ^= row / per_phase / max_phase % max_phase;
    b[sd->col] = (int32_t)(((int64_t)vec * phase) % num_cols);
    if (!ll_push_basis(ll, LAYOUT_IN_OFFSET, b)) return false;
  }
  ll_infer_out_sizes(ll);
  return true;
}

/* fp4Padded: every 16 column slots hold 8 real columns; padding maps onto the real ones. */
static int32_t fp4_packed_col(int64_t col) { return (int32_t)(col / 16 * 8 + col % 8); }

/* NVMMA tile: 8 rows x (swizzle bytes) columns with the 16-byte-vector XOR swizzle, repeated
 * down the rows first, then across column chunks. */
static bool nvmma_tile(layout_linear *ll, const ir_attr *layout, const shared_dims *sd, const int64_t *shape) {
  const ir_layout_params *p = &layout->layout;
  int bits = p->element_bit_width;
  int swizzle = p->swizzling_byte_width;
  if (bits <= 0 || (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)) return false;
  int vec, per_phase, max_phase;
  layout_shared_swizzle(layout, &vec, &per_phase, &max_phase);
  int64_t tile_cols = 8 * (int64_t)(swizzle > 16 ? swizzle : 16) / bits;
  int64_t tile_rows = 8;
  int packing = p->fp4_padded ? 2 : 1;
  if (tile_cols < 1 || shape[sd->col] * packing < tile_cols || shape[sd->row] < tile_rows) return false;
  int lc = log2_exact(tile_cols);
  if (lc < 0) return false;
  ll_touch_out(ll, sd->row);
  ll_touch_out(ll, sd->col);
  for (int j = 0; j < lc; j++) {
    int32_t b[IR_MAX_RANK] = {0};
    int64_t col = INT64_C(1) << j;
    b[sd->col] = p->fp4_padded ? fp4_packed_col(col) : (int32_t)col;
    if (!ll_push_basis(ll, LAYOUT_IN_OFFSET, b)) return false;
  }
  for (int i = 0; i < 3; i++) {
    int row = 1 << i;
    int32_t b[IR_MAX_RANK] = {0};
    int64_t col = (int64_t)vec * ((row / per_phase) % max_phase);
    b[sd->row] = row;
    b[sd->col] = p->fp4_padded ? fp4_packed_col(col) : (int32_t)col;
    if (!ll_push_basis(ll, LAYOUT_IN_OFFSET, b)) return false;
  }
  ll_infer_out_sizes(ll);
  int shape_log2[IR_MAX_RANK] = {0};
  shape_log2[sd->row] = log2_exact(shape[sd->row]);
  shape_log2[sd->col] = log2_exact(shape[sd->col]);
  if (shape_log2[sd->row] < 0 || shape_log2[sd->col] < 0) return false;
  if (!ll_ensure_not_smaller(ll, LAYOUT_IN_OFFSET, shape_log2)) return false;
  ll_ensure_not_larger(ll, shape_log2);
  return true;
}

bool layout_shared_to_linear(const ir_attr *layout, int rank, const int64_t *shape, bool with_outer,
                             layout_linear *ll) {
  shared_dims sd;
  if (!layout || rank < 1 || rank > IR_MAX_RANK || !shared_dims_of(layout, rank, &sd)) return false;
  if (sd.col < 0 || sd.col >= rank || sd.row >= rank) return false;
  ll_init(ll, rank);
  if (sd.row < 0) {
    if (!ll_identity1d(ll, shape[sd.col], LAYOUT_IN_OFFSET, sd.col)) return false;
  } else {
    bool ok = layout->kind == AT_NVMMA_SHARED ? nvmma_tile(ll, layout, &sd, shape)
                                              : swizzled_tile(ll, layout, &sd, shape);
    if (!ok) return false;
  }
  /* Outer dims are outermost, so a slice along them (one pipeline stage) is contiguous. */
  if (with_outer)
    for (int i = 0; i < sd.num_outer; i++)
      if (!ll_identity1d(ll, shape[sd.outer[i]], LAYOUT_IN_OFFSET, sd.outer[i])) return false;
  return true;
}

/* Elements of the swizzled tile (the inner dims); outer dims multiply it. */
static int64_t inner_size(const shared_dims *sd, const int64_t *shape) {
  int64_t n = shape[sd->col];
  if (sd->row >= 0) n *= shape[sd->row];
  return n;
}

int64_t layout_shared_offset(const ir_attr *layout, int rank, const int64_t *shape, const int64_t *coord) {
  shared_dims sd;
  layout_linear ll;
  if (!layout_shared_to_linear(layout, rank, shape, false, &ll) || !shared_dims_of(layout, rank, &sd))
    return -1;
  for (int d = 0; d < rank; d++)
    if (coord[d] < 0 || coord[d] >= shape[d]) return -1;
  int64_t inner[IR_MAX_RANK] = {0};
  inner[sd.col] = coord[sd.col];
  if (sd.row >= 0) inner[sd.row] = coord[sd.row];
  int64_t in[LAYOUT_IN_COUNT];
  if (!layout_linear_invert(&ll, inner, in)) return -1;
  int64_t outer = 0;
  for (int i = sd.num_outer - 1; i >= 0; i--) outer = outer * shape[sd.outer[i]] + coord[sd.outer[i]];
  return outer * inner_size(&sd, shape) + in[LAYOUT_IN_OFFSET];
}

bool layout_shared_coord(const ir_attr *layout, int rank, const int64_t *shape, int64_t offset,
                         int64_t *coord_out) {
  shared_dims sd;
  layout_linear ll;
  if (!layout_shared_to_linear(layout, rank, shape, false, &ll) || !shared_dims_of(layout, rank, &sd))
    return false;
  int64_t tile = inner_size(&sd, shape);
  int64_t total = tile;
  for (int i = 0; i < sd.num_outer; i++) total *= shape[sd.outer[i]];
  if (offset < 0 || offset >= total) return false;
  int64_t in[LAYOUT_IN_COUNT] = {0};
  in[LAYOUT_IN_OFFSET] = offset % tile;
  layout_linear_apply(&ll, in, coord_out);
  int64_t outer = offset / tile;
  for (int i = 0; i < sd.num_outer; i++) {
    coord_out[sd.outer[i]] = outer % shape[sd.outer[i]];
    outer /= shape[sd.outer[i]];
  }
  return true;
}

bool layout_shared_is_permuted_view(const ir_attr *view, const int64_t *view_shape, const ir_attr *buffer,
                                    const int64_t *buffer_shape, int rank, const int *perm) {
  if (!view || !buffer || !layout_is_shared(view) || !layout_is_shared(buffer) || rank < 1 || rank > IR_MAX_RANK)
    return false;
  for (int d = 0; d < rank; d++) {
    if (perm[d] < 0 || perm[d] >= rank) return false;
    for (int64_t c = 1; c < view_shape[d]; c *= 2) {
      int64_t vc[IR_MAX_RANK] = {0}, bc[IR_MAX_RANK] = {0};
      vc[d] = c;
      bc[perm[d]] = c;
      int64_t vo = layout_shared_offset(view, rank, view_shape, vc);
      if (vo < 0 || vo != layout_shared_offset(buffer, rank, buffer_shape, bc)) return false;
    }
  }
  return true;
}

/* Linear layouts over GF(2): construction, evaluation by XOR of bases, inversion by elimination. */
#include <string.h>

#include "layout_internal.h"

static int bit_length(uint64_t v) {
  int n = 0;
  while (v) {
    n++;
    v >>= 1;
  }
  return n;
}

void ll_init(layout_linear *ll, int rank) {
  memset(ll, 0, sizeof *ll);
  ll->rank = rank;
}

void ll_touch_out(layout_linear *ll, int dim) {
  for (int i = 0; i < ll->num_out_order; i++)
    if (ll->out_order[i] == dim) return;
  if (ll->num_out_order < IR_MAX_RANK) ll->out_order[ll->num_out_order++] = dim;
}

bool ll_push_basis(layout_linear *ll, layout_in_dim in, const int32_t *basis) {
  if (ll->num_bases[in] >= LAYOUT_MAX_BASES) return false;
  int32_t *b = ll->bases[in][ll->num_bases[in]++];
  for (int d = 0; d < IR_MAX_RANK; d++) b[d] = d < ll->rank ? basis[d] : 0;
  return true;
}

bool ll_identity1d(layout_linear *ll, int64_t size, layout_in_dim in, int dim) {
  int k = log2_exact(size);
  if (k < 0 || dim < 0 || dim >= ll->rank || ll->out_log2[dim] + k > 30) return false;
  ll_touch_out(ll, dim);
  for (int i = 0; i < k; i++) {
    int32_t basis[IR_MAX_RANK] = {0};
    basis[dim] = (int32_t)1 << (ll->out_log2[dim] + i);
    if (!ll_push_basis(ll, in, basis)) return false;
  }
  ll->out_log2[dim] += k;
  return true;
}

bool ll_zeros1d(layout_linear *ll, int64_t size, layout_in_dim in, int dim) {
  int k = log2_exact(size);
  if (k < 0 || dim < 0 || dim >= ll->rank) return false;
  ll_touch_out(ll, dim);
  int32_t zero[IR_MAX_RANK] = {0};
  for (int i = 0; i < k; i++)
    if (!ll_push_basis(ll, in, zero)) return false;
  return true;
}

bool ll_identity_nd(layout_linear *ll, layout_in_dim in, const int *sizes, const int *order, int rank) {
  for (int i = 0; i < rank; i++)
    if (!ll_identity1d(ll, sizes[order[i]], in, order[i])) return false;
  return true;
}

void ll_infer_out_sizes(layout_linear *ll) {
  for (int d = 0; d < ll->rank; d++) {
    uint64_t all = 0;
    for (int in = 0; in < LAYOUT_IN_COUNT; in++)
      for (int i = 0; i < ll->num_bases[in]; i++) all |= (uint32_t)ll->bases[in][i][d];
    ll->out_log2[d] = bit_length(all);
  }
}

bool ll_product(layout_linear *ll, const layout_linear *other) {
  if (other->rank != ll->rank) return false;
  for (int in = 0; in < LAYOUT_IN_COUNT; in++) {
    for (int i = 0; i < other->num_bases[in]; i++) {
      int32_t basis[IR_MAX_RANK] = {0};
      for (int d = 0; d < ll->rank; d++)
        basis[d] = (int32_t)((uint32_t)other->bases[in][i][d] << ll->out_log2[d]);
      if (!ll_push_basis(ll, in, basis)) return false;
    }
  }
  for (int d = 0; d < ll->rank; d++) ll->out_log2[d] += other->out_log2[d];
  for (int i = 0; i < other->num_out_order; i++) ll_touch_out(ll, other->out_order[i]);
  return true;
}

bool ll_ensure_not_smaller(layout_linear *ll, layout_in_dim in, const int *shape_log2) {
  /* Dims in the layout's out-dim order first, then any dim it never named. */
  int dims[IR_MAX_RANK], n = 0;
  for (int i = 0; i < ll->num_out_order; i++) dims[n++] = ll->out_order[i];
  for (int d = 0; d < ll->rank; d++) {
    bool seen = false;
    for (int i = 0; i < n; i++) seen |= dims[i] == d;
    if (!seen) dims[n++] = d;
  }
  for (int i = 0; i < n; i++) {
    int d = dims[i];
    if (ll->out_log2[d] < shape_log2[d] &&
        !ll_identity1d(ll, INT64_C(1) << (shape_log2[d] - ll->out_log2[d]), in, d))
      return false;
  }
  return true;
}

void ll_ensure_not_larger(layout_linear *ll, const int *shape_log2) {
  for (int d = 0; d < ll->rank; d++) {
    int actual = ll->out_log2[d];
    while (actual > shape_log2[d]) {
      /* Zero the largest remaining basis along d (first one found on ties, in-dims in
       * register, lane, warp, block, offset order, as Triton's map iteration does). */
      int best_in = -1, best_i = -1;
      int32_t best = 0;
      for (int in = 0; in < LAYOUT_IN_COUNT; in++)
        for (int i = 0; i < ll->num_bases[in]; i++)
          if (ll->bases[in][i][d] > best) {
            best = ll->bases[in][i][d];
            best_in = in;
            best_i = i;
          }
      if (best_in < 0) break;
      ll->bases[best_in][best_i][d] = 0;
      actual--;
    }
  }
  ll_infer_out_sizes(ll);
}

int ll_bases_attr_rank(const ir_attr *bases) {
  if (!bases || bases->kind != AT_ARRAY) return -1;
  for (int i = 0; i < bases->num_elems; i++) {
    const ir_attr *b = bases->elems[i];
    if (b && b->kind == AT_ARRAY) return b->num_elems;
    if (b && b->kind == AT_DENSE_ARRAY) return b->num_elems;
  }
  return -1;
}

bool ll_push_bases_attr(layout_linear *ll, layout_in_dim in, const ir_attr *bases) {
  if (!bases) return true;
  if (bases->kind != AT_ARRAY) return false;
  for (int i = 0; i < bases->num_elems; i++) {
    const ir_attr *b = bases->elems[i];
    if (!b || b->num_elems != ll->rank) return false;
    int32_t basis[IR_MAX_RANK] = {0};
    for (int d = 0; d < ll->rank; d++) {
      int64_t v;
      if (b->kind == AT_DENSE_ARRAY && b->ints) v = b->ints[d];
      else if (b->kind == AT_ARRAY && b->elems[d] && b->elems[d]->kind == AT_INT) v = b->elems[d]->int_value;
      else return false;
      if (v < 0 || v > INT32_MAX) return false;
      basis[d] = (int32_t)v;
    }
    if (!ll_push_basis(ll, in, basis)) return false;
  }
  return true;
}

bool ll_combine_with_shape(layout_linear *ll, layout_in_dim fill_in, const ir_attr *cga, int rank,
                           const int64_t *shape) {
  int shape_log2[IR_MAX_RANK] = {0}, cta_log2[IR_MAX_RANK] = {0};
  for (int d = 0; d < rank; d++) {
    shape_log2[d] = log2_exact(shape[d]);
    if (shape_log2[d] < 0) return false;
  }
  layout_linear cga_ll;
  ll_init(&cga_ll, rank);
  if (cga && !ll_push_bases_attr(&cga_ll, LAYOUT_IN_BLOCK, cga)) return false;
  ll_infer_out_sizes(&cga_ll);
  ll_ensure_not_larger(&cga_ll, shape_log2);
  for (int d = 0; d < rank; d++) {
    int c = shape_log2[d] - cga_ll.out_log2[d];
    cta_log2[d] = c > 0 ? c : 0;
  }
  if (!ll_ensure_not_smaller(ll, fill_in, cta_log2)) return false;
  ll_ensure_not_larger(ll, cta_log2);
  /* A valid layout now covers exactly the per-CTA shape; the block bases go above it. */
  for (int d = 0; d < rank; d++) ll->out_log2[d] = cta_log2[d];
  return ll_product(ll, &cga_ll);
}

int64_t layout_linear_register_bits_within(const layout_linear *ll, const int64_t *block) {
  int64_t bits = 0;
  for (int i = 0; i < ll->num_bases[LAYOUT_IN_REGISTER]; i++) {
    bool inside = true;
    /* A basis below the block size changes only the low bits of the coordinate: XOR keeps the
     * element in its aligned block. */
    for (int d = 0; d < ll->rank && inside; d++) inside = ll->bases[LAYOUT_IN_REGISTER][i][d] < block[d];
    if (inside) bits |= INT64_C(1) << i;
  }
  return bits;
}

int64_t layout_linear_in_size(const layout_linear *ll, layout_in_dim in) {
  return INT64_C(1) << ll->num_bases[in];
}

int64_t layout_linear_copy_bits(const layout_linear *ll, layout_in_dim in) {
  int64_t bits = 0;
  for (int i = 0; i < ll->num_bases[in]; i++) {
    bool zero = true;
    for (int d = 0; d < ll->rank; d++) zero &= ll->bases[in][i][d] == 0;
    if (zero) bits |= INT64_C(1) << i;
  }
  return bits;
}

void layout_linear_apply(const layout_linear *ll, const int64_t in[LAYOUT_IN_COUNT], int64_t *coord_out) {
  int32_t acc[IR_MAX_RANK] = {0};
  for (int d = 0; d < LAYOUT_IN_COUNT; d++)
    for (int i = 0; i < ll->num_bases[d]; i++)
      if ((in[d] >> i) & 1)
        for (int k = 0; k < ll->rank; k++) acc[k] ^= ll->bases[d][i][k];
  for (int k = 0; k < ll->rank; k++) coord_out[k] = acc[k];
}

/* Output coordinates packed into one bit vector: dim 0 in the low bits. */
static bool pack_out(int rank, const int *out_log2, const int32_t *v, uint64_t *packed) {
  uint64_t r = 0;
  int shift = 0;
  for (int d = 0; d < rank; d++) {
    if (v[d] < 0 || (out_log2[d] < 31 && v[d] >= (INT32_C(1) << out_log2[d]))) return false;
    r |= (uint64_t)(uint32_t)v[d] << shift;
    shift += out_log2[d];
  }
  *packed = r;
  return shift <= 64;
}

bool layout_linear_solver_init(layout_linear_solver *sv, const layout_linear *ll) {
  /* Input bits numbered least significant first: register, lane, warp, block, offset; the
   * minimum solution in this numbering prefers low blocks, then warps, lanes, registers. */
  static const layout_in_dim significance[LAYOUT_IN_COUNT] = {
      LAYOUT_IN_OFFSET, LAYOUT_IN_REGISTER, LAYOUT_IN_LANE, LAYOUT_IN_WARP, LAYOUT_IN_BLOCK};
  memset(sv, 0, sizeof *sv);
  sv->rank = ll->rank;
  for (int d = 0; d < ll->rank; d++) sv->out_log2[d] = ll->out_log2[d];
  /* XOR basis keyed by leading output bit, remembering which inputs combine into each. */
  int n = 0;
  for (int s = 0; s < LAYOUT_IN_COUNT; s++) {
    layout_in_dim in = significance[s];
    for (int i = 0; i < ll->num_bases[in]; i++) {
      uint64_t v;
      if (n >= 64 || !pack_out(ll->rank, ll->out_log2, ll->bases[in][i], &v)) return false;
      sv->owner_in[n] = (int8_t)in;
      sv->owner_bit[n] = (int8_t)i;
      uint64_t c = UINT64_C(1) << n;
      for (int b = 63; b >= 0 && v; b--) {
        if (!((v >> b) & 1)) continue;
        if ((sv->has_pivot >> b) & 1) {
          v ^= sv->pivot_vec[b];
          c ^= sv->pivot_comb[b];
        } else {
          sv->has_pivot |= UINT64_C(1) << b;
          sv->pivot_vec[b] = v;
          sv->pivot_comb[b] = c;
          v = 0;
          c = 0;
        }
      }
      /* Dependent input: c is a kernel vector whose highest bit is n. */
      if (c) {
        sv->has_kernel |= UINT64_C(1) << n;
        sv->kernel[n] = c;
      }
      n++;
    }
  }
  sv->num_inputs = n;
  return true;
}

bool layout_linear_solve(const layout_linear_solver *sv, const int64_t *coord, int64_t in_out[LAYOUT_IN_COUNT]) {
  int32_t target32[IR_MAX_RANK] = {0};
  for (int d = 0; d < sv->rank; d++) {
    if (coord[d] < 0 || coord[d] > INT32_MAX) return false;
    target32[d] = (int32_t)coord[d];
  }
  uint64_t target;
  if (!pack_out(sv->rank, sv->out_log2, target32, &target)) return false;
  uint64_t sol = 0;
  for (int b = 63; b >= 0 && target; b--) {
    if (!((target >> b) & 1)) continue;
    if (!((sv->has_pivot >> b) & 1)) return false;
    target ^= sv->pivot_vec[b];
    sol ^= sv->pivot_comb[b];
  }
  for (int i = sv->num_inputs - 1; i >= 0; i--)
    if (((sv->has_kernel >> i) & 1) && ((sol >> i) & 1)) sol ^= sv->kernel[i];
  for (int d = 0; d < LAYOUT_IN_COUNT; d++) in_out[d] = 0;
  for (int i = 0; i < sv->num_inputs; i++)
    if ((sol >> i) & 1) in_out[sv->owner_in[i]] |= INT64_C(1) << sv->owner_bit[i];
  return true;
}

bool layout_linear_invert(const layout_linear *ll, const int64_t *coord, int64_t in_out[LAYOUT_IN_COUNT]) {
  layout_linear_solver sv;
  return layout_linear_solver_init(&sv, ll) && layout_linear_solve(&sv, coord, in_out);
}

int64_t layout_linear_solver_register_at(const layout_linear_solver *sv, const int64_t *coord) {
  int64_t in[LAYOUT_IN_COUNT];
  if (!layout_linear_solve(sv, coord, in) || in[LAYOUT_IN_LANE] || in[LAYOUT_IN_WARP]) return -1;
  return in[LAYOUT_IN_REGISTER];
}

int64_t layout_linear_register_at(const layout_linear *ll, const int64_t *coord) {
  layout_linear_solver sv;
  return layout_linear_solver_init(&sv, ll) ? layout_linear_solver_register_at(&sv, coord) : -1;
}

/* Per-thread coordinates from linear layouts: lane/warp parts computed once in the prologue, register parts as constants. */
#include <string.h>

#include "lower_index.h"

/* XOR over the set bits i of x of vals[i], emitted in the prologue. Runs of bits that map to
 * consecutive powers of two become one and+shift; terms with disjoint bits are or'ed. */
LLVMValueRef lower_apply_bits(lower_state *s, LLVMValueRef x, const int64_t *vals, int nbits) {
  LLVMBuilderRef b = s->threads->pro;
  LLVMValueRef acc = NULL;
  int64_t acc_bits = 0;
  for (int i = 0; i < nbits;) {
    if (vals[i] == 0) {
      i++;
      continue;
    }
    LLVMValueRef term;
    int64_t bits;
    /* A run of bits whose values double, with no two values sharing a bit: then the XOR of the
     * selected values is (x & mask) scaled, one and + shift (or multiply). */
    int j = i + 1;
    int64_t run_bits = vals[i];
    while (j < nbits && vals[j] == vals[j - 1] * 2 && (run_bits & vals[j]) == 0) run_bits |= vals[j++];
    int64_t mask = ((INT64_C(1) << (j - i)) - 1) << i;
    term = LLVMBuildAnd(b, x, lower_i32(s, mask), "");
    int log2_first = log2_exact(vals[i]);
    if (log2_first >= 0) {
      int shift = log2_first - i;
      if (shift > 0) term = LLVMBuildShl(b, term, lower_i32(s, shift), "");
      if (shift < 0) term = LLVMBuildLShr(b, term, lower_i32(s, -shift), "");
    } else {
      if (i > 0) term = LLVMBuildLShr(b, term, lower_i32(s, i), "");
      term = LLVMBuildMul(b, term, lower_i32(s, vals[i]), "");
    }
    bits = run_bits;
    i = j;
    if (!acc) {
      acc = term;
    } else if ((acc_bits & bits) == 0) {
      acc = LLVMBuildOr(b, acc, term, ""); /* disjoint bits: or is the xor */
    } else {
      acc = LLVMBuildXor(b, acc, term, "");
    }
    acc_bits |= bits; /* every bit acc may have */
  }
  return acc ? acc : lower_i32(s, 0);
}

LLVMValueRef lower_lane_warp_offset(lower_state *s, const layout_offset_map *m) {
  LLVMValueRef l = lower_apply_bits(s, s->threads->lane, m->off[LAYOUT_IN_LANE], m->num_bases[LAYOUT_IN_LANE]);
  LLVMValueRef w = lower_apply_bits(s, s->threads->warp, m->off[LAYOUT_IN_WARP], m->num_bases[LAYOUT_IN_WARP]);
  return LLVMBuildXor(s->threads->pro, l, w, "");
}

lower_layout_info *lower_layout_of(lower_state *s, const ir_op *op, const ir_type *t) {
  if (!ir_type_is_tensor(t) || !t->encoding || !layout_is_distributed(t->encoding)) {
    ir_op_error(s->ctx, op, "cannot lower '%s': tensors need a distributed layout (blocked, slice, ...)",
                ir_type_str(s->ctx, t));
    return NULL;
  }
  for (lower_layout_info *li = s->threads->layouts; li; li = li->next) {
    if (li->layout != t->encoding || li->rank != t->rank) continue;
    if (memcmp(li->shape, t->shape, sizeof(int64_t) * (size_t)t->rank) == 0) return li;
  }
  lower_layout_info *li = lower_alloc(s, sizeof *li);
  if (!li) return NULL;
  li->layout = t->encoding;
  li->rank = t->rank;
  memcpy(li->shape, t->shape, sizeof(int64_t) * (size_t)t->rank);
  if (!layout_to_linear(t->encoding, t->rank, t->shape, &li->ll)) {
    ir_op_error(s->ctx, op, "cannot lower '%s': its layout has no linear form (power-of-two shapes only)",
                ir_type_str(s->ctx, t));
    return NULL;
  }
  const layout_linear *ll = &li->ll;
  li->num_regs = (int)layout_linear_in_size(ll, LAYOUT_IN_REGISTER);
  if (ll->num_bases[LAYOUT_IN_BLOCK] > 0) {
    ir_op_error(s->ctx, op, "lowering of multi-CTA layouts is not implemented yet");
    return NULL;
  }
  for (int d = 0; d < t->rank; d++) {
    int64_t lane_vals[LAYOUT_MAX_BASES], warp_vals[LAYOUT_MAX_BASES];
    for (int i = 0; i < ll->num_bases[LAYOUT_IN_LANE]; i++) lane_vals[i] = ll->bases[LAYOUT_IN_LANE][i][d];
    for (int i = 0; i < ll->num_bases[LAYOUT_IN_WARP]; i++) warp_vals[i] = ll->bases[LAYOUT_IN_WARP][i][d];
    LLVMValueRef l = lower_apply_bits(s, s->threads->lane, lane_vals, ll->num_bases[LAYOUT_IN_LANE]);
    LLVMValueRef w = lower_apply_bits(s, s->threads->warp, warp_vals, ll->num_bases[LAYOUT_IN_WARP]);
    /* Lane and warp bases of a blocked layout move disjoint bits, so or is exact; xor otherwise. */
    int64_t lane_bits = 0, warp_bits = 0;
    for (int i = 0; i < ll->num_bases[LAYOUT_IN_LANE]; i++) lane_bits |= lane_vals[i];
    for (int i = 0; i < ll->num_bases[LAYOUT_IN_WARP]; i++) warp_bits |= warp_vals[i];
    if (!LLVMIsConstant(l) && !LLVMIsConstant(w))
      li->lw_coord[d] = (lane_bits & warp_bits) ? LLVMBuildXor(s->threads->pro, l, w, "") : LLVMBuildOr(s->threads->pro, l, w, "");
    else
      li->lw_coord[d] = LLVMIsConstant(l) ? w : l;
  }
  li->reg_dup_mask = layout_linear_copy_bits(ll, LAYOUT_IN_REGISTER);
  int64_t lane_dup = layout_linear_copy_bits(ll, LAYOUT_IN_LANE);
  int64_t warp_dup = layout_linear_copy_bits(ll, LAYOUT_IN_WARP);
  if (lane_dup || warp_dup) {
    LLVMValueRef bits = LLVMBuildOr(s->threads->pro, LLVMBuildAnd(s->threads->pro, s->threads->lane, lower_i32(s, lane_dup), ""),
                                    LLVMBuildAnd(s->threads->pro, s->threads->warp, lower_i32(s, warp_dup), ""), "");
    li->owner = LLVMBuildICmp(s->threads->pro, LLVMIntEQ, bits, lower_i32(s, 0), "owner");
  }
  li->next = s->threads->layouts;
  s->threads->layouts = li;
  return li;
}

void lower_reg_coord(const lower_layout_info *li, int64_t r, int64_t *coord) {
  int64_t in[LAYOUT_IN_COUNT] = {0};
  in[LAYOUT_IN_REGISTER] = r;
  layout_linear_apply(&li->ll, in, coord);
}

LLVMValueRef lower_coord(lower_state *s, const lower_layout_info *li, int64_t r, int d) {
  int64_t c[IR_MAX_RANK];
  lower_reg_coord(li, r, c);
  return lower_coord_at(s, li, c, d);
}

LLVMValueRef lower_coord_at(lower_state *s, const lower_layout_info *li, const int64_t *k, int d) {
  LLVMValueRef lw = li->lw_coord[d];
  if (LLVMIsConstant(lw)) return lower_i32(s, k[d] ^ (int64_t)LLVMConstIntGetZExtValue(lw));
  if (k[d] == 0) return lw;
  return LLVMBuildXor(s->b, lw, lower_i32(s, k[d]), "");
}

LLVMValueRef lower_row_major_offset(lower_state *s, const ir_type *t, LLVMValueRef const *c) {
  LLVMValueRef off = c[0];
  for (int d = 1; d < t->rank; d++)
    off = LLVMBuildAdd(s->b, LLVMBuildMul(s->b, off, lower_i32(s, t->shape[d]), ""), c[d], "");
  return off;
}

bool lower_equal_register_bits(lower_state *s, const ir_op *op, const ir_value *v, int64_t *bits) {
  *bits = 0;
  if (!ir_type_is_tensor(v->type)) return true;
  const lower_layout_info *li = lower_layout_of(s, op, v->type);
  if (!li) return false;
  const axis_info *info = axis_info_of(s->axis, v);
  if (!info || axis_info_rank(info) != li->rank) return true;
  int64_t block[IR_MAX_RANK];
  for (int d = 0; d < li->rank; d++) block[d] = axis_info_constancy(info, d);
  *bits = layout_linear_register_bits_within(&li->ll, block);
  return true;
}

bool lower_register_map(const lower_layout_info *dst, const lower_layout_info *src, layout_project_fn project,
                        const void *project_ctx, int *map_out) {
  return layout_register_map(&dst->ll, &src->ll, project, project_ctx, map_out);
}

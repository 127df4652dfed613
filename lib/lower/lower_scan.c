/* tt.scan: each thread scans its runs of consecutive axis elements in registers, then the runs' totals meet one bit of the axis position at a time: in the thread, across lanes (shuffles) or across warps (shared memory). */
#include <string.h>

#include "lower_dispatch.h"
#include "lower_index.h"
#include "lower_ops.h"

/*
 * Inclusive scan along `axis` of a row of L = 2^n elements, position p = the axis coordinate
 * (reverse = true: p = L - 1 - coordinate, so everything below reads "earlier" as earlier in
 * the scan's order, and combine(earlier, later) keeps that order for non-commutative regions).
 *
 * 1. Runs. The lowest position bits that one register bit of the thread moves, and nothing else
 *    moves (sizePerThread along the axis of a blocked layout), make runs of 2^m consecutive
 *    elements in each thread. Each run is scanned in order in registers: local[r], and the run's
 *    total is its last local value.
 * 2. Bits m..n-1, low to high. After bit b every element knows total = the combination of its
 *    aligned block of 2^(b+1) positions and carry = the combination of the elements of that
 *    block before its run (has_carry: there are some). The element's partner across bit b
 *    (position p ^ 2^b) is held where the inputs that the layout maps to a step of 2^b along
 *    the axis (layout_linear_invert) take it: flipping register bits only (the same thread),
 *    lane and register bits (a shuffle of the register the partner holds), or warp bits too
 *    (shared memory: every run total stored at its row-major coordinates between two
 *    barriers, the partner's read back). With P = the partner's total and `up` = bit b of p is
 *    set (the partner's half comes first):
 *        total' = up ? combine(P, total) : combine(total, P)
 *        carry' = up ? (has_carry ? combine(P, carry) : P) : carry,  has_carry' = has_carry | up
 *    Both halves compute total' from the same two values, so copies of an element (broadcast
 *    layouts) and the two partners agree exactly.
 * 3. result[r] = has_carry ? combine(carry, local[r]) : local[r].
 *
 * Runs, totals and carries are per run, kept at the run's first register (the register with the
 * run bits clear); registers that copy another (reg_dup_mask) take its result. `up` and
 * has_carry are constants where the position bit comes from registers alone, so a thread whose
 * whole row is in its registers emits the sequential scan only.
 */

typedef struct scan_lowering {
  lower_state *s;
  ir_op *op;
  lower_layout_info *li;
  int nops, axis;
  bool reverse;
  int64_t dup;                                     /* registers that copy another */
  int64_t run_mask;                                /* register bits that move along a run */
  int64_t lw_axis_bits;                            /* axis bits the lane and warp bases move */
  LLVMValueRef scratch;                            /* the op's scratch (NULL: none) */
  int64_t smem_offset[LOWER_COMBINE_MAX_OPERANDS]; /* each operand's bytes into it */
  /* per run, at its first register */
  LLVMValueRef *total[LOWER_COMBINE_MAX_OPERANDS], *carry[LOWER_COMBINE_MAX_OPERANDS], *has_carry;
} scan_lowering;

static LLVMValueRef const_i1(lower_state *s, bool v) { return LLVMConstInt(s->i1, v, 0); }

static bool is_const_i1(LLVMValueRef v, bool value) {
  return LLVMIsAConstantInt(v) && (LLVMConstIntGetZExtValue(v) != 0) == value;
}

/* i1: bit b of the scan position of the element at register r (reverse: of L - 1 - coordinate,
 * whose bit is the coordinate's bit flipped). A constant unless lanes or warps move that bit;
 * cache[flip] keeps the two runtime forms of the bit. */
static LLVMValueRef position_bit(scan_lowering *sc, int64_t r, int b, LLVMValueRef cache[2]) {
  lower_state *s = sc->s;
  int64_t c[IR_MAX_RANK];
  lower_reg_coord(sc->li, r, c);
  bool flip = ((c[sc->axis] >> b) & 1) != sc->reverse;
  if (!((sc->lw_axis_bits >> b) & 1)) return const_i1(s, flip);
  if (!cache[flip]) {
    LLVMValueRef lw = sc->li->lw_coord[sc->axis];
    LLVMValueRef bit = LLVMBuildAnd(s->b, LLVMBuildLShr(s->b, lw, lower_i32(s, b), ""), lower_i32(s, 1), "");
    cache[flip] = LLVMBuildICmp(s->b, flip ? LLVMIntEQ : LLVMIntNE, bit, lower_i32(s, 0), "scan.up");
  }
  return cache[flip];
}

static LLVMValueRef select_i1(lower_state *s, LLVMValueRef c, LLVMValueRef a, LLVMValueRef b) {
  if (LLVMIsAConstantInt(c)) return LLVMConstIntGetZExtValue(c) ? a : b;
  return LLVMBuildSelect(s->b, c, a, b, "");
}

/* The row-major element index of the coordinates of this thread's lane/warp part ^ k. */
static LLVMValueRef smem_index(scan_lowering *sc, const int64_t *k) {
  LLVMValueRef c[IR_MAX_RANK];
  for (int d = 0; d < sc->li->rank; d++) c[d] = lower_coord_at(sc->s, sc->li, k, d);
  return lower_row_major_offset(sc->s, sc->op->operands[0].value->type, c);
}

/* The partners' run totals across position bit b: partner[k][r] for each run r. `in` is the
 * input combination that moves an element one step of 2^b along the axis. */
static bool partner_totals(scan_lowering *sc, const int64_t *in, int64_t b, LLVMValueRef **partner) {
  lower_state *s = sc->s;
  const lower_layout_info *li = sc->li;
  int64_t hr = in[LAYOUT_IN_REGISTER] & ~sc->dup;
  int lane_mask = (int)in[LAYOUT_IN_LANE];
  if (in[LAYOUT_IN_WARP] == 0) {
    for (int64_t r = 0; r < li->num_regs; r++) {
      if (r & (sc->dup | sc->run_mask)) continue;
      int64_t pr = (r ^ hr) & ~(sc->dup | sc->run_mask);
      for (int k = 0; k < sc->nops; k++) {
        LLVMValueRef v = sc->total[k][pr];
        partner[k][r] = lane_mask ? lower_shuffle_xor(s, v, lane_mask) : v;
      }
    }
    return true;
  }
  if (!sc->scratch) {
    ir_op_error(s->ctx, sc->op, "internal error: tt.scan across warps has no shared memory");
    return false;
  }
  /* Every run total at its element's coordinates (copies of an element write the same value);
   * then the partner run's total: the partner thread's run pr sits at the coordinates of
   * (lane/warp part ^ step ^ the register part of `in`) ^ register part of pr. */
  lower_barrier(s); /* earlier readers of the scratch are done */
  for (int64_t r = 0; r < li->num_regs; r++) {
    if (r & (sc->dup | sc->run_mask)) continue;
    int64_t k_r[IR_MAX_RANK];
    lower_reg_coord(li, r, k_r);
    LLVMValueRef idx = smem_index(sc, k_r);
    for (int k = 0; k < sc->nops; k++) {
      LLVMValueRef v = sc->total[k][r];
      LLVMTypeRef mt = lower_memory_type(s, LLVMTypeOf(v));
      if (mt != LLVMTypeOf(v)) v = LLVMBuildZExt(s->b, v, mt, "");
      LLVMBuildStore(s->b, v, lower_smem_ptr_from(s, sc->scratch, sc->smem_offset[k], mt, idx));
    }
  }
  lower_barrier(s);
  int64_t c_in[IR_MAX_RANK];
  lower_reg_coord(li, in[LAYOUT_IN_REGISTER], c_in);
  c_in[sc->axis] ^= INT64_C(1) << b;
  for (int64_t r = 0; r < li->num_regs; r++) {
    if (r & (sc->dup | sc->run_mask)) continue;
    int64_t pr = (r ^ hr) & ~(sc->dup | sc->run_mask), k_p[IR_MAX_RANK];
    lower_reg_coord(li, pr, k_p);
    for (int d = 0; d < li->rank; d++) k_p[d] ^= c_in[d];
    LLVMValueRef idx = smem_index(sc, k_p);
    for (int k = 0; k < sc->nops; k++) {
      LLVMTypeRef t = LLVMTypeOf(sc->total[k][r]), mt = lower_memory_type(s, t);
      LLVMValueRef v = LLVMBuildLoad2(s->b, mt, lower_smem_ptr_from(s, sc->scratch, sc->smem_offset[k], mt, idx), "");
      partner[k][r] = mt != t ? LLVMBuildTrunc(s->b, v, t, "") : v;
    }
  }
  s->smem_read_pending = true;
  return true;
}

/* Step 2 for position bit b (last: no later bit needs the totals). */
static bool scan_bit(scan_lowering *sc, int b, bool last) {
  lower_state *s = sc->s;
  const lower_layout_info *li = sc->li;
  int64_t unit[IR_MAX_RANK] = {0}, in[LAYOUT_IN_COUNT];
  unit[sc->axis] = INT64_C(1) << b;
  if (!layout_linear_invert(&li->ll, unit, in)) {
    ir_op_error(s->ctx, sc->op, "internal error: no thread holds the neighbour of a tt.scan element");
    return false;
  }
  LLVMValueRef *partner[LOWER_COMBINE_MAX_OPERANDS], *next_total[LOWER_COMBINE_MAX_OPERANDS];
  for (int k = 0; k < sc->nops; k++) {
    partner[k] = lower_alloc(s, sizeof(LLVMValueRef) * (size_t)li->num_regs);
    next_total[k] = lower_alloc(s, sizeof(LLVMValueRef) * (size_t)li->num_regs);
    if (!partner[k] || !next_total[k]) return false;
  }
  if (!partner_totals(sc, in, b, partner)) return false;
  bool in_thread = in[LAYOUT_IN_LANE] == 0 && in[LAYOUT_IN_WARP] == 0;
  int64_t hr = in[LAYOUT_IN_REGISTER] & ~sc->dup;
  LLVMValueRef up_cache[2] = {NULL, NULL}, or_of[3] = {NULL, NULL, NULL};
  for (int64_t r = 0; r < li->num_regs; r++) {
    if (r & (sc->dup | sc->run_mask)) continue;
    int64_t pr = (r ^ hr) & ~(sc->dup | sc->run_mask);
    if (in_thread && pr == r) {
      ir_op_error(s->ctx, sc->op, "internal error: a tt.scan element is its own neighbour");
      return false;
    }
    LLVMValueRef up = position_bit(sc, r, b, up_cache), lhs[LOWER_COMBINE_MAX_OPERANDS],
                 rhs[LOWER_COMBINE_MAX_OPERANDS];
    LLVMValueRef p[LOWER_COMBINE_MAX_OPERANDS], cur[LOWER_COMBINE_MAX_OPERANDS];
    for (int k = 0; k < sc->nops; k++) {
      p[k] = partner[k][r];
      cur[k] = sc->total[k][r];
    }
    /* total' (both runs of a pair in this thread share it) */
    if (!last) {
      if (in_thread && pr < r) {
        for (int k = 0; k < sc->nops; k++) next_total[k][r] = next_total[k][pr];
      } else {
        for (int k = 0; k < sc->nops; k++) {
          lhs[k] = select_i1(s, up, p[k], cur[k]);
          rhs[k] = select_i1(s, up, cur[k], p[k]);
        }
        LLVMValueRef t[LOWER_COMBINE_MAX_OPERANDS];
        if (!lower_combine_region(s, sc->op, lhs, rhs, t)) return false;
        for (int k = 0; k < sc->nops; k++) next_total[k][r] = t[k];
      }
    }
    /* carry' */
    if (is_const_i1(up, false)) continue;
    LLVMValueRef has = sc->has_carry[r];
    LLVMValueRef with[LOWER_COMBINE_MAX_OPERANDS];
    if (!is_const_i1(has, false)) {
      LLVMValueRef old[LOWER_COMBINE_MAX_OPERANDS];
      for (int k = 0; k < sc->nops; k++) old[k] = sc->carry[k][r];
      if (!lower_combine_region(s, sc->op, p, old, with)) return false;
    }
    for (int k = 0; k < sc->nops; k++) {
      LLVMValueRef joined = is_const_i1(has, false) ? p[k] : select_i1(s, has, with[k], p[k]);
      /* where up is false and there was no carry, the carry stays unused: take joined */
      sc->carry[k][r] = is_const_i1(has, false) ? joined : select_i1(s, up, joined, sc->carry[k][r]);
    }
    if (is_const_i1(up, true) || is_const_i1(has, true)) {
      sc->has_carry[r] = const_i1(s, true);
    } else if (is_const_i1(has, false)) {
      sc->has_carry[r] = up;
    } else {
      /* runs of one row usually share both: one or for all of them */
      if (has != or_of[0] || up != or_of[1]) {
        or_of[0] = has;
        or_of[1] = up;
        or_of[2] = LLVMBuildOr(s->b, has, up, "scan.has_carry");
      }
      sc->has_carry[r] = or_of[2];
    }
  }
  if (!last)
    for (int k = 0; k < sc->nops; k++) sc->total[k] = next_total[k];
  return true;
}

/* The lowest position bits that a single register bit moves, with no other input moving them:
 * the run bits (register mask); their number in *bits. */
static int64_t run_registers(scan_lowering *sc, int nbits, int *bits) {
  const layout_linear *ll = &sc->li->ll;
  int64_t mask = 0;
  *bits = 0;
  for (int b = 0; b < nbits; b++) {
    int64_t unit[IR_MAX_RANK] = {0}, in[LAYOUT_IN_COUNT];
    unit[sc->axis] = INT64_C(1) << b;
    if (!layout_linear_invert(ll, unit, in) || in[LAYOUT_IN_LANE] || in[LAYOUT_IN_WARP]) break;
    int64_t h = in[LAYOUT_IN_REGISTER] & ~sc->dup;
    if (h == 0 || (h & (h - 1)) || ((sc->lw_axis_bits >> b) & 1)) break;
    bool alone = true;
    for (int i = 0; i < ll->num_bases[LAYOUT_IN_REGISTER]; i++)
      if ((INT64_C(1) << i) != h && ((ll->bases[LAYOUT_IN_REGISTER][i][sc->axis] >> b) & 1)) alone = false;
    if (!alone) break;
    mask |= h;
    ++*bits;
  }
  return mask;
}

bool lower_scan(lower_state *s, ir_op *op) {
  int nops = op->num_operands;
  int axis = (int)ir_op_get_int_attr(op, "axis", 0);
  const ir_type *st = op->operands[0].value->type;
  if (nops < 1 || nops > LOWER_COMBINE_MAX_OPERANDS || !ir_type_is_tensor(st) || axis < 0 || axis >= st->rank) {
    ir_op_error(s->ctx, op, "lowering of this tt.scan is not implemented yet (at most %d operands)",
                LOWER_COMBINE_MAX_OPERANDS);
    return false;
  }
  lower_layout_info *li = lower_layout_of(s, op, st);
  if (!li) return false;
  for (int k = 1; k < nops; k++) {
    const ir_type *t = op->operands[k].value->type;
    if (lower_layout_of(s, op, t) != li) {
      ir_op_error(s->ctx, op, "the operands of tt.scan must have one shape and layout, got %s and %s",
                  ir_type_str(s->ctx, st), ir_type_str(s->ctx, t));
      return false;
    }
  }
  scan_lowering sc = {.s = s, .op = op, .li = li, .nops = nops, .axis = axis};
  sc.reverse = ir_op_get_int_attr(op, "reverse", 0) != 0;
  sc.dup = li->reg_dup_mask;
  for (int in = LAYOUT_IN_LANE; in <= LAYOUT_IN_WARP; in++)
    for (int i = 0; i < li->ll.num_bases[in]; i++) sc.lw_axis_bits |= li->ll.bases[in][i][axis];
  int nbits = log2_exact(st->shape[axis]);
  if (nbits < 0) {
    ir_op_error(s->ctx, op, "lowering of tt.scan along a dimension of %lld elements is not implemented yet",
                (long long)st->shape[axis]);
    return false;
  }
  sc.scratch = lower_shared_base(s, op);
  int64_t at = 0;
  for (int k = 0; k < nops; k++) {
    sc.smem_offset[k] = at;
    at += (ir_type_num_elements(st) * lower_elem_bytes(op->operands[k].value->type) + 15) / 16 * 16;
  }

  const lower_values *src[LOWER_COMBINE_MAX_OPERANDS];
  lower_values *out[LOWER_COMBINE_MAX_OPERANDS];
  size_t nregs = (size_t)li->num_regs;
  for (int k = 0; k < nops; k++) {
    if (!(src[k] = lower_get(s, op, op->operands[k].value))) return false;
    if (!(out[k] = lower_values_new(s, op, li->num_regs))) return false;
    sc.total[k] = lower_alloc(s, sizeof(LLVMValueRef) * nregs);
    sc.carry[k] = lower_alloc(s, sizeof(LLVMValueRef) * nregs);
    if (!sc.total[k] || !sc.carry[k]) return false;
  }
  sc.has_carry = lower_alloc(s, sizeof(LLVMValueRef) * nregs);
  if (!sc.has_carry) return false;

  /* 1. Runs: registers r | sub (sub within run_mask) hold positions (those of r) + (the axis
   * coordinate of sub), in order along the run. */
  int run_bits;
  sc.run_mask = run_registers(&sc, nbits, &run_bits);
  int64_t run_len = INT64_C(1) << run_bits;
  int64_t *run_reg = lower_alloc(s, sizeof(int64_t) * (size_t)run_len);
  if (!run_reg) return false;
  for (int64_t sub = sc.run_mask;; sub = (sub - 1) & sc.run_mask) {
    int64_t c[IR_MAX_RANK];
    lower_reg_coord(li, sub, c);
    run_reg[c[axis]] = sub;
    if (sub == 0) break;
  }
  for (int64_t r = 0; r < li->num_regs; r++) {
    if (r & (sc.dup | sc.run_mask)) continue;
    LLVMValueRef acc[LOWER_COMBINE_MAX_OPERANDS];
    for (int64_t j = 0; j < run_len; j++) {
      int64_t reg = r | run_reg[sc.reverse ? run_len - 1 - j : j];
      LLVMValueRef x[LOWER_COMBINE_MAX_OPERANDS];
      for (int k = 0; k < nops; k++) x[k] = lower_elem(src[k], (int)reg);
      if (j == 0) memcpy(acc, x, sizeof(LLVMValueRef) * (size_t)nops);
      else if (!lower_combine_region(s, op, acc, x, acc)) return false;
      for (int k = 0; k < nops; k++) out[k]->v[reg] = acc[k];
    }
    for (int k = 0; k < nops; k++) sc.total[k][r] = acc[k];
    sc.has_carry[r] = const_i1(s, false);
  }

  /* 2. The position bits above the runs, low to high. */
  for (int b = run_bits; b < nbits; b++)
    if (!scan_bit(&sc, b, b == nbits - 1)) return false;

  /* 3. Each element: its carry, then its run's prefix. */
  for (int64_t r = 0; r < li->num_regs; r++) {
    if (r & sc.dup) continue;
    int64_t first = r & ~sc.run_mask;
    LLVMValueRef has = sc.has_carry[first];
    if (is_const_i1(has, false)) continue;
    LLVMValueRef carry[LOWER_COMBINE_MAX_OPERANDS], local[LOWER_COMBINE_MAX_OPERANDS], with[LOWER_COMBINE_MAX_OPERANDS];
    for (int k = 0; k < nops; k++) {
      carry[k] = sc.carry[k][first];
      local[k] = out[k]->v[r];
    }
    if (!lower_combine_region(s, op, carry, local, with)) return false;
    for (int k = 0; k < nops; k++) out[k]->v[r] = select_i1(s, has, with[k], local[k]);
  }
  for (int64_t r = 0; r < li->num_regs; r++)
    if (r & sc.dup)
      for (int k = 0; k < nops; k++) out[k]->v[r] = out[k]->v[r & ~sc.dup];
  for (int k = 0; k < nops; k++)
    if (!lower_set(s, &op->results[k], out[k])) return false;
  return true;
}

/* tt.dot lowering: warp-level MMA (nvidia_mma v2, the target's m16n8kK instructions) from the layouts' fragments, and the per-thread FMA path. */
#include <stdio.h>
#include <string.h>

#include "lower_dot.h"
#include "lower_dot_operand.h"
#include "lower_ops.h"

/* ---------------------------------------------------------------- instruction choice */

/* Instructions come from the target's MMA table (lib/target/mma.h): mma_instr is its entry. */
typedef target_mma mma_instr;

static const mma_instr *choose_mma(const ir_op *op) { return target_mma_for_dot(GEMMC_MMA_SYNC, op); }

/* ---------------------------------------------------------------- fragments from the layouts */

lower_dot_dims lower_dot_dims_of(int rank) {
  lower_dot_dims dd = {rank};
  return dd;
}

void lower_dot_coord(const lower_dot_dims *dd, int64_t batch, int64_t row, int64_t col, int64_t *coord) {
  if (lower_dot_batched(dd)) coord[0] = batch;
  coord[dd->rank - 2] = row;
  coord[dd->rank - 1] = col;
}

static bool coord_equal(const int64_t *a, const int64_t *b, int rank) {
  for (int d = 0; d < rank; d++)
    if (a[d] != b[d]) return false;
  return true;
}

/* The register of `li` that holds (batch, row, col) at lane 0 of warp 0, checked for every lane
 * against the instruction's fragment formula of `slot`; -1 when the layout does not hold the fragment. */
int64_t lower_mma_fragment_register(const lower_layout_info *li, target_mma_operand kind, int bits, int slot,
                                    int64_t batch, int64_t row0, int64_t col0) {
  lower_dot_dims dims = lower_dot_dims_of(li->rank);
  const lower_dot_dims *dd = &dims;
  int row, col;
  target_mma_fragment_coord(kind, bits, slot, 0, &row, &col);
  int64_t coord[IR_MAX_RANK];
  lower_dot_coord(dd, batch, row0 + row, col0 + col, coord);
  int64_t reg = layout_linear_register_at(&li->ll, coord);
  if (reg < 0) return -1;
  for (int lane = 1; lane < 32; lane++) {
    int64_t q[LAYOUT_IN_COUNT] = {0}, got[IR_MAX_RANK];
    q[LAYOUT_IN_REGISTER] = reg;
    q[LAYOUT_IN_LANE] = lane;
    layout_linear_apply(&li->ll, q, got);
    target_mma_fragment_coord(kind, bits, slot, lane, &row, &col);
    lower_dot_coord(dd, batch, row0 + row, col0 + col, coord);
    if (!coord_equal(got, coord, dd->rank)) return -1;
  }
  return reg;
}

/* Warps must agree: a warp bit moves A along M and B along N exactly as it moves the accumulator
 * (and never along K, where dot operands broadcast). */
static bool warps_agree(const lower_layout_info *a, const lower_layout_info *b, const lower_layout_info *c,
                        const lower_dot_dims *dd) {
  int n = c->ll.num_bases[LAYOUT_IN_WARP];
  if (a->ll.num_bases[LAYOUT_IN_WARP] != n || b->ll.num_bases[LAYOUT_IN_WARP] != n) return false;
  int r = dd->rank;
  for (int i = 0; i < n; i++) {
    const int32_t *cw = c->ll.bases[LAYOUT_IN_WARP][i], *aw = a->ll.bases[LAYOUT_IN_WARP][i],
                  *bw = b->ll.bases[LAYOUT_IN_WARP][i];
    if (lower_dot_batched(dd) && (aw[0] != cw[0] || bw[0] != cw[0])) return false;
    if (aw[r - 2] != cw[r - 2] || aw[r - 1] != 0) return false;
    if (bw[r - 1] != cw[r - 1] || bw[r - 2] != 0) return false;
  }
  return true;
}

/* One 16x8 accumulator tile a warp computes: its origin (lane 0, warp 0) and the register of each
 * of the four C slots. */
typedef struct mma_tile {
  int64_t batch, m0, n0;
  int64_t c_reg[4];
} mma_tile;

/* Packed A or B registers of one (batch, row/col origin, k step), computed once and reused by
 * every tile that shares them. */
typedef struct packed_frag {
  int64_t batch, origin, ks;
  LLVMValueRef regs[4];
  struct packed_frag *next;
} packed_frag;

/* An A or B operand: its lowered registers, or (a deferred convert) its shared buffer, read a
 * group at a time right before the first instruction that needs it. */
typedef struct dot_operand {
  const lower_values *vals;
  lower_smem_loader *loader;
} dot_operand;

static LLVMValueRef operand_reg(lower_state *s, const dot_operand *o, int64_t r) {
  return o->loader ? lower_smem_loader_get(s, o->loader, r) : lower_elem(o->vals, (int)r);
}

static bool operand_init(lower_state *s, ir_op *op, int index, dot_operand *o) {
  ir_value *v = op->operands[index].value;
  o->vals = NULL;
  o->loader = NULL;
  if (v->def_op && lower_operand_is_deferred(v->def_op)) {
    o->loader = lower_alloc(s, sizeof *o->loader);
    return o->loader && lower_deferred_operand_loader(s, v->def_op, o->loader);
  }
  o->vals = lower_get(s, op, v);
  return o->vals != NULL;
}

static LLVMValueRef pack_register(lower_state *s, const mma_instr *mi, const dot_operand *o, const int64_t *regs, int n,
                                  LLVMTypeRef elem) {
  if (mi->operand_bits == 32) return LLVMBuildBitCast(s->b, operand_reg(s, o, regs[0]), s->i32, "");
  LLVMValueRef v = LLVMGetUndef(LLVMVectorType(elem, (unsigned)n));
  for (int i = 0; i < n; i++) v = LLVMBuildInsertElement(s->b, v, operand_reg(s, o, regs[i]), lower_i32(s, i), "");
  return mi->ab_as_i32 ? LLVMBuildBitCast(s->b, v, s->i32, "") : v;
}

static const packed_frag *get_fragment(lower_state *s, ir_op *op, packed_frag **cache, const mma_instr *mi,
                                       target_mma_operand kind, const lower_layout_info *li, const dot_operand *vals,
                                       int64_t batch, int64_t origin, int64_t ks) {
  for (packed_frag *p = *cache; p; p = p->next)
    if (p->batch == batch && p->origin == origin && p->ks == ks) return p;
  packed_frag *p = lower_alloc(s, sizeof *p);
  if (!p) return NULL;
  p->batch = batch;
  p->origin = origin;
  p->ks = ks;
  int slots = target_mma_fragment_size(kind, mi->operand_bits);
  int per_reg = 32 / mi->operand_bits;
  LLVMTypeRef elem = lower_elem_type(s, op->operands[0].value->type);
  for (int r = 0; r < slots / per_reg; r++) {
    int64_t regs[4];
    for (int j = 0; j < per_reg; j++) {
      int slot = r * per_reg + j;
      int64_t row0 = kind == TARGET_MMA_A ? origin : ks * mi->k, col0 = kind == TARGET_MMA_A ? ks * mi->k : origin;
      regs[j] = lower_mma_fragment_register(li, kind, mi->operand_bits, slot, batch, row0, col0);
      if (regs[j] < 0) {
        ir_op_error(s->ctx, op,
                    "cannot lower to %s: the layout of operand %s does not hold the instruction's fragment "
                    "(kWidth must be 32 / element bits)",
                    mi->name, kind == TARGET_MMA_A ? "A" : "B");
        return NULL;
      }
    }
    p->regs[r] = pack_register(s, mi, vals, regs, per_reg, elem);
  }
  p->next = *cache;
  *cache = p;
  return p;
}

static bool lower_dot_mma(lower_state *s, ir_op *op) {
  const ir_type *at = op->operands[0].value->type, *bt = op->operands[1].value->type, *ct = op->results[0].type;
  const mma_instr *mi = choose_mma(op);
  if (!mi) {
    const ir_attr *prec = ir_op_get_attr(op, "inputPrecision");
    ir_op_error(s->ctx, op,
                "mma.sync (nvidia_mma v2) does not support %s x %s -> %s%s%s (supported: f16 x f16 -> f32 or "
                "f16, bf16 x bf16 -> f32, f32 x f32 with inputPrecision = tf32 -> f32, i8 x i8 -> i32)",
                ir_type_str(s->ctx, ir_type_element(at)), ir_type_str(s->ctx, ir_type_element(bt)),
                ir_type_str(s->ctx, ir_type_element(ct)), prec && prec->str ? " with inputPrecision = " : "",
                prec && prec->str ? prec->str : "");
    return false;
  }
  if (!(s->target->mma_kinds & GEMMC_MMA_SYNC)) {
    ir_op_error(s->ctx, op, "target %s has no mma.sync (sm_80 or newer needed)", s->target->name);
    return false;
  }
  lower_dot_dims dd = lower_dot_dims_of(ct->rank);
  int64_t K = at->shape[dd.rank - 1];
  if (K % mi->k != 0) {
    ir_op_error(s->ctx, op, "cannot lower to %s: K = %lld is not a multiple of %d", mi->name, (long long)K, mi->k);
    return false;
  }
  lower_layout_info *la = lower_layout_of(s, op, at), *lb = lower_layout_of(s, op, bt), *lc = lower_layout_of(s, op, ct);
  const lower_values *vc = lower_get(s, op, op->operands[2].value);
  dot_operand oa, ob;
  if (!la || !lb || !lc || !vc || !operand_init(s, op, 0, &oa) || !operand_init(s, op, 1, &ob)) return false;
  const dot_operand *va = &oa, *vb = &ob;
  if (!warps_agree(la, lb, lc, &dd)) {
    ir_op_error(s->ctx, op, "cannot lower to %s: the operands' warps do not match the accumulator's", mi->name);
    return false;
  }

  /* Tiles of the accumulator: every register belongs to one (origin, slot). */
  int nregs = lc->num_regs;
  int *reg_tile = lower_alloc(s, sizeof(int) * (size_t)nregs);
  int *reg_slot = lower_alloc(s, sizeof(int) * (size_t)nregs);
  mma_tile *tiles = lower_alloc(s, sizeof(mma_tile) * (size_t)nregs);
  if (!reg_tile || !reg_slot || !tiles) return false;
  int ntiles = 0;
  int r2 = dd.rank - 2, r1 = dd.rank - 1;
  for (int r = 0; r < nregs; r++) {
    int64_t c[IR_MAX_RANK];
    lower_reg_coord(lc, r, c);
    int64_t batch = lower_dot_batched(&dd) ? c[0] : 0, m0 = c[r2] & ~INT64_C(15), n0 = c[r1] & ~INT64_C(7);
    int64_t dm = c[r2] - m0, dn = c[r1] - n0;
    if ((dm != 0 && dm != 8) || dn > 1) {
      ir_op_error(s->ctx, op, "cannot lower to %s: the accumulator layout is not the instruction's C fragment",
                  mi->name);
      return false;
    }
    int slot = (dm ? 2 : 0) + (int)dn, t = 0;
    while (t < ntiles && !(tiles[t].batch == batch && tiles[t].m0 == m0 && tiles[t].n0 == n0)) t++;
    if (t == ntiles) {
      tiles[t] = (mma_tile){batch, m0, n0, {-1, -1, -1, -1}};
      ntiles++;
    }
    if (tiles[t].c_reg[slot] < 0) tiles[t].c_reg[slot] = r;
    reg_tile[r] = t;
    reg_slot[r] = slot;
  }
  for (int t = 0; t < ntiles; t++)
    for (int j = 0; j < 4; j++) {
      int64_t want = lower_mma_fragment_register(lc, TARGET_MMA_C, mi->operand_bits, j, tiles[t].batch, tiles[t].m0, tiles[t].n0);
      if (tiles[t].c_reg[j] < 0 || want < 0) {
        ir_op_error(s->ctx, op, "cannot lower to %s: the accumulator layout is not the instruction's C fragment",
                    mi->name);
        return false;
      }
    }

  /* Accumulators per tile, in the instruction's register form. */
  LLVMTypeRef half = LLVMHalfTypeInContext(s->llctx), half2 = LLVMVectorType(half, 2);
  int cvals = mi->c_packed_f16 ? 2 : 4;
  LLVMValueRef(*acc)[4] = lower_alloc(s, sizeof(LLVMValueRef[4]) * (size_t)ntiles);
  if (!acc) return false;
  for (int t = 0; t < ntiles; t++) {
    if (mi->c_packed_f16) {
      for (int j = 0; j < 2; j++) {
        LLVMValueRef pair[2] = {lower_elem(vc, (int)tiles[t].c_reg[2 * j]), lower_elem(vc, (int)tiles[t].c_reg[2 * j + 1])};
        acc[t][j] = lower_build_vector(s, half2, pair, 2);
      }
    } else {
      for (int j = 0; j < 4; j++) acc[t][j] = lower_elem(vc, (int)tiles[t].c_reg[j]);
    }
  }

  /* k outermost: consecutive instructions use different accumulators (no dependency stall). */
  packed_frag *a_cache = NULL, *b_cache = NULL;
  int a_regs = target_mma_fragment_size(TARGET_MMA_A, mi->operand_bits) * mi->operand_bits / 32;
  int b_regs = target_mma_fragment_size(TARGET_MMA_B, mi->operand_bits) * mi->operand_bits / 32;
  for (int64_t ks = 0; ks < K / mi->k; ks++) {
    a_cache = b_cache = NULL; /* fragments of earlier k steps are not needed again */
    for (int t = 0; t < ntiles; t++) {
      const packed_frag *fa = get_fragment(s, op, &a_cache, mi, TARGET_MMA_A, la, va, tiles[t].batch, tiles[t].m0, ks);
      if (!fa) return false;
      const packed_frag *fb = get_fragment(s, op, &b_cache, mi, TARGET_MMA_B, lb, vb, tiles[t].batch, tiles[t].n0, ks);
      if (!fb) return false;
      LLVMValueRef args[12];
      int n = 0;
      for (int i = 0; i < a_regs; i++) args[n++] = fa->regs[i];
      for (int i = 0; i < b_regs; i++) args[n++] = fb->regs[i];
      for (int i = 0; i < cvals; i++) args[n++] = acc[t][i];
      LLVMValueRef d = s->cg->mma(&s->em, mi, args, n);
      for (int i = 0; i < cvals; i++) acc[t][i] = LLVMBuildExtractValue(s->b, d, (unsigned)i, "");
    }
  }

  lower_values *out = lower_values_new(s, op, nregs);
  if (!out) return false;
  for (int r = 0; r < nregs; r++) {
    int t = reg_tile[r], j = reg_slot[r];
    out->v[r] = mi->c_packed_f16 ? LLVMBuildExtractElement(s->b, acc[t][j >> 1], lower_i32(s, j & 1), "") : acc[t][j];
  }
  return lower_set(s, &op->results[0], out);
}

/* ---------------------------------------------------------------- FMA path */

/* A value of operand type converted to the accumulator type (the FMA path promotes, as Triton's
 * decomposeMixedModeDotOp does with fp_to_fp). */
static LLVMValueRef promote(lower_state *s, LLVMValueRef x, const ir_type *from, const ir_type *to, LLVMTypeRef to_ll) {
  if (from == to) return x;
  if (from->kind == TY_FLOAT && to->kind == TY_FLOAT)
    return from->width < to->width ? LLVMBuildFPExt(s->b, x, to_ll, "") : LLVMBuildFPTrunc(s->b, x, to_ll, "");
  if (from->kind == TY_INT && to->kind == TY_INT)
    return from->width < to->width ? LLVMBuildSExt(s->b, x, to_ll, "") : LLVMBuildTrunc(s->b, x, to_ll, "");
  if (from->kind == TY_INT) return LLVMBuildSIToFP(s->b, x, to_ll, "");
  return NULL;
}

static bool lower_dot_fma(lower_state *s, ir_op *op) {
  const ir_type *at = op->operands[0].value->type, *bt = op->operands[1].value->type, *ct = op->results[0].type;
  const ir_type *ae = ir_type_element(at), *be = ir_type_element(bt), *ce = ir_type_element(ct);
  for (int i = 0; i < 2; i++) {
    const ir_attr *e = op->operands[i].value->type->encoding;
    if (!layout_is_fma_dot_operand(e)) {
      ir_op_error(s->ctx, op, "the FMA path of tt.dot needs #ttg.dot_op operands with a blocked parent");
      return false;
    }
  }
  bool is_float_acc = ce->kind == TY_FLOAT && (ce->float_kind == FLT_F16 || ce->float_kind == FLT_BF16 ||
                                               ce->float_kind == FLT_F32 || ce->float_kind == FLT_F64);
  bool is_int_acc = ce->kind == TY_INT && ce->width > 1;
  if (!is_float_acc && !is_int_acc) {
    ir_op_error(s->ctx, op, "the FMA path of tt.dot does not support a %s accumulator", ir_type_str(s->ctx, ce));
    return false;
  }
  if ((ae->kind == TY_FLOAT && !is_float_acc) || (be->kind == TY_FLOAT && !is_float_acc) ||
      (ae->kind == TY_FLOAT && ae->float_kind > FLT_F64) || (be->kind == TY_FLOAT && be->float_kind > FLT_F64)) {
    ir_op_error(s->ctx, op, "the FMA path of tt.dot does not support %s x %s -> %s", ir_type_str(s->ctx, ae),
                ir_type_str(s->ctx, be), ir_type_str(s->ctx, ce));
    return false;
  }
  lower_dot_dims dd = lower_dot_dims_of(ct->rank);
  int r2 = dd.rank - 2, r1 = dd.rank - 1;
  lower_layout_info *la = lower_layout_of(s, op, at), *lb = lower_layout_of(s, op, bt), *lc = lower_layout_of(s, op, ct);
  const lower_values *va = lower_get(s, op, op->operands[0].value), *vb = lower_get(s, op, op->operands[1].value),
                     *vc = lower_get(s, op, op->operands[2].value);
  if (!la || !lb || !lc || !va || !vb || !vc) return false;
  /* Lane and warp bits must move A along M and B along N as they move the result. */
  for (int in = LAYOUT_IN_LANE; in <= LAYOUT_IN_WARP; in++) {
    int n = lc->ll.num_bases[in];
    bool ok = la->ll.num_bases[in] == n && lb->ll.num_bases[in] == n;
    for (int i = 0; ok && i < n; i++) {
      const int32_t *c = lc->ll.bases[in][i], *a = la->ll.bases[in][i], *b = lb->ll.bases[in][i];
      ok = a[r2] == c[r2] && a[r1] == 0 && b[r1] == c[r1] && b[r2] == 0 &&
           (!lower_dot_batched(&dd) || (a[0] == c[0] && b[0] == c[0]));
    }
    if (!ok) {
      ir_op_error(s->ctx, op, "cannot lower tt.dot on the FMA path: the operand layouts do not match the result's");
      return false;
    }
  }
  LLVMTypeRef cty = lower_elem_type(s, ct);
  char fma_name[32];
  if (is_float_acc) snprintf(fma_name, sizeof fma_name, "llvm.fmuladd.%s",
                             ce->float_kind == FLT_F16 ? "f16" : ce->float_kind == FLT_BF16 ? "bf16"
                                                            : ce->float_kind == FLT_F32 ? "f32" : "f64");
  int64_t K = at->shape[r1];
  lower_values *out = lower_values_new(s, op, lc->num_regs);
  /* The operands' registers of every (r, k): their eliminations done once, not per product. */
  layout_linear_solver *sa = lower_alloc(s, sizeof *sa), *sb = lower_alloc(s, sizeof *sb);
  if (!out || !sa || !sb) return false;
  bool solvable = layout_linear_solver_init(sa, &la->ll) && layout_linear_solver_init(sb, &lb->ll);
  /* k outer: every product of K step k is issued before any of step k + 1, so an operand value is
   * live for one step only (128 accumulators plus a step's operands fit the registers; products
   * of one output still add up in k order, so the result is the same). */
  for (int r = 0; r < lc->num_regs; r++) out->v[r] = (r & lc->reg_dup_mask) ? NULL : lower_elem(vc, r);
  for (int64_t k = 0; k < K; k++) {
    for (int r = 0; r < lc->num_regs; r++) {
      if (r & lc->reg_dup_mask) continue;
      int64_t c[IR_MAX_RANK], ac[IR_MAX_RANK], bc[IR_MAX_RANK];
      lower_reg_coord(lc, r, c);
      lower_dot_coord(&dd, c[0], c[r2], k, ac);
      lower_dot_coord(&dd, c[0], k, c[r1], bc);
      int64_t ra = solvable ? layout_linear_solver_register_at(sa, ac) : -1;
      int64_t rb = solvable ? layout_linear_solver_register_at(sb, bc) : -1;
      if (ra < 0 || rb < 0) {
        ir_op_error(s->ctx, op, "cannot lower tt.dot on the FMA path: an operand does not hold the whole K extent");
        return false;
      }
      LLVMValueRef a = promote(s, lower_elem(va, (int)ra), ae, ce, cty);
      LLVMValueRef b = promote(s, lower_elem(vb, (int)rb), be, ce, cty);
      if (is_float_acc) {
        LLVMValueRef args[3] = {a, b, out->v[r]};
        out->v[r] = lower_call(s, fma_name, cty, args, 3);
      } else {
        out->v[r] = LLVMBuildAdd(s->b, LLVMBuildMul(s->b, a, b, ""), out->v[r], "");
      }
    }
  }
  for (int r = 0; r < lc->num_regs; r++)
    if (r & lc->reg_dup_mask) out->v[r] = out->v[r & ~lc->reg_dup_mask];
  return lower_set(s, &op->results[0], out);
}

/* ---------------------------------------------------------------- entry */

bool lower_dot(lower_state *s, ir_op *op) {
  const ir_type *ct = op->results[0].type;
  const ir_attr *enc = ct->encoding;
  if (!enc) {
    ir_op_error(s->ctx, op, "cannot lower tt.dot without layouts (run --pipeline=ttgir first)");
    return false;
  }
  if (enc->kind == AT_NVIDIA_MMA) {
    if (enc->layout.version_major != 2) {
      ir_op_error(s->ctx, op, "lowering of tt.dot with an nvidia_mma v%d result is not implemented (only v2: mma.sync)",
                  enc->layout.version_major);
      return false;
    }
    return lower_dot_mma(s, op);
  }
  if (enc->kind == AT_BLOCKED) return lower_dot_fma(s, op);
  if (enc->kind == AT_AMD_MFMA) return lower_dot_mfma(s, op);
  ir_op_error(s->ctx, op, "lowering of tt.dot with a %s result is not implemented (blocked or nvidia_mma v2 only)",
              ir_attr_kind_name(enc->kind));
  return false;
}

/* tt.dot with an #ttg.amd_mfma result: one MFMA instruction per (tile of C, K group), operands and accumulators gathered from the layouts' registers. */
#include <stdio.h>
#include <string.h>

#include "lower_dot.h"
#include "lower_dot_operand.h"
#include "lower_ops.h"
#include "lower_shared.h"

/*
 * The layouts say which register of this lane holds which element (lib/ir/layout_to_linear.c,
 * Triton's AMDMfmaEncodingAttr / mfma dot operand linear layouts); the target's MMA table says
 * which element of an instruction tile each lane must give and gets back
 * (target_mfma_fragment_coord). For every instruction this file finds the registers that match,
 * and checks all 64 lanes, so a TTGIR whose layouts do not fit the instruction is an error
 * rather than a wrong result.
 *
 * isTransposed computes C^T = B^T A^T: the intrinsic takes the B fragment first and its
 * accumulator rows are the columns of C. A and B fragments are alike (lane % M walks the non-K
 * dim, lane / M the K groups), so only the operands swap.
 *
 * K groups: an instruction consumes kBase consecutive registers of A (and of B) per lane; with
 * kWidth = kpack * kBase a lane holds kWidth consecutive K values and the first kBase feed one
 * instruction, the next kBase another. The K values one instruction sees are then a permutation
 * of the hardware's order, the same for A and B, which the sum does not notice; this file
 * checks exactly that: A's and B's registers of an instruction hold the same K at every
 * (lane, slot), and the K values are distinct.
 */

enum { MFMA_LANES = 64, MAX_K_BASE = 8, MAX_ACC = 16 };

/* The element (batch, row, col) register r of li holds at this lane (warp 0). */
static void element_at(const lower_layout_info *li, const lower_dot_dims *dd, int64_t r, int lane, int64_t *batch,
                       int64_t *row, int64_t *col) {
  int64_t in[LAYOUT_IN_COUNT] = {0}, c[IR_MAX_RANK];
  in[LAYOUT_IN_REGISTER] = r;
  in[LAYOUT_IN_LANE] = lane;
  layout_linear_apply(&li->ll, in, c);
  *batch = lower_dot_batched(dd) ? c[0] : 0;
  *row = c[dd->rank - 2];
  *col = c[dd->rank - 1];
}

/* The register holding (batch, row, col) at lane 0 of warp 0, or -1. */
static int64_t register_of(const lower_layout_info *li, const lower_dot_dims *dd, int64_t batch, int64_t row, int64_t col) {
  int64_t coord[IR_MAX_RANK];
  lower_dot_coord(dd, batch, row, col, coord);
  return layout_linear_register_at(&li->ll, coord);
}

/* One operand: its lowered registers, or (deferred) its shared buffer read on first use. */
typedef struct mfma_operand {
  const lower_values *vals;
  lower_smem_loader *loader;
  const lower_layout_info *li;
  LLVMTypeRef elem;
  bool is_b; /* (k, n) coordinates instead of (m, k) */
} mfma_operand;

static bool operand_init(lower_state *s, ir_op *op, int index, mfma_operand *o) {
  ir_value *v = op->operands[index].value;
  memset(o, 0, sizeof *o);
  o->is_b = index == 1;
  o->elem = lower_elem_type(s, v->type);
  if (!(o->li = lower_layout_of(s, op, v->type)) || !o->elem) return false;
  if (v->def_op && lower_operand_is_deferred(v->def_op)) {
    o->loader = lower_alloc(s, sizeof *o->loader);
    return o->loader && lower_deferred_operand_loader(s, v->def_op, o->loader);
  }
  return (o->vals = lower_get(s, op, v)) != NULL;
}

static LLVMValueRef operand_reg(lower_state *s, const mfma_operand *o, int64_t r) {
  return o->loader ? lower_smem_loader_get(s, o->loader, r) : lower_elem(o->vals, (int)r);
}

/* The (non-K, K) coordinates of register r of an operand at a lane. */
static void operand_at(const mfma_operand *o, const lower_dot_dims *dd, int64_t r, int lane, int64_t *batch, int64_t *nonk,
                       int64_t *k) {
  int64_t row, col;
  element_at(o->li, dd, r, lane, batch, &row, &col);
  *nonk = o->is_b ? col : row;
  *k = o->is_b ? row : col;
}

/* The K groups of one operand row (A) or column (B) of tiles: kBase registers each, the K values
 * they hold at every lane, and the packed fragment once built. */
typedef struct k_group {
  int64_t first_reg;
  int64_t k[MFMA_LANES / 16][MAX_K_BASE]; /* per lane group, per slot; lanes of a group agree */
  LLVMValueRef packed;
} k_group;

typedef struct operand_row {
  int64_t batch, origin;
  int num_groups;
  k_group *groups;
  struct operand_row *next;
} operand_row;

/* Collects the K groups of the operand row at (batch, origin): every aligned run of kBase
 * registers whose elements at lane 0 are (origin, k0 + j); checks that lane l holds
 * (origin + l % M, K of its lane group) in each. */
static operand_row *find_row(lower_state *s, ir_op *op, operand_row **rows, const mfma_operand *o, const lower_dot_dims *dd,
                             const target_mma *mi, int64_t batch, int64_t origin) {
  for (operand_row *r = *rows; r; r = r->next)
    if (r->batch == batch && r->origin == origin) return r;
  int m = mi->m, k_base = target_mfma_k_base(mi), lane_groups = MFMA_LANES / m;
  operand_row *row = lower_alloc(s, sizeof *row);
  int64_t nregs = o->li->num_regs;
  if (!row || !(row->groups = lower_alloc(s, sizeof(k_group) * (size_t)(nregs / k_base + 1)))) return NULL;
  row->batch = batch;
  row->origin = origin;
  for (int64_t r0 = 0; r0 + k_base <= nregs; r0 += k_base) {
    if (r0 & o->li->reg_dup_mask) continue;
    int64_t b, nonk, k0;
    operand_at(o, dd, r0, 0, &b, &nonk, &k0);
    if (b != batch || nonk != origin) continue;
    k_group *g = &row->groups[row->num_groups];
    g->first_reg = r0;
    g->packed = NULL;
    for (int lane = 0; lane < MFMA_LANES; lane++)
      for (int j = 0; j < k_base; j++) {
        int64_t bb, nn, kk;
        operand_at(o, dd, r0 + j, lane, &bb, &nn, &kk);
        int lg = lane / m;
        if (lane % m == 0) g->k[lg][j] = kk;
        if (bb != batch || nn != origin + lane % m || kk != g->k[lg][j]) {
          ir_op_error(s->ctx, op,
                      "cannot lower to %s: the layout of operand %s does not hold the instruction's fragments "
                      "(kWidth must be a multiple of %d)",
                      mi->name, o->is_b ? "B" : "A", k_base);
          return NULL;
        }
      }
    (void)lane_groups;
    row->num_groups++;
  }
  row->next = *rows;
  *rows = row;
  return row;
}

/* The packed fragment of a K group: <kBase x element> of this lane. */
static LLVMValueRef packed_fragment(lower_state *s, const mfma_operand *o, k_group *g, int k_base) {
  if (g->packed) return g->packed;
  LLVMValueRef v = LLVMGetUndef(LLVMVectorType(o->elem, (unsigned)k_base));
  for (int j = 0; j < k_base; j++) v = LLVMBuildInsertElement(s->b, v, operand_reg(s, o, g->first_reg + j), lower_i32(s, j), "");
  return g->packed = v;
}

/* A's group ga and B's group gb feed one instruction when they hold the same K at every lane
 * group and slot. */
static bool groups_match(const k_group *ga, const k_group *gb, int lane_groups, int k_base) {
  for (int lg = 0; lg < lane_groups; lg++)
    for (int j = 0; j < k_base; j++)
      if (ga->k[lg][j] != gb->k[lg][j]) return false;
  return true;
}

/* The K values of a group are distinct (no element is counted twice). */
static bool group_is_injective(const k_group *g, int lane_groups, int k_base) {
  for (int a = 0; a < lane_groups * k_base; a++)
    for (int b = a + 1; b < lane_groups * k_base; b++)
      if (g->k[a / k_base][a % k_base] == g->k[b / k_base][b % k_base]) return false;
  return true;
}

/* Warp bits move A along M and B along N as they move C, and never along K. */
static bool warps_agree(const lower_layout_info *a, const lower_layout_info *b, const lower_layout_info *c,
                        const lower_dot_dims *dd) {
  int n = c->ll.num_bases[LAYOUT_IN_WARP], r = dd->rank;
  if (a->ll.num_bases[LAYOUT_IN_WARP] != n || b->ll.num_bases[LAYOUT_IN_WARP] != n) return false;
  for (int i = 0; i < n; i++) {
    const int32_t *cw = c->ll.bases[LAYOUT_IN_WARP][i], *aw = a->ll.bases[LAYOUT_IN_WARP][i],
                  *bw = b->ll.bases[LAYOUT_IN_WARP][i];
    if (lower_dot_batched(dd) && (aw[0] != cw[0] || bw[0] != cw[0])) return false;
    if (aw[r - 2] != cw[r - 2] || aw[r - 1] != 0 || bw[r - 1] != cw[r - 1] || bw[r - 2] != 0) return false;
  }
  return true;
}

/* One instruction tile of C: its origin and the register of each accumulator slot. */
typedef struct c_tile {
  int64_t batch, m0, n0;
  int64_t reg[MAX_ACC];
} c_tile;

/* The (m, n) of C that accumulator slot `slot` of a lane holds. */
static void c_element(const target_mma *mi, bool transposed, int slot, int lane, int64_t *m, int64_t *n) {
  int row, col;
  target_mfma_fragment_coord(mi, TARGET_MMA_C, slot, lane, &row, &col);
  *m = transposed ? col : row;
  *n = transposed ? row : col;
}

static bool tile_registers(lower_state *s, ir_op *op, const lower_layout_info *lc, const lower_dot_dims *dd,
                           const target_mma *mi, bool transposed, c_tile *t) {
  int cregs = mi->m * mi->n / MFMA_LANES;
  for (int slot = 0; slot < cregs; slot++) {
    int64_t dm, dn;
    c_element(mi, transposed, slot, 0, &dm, &dn);
    int64_t r = register_of(lc, dd, t->batch, t->m0 + dm, t->n0 + dn);
    for (int lane = 0; r >= 0 && lane < MFMA_LANES; lane++) {
      int64_t b, row, col;
      element_at(lc, dd, r, lane, &b, &row, &col);
      c_element(mi, transposed, slot, lane, &dm, &dn);
      if (b != t->batch || row != t->m0 + dm || col != t->n0 + dn) r = -1;
    }
    if (r < 0) {
      ir_op_error(s->ctx, op, "cannot lower to %s: the accumulator layout is not the instruction's C fragment",
                  mi->name);
      return false;
    }
    t->reg[slot] = r;
  }
  return true;
}

bool lower_dot_mfma(lower_state *s, ir_op *op) {
  const ir_type *at = op->operands[0].value->type, *bt = op->operands[1].value->type, *ct = op->results[0].type;
  const ir_layout_params *p = &ct->encoding->layout;
  lower_dot_dims dd = lower_dot_dims_of(ct->rank);
  int64_t K = at->shape[dd.rank - 1];
  int nonk = p->instr_shape[0];
  const target_mma *mi = target_mfma_find(s->target->mma_kinds, op, nonk, K);
  if (mi && p->instr_rank == 3 && p->instr_shape[2] != mi->k) mi = NULL;
  if (!mi || p->instr_shape[1] != nonk) {
    ir_op_error(s->ctx, op, "target %s has no MFMA instruction %dx%dx%d for %s x %s -> %s", s->target->name,
                p->instr_shape[0], p->instr_shape[1], p->instr_rank == 3 ? p->instr_shape[2] : 0,
                ir_type_str(s->ctx, ir_type_element(at)), ir_type_str(s->ctx, ir_type_element(bt)),
                ir_type_str(s->ctx, ir_type_element(ct)));
    return false;
  }
  if (p->version_major != target_mfma_version(s->target)) {
    ir_op_error(s->ctx, op, "#ttg.amd_mfma version %d is not the version of %s (%d)", p->version_major,
                s->target->name, target_mfma_version(s->target));
    return false;
  }
  if (K % mi->k != 0) {
    ir_op_error(s->ctx, op, "cannot lower to %s: K = %lld is not a multiple of %d", mi->name, (long long)K, mi->k);
    return false;
  }
  int k_base = target_mfma_k_base(mi), lane_groups = MFMA_LANES / mi->m, cregs = mi->m * mi->n / MFMA_LANES;
  lower_layout_info *lc = lower_layout_of(s, op, ct);
  const lower_values *vc = lower_get(s, op, op->operands[2].value);
  mfma_operand oa, ob;
  if (!lc || !vc || !operand_init(s, op, 0, &oa) || !operand_init(s, op, 1, &ob)) return false;
  if (!warps_agree(oa.li, ob.li, lc, &dd)) {
    ir_op_error(s->ctx, op, "cannot lower to %s: the operands' warps do not match the accumulator's", mi->name);
    return false;
  }

  /* The tiles of C, in register order (which is M-major, then N). */
  int nregs = lc->num_regs;
  c_tile *tiles = lower_alloc(s, sizeof(c_tile) * (size_t)nregs);
  int *reg_tile = lower_alloc(s, sizeof(int) * (size_t)nregs), *reg_slot = lower_alloc(s, sizeof(int) * (size_t)nregs);
  if (!tiles || !reg_tile || !reg_slot) return false;
  int ntiles = 0;
  for (int r = 0; r < nregs; r++) {
    int64_t b, row, col;
    element_at(lc, &dd, r, 0, &b, &row, &col);
    int64_t m0 = row - row % mi->m, n0 = col - col % mi->n;
    int t = 0;
    while (t < ntiles && !(tiles[t].batch == b && tiles[t].m0 == m0 && tiles[t].n0 == n0)) t++;
    if (t == ntiles) {
      tiles[t] = (c_tile){b, m0, n0, {0}};
      if (!tile_registers(s, op, lc, &dd, mi, p->is_transposed, &tiles[t])) return false;
      ntiles++;
    }
    reg_tile[r] = t;
    reg_slot[r] = -1;
    for (int j = 0; j < cregs; j++)
      if (tiles[t].reg[j] == r) reg_slot[r] = j;
    if (reg_slot[r] < 0) {
      ir_op_error(s->ctx, op, "cannot lower to %s: the accumulator layout is not the instruction's C fragment",
                  mi->name);
      return false;
    }
  }

  /* Tiles in (batch, m, n) order, K innermost: one chain of MFMAs per tile (Triton's order). */
  LLVMValueRef(*acc)[MAX_ACC] = lower_alloc(s, sizeof(LLVMValueRef[MAX_ACC]) * (size_t)ntiles);
  if (!acc) return false;
  operand_row *a_rows = NULL, *b_rows = NULL;
  for (int t = 0; t < ntiles; t++) {
    for (int j = 0; j < cregs; j++) acc[t][j] = lower_elem(vc, (int)tiles[t].reg[j]);
    operand_row *ra = find_row(s, op, &a_rows, &oa, &dd, mi, tiles[t].batch, tiles[t].m0);
    operand_row *rb = ra ? find_row(s, op, &b_rows, &ob, &dd, mi, tiles[t].batch, tiles[t].n0) : NULL;
    if (!ra || !rb) return false;
    if (ra->num_groups != K / mi->k || rb->num_groups != ra->num_groups) {
      ir_op_error(s->ctx, op, "cannot lower to %s: the operands do not hold the %lld K groups of a tile", mi->name,
                  (long long)(K / mi->k));
      return false;
    }
    for (int g = 0; g < ra->num_groups; g++) {
      k_group *ga = &ra->groups[g], *gb = NULL;
      for (int h = 0; h < rb->num_groups && !gb; h++)
        if (groups_match(ga, &rb->groups[h], lane_groups, k_base)) gb = &rb->groups[h];
      if (!gb || !group_is_injective(ga, lane_groups, k_base)) {
        ir_op_error(s->ctx, op, "cannot lower to %s: operands A and B do not hold the same K values per lane",
                    mi->name);
        return false;
      }
      LLVMValueRef fa = packed_fragment(s, &oa, ga, k_base), fb = packed_fragment(s, &ob, gb, k_base);
      LLVMValueRef args[2 + MAX_ACC];
      args[0] = p->is_transposed ? fb : fa;
      args[1] = p->is_transposed ? fa : fb;
      for (int j = 0; j < cregs; j++) args[2 + j] = acc[t][j];
      LLVMValueRef d = s->cg->mma(&s->em, mi, args, 2 + cregs);
      if (!d) {
        ir_op_error(s->ctx, op, "target %s cannot emit %s", s->target->name, mi->name);
        return false;
      }
      for (int j = 0; j < cregs; j++) acc[t][j] = LLVMBuildExtractValue(s->b, d, (unsigned)j, "");
    }
  }

  lower_values *out = lower_values_new(s, op, nregs);
  if (!out) return false;
  for (int r = 0; r < nregs; r++) out->v[r] = acc[reg_tile[r]][reg_slot[r]];
  return lower_set(s, &op->results[0], out);
}

/* Shared-memory access from registers: register <-> shared maps from the layouts, vectorized st.shared, and the loader (vectorized ld.shared or ldmatrix). */
#include "lower_shared.h"

#include <string.h>

/* ---------------------------------------------------------------- register <-> shared map */

bool lower_smem_map_build(lower_state *s, const ir_op *op, const lower_layout_info *reg, const ir_attr *shared,
                          int rank, const int64_t *shape, lower_smem_map *m) {
  memset(m, 0, sizeof *m);
  layout_linear sll;
  if (reg->rank != rank || !layout_to_linear(shared, rank, shape, &sll)) {
    ir_op_error(s->ctx, op, "cannot lower: shared layout %s has no linear form for this %d-D buffer",
                ir_attr_str(s->ctx, shared), rank);
    return false;
  }
  if (!layout_compose_shared(&reg->ll, shared, rank, shape, &m->map)) {
    ir_op_error(s->ctx, op, "cannot lower: layout %s does not map onto shared layout %s",
                ir_attr_str(s->ctx, reg->layout), ir_attr_str(s->ctx, shared));
    return false;
  }
  lower_smem_map_finish(s, m);
  return true;
}

void lower_smem_map_finish(lower_state *s, lower_smem_map *m) {
  /* Every lane/warp offset bit could be set: the mask is the OR of all their offsets. */
  m->lw_mask = 0;
  for (int k = LAYOUT_IN_LANE; k <= LAYOUT_IN_WARP; k++)
    for (int i = 0; i < m->map.num_bases[k]; i++) m->lw_mask |= m->map.off[k][i];
  m->lw = lower_lane_warp_offset(s, &m->map);
}

int64_t lower_smem_reg_offset(const lower_smem_map *m, int64_t r) { return layout_offset_map_register(&m->map, r); }

LLVMValueRef lower_smem_offset(lower_state *s, LLVMValueRef lw, int64_t lw_mask, int64_t reg_offset) {
  int64_t xor_part = reg_offset & lw_mask, add_part = reg_offset & ~lw_mask;
  LLVMValueRef v = lw;
  if (xor_part) v = LLVMBuildXor(s->b, v, lower_i32(s, xor_part), "");
  /* lw ^ xor_part only has bits in lw_mask and add_part none of them: the add is exact */
  if (add_part) v = LLVMBuildAdd(s->b, v, lower_i32(s, add_part), "");
  return v;
}

int lower_smem_vector_width(const lower_smem_map *m, int elem_bytes) {
  return layout_offset_map_vector_width(&m->map, elem_bytes >= 16 ? 1 : 16 / elem_bytes);
}

static LLVMValueRef smem_elem_ptr(lower_state *s, LLVMValueRef base, LLVMTypeRef t, LLVMValueRef index) {
  return LLVMBuildGEP2(s->b, t, base, &index, 1, "");
}

/* ---------------------------------------------------------------- matrix rows (ldmatrix / stmatrix) */

/*
 * ldmatrix.m8n8.x{1,2,4}[.trans].b16 reads 1, 2 or 4 matrices of 8x8 16-bit elements; lane L
 * gives the address of row L%8 of matrix L/8 (each row is 16 contiguous bytes). Without .trans
 * lane T receives row T/4, elements 2(T%4) and 2(T%4)+1 of each matrix (low half first); with
 * .trans it receives rows 2(T%4) and 2(T%4)+1 of column T/4. In terms of the element offsets of
 * the destination layout's bases (lower_smem_map), ldmatrix applies when
 *   non-trans: register bit 0 -> +1, lane bits 0,1 -> +2, +4 (a row is 8 contiguous elements);
 *              lane bits 2..4 pick the row;
 *   trans:     lane bits 2..4 -> +1, +2, +4; register bit 0, lane bits 0, 1 pick the row;
 * and every other basis (rows, warps, the remaining registers) moves by whole rows (multiples
 * of 8 elements, keeping the 16-byte alignment). Register bits 1 and 2 then select the matrices
 * of one .x4 load; higher register bits are separate loads. stmatrix (sm_90) is the same
 * instruction in the other direction: the same fragments, the same row addresses.
 */

static bool offsets_are(const int64_t *off, const int64_t *want, int n) {
  for (int i = 0; i < n; i++)
    if (off[i] != want[i]) return false;
  return true;
}

/* The shape check of lower_matrix_rows_plan, without code: the row bases and matrix-select bits. */
static bool matrix_rows_fit(const layout_offset_map *m, int64_t reg_dup_mask, bool *trans, int64_t row_base[3],
                            int *sel_bits) {
  if (m->num_bases[LAYOUT_IN_LANE] != 5 || m->num_bases[LAYOUT_IN_REGISTER] < 1) return false;
  const int64_t *reg = m->off[LAYOUT_IN_REGISTER], *lane = m->off[LAYOUT_IN_LANE];
  static const int64_t unit[3] = {1, 2, 4};
  if (reg[0] == 1 && offsets_are(lane, unit + 1, 2)) {
    *trans = false;
    for (int i = 0; i < 3; i++) row_base[i] = lane[2 + i];
  } else if (offsets_are(lane + 2, unit, 3)) {
    *trans = true;
    row_base[0] = reg[0];
    row_base[1] = lane[0];
    row_base[2] = lane[1];
  } else {
    return false;
  }
  /* Rows and every basis outside the row must keep 16-byte alignment. */
  for (int i = 0; i < 3; i++)
    if (row_base[i] % 8 != 0) return false;
  for (int i = 1; i < m->num_bases[LAYOUT_IN_REGISTER]; i++)
    if (reg[i] % 8 != 0) return false;
  for (int i = 0; i < m->num_bases[LAYOUT_IN_WARP]; i++)
    if (m->off[LAYOUT_IN_WARP][i] % 8 != 0) return false;
  *sel_bits = m->num_bases[LAYOUT_IN_REGISTER] - 1 < 2 ? m->num_bases[LAYOUT_IN_REGISTER] - 1 : 2;
  /* A group's registers must be distinct elements (a copy would be stored twice). */
  return (reg_dup_mask & ((INT64_C(1) << (1 + *sel_bits)) - 1)) == 0;
}

bool lower_matrix_rows_plan(lower_state *s, const layout_offset_map *m, int64_t reg_dup_mask, lower_matrix_rows *p) {
  bool trans;
  int64_t row_base[3];
  int sel_bits;
  if (!matrix_rows_fit(m, reg_dup_mask, &trans, row_base, &sel_bits)) return false;
  p->trans = trans;
  p->num_mats = 1 << sel_bits;
  p->group_shift = 1 + sel_bits;
  /* Lane address: lane bits 0..2 walk the rows, bits 3.. pick the matrix (unused above x1/x2). */
  int64_t lane_addr[5] = {row_base[0], row_base[1], row_base[2], 0, 0};
  for (int i = 0; i < sel_bits; i++) lane_addr[3 + i] = m->off[LAYOUT_IN_REGISTER][1 + i];
  LLVMValueRef la = lower_apply_bits(s, s->threads->lane, lane_addr, 5);
  LLVMValueRef wa = lower_apply_bits(s, s->threads->warp, m->off[LAYOUT_IN_WARP], m->num_bases[LAYOUT_IN_WARP]);
  p->addr_lw = LLVMBuildXor(s->threads->pro, la, wa, "");
  p->addr_mask = 0;
  for (int i = 0; i < 5; i++) p->addr_mask |= lane_addr[i];
  for (int i = 0; i < m->num_bases[LAYOUT_IN_WARP]; i++) p->addr_mask |= m->off[LAYOUT_IN_WARP][i];
  return true;
}

/* The target stores 16-bit matrices from registers (stmatrix). */
static bool has_matrix_stores(lower_state *s, int bytes) {
  return bytes == 2 && (s->target->caps & GEMMC_CAP_STMATRIX) && s->cg->store_matrices;
}

int lower_smem_matrix_store_width(lower_state *s, const layout_offset_map *m, const lower_layout_info *li, int bytes) {
  bool trans;
  int64_t row_base[3];
  int sel_bits;
  if (!has_matrix_stores(s, bytes) || !matrix_rows_fit(m, li->reg_dup_mask, &trans, row_base, &sel_bits)) return 0;
  return 2 << sel_bits;
}

/* Two 16-bit elements as the i32 a matrix instruction moves (low half first). */
static LLVMValueRef pack_pair(lower_state *s, LLVMTypeRef mt, LLVMValueRef lo, LLVMValueRef hi) {
  LLVMValueRef pair[2] = {lo, hi};
  return LLVMBuildBitCast(s->b, lower_build_vector(s, LLVMVectorType(mt, 2), pair, 2), s->i32, "");
}

void lower_smem_store_values(lower_state *s, LLVMValueRef base, const lower_smem_map *m, const lower_layout_info *li,
                             LLVMTypeRef et, int bytes, const lower_values *vals) {
  LLVMTypeRef mt = lower_memory_type(s, et);
  lower_matrix_rows rows;
  if (has_matrix_stores(s, bytes) && lower_matrix_rows_plan(s, &m->map, li->reg_dup_mask, &rows)) {
    int64_t group = INT64_C(1) << rows.group_shift;
    for (int64_t r0 = 0; r0 < li->num_regs; r0 += group) {
      if (r0 & li->reg_dup_mask) continue; /* a copy of a group stored already */
      LLVMValueRef words[4];
      /* Matrix j takes registers r0 | j << 1 (low half) and r0 | j << 1 | 1 (high half). */
      for (int j = 0; j < rows.num_mats; j++) {
        int64_t r = r0 | ((int64_t)j << 1);
        words[j] = pack_pair(s, mt, lower_elem(vals, (int)r), lower_elem(vals, (int)(r | 1)));
      }
      LLVMValueRef off = lower_smem_offset(s, rows.addr_lw, rows.addr_mask, lower_smem_reg_offset(m, r0));
      s->cg->store_matrices(&s->em, smem_elem_ptr(s, base, mt, off), words, rows.num_mats, rows.trans);
    }
    return;
  }
  int v = lower_smem_vector_width(m, bytes);
  LLVMTypeRef vt = v > 1 ? LLVMVectorType(mt, (unsigned)v) : mt;
  for (int r = 0; r < li->num_regs; r += v) {
    if (r & li->reg_dup_mask) continue; /* a copy of a register stored already */
    LLVMValueRef lanes[16];
    for (int j = 0; j < v; j++) {
      lanes[j] = lower_elem(vals, r + j);
      if (mt != et) lanes[j] = LLVMBuildZExt(s->b, lanes[j], mt, "");
    }
    LLVMValueRef x = v > 1 ? lower_build_vector(s, vt, lanes, v) : lanes[0];
    LLVMValueRef off = lower_smem_offset(s, m->lw, m->lw_mask, lower_smem_reg_offset(m, r));
    LLVMValueRef st = LLVMBuildStore(s->b, x, smem_elem_ptr(s, base, mt, off));
    LLVMSetAlignment(st, (unsigned)(v * bytes < 16 ? v * bytes : 16));
  }
}

bool lower_shared_store(lower_state *s, ir_op *op, LLVMValueRef base, const ir_attr *shared, int rank,
                        const int64_t *shape, const ir_type *tensor, const lower_values *vals) {
  lower_layout_info *li = lower_layout_of(s, op, tensor);
  if (!li) return false;
  lower_smem_map m;
  if (!lower_smem_map_build(s, op, li, shared, rank, shape, &m)) return false;
  LLVMTypeRef et = lower_elem_type(s, tensor);
  if (!et) {
    ir_op_error(s->ctx, op, "cannot store elements of %s in shared memory", ir_type_str(s->ctx, tensor));
    return false;
  }
  lower_smem_store_values(s, base, &m, li, et, lower_elem_bytes(tensor), vals);
  return true;
}

/* ---------------------------------------------------------------- the loader */

/* Decides whether ldmatrix can read this layout from this buffer and fills the loader's plan. */
static bool plan_ldmatrix(lower_state *s, lower_smem_loader *ld, const ir_type *tensor) {
  const ir_attr *enc = tensor->encoding;
  if (!enc || enc->kind != AT_DOT_OP || !enc->layout.parent || enc->layout.parent->kind != AT_NVIDIA_MMA) return false;
  if (!(s->target->caps & GEMMC_CAP_LDMATRIX) || !s->cg->load_matrices) return false;
  const ir_type *e = ir_type_element(tensor);
  if (ir_type_bits(e) != 16 || e->kind != TY_FLOAT) return false; /* 8- and 32-bit types use ld.shared */
  return ld->ldmatrix = lower_matrix_rows_plan(s, &ld->m.map, 0, &ld->rows);
}

/* The ldmatrix of the group starting at register r0. */
static void load_matrix_group(lower_state *s, lower_smem_loader *ld, int64_t r0) {
  const lower_matrix_rows *p = &ld->rows;
  LLVMValueRef off = lower_smem_offset(s, p->addr_lw, p->addr_mask, lower_smem_reg_offset(&ld->m, r0));
  LLVMValueRef ptr = LLVMBuildGEP2(s->b, ld->et, ld->base, &off, 1, "");
  LLVMValueRef res = s->cg->load_matrices(&s->em, ptr, p->num_mats, p->trans);
  LLVMTypeRef pair = LLVMVectorType(ld->et, 2);
  /* Matrix j holds registers r0 | j << 1 (low half) and r0 | j << 1 | 1 (high half). */
  for (int j = 0; j < p->num_mats; j++) {
    LLVMValueRef word = p->num_mats == 1 ? res : LLVMBuildExtractValue(s->b, res, (unsigned)j, "");
    LLVMValueRef two = LLVMBuildBitCast(s->b, word, pair, "");
    int64_t r = r0 | ((int64_t)j << 1);
    ld->out->v[r] = LLVMBuildExtractElement(s->b, two, lower_i32(s, 0), "");
    ld->out->v[r | 1] = LLVMBuildExtractElement(s->b, two, lower_i32(s, 1), "");
  }
}

bool lower_smem_loader_init(lower_state *s, ir_op *op, lower_smem_loader *ld, LLVMValueRef base, const ir_attr *shared,
                            int rank, const int64_t *shape, const ir_type *tensor) {
  lower_layout_info *li = lower_layout_of(s, op, tensor);
  lower_smem_map m;
  if (!li || !lower_smem_map_build(s, op, li, shared, rank, shape, &m)) return false;
  return lower_smem_loader_init_map(s, op, ld, base, &m, tensor);
}

bool lower_smem_loader_init_map(lower_state *s, ir_op *op, lower_smem_loader *ld, LLVMValueRef base,
                                const lower_smem_map *m, const ir_type *tensor) {
  memset(ld, 0, sizeof *ld);
  lower_layout_info *li = lower_layout_of(s, op, tensor);
  if (!li) return false;
  s->smem_read_pending = true; /* the loader's reads come before the next op */
  ld->m = *m;
  ld->li = li;
  ld->base = base;
  ld->et = lower_elem_type(s, tensor);
  if (!ld->et) {
    ir_op_error(s->ctx, op, "cannot load elements of %s from shared memory", ir_type_str(s->ctx, tensor));
    return false;
  }
  ld->mt = lower_memory_type(s, ld->et);
  ld->bytes = lower_elem_bytes(tensor);
  ld->out = lower_values_new(s, op, li->num_regs);
  if (!ld->out) return false;
  if (!plan_ldmatrix(s, ld, tensor)) ld->vec = lower_smem_vector_width(&ld->m, ld->bytes);
  return true;
}

/* One ld.shared vector of ld->vec registers starting at r0. */
static void load_vector(lower_state *s, lower_smem_loader *ld, int64_t r0) {
  int v = ld->vec;
  LLVMTypeRef vt = v > 1 ? LLVMVectorType(ld->mt, (unsigned)v) : ld->mt;
  LLVMValueRef off = lower_smem_offset(s, ld->m.lw, ld->m.lw_mask, lower_smem_reg_offset(&ld->m, r0));
  LLVMValueRef x = LLVMBuildLoad2(s->b, vt, smem_elem_ptr(s, ld->base, ld->mt, off), "");
  LLVMSetAlignment(x, (unsigned)(v * ld->bytes < 16 ? v * ld->bytes : 16));
  for (int j = 0; j < v; j++) {
    LLVMValueRef e = v > 1 ? LLVMBuildExtractElement(s->b, x, lower_i32(s, j), "") : x;
    if (ld->mt != ld->et) e = LLVMBuildTrunc(s->b, e, ld->et, "");
    ld->out->v[r0 + j] = e;
  }
}

LLVMValueRef lower_smem_loader_get(lower_state *s, lower_smem_loader *ld, int64_t r) {
  if (ld->out->v[r]) return ld->out->v[r];
  int64_t dup = ld->li->reg_dup_mask;
  if (r & dup) return ld->out->v[r] = lower_smem_loader_get(s, ld, r & ~dup); /* a copy of another register */
  if (ld->ldmatrix) load_matrix_group(s, ld, r & ~((INT64_C(1) << ld->rows.group_shift) - 1));
  else load_vector(s, ld, r & ~(int64_t)(ld->vec - 1));
  return ld->out->v[r];
}

bool lower_shared_load(lower_state *s, ir_op *op, LLVMValueRef base, const ir_attr *shared, int rank,
                       const int64_t *shape, const ir_type *tensor, lower_values **out) {
  lower_smem_loader ld;
  if (!lower_smem_loader_init(s, op, &ld, base, shared, rank, shape, tensor)) return false;
  for (int r = 0; r < ld.li->num_regs; r++) lower_smem_loader_get(s, &ld, r);
  *out = ld.out;
  return true;
}

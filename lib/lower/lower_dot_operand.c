/* MMA dot operands from shared memory: ldmatrix(.trans) read-back, and convert_layout to #ttg.dot_op via a swizzled buffer. */
#include <stdio.h>
#include <string.h>

#include "lower_tensorcore.h"

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
 * of one .x4 load; higher register bits are separate loads.
 */

static bool offsets_are(const int64_t *off, const int64_t *want, int n) {
  for (int i = 0; i < n; i++)
    if (off[i] != want[i]) return false;
  return true;
}

bool lower_ldmatrix_plan(lower_state *s, lower_smem_loader *ld, const ir_type *tensor) {
  const ir_attr *enc = tensor->encoding;
  const layout_offset_map *m = &ld->m.map;
  if (!enc || enc->kind != AT_DOT_OP || !enc->layout.parent || enc->layout.parent->kind != AT_NVIDIA_MMA) return false;
  if (!(s->target->caps & GEMMC_CAP_LDMATRIX) || !s->cg->load_matrices) return false;
  const ir_type *e = ir_type_element(tensor);
  if (ir_type_bits(e) != 16 || e->kind != TY_FLOAT) return false; /* 8- and 32-bit types use ld.shared */
  if (m->num_bases[1] != 5 || m->num_bases[0] < 1) return false;
  static const int64_t unit[3] = {1, 2, 4};
  int64_t row_base[3];
  if (m->off[0][0] == 1 && offsets_are(m->off[1], unit + 1, 2)) {
    ld->trans = false;
    for (int i = 0; i < 3; i++) row_base[i] = m->off[1][2 + i];
  } else if (offsets_are(m->off[1] + 2, unit, 3)) {
    ld->trans = true;
    row_base[0] = m->off[0][0];
    row_base[1] = m->off[1][0];
    row_base[2] = m->off[1][1];
  } else {
    return false;
  }
  /* Rows and every basis outside the row must keep 16-byte alignment. */
  for (int i = 0; i < 3; i++)
    if (row_base[i] % 8 != 0) return false;
  for (int i = 1; i < m->num_bases[0]; i++)
    if (m->off[0][i] % 8 != 0) return false;
  for (int i = 0; i < m->num_bases[2]; i++)
    if (m->off[2][i] % 8 != 0) return false;

  int sel_bits = m->num_bases[0] - 1 < 2 ? m->num_bases[0] - 1 : 2;
  ld->num_mats = 1 << sel_bits;
  ld->group_shift = 1 + sel_bits;
  /* Lane address: lane bits 0..2 walk the rows, bits 3.. pick the matrix (unused above x1/x2). */
  int64_t lane_addr[5] = {row_base[0], row_base[1], row_base[2], 0, 0};
  for (int i = 0; i < sel_bits; i++) lane_addr[3 + i] = m->off[0][1 + i];
  LLVMValueRef la = lower_apply_bits(s, s->threads->lane, lane_addr, 5);
  LLVMValueRef wa = lower_apply_bits(s, s->threads->warp, m->off[2], m->num_bases[2]);
  ld->addr_lw = LLVMBuildXor(s->threads->pro, la, wa, "");
  ld->addr_mask = 0;
  for (int i = 0; i < 5; i++) ld->addr_mask |= lane_addr[i];
  for (int i = 0; i < m->num_bases[2]; i++) ld->addr_mask |= m->off[2][i];
  ld->ldmatrix = true;
  return true;
}

void lower_ldmatrix_group(lower_state *s, lower_smem_loader *ld, int64_t r0) {
  LLVMValueRef off = lower_smem_offset(s, ld->addr_lw, ld->addr_mask, lower_smem_reg_offset(&ld->m, r0));
  LLVMValueRef ptr = LLVMBuildGEP2(s->b, ld->et, ld->base, &off, 1, "");
  LLVMValueRef res = s->cg->load_matrices(&s->em, ptr, ld->num_mats, ld->trans);
  LLVMTypeRef pair = LLVMVectorType(ld->et, 2);
  /* Matrix j holds registers r0 | j << 1 (low half) and r0 | j << 1 | 1 (high half). */
  for (int j = 0; j < ld->num_mats; j++) {
    LLVMValueRef word = ld->num_mats == 1 ? res : LLVMBuildExtractValue(s->b, res, (unsigned)j, "");
    LLVMValueRef two = LLVMBuildBitCast(s->b, word, pair, "");
    int64_t r = r0 | ((int64_t)j << 1);
    ld->out->v[r] = LLVMBuildExtractElement(s->b, two, lower_i32(s, 0), "");
    ld->out->v[r | 1] = LLVMBuildExtractElement(s->b, two, lower_i32(s, 1), "");
  }
}

/* ---------------------------------------------------------------- convert_layout -> dot_op(mma) */

bool lower_is_convert_to_mma_operand(const ir_op *op) {
  if (op->kind != OP_CONVERT_LAYOUT) return false;
  const ir_type *src = op->operands[0].value->type, *dst = op->results[0].type;
  if (!ir_type_is_tensor(src) || !ir_type_is_tensor(dst)) return false;
  return layout_is_mma_operand_conversion(src->encoding, dst->encoding);
}

/* The swizzled scratch buffer of a convert to an MMA operand (Triton's shared layout for the
 * operand, in the source's order) and its address. */
static bool operand_buffer(lower_state *s, ir_op *op, const ir_attr **shared, LLVMValueRef *base) {
  const ir_type *st = op->operands[0].value->type, *dt = op->results[0].type;
  const ir_attr *dot = dt->encoding;
  int order[IR_MAX_RANK];
  layout_order(st->encoding, dt->rank, order);
  unsigned bits = ir_type_bits(ir_type_element(dt));
  *shared = layout_swizzled_shared_for_dot_operand(s->ctx, dot->layout.op_idx, dot->layout.k_width, dt->rank, dt->shape,
                                                   order, (int)bits);
  int64_t offset = lower_scratch_offset(s, op);
  int64_t need = ir_type_num_elements(dt) * lower_elem_bytes(dt);
  if (!*shared || offset < 0 || gemmc_allocation_scratch_bytes(op) < need) {
    ir_op_error(s->ctx, op, "internal error: no shared-memory scratch (%lld bytes) for this conversion",
                (long long)need);
    return false;
  }
  LLVMValueRef off = lower_i32(s, offset);
  *base = LLVMBuildGEP2(s->b, s->i8, s->smem, &off, 1, "");
  return true;
}

bool lower_convert_to_dot_operand(lower_state *s, ir_op *op) {
  const ir_value *src = op->operands[0].value;
  const ir_type *st = src->type, *dt = op->results[0].type;
  const ir_attr *dot = dt->encoding;
  if (!lower_is_convert_to_mma_operand(op)) {
    ir_op_error(s->ctx, op, "internal error: not a conversion to an MMA dot operand");
    return false;
  }
  if (dot->layout.parent->layout.version_major != 2) {
    ir_op_error(s->ctx, op, "dot operands of nvidia_mma v%d are not supported yet (only v2: mma.sync)",
                dot->layout.parent->layout.version_major);
    return false;
  }
  const lower_values *vals = lower_get(s, op, src);
  lower_layout_info *sl = lower_layout_of(s, op, st);
  lower_layout_info *dl = lower_layout_of(s, op, dt);
  if (!vals || !sl || !dl) return false;
  int rank = dt->rank;

  /* Same lanes and warps: only registers move. */
  int *map = lower_alloc(s, sizeof(int) * (size_t)dl->num_regs);
  if (!map) return false;
  if (lower_register_map(dl, sl, layout_project_identity, &rank, map)) {
    lower_values *out = lower_values_new(s, op, dl->num_regs);
    if (!out) return false;
    for (int r = 0; r < dl->num_regs; r++) out->v[r] = lower_elem(vals, map[r]);
    return lower_set(s, &op->results[0], out);
  }

  const ir_attr *shared;
  LLVMValueRef base;
  if (!operand_buffer(s, op, &shared, &base)) return false;
  lower_barrier(s);
  if (!lower_shared_store(s, op, base, shared, rank, dt->shape, st, vals)) return false;
  lower_barrier(s);
  if (lower_operand_is_deferred(op)) {
    /* The dot reads the buffer itself; nothing may read these placeholders. */
    lower_values *none = lower_values_new(s, op, dl->num_regs);
    if (!none) return false;
    for (int r = 0; r < dl->num_regs; r++) none->v[r] = LLVMGetUndef(lower_elem_type(s, dt));
    return lower_set(s, &op->results[0], none);
  }
  lower_values *out = NULL;
  if (!lower_shared_load(s, op, base, shared, rank, dt->shape, dt, &out)) return false;
  return lower_set(s, &op->results[0], out);
}

bool lower_operand_is_deferred(const ir_op *def) {
  const ir_type *dt = def->results[0].type;
  if (def->kind == OP_CONVERT_LAYOUT) {
    /* The allocation keeps such a buffer until the dot, apart from everything live meanwhile. */
    return lower_is_convert_to_mma_operand(def) && gemmc_allocation_scratch_until(def) != def;
  }
  if (def->kind == OP_LOCAL_LOAD) {
    if (!ir_type_is_tensor(dt) || !dt->encoding || dt->encoding->kind != AT_DOT_OP) return false;
  } else {
    return false;
  }
  const ir_operand *use = def->results[0].first_use;
  if (!use || use->next_use || use->owner->kind != OP_DOT || use->index > 1 || use->owner->parent != def->parent)
    return false;
  for (const ir_op *o = def->next; o && o != use->owner; o = o->next) {
    unsigned traits = ir_op_info_of(o->kind)->traits;
    if ((traits & (TRAIT_WRITES_MEMORY | TRAIT_HAS_REGIONS)) || gemmc_allocation_scratch_bytes(o) > 0) return false;
  }
  return true;
}

bool lower_deferred_operand_loader(lower_state *s, ir_op *def, lower_smem_loader *ld) {
  const ir_type *dt = def->results[0].type;
  if (def->kind == OP_LOCAL_LOAD) {
    const ir_type *mt = def->operands[0].value->type;
    const lower_values *mem = lower_get(s, def, def->operands[0].value);
    return mem && lower_smem_loader_init(s, def, ld, mem->v[0], mt->encoding, mt->rank, mt->shape, dt);
  }
  const ir_attr *shared;
  LLVMValueRef base;
  return operand_buffer(s, def, &shared, &base) &&
         lower_smem_loader_init(s, def, ld, base, shared, dt->rank, dt->shape, dt);
}

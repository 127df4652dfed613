/* MMA dot operands: convert_layout to #ttg.dot_op through a swizzled shared buffer, and operands whose shared-memory reads are deferred to their tt.dot. */
#include "lower_dot_operand.h"
#include "lower_ops.h"

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
  *base = lower_shared_base(s, op);
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
  /* wgmma's A from registers (v3, operand 0) has mma.sync's per-warp A fragment. */
  int version = dot->layout.parent->layout.version_major;
  if (version != 2 && !(version == 3 && dot->layout.op_idx == 0)) {
    ir_op_error(s->ctx, op, "dot operands of nvidia_mma v%d are not supported (mma.sync operands, wgmma's A)", version);
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
    /* The FMA path multiplies the loaded registers: only MMA operands are read by the dot itself. */
    if (!dt->encoding->layout.parent || layout_is_fma_dot_operand(dt->encoding)) return false;
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

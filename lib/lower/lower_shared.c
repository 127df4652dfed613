/* Shared-memory lowering: register <-> shared maps from the layouts, vectorized st/ld.shared, and the ttg.local_* / memdesc_index ops. */
#include <string.h>

#include "lower_tensorcore.h"

/* Barrier rule (until a membar analysis exists): every op that writes shared memory starts with a
 * barrier (earlier readers of the same bytes are done) and ends with one (its data is visible to
 * every reader). Readers need none. */

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
  /* Every lane/warp offset bit could be set: the mask is the OR of all their offsets. */
  for (int k = LAYOUT_IN_LANE; k <= LAYOUT_IN_WARP; k++)
    for (int i = 0; i < m->map.num_bases[k]; i++) m->lw_mask |= m->map.off[k][i];
  LLVMValueRef l = lower_apply_bits(s, s->threads->lane, m->map.off[LAYOUT_IN_LANE], m->map.num_bases[LAYOUT_IN_LANE]);
  LLVMValueRef w = lower_apply_bits(s, s->threads->warp, m->map.off[LAYOUT_IN_WARP], m->map.num_bases[LAYOUT_IN_WARP]);
  m->lw = LLVMBuildXor(s->threads->pro, l, w, "");
  return true;
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

/* In memory an i1 takes a byte. */
static LLVMTypeRef memory_type(lower_state *s, LLVMTypeRef t) {
  return LLVMGetTypeKind(t) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) == 1 ? s->i8 : t;
}

static LLVMValueRef smem_elem_ptr(lower_state *s, LLVMValueRef base, LLVMTypeRef t, LLVMValueRef index) {
  return LLVMBuildGEP2(s->b, t, base, &index, 1, "");
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
  LLVMTypeRef mt = memory_type(s, et);
  int bytes = lower_elem_bytes(tensor);
  int v = lower_smem_vector_width(&m, bytes);
  LLVMTypeRef vt = v > 1 ? LLVMVectorType(mt, (unsigned)v) : mt;
  for (int r = 0; r < li->num_regs; r += v) {
    if (r & li->reg_dup_mask) continue; /* a copy of a register stored already */
    LLVMValueRef x = LLVMGetUndef(vt);
    for (int j = 0; j < v; j++) {
      LLVMValueRef e = lower_elem(vals, r + j);
      if (mt != et) e = LLVMBuildZExt(s->b, e, mt, "");
      x = v > 1 ? LLVMBuildInsertElement(s->b, x, e, lower_i32(s, j), "") : e;
    }
    LLVMValueRef off = lower_smem_offset(s, m.lw, m.lw_mask, lower_smem_reg_offset(&m, r));
    LLVMValueRef st = LLVMBuildStore(s->b, x, smem_elem_ptr(s, base, mt, off));
    LLVMSetAlignment(st, (unsigned)(v * bytes < 16 ? v * bytes : 16));
  }
  return true;
}

bool lower_smem_loader_init(lower_state *s, ir_op *op, lower_smem_loader *ld, LLVMValueRef base, const ir_attr *shared,
                            int rank, const int64_t *shape, const ir_type *tensor) {
  memset(ld, 0, sizeof *ld);
  lower_layout_info *li = lower_layout_of(s, op, tensor);
  if (!li || !lower_smem_map_build(s, op, li, shared, rank, shape, &ld->m)) return false;
  ld->li = li;
  ld->base = base;
  ld->et = lower_elem_type(s, tensor);
  if (!ld->et) {
    ir_op_error(s->ctx, op, "cannot load elements of %s from shared memory", ir_type_str(s->ctx, tensor));
    return false;
  }
  ld->mt = memory_type(s, ld->et);
  ld->bytes = lower_elem_bytes(tensor);
  ld->out = lower_values_new(s, op, li->num_regs);
  if (!ld->out) return false;
  if (!lower_ldmatrix_plan(s, ld, tensor)) ld->vec = lower_smem_vector_width(&ld->m, ld->bytes);
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
  if (ld->ldmatrix) lower_ldmatrix_group(s, ld, r & ~((INT64_C(1) << ld->group_shift) - 1));
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

/* ---------------------------------------------------------------- ttg.local_* and memdesc_index */

static bool check_memdesc(lower_state *s, const ir_op *op, const ir_type *t) {
  if (t->kind != TY_MEMDESC || !t->encoding || !layout_is_shared(t->encoding)) {
    ir_op_error(s->ctx, op, "cannot lower '%s': shared memory needs a swizzled_shared or nvmma_shared layout",
                ir_type_str(s->ctx, t));
    return false;
  }
  return true;
}

static LLVMValueRef memdesc_base(lower_state *s, const ir_op *op, const ir_value *v) {
  const lower_values *vals = lower_get(s, op, v);
  return vals ? vals->v[0] : NULL;
}

/* Buffers in the nvmma_shared layout are read by warpgroup MMA through the async proxy: this
 * thread's ordinary stores must be fenced before the barrier that publishes them. */
static void fence_for_tensor_cores(lower_state *s, const ir_type *mt) {
  if (mt->encoding && mt->encoding->kind == AT_NVMMA_SHARED && s->cg->fence_async_shared)
    s->cg->fence_async_shared(&s->em);
}

static bool lower_local_alloc(lower_state *s, ir_op *op) {
  const ir_type *mt = op->results[0].type;
  if (!check_memdesc(s, op, mt)) return false;
  int64_t offset = gemmc_allocation_offset(s->alloc, op);
  if (offset < 0) {
    ir_op_error(s->ctx, op, "internal error: the shared-memory allocation gave this buffer no offset");
    return false;
  }
  LLVMValueRef off = lower_i32(s, offset);
  LLVMValueRef base = LLVMBuildGEP2(s->b, s->i8, s->smem, &off, 1, "");
  if (op->num_operands == 1) {
    const lower_values *vals = lower_get(s, op, op->operands[0].value);
    if (!vals) return false;
    lower_barrier(s);
    if (!lower_shared_store(s, op, base, mt->encoding, mt->rank, mt->shape, op->operands[0].value->type, vals))
      return false;
    fence_for_tensor_cores(s, mt);
    lower_barrier(s);
  }
  return lower_set1(s, &op->results[0], base);
}

static bool lower_local_load(lower_state *s, ir_op *op) {
  const ir_type *mt = op->operands[0].value->type;
  if (!check_memdesc(s, op, mt)) return false;
  LLVMValueRef base = memdesc_base(s, op, op->operands[0].value);
  if (!base) return false;
  if (lower_operand_is_deferred(op)) {
    /* The tt.dot reads the buffer itself; nothing may read these placeholders. */
    lower_layout_info *li = lower_layout_of(s, op, op->results[0].type);
    lower_values *none = li ? lower_values_new(s, op, li->num_regs) : NULL;
    if (!none) return false;
    for (int r = 0; r < li->num_regs; r++) none->v[r] = LLVMGetUndef(lower_elem_type(s, op->results[0].type));
    return lower_set(s, &op->results[0], none);
  }
  lower_values *vals = NULL;
  if (!lower_shared_load(s, op, base, mt->encoding, mt->rank, mt->shape, op->results[0].type, &vals)) return false;
  return lower_set(s, &op->results[0], vals);
}

static bool lower_local_store(lower_state *s, ir_op *op) {
  const ir_type *mt = op->operands[1].value->type;
  if (!check_memdesc(s, op, mt)) return false;
  LLVMValueRef base = memdesc_base(s, op, op->operands[1].value);
  const lower_values *vals = lower_get(s, op, op->operands[0].value);
  if (!base || !vals) return false;
  lower_barrier(s);
  if (!lower_shared_store(s, op, base, mt->encoding, mt->rank, mt->shape, op->operands[0].value->type, vals))
    return false;
  fence_for_tensor_cores(s, mt);
  lower_barrier(s);
  return true;
}

/* A view of one slice along the leading dim: its offset is index * (offset of coordinate
 * (1, 0, ..)), which must be the slice size so that the view has the same layout. */
static bool lower_memdesc_index(lower_state *s, ir_op *op) {
  const ir_type *src = op->operands[0].value->type;
  if (!check_memdesc(s, op, src)) return false;
  int64_t coord[IR_MAX_RANK] = {0};
  coord[0] = 1;
  int64_t slice_elems = 1;
  for (int d = 1; d < src->rank; d++) slice_elems *= src->shape[d];
  int64_t stride = src->shape[0] > 1 ? layout_shared_offset(src->encoding, src->rank, src->shape, coord) : slice_elems;
  if (stride != slice_elems) {
    ir_op_error(s->ctx, op, "cannot lower: in %s the leading dim is not the outermost one of the shared layout",
                ir_type_str(s->ctx, src));
    return false;
  }
  LLVMValueRef base = memdesc_base(s, op, op->operands[0].value);
  const lower_values *idx = lower_get(s, op, op->operands[1].value);
  if (!base || !idx) return false;
  LLVMValueRef bytes = LLVMBuildMul(s->b, idx->v[0], lower_i32(s, slice_elems * lower_elem_bytes(src)), "");
  return lower_set1(s, &op->results[0], LLVMBuildGEP2(s->b, s->i8, base, &bytes, 1, ""));
}

bool lower_local_memory(lower_state *s, ir_op *op) {
  switch (op->kind) {
  case OP_LOCAL_ALLOC: return lower_local_alloc(s, op);
  case OP_LOCAL_LOAD: return lower_local_load(s, op);
  case OP_LOCAL_STORE: return lower_local_store(s, op);
  case OP_LOCAL_DEALLOC: return true; /* the allocation analysis already ended its lifetime */
  case OP_MEMDESC_INDEX: return lower_memdesc_index(s, op);
  default:
    ir_op_error(s->ctx, op, "internal error: '%s' is not a shared-memory op", ir_op_name(op));
    return false;
  }
}

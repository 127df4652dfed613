/* The ttg.local_* ops and the memdesc views (index, trans, reinterpret): shared buffers at their allocation offsets, stored and loaded through lower_shared. */
#include "lower_dot_operand.h"
#include "lower_ops.h"

/* Barrier rule (until a membar analysis exists): every op that writes shared memory starts with a
 * barrier (earlier readers of the same bytes are done) and ends with one (its data is visible to
 * every reader). Readers need none. A local_alloc's closing barrier is deferred to the next op
 * that may touch shared memory (lower_barrier_defer): global loads and register arithmetic wait
 * past it, and a second local_alloc then stores without an opening barrier (owed_store),
 * so two operand tiles stored one after the other, each right after its load, take one barrier
 * before and one after, as Triton's membar analysis places them. */

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
  LLVMValueRef base = lower_shared_base(s, op);
  if (!base) {
    ir_op_error(s->ctx, op, "internal error: the shared-memory allocation gave this buffer no offset");
    return false;
  }
  if (op->num_operands == 1) {
    const lower_values *vals = lower_get(s, op, op->operands[0].value);
    if (!vals) return false;
    /* Skipped only when the earlier store's bytes are apart from this one's: a buffer whose last
     * use is behind may share bytes with this one, and its threads' stores would race with ours. */
    if (!(s->owed_store && gemmc_allocation_disjoint(s->alloc, s->owed_store, op))) lower_barrier(s);
    if (!lower_shared_store(s, op, base, mt->encoding, mt->rank, mt->shape, op->operands[0].value->type, vals))
      return false;
    fence_for_tensor_cores(s, mt);
    lower_barrier_defer(s);
    s->owed_store = op;
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

/* ttg.memdesc_trans: the same bytes seen with permuted dims. The view's layout must put every
 * element where the buffer's layout has it (checked on the basis coordinates: shared layouts
 * are XOR-linear), so the address passes through unchanged. */
static bool lower_memdesc_trans(lower_state *s, ir_op *op) {
  const ir_type *src = op->operands[0].value->type, *dst = op->results[0].type;
  const ir_attr *order = ir_op_get_attr(op, "order");
  int perm[IR_MAX_RANK];
  bool same = order && order->kind == AT_DENSE_ARRAY && order->num_elems == dst->rank && src->rank == dst->rank &&
              dst->rank <= IR_MAX_RANK;
  for (int d = 0; same && d < dst->rank; d++) perm[d] = (int)order->ints[d];
  same = same && layout_shared_is_permuted_view(dst->encoding, dst->shape, src->encoding, src->shape, dst->rank, perm);
  if (!same) {
    ir_op_error(s->ctx, op, "lowering of ttg.memdesc_trans from %s to %s is not implemented (the view's layout must address the same bytes)",
                ir_type_str(s->ctx, src), ir_type_str(s->ctx, dst));
    return false;
  }
  const lower_values *base = lower_get(s, op, op->operands[0].value);
  return base && lower_set1(s, &op->results[0], base->v[0]);
}

/* ttg.memdesc_reinterpret: the buffer's first bytes seen with another element type, shape and
 * layout (the warp-specialized kernels' split-K partial sums in the epilogue buffer); the view
 * must fit in the buffer. */
static bool lower_memdesc_reinterpret(lower_state *s, ir_op *op) {
  const ir_type *src = op->operands[0].value->type, *dst = op->results[0].type;
  if (!check_memdesc(s, op, src) || !check_memdesc(s, op, dst)) return false;
  if (ir_type_num_elements(dst) * lower_elem_bytes(dst) > ir_type_num_elements(src) * lower_elem_bytes(src)) {
    ir_op_error(s->ctx, op, "cannot lower: %s is larger than the buffer %s it views", ir_type_str(s->ctx, dst),
                ir_type_str(s->ctx, src));
    return false;
  }
  const lower_values *base = lower_get(s, op, op->operands[0].value);
  return base && lower_set1(s, &op->results[0], base->v[0]);
}

bool lower_local_memory(lower_state *s, ir_op *op) {
  switch (op->kind) {
  case OP_LOCAL_ALLOC: return lower_local_alloc(s, op);
  case OP_LOCAL_LOAD: return lower_local_load(s, op);
  case OP_LOCAL_STORE: return lower_local_store(s, op);
  case OP_LOCAL_DEALLOC: return true; /* the allocation analysis already ended its lifetime */
  case OP_MEMDESC_INDEX: return lower_memdesc_index(s, op);
  case OP_MEMDESC_TRANS: return lower_memdesc_trans(s, op);
  case OP_MEMDESC_REINTERPRET: return lower_memdesc_reinterpret(s, op);
  default:
    ir_op_error(s->ctx, op, "internal error: '%s' is not a shared-memory op", ir_op_name(op));
    return false;
  }
}

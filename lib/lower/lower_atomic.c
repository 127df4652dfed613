/* tt.atomic_rmw and tt.atomic_cas: one atomic per element, by the thread that owns it, through the target's atomic instruction; copies of the result that other threads hold come from the owner through shared memory. */
#include <string.h>

#include "gemmc/allocation.h"
#include "lower_index.h"
#include "lower_memory.h"
#include "lower_ops.h"
#include "util.h"

/* The keyword attribute `name` of op as its index in words[], or -1. */
static int keyword_index(const ir_op *op, const char *name, const char *const *words) {
  const ir_attr *a = ir_op_get_attr(op, name);
  return a && a->kind == AT_KEYWORD ? ir_word_index(a->str, words) : -1;
}

/* Where the owner's result is copied for the other holders: the element's row-major slot. */
static LLVMValueRef result_slot(lower_state *s, LLVMValueRef base, LLVMTypeRef et, const lower_layout_info *li,
                                const ir_type *t, int r) {
  if (!li) return lower_smem_ptr_from(s, base, 0, et, lower_i32(s, 0));
  LLVMValueRef coord[IR_MAX_RANK];
  for (int d = 0; d < t->rank; d++) coord[d] = lower_coord(s, li, r, d);
  return lower_smem_ptr_from(s, base, 0, et, lower_row_major_offset(s, t, coord));
}

bool lower_atomic(lower_state *s, ir_op *op) {
  bool cas = op->kind == OP_ATOMIC_CAS;
  int kind = cas ? (int)TARGET_ATOMIC_CAS : keyword_index(op, "atomic_rmw_op", ir_atomic_rmw_ops);
  int sem = keyword_index(op, "sem", ir_atomic_sems), scope = keyword_index(op, "scope", ir_atomic_scopes);
  if (kind < 0 || sem < 0 || scope < 0) {
    ir_op_error(s->ctx, op, "'%s' needs its operation, memory semantics and scope", ir_op_name(op));
    return false;
  }
  const ir_value *ptr = op->operands[0].value, *val = op->operands[cas ? 2 : 1].value;
  const ir_value *cmp = cas ? op->operands[1].value : NULL;
  const ir_value *mask = !cas && op->num_operands > 2 ? op->operands[2].value : NULL;
  const ir_type *rt = op->results[0].type;
  const lower_values *p = lower_get(s, op, ptr), *v = lower_get(s, op, val);
  const lower_values *c = cmp ? lower_get(s, op, cmp) : NULL, *m = mask ? lower_get(s, op, mask) : NULL;
  if (!p || !v || (cmp && !c) || (mask && !m)) return false;
  int n = 1;
  int64_t dup = 0;
  lower_layout_info *li = NULL;
  LLVMValueRef owner;
  if (ir_type_is_tensor(rt)) {
    li = lower_layout_of(s, op, rt);
    if (!li) return false;
    n = li->num_regs;
    dup = li->reg_dup_mask;
    owner = li->owner; /* NULL: every thread owns what it holds */
  } else {
    owner = lower_thread0(s); /* a scalar: once per block, as Triton does it */
  }
  lower_values *out = lower_values_new(s, op, n);
  if (!out) return false;
  target_atomic a;
  memset(&a, 0, sizeof a);
  a.op = (target_atomic_op)kind;
  a.sem = (target_atomic_sem)sem;
  a.scope = (target_atomic_scope)scope;
  /* fadd of consecutive elements: one vector atomic where the target has one (sm_90: 2-4 f32, 2-8
   * f16 / bf16; the width coalescing gave the access, as for a store), else one per element. */
  const ir_type *elem = ir_type_element(rt);
  int vec = kind == TARGET_ATOMIC_FADD && li
                ? (int)axis_info_access_width(s->axis, ptr, mask, lower_elem_bytes(elem) * 8)
                : 1;
  if (vec > n) vec = n;
  LLVMTypeRef et = lower_elem_type(s, elem);
  for (int r0 = 0; r0 < n; r0 += vec) {
    if (r0 & dup) { /* copies of earlier registers of this thread */
      for (int j = 0; j < vec; j++) out->v[r0 + j] = out->v[(r0 + j) & ~dup];
      continue;
    }
    a.ptr = lower_elem(p, r0);
    a.cmp = c ? lower_elem(c, r0) : NULL;
    LLVMValueRef pred = m ? lower_elem(m, r0) : NULL;
    a.pred = pred && owner ? LLVMBuildAnd(s->b, pred, owner, "") : pred ? pred : owner;
    a.vec = vec;
    if (vec > 1) {
      LLVMValueRef x = LLVMGetUndef(LLVMVectorType(et, (unsigned)vec));
      for (int j = 0; j < vec; j++) x = LLVMBuildInsertElement(s->b, x, lower_elem(v, r0 + j), lower_i32(s, j), "");
      a.val = x;
      LLVMValueRef r = s->cg->atomic ? s->cg->atomic(&s->em, &a) : NULL;
      if (r) {
        for (int j = 0; j < vec; j++) out->v[r0 + j] = LLVMBuildExtractElement(s->b, r, lower_i32(s, j), "");
        continue;
      }
      vec = 1; /* no vector atomic here: element by element from this register on */
      a.vec = 1;
    }
    a.val = lower_elem(v, r0);
    out->v[r0] = s->cg->atomic ? s->cg->atomic(&s->em, &a) : NULL;
    if (!out->v[r0]) {
      ir_op_error(s->ctx, op, "target '%s' has no atomic %s of %s", s->cg->name, cas ? "cas" : ir_atomic_rmw_ops[kind],
                  ir_type_str(s->ctx, elem));
      return false;
    }
  }
  if (owner && gemmc_atomic_result_is_shared(op)) {
    /* The other holders read the owner's result: owners write it, a barrier, everyone reads. */
    LLVMValueRef base = lower_shared_base(s, op);
    if (!base) {
      ir_op_error(s->ctx, op, "internal error: '%s' has no shared scratch for its result", ir_op_name(op));
      return false;
    }
    lower_barrier(s);
    LLVMBasicBlockRef done = lower_begin_if(s, owner, "atomic.result");
    for (int r = 0; r < n; r++)
      if (!(r & dup)) LLVMBuildStore(s->b, out->v[r], result_slot(s, base, et, li, rt, r));
    lower_end_if(s, done);
    lower_barrier(s);
    for (int r = 0; r < n; r++) out->v[r] = LLVMBuildLoad2(s->b, et, result_slot(s, base, et, li, rt, r), "");
    s->smem_read_pending = true;
  }
  return lower_set(s, &op->results[0], out);
}

/* cp.async lowering: ttg.async_copy_global_to_local (zero-filled under its mask), ttg.async_commit_group, ttg.async_wait (+ barrier). */
#include <stdio.h>

#include "lower_tensorcore.h"

static bool is_zero_constant(const ir_value *v) {
  const ir_op *def = v->def_op;
  const ir_attr *a = def && def->kind == OP_CONSTANT ? ir_op_get_attr(def, "value") : NULL;
  if (!a || a->kind != AT_DENSE || !a->dense_splat || a->num_elems != 1) return false;
  const ir_attr *e = a->elems[0];
  return (e->kind == AT_INT && e->int_value == 0) || (e->kind == AT_FLOAT && e->float_value == 0.0);
}

static bool lower_async_copy(lower_state *s, ir_op *op) {
  const ir_value *ptr = op->operands[0].value, *dst = op->operands[1].value;
  const ir_value *mask = op->num_operands > 2 ? op->operands[2].value : NULL;
  const ir_type *mt = dst->type;
  if (!(s->target->caps & GEMMC_CAP_CP_ASYNC)) {
    ir_op_error(s->ctx, op, "'%s' needs cp.async (sm_80 or newer)", ir_op_name(op));
    return false;
  }
  if (op->num_operands > 3 && !is_zero_constant(op->operands[3].value)) {
    ir_op_error(s->ctx, op, "lowering of '%s' with a nonzero 'other' is not implemented yet (cp.async fills zeros)",
                ir_op_name(op));
    return false;
  }
  if (mt->kind != TY_MEMDESC || !mt->encoding || !layout_is_shared(mt->encoding)) {
    ir_op_error(s->ctx, op, "cannot lower '%s': the destination needs a shared layout", ir_type_str(s->ctx, mt));
    return false;
  }
  const lower_values *p = lower_get(s, op, ptr), *mem = lower_get(s, op, dst);
  const lower_values *m = mask ? lower_get(s, op, mask) : NULL;
  lower_layout_info *li = lower_layout_of(s, op, ptr->type);
  LLVMTypeRef et = lower_elem_type(s, mt);
  if (!p || !mem || (mask && !m) || !li || !et) return false;
  lower_smem_map map;
  if (!lower_smem_map_build(s, op, li, mt->encoding, mt->rank, mt->shape, &map)) return false;
  int bytes = lower_elem_bytes(mt);
  int vec = lower_smem_vector_width(&map, bytes);
  int gvec = lower_global_vector_width(s, ptr, mask, 8 * bytes);
  if (gvec < vec) vec = gvec;
  int chunk = vec * bytes;
  for (int r0 = 0; r0 < li->num_regs; r0 += vec) {
    if (r0 & li->reg_dup_mask) continue; /* a broadcast copy of a register copied already */
    LLVMValueRef off = lower_smem_offset(s, map.lw, map.lw_mask, lower_smem_reg_offset(&map, r0));
    LLVMValueRef to = LLVMBuildGEP2(s->b, et, mem->v[0], &off, 1, "");
    LLVMValueRef from = lower_elem(p, r0);
    LLVMValueRef pred = m ? lower_elem(m, r0) : NULL;
    if (chunk >= 4) {
      /* src-size 0 under a false mask: nothing is read and the bytes become zeros. */
      LLVMValueRef size = lower_i32(s, chunk);
      if (pred) size = LLVMBuildSelect(s->b, pred, size, lower_i32(s, 0), "");
      char name[64];
      snprintf(name, sizeof name, "llvm.nvvm.cp.async.%s.shared.global.%d.s", chunk == 16 ? "cg" : "ca", chunk);
      LLVMValueRef args[3] = {to, from, size};
      lower_call(s, name, s->voidt, args, 3);
      continue;
    }
    /* Under 4 bytes cp.async cannot copy: a predicated load (zero when masked) and a shared store. */
    char text[128];
    LLVMValueRef args[2] = {from, pred};
    snprintf(text, sizeof text, "mov.u32 $0, 0;\n\t%sld.global.u%d $0, [ $1 + 0 ];", pred ? "@$2 " : "", chunk * 8);
    LLVMValueRef word = lower_asm(s, text, pred ? "=r,l,b" : "=r,l", s->i32, args, pred ? 2 : 1, true);
    LLVMTypeRef it = LLVMIntTypeInContext(s->llctx, (unsigned)(chunk * 8));
    LLVMValueRef st = LLVMBuildStore(s->b, LLVMBuildTrunc(s->b, word, it, ""), to);
    LLVMSetAlignment(st, (unsigned)chunk);
  }
  return lower_set1(s, &op->results[0], LLVMGetUndef(s->i32)); /* tokens carry no data */
}

bool lower_async(lower_state *s, ir_op *op) {
  switch (op->kind) {
  case OP_ASYNC_COPY: return lower_async_copy(s, op);
  case OP_ASYNC_COMMIT_GROUP:
    lower_call(s, "llvm.nvvm.cp.async.commit.group", s->voidt, NULL, 0);
    return lower_set1(s, &op->results[0], LLVMGetUndef(s->i32));
  case OP_ASYNC_WAIT: {
    /* This thread's groups but the newest `num` are done; the barrier makes every thread's visible. */
    LLVMValueRef n = lower_i32(s, ir_op_get_int_attr(op, "num", 0));
    lower_call(s, "llvm.nvvm.cp.async.wait.group", s->voidt, &n, 1);
    lower_barrier(s);
    return lower_set1(s, &op->results[0], LLVMGetUndef(s->i32));
  }
  default:
    ir_op_error(s->ctx, op, "internal error: '%s' is not an async-copy op", ir_op_name(op));
    return false;
  }
}

/* Hints in Triton's IR: AMD scheduling hints (rocdl.*) via the target's hooks, tl.assume as LLVM's assume. */
#include "lower_ops.h"

bool lower_sched_hint(lower_state *s, ir_op *op) {
  bool priority = op->kind == OP_ROCDL_SETPRIO;
  int64_t value = ir_op_get_int_attr(op, priority ? "priority" : "mask", -1);
  if (value < 0) {
    ir_op_error(s->ctx, op, "'%s' needs its %s", ir_op_name(op), priority ? "priority" : "mask");
    return false;
  }
  if (priority ? !s->cg->set_priority : !s->cg->sched_barrier) {
    ir_op_error(s->ctx, op, "'%s' is an AMD scheduling hint; target %s has none", ir_op_name(op), s->target->name);
    return false;
  }
  if (priority) s->cg->set_priority(&s->em, (int)value);
  else s->cg->sched_barrier(&s->em, (int)value);
  return true;
}

/* The condition is known true where the op runs: LLVM may use it (as Triton's lowering lets it). */
bool lower_assume(lower_state *s, ir_op *op) {
  const lower_values *cond = lower_get(s, op, op->operands[0].value);
  if (!cond) return false;
  LLVMValueRef arg = cond->v[0];
  lower_call(s, "llvm.assume", s->voidt, &arg, 1);
  return true;
}

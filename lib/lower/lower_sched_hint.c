/* Scheduling hints in TTGIR (Triton's AMD rocdl.s.setprio and rocdl.sched.barrier) through the target's hooks. */
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

/* Buffer lifetimes the allocation needs beyond "during the op": scratch of conversions to MMA operands that their tt.dot reads. */
#include "gemmc/allocation.h"

#include "gemmc/layout.h"

/* A convert_layout to a #ttg.dot_op with an nvidia_mma parent stores its operand in a swizzled
 * scratch buffer; when its only user is a tt.dot of the same block (as operand A or B), the dot
 * reads the buffer with ldmatrix right before each instruction that needs a fragment, so the
 * buffer must live until the dot (the lowering, lower_operand_is_deferred, asks this function). */
const ir_op *gemmc_allocation_scratch_until(const ir_op *op) {
  if (op->kind != OP_CONVERT_LAYOUT || op->num_results != 1) return op;
  const ir_type *dt = op->results[0].type;
  const ir_attr *e = ir_type_is_tensor(dt) ? dt->encoding : NULL;
  if (!e || e->kind != AT_DOT_OP || !e->layout.parent || e->layout.parent->kind != AT_NVIDIA_MMA) return op;
  const ir_type *st = op->operands[0].value->type;
  if (!ir_type_is_tensor(st) || !st->encoding || !layout_is_distributed(st->encoding)) return op;
  if (gemmc_allocation_scratch_bytes(op) <= 0) return op;
  const ir_operand *use = op->results[0].first_use;
  if (!use || use->next_use || use->owner->kind != OP_DOT || use->index > 1 || use->owner->parent != op->parent)
    return op;
  return use->owner;
}

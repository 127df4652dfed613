/* Structured control flow: scf.for (iter_args as phis per element), scf.while (before and after regions, phis at both) and scf.if with results, through scf.yield. */
#include "lower_dispatch.h"
#include "lower_index.h"
#include "lower_ops.h"

/* Elements per thread of a value of type t (1 for scalars). */
static int count_of(lower_state *s, const ir_op *op, const ir_type *t) {
  if (!ir_type_is_tensor(t)) return 1;
  lower_layout_info *li = lower_layout_of(s, op, t);
  return li ? li->num_regs : -1;
}

/* Phis at the builder's block for the values of a block's arguments `args`, each element with
 * its incoming value from `init` on the edge from `from`; the arguments take them. */
static lower_values **phis_for(lower_state *s, ir_op *op, ir_value **args, int n, const lower_values *const *init,
                               LLVMBasicBlockRef from) {
  lower_values **phis = lower_alloc(s, sizeof(lower_values *) * (size_t)(n + 1));
  if (!phis) return NULL;
  for (int k = 0; k < n; k++) {
    int count = count_of(s, op, args[k]->type);
    if (count < 0 || !(phis[k] = lower_values_new(s, op, count))) return NULL;
    for (int i = 0; i < count; i++) {
      LLVMValueRef x = lower_elem(init[k], i);
      phis[k]->v[i] = LLVMBuildPhi(s->b, LLVMTypeOf(x), "");
      LLVMAddIncoming(phis[k]->v[i], &x, &from, 1);
    }
    if (!lower_set(s, args[k], phis[k])) return NULL;
  }
  return phis;
}

/* The operands of `op` from `first` as lowered values (NULL on failure). */
static const lower_values **operand_values(lower_state *s, ir_op *op, int first) {
  int n = op->num_operands - first;
  const lower_values **vals = lower_alloc(s, sizeof(lower_values *) * (size_t)(n + 1));
  if (!vals) return NULL;
  for (int k = 0; k < n; k++)
    if (!(vals[k] = lower_get(s, op, op->operands[first + k].value))) return NULL;
  return vals;
}

/* A loop's back edge: each phi's incoming value from `latch`. */
static void add_back_edge(lower_values **phis, int n, const lower_values *const *next, LLVMBasicBlockRef latch) {
  for (int k = 0; k < n; k++)
    for (int i = 0; i < phis[k]->n; i++) {
      LLVMValueRef x = lower_elem(next[k], i);
      LLVMAddIncoming(phis[k]->v[i], &x, &latch, 1);
    }
}

static bool lower_for(lower_state *s, ir_op *op) {
  ir_block *body = ir_region_entry(&op->regions[0]);
  int num_iter = op->num_operands - 3;
  if (!body || body->num_args != num_iter + 1 || op->num_results != num_iter) {
    ir_op_error(s->ctx, op, "malformed scf.for");
    return false;
  }
  const lower_values *lb = lower_get(s, op, op->operands[0].value), *ub = lower_get(s, op, op->operands[1].value),
                     *step = lower_get(s, op, op->operands[2].value);
  if (!lb || !ub || !step) return false;
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(s->b);
  LLVMBasicBlockRef header = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "for.header");
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "for.body");
  /* Attached after the body so that the blocks read in program order. */
  LLVMBasicBlockRef exit = LLVMCreateBasicBlockInContext(s->llctx, "for.exit");
  LLVMBuildBr(s->b, header);
  LLVMPositionBuilderAtEnd(s->b, header);
  LLVMValueRef iv = LLVMBuildPhi(s->b, LLVMTypeOf(lb->v[0]), "iv");
  const lower_values **inits = operand_values(s, op, 3);
  lower_values **phis = inits ? phis_for(s, op, body->args + 1, num_iter, inits, pre) : NULL;
  if (!phis) goto fail;
  /* The header dominates the exit: the results are the phis. */
  for (int k = 0; k < num_iter; k++)
    if (!lower_set(s, &op->results[k], phis[k])) goto fail;
  LLVMValueRef lbv = lb->v[0];
  LLVMAddIncoming(iv, &lbv, &pre, 1);
  LLVMBuildCondBr(s->b, LLVMBuildICmp(s->b, LLVMIntSLT, iv, ub->v[0], ""), loop, exit);
  LLVMPositionBuilderAtEnd(s->b, loop);
  if (!lower_set1(s, body->args[0], iv)) goto fail;
  ir_op *yield = lower_block_until(s, op, body, OP_SCF_YIELD, num_iter, "scf.for body");
  if (!yield) goto fail;
  LLVMValueRef next = LLVMBuildAdd(s->b, iv, step->v[0], "iv.next");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(s->b);
  const lower_values **yielded = operand_values(s, yield, 0);
  if (!yielded) goto fail;
  add_back_edge(phis, num_iter, yielded, latch);
  LLVMAddIncoming(iv, &next, &latch, 1);
  LLVMBuildBr(s->b, header);
  LLVMAppendExistingBasicBlock(s->fn, exit);
  LLVMPositionBuilderAtEnd(s->b, exit);
  return true;
fail: /* the detached block must belong to the function to be freed with it */
  LLVMAppendExistingBasicBlock(s->fn, exit);
  return false;
}

/* scf.while: before (phis of the loop-carried values, then the condition) branches to after (phis
 * of the forwarded values) or to the exit, where the results are the forwarded values; after's
 * yield goes back to before. */
static bool lower_while(lower_state *s, ir_op *op) {
  ir_block *before = ir_region_entry(&op->regions[0]), *after = ir_region_entry(&op->regions[1]);
  int n = op->num_operands, m = op->num_results;
  if (!before || !after || before->num_args != n || after->num_args != m) {
    ir_op_error(s->ctx, op, "malformed scf.while");
    return false;
  }
  const lower_values **inits = operand_values(s, op, 0);
  if (!inits) return false;
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(s->b);
  LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "while.before");
  LLVMBasicBlockRef body = LLVMCreateBasicBlockInContext(s->llctx, "while.after");
  LLVMBasicBlockRef exit = LLVMCreateBasicBlockInContext(s->llctx, "while.exit");
  bool body_attached = false;
  LLVMBuildBr(s->b, head);
  LLVMPositionBuilderAtEnd(s->b, head);
  lower_values **carried = phis_for(s, op, before->args, n, inits, pre);
  ir_op *cond_op =
      carried ? lower_block_until(s, op, before, OP_SCF_CONDITION, m + 1, "scf.while before region") : NULL;
  const lower_values *cond = cond_op ? lower_get(s, cond_op, cond_op->operands[0].value) : NULL;
  const lower_values **forwarded = cond ? operand_values(s, cond_op, 1) : NULL;
  if (!forwarded) goto fail;
  LLVMBasicBlockRef test = LLVMGetInsertBlock(s->b);
  LLVMBuildCondBr(s->b, cond->v[0], body, exit);
  LLVMAppendExistingBasicBlock(s->fn, body);
  body_attached = true;
  LLVMPositionBuilderAtEnd(s->b, body);
  if (!phis_for(s, op, after->args, m, forwarded, test)) goto fail;
  ir_op *yield = lower_block_until(s, op, after, OP_SCF_YIELD, n, "scf.while after region");
  const lower_values **next = yield ? operand_values(s, yield, 0) : NULL;
  if (!next) goto fail;
  add_back_edge(carried, n, next, LLVMGetInsertBlock(s->b));
  LLVMBuildBr(s->b, head);
  LLVMAppendExistingBasicBlock(s->fn, exit);
  LLVMPositionBuilderAtEnd(s->b, exit);
  /* The results: the forwarded values, which dominate the exit (it is only reached from the test). */
  for (int k = 0; k < m; k++)
    if (!lower_set(s, &op->results[k], (lower_values *)forwarded[k])) return false;
  return true;
fail: /* detached blocks must belong to the function to be freed with it */
  if (!body_attached) LLVMAppendExistingBasicBlock(s->fn, body);
  LLVMAppendExistingBasicBlock(s->fn, exit);
  return false;
}

/* Lowers one branch of an scf.if; the yielded values and the block the branch ends in. */
static bool lower_branch(lower_state *s, ir_op *op, ir_region *region, LLVMBasicBlockRef merge,
                         const lower_values ***yielded, LLVMBasicBlockRef *end) {
  ir_block *block = ir_region_entry(region);
  *yielded = NULL;
  if (block && op->num_results == 0) {
    bool ok;
    lower_block(s, block, &ok);
    if (!ok) return false;
  } else if (block) {
    ir_op *yield = lower_block_until(s, op, block, OP_SCF_YIELD, op->num_results, "scf.if branches");
    if (!yield || !(*yielded = operand_values(s, yield, 0))) return false;
  }
  *end = LLVMGetInsertBlock(s->b);
  LLVMBuildBr(s->b, merge);
  return true;
}

static bool lower_if(lower_state *s, ir_op *op) {
  const lower_values *cond = lower_get(s, op, op->operands[0].value);
  if (!cond) return false;
  bool has_else = ir_region_entry(&op->regions[1]) != NULL;
  if (op->num_results > 0 && !has_else) {
    ir_op_error(s->ctx, op, "scf.if with results needs an else branch");
    return false;
  }
  LLVMBasicBlockRef then_bb = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "if.then");
  LLVMBasicBlockRef else_bb = has_else ? LLVMCreateBasicBlockInContext(s->llctx, "if.else") : NULL;
  LLVMBasicBlockRef merge = LLVMCreateBasicBlockInContext(s->llctx, "if.end");
  bool else_attached = false, merge_attached = false;
  LLVMBuildCondBr(s->b, cond->v[0], then_bb, has_else ? else_bb : merge);
  const lower_values **then_vals, **else_vals = NULL;
  LLVMBasicBlockRef then_end, else_end = NULL;
  LLVMPositionBuilderAtEnd(s->b, then_bb);
  if (!lower_branch(s, op, &op->regions[0], merge, &then_vals, &then_end)) goto fail;
  if (has_else) {
    LLVMAppendExistingBasicBlock(s->fn, else_bb);
    else_attached = true;
    LLVMPositionBuilderAtEnd(s->b, else_bb);
    if (!lower_branch(s, op, &op->regions[1], merge, &else_vals, &else_end)) goto fail;
  }
  LLVMAppendExistingBasicBlock(s->fn, merge);
  merge_attached = true;
  LLVMPositionBuilderAtEnd(s->b, merge);
  for (int k = 0; k < op->num_results; k++) {
    int n = count_of(s, op, op->results[k].type);
    lower_values *out = n >= 0 ? lower_values_new(s, op, n) : NULL;
    if (!out) goto fail;
    for (int i = 0; i < n; i++) {
      LLVMValueRef a = lower_elem(then_vals[k], i), b = lower_elem(else_vals[k], i);
      out->v[i] = LLVMBuildPhi(s->b, LLVMTypeOf(a), "");
      LLVMAddIncoming(out->v[i], &a, &then_end, 1);
      LLVMAddIncoming(out->v[i], &b, &else_end, 1);
    }
    if (!lower_set(s, &op->results[k], out)) goto fail;
  }
  return true;
fail: /* detached blocks must belong to the function to be freed with it */
  if (else_bb && !else_attached) LLVMAppendExistingBasicBlock(s->fn, else_bb);
  if (!merge_attached) LLVMAppendExistingBasicBlock(s->fn, merge);
  return false;
}

bool lower_control(lower_state *s, ir_op *op) {
  if (op->kind == OP_SCF_FOR) return lower_for(s, op);
  if (op->kind == OP_SCF_WHILE) return lower_while(s, op);
  return lower_if(s, op);
}

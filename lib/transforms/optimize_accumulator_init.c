/* --optimize-accumulator-init: a warpgroup MMA accumulator carried by a loop and reset with arith.select(c, 0, acc) becomes the dot's useC flag (Triton's OptimizeAccumulatorInit), so nothing reads the registers of an MMA in flight. */
#include "gemmc/passes.h"

#include <string.h>

#include "util.h"

/*
 *   scf.for ... iter_args(%acc = %zero) {                 scf.for ... iter_args(%acc = %zero, %use = false) {
 *     %d = ttng.warp_group_dot %a, %b, %acc                 %d = ttng.warp_group_dot %a, %b, %acc, %use
 *     %w = ttng.warp_group_dot_wait %d {pendings = 1}       %w = ttng.warp_group_dot_wait %d {pendings = 1}
 *     %n = arith.select %c, %zero, %w              ->       %nc = arith.xori %c, true
 *     scf.yield %n                                          scf.yield %w, %nc }
 *   }                                                     %r = arith.select %use_out, %acc_out, %zero (where the
 *                                                         result is read: after its wait)
 *
 * The select read the registers of the dot still in flight (pendings = 1), and ptxas then
 * serializes every wgmma of the kernel (C7514). The loop's result keeps its value: where it is
 * read, a select on the final flag gives zero when the last iteration reset it.
 */

/* The reset of iter arg k: yield operand k is select(c, zero, y) (*invert: select(c, y, zero)),
 * used only there, and the block argument only feeds one 3-operand warp_group_dot of the body. */
static ir_op *reset_select(ir_op *loop, int k, ir_op **dot, ir_value **zero, bool *invert) {
  ir_block *body = ir_region_entry(&loop->regions[0]);
  ir_op *yield = body ? ir_block_terminator(body) : NULL;
  if (!yield || k >= yield->num_operands || body->num_args != loop->num_operands - 2) return NULL;
  ir_value *arg = body->args[k + 1];
  if (!ir_value_has_one_use(arg)) return NULL;
  ir_op *user = arg->first_use->owner;
  if (user->kind != OP_WARP_GROUP_DOT || user->num_operands != 3 || arg->first_use->index != 2 || user->parent != body)
    return NULL;
  ir_op *sel = yield->operands[k].value->def_op;
  if (!sel || sel->kind != OP_SELECT || sel->parent != body || !ir_value_has_one_use(&sel->results[0])) return NULL;
  if (sel->operands[0].value->type->kind == TY_TENSOR) return NULL; /* a per-element condition */
  int z = value_is_zero_splat(sel->operands[1].value) ? 1 : value_is_zero_splat(sel->operands[2].value) ? 2 : 0;
  if (!z) return NULL;
  /* The zero is used after the loop too: it must be defined outside the body. */
  const ir_op *zdef = sel->operands[z].value->def_op;
  for (const ir_op *o = zdef; o; o = ir_op_parent_op(o))
    if (o == loop) return NULL;
  *dot = user;
  *zero = sel->operands[z].value;
  *invert = z == 2;
  return sel;
}

/* Where the loop's result r (the unselected accumulator now) is read, it is selected with the
 * final flag: after each warp_group_dot_wait that names it (on the wait's result), else once after
 * the loop. */
static void reselect_result(gemmc_context *ctx, ir_op *loop, int k, ir_value *flag, ir_value *zero) {
  ir_value *r = &loop->results[k];
  ir_value *after_loop = NULL;
  for (ir_operand *u = r->first_use, *next; u; u = next) {
    next = u->next_use;
    ir_op *user = u->owner;
    if (user->kind == OP_WARP_GROUP_DOT_WAIT && u->index < user->num_results) {
      ir_value *w = &user->results[u->index];
      if (!w->first_use || !user->next) continue;
      ir_value *ops[3] = {flag, w, zero};
      ir_value *sel = build_before(ctx, user->next, OP_SELECT, 3, ops, w->type);
      for (ir_operand *wu = w->first_use, *wn; wu; wu = wn) {
        wn = wu->next_use;
        if (wu->owner != sel->def_op) ir_op_set_operand(wu->owner, wu->index, sel);
      }
      continue;
    }
    if (!after_loop) {
      ir_value *ops[3] = {flag, r, zero};
      after_loop = build_before(ctx, loop->next, OP_SELECT, 3, ops, r->type);
    }
    if (user != after_loop->def_op) ir_op_set_operand(user, u->index, after_loop);
  }
}

static bool collect_loops(ir_op *op, void *user) {
  if (op->kind == OP_SCF_FOR) ptr_list_push(user, op);
  return true;
}

bool gemmc_pass_optimize_accumulator_init(const gemmc_pass_context *pc, ir_op *module) {
  gemmc_context *ctx = pc->ctx;
  ptr_list loops = {ctx, NULL, 0, 0};
  ir_walk(module, collect_loops, &loops);
  for (int l = 0; l < loops.count; l++) {
    ir_op *loop = loops.items[l];
    for (int k = 0; k < loop->num_operands - 3; k++) {
      ir_op *dot;
      ir_value *zero;
      bool invert;
      ir_op *sel = reset_select(loop, k, &dot, &zero, &invert);
      if (!sel) continue;
      ir_block *body = ir_region_entry(&loop->regions[0]);
      /* The flag says "use C": false where the accumulator would start at zero. */
      ir_value *init = build_int_constant(ctx, loop, value_is_zero_splat(loop->operands[3 + k].value) ? 0 : 1, 1);
      ir_value *c = sel->operands[0].value, *next = c;
      ir_op *yield = ir_block_terminator(body);
      if (!invert) {
        ir_value *t = build_int_constant(ctx, yield, 1, 1);
        next = build_binary(ctx, yield, OP_XORI, c, t);
      }
      ir_value *y = sel->operands[invert ? 1 : 2].value;
      ir_op_set_operand(yield, k, y);
      ir_op_erase(sel);
      loop = scf_for_add_iter_args(ctx, loop, 1, &init);
      body = ir_region_entry(&loop->regions[0]);
      ir_op_add_operand(ctx, ir_block_terminator(body), next);
      ir_op_add_operand(ctx, dot, body->args[body->num_args - 1]);
      reselect_result(ctx, loop, k, &loop->results[loop->num_results - 1], zero);
    }
  }
  ptr_list_free(&loops);
  return true;
}

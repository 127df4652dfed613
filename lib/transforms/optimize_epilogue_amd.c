/* --amd-optimize-epilogue (alias --tritonamdgpu-optimize-epilogue): a tt.store of an MFMA result stores from the #ttg.amd_mfma layout itself, without the trip through LDS (Triton's AMD OptimizeEpilogue, BypassEpilogueSMEM). */
#include "gemmc/passes.h"

/*
 *   %v = ttg.convert_layout %acc : #mma -> #blocked
 *   %w = <one-operand elementwise ops of %v> : #blocked        (each with one use)
 *   tt.store %ptr, %w, %mask : #blocked
 * becomes
 *   %ptr2 = ttg.convert_layout %ptr : #blocked -> #mma
 *   %mask2 = ttg.convert_layout %mask : #blocked -> #mma
 *   %w = <the same ops of %acc> : #mma
 *   tt.store %ptr2, %w, %mask2 : #mma
 *
 * With isTransposed (Triton's choice for the matmul) a lane holds four consecutive columns of
 * each 16x16 (32x32) tile: the stores are 8-byte vectors for f16, and the conversion of the
 * accumulator through shared memory (its registers and its barriers) is gone. The conversions
 * of the pointers and masks are left to remove-layout-conversions, which rebuilds them in the
 * MFMA layout from their make_range / splat / broadcast sources.
 */

static bool is_one_operand_elementwise(const ir_op *op) {
  return op->num_operands == 1 && op->num_results == 1 && (ir_op_info_of(op->kind)->traits & TRAIT_ELEMENTWISE) != 0 &&
         ir_op_is_pure(op);
}

static bool is_blocked_tensor(const ir_value *v) {
  return v && ir_type_is_tensor(v->type) && v->type->encoding && v->type->encoding->kind == AT_BLOCKED;
}

static ir_value *convert_before(gemmc_context *ctx, ir_op *anchor, ir_value *v, const ir_attr *layout) {
  const ir_type *t = ir_type_with_encoding(ctx, v->type, layout);
  ir_op *cvt = ir_op_create(ctx, OP_CONVERT_LAYOUT, 1, &v, 1, &t, 0, v->def_op ? v->def_op->loc : anchor->loc);
  cvt->src_loc = anchor->src_loc;
  ir_op_insert_before(anchor, cvt);
  return &cvt->results[0];
}

enum { MAX_CHAIN = 16 };

static void bypass_one(gemmc_context *ctx, ir_op *store) {
  ir_value *ptr = store->operands[0].value, *val = store->operands[1].value;
  ir_value *mask = store->num_operands > 2 ? store->operands[2].value : NULL;
  if (!is_blocked_tensor(ptr) || !is_blocked_tensor(val)) return;
  ir_op *chain[MAX_CHAIN];
  int n = 0;
  ir_value *v = val;
  while (v->def_op && v->def_op->kind != OP_CONVERT_LAYOUT) {
    ir_op *op = v->def_op;
    if (n == MAX_CHAIN || !is_one_operand_elementwise(op) || !ir_value_has_one_use(&op->results[0])) return;
    chain[n++] = op;
    v = op->operands[0].value;
  }
  ir_op *cvt = v->def_op;
  if (!cvt || !ir_value_has_one_use(&cvt->results[0])) return;
  ir_value *acc = cvt->operands[0].value;
  const ir_attr *mfma = ir_type_is_tensor(acc->type) ? acc->type->encoding : NULL;
  if (!mfma || mfma->kind != AT_AMD_MFMA) return;
  ir_op_set_operand(store, 0, convert_before(ctx, store, ptr, mfma));
  if (mask) ir_op_set_operand(store, 2, convert_before(ctx, store, mask, mfma));
  /* The chain, from the conversion outwards, now reads the MFMA layout. */
  ir_value *cur = acc;
  for (int i = n - 1; i >= 0; i--) {
    ir_op_set_operand(chain[i], 0, cur);
    chain[i]->results[0].type = ir_type_with_encoding(ctx, chain[i]->results[0].type, mfma);
    cur = &chain[i]->results[0];
  }
  ir_op_set_operand(store, 1, cur);
  ir_op_erase(cvt);
}

static bool collect_stores(ir_op *op, void *user) {
  ir_op ***list = user;
  if (op->kind == OP_STORE) *(*list)++ = op;
  return true;
}

static bool count_stores(ir_op *op, void *user) {
  if (op->kind == OP_STORE) ++*(int *)user;
  return true;
}

bool gemmc_pass_amd_optimize_epilogue(const gemmc_pass_context *pc, ir_op *module) {
  int n = 0;
  ir_walk(module, count_stores, &n);
  if (n == 0) return true;
  ir_op **stores = ir_alloc(pc->ctx, sizeof *stores * (size_t)n), **end = stores;
  ir_walk(module, collect_stores, &end);
  for (int i = 0; i < n; i++) bypass_one(pc->ctx, stores[i]);
  return true;
}

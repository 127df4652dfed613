/* --tma-lowering: the tt.descriptor_load / _store / _reduce that no pipeline took become single TMA copies through a shared buffer and an mbarrier (Triton's TMALowering). */
#include <stdint.h>

#include "gemmc/layout.h"
#include "gemmc/passes.h"
#include "util.h"

/*
 *   %x = tt.descriptor_load %d[%i, %j]             %buf = ttg.local_alloc       (the block, the descriptor's layout)
 *                                         ->       %bar = ttg.local_alloc       (one mbarrier)
 *                                                  init_barrier, barrier_expect (block bytes),
 *                                                  async_tma_copy_global_to_local %d[%i, %j] %buf, %bar
 *                                                  wait_barrier %bar, 0; inval_barrier
 *                                                  %x = ttg.local_load %buf     (or %buf itself feeds the local_alloc
 *                                                                                of the same layout that used %x)
 *
 *   tt.descriptor_store %d[%i, %j], %x     ->      %buf = ttg.local_alloc %x; fence_async_shared;
 *                                                  async_tma_copy_local_to_global %d[%i, %j] %buf;
 *                                                  async_tma_store_wait {pendings = 0}
 *
 *   tt.descriptor_reduce k, %d[..], %x     ->      the same with ttng.async_tma_reduce k, %d[..] %buf
 */

static const ir_type *block_buffer_type(gemmc_context *ctx, const ir_type *desc) {
  const ir_attr *smem = ir_layout_attr(ctx, AT_SHARED_MEMORY, NULL);
  return ir_memdesc_type(ctx, desc->rank, desc->shape, desc->elem, desc->encoding, smem, true, 0, NULL);
}

static ir_value *true_value(gemmc_context *ctx, ir_op *anchor) { return build_int_constant(ctx, anchor, 1, 1); }

static void lower_desc_load(gemmc_context *ctx, ir_op *load) {
  const ir_type *desc = load->operands[0].value->type;
  const ir_type *buf_type = block_buffer_type(ctx, desc);
  ir_value *buf = build_before(ctx, load, OP_LOCAL_ALLOC, 0, NULL, buf_type);
  int order0 = 0;
  int64_t one = 1;
  const ir_attr *plain = layout_swizzled_shared_get(ctx, 1, 1, 1, 1, &order0);
  const ir_type *bar_type = ir_memdesc_type(ctx, 1, &one, ir_int_type(ctx, 64), plain, buf_type->memspace, true, 0, NULL);
  ir_value *bar = build_before(ctx, load, OP_LOCAL_ALLOC, 0, NULL, bar_type);
  ir_op *init = ir_op_create(ctx, OP_INIT_BARRIER, 1, &bar, 0, NULL, 0, load->loc);
  ir_op_set_attr(ctx, init, "count", ir_i32_attr(ctx, 1));
  ir_op_insert_before(load, init);
  ir_value *on = true_value(ctx, load);
  ir_value *expect_ops[2] = {bar, on};
  ir_op *expect = ir_op_create(ctx, OP_BARRIER_EXPECT, 2, expect_ops, 0, NULL, 0, load->loc);
  ir_op_set_attr(ctx, expect, "size", ir_i32_attr(ctx, ir_type_num_bytes(desc)));
  ir_op_insert_before(load, expect);
  ir_value *copy_ops[4 + IR_MAX_RANK];
  int n = 0;
  for (int i = 0; i < load->num_operands; i++) copy_ops[n++] = load->operands[i].value;
  copy_ops[n++] = bar;
  copy_ops[n++] = buf;
  copy_ops[n++] = on;
  ir_op *copy = ir_op_create(ctx, OP_TMA_LOAD, n, copy_ops, 0, NULL, 0, load->loc);
  ir_op_insert_before(load, copy);
  ir_value *wait_ops[2] = {bar, build_int_constant(ctx, load, 0, 32)};
  build_before(ctx, load, OP_WAIT_BARRIER, 2, wait_ops, NULL);
  build_before(ctx, load, OP_INVAL_BARRIER, 1, &bar, NULL);
  build_before(ctx, load, OP_LOCAL_DEALLOC, 1, &bar, NULL);
  /* A local_alloc of the same layout reads the buffer itself. */
  ir_value *x = &load->results[0];
  ir_op *alloc = ir_value_has_one_use(x) ? x->first_use->owner : NULL;
  if (alloc && alloc->kind == OP_LOCAL_ALLOC && alloc->results[0].type->encoding == desc->encoding &&
      !alloc->results[0].type->is_mutable) {
    ir_value_replace_all_uses(&alloc->results[0], buf);
    memdesc_views_follow(ctx, buf);
    ir_op_erase(alloc);
  } else {
    ir_value *v = build_before(ctx, load, OP_LOCAL_LOAD, 1, &buf, x->type);
    ir_value_replace_all_uses(x, v);
  }
  ir_op_erase(load);
}

static void lower_desc_store(gemmc_context *ctx, ir_op *store) {
  const ir_type *desc = store->operands[0].value->type;
  const ir_type *buf_type = block_buffer_type(ctx, desc);
  ir_value *src = store->operands[1].value;
  ir_value *buf = build_before(ctx, store, OP_LOCAL_ALLOC, 1, &src, buf_type);
  ir_op *fence = ir_op_create(ctx, OP_FENCE_ASYNC_SHARED, 0, NULL, 0, NULL, 0, store->loc);
  ir_op_set_attr(ctx, fence, "bCluster", ir_bool_attr(ctx, false));
  ir_op_insert_before(store, fence);
  ir_value *copy_ops[2 + IR_MAX_RANK];
  int n = 0;
  copy_ops[n++] = store->operands[0].value;
  for (int i = 2; i < store->num_operands; i++) copy_ops[n++] = store->operands[i].value;
  copy_ops[n++] = buf;
  bool reduce = store->kind == OP_DESC_REDUCE; /* the same copy, reducing into the tile: same kind */
  ir_op *copy = ir_op_create(ctx, reduce ? OP_TMA_REDUCE : OP_TMA_STORE, n, copy_ops, 0, NULL, 0, store->loc);
  if (reduce) ir_op_set_attr(ctx, copy, "kind", ir_op_get_attr(store, "kind"));
  ir_op_insert_before(store, copy);
  ir_op *wait = ir_op_create(ctx, OP_TMA_STORE_WAIT, 0, NULL, 0, NULL, 0, store->loc);
  ir_op_set_attr(ctx, wait, "pendings", ir_i32_attr(ctx, 0));
  ir_op_insert_before(store, wait);
  build_before(ctx, store, OP_LOCAL_DEALLOC, 1, &buf, NULL);
  ir_op_erase(store);
}

static bool collect(ir_op *op, void *user) {
  if (op->kind == OP_DESC_LOAD || op->kind == OP_DESC_STORE || op->kind == OP_DESC_REDUCE) ptr_list_push(user, op);
  return true;
}

bool gemmc_pass_tma_lowering(const gemmc_pass_context *pc, ir_op *module) {
  gemmc_context *ctx = pc->ctx;
  ptr_list ops = {ctx, NULL, 0, 0};
  ir_walk(module, collect, &ops);
  bool ok = true;
  for (int i = 0; i < ops.count && ok; i++) {
    ir_op *op = ops.items[i];
    const ir_type *desc = op->operands[0].value->type;
    if (!pc->target || !(pc->target->caps & GEMMC_CAP_TMA)) {
      ir_op_error(ctx, op, "'%s' needs TMA (NVIDIA sm_90 or newer)%s%s", ir_op_name(op),
                  pc->target ? "; the target is " : "", pc->target ? pc->target->name : "");
      ok = false;
    } else if (!desc->encoding) {
      ir_op_error(ctx, op, "lowering of '%s' needs the descriptor's shared layout (%s has none)", ir_op_name(op),
                  ir_type_str(ctx, desc));
      ok = false;
    } else if (op->kind == OP_DESC_LOAD) {
      lower_desc_load(ctx, op);
    } else {
      lower_desc_store(ctx, op);
    }
  }
  ptr_list_free(&ops);
  return ok;
}

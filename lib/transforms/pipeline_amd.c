/* --amd-stream-pipeline (alias --tritonamdgpu-stream-pipeline): software pipelining of K loops for AMD GPUs: the next tile's global loads run in registers while the MFMAs read this tile from LDS (Triton's AMD stream pipeliner, num_stages = 2). */
#include <string.h>

#include "gemmc/layout.h"
#include "gemmc/passes.h"
#include "util.h"

/*
 * gfx9 has no asynchronous global -> LDS copy that suits a GEMM tile, so the pipeline goes
 * through registers (Triton's AMD scheme for num_stages = 2, one LDS buffer per operand):
 *
 *   scf.for %k = %lb to %ub step %st iter_args(%p = %p0, %acc = %c0) {
 *     %x = tt.load f(%p, %k)                        address, mask: "stage 0"
 *     %y = ttg.convert_layout %x -> #ttg.dot_op<{parent = #ttg.amd_mfma}>
 *     %acc2 = tt.dot %y, .., %acc
 *     scf.yield g(%p), %acc2
 *   }
 *
 * becomes
 *
 *   %buf = ttg.local_alloc : !ttg.memdesc<1 x shape, #shared (AMD swizzle), mutable>
 *   %slot0 = ttg.memdesc_index %buf[0]
 *   %x0 = tt.load f(%p0, %lb) masked with %lb < %ub; ttg.local_store %x0, %slot0
 *   %f:4 = scf.if %lb < %ub - %st { <the body below at %k = lb> } else { <the inits> }
 *   %r:4 = scf.for %k = %lb + %st to %ub - %st step %st
 *             iter_args(%p = %f#0, %acc = %f#1, %i = %f#2, %slot = %f#3) {
 *     %pn = g(%p)                                   moved to the top
 *     %xn = tt.load f(%pn, %k + %st)                the next tile, into registers
 *     %y = ttg.local_load %slot                     this tile, from LDS (read by the dot)
 *     %acc2 = tt.dot %y, .., %acc                   MFMAs overlap the loads in flight
 *     %in = (%i + 1 < NUM_BUFFERS) ? %i + 1 : 0; %next = ttg.memdesc_index %buf[%in]
 *     ttg.local_store %xn, %next                    (the lowering's barriers order it after the reads)
 *     scf.yield %pn, %acc2, %in, %next
 *   }
 *   %res:4 = scf.if %lb < %ub {                     the last iteration, peeled
 *     <the body at %k = last, from %r, without the loads>; scf.yield ...
 *   } else { scf.yield %r#0, .. }
 *   ttg.local_dealloc %buf
 *
 * The first iteration is peeled too (peel_first_iteration: Triton's toolchain leaves its loop in
 * that shape, LLVM 19 does not).
 *
 * Stage 0 is the backward slice of the loads' operands in the body: pure ops, the induction
 * variable, values from outside. The loop's iter args that stage 0 reads are its "recurrence":
 * for the next tile they take the values the body yields, so the ops computing those yielded
 * values (pure ops only; otherwise the loop is left alone) move to the top of the body, ahead of
 * the prefetch. num_stages 0 and 1 leave loops alone (Triton 3.6: no pipelining); 3 and more use
 * this schedule too (Triton's deeper AMD schedules are not implemented).
 */

enum { MAX_LOADS = 8 };

/* LDS slots per pipelined operand: the 2-stage schedule keeps one (the local_store of the next
 * tile comes after the reads of this one, a barrier between them). The loop still carries the
 * slot index and the slot to read as iter args, as Triton's ring buffers do (with one slot the
 * index stays 0); a deeper schedule would add slots and carry a loaded tile in registers. */
enum { NUM_BUFFERS = 1 };

/* ---------------------------------------------------------------- copies */

static bool forget_names(ir_op *op, void *user) {
  (void)user;
  for (int i = 0; i < op->num_results; i++) op->results[i].name = NULL;
  for (int r = 0; r < op->num_regions; r++)
    for (ir_block *b = op->regions[r].first; b; b = b->next)
      for (int a = 0; a < b->num_args; a++) b->args[a]->name = NULL;
  return true;
}

/* op_clone_deep without the source's value names: the pipeline's copies print numbered, as
 * Triton's do. */
static ir_op *clone_op(gemmc_context *ctx, const ir_op *op, ptr_map *map) {
  ir_op *c = op_clone_deep(ctx, op, map);
  ir_walk(c, forget_names, NULL);
  return c;
}

/* ---------------------------------------------------------------- analysis */

typedef struct amd_load {
  ir_op *load, *convert;
  ir_op *alloc;       /* the LDS buffer */
  const ir_type *buf_type, *slot_type;
  ir_value *prefetch; /* the next tile, in the body */
  /* The register layout stored into an amd_rotating_shared buffer after an in-thread transpose
   * (plan_in_thread_transpose); NULL when the loaded layout is stored as it is. */
  const ir_attr *transposed;
} amd_load;

typedef struct loop_plan {
  ir_op *loop;
  ir_block *body;
  amd_load loads[MAX_LOADS];
  int num_loads;
  ptr_list stage0;  /* body ops the loads' operands come from */
  ptr_list advance; /* body ops computing the yielded values of the iter args stage 0 reads */
} loop_plan;

/* tt.load (2-D, 8/16/32-bit elements) whose only use is a conversion to an MFMA operand whose
 * only use is a tt.dot of the same block. */
static ir_op *mfma_operand_convert(const ir_op *load) {
  if (load->kind != OP_LOAD || !ir_value_has_one_use(&load->results[0])) return NULL;
  const ir_type *t = load->results[0].type;
  if (!ir_type_is_tensor(t) || t->rank != 2 || !t->encoding || !layout_is_distributed(t->encoding)) return NULL;
  unsigned bits = ir_type_bits(ir_type_element(t));
  if ((bits != 8 && bits != 16 && bits != 32) || ir_op_get_attr(load, "isVolatile")) return NULL;
  ir_op *cvt = load->results[0].first_use->owner;
  if (cvt->kind != OP_CONVERT_LAYOUT || cvt->parent != load->parent || !ir_value_has_one_use(&cvt->results[0]))
    return NULL;
  const ir_attr *enc = cvt->results[0].type->encoding;
  if (!enc || enc->kind != AT_DOT_OP || !enc->layout.parent || enc->layout.parent->kind != AT_AMD_MFMA) return NULL;
  ir_op *dot = cvt->results[0].first_use->owner;
  return dot->kind == OP_DOT && dot->parent == load->parent ? cvt : NULL;
}

/* Adds the body ops v is computed from to `set` (pure ops without regions only). */
static bool add_slice(const loop_plan *lp, ptr_list *set, ir_value *v) {
  ir_op *def = v->def_op;
  if (!def || def->parent != lp->body || ptr_list_contains(set, def)) return true;
  if (!ir_op_is_pure(def) || def->num_regions) return false;
  ptr_list_push(set, def);
  for (int i = 0; i < def->num_operands; i++)
    if (!add_slice(lp, set, def->operands[i].value)) return false;
  return true;
}

/* Iter args (block args 1..) read by the ops of `set` or by the loads. */
static void iter_args_read(const loop_plan *lp, const ptr_list *set, bool *read) {
  for (int i = 0; i < set->count + lp->num_loads; i++) {
    const ir_op *op = i < set->count ? set->items[i] : lp->loads[i - set->count].load;
    for (int k = 0; k < op->num_operands; k++) {
      const ir_value *v = op->operands[k].value;
      if (v->owner_block == lp->body && v->index > 0) read[v->index - 1] = true;
    }
  }
}

static bool plan_loop(gemmc_context *ctx, ir_op *loop, loop_plan *lp) {
  memset(lp, 0, sizeof *lp);
  lp->stage0.ctx = lp->advance.ctx = ctx;
  lp->loop = loop;
  lp->body = ir_region_entry(&loop->regions[0]);
  int num_iter = loop->num_operands - 3;
  if (!lp->body || lp->body->next || lp->body->num_args != num_iter + 1) return false;
  if (!ir_type_is_int(lp->body->args[0]->type, 32)) return false;
  ir_op *yield = ir_block_terminator(lp->body);
  if (!yield || yield->kind != OP_SCF_YIELD || yield->num_operands != num_iter) return false;
  for (ir_op *op = lp->body->first; op; op = op->next) {
    ir_op *cvt = mfma_operand_convert(op);
    if (cvt && lp->num_loads < MAX_LOADS) lp->loads[lp->num_loads++] = (amd_load){op, cvt, NULL, NULL, NULL, NULL, NULL};
  }
  if (lp->num_loads == 0) return false;
  for (int j = 0; j < lp->num_loads; j++)
    for (int i = 0; i < lp->loads[j].load->num_operands; i++)
      if (!add_slice(lp, &lp->stage0, lp->loads[j].load->operands[i].value)) return false;
  /* The next tile's addresses come from the values yielded for the iter args stage 0 reads:
   * their (pure) computation must be movable to the top of the body. */
  bool *read = ir_alloc(ctx, sizeof *read * (size_t)(num_iter + 1));
  iter_args_read(lp, &lp->stage0, read);
  for (int k = 0; k < num_iter; k++) {
    if (!read[k]) continue;
    ir_value *y = yield->operands[k].value;
    if (y->def_op && y->def_op->parent == lp->body && !add_slice(lp, &lp->advance, y)) return false;
  }
  /* A pipelined load's result must not be needed to compute the next addresses. */
  for (int j = 0; j < lp->num_loads; j++)
    if (ptr_list_contains(&lp->advance, lp->loads[j].convert)) return false;
  return true;
}

/* An operand loaded "thread-raked" (amd-in-thread-transpose gave its load a blocked layout with
 * several K rows per thread while K is not its contiguous dim): stored through
 * amdg.in_thread_transpose into a K-contiguous #ttg.amd_rotating_shared buffer, as Triton does. */
static void plan_in_thread_transpose(gemmc_context *ctx, amd_load *al) {
  const ir_type *t = al->load->results[0].type;
  const ir_attr *blocked = t->encoding;
  int op_idx = al->convert->results[0].type->encoding->layout.op_idx;
  int k_dim = op_idx == 0 ? t->rank - 1 : t->rank - 2;
  if (blocked->kind != AT_BLOCKED || blocked->layout.order[0] == k_dim || blocked->layout.size_per_thread[k_dim] < 2)
    return;
  al->transposed = layout_in_thread_transposed(ctx, blocked, t->rank, t->shape);
}

/* ---------------------------------------------------------------- the rewrite */

/* The LDS buffers (one slot each) before the loop, and their slot 0 into slots[]. */
static void make_buffers(gemmc_context *ctx, loop_plan *lp, ir_value *zero, ir_value **slots) {
  const ir_attr *smem = ir_layout_attr(ctx, AT_SHARED_MEMORY, NULL);
  for (int j = 0; j < lp->num_loads; j++) {
    amd_load *al = &lp->loads[j];
    const ir_type *t = al->load->results[0].type;
    const ir_attr *dot = al->convert->results[0].type->encoding;
    int order[IR_MAX_RANK];
    layout_order(t->encoding, t->rank, order);
    if (al->transposed) {
      /* K-contiguous: the two innermost dims of the order swap. */
      int i = order[0];
      order[0] = order[1];
      order[1] = i;
    }
    const ir_attr *shared = layout_shared_for_mfma_operand(ctx, dot->layout.op_idx, dot->layout.k_width, t->rank,
                                                           t->shape, order, (int)ir_type_bits(ir_type_element(t)),
                                                           al->transposed != NULL);
    int64_t buf_shape[IR_MAX_RANK + 1];
    buf_shape[0] = NUM_BUFFERS;
    memcpy(buf_shape + 1, t->shape, sizeof(int64_t) * (size_t)t->rank);
    al->buf_type = ir_memdesc_type(ctx, t->rank + 1, buf_shape, t->elem, shared, smem, true, 0, NULL);
    al->slot_type = ir_memdesc_type(ctx, t->rank, t->shape, t->elem, shared, smem, true, 0, NULL);
    al->alloc = ir_op_create(ctx, OP_LOCAL_ALLOC, 0, NULL, 1, &al->buf_type, 0, al->load->loc);
    al->alloc->src_loc = al->load->src_loc;
    ir_op_insert_before(lp->loop, al->alloc);
    ir_value *idx[2] = {&al->alloc->results[0], zero};
    slots[j] = build_before(ctx, lp->loop, OP_MEMDESC_INDEX, 2, idx, al->slot_type);
  }
}

/* Clones the stage-0 ops (body order) before anchor, then each load; with `pred`, the loads'
 * masks are and-ed with it. The clones of the loads go to al->prefetch; every new op to `made`. */
static void emit_loads(gemmc_context *ctx, loop_plan *lp, ir_op *anchor, ptr_map *map, ir_value *pred,
                       ptr_list *made) {
  for (ir_op *op = lp->body->first; op; op = op->next) {
    if (!ptr_list_contains(&lp->stage0, op)) continue;
    ir_op *c = clone_op(ctx, op, map);
    ir_op_insert_before(anchor, c);
    ptr_list_push_unique(made, c);
  }
  for (int j = 0; j < lp->num_loads; j++) {
    amd_load *al = &lp->loads[j];
    ir_op *load = clone_op(ctx, al->load, map);
    ptr_list_push_unique(made, load);
    if (pred) {
      const ir_type *mask_type = ir_type_with_element(ctx, load->results[0].type, ir_int_type(ctx, 1));
      ir_value *mask = build_before(ctx, anchor, OP_SPLAT, 1, &pred, mask_type);
      ptr_list_push_unique(made, mask->def_op);
      if (load->num_operands > 1) {
        mask = build_binary(ctx, anchor, OP_ANDI, load->operands[1].value, mask);
        ptr_list_push_unique(made, mask->def_op);
      }
      if (load->num_operands > 1) ir_op_set_operand(load, 1, mask);
      else ir_op_add_operand(ctx, load, mask);
    }
    ir_op_insert_before(anchor, load);
    al->prefetch = &load->results[0];
  }
}

static void emit_local_stores(gemmc_context *ctx, loop_plan *lp, ir_op *anchor, ir_value *const *slots, ptr_list *made) {
  for (int j = 0; j < lp->num_loads; j++) {
    ir_value *ops[2] = {lp->loads[j].prefetch, slots[j]};
    if (lp->loads[j].transposed) {
      const ir_type *tt = ir_type_with_encoding(ctx, ops[0]->type, lp->loads[j].transposed);
      ops[0] = build_before(ctx, anchor, OP_IN_THREAD_TRANSPOSE, 1, &ops[0], tt);
      if (made) ptr_list_push_unique(made, ops[0]->def_op);
    }
    build_before(ctx, anchor, OP_LOCAL_STORE, 2, ops, NULL);
    if (made) ptr_list_push_unique(made, anchor->prev);
  }
}

/* The last iteration of the loop (whose bounds are already lb .. ub - step), under lb < ub: the
 * body without the ops in `skip`. */
static void emit_epilogue(gemmc_context *ctx, loop_plan *lp, ir_value *lb, ir_value *ub, ir_value *step,
                          const ptr_list *skip) {
  ir_op *loop = lp->loop;
  ir_op *after = loop->next;
  int num_iter = loop->num_results;
  ir_value *run = build_cmpi(ctx, after, "slt", lb, ub);
  /* iv of the last iteration: lb + ((ub - lb - 1) / step) * step (erased below when unused; the
   * iv is an i32, plan_loop checks). */
  ir_value *one = build_int_constant(ctx, after, 1, 32);
  ir_value *span = build_binary(ctx, after, OP_SUBI, build_binary(ctx, after, OP_SUBI, ub, lb), one);
  ir_value *last = build_binary(ctx, after, OP_ADDI, lb,
                                build_binary(ctx, after, OP_MULI, build_binary(ctx, after, OP_DIVSI, span, step), step));
  ir_op *iv_ops_end = last->def_op, *iv_ops_begin = one->def_op;
  const ir_type **types = ir_alloc(ctx, sizeof *types * (size_t)(num_iter + 1));
  for (int k = 0; k < num_iter; k++) types[k] = loop->results[k].type;
  ir_op *if_op = ir_op_create(ctx, OP_SCF_IF, 1, &run, num_iter, types, 2, loop->loc);
  if_op->src_loc = loop->src_loc;
  ir_op_insert_before(after, if_op);
  for (int k = 0; k < num_iter; k++) {
    if_op->results[k].name = loop->results[k].name;
    loop->results[k].name = NULL;
    ir_value_replace_all_uses(&loop->results[k], &if_op->results[k]);
  }
  ptr_map map = {ctx, NULL, 0, 0};
  ptr_map_put(&map, lp->body->args[0], last);
  for (int k = 0; k < num_iter; k++) ptr_map_put(&map, lp->body->args[k + 1], &loop->results[k]);
  ir_block *then_block = ir_block_create(ctx), *else_block = ir_block_create(ctx);
  ir_region_append_block(&if_op->regions[0], then_block);
  ir_region_append_block(&if_op->regions[1], else_block);
  for (ir_op *op = lp->body->first; op; op = op->next)
    if (!ptr_list_contains(skip, op)) ir_block_append_op(then_block, clone_op(ctx, op, &map));
  ir_value **results = ir_alloc(ctx, sizeof *results * (size_t)(num_iter + 1));
  for (int k = 0; k < num_iter; k++) results[k] = &loop->results[k];
  ir_op *else_yield = ir_op_create(ctx, OP_SCF_YIELD, num_iter, results, 0, NULL, 0, loop->loc);
  ir_block_append_op(else_block, else_yield);
  ptr_map_free(&map);
  erase_dead_pure_ops(ctx, if_op);
  /* The last iteration's iv, when nothing of the body needed it. */
  for (ir_op *op = iv_ops_end, *prev; op && !op->results[0].first_use; op = prev) {
    prev = op == iv_ops_begin ? NULL : op->prev;
    ir_op_erase(op);
  }
}

/* The loop's first iteration, peeled in front of it under lb < ub: Triton's toolchain leaves
 * its pipelined loop in this shape (LLVM peels the first iteration there; LLVM 19 does not), so
 * the first MFMAs start from the accumulator's initial value (a constant zero folds into them)
 * and gemmc's code has the shape of Triton's. */
static void peel_first_iteration(gemmc_context *ctx, ir_op *loop) {
  ir_block *body = ir_region_entry(&loop->regions[0]);
  ir_value *lb = loop->operands[0].value, *ub = loop->operands[1].value, *step = loop->operands[2].value;
  int num_iter = loop->num_operands - 3;
  ir_value *run = build_cmpi(ctx, loop, "slt", lb, ub);
  const ir_type **types = ir_alloc(ctx, sizeof *types * (size_t)(num_iter + 1));
  ir_value **inits = ir_alloc(ctx, sizeof *inits * (size_t)(num_iter + 1));
  for (int k = 0; k < num_iter; k++) {
    types[k] = loop->results[k].type;
    inits[k] = loop->operands[3 + k].value;
  }
  ir_op *if_op = ir_op_create(ctx, OP_SCF_IF, 1, &run, num_iter, types, 2, loop->loc);
  if_op->src_loc = loop->src_loc;
  ir_op_insert_before(loop, if_op);
  ptr_map map = {ctx, NULL, 0, 0};
  ptr_map_put(&map, body->args[0], lb);
  for (int k = 0; k < num_iter; k++) ptr_map_put(&map, body->args[k + 1], inits[k]);
  ir_block *then_block = ir_block_create(ctx), *else_block = ir_block_create(ctx);
  ir_region_append_block(&if_op->regions[0], then_block);
  ir_region_append_block(&if_op->regions[1], else_block);
  for (ir_op *op = body->first; op; op = op->next) ir_block_append_op(then_block, clone_op(ctx, op, &map));
  ptr_map_free(&map);
  ir_block_append_op(else_block, ir_op_create(ctx, OP_SCF_YIELD, num_iter, inits, 0, NULL, 0, loop->loc));
  ir_op_set_operand(loop, 0, build_binary(ctx, loop, OP_ADDI, lb, step));
  for (int k = 0; k < num_iter; k++) ir_op_set_operand(loop, 3 + k, &if_op->results[k]);
}

static void rewrite_loop(gemmc_context *ctx, loop_plan *lp) {
  ir_op *loop = lp->loop;
  ir_block *body = lp->body;
  ir_value *lb = loop->operands[0].value, *ub = loop->operands[1].value, *step = loop->operands[2].value;
  int num_iter = loop->num_operands - 3;
  ptr_list made = {ctx, NULL, 0, 0}, skip = {ctx, NULL, 0, 0};

  for (int j = 0; j < lp->num_loads; j++) plan_in_thread_transpose(ctx, &lp->loads[j]);
  ir_value *zero = build_int_constant(ctx, loop, 0, 32);
  ir_value *slots[MAX_LOADS];
  make_buffers(ctx, lp, zero, slots);
  /* Prologue: the first tile into slot 0 (its loads masked off when the loop does not run). */
  ptr_map pro = {ctx, NULL, 0, 0};
  ptr_map_put(&pro, body->args[0], lb);
  for (int k = 0; k < num_iter; k++) ptr_map_put(&pro, body->args[k + 1], loop->operands[3 + k].value);
  emit_loads(ctx, lp, loop, &pro, build_cmpi(ctx, loop, "slt", lb, ub), &made);
  ptr_map_free(&pro);
  emit_local_stores(ctx, lp, loop, slots, NULL);

  /* The loop carries the slot index and the slot each operand is read from. */
  ir_value *inits[MAX_LOADS + 1];
  inits[0] = zero;
  for (int j = 0; j < lp->num_loads; j++) inits[1 + j] = slots[j];
  loop = lp->loop = scf_for_add_iter_args(ctx, loop, 1 + lp->num_loads, inits);
  ir_op *yield = ir_block_terminator(body);
  ir_value *index = body->args[1 + num_iter];

  /* The body reads this tile from its slot where the conversion was (the dot reads it, see
   * lower_operand_is_deferred); the original loads stay until the prefetch is cloned from them. */
  for (int j = 0; j < lp->num_loads; j++) {
    amd_load *al = &lp->loads[j];
    ir_value *slot = body->args[2 + num_iter + j];
    ir_value *tile = build_before(ctx, al->convert, OP_LOCAL_LOAD, 1, &slot, al->convert->results[0].type);
    ir_value_replace_all_uses(&al->convert->results[0], tile);
    ir_op_erase(al->convert);
    ptr_list_push_unique(&skip, al->load);
  }

  /* The recurrence's next values move to the top of the body. */
  ir_op *top = body->first;
  while (top && ptr_list_contains(&lp->advance, top)) top = top->next;
  for (ir_op *op = top, *next; op; op = next) {
    next = op->next;
    if (!ptr_list_contains(&lp->advance, op)) continue;
    ir_op_unlink(op);
    ir_op_insert_before(top, op);
  }

  /* Prefetch of the next tile at the top (after the recurrence). */
  ptr_map next = {ctx, NULL, 0, 0};
  ir_value *iv_next = build_binary(ctx, top, OP_ADDI, body->args[0], step);
  ptr_list_push_unique(&skip, iv_next->def_op);
  ptr_map_put(&next, body->args[0], iv_next);
  for (int k = 0; k < num_iter; k++) ptr_map_put(&next, body->args[k + 1], yield->operands[k].value);
  ptr_list_clear(&made);
  emit_loads(ctx, lp, top, &next, NULL, &made);
  ptr_map_free(&next);
  for (int i = 0; i < made.count; i++) ptr_list_push_unique(&skip, made.items[i]);

  /* At the end: the next slot (index + 1, wrapping) gets the prefetched tile. */
  ir_value *next_index = build_ring_next(ctx, yield, index, NUM_BUFFERS, zero);
  ir_value *next_slots[MAX_LOADS];
  for (int j = 0; j < lp->num_loads; j++) {
    ir_value *idx[2] = {&lp->loads[j].alloc->results[0], next_index};
    next_slots[j] = build_before(ctx, yield, OP_MEMDESC_INDEX, 2, idx, lp->loads[j].slot_type);
  }
  ptr_list_clear(&made);
  emit_local_stores(ctx, lp, yield, next_slots, &made);
  for (int i = 0; i < made.count; i++) ptr_list_push_unique(&skip, made.items[i]);
  ir_op_add_operand(ctx, yield, next_index);
  for (int j = 0; j < lp->num_loads; j++) ir_op_add_operand(ctx, yield, next_slots[j]);

  /* The last iteration, peeled (the body without the prefetch); the loop runs one less. */
  ir_value *new_ub = build_binary(ctx, loop, OP_SUBI, ub, step);
  ir_op_set_operand(loop, 1, new_ub);
  emit_epilogue(ctx, lp, lb, ub, step, &skip);
  ptr_list_free(&made);
  ptr_list_free(&skip);

  for (int j = 0; j < lp->num_loads; j++) ir_op_erase(lp->loads[j].load);
  erase_dead_pure_ops(ctx, loop);

  ir_op *end = loop->next;
  while (end && end->kind != OP_SCF_IF) end = end->next; /* the epilogue */
  for (int j = 0; j < lp->num_loads && end; j++) {
    ir_value *buf = &lp->loads[j].alloc->results[0];
    ir_op *dealloc = ir_op_create(ctx, OP_LOCAL_DEALLOC, 1, &buf, 0, NULL, 0, loop->loc);
    dealloc->src_loc = loop->src_loc;
    ir_op_insert_after(end, dealloc);
  }
  peel_first_iteration(ctx, loop);
}

/* ---------------------------------------------------------------- the pass */

static bool collect_loop(ir_op *op, void *user) {
  if (op->kind == OP_SCF_FOR) ptr_list_push(user, op);
  return true;
}

static bool contains_loop(ir_op *op) {
  for (int r = 0; r < op->num_regions; r++)
    for (ir_block *b = op->regions[r].first; b; b = b->next)
      for (ir_op *o = b->first; o; o = o->next)
        if (o->kind == OP_SCF_FOR || contains_loop(o)) return true;
  return false;
}

bool gemmc_pass_amd_stream_pipeline(const gemmc_pass_context *pc, ir_op *module) {
  gemmc_context *ctx = pc->ctx;
  if (!pc->target || pc->target->arch != GEMMC_ARCH_AMDGPU) {
    ir_op_error(ctx, module, "amd-stream-pipeline: '%s' is not an AMD target (gfx90a, gfx942)",
                pc->target ? pc->target->name : "(none)");
    return false;
  }
  if (pc->num_stages < 2) return true;
  ptr_list loops = {ctx, NULL, 0, 0};
  ir_walk(module, collect_loop, &loops);
  for (int i = 0; i < loops.count; i++) {
    loop_plan lp;
    ir_op *loop = loops.items[i];
    /* Innermost loops only, as Triton; tl.range(..., num_stages=1) keeps its loop as it is. */
    if (contains_loop(loop) || scf_for_num_stages(loop, (int)pc->num_stages) < 2) continue;
    if (plan_loop(ctx, loop, &lp)) rewrite_loop(ctx, &lp);
    ptr_list_free(&lp.stage0);
    ptr_list_free(&lp.advance);
  }
  ptr_list_free(&loops);
  return true;
}

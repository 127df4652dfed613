/* --remove-layout-conversions (alias --tritongpu-remove-layout-conversions): fewer ttg.convert_layout ops by folding, forward propagation from anchors and backward rematerialization. */
#include <stdio.h>
#include <string.h>

#include "util.h"
#include "context_internal.h"
#include "gemmc/layout.h"
#include "gemmc/passes.h"

/*
 * The pass repeats four steps until nothing changes (at most MAX_ROUNDS times):
 *   1. fold: convert(x : L -> L) is x; convert(convert(x)) converts x directly;
 *   2. forward: for %c = convert %x : A -> B, rewrite the elementwise users of %c (transitively,
 *      in the same block) to A, switch reductions and register-renaming shape ops (trans,
 *      reshape, split, join) fed by them to A, let stores to memory (tt.descriptor_store, a
 *      local_alloc of the tile) take A as it is, and keep one conversion
 *      back to B only where a user really needs B; in a loop body, iter args go along when
 *      their yielded value follows (the loop carries them in A: an attention kernel's
 *      accumulator and row statistics); done when it removes more converted elements than it
 *      adds (Triton's LayoutPropagation, greedily from one conversion at a time);
 *   3. backward: for %c = convert %x : L1 -> L2, when %x is computed by cheap ops only
 *      (elementwise, splat, make_range, constants, broadcast, expand_dims), clone them in L2
 *      and drop the conversion (Triton's backwardRematerialization); inside a loop, values from
 *      outside the loop are converted where they are defined, once, instead; a loop-carried
 *      pointer whose next value can be rebuilt in L2 is carried in L2;
 *   4. dead-code elimination of pure ops nothing uses.
 * Clones are memoized per (value, layout), so a mask shared by a load and a store is built once
 * in the store's layout. Loads, reductions, dots and loop-carried values are anchors: never
 * cloned.
 */

/* Triton caps the rematerialized slice too: past this, a conversion is the cheaper choice. */
#define MAX_SLICE_OPS 64
#define MAX_ROUNDS 8

/* ------------------------------------------------------------------ the clone memo */

typedef struct rlc_state {
  gemmc_context *ctx;
  /* (value, layout) -> the clone of value in layout (or the value that already has it) */
  ptr_map memo;
} rlc_state;

static ir_value *memo_find(const rlc_state *s, const ir_value *v, const ir_attr *layout) {
  const ptr_map_value *known = ptr_map_find(&s->memo, v, layout);
  return known ? known->ptr : NULL;
}

static void memo_insert(rlc_state *s, const ir_value *v, const ir_attr *layout, ir_value *result) {
  ptr_map_value *slot = ptr_map_insert(&s->memo, v, layout);
  if (slot) slot->ptr = result; /* without memory the clone is only not shared */
}

/* Clones may be erased by dead-code elimination: forget them between steps. */
static void memo_clear(rlc_state *s) { ptr_map_clear(&s->memo); }

/* ------------------------------------------------------------------ IR helpers */

static bool is_tensor(const ir_value *v) { return v && v->type && v->type->kind == TY_TENSOR; }

static const ir_attr *encoding_of(const ir_value *v) { return is_tensor(v) ? v->type->encoding : NULL; }

/* Layouts the cheap ops may be cloned into. dot_op layouts are left to accelerate-matmul:
 * elementwise math on MMA operands needs kWidth-aware lowering. */
static bool layout_can_host_clones(const ir_attr *layout) {
  return layout && layout_is_distributed(layout) && layout->kind != AT_DOT_OP;
}

static bool is_convert(const ir_op *op) {
  return op->kind == OP_CONVERT_LAYOUT && op->num_operands == 1 && op->num_results == 1 &&
         is_tensor(op->operands[0].value) && is_tensor(&op->results[0]);
}

static bool is_elementwise_tensor_op(const ir_op *op) {
  return (ir_op_info_of(op->kind)->traits & TRAIT_ELEMENTWISE) && ir_op_is_pure(op) && op->num_results == 1 &&
         op->num_regions == 0 && is_tensor(&op->results[0]);
}

/* The innermost scf.for around op inside its function, or NULL. */
static ir_op *enclosing_loop(const ir_op *op) {
  for (ir_op *p = ir_op_parent_op(op); p && p->kind != OP_FUNC && p->kind != OP_MODULE; p = ir_op_parent_op(p))
    if (p->kind == OP_SCF_FOR) return p;
  return NULL;
}

static bool op_is_inside(const ir_op *op, const ir_op *ancestor) {
  for (const ir_op *p = op; p; p = ir_op_parent_op(p))
    if (p == ancestor) return true;
  return false;
}

/* True when v is defined inside loop (its body's arguments included). */
static bool value_is_inside(const ir_value *v, const ir_op *loop) {
  if (v->def_op) return op_is_inside(v->def_op, loop);
  const ir_op *owner = block_arg_owner(v);
  return owner && op_is_inside(owner, loop);
}

static ir_op *clone_op(gemmc_context *ctx, const ir_op *op, ir_value *const *operands, const ir_type *const *result_types) {
  ir_op *clone = op_clone_with_attrs(ctx, op, op->num_operands, operands, result_types);
  for (int i = 0; i < op->num_results; i++) clone->results[i].name = op->results[i].name;
  return clone;
}

/* A new `convert v -> layout` placed right after v's definition (so it dominates every use of v). */
static ir_value *convert_after_def(gemmc_context *ctx, ir_value *v, const ir_attr *layout) {
  const ir_type *to = ir_type_with_encoding(ctx, v->type, layout);
  if (v->def_op) return convert_layout_after(ctx, v->def_op, v, to);
  /* a block argument: at the top of its block */
  ir_block *block = v->owner_block;
  ir_loc *loc = block && block->first ? block->first->loc : ir_loc_unknown(ctx);
  ir_op *cvt = ir_op_create(ctx, OP_CONVERT_LAYOUT, 1, &v, 1, &to, 0, loc);
  if (block && block->first) {
    ir_op_insert_before(block->first, cvt);
  } else {
    ir_block_append_op(block, cvt);
  }
  return &cvt->results[0];
}

/* The uses of v whose owners are not in `keep` move to a conversion of v to `type`. */
static void convert_outside_uses(gemmc_context *ctx, ir_value *v, const ir_type *type, const ptr_list *keep) {
  ptr_list outside = {ctx, NULL, 0, 0};
  for (ir_operand *u = v->first_use; u; u = u->next_use)
    if (!ptr_list_contains(keep, u->owner)) ptr_list_push(&outside, u);
  if (outside.count) {
    ir_op *cvt = convert_layout_after(ctx, v->def_op, v, type)->def_op;
    for (int i = 0; i < outside.count; i++) {
      ir_operand *u = outside.items[i];
      ir_op_set_operand(u->owner, u->index, &cvt->results[0]);
    }
  }
  ptr_list_free(&outside);
}

/* ------------------------------------------------------------------ backward rematerialization */

/* What cloning a value's backward slice in a layout would take. */
typedef struct remat_plan {
  ptr_list seen_values, seen_layouts; /* (value, layout) pairs already counted */
  int num_ops;                         /* cheap ops to clone */
  int num_converts;                    /* new conversions at the slice's leaves */
  int num_converts_in_loop;            /* of those, inside the loop the root is in */
  int64_t max_convert_elems;           /* the largest tensor one of them converts */
  int64_t convert_elems;               /* all of them */
  int64_t root_elems;                  /* the root conversion's: anchors may be leaves (0: never) */
} remat_plan;

/* An empty plan; anchors may be leaves when root_elems > 0 (plan_anchor_leaf). */
static remat_plan plan_start(gemmc_context *ctx, int64_t root_elems) {
  return (remat_plan){.seen_values = {ctx, NULL, 0, 0}, .seen_layouts = {ctx, NULL, 0, 0}, .root_elems = root_elems};
}

static void plan_convert(remat_plan *p, const ir_value *v) {
  p->num_converts++;
  int64_t n = ir_type_num_elements(v->type);
  if (n > p->max_convert_elems) p->max_convert_elems = n;
  p->convert_elems += n;
}

/* A value nothing cheap computes (a load, a reduction, ...) converted where it is made, when it
 * is a small part of the root: the token ids a fused MoE kernel loads (64) rather than the tile
 * of pointers made of them (64 x 128), as Triton's rematerialization stops at a load. */
enum { ANCHOR_LEAF_RATIO = 4 };
static bool plan_anchor_leaf(remat_plan *p, const ir_value *v, const ir_op *loop) {
  if (ir_type_num_elements(v->type) * ANCHOR_LEAF_RATIO > p->root_elems) return false;
  plan_convert(p, v);
  if (loop) p->num_converts_in_loop++;
  return true;
}

static bool plan_seen(remat_plan *p, const ir_value *v, const ir_attr *layout) {
  for (int i = 0; i < p->seen_values.count; i++)
    if (p->seen_values.items[i] == v && p->seen_layouts.items[i] == layout) return true;
  ptr_list_push(&p->seen_values, (void *)v);
  ptr_list_push(&p->seen_layouts, (void *)layout);
  return false;
}

/* Can v be had in `layout` by cloning cheap ops? Loop: the innermost loop the root conversion is
 * in (values from outside it become leaves converted once, outside), or NULL. */
static bool plan_remat(rlc_state *s, ir_value *v, const ir_attr *layout, const ir_op *loop, remat_plan *p) {
  if (!is_tensor(v) || v->type->encoding == layout || memo_find(s, v, layout)) return true;
  if (plan_seen(p, v, layout)) return true;
  if (loop && !value_is_inside(v, loop)) {
    plan_convert(p, v);
    return true;
  }
  ir_op *def = v->def_op;
  if (!def) return false; /* loop-carried value or tensor argument: an anchor */
  if (is_convert(def)) {
    if (encoding_of(def->operands[0].value) == layout) return true;
    plan_convert(p, def->operands[0].value);
    if (loop) p->num_converts_in_loop++;
    return true;
  }
  if (++p->num_ops > MAX_SLICE_OPS) return false;
  if (is_elementwise_tensor_op(def)) {
    for (int i = 0; i < def->num_operands; i++)
      if (!def->operands[i].value || !plan_remat(s, def->operands[i].value, layout, loop, p)) return false;
    return true;
  }
  switch (def->kind) {
  case OP_SPLAT:
  case OP_MAKE_RANGE: return def->num_results == 1;
  case OP_CONSTANT: {
    const ir_attr *value = ir_op_get_attr(def, "value");
    return value && value->kind == AT_DENSE;
  }
  case OP_BROADCAST: return plan_remat(s, def->operands[0].value, layout, loop, p);
  case OP_EXPAND_DIMS: {
    /* the operand's slice layout is rebuilt from the new parent */
    if (layout->kind == AT_SLICE || layout->kind == AT_LINEAR) return false;
    int axis = (int)ir_op_get_int_attr(def, "axis", 0);
    return plan_remat(s, def->operands[0].value, layout_infer_expand_dims_operand(s->ctx, layout, axis), loop, p);
  }
  default:
    return def->num_results == 1 && plan_anchor_leaf(p, v, loop);
  }
}

static void plan_free(remat_plan *p) {
  ptr_list_free(&p->seen_values);
  ptr_list_free(&p->seen_layouts);
}

/* v in `layout`: the clone of its cheap slice (memoized), a conversion at a leaf, or a plain
 * conversion when the slice cannot be cloned (callers plan first, so that is a fallback). */
static ir_value *remat(rlc_state *s, ir_value *v, const ir_attr *layout, const ir_op *loop) {
  if (!is_tensor(v) || v->type->encoding == layout) return v;
  ir_value *known = memo_find(s, v, layout);
  if (known) return known;
  ir_value *result = NULL;
  ir_op *def = v->def_op;
  if ((loop && !value_is_inside(v, loop)) || !def) {
    result = convert_after_def(s->ctx, v, layout);
  } else if (is_convert(def)) {
    ir_value *src = def->operands[0].value;
    result = encoding_of(src) == layout ? src : convert_after_def(s->ctx, src, layout);
  } else {
    bool cheap = is_elementwise_tensor_op(def) || def->kind == OP_SPLAT || def->kind == OP_MAKE_RANGE ||
                 def->kind == OP_CONSTANT || def->kind == OP_BROADCAST ||
                 (def->kind == OP_EXPAND_DIMS && layout->kind != AT_SLICE && layout->kind != AT_LINEAR);
    if (!cheap || def->num_operands > 8 || def->num_results != 1) {
      result = convert_after_def(s->ctx, v, layout);
    } else {
      ir_value *operands[8];
      for (int i = 0; i < def->num_operands; i++) {
        ir_value *o = def->operands[i].value;
        const ir_attr *want = layout;
        if (def->kind == OP_EXPAND_DIMS)
          want = layout_infer_expand_dims_operand(s->ctx, layout, (int)ir_op_get_int_attr(def, "axis", 0));
        operands[i] = o ? remat(s, o, want, loop) : NULL;
      }
      const ir_type *type = ir_type_with_encoding(s->ctx, v->type, layout);
      ir_op *clone = clone_op(s->ctx, def, operands, &type);
      if (def->kind == OP_CONSTANT) { /* a dense constant's attribute carries its type */
        const ir_attr *value = ir_op_get_attr(def, "value");
        if (value && value->kind == AT_DENSE)
          ir_op_set_attr(s->ctx, clone, "value", ir_dense_attr(s->ctx, type, value->dense_splat, value->num_elems, value->elems));
      }
      ir_op_insert_after(def, clone);
      result = &clone->results[0];
    }
  }
  memo_insert(s, v, layout, result);
  return result;
}

/* The scf.for whose body argument (an iter arg, not the induction variable) v is, or NULL. */
static ir_op *iter_arg_loop(const ir_value *v) {
  const ir_block *body = v->owner_block;
  ir_op *loop = block_arg_owner(v);
  if (!loop || loop->kind != OP_SCF_FOR || body != loop->regions[0].first || v->index < 1) return NULL;
  int k = v->index - 1;
  ir_op *yield = ir_block_terminator(body);
  if (3 + k >= loop->num_operands || k >= loop->num_results || !yield || k >= yield->num_operands) return NULL;
  return loop;
}

/* True when op only feeds `yield`, conversions to `layout` and ops the plan clones (whose old
 * versions then die with it). */
static bool feeds_only(const ir_op *op, const ir_op *yield, const ir_attr *layout, const remat_plan *plan, int depth) {
  if (op == yield || (is_convert(op) && encoding_of(&op->results[0]) == layout)) return true;
  if (depth > MAX_SLICE_OPS || op->num_results != 1 || !ptr_list_contains(&plan->seen_values, &op->results[0])) return false;
  for (ir_operand *u = op->results[0].first_use; u; u = u->next_use)
    if (!feeds_only(u->owner, yield, layout, plan, depth + 1)) return false;
  return true;
}

/* %c = convert %arg : L -> L2 where %arg is carried by a loop: carry it in L2 instead, when the
 * value yielded back can be computed in L2 without a conversion inside the loop (a pointer
 * advanced by addptr each iteration, as in a GEMM's K loop). The initial value is converted
 * (or rematerialized) before the loop and the loop result converted back after it. */
static bool loop_carried_one(rlc_state *s, ir_op *cvt) {
  ir_value *arg = cvt->operands[0].value;
  ir_op *loop = iter_arg_loop(arg);
  if (!loop) return false;
  int k = arg->index - 1;
  ir_op *yield = ir_block_terminator(loop->regions[0].first);
  const ir_attr *layout = encoding_of(&cvt->results[0]);
  const ir_attr *old_layout = encoding_of(arg);
  const ir_type *old_type = arg->type;
  /* plan with the argument already in the new layout */
  arg->type = ir_type_with_encoding(s->ctx, old_type, layout);
  remat_plan plan = plan_start(s->ctx, 0);
  bool ok = plan_remat(s, yield->operands[k].value, layout, loop, &plan) && plan.num_converts_in_loop == 0;
  /* Every other user must die once the yielded value is rebuilt: a user that keeps needing the
   * old layout would make the next round carry the argument back (and so on). */
  for (ir_operand *u = arg->first_use; ok && u; u = u->next_use)
    ok = feeds_only(u->owner, yield, layout, &plan, 0);
  plan_free(&plan);
  if (!ok) {
    arg->type = old_type;
    return false;
  }
  /* the argument's other users still see the old layout, through one conversion */
  ir_block *body = loop->regions[0].first;
  const ir_type *old_enc_type = ir_type_with_encoding(s->ctx, arg->type, old_layout);
  ir_op *back = ir_op_create(s->ctx, OP_CONVERT_LAYOUT, 1, &arg, 1, &old_enc_type, 0, cvt->loc);
  back->src_loc = cvt->src_loc;
  ir_op_insert_before(body->first, back);
  ptr_list keep = {s->ctx, NULL, 0, 0};
  ptr_list_push(&keep, back);
  ptr_list_push(&keep, cvt);
  for (ir_operand *u = arg->first_use, *next; u; u = next) {
    next = u->next_use;
    if (!ptr_list_contains(&keep, u->owner)) ir_op_set_operand(u->owner, u->index, &back->results[0]);
  }
  ptr_list_free(&keep);
  ir_value_replace_all_uses(&cvt->results[0], arg);
  ir_op_set_operand(yield, k, remat(s, yield->operands[k].value, layout, loop));
  ir_value *init = loop->operands[3 + k].value;
  remat_plan init_plan = plan_start(s->ctx, 0);
  bool cheap_init = plan_remat(s, init, layout, NULL, &init_plan) && init_plan.num_converts == 0;
  plan_free(&init_plan);
  ir_op_set_operand(loop, 3 + k, cheap_init ? remat(s, init, layout, NULL) : convert_after_def(s->ctx, init, layout));
  ir_value *result = &loop->results[k];
  result->type = arg->type;
  ptr_list none = {s->ctx, NULL, 0, 0};
  convert_outside_uses(s->ctx, result, old_enc_type, &none);
  return true;
}

/* Replaces one conversion by its rematerialized source when that is worth it. */
static bool backward_one(rlc_state *s, ir_op *cvt) {
  ir_value *src = cvt->operands[0].value;
  const ir_attr *to = encoding_of(&cvt->results[0]);
  if (!cvt->results[0].first_use || !layout_can_host_clones(to) || encoding_of(src) == to) return false;
  const ir_op *loop = enclosing_loop(cvt);
  remat_plan plan = plan_start(s->ctx, ir_type_num_elements(src->type));
  /* Worth it when no conversion is left, or every one left was hoisted out of the loop (an anchor
   * leaf counts as a conversion left, in the loop when it is in it), or the conversions left at
   * the slice's leaves move a small part of what the root moves. */
  bool ok =
      plan_remat(s, src, to, loop, &plan) && (plan.num_converts == 0 || (loop && plan.num_converts_in_loop == 0) ||
                                              plan.convert_elems * ANCHOR_LEAF_RATIO <= plan.root_elems);
  plan_free(&plan);
  if (!ok) return loop_carried_one(s, cvt);
  ir_value *replacement = remat(s, src, to, loop);
  ir_value_replace_all_uses(&cvt->results[0], replacement);
  return true;
}

/* ------------------------------------------------------------------ forward propagation */

/* The users of a conversion that can move to its source layout. */
typedef struct forward_set {
  ptr_list ops;       /* ops rewritten in place, and sinks (conversions) */
  ptr_list values;    /* values that change layout ... */
  ptr_list layouts;   /* ... to these */
  ptr_list exits;     /* values some user still needs in the old layout */
  ptr_list rejected;  /* ops that stay as they are */
  ptr_list iter_args; /* body arguments of `loop` that the loop carries in their new layout */
  ptr_list *pinned;   /* body arguments an earlier attempt could not carry: they keep their layout */
  ir_op *loop;        /* the scf.for whose body is the conversion's block, or NULL */
  int64_t removed;    /* elements of the conversions that disappear */
  int64_t added;      /* elements of the conversions that appear */
} forward_set;

/* A conversion in a loop body runs once per iteration, one before or after the loop once: the
 * loop's conversions count this many times (the trip count is rarely known; Triton's forward
 * propagation carries a loop's values whenever that removes a conversion from its body). */
enum { LOOP_BODY_WEIGHT = 8 };

/* The cost of `elems` converted elements in the set's block: weighted when it is a loop body. */
static int64_t in_block(const forward_set *f, int64_t elems) { return f->loop ? elems * LOOP_BODY_WEIGHT : elems; }

/* The layout v takes when the set is applied, or NULL when v is not in it. */
static const ir_attr *forward_layout(const forward_set *f, const ir_value *v) {
  for (int i = 0; i < f->values.count; i++)
    if (f->values.items[i] == v) return f->layouts.items[i];
  return NULL;
}

static void forward_add_value(forward_set *f, ir_value *v, const ir_attr *layout) {
  ptr_list_push(&f->values, v);
  ptr_list_push(&f->layouts, (void *)layout);
}

/* The scf.for whose body is `block`, or NULL: its iter args may move with a set. */
static ir_op *body_loop(const ir_block *block) {
  ir_op *loop = block->parent ? block->parent->parent : NULL;
  return loop && loop->kind == OP_SCF_FOR && loop->regions[0].first == block ? loop : NULL;
}

/* v is an iter arg of the set's loop that may take a new layout (it is not pinned). */
static bool forward_can_carry(const forward_set *f, const ir_value *v) {
  return f->loop && is_tensor(v) && !v->def_op && iter_arg_loop(v) == f->loop && !ptr_list_contains(f->pinned, v);
}

/* The loop carries iter arg v in `layout` (checked against its yielded value once the set is
 * complete: forward_check_carried). */
static bool forward_carry(forward_set *f, ir_value *v, const ir_attr *layout) {
  if (forward_layout(f, v) || !forward_can_carry(f, v)) return false;
  forward_add_value(f, v, layout);
  ptr_list_push(&f->iter_args, v);
  return true;
}

/* A use that sees the value's new layout: an op of the set, or the yield of an iter arg the loop
 * carries in that layout. */
static bool forward_use_stays(const forward_set *f, const ir_operand *u) {
  if (ptr_list_contains(&f->ops, u->owner)) return true;
  if (!f->loop || u->owner->kind != OP_SCF_YIELD || u->owner->parent != f->loop->regions[0].first) return false;
  const ir_block *body = f->loop->regions[0].first;
  if (u->index + 1 >= body->num_args) return false;
  const ir_value *arg = body->args[u->index + 1];
  return ptr_list_contains(&f->iter_args, arg) && forward_layout(f, arg) == forward_layout(f, u->value);
}

/* A leaf conversion this many times smaller than the tile an op computes is as good as none:
 * a bias row converted and broadcast in the accumulator's layout instead of the accumulator
 * converted to the row's (Triton's cost model weighs conversions by their size too). */
#define SMALL_CONVERT_RATIO 16

/* Every tensor operand of op can be had in `layout`: it moves to it with the set, or it is an iter
 * arg the loop can carry in it, or its producers can be cloned in it without a conversion, or
 * with small ones at the leaves only. */
static bool operands_available(rlc_state *s, const ir_op *op, const forward_set *f, const ir_attr *layout) {
  for (int i = 0; i < op->num_operands; i++) {
    ir_value *o = op->operands[i].value;
    if (!o || !is_tensor(o)) continue;
    const ir_attr *moving = forward_layout(f, o);
    if (moving) {
      if (moving != layout) return false;
      continue;
    }
    if (forward_can_carry(f, o)) continue;
    remat_plan plan = plan_start(s->ctx, 0);
    bool ok = plan_remat(s, o, layout, NULL, &plan) &&
              (plan.num_converts == 0 || plan.max_convert_elems * SMALL_CONVERT_RATIO <= ir_type_num_elements(o->type));
    plan_free(&plan);
    if (!ok) return false;
  }
  return true;
}

/* After op joined the set in `layout`: its iter-arg operands move with it. */
static void forward_carry_operands(forward_set *f, const ir_op *op, const ir_attr *layout) {
  for (int i = 0; i < op->num_operands; i++)
    if (op->operands[i].value) forward_carry(f, op->operands[i].value, layout);
}

static void forward_exit(forward_set *f, ir_value *v) {
  if (!ptr_list_contains(&f->exits, v)) ptr_list_push(&f->exits, v);
}

/* Whether user can take its operand w in layout `layout` (w's new one); adds it and its
 * results to the set when it can. */
static bool forward_accept(rlc_state *s, forward_set *f, ir_op *user, const ir_attr *layout) {
  if (!layout_can_host_clones(layout)) return false;
  if (is_convert(user)) {
    ptr_list_push(&f->ops, user);
    if (encoding_of(&user->results[0]) == layout)
      f->removed += in_block(f, ir_type_num_elements(user->results[0].type));
    return true;
  }
  if (is_elementwise_tensor_op(user)) {
    if (!operands_available(s, user, f, layout)) return false;
    ptr_list_push(&f->ops, user);
    forward_carry_operands(f, user, layout);
    forward_add_value(f, &user->results[0], layout);
    return true;
  }
  switch (user->kind) {
  case OP_BROADCAST:
    if (user->num_results != 1 || !is_tensor(&user->results[0])) return false;
    ptr_list_push(&f->ops, user);
    forward_add_value(f, &user->results[0], layout);
    return true;
  case OP_EXPAND_DIMS: {
    const ir_attr *result = layout_infer_expand_dims_result(layout, (int)ir_op_get_int_attr(user, "axis", 0));
    if (!result || !is_tensor(&user->results[0])) return false;
    ptr_list_push(&f->ops, user);
    forward_add_value(f, &user->results[0], result);
    return true;
  }
  case OP_TRANS:
  case OP_RESHAPE:
  case OP_SPLIT:
  case OP_JOIN: {
    /* a renaming of registers in the new layout too (a join once both halves have it) */
    if (user->kind == OP_JOIN && !operands_available(s, user, f, layout)) return false;
    const ir_attr *result = renamed_result_layout(s->ctx, user, layout);
    if (!result || !layout_can_host_clones(result)) return false;
    ptr_list_push(&f->ops, user);
    if (user->kind == OP_JOIN) forward_carry_operands(f, user, layout);
    for (int r = 0; r < user->num_results; r++) forward_add_value(f, &user->results[r], result);
    return true;
  }
  case OP_DESC_STORE:
  case OP_DESC_REDUCE:
  case OP_LOCAL_ALLOC:
    /* the tile goes to memory (a TMA store's shared buffer): any layout stores it */
    if (user->num_results > 1 || (user->kind == OP_LOCAL_ALLOC && user->num_operands != 1)) return false;
    ptr_list_push(&f->ops, user);
    return true;
  case OP_REDUCE: {
    if (!operands_available(s, user, f, layout)) return false;
    int axis = (int)ir_op_get_int_attr(user, "axis", 0);
    ptr_list_push(&f->ops, user);
    forward_carry_operands(f, user, layout);
    for (int r = 0; r < user->num_results; r++)
      if (is_tensor(&user->results[r]))
        forward_add_value(f, &user->results[r], layout_infer_reduce_result(s->ctx, layout, axis));
    return true;
  }
  default: return false;
  }
}

/* True when v can be had in `layout` without a conversion (its producers cloned in it; within
 * `loop`'s body when loop is not NULL, else before the loop). */
static bool remat_is_free(rlc_state *s, ir_value *v, const ir_attr *layout, ir_op *loop) {
  remat_plan plan = plan_start(s->ctx, 0);
  bool free_remat = plan_remat(s, v, layout, loop, &plan) && plan.num_converts == 0;
  plan_free(&plan);
  return free_remat;
}

/* Each carried iter arg must get its next value in its new layout for free: the yielded value
 * moves with the set to the same layout, or is rebuilt in it without a conversion (as a
 * conversion from it). The others are pinned for the next attempt; false when there are any. */
static bool forward_check_carried(rlc_state *s, forward_set *f) {
  bool ok = true;
  ir_op *yield = f->loop ? ir_block_terminator(f->loop->regions[0].first) : NULL;
  for (int i = 0; i < f->iter_args.count; i++) {
    ir_value *arg = f->iter_args.items[i];
    const ir_attr *layout = forward_layout(f, arg);
    ir_value *next = yield->operands[arg->index - 1].value;
    const ir_attr *next_layout = forward_layout(f, next);
    bool carried = next_layout ? next_layout == layout : remat_is_free(s, next, layout, f->loop);
    if (!carried) {
      ptr_list_push(f->pinned, arg);
      ok = false;
    }
  }
  return ok;
}

/* What carrying the set's iter args costs and saves: the loop result converted back after the
 * loop where it is used, an init that cannot be rebuilt in the new layout converted before it,
 * and a yielded conversion from the new layout that dies. */
static void forward_count_carried(rlc_state *s, forward_set *f) {
  ir_op *yield = f->loop ? ir_block_terminator(f->loop->regions[0].first) : NULL;
  for (int i = 0; i < f->iter_args.count; i++) {
    ir_value *arg = f->iter_args.items[i];
    int k = arg->index - 1;
    const ir_attr *layout = forward_layout(f, arg);
    int64_t elems = ir_type_num_elements(arg->type);
    ir_value *next = yield->operands[k].value;
    if (!forward_layout(f, next) && next->def_op && is_convert(next->def_op) && !next->first_use->next_use)
      f->removed += in_block(f, elems);
    if (f->loop->results[k].first_use) f->added += elems;
    if (!remat_is_free(s, f->loop->operands[3 + k].value, layout, NULL)) f->added += elems;
  }
}

/* Grows the set to a fixed point (an op whose other operand joins the set later, as in
 * x - broadcast(max(x)), is accepted on a later sweep), then counts the conversions. A value
 * yielded by the loop whose body this is takes its iter arg along (and the other way round), so
 * that a loop-carried accumulator or row statistic stays in the new layout. False when an iter
 * arg could not be carried after all: it is pinned and the caller collects again. */
static bool forward_collect(rlc_state *s, ir_op *cvt, forward_set *f, const ir_attr *from) {
  ir_block *block = cvt->parent;
  forward_add_value(f, &cvt->results[0], from);
  for (bool grew = true; grew;) {
    grew = false;
    for (int next = 0; next < f->values.count; next++) {
      ir_value *w = f->values.items[next];
      const ir_attr *layout = f->layouts.items[next];
      for (ir_operand *u = w->first_use; u; u = u->next_use) {
        ir_op *user = u->owner;
        /* users in other blocks (loop bodies) would get a conversion inside them */
        if (ptr_list_contains(&f->ops, user) || user->parent != block || ptr_list_contains(&f->rejected, user)) continue;
        if (f->loop && user->kind == OP_SCF_YIELD) {
          if (u->index + 1 < block->num_args && forward_carry(f, block->args[u->index + 1], layout)) grew = true;
          continue;
        }
        if (forward_accept(s, f, user, layout)) grew = true;
        else if (!is_elementwise_tensor_op(user) && user->kind != OP_REDUCE) ptr_list_push(&f->rejected, user);
      }
    }
  }
  if (!forward_check_carried(s, f)) return false;
  for (int i = 0; i < f->values.count; i++) {
    ir_value *w = f->values.items[i];
    for (ir_operand *u = w->first_use; u; u = u->next_use)
      if (!forward_use_stays(f, u)) forward_exit(f, w);
  }
  for (int i = 0; i < f->exits.count; i++)
    if (f->exits.items[i] != &cvt->results[0])
      f->added += in_block(f, ir_type_num_elements(((ir_value *)f->exits.items[i])->type));
  if (!ptr_list_contains(&f->exits, &cvt->results[0]))
    f->removed += in_block(f, ir_type_num_elements(cvt->results[0].type));
  forward_count_carried(s, f);
  return true;
}

/* Every op of the set sees its moving operands in one layout (paths through reductions and
 * expand_dims could disagree). */
static bool forward_consistent(const forward_set *f) {
  for (int i = 0; i < f->ops.count; i++) {
    const ir_op *op = f->ops.items[i];
    if (is_convert(op) || op->kind == OP_BROADCAST || op->kind == OP_EXPAND_DIMS) continue;
    const ir_attr *first = NULL;
    for (int k = 0; k < op->num_operands; k++) {
      const ir_attr *l = op->operands[k].value ? forward_layout(f, op->operands[k].value) : NULL;
      if (!l) continue;
      if (first && l != first) return false;
      first = l;
    }
  }
  return true;
}

/* v was retyped from `old`: its uses that do not see the new layout go through one conversion
 * back, right after v's definition (the top of the body for an iter arg, after the loop for a
 * loop result). */
static void forward_convert_exits(rlc_state *s, const forward_set *f, ir_value *v, const ir_type *old) {
  ptr_list exits = {s->ctx, NULL, 0, 0};
  for (ir_operand *u = v->first_use; u; u = u->next_use)
    if (!forward_use_stays(f, u)) ptr_list_push(&exits, u);
  if (exits.count) {
    ir_value *back = convert_after_def(s->ctx, v, old->encoding);
    for (int i = 0; i < exits.count; i++) {
      ir_operand *u = exits.items[i];
      ir_op_set_operand(u->owner, u->index, back);
    }
  }
  ptr_list_free(&exits);
}

/* Rewrites one op of the set: operands to their new layouts, results retyped in place, users
 * outside the set fed through a conversion back to the old type. */
static void forward_rewrite_op(rlc_state *s, const forward_set *f, ir_op *op, ir_op *cvt) {
  ir_value *src = cvt->operands[0].value;
  /* the layout of the op's elementwise operands: that of the one that moves with the set */
  const ir_attr *operand_layout = NULL;
  for (int i = 0; i < op->num_operands && !operand_layout; i++)
    if (op->operands[i].value) operand_layout = forward_layout(f, op->operands[i].value);
  for (int i = 0; i < op->num_operands; i++) {
    ir_value *o = op->operands[i].value;
    if (o == &cvt->results[0]) ir_op_set_operand(op, i, src);
    else if (is_tensor(o) && !forward_layout(f, o) && operand_layout && !is_convert(op))
      ir_op_set_operand(op, i, remat(s, o, operand_layout, NULL));
  }
  if (is_convert(op)) return;
  for (int r = 0; r < op->num_results; r++) {
    const ir_attr *layout = forward_layout(f, &op->results[r]);
    if (!layout) continue;
    const ir_type *old = op->results[r].type;
    op->results[r].type = ir_type_with_encoding(s->ctx, old, layout);
    forward_convert_exits(s, f, &op->results[r], old);
  }
}

/* The loop carries iter arg `arg` in its new layout: the argument and the loop result are
 * retyped, the init rebuilt (or converted) in it before the loop, users that keep the old
 * layout (after the loop, or in the body outside the set) converted back. */
static void forward_rewrite_carried(rlc_state *s, const forward_set *f, ir_value *arg) {
  int k = arg->index - 1;
  const ir_attr *layout = forward_layout(f, arg);
  const ir_type *old = arg->type, *type = ir_type_with_encoding(s->ctx, old, layout);
  ir_value *init = f->loop->operands[3 + k].value;
  ir_value *new_init =
      remat_is_free(s, init, layout, NULL) ? remat(s, init, layout, NULL) : convert_after_def(s->ctx, init, layout);
  ir_op_set_operand(f->loop, 3 + k, new_init);
  arg->type = type;
  f->loop->results[k].type = type;
  forward_convert_exits(s, f, &f->loop->results[k], old);
  forward_convert_exits(s, f, arg, old);
}

/* The yielded values of carried iter args that did not move with the set, rebuilt in the new
 * layout (forward_check_carried proved that needs no conversion). */
static void forward_rewrite_yield(rlc_state *s, const forward_set *f) {
  ir_op *yield = ir_block_terminator(f->loop->regions[0].first);
  for (int i = 0; i < f->iter_args.count; i++) {
    ir_value *arg = f->iter_args.items[i];
    ir_value *next = yield->operands[arg->index - 1].value;
    if (next->type != arg->type) ir_op_set_operand(yield, arg->index - 1, remat(s, next, encoding_of(arg), f->loop));
  }
}

static void forward_free(forward_set *f) {
  ptr_list_free(&f->ops);
  ptr_list_free(&f->values);
  ptr_list_free(&f->layouts);
  ptr_list_free(&f->exits);
  ptr_list_free(&f->rejected);
  ptr_list_free(&f->iter_args);
}

static bool forward_one(rlc_state *s, ir_op *cvt) {
  const ir_attr *from = encoding_of(cvt->operands[0].value), *to = encoding_of(&cvt->results[0]);
  if (!cvt->results[0].first_use || from == to || !layout_can_host_clones(from) || !layout_can_host_clones(to))
    return false;
  ir_block *block = cvt->parent;
  ptr_list pinned = {s->ctx, NULL, 0, 0};
  bool apply = false;
  /* each failed attempt pins at least one more iter arg, so this ends */
  for (int attempt = 0; attempt <= block->num_args; attempt++) {
    ptr_list empty = {s->ctx, NULL, 0, 0};
    forward_set f = {empty, empty, empty, empty, empty, empty, &pinned, body_loop(block), 0, 0};
    bool complete = forward_collect(s, cvt, &f, from);
    apply = complete && f.ops.count > 0 && f.added < f.removed && forward_consistent(&f);
    if (apply) {
      for (int i = 0; i < f.iter_args.count; i++) forward_rewrite_carried(s, &f, f.iter_args.items[i]);
      /* in block order, so an op's moving operands are retyped before it is */
      for (ir_op *op = block->first; op; op = op->next)
        if (ptr_list_contains(&f.ops, op)) forward_rewrite_op(s, &f, op, cvt);
      if (f.iter_args.count) forward_rewrite_yield(s, &f);
    }
    forward_free(&f);
    if (complete) break;
  }
  ptr_list_free(&pinned);
  return apply;
}

/* ------------------------------------------------------------------ folding and cleanup */

static bool collect_converts(ir_op *op, void *user) {
  if (is_convert(op)) ptr_list_push(user, op);
  return true;
}

static bool fold_converts(rlc_state *s, ir_op *module) {
  ptr_list cvts = {s->ctx, NULL, 0, 0};
  ir_walk(module, collect_converts, &cvts);
  bool changed = false;
  for (int i = 0; i < cvts.count; i++) {
    ir_op *cvt = cvts.items[i];
    ir_value *src = cvt->operands[0].value;
    /* convert(convert(x)) converts x; the inner one dies if nothing else uses it */
    while (src->def_op && is_convert(src->def_op)) {
      src = src->def_op->operands[0].value;
      ir_op_set_operand(cvt, 0, src);
      changed = true;
    }
    if (src->type == cvt->results[0].type) {
      ir_value_replace_all_uses(&cvt->results[0], src);
      ir_op_erase(cvt);
      changed = true;
    }
  }
  ptr_list_free(&cvts);
  return changed;
}

typedef bool (*convert_rewrite_fn)(rlc_state *s, ir_op *cvt);

/* Runs fn on every conversion that was there when it started (none is erased meanwhile). */
static bool rewrite_converts(rlc_state *s, ir_op *module, convert_rewrite_fn fn) {
  ptr_list cvts = {s->ctx, NULL, 0, 0};
  ir_walk(module, collect_converts, &cvts);
  bool changed = false;
  for (int i = 0; i < cvts.count; i++)
    if (is_convert(cvts.items[i]) && fn(s, cvts.items[i])) changed = true;
  ptr_list_free(&cvts);
  memo_clear(s);
  return changed;
}

/* ------------------------------------------------------------------ the pass */

bool gemmc_pass_remove_layout_conversions(const gemmc_pass_context *pc, ir_op *module) {
  gemmc_context *ctx = pc->ctx;
  rlc_state s = {ctx, {ctx, NULL, 0, 0}};
  for (int round = 0; round < MAX_ROUNDS; round++) {
    bool changed = fold_converts(&s, module);
    changed |= rewrite_converts(&s, module, forward_one);
    changed |= fold_converts(&s, module);
    changed |= rewrite_converts(&s, module, backward_one);
    changed |= fold_converts(&s, module);
    changed |= erase_dead_pure_ops(ctx, module);
    if (!changed) break;
  }
  ptr_map_free(&s.memo);
  return true;
}

/* --assign-layouts (alias --convert-triton-to-tritongpu): TTIR -> TTGIR, every tensor gets a layout (default #ttg.blocked, slices, dot operands). */
#include <stdio.h>
#include <string.h>

#include "util.h"
#include "context_internal.h"
#include "gemmc/layout.h"
#include "gemmc/passes.h"

/*
 * How layouts are chosen. Values that must share one encoding (the operands and results of an
 * elementwise op, a broadcast, a load or store, the values a loop carries) form a group
 * (union-find). Each group gets one layout:
 *   1. a layout its producer imposes: tt.reduce gives slice(axis, layout of its input),
 *      tt.dot gives Triton's FMA accumulator layout, tt.trans the permuted input layout, a
 *      value that already has an encoding keeps it;
 *   2. else the slice a tt.expand_dims consumer asks for: slice(axis, layout of its result),
 *      which puts make_range / splat / arithmetic chains straight into the slice layout;
 *   3. else the default blocked layout of the group's largest shape.
 * Every place where a value's group layout differs from what an op needs (a second
 * expand_dims with another axis, tt.dot operands, a reduce result in another group) gets a
 * ttg.convert_layout, as Triton's convert-triton-to-tritongpu inserts them.
 */

typedef enum { REQ_NONE, REQ_REDUCE, REQ_DOT, REQ_RENAME, REQ_EXISTING } result_req_kind;

typedef struct group_info {
  int parent;   /* union-find */
  /* producer-imposed layout (first one found) */
  result_req_kind req;
  int req_value;         /* the value with the requirement */
  int req_src;           /* REQ_REDUCE / REQ_RENAME: index of the input value */
  int req_axis;          /* REQ_REDUCE */
  const ir_attr *req_layout; /* REQ_DOT / REQ_EXISTING */
  /* first expand_dims consumer */
  bool has_slice_req;
  int slice_axis, slice_result;
  /* resolution */
  int state; /* 0 unresolved, 1 resolving, 2 done */
  const ir_attr *layout;
  const int64_t *big_shape;
  int64_t big_elems;
  int rank;
} group_info;

typedef struct assign_state {
  gemmc_context *ctx;
  int num_warps, threads_per_warp;
  /* value table: the tensors in the order first seen, and value -> index into it */
  ir_value **values;
  int count, cap;
  ptr_map index;
  group_info *groups;
  bool ok;
} assign_state;

/* ------------------------------------------------------------------ value table */


static int value_find(const assign_state *s, const ir_value *v) {
  const ptr_map_value *k = ptr_map_find(&s->index, v, NULL);
  return k ? (int)k->num : -1;
}

static bool is_tensor(const ir_value *v) { return v && v->type && v->type->kind == TY_TENSOR; }

/* Index of a tensor value (added on first sight), -1 for anything else. */
static int value_index(assign_state *s, ir_value *v) {
  if (!is_tensor(v)) return -1;
  int k = value_find(s, v);
  if (k >= 0) return k;
  if (s->count == s->cap) {
    int ncap = s->cap ? s->cap * 2 : 256;
    s->values = ctx_raw_realloc(s->ctx, s->values, (size_t)s->cap * sizeof *s->values, (size_t)ncap * sizeof *s->values);
    s->cap = ncap;
  }
  ptr_map_value *slot = ptr_map_insert(&s->index, v, NULL);
  if (!slot) return -1;
  slot->num = s->count;
  s->values[s->count++] = v;
  return s->count - 1;
}

/* ------------------------------------------------------------------ union-find */

static int find(assign_state *s, int k) {
  while (s->groups[k].parent != k) {
    s->groups[k].parent = s->groups[s->groups[k].parent].parent;
    k = s->groups[k].parent;
  }
  return k;
}

static void unite(assign_state *s, ir_value *a, ir_value *b) {
  int ia = value_find(s, a), ib = value_find(s, b);
  if (ia < 0 || ib < 0) return;
  ia = find(s, ia);
  ib = find(s, ib);
  if (ia == ib) return;
  /* the lower index (earlier in the program) stays the root, so "first" requirements win */
  if (ib < ia) {
    int t = ia;
    ia = ib;
    ib = t;
  }
  group_info *ga = &s->groups[ia], *gb = &s->groups[ib];
  gb->parent = ia;
  if (ga->req == REQ_NONE && gb->req != REQ_NONE) {
    ga->req = gb->req;
    ga->req_value = gb->req_value;
    ga->req_src = gb->req_src;
    ga->req_axis = gb->req_axis;
    ga->req_layout = gb->req_layout;
  }
  if (!ga->has_slice_req && gb->has_slice_req) {
    ga->has_slice_req = true;
    ga->slice_axis = gb->slice_axis;
    ga->slice_result = gb->slice_result;
  }
  if (gb->big_elems > ga->big_elems) {
    ga->big_elems = gb->big_elems;
    ga->big_shape = gb->big_shape;
  }
}

/* ------------------------------------------------------------------ collecting */

static bool collect_values(ir_op *op, void *user) {
  assign_state *s = user;
  for (int r = 0; r < op->num_regions; r++)
    for (ir_block *b = op->regions[r].first; b; b = b->next)
      for (int i = 0; i < b->num_args; i++) value_index(s, b->args[i]);
  for (int i = 0; i < op->num_results; i++) value_index(s, &op->results[i]);
  return true;
}

static bool is_same_encoding_op(const ir_op *op) {
  if (ir_op_info_of(op->kind)->traits & TRAIT_ELEMENTWISE) return true;
  switch (op->kind) {
  case OP_BROADCAST:
  case OP_LOAD:
  case OP_STORE:
  case OP_ATOMIC_RMW:
  case OP_ATOMIC_CAS:
  case OP_ASYNC_COPY:
  case OP_SCAN: return true;
  default: return false;
  }
}

static void set_result_req(assign_state *s, ir_value *v, result_req_kind kind, group_info *proto) {
  int k = value_find(s, v);
  if (k < 0) return;
  group_info *g = &s->groups[find(s, k)];
  if (g->req != REQ_NONE) return; /* the first requirement of a group wins */
  g->req = kind;
  g->req_value = k;
  g->req_src = proto->req_src;
  g->req_axis = proto->req_axis;
  g->req_layout = proto->req_layout;
}

/* Triton's layout for a tt.dot result on the FMA path: 2x2 or 4x4 per thread when there are
 * enough elements, row-major. */
static const ir_attr *dot_result_layout(assign_state *s, const ir_type *t) {
  int rank = t->rank;
  int spt[IR_MAX_RANK], order[IR_MAX_RANK];
  for (int d = 0; d < rank; d++) {
    spt[d] = 1;
    order[d] = rank - 1 - d;
  }
  int64_t per_thread = ir_type_num_elements(t) / ((int64_t)s->num_warps * s->threads_per_warp);
  if (rank >= 2) {
    if (per_thread >= 4) spt[rank - 1] = spt[rank - 2] = 2;
    if (per_thread >= 16) spt[rank - 1] = spt[rank - 2] = 4;
    if (spt[rank - 1] > t->shape[rank - 1]) spt[rank - 1] = (int)t->shape[rank - 1];
    if (spt[rank - 2] > t->shape[rank - 2]) spt[rank - 2] = (int)t->shape[rank - 2];
  }
  return layout_blocked_get(s->ctx, rank, t->shape, spt, order, s->num_warps, s->threads_per_warp);
}

static bool collect_constraints(ir_op *op, void *user) {
  assign_state *s = user;
  group_info proto;
  memset(&proto, 0, sizeof proto);
  if (is_same_encoding_op(op)) {
    ir_value *first = NULL;
    for (int i = 0; i < op->num_operands; i++)
      if (is_tensor(op->operands[i].value)) {
        if (first) unite(s, first, op->operands[i].value);
        else first = op->operands[i].value;
      }
    for (int i = 0; i < op->num_results; i++)
      if (is_tensor(&op->results[i])) {
        if (first) unite(s, first, &op->results[i]);
        else first = &op->results[i];
      }
  }
  switch (op->kind) {
  case OP_SCF_FOR: {
    ir_block *body = op->num_regions ? op->regions[0].first : NULL;
    ir_op *yield = body ? ir_block_terminator(body) : NULL;
    int n = op->num_operands - 3;
    for (int i = 0; i < n; i++) {
      ir_value *init = op->operands[3 + i].value;
      if (body && 1 + i < body->num_args) unite(s, init, body->args[1 + i]);
      if (i < op->num_results) unite(s, init, &op->results[i]);
      if (yield && i < yield->num_operands) unite(s, init, yield->operands[i].value);
    }
    break;
  }
  case OP_SCF_WHILE: {
    /* inits, before's arguments and after's yield; forwarded values, after's arguments and results */
    ir_block *before = op->num_regions > 1 ? op->regions[0].first : NULL;
    ir_block *after = op->num_regions > 1 ? op->regions[1].first : NULL;
    ir_op *cond = before ? ir_block_terminator(before) : NULL;
    ir_op *yield = after ? ir_block_terminator(after) : NULL;
    for (int i = 0; i < op->num_operands; i++) {
      ir_value *init = op->operands[i].value;
      if (before && i < before->num_args) unite(s, init, before->args[i]);
      if (yield && i < yield->num_operands) unite(s, init, yield->operands[i].value);
    }
    for (int i = 0; i < op->num_results; i++) {
      if (cond && 1 + i < cond->num_operands) unite(s, &op->results[i], cond->operands[1 + i].value);
      if (after && i < after->num_args) unite(s, &op->results[i], after->args[i]);
    }
    break;
  }
  case OP_SCF_IF:
    for (int r = 0; r < op->num_regions && r < 2; r++) {
      ir_op *yield = op->regions[r].first ? ir_block_terminator(op->regions[r].first) : NULL;
      for (int i = 0; yield && i < yield->num_operands && i < op->num_results; i++)
        unite(s, &op->results[i], yield->operands[i].value);
    }
    break;
  case OP_EXPAND_DIMS: {
    int k = value_find(s, op->operands[0].value);
    if (k < 0 || !is_tensor(&op->results[0])) break;
    group_info *g = &s->groups[find(s, k)];
    if (!g->has_slice_req) {
      g->has_slice_req = true;
      g->slice_axis = (int)ir_op_get_int_attr(op, "axis", 0);
      g->slice_result = value_find(s, &op->results[0]);
    }
    break;
  }
  case OP_REDUCE: {
    int axis = (int)ir_op_get_int_attr(op, "axis", 0);
    for (int i = 0; i < op->num_results && i < op->num_operands; i++) {
      int src = value_find(s, op->operands[i].value);
      if (src < 0 || !is_tensor(&op->results[i])) continue;
      proto.req_src = src;
      proto.req_axis = axis;
      set_result_req(s, &op->results[i], REQ_REDUCE, &proto);
    }
    break;
  }
  case OP_HISTOGRAM: /* the mask in the source's layout */
    if (op->num_operands > 1 && is_tensor(op->operands[0].value) && is_tensor(op->operands[1].value))
      unite(s, op->operands[0].value, op->operands[1].value);
    break;
  case OP_GATHER: /* the result in the indices' layout, as Triton's verifier requires */
    if (is_tensor(op->operands[1].value) && is_tensor(&op->results[0]))
      unite(s, op->operands[1].value, &op->results[0]);
    break;
  case OP_DOT:
    if (is_tensor(&op->results[0])) {
      unite(s, op->operands[2].value, &op->results[0]);
      proto.req_layout = dot_result_layout(s, op->results[0].type);
      set_result_req(s, &op->results[0], REQ_DOT, &proto);
    }
    break;
  case OP_JOIN: /* both halves in one layout */
    if (is_tensor(op->operands[0].value) && is_tensor(op->operands[1].value))
      unite(s, op->operands[0].value, op->operands[1].value);
    /* fall through */
  case OP_TRANS:
  case OP_RESHAPE:
  case OP_SPLIT: {
    int src = value_find(s, op->operands[0].value);
    if (src < 0) break;
    proto.req_src = src;
    for (int i = 0; i < op->num_results; i++)
      if (is_tensor(&op->results[i])) set_result_req(s, &op->results[i], REQ_RENAME, &proto);
    break;
  }
  default: break;
  }
  return true;
}

/* ------------------------------------------------------------------ resolution */

static const ir_attr *group_layout(assign_state *s, int g);

static const ir_attr *value_layout(assign_state *s, int k) { return group_layout(s, find(s, k)); }

/* The layout a producer imposes on its result (REQ_*), computed from its inputs' groups. */
static const ir_attr *required_result_layout(assign_state *s, const group_info *g) {
  switch (g->req) {
  case REQ_REDUCE: return layout_infer_reduce_result(s->ctx, value_layout(s, g->req_src), g->req_axis);
  case REQ_DOT:
  case REQ_EXISTING: return g->req_layout;
  case REQ_RENAME:
    return renamed_result_layout(s->ctx, s->values[g->req_value]->def_op, value_layout(s, g->req_src));
  default: return NULL;
  }
}

static const ir_attr *group_layout(assign_state *s, int gi) {
  group_info *g = &s->groups[gi];
  if (g->state == 2) return g->layout;
  const ir_attr *layout = NULL;
  if (g->state == 0) {
    g->state = 1; /* a cycle (x + trans(x)) falls back to the default below */
    if (g->req != REQ_NONE) layout = required_result_layout(s, g);
    if (!layout && g->has_slice_req && g->slice_result >= 0)
      layout = layout_infer_expand_dims_operand(s->ctx, value_layout(s, g->slice_result), g->slice_axis);
  }
  if (!layout) layout = layout_default_blocked(s->ctx, g->rank, g->big_shape, s->num_warps, s->threads_per_warp);
  g->layout = layout;
  g->state = 2;
  return layout;
}

/* ------------------------------------------------------------------ rewriting */

static ir_value *insert_convert_before(assign_state *s, ir_op *anchor, ir_value *v, const ir_attr *layout) {
  return convert_layout_before(s->ctx, anchor, v, ir_type_with_encoding(s->ctx, v->type, layout));
}

/* The value keeps `required` (its producer's layout); its users get the group's layout. */
static void convert_result(assign_state *s, ir_value *v, const ir_attr *required) {
  const ir_type *group_type = v->type;
  v->type = ir_type_with_encoding(s->ctx, v->type, required);
  ir_op *def = v->def_op;
  ir_op *cvt = convert_layout_after(s->ctx, def, v, group_type)->def_op;
  /* move every use except the conversion itself */
  ir_value *to = &cvt->results[0];
  ir_operand *u = v->first_use;
  while (u) {
    ir_operand *next = u->next_use;
    if (u->owner != cvt) ir_op_set_operand(u->owner, u->index, to);
    u = next;
  }
}

/* A dense constant's attribute carries its type: give it the layout too. */
static void retype_constant(assign_state *s, ir_op *op) {
  const ir_attr *v = ir_op_get_attr(op, "value");
  if (!v || v->kind != AT_DENSE || !v->type || v->type == op->results[0].type) return;
  ir_op_set_attr(s->ctx, op, "value",
                 ir_dense_attr(s->ctx, op->results[0].type, v->dense_splat, v->num_elems, v->elems));
}

typedef struct fix_walk {
  assign_state *s;
} fix_walk;

/* Operand-side needs: expand_dims wants slice(axis, result layout), tt.dot wants dot_op. */
static bool fix_operands(ir_op *op, void *user) {
  assign_state *s = ((fix_walk *)user)->s;
  if (op->kind == OP_EXPAND_DIMS && is_tensor(op->operands[0].value) && is_tensor(&op->results[0])) {
    int axis = (int)ir_op_get_int_attr(op, "axis", 0);
    const ir_attr *want = layout_infer_expand_dims_operand(s->ctx, op->results[0].type->encoding, axis);
    if (op->operands[0].value->type->encoding != want)
      ir_op_set_operand(op, 0, insert_convert_before(s, op, op->operands[0].value, want));
  } else if (op->kind == OP_DOT && is_tensor(&op->results[0])) {
    const ir_attr *parent = op->results[0].type->encoding;
    for (int i = 0; i < 2; i++) {
      ir_value *v = op->operands[i].value;
      if (!is_tensor(v)) continue;
      const ir_attr *have = v->type->encoding;
      /* an operand laid out by the input for this parent keeps its kWidth */
      if (have && have->kind == AT_DOT_OP && have->layout.op_idx == i && have->layout.parent == parent) continue;
      const ir_attr *want = layout_dot_op_get(s->ctx, i, parent, 0);
      if (have != want) ir_op_set_operand(op, i, insert_convert_before(s, op, v, want));
    }
    /* The accumulator's group may have chosen another layout than the dot's result (a zero
     * constant shared by dots of one shape and by a tl.where): it converts, as Triton's
     * convert-triton-to-tritongpu converts c to the result's encoding. */
    ir_value *acc = op->num_operands > 2 ? op->operands[2].value : NULL;
    if (is_tensor(acc) && acc->type->encoding != parent)
      ir_op_set_operand(op, 2, insert_convert_before(s, op, acc, parent));
  } else if (op->kind == OP_SPLIT && is_tensor(op->operands[0].value) && is_tensor(&op->results[0])) {
    /* An operand whose halves are not one register bit apart: convert it to the layout that
     * joining the results' layout gives, which splits back into it. */
    const ir_type *st = op->operands[0].value->type, *rt = op->results[0].type;
    if (layout_infer_split_result(s->ctx, st->encoding, st->rank, st->shape) != rt->encoding) {
      const ir_attr *want = layout_infer_join_result(s->ctx, rt->encoding, rt->rank, rt->shape);
      if (want && want != st->encoding)
        ir_op_set_operand(op, 0, insert_convert_before(s, op, op->operands[0].value, want));
    }
  } else if (op->kind == OP_JOIN && is_tensor(op->operands[0].value) && is_tensor(op->operands[1].value)) {
    const ir_attr *first = op->operands[0].value->type->encoding;
    if (op->operands[1].value->type->encoding != first)
      ir_op_set_operand(op, 1, insert_convert_before(s, op, op->operands[1].value, first));
  } else if (op->kind == OP_CONSTANT && op->num_results == 1 && is_tensor(&op->results[0])) {
    retype_constant(s, op);
  }
  return true;
}

/* Tensor descriptors (tt.make_tensor_descriptor results and !tt.tensordesc kernel arguments)
 * get the shared layout their TMA copies write: the nvmma_shared of the block, row-major, as
 * Triton's TTGIR gives them. */
static const ir_type *descriptor_with_layout(gemmc_context *ctx, const ir_type *t) {
  if (t->kind != TY_TENSORDESC || t->encoding || t->rank < 1 || t->rank > IR_MAX_RANK) return t;
  int order[IR_MAX_RANK];
  for (int d = 0; d < t->rank; d++) order[d] = t->rank - 1 - d;
  const ir_attr *enc = layout_nvmma_shared_get(ctx, t->rank, t->shape, order, (int)ir_type_bits(t->elem), false);
  return enc ? ir_tensordesc_type(ctx, t->rank, t->shape, t->elem, enc) : t;
}

static bool retype_descriptors(ir_op *op, void *user) {
  gemmc_context *ctx = user;
  for (int i = 0; i < op->num_results; i++) op->results[i].type = descriptor_with_layout(ctx, op->results[i].type);
  for (int r = 0; r < op->num_regions; r++)
    for (ir_block *b = op->regions[r].first; b; b = b->next)
      for (int a = 0; a < b->num_args; a++) b->args[a]->type = descriptor_with_layout(ctx, b->args[a]->type);
  return true;
}

/* tt.func's type follows its (re-typed) arguments and returned values. */
static void retype_function(assign_state *s, ir_op *func) {
  ir_block *entry = func->num_regions ? func->regions[0].first : NULL;
  const ir_attr *ft = ir_op_get_attr(func, "function_type");
  if (!entry || !ft || ft->kind != AT_TYPE || !ft->type || ft->type->kind != TY_FUNC) return;
  const ir_type *old = ft->type;
  const ir_type *inputs[64], *results[64];
  if (entry->num_args > 64 || old->num_results > 64) return;
  for (int i = 0; i < entry->num_args; i++) inputs[i] = entry->args[i]->type;
  for (int i = 0; i < old->num_results; i++) results[i] = old->results[i];
  for (ir_block *b = func->regions[0].first; b; b = b->next) {
    ir_op *ret = ir_block_terminator(b);
    if (ret && ret->kind == OP_RETURN)
      for (int i = 0; i < ret->num_operands && i < old->num_results; i++) results[i] = ret->operands[i].value->type;
  }
  ir_op_set_attr(s->ctx, func, "function_type",
                 ir_type_attr(s->ctx, ir_func_type(s->ctx, entry->num_args, inputs, old->num_results, results)));
}

bool gemmc_pass_assign_layouts(const gemmc_pass_context *pc, ir_op *module) {
  gemmc_context *ctx = pc->ctx;
  int num_warps = pc->num_warps, threads_per_warp = pc->threads_per_warp, num_ctas = pc->num_ctas;
  if (num_warps < 1 || (num_warps & (num_warps - 1))) {
    ir_op_error(ctx, module, "assign-layouts: num-warps must be a power of two, got %d", num_warps);
    return false;
  }
  if (threads_per_warp != 32 && threads_per_warp != 64) {
    ir_op_error(ctx, module, "assign-layouts: threads-per-warp must be 32 or 64, got %d", threads_per_warp);
    return false;
  }
  if (num_ctas != 1) {
    ir_op_error(ctx, module, "assign-layouts: only num-ctas=1 is supported, got %d", num_ctas);
    return false;
  }

  assign_state s;
  memset(&s, 0, sizeof s);
  s.ctx = ctx;
  s.index.ctx = ctx;
  s.num_warps = num_warps;
  s.threads_per_warp = threads_per_warp;
  s.ok = true;
  ir_walk(module, collect_values, &s);
  if (s.count) {
    s.groups = ctx_raw_alloc(ctx, (size_t)s.count * sizeof *s.groups);
    memset(s.groups, 0, (size_t)s.count * sizeof *s.groups);
    for (int k = 0; k < s.count; k++) {
      group_info *g = &s.groups[k];
      const ir_type *t = s.values[k]->type;
      g->parent = k;
      g->slice_result = -1;
      g->rank = t->rank;
      g->big_shape = t->shape;
      g->big_elems = ir_type_num_elements(t);
      if (t->encoding) { /* TTGIR input: what is there stays */
        g->req = REQ_EXISTING;
        g->req_value = k;
        g->req_layout = t->encoding;
      }
    }
    ir_walk(module, collect_constraints, &s);

    /* Resolve every group, then retype; producers whose imposed layout lost to another one in
     * their group convert their result. */
    const ir_attr **layouts = ctx_raw_alloc(ctx, (size_t)s.count * sizeof *layouts);
    for (int k = 0; k < s.count; k++) layouts[k] = value_layout(&s, k);
    for (int k = 0; k < s.count; k++) {
      ir_value *v = s.values[k];
      if (v->type->encoding) {
        layouts[k] = NULL; /* laid out by the input: it keeps its own, whatever its producer */
        continue;
      }
      v->type = ir_type_with_encoding(ctx, v->type, layouts[k]);
    }
    /* A value with its own producer requirement inside a group that chose another layout. */
    for (int k = 0; k < s.count; k++) {
      ir_value *v = s.values[k];
      ir_op *def = v->def_op;
      if (!def || !layouts[k]) continue;
      const ir_attr *required = NULL;
      if (def->kind == OP_REDUCE) {
        for (int i = 0; i < def->num_results && i < def->num_operands; i++)
          if (&def->results[i] == v && is_tensor(def->operands[i].value))
            required = layout_infer_reduce_result(ctx, def->operands[i].value->type->encoding,
                                                  (int)ir_op_get_int_attr(def, "axis", 0));
      } else if (def->kind == OP_DOT) {
        required = dot_result_layout(&s, v->type);
      } else if (op_renames_registers(def) && is_tensor(def->operands[0].value)) {
        required = renamed_result_layout(ctx, def, def->operands[0].value->type->encoding);
      }
      if (required && required != v->type->encoding) convert_result(&s, v, required);
    }
    ctx_raw_free(ctx, layouts, (size_t)s.count * sizeof *layouts);
    fix_walk fw = {&s};
    ir_walk(module, fix_operands, &fw);
  }
  ir_walk(module, retype_descriptors, ctx);
  for (ir_block *b = module->num_regions ? module->regions[0].first : NULL; b; b = b->next)
    for (ir_op *o = b->first; o; o = o->next)
      if (o->kind == OP_FUNC) retype_function(&s, o);

  ir_op_set_attr(ctx, module, "ttg.num-warps", ir_i32_attr(ctx, num_warps));
  ir_op_set_attr(ctx, module, "ttg.threads-per-warp", ir_i32_attr(ctx, threads_per_warp));
  ir_op_set_attr(ctx, module, "ttg.num-ctas", ir_i32_attr(ctx, num_ctas));
  if (pc->target) {
    char target[32];
    gemmc_target_triton_name(pc->target, target, sizeof target);
    ir_op_set_attr(ctx, module, "ttg.target", ir_string_attr(ctx, target, strlen(target)));
  }

  if (s.groups) ctx_raw_free(ctx, s.groups, (size_t)s.count * sizeof *s.groups);
  if (s.values) ctx_raw_free(ctx, s.values, (size_t)s.cap * sizeof *s.values);
  ptr_map_free(&s.index);
  return s.ok;
}

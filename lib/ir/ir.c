/* Ops, blocks, regions and SSA values: creation, use lists, insertion, walking. */
#include <string.h>

#include "context_internal.h"

static const ir_op_info op_infos[OP_COUNT] = {
#define IR_OP(id, name, format, min_operands, max_operands, num_results, num_regions, traits) \
  {name, format, min_operands, max_operands, num_results, num_regions, traits},
#include "gemmc/ops.def"
#undef IR_OP
};

const ir_op_info *ir_op_info_of(ir_op_kind kind) { return &op_infos[kind]; }

bool ir_op_is_pure(const ir_op *op) {
  if (!(op_infos[op->kind].traits & TRAIT_PURE)) return false;
  if (op->kind != OP_ELEMENTWISE_INLINE_ASM) return true;
  const ir_attr *pure = ir_op_get_attr(op, "pure");
  return pure && pure->kind == AT_BOOL && pure->int_value;
}

bool ir_op_kind_from_name(const char *name, size_t len, ir_op_kind *out) {
  if (len == 14 && memcmp(name, "builtin.module", 14) == 0) {
    *out = OP_MODULE;
    return true;
  }
  for (int i = 0; i < OP_COUNT; i++) {
    const char *n = op_infos[i].name;
    if (strlen(n) == len && memcmp(n, name, len) == 0) {
      *out = (ir_op_kind)i;
      return true;
    }
  }
  return false;
}

const char *ir_op_name(const ir_op *op) { return op_infos[op->kind].name; }

const char *ir_op_immediate_attr(ir_op_kind kind, int *bits) {
  switch (kind) {
  case OP_ROCDL_SETPRIO:
    if (bits) *bits = 16;
    return "priority";
  case OP_ROCDL_SCHED_BARRIER:
    if (bits) *bits = 32;
    return "mask";
  default: return NULL;
  }
}

/* ------------------------------------------------------------------ use lists */

static void use_link(ir_operand *u) {
  ir_value *v = u->value;
  if (!v) return;
  u->prev_use = NULL;
  u->next_use = v->first_use;
  if (v->first_use) v->first_use->prev_use = u;
  v->first_use = u;
}

static void use_unlink(ir_operand *u) {
  ir_value *v = u->value;
  if (!v) return;
  if (u->prev_use)
    u->prev_use->next_use = u->next_use;
  else
    v->first_use = u->next_use;
  if (u->next_use) u->next_use->prev_use = u->prev_use;
  u->next_use = u->prev_use = NULL;
}

void ir_op_set_operand(ir_op *op, int index, ir_value *v) {
  ir_operand *u = &op->operands[index];
  use_unlink(u);
  u->value = v;
  use_link(u);
}

ir_op *ir_op_create(gemmc_context *ctx, ir_op_kind kind, int num_operands, ir_value *const *operands,
                    int num_results, const ir_type *const *result_types, int num_regions, ir_loc *loc) {
  ir_op *op = ir_alloc(ctx, sizeof *op);
  op->kind = kind;
  op->loc = loc;
  op->num_operands = num_operands;
  if (num_operands) op->operands = ir_alloc(ctx, sizeof(ir_operand) * (size_t)num_operands);
  for (int i = 0; i < num_operands; i++) {
    op->operands[i].owner = op;
    op->operands[i].index = i;
    if (operands) ir_op_set_operand(op, i, operands[i]);
  }
  op->num_results = num_results;
  if (num_results) op->results = ir_alloc(ctx, sizeof(ir_value) * (size_t)num_results);
  for (int i = 0; i < num_results; i++) {
    op->results[i].type = result_types ? result_types[i] : NULL;
    op->results[i].def_op = op;
    op->results[i].index = i;
  }
  op->num_regions = num_regions;
  if (num_regions) op->regions = ir_alloc(ctx, sizeof(ir_region) * (size_t)num_regions);
  for (int i = 0; i < num_regions; i++) op->regions[i].parent = op;
  return op;
}

/* Operand arrays live in the arena; growing one moves every use record, so relink them. */
static void operands_resize(gemmc_context *ctx, ir_op *op, int n) {
  ir_operand *fresh = n ? ir_alloc(ctx, sizeof(ir_operand) * (size_t)n) : NULL;
  int keep = op->num_operands < n ? op->num_operands : n;
  for (int i = 0; i < op->num_operands; i++) {
    ir_value *v = op->operands[i].value;
    use_unlink(&op->operands[i]);
    if (i < keep) fresh[i].value = v;
  }
  op->operands = fresh;
  op->num_operands = n;
  for (int i = 0; i < n; i++) {
    fresh[i].owner = op;
    fresh[i].index = i;
    use_link(&fresh[i]);
  }
}

void ir_op_add_operand(gemmc_context *ctx, ir_op *op, ir_value *v) {
  operands_resize(ctx, op, op->num_operands + 1);
  ir_op_set_operand(op, op->num_operands - 1, v);
}

void ir_op_remove_operand(ir_op *op, int index) {
  for (int i = index; i < op->num_operands; i++) use_unlink(&op->operands[i]);
  for (int i = index; i + 1 < op->num_operands; i++) {
    op->operands[i].value = op->operands[i + 1].value;
    use_link(&op->operands[i]);
  }
  op->operands[op->num_operands - 1].value = NULL;
  op->num_operands--;
}

/* ------------------------------------------------------------------ attributes on ops */

void ir_op_set_attr(gemmc_context *ctx, ir_op *op, const char *name, const ir_attr *value) {
  const char *iname = ir_intern_string(ctx, name, strlen(name));
  int i = 0;
  while (i < op->num_attrs && strcmp(op->attrs[i].name, iname) < 0) i++;
  if (i < op->num_attrs && op->attrs[i].name == iname) {
    op->attrs[i].value = value;
    return;
  }
  if (op->num_attrs == op->cap_attrs) {
    int ncap = op->cap_attrs ? op->cap_attrs * 2 : 4;
    ir_named_attr *na = ir_alloc(ctx, sizeof *na * (size_t)ncap);
    if (op->num_attrs) memcpy(na, op->attrs, sizeof *na * (size_t)op->num_attrs);
    op->attrs = na;
    op->cap_attrs = ncap;
  }
  memmove(&op->attrs[i + 1], &op->attrs[i], sizeof *op->attrs * (size_t)(op->num_attrs - i));
  op->attrs[i].name = iname;
  op->attrs[i].value = value;
  op->num_attrs++;
}

const ir_attr *ir_op_get_attr(const ir_op *op, const char *name) {
  for (int i = 0; i < op->num_attrs; i++)
    if (strcmp(op->attrs[i].name, name) == 0) return op->attrs[i].value;
  return NULL;
}

bool ir_op_remove_attr(ir_op *op, const char *name) {
  for (int i = 0; i < op->num_attrs; i++)
    if (strcmp(op->attrs[i].name, name) == 0) {
      memmove(&op->attrs[i], &op->attrs[i + 1], sizeof *op->attrs * (size_t)(op->num_attrs - i - 1));
      op->num_attrs--;
      return true;
    }
  return false;
}

int64_t ir_op_get_int_attr(const ir_op *op, const char *name, int64_t default_value) {
  const ir_attr *a = ir_op_get_attr(op, name);
  if (a && (a->kind == AT_INT || a->kind == AT_BOOL)) return a->int_value;
  return default_value;
}

bool ir_op_attr_is_property(const ir_op *op, const char *name) {
  for (int i = 0; i < op->num_props; i++)
    if (strcmp(op->props[i], name) == 0) return true;
  return false;
}

void ir_op_mark_property(gemmc_context *ctx, ir_op *op, const char *name) {
  if (ir_op_attr_is_property(op, name)) return;
  const char **np = ir_alloc(ctx, sizeof(char *) * (size_t)(op->num_props + 1));
  if (op->num_props) memcpy(np, op->props, sizeof(char *) * (size_t)op->num_props);
  np[op->num_props++] = ir_intern_string(ctx, name, strlen(name));
  op->props = np;
}

/* ------------------------------------------------------------------ blocks and regions */

ir_block *ir_block_create(gemmc_context *ctx) { return ir_alloc(ctx, sizeof(ir_block)); }

ir_value *ir_block_add_arg(gemmc_context *ctx, ir_block *block, const ir_type *type, ir_loc *loc) {
  if (block->num_args == block->cap_args) {
    int ncap = block->cap_args ? block->cap_args * 2 : 4;
    ir_value **na = ir_alloc(ctx, sizeof(void *) * (size_t)ncap);
    if (block->num_args) memcpy(na, block->args, sizeof(void *) * (size_t)block->num_args);
    block->args = na;
    block->cap_args = ncap;
  }
  ir_value *v = ir_alloc(ctx, sizeof *v);
  v->type = type;
  v->owner_block = block;
  v->index = block->num_args;
  v->loc = loc;
  block->args[block->num_args++] = v;
  return v;
}

void ir_region_append_block(ir_region *region, ir_block *block) {
  block->parent = region;
  block->prev = region->last;
  block->next = NULL;
  if (region->last)
    region->last->next = block;
  else
    region->first = block;
  region->last = block;
}

void ir_block_append_op(ir_block *block, ir_op *op) {
  op->parent = block;
  op->prev = block->last;
  op->next = NULL;
  if (block->last)
    block->last->next = op;
  else
    block->first = op;
  block->last = op;
}

void ir_op_insert_before(ir_op *anchor, ir_op *op) {
  ir_block *b = anchor->parent;
  op->parent = b;
  op->next = anchor;
  op->prev = anchor->prev;
  if (anchor->prev)
    anchor->prev->next = op;
  else
    b->first = op;
  anchor->prev = op;
}

void ir_op_insert_after(ir_op *anchor, ir_op *op) {
  if (anchor->next) {
    ir_op_insert_before(anchor->next, op);
    return;
  }
  ir_block_append_op(anchor->parent, op);
}

void ir_op_unlink(ir_op *op) {
  ir_block *b = op->parent;
  if (!b) return;
  if (op->prev)
    op->prev->next = op->next;
  else
    b->first = op->next;
  if (op->next)
    op->next->prev = op->prev;
  else
    b->last = op->prev;
  op->prev = op->next = NULL;
  op->parent = NULL;
}

static void drop_uses_rec(ir_op *op) {
  for (int i = 0; i < op->num_operands; i++) use_unlink(&op->operands[i]);
  for (int r = 0; r < op->num_regions; r++)
    for (ir_block *b = op->regions[r].first; b; b = b->next)
      for (ir_op *o = b->first; o; o = o->next) drop_uses_rec(o);
}

void ir_op_erase(ir_op *op) {
  ir_op_unlink(op);
  drop_uses_rec(op);
}

ir_block *ir_region_entry(const ir_region *region) { return region ? region->first : NULL; }

ir_op *ir_block_terminator(const ir_block *block) {
  if (!block || !block->last) return NULL;
  return (op_infos[block->last->kind].traits & TRAIT_TERMINATOR) ? block->last : NULL;
}

void ir_value_replace_all_uses(ir_value *from, ir_value *to) {
  if (from == to) return;
  while (from->first_use) {
    ir_operand *u = from->first_use;
    ir_op_set_operand(u->owner, u->index, to);
  }
}

int ir_value_num_uses(const ir_value *v) {
  int n = 0;
  for (const ir_operand *u = v->first_use; u; u = u->next_use) n++;
  return n;
}

bool ir_value_has_one_use(const ir_value *v) { return v->first_use && !v->first_use->next_use; }

bool ir_walk(ir_op *op, ir_walk_fn fn, void *user) {
  if (!fn(op, user)) return false;
  for (int r = 0; r < op->num_regions; r++)
    for (ir_block *b = op->regions[r].first; b; b = b->next)
      for (ir_op *o = b->first, *next; o; o = next) {
        next = o->next;
        if (!ir_walk(o, fn, user)) return false;
      }
  return true;
}

ir_op *ir_op_parent_op(const ir_op *op) {
  if (!op->parent || !op->parent->parent) return NULL;
  return op->parent->parent->parent;
}

ir_op *ir_op_ancestor_of_kind(ir_op *op, ir_op_kind kind) {
  for (ir_op *o = op; o; o = ir_op_parent_op(o))
    if (o->kind == kind) return o;
  return NULL;
}

ir_op *ir_module_lookup_func(ir_op *module, const char *name) {
  if (!module || module->num_regions < 1) return NULL;
  for (ir_block *b = module->regions[0].first; b; b = b->next)
    for (ir_op *o = b->first; o; o = o->next) {
      if (o->kind != OP_FUNC) continue;
      const ir_attr *n = ir_op_get_attr(o, "sym_name");
      if (n && n->str && strcmp(n->str, name) == 0) return o;
    }
  return NULL;
}

int64_t ir_module_int_attr(const ir_op *module, const char *name, int64_t default_value) {
  if (!module) return default_value;
  return ir_op_get_int_attr(module, name, default_value);
}

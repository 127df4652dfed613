/* Small helpers shared by lib/: pointer lists, the pointer-keyed hash map, op cloning and slices, cmp predicate names, log2. */
#include "util.h"

#include <math.h>
#include <string.h>

#include "context_internal.h"
#include "gemmc/layout.h"

/* ------------------------------------------------------------------ ptr_list */

/* Lists with a capacity up to this are searched item by item; larger ones have an index. */
#define PTR_LIST_SCAN_MAX 32

/* The index of a list: 2 * cap slots right after the items (NULL for short lists); a power of
 * two, since capacities double from 32. NULL items are never indexed (NULL marks a free slot). */
static void **list_index(const ptr_list *l) { return l->cap > PTR_LIST_SCAN_MAX ? l->items + l->cap : NULL; }

static void index_insert(void **index, size_t cap, void *p) {
  size_t i = hash_pointer(p) & (cap - 1);
  while (index[i]) {
    if (index[i] == p) return;
    i = (i + 1) & (cap - 1);
  }
  index[i] = p;
}

void ptr_list_push(ptr_list *l, void *p) {
  if (l->count == l->cap) {
    int ncap = l->cap ? l->cap * 2 : PTR_LIST_SCAN_MAX;
    size_t slots = (size_t)ncap + (ncap > PTR_LIST_SCAN_MAX ? 2 * (size_t)ncap : 0);
    void **grown = ctx_raw_alloc(l->ctx, slots * sizeof *grown);
    if (!grown) return; /* the context records the failure and unwinds to its entry point */
    memset(grown, 0, slots * sizeof *grown);
    if (l->count) memcpy(grown, l->items, (size_t)l->count * sizeof *grown);
    if (l->items) ctx_raw_free(l->ctx, l->items, 0);
    l->items = grown;
    l->cap = ncap;
    void **index = list_index(l);
    for (int i = 0; index && i < l->count; i++)
      if (l->items[i]) index_insert(index, 2 * (size_t)l->cap, l->items[i]);
  }
  l->items[l->count++] = p;
  void **index = list_index(l);
  if (index && p) index_insert(index, 2 * (size_t)l->cap, p);
}

void ptr_list_push_unique(ptr_list *l, void *p) {
  if (!ptr_list_contains(l, p)) ptr_list_push(l, p);
}

void ptr_list_append_unique(ptr_list *l, const ptr_list *from) {
  for (int i = 0; i < from->count; i++) ptr_list_push_unique(l, from->items[i]);
}

bool ptr_list_contains(const ptr_list *l, const void *p) {
  void **index = list_index(l);
  if (index && p) {
    size_t cap = 2 * (size_t)l->cap;
    for (size_t i = hash_pointer(p) & (cap - 1); index[i]; i = (i + 1) & (cap - 1))
      if (index[i] == p) return true;
    return false;
  }
  for (int i = 0; i < l->count; i++)
    if (l->items[i] == p) return true;
  return false;
}

void ptr_list_clear(ptr_list *l) {
  void **index = list_index(l);
  if (index) memset(index, 0, 2 * (size_t)l->cap * sizeof *index);
  l->count = 0;
}

void ptr_list_free(ptr_list *l) {
  if (l->items) ctx_raw_free(l->ctx, l->items, 0); /* the block knows its size */
  l->items = NULL;
  l->count = l->cap = 0;
}

uint64_t hash_pointer(const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

/* ------------------------------------------------------------------ ptr_map */

static size_t pair_slot(const void *key, const void *key2, size_t cap) {
  return (size_t)(hash_pointer(key) ^ hash_pointer(key2) * 0x9e3779b97f4a7c15ULL) & (cap - 1);
}

ptr_map_value *ptr_map_find(const ptr_map *m, const void *key, const void *key2) {
  if (!m->cap) return NULL;
  for (size_t i = pair_slot(key, key2, m->cap);; i = (i + 1) & (m->cap - 1)) {
    ptr_map_entry *e = &m->entries[i];
    if (!e->key) return NULL;
    if (e->key == key && e->key2 == key2) return &e->value;
  }
}

static bool ptr_map_grow(ptr_map *m) {
  size_t ncap = m->cap ? m->cap * 2 : 64;
  ptr_map_entry *fresh = ctx_raw_alloc(m->ctx, ncap * sizeof *fresh);
  if (!fresh) return false;
  memset(fresh, 0, ncap * sizeof *fresh);
  for (size_t i = 0; i < m->cap; i++) {
    const ptr_map_entry *e = &m->entries[i];
    if (!e->key) continue;
    size_t j = pair_slot(e->key, e->key2, ncap);
    while (fresh[j].key) j = (j + 1) & (ncap - 1);
    fresh[j] = *e;
  }
  if (m->entries) ctx_raw_free(m->ctx, m->entries, m->cap * sizeof *m->entries);
  m->entries = fresh;
  m->cap = ncap;
  return true;
}

ptr_map_value *ptr_map_insert(ptr_map *m, const void *key, const void *key2) {
  ptr_map_value *found = ptr_map_find(m, key, key2);
  if (found) return found;
  if ((m->count + 1) * 2 > m->cap && !ptr_map_grow(m)) return NULL;
  size_t i = pair_slot(key, key2, m->cap);
  while (m->entries[i].key) i = (i + 1) & (m->cap - 1);
  ptr_map_entry *e = &m->entries[i];
  e->key = key;
  e->key2 = key2;
  memset(&e->value, 0, sizeof e->value);
  m->count++;
  return &e->value;
}

void *ptr_map_get(const ptr_map *m, const void *key) {
  ptr_map_value *v = ptr_map_find(m, key, NULL);
  return v ? v->ptr : NULL;
}

bool ptr_map_put(ptr_map *m, const void *key, void *value) {
  ptr_map_value *v = ptr_map_insert(m, key, NULL);
  if (!v) return false;
  v->ptr = value;
  return true;
}

void ptr_map_clear(ptr_map *m) {
  if (m->entries) memset(m->entries, 0, m->cap * sizeof *m->entries);
  m->count = 0;
}

void ptr_map_free(ptr_map *m) {
  if (m->entries) ctx_raw_free(m->ctx, m->entries, m->cap * sizeof *m->entries);
  m->entries = NULL;
  m->cap = m->count = 0;
}

/* ------------------------------------------------------------------ IR helpers */

ir_op *op_clone_with_attrs(gemmc_context *ctx, const ir_op *op, int num_operands, ir_value *const *operands,
                           const ir_type *const *result_types) {
  ir_op *clone = ir_op_create(ctx, op->kind, num_operands, operands, op->num_results, result_types, 0, op->loc);
  clone->src_loc = op->src_loc;
  for (int i = 0; i < op->num_attrs; i++) {
    ir_op_set_attr(ctx, clone, op->attrs[i].name, op->attrs[i].value);
    if (ir_op_attr_is_property(op, op->attrs[i].name)) ir_op_mark_property(ctx, clone, op->attrs[i].name);
  }
  return clone;
}

static ir_op *new_convert(gemmc_context *ctx, const ir_op *anchor, ir_value *v, const ir_type *to) {
  ir_op *cvt = ir_op_create(ctx, OP_CONVERT_LAYOUT, 1, &v, 1, &to, 0, anchor->loc);
  cvt->src_loc = anchor->src_loc;
  return cvt;
}

ir_value *convert_layout_before(gemmc_context *ctx, ir_op *anchor, ir_value *v, const ir_type *to) {
  ir_op *cvt = new_convert(ctx, anchor, v, to);
  ir_op_insert_before(anchor, cvt);
  return &cvt->results[0];
}

ir_value *convert_layout_after(gemmc_context *ctx, ir_op *anchor, ir_value *v, const ir_type *to) {
  ir_op *cvt = new_convert(ctx, anchor, v, to);
  ir_op_insert_after(anchor, cvt);
  return &cvt->results[0];
}

ir_op *block_arg_owner(const ir_value *v) {
  const ir_block *b = v->owner_block;
  return b && b->parent ? b->parent->parent : NULL;
}

bool value_defined_outside(const ir_value *v, const ir_op *op) {
  const ir_op *def = v->def_op ? v->def_op : block_arg_owner(v);
  for (const ir_op *p = def; p; p = ir_op_parent_op(p))
    if (p == op) return false;
  return true;
}

bool op_precedes(const ir_op *a, const ir_op *b) {
  for (const ir_op *p = b->prev; p; p = p->prev)
    if (p == a) return true;
  return false;
}

static void slice_add(ptr_list *slice, ir_op *op, op_filter_fn keep, const void *user) {
  if (op && (!keep || keep(op, user))) ptr_list_push_unique(slice, op);
}

void op_slice(ir_op *root, op_filter_fn keep, const void *user, ptr_list *slice) {
  ptr_list_push_unique(slice, root);
  for (int i = 0; i < slice->count; i++) {
    ir_op *op = slice->items[i];
    for (int k = 0; k < op->num_operands; k++) {
      ir_value *v = op->operands[k].value;
      if (v) slice_add(slice, v->def_op ? v->def_op : block_arg_owner(v), keep, user);
    }
    for (int r = 0; r < op->num_results; r++)
      for (ir_operand *u = op->results[r].first_use; u; u = u->next_use) slice_add(slice, u->owner, keep, user);
    for (int r = 0; r < op->num_regions; r++)
      for (ir_block *b = op->regions[r].first; b; b = b->next)
        for (ir_op *o = b->first; o; o = o->next) slice_add(slice, o, keep, user);
  }
}

/* ------------------------------------------------------------------ cmp predicates */

static const char *const cmpi_predicates[] = {"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};
static const char *const cmpf_predicates[] = {"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
                                              "ueq",   "ugt", "uge", "ult", "ule", "une", "uno", "true"};

const char *const *cmp_predicate_names(ir_op_kind kind, int *count) {
  if (kind == OP_CMPI) {
    *count = (int)(sizeof cmpi_predicates / sizeof *cmpi_predicates);
    return cmpi_predicates;
  }
  if (kind == OP_CMPF) {
    *count = (int)(sizeof cmpf_predicates / sizeof *cmpf_predicates);
    return cmpf_predicates;
  }
  *count = 0;
  return NULL;
}

int cmp_predicate_index(ir_op_kind kind, const char *name) {
  int n;
  const char *const *names = cmp_predicate_names(kind, &n);
  for (int i = 0; name && i < n; i++)
    if (strcmp(name, names[i]) == 0) return i;
  return -1;
}

const char *cmp_predicate_of(const ir_op *op) {
  const ir_attr *a = ir_op_get_attr(op, "predicate");
  if (!a) return NULL;
  if (a->kind == AT_KEYWORD || a->kind == AT_STRING) return a->str;
  int n;
  const char *const *names = cmp_predicate_names(op->kind, &n);
  if (a->kind == AT_INT && a->int_value >= 0 && a->int_value < n) return names[a->int_value];
  return NULL;
}

/* ------------------------------------------------------------------ dead code */

static bool collect_op(ir_op *op, void *user) {
  ptr_list_push(user, op);
  return true;
}

static bool is_dead_pure(const ir_op *op) {
  if (!ir_op_is_pure(op) || (ir_op_info_of(op->kind)->traits & TRAIT_TERMINATOR)) return false;
  if (op->num_regions && op->kind != OP_REDUCE && op->kind != OP_SCAN) return false;
  for (int i = 0; i < op->num_results; i++)
    if (op->results[i].first_use) return false;
  return true;
}

const char *const ir_atomic_rmw_ops[11] = {"and", "or",  "xor",  "add",  "fadd", "max",
                                           "min", "umax", "umin", "exch", NULL};
const char *const ir_atomic_sems[5] = {"relaxed", "acquire", "release", "acq_rel", NULL};
const char *const ir_atomic_scopes[4] = {"gpu", "cta", "sys", NULL};

const char *const ir_descriptor_reduce_kinds[9] = {"add", "min", "max", "inc", "dec", "and", "or", "xor", NULL};

int ir_word_index(const char *word, const char *const *list) {
  for (int i = 0; word && list[i]; i++)
    if (strcmp(word, list[i]) == 0) return i;
  return -1;
}

int dot_scaled_scale_operand(const ir_op *op, int which) {
  const ir_attr *seg = ir_op_get_attr(op, "operandSegmentSizes");
  bool has[2] = {op->num_operands > 3, false};
  if (seg && seg->kind == AT_DENSE_ARRAY && seg->num_elems == 5 && seg->ints) {
    has[0] = seg->ints[3] != 0;
    has[1] = seg->ints[4] != 0;
  } else if (op->num_operands == 5) {
    has[1] = true;
  }
  if (!has[which]) return -1;
  return which == 0 ? 3 : 3 + has[0];
}

int inline_asm_elems_per_register(const ir_type *e, int64_t pack) {
  int bits = e->kind == TY_INT ? (int)e->width : e->kind == TY_FLOAT ? (int)ir_type_bits(e) : 0;
  if (bits <= 0 || bits > 64 || (bits == 1 && pack != 1)) return 0;
  int64_t per_reg = bits >= 32 ? 1 : 32 / bits < pack ? 32 / bits : pack;
  return pack % per_reg ? 0 : (int)per_reg;
}

bool inline_asm_next_constraint(const char **c, const char *end, inline_asm_constraint *out) {
  const char *t = *c;
  if (t >= end || !*t) return false;
  const char *comma = memchr(t, ',', (size_t)(end - t));
  const char *stop = comma ? comma : end;
  out->text = t;
  out->stop = stop;
  out->kind = *t == '=' ? INLINE_ASM_OUTPUT : *t == '~' ? INLINE_ASM_CLOBBER : INLINE_ASM_INPUT;
  out->code = t + (out->kind != INLINE_ASM_INPUT) + (out->kind == INLINE_ASM_OUTPUT && t + 1 < stop && t[1] == '&');
  out->tied = -1;
  if (out->code < stop && *out->code >= '0' && *out->code <= '9') {
    int n = 0;
    const char *d = out->code;
    for (; d < stop && *d >= '0' && *d <= '9'; d++) n = n < (1 << 20) ? n * 10 + (*d - '0') : n;
    out->tied = d == stop ? n : -2;
  }
  *c = comma ? comma + 1 : end;
  return true;
}

bool erase_dead_pure_ops(gemmc_context *ctx, ir_op *root) {
  bool changed = false, again = true;
  while (again) {
    again = false;
    ptr_list ops = {ctx, NULL, 0, 0};
    ir_walk(root, collect_op, &ops);
    ptr_list erased = {ctx, NULL, 0, 0};
    /* Users come after definitions: walk backwards. */
    for (int i = ops.count - 1; i >= 0; i--) {
      ir_op *op = ops.items[i];
      ir_op *parent = ir_op_parent_op(op); /* ops nested in an erased reduction are gone with it */
      if (op == root || (parent && ptr_list_contains(&erased, parent)) || !is_dead_pure(op)) continue;
      ptr_list_push(&erased, op);
      ir_op_erase(op);
      again = changed = true;
    }
    ptr_list_free(&erased);
    ptr_list_free(&ops);
  }
  return changed;
}

/* The scf.for `loop` rebuilt with n more iter args (initial values `inits`): its body block moves
 * to the new op and gets n more arguments (their new values must still be yielded); the uses of
 * the old results go to the new ones. Returns the new loop (the old one is erased). */
ir_op *scf_for_add_iter_args(gemmc_context *ctx, ir_op *loop, int n, ir_value *const *inits) {
  int old_iter = loop->num_operands - 3;
  ir_value **operands = ir_alloc(ctx, sizeof *operands * (size_t)(loop->num_operands + n));
  const ir_type **types = ir_alloc(ctx, sizeof *types * (size_t)(old_iter + n));
  for (int i = 0; i < loop->num_operands; i++) operands[i] = loop->operands[i].value;
  for (int i = 0; i < n; i++) operands[loop->num_operands + i] = inits[i];
  for (int k = 0; k < old_iter; k++) types[k] = loop->results[k].type;
  for (int i = 0; i < n; i++) types[old_iter + i] = inits[i]->type;
  ir_op *fresh = ir_op_create(ctx, OP_SCF_FOR, loop->num_operands + n, operands, old_iter + n, types, 1, loop->loc);
  fresh->src_loc = loop->src_loc;
  for (int i = 0; i < loop->num_attrs; i++) {
    ir_op_set_attr(ctx, fresh, loop->attrs[i].name, loop->attrs[i].value);
    if (ir_op_attr_is_property(loop, loop->attrs[i].name)) ir_op_mark_property(ctx, fresh, loop->attrs[i].name);
  }
  ir_op_insert_before(loop, fresh);
  ir_block *body = loop->regions[0].first;
  fresh->regions[0].first = loop->regions[0].first;
  fresh->regions[0].last = loop->regions[0].last;
  loop->regions[0].first = loop->regions[0].last = NULL;
  for (ir_block *b = fresh->regions[0].first; b; b = b->next) b->parent = &fresh->regions[0];
  for (int i = 0; i < n; i++) ir_block_add_arg(ctx, body, inits[i]->type, loop->loc);
  for (int k = 0; k < old_iter; k++) {
    fresh->results[k].name = loop->results[k].name;
    ir_value_replace_all_uses(&loop->results[k], &fresh->results[k]);
  }
  ir_op_erase(loop);
  return fresh;
}

/* The body ops that iter arg k feeds, when they feed nothing but themselves and the yield at k. */
static bool iter_arg_cycle(gemmc_context *ctx, ir_op *loop, int k, ptr_list *cycle) {
  ir_block *body = ir_region_entry(&loop->regions[0]);
  ir_op *yield = ir_block_terminator(body);
  ptr_list values = {ctx, NULL, 0, 0};
  ptr_list_push(&values, body->args[k + 1]);
  bool ok = true;
  for (int i = 0; i < values.count && ok; i++) {
    ir_value *v = values.items[i];
    for (ir_operand *u = v->first_use; u && ok; u = u->next_use) {
      ir_op *o = u->owner;
      if (o == yield) {
        ok = u->index == k;
        continue;
      }
      if (o->parent != body || !ir_op_is_pure(o) || o->num_regions) {
        ok = false;
        continue;
      }
      if (ptr_list_contains(cycle, o)) continue;
      ptr_list_push(cycle, o);
      for (int r = 0; r < o->num_results; r++) ptr_list_push(&values, &o->results[r]);
    }
  }
  ptr_list_free(&values);
  return ok;
}

ir_op *scf_for_drop_dead_iter_args(gemmc_context *ctx, ir_op *loop) {
  ir_block *body = ir_region_entry(&loop->regions[0]);
  ir_op *yield = ir_block_terminator(body);
  int num_iter = loop->num_operands - 3;
  if (!yield || yield->num_operands != num_iter || body->num_args != num_iter + 1) return loop;
  bool *dead = ir_alloc(ctx, sizeof *dead * (size_t)(num_iter + 1));
  int num_dead = 0;
  for (int k = 0; k < num_iter; k++) {
    if (loop->results[k].first_use) continue;
    ptr_list cycle = {ctx, NULL, 0, 0};
    if (iter_arg_cycle(ctx, loop, k, &cycle)) {
      /* Drop the yield's use first, then the cycle (users before definitions: body order reversed). */
      ir_op_set_operand(yield, k, body->args[k + 1]);
      for (ir_op *o = body->last; o; ) {
        ir_op *prev = o->prev;
        if (ptr_list_contains(&cycle, o)) ir_op_erase(o);
        o = prev;
      }
      dead[k] = true;
      num_dead++;
    }
    ptr_list_free(&cycle);
  }
  if (!num_dead) return loop;
  int kept = num_iter - num_dead;
  ir_value **operands = ir_alloc(ctx, sizeof *operands * (size_t)(3 + kept));
  const ir_type **types = ir_alloc(ctx, sizeof *types * (size_t)(kept + 1));
  for (int i = 0; i < 3; i++) operands[i] = loop->operands[i].value;
  for (int k = 0, j = 0; k < num_iter; k++)
    if (!dead[k]) {
      operands[3 + j] = loop->operands[3 + k].value;
      types[j++] = loop->results[k].type;
    }
  ir_op *nl = ir_op_create(ctx, OP_SCF_FOR, 3 + kept, operands, kept, types, 1, loop->loc);
  nl->src_loc = loop->src_loc;
  for (int i = 0; i < loop->num_attrs; i++) {
    ir_op_set_attr(ctx, nl, loop->attrs[i].name, loop->attrs[i].value);
    if (ir_op_attr_is_property(loop, loop->attrs[i].name)) ir_op_mark_property(ctx, nl, loop->attrs[i].name);
  }
  /* Move the body, then drop the dead block arguments and yield operands (back to front). */
  nl->regions[0].first = loop->regions[0].first;
  nl->regions[0].last = loop->regions[0].last;
  for (ir_block *b = nl->regions[0].first; b; b = b->next) b->parent = &nl->regions[0];
  loop->regions[0].first = loop->regions[0].last = NULL;
  for (int k = num_iter - 1; k >= 0; k--) {
    if (!dead[k]) continue;
    ir_op_remove_operand(yield, k);
    for (int a = k + 1; a + 1 < body->num_args; a++) {
      body->args[a] = body->args[a + 1];
      body->args[a]->index = a;
    }
    body->num_args--;
  }
  for (int k = 0, j = 0; k < num_iter; k++)
    if (!dead[k]) {
      nl->results[j].name = loop->results[k].name;
      ir_value_replace_all_uses(&loop->results[k], &nl->results[j++]);
    }
  ir_op_insert_before(loop, nl);
  ir_op_erase(loop);
  return nl;
}

/* ------------------------------------------------------------------ deep clones */

static ir_value *mapped(const ptr_map *map, ir_value *v) {
  ir_value *m = ptr_map_get(map, v);
  return m ? m : v;
}

ir_op *op_clone_deep(gemmc_context *ctx, const ir_op *op, ptr_map *map) {
  ir_value *stack_ops[16];
  ir_value **operands = op->num_operands <= 16 ? stack_ops : ir_alloc(ctx, sizeof *operands * (size_t)op->num_operands);
  const ir_type *stack_types[8];
  const ir_type **types = op->num_results <= 8 ? stack_types : ir_alloc(ctx, sizeof *types * (size_t)op->num_results);
  for (int i = 0; i < op->num_operands; i++) operands[i] = mapped(map, op->operands[i].value);
  for (int i = 0; i < op->num_results; i++) types[i] = op->results[i].type;
  ir_op *clone = ir_op_create(ctx, op->kind, op->num_operands, operands, op->num_results, types, op->num_regions, op->loc);
  clone->src_loc = op->src_loc;
  for (int i = 0; i < op->num_attrs; i++) {
    ir_op_set_attr(ctx, clone, op->attrs[i].name, op->attrs[i].value);
    if (ir_op_attr_is_property(op, op->attrs[i].name)) ir_op_mark_property(ctx, clone, op->attrs[i].name);
  }
  for (int i = 0; i < op->num_results; i++) {
    clone->results[i].name = op->results[i].name;
    ptr_map_put(map, &op->results[i], &clone->results[i]);
  }
  for (int r = 0; r < op->num_regions; r++)
    for (const ir_block *b = op->regions[r].first; b; b = b->next) {
      ir_block *nb = ir_block_create(ctx);
      for (int a = 0; a < b->num_args; a++) {
        ir_value *na = ir_block_add_arg(ctx, nb, b->args[a]->type, b->args[a]->loc);
        na->name = b->args[a]->name;
        ptr_map_put(map, b->args[a], na);
      }
      ir_region_append_block(&clone->regions[r], nb);
      for (const ir_op *o = b->first; o; o = o->next) ir_block_append_op(nb, op_clone_deep(ctx, o, map));
    }
  return clone;
}

/* ------------------------------------------------------------------ building */

ir_value *build_before(gemmc_context *ctx, ir_op *anchor, ir_op_kind kind, int n, ir_value *const *operands,
                       const ir_type *result) {
  ir_op *op = ir_op_create(ctx, kind, n, operands, result ? 1 : 0, result ? &result : NULL, 0, anchor->loc);
  ir_op_insert_before(anchor, op);
  return result ? &op->results[0] : NULL;
}

ir_value *build_int_constant(gemmc_context *ctx, ir_op *anchor, int64_t v, unsigned width) {
  return build_int_constant_of(ctx, anchor, v, ir_int_type(ctx, width));
}

ir_value *build_int_constant_of(gemmc_context *ctx, ir_op *anchor, int64_t v, const ir_type *t) {
  const ir_attr *a = ir_int_attr(ctx, v, ir_type_element(t));
  if (ir_type_is_tensor(t)) a = ir_dense_attr(ctx, t, true, 1, &a);
  ir_op *op = ir_op_create(ctx, OP_CONSTANT, 0, NULL, 1, &t, 0, anchor->loc);
  ir_op_set_attr(ctx, op, "value", a);
  ir_op_insert_before(anchor, op);
  return &op->results[0];
}

ir_value *build_cast_before(gemmc_context *ctx, ir_op *anchor, ir_op_kind kind, ir_value *v, const ir_type *to) {
  ir_op *op = ir_op_create(ctx, kind, 1, &v, 1, &to, 0, anchor->loc);
  op->src_loc = anchor->src_loc;
  ir_op_insert_before(anchor, op);
  return &op->results[0];
}

ir_value *retype_result_with_cast_back(gemmc_context *ctx, ir_op *op, const ir_type *t, ir_op_kind back) {
  const ir_type *old = op->results[0].type;
  op->results[0].type = t;
  ir_value *r = &op->results[0];
  ir_op *cast = ir_op_create(ctx, back, 1, &r, 1, &old, 0, op->loc);
  cast->src_loc = op->src_loc;
  ir_op_insert_after(op, cast);
  ir_value_replace_all_uses(r, &cast->results[0]);
  ir_op_set_operand(cast, 0, r); /* the use just moved to itself */
  return &cast->results[0];
}

ir_value *build_binary(gemmc_context *ctx, ir_op *anchor, ir_op_kind kind, ir_value *a, ir_value *b) {
  ir_value *ops[2] = {a, b};
  return build_before(ctx, anchor, kind, 2, ops, a->type);
}

ir_value *scf_for_iter_arg_increment(const ir_value *arg) {
  ir_op *loop = block_arg_owner(arg);
  if (arg->def_op || arg->index == 0 || !loop || loop->kind != OP_SCF_FOR || arg->owner_block != loop->regions[0].first)
    return NULL;
  ir_op *yield = ir_block_terminator(arg->owner_block);
  int k = arg->index - 1;
  if (!yield || k >= yield->num_operands) return NULL;
  const ir_op *add = yield->operands[k].value->def_op;
  if (!add || add->kind != OP_ADDI || add->parent != arg->owner_block) return NULL;
  int64_t c;
  for (int i = 0; i < 2; i++) {
    ir_value *x = add->operands[1 - i].value;
    if (add->operands[i].value == arg && (value_defined_outside(x, loop) || value_int_constant(x, &c))) return x;
  }
  return NULL;
}

int scf_for_num_stages(const ir_op *loop, int fallback) {
  const ir_attr *a = ir_op_get_attr(loop, "tt.num_stages");
  return a && a->kind == AT_INT ? (int)a->int_value : fallback;
}

bool scf_for_step_from_zero(const ir_op *loop, int64_t *step) {
  int64_t lb;
  return loop && loop->kind == OP_SCF_FOR && loop->num_operands >= 3 &&
         value_int_constant(loop->operands[0].value, &lb) && lb == 0 &&
         value_int_constant(loop->operands[2].value, step) && *step >= 1;
}

bool scf_for_normalize_step(gemmc_context *ctx, ir_op *loop) {
  int64_t step;
  if (!scf_for_step_from_zero(loop, &step) || step == 1) return false;
  ir_block *body = ir_region_entry(&loop->regions[0]);
  if (!body || !body->first || body->num_args < 1) return false;
  ir_value *ub = loop->operands[1].value;
  unsigned width = ir_type_bits(ub->type);
  ir_value *zero = build_int_constant(ctx, loop, 0, width), *one = build_int_constant(ctx, loop, 1, width);
  ir_value *last = build_binary(ctx, loop, OP_DIVSI, build_binary(ctx, loop, OP_SUBI, ub, one),
                                build_int_constant(ctx, loop, step, width));
  ir_value *sel[3] = {build_cmpi(ctx, loop, "sgt", ub, zero), build_binary(ctx, loop, OP_ADDI, last, one), zero};
  ir_value *trips = build_before(ctx, loop, OP_SELECT, 3, sel, ub->type);
  ir_op_set_operand(loop, 1, trips);
  ir_op_set_operand(loop, 2, one);
  ir_value *iv = body->args[0];
  ir_op *first = body->first; /* the constant goes in first: both go before the body's old first op */
  ir_value *scaled = build_binary(ctx, first, OP_MULI, iv, build_int_constant(ctx, first, step, width));
  ir_value_replace_all_uses(iv, scaled);
  ir_op_set_operand(scaled->def_op, 0, iv);
  return true;
}

ir_value *build_cmpi(gemmc_context *ctx, ir_op *anchor, const char *predicate, ir_value *a, ir_value *b) {
  ir_value *ops[2] = {a, b};
  const ir_type *i1 = ir_type_with_element(ctx, a->type, ir_int_type(ctx, 1));
  ir_op *op = ir_op_create(ctx, OP_CMPI, 2, ops, 1, &i1, 0, anchor->loc);
  ir_op_set_attr(ctx, op, "predicate", ir_keyword_attr(ctx, predicate));
  ir_op_insert_before(anchor, op);
  return &op->results[0];
}

ir_value *build_ring_next(gemmc_context *ctx, ir_op *anchor, ir_value *slot, int64_t size, ir_value *zero) {
  unsigned width = ir_type_bits(slot->type);
  ir_value *next = build_binary(ctx, anchor, OP_ADDI, slot, build_int_constant(ctx, anchor, 1, width));
  ir_value *in_ring = build_cmpi(ctx, anchor, "slt", next, build_int_constant(ctx, anchor, size, width));
  ir_value *ops[3] = {in_ring, next, zero};
  return build_before(ctx, anchor, OP_SELECT, 3, ops, slot->type);
}

/* ------------------------------------------------------------------ program ids */

static bool depends_rec(const ir_value *v, ptr_list *seen, int depth) {
  const ir_op *def = v->def_op;
  if (!def) {
    /* A block argument: a kernel argument is uniform, an iter arg or region argument is not
     * followed (answer conservatively). */
    const ir_op *owner = block_arg_owner(v);
    return owner && owner->kind != OP_FUNC;
  }
  if (def->kind == OP_GET_PROGRAM_ID) return true;
  if (depth > 256 || def->num_regions) return true;
  if (ptr_list_contains(seen, def)) return false;
  ptr_list_push(seen, (void *)def);
  for (int i = 0; i < def->num_operands; i++)
    if (depends_rec(def->operands[i].value, seen, depth + 1)) return true;
  return false;
}

bool value_depends_on_program_id(gemmc_context *ctx, const ir_value *v) {
  ptr_list seen = {ctx, NULL, 0, 0};
  bool r = depends_rec(v, &seen, 0);
  ptr_list_free(&seen);
  return r;
}

/* ------------------------------------------------------------------ constants */

bool value_int_constant(const ir_value *v, int64_t *out) {
  const ir_op *def = v ? v->def_op : NULL;
  if (!def || def->kind != OP_CONSTANT) return false;
  const ir_attr *a = ir_op_get_attr(def, "value");
  if (a && a->kind == AT_DENSE && a->dense_splat && a->num_elems == 1) a = a->elems[0];
  if (!a || a->kind != AT_INT) return false;
  *out = a->int_value;
  return true;
}

bool value_is_zero_splat(const ir_value *v) {
  const ir_op *def = v ? v->def_op : NULL;
  const ir_attr *a = def && def->kind == OP_CONSTANT ? ir_op_get_attr(def, "value") : NULL;
  if (!a || a->kind != AT_DENSE || !a->dense_splat || a->num_elems != 1) return false;
  const ir_attr *e = a->elems[0];
  return e && ((e->kind == AT_FLOAT && e->float_value == 0.0 && !signbit(e->float_value)) ||
               ((e->kind == AT_INT || e->kind == AT_BOOL) && e->int_value == 0));
}

bool value_feeds_dot_operand(const ir_value *v, int index) {
  for (const ir_operand *u = v->first_use; u; u = u->next_use) {
    if (u->owner->kind != OP_LOCAL_ALLOC) continue;
    for (const ir_operand *w = u->owner->results[0].first_use; w; w = w->next_use) {
      if (w->owner->kind == OP_WARP_GROUP_DOT && w->index == index) return true;
      if (!op_is_memdesc_view(w->owner)) continue;
      for (const ir_operand *x = w->owner->results[0].first_use; x; x = x->next_use)
        if (x->owner->kind == OP_WARP_GROUP_DOT && x->index == index) return true;
    }
  }
  return false;
}

/* ------------------------------------------------------------------ log2 */

int log2_exact(int64_t v) {
  if (v <= 0 || (v & (v - 1)) != 0) return -1;
  int k = 0;
  while ((INT64_C(1) << k) != v) k++;
  return k;
}

bool op_is_memdesc_view(const ir_op *op) {
  return op && (op->kind == OP_MEMDESC_TRANS || op->kind == OP_MEMDESC_RESHAPE);
}

void memdesc_views_follow(gemmc_context *ctx, ir_value *v) {
  if (v->type->kind != TY_MEMDESC) return;
  for (ir_operand *u = v->first_use; u; u = u->next_use) {
    ir_op *view = u->owner;
    if (!op_is_memdesc_view(view) || u->index != 0) continue;
    const ir_type *r = view->results[0].type;
    if (r->is_mutable != v->type->is_mutable || r->memspace != v->type->memspace)
      view->results[0].type = ir_memdesc_type(ctx, r->rank, r->shape, r->elem, r->encoding, v->type->memspace,
                                              v->type->is_mutable, r->alloc_rank, r->alloc_shape);
    memdesc_views_follow(ctx, &view->results[0]);
  }
}

bool op_renames_registers(const ir_op *op) {
  return op->kind == OP_TRANS || op->kind == OP_RESHAPE || op->kind == OP_SPLIT || op->kind == OP_JOIN;
}

const ir_attr *renamed_result_layout(gemmc_context *ctx, const ir_op *op, const ir_attr *operand) {
  if (!op_renames_registers(op) || !ir_type_is_tensor(op->operands[0].value->type) ||
      !ir_type_is_tensor(op->results[0].type))
    return NULL;
  const ir_type *st = op->operands[0].value->type, *rt = op->results[0].type;
  switch (op->kind) {
  case OP_TRANS: {
    const ir_attr *order = ir_op_get_attr(op, "order");
    int perm[IR_MAX_RANK];
    if (!order || order->kind != AT_DENSE_ARRAY || order->num_elems != rt->rank || rt->rank > IR_MAX_RANK) return NULL;
    for (int d = 0; d < rt->rank; d++) perm[d] = (int)order->ints[d];
    return layout_infer_permute_result(ctx, operand, perm, rt->rank, st->shape);
  }
  case OP_RESHAPE:
    return layout_infer_reshape_result(ctx, operand, st->rank, st->shape, rt->rank, rt->shape);
  case OP_SPLIT:
    return layout_infer_split_result(ctx, operand, st->rank, st->shape);
  default:
    return layout_infer_join_result(ctx, operand, st->rank, st->shape);
  }
}

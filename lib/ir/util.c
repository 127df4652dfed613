/* Small helpers shared by lib/: pointer lists, the pointer-keyed hash map, op cloning and slices, cmp predicate names, log2. */
#include "util.h"

#include <string.h>

#include "context_internal.h"

/* ------------------------------------------------------------------ ptr_list */

void ptr_list_push(ptr_list *l, void *p) {
  if (l->count == l->cap) {
    int ncap = l->cap ? l->cap * 2 : 32;
    void **grown = ctx_raw_realloc(l->ctx, l->items, (size_t)l->cap * sizeof *l->items, (size_t)ncap * sizeof *l->items);
    if (!grown) return; /* the context records the failure and unwinds to its entry point */
    l->items = grown;
    l->cap = ncap;
  }
  l->items[l->count++] = p;
}

void ptr_list_push_unique(ptr_list *l, void *p) {
  if (!ptr_list_contains(l, p)) ptr_list_push(l, p);
}

bool ptr_list_contains(const ptr_list *l, const void *p) {
  for (int i = 0; i < l->count; i++)
    if (l->items[i] == p) return true;
  return false;
}

void ptr_list_free(ptr_list *l) {
  if (l->items) ctx_raw_free(l->ctx, l->items, (size_t)l->cap * sizeof *l->items);
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

ir_op *block_arg_owner(const ir_value *v) {
  const ir_block *b = v->owner_block;
  return b && b->parent ? b->parent->parent : NULL;
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

/* ------------------------------------------------------------------ log2 */

int log2_exact(int64_t v) {
  if (v <= 0 || (v & (v - 1)) != 0) return -1;
  int k = 0;
  while ((INT64_C(1) << k) != v) k++;
  return k;
}

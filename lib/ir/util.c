/* Small generic containers shared by the passes and analyses. */
#include "util.h"

#include <string.h>

#include "context_internal.h"

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

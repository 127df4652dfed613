/* Small generic containers shared by the passes and analyses. */
#include "util.h"

#include "context_internal.h"

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

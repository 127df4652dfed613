/* Small generic containers shared by the passes and analyses (cproc-style util). */
#ifndef GEMMC_UTIL_H
#define GEMMC_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "gemmc/ir.h"

/* A growable array of pointers on the context's allocator; zero-initialize with .ctx set.
 * Past 32 items the block behind `items` also holds a hash index of them (2 * cap slots after
 * the cap items), so that membership tests stay O(1): passes test membership in slices as
 * large as the function. Only the functions below may change a list. */
typedef struct ptr_list {
  gemmc_context *ctx;
  void **items;
  int count, cap;
} ptr_list;

void ptr_list_push(ptr_list *l, void *p);
/* Appends p unless it is already there. */
void ptr_list_push_unique(ptr_list *l, void *p);
bool ptr_list_contains(const ptr_list *l, const void *p);
void ptr_list_free(ptr_list *l);

/* A well-mixed hash of a pointer, for open-addressing tables keyed by IR objects. */
uint64_t hash_pointer(const void *p);

#endif

/* Private view of gemmc_context shared by the files of lib/ (not installed). */
#ifndef GEMMC_CONTEXT_INTERNAL_H
#define GEMMC_CONTEXT_INTERNAL_H

#include <setjmp.h>

#include "gemmc/ir.h"

typedef struct arena_chunk arena_chunk;
typedef struct raw_block raw_block;

/* Open-addressing hash set of uniqued objects keyed by their canonical bytes. */
typedef struct intern_entry {
  uint64_t hash;
  const void *key; /* canonical bytes (arena) */
  size_t key_len;
  void *object;
} intern_entry;

typedef struct intern_table {
  intern_entry *entries;
  size_t cap, count;
} intern_table;

struct gemmc_context {
  gemmc_alloc_fn alloc;
  void *alloc_user;
  /* Every block from the allocator (arena chunks, tables, scratch buffers) is on this list, so
   * an unwind after an allocation failure leaks nothing: the context frees them all. */
  raw_block *raw_blocks;
  size_t bytes_in_use;  /* user bytes of the blocks above */
  size_t memory_limit;  /* gemmc_context_set_memory_limit */
  bool over_memory_limit; /* the failure was the limit, not the allocator */
  arena_chunk *chunks;
  char *cur;
  size_t cur_left;
  intern_table types, attrs, strings;
  ir_diag_handler diag;
  void *diag_user;
  int num_errors;
  bool out_of_memory;
  /* Set by entry points (parser, pass runner) so an allocation failure unwinds there. */
  jmp_buf *bailout;
  /* Cached common objects. */
  const ir_type *i1, *i32, *i64;
};

void *ctx_raw_alloc(gemmc_context *ctx, size_t size);
void ctx_raw_free(gemmc_context *ctx, void *p, size_t size);
void *ctx_raw_realloc(gemmc_context *ctx, void *p, size_t old_size, size_t new_size);
/* Finds or inserts; returns the existing object for equal key bytes, else stores `object`. */
void *intern_lookup(gemmc_context *ctx, intern_table *t, const void *key, size_t len);
void intern_insert(gemmc_context *ctx, intern_table *t, const void *key, size_t len, void *object);
uint64_t hash_bytes(const void *data, size_t len);

/* Growable byte buffer on the system allocator, for keys and text. */
typedef struct strbuf {
  char *data;
  size_t len, cap;
  gemmc_context *ctx;
} strbuf;
void sb_init(strbuf *b, gemmc_context *ctx);
void sb_put(strbuf *b, const void *data, size_t len);
void sb_puts(strbuf *b, const char *s);
/* Makes room for `bytes` more without another allocation (best effort). */
void sb_reserve(strbuf *b, size_t bytes);
void sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_free(strbuf *b);

#endif

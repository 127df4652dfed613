/* A growable text (or byte) buffer on the C heap that remembers a failed allocation, for the
 * library's writers of whole files: templates, kernel-cache entries, generated C, SVG. Its twin
 * `strbuf` (context_internal.h) grows the same way on a gemmc_context's allocator (its memory
 * limit, failures recorded on the context) for text the context owns; this one's text goes to
 * the caller, who frees it, and works where no context exists (the runtime's kernel cache). */
#ifndef GEMMC_HEAP_TEXT_H
#define GEMMC_HEAP_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Zero-initialize; `data` (NUL-terminated once anything was written) belongs to the caller, who
 * frees it. After a failed allocation every write is dropped and `failed` stays set. */
typedef struct heap_text {
  char *data;
  size_t len, cap;
  bool failed;
} heap_text;

void heap_text_put(heap_text *t, const void *bytes, size_t n);
void heap_text_puts(heap_text *t, const char *s);
void heap_text_printf(heap_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif

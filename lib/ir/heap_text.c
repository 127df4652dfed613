/* The growable heap text buffer (heap_text.h). */
#include "heap_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void heap_text_put(heap_text *t, const void *bytes, size_t n) {
  if (t->failed) return;
  if (t->len + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 4096;
    while (cap < t->len + n + 1) cap *= 2;
    char *grown = realloc(t->data, cap);
    if (!grown) {
      t->failed = true;
      return;
    }
    t->data = grown;
    t->cap = cap;
  }
  if (n) memcpy(t->data + t->len, bytes, n);
  t->len += n;
  t->data[t->len] = 0;
}

void heap_text_puts(heap_text *t, const char *s) { heap_text_put(t, s, strlen(s)); }

void heap_text_printf(heap_text *t, const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) {
    t->failed = true;
    return;
  }
  if ((size_t)n < sizeof buf) {
    heap_text_put(t, buf, (size_t)n);
    return;
  }
  char *big = malloc((size_t)n + 1);
  if (!big) {
    t->failed = true;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  heap_text_put(t, big, (size_t)n);
  free(big);
}

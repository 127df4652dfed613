/* The context: arena memory, interning tables and the diagnostics sink. */
#include <stdarg.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "context_internal.h"
#include "gemmc/limits.h"

struct arena_chunk {
  arena_chunk *next;
  size_t size;
};

/* The header in front of every block the context takes from its allocator (32 bytes, so the
 * block stays 16-byte aligned). */
struct raw_block {
  raw_block *prev, *next;
  size_t size; /* bytes after the header */
  size_t pad;
};

static void *default_alloc(void *user, void *ptr, size_t old_size, size_t new_size) {
  (void)user;
  (void)old_size;
  if (new_size == 0) {
    free(ptr);
    return NULL;
  }
  return realloc(ptr, new_size);
}

static void default_diag(void *user, ir_diag_severity sev, const ir_loc *loc, const char *message) {
  (void)user;
  ir_print_diag(stderr, sev, loc, message);
}

gemmc_context *gemmc_context_create_with_allocator(gemmc_alloc_fn fn, void *user) {
  if (!fn) return NULL;
  gemmc_context *ctx = fn(user, NULL, 0, sizeof *ctx);
  if (!ctx) return NULL;
  memset(ctx, 0, sizeof *ctx);
  ctx->alloc = fn;
  ctx->alloc_user = user;
  ctx->diag = default_diag;
  ctx->memory_limit = GEMMC_DEFAULT_MEMORY_LIMIT;
  jmp_buf fail;
  if (setjmp(fail)) { /* the allocator gave up while making the cached types */
    ctx->bailout = NULL;
    gemmc_context_destroy(ctx);
    return NULL;
  }
  ctx->bailout = &fail;
  ctx->i1 = ir_int_type(ctx, 1);
  ctx->i32 = ir_int_type(ctx, 32);
  ctx->i64 = ir_int_type(ctx, 64);
  ctx->bailout = NULL;
  return ctx;
}

gemmc_context *gemmc_context_create(void) {
  return gemmc_context_create_with_allocator(default_alloc, NULL);
}

void gemmc_context_destroy(gemmc_context *ctx) {
  if (!ctx) return;
  /* Arena chunks, intern tables and any scratch buffer an unwind left behind. */
  raw_block *b = ctx->raw_blocks;
  while (b) {
    raw_block *next = b->next;
    ctx->alloc(ctx->alloc_user, b, sizeof *b + b->size, 0);
    b = next;
  }
  ctx->alloc(ctx->alloc_user, ctx, sizeof *ctx, 0);
}

void gemmc_context_set_memory_limit(gemmc_context *ctx, size_t bytes) {
  if (ctx) ctx->memory_limit = bytes ? bytes : GEMMC_DEFAULT_MEMORY_LIMIT;
}

size_t gemmc_context_memory_in_use(const gemmc_context *ctx) { return ctx ? ctx->bytes_in_use : 0; }

static void fail_oom(gemmc_context *ctx) {
  ctx->out_of_memory = true;
  if (ctx->bailout) longjmp(*ctx->bailout, 1);
}

/* Would `extra` more bytes stay within the limit? Records the reason when not. */
static bool within_limit(gemmc_context *ctx, size_t extra) {
  if (extra <= ctx->memory_limit && ctx->bytes_in_use <= ctx->memory_limit - extra) return true;
  ctx->over_memory_limit = true;
  return false;
}

static void block_link(gemmc_context *ctx, raw_block *b, size_t size) {
  b->size = size;
  b->prev = NULL;
  b->next = ctx->raw_blocks;
  if (b->next) b->next->prev = b;
  ctx->raw_blocks = b;
  ctx->bytes_in_use += size;
}

static void block_unlink(gemmc_context *ctx, raw_block *b) {
  if (b->prev) b->prev->next = b->next;
  else ctx->raw_blocks = b->next;
  if (b->next) b->next->prev = b->prev;
  ctx->bytes_in_use -= b->size < ctx->bytes_in_use ? b->size : ctx->bytes_in_use;
}

void *ctx_raw_alloc(gemmc_context *ctx, size_t size) {
  if (!size) size = 1;
  if (size > SIZE_MAX - sizeof(raw_block) || !within_limit(ctx, size)) {
    fail_oom(ctx);
    return NULL;
  }
  raw_block *b = ctx->alloc(ctx->alloc_user, NULL, 0, sizeof *b + size);
  if (!b) {
    fail_oom(ctx);
    return NULL;
  }
  block_link(ctx, b, size);
  return b + 1;
}

void ctx_raw_free(gemmc_context *ctx, void *p, size_t size) {
  (void)size; /* the header knows it */
  if (!p) return;
  raw_block *b = (raw_block *)p - 1;
  block_unlink(ctx, b);
  ctx->alloc(ctx->alloc_user, b, sizeof *b + b->size, 0);
}

void *ctx_raw_realloc(gemmc_context *ctx, void *p, size_t old_size, size_t new_size) {
  (void)old_size;
  if (!p) return ctx_raw_alloc(ctx, new_size);
  if (!new_size) new_size = 1;
  raw_block *b = (raw_block *)p - 1;
  size_t grow = new_size > b->size ? new_size - b->size : 0;
  if (new_size > SIZE_MAX - sizeof(raw_block) || !within_limit(ctx, grow)) {
    fail_oom(ctx);
    return NULL;
  }
  /* Unlinked while the allocator moves it; relinked whichever way it goes. */
  size_t old = b->size;
  block_unlink(ctx, b);
  raw_block *q = ctx->alloc(ctx->alloc_user, b, sizeof *b + old, sizeof *b + new_size);
  if (!q) {
    block_link(ctx, b, old);
    fail_oom(ctx);
    return NULL;
  }
  block_link(ctx, q, new_size);
  return q + 1;
}

bool gemmc_context_out_of_memory(const gemmc_context *ctx) { return ctx->out_of_memory; }

bool gemmc_context_over_memory_limit(const gemmc_context *ctx) { return ctx && ctx->over_memory_limit; }

/* The diagnostic for an unwind that memory exhaustion caused (one per unwind). */
static void report_out_of_memory(gemmc_context *ctx) {
  if (ctx->over_memory_limit)
    ir_error(ctx, NULL, "out of memory: the input needs more than the context's limit of %zu MiB of IR memory",
             ctx->memory_limit >> 20);
  else
    ir_error(ctx, NULL, "out of memory");
}

bool gemmc_context_guard(gemmc_context *ctx, bool (*fn)(gemmc_context *ctx, void *user), void *user) {
  if (!ctx || !fn) return false;
  jmp_buf *outer = ctx->bailout;
  if (!outer) ctx->out_of_memory = ctx->over_memory_limit = false; /* an outermost entry point */
  jmp_buf here;
  volatile bool ok = false;
  if (setjmp(here) == 0) {
    ctx->bailout = &here;
    ok = fn(ctx, user);
  } else {
    ctx->bailout = outer;
    ok = false;
    report_out_of_memory(ctx);
  }
  ctx->bailout = outer;
  return ok;
}

void *ir_alloc(gemmc_context *ctx, size_t size) {
  if (size > SIZE_MAX / 2) { /* no arena holds it; also keeps the rounding below from wrapping */
    fail_oom(ctx);
    return NULL;
  }
  size = (size + 15) & ~(size_t)15;
  if (size > ctx->cur_left) {
    size_t chunk = size + sizeof(arena_chunk) + 16 > 65536 ? size + sizeof(arena_chunk) + 16 : 65536;
    arena_chunk *c = ctx_raw_alloc(ctx, chunk);
    if (!c) return NULL;
    c->next = ctx->chunks;
    c->size = chunk;
    ctx->chunks = c;
    size_t head = (sizeof(arena_chunk) + 15) & ~(size_t)15;
    ctx->cur = (char *)c + head;
    ctx->cur_left = chunk - head;
  }
  void *p = ctx->cur;
  ctx->cur += size;
  ctx->cur_left -= size;
  memset(p, 0, size);
  return p;
}

char *ir_strdup(gemmc_context *ctx, const char *s, size_t len) {
  char *p = len < SIZE_MAX ? ir_alloc(ctx, len + 1) : NULL;
  if (!p) return NULL;
  if (len) memcpy(p, s, len);
  p[len] = 0;
  return p;
}

uint64_t hash_bytes(const void *data, size_t len) {
  const unsigned char *p = data;
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h ? h : 1;
}

void *intern_lookup(gemmc_context *ctx, intern_table *t, const void *key, size_t len) {
  (void)ctx;
  if (!t->cap) return NULL;
  uint64_t h = hash_bytes(key, len);
  for (size_t i = h & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
    intern_entry *e = &t->entries[i];
    if (!e->hash) return NULL;
    if (e->hash == h && e->key_len == len && memcmp(e->key, key, len) == 0) return e->object;
  }
}

static bool intern_grow(gemmc_context *ctx, intern_table *t) {
  size_t ncap = t->cap ? t->cap * 2 : 256;
  intern_entry *ne = ctx_raw_alloc(ctx, ncap * sizeof *ne);
  if (!ne) return false;
  memset(ne, 0, ncap * sizeof *ne);
  for (size_t i = 0; i < t->cap; i++) {
    intern_entry *e = &t->entries[i];
    if (!e->hash) continue;
    size_t j = e->hash & (ncap - 1);
    while (ne[j].hash) j = (j + 1) & (ncap - 1);
    ne[j] = *e;
  }
  if (t->entries) ctx_raw_free(ctx, t->entries, t->cap * sizeof *t->entries);
  t->entries = ne;
  t->cap = ncap;
  return true;
}

void intern_insert(gemmc_context *ctx, intern_table *t, const void *key, size_t len, void *object) {
  /* Without memory to grow, the object stays un-interned rather than overfilling the table. */
  if ((t->count + 1) * 4 > t->cap * 3 && !intern_grow(ctx, t) && t->count + 1 >= t->cap) return;
  uint64_t h = hash_bytes(key, len);
  size_t i = h & (t->cap - 1);
  while (t->entries[i].hash) i = (i + 1) & (t->cap - 1);
  t->entries[i].hash = h;
  t->entries[i].key = ir_strdup(ctx, key, len);
  t->entries[i].key_len = len;
  t->entries[i].object = object;
  t->count++;
}

const char *ir_intern_string(gemmc_context *ctx, const char *s, size_t len) {
  const char *found = intern_lookup(ctx, &ctx->strings, s, len);
  if (found) return found;
  char *copy = ir_strdup(ctx, s, len);
  intern_insert(ctx, &ctx->strings, s, len, copy);
  return copy;
}

/* ------------------------------------------------------------------ strbuf */

void sb_init(strbuf *b, gemmc_context *ctx) {
  b->data = NULL;
  b->len = b->cap = 0;
  b->ctx = ctx;
}

void sb_put(strbuf *b, const void *data, size_t len) {
  if (b->len + len + 1 > b->cap) {
    size_t ncap = b->cap ? b->cap * 2 : 256;
    while (ncap < b->len + len + 1) ncap *= 2;
    char *grown = ctx_raw_realloc(b->ctx, b->data, b->cap, ncap);
    if (!grown) return; /* keep what we have; the context records the failure */
    b->data = grown;
    b->cap = ncap;
  }
  if (len) memcpy(b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = 0;
}

void sb_puts(strbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

void sb_reserve(strbuf *b, size_t bytes) {
  if (b->cap - b->len > bytes) return;
  size_t ncap = b->len + bytes + 1;
  char *grown = ctx_raw_realloc(b->ctx, b->data, b->cap, ncap);
  if (!grown) return;
  if (!b->data) grown[0] = 0;
  b->data = grown;
  b->cap = ncap;
}

void sb_printf(strbuf *b, const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof tmp) {
    sb_put(b, tmp, (size_t)n);
    return;
  }
  char *big = ctx_raw_alloc(b->ctx, (size_t)n + 1);
  if (!big) return;
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  sb_put(b, big, (size_t)n);
  ctx_raw_free(b->ctx, big, (size_t)n + 1);
}

void sb_free(strbuf *b) {
  if (b->data) ctx_raw_free(b->ctx, b->data, b->cap);
  b->data = NULL;
  b->len = b->cap = 0;
}

/* ------------------------------------------------------------------ diagnostics */

void ir_set_diag_handler(gemmc_context *ctx, ir_diag_handler fn, void *user) {
  ctx->diag = fn ? fn : default_diag;
  ctx->diag_user = fn ? user : NULL;
}

int ir_error_count(const gemmc_context *ctx) { return ctx->num_errors; }

ir_loc *ir_loc_file(gemmc_context *ctx, const ir_source *src, int line, int col) {
  ir_loc *l = ir_alloc(ctx, sizeof *l);
  l->kind = LOC_FILE;
  l->file = src ? src->name : "<unknown>";
  l->line = line;
  l->col = col;
  l->src = src;
  l->src_line = line;
  l->src_col = col;
  return l;
}

ir_loc *ir_loc_unknown(gemmc_context *ctx) {
  ir_loc *l = ir_alloc(ctx, sizeof *l);
  l->kind = LOC_UNKNOWN;
  return l;
}

void ir_emit_diag(gemmc_context *ctx, ir_diag_severity sev, const ir_loc *loc, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (sev == IR_DIAG_ERROR) ctx->num_errors++;
  ctx->diag(ctx->diag_user, sev, loc, buf);
}

static const char *severity_name(ir_diag_severity sev) {
  switch (sev) {
  case IR_DIAG_ERROR: return "error";
  case IR_DIAG_WARNING: return "warning";
  case IR_DIAG_NOTE: return "note";
  case IR_DIAG_REMARK: return "remark";
  }
  return "error";
}

/* The innermost file:line:col of a location (the Python line for Triton dumps). */
static const ir_loc *loc_file_part(const ir_loc *l, int depth) {
  if (!l || depth > 64) return NULL;
  switch (l->kind) {
  case LOC_FILE: return l;
  case LOC_NAME: return loc_file_part(l->child, depth + 1);
  case LOC_CALLSITE: return loc_file_part(l->callee, depth + 1);
  case LOC_FUSED:
    for (int i = 0; i < l->num_fused; i++) {
      const ir_loc *f = loc_file_part(l->fused[i], depth + 1);
      if (f) return f;
    }
    return NULL;
  default: return NULL;
  }
}

static void print_source_line(FILE *f, const ir_source *src, int line, int col) {
  if (!src || !src->text || line <= 0) return;
  const char *p = src->text, *end = src->text + src->len;
  int first = src->first_line > 1 ? src->first_line : 1;
  if (line < first) return;
  for (int l = first; l < line && p < end; p++)
    if (*p == '\n') l++;
  const char *e = p;
  while (e < end && *e != '\n') e++;
  size_t n = (size_t)(e - p);
  size_t caret = col > 0 ? (size_t)col - 1 : 0;
  if (caret > n) caret = n;
  /* Very long lines are cut around the caret so the message stays readable. */
  size_t start = caret > 100 ? caret - 80 : 0;
  size_t shown = n - start > 160 ? 160 : n - start;
  if (start) fputs("...", f);
  for (size_t i = 0; i < shown; i++) {
    unsigned char ch = (unsigned char)p[start + i];
    fputc(ch == '\t' || (ch >= 32 && ch < 127) ? ch : '?', f);
  }
  fputc('\n', f);
  if (start) fputs("   ", f);
  for (size_t i = start; i < caret; i++) fputc(p[i] == '\t' ? '\t' : ' ', f);
  fputs("^\n", f);
}

void ir_print_diag(FILE *f, ir_diag_severity sev, const ir_loc *loc, const char *message) {
  if (loc && loc->src) {
    fprintf(f, "%s:%d:%d: %s: %s\n", loc->src->name, loc->src_line, loc->src_col, severity_name(sev),
            message);
    print_source_line(f, loc->src, loc->src_line, loc->src_col);
    return;
  }
  const ir_loc *fl = loc_file_part(loc, 0);
  if (fl)
    fprintf(f, "%s:%d:%d: %s: %s\n", fl->file, fl->line, fl->col, severity_name(sev), message);
  else
    fprintf(f, "<unknown>: %s: %s\n", severity_name(sev), message);
}

const ir_loc *ir_loc_file_part(const ir_loc *loc) { return loc_file_part(loc, 0); }

void ir_op_emit_diag(gemmc_context *ctx, ir_diag_severity sev, const ir_op *op, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  const ir_loc *at = op->src_loc ? op->src_loc : op->loc;
  ir_emit_diag(ctx, sev, at, "%s", buf);
  /* An op that carries a Triton loc(...) points back at the Python line: say so as a note. */
  const ir_loc *py = loc_file_part(op->loc, 0);
  if (py && op->src_loc && py != op->src_loc)
    ir_emit_diag(ctx, IR_DIAG_NOTE, py, "'%s' was created here", ir_op_name(op));
}

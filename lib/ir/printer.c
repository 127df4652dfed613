/* IR printer: modules, types and attributes as Triton/MLIR pretty text, through a callback. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context_internal.h"
#include "util.h"

/* ------------------------------------------------------------------ buffered output */

/* Output goes to the callback in chunks; a dry run (discard) prints nothing but lets the
 * printer see every type and attribute in print order, which is how aliases get numbered. */
typedef struct writer {
  ir_print_callback cb;
  void *user;
  bool discard;
  size_t len;
  char buf[4096];
} writer;

static void w_flush(writer *w) {
  if (w->len && !w->discard && w->cb) w->cb(w->buf, w->len, w->user);
  w->len = 0;
}

static void w_put(writer *w, const char *s, size_t n) {
  if (w->discard) return;
  while (n) {
    size_t room = sizeof w->buf - w->len;
    if (room == 0) {
      w_flush(w);
      room = sizeof w->buf;
    }
    size_t k = n < room ? n : room;
    memcpy(w->buf + w->len, s, k);
    w->len += k;
    s += k;
    n -= k;
  }
}

static void w_puts(writer *w, const char *s) { w_put(w, s, strlen(s)); }

static void w_putc(writer *w, char c) { w_put(w, &c, 1); }

/* Only for short, bounded pieces (numbers); longer text goes through w_put. */
static void w_printf(writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void w_printf(writer *w, const char *fmt, ...) {
  char tmp[128];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  w_put(w, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* ------------------------------------------------------------------ small containers */

/* Growable byte pool on the context's allocator; `failed` sticks after an allocation failure
 * so the printer degrades (unknown names, inline locations) instead of crashing. */
typedef struct pool {
  gemmc_context *ctx;
  char *data;
  size_t len, cap;
  bool failed;
} pool;

/* Appends bytes, keeping the text NUL-terminated after `len`; false on failure. */
static bool pool_append(pool *pl, const char *s, size_t n) {
  if (pl->failed || !pl->ctx) return false;
  if (pl->len + n + 1 > pl->cap) {
    size_t ncap = pl->cap ? pl->cap * 2 : 256;
    while (ncap < pl->len + n + 1) ncap *= 2;
    char *nd = ctx_raw_realloc(pl->ctx, pl->data, pl->cap, ncap);
    if (!nd) {
      pl->failed = true;
      return false;
    }
    pl->data = nd;
    pl->cap = ncap;
  }
  if (n) memcpy(pl->data + pl->len, s, n);
  pl->len += n;
  pl->data[pl->len] = 0;
  return true;
}

static bool pool_append_str(pool *pl, const char *s) { return pool_append(pl, s, strlen(s)); }

/* Stores s as one NUL-terminated string of the pool; returns its offset or SIZE_MAX. */
static size_t pool_add(pool *pl, const char *s, size_t n) {
  size_t off = pl->len;
  if (!pool_append(pl, s, n) || !pool_append(pl, "", 1)) return SIZE_MAX;
  return off;
}

/* MLIR string escapes: \" \\ \n, other non-printables as \XX. */
static void pool_append_escaped(pool *pl, const char *s, size_t n) {
  static const char hex[] = "0123456789ABCDEF";
  pool_append(pl, "\"", 1);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      char e[2] = {'\\', (char)c};
      pool_append(pl, e, 2);
    } else if (c == '\n') {
      pool_append(pl, "\\n", 2);
    } else if (c >= 0x20 && c < 0x7f) {
      pool_append(pl, (const char *)&c, 1);
    } else {
      char e[3] = {'\\', hex[c >> 4], hex[c & 15]};
      pool_append(pl, e, 3);
    }
  }
  pool_append(pl, "\"", 1);
}

static void pool_free(pool *pl) {
  if (pl->data) ctx_raw_free(pl->ctx, pl->data, pl->cap);
  pl->data = NULL;
  pl->len = pl->cap = 0;
}

static uint64_t hash_str(const char *s) { return hash_bytes(s, strlen(s)); }

/* Open-addressing set of names (pool offsets + 1; 0 is an empty slot, NAME_TOMB a removed
 * one). Names are scoped by region as in MLIR: `scope` lists the slots filled, in order, so a
 * region's names can be removed when it ends and sibling regions may reuse them. */
#define NAME_TOMB SIZE_MAX
typedef struct name_set {
  size_t *slots;
  size_t cap, count;
  size_t *scope;
  size_t scope_len, scope_cap;
} name_set;

/* Location aliases: definition text (children written as aliases) -> alias number. */
typedef struct loc_table {
  size_t *slots; /* id + 1 */
  size_t cap;
  size_t *def_offs; /* per id: offset of the definition text in `defs` */
  size_t count, defs_cap;
  pool defs;
} loc_table;

typedef struct layout_alias {
  const ir_attr *attr;
  const char *base;
  int number;
} layout_alias;

typedef struct printer {
  gemmc_context *ctx; /* NULL when printing a lone type or attribute */
  writer *w;
  bool debug_info, generic;
  int indent;
  /* Layout aliases: collected during the dry run, used by the real one. */
  bool use_aliases, collecting;
  layout_alias *aliases;
  int num_aliases, cap_aliases;
  /* Value names of the isolated op (tt.func) being printed: value -> pool offset of its name. */
  ptr_map names;
  name_set used;
  pool name_pool;
  unsigned next_value, next_arg, next_conflict;
  loc_table locs;
} printer;

static bool grow_array(gemmc_context *ctx, void **data, size_t elem, size_t *cap, size_t need) {
  if (need <= *cap) return true;
  size_t ncap = *cap ? *cap * 2 : 16;
  while (ncap < need) ncap *= 2;
  void *nd = ctx_raw_realloc(ctx, *data, *cap * elem, ncap * elem);
  if (!nd) return false;
  *data = nd;
  *cap = ncap;
  return true;
}

static const char *name_at(const printer *p, size_t off) { return p->name_pool.data + off; }

static bool name_set_has(const printer *p, const char *name) {
  const name_set *s = &p->used;
  if (!s->cap) return false;
  for (size_t i = hash_str(name) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
    if (!s->slots[i]) return false;
    if (s->slots[i] != NAME_TOMB && strcmp(name_at(p, s->slots[i] - 1), name) == 0) return true;
  }
}

static bool name_set_insert(printer *p, size_t off) {
  name_set *s = &p->used;
  if ((s->count + 1) * 2 > s->cap) {
    size_t ncap = s->cap ? s->cap * 2 : 64;
    size_t *ns = ctx_raw_alloc(p->ctx, ncap * sizeof *ns);
    if (!ns) return false;
    memset(ns, 0, ncap * sizeof *ns);
    /* Rehashing moves names between slots: rebuild the scope list in the same order. */
    for (size_t k = 0; k < s->scope_len; k++) {
      size_t v = s->slots[s->scope[k]];
      size_t j = hash_str(name_at(p, v - 1)) & (ncap - 1);
      while (ns[j]) j = (j + 1) & (ncap - 1);
      ns[j] = v;
      s->scope[k] = j;
    }
    if (s->slots) ctx_raw_free(p->ctx, s->slots, s->cap * sizeof *s->slots);
    s->slots = ns;
    s->cap = ncap;
    s->count = s->scope_len;
  }
  if (s->scope_len == s->scope_cap) {
    size_t ncap = s->scope_cap ? s->scope_cap * 2 : 64;
    size_t *nsc = ctx_raw_realloc(p->ctx, s->scope, s->scope_cap * sizeof *nsc, ncap * sizeof *nsc);
    if (!nsc) return false;
    s->scope = nsc;
    s->scope_cap = ncap;
  }
  size_t j = hash_str(name_at(p, off)) & (s->cap - 1);
  while (s->slots[j] && s->slots[j] != NAME_TOMB) j = (j + 1) & (s->cap - 1);
  if (!s->slots[j]) s->count++;
  s->slots[j] = off + 1;
  s->scope[s->scope_len++] = j;
  return true;
}

/* Forgets the names added since the scope list had `mark` entries. */
static void name_set_pop(printer *p, size_t mark) {
  name_set *s = &p->used;
  while (s->scope_len > mark) s->slots[s->scope[--s->scope_len]] = NAME_TOMB;
}

static size_t value_name_lookup(const printer *p, const ir_value *v) {
  const ptr_map_value *off = ptr_map_find(&p->names, v, NULL);
  return off ? (size_t)off->num : SIZE_MAX;
}

static bool value_name_insert(printer *p, const ir_value *v, size_t off) {
  ptr_map_value *slot = ptr_map_insert(&p->names, v, NULL);
  if (!slot) return false;
  slot->num = (int64_t)off;
  return true;
}

static void names_clear(printer *p) {
  ptr_map_free(&p->names);
  if (p->used.slots) ctx_raw_free(p->ctx, p->used.slots, p->used.cap * sizeof *p->used.slots);
  if (p->used.scope) ctx_raw_free(p->ctx, p->used.scope, p->used.scope_cap * sizeof *p->used.scope);
  memset(&p->used, 0, sizeof p->used);
  pool_free(&p->name_pool);
  p->name_pool.failed = false;
  p->next_value = p->next_arg = p->next_conflict = 0;
}

/* ------------------------------------------------------------------ lexical helpers */

static bool is_letter(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }

/* MLIR bare-id: (letter|_) (letter|digit|[_$.])* */
static bool is_bare_id(const char *s, size_t n) {
  if (n == 0 || !(is_letter((unsigned char)s[0]) || s[0] == '_')) return false;
  for (size_t i = 1; i < n; i++) {
    int c = (unsigned char)s[i];
    if (!(is_letter(c) || is_digit(c) || c == '_' || c == '$' || c == '.')) return false;
  }
  return true;
}

/* Characters allowed after '%' in an SSA name. */
static bool is_suffix_char(int c) {
  return is_letter(c) || is_digit(c) || c == '_' || c == '$' || c == '.' || c == '-';
}

static void print_escaped(printer *p, const char *s, size_t n) {
  static const char hex[] = "0123456789ABCDEF";
  w_putc(p->w, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      char e[2] = {'\\', (char)c};
      w_put(p->w, e, 2);
    } else if (c == '\n') {
      w_puts(p->w, "\\n");
    } else if (c >= 0x20 && c < 0x7f) {
      w_putc(p->w, (char)c);
    } else {
      char e[3] = {'\\', hex[c >> 4], hex[c & 15]};
      w_put(p->w, e, 3);
    }
  }
  w_putc(p->w, '"');
}

/* The string attribute `name` of op as a quoted literal ("" when absent): the text an op's pretty
 * form writes before its attribute dictionary (tt.print, tt.assert, tt.elementwise_inline_asm). */
static void print_string_attr(printer *p, const ir_op *op, const char *name) {
  const ir_attr *a = ir_op_get_attr(op, name);
  print_escaped(p, a && a->str ? a->str : "", a && a->str ? a->str_len : 0);
}

/* A dictionary key or symbol: bare when MLIR's lexer reads it back as one identifier; an op's
 * name ("tt.atomic_rmw") is quoted, since gemmc's lexer reads those as op names (fuzz finding). */
static void print_key(printer *p, const char *s) {
  size_t n = strlen(s);
  ir_op_kind kind;
  if (is_bare_id(s, n) && !ir_op_kind_from_name(s, n, &kind))
    w_put(p->w, s, n);
  else
    print_escaped(p, s, n);
}

static void print_symbol(printer *p, const char *s, size_t n) {
  w_putc(p->w, '@');
  if (is_bare_id(s, n))
    w_put(p->w, s, n);
  else
    print_escaped(p, s, n);
}

static void print_indent(printer *p) {
  static const char spaces[] = "                                ";
  int n = p->indent;
  while (n > 0) {
    int k = n < 32 ? n : 32;
    w_put(p->w, spaces, (size_t)k);
    n -= k;
  }
}

/* ------------------------------------------------------------------ floats */

/* Bit layout of each float kind, for rounding checks and inf/nan hex patterns. */
typedef struct float_layout {
  int exp_bits, mant_bits, bias;
  enum { NAN_IEEE, NAN_ALL_ONES, NAN_NEG_ZERO } nan_style; /* IEEE, E4M3FN (S.1111.111), FNUZ (0x80) */
} float_layout;

static float_layout float_layout_of(ir_float_kind k) {
  switch (k) {
  case FLT_F16: return (float_layout){5, 10, 15, NAN_IEEE};
  case FLT_BF16: return (float_layout){8, 7, 127, NAN_IEEE};
  case FLT_F32: return (float_layout){8, 23, 127, NAN_IEEE};
  case FLT_TF32: return (float_layout){8, 10, 127, NAN_IEEE};
  case FLT_F8E4M3FN: return (float_layout){4, 3, 7, NAN_ALL_ONES};
  case FLT_F8E5M2: return (float_layout){5, 2, 15, NAN_IEEE};
  case FLT_F8E4M3FNUZ: return (float_layout){4, 3, 8, NAN_NEG_ZERO};
  case FLT_F8E5M2FNUZ: return (float_layout){5, 2, 16, NAN_NEG_ZERO};
  case FLT_F8E4M3B11FNUZ: return (float_layout){4, 3, 11, NAN_NEG_ZERO};
  case FLT_F64:
  default: return (float_layout){11, 52, 1023, NAN_IEEE};
  }
}

static ir_float_kind float_kind_of(const ir_type *t) {
  t = ir_type_element(t);
  return t && t->kind == TY_FLOAT ? t->float_kind : FLT_F64;
}

/* v rounded (to nearest even) to the precision of kind; range overflow is not modelled. */
static double round_to_kind(double v, ir_float_kind kind) {
  if (kind == FLT_F64 || v == 0 || !isfinite(v)) return v;
  if (kind == FLT_F32) return (double)(float)v;
  float_layout fl = float_layout_of(kind);
  int e;
  frexp(v, &e);
  int lead = e - 1, emin = 1 - fl.bias;
  if (lead < emin) lead = emin; /* subnormal: fixed quantum */
  double quantum = ldexp(1.0, lead - fl.mant_bits);
  return rint(v / quantum) * quantum;
}

/* MLIR prints inf/nan as the bit pattern: 0x7F800000 (f32 inf), 0xFC00 (f16 -inf). */
static void format_float_hex(char *out, size_t size, double v, ir_float_kind kind) {
  bool neg = signbit(v) != 0;
  uint64_t bits;
  if (kind == FLT_F64) {
    if (isnan(v)) bits = 0x7FF8000000000000ull | ((uint64_t)neg << 63);
    else memcpy(&bits, &v, sizeof bits);
  } else if (kind == FLT_F32) {
    float f = isnan(v) ? (neg ? -NAN : NAN) : (float)v;
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    if (isnan(v)) b = 0x7FC00000u | ((uint32_t)neg << 31);
    bits = b;
  } else {
    float_layout fl = float_layout_of(kind);
    int total = 1 + fl.exp_bits + fl.mant_bits;
    uint64_t exp_all = ((1ull << fl.exp_bits) - 1) << fl.mant_bits;
    if (fl.nan_style == NAN_NEG_ZERO)
      bits = 1ull << (total - 1);
    else if (fl.nan_style == NAN_ALL_ONES)
      bits = exp_all | ((1ull << fl.mant_bits) - 1) | ((uint64_t)neg << (total - 1));
    else
      bits = exp_all | (isnan(v) ? 1ull << (fl.mant_bits - 1) : 0) | ((uint64_t)neg << (total - 1));
  }
  snprintf(out, size, "0x%" PRIX64, bits);
}

/* MLIR style: `%e` with 6 digits when that reads back to the same value of the type, else the
 * shortest %g that does (always with a '.', so the lexer sees a float); inf/nan as hex bits. */
static void format_float(char *out, size_t size, double v, const ir_type *type) {
  ir_float_kind kind = float_kind_of(type);
  if (!isfinite(v)) {
    format_float_hex(out, size, v, kind);
    return;
  }
  double want = round_to_kind(v, kind);
  snprintf(out, size, "%.6e", v);
  if (round_to_kind(strtod(out, NULL), kind) == want) return;
  for (int prec = 7; prec <= 17; prec++) {
    snprintf(out, size, "%.*g", prec, v);
    if (round_to_kind(strtod(out, NULL), kind) == want) break;
  }
  if (!strchr(out, '.')) {
    char *e = strchr(out, 'e');
    size_t n = strlen(out);
    if (n + 3 > size) return;
    if (e) {
      memmove(e + 2, e, strlen(e) + 1);
      e[0] = '.';
      e[1] = '0';
    } else {
      memcpy(out + n, ".0", 3);
    }
  }
}

/* ------------------------------------------------------------------ types */

static void print_attr(printer *p, const ir_attr *a);
static void print_layout_ref(printer *p, const ir_attr *a);

static void print_type(printer *p, const ir_type *t);

static void print_dims(printer *p, int rank, const int64_t *shape) {
  for (int i = 0; i < rank; i++) {
    if (shape[i] < 0)
      w_putc(p->w, '?');
    else
      w_printf(p->w, "%" PRId64, shape[i]);
    w_putc(p->w, 'x');
  }
}

/* The part of !ttg.memdesc between '<' and '>' (async_copy prints it without the prefix). */
static void print_memdesc_body(printer *p, const ir_type *t) {
  w_putc(p->w, '<');
  print_dims(p, t->rank, t->shape);
  print_type(p, t->elem);
  if (t->encoding) {
    w_puts(p->w, ", ");
    print_attr(p, t->encoding);
  }
  if (t->memspace) {
    w_puts(p->w, ", ");
    print_attr(p, t->memspace);
  }
  if (t->is_mutable) w_puts(p->w, ", mutable");
  if (t->alloc_rank > 0) {
    w_puts(p->w, ", ");
    for (int i = 0; i < t->alloc_rank; i++) {
      if (i) w_putc(p->w, 'x');
      w_printf(p->w, "%" PRId64, t->alloc_shape[i]);
    }
  }
  w_putc(p->w, '>');
}

/* A dialect type without its `!dialect.name` prefix, as MLIR prints `type($x)` of a known type class:
 * `<f16>` (!tt.ptr), `<tensor<128x64xf16, #shared>>` (!tt.tensordesc, Triton 3.6's form), `<..>` (memdesc). */
static void print_type_body(printer *p, const ir_type *t) {
  switch (t->kind) {
  case TY_PTR:
    w_putc(p->w, '<');
    print_type(p, t->elem);
    if (t->addr_space != 1) w_printf(p->w, ", %d", t->addr_space);
    w_putc(p->w, '>');
    break;
  case TY_TENSORDESC:
    w_puts(p->w, "<tensor<");
    print_dims(p, t->rank, t->shape);
    print_type(p, t->elem);
    if (t->encoding) {
      w_puts(p->w, ", ");
      print_attr(p, t->encoding);
    }
    w_puts(p->w, ">>");
    break;
  case TY_MEMDESC: print_memdesc_body(p, t); break;
  default: print_type(p, t); break;
  }
}

/* Result lists: a single non-function type stands alone, anything else is parenthesized. */
static void print_type_list_result(printer *p, int n, const ir_type *const *types) {
  if (n == 1 && types[0] && types[0]->kind != TY_FUNC) {
    print_type(p, types[0]);
    return;
  }
  w_putc(p->w, '(');
  for (int i = 0; i < n; i++) {
    if (i) w_puts(p->w, ", ");
    print_type(p, types[i]);
  }
  w_putc(p->w, ')');
}

static void print_type(printer *p, const ir_type *t) {
  if (!t) {
    w_puts(p->w, "<<NULL TYPE>>");
    return;
  }
  switch (t->kind) {
  case TY_INT: w_printf(p->w, "i%u", t->width); break;
  case TY_FLOAT: w_puts(p->w, ir_float_kind_name(t->float_kind)); break;
  case TY_INDEX: w_puts(p->w, "index"); break;
  case TY_NONE: w_puts(p->w, "none"); break;
  case TY_TOKEN: w_puts(p->w, "!ttg.async.token"); break;
  case TY_PTR:
    w_puts(p->w, "!tt.ptr");
    print_type_body(p, t);
    break;
  case TY_TENSORDESC:
    w_puts(p->w, "!tt.tensordesc");
    print_type_body(p, t);
    break;
  case TY_TENSOR:
    w_puts(p->w, "tensor<");
    print_dims(p, t->rank, t->shape);
    print_type(p, t->elem);
    if (t->encoding) {
      w_puts(p->w, ", ");
      print_attr(p, t->encoding);
    }
    w_putc(p->w, '>');
    break;
  case TY_MEMDESC:
    w_puts(p->w, "!ttg.memdesc");
    print_memdesc_body(p, t);
    break;
  case TY_FUNC:
    w_putc(p->w, '(');
    for (int i = 0; i < t->num_inputs; i++) {
      if (i) w_puts(p->w, ", ");
      print_type(p, t->inputs[i]);
    }
    w_puts(p->w, ") -> ");
    print_type_list_result(p, t->num_results, t->results);
    break;
  }
}

/* ------------------------------------------------------------------ attributes */

/* How much of a scalar attribute to print: its type suffix or not. */
typedef enum {
  ATTR_IN_DICT,   /* `16 : i32`, but untyped / i64 integers bare (`16`) */
  ATTR_BARE,      /* value only: dense elements */
  ATTR_CONSTANT,  /* arith.constant: always typed except i1 */
} attr_mode;

static bool type_is_i1(const ir_type *t) { return t && t->kind == TY_INT && t->width == 1; }

static void print_int_value(printer *p, int64_t v, const ir_type *type) {
  if (type_is_i1(type))
    w_puts(p->w, v ? "true" : "false");
  else
    w_printf(p->w, "%" PRId64, v);
}

static void print_float_value(printer *p, double v, const ir_type *type) {
  char buf[64];
  format_float(buf, sizeof buf, v, type);
  w_puts(p->w, buf);
}

static void print_attr_mode(printer *p, const ir_attr *a, attr_mode mode, const ir_type *fallback);

static void print_dense_element(printer *p, const ir_attr *e, const ir_type *elem_type) {
  if (!e) {
    w_puts(p->w, "<<NULL>>");
    return;
  }
  switch (e->kind) {
  case AT_INT: print_int_value(p, e->int_value, type_is_i1(elem_type) ? elem_type : e->type); break;
  case AT_BOOL: w_puts(p->w, e->int_value ? "true" : "false"); break;
  case AT_FLOAT: print_float_value(p, e->float_value, elem_type ? elem_type : e->type); break;
  default: print_attr_mode(p, e, ATTR_BARE, NULL); break;
  }
}

/* Nested brackets per dimension, elements in row-major order; returns the next flat index. */
static int print_dense_dim(printer *p, const ir_attr *a, const ir_type *t, int dim, int flat) {
  if (dim == t->rank) {
    print_dense_element(p, a->elems[flat], t->elem);
    return flat + 1;
  }
  w_putc(p->w, '[');
  for (int64_t i = 0; i < t->shape[dim]; i++) {
    if (i) w_puts(p->w, ", ");
    flat = print_dense_dim(p, a, t, dim + 1, flat);
  }
  w_putc(p->w, ']');
  return flat;
}

static void print_dense(printer *p, const ir_attr *a) {
  const ir_type *t = a->type;
  const ir_type *elem = ir_type_element(t);
  w_puts(p->w, "dense<");
  if (a->dense_splat && a->num_elems >= 1) {
    print_dense_element(p, a->elems[0], elem);
  } else if (t && (t->kind == TY_TENSOR || t->kind == TY_MEMDESC) &&
             ir_type_num_elements(t) == a->num_elems && t->rank > 0) {
    print_dense_dim(p, a, t, 0, 0);
  } else if (a->num_elems == 1 && (!t || t->rank == 0)) {
    print_dense_element(p, a->elems[0], elem);
  } else {
    /* The shape does not match the element count: print flat so nothing is lost. */
    w_putc(p->w, '[');
    for (int i = 0; i < a->num_elems; i++) {
      if (i) w_puts(p->w, ", ");
      print_dense_element(p, a->elems[i], elem);
    }
    w_putc(p->w, ']');
  }
  w_putc(p->w, '>');
  if (t) {
    w_puts(p->w, " : ");
    print_type(p, t);
  }
}

static void print_dense_array(printer *p, const ir_attr *a) {
  w_puts(p->w, "array<");
  print_type(p, a->type);
  for (int i = 0; i < a->num_elems; i++) {
    w_puts(p->w, i ? ", " : ": ");
    if (a->floats)
      print_float_value(p, a->floats[i], a->type);
    else if (a->ints)
      print_int_value(p, a->ints[i], a->type);
  }
  w_putc(p->w, '>');
}

static void print_dict_entries(printer *p, int n, const char *const *names, const ir_attr *const *values) {
  for (int i = 0; i < n; i++) {
    if (i) w_puts(p->w, ", ");
    print_key(p, names[i]);
    if (values[i] && values[i]->kind == AT_UNIT) continue;
    w_puts(p->w, " = ");
    print_attr_mode(p, values[i], ATTR_IN_DICT, NULL);
  }
}

static void print_attr_mode(printer *p, const ir_attr *a, attr_mode mode, const ir_type *fallback) {
  if (!a) {
    w_puts(p->w, "<<NULL ATTRIBUTE>>");
    return;
  }
  switch (a->kind) {
  case AT_INT: {
    const ir_type *t = a->type ? a->type : (mode == ATTR_CONSTANT ? fallback : NULL);
    print_int_value(p, a->int_value, t);
    if (mode == ATTR_BARE || !t || type_is_i1(t)) break;
    if (mode == ATTR_IN_DICT && t->kind == TY_INT && t->width == 64) break;
    w_puts(p->w, " : ");
    print_type(p, t);
    break;
  }
  case AT_FLOAT: {
    const ir_type *t = a->type ? a->type : (mode == ATTR_CONSTANT ? fallback : NULL);
    print_float_value(p, a->float_value, t);
    if (mode == ATTR_BARE || !t) break;
    w_puts(p->w, " : ");
    print_type(p, t);
    break;
  }
  case AT_BOOL: w_puts(p->w, a->int_value ? "true" : "false"); break;
  case AT_STRING: print_escaped(p, a->str ? a->str : "", a->str ? a->str_len : 0); break;
  case AT_ARRAY:
    w_putc(p->w, '[');
    for (int i = 0; i < a->num_elems; i++) {
      if (i) w_puts(p->w, ", ");
      print_attr_mode(p, a->elems[i], ATTR_IN_DICT, NULL);
    }
    w_putc(p->w, ']');
    break;
  case AT_DENSE: print_dense(p, a); break;
  case AT_DENSE_ARRAY: print_dense_array(p, a); break;
  case AT_DICT:
    w_putc(p->w, '{');
    print_dict_entries(p, a->num_elems, a->names, a->elems);
    w_putc(p->w, '}');
    break;
  case AT_TYPE: print_type(p, a->type); break;
  case AT_UNIT: w_puts(p->w, "unit"); break;
  case AT_SYMBOL: print_symbol(p, a->str ? a->str : "", a->str ? a->str_len : 0); break;
  case AT_KEYWORD: w_put(p->w, a->str ? a->str : "", a->str ? a->str_len : 0); break;
  default:
    if (ir_attr_is_layout(a))
      print_layout_ref(p, a);
    else
      w_puts(p->w, "<<UNKNOWN ATTRIBUTE>>");
    break;
  }
}

static void print_attr(printer *p, const ir_attr *a) { print_attr_mode(p, a, ATTR_IN_DICT, NULL); }

/* ------------------------------------------------------------------ layout encodings */

static void print_int_list(printer *p, const int *v, int n) {
  w_putc(p->w, '[');
  for (int i = 0; i < n; i++) {
    if (i) w_puts(p->w, ", ");
    w_printf(p->w, "%d", v[i]);
  }
  w_putc(p->w, ']');
}

static void print_cga_layout(printer *p, const ir_layout_params *l) {
  if (!l->cga_layout) return;
  w_puts(p->w, ", CGALayout = ");
  print_attr(p, l->cga_layout);
}

/* The full text of a layout (`#ttg.blocked<{...}>`); nested layouts go through aliases. */
static void print_layout_def(printer *p, const ir_attr *a) {
  const ir_layout_params *l = &a->layout;
  int rank = l->rank < 0 ? 0 : (l->rank > IR_MAX_RANK ? IR_MAX_RANK : l->rank);
  w_putc(p->w, '#');
  w_puts(p->w, ir_attr_kind_name(a->kind));
  switch (a->kind) {
  case AT_BLOCKED:
    w_puts(p->w, "<{sizePerThread = ");
    print_int_list(p, l->size_per_thread, rank);
    w_puts(p->w, ", threadsPerWarp = ");
    print_int_list(p, l->threads_per_warp, rank);
    w_puts(p->w, ", warpsPerCTA = ");
    print_int_list(p, l->warps_per_cta, rank);
    w_puts(p->w, ", order = ");
    print_int_list(p, l->order, rank);
    print_cga_layout(p, l);
    w_puts(p->w, "}>");
    break;
  case AT_SLICE:
    w_printf(p->w, "<{dim = %d, parent = ", l->dim);
    if (l->parent)
      print_layout_ref(p, l->parent);
    else
      w_puts(p->w, "<<NULL>>");
    w_puts(p->w, "}>");
    break;
  case AT_DOT_OP:
    w_printf(p->w, "<{opIdx = %d, parent = ", l->op_idx);
    if (l->parent)
      print_layout_ref(p, l->parent);
    else
      w_puts(p->w, "<<NULL>>");
    if (l->k_width) w_printf(p->w, ", kWidth = %d", l->k_width);
    w_puts(p->w, "}>");
    break;
  case AT_NVIDIA_MMA:
    w_printf(p->w, "<{versionMajor = %d, versionMinor = %d, warpsPerCTA = ", l->version_major,
             l->version_minor);
    print_int_list(p, l->warps_per_cta, rank);
    print_cga_layout(p, l);
    w_puts(p->w, ", instrShape = ");
    print_int_list(p, l->instr_shape, l->instr_rank < 0 ? 0 : (l->instr_rank > 3 ? 3 : l->instr_rank));
    w_puts(p->w, "}>");
    break;
  case AT_AMD_MFMA:
    w_printf(p->w, "<{version = %d, warpsPerCTA = ", l->version_major);
    print_int_list(p, l->warps_per_cta, rank);
    w_puts(p->w, ", instrShape = ");
    print_int_list(p, l->instr_shape, l->instr_rank < 0 ? 0 : (l->instr_rank > 3 ? 3 : l->instr_rank));
    w_puts(p->w, l->is_transposed ? ", isTransposed = true" : ", isTransposed = false");
    print_cga_layout(p, l);
    if (l->tiles_per_warp_rank > 0) {
      w_puts(p->w, ", tilesPerWarp = ");
      print_int_list(p, l->tiles_per_warp,
                     l->tiles_per_warp_rank > IR_MAX_RANK ? IR_MAX_RANK : l->tiles_per_warp_rank);
    }
    if (l->element_bit_width) w_printf(p->w, ", elementBitWidth = %d", l->element_bit_width);
    w_puts(p->w, "}>");
    break;
  case AT_SWIZZLED_SHARED:
  case AT_AMD_ROTATING_SHARED:
    w_printf(p->w, "<{vec = %d, perPhase = %d, maxPhase = %d, order = ", l->vec, l->per_phase,
             l->max_phase);
    print_int_list(p, l->order, rank);
    print_cga_layout(p, l);
    w_puts(p->w, "}>");
    break;
  case AT_NVMMA_SHARED:
    w_printf(p->w, "<{swizzlingByteWidth = %d, transposed = %s, elementBitWidth = %d",
             l->swizzling_byte_width, l->transposed ? "true" : "false", l->element_bit_width);
    if (l->fp4_padded) w_puts(p->w, ", fp4Padded = true");
    if (l->nvmma_rank) w_printf(p->w, ", rank = %d", l->nvmma_rank);
    print_cga_layout(p, l);
    w_puts(p->w, "}>");
    break;
  case AT_SHARED_MEMORY: break;
  case AT_LINEAR: {
    const ir_attr *bases[4] = {l->lin_register, l->lin_lane, l->lin_warp, l->lin_block};
    static const char *const names[4] = {"register", "lane", "warp", "block"};
    w_puts(p->w, "<{");
    for (int i = 0; i < 4; i++) {
      if (i) w_puts(p->w, ", ");
      w_puts(p->w, names[i]);
      w_puts(p->w, " = ");
      if (bases[i])
        print_attr(p, bases[i]);
      else
        w_puts(p->w, "[]");
    }
    w_puts(p->w, "}>");
    break;
  }
  default: break;
  }
}

/* Triton's alias names; slices and dot operands have none (they print inline). */
static const char *layout_alias_base(ir_attr_kind kind) {
  switch (kind) {
  case AT_BLOCKED: return "blocked";
  case AT_NVIDIA_MMA:
  case AT_AMD_MFMA: return "mma";
  case AT_SWIZZLED_SHARED:
  case AT_AMD_ROTATING_SHARED:
  case AT_NVMMA_SHARED: return "shared";
  case AT_SHARED_MEMORY: return "smem";
  case AT_LINEAR: return "linear";
  default: return NULL;
  }
}

static const layout_alias *find_layout_alias(const printer *p, const ir_attr *a) {
  for (int i = 0; i < p->num_aliases; i++)
    if (p->aliases[i].attr == a) return &p->aliases[i];
  return NULL;
}

static const layout_alias *add_layout_alias(printer *p, const ir_attr *a, const char *base) {
  size_t cap = (size_t)p->cap_aliases;
  void *data = p->aliases;
  if (!grow_array(p->ctx, &data, sizeof(layout_alias), &cap, (size_t)p->num_aliases + 1)) return NULL;
  p->aliases = data;
  p->cap_aliases = (int)cap;
  int number = 0;
  for (int i = 0; i < p->num_aliases; i++)
    if (strcmp(p->aliases[i].base, base) == 0) number++;
  layout_alias *al = &p->aliases[p->num_aliases++];
  al->attr = a;
  al->base = base;
  al->number = number;
  return al;
}

static void print_layout_ref(printer *p, const ir_attr *a) {
  const char *base = p->use_aliases ? layout_alias_base(a->kind) : NULL;
  if (base) {
    const layout_alias *al = find_layout_alias(p, a);
    if (!al && p->collecting) al = add_layout_alias(p, a, base);
    if (al) {
      w_putc(p->w, '#');
      w_puts(p->w, al->base);
      if (al->number) w_printf(p->w, "%d", al->number);
      return;
    }
  }
  print_layout_def(p, a);
}

/* MLIR emits aliases sorted by name (numbered ones in first-use order within a name). */
static void print_layout_alias_lines(printer *p) {
  static const char *const bases[] = {"blocked", "linear", "mma", "shared", "smem"};
  for (size_t b = 0; b < sizeof bases / sizeof *bases; b++)
    for (int i = 0; i < p->num_aliases; i++) {
      const layout_alias *al = &p->aliases[i];
      if (strcmp(al->base, bases[b]) != 0) continue;
      w_putc(p->w, '#');
      w_puts(p->w, al->base);
      if (al->number) w_printf(p->w, "%d", al->number);
      w_puts(p->w, " = ");
      print_layout_def(p, al->attr);
      w_putc(p->w, '\n');
    }
}

/* ------------------------------------------------------------------ locations */

static const ir_loc unknown_loc = {.kind = LOC_UNKNOWN};

/* LOC_ALIAS nodes the parser could not resolve carry no information: print them as unknown. */
static const ir_loc *loc_resolve(const ir_loc *l) {
  int guard = 0;
  while (l && l->kind == LOC_ALIAS && l->child && guard++ < 64) l = l->child;
  if (!l || l->kind == LOC_ALIAS) return &unknown_loc;
  return l;
}

static size_t loc_alias_of(printer *p, const ir_loc *l, int depth);

static void pool_append_alias(pool *out, size_t id) {
  char num[32];
  snprintf(num, sizeof num, id ? "#loc%zu" : "#loc", id);
  pool_append_str(out, num);
}

/* Appends the body of a location (what goes inside loc(...)), children as alias references. */
static bool loc_body_text(printer *p, const ir_loc *l, int depth, pool *out) {
  char num[64];
  l = loc_resolve(l);
  switch (l->kind) {
  case LOC_FILE: {
    const char *f = l->file ? l->file : "";
    pool_append_escaped(out, f, strlen(f));
    snprintf(num, sizeof num, ":%d:%d", l->line, l->col);
    pool_append_str(out, num);
    break;
  }
  case LOC_NAME: {
    const char *nm = l->name ? l->name : "";
    pool_append_escaped(out, nm, strlen(nm));
    if (l->child) {
      size_t id = loc_alias_of(p, l->child, depth + 1);
      if (id == SIZE_MAX) return false;
      pool_append_str(out, "(");
      pool_append_alias(out, id);
      pool_append_str(out, ")");
    }
    break;
  }
  case LOC_CALLSITE: {
    size_t callee = loc_alias_of(p, l->callee ? l->callee : &unknown_loc, depth + 1);
    size_t caller = loc_alias_of(p, l->caller ? l->caller : &unknown_loc, depth + 1);
    if (callee == SIZE_MAX || caller == SIZE_MAX) return false;
    pool_append_str(out, "callsite(");
    pool_append_alias(out, callee);
    pool_append_str(out, " at ");
    pool_append_alias(out, caller);
    pool_append_str(out, ")");
    break;
  }
  case LOC_FUSED:
    pool_append_str(out, "fused[");
    for (int i = 0; i < l->num_fused; i++) {
      size_t id = loc_alias_of(p, l->fused[i] ? l->fused[i] : &unknown_loc, depth + 1);
      if (id == SIZE_MAX) return false;
      if (i) pool_append_str(out, ", ");
      pool_append_alias(out, id);
    }
    pool_append_str(out, "]");
    break;
  case LOC_UNKNOWN:
  default: pool_append_str(out, "unknown"); break;
  }
  return !out->failed && out->data;
}

/* The alias number of a location (children get theirs first), SIZE_MAX on failure. Equal
 * definitions share one alias, so `#locN` numbering is a function of the printed text. */
static size_t loc_alias_of(printer *p, const ir_loc *l, int depth) {
  if (depth > 200 || !p->ctx) return SIZE_MAX;
  pool tmp = {.ctx = p->ctx};
  if (!loc_body_text(p, l, depth, &tmp)) {
    pool_free(&tmp);
    return SIZE_MAX;
  }
  const char *def = tmp.data;
  loc_table *t = &p->locs;
  uint64_t h = hash_str(def);
  if (t->cap) {
    for (size_t i = h & (t->cap - 1); t->slots[i]; i = (i + 1) & (t->cap - 1)) {
      size_t id = t->slots[i] - 1;
      if (strcmp(t->defs.data + t->def_offs[id], def) == 0) {
        pool_free(&tmp);
        return id;
      }
    }
  }
  /* New definition: store it and index it. */
  t->defs.ctx = p->ctx;
  size_t off = pool_add(&t->defs, def, strlen(def));
  pool_free(&tmp);
  if (off == SIZE_MAX) return SIZE_MAX;
  void *offs = t->def_offs;
  if (!grow_array(p->ctx, &offs, sizeof(size_t), &t->defs_cap, t->count + 1)) return SIZE_MAX;
  t->def_offs = offs;
  size_t id = t->count++;
  t->def_offs[id] = off;
  if ((t->count) * 2 > t->cap) {
    size_t ncap = t->cap ? t->cap * 2 : 256;
    size_t *ns = ctx_raw_alloc(p->ctx, ncap * sizeof *ns);
    if (!ns) {
      t->count--;
      return SIZE_MAX;
    }
    memset(ns, 0, ncap * sizeof *ns);
    for (size_t k = 0; k < t->count; k++) {
      size_t j = hash_str(t->defs.data + t->def_offs[k]) & (ncap - 1);
      while (ns[j]) j = (j + 1) & (ncap - 1);
      ns[j] = k + 1;
    }
    if (t->slots) ctx_raw_free(p->ctx, t->slots, t->cap * sizeof *t->slots);
    t->slots = ns;
    t->cap = ncap;
  } else {
    size_t j = h & (t->cap - 1);
    while (t->slots[j]) j = (j + 1) & (t->cap - 1);
    t->slots[j] = id + 1;
  }
  return id;
}

static void print_loc_alias_ref(printer *p, size_t id) {
  if (id)
    w_printf(p->w, "#loc%zu", id);
  else
    w_puts(p->w, "#loc");
}

/* ` loc(#locN)` after an op. */
static void print_op_loc(printer *p, const ir_loc *l) {
  if (!p->debug_info) return;
  size_t id = loc_alias_of(p, l ? l : &unknown_loc, 0);
  w_puts(p->w, " loc(");
  if (id == SIZE_MAX)
    w_puts(p->w, "unknown");
  else
    print_loc_alias_ref(p, id);
  w_putc(p->w, ')');
}

/* ` loc("a_ptr"(#loc))` after a block argument: the top level inline, as Triton prints it. */
static void print_arg_loc(printer *p, const ir_loc *l) {
  if (!p->debug_info) return;
  pool tmp = {.ctx = p->ctx};
  w_puts(p->w, " loc(");
  if (p->ctx && loc_body_text(p, l ? l : &unknown_loc, 0, &tmp))
    w_puts(p->w, tmp.data);
  else
    w_puts(p->w, "unknown");
  w_putc(p->w, ')');
  pool_free(&tmp);
}

static void print_loc_alias_lines(printer *p) {
  const loc_table *t = &p->locs;
  for (size_t id = 0; id < t->count; id++) {
    print_loc_alias_ref(p, id);
    w_puts(p->w, " = loc(");
    w_puts(p->w, t->defs.data + t->def_offs[id]);
    w_puts(p->w, ")\n");
  }
}

static void locs_free(printer *p) {
  loc_table *t = &p->locs;
  if (t->slots) ctx_raw_free(p->ctx, t->slots, t->cap * sizeof *t->slots);
  if (t->def_offs) ctx_raw_free(p->ctx, t->def_offs, t->defs_cap * sizeof *t->def_offs);
  pool_free(&t->defs);
  memset(t, 0, sizeof *t);
}

/* ------------------------------------------------------------------ value names */

/* Records `name` for v (and makes it unique in the function: `x`, then `x_N`). */
static void assign_name(printer *p, const ir_value *v, const char *name) {
  char buf[256];
  size_t n = strlen(name);
  if (n > 200) n = 200;
  memcpy(buf, name, n);
  buf[n] = 0;
  if (name_set_has(p, buf)) {
    do {
      snprintf(buf + n, sizeof buf - n, "_%u", p->next_conflict++);
    } while (name_set_has(p, buf));
  }
  size_t off = pool_add(&p->name_pool, buf, strlen(buf));
  if (off == SIZE_MAX) return;
  name_set_insert(p, off);
  value_name_insert(p, v, off);
}

/* A hint from the source, with characters that cannot follow '%' replaced. */
static bool sanitized_hint(const ir_value *v, char *out, size_t size) {
  if (!v->name || !v->name[0]) return false;
  size_t n = 0;
  for (const char *s = v->name; *s && n + 1 < size; s++)
    out[n++] = is_suffix_char((unsigned char)*s) ? *s : '_';
  out[n] = 0;
  return n > 0;
}

/* The value whose name a result uses: an op's results share one name (`%x:3`, `%x#1`). */
static const ir_value *name_owner(const ir_value *v) {
  if (v->def_op && v->def_op->num_results > 1) return &v->def_op->results[0];
  return v;
}

/* Names one value: its hint (made unique in scope) or the next number, as MLIR does. */
static void name_value(printer *p, const ir_value *v, bool entry_arg) {
  char buf[256];
  /* Entry-block arguments consume an `argN` number whether named or not, as in MLIR. */
  unsigned arg_number = entry_arg ? p->next_arg++ : 0;
  if (value_name_lookup(p, v) != SIZE_MAX) return;
  if (sanitized_hint(v, buf, sizeof buf)) {
    assign_name(p, v, buf);
    return;
  }
  if (entry_arg) {
    snprintf(buf, sizeof buf, "arg%u", arg_number);
    while (name_set_has(p, buf)) snprintf(buf, sizeof buf, "arg%u", p->next_arg++);
  } else {
    do {
      snprintf(buf, sizeof buf, "%u", p->next_value++);
    } while (name_set_has(p, buf));
  }
  assign_name(p, v, buf);
}

/* MLIR's order: a region's block arguments and op results first, then each nested region,
 * every nested region starting from the counters and names the parent left, so sibling
 * regions reuse the same names. */
static void name_region(printer *p, const ir_region *r) {
  for (const ir_block *b = r->first; b; b = b->next) {
    for (int i = 0; i < b->num_args; i++)
      if (b->args[i]) name_value(p, b->args[i], b == r->first);
    for (const ir_op *op = b->first; op; op = op->next)
      if (op->num_results > 0) name_value(p, &op->results[0], false);
  }
  unsigned value = p->next_value, arg = p->next_arg, conflict = p->next_conflict;
  size_t mark = p->used.scope_len;
  for (const ir_block *b = r->first; b; b = b->next)
    for (const ir_op *op = b->first; op; op = op->next)
      for (int i = 0; i < op->num_regions; i++) {
        p->next_value = value;
        p->next_arg = arg;
        p->next_conflict = conflict;
        name_region(p, &op->regions[i]);
        name_set_pop(p, mark);
      }
}

static void name_isolated_op(printer *p, const ir_op *op) {
  names_clear(p);
  p->name_pool.ctx = p->ctx;
  p->names.ctx = p->ctx;
  if (!p->ctx) return;
  for (int i = 0; i < op->num_regions; i++) name_region(p, &op->regions[i]);
}

static void print_value(printer *p, const ir_value *v) {
  if (!v) {
    w_puts(p->w, "%<<NULL VALUE>>");
    return;
  }
  size_t off = value_name_lookup(p, name_owner(v));
  w_putc(p->w, '%');
  if (off == SIZE_MAX) {
    w_puts(p->w, "<<UNKNOWN SSA VALUE>>");
    return;
  }
  w_puts(p->w, name_at(p, off));
  if (v->def_op && v->def_op->num_results > 1) w_printf(p->w, "#%d", v->index);
}

static void print_operand(printer *p, const ir_op *op, int i) {
  print_value(p, i < op->num_operands ? op->operands[i].value : NULL);
}

static const ir_type *operand_type(const ir_op *op, int i) {
  if (i >= op->num_operands || !op->operands[i].value) return NULL;
  return op->operands[i].value->type;
}

static const ir_type *result_type(const ir_op *op, int i) {
  return i < op->num_results ? op->results[i].type : NULL;
}

static void print_operands(printer *p, const ir_op *op, int from, int to) {
  for (int i = from; i < to; i++) {
    if (i > from) w_puts(p->w, ", ");
    print_operand(p, op, i);
  }
}

static void print_operand_types(printer *p, const ir_op *op, int from, int to) {
  for (int i = from; i < to; i++) {
    if (i > from) w_puts(p->w, ", ");
    print_type(p, operand_type(op, i));
  }
}

/* `(T, U) -> R` over an op's operands and results (MLIR's functional-type). */
static void print_functional_type(printer *p, const ir_op *op) {
  w_putc(p->w, '(');
  print_operand_types(p, op, 0, op->num_operands);
  w_puts(p->w, ") -> ");
  if (op->num_results == 1 && result_type(op, 0) && result_type(op, 0)->kind != TY_FUNC) {
    print_type(p, result_type(op, 0));
    return;
  }
  w_putc(p->w, '(');
  for (int i = 0; i < op->num_results; i++) {
    if (i) w_puts(p->w, ", ");
    print_type(p, result_type(op, i));
  }
  w_putc(p->w, ')');
}

/* ------------------------------------------------------------------ op attributes */

static bool in_list(const char *name, const char *const *list) {
  for (; list && *list; list++)
    if (strcmp(*list, name) == 0) return true;
  return false;
}

typedef enum { ATTRS_ALL, ATTRS_PROPS, ATTRS_NON_PROPS } attr_filter;

static bool attr_selected(const ir_op *op, int i, const char *const *elided, attr_filter filter) {
  const char *name = op->attrs[i].name;
  if (in_list(name, elided)) return false;
  if (filter == ATTRS_ALL) return true;
  bool prop = ir_op_attr_is_property(op, name);
  return filter == ATTRS_PROPS ? prop : !prop;
}

/* ` {a = 1, b}` (or `open ... close`) of the op's attributes minus the elided ones; nothing
 * when none is left. */
static void print_op_attrs(printer *p, const ir_op *op, const char *const *elided, attr_filter filter,
                           const char *open, const char *close) {
  bool any = false;
  for (int i = 0; i < op->num_attrs; i++) {
    if (!attr_selected(op, i, elided, filter)) continue;
    w_puts(p->w, any ? ", " : open);
    any = true;
    print_key(p, op->attrs[i].name);
    const ir_attr *v = op->attrs[i].value;
    if (v && v->kind == AT_UNIT) continue;
    w_puts(p->w, " = ");
    print_attr(p, v);
  }
  if (any) w_puts(p->w, close);
}

static void print_attr_dict(printer *p, const ir_op *op, const char *const *elided) {
  print_op_attrs(p, op, elided, ATTRS_ALL, " {", "}");
}

static bool attr_is_keyword(const ir_attr *a) { return a && a->kind == AT_KEYWORD && a->str; }

static bool keyword_is(const ir_attr *a, const char *s) {
  return attr_is_keyword(a) && strcmp(a->str, s) == 0;
}

/* ------------------------------------------------------------------ regions */

static void print_op(printer *p, const ir_op *op);

static void print_block_arg(printer *p, const ir_value *v) {
  print_value(p, v);
  w_puts(p->w, ": ");
  print_type(p, v ? v->type : NULL);
  if (v) print_arg_loc(p, v->loc);
}

/* An scf.yield with nothing to say is implied by the custom syntax of scf.for / scf.if. */
static bool is_implicit_terminator(const ir_op *op) {
  return op && op->kind == OP_SCF_YIELD && op->num_operands == 0 && op->num_attrs == 0 &&
         op->next == NULL;
}

static void print_region(printer *p, const ir_region *r, bool print_entry_args, bool print_terminators) {
  w_puts(p->w, "{\n");
  int index = 0;
  for (const ir_block *b = r->first; b; b = b->next, index++) {
    bool entry = b == r->first;
    if (!entry || (print_entry_args && b->num_args > 0)) {
      print_indent(p);
      w_printf(p->w, "^bb%d", index);
      if (b->num_args > 0) {
        w_putc(p->w, '(');
        for (int i = 0; i < b->num_args; i++) {
          if (i) w_puts(p->w, ", ");
          print_block_arg(p, b->args[i]);
        }
        w_putc(p->w, ')');
      }
      w_puts(p->w, ":\n");
    }
    p->indent += 2;
    for (const ir_op *op = b->first; op; op = op->next) {
      if (!print_terminators && is_implicit_terminator(op)) continue;
      print_op(p, op);
    }
    p->indent -= 2;
  }
  print_indent(p);
  w_putc(p->w, '}');
}

/* ------------------------------------------------------------------ ops */

static void print_generic(printer *p, const ir_op *op) {
  const char *name = op->kind == OP_MODULE ? "builtin.module" : ir_op_name(op);
  print_escaped(p, name, strlen(name));
  w_putc(p->w, '(');
  print_operands(p, op, 0, op->num_operands);
  w_putc(p->w, ')');
  print_op_attrs(p, op, NULL, ATTRS_PROPS, " <{", "}>");
  if (op->num_regions > 0) {
    w_puts(p->w, " (");
    for (int i = 0; i < op->num_regions; i++) {
      if (i) w_puts(p->w, ", ");
      print_region(p, &op->regions[i], true, true);
    }
    w_putc(p->w, ')');
  }
  print_op_attrs(p, op, NULL, ATTRS_NON_PROPS, " {", "}");
  w_puts(p->w, " : ");
  print_functional_type(p, op);
}

static void print_module(printer *p, const ir_op *op) {
  static const char *const elided[] = {"sym_name", NULL};
  w_puts(p->w, "module");
  const ir_attr *name = ir_op_get_attr(op, "sym_name");
  if (name && (name->kind == AT_STRING || name->kind == AT_SYMBOL)) {
    w_putc(p->w, ' ');
    print_symbol(p, name->str, name->str_len);
  }
  print_op_attrs(p, op, elided, ATTRS_ALL, " attributes {", "}");
  w_putc(p->w, ' ');
  if (op->num_regions > 0)
    print_region(p, &op->regions[0], false, true);
  else
    w_puts(p->w, "{\n}");
}

static const ir_attr *array_elem(const ir_attr *arr, int i) {
  if (!arr || arr->kind != AT_ARRAY || i >= arr->num_elems) return NULL;
  return arr->elems[i];
}

static void print_optional_dict(printer *p, const ir_attr *d) {
  if (!d || d->kind != AT_DICT || d->num_elems == 0) return;
  w_puts(p->w, " {");
  print_dict_entries(p, d->num_elems, d->names, d->elems);
  w_putc(p->w, '}');
}

static void print_func(printer *p, const ir_op *op) {
  static const char *const elided[] = {"arg_attrs", "function_type", "res_attrs", "sym_name",
                                       "sym_visibility", NULL};
  w_puts(p->w, "tt.func ");
  const ir_attr *vis = ir_op_get_attr(op, "sym_visibility");
  if (vis && (vis->kind == AT_STRING || vis->kind == AT_KEYWORD) && vis->str) {
    w_put(p->w, vis->str, vis->str_len);
    w_putc(p->w, ' ');
  }
  const ir_attr *name = ir_op_get_attr(op, "sym_name");
  if (name && name->str)
    print_symbol(p, name->str, name->str_len);
  else
    w_puts(p->w, "@\"\"");
  const ir_attr *ft = ir_op_get_attr(op, "function_type");
  const ir_type *fty = ft && ft->kind == AT_TYPE && ft->type && ft->type->kind == TY_FUNC ? ft->type : NULL;
  const ir_attr *arg_attrs = ir_op_get_attr(op, "arg_attrs");
  const ir_attr *res_attrs = ir_op_get_attr(op, "res_attrs");
  const ir_block *entry = op->num_regions > 0 ? op->regions[0].first : NULL;
  w_putc(p->w, '(');
  if (entry) {
    for (int i = 0; i < entry->num_args; i++) {
      if (i) w_puts(p->w, ", ");
      const ir_value *arg = entry->args[i];
      print_value(p, arg);
      w_puts(p->w, ": ");
      print_type(p, arg ? arg->type : NULL);
      print_optional_dict(p, array_elem(arg_attrs, i));
      if (arg) print_arg_loc(p, arg->loc);
    }
  } else if (fty) {
    /* A declaration has no argument values: types (and attributes) only. */
    for (int i = 0; i < fty->num_inputs; i++) {
      if (i) w_puts(p->w, ", ");
      print_type(p, fty->inputs[i]);
      print_optional_dict(p, array_elem(arg_attrs, i));
    }
  }
  w_putc(p->w, ')');
  if (fty && fty->num_results > 0) {
    bool any_res_attrs = false;
    for (int i = 0; i < fty->num_results; i++) {
      const ir_attr *d = array_elem(res_attrs, i);
      if (d && d->kind == AT_DICT && d->num_elems) any_res_attrs = true;
    }
    w_puts(p->w, " -> ");
    if (!any_res_attrs) {
      print_type_list_result(p, fty->num_results, fty->results);
    } else {
      w_putc(p->w, '(');
      for (int i = 0; i < fty->num_results; i++) {
        if (i) w_puts(p->w, ", ");
        print_type(p, fty->results[i]);
        print_optional_dict(p, array_elem(res_attrs, i));
      }
      w_putc(p->w, ')');
    }
  }
  print_op_attrs(p, op, elided, ATTRS_ALL, " attributes {", "}");
  if (entry) {
    w_putc(p->w, ' ');
    print_region(p, &op->regions[0], false, true);
  }
}

/* A keyword attribute, or an integer enum case mapped to its keyword through `names`. */
static void print_enum_attr(printer *p, const ir_attr *a, const char *const *names, int count) {
  if (attr_is_keyword(a)) {
    w_put(p->w, a->str, a->str_len);
  } else if (a && a->kind == AT_INT && names && a->int_value >= 0 && a->int_value < count) {
    w_puts(p->w, names[a->int_value]);
  } else if (a) {
    print_attr(p, a);
  } else {
    w_puts(p->w, "<<MISSING>>");
  }
}

/* `cacheModifier = ca evictionPolicy = evict_last`, defaults left out, as Triton's oilist. */
static void print_cache_evict(printer *p, const ir_op *op) {
  const ir_attr *cache = ir_op_get_attr(op, "cache");
  const ir_attr *evict = ir_op_get_attr(op, "evict");
  if (attr_is_keyword(cache) && !keyword_is(cache, "none")) {
    w_puts(p->w, " cacheModifier = ");
    w_put(p->w, cache->str, cache->str_len);
  }
  if (attr_is_keyword(evict) && !keyword_is(evict, "evict_normal")) {
    w_puts(p->w, " evictionPolicy = ");
    w_put(p->w, evict->str, evict->str_len);
  }
}

/* cache / evict leave the attr-dict only when they are keywords (the oilist prints them). */
static void print_attr_dict_without_cache(printer *p, const ir_op *op, const char *extra) {
  const char *elided[4];
  int n = 0;
  if (attr_is_keyword(ir_op_get_attr(op, "cache"))) elided[n++] = "cache";
  if (attr_is_keyword(ir_op_get_attr(op, "evict"))) elided[n++] = "evict";
  if (extra) elided[n++] = extra;
  elided[n] = NULL;
  print_attr_dict(p, op, elided);
}

static bool unit_or_true(const ir_attr *a) {
  return a && (a->kind == AT_UNIT || ((a->kind == AT_BOOL || a->kind == AT_INT) && a->int_value));
}

static bool unit_or_bool(const ir_attr *a) {
  return a && (a->kind == AT_UNIT || a->kind == AT_BOOL);
}

static void print_convert(printer *p, const ir_op *op) {
  const char *elided[4];
  int n = 0;
  w_putc(p->w, ' ');
  print_operands(p, op, 0, op->num_operands);
  const ir_attr *reorder = ir_op_get_attr(op, "allow_reorder");
  const ir_attr *efficient = ir_op_get_attr(op, "efficient_layout");
  if (unit_or_bool(reorder)) {
    elided[n++] = "allow_reorder";
    if (unit_or_true(reorder)) w_puts(p->w, " allow_reorder");
  }
  if (unit_or_bool(efficient)) {
    elided[n++] = "efficient_layout";
    if (unit_or_true(efficient)) w_puts(p->w, " efficient_layout");
  }
  const ir_attr *rounding = ir_op_get_attr(op, "rounding");
  if (attr_is_keyword(rounding)) elided[n++] = "rounding";
  elided[n] = NULL;
  print_attr_dict(p, op, elided);
  if (attr_is_keyword(rounding)) {
    w_puts(p->w, ", rounding = ");
    w_put(p->w, rounding->str, rounding->str_len);
  }
  w_puts(p->w, " : ");
  print_type(p, operand_type(op, 0));
  w_puts(p->w, " -> ");
  print_type(p, result_type(op, 0));
}

static void print_constant(printer *p, const ir_op *op) {
  static const char *const elided[] = {"value", NULL};
  print_attr_dict(p, op, elided);
  w_putc(p->w, ' ');
  const ir_attr *value = ir_op_get_attr(op, "value");
  if (!value) {
    w_puts(p->w, "<<MISSING VALUE>>");
    return;
  }
  print_attr_mode(p, value, ATTR_CONSTANT, result_type(op, 0));
}

static void print_for(printer *p, const ir_op *op) {
  const ir_region *body = op->num_regions > 0 ? &op->regions[0] : NULL;
  const ir_block *entry = body ? body->first : NULL;
  const ir_value *iv = entry && entry->num_args > 0 ? entry->args[0] : NULL;
  w_putc(p->w, ' ');
  print_value(p, iv);
  w_puts(p->w, " = ");
  print_operand(p, op, 0);
  w_puts(p->w, " to ");
  print_operand(p, op, 1);
  w_puts(p->w, " step ");
  print_operand(p, op, 2);
  int num_inits = op->num_operands > 3 ? op->num_operands - 3 : 0;
  if (num_inits > 0) {
    w_puts(p->w, " iter_args(");
    for (int i = 0; i < num_inits; i++) {
      if (i) w_puts(p->w, ", ");
      print_value(p, entry && 1 + i < entry->num_args ? entry->args[1 + i] : NULL);
      w_puts(p->w, " = ");
      print_operand(p, op, 3 + i);
    }
    w_puts(p->w, ") -> (");
    for (int i = 0; i < op->num_results; i++) {
      if (i) w_puts(p->w, ", ");
      print_type(p, result_type(op, i));
    }
    w_putc(p->w, ')');
  }
  w_putc(p->w, ' ');
  /* MLIR writes " : T " after the space above, hence two spaces before the colon. */
  const ir_type *ivt = iv ? iv->type : operand_type(op, 0);
  if (ivt && ivt->kind != TY_INDEX) {
    w_puts(p->w, " : ");
    print_type(p, ivt);
    w_putc(p->w, ' ');
  }
  if (body)
    print_region(p, body, false, num_inits > 0);
  else
    w_puts(p->w, "{\n}");
  print_attr_dict(p, op, NULL);
}

/* scf.while (%a = %x) : (T) -> R { before } do { ^bb0(%b: R): after }, as MLIR prints it (one
 * result type without parentheses). */
static void print_while(printer *p, const ir_op *op) {
  const ir_block *before = op->num_regions > 0 ? op->regions[0].first : NULL;
  /* MLIR leaves the bindings out when nothing is carried: `scf.while : () -> () {` */
  if (op->num_operands) w_puts(p->w, " (");
  for (int i = 0; i < op->num_operands; i++) {
    if (i) w_puts(p->w, ", ");
    print_value(p, before && i < before->num_args ? before->args[i] : NULL);
    w_puts(p->w, " = ");
    print_operand(p, op, i);
  }
  w_puts(p->w, op->num_operands ? ") : (" : " : (");
  print_operand_types(p, op, 0, op->num_operands);
  w_puts(p->w, ") -> ");
  if (op->num_results != 1) w_putc(p->w, '(');
  for (int i = 0; i < op->num_results; i++) {
    if (i) w_puts(p->w, ", ");
    print_type(p, result_type(op, i));
  }
  if (op->num_results != 1) w_putc(p->w, ')');
  w_putc(p->w, ' ');
  if (before)
    print_region(p, &op->regions[0], false, true);
  else
    w_puts(p->w, "{\n}");
  w_puts(p->w, " do ");
  if (op->num_regions > 1 && op->regions[1].first)
    print_region(p, &op->regions[1], true, true);
  else
    w_puts(p->w, "{\n}");
  print_attr_dict(p, op, NULL);
}

/* An scf.if without results whose else holds nothing but an operand-less yield prints without
 * it, as the parser reads `scf.if %c {..}` (so printed TTGIR re-parses to the same text). */
static bool else_is_empty(const ir_op *op) {
  const ir_block *b = op->regions[1].first;
  if (!b) return true;
  if (op->num_results > 0 || b->next) return false;
  const ir_op *first = b->first;
  return !first || (first->kind == OP_SCF_YIELD && first->num_operands == 0 && !first->next);
}

static void print_if(printer *p, const ir_op *op) {
  w_putc(p->w, ' ');
  print_operand(p, op, 0);
  if (op->num_results > 0) {
    w_puts(p->w, " -> (");
    for (int i = 0; i < op->num_results; i++) {
      if (i) w_puts(p->w, ", ");
      print_type(p, result_type(op, i));
    }
    w_putc(p->w, ')');
  }
  w_putc(p->w, ' ');
  bool terminators = op->num_results > 0;
  if (op->num_regions > 0)
    print_region(p, &op->regions[0], false, terminators);
  else
    w_puts(p->w, "{\n}");
  if (op->num_regions > 1 && !else_is_empty(op)) {
    w_puts(p->w, " else ");
    print_region(p, &op->regions[1], false, terminators);
  }
  print_attr_dict(p, op, NULL);
}

static void print_dot(printer *p, const ir_op *op) {
  w_putc(p->w, ' ');
  print_operands(p, op, 0, op->num_operands);
  const ir_attr *prec = ir_op_get_attr(op, "inputPrecision");
  static const char *const elide_prec[] = {"inputPrecision", NULL};
  bool keyword = attr_is_keyword(prec);
  if (keyword && !keyword_is(prec, "ieee")) {
    w_puts(p->w, ", inputPrecision = ");
    w_put(p->w, prec->str, prec->str_len);
  }
  print_attr_dict(p, op, keyword ? elide_prec : NULL);
  w_puts(p->w, " : ");
  print_type(p, operand_type(op, 0));
  w_puts(p->w, " * ");
  print_type(p, operand_type(op, 1));
  w_puts(p->w, " -> ");
  print_type(p, result_type(op, 0));
}

static void print_dot_scaled(printer *p, const ir_op *op) {
  static const char *const elided[] = {"a_elem_type", "b_elem_type", "operandSegmentSizes", NULL};
  int scale[2] = {dot_scaled_scale_operand(op, 0), dot_scaled_scale_operand(op, 1)};
  for (int i = 0; i < 3; i++) {
    w_puts(p->w, i ? ", " : " ");
    print_operand(p, op, i);
    if (i < 2 && scale[i] >= 0 && scale[i] < op->num_operands) {
      w_puts(p->w, " scale ");
      print_operand(p, op, scale[i]);
    }
  }
  const char *names[2] = {"a_elem_type", "b_elem_type"}, *words[2] = {" lhs = ", " rhs = "};
  for (int i = 0; i < 2; i++) {
    const ir_attr *f = ir_op_get_attr(op, names[i]);
    if (!attr_is_keyword(f)) continue;
    w_puts(p->w, words[i]);
    w_put(p->w, f->str, f->str_len);
  }
  print_attr_dict(p, op, elided);
  w_puts(p->w, " : ");
  for (int i = 0; i < 2; i++) {
    if (i) w_puts(p->w, " * ");
    print_type(p, operand_type(op, i));
    if (scale[i] >= 0 && scale[i] < op->num_operands) {
      w_puts(p->w, ", ");
      print_type(p, operand_type(op, scale[i]));
    }
  }
  w_puts(p->w, " -> ");
  print_type(p, result_type(op, 0));
}

/* ------------------------------------------------------------------ Hopper ops (Triton 3.6 syntax) */

static void print_bracketed(printer *p, const ir_op *op, int from, int to) {
  w_putc(p->w, '[');
  print_operands(p, op, from, to);
  w_putc(p->w, ']');
}

/* Operands from `from` while they are integers of `width` bits (a variadic group told by type). */
static int count_int_operands(const ir_op *op, int from, unsigned width) {
  int n = 0;
  while (from + n < op->num_operands && ir_type_is_int(operand_type(op, from + n), width)) n++;
  return n;
}

/* `%desc[%i, ..]` / `%desc[%i, ..] %src`: descriptor loads, stores, gathers, scatters and TMA copies. */
/* ` "text" {attrs}`: an op written with its string attribute first, the dictionary without it
 * (tt.print, tt.elementwise_inline_asm). */
static void print_leading_string(printer *p, const ir_op *op, const char *name) {
  const char *const elided[] = {name, NULL};
  w_putc(p->w, ' ');
  print_string_attr(p, op, name);
  print_attr_dict(p, op, elided);
}

static void print_desc_op(printer *p, const ir_op *op, ir_op_format format) {
  int n = op->num_operands;
  w_putc(p->w, ' ');
  const ir_attr *kind = ir_op_get_attr(op, "kind");
  bool reduce = (op->kind == OP_DESC_REDUCE || op->kind == OP_TMA_REDUCE) && attr_is_keyword(kind);
  static const char *const elided_kind[] = {"kind", NULL};
  if (reduce) { /* `tt.descriptor_reduce add, %desc[..], %v` */
    w_put(p->w, kind->str, kind->str_len);
    w_puts(p->w, ", ");
  }
  print_operand(p, op, 0);
  switch (format) {
  case FMT_DESC_LOAD:
    print_bracketed(p, op, 1, n);
    print_cache_evict(p, op);
    print_attr_dict_without_cache(p, op, NULL);
    w_puts(p->w, " : ");
    print_type(p, operand_type(op, 0));
    w_puts(p->w, " -> ");
    print_type(p, result_type(op, 0));
    return;
  case FMT_DESC_STORE:
    print_bracketed(p, op, 2, n);
    w_puts(p->w, ", ");
    print_operand(p, op, 1);
    print_attr_dict(p, op, reduce ? elided_kind : NULL);
    w_puts(p->w, " : ");
    print_operand_types(p, op, 0, 2);
    return;
  case FMT_DESC_GATHER:
  case FMT_DESC_SCATTER:
    print_bracketed(p, op, 1, format == FMT_DESC_SCATTER ? 3 : n);
    if (format == FMT_DESC_SCATTER) {
      w_puts(p->w, ", ");
      print_operand(p, op, 3);
    }
    print_attr_dict(p, op, reduce ? elided_kind : NULL);
    w_puts(p->w, " : ");
    if (format == FMT_DESC_GATHER)
      print_functional_type(p, op);
    else
      print_operand_types(p, op, 0, n);
    return;
  case FMT_TMA_LOAD: {
    /* desc, coords (i32).., offsets (i16).., barrier, result, pred */
    int coords = count_int_operands(op, 1, 32);
    int offsets = count_int_operands(op, 1 + coords, 16);
    int bar = 1 + coords + offsets;
    print_bracketed(p, op, 1, 1 + coords);
    if (offsets) {
      w_puts(p->w, " offsets = ");
      print_bracketed(p, op, 1 + coords, bar);
    }
    w_putc(p->w, ' ');
    print_operand(p, op, bar + 1);
    w_puts(p->w, ", ");
    print_operand(p, op, bar);
    w_puts(p->w, ", ");
    print_operand(p, op, bar + 2);
    print_cache_evict(p, op);
    print_attr_dict_without_cache(p, op, NULL);
    w_puts(p->w, " : ");
    print_type(p, operand_type(op, 0));
    w_puts(p->w, ", ");
    print_type(p, operand_type(op, bar));
    w_puts(p->w, " -> ");
    print_type(p, operand_type(op, bar + 1));
    return;
  }
  case FMT_TMA_STORE:
    print_bracketed(p, op, 1, n - 1);
    w_putc(p->w, ' ');
    print_operand(p, op, n - 1);
    print_attr_dict(p, op, reduce ? elided_kind : NULL);
    w_puts(p->w, " : ");
    print_type(p, operand_type(op, 0));
    w_puts(p->w, ", ");
    print_type(p, operand_type(op, n - 1));
    if (op->num_results) {
      w_puts(p->w, " -> ");
      print_type(p, result_type(op, 0));
    }
    return;
  default: return;
  }
}

/* `%base, [..], [..]` (make_tensor_descriptor), `%base, [..], [..], [..]` (make_tensor_ptr),
 * `%ptr, [..]` (advance), `%d, %g, [..], [..], [..], [..]` (tensormap_create). */
static void print_grouped_op(printer *p, const ir_op *op, ir_op_format format) {
  int n = op->num_operands;
  w_putc(p->w, ' ');
  print_operand(p, op, 0);
  if (format == FMT_TENSORMAP_CREATE) {
    static const char *const elided[] = {"operandSegmentSizes", NULL};
    const ir_attr *seg = ir_op_get_attr(op, "operandSegmentSizes");
    int at = 1;
    for (int g = 1; g < 6; g++) {
      int len = seg && seg->kind == AT_DENSE_ARRAY && seg->ints && seg->num_elems == 6 ? (int)seg->ints[g] : 0;
      if (len < 0 || at + len > n) len = n - at;
      w_puts(p->w, ", ");
      if (g == 1)
        print_operands(p, op, at, at + len);
      else
        print_bracketed(p, op, at, at + len);
      at += len;
    }
    print_attr_dict(p, op, elided);
    w_puts(p->w, " : ");
    print_functional_type(p, op);
    return;
  }
  int groups = format == FMT_MAKE_TENSOR_PTR ? 3 : format == FMT_MAKE_DESC ? 2 : 1;
  int len = (n - 1) / groups;
  for (int g = 0; g < groups; g++) {
    w_puts(p->w, ", ");
    print_bracketed(p, op, 1 + g * len, g == groups - 1 ? n : 1 + (g + 1) * len);
  }
  print_attr_dict(p, op, NULL);
  w_puts(p->w, " : ");
  if (format == FMT_MAKE_DESC) {
    print_type_body(p, operand_type(op, 0));
    w_puts(p->w, ", ");
  }
  print_type_body(p, result_type(op, 0));
}

static void print_barrier_op(printer *p, const ir_op *op, ir_op_format format) {
  w_putc(p->w, ' ');
  print_operand(p, op, 0);
  if (format == FMT_WAIT_BARRIER) {
    /* barrier, phase (i32), [pred (i1)], deps (memdescs).. */
    int fixed = op->num_operands > 2 && ir_type_is_int(operand_type(op, 2), 1) ? 3 : 2;
    w_puts(p->w, ", ");
    print_operands(p, op, 1, fixed);
    if (op->num_operands > fixed) {
      w_puts(p->w, " deps ");
      print_operands(p, op, fixed, op->num_operands);
    }
    print_attr_dict(p, op, NULL);
    w_puts(p->w, " : ");
    print_type(p, operand_type(op, 0));
    if (op->num_operands > fixed) {
      w_puts(p->w, ", ");
      print_operand_types(p, op, fixed, op->num_operands);
    }
    return;
  }
  bool expect = format == FMT_BARRIER_EXPECT;
  const char *name = expect ? "size" : "count";
  const char *elided[] = {name, NULL};
  const ir_attr *n = ir_op_get_attr(op, name);
  w_puts(p->w, ", ");
  if (n && n->kind == AT_INT)
    w_printf(p->w, "%lld", (long long)n->int_value);
  else
    print_attr(p, n);
  if (!expect && op->num_operands > 1) {
    w_puts(p->w, ", ");
    print_operand(p, op, 1);
  }
  print_attr_dict(p, op, elided);
  if (expect && op->num_operands > 1) {
    w_puts(p->w, ", ");
    print_operand(p, op, 1);
  }
  w_puts(p->w, " : ");
  print_type(p, operand_type(op, 0));
}

static void print_subslice(printer *p, const ir_op *op) {
  static const char *const elided[] = {"offsets", NULL};
  const ir_attr *offsets = ir_op_get_attr(op, "offsets");
  w_putc(p->w, ' ');
  print_operand(p, op, 0);
  w_putc(p->w, '[');
  for (int i = 0; offsets && offsets->kind == AT_DENSE_ARRAY && offsets->ints && i < offsets->num_elems; i++) {
    if (i) w_puts(p->w, ", ");
    w_printf(p->w, "%lld", (long long)offsets->ints[i]);
  }
  w_putc(p->w, ']');
  print_attr_dict(p, op, elided);
  w_puts(p->w, " : ");
  print_type(p, operand_type(op, 0));
  w_puts(p->w, " -> ");
  print_type(p, result_type(op, 0));
}

/* MLIR's printNewline: a line break and the op's own indentation. */
static void print_newline(printer *p) {
  w_putc(p->w, '\n');
  print_indent(p);
}

static void print_warp_specialize(printer *p, const ir_op *op) {
  static const char *const elided[] = {"partitionNumWarps", NULL};
  const ir_attr *warps = ir_op_get_attr(op, "partitionNumWarps");
  w_putc(p->w, '(');
  print_operands(p, op, 0, op->num_operands);
  w_putc(p->w, ')');
  print_op_attrs(p, op, elided, ATTRS_ALL, " attributes {", "}");
  print_newline(p);
  w_puts(p->w, "default ");
  if (op->num_regions > 0)
    print_region(p, &op->regions[0], false, true);
  else
    w_puts(p->w, "{\n}");
  for (int r = 1; r < op->num_regions; r++) {
    const ir_block *entry = op->regions[r].first;
    print_newline(p);
    w_printf(p->w, "partition%d(", r - 1);
    for (int i = 0; entry && i < entry->num_args; i++) {
      if (i) w_puts(p->w, ", ");
      print_block_arg(p, entry->args[i]);
    }
    w_puts(p->w, ") num_warps(");
    if (warps && warps->kind == AT_DENSE_ARRAY && warps->ints && r - 1 < warps->num_elems)
      w_printf(p->w, "%lld", (long long)warps->ints[r - 1]);
    else
      w_puts(p->w, "<<MISSING>>");
    w_puts(p->w, ") ");
    print_region(p, &op->regions[r], false, true);
  }
  w_puts(p->w, " : ");
  print_functional_type(p, op);
}

static void print_custom(printer *p, const ir_op *op, ir_op_format format) {
  switch (format) {
  case FMT_MODULE: print_module(p, op); return;
  case FMT_FUNC: print_func(p, op); return;
  default: break;
  }
  w_puts(p->w, ir_op_name(op));
  switch (format) {
  case FMT_CALL: {
    static const char *const elided[] = {"callee", NULL};
    const ir_attr *callee = ir_op_get_attr(op, "callee");
    w_putc(p->w, ' ');
    if (callee && callee->str)
      print_symbol(p, callee->str, callee->str_len);
    else
      w_puts(p->w, "@\"\"");
    w_putc(p->w, '(');
    print_operands(p, op, 0, op->num_operands);
    w_putc(p->w, ')');
    print_attr_dict(p, op, elided);
    w_puts(p->w, " : ");
    print_functional_type(p, op);
    break;
  }
  case FMT_OPERANDS_TYPES:
    if (op->num_operands) w_putc(p->w, ' ');
    print_operands(p, op, 0, op->num_operands);
    print_attr_dict(p, op, NULL);
    if (op->num_operands) {
      w_puts(p->w, " : ");
      print_operand_types(p, op, 0, op->num_operands);
    }
    break;
  case FMT_CONVERT: print_convert(p, op); break;
  case FMT_CAST:
    w_putc(p->w, ' ');
    print_operand(p, op, 0);
    print_attr_dict(p, op, NULL);
    w_puts(p->w, " : ");
    print_type(p, operand_type(op, 0));
    w_puts(p->w, " to ");
    print_type(p, result_type(op, 0));
    break;
  case FMT_SAME: {
    /* tt.clampf's propagateNan is written after the operands, as Triton prints it. */
    const ir_attr *nan = op->kind == OP_CLAMPF ? ir_op_get_attr(op, "propagateNan") : NULL;
    static const char *const elided[] = {"propagateNan", NULL};
    w_putc(p->w, ' ');
    print_operands(p, op, 0, op->num_operands);
    print_attr_dict(p, op, attr_is_keyword(nan) ? elided : NULL);
    if (attr_is_keyword(nan)) {
      w_puts(p->w, ", propagateNan = ");
      w_put(p->w, nan->str, nan->str_len);
    }
    w_puts(p->w, " : ");
    print_type(p, op->num_results ? result_type(op, 0) : operand_type(op, 0));
    break;
  }
  case FMT_EXTERN:
    w_putc(p->w, ' ');
    print_operands(p, op, 0, op->num_operands);
    print_attr_dict(p, op, NULL);
    w_puts(p->w, " : ");
    print_functional_type(p, op);
    break;
  case FMT_CMP: {
    static const char *const elided[] = {"predicate", NULL};
    int num_predicates;
    const char *const *predicates = cmp_predicate_names(op->kind, &num_predicates);
    w_putc(p->w, ' ');
    print_enum_attr(p, ir_op_get_attr(op, "predicate"), predicates, num_predicates);
    w_puts(p->w, ", ");
    print_operands(p, op, 0, op->num_operands);
    print_attr_dict(p, op, elided);
    w_puts(p->w, " : ");
    print_type(p, operand_type(op, 0));
    break;
  }
  case FMT_SELECT: {
    w_putc(p->w, ' ');
    print_operands(p, op, 0, op->num_operands);
    print_attr_dict(p, op, NULL);
    w_puts(p->w, " : ");
    /* MLIR writes the condition type only when it is shaped. */
    const ir_type *cond = operand_type(op, 0);
    if (cond && (cond->kind == TY_TENSOR || cond->kind == TY_MEMDESC)) {
      print_type(p, cond);
      w_puts(p->w, ", ");
    }
    print_type(p, result_type(op, 0));
    break;
  }
  case FMT_CONSTANT: print_constant(p, op); break;
  case FMT_MAKE_RANGE:
    print_attr_dict(p, op, NULL);
    w_puts(p->w, " : ");
    print_type(p, result_type(op, 0));
    break;
  case FMT_IMMEDIATE: {
    const char *elided[] = {ir_op_immediate_attr(op->kind, NULL), NULL};
    w_printf(p->w, " %lld", (long long)ir_op_get_int_attr(op, elided[0] ? elided[0] : "", 0));
    print_attr_dict(p, op, elided);
    break;
  }
  case FMT_AXIS: {
    static const char *const elided[] = {"axis", NULL};
    static const char *const axes[] = {"x", "y", "z"};
    w_putc(p->w, ' ');
    print_enum_attr(p, ir_op_get_attr(op, "axis"), axes, 3);
    print_attr_dict(p, op, elided);
    w_puts(p->w, " : ");
    print_type(p, result_type(op, 0));
    break;
  }
  case FMT_ADDPTR:
    w_putc(p->w, ' ');
    print_operands(p, op, 0, op->num_operands);
    print_attr_dict(p, op, NULL);
    w_puts(p->w, " : ");
    print_type(p, op->num_results ? result_type(op, 0) : operand_type(op, 0));
    w_puts(p->w, ", ");
    print_type(p, operand_type(op, 1));
    break;
  case FMT_LOAD:
  case FMT_STORE:
    w_putc(p->w, ' ');
    print_operands(p, op, 0, op->num_operands);
    print_cache_evict(p, op);
    print_attr_dict_without_cache(p, op, NULL);
    w_puts(p->w, " : ");
    print_type(p, operand_type(op, 0));
    break;
  case FMT_DOT: print_dot(p, op); break;
  case FMT_DOT_SCALED: print_dot_scaled(p, op); break;
  case FMT_FOR: print_for(p, op); break;
  case FMT_IF: print_if(p, op); break;
  case FMT_WHILE: print_while(p, op); break;
  case FMT_CONDITION:
    w_putc(p->w, '(');
    print_operand(p, op, 0);
    w_putc(p->w, ')');
    print_attr_dict(p, op, NULL);
    if (op->num_operands > 1) {
      w_putc(p->w, ' ');
      print_operands(p, op, 1, op->num_operands);
      w_puts(p->w, " : ");
      print_operand_types(p, op, 1, op->num_operands);
    }
    break;
  case FMT_LOCAL_ALLOC:
    if (op->num_operands) w_putc(p->w, ' ');
    print_operands(p, op, 0, op->num_operands);
    print_attr_dict(p, op, NULL);
    w_puts(p->w, " : ");
    print_functional_type(p, op);
    break;
  case FMT_LOCAL_LOAD:
    w_putc(p->w, ' ');
    print_operand(p, op, 0);
    if (op->num_operands > 1) {
      w_puts(p->w, " token ");
      print_operand(p, op, 1);
    }
    print_attr_dict(p, op, NULL);
    w_puts(p->w, " : ");
    print_type(p, operand_type(op, 0));
    w_puts(p->w, " -> ");
    print_type(p, result_type(op, 0));
    break;
  case FMT_LOCAL_STORE:
    w_putc(p->w, ' ');
    print_operands(p, op, 0, op->num_operands);
    print_attr_dict(p, op, NULL);
    w_puts(p->w, " : ");
    print_type(p, operand_type(op, 0));
    w_puts(p->w, " -> ");
    print_type(p, operand_type(op, 1));
    break;
  case FMT_MEMDESC_INDEX:
    w_putc(p->w, ' ');
    print_operand(p, op, 0);
    w_putc(p->w, '[');
    print_operand(p, op, 1);
    w_putc(p->w, ']');
    print_attr_dict(p, op, NULL);
    w_puts(p->w, " : ");
    print_type(p, operand_type(op, 0));
    w_puts(p->w, " -> ");
    print_type(p, result_type(op, 0));
    break;
  case FMT_ASYNC_COPY: {
    w_putc(p->w, ' ');
    print_operands(p, op, 0, op->num_operands < 2 ? op->num_operands : 2);
    if (op->num_operands > 2) {
      w_puts(p->w, " mask ");
      print_operand(p, op, 2);
    }
    if (op->num_operands > 3) {
      w_puts(p->w, " other ");
      print_operand(p, op, 3);
    }
    print_cache_evict(p, op);
    print_attr_dict_without_cache(p, op, NULL);
    w_puts(p->w, " : ");
    print_type(p, operand_type(op, 0));
    w_puts(p->w, " -> ");
    /* Triton prints the destination type unqualified: `<64x128xf16, #shared, ...>`. */
    const ir_type *dst = operand_type(op, 1);
    if (dst && dst->kind == TY_MEMDESC)
      print_memdesc_body(p, dst);
    else
      print_type(p, dst);
    break;
  }
  case FMT_YIELD:
    print_attr_dict(p, op, NULL);
    if (op->num_operands) {
      w_putc(p->w, ' ');
      print_operands(p, op, 0, op->num_operands);
      w_puts(p->w, " : ");
      print_operand_types(p, op, 0, op->num_operands);
    }
    break;
  case FMT_DESC_LOAD:
  case FMT_DESC_STORE:
  case FMT_DESC_GATHER:
  case FMT_DESC_SCATTER:
  case FMT_TMA_LOAD:
  case FMT_TMA_STORE: print_desc_op(p, op, format); break;
  case FMT_MAKE_DESC:
  case FMT_MAKE_TENSOR_PTR:
  case FMT_ADVANCE:
  case FMT_TENSORMAP_CREATE: print_grouped_op(p, op, format); break;
  case FMT_BARRIER_COUNT:
  case FMT_BARRIER_EXPECT:
  case FMT_WAIT_BARRIER: print_barrier_op(p, op, format); break;
  case FMT_SUBSLICE: print_subslice(p, op); break;
  case FMT_WARP_SPECIALIZE: print_warp_specialize(p, op); break;
  case FMT_PRINT: {
    print_leading_string(p, op, "prefix");
    if (op->num_operands) {
      w_puts(p->w, " : ");
      print_operands(p, op, 0, op->num_operands);
      w_puts(p->w, " : ");
      print_operand_types(p, op, 0, op->num_operands);
    }
    break;
  }
  case FMT_ASSERT: {
    static const char *const elided[] = {"message", NULL};
    w_putc(p->w, ' ');
    print_operands(p, op, 0, op->num_operands);
    w_puts(p->w, ", ");
    print_string_attr(p, op, "message");
    print_attr_dict(p, op, elided);
    w_puts(p->w, " : ");
    print_operand_types(p, op, 0, op->num_operands);
    break;
  }
  case FMT_INLINE_ASM: {
    print_leading_string(p, op, "asm_string");
    if (op->num_operands) {
      w_putc(p->w, ' ');
      print_operands(p, op, 0, op->num_operands);
      w_puts(p->w, " : ");
      print_operand_types(p, op, 0, op->num_operands);
    }
    w_puts(p->w, " -> ");
    for (int i = 0; i < op->num_results; i++) {
      if (i) w_puts(p->w, ", ");
      print_type(p, result_type(op, i));
    }
    break;
  }
  case FMT_ASYNC_COMMIT:
    if (op->num_operands) {
      w_puts(p->w, " tokens ");
      print_operands(p, op, 0, op->num_operands);
    }
    print_attr_dict(p, op, NULL);
    break;
  case FMT_ASYNC_WAIT:
    if (op->num_operands) w_putc(p->w, ' ');
    print_operands(p, op, 0, op->num_operands);
    print_attr_dict(p, op, NULL);
    break;
  case FMT_ATOMIC_RMW:
  case FMT_ATOMIC_CAS: {
    static const char *const elided_rmw[] = {"atomic_rmw_op", "scope", "sem", NULL};
    static const char *const elided_cas[] = {"scope", "sem", NULL};
    w_putc(p->w, ' ');
    if (format == FMT_ATOMIC_RMW) {
      print_enum_attr(p, ir_op_get_attr(op, "atomic_rmw_op"), NULL, 0);
      w_puts(p->w, ", ");
    }
    print_enum_attr(p, ir_op_get_attr(op, "sem"), NULL, 0);
    w_puts(p->w, ", ");
    print_enum_attr(p, ir_op_get_attr(op, "scope"), NULL, 0);
    w_puts(p->w, ", ");
    print_operands(p, op, 0, op->num_operands);
    print_attr_dict(p, op, format == FMT_ATOMIC_RMW ? elided_rmw : elided_cas);
    w_puts(p->w, " : ");
    print_functional_type(p, op);
    break;
  }
  default: break;
  }
}

static void print_op(printer *p, const ir_op *op) {
  const ir_op_info *info = ir_op_info_of(op->kind);
  bool isolated = (info->traits & TRAIT_ISOLATED) != 0;
  if (isolated) name_isolated_op(p, op);
  print_indent(p);
  if (op->num_results > 0) {
    size_t off = value_name_lookup(p, &op->results[0]);
    w_putc(p->w, '%');
    w_puts(p->w, off == SIZE_MAX ? "<<UNKNOWN SSA VALUE>>" : name_at(p, off));
    if (op->num_results > 1) w_printf(p->w, ":%d", op->num_results);
    w_puts(p->w, " = ");
  }
  if (p->generic || info->format == FMT_GENERIC)
    print_generic(p, op);
  else
    print_custom(p, op, info->format);
  print_op_loc(p, op->loc);
  w_putc(p->w, '\n');
  if (isolated) names_clear(p);
}

/* ------------------------------------------------------------------ entry points */

static void printer_free(printer *p) {
  names_clear(p);
  locs_free(p);
  if (p->aliases) ctx_raw_free(p->ctx, p->aliases, (size_t)p->cap_aliases * sizeof *p->aliases);
  p->aliases = NULL;
}

void ir_print_module(gemmc_context *ctx, const ir_op *module, const ir_print_options *opts,
                     ir_print_callback cb, void *user) {
  if (!module) return;
  writer w = {.cb = cb, .user = user};
  printer p = {.ctx = ctx, .w = &w, .use_aliases = true};
  p.debug_info = opts && opts->debug_info;
  p.generic = opts && opts->generic;
  p.name_pool.ctx = ctx;
  /* Dry run: number the layout aliases in print order. */
  w.discard = true;
  p.collecting = true;
  print_op(&p, module);
  p.collecting = false;
  w.discard = false;
  locs_free(&p);
  print_layout_alias_lines(&p);
  print_op(&p, module);
  print_loc_alias_lines(&p);
  w_flush(&w);
  printer_free(&p);
}

static void file_sink(const char *data, size_t len, void *user) { fwrite(data, 1, len, (FILE *)user); }

void ir_print_module_to_file(gemmc_context *ctx, const ir_op *module, const ir_print_options *opts,
                             FILE *f) {
  ir_print_module(ctx, module, opts, file_sink, f);
}

void ir_print_type(const ir_type *t, ir_print_callback cb, void *user) {
  writer w = {.cb = cb, .user = user};
  printer p = {.w = &w};
  print_type(&p, t);
  w_flush(&w);
}

void ir_print_attr(const ir_attr *a, ir_print_callback cb, void *user) {
  writer w = {.cb = cb, .user = user};
  printer p = {.w = &w};
  print_attr(&p, a);
  w_flush(&w);
}

static void pool_sink(const char *data, size_t len, void *user) { pool_append(user, data, len); }

const char *ir_type_str(gemmc_context *ctx, const ir_type *t) {
  pool pl = {.ctx = ctx};
  ir_print_type(t, pool_sink, &pl);
  const char *s = ir_strdup(ctx, pl.data ? pl.data : "", pl.data ? pl.len : 0);
  pool_free(&pl);
  return s;
}

const char *ir_attr_str(gemmc_context *ctx, const ir_attr *a) {
  pool pl = {.ctx = ctx};
  ir_print_attr(a, pool_sink, &pl);
  const char *s = ir_strdup(ctx, pl.data ? pl.data : "", pl.data ? pl.len : 0);
  pool_free(&pl);
  return s;
}

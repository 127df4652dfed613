/* Parser support: token text, diagnostics, SSA name scopes, open regions and blocks. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "parse_state.h"
#include "parser.h"

void pv_push(parse_state *ps, pvec *v, void *item) {
  if (v->n == v->cap) {
    int ncap = v->cap ? v->cap * 2 : 4;
    void **ni = ir_alloc(ps->ctx, sizeof(void *) * (size_t)ncap);
    if (v->n) memcpy(ni, v->items, sizeof(void *) * (size_t)v->n);
    v->items = ni;
    v->cap = ncap;
  }
  v->items[v->n++] = item;
}

/* ------------------------------------------------------------------ diagnostics */

ir_loc *parse_src_loc(parse_state *ps, src_pos pos) { return ir_loc_file(ps->ctx, ps->src, pos.line, pos.col); }

void parse_error_at(parse_state *ps, src_pos pos, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (ps->failed) return; /* one error per parse: the first one is the useful one */
  ps->failed = true;
  ir_error(ps->ctx, parse_src_loc(ps, pos), "%s", buf);
}

/* ------------------------------------------------------------------ scanner helpers */

const char *parse_token_text(parse_state *ps, const char *text, int len) {
  return ir_intern_string(ps->ctx, text, (size_t)len);
}

const char *parse_string_literal(parse_state *ps, const char *text, int len) {
  /* text includes the quotes; decode MLIR escapes: \" \\ \n \t and \XX hex */
  char *out = ir_alloc(ps->ctx, (size_t)len + 1);
  size_t n = 0;
  for (int i = 1; i < len - 1; i++) {
    char c = text[i];
    if (c != '\\') {
      out[n++] = c;
      continue;
    }
    char e = text[++i];
    if (e == 'n') out[n++] = '\n';
    else if (e == 't') out[n++] = '\t';
    else if (e == '"' || e == '\\') out[n++] = e;
    else if (i + 1 < len - 1 && strchr("0123456789abcdefABCDEF", e) && strchr("0123456789abcdefABCDEF", text[i + 1])) {
      char hex[3] = {e, text[i + 1], 0};
      out[n++] = (char)strtol(hex, NULL, 16);
      i++;
    } else
      out[n++] = e;
  }
  /* Strings are NUL-terminated everywhere after the parser (names, attributes, kernel.json):
   * a NUL inside one would silently cut it short, so it is refused (docs/ir.md). */
  if (memchr(out, 0, n)) return NULL;
  return ir_intern_string(ps->ctx, out, n);
}

static bool is_suffix_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         c == '.' || c == '-';
}

/* After `%name`: is this a definition (`%a =`, `%a:3 =`, `%a, %b =`)? Looks ahead in the text. */
bool parse_value_is_definition(parse_state *ps) {
  const char *t = ps->src->text, *end = ps->src->text + ps->src->len;
  const char *p = t + ps->offset;
  /* `%a, %b = op` lists results only at the start of a statement (or continuing such a list);
   * after '=', '(' or an op name the same shape is a list of uses (iter_args, operands). */
  const char *q = p - 1;
  while (q > t && is_suffix_char(q[-1])) q--;
  if (q > t && q[-1] == '%') q--;
  const char *b = q;
  while (b > t && (b[-1] == ' ' || b[-1] == '\t')) b--;
  bool list_allowed = b == t || b[-1] == '\n' || b[-1] == '\r' || b[-1] == '{' || b[-1] == '}' || b[-1] == ',';
  for (int groups = 0; groups < 64; groups++) {
    if (p < end && *p == '#') return false; /* %x#1 is a use */
    if (p < end && *p == ':') {
      const char *q = p + 1;
      while (q < end && (*q == ' ' || *q == '\t')) q++;
      if (q < end && *q >= '0' && *q <= '9') {
        while (q < end && *q >= '0' && *q <= '9') q++;
        p = q;
      }
    }
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    if (p < end && *p == '=') return !(p + 1 < end && p[1] == '=');
    if (p < end && *p == ',' && list_allowed) {
      p++;
      while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
      if (p >= end || *p != '%') return false;
      p++;
      while (p < end && is_suffix_char(*p)) p++;
      continue;
    }
    return false;
  }
  return false;
}

static const struct {
  const char *name;
  ir_float_kind kind;
} float_types[] = {
    {"f16", FLT_F16},           {"bf16", FLT_BF16},           {"f32", FLT_F32},
    {"f64", FLT_F64},           {"tf32", FLT_TF32},           {"f8E4M3FN", FLT_F8E4M3FN},
    {"f8E5M2", FLT_F8E5M2},     {"f8E4M3FNUZ", FLT_F8E4M3FNUZ}, {"f8E5M2FNUZ", FLT_F8E5M2FNUZ},
    {"f8E4M3B11FNUZ", FLT_F8E4M3B11FNUZ},
};

int parse_classify_word(parse_state *ps, const char *text, int len, void *lval) {
  TIR_STYPE *yylval = lval;
  size_t n = (size_t)len;
  /* integer types iN */
  if (n >= 2 && text[0] == 'i') {
    bool digits = true;
    for (size_t i = 1; i < n; i++) digits &= text[i] >= '0' && text[i] <= '9';
    if (digits) {
      long w = n <= 6 ? strtol(text + 1, NULL, 10) : 0;
      if (w < 1 || w > 64 || (w != 1 && w != 8 && w != 16 && w != 32 && w != 64)) {
        yylval->str = parse_token_text(ps, text, len);
        return BARE_ID;
      }
      yylval->ival = (int)w;
      return INT_TYPE;
    }
  }
  for (size_t i = 0; i < sizeof float_types / sizeof float_types[0]; i++)
    if (strlen(float_types[i].name) == n && memcmp(float_types[i].name, text, n) == 0) {
      yylval->ival = (int)float_types[i].kind;
      return FLOAT_TYPE;
    }
  static const struct {
    const char *word;
    int token;
  } keywords[] = {{"tensor", KW_TENSOR}, {"dense", KW_DENSE},         {"array", KW_ARRAY},
                  {"loc", KW_LOC},       {"attributes", KW_ATTRIBUTES}, {"else", KW_ELSE},
                  {"index", KW_INDEX},   {"none", KW_NONE}};
  for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
    if (strlen(keywords[i].word) == n && memcmp(keywords[i].word, text, n) == 0) return keywords[i].token;
  ir_op_kind kind;
  if (ir_op_kind_from_name(text, n, &kind)) {
    yylval->ival = (int)kind;
    switch (ir_op_info_of(kind)->format) {
    case FMT_GENERIC: return OPTOK_GENERIC_ONLY;
    case FMT_MODULE: return OPTOK_MODULE;
    case FMT_FUNC: return OPTOK_FUNC;
    case FMT_CALL: return OPTOK_CALL;
    case FMT_CMP: return OPTOK_CMP;
    case FMT_CONSTANT: return OPTOK_CONSTANT;
    case FMT_FOR: return OPTOK_FOR;
    case FMT_IF: return OPTOK_IF;
    case FMT_WHILE: return OPTOK_WHILE;
    case FMT_CONDITION: return OPTOK_CONDITION;
    case FMT_IMMEDIATE: return OPTOK_IMMEDIATE;
    case FMT_ATOMIC_RMW:
    case FMT_ATOMIC_CAS: return OPTOK_ATOMIC;
    case FMT_YIELD: return OPTOK_YIELD;
    case FMT_WARP_SPECIALIZE: return OPTOK_WS;
    case FMT_INLINE_ASM: return OPTOK_INLINE_ASM;
    case FMT_PRINT: return OPTOK_PRINT;
    case FMT_ASSERT: return OPTOK_ASSERT;
    case FMT_MAKE_DESC:
    case FMT_MAKE_TENSOR_PTR:
    case FMT_ADVANCE:
    case FMT_DESC_LOAD:
    case FMT_DESC_STORE:
    case FMT_DESC_GATHER:
    case FMT_DESC_SCATTER:
    case FMT_TMA_LOAD:
    case FMT_TMA_STORE:
    case FMT_BARRIER_COUNT:
    case FMT_BARRIER_EXPECT:
    case FMT_SUBSLICE:
    case FMT_TENSORMAP_CREATE:
    case FMT_DOT_SCALED: return OPTOK_SEG;
    default: return OPTOK_PLAIN;
    }
  }
  yylval->str = parse_token_text(ps, text, len);
  return memchr(text, '.', n) ? DOTTED_ID : BARE_ID;
}

int parse_bad_char(parse_state *ps, void *lloc, unsigned char c) {
  TIR_LTYPE *l = lloc;
  src_pos pos = {l->first_line, l->first_column};
  if (c >= 32 && c < 127)
    parse_error_at(ps, pos, "unexpected character '%c'", c);
  else
    parse_error_at(ps, pos, "unexpected byte 0x%02X", c);
  return LEX_ERROR;
}

int parse_lex_error(parse_state *ps, void *lloc, const char *msg) {
  TIR_LTYPE *l = lloc;
  parse_error_at(ps, (src_pos){l->first_line, l->first_column}, "%s", msg);
  return LEX_ERROR;
}

/* ------------------------------------------------------------------ names */

static name_binding **table_slot(parse_state *ps, const char *name) {
  size_t h = (size_t)hash_bytes(name, strlen(name));
  for (size_t i = h & (ps->table_cap - 1);; i = (i + 1) & (ps->table_cap - 1)) {
    name_binding **slot = &ps->table[i];
    if (!*slot || (*slot)->name == name) return slot;
  }
}

/* Slots hold the current binding; a tombstone is a binding with no value and no group. */
static void table_grow(parse_state *ps) {
  size_t old_cap = ps->table_cap;
  name_binding **old = ps->table;
  ps->table_cap = old_cap ? old_cap * 2 : 1024;
  ps->table = ctx_raw_alloc(ps->ctx, sizeof(void *) * ps->table_cap);
  memset(ps->table, 0, sizeof(void *) * ps->table_cap);
  for (size_t i = 0; i < old_cap; i++)
    if (old[i]) *table_slot(ps, old[i]->name) = old[i];
  if (old) ctx_raw_free(ps->ctx, old, sizeof(void *) * old_cap);
}

static name_binding *lookup_binding(parse_state *ps, const char *name) {
  if (!ps->table_cap) return NULL;
  name_binding *b = *table_slot(ps, name);
  return b && (b->value || b->group) ? b : NULL;
}

static void set_binding(parse_state *ps, const char *name, name_binding *b) {
  if ((ps->table_count + 1) * 2 > ps->table_cap) table_grow(ps);
  name_binding **slot = table_slot(ps, name);
  if (!*slot) ps->table_count++;
  *slot = b;
}

static bool bind(parse_state *ps, name_binding *nb, src_pos pos) {
  name_binding *prev = lookup_binding(ps, nb->name);
  if (prev) {
    parse_error_at(ps, pos, "redefinition of SSA value '%%%s'", nb->name);
    return false;
  }
  if (ps->undo_n == ps->undo_cap) {
    int ncap = ps->undo_cap ? ps->undo_cap * 2 : 256;
    ps->undo = ctx_raw_realloc(ps->ctx, ps->undo, sizeof(undo_entry) * (size_t)ps->undo_cap,
                               sizeof(undo_entry) * (size_t)ncap);
    ps->undo_cap = ncap;
  }
  name_binding **slot = ps->table_cap ? table_slot(ps, nb->name) : NULL;
  ps->undo[ps->undo_n].name = nb->name;
  ps->undo[ps->undo_n].previous = slot ? *slot : NULL;
  ps->undo_n++;
  set_binding(ps, nb->name, nb);
  return true;
}

bool parse_bind_value(parse_state *ps, const char *name, ir_value *v, src_pos pos) {
  name_binding *nb = ir_alloc(ps->ctx, sizeof *nb);
  nb->name = ir_intern_string(ps->ctx, name, strlen(name));
  nb->value = v;
  if (!v->name) v->name = nb->name;
  return bind(ps, nb, pos);
}

static bool is_number_name(const char *s) {
  if (!*s) return false;
  for (; *s; s++)
    if (*s < '0' || *s > '9') return false;
  return true;
}

/* `groups` holds "name" or "name:N" per result group, covering the op's results in order. */
bool parse_bind_results(parse_state *ps, pvec *groups, ir_op *op, src_pos pos) {
  int next = 0;
  for (int g = 0; g < groups->n; g++) {
    const char *text = groups->items[g];
    const char *colon = strchr(text, ':');
    int count = 1;
    size_t name_len = strlen(text);
    if (colon) {
      /* strtol, not atoi: a huge count must be an error, not undefined behaviour */
      long n = strtol(colon + 1, NULL, 10);
      count = n < 1 ? 0 : n > op->num_results ? op->num_results + 1 : (int)n;
      name_len = (size_t)(colon - text);
      if (count < 1) {
        parse_error_at(ps, pos, "result group '%%%s' must have at least one result", text);
        return false;
      }
    }
    if (count > op->num_results - next) {
      parse_error_at(ps, pos, "'%s' op defines %d result%s but %d %s named", ir_op_name(op), op->num_results,
                     op->num_results == 1 ? "" : "s", next + count, next + count == 1 ? "is" : "are");
      return false;
    }
    name_binding *nb = ir_alloc(ps->ctx, sizeof *nb);
    nb->name = ir_intern_string(ps->ctx, text, name_len);
    if (count == 1 && !colon)
      nb->value = &op->results[next];
    else {
      nb->group = op;
      nb->group_first = next;
      nb->group_count = count;
    }
    /* Numeric names (%0, %12) are positional, not hints: the printer renumbers them. */
    if (!is_number_name(nb->name))
      for (int i = 0; i < count; i++) op->results[next + i].name = nb->name;
    if (!bind(ps, nb, pos)) return false;
    next += count;
  }
  if (next != op->num_results) {
    parse_error_at(ps, pos, "'%s' op defines %d result%s but %d %s named", ir_op_name(op), op->num_results,
                   op->num_results == 1 ? "" : "s", next, next == 1 ? "is" : "are");
    return false;
  }
  return true;
}

ir_value *parse_lookup_value(parse_state *ps, const char *ref, src_pos pos) {
  const char *hash = strchr(ref, '#');
  const char *name = hash ? ir_intern_string(ps->ctx, ref, (size_t)(hash - ref)) : ref;
  name_binding *b = lookup_binding(ps, name);
  if (!b) {
    parse_error_at(ps, pos, "use of undefined value '%%%s'", name);
    return NULL;
  }
  if (hash) {
    long i = strtol(hash + 1, NULL, 10);
    if (!b->group) {
      if (i == 0) return b->value;
      parse_error_at(ps, pos, "'%%%s' has only one result, cannot use '%%%s'", name, ref);
      return NULL;
    }
    if (i < 0 || i >= b->group_count) {
      parse_error_at(ps, pos, "result index %ld out of range: '%%%s' has %d results", i, name, b->group_count);
      return NULL;
    }
    return &b->group->results[b->group_first + i];
  }
  if (b->group) {
    if (b->group_count == 1) return &b->group->results[b->group_first];
    parse_error_at(ps, pos, "'%%%s' names %d results; use '%%%s#N'", name, b->group_count, name);
    return NULL;
  }
  return b->value;
}

/* ------------------------------------------------------------------ regions */

void parse_push_region(parse_state *ps, ir_block *entry) {
  if (ps->frames_n == ps->frames_cap) {
    int ncap = ps->frames_cap ? ps->frames_cap * 2 : 16;
    ps->frames = ctx_raw_realloc(ps->ctx, ps->frames, sizeof(region_frame) * (size_t)ps->frames_cap,
                                 sizeof(region_frame) * (size_t)ncap);
    ps->frames_cap = ncap;
  }
  region_frame *f = &ps->frames[ps->frames_n++];
  memset(f, 0, sizeof *f);
  f->region = ir_alloc(ps->ctx, sizeof(ir_region));
  if (!entry) entry = ps->pending_entry;
  ps->pending_entry = NULL;
  f->block = entry; /* NULL: made on the first op */
  f->block_labeled = false;
  if (entry) ir_region_append_block(f->region, entry);
  /* The entry block's named arguments were bound by the caller before the push; keep them in
   * scope. Nameless ones (`tt.func @f(i32) {..}`) were not bound: counting them would pop
   * bindings this region never made (below the start of the undo list). */
  int named = 0;
  for (int i = 0; entry && i < entry->num_args; i++) named += entry->args[i]->name != NULL;
  f->undo_mark = ps->undo_n - named;
}

ir_region *parse_pop_region(parse_state *ps) {
  region_frame *f = &ps->frames[--ps->frames_n];
  /* Names defined inside the region go out of scope. */
  parse_drop_bindings(ps, f->undo_mark);
  return f->region;
}

void parse_drop_bindings(parse_state *ps, int mark) {
  while (ps->undo_n > mark) {
    undo_entry *u = &ps->undo[--ps->undo_n];
    name_binding *restore = u->previous;
    if (!restore) { /* a tombstone keeps the probe chains of the open-addressing table intact */
      restore = ir_alloc(ps->ctx, sizeof *restore);
      restore->name = u->name;
    }
    set_binding(ps, u->name, restore);
  }
}

bool parse_start_block(parse_state *ps, const char *label, pvec *args, src_pos pos) {
  (void)label;
  if (!ps->frames_n) {
    parse_error_at(ps, pos, "block label outside of a region");
    return false;
  }
  region_frame *f = &ps->frames[ps->frames_n - 1];
  ir_block *b;
  if (f->block && !f->block->first && !f->block_labeled && f->block->num_args == 0)
    b = f->block; /* the implicit entry block is still empty: the label names it */
  else {
    b = ir_block_create(ps->ctx);
    ir_region_append_block(f->region, b);
  }
  f->block = b;
  f->block_labeled = true;
  for (int i = 0; i < args->n; i++) {
    parsed_arg *a = args->items[i];
    ir_value *v = ir_block_add_arg(ps->ctx, b, a->type, a->loc);
    if (!parse_bind_value(ps, a->name, v, a->pos)) return false;
  }
  return true;
}

void parse_append_op(parse_state *ps, ir_op *op) {
  if (!ps->frames_n) {
    pv_push(ps, &ps->top_ops, op);
    return;
  }
  region_frame *f = &ps->frames[ps->frames_n - 1];
  if (!f->block) {
    f->block = ir_block_create(ps->ctx);
    ir_region_append_block(f->region, f->block);
  }
  ir_block_append_op(f->block, op);
}

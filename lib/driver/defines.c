/* Compile-time constants: `$NAME` / `${NAME}` in .tir text replaced by -D values or `// gemmc-define:` defaults. */
#include <string.h>

#include "driver_internal.h"
#include "gemmc/limits.h"

/* Errors reported before the expansion gives up: a file with thousands of bad references
 * gets a useful start of the list in bounded time. */
#define MAX_DEFINE_ERRORS 64
/* "Did you mean" hints are looked for in names up to this long. */
#define MAX_HINT_NAME 256

/* A constant known to this expansion: from the file's defaults or the command line. */
typedef struct constant {
  const char *name;
  size_t name_len;
  const char *value;
  size_t value_len;
  bool from_command_line;
  bool declared_in_file; /* has a gemmc-define default */
  bool used;
} constant;

typedef struct expander {
  gemmc_context *ctx;
  const ir_source *src;
  constant *constants;
  int num_constants, cap_constants;
  int *index; /* open addressing over constants by name hash: index + 1, 0 is empty */
  size_t index_cap;
  bool ok;
  int num_errors;
} expander;

static bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

static void error_at(expander *x, int line, int col, const char *fmt, const char *a, int alen,
                     const char *b, int blen) {
  ir_loc *loc = ir_loc_file(x->ctx, x->src, line, col);
  char message[512];
  snprintf(message, sizeof message, fmt, alen, a, blen, b);
  if (x->num_errors < MAX_DEFINE_ERRORS) ir_error(x->ctx, loc, "%s", message);
  else if (x->num_errors == MAX_DEFINE_ERRORS) ir_error(x->ctx, loc, "too many errors in constant references; stopping");
  x->num_errors++;
  x->ok = false;
}

static bool too_many_errors(const expander *x) { return x->num_errors > MAX_DEFINE_ERRORS; }

/* The slot of name in the index: the constant's, or the empty one where it would go. */
static int *index_slot(expander *x, const char *name, size_t len) {
  size_t i = (size_t)hash_bytes(name, len) & (x->index_cap - 1);
  for (;; i = (i + 1) & (x->index_cap - 1)) {
    int k = x->index[i];
    if (!k) return &x->index[i];
    const constant *c = &x->constants[k - 1];
    if (c->name_len == len && memcmp(c->name, name, len) == 0) return &x->index[i];
  }
}

static constant *find_constant(expander *x, const char *name, size_t len) {
  if (!x->index_cap) return NULL;
  int k = *index_slot(x, name, len);
  return k ? &x->constants[k - 1] : NULL;
}

static void index_grow(expander *x) {
  size_t ncap = x->index_cap ? x->index_cap * 2 : 64;
  int *old = x->index;
  size_t old_cap = x->index_cap;
  x->index = ir_alloc(x->ctx, ncap * sizeof *x->index);
  x->index_cap = ncap;
  for (size_t i = 0; i < old_cap; i++)
    if (old[i]) {
      const constant *c = &x->constants[old[i] - 1];
      *index_slot(x, c->name, c->name_len) = old[i];
    }
}

static constant *add_constant(expander *x, const char *name, size_t len) {
  constant *c = find_constant(x, name, len);
  if (c) return c;
  if (x->num_constants == x->cap_constants) {
    int ncap = x->cap_constants ? x->cap_constants * 2 : 16;
    constant *grown = ir_alloc(x->ctx, (size_t)ncap * sizeof *grown);
    if (x->num_constants) memcpy(grown, x->constants, (size_t)x->num_constants * sizeof *grown);
    x->constants = grown;
    x->cap_constants = ncap;
  }
  if ((size_t)(x->num_constants + 1) * 2 > x->index_cap) index_grow(x);
  c = &x->constants[x->num_constants++];
  memset(c, 0, sizeof *c);
  c->name = name;
  c->name_len = len;
  *index_slot(x, name, len) = x->num_constants;
  return c;
}

/* `// gemmc-define: A=1 B=f16, C=64` anywhere on a line: defaults the -D options override. */
static void read_defaults(expander *x) {
  static const char marker[] = "gemmc-define:";
  const char *text = x->src->text, *end = text + x->src->len;
  int line = 1;
  for (const char *p = text; p < end; line++) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    const char *q = p;
    while (q < eol && (*q == ' ' || *q == '\t')) q++;
    if (eol - q >= 2 && q[0] == '/' && q[1] == '/') {
      q += 2;
      while (q < eol && (*q == ' ' || *q == '\t')) q++;
      if ((size_t)(eol - q) >= sizeof marker - 1 && !memcmp(q, marker, sizeof marker - 1)) {
        q += sizeof marker - 1;
        for (;;) {
          while (q < eol && (*q == ' ' || *q == '\t' || *q == ',' || *q == '\r')) q++;
          if (q >= eol) break;
          const char *entry = q;
          while (q < eol && *q != ' ' && *q != '\t' && *q != ',' && *q != '\r') q++;
          const char *eq = memchr(entry, '=', (size_t)(q - entry));
          int col = (int)(entry - p) + 1;
          bool name_ok = eq && eq > entry && is_ident_start(entry[0]);
          for (const char *n = entry; name_ok && n < eq; n++) name_ok = is_ident_char(*n);
          if (!name_ok || eq + 1 >= q) {
            error_at(x, line, col, "malformed default '%.*s%.*s' (expected gemmc-define: NAME=VALUE)",
                     entry, (int)(q - entry), "", 0);
            continue;
          }
          constant *c = add_constant(x, entry, (size_t)(eq - entry));
          if (c->declared_in_file) {
            error_at(x, line, col, "constant '%.*s' already has a default%.*s", entry, (int)(eq - entry),
                     "", 0);
            continue;
          }
          c->declared_in_file = true;
          c->value = eq + 1;
          c->value_len = (size_t)(q - eq - 1);
        }
      }
    }
    p = eol + 1;
  }
}

static bool read_command_line(expander *x, const gemmc_define *defines, int num_defines) {
  bool ok = true;
  for (int i = 0; i < num_defines; i++) {
    const char *name = defines[i].name ? defines[i].name : "";
    const char *value = defines[i].value;
    size_t len = strlen(name);
    bool name_ok = len > 0 && is_ident_start(name[0]);
    for (size_t k = 0; name_ok && k < len; k++) name_ok = is_ident_char(name[k]);
    if (!name_ok) {
      ir_error(x->ctx, NULL, "bad -D name '%s' (expected a letter or '_', then letters, digits, '_')", name);
      ok = false;
      continue;
    }
    if (!value || !*value) {
      ir_error(x->ctx, NULL, "-D %s has no value (write -D %s=VALUE)", name, name);
      ok = false;
      continue;
    }
    if (strpbrk(value, "\n\r")) {
      /* A line break would shift every later line of the diagnostics. */
      ir_error(x->ctx, NULL, "the value of -D %s contains a line break", name);
      ok = false;
      continue;
    }
    constant *c = add_constant(x, ir_strdup(x->ctx, name, len), len);
    c->from_command_line = true; /* a repeated -D: the last one wins, as in cc */
    c->value = value;
    c->value_len = strlen(value);
  }
  return ok;
}

/* The "did you mean" hint for `$BLOCK_Mx`: a known constant that is a prefix of the name. */
static constant *prefix_constant(expander *x, const char *name, size_t len) {
  if (len > MAX_HINT_NAME) return NULL;
  for (size_t n = len - 1; n > 0; n--) { /* the longest prefix that is a constant */
    constant *c = find_constant(x, name, n);
    if (c) return c;
  }
  return NULL;
}

bool defines_expand(gemmc_context *ctx, const ir_source *src, const gemmc_define *defines,
                    int num_defines, define_expansion *out) {
  memset(out, 0, sizeof *out);
  expander x = {ctx, src, NULL, 0, 0, NULL, 0, true, 0};
  if (num_defines < 0 || (num_defines > 0 && !defines)) {
    ir_error(ctx, NULL, "num_defines is %d but defines is %s", num_defines, defines ? "set" : "NULL");
    return false;
  }
  read_defaults(&x);
  if (!read_command_line(&x, defines, num_defines)) x.ok = false;

  const char *text = src->text, *end = text + src->len;
  size_t dollars = 0;
  for (const char *p = text; p < end; p++) dollars += *p == '$';
  out->substs = dollars ? ir_alloc(ctx, dollars * sizeof *out->substs) : NULL;

  strbuf b;
  sb_init(&b, ctx);
  int line = 1;
  const char *line_start = text;
  int shift = 0; /* expanded column minus original column on this line */
  enum { CODE, STRING, COMMENT } state = CODE;
  for (const char *p = text; p < end && !too_many_errors(&x);) {
    if (b.len > GEMMC_MAX_INPUT_BYTES) {
      ir_error(ctx, NULL, "%s: the text with its constants substituted is larger than %zu MiB, the most gemmc reads",
               src->name, GEMMC_MAX_INPUT_BYTES >> 20);
      x.ok = false;
      break;
    }
    char c = *p;
    if (c == '\n') {
      sb_put(&b, p, 1);
      p++;
      line++;
      line_start = p;
      shift = 0;
      if (state == COMMENT) state = CODE;
      continue;
    }
    if (state == STRING) {
      size_t n = c == '\\' && p + 1 < end && p[1] != '\n' ? 2 : 1;
      if (c == '"') state = CODE;
      sb_put(&b, p, n);
      p += n;
      continue;
    }
    if (state == COMMENT || c != '$') {
      if (state == CODE && c == '"') state = STRING;
      if (state == CODE && c == '/' && p + 1 < end && p[1] == '/') state = COMMENT;
      sb_put(&b, p, 1);
      p++;
      continue;
    }
    /* `$` in code: `${NAME}` or `$NAME`; anything else (`$0` in inline asm) is left alone. */
    int col = (int)(p - line_start) + 1;
    const char *name, *after;
    bool braced = p + 1 < end && p[1] == '{';
    if (braced) {
      name = p + 2;
      const char *q = name;
      while (q < end && is_ident_char(*q)) q++;
      if (q == name || !is_ident_start(*name) || q >= end || *q != '}') {
        error_at(&x, line, col, "malformed constant reference (expected '${NAME}')%.*s%.*s", "", 0, "", 0);
        sb_put(&b, p, 1);
        p++;
        continue;
      }
      after = q + 1;
    } else if (p + 1 < end && is_ident_start(p[1])) {
      name = p + 1;
      const char *q = name;
      while (q < end && is_ident_char(*q)) q++;
      after = q;
    } else {
      sb_put(&b, p, 1);
      p++;
      continue;
    }
    size_t name_len = (size_t)((braced ? after - 1 : after) - name);
    constant *k = find_constant(&x, name, name_len);
    if (!k) {
      constant *hint = braced ? NULL : prefix_constant(&x, name, name_len);
      if (hint) hint->used = true; /* the hint already names it: no "unused -D" on top */
      if (hint)
        error_at(&x, line, col, "undefined constant '$%.*s' (did you mean '${%.*s}' followed by the rest?)",
                 name, (int)name_len, hint->name, (int)hint->name_len);
      else
        error_at(&x, line, col, "undefined constant '$%.*s'%.*s", name, (int)name_len, "", 0);
      sb_put(&b, p, (size_t)(after - p)); /* keep going to report every one */
      p = after;
      continue;
    }
    k->used = true;
    define_subst *s = &out->substs[out->num_substs++];
    s->line = line;
    s->original_col = col;
    s->original_len = (int)(after - p);
    s->expanded_col = col + shift;
    /* Values and lines are bounded by GEMMC_MAX_INPUT_BYTES (checked above) well inside int. */
    s->expanded_len = k->value_len > GEMMC_MAX_INPUT_BYTES ? (int)GEMMC_MAX_INPUT_BYTES : (int)k->value_len;
    shift += s->expanded_len - s->original_len;
    sb_put(&b, k->value, k->value_len);
    p = after;
  }

  for (int i = 0; i < x.num_constants; i++) {
    const constant *k = &x.constants[i];
    if (k->from_command_line && !k->used && !k->declared_in_file) {
      ir_error(ctx, NULL, "unused -D %.*s (%s has no '$%.*s')", (int)k->name_len, k->name, src->name,
               (int)k->name_len, k->name);
      x.ok = false;
    }
  }

  out->text = ir_strdup(ctx, b.data ? b.data : "", b.len);
  out->len = b.len;
  sb_free(&b);
  out->num_constants = x.num_constants;
  out->constant_names = ir_alloc(ctx, (size_t)(x.num_constants + 1) * sizeof(char *));
  out->constant_values = ir_alloc(ctx, (size_t)(x.num_constants + 1) * sizeof(char *));
  for (int i = 0; i < x.num_constants; i++) {
    out->constant_names[i] = ir_strdup(ctx, x.constants[i].name, x.constants[i].name_len);
    out->constant_values[i] = ir_strdup(ctx, x.constants[i].value, x.constants[i].value_len);
  }
  return x.ok && !gemmc_context_out_of_memory(ctx);
}

int defines_original_column(const define_expansion *e, int line, int col) {
  int shift = 0;
  /* Substitutions are in text order: binary search for the first one on this line. */
  int lo = 0, hi = e->num_substs;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (e->substs[mid].line < line) lo = mid + 1;
    else hi = mid;
  }
  for (int i = lo; i < e->num_substs; i++) {
    const define_subst *s = &e->substs[i];
    if (s->line != line) continue;
    if (col < s->expanded_col) break;
    if (col < s->expanded_col + s->expanded_len) return s->original_col; /* inside a value */
    shift = s->original_col + s->original_len - (s->expanded_col + s->expanded_len);
  }
  return col + shift;
}

/* gemmc-opt: parse a .tir file, verify it, run passes in command-line order, print the result. */
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gemmc/ir.h"
#include "gemmc/limits.h"
#include "gemmc/passes.h"
#include "draw_layout.h"
#include "tool_files.h"

#ifndef GEMMC_VERSION
#define GEMMC_VERSION "0.1.0"
#endif

#define DEFAULT_SPLIT_MARKER "// -----"
/* A file of --split-input-file chunks may hold many modules, each up to GEMMC_MAX_INPUT_BYTES. */
#define MAX_FILE_BYTES (32 * GEMMC_MAX_INPUT_BYTES)

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

typedef enum { VERIFY_DIAGS_OFF, VERIFY_DIAGS_ALL, VERIFY_DIAGS_ONLY_EXPECTED } verify_diags_level;

/* One `--name[=options]` from the command line, in order. */
typedef struct pass_request {
  const gemmc_pass_info *info;
  const char *options; /* text after '=', or NULL */
} pass_request;

typedef struct tool_options {
  const char *input;       /* "-" is stdin */
  const char *output;      /* "-" is stdout */
  const char *split_marker; /* NULL: no splitting */
  bool verify_after_parse;
  bool verify_each;
  verify_diags_level verify_diags;
  ir_print_options print;
  pass_request *passes;
  int num_passes;
  const char *draw_layout; /* --draw-layout=SPEC: write this layout's SVG instead of the module */
} tool_options;

/* A piece of the input processed on its own: a slice of the file text, with the line it starts
 * at so that diagnostics name the original file's lines (no copy, no padding: splitting stays
 * linear in the file however many chunks it has). */
typedef struct chunk {
  const char *text;
  size_t len;
  int first_line;
  ir_source source; /* for diagnostics that the tool itself reports about this chunk */
} chunk;

/* ------------------------------------------------------------------ small helpers */

static void tool_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void tool_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("gemmc-opt: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static bool starts_with(const char *s, size_t len, const char *prefix) {
  size_t n = strlen(prefix);
  return len >= n && memcmp(s, prefix, n) == 0;
}

/* Reads a whole file (or stdin for "-") into a malloc'd buffer; NUL-terminated for convenience. */
static bool read_input(const char *path, char **text_out, size_t *len_out) {
  bool from_stdin = strcmp(path, "-") == 0;
  FILE *f = from_stdin ? stdin : fopen(path, "rb");
  if (!f) {
    tool_error("error: cannot open '%s': %s", path, strerror(errno));
    return false;
  }
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  bool ok = buf != NULL;
  while (ok) {
    if (len > MAX_FILE_BYTES) {
      tool_error("error: '%s' is larger than %zu MiB, the most gemmc-opt reads (each module or "
                 "--split-input-file chunk at most %zu MiB)", path, MAX_FILE_BYTES >> 20, GEMMC_MAX_INPUT_BYTES >> 20);
      ok = false;
      break;
    }
    if (cap - len < 2) {
      if (cap > ((size_t)-1) / 2) {
        ok = false;
        break;
      }
      char *bigger = realloc(buf, cap * 2);
      if (!bigger) {
        ok = false;
        break;
      }
      buf = bigger;
      cap *= 2;
    }
    size_t n = fread(buf + len, 1, cap - len - 1, f);
    len += n;
    if (n == 0) break;
  }
  if (!ok) {
    if (len <= MAX_FILE_BYTES) tool_error("error: out of memory reading '%s'", path);
  } else if (ferror(f)) {
    tool_error("error: cannot read '%s': %s", path, strerror(errno));
    ok = false;
  }
  if (!from_stdin) fclose(f);
  if (!ok) {
    free(buf);
    return false;
  }
  buf[len] = 0;
  *text_out = buf;
  *len_out = len;
  return true;
}

/* ------------------------------------------------------------------ expected diagnostics */

/* One `// expected-<kind>[-re][@where] {{text}}` comment of the input, as MLIR's verifier reads them. */
typedef struct expected_diag {
  ir_diag_severity kind;
  int line;           /* the line the diagnostic must be reported on */
  bool at_unknown;    /* @unknown: matches diagnostics without a location in this file */
  int decl_line, decl_col; /* where the comment is, to point at it when unmet */
  const char *text;   /* into the chunk text */
  size_t text_len;
  bool has_regex;
  regex_t regex;
  bool matched;
} expected_diag;

typedef struct diag_verifier {
  verify_diags_level level;
  const char *filename;
  expected_diag *expected;
  int num_expected, cap_expected;
  /* The expectations ordered by the line they are for (@unknown ones first, as line 0): a
   * diagnostic looks only at its own line's, so checking stays linear in the directives. */
  int *by_line;
  bool failed;
  gemmc_context *ctx; /* of the chunk: for locations of the tool's own messages */
  const ir_source *source;
} diag_verifier;

static const char *severity_word(ir_diag_severity sev) {
  switch (sev) {
  case IR_DIAG_ERROR: return "error";
  case IR_DIAG_WARNING: return "warning";
  case IR_DIAG_NOTE: return "note";
  case IR_DIAG_REMARK: return "remark";
  }
  return "error";
}

/* Reports a problem found by the verifier itself, at a line:col of the chunk. */
static void verifier_report(diag_verifier *v, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void verifier_report(diag_verifier *v, int line, int col, const char *fmt, ...) {
  char message[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  ir_print_diag(stderr, IR_DIAG_ERROR, ir_loc_file(v->ctx, v->source, line, col), message);
  v->failed = true;
}

/* Builds a POSIX ERE from MLIR's `-re` syntax: literal text with `{{regex}}` parts. */
static bool compile_expected_regex(diag_verifier *v, expected_diag *e) {
  size_t cap = e->text_len * 2 + 3;
  char *pattern = malloc(cap);
  if (!pattern) {
    verifier_report(v, e->decl_line, e->decl_col, "out of memory compiling a regex");
    return false;
  }
  size_t n = 0;
  const char *p = e->text, *end = e->text + e->text_len;
  while (p < end) {
    if (end - p >= 2 && p[0] == '{' && p[1] == '{') {
      const char *close = NULL;
      for (const char *q = p + 2; q + 1 < end; q++)
        if (q[0] == '}' && q[1] == '}') {
          close = q;
          break;
        }
      if (!close) {
        free(pattern);
        verifier_report(v, e->decl_line, e->decl_col, "found start of regex with no end '}}'");
        return false;
      }
      pattern[n++] = '(';
      memcpy(pattern + n, p + 2, (size_t)(close - p - 2));
      n += (size_t)(close - p - 2);
      pattern[n++] = ')';
      p = close + 2;
      continue;
    }
    if (strchr(".[]{}()\\*+?|^$", *p)) pattern[n++] = '\\';
    pattern[n++] = *p++;
  }
  pattern[n] = 0;
  int rc = regcomp(&e->regex, pattern, REG_EXTENDED | REG_NOSUB);
  free(pattern);
  if (rc != 0) {
    char why[256];
    regerror(rc, &e->regex, why, sizeof why);
    verifier_report(v, e->decl_line, e->decl_col, "invalid regex: %s", why);
    return false;
  }
  e->has_regex = true;
  return true;
}

static bool verifier_push(diag_verifier *v, const expected_diag *e) {
  if (v->num_expected == v->cap_expected) {
    int ncap = v->cap_expected ? v->cap_expected * 2 : 16;
    expected_diag *grown = realloc(v->expected, (size_t)ncap * sizeof *grown);
    if (!grown) return false;
    v->expected = grown;
    v->cap_expected = ncap;
  }
  v->expected[v->num_expected++] = *e;
  return true;
}

/* Tries to read an expected-* designator starting at `at` (which points at "expected-") in a
 * line whose right-trimmed end is `end`. Mirrors MLIR's
 * `expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *{{(.*)}}$`. */
typedef enum { WHERE_SAME, WHERE_OFFSET, WHERE_ABOVE, WHERE_BELOW, WHERE_UNKNOWN } designator_where;

typedef struct designator {
  ir_diag_severity kind;
  bool is_regex;
  designator_where where;
  long offset;
  const char *text;
  size_t text_len;
} designator;

static bool parse_designator(const char *at, const char *end, designator *d) {
  static const struct {
    const char *word;
    ir_diag_severity kind;
  } kinds[] = {{"error", IR_DIAG_ERROR}, {"note", IR_DIAG_NOTE}, {"remark", IR_DIAG_REMARK},
               {"warning", IR_DIAG_WARNING}};
  const char *p = at + strlen("expected-");
  bool found_kind = false;
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (starts_with(p, (size_t)(end - p), kinds[i].word)) {
      d->kind = kinds[i].kind;
      p += strlen(kinds[i].word);
      found_kind = true;
      break;
    }
  if (!found_kind) return false;
  d->is_regex = false;
  if (starts_with(p, (size_t)(end - p), "-re")) {
    d->is_regex = true;
    p += 3;
  }
  while (p < end && *p == ' ') p++;
  d->where = WHERE_SAME;
  d->offset = 0;
  if (p < end && *p == '@') {
    p++;
    if (p < end && (*p == '+' || *p == '-')) {
      bool negative = *p == '-';
      p++;
      if (p >= end || *p < '0' || *p > '9') return false;
      long n = 0;
      while (p < end && *p >= '0' && *p <= '9') {
        if (n < 100000000) n = n * 10 + (*p - '0');
        p++;
      }
      d->where = WHERE_OFFSET;
      d->offset = negative ? -n : n;
    } else if (starts_with(p, (size_t)(end - p), "above")) {
      d->where = WHERE_ABOVE;
      p += 5;
    } else if (starts_with(p, (size_t)(end - p), "below")) {
      d->where = WHERE_BELOW;
      p += 5;
    } else if (starts_with(p, (size_t)(end - p), "unknown")) {
      d->where = WHERE_UNKNOWN;
      p += 7;
    } else {
      return false;
    }
  }
  while (p < end && *p == ' ') p++;
  if (end - p < 4 || p[0] != '{' || p[1] != '{' || end[-1] != '}' || end[-2] != '}') return false;
  d->text = p + 2;
  d->text_len = (size_t)(end - 2 - d->text);
  return true;
}

/* Finds the first "expected-" at or after p within [p, end), or NULL. Linear even on huge lines. */
static const char *find_expected(const char *p, const char *end) {
  static const char needle[] = "expected-";
  const size_t n = sizeof needle - 1;
  while ((size_t)(end - p) >= n) {
    const char *e = memchr(p, 'e', (size_t)(end - p) - n + 1);
    if (!e) return NULL;
    if (memcmp(e, needle, n) == 0) return e;
    p = e + 1;
  }
  return NULL;
}

/* The line an expectation is matched on; @unknown ones sort first as line 0. */
static int expected_key(const expected_diag *e) { return e->at_unknown ? 0 : e->line; }

/* by_line[] = indices of expected[] by line, declaration order kept within a line (a stable
 * counting sort would need the line range; merge sort is stable and O(n log n)). */
static void sort_by_line(const diag_verifier *v, int *a, int *tmp, int n) {
  if (n < 2) return;
  int h = n / 2;
  sort_by_line(v, a, tmp, h);
  sort_by_line(v, a + h, tmp, n - h);
  int i = 0, j = h, k = 0;
  while (i < h && j < n)
    tmp[k++] = expected_key(&v->expected[a[j]]) < expected_key(&v->expected[a[i]]) ? a[j++] : a[i++];
  while (i < h) tmp[k++] = a[i++];
  while (j < n) tmp[k++] = a[j++];
  memcpy(a, tmp, (size_t)n * sizeof *a);
}

static bool index_expectations(diag_verifier *v) {
  if (!v->num_expected) return true;
  v->by_line = malloc((size_t)v->num_expected * sizeof *v->by_line);
  int *tmp = malloc((size_t)v->num_expected * sizeof *tmp);
  if (!v->by_line || !tmp) {
    free(tmp);
    verifier_report(v, 1, 1, "out of memory indexing expected diagnostics");
    return false;
  }
  for (int i = 0; i < v->num_expected; i++) v->by_line[i] = i;
  sort_by_line(v, v->by_line, tmp, v->num_expected);
  free(tmp);
  return true;
}

/* The first position in by_line whose expectation is for `key` (or past all of them). */
static int first_for_line(const diag_verifier *v, int key) {
  int lo = 0, hi = v->num_expected;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (expected_key(&v->expected[v->by_line[mid]]) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Collects the expectations of a chunk, resolving @above / @below as MLIR does: @above means the
 * last line that has no designator, @below the next one. */
static bool collect_expectations(diag_verifier *v, const chunk *c) {
  const char *text = c->text, *text_end = c->text + c->len;
  int line_no = c->first_line - 1;
  int last_plain_line = 1; /* MLIR: @above before any plain line means line 1 */
  int first_pending_below = -1; /* designators [first_pending_below, num_expected) wait for a line */
  const char *line = text;
  while (line <= text_end) {
    const char *nl = memchr(line, '\n', (size_t)(text_end - line));
    const char *line_end = nl ? nl : text_end;
    line_no++;
    const char *trimmed = line_end;
    while (trimmed > line && (trimmed[-1] == ' ' || trimmed[-1] == '\t' || trimmed[-1] == '\r'))
      trimmed--;
    designator d;
    const char *at = line;
    bool found = false;
    while ((at = find_expected(at, trimmed)) != NULL) {
      if (parse_designator(at, trimmed, &d)) {
        found = true;
        break;
      }
      at++;
    }
    if (!found) {
      if (first_pending_below >= 0) {
        for (int i = first_pending_below; i < v->num_expected; i++)
          if (v->expected[i].line < 0) v->expected[i].line = line_no;
        first_pending_below = -1;
      }
      last_plain_line = line_no;
    } else {
      expected_diag e;
      memset(&e, 0, sizeof e);
      e.kind = d.kind;
      e.decl_line = line_no;
      e.decl_col = (int)(at - line) + 1;
      e.text = d.text;
      e.text_len = d.text_len;
      switch (d.where) {
      case WHERE_SAME: e.line = line_no; break;
      case WHERE_OFFSET: e.line = (int)(line_no + d.offset); break;
      case WHERE_ABOVE: e.line = last_plain_line; break;
      case WHERE_BELOW: e.line = -1; break;
      case WHERE_UNKNOWN: e.at_unknown = true; break;
      }
      bool usable = !d.is_regex || compile_expected_regex(v, &e);
      if (usable) {
        if (!verifier_push(v, &e)) {
          if (e.has_regex) regfree(&e.regex);
          verifier_report(v, line_no, 1, "out of memory collecting expected diagnostics");
          return false;
        }
        if (d.where == WHERE_BELOW && first_pending_below < 0) first_pending_below = v->num_expected - 1;
      }
    }
    if (!nl) break;
    line = nl + 1;
  }
  /* A dangling @below applies to the last line, as in MLIR. */
  for (int i = 0; i < v->num_expected; i++)
    if (!v->expected[i].at_unknown && v->expected[i].line < 0) v->expected[i].line = line_no;
  return index_expectations(v);
}

static bool expected_matches(const expected_diag *e, const char *message) {
  if (e->has_regex) return regexec(&e->regex, message, 0, NULL, 0) == 0;
  size_t n = strlen(message);
  if (e->text_len == 0) return true;
  for (size_t i = 0; i + e->text_len <= n; i++)
    if (memcmp(message + i, e->text, e->text_len) == 0) return true;
  return false;
}

/* The line of the input that a diagnostic points at (the one its printed form names), or 0 when
 * it has no location in this file; such diagnostics match `@unknown` expectations. */
static int diag_line_in_input(const diag_verifier *v, const ir_loc *loc) {
  if (!loc) return 0;
  if (loc->src && loc->src->name && strcmp(loc->src->name, v->filename) == 0) return loc->src_line;
  const ir_loc *file_part = ir_loc_file_part(loc);
  if (file_part && file_part->file && strcmp(file_part->file, v->filename) == 0) return file_part->line;
  return 0;
}

static void verifier_handle_diag(void *user, ir_diag_severity sev, const ir_loc *loc, const char *message) {
  diag_verifier *v = user;
  int line = diag_line_in_input(v, loc);
  const expected_diag *near_miss = NULL;
  for (int k = v->by_line ? first_for_line(v, line) : v->num_expected; k < v->num_expected; k++) {
    expected_diag *e = &v->expected[v->by_line[k]];
    if (expected_key(e) != line) break;
    if (line ? e->at_unknown : !e->at_unknown) continue;
    if (!expected_matches(e, message)) continue;
    if (e->kind == sev) {
      e->matched = true;
      return;
    }
    near_miss = e;
  }
  /* only-expected (MLIR's semantics): diagnostics nobody asked for are let through silently. */
  if (v->level == VERIFY_DIAGS_ONLY_EXPECTED) return;
  if (near_miss) {
    verifier_report(v, near_miss->decl_line, near_miss->decl_col,
                    "'%s' diagnostic emitted when expecting a '%s'", severity_word(sev),
                    severity_word(near_miss->kind));
    return;
  }
  char text[2048];
  snprintf(text, sizeof text, "unexpected %s: %s", severity_word(sev), message);
  ir_print_diag(stderr, IR_DIAG_ERROR, loc, text);
  v->failed = true;
}

/* Reports every expectation that no diagnostic met. */
static void verifier_finish(diag_verifier *v) {
  for (int i = 0; i < v->num_expected; i++) {
    expected_diag *e = &v->expected[i];
    if (e->matched) continue;
    verifier_report(v, e->decl_line, e->decl_col, "expected %s \"%.*s\" was not produced",
                    severity_word(e->kind), (int)(e->text_len > 1000 ? 1000 : e->text_len), e->text);
  }
}

static void verifier_free(diag_verifier *v) {
  for (int i = 0; i < v->num_expected; i++)
    if (v->expected[i].has_regex) regfree(&v->expected[i].regex);
  free(v->expected);
  free(v->by_line);
  v->by_line = NULL;
  v->expected = NULL;
  v->num_expected = v->cap_expected = 0;
}

/* ------------------------------------------------------------------ processing one input */

typedef struct module_job {
  const chunk *c;
  const tool_options *opts;
  FILE *out;
} module_job;

/* Parses, verifies, runs the passes and prints. Returns true when every step succeeded. */
static bool process_module(gemmc_context *ctx, void *user) {
  const module_job *job = user;
  const chunk *c = job->c;
  const tool_options *opts = job->opts;
  FILE *out = job->out;
  ir_op *module = ir_parse_module_at_line(ctx, c->text, c->len, c->source.name, c->first_line);
  if (!module || ir_error_count(ctx) > 0) return false;
  if (opts->verify_after_parse && !ir_verify(ctx, module)) return false;
  for (int i = 0; i < opts->num_passes; i++) {
    const pass_request *p = &opts->passes[i];
    int errors_before = ir_error_count(ctx);
    bool ok = gemmc_pass_run(ctx, p->info, module, p->options, NULL, out);
    if (!ok || ir_error_count(ctx) > errors_before) {
      /* A pass should explain its failure; say which pass failed when it did not. */
      if (ir_error_count(ctx) == errors_before)
        ir_error(ctx, ir_loc_unknown(ctx), "pass '%s' failed", p->info->name);
      return false;
    }
    if (opts->verify_each && !ir_verify(ctx, module)) return false;
  }
  if (gemmc_context_out_of_memory(ctx)) {
    tool_error("error: out of memory");
    return false;
  }
  if (opts->draw_layout) return draw_layout_write(ctx, module, opts->draw_layout, out);
  ir_print_module_to_file(ctx, module, &opts->print, out);
  return true;
}

static bool process_chunk(const chunk *c, const tool_options *opts, FILE *out) {
  gemmc_context *ctx = gemmc_context_create();
  if (!ctx) {
    tool_error("error: out of memory creating a context");
    return false;
  }
  bool ok;
  /* Guarded: running out of memory anywhere (passes included) is an error, not a crash. */
  module_job job = {c, opts, out};
  if (opts->verify_diags == VERIFY_DIAGS_OFF) {
    ok = gemmc_context_guard(ctx, process_module, &job);
  } else {
    diag_verifier v;
    memset(&v, 0, sizeof v);
    v.level = opts->verify_diags;
    v.filename = c->source.name;
    v.ctx = ctx;
    v.source = &c->source;
    ir_set_diag_handler(ctx, verifier_handle_diag, &v);
    if (collect_expectations(&v, c)) {
      /* The outcome is the verifier's: an expected error makes processing fail, as it should. */
      (void)gemmc_context_guard(ctx, process_module, &job);
      verifier_finish(&v);
    }
    ok = !v.failed;
    ir_set_diag_handler(ctx, NULL, NULL);
    verifier_free(&v);
  }
  gemmc_context_destroy(ctx);
  return ok;
}

/* A marker line starts with the marker at column 1 (MLIR ignores what follows it on the line). */
static bool is_marker_line(const char *line, const char *line_end, const char *marker) {
  return starts_with(line, (size_t)(line_end - line), marker);
}

/* The chunk [begin, end) of the input, which starts on line `first_line`. */
static chunk make_chunk(const char *name, const char *begin, const char *end, int first_line) {
  chunk c = {begin, (size_t)(end - begin), first_line, {name, begin, (size_t)(end - begin), first_line}};
  return c;
}

static bool process_input(const char *name, const char *text, size_t len, const tool_options *opts,
                          FILE *out) {
  if (!opts->split_marker) {
    chunk whole = make_chunk(name, text, text + len, 1);
    return process_chunk(&whole, opts, out);
  }
  bool all_ok = true, first = true;
  const char *chunk_begin = text, *end = text + len, *line = text;
  int line_no = 1, chunk_first_line = 1;
  for (;;) {
    const char *nl = memchr(line, '\n', (size_t)(end - line));
    const char *line_end = nl ? nl : end;
    bool marker = is_marker_line(line, line_end, opts->split_marker);
    if (marker || !nl) {
      const char *chunk_end = marker ? line : end;
      chunk c = make_chunk(name, chunk_begin, chunk_end, chunk_first_line);
      if (!first) fprintf(out, "%s\n", DEFAULT_SPLIT_MARKER);
      first = false;
      if (!process_chunk(&c, opts, out)) all_ok = false;
      fflush(out);
      if (!nl) break;
      chunk_begin = nl + 1;
      chunk_first_line = line_no + 1;
    }
    if (!nl) break;
    line = nl + 1;
    line_no++;
  }
  return all_ok;
}

/* ------------------------------------------------------------------ command line */

static void print_help(FILE *f) {
  fputs("usage: gemmc-opt [options] <input.tir | ->\n"
        "\n"
        "Parses a .tir (Triton TTIR/TTGIR) file, verifies it, runs the passes given on the\n"
        "command line in that order (verifying after each) and prints the result.\n"
        "\n"
        "options:\n"
        "  -o <file>                       write the output there (default: stdout)\n"
        "  --split-input-file[=marker]     process each '// -----' chunk on its own\n"
        "  --verify-diagnostics[=only-expected]\n"
        "                                  check diagnostics against expected-* comments\n"
        "  --verify-each[=true|false]      verify after every pass (default: true)\n"
        "  --no-verify                     verify neither after parsing nor after passes\n"
        "  --draw-layout=NAME[,shape=AxB][,window=RxC][,index=I]\n"
        "                                  write an SVG of layout alias NAME (#blocked1, #mma, #shared), of the\n"
        "                                  I-th layout of kind NAME (dot_op, slice), or of value %NAME's layout,\n"
        "                                  instead of the module: owner of each element (warp colour, lane,\n"
        "                                  register) or its shared-memory offset and bank\n"
        "  --mlir-print-debuginfo          print loc(...) locations\n"
        "  --mlir-print-op-generic         print every op in generic form\n"
        "  --help, --version\n"
        "\n"
        "passes (--name or --alias, options as --name=key=value,key=value):\n",
        f);
  int count = 0;
  const gemmc_pass_info *passes = gemmc_pass_list(&count);
  if (count == 0) fputs("  (none registered yet)\n", f);
  for (int i = 0; i < count; i++) {
    fprintf(f, "  --%-30s %s\n", passes[i].name, passes[i].help ? passes[i].help : "");
    if (passes[i].alias) fprintf(f, "    (alias --%s)\n", passes[i].alias);
  }
}

static bool parse_bool_value(const char *value, bool *out) {
  if (!value || !strcmp(value, "true") || !strcmp(value, "1") || !strcmp(value, "")) {
    *out = true;
    return true;
  }
  if (!strcmp(value, "false") || !strcmp(value, "0")) {
    *out = false;
    return true;
  }
  return false;
}

/* Returns EXIT_OK to go on, or the exit status to stop with (help and version stop with 0). */
static int parse_command_line(int argc, char **argv, tool_options *opts, bool *stop) {
  *stop = false;
  opts->output = "-";
  opts->verify_after_parse = true;
  opts->verify_each = true;
  opts->passes = calloc((size_t)(argc > 0 ? argc : 1), sizeof *opts->passes);
  if (!opts->passes) {
    tool_error("error: out of memory");
    return EXIT_FAILED;
  }
  bool options_done = false;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (options_done || arg[0] != '-' || strcmp(arg, "-") == 0) {
      if (opts->input) {
        tool_error("error: more than one input file ('%s' and '%s')", opts->input, arg);
        return EXIT_USAGE;
      }
      opts->input = arg;
      continue;
    }
    if (strcmp(arg, "--") == 0) {
      options_done = true;
      continue;
    }
    /* Like LLVM's tools, accept one dash or two for every long option. */
    const char *body = arg[1] == '-' ? arg + 2 : arg + 1;
    const char *eq = strchr(body, '=');
    size_t name_len = eq ? (size_t)(eq - body) : strlen(body);
    const char *value = eq ? eq + 1 : NULL;
#define IS(opt) (name_len == strlen(opt) && memcmp(body, opt, name_len) == 0)
    if (IS("help") || IS("h")) {
      print_help(stdout);
      *stop = true;
      return EXIT_OK;
    } else if (IS("version")) {
      printf("gemmc-opt (gemmc) %s\n", GEMMC_VERSION);
      *stop = true;
      return EXIT_OK;
    } else if (IS("o")) {
      if (!value) {
        if (i + 1 >= argc) {
          tool_error("error: -o needs a file name");
          return EXIT_USAGE;
        }
        value = argv[++i];
      }
      opts->output = value;
    } else if (IS("split-input-file")) {
      opts->split_marker = value && *value ? value : DEFAULT_SPLIT_MARKER;
    } else if (IS("verify-diagnostics")) {
      if (!value || !strcmp(value, "") || !strcmp(value, "all")) {
        opts->verify_diags = VERIFY_DIAGS_ALL;
      } else if (!strcmp(value, "only-expected")) {
        opts->verify_diags = VERIFY_DIAGS_ONLY_EXPECTED;
      } else {
        tool_error("error: --verify-diagnostics takes 'all' or 'only-expected', not '%s'", value);
        return EXIT_USAGE;
      }
    } else if (IS("verify-each")) {
      if (!parse_bool_value(value, &opts->verify_each)) {
        tool_error("error: --verify-each takes true or false, not '%s'", value);
        return EXIT_USAGE;
      }
    } else if (IS("no-verify")) {
      opts->verify_after_parse = false;
      opts->verify_each = false;
    } else if (IS("draw-layout")) {
      if (!value || !*value) {
        tool_error("error: --draw-layout needs a layout: --draw-layout=NAME[,shape=AxB][,window=RxC][,index=I]");
        return EXIT_USAGE;
      }
      opts->draw_layout = value;
    } else if (IS("mlir-print-debuginfo")) {
      opts->print.debug_info = true;
    } else if (IS("mlir-print-op-generic")) {
      opts->print.generic = true;
    } else {
      char name[256];
      if (name_len >= sizeof name) name_len = sizeof name - 1;
      memcpy(name, body, name_len);
      name[name_len] = 0;
      const gemmc_pass_info *info = gemmc_pass_lookup(name);
      if (!info) {
        tool_error("unknown pass '%.*s' (see --help)", (int)(body - arg + name_len), arg);
        return EXIT_USAGE;
      }
      opts->passes[opts->num_passes].info = info;
      opts->passes[opts->num_passes].options = value;
      opts->num_passes++;
    }
#undef IS
  }
  if (!opts->input) opts->input = "-";
  return EXIT_OK;
}

int main(int argc, char **argv) {
  tool_options opts;
  memset(&opts, 0, sizeof opts);
  bool stop = false;
  int status = parse_command_line(argc, argv, &opts, &stop);
  if (status != EXIT_OK || stop) {
    free(opts.passes);
    return status;
  }

  char *text = NULL;
  size_t len = 0;
  if (!read_input(opts.input, &text, &len)) {
    free(opts.passes);
    return EXIT_FAILED;
  }
  const char *name = strcmp(opts.input, "-") == 0 ? "<stdin>" : opts.input;

  if (tool_same_file(opts.output, opts.input)) {
    tool_error("error: -o '%s' is the input file; refusing to overwrite it", opts.output);
    free(text);
    free(opts.passes);
    return EXIT_FAILED;
  }
  /* A pass that writes a file of its own (--print-llvm=output=FILE) must not overwrite it either. */
  for (int i = 0; i < opts.num_passes; i++) {
    const char *o = opts.passes[i].options;
    for (const char *key = o; key && *key; key = strchr(key, ',') ? strchr(key, ',') + 1 : NULL) {
      if (strncmp(key, "output=", 7) != 0) continue;
      char path[4096];
      size_t n = strcspn(key + 7, ",");
      snprintf(path, sizeof path, "%.*s", (int)(n < sizeof path ? n : sizeof path - 1), key + 7);
      if (tool_same_file(path, opts.input)) {
        tool_error("error: --%s output '%s' is the input file; refusing to overwrite it", opts.passes[i].info->name, path);
        free(text);
        free(opts.passes);
        return EXIT_FAILED;
      }
    }
  }
  bool to_stdout = strcmp(opts.output, "-") == 0;
  /* Only a regular file (or one we create) may be removed on failure: never /dev/null. */
  struct stat before;
  bool removable = !to_stdout && (stat(opts.output, &before) != 0 || S_ISREG(before.st_mode));
  FILE *out = to_stdout ? stdout : fopen(opts.output, "w");
  if (!out) {
    tool_error("error: cannot open '%s' for writing: %s", opts.output, strerror(errno));
    free(text);
    free(opts.passes);
    return EXIT_FAILED;
  }

  bool ok = process_input(name, text, len, &opts, out);
  if (fflush(out) != 0 || ferror(out)) {
    tool_error("error: cannot write '%s': %s", to_stdout ? "<stdout>" : opts.output, strerror(errno));
    ok = false;
  }
  if (!to_stdout) {
    if (fclose(out) != 0) ok = false;
    /* Like LLVM's ToolOutputFile: no half-written output is left behind on failure. */
    if (!ok && removable) remove(opts.output);
  }
  free(text);
  free(opts.passes);
  return ok ? EXIT_OK : EXIT_FAILED;
}

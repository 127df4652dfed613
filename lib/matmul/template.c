/* Library templates: finding the embedded .tir files and resolving their `// @if` / `// @else` / `// @endif` / `// @include` lines. */
#include "template.h"

#include "heap_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 16, MAX_INCLUDE_DEPTH = 4 };

const embedded_file *template_find(const char *name) {
  for (const embedded_file *f = gemmc_embedded_templates; f->name; f++)
    if (!strcmp(f->name, name)) return f;
  return NULL;
}

/* The value of constant name[0..n): the last -D, else a `gemmc-define:` default of the top
 * template, else NULL. `value_len` receives its length. */
static const char *lookup(const gemmc_define *defines, int num_defines, const embedded_file *top, const char *name,
                          size_t n, size_t *value_len) {
  for (int i = num_defines - 1; i >= 0; i--)
    if (defines[i].name && strlen(defines[i].name) == n && !memcmp(defines[i].name, name, n)) {
      *value_len = strlen(defines[i].value ? defines[i].value : "");
      return defines[i].value ? defines[i].value : "";
    }
  static const char marker[] = "gemmc-define:";
  const char *text = top->text, *end = text + top->len;
  for (const char *p = text; p < end;) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    const char *m = strstr(p, marker);
    if (m && m < eol) {
      for (const char *q = m + sizeof marker - 1; q < eol;) {
        while (q < eol && (*q == ' ' || *q == ',')) q++;
        const char *w = q;
        while (q < eol && *q != ' ' && *q != ',') q++;
        const char *eq = memchr(w, '=', (size_t)(q - w));
        if (eq && (size_t)(eq - w) == n && !memcmp(w, name, n)) {
          *value_len = (size_t)(q - eq - 1);
          return eq + 1;
        }
      }
    }
    p = eol + 1;
  }
  return NULL;
}

/* `// @word rest`: the directive word (NULL when the line is no directive) and its argument. */
static const char *directive(const char *line, const char *eol, const char **arg, size_t *arg_len, size_t *word_len) {
  const char *p = line;
  while (p < eol && (*p == ' ' || *p == '\t')) p++;
  if (eol - p < 4 || p[0] != '/' || p[1] != '/') return NULL;
  p += 2;
  while (p < eol && *p == ' ') p++;
  if (p >= eol || *p != '@') return NULL;
  const char *word = ++p;
  while (p < eol && *p != ' ' && *p != '\r') p++;
  *word_len = (size_t)(p - word);
  while (p < eol && *p == ' ') p++;
  const char *a_end = eol;
  while (a_end > p && (a_end[-1] == ' ' || a_end[-1] == '\r')) a_end--;
  *arg = p;
  *arg_len = (size_t)(a_end - p);
  return word;
}

static bool expand(const embedded_file *file, const embedded_file *top, const gemmc_define *defines, int num_defines,
                   int include_depth, heap_text *o, char *err, size_t errlen) {
  bool keep[MAX_DEPTH + 1];
  bool taken[MAX_DEPTH + 1];
  int depth = 0;
  keep[0] = true;
  int line_no = 0;
  const char *text = file->text, *end = text + file->len;
  for (const char *p = text; p < end;) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    line_no++;
    const char *arg = NULL;
    size_t arg_len = 0, word_len = 0;
    const char *word = directive(p, eol, &arg, &arg_len, &word_len);
#define WORD_IS(w) (word && word_len == sizeof(w) - 1 && !memcmp(word, w, word_len))
    if (WORD_IS("if")) {
      if (depth == MAX_DEPTH) {
        snprintf(err, errlen, "%s:%d: @if nested too deeply", file->name, line_no);
        return false;
      }
      size_t vlen = 0;
      const char *v = lookup(defines, num_defines, top, arg, arg_len, &vlen);
      if (!v) {
        snprintf(err, errlen, "%s:%d: @if %.*s: the constant has no value", file->name, line_no, (int)arg_len, arg);
        return false;
      }
      bool cond = !(vlen == 1 && v[0] == '0');
      depth++;
      taken[depth] = cond;
      keep[depth] = keep[depth - 1] && cond;
      heap_text_put(o, "//\n", 3);
    } else if (WORD_IS("else")) {
      if (!depth) {
        snprintf(err, errlen, "%s:%d: @else without @if", file->name, line_no);
        return false;
      }
      keep[depth] = keep[depth - 1] && !taken[depth];
      heap_text_put(o, "//\n", 3);
    } else if (WORD_IS("endif")) {
      if (!depth) {
        snprintf(err, errlen, "%s:%d: @endif without @if", file->name, line_no);
        return false;
      }
      depth--;
      heap_text_put(o, "//\n", 3);
    } else if (WORD_IS("include")) {
      if (keep[depth]) {
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)arg_len, arg);
        const embedded_file *inc = template_find(name);
        if (!inc) {
          snprintf(err, errlen, "%s:%d: @include %s: no such template", file->name, line_no, name);
          return false;
        }
        if (include_depth == MAX_INCLUDE_DEPTH) {
          snprintf(err, errlen, "%s:%d: @include nested too deeply", file->name, line_no);
          return false;
        }
        if (!expand(inc, top, defines, num_defines, include_depth + 1, o, err, errlen)) return false;
      } else {
        heap_text_put(o, "//\n", 3);
      }
    } else if (word) {
      snprintf(err, errlen, "%s:%d: unknown template directive '@%.*s'", file->name, line_no, (int)word_len, word);
      return false;
    } else if (keep[depth]) {
      heap_text_put(o, p, (size_t)(eol - p));
      heap_text_put(o, "\n", 1);
    } else {
      heap_text_put(o, "//\n", 3);
    }
#undef WORD_IS
    p = eol + 1;
  }
  if (depth) {
    snprintf(err, errlen, "%s: @if without @endif", file->name);
    return false;
  }
  return true;
}

bool template_instantiate(const char *name, const gemmc_define *defines, int num_defines, char **out, size_t *len,
                          char *err, size_t errlen) {
  *out = NULL;
  *len = 0;
  const embedded_file *top = template_find(name);
  if (!top) {
    snprintf(err, errlen, "no template named '%s'", name);
    return false;
  }
  heap_text o = {NULL, 0, 0, false};
  bool ok = expand(top, top, defines, num_defines, 0, &o, err, errlen);
  if (ok && o.failed) {
    snprintf(err, errlen, "out of memory instantiating %s", name);
    ok = false;
  }
  if (!ok) {
    free(o.data);
    return false;
  }
  *out = o.data;
  *len = o.len;
  return true;
}

/* gemmc-opt --draw-layout: finds the layout named by an alias or a value in the module and writes it as an SVG (gemmc/layout_svg.h). */
#include "draw_layout.h"

#include <stdlib.h>
#include <string.h>

#include "gemmc/layout_svg.h"

typedef struct layout_search {
  gemmc_context *ctx;
  const char *value_name;  /* %name without '%', or NULL */
  const char *definition;  /* an alias's text, or NULL */
  const char *kind;        /* a layout kind ("dot_op", "ttg.slice"), or NULL */
  int skip;                /* the kind's distinct layouts to pass over first (index=) */
  const ir_attr *seen[64];
  int num_seen;
  const ir_type *found;
} layout_search;

static bool has_layout(const ir_type *t) {
  return t && (t->kind == TY_TENSOR || t->kind == TY_MEMDESC) && t->encoding;
}

static void consider(layout_search *s, const ir_value *v) {
  if (s->found || !v || !has_layout(v->type)) return;
  if (s->value_name) {
    if (v->name && !strcmp(v->name, s->value_name)) s->found = v->type;
  } else if (s->kind) {
    const char *kind = ir_attr_kind_name(v->type->encoding->kind);
    if (!kind || (strcmp(kind, s->kind) && (strncmp(kind, "ttg.", 4) || strcmp(kind + 4, s->kind)))) return;
    for (int i = 0; i < s->num_seen; i++)
      if (s->seen[i] == v->type->encoding) return;
    if (s->num_seen < 64) s->seen[s->num_seen++] = v->type->encoding;
    if (s->skip-- == 0) s->found = v->type;
  } else if (!strcmp(ir_attr_str(s->ctx, v->type->encoding), s->definition)) {
    s->found = v->type;
  }
}

static bool visit(ir_op *op, void *user) {
  layout_search *s = user;
  for (int i = 0; i < op->num_results; i++) consider(s, &op->results[i]);
  for (int r = 0; r < op->num_regions; r++)
    for (ir_block *b = op->regions[r].first; b; b = b->next)
      for (int i = 0; i < b->num_args; i++) consider(s, b->args[i]);
  return !s->found;
}

static void collect(const char *data, size_t len, void *user) {
  FILE *f = user;
  fwrite(data, 1, len, f);
}

bool draw_layout_write(gemmc_context *ctx, ir_op *module, const char *spec, FILE *out) {
  char name[256] = "";
  int64_t shape[IR_MAX_RANK];
  int rank = 0;
  gemmc_layout_svg_options o = {NULL, 0, 0, 0, 0};
  int index = 0;
  const char *comma = strchr(spec, ',');
  snprintf(name, sizeof name, "%.*s", comma ? (int)(comma - spec) : (int)strlen(spec), spec);
  for (const char *p = comma; p && *p; p = strchr(p + 1, ',')) {
    if (!strncmp(p + 1, "shape=", 6)) {
      const char *q = p + 7;
      rank = 0;
      while (rank < IR_MAX_RANK) {
        char *end;
        shape[rank] = strtoll(q, &end, 10);
        if (end == q || shape[rank] <= 0) break;
        rank++;
        q = end;
        if (*q != 'x') break;
        q++;
      }
    } else if (!strncmp(p + 1, "index=", 6)) {
      index = atoi(p + 7);
    } else if (!strncmp(p + 1, "window=", 7)) {
      sscanf(p + 8, "%dx%d", &o.max_rows, &o.max_cols);
    } else {
      fprintf(stderr, "gemmc-opt: error: --draw-layout: unknown option in '%s' (NAME[,shape=AxB][,window=RxC][,index=I])\n", spec);
      return false;
    }
  }
  layout_search s;
  memset(&s, 0, sizeof s);
  s.ctx = ctx;
  char *printed = NULL, title[1200];
  size_t printed_len = 0;
  if (name[0] == '%') {
    s.value_name = name + 1;
  } else {
    /* The alias as the printed module defines it: `#name = #ttg....` at the top. */
    FILE *f = open_memstream(&printed, &printed_len);
    if (!f) return false;
    ir_print_options popts = {false, false};
    ir_print_module(ctx, module, &popts, collect, f);
    fclose(f);
    const char *alias = name[0] == '#' ? name + 1 : name;
    char needle[300];
    snprintf(needle, sizeof needle, "#%s = ", alias);
    for (const char *line = printed; line && *line;) {
      const char *eol = strchr(line, '\n');
      if (!strncmp(line, needle, strlen(needle))) {
        size_t n = (size_t)((eol ? eol : line + strlen(line)) - line) - strlen(needle);
        char *def = malloc(n + 1);
        if (!def) break;
        memcpy(def, line + strlen(needle), n);
        def[n] = 0;
        s.definition = def;
        break;
      }
      line = eol ? eol + 1 : NULL;
    }
    if (!s.definition) {
      /* No such alias: a layout kind (dot_op, slice, linear ...), the index-th distinct one. */
      s.kind = alias;
      s.skip = index;
    }
  }
  ir_walk(module, visit, &s);
  if (!s.found) {
    fprintf(stderr, "gemmc-opt: error: --draw-layout: no value %s%s in the module (give a layout alias, a layout kind or %%value)\n",
            s.value_name ? "named " : s.kind ? "with a layout of kind " : "with layout ", name);
    free((char *)s.definition);
    free(printed);
    return false;
  }
  if (!rank) {
    rank = s.found->rank;
    memcpy(shape, s.found->shape, (size_t)rank * sizeof shape[0]);
  }
  const ir_type *elem = s.found->elem;
  o.elem_bits = elem && elem->width ? (int)elem->width : 16;
  if (s.definition) snprintf(title, sizeof title, "#%s = %s", name[0] == '#' ? name + 1 : name, s.definition);
  else if (s.kind) snprintf(title, sizeof title, "%s", ir_attr_str(ctx, s.found->encoding));
  else snprintf(title, sizeof title, "%s : %s", name, ir_type_str(ctx, s.found));
  o.title = title;
  char *svg = NULL, err[256];
  size_t len = 0;
  bool ok = gemmc_layout_svg(s.found->encoding, rank, shape, &o, &svg, &len, err, sizeof err);
  if (ok) ok = fwrite(svg, 1, len, out) == len;
  else fprintf(stderr, "gemmc-opt: error: --draw-layout %s: %s\n", name, err);
  free(svg);
  free((char *)s.definition);
  free(printed);
  return ok;
}

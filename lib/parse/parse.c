/* Parse entry point: runs the scanner and grammar, resolves #loc aliases, wraps the module. */
#include <stdlib.h>
#include <string.h>

#include "gemmc/limits.h"
#include "parse_state.h"
#include "parser.h"
#define YYSTYPE TIR_STYPE
#define YYLTYPE TIR_LTYPE
#include "lexer.h"

void parse_lexer_fatal(const char *msg, void *yyscanner) {
  parse_state *ps = tir_get_extra(yyscanner);
  ir_error(ps->ctx, NULL, "%s: internal scanner error: %s", ps->src->name, msg);
  longjmp(ps->bailout, 1);
}

/* ------------------------------------------------------------------ locations */

static ir_loc *new_loc(parse_state *ps, int kind) {
  ir_loc *l = ir_alloc(ps->ctx, sizeof *l);
  l->kind = kind;
  return l;
}

ir_loc *parse_loc_file(parse_state *ps, const char *file, const char *line, const char *col, src_pos pos) {
  long l = strtol(line, NULL, 10), c = strtol(col, NULL, 10);
  if (strlen(line) > 9 || strlen(col) > 9) {
    parse_error_at(ps, pos, "line or column number out of range in location");
    return NULL;
  }
  ir_loc *loc = new_loc(ps, LOC_FILE);
  loc->file = file;
  loc->line = (int)l;
  loc->col = (int)c;
  return loc;
}

ir_loc *parse_loc_word(parse_state *ps, const char *word, src_pos pos) {
  if (strcmp(word, "unknown") != 0) {
    parse_error_at(ps, pos, "expected a location, found '%s'", word);
    return NULL;
  }
  return new_loc(ps, LOC_UNKNOWN);
}

ir_loc *parse_loc_name(parse_state *ps, const char *name, ir_loc *child) {
  ir_loc *loc = new_loc(ps, LOC_NAME);
  loc->name = name;
  loc->child = child;
  return loc;
}

ir_loc *parse_loc_callsite(parse_state *ps, ir_loc *callee, const char *at_word, ir_loc *caller, src_pos pos) {
  if (strcmp(at_word, "at") != 0) {
    parse_error_at(ps, pos, "expected 'callsite(<callee> at <caller>)'");
    return NULL;
  }
  ir_loc *loc = new_loc(ps, LOC_CALLSITE);
  loc->callee = callee;
  loc->caller = caller;
  return loc;
}

ir_loc *parse_loc_fused(parse_state *ps, pvec *locs) {
  ir_loc *loc = new_loc(ps, LOC_FUSED);
  loc->num_fused = locs->n;
  loc->fused = (ir_loc **)locs->items;
  return loc;
}

ir_loc *parse_loc_alias_ref(parse_state *ps, const char *name, src_pos pos) {
  ir_loc *loc = new_loc(ps, LOC_ALIAS);
  loc->name = name;
  loc->src_line = pos.line; /* remembered for the error if the alias is never defined */
  loc->src_col = pos.col;
  pv_push(ps, &ps->loc_refs, loc);
  return loc;
}

void parse_define_loc_alias(parse_state *ps, const char *name, ir_loc *loc, src_pos pos) {
  for (int i = 0; i < ps->loc_aliases.n; i++)
    if (((loc_alias_def *)ps->loc_aliases.items[i])->name == name) {
      parse_error_at(ps, pos, "redefinition of location alias '#%s'", name);
      return;
    }
  loc_alias_def *d = ir_alloc(ps->ctx, sizeof *d);
  d->name = name;
  d->loc = loc;
  d->pos = pos;
  pv_push(ps, &ps->loc_aliases, d);
}

static loc_alias_def *find_loc_alias(parse_state *ps, const char *name) {
  for (int i = 0; i < ps->loc_aliases.n; i++) {
    loc_alias_def *d = ps->loc_aliases.items[i];
    if (d->name == name) return d;
  }
  return NULL;
}

bool parse_resolve_locs(parse_state *ps) {
  /* Index the aliases by name once: Triton dumps have hundreds of them. */
  for (int i = 0; i < ps->loc_refs.n; i++) {
    ir_loc *ref = ps->loc_refs.items[i];
    if (ref->kind != LOC_ALIAS) continue;
    ir_loc *target = NULL;
    const char *name = ref->name;
    for (int depth = 0; depth < 10000; depth++) {
      loc_alias_def *d = find_loc_alias(ps, name);
      if (!d) {
        parse_error_at(ps, (src_pos){ref->src_line, ref->src_col}, "undefined location alias '#%s'", name);
        return false;
      }
      if (d->loc->kind != LOC_ALIAS) {
        target = d->loc;
        break;
      }
      if (d->loc == ref) break;
      name = d->loc->name;
    }
    if (!target) {
      parse_error_at(ps, (src_pos){ref->src_line, ref->src_col}, "location alias '#%s' refers to itself", ref->name);
      return false;
    }
    int line = ref->src_line, col = ref->src_col;
    *ref = *target;
    (void)line;
    (void)col;
  }
  return true;
}

/* ------------------------------------------------------------------ module */

bool parse_finish_module(parse_state *ps) {
  if (ps->top_ops.n == 1 && ((ir_op *)ps->top_ops.items[0])->kind == OP_MODULE) {
    ps->module = ps->top_ops.items[0];
    return true;
  }
  for (int i = 0; i < ps->top_ops.n; i++)
    if (((ir_op *)ps->top_ops.items[i])->kind == OP_MODULE) {
      parse_error_at(ps, (src_pos){1, 1}, "a file holds one module, or ops that are wrapped in an implicit module");
      return false;
    }
  /* Top-level ops without `module { }` go into an implicit module, as mlir-opt does. */
  ir_op *m = ir_op_create(ps->ctx, OP_MODULE, 0, NULL, 0, NULL, 1, NULL);
  m->src_loc = parse_src_loc(ps, (src_pos){1, 1});
  m->loc = m->src_loc;
  ir_block *b = ir_block_create(ps->ctx);
  ir_region_append_block(&m->regions[0], b);
  for (int i = 0; i < ps->top_ops.n; i++) ir_block_append_op(b, ps->top_ops.items[i]);
  ps->module = m;
  return true;
}

/* The part of a parse that may unwind (longjmp) on allocation failure; kept out of
 * ir_parse_module so no local of that frame is live across setjmp. */
static bool run_parser(parse_state *ps) {
  void *scanner = NULL;
  if (tir_lex_init_extra(ps, &scanner) != 0) {
    ir_error(ps->ctx, NULL, "%s: cannot start the scanner", ps->src->name);
    return false;
  }
  ps->scanner = scanner;
  size_t len = ps->src->len > (size_t)0x7fffffff ? (size_t)0x7fffffff : ps->src->len;
  tir__scan_bytes(ps->src->text, (int)len, scanner);
  int rc = tir_parse(ps, scanner);
  if (rc == 2 && !ps->failed) parse_error_at(ps, (src_pos){1, 1}, "input is nested too deeply");
  return rc == 0 && !ps->failed && parse_resolve_locs(ps) && parse_finish_module(ps);
}

ir_op *ir_parse_module(gemmc_context *ctx, const char *text, size_t len, const char *filename) {
  return ir_parse_module_at_line(ctx, text, len, filename, 1);
}

ir_op *ir_parse_module_at_line(gemmc_context *ctx, const char *text, size_t len, const char *filename,
                               int first_line) {
  parse_state *ps = ctx_raw_alloc(ctx, sizeof *ps);
  if (!ps) return NULL;
  memset(ps, 0, sizeof *ps);
  ps->ctx = ctx;
  const char *name = filename ? filename : "<input>";
  ir_source *src = ir_alloc(ctx, sizeof *src);
  src->name = ir_strdup(ctx, name, strlen(name));
  src->text = text;
  src->len = len;
  src->first_line = first_line > 1 ? first_line : 1;
  ps->src = src;
  if (len > GEMMC_MAX_INPUT_BYTES) {
    /* Refused at once: every stage after this is sized for inputs up to the limit. */
    ir_error(ctx, ir_loc_file(ctx, src, 1, 1), "the input is %zu bytes; gemmc reads at most %zu MiB (%zu bytes)",
             len, GEMMC_MAX_INPUT_BYTES >> 20, GEMMC_MAX_INPUT_BYTES);
    ctx_raw_free(ctx, ps, sizeof *ps);
    return NULL;
  }
  bool ok = false;
  jmp_buf *outer = ctx->bailout;
  if (setjmp(ps->bailout) == 0) {
    ctx->bailout = &ps->bailout; /* allocation failures land here too */
    ps->ok = run_parser(ps);
  } else if (!ps->failed && ctx->out_of_memory) {
    ir_error(ctx, NULL, "%s: out of memory while parsing", ps->src->name);
  }
  ok = ps->ok;
  ctx->bailout = outer;
  if (ps->scanner) tir_lex_destroy(ps->scanner);
  ir_op *module = ok ? ps->module : NULL;
  if (ps->table) ctx_raw_free(ctx, ps->table, sizeof(void *) * ps->table_cap);
  if (ps->undo) ctx_raw_free(ctx, ps->undo, sizeof(undo_entry) * (size_t)ps->undo_cap);
  if (ps->frames) ctx_raw_free(ctx, ps->frames, sizeof(region_frame) * (size_t)ps->frames_cap);
  ctx_raw_free(ctx, ps, sizeof *ps);
  return module;
}

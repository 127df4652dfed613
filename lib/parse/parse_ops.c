/* Parser support: building ops from their parsed parts, one builder per assembly format. */
#include <stdlib.h>
#include <string.h>

#include "parse_state.h"
#include "parser.h"
#include "util.h"

parsed_op *parse_new_op(parse_state *ps, int kind, src_pos pos) {
  parsed_op *p = ir_alloc(ps->ctx, sizeof *p);
  p->kind = (ir_op_kind)kind;
  p->pos = pos;
  p->type_form = TYPES_NONE;
  return p;
}

static const char *tstr(parse_state *ps, const ir_type *t) { return ir_type_str(ps->ctx, t); }

static src_pos operand_pos(const parsed_op *p, int i) {
  return i < p->operand_pos.n ? *(src_pos *)p->operand_pos.items[i] : p->pos;
}

static const char *opname(const parsed_op *p) { return ir_op_info_of(p->kind)->name; }

/* ------------------------------------------------------------------ checks shared by builders */

static bool want_operands(parse_state *ps, parsed_op *p, int lo, int hi) {
  if (p->operands.n < lo || (hi >= 0 && p->operands.n > hi)) {
    if (lo == hi)
      parse_error_at(ps, p->pos, "'%s' expects %d operand%s, found %d", opname(p), lo, lo == 1 ? "" : "s",
                     p->operands.n);
    else
      parse_error_at(ps, p->pos, "'%s' expects %d to %d operands, found %d", opname(p), lo, hi, p->operands.n);
    return false;
  }
  return true;
}

static bool want_type_form(parse_state *ps, parsed_op *p, int form, int ntypes, int nresults, const char *example) {
  if (p->type_form != form || (ntypes >= 0 && p->types.n != ntypes) || (nresults >= 0 && p->result_types.n != nresults)) {
    parse_error_at(ps, p->pos, "'%s' expects its types written as '%s'", opname(p), example);
    return false;
  }
  return true;
}

static bool operand_has_type(parse_state *ps, parsed_op *p, int i, const ir_type *t) {
  ir_value *v = p->operands.items[i];
  if (v->type != t) {
    parse_error_at(ps, operand_pos(p, i), "operand #%d of '%s' has type '%s' but the signature says '%s'", i,
                   opname(p), tstr(ps, v->type), tstr(ps, t));
    return false;
  }
  return true;
}

static parsed_clause *take_clause(parsed_op *p, const char *name) {
  for (int i = 0; i < p->clauses.n; i++) {
    parsed_clause *c = p->clauses.items[i];
    if (c && strcmp(c->name, name) == 0) {
      p->clauses.items[i] = NULL;
      return c;
    }
  }
  return NULL;
}

static bool no_more_clauses(parse_state *ps, parsed_op *p) {
  for (int i = 0; i < p->clauses.n; i++) {
    parsed_clause *c = p->clauses.items[i];
    if (c) {
      parse_error_at(ps, c->pos, "unexpected '%s' in '%s'", c->name, opname(p));
      return false;
    }
  }
  return true;
}

static bool word_in(const char *w, const char *const *list) { return ir_word_index(w, list) >= 0; }

/* A `name = word` clause stored as a keyword attribute, validated against `allowed`. */
static bool keyword_clause(parse_state *ps, parsed_op *p, const char *clause_name, const char *attr_name,
                           const char *const *allowed, ir_op *op) {
  parsed_clause *c = take_clause(p, clause_name);
  if (!c) return true;
  if (!c->word || (allowed && !word_in(c->word, allowed))) {
    parse_error_at(ps, c->pos, "invalid value for '%s' in '%s'", clause_name, opname(p));
    return false;
  }
  ir_op_set_attr(ps->ctx, op, attr_name, ir_keyword_attr(ps->ctx, c->word));
  return true;
}

static bool apply_attrs(parse_state *ps, parsed_op *p, ir_op *op) {
  for (int i = 0; i < p->attrs.n; i++) {
    parsed_entry *e = p->attrs.items[i];
    if (ir_op_get_attr(op, e->name)) {
      parse_error_at(ps, e->pos, "duplicate attribute '%s'", e->name);
      return false;
    }
    ir_op_set_attr(ps->ctx, op, e->name, e->value);
  }
  for (int i = 0; i < p->props.n; i++) {
    parsed_entry *e = p->props.items[i];
    if (ir_op_get_attr(op, e->name)) {
      parse_error_at(ps, e->pos, "duplicate attribute '%s'", e->name);
      return false;
    }
    ir_op_set_attr(ps->ctx, op, e->name, e->value);
    ir_op_mark_property(ps->ctx, op, e->name);
  }
  return true;
}

static ir_op *make(parse_state *ps, parsed_op *p, int nres, const ir_type *const *res, ir_loc *loc) {
  int nregions = ir_op_info_of(p->kind)->num_regions;
  if (nregions < 0) nregions = p->regions.n; /* variadic regions (ttg.warp_specialize) */
  ir_op *op = ir_op_create(ps->ctx, p->kind, p->operands.n, (ir_value *const *)p->operands.items, nres, res,
                           nregions, loc);
  op->src_loc = parse_src_loc(ps, p->pos);
  return op;
}

/* Moves parsed regions into the op (their blocks are re-parented). */
static bool attach_regions(parse_state *ps, parsed_op *p, ir_op *op) {
  if (p->regions.n != op->num_regions) {
    parse_error_at(ps, p->pos, "'%s' expects %d region%s, found %d", opname(p), op->num_regions,
                   op->num_regions == 1 ? "" : "s", p->regions.n);
    return false;
  }
  for (int r = 0; r < p->regions.n; r++) {
    ir_region *src = p->regions.items[r];
    for (ir_block *b = src->first, *next; b; b = next) {
      next = b->next;
      ir_region_append_block(&op->regions[r], b);
    }
  }
  return true;
}

/* Result type of a load: the pointee, with the pointer tensor's shape and encoding. */
static const ir_type *pointee_of(parse_state *ps, const ir_type *ptr) {
  if (ptr->kind == TY_PTR) return ptr->elem;
  if (ptr->kind == TY_TENSOR && ptr->elem->kind == TY_PTR) return ir_type_with_element(ps->ctx, ptr, ptr->elem->elem);
  return NULL;
}

static const char *const cache_modifiers[] = {"none", "ca", "cg", "wb", "cs", "wt", "cv", NULL};
static const char *const evict_policies[] = {"evict_normal", "evict_first", "evict_last", NULL};

/* ------------------------------------------------------------------ builders */

static ir_op *build_generic(parse_state *ps, parsed_op *p, ir_loc *loc) {
  const ir_type *ft = p->types.n ? p->types.items[0] : NULL;
  if (!ft || ft->kind != TY_FUNC || ft->num_inputs < 0) {
    parse_error_at(ps, p->pos, "generic form needs a function type '(operand types) -> result types'");
    return NULL;
  }
  if (ft->num_inputs != p->operands.n) {
    parse_error_at(ps, p->pos, "'%s' has %d operands but its type lists %d", opname(p), p->operands.n,
                   ft->num_inputs);
    return NULL;
  }
  for (int i = 0; i < p->operands.n; i++)
    if (!operand_has_type(ps, p, i, ft->inputs[i])) return NULL;
  const ir_op_info *info = ir_op_info_of(p->kind);
  if (p->operands.n < info->min_operands || (info->max_operands >= 0 && p->operands.n > info->max_operands)) {
    parse_error_at(ps, p->pos, "'%s' cannot take %d operands", opname(p), p->operands.n);
    return NULL;
  }
  if (info->num_results >= 0 && ft->num_results != info->num_results) {
    parse_error_at(ps, p->pos, "'%s' has %d result%s, the type says %d", opname(p), info->num_results,
                   info->num_results == 1 ? "" : "s", ft->num_results);
    return NULL;
  }
  if (!no_more_clauses(ps, p)) return NULL;
  ir_op *op = make(ps, p, ft->num_results, ft->results, loc);
  if (!apply_attrs(ps, p, op) || !attach_regions(ps, p, op)) return NULL;
  return op;
}

static ir_op *build_module(parse_state *ps, parsed_op *p, ir_loc *loc) {
  ir_op *op = make(ps, p, 0, NULL, loc);
  if (!apply_attrs(ps, p, op) || !attach_regions(ps, p, op)) return NULL;
  if (p->symbol) ir_op_set_attr(ps->ctx, op, "sym_name", ir_string_attr(ps->ctx, p->symbol, strlen(p->symbol)));
  if (!op->regions[0].first) ir_region_append_block(&op->regions[0], ir_block_create(ps->ctx));
  return op;
}

static ir_op *build_func(parse_state *ps, parsed_op *p, ir_loc *loc) {
  static const char *const visibilities[] = {"public", "private", "nested", NULL};
  if (p->word && !word_in(p->word, visibilities)) {
    parse_error_at(ps, p->pos, "invalid visibility '%s' (public, private or nested)", p->word);
    return NULL;
  }
  ir_block *entry = p->entry;
  int nargs = entry->num_args;
  const ir_type **ins = nargs ? ir_alloc(ps->ctx, sizeof(void *) * (size_t)nargs) : NULL;
  for (int i = 0; i < nargs; i++) ins[i] = entry->args[i]->type;
  const ir_type *ft = ir_func_type(ps->ctx, nargs, ins, p->result_types.n,
                                   (const ir_type *const *)p->result_types.items);
  ir_op *op = make(ps, p, 0, NULL, loc);
  if (!apply_attrs(ps, p, op)) return NULL;
  ir_op_set_attr(ps->ctx, op, "sym_name", ir_string_attr(ps->ctx, p->symbol, strlen(p->symbol)));
  if (p->word) ir_op_set_attr(ps->ctx, op, "sym_visibility", ir_string_attr(ps->ctx, p->word, strlen(p->word)));
  ir_op_set_attr(ps->ctx, op, "function_type", ir_type_attr(ps->ctx, ft));
  if (p->regions.n == 0) {
    /* A declaration: its parameter names were bound for nothing; forget them. */
    int named = 0;
    for (int i = 0; i < entry->num_args; i++) named += entry->args[i]->name != NULL;
    parse_drop_bindings(ps, ps->undo_n - named);
    ps->pending_entry = NULL;
    return op;
  }
  if (!attach_regions(ps, p, op)) return NULL;
  return op;
}

static ir_op *build_call(parse_state *ps, parsed_op *p, ir_loc *loc) {
  const ir_type *ft = p->types.n == 1 ? p->types.items[0] : NULL;
  if (p->type_form != TYPES_PLAIN || !ft || ft->kind != TY_FUNC || ft->num_inputs < 0) {
    parse_error_at(ps, p->pos, "'tt.call' expects ': (argument types) -> result types'");
    return NULL;
  }
  if (ft->num_inputs != p->operands.n) {
    parse_error_at(ps, p->pos, "'tt.call' has %d arguments but its type lists %d", p->operands.n, ft->num_inputs);
    return NULL;
  }
  for (int i = 0; i < p->operands.n; i++)
    if (!operand_has_type(ps, p, i, ft->inputs[i])) return NULL;
  if (!no_more_clauses(ps, p)) return NULL;
  ir_op *op = make(ps, p, ft->num_results, ft->results, loc);
  if (!apply_attrs(ps, p, op)) return NULL;
  ir_op_set_attr(ps->ctx, op, "callee", ir_symbol_attr(ps->ctx, p->symbol));
  return op;
}

static ir_op *build_operands_types(parse_state *ps, parsed_op *p, ir_loc *loc) {
  const ir_op_info *info = ir_op_info_of(p->kind);
  if (!want_operands(ps, p, info->min_operands, info->max_operands)) return NULL;
  if (p->operands.n == 0 && p->type_form != TYPES_NONE) {
    parse_error_at(ps, p->pos, "'%s' without operands takes no types", opname(p));
    return NULL;
  }
  if (p->operands.n > 0 && !want_type_form(ps, p, TYPES_PLAIN, p->operands.n, 0, "%a, %b : type, type"))
    return NULL;
  for (int i = 0; i < p->operands.n; i++)
    if (!operand_has_type(ps, p, i, p->types.items[i])) return NULL;
  if (!no_more_clauses(ps, p)) return NULL;
  int nres = info->num_results < 0 ? p->operands.n : 0;
  ir_op *op = make(ps, p, nres, nres ? (const ir_type *const *)p->types.items : NULL, loc);
  return apply_attrs(ps, p, op) ? op : NULL;
}

static ir_op *build_arrow(parse_state *ps, parsed_op *p, ir_loc *loc) {
  ir_op_format fmt = ir_op_info_of(p->kind)->format;
  if (fmt == FMT_MEMDESC_INDEX) {
    if (!p->index || p->operands.n != 1) {
      parse_error_at(ps, p->pos, "'ttg.memdesc_index' expects '%%buffer[%%index]'");
      return NULL;
    }
    pv_push(ps, &p->operands, p->index);
    pv_push(ps, &p->operand_pos, NULL);
    p->operand_pos.n = p->operands.n - 1; /* the index position is the op's */
  } else if (p->index) {
    parse_error_at(ps, p->pos, "'%s' takes no [index]", opname(p));
    return NULL;
  }
  if (fmt == FMT_LOCAL_LOAD) {
    parsed_clause *tok = take_clause(p, "token");
    if (tok) {
      if (tok->values.n != 1) {
        parse_error_at(ps, tok->pos, "'token' takes one value");
        return NULL;
      }
      pv_push(ps, &p->operands, tok->values.items[0]);
    }
  }
  const ir_op_info *info = ir_op_info_of(p->kind);
  int first_typed = 0;
  if (fmt == FMT_LOCAL_STORE) {
    if (!want_operands(ps, p, 2, 2)) return NULL;
    if (!want_type_form(ps, p, TYPES_ARROW, 1, 1, "%v, %m : tensor<...> -> !ttg.memdesc<...>")) return NULL;
    if (!operand_has_type(ps, p, 0, p->types.items[0]) || !operand_has_type(ps, p, 1, p->result_types.items[0]))
      return NULL;
    if (!no_more_clauses(ps, p)) return NULL;
    ir_op *op = make(ps, p, 0, NULL, loc);
    return apply_attrs(ps, p, op) ? op : NULL;
  }
  if (!want_operands(ps, p, info->min_operands, info->max_operands)) return NULL;
  if (!want_type_form(ps, p, TYPES_ARROW, 1, 1, "%x : type -> type")) return NULL;
  if (!operand_has_type(ps, p, first_typed, p->types.items[0])) return NULL;
  const ir_type *res = p->result_types.items[0];
  if (res->kind == TY_FUNC) {
    parse_error_at(ps, p->pos, "'%s' has one result type", opname(p));
    return NULL;
  }
  /* tt.join's and tt.cat's second operand has the first one's type; tt.split's two results the written one. */
  if ((p->kind == OP_JOIN || p->kind == OP_CAT) && !operand_has_type(ps, p, 1, p->types.items[0])) return NULL;
  const ir_type *results[2] = {res, res};
  ir_op *op = make(ps, p, p->kind == OP_SPLIT ? 2 : 1, results, loc);
  if (!apply_attrs(ps, p, op)) return NULL;
  if (p->kind == OP_FP_TO_FP) {
    static const char *const modes[] = {"rtz", "rtne", NULL};
    if (!keyword_clause(ps, p, "rounding", "rounding", modes, op)) return NULL;
  }
  if (p->kind == OP_RESHAPE) {
    const char *words[] = {"allow_reorder", "efficient_layout"};
    for (int i = 0; i < 2; i++) {
      parsed_clause *c = take_clause(p, words[i]);
      if (c && (c->word || c->values.n)) {
        parse_error_at(ps, c->pos, "'%s' takes no value", words[i]);
        return NULL;
      }
      if (c) ir_op_set_attr(ps->ctx, op, words[i], ir_unit_attr(ps->ctx));
    }
  }
  return no_more_clauses(ps, p) ? op : NULL;
}

static ir_op *build_async_copy(parse_state *ps, parsed_op *p, ir_loc *loc) {
  if (!want_operands(ps, p, 2, 2)) return NULL;
  parsed_clause *mask = take_clause(p, "mask"), *other = take_clause(p, "other");
  if ((mask && mask->values.n != 1) || (other && other->values.n != 1)) {
    parse_error_at(ps, (mask ? mask : other)->pos, "'mask' and 'other' take one value each");
    return NULL;
  }
  if (other && !mask) {
    parse_error_at(ps, other->pos, "'other' needs a 'mask'");
    return NULL;
  }
  if (mask) pv_push(ps, &p->operands, mask->values.items[0]);
  if (other) pv_push(ps, &p->operands, other->values.items[0]);
  if (!want_type_form(ps, p, TYPES_ARROW, 1, 1, "%ptr, %buf : tensor<..x!tt.ptr<T>> -> <..xT, #shared, #smem, mutable>"))
    return NULL;
  if (!operand_has_type(ps, p, 0, p->types.items[0]) || !operand_has_type(ps, p, 1, p->result_types.items[0]))
    return NULL;
  const ir_type *tok = ir_token_type(ps->ctx);
  ir_op *op = make(ps, p, 1, &tok, loc);
  if (!apply_attrs(ps, p, op)) return NULL;
  if (!keyword_clause(ps, p, "cacheModifier", "cache", cache_modifiers, op) ||
      !keyword_clause(ps, p, "evictionPolicy", "evict", evict_policies, op))
    return NULL;
  return no_more_clauses(ps, p) ? op : NULL;
}

static ir_op *build_tokens(parse_state *ps, parsed_op *p, ir_loc *loc) {
  if (p->kind == OP_ASYNC_COMMIT_GROUP) {
    if (!want_operands(ps, p, 0, 0)) return NULL;
    parsed_clause *t = take_clause(p, "tokens");
    if (t)
      for (int i = 0; i < t->values.n; i++) pv_push(ps, &p->operands, t->values.items[i]);
  }
  if (p->type_form != TYPES_NONE) {
    parse_error_at(ps, p->pos, "'%s' takes no types", opname(p));
    return NULL;
  }
  for (int i = 0; i < p->operands.n; i++)
    if (((ir_value *)p->operands.items[i])->type->kind != TY_TOKEN) {
      parse_error_at(ps, p->pos, "'%s' operands must be !ttg.async.token", opname(p));
      return NULL;
    }
  if (!no_more_clauses(ps, p)) return NULL;
  const ir_type *tok = ir_token_type(ps->ctx);
  ir_op *op = make(ps, p, 1, &tok, loc);
  return apply_attrs(ps, p, op) ? op : NULL;
}

static ir_op *build_plain(parse_state *ps, parsed_op *p, ir_loc *loc) {
  ir_op_format fmt = ir_op_info_of(p->kind)->format;
  const ir_op_info *info = ir_op_info_of(p->kind);
  if (p->index && fmt != FMT_MEMDESC_INDEX) {
    parse_error_at(ps, p->pos, "'%s' takes no [index]", opname(p));
    return NULL;
  }
  switch (fmt) {
  case FMT_SAME: {
    if (!want_operands(ps, p, info->min_operands, info->max_operands)) return NULL;
    if (!want_type_form(ps, p, TYPES_PLAIN, 1, 0, "%a, %b : type")) return NULL;
    const ir_type *t = p->types.items[0];
    for (int i = 0; i < p->operands.n; i++)
      if (!operand_has_type(ps, p, i, t)) return NULL;
    ir_op *op = make(ps, p, 1, &t, loc);
    if (!apply_attrs(ps, p, op)) return NULL;
    if (p->kind == OP_CLAMPF) { /* tt.clampf %x, %lo, %hi, propagateNan = none|all : T */
      static const char *const modes[] = {"none", "all", NULL};
      if (!keyword_clause(ps, p, "propagateNan", "propagateNan", modes, op)) return NULL;
    }
    return no_more_clauses(ps, p) ? op : NULL;
  }
  case FMT_EXTERN: {
    /* %a, .. {libname = .., libpath = .., pure = .., symbol = ..} : (T, ..) -> R */
    if (!want_operands(ps, p, info->min_operands, info->max_operands)) return NULL;
    const ir_type *fn = parse_operand_function_type(ps, p, 1, "': (operand types) -> result type'");
    if (!fn || !no_more_clauses(ps, p)) return NULL;
    ir_op *op = make(ps, p, 1, &fn->results[0], loc);
    return apply_attrs(ps, p, op) ? op : NULL;
  }
  case FMT_PRINT:
  case FMT_ASSERT:
  case FMT_INLINE_ASM: {
    /* An op whose string comes first (p->word), then a type per operand:
     *   tt.print "prefix" {hex = B, isSigned = array<i32: ..>} [: %a, .. : T, ..]
     *   tt.assert %c, "message" : T
     *   tt.elementwise_inline_asm "asm" {constraints = .., packed_element = N, pure = B} [%a, .. : T, ..] -> R, .. */
    if (p->types.n != p->operands.n) {
      parse_error_at(ps, p->pos, "'%s' has %d operand%s but %d type%s", opname(p), p->operands.n,
                     p->operands.n == 1 ? "" : "s", p->types.n, p->types.n == 1 ? "" : "s");
      return NULL;
    }
    for (int i = 0; i < p->operands.n; i++)
      if (!operand_has_type(ps, p, i, p->types.items[i])) return NULL;
    ir_op *op = make(ps, p, p->result_types.n, (const ir_type *const *)p->result_types.items, loc);
    if (!apply_attrs(ps, p, op)) return NULL;
    const char *name = fmt == FMT_PRINT ? "prefix" : fmt == FMT_ASSERT ? "message" : "asm_string";
    ir_op_set_attr(ps->ctx, op, name, ir_string_attr(ps->ctx, p->word, strlen(p->word)));
    return no_more_clauses(ps, p) ? op : NULL;
  }
  case FMT_CMP: {
    if (!want_operands(ps, p, 2, 2)) return NULL;
    if (cmp_predicate_index(p->kind, p->word) < 0) {
      parse_error_at(ps, p->pos, "invalid predicate '%s' for '%s'", p->word, opname(p));
      return NULL;
    }
    if (!want_type_form(ps, p, TYPES_PLAIN, 1, 0, "pred, %a, %b : type")) return NULL;
    const ir_type *t = p->types.items[0];
    if (!operand_has_type(ps, p, 0, t) || !operand_has_type(ps, p, 1, t) || !no_more_clauses(ps, p)) return NULL;
    const ir_type *res = ir_type_with_element(ps->ctx, t, ir_int_type(ps->ctx, 1));
    ir_op *op = make(ps, p, 1, &res, loc);
    if (!apply_attrs(ps, p, op)) return NULL;
    ir_op_set_attr(ps->ctx, op, "predicate", ir_keyword_attr(ps->ctx, p->word));
    return op;
  }
  case FMT_SELECT: {
    if (!want_operands(ps, p, 3, 3)) return NULL;
    if (p->type_form != TYPES_PLAIN || p->types.n < 1 || p->types.n > 2) {
      parse_error_at(ps, p->pos, "'arith.select' expects ': type' or ': condition type, type'");
      return NULL;
    }
    const ir_type *t = p->types.items[p->types.n - 1];
    if (p->types.n == 2 && !operand_has_type(ps, p, 0, p->types.items[0])) return NULL;
    if (p->types.n == 1 && !ir_type_is_int(((ir_value *)p->operands.items[0])->type, 1)) {
      parse_error_at(ps, operand_pos(p, 0), "the condition of 'arith.select' must be i1 (or give its type)");
      return NULL;
    }
    if (!operand_has_type(ps, p, 1, t) || !operand_has_type(ps, p, 2, t) || !no_more_clauses(ps, p)) return NULL;
    ir_op *op = make(ps, p, 1, &t, loc);
    return apply_attrs(ps, p, op) ? op : NULL;
  }
  case FMT_CAST: {
    if (!want_operands(ps, p, 1, 1)) return NULL;
    if (!want_type_form(ps, p, TYPES_TO, 1, 1, "%x : type to type")) return NULL;
    if (!operand_has_type(ps, p, 0, p->types.items[0]) || !no_more_clauses(ps, p)) return NULL;
    const ir_type *res = p->result_types.items[0];
    ir_op *op = make(ps, p, 1, &res, loc);
    return apply_attrs(ps, p, op) ? op : NULL;
  }
  case FMT_MAKE_RANGE: {
    if (!want_operands(ps, p, 0, 0)) return NULL;
    if (!want_type_form(ps, p, TYPES_PLAIN, 1, 0, "{end = N : i32, start = M : i32} : tensor<..xi32>")) return NULL;
    if (!no_more_clauses(ps, p)) return NULL;
    const ir_type *t = p->types.items[0];
    ir_op *op = make(ps, p, 1, &t, loc);
    return apply_attrs(ps, p, op) ? op : NULL;
  }
  case FMT_AXIS: {
    if (!want_operands(ps, p, 0, 0)) return NULL;
    parsed_clause *c = p->clauses.n == 1 ? p->clauses.items[0] : NULL;
    int axis = !c || c->word || c->values.n ? -1
               : strcmp(c->name, "x") == 0 ? 0
               : strcmp(c->name, "y") == 0 ? 1
               : strcmp(c->name, "z") == 0 ? 2
                                            : -1;
    if (axis < 0) {
      parse_error_at(ps, c ? c->pos : p->pos, "'%s' expects an axis: x, y or z", opname(p));
      return NULL;
    }
    if (!want_type_form(ps, p, TYPES_PLAIN, 1, 0, "x : i32")) return NULL;
    const ir_type *t = p->types.items[0];
    ir_op *op = make(ps, p, 1, &t, loc);
    if (!apply_attrs(ps, p, op)) return NULL;
    ir_op_set_attr(ps->ctx, op, "axis", ir_i32_attr(ps->ctx, axis));
    return op;
  }
  case FMT_ADDPTR: {
    if (!want_operands(ps, p, 2, 2)) return NULL;
    if (!want_type_form(ps, p, TYPES_PLAIN, 2, 0, "%ptr, %offset : ptr type, offset type")) return NULL;
    if (!operand_has_type(ps, p, 0, p->types.items[0]) || !operand_has_type(ps, p, 1, p->types.items[1]) ||
        !no_more_clauses(ps, p))
      return NULL;
    const ir_type *t = p->types.items[0];
    ir_op *op = make(ps, p, 1, &t, loc);
    return apply_attrs(ps, p, op) ? op : NULL;
  }
  case FMT_LOAD:
  case FMT_STORE: {
    bool load = fmt == FMT_LOAD;
    if (!want_operands(ps, p, info->min_operands, info->max_operands)) return NULL;
    if (!want_type_form(ps, p, TYPES_PLAIN, 1, 0, load ? "%ptr[, %mask[, %other]] : ptr type" : "%ptr, %value[, %mask] : ptr type"))
      return NULL;
    if (!operand_has_type(ps, p, 0, p->types.items[0])) return NULL;
    const ir_type *res = pointee_of(ps, p->types.items[0]);
    if (!res) {
      parse_error_at(ps, p->pos, "'%s' needs a pointer or a tensor of pointers, found '%s'", opname(p),
                     tstr(ps, p->types.items[0]));
      return NULL;
    }
    ir_op *op = make(ps, p, load ? 1 : 0, load ? &res : NULL, loc);
    if (!apply_attrs(ps, p, op)) return NULL;
    if (!keyword_clause(ps, p, "cacheModifier", "cache", cache_modifiers, op) ||
        !keyword_clause(ps, p, "evictionPolicy", "evict", evict_policies, op))
      return NULL;
    return no_more_clauses(ps, p) ? op : NULL;
  }
  case FMT_DOT: {
    if (!want_operands(ps, p, info->min_operands, info->max_operands)) return NULL;
    if (!want_type_form(ps, p, TYPES_STAR_ARROW, 2, 1, "%a, %b, %c : A * B -> D")) return NULL;
    if (!operand_has_type(ps, p, 0, p->types.items[0]) || !operand_has_type(ps, p, 1, p->types.items[1])) return NULL;
    const ir_type *res = p->result_types.items[0];
    ir_op *op = make(ps, p, 1, &res, loc);
    if (!apply_attrs(ps, p, op)) return NULL;
    static const char *const precisions[] = {"tf32", "tf32x3", "ieee", "bf16x3", "bf16x6", NULL};
    if (!keyword_clause(ps, p, "inputPrecision", "inputPrecision", precisions, op)) return NULL;
    return no_more_clauses(ps, p) ? op : NULL;
  }
  case FMT_IMMEDIATE: {
    int bits = 32;
    const char *name = ir_op_immediate_attr((ir_op_kind)p->kind, &bits);
    char *end = NULL;
    long long v = p->word ? strtoll(p->word, &end, 10) : -1;
    if (!name || !p->word || *end || v < 0 || (bits < 64 && v >= (1LL << (bits - 1)))) {
      parse_error_at(ps, p->pos, "'%s' expects an integer that fits i%d", opname(p), bits);
      return NULL;
    }
    ir_op *op = make(ps, p, 0, NULL, loc);
    if (!apply_attrs(ps, p, op)) return NULL;
    ir_op_set_attr(ps->ctx, op, name, ir_int_attr(ps->ctx, v, ir_int_type(ps->ctx, bits)));
    return op;
  }
  case FMT_OPERANDS_TYPES:
  case FMT_YIELD: return build_operands_types(ps, p, loc);
  case FMT_CONVERT:
  case FMT_LOCAL_LOAD:
  case FMT_LOCAL_STORE:
  case FMT_MEMDESC_INDEX: return build_arrow(ps, p, loc);
  case FMT_ASYNC_COPY: return build_async_copy(ps, p, loc);
  case FMT_ASYNC_COMMIT:
  case FMT_ASYNC_WAIT: return build_tokens(ps, p, loc);
  case FMT_LOCAL_ALLOC: {
    if (!want_operands(ps, p, 0, 1)) return NULL;
    const ir_type *ft = p->types.n == 1 ? p->types.items[0] : NULL;
    if (p->type_form != TYPES_PLAIN || !ft || ft->kind != TY_FUNC || ft->num_inputs < 0 || ft->num_results != 1 ||
        ft->num_inputs != p->operands.n) {
      parse_error_at(ps, p->pos, "'ttg.local_alloc' expects ': () -> !ttg.memdesc<...>' or '%%x : (tensor<...>) -> !ttg.memdesc<...>'");
      return NULL;
    }
    if (p->operands.n && !operand_has_type(ps, p, 0, ft->inputs[0])) return NULL;
    if (!no_more_clauses(ps, p)) return NULL;
    ir_op *op = make(ps, p, 1, ft->results, loc);
    return apply_attrs(ps, p, op) ? op : NULL;
  }
  default:
    parse_error_at(ps, p->pos, "'%s' cannot be written this way", opname(p));
    return NULL;
  }
}

static ir_op *build_atomic(parse_state *ps, parsed_op *p, ir_loc *loc) {
  bool rmw = p->kind == OP_ATOMIC_RMW;
  int nwords = rmw ? 3 : 2;
  if (p->words.n != nwords) {
    parse_error_at(ps, p->pos, rmw ? "'tt.atomic_rmw' expects 'op, sem, scope, %%ptr, %%val[, %%mask]'"
                                   : "'tt.atomic_cas' expects 'sem, scope, %%ptr, %%cmp, %%val'");
    return NULL;
  }
  const char *op_word = rmw ? p->words.items[0] : NULL;
  const char *sem = p->words.items[rmw ? 1 : 0], *scope = p->words.items[rmw ? 2 : 1];
  if ((rmw && !word_in(op_word, ir_atomic_rmw_ops)) || !word_in(sem, ir_atomic_sems) ||
      !word_in(scope, ir_atomic_scopes)) {
    parse_error_at(ps, p->pos, "invalid atomic operation, memory semantics or scope in '%s'", opname(p));
    return NULL;
  }
  const ir_op_info *info = ir_op_info_of(p->kind);
  if (!want_operands(ps, p, info->min_operands, info->max_operands)) return NULL;
  const ir_type *ft = p->types.n == 1 ? p->types.items[0] : NULL;
  if (p->type_form != TYPES_PLAIN || !ft || ft->kind != TY_FUNC || ft->num_inputs != p->operands.n ||
      ft->num_results != 1) {
    parse_error_at(ps, p->pos, "'%s' expects ': (operand types) -> result type'", opname(p));
    return NULL;
  }
  for (int i = 0; i < p->operands.n; i++)
    if (!operand_has_type(ps, p, i, ft->inputs[i])) return NULL;
  ir_op *op = make(ps, p, 1, ft->results, loc);
  if (!apply_attrs(ps, p, op)) return NULL;
  if (rmw) ir_op_set_attr(ps->ctx, op, "atomic_rmw_op", ir_keyword_attr(ps->ctx, op_word));
  ir_op_set_attr(ps->ctx, op, "sem", ir_keyword_attr(ps->ctx, sem));
  ir_op_set_attr(ps->ctx, op, "scope", ir_keyword_attr(ps->ctx, scope));
  return op;
}

static ir_op *build_constant(parse_state *ps, parsed_op *p, ir_loc *loc) {
  const ir_attr *v = p->value;
  const ir_type *t = NULL;
  if (v->kind == AT_INT || v->kind == AT_FLOAT || v->kind == AT_BOOL || v->kind == AT_DENSE) t = v->type;
  if (!t) {
    parse_error_at(ps, p->pos, "'arith.constant' needs a typed value such as '1 : i32' or 'dense<0.0> : tensor<...>'");
    return NULL;
  }
  ir_op *op = make(ps, p, 1, &t, loc);
  if (!apply_attrs(ps, p, op)) return NULL;
  ir_op_set_attr(ps->ctx, op, "value", v);
  return op;
}

/* scf.for / scf.if bodies without results may leave out their `scf.yield` (MLIR's implicit
 * terminator); put it back so every block ends with one. */
static void add_implicit_yield(parse_state *ps, ir_region *r) {
  for (ir_block *b = r->first; b; b = b->next)
    if (!b->last || b->last->kind != OP_SCF_YIELD) {
      ir_op *y = ir_op_create(ps->ctx, OP_SCF_YIELD, 0, NULL, 0, NULL, 0, NULL);
      y->src_loc = b->last ? b->last->src_loc : NULL;
      y->loc = y->src_loc;
      ir_block_append_op(b, y);
    }
}

static ir_op *build_for(parse_state *ps, parsed_op *p, ir_loc *loc) {
  ir_op *op = make(ps, p, p->result_types.n, (const ir_type *const *)p->result_types.items, loc);
  if (!apply_attrs(ps, p, op) || !attach_regions(ps, p, op)) return NULL;
  if (op->num_results == 0) add_implicit_yield(ps, &op->regions[0]);
  return op;
}

static ir_op *build_while(parse_state *ps, parsed_op *p, ir_loc *loc) {
  ir_op *op = make(ps, p, p->result_types.n, (const ir_type *const *)p->result_types.items, loc);
  if (!apply_attrs(ps, p, op) || !attach_regions(ps, p, op)) return NULL;
  return op;
}

/* scf.condition(%c) %a, .. : R, ..: the types name the forwarded values, not the condition. */
static ir_op *build_condition(parse_state *ps, parsed_op *p, ir_loc *loc) {
  int forwarded = p->operands.n - 1;
  int typed = p->type_form == TYPES_NONE ? 0 : p->types.n;
  if (p->type_form != TYPES_NONE && p->type_form != TYPES_PLAIN) {
    parse_error_at(ps, p->pos, "'scf.condition' takes a plain type list");
    return NULL;
  }
  if (typed != forwarded) {
    parse_error_at(ps, p->pos, "'scf.condition' forwards %d values but lists %d types", forwarded, typed);
    return NULL;
  }
  for (int i = 0; i < forwarded; i++) {
    const ir_value *v = p->operands.items[1 + i];
    if (v->type != p->types.items[i]) {
      parse_error_at(ps, operand_pos(p, 1 + i), "'scf.condition' value %d has type '%s' but is listed as '%s'", i,
                     tstr(ps, v->type), tstr(ps, (const ir_type *)p->types.items[i]));
      return NULL;
    }
  }
  ir_op *op = make(ps, p, 0, NULL, loc);
  if (!op || !apply_attrs(ps, p, op)) return NULL;
  return op;
}

static ir_op *build_if(parse_state *ps, parsed_op *p, ir_loc *loc) {
  ir_value *c = p->operands.items[0];
  if (!ir_type_is_int(c->type, 1)) {
    parse_error_at(ps, operand_pos(p, 0), "'scf.if' condition must be i1, found '%s'", tstr(ps, c->type));
    return NULL;
  }
  ir_op *op = make(ps, p, p->result_types.n, (const ir_type *const *)p->result_types.items, loc);
  if (!apply_attrs(ps, p, op) || !attach_regions(ps, p, op)) return NULL;
  if (op->num_results == 0) {
    if (!op->regions[0].first) ir_region_append_block(&op->regions[0], ir_block_create(ps->ctx));
    add_implicit_yield(ps, &op->regions[0]);
    add_implicit_yield(ps, &op->regions[1]);
  }
  return op;
}

ir_op *parse_build_op(parse_state *ps, parsed_op *p, ir_loc *loc) {
  if (ps->failed) return NULL;
  ir_op *op;
  if (p->type_form == TYPES_FUNCTIONAL)
    op = build_generic(ps, p, loc);
  else
    switch (ir_op_info_of(p->kind)->format) {
    case FMT_MODULE: op = build_module(ps, p, loc); break;
    case FMT_FUNC: op = build_func(ps, p, loc); break;
    case FMT_CALL: op = build_call(ps, p, loc); break;
    case FMT_FOR: op = build_for(ps, p, loc); break;
    case FMT_IF: op = build_if(ps, p, loc); break;
    case FMT_WHILE: op = build_while(ps, p, loc); break;
    case FMT_CONDITION: op = build_condition(ps, p, loc); break;
    case FMT_CONSTANT: op = build_constant(ps, p, loc); break;
    case FMT_ATOMIC_RMW:
    case FMT_ATOMIC_CAS: op = build_atomic(ps, p, loc); break;
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
    case FMT_WAIT_BARRIER:
    case FMT_SUBSLICE:
    case FMT_TENSORMAP_CREATE:
    case FMT_DOT_SCALED:
    case FMT_WARP_SPECIALIZE: op = parse_build_nvgpu_op(ps, p, loc); break;
    default: op = build_plain(ps, p, loc); break;
    }
  if (op && !op->loc) op->loc = op->src_loc;
  return ps->failed ? NULL : op;
}

/* ------------------------------------------------------------------ shared with parse_nvgpu.c */

const char *const *const parse_cache_modifiers = cache_modifiers;
const char *const *const parse_evict_policies = evict_policies;

ir_op *parse_make_op(parse_state *ps, parsed_op *p, int nres, const ir_type *const *res, ir_loc *loc) {
  return make(ps, p, nres, res, loc);
}
bool parse_apply_attrs(parse_state *ps, parsed_op *p, ir_op *op) { return apply_attrs(ps, p, op); }
bool parse_attach_regions(parse_state *ps, parsed_op *p, ir_op *op) { return attach_regions(ps, p, op); }
bool parse_keyword_clause(parse_state *ps, parsed_op *p, const char *clause_name, const char *attr_name,
                          const char *const *allowed, ir_op *op) {
  return keyword_clause(ps, p, clause_name, attr_name, allowed, op);
}
parsed_clause *parse_take_clause(parsed_op *p, const char *name) { return take_clause(p, name); }
bool parse_no_more_clauses(parse_state *ps, parsed_op *p) { return no_more_clauses(ps, p); }
bool parse_want_type_form(parse_state *ps, parsed_op *p, int form, int ntypes, int nresults, const char *example) {
  return want_type_form(ps, p, form, ntypes, nresults, example);
}
bool parse_operand_has_type(parse_state *ps, parsed_op *p, int i, const ir_type *t) {
  return operand_has_type(ps, p, i, t);
}

const ir_type *parse_operand_function_type(parse_state *ps, parsed_op *p, int num_results, const char *written) {
  const ir_type *ft = p->type_form == TYPES_PLAIN && p->types.n == 1 ? p->types.items[0] : NULL;
  if (!ft || ft->kind != TY_FUNC || ft->num_inputs != p->operands.n ||
      (num_results >= 0 && ft->num_results != num_results)) {
    parse_error_at(ps, p->pos, "'%s' expects %s with one type per operand", opname(p), written);
    return NULL;
  }
  for (int i = 0; i < p->operands.n; i++)
    if (!operand_has_type(ps, p, i, ft->inputs[i])) return NULL;
  return ft;
}

/* ------------------------------------------------------------------ entry blocks */

bool parse_func_entry(parse_state *ps, parsed_op *p, pvec *args) {
  ir_block *b = ir_block_create(ps->ctx);
  int nonempty = 0, nameless = 0;
  const ir_attr **dicts = args->n ? ir_alloc(ps->ctx, sizeof(void *) * (size_t)args->n) : NULL;
  for (int i = 0; i < args->n; i++) {
    parsed_arg *a = args->items[i];
    dicts[i] = parse_dict_from_entries(ps, a->attrs, a->pos);
    if (!dicts[i]) return false;
    if (dicts[i]->num_elems) nonempty++;
  }
  /* Parameters are bound now; the body's region takes this block and their scope. */
  for (int i = 0; i < args->n; i++) {
    parsed_arg *a = args->items[i];
    ir_value *v = ir_block_add_arg(ps->ctx, b, a->type, a->loc);
    if (a->name && !parse_bind_value(ps, a->name, v, a->pos)) return false;
    if (!a->name) nameless++;
  }
  if (nameless && nameless != args->n) {
    parse_error_at(ps, p->pos, "either every parameter of '@%s' is named or none is", p->symbol);
    return false;
  }
  p->entry = b;
  ps->pending_entry = b;
  if (nonempty) {
    parsed_entry *e = ir_alloc(ps->ctx, sizeof *e);
    e->name = "arg_attrs";
    e->value = ir_array_attr(ps->ctx, args->n, dicts);
    e->pos = p->pos;
    pv_push(ps, &p->attrs, e);
  }
  return true;
}

bool parse_for_entry(parse_state *ps, parsed_op *p, const char *iv_name, src_pos iv_pos, pvec *bindings,
                     const ir_type *iv_type) {
  for (int i = 0; i < 3; i++) {
    ir_value *v = p->operands.items[i];
    if (v->type != iv_type) {
      parse_error_at(ps, operand_pos(p, i), "'scf.for' bound has type '%s' but the induction variable is '%s'%s",
                     tstr(ps, v->type), tstr(ps, iv_type),
                     iv_type->kind == TY_INDEX ? " (add ': i32' after the iter_args)" : "");
      return false;
    }
  }
  ir_block *b = ir_block_create(ps->ctx);
  ir_value *iv = ir_block_add_arg(ps->ctx, b, iv_type, NULL);
  if (!parse_bind_value(ps, iv_name, iv, iv_pos)) return false;
  for (int i = 0; i < bindings->n; i++) {
    parsed_arg *a = bindings->items[i];
    if (a->init->type != a->type) {
      parse_error_at(ps, a->pos, "iter_arg '%%%s' is initialized with a value of type '%s' but declared '%s'",
                     a->name, tstr(ps, a->init->type), tstr(ps, a->type));
      return false;
    }
    pv_push(ps, &p->operands, a->init);
    pv_push(ps, &p->operand_pos, NULL);
    p->operand_pos.n--;
    pv_push(ps, &p->result_types, (void *)a->type);
    ir_value *v = ir_block_add_arg(ps->ctx, b, a->type, NULL);
    if (!parse_bind_value(ps, a->name, v, a->pos)) return false;
  }
  p->entry = b;
  ps->pending_entry = b;
  return true;
}

bool parse_while_entry(parse_state *ps, parsed_op *p, pvec *bindings, pvec *types, src_pos types_pos, pvec *results) {
  if (bindings->n != types->n) {
    parse_error_at(ps, types_pos, "scf.while has %d initial values but %d argument types", bindings->n, types->n);
    return false;
  }
  ir_block *b = ir_block_create(ps->ctx);
  for (int i = 0; i < bindings->n; i++) {
    parsed_arg *a = bindings->items[i];
    const ir_type *t = types->items[i];
    if (a->init->type != t) {
      parse_error_at(ps, a->pos, "scf.while argument '%%%s' is initialized with a value of type '%s' but declared '%s'",
                     a->name, tstr(ps, a->init->type), tstr(ps, t));
      return false;
    }
    pv_push(ps, &p->operands, a->init);
    pv_push(ps, &p->operand_pos, NULL);
    p->operand_pos.n--;
    ir_value *v = ir_block_add_arg(ps->ctx, b, t, NULL);
    if (!parse_bind_value(ps, a->name, v, a->pos)) return false;
  }
  for (int i = 0; i < results->n; i++) pv_push(ps, &p->result_types, results->items[i]);
  p->entry = b;
  ps->pending_entry = b;
  return true;
}

/* Parser support: builders of the Hopper ops (tensor descriptors, block pointers, mbarriers, TMA
 * copies, tensor maps, shared-memory subslices) and of ttg.warp_specialize, as Triton 3.6 prints them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parse_state.h"
#include "parser.h"
#include "util.h"

static const char *opname(const parsed_op *p) { return ir_op_info_of(p->kind)->name; }

static src_pos *pos_copy(parse_state *ps, src_pos p) {
  src_pos *c = ir_alloc(ps->ctx, sizeof *c);
  *c = p;
  return c;
}

static void add_operand(parse_state *ps, parsed_op *p, ir_value *v, src_pos pos) {
  pv_push(ps, &p->operands, v);
  pv_push(ps, &p->operand_pos, pos_copy(ps, pos));
}

static void add_operands(parse_state *ps, parsed_op *p, const pvec *values, src_pos pos) {
  for (int i = 0; i < values->n; i++) add_operand(ps, p, values->items[i], pos);
}

/* ------------------------------------------------------------------ operand items */

/* The positional items of an operand list (values, `%v[...]`, `[...]`, integers), after the
 * attribute dictionary and `name = value` clauses have been moved to the parsed op. */
typedef struct positional {
  seg_item *items[16];
  int n;
} positional;

static bool split_items(parse_state *ps, parsed_op *p, positional *out) {
  out->n = 0;
  bool have_attrs = false;
  for (int i = 0; i < p->items.n; i++) {
    seg_item *it = p->items.items[i];
    switch (it->kind) {
    case SEG_ATTRS:
      if (have_attrs) {
        parse_error_at(ps, it->pos, "'%s' takes one attribute dictionary", opname(p));
        return false;
      }
      have_attrs = true;
      for (int k = 0; k < it->attrs->n; k++) pv_push(ps, &p->attrs, it->attrs->items[k]);
      break;
    case SEG_WORD:
    case SEG_KV:
    case SEG_KV_GROUP: {
      parsed_clause *c = ir_alloc(ps->ctx, sizeof *c);
      c->name = it->text;
      c->word = it->kind == SEG_KV ? it->word : NULL;
      c->values = it->values;
      c->pos = it->pos;
      pv_push(ps, &p->clauses, c);
      break;
    }
    default:
      if (out->n == (int)(sizeof out->items / sizeof out->items[0])) {
        parse_error_at(ps, it->pos, "too many operand groups for '%s'", opname(p));
        return false;
      }
      out->items[out->n++] = it;
      break;
    }
  }
  return true;
}

/* Checks the positional items against `pattern`, one letter each: V value after a comma,
 * J value right after the previous item (no comma), I `%v[values]`, K `%v[integers]`, G `[values]`,
 * N an integer. The example is the op's syntax for the error message. */
static bool match_items(parse_state *ps, parsed_op *p, const positional *pos, const char *pattern,
                        const char *example) {
  int n = (int)strlen(pattern);
  bool ok = pos->n == n;
  for (int i = 0; ok && i < n; i++) {
    const seg_item *it = pos->items[i];
    switch (pattern[i]) {
    case 'V': ok = it->kind == SEG_VALUE && (i == 0 || !it->juxtaposed); break;
    case 'J': ok = it->kind == SEG_VALUE && it->juxtaposed; break;
    case 'I': ok = it->kind == SEG_INDEXED && it->ints.n == 0; break;
    case 'K': ok = it->kind == SEG_INDEXED && it->values.n == 0; break;
    case 'G': ok = it->kind == SEG_GROUP; break;
    case 'N': ok = it->kind == SEG_INT; break;
    default: ok = false; break;
    }
  }
  if (!ok) parse_error_at(ps, p->pos, "'%s' expects '%s'", opname(p), example);
  return ok;
}

/* An integer item or list element: 0 .. 2^31-1. */
static bool item_int(parse_state *ps, const char *digits, src_pos pos, int64_t *out) {
  errno = 0;
  char *end;
  long long v = strtoll(digits, &end, 10);
  if (errno || *end || v < 0 || v > 0x7fffffff) {
    parse_error_at(ps, pos, "integer '%s' is out of range (0 .. 2^31-1)", digits);
    return false;
  }
  *out = v;
  return true;
}

static const ir_type *i32_type(parse_state *ps) { return ir_int_type(ps->ctx, 32); }

/* ------------------------------------------------------------------ type signatures */

const ir_type *parse_bare_type(parse_state *ps, const parsed_bare_type *b, const char *dialect_type) {
  return parse_dialect_type(ps, dialect_type, b->shaped, b->params, b->pos);
}

/* `: <a>, <b>` (the printed form) or `: !dialect.a<..>, !dialect.b<..>` (hand-written): the types,
 * the bare ones read as `dialects[i]`. */
static bool bare_or_plain_types(parse_state *ps, parsed_op *p, int n, const char *const *dialects,
                                const ir_type **out, const char *example) {
  if (p->type_form == TYPES_BARE && p->bare_types.n == n) {
    for (int i = 0; i < n; i++)
      if (!(out[i] = parse_bare_type(ps, p->bare_types.items[i], dialects[i]))) return false;
    return true;
  }
  if (p->type_form == TYPES_PLAIN && p->types.n == n) {
    for (int i = 0; i < n; i++) out[i] = p->types.items[i];
    return true;
  }
  parse_error_at(ps, p->pos, "'%s' expects its types written as '%s'", opname(p), example);
  return false;
}

static ir_op *finish(parse_state *ps, parsed_op *p, int nres, const ir_type *const *res, ir_loc *loc) {
  ir_op *op = parse_make_op(ps, p, nres, res, loc);
  if (!parse_apply_attrs(ps, p, op)) return NULL;
  return op;
}

/* Sets an integer attribute the custom syntax carries outside the attribute dictionary. */
static bool set_syntax_int(parse_state *ps, parsed_op *p, ir_op *op, const char *name, int64_t v) {
  if (ir_op_get_attr(op, name)) {
    parse_error_at(ps, p->pos, "'%s' is given twice in '%s'", name, opname(p));
    return false;
  }
  ir_op_set_attr(ps->ctx, op, name, ir_i32_attr(ps->ctx, v));
  return true;
}

static bool set_syntax_i32_array(parse_state *ps, parsed_op *p, ir_op *op, const char *name, int n,
                                 const int64_t *v) {
  if (ir_op_get_attr(op, name)) {
    parse_error_at(ps, p->pos, "'%s' is given twice in '%s'", name, opname(p));
    return false;
  }
  ir_op_set_attr(ps->ctx, op, name, ir_dense_int_array_attr(ps->ctx, i32_type(ps), n, v));
  return true;
}

/* ------------------------------------------------------------------ tt: descriptors, block pointers */

static ir_op *build_make_desc(parse_state *ps, parsed_op *p, const positional *it, ir_loc *loc) {
  static const char *const example = "%base, [%shape..], [%strides..] : <T>, <tensor<..>>";
  if (!match_items(ps, p, it, "VGG", example)) return NULL;
  if (it->items[1]->values.n != it->items[2]->values.n) {
    parse_error_at(ps, it->items[1]->pos, "'%s' has %d sizes but %d strides", opname(p), it->items[1]->values.n,
                   it->items[2]->values.n);
    return NULL;
  }
  add_operand(ps, p, it->items[0]->value, it->items[0]->pos);
  add_operands(ps, p, &it->items[1]->values, it->items[1]->pos);
  add_operands(ps, p, &it->items[2]->values, it->items[2]->pos);
  static const char *const dialects[] = {"tt.ptr", "tt.tensordesc"};
  const ir_type *t[2];
  if (!bare_or_plain_types(ps, p, 2, dialects, t, example) || !parse_operand_has_type(ps, p, 0, t[0])) return NULL;
  if (t[1]->kind != TY_TENSORDESC) {
    parse_error_at(ps, p->pos, "'%s' result must be a tensor descriptor, found '%s'", opname(p),
                   ir_type_str(ps->ctx, t[1]));
    return NULL;
  }
  return parse_no_more_clauses(ps, p) ? finish(ps, p, 1, &t[1], loc) : NULL;
}

/* tt.make_tensor_ptr (3 groups) and tt.advance (1 group): `: <tensor<..>>` is the block pointer type. */
static ir_op *build_block_ptr(parse_state *ps, parsed_op *p, const positional *it, ir_loc *loc) {
  bool make = p->kind == OP_MAKE_TENSOR_PTR;
  const char *example = make ? "%base, [%shape..], [%strides..], [%offsets..] {order = array<i32: ..>} : <tensor<..>>"
                             : "%ptr, [%offsets..] : <tensor<..>>";
  if (!match_items(ps, p, it, make ? "VGGG" : "VG", example)) return NULL;
  if (make && (it->items[1]->values.n != it->items[2]->values.n || it->items[1]->values.n != it->items[3]->values.n)) {
    parse_error_at(ps, it->items[1]->pos, "'%s' needs as many strides and offsets as sizes", opname(p));
    return NULL;
  }
  for (int i = 0; i < it->n; i++) {
    if (it->items[i]->kind == SEG_VALUE)
      add_operand(ps, p, it->items[i]->value, it->items[i]->pos);
    else
      add_operands(ps, p, &it->items[i]->values, it->items[i]->pos);
  }
  static const char *const dialects[] = {"tt.ptr"};
  const ir_type *t;
  if (!bare_or_plain_types(ps, p, 1, dialects, &t, example)) return NULL;
  if (t->kind != TY_PTR || !t->elem || t->elem->kind != TY_TENSOR) {
    parse_error_at(ps, p->pos, "'%s' needs a block pointer type '<tensor<..>>', found '%s'", opname(p),
                   ir_type_str(ps->ctx, t));
    return NULL;
  }
  if (!make && !parse_operand_has_type(ps, p, 0, t)) return NULL;
  return parse_no_more_clauses(ps, p) ? finish(ps, p, 1, &t, loc) : NULL;
}

static ir_op *build_desc_access(parse_state *ps, parsed_op *p, const positional *it, ir_loc *loc) {
  ir_op_kind k = p->kind;
  bool has_src = k == OP_DESC_STORE || k == OP_DESC_REDUCE || k == OP_DESC_SCATTER;
  bool gather_like = k == OP_DESC_GATHER || k == OP_DESC_SCATTER;
  int num_inputs = k == OP_GATHER ? 2 : 3;
  const char *example = k == OP_GATHER      ? "%src[%indices] {axis = 0 : i32} : (tensor<..>, tensor<..>) -> tensor<..>"
                        : k == OP_DESC_LOAD ? "%desc[%i, ..] : !tt.tensordesc<..> -> tensor<..>"
                        : k == OP_DESC_STORE || k == OP_DESC_REDUCE ? "%desc[%i, ..], %src : !tt.tensordesc<..>, tensor<..>"
                        : k == OP_DESC_GATHER
                            ? "%desc[%x_offsets, %y] : (!tt.tensordesc<..>, tensor<..>, i32) -> tensor<..>"
                            : "%desc[%x_offsets, %y], %src : !tt.tensordesc<..>, tensor<..>, i32, tensor<..>";
  if (!match_items(ps, p, it, has_src ? "IV" : "I", example)) return NULL;
  const seg_item *idx = it->items[0];
  if (gather_like && idx->values.n != 2) {
    parse_error_at(ps, idx->pos, "'%s' expects '[%%x_offsets, %%y_offset]'", opname(p));
    return NULL;
  }
  if (k == OP_GATHER && idx->values.n != 1) {
    parse_error_at(ps, idx->pos, "'%s' expects one index tensor: '%%src[%%indices]'", opname(p));
    return NULL;
  }
  add_operand(ps, p, idx->value, idx->pos);
  if (k == OP_DESC_STORE || k == OP_DESC_REDUCE) add_operand(ps, p, it->items[1]->value, it->items[1]->pos);
  add_operands(ps, p, &idx->values, idx->pos);
  if (k == OP_DESC_SCATTER) add_operand(ps, p, it->items[1]->value, it->items[1]->pos);
  if (k == OP_DESC_LOAD) {
    if (!parse_want_type_form(ps, p, TYPES_ARROW, 1, 1, example) || !parse_operand_has_type(ps, p, 0, p->types.items[0]))
      return NULL;
    const ir_type *res = p->result_types.items[0];
    ir_op *op = finish(ps, p, 1, &res, loc);
    if (!op || !parse_keyword_clause(ps, p, "cacheModifier", "cache", parse_cache_modifiers, op) ||
        !parse_keyword_clause(ps, p, "evictionPolicy", "evict", parse_evict_policies, op))
      return NULL;
    return parse_no_more_clauses(ps, p) ? op : NULL;
  }
  if (k == OP_DESC_GATHER || k == OP_GATHER) {
    const ir_type *ft = p->type_form == TYPES_PLAIN && p->types.n == 1 ? p->types.items[0] : NULL;
    if (!ft || ft->kind != TY_FUNC || ft->num_inputs != num_inputs || ft->num_results != 1) {
      parse_error_at(ps, p->pos, "'%s' expects its types written as '%s'", opname(p), example);
      return NULL;
    }
    for (int i = 0; i < num_inputs; i++)
      if (!parse_operand_has_type(ps, p, i, ft->inputs[i])) return NULL;
    return parse_no_more_clauses(ps, p) ? finish(ps, p, 1, ft->results, loc) : NULL;
  }
  /* store: desc, src (indices untyped); scatter: all four operand types. */
  int ntypes = k == OP_DESC_STORE || k == OP_DESC_REDUCE ? 2 : 4;
  if (!parse_want_type_form(ps, p, TYPES_PLAIN, ntypes, 0, example)) return NULL;
  for (int i = 0; i < ntypes; i++)
    if (!parse_operand_has_type(ps, p, i, p->types.items[i])) return NULL;
  return parse_no_more_clauses(ps, p) ? finish(ps, p, 0, NULL, loc) : NULL;
}

/* ------------------------------------------------------------------ ttng: TMA copies */

static ir_op *build_tma(parse_state *ps, parsed_op *p, const positional *it, ir_loc *loc) {
  bool load = p->kind == OP_TMA_LOAD;
  const char *example = load ? "%desc[%coord..] %buf, %barrier, %pred : !tt.tensordesc<..>, !ttg.memdesc<..> -> !ttg.memdesc<..>"
                             : "%desc[%coord..] %buf : !tt.tensordesc<..>, !ttg.memdesc<..>";
  if (!match_items(ps, p, it, load ? "IJVV" : "IJ", example)) return NULL;
  const seg_item *idx = it->items[0];
  add_operand(ps, p, idx->value, idx->pos);
  add_operands(ps, p, &idx->values, idx->pos);
  if (load) {
    parsed_clause *offsets = parse_take_clause(p, "offsets");
    if (offsets) {
      if (offsets->word) {
        parse_error_at(ps, offsets->pos, "'offsets' takes a list of i16 values: 'offsets = [%%a, ..]'");
        return NULL;
      }
      for (int i = 0; i < offsets->values.n; i++) add_operand(ps, p, offsets->values.items[i], offsets->pos);
    }
    add_operand(ps, p, it->items[2]->value, it->items[2]->pos); /* barrier */
    add_operand(ps, p, it->items[1]->value, it->items[1]->pos); /* result buffer */
    add_operand(ps, p, it->items[3]->value, it->items[3]->pos); /* predicate */
    if (!parse_want_type_form(ps, p, TYPES_ARROW, 2, 1, example)) return NULL;
    int bar = p->operands.n - 3, buf = p->operands.n - 2;
    if (!parse_operand_has_type(ps, p, 0, p->types.items[0]) || !parse_operand_has_type(ps, p, bar, p->types.items[1]) ||
        !parse_operand_has_type(ps, p, buf, p->result_types.items[0]))
      return NULL;
    ir_op *op = finish(ps, p, 0, NULL, loc);
    if (!op || !parse_keyword_clause(ps, p, "cacheModifier", "cache", parse_cache_modifiers, op) ||
        !parse_keyword_clause(ps, p, "evictionPolicy", "evict", parse_evict_policies, op))
      return NULL;
    return parse_no_more_clauses(ps, p) ? op : NULL;
  }
  add_operand(ps, p, it->items[1]->value, it->items[1]->pos);
  int src = p->operands.n - 1;
  bool token = p->type_form == TYPES_ARROW;
  if (!parse_want_type_form(ps, p, token ? TYPES_ARROW : TYPES_PLAIN, 2, token ? 1 : 0, example)) return NULL;
  if (!parse_operand_has_type(ps, p, 0, p->types.items[0]) || !parse_operand_has_type(ps, p, src, p->types.items[1]))
    return NULL;
  const ir_type *res = token ? p->result_types.items[0] : NULL;
  if (token && res->kind != TY_TOKEN) {
    parse_error_at(ps, p->pos, "'%s' can only return !ttg.async.token, found '%s'", opname(p), ir_type_str(ps->ctx, res));
    return NULL;
  }
  return parse_no_more_clauses(ps, p) ? finish(ps, p, token ? 1 : 0, token ? &res : NULL, loc) : NULL;
}

static ir_op *build_tensormap_create(parse_state *ps, parsed_op *p, const positional *it, ir_loc *loc) {
  static const char *const example =
      "%desc_ptr, %global_address, [%box_dim..], [%global_dim..], [%global_stride..], [%element_stride..] : "
      "(operand types) -> ()";
  if (!match_items(ps, p, it, "VVGGGG", example)) return NULL;
  int64_t segments[6];
  for (int i = 0; i < 6; i++) {
    if (it->items[i]->kind == SEG_VALUE)
      add_operand(ps, p, it->items[i]->value, it->items[i]->pos);
    else
      add_operands(ps, p, &it->items[i]->values, it->items[i]->pos);
    segments[i] = it->items[i]->kind == SEG_VALUE ? 1 : it->items[i]->values.n;
  }
  if (!parse_operand_function_type(ps, p, 0, "its types written as '(operand types) -> ()'")) return NULL;
  ir_op *op = finish(ps, p, 0, NULL, loc);
  if (!op || !set_syntax_i32_array(ps, p, op, "operandSegmentSizes", 6, segments)) return NULL;
  ir_op_mark_property(ps->ctx, op, "operandSegmentSizes");
  return parse_no_more_clauses(ps, p) ? op : NULL;
}

/* ------------------------------------------------------------------ ttng: mbarriers */

static ir_op *build_barrier(parse_state *ps, parsed_op *p, const positional *it, ir_loc *loc) {
  bool expect = p->kind == OP_BARRIER_EXPECT;
  bool pred_optional = p->kind == OP_ARRIVE_BARRIER;
  const char *example = expect ? "%barrier, BYTES, %pred : !ttg.memdesc<1xi64, ..>"
                        : pred_optional ? "%barrier, COUNT[, %pred] : !ttg.memdesc<1xi64, ..>"
                                        : "%barrier, COUNT : !ttg.memdesc<1xi64, ..>";
  bool with_pred = it->n == 3;
  if (!match_items(ps, p, it, expect || (pred_optional && with_pred) ? "VNV" : "VN", example)) return NULL;
  int64_t n;
  if (!item_int(ps, it->items[1]->text, it->items[1]->pos, &n)) return NULL;
  add_operand(ps, p, it->items[0]->value, it->items[0]->pos);
  if (it->n == 3) add_operand(ps, p, it->items[2]->value, it->items[2]->pos);
  if (!parse_want_type_form(ps, p, TYPES_PLAIN, 1, 0, example) || !parse_operand_has_type(ps, p, 0, p->types.items[0]))
    return NULL;
  ir_op *op = finish(ps, p, 0, NULL, loc);
  if (!op || !set_syntax_int(ps, p, op, expect ? "size" : "count", n)) return NULL;
  return parse_no_more_clauses(ps, p) ? op : NULL;
}

/* ttng.wait_barrier is written like a plain op: `%bar, %phase[, %pred] [deps %m, ..] : B[, M, ..]`. */
static ir_op *build_wait_barrier(parse_state *ps, parsed_op *p, ir_loc *loc) {
  static const char *const example = "%barrier, %phase[, %pred] [deps %buf, ..] : !ttg.memdesc<1xi64, ..>[, deps types]";
  if (p->operands.n < 2 || p->operands.n > 3 || p->index) {
    parse_error_at(ps, p->pos, "'%s' expects '%s'", opname(p), example);
    return NULL;
  }
  parsed_clause *deps = parse_take_clause(p, "deps");
  if (deps && (deps->word || deps->values.n == 0)) {
    parse_error_at(ps, deps->pos, "'deps' takes a list of shared memory descriptors");
    return NULL;
  }
  int ndeps = deps ? deps->values.n : 0;
  if (deps) add_operands(ps, p, &deps->values, deps->pos);
  if (!parse_want_type_form(ps, p, TYPES_PLAIN, 1 + ndeps, 0, example) ||
      !parse_operand_has_type(ps, p, 0, p->types.items[0]))
    return NULL;
  for (int i = 0; i < ndeps; i++)
    if (!parse_operand_has_type(ps, p, p->operands.n - ndeps + i, p->types.items[1 + i])) return NULL;
  return parse_no_more_clauses(ps, p) ? finish(ps, p, 0, NULL, loc) : NULL;
}

/* ------------------------------------------------------------------ ttg.memdesc_subslice */

static ir_op *build_subslice(parse_state *ps, parsed_op *p, const positional *it, ir_loc *loc) {
  static const char *const example = "%buf[OFFSET, ..] : !ttg.memdesc<..> -> !ttg.memdesc<..>";
  if (!match_items(ps, p, it, "K", example)) return NULL;
  const seg_item *idx = it->items[0];
  int64_t offsets[IR_MAX_RANK];
  if (idx->ints.n == 0 || idx->ints.n > IR_MAX_RANK) {
    parse_error_at(ps, idx->pos, "'%s' takes 1 to %d offsets", opname(p), IR_MAX_RANK);
    return NULL;
  }
  for (int i = 0; i < idx->ints.n; i++)
    if (!item_int(ps, idx->ints.items[i], idx->pos, &offsets[i])) return NULL;
  add_operand(ps, p, idx->value, idx->pos);
  if (!parse_want_type_form(ps, p, TYPES_ARROW, 1, 1, example) || !parse_operand_has_type(ps, p, 0, p->types.items[0]))
    return NULL;
  const ir_type *res = p->result_types.items[0];
  ir_op *op = finish(ps, p, 1, &res, loc);
  if (!op || !set_syntax_i32_array(ps, p, op, "offsets", idx->ints.n, offsets)) return NULL;
  return parse_no_more_clauses(ps, p) ? op : NULL;
}

/* ------------------------------------------------------------------ ttg.warp_specialize */

bool parse_partition_entry(parse_state *ps, pvec *args, src_pos pos) {
  (void)pos;
  ir_block *b = ir_block_create(ps->ctx);
  for (int i = 0; i < args->n; i++) {
    parsed_arg *a = args->items[i];
    ir_value *v = ir_block_add_arg(ps->ctx, b, a->type, a->loc);
    if (!parse_bind_value(ps, a->name, v, a->pos)) return false;
  }
  ps->pending_entry = b;
  return true;
}

static ir_op *build_warp_specialize(parse_state *ps, parsed_op *p, ir_loc *loc) {
  if (!p->region_word || strcmp(p->region_word, "default") != 0) {
    parse_error_at(ps, p->pos, "'%s' expects 'default {...}' after its operands", opname(p));
    return NULL;
  }
  int nparts = p->partitions.n;
  int64_t *warps = nparts ? ir_alloc(ps->ctx, sizeof(int64_t) * (size_t)nparts) : NULL;
  for (int i = 0; i < nparts; i++) {
    parsed_partition *part = p->partitions.items[i];
    char want[32];
    snprintf(want, sizeof want, "partition%d", i);
    if (strcmp(part->name, want) != 0 || strcmp(part->keyword, "num_warps") != 0) {
      parse_error_at(ps, part->pos, "expected '%s(...) num_warps(N) {...}' in '%s'", want, opname(p));
      return NULL;
    }
    if (!item_int(ps, part->num_warps, part->pos, &warps[i])) return NULL;
    pv_push(ps, &p->regions, part->region);
  }
  const ir_type *ft = parse_operand_function_type(ps, p, -1, "': (operand types) -> (result types)'");
  if (!ft || !parse_no_more_clauses(ps, p)) return NULL;
  ir_op *op = parse_make_op(ps, p, ft->num_results, ft->results, loc);
  if (!parse_apply_attrs(ps, p, op) || !parse_attach_regions(ps, p, op)) return NULL;
  if (ir_op_get_attr(op, "partitionNumWarps")) {
    parse_error_at(ps, p->pos, "'%s' gives partitionNumWarps as num_warps(N) after each partition", opname(p));
    return NULL;
  }
  ir_op_set_attr(ps->ctx, op, "partitionNumWarps", ir_dense_int_array_attr(ps->ctx, i32_type(ps), nparts, warps));
  return op;
}

/* ------------------------------------------------------------------ tt.dot_scaled */

/* `%a[ scale %as], %b[ scale %bs], %c lhs = f rhs = f {attrs} : A[, AS] * B[, BS] -> D`: operands
 * a, b, c, then the scales present, counted by operandSegmentSizes as MLIR's generic form does. */
static ir_op *build_dot_scaled(parse_state *ps, parsed_op *p, ir_loc *loc) {
  static const char *const example =
      "%a[ scale %as], %b[ scale %bs], %c lhs = e4m3 rhs = e4m3 : A[, AS] * B[, BS] -> D";
  ir_value *main_values[3] = {NULL, NULL, NULL}, *scales[2] = {NULL, NULL};
  src_pos main_pos[3], scale_pos[2];
  int k = 0;
  for (int i = 0; i < p->items.n; i++) {
    seg_item *it = p->items.items[i];
    if (it->kind == SEG_VALUE && !it->juxtaposed && k < 3) {
      main_pos[k] = it->pos;
      main_values[k++] = it->value;
    } else if (it->kind == SEG_WORD && strcmp(it->text, "scale") == 0 && it->juxtaposed && k >= 1 && k <= 2 &&
               !scales[k - 1] && i + 1 < p->items.n && ((seg_item *)p->items.items[i + 1])->kind == SEG_VALUE) {
      seg_item *v = p->items.items[++i];
      scale_pos[k - 1] = v->pos;
      scales[k - 1] = v->value;
    } else if (it->kind == SEG_KV && k == 3) {
      parsed_clause *c = ir_alloc(ps->ctx, sizeof *c);
      c->name = it->text;
      c->word = it->word;
      c->pos = it->pos;
      pv_push(ps, &p->clauses, c);
    } else if (it->kind == SEG_ATTRS && k == 3) {
      for (int a = 0; a < it->attrs->n; a++) pv_push(ps, &p->attrs, it->attrs->items[a]);
    } else {
      parse_error_at(ps, it->pos, "'%s' expects '%s'", opname(p), example);
      return NULL;
    }
  }
  if (k != 3) {
    parse_error_at(ps, p->pos, "'%s' expects '%s'", opname(p), example);
    return NULL;
  }
  for (int i = 0; i < 3; i++) add_operand(ps, p, main_values[i], main_pos[i]);
  for (int i = 0; i < 2; i++)
    if (scales[i]) add_operand(ps, p, scales[i], scale_pos[i]);
  /* the types: A[, AS] * B[, BS] -> D, the scales' types where the scales are */
  int left = 1 + (scales[0] != NULL), right = 1 + (scales[1] != NULL);
  if (!parse_want_type_form(ps, p, TYPES_STAR_ARROW, left + right, 1, example)) return NULL;
  if (p->star_left != left) {
    parse_error_at(ps, p->pos, "'%s' expects %d type%s before '*'", opname(p), left, left > 1 ? "s" : "");
    return NULL;
  }
  const ir_type *a = p->types.items[0], *b = p->types.items[left];
  if (!parse_operand_has_type(ps, p, 0, a) || !parse_operand_has_type(ps, p, 1, b) ||
      !parse_operand_has_type(ps, p, 2, p->result_types.items[0]))
    return NULL;
  if (scales[0] && !parse_operand_has_type(ps, p, 3, p->types.items[1])) return NULL;
  if (scales[1] && !parse_operand_has_type(ps, p, scales[0] ? 4 : 3, p->types.items[left + 1])) return NULL;
  const ir_type *res = p->result_types.items[0];
  ir_op *op = parse_make_op(ps, p, 1, &res, loc);
  if (!op || !parse_apply_attrs(ps, p, op)) return NULL;
  static const char *const formats[] = {"e4m3", "e5m2", "e2m3", "e3m2", "e2m1", "bf16", "fp16", NULL};
  if (!parse_keyword_clause(ps, p, "lhs", "a_elem_type", formats, op) ||
      !parse_keyword_clause(ps, p, "rhs", "b_elem_type", formats, op) || !parse_no_more_clauses(ps, p))
    return NULL;
  int64_t segments[5] = {1, 1, 1, scales[0] != NULL, scales[1] != NULL};
  ir_op_set_attr(ps->ctx, op, "operandSegmentSizes", ir_dense_int_array_attr(ps->ctx, i32_type(ps), 5, segments));
  return op;
}

/* ------------------------------------------------------------------ dispatch */

ir_op *parse_build_nvgpu_op(parse_state *ps, parsed_op *p, ir_loc *loc) {
  ir_op_format fmt = ir_op_info_of(p->kind)->format;
  if (fmt == FMT_WAIT_BARRIER) return build_wait_barrier(ps, p, loc);
  if (fmt == FMT_WARP_SPECIALIZE) return build_warp_specialize(ps, p, loc);
  if (fmt == FMT_DOT_SCALED) return build_dot_scaled(ps, p, loc);
  positional it;
  if (!split_items(ps, p, &it)) return NULL;
  const char *reduce_kind = NULL;
  if (p->kind == OP_DESC_REDUCE || p->kind == OP_TMA_REDUCE) {
    /* the leading word: `tt.descriptor_reduce add, %desc[..], %v` */
    for (int i = 0; i < p->clauses.n && !reduce_kind; i++) {
      parsed_clause *c = p->clauses.items[i];
      if (!c->word && !c->values.n && ir_word_index(c->name, ir_descriptor_reduce_kinds) >= 0) {
        reduce_kind = c->name;
        p->clauses.items[i] = p->clauses.items[--p->clauses.n];
      }
    }
    if (!reduce_kind) {
      parse_error_at(ps, p->pos, "'%s' expects its kind first (add, min, max, inc, dec, and, or, xor)", opname(p));
      return NULL;
    }
    ir_op *op = fmt == FMT_DESC_STORE ? build_desc_access(ps, p, &it, loc) : build_tma(ps, p, &it, loc);
    if (op) ir_op_set_attr(ps->ctx, op, "kind", ir_keyword_attr(ps->ctx, reduce_kind));
    return op;
  }
  switch (fmt) {
  case FMT_MAKE_DESC: return build_make_desc(ps, p, &it, loc);
  case FMT_MAKE_TENSOR_PTR:
  case FMT_ADVANCE: return build_block_ptr(ps, p, &it, loc);
  case FMT_DESC_LOAD:
  case FMT_DESC_STORE:
  case FMT_DESC_GATHER:
  case FMT_DESC_SCATTER: return build_desc_access(ps, p, &it, loc);
  case FMT_TMA_LOAD:
  case FMT_TMA_STORE: return build_tma(ps, p, &it, loc);
  case FMT_BARRIER_COUNT:
  case FMT_BARRIER_EXPECT: return build_barrier(ps, p, &it, loc);
  case FMT_SUBSLICE: return build_subslice(ps, p, &it, loc);
  case FMT_TENSORMAP_CREATE: return build_tensormap_create(ps, p, &it, loc);
  default:
    parse_error_at(ps, p->pos, "'%s' cannot be written this way", opname(p));
    return NULL;
  }
}

/* State shared by the .tir scanner, the grammar actions and the op builders. */
#ifndef GEMMC_PARSE_STATE_H
#define GEMMC_PARSE_STATE_H

#include <setjmp.h>

#include "context_internal.h"

/* Arena-backed growable array of pointers. */
typedef struct pvec {
  void **items;
  int n, cap;
} pvec;

/* A source position (1-based). */
typedef struct src_pos {
  int line, col;
} src_pos;

/* `name = value` or a bare `name` (unit) in an attribute dictionary. */
typedef struct parsed_entry {
  const char *name;
  const ir_attr *value;
  src_pos pos;
} parsed_entry;

/* A clause after the operands: `mask %m`, `tokens %a, %b`, `cacheModifier = ca`, or a bare keyword. */
typedef struct parsed_clause {
  const char *name;
  const char *word;  /* `= word` form, else NULL */
  pvec values;       /* `name %v...` form */
  src_pos pos;
} parsed_clause;

/* A function argument, block argument or iter_args binding as written. */
typedef struct parsed_arg {
  const char *name;      /* without '%' */
  const ir_type *type;   /* NULL for iter_args bindings (the type comes from the result list) */
  ir_value *init;        /* iter_args: the initial value */
  pvec *attrs;           /* parsed_entry*, or NULL */
  ir_loc *loc;
  src_pos pos;
} parsed_arg;

/* A numeric literal kept as text until its type is known. */
typedef struct parsed_number {
  const char *text;
  bool negative;
  int token;             /* INTEGER, FLOAT or HEX (parser token kinds) */
  src_pos pos;
} parsed_number;

/* `dense<...>` contents: a number, a word (true/false), or a nested list. */
typedef struct dense_node {
  parsed_number *number;
  const char *word;
  pvec children;         /* dense_node* when is_list */
  bool is_list;
  src_pos pos;
} dense_node;

/* `128x64xf16` inside tensor<> / memdesc<> / ptr<>: dims (may be empty) and the element type. */
typedef struct parsed_shaped {
  int rank;
  int64_t shape[IR_MAX_RANK];
  const ir_type *elem;
  src_pos pos;
} parsed_shaped;

/* A parameter after the element in a dialect type: #attr, 3, 32x64 or a word (mutable). */
typedef struct type_param {
  enum { TP_ATTR, TP_INT, TP_DIMS, TP_WORD } kind;
  const ir_attr *attr;
  const char *text;
  src_pos pos;
} type_param;

/* One piece of the operand list of an op written with bracketed groups (`%d[%i, %j] %buf, ...`,
 * `%p, [%a, %b], [%c, %d]`, `%bar, 16384 {attrs}, %pred`), kept in order for the op's builder. */
typedef struct seg_item {
  enum { SEG_VALUE, SEG_INDEXED, SEG_GROUP, SEG_INT, SEG_ATTRS, SEG_WORD, SEG_KV, SEG_KV_GROUP } kind;
  bool juxtaposed;     /* written right after the previous item, without a comma */
  ir_value *value;     /* SEG_VALUE, SEG_INDEXED (the value before '[') */
  pvec values;         /* SEG_INDEXED, SEG_GROUP, SEG_KV_GROUP: ir_value* */
  pvec ints;           /* SEG_INDEXED with integers (`%m[16, 32]`): digit strings */
  const char *text;    /* SEG_INT digits; SEG_WORD, SEG_KV, SEG_KV_GROUP name */
  const char *word;    /* SEG_KV value */
  pvec *attrs;         /* SEG_ATTRS: parsed_entry* */
  src_pos pos;
} seg_item;

/* `<...>` in a type list where the op says which dialect type it is (`: <f16>, <tensor<..>>`). */
typedef struct parsed_bare_type {
  parsed_shaped *shaped;
  pvec *params;
  src_pos pos;
} parsed_bare_type;

/* One `partitionN(%a: T, ...) num_warps(W) {...}` of ttg.warp_specialize. */
typedef struct parsed_partition {
  const char *name, *keyword, *num_warps; /* "partitionN", "num_warps", the digits */
  ir_region *region;
  src_pos pos;
} parsed_partition;

/* Everything a pretty or generic op form can carry; each format's builder reads its parts. */
typedef struct parsed_op {
  ir_op_kind kind;
  src_pos pos;
  pvec operands;       /* ir_value* */
  pvec operand_pos;    /* src_pos* of each operand use */
  pvec types;          /* types after ':' (before any '->'), in order */
  pvec result_types;   /* types after '->' */
  int type_form;       /* how the types were written: see TYPES_* */
  int star_left;       /* TYPES_STAR_ARROW: how many of `types` come before the '*' */
  pvec attrs;          /* parsed_entry*: attr dict */
  pvec props;          /* parsed_entry*: <{...}> */
  pvec clauses;        /* parsed_clause* */
  pvec regions;        /* ir_region* */
  const char *word;    /* predicate, axis, visibility, rmw op... */
  pvec words;          /* extra leading words (atomics) */
  const char *symbol;  /* @name */
  const ir_attr *value;/* arith.constant value */
  ir_value *index;     /* memdesc_index [%i] */
  ir_block *entry;     /* tt.func / scf.for: pre-made entry block */
  bool has_else;
  pvec items;          /* seg_item*: operand lists with bracketed groups */
  pvec bare_types;     /* parsed_bare_type*: `: <..>, <..>` (type_form TYPES_BARE) */
  pvec partitions;     /* parsed_partition*: ttg.warp_specialize */
  const char *region_word; /* ttg.warp_specialize: the word before the first region ("default") */
} parsed_op;

enum { TYPES_PLAIN, TYPES_ARROW, TYPES_TO, TYPES_STAR_ARROW, TYPES_FUNCTIONAL, TYPES_NONE, TYPES_BARE };

/* A binding of an SSA name: one value, or an op's results for `%x:N` / `%x#i`. */
typedef struct name_binding {
  const char *name;     /* interned, without '%' */
  ir_value *value;      /* single value */
  ir_op *group;         /* multi-result op */
  int group_first, group_count;
} name_binding;

typedef struct undo_entry {
  const char *name;
  name_binding *previous; /* NULL: the name was unbound */
} undo_entry;

/* One open region while parsing: where ops go. */
typedef struct region_frame {
  ir_region *region;
  ir_block *block;      /* current block */
  int undo_mark;        /* scope start in the undo log */
  bool block_labeled;   /* the current block came from a ^label */
} region_frame;

/* A pending `#locN` reference to resolve once the whole file is read. */
typedef struct loc_alias_def {
  const char *name;
  ir_loc *loc;
  src_pos pos;
} loc_alias_def;

typedef struct parse_state {
  gemmc_context *ctx;
  ir_source *src;
  void *scanner;
  size_t offset;      /* bytes consumed by the scanner, for lookahead */
  jmp_buf bailout;
  bool failed;
  bool ok;            /* the parse finished and built a module */
  /* names */
  name_binding **table;
  size_t table_cap, table_count;
  undo_entry *undo;
  int undo_n, undo_cap;
  /* regions */
  region_frame *frames;
  int frames_n, frames_cap;
  /* aliases */
  pvec attr_aliases;  /* parsed_entry*: name -> attr */
  pvec type_aliases;  /* parsed_entry* with value = type attr */
  pvec loc_aliases;   /* loc_alias_def* */
  pvec loc_refs;      /* ir_loc* of kind LOC_ALIAS to resolve */
  pvec top_ops;       /* ops at file level */
  ir_op *module;
  ir_block *pending_entry; /* entry block (with arguments) for the next region to open */
} parse_state;

/* scanner helpers */
const char *parse_token_text(parse_state *ps, const char *text, int len);
/* Decodes a quoted string literal (quotes included) into an interned string; NULL when it
 * holds a NUL byte, escaped or raw, which gemmc refuses. */
const char *parse_string_literal(parse_state *ps, const char *text, int len);
bool parse_value_is_definition(parse_state *ps);
int parse_classify_word(parse_state *ps, const char *text, int len, void *yylval);
int parse_bad_char(parse_state *ps, void *yylloc, unsigned char c);
int parse_lex_error(parse_state *ps, void *yylloc, const char *msg);
void parse_lexer_fatal(const char *msg, void *yyscanner);

/* vectors */
void pv_push(parse_state *ps, pvec *v, void *item);

/* diagnostics at a source position */
void parse_error_at(parse_state *ps, src_pos pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
ir_loc *parse_src_loc(parse_state *ps, src_pos pos);

/* names */
ir_value *parse_lookup_value(parse_state *ps, const char *ref, src_pos pos);
bool parse_bind_results(parse_state *ps, pvec *groups, ir_op *op, src_pos pos);
bool parse_bind_value(parse_state *ps, const char *name, ir_value *v, src_pos pos);

/* regions */
void parse_push_region(parse_state *ps, ir_block *entry);
ir_region *parse_pop_region(parse_state *ps);
/* Unbinds every name bound since undo-log position `mark`. */
void parse_drop_bindings(parse_state *ps, int mark);
bool parse_start_block(parse_state *ps, const char *label, pvec *args, src_pos pos);
void parse_append_op(parse_state *ps, ir_op *op);

/* types and attributes */
parsed_shaped *parse_shape(parse_state *ps, const char *dims, const ir_type *elem, src_pos pos);
const ir_type *parse_tensor_type(parse_state *ps, const parsed_shaped *sh, const ir_attr *encoding, src_pos pos);
/* !tt.ptr<...>, !ttg.memdesc<...> (name NULL: the bare `<...>` memdesc of async copies). */
const ir_type *parse_dialect_type(parse_state *ps, const char *name, const parsed_shaped *sh, pvec *params,
                                  src_pos pos);
const ir_type *parse_type_alias(parse_state *ps, const char *name, src_pos pos);
const ir_attr *parse_number_attr(parse_state *ps, const parsed_number *num, const ir_type *type);
const ir_attr *parse_word_attr(parse_state *ps, const char *word, src_pos pos);
const ir_attr *parse_dict_from_entries(parse_state *ps, pvec *entries, src_pos pos);
const ir_attr *parse_dialect_attr(parse_state *ps, const char *name, const ir_attr *body, src_pos pos);
const ir_attr *parse_attr_ref(parse_state *ps, const char *name, src_pos pos);
const ir_attr *parse_dense(parse_state *ps, const dense_node *body, const ir_type *type, src_pos pos);
const ir_attr *parse_dense_array(parse_state *ps, const ir_type *elem, pvec *numbers, src_pos pos);
void parse_define_attr_alias(parse_state *ps, const char *name, const ir_attr *a, src_pos pos);
void parse_define_type_alias(parse_state *ps, const char *name, const ir_type *t, src_pos pos);

/* locations */
ir_loc *parse_loc_file(parse_state *ps, const char *file, const char *line, const char *col, src_pos pos);
ir_loc *parse_loc_word(parse_state *ps, const char *word, src_pos pos);
ir_loc *parse_loc_name(parse_state *ps, const char *name, ir_loc *child);
ir_loc *parse_loc_callsite(parse_state *ps, ir_loc *callee, const char *at_word, ir_loc *caller, src_pos pos);
ir_loc *parse_loc_fused(parse_state *ps, pvec *locs);
ir_loc *parse_loc_alias_ref(parse_state *ps, const char *name, src_pos pos);
void parse_define_loc_alias(parse_state *ps, const char *name, ir_loc *loc, src_pos pos);
bool parse_resolve_locs(parse_state *ps);

/* ops */
parsed_op *parse_new_op(parse_state *ps, int kind, src_pos pos);
ir_op *parse_build_op(parse_state *ps, parsed_op *p, ir_loc *loc);
bool parse_func_entry(parse_state *ps, parsed_op *p, pvec *args);
/* scf.while's header: the inits become operands, the before region's entry block gets arguments
 * of `types` bound to the binding names, `results` the op's result types. */
bool parse_while_entry(parse_state *ps, parsed_op *p, pvec *bindings, pvec *types, src_pos types_pos, pvec *results);
bool parse_for_entry(parse_state *ps, parsed_op *p, const char *iv_name, src_pos iv_pos, pvec *bindings,
                     const ir_type *iv_type);
bool parse_finish_module(parse_state *ps);

/* Hopper ops (parse_nvgpu.c): formats with bracketed operand groups, tensor descriptors,
 * mbarriers, TMA copies, ttg.warp_specialize. */
ir_op *parse_build_nvgpu_op(parse_state *ps, parsed_op *p, ir_loc *loc);
/* The entry block of a warp_specialize partition: its arguments bound, taken by the next region. */
bool parse_partition_entry(parse_state *ps, pvec *args, src_pos pos);
/* The dialect type a bare `<...>` stands for, as the op's format says (`tt.ptr`, `tt.tensordesc`). */
const ir_type *parse_bare_type(parse_state *ps, const parsed_bare_type *b, const char *dialect_type);

/* Shared by the op builders of parse_ops.c and parse_nvgpu.c. */
ir_op *parse_make_op(parse_state *ps, parsed_op *p, int nres, const ir_type *const *res, ir_loc *loc);
bool parse_apply_attrs(parse_state *ps, parsed_op *p, ir_op *op);
bool parse_attach_regions(parse_state *ps, parsed_op *p, ir_op *op);
bool parse_keyword_clause(parse_state *ps, parsed_op *p, const char *clause_name, const char *attr_name,
                          const char *const *allowed, ir_op *op);
parsed_clause *parse_take_clause(parsed_op *p, const char *name);
bool parse_no_more_clauses(parse_state *ps, parsed_op *p);
bool parse_want_type_form(parse_state *ps, parsed_op *p, int form, int ntypes, int nresults, const char *example);
bool parse_operand_has_type(parse_state *ps, parsed_op *p, int i, const ir_type *t);
/* The one function type written after ':' when its inputs are the operands' types (checked) and
 * it has `num_results` results (-1: any); NULL after "'op' expects <written> with one type per
 * operand" or an operand's type error. */
const ir_type *parse_operand_function_type(parse_state *ps, parsed_op *p, int num_results, const char *written);
extern const char *const *const parse_cache_modifiers;
extern const char *const *const parse_evict_policies;

#endif

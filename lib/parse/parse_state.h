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

/* Everything a pretty or generic op form can carry; each format's builder reads its parts. */
typedef struct parsed_op {
  ir_op_kind kind;
  src_pos pos;
  pvec operands;       /* ir_value* */
  pvec operand_pos;    /* src_pos* of each operand use */
  pvec types;          /* types after ':' (before any '->'), in order */
  pvec result_types;   /* types after '->' */
  int type_form;       /* how the types were written: see TYPES_* */
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
} parsed_op;

enum { TYPES_PLAIN, TYPES_ARROW, TYPES_TO, TYPES_STAR_ARROW, TYPES_FUNCTIONAL, TYPES_NONE };

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
bool parse_for_entry(parse_state *ps, parsed_op *p, const char *iv_name, src_pos iv_pos, pvec *bindings,
                     const ir_type *iv_type);
bool parse_finish_module(parse_state *ps);

#endif

/* Bison grammar for .tir text: Triton's TTIR/TTGIR pretty syntax plus MLIR's generic op form. */
%code requires {
#include "parse_state.h"

typedef struct type_sig {
  int form;
  int star_left; /* TYPES_STAR_ARROW: how many of `types` come before the '*' */
  pvec types, results;
  pvec bare; /* parsed_bare_type*: TYPES_BARE */
} type_sig;
}

%code provides {
int tir_lex(TIR_STYPE *yylval, TIR_LTYPE *yylloc, void *scanner);
void tir_error(TIR_LTYPE *loc, parse_state *ps, void *scanner, const char *msg);
}

%code {
#include <stdio.h>
#include <string.h>

#define POS(l) ((src_pos){(l).first_line, (l).first_column})
#define CHECK(x) do { if (!(x)) YYABORT; } while (0)

static parsed_entry *entry(parse_state *ps, const char *name, const ir_attr *v, src_pos pos) {
  parsed_entry *e = ir_alloc(ps->ctx, sizeof *e);
  e->name = name;
  e->value = v;
  e->pos = pos;
  return e;
}

static parsed_clause *clause(parse_state *ps, const char *name, src_pos pos) {
  parsed_clause *c = ir_alloc(ps->ctx, sizeof *c);
  c->name = name;
  c->pos = pos;
  return c;
}

static pvec *vec_new(parse_state *ps) { return ir_alloc(ps->ctx, sizeof(pvec)); }

static pvec *vec1(parse_state *ps, void *item) {
  pvec *v = vec_new(ps);
  pv_push(ps, v, item);
  return v;
}

static src_pos *pos_copy(parse_state *ps, src_pos p) {
  src_pos *c = ir_alloc(ps->ctx, sizeof *c);
  *c = p;
  return c;
}

static parsed_number *number(parse_state *ps, const char *text, bool negative, int token, src_pos pos) {
  parsed_number *n = ir_alloc(ps->ctx, sizeof *n);
  n->text = text;
  n->negative = negative;
  n->token = token;
  n->pos = pos;
  return n;
}

static type_param *tparam(parse_state *ps, int kind, const ir_attr *a, const char *text, src_pos pos) {
  type_param *t = ir_alloc(ps->ctx, sizeof *t);
  t->kind = kind;
  t->attr = a;
  t->text = text;
  t->pos = pos;
  return t;
}

static seg_item *seg(parse_state *ps, int kind, src_pos pos) {
  seg_item *it = ir_alloc(ps->ctx, sizeof *it);
  it->kind = kind;
  it->pos = pos;
  return it;
}

static type_sig *sig_new(parse_state *ps, int form) {
  type_sig *s = ir_alloc(ps->ctx, sizeof *s);
  s->form = form;
  return s;
}
}

/* Two of these: after `scf.while .. ->`, `(i32)` and `()` are read as the result list (shift),
 * never as the start of a function type `(i32) -> T`, which a result cannot be. */
%expect 7
%define api.pure full
%define api.prefix {tir_}
%define parse.error detailed
%locations
%parse-param {parse_state *ps} {void *scanner}
%lex-param {void *scanner}
%initial-action {
  /* A piece of a file (gemmc-opt --split-input-file) counts lines from where it starts. */
  @$.first_line = @$.last_line = ps->src->first_line > 1 ? ps->src->first_line : 1;
  @$.first_column = @$.last_column = 1;
}

%union {
  const char *str;
  int ival;
  const ir_type *type;
  const ir_attr *attr;
  ir_loc *loc;
  ir_value *value;
  pvec *vec;
  parsed_op *op;
  parsed_entry *entry;
  parsed_clause *clause;
  parsed_arg *arg;
  parsed_number *num;
  dense_node *dense;
  parsed_shaped *shaped;
  type_param *tparam;
  ir_region *region;
  struct type_sig *sig;
  seg_item *sitem;
  parsed_partition *part;
  parsed_bare_type *bare;
}

%token <str> VALUE_ID "SSA value" VALUE_DEF "SSA definition" HASH_ID "#attribute" BANG_ID "!type" AT_ID "@symbol"
%token <str> CARET_ID "block label" DIMS "shape" HEX "hexadecimal literal" INTEGER "integer"
%token <str> FLOAT "float literal" STRING "string" BARE_ID "identifier" DOTTED_ID "dotted identifier"
%token <ival> INT_TYPE "integer type" FLOAT_TYPE "float type"
%token KW_TENSOR "'tensor'" KW_DENSE "'dense'" KW_ARRAY "'array'" KW_LOC "'loc'"
%token KW_ATTRIBUTES "'attributes'" KW_ELSE "'else'" KW_INDEX "'index'" KW_NONE "'none'"
%token ARROW "'->'"
%token <ival> OPTOK_PLAIN "operation" OPTOK_CMP "comparison" OPTOK_ATOMIC "atomic operation"
%token <ival> OPTOK_CONSTANT "'arith.constant'" OPTOK_CALL "'tt.call'" OPTOK_FOR "'scf.for'" OPTOK_IF "'scf.if'"
%token <ival> OPTOK_FUNC "'tt.func'" OPTOK_MODULE "'module'" OPTOK_GENERIC_ONLY "generic-form operation"
%token <ival> OPTOK_IMMEDIATE "operation with an immediate"
%token <ival> OPTOK_SEG "operation with bracketed operands" OPTOK_WS "'ttg.warp_specialize'"
%token <ival> OPTOK_YIELD "terminator"
%token <ival> OPTOK_WHILE "'scf.while'" OPTOK_CONDITION "'scf.condition'"
%token <ival> OPTOK_INLINE_ASM "'tt.elementwise_inline_asm'" OPTOK_PRINT "'tt.print'" OPTOK_ASSERT "'tt.assert'"
%token LEX_ERROR "invalid token"

%type <op> op_body plain_op opt_operands operand_items func_header for_header while_header inline_asm_args print_args
%type <vec> clauses value_list opt_attr_dict attr_dict dict_entries opt_dict_entries result_groups
%type <vec> op_results_opt type_list opt_type_list attr_list opt_attr_list region_list opt_generic_regions
%type <vec> opt_props func_args opt_func_args opt_func_results iter_bindings
%type <vec> atomic_words block_args opt_block_args dims_params opt_if_results loc_list number_list dense_list
%type <vec> opt_iter_args while_bindings while_types
%type <clause> clause opt_trailing_kv
%type <entry> dict_entry
%type <arg> func_arg iter_binding block_arg
%type <num> number
%type <dense> dense_body
%type <value> value_use
%type <type> type func_result
%type <shaped> shaped_or_scalar
%type <tparam> type_param
%type <attr> attribute hash_attr opt_attributes_kw
%type <loc> opt_loc loc_body
%type <sig> opt_type_sig type_sig
%type <region> region opt_else
%type <str> kv_word word opt_sym opt_visibility cmp_word result_group
%type <ival> opt_colon_int
%type <vec> seg_items int_list bare_type_list ws_partitions opt_partition_args
%type <sitem> seg_item seg_juxt
%type <part> ws_partition
%type <bare> bare_type

%%

file:
    %empty
  | file top_item
  ;

top_item:
    HASH_ID '=' attribute            { parse_define_attr_alias(ps, $1, $3, POS(@1)); CHECK(!ps->failed); }
  | HASH_ID '=' KW_LOC '(' loc_body ')' { parse_define_loc_alias(ps, $1, $5, POS(@1)); CHECK(!ps->failed); }
  | BANG_ID '=' type                 { parse_define_type_alias(ps, $1, $3, POS(@1)); CHECK(!ps->failed); }
  | operation
  ;

/* ------------------------------------------------------------------ operations */

operation:
    op_results_opt op_body opt_loc {
      ir_op *op = parse_build_op(ps, $2, $3);
      CHECK(op);
      if ($1) CHECK(parse_bind_results(ps, $1, op, POS(@1)));
      parse_append_op(ps, op);
    }
  ;

op_results_opt:
    %empty                   { $$ = NULL; }
  | result_groups '='        { $$ = $1; }
  ;

result_groups:
    result_group                   { $$ = vec1(ps, (void *)$1); }
  | result_groups ',' result_group { $$ = $1; pv_push(ps, $$, (void *)$3); }
  ;

result_group:
    VALUE_DEF                { $$ = $1; }
  | VALUE_DEF ':' INTEGER    {
      size_t n = strlen($1) + strlen($3) + 2;
      char *s = ir_alloc(ps->ctx, n);
      snprintf(s, n, "%s:%s", $1, $3);
      $$ = s;
    }
  ;

op_body:
    plain_op                 { $$ = $1; }
  | OPTOK_CMP cmp_word ',' operand_items opt_attr_dict opt_type_sig {
      $$ = $4; $$->kind = $1; $$->pos = POS(@1); $$->word = $2;
      if ($5) $$->attrs = *$5;
      if ($6) { $$->type_form = $6->form; $$->types = $6->types; $$->result_types = $6->results; }
      else $$->type_form = TYPES_NONE;
    }
  | OPTOK_ATOMIC atomic_words operand_items opt_attr_dict opt_type_sig {
      $$ = $3; $$->kind = $1; $$->pos = POS(@1); $$->words = *$2;
      if ($4) $$->attrs = *$4;
      if ($5) { $$->type_form = $5->form; $$->types = $5->types; $$->result_types = $5->results; }
      else $$->type_form = TYPES_NONE;
    }
  | OPTOK_IMMEDIATE INTEGER opt_attr_dict {
      $$ = parse_new_op(ps, $1, POS(@1)); $$->word = $2;
      if ($3) $$->attrs = *$3;
      $$->type_form = TYPES_NONE;
    }
  | OPTOK_CONSTANT opt_attr_dict attribute {
      $$ = parse_new_op(ps, $1, POS(@1)); $$->value = $3;
      if ($2) $$->attrs = *$2;
    }
  | OPTOK_CALL AT_ID '(' opt_operands ')' opt_attr_dict opt_type_sig {
      $$ = $4; $$->kind = $1; $$->pos = POS(@1); $$->symbol = $2;
      if ($6) $$->attrs = *$6;
      if ($7) { $$->type_form = $7->form; $$->types = $7->types; $$->result_types = $7->results; }
      else $$->type_form = TYPES_NONE;
    }
  | OPTOK_PRINT STRING opt_attr_dict print_args {
      $$ = $4; $$->kind = $1; $$->pos = POS(@1); $$->word = $2;
      if ($3) $$->attrs = *$3;
      $$->type_form = TYPES_PLAIN;
    }
  | OPTOK_ASSERT value_use ',' STRING opt_attr_dict ':' type {
      $$ = parse_new_op(ps, $1, POS(@1)); $$->word = $4;
      pv_push(ps, &$$->operands, $2);
      pv_push(ps, &$$->operand_pos, pos_copy(ps, POS(@2)));
      if ($5) $$->attrs = *$5;
      $$->type_form = TYPES_PLAIN; pv_push(ps, &$$->types, (void *)$7);
    }
  | OPTOK_INLINE_ASM STRING opt_attr_dict inline_asm_args ARROW type_list {
      $$ = $4; $$->kind = $1; $$->pos = POS(@1); $$->word = $2;
      if ($3) $$->attrs = *$3;
      $$->type_form = TYPES_ARROW; $$->result_types = *$6;
    }
  | STRING '(' opt_operands ')' opt_props opt_generic_regions opt_attr_dict ':' type {
      ir_op_kind k;
      if (!ir_op_kind_from_name($1, strlen($1), &k)) {
        parse_error_at(ps, POS(@1), "unknown operation '%s'", $1);
        YYABORT;
      }
      $$ = $3; $$->kind = (int)k; $$->pos = POS(@1);
      if ($5) $$->props = *$5;
      if ($6) $$->regions = *$6;
      if ($7) $$->attrs = *$7;
      $$->type_form = TYPES_FUNCTIONAL;
      pv_push(ps, &$$->types, (void *)$9);
    }
  | OPTOK_MODULE opt_sym opt_attributes_kw region {
      $$ = parse_new_op(ps, $1, POS(@1)); $$->symbol = $2;
      if ($3) for (int i = 0; i < $3->num_elems; i++)
        pv_push(ps, &$$->attrs, entry(ps, $3->names[i], $3->elems[i], POS(@3)));
      pv_push(ps, &$$->regions, $4);
    }
  | func_header region       { $$ = $1; pv_push(ps, &$$->regions, $2); }
  | func_header              { $$ = $1; }
  | for_header region opt_attr_dict {
      $$ = $1; pv_push(ps, &$$->regions, $2);
      if ($3) $$->attrs = *$3;
    }
  | while_header region BARE_ID region opt_attr_dict {
      if (strcmp($3, "do") != 0) { parse_error_at(ps, POS(@3), "expected 'do', found '%s'", $3); YYABORT; }
      $$ = $1; pv_push(ps, &$$->regions, $2); pv_push(ps, &$$->regions, $4);
      if ($5) $$->attrs = *$5;
    }
  | OPTOK_CONDITION '(' value_use ')' opt_operands opt_type_sig {
      $$ = parse_new_op(ps, $1, POS(@1));
      pv_push(ps, &$$->operands, $3);
      pv_push(ps, &$$->operand_pos, pos_copy(ps, POS(@3)));
      for (int i = 0; i < $5->operands.n; i++) {
        pv_push(ps, &$$->operands, $5->operands.items[i]);
        pv_push(ps, &$$->operand_pos, i < $5->operand_pos.n ? $5->operand_pos.items[i] : NULL);
      }
      if ($6) { $$->type_form = $6->form; $$->types = $6->types; $$->result_types = $6->results; }
      else $$->type_form = TYPES_NONE;
    }
  | OPTOK_IF value_use opt_if_results region opt_else opt_attr_dict {
      $$ = parse_new_op(ps, $1, POS(@1));
      pv_push(ps, &$$->operands, $2);
      pv_push(ps, &$$->operand_pos, pos_copy(ps, POS(@2)));
      if ($3) $$->result_types = *$3;
      pv_push(ps, &$$->regions, $4);
      $$->has_else = $5 != NULL;
      pv_push(ps, &$$->regions, $5 ? $5 : (ir_region *)ir_alloc(ps->ctx, sizeof(ir_region)));
      if ($6) $$->attrs = *$6;
    }
  | OPTOK_GENERIC_ONLY {
      parse_error_at(ps, POS(@1), "'%s' has no custom assembly form; write it in generic form: \"%s\"(...)",
                     ir_op_info_of((ir_op_kind)$1)->name, ir_op_info_of((ir_op_kind)$1)->name);
      YYABORT;
    }
  | DOTTED_ID {
      parse_error_at(ps, POS(@1), "unknown operation '%s'", $1);
      YYABORT;
    }
  | OPTOK_SEG seg_items opt_type_sig {
      $$ = parse_new_op(ps, $1, POS(@1)); $$->items = *$2;
      if ($3) {
        $$->type_form = $3->form; $$->types = $3->types; $$->result_types = $3->results; $$->bare_types = $3->bare;
        $$->star_left = $3->star_left;
      }
    }
  | OPTOK_YIELD opt_attr_dict opt_operands opt_type_sig {
      $$ = $3; $$->kind = $1; $$->pos = POS(@1);
      if ($2) $$->attrs = *$2;
      if ($4) { $$->type_form = $4->form; $$->types = $4->types; $$->result_types = $4->results; $$->bare_types = $4->bare; }
      else $$->type_form = TYPES_NONE;
    }
  | OPTOK_WS '(' opt_operands ')' opt_attributes_kw BARE_ID region ws_partitions ':' type {
      $$ = $3; $$->kind = $1; $$->pos = POS(@1);
      if ($5) for (int i = 0; i < $5->num_elems; i++)
        pv_push(ps, &$$->attrs, entry(ps, $5->names[i], $5->elems[i], POS(@5)));
      $$->region_word = $6;
      pv_push(ps, &$$->regions, $7);
      if ($8) $$->partitions = *$8;
      $$->type_form = TYPES_PLAIN;
      pv_push(ps, &$$->types, (void *)$10);
    }
  ;

/* ------------------------------------------------------------------ bracketed operand lists */

/* `%d[%i, %j] %buf, %bar, %pred cacheModifier = cg`, `%p, [%a, %b], [%c, %d]`,
 * `%bar, 16384 {attrs}, %pred`, `%m[16, 32]`: the builder reads the items in order. */
seg_items:
    seg_item                 { $$ = vec1(ps, $1); }
  | seg_items ',' seg_item   { $$ = $1; pv_push(ps, $$, $3); }
  | seg_items seg_juxt       { $$ = $1; $2->juxtaposed = true; pv_push(ps, $$, $2); }
  ;

seg_item:
    seg_juxt                 { $$ = $1; }
  | value_use '[' ']'        { $$ = seg(ps, SEG_INDEXED, POS(@1)); $$->value = $1; }
  | value_use '[' value_list ']' { $$ = seg(ps, SEG_INDEXED, POS(@1)); $$->value = $1; $$->values = *$3; }
  | value_use '[' int_list ']' { $$ = seg(ps, SEG_INDEXED, POS(@1)); $$->value = $1; $$->ints = *$3; }
  | '[' ']'                  { $$ = seg(ps, SEG_GROUP, POS(@1)); }
  | '[' value_list ']'       { $$ = seg(ps, SEG_GROUP, POS(@1)); $$->values = *$2; }
  | INTEGER                  { $$ = seg(ps, SEG_INT, POS(@1)); $$->text = $1; }
  ;

/* Items that may also follow the previous one without a comma. */
seg_juxt:
    value_use                { $$ = seg(ps, SEG_VALUE, POS(@1)); $$->value = $1; }
  | attr_dict                { $$ = seg(ps, SEG_ATTRS, POS(@1)); $$->attrs = $1; }
  | BARE_ID                  { $$ = seg(ps, SEG_WORD, POS(@1)); $$->text = $1; }
  | BARE_ID '=' kv_word      { $$ = seg(ps, SEG_KV, POS(@1)); $$->text = $1; $$->word = $3; }
  | BARE_ID '=' '[' ']'      { $$ = seg(ps, SEG_KV_GROUP, POS(@1)); $$->text = $1; }
  | BARE_ID '=' '[' value_list ']' { $$ = seg(ps, SEG_KV_GROUP, POS(@1)); $$->text = $1; $$->values = *$4; }
  ;

int_list:
    INTEGER                  { $$ = vec1(ps, (void *)$1); }
  | int_list ',' INTEGER     { $$ = $1; pv_push(ps, $$, (void *)$3); }
  ;

/* ------------------------------------------------------------------ ttg.warp_specialize */

ws_partitions:
    %empty                   { $$ = NULL; }
  | ws_partitions ws_partition { $$ = $1 ? $1 : vec_new(ps); pv_push(ps, $$, $2); }
  ;

ws_partition:
    BARE_ID '(' opt_partition_args ')' BARE_ID '(' INTEGER ')'
      { CHECK(parse_partition_entry(ps, $3 ? $3 : vec_new(ps), POS(@1))); }
    region {
      $$ = ir_alloc(ps->ctx, sizeof *$$);
      $$->name = $1; $$->keyword = $5; $$->num_warps = $7; $$->region = $10; $$->pos = POS(@1);
    }
  ;

/* tt.print's values, when it has any: `: %a, %b : T, U` */
print_args:
    %empty                   { $$ = parse_new_op(ps, 0, POS(@$)); }
  | ':' operand_items ':' type_list { $$ = $2; $$->types = *$4; }
  ;

/* tt.elementwise_inline_asm's operands, when it has any: `%a, %b : T, U` */
inline_asm_args:
    %empty                   { $$ = parse_new_op(ps, 0, POS(@$)); }
  | operand_items ':' type_list { $$ = $1; $$->types = *$3; }
  ;

opt_partition_args:
    %empty                   { $$ = NULL; }
  | block_args               { $$ = $1; }
  ;

plain_op:
    OPTOK_PLAIN opt_operands clauses opt_attr_dict opt_trailing_kv opt_type_sig {
      $$ = $2; $$->kind = $1; $$->pos = POS(@1);
      if ($3) $$->clauses = *$3;
      if ($4) $$->attrs = *$4;
      if ($5) pv_push(ps, &$$->clauses, $5);
      if ($6) { $$->type_form = $6->form; $$->types = $6->types; $$->result_types = $6->results; }
      else $$->type_form = TYPES_NONE;
    }
  ;

cmp_word:
    BARE_ID                  { $$ = $1; }
  | STRING                   { $$ = $1; }
  ;

atomic_words:
    BARE_ID ','              { $$ = vec1(ps, (void *)$1); }
  | atomic_words BARE_ID ',' { $$ = $1; pv_push(ps, $$, (void *)$2); }
  ;

opt_operands:
    %empty                   { $$ = parse_new_op(ps, 0, POS(@$)); }
  | operand_items            { $$ = $1; }
  ;

operand_items:
    value_use {
      $$ = parse_new_op(ps, 0, POS(@1));
      pv_push(ps, &$$->operands, $1);
      pv_push(ps, &$$->operand_pos, pos_copy(ps, POS(@1)));
    }
  | value_use '[' value_use ']' {
      $$ = parse_new_op(ps, 0, POS(@1));
      pv_push(ps, &$$->operands, $1);
      pv_push(ps, &$$->operand_pos, pos_copy(ps, POS(@1)));
      $$->index = $3;
    }
  | operand_items ',' value_use {
      $$ = $1;
      pv_push(ps, &$$->operands, $3);
      pv_push(ps, &$$->operand_pos, pos_copy(ps, POS(@3)));
    }
  | operand_items ',' BARE_ID '=' kv_word {
      $$ = $1;
      parsed_clause *c = clause(ps, $3, POS(@3));
      c->word = $5;
      pv_push(ps, &$$->clauses, c);
    }
  ;

clauses:
    %empty                   { $$ = NULL; }
  | clauses clause           { $$ = $1 ? $1 : vec_new(ps); pv_push(ps, $$, $2); }
  ;

clause:
    BARE_ID                  { $$ = clause(ps, $1, POS(@1)); }
  | BARE_ID '=' kv_word      { $$ = clause(ps, $1, POS(@1)); $$->word = $3; }
  | BARE_ID value_list       { $$ = clause(ps, $1, POS(@1)); $$->values = *$2; }
  ;

opt_trailing_kv:
    %empty                   { $$ = NULL; }
  | ',' BARE_ID '=' kv_word  { $$ = clause(ps, $2, POS(@2)); $$->word = $4; }
  ;

/* An enum value in a clause; `tf32` lexes as a type. */
kv_word:
    BARE_ID                  { $$ = $1; }
  | FLOAT_TYPE               { $$ = ir_float_kind_name((ir_float_kind)$1); }
  | KW_NONE                  { $$ = "none"; } /* tt.clampf's propagateNan = none */
  ;

value_list:
    value_use                { $$ = vec1(ps, $1); }
  | value_list ',' value_use { $$ = $1; pv_push(ps, $$, $3); }
  ;

value_use:
    VALUE_ID                 { $$ = parse_lookup_value(ps, $1, POS(@1)); CHECK($$); }
  ;

opt_type_sig:
    %empty                   { $$ = NULL; }
  | ':' type_sig             { $$ = $2; }
  ;

type_sig:
    type_list                { $$ = sig_new(ps, TYPES_PLAIN); $$->types = *$1; }
  | type_list ARROW func_result {
      $$ = sig_new(ps, TYPES_ARROW); $$->types = *$1; pv_push(ps, &$$->results, (void *)$3);
    }
  | type_list ARROW '<' shaped_or_scalar dims_params '>' {
      $$ = sig_new(ps, TYPES_ARROW); $$->types = *$1;
      const ir_type *t = parse_dialect_type(ps, NULL, $4, $5, POS(@3));
      CHECK(t);
      pv_push(ps, &$$->results, (void *)t);
    }
  | type BARE_ID type {
      if (strcmp($2, "to") != 0) { parse_error_at(ps, POS(@2), "expected 'to', found '%s'", $2); YYABORT; }
      $$ = sig_new(ps, TYPES_TO); pv_push(ps, &$$->types, (void *)$1); pv_push(ps, &$$->results, (void *)$3);
    }
  | type_list '*' type_list ARROW type {
      $$ = sig_new(ps, TYPES_STAR_ARROW); $$->types = *$1; $$->star_left = $1->n;
      for (int i = 0; i < $3->n; i++) pv_push(ps, &$$->types, $3->items[i]);
      pv_push(ps, &$$->results, (void *)$5);
    }
  | bare_type_list           { $$ = sig_new(ps, TYPES_BARE); $$->bare = *$1; }
  ;

/* Types printed without their dialect prefix (`<f16>`, `<tensor<128x64xf16>>`); the op's format says
 * which type each one is. */
bare_type_list:
    bare_type                { $$ = vec1(ps, $1); }
  | bare_type_list ',' bare_type { $$ = $1; pv_push(ps, $$, $3); }
  ;

bare_type:
    '<' shaped_or_scalar dims_params '>' {
      $$ = ir_alloc(ps->ctx, sizeof *$$); $$->shaped = $2; $$->params = $3; $$->pos = POS(@1);
    }
  ;

/* ------------------------------------------------------------------ functions, loops, ifs, regions */

func_header:
    OPTOK_FUNC opt_visibility AT_ID '(' opt_func_args ')' opt_func_results opt_attributes_kw {
      $$ = parse_new_op(ps, $1, POS(@1));
      $$->word = $2;
      $$->symbol = $3;
      if ($7) $$->result_types = *$7;
      if ($8) for (int i = 0; i < $8->num_elems; i++)
        pv_push(ps, &$$->attrs, entry(ps, $8->names[i], $8->elems[i], POS(@8)));
      CHECK(parse_func_entry(ps, $$, $5 ? $5 : vec_new(ps)));
    }
  ;

opt_visibility:
    %empty                   { $$ = NULL; }
  | BARE_ID                  { $$ = $1; }
  ;

opt_func_args:
    %empty                   { $$ = NULL; }
  | func_args                { $$ = $1; }
  ;

func_args:
    func_arg                 { $$ = vec1(ps, $1); }
  | func_args ',' func_arg   { $$ = $1; pv_push(ps, $$, $3); }
  ;

func_arg:
    VALUE_ID ':' type opt_attr_dict opt_loc {
      $$ = ir_alloc(ps->ctx, sizeof *$$);
      $$->name = $1; $$->type = $3; $$->attrs = $4; $$->loc = $5; $$->pos = POS(@1);
    }
  | type opt_attr_dict opt_loc {  /* declarations print types only */
      $$ = ir_alloc(ps->ctx, sizeof *$$);
      $$->type = $1; $$->attrs = $2; $$->loc = $3; $$->pos = POS(@1);
    }
  ;

opt_func_results:
    %empty                   { $$ = NULL; }
  | ARROW type               { $$ = vec1(ps, (void *)$2); }
  | ARROW '(' opt_type_list ')' { $$ = $3 ? $3 : vec_new(ps); }
  ;

opt_attributes_kw:
    %empty                   { $$ = NULL; }
  | KW_ATTRIBUTES attr_dict  { $$ = parse_dict_from_entries(ps, $2, POS(@2)); CHECK(!ps->failed); }
  ;

opt_sym:
    %empty                   { $$ = NULL; }
  | AT_ID                    { $$ = $1; }
  ;

for_header:
    OPTOK_FOR VALUE_DEF '=' value_use BARE_ID value_use BARE_ID value_use opt_iter_args opt_colon_int {
      if (strcmp($5, "to") != 0) { parse_error_at(ps, POS(@5), "expected 'to', found '%s'", $5); YYABORT; }
      if (strcmp($7, "step") != 0) { parse_error_at(ps, POS(@7), "expected 'step', found '%s'", $7); YYABORT; }
      $$ = parse_new_op(ps, $1, POS(@1));
      pv_push(ps, &$$->operands, $4); pv_push(ps, &$$->operand_pos, pos_copy(ps, POS(@4)));
      pv_push(ps, &$$->operands, $6); pv_push(ps, &$$->operand_pos, pos_copy(ps, POS(@6)));
      pv_push(ps, &$$->operands, $8); pv_push(ps, &$$->operand_pos, pos_copy(ps, POS(@8)));
      const ir_type *iv_type = $10 ? ir_int_type(ps->ctx, (unsigned)$10) : ir_index_type(ps->ctx);
      CHECK(parse_for_entry(ps, $$, $2, POS(@2), $9 ? $9 : vec_new(ps), iv_type));
    }
  ;

/* scf.while (%a = %x, ..) : (T..) -> (R..): the before region's arguments, like iter_args. */
while_header:
    OPTOK_WHILE while_bindings ':' while_types ARROW while_types {
      $$ = parse_new_op(ps, $1, POS(@1));
      CHECK(parse_while_entry(ps, $$, $2, $4, POS(@4), $6));
    }
  | OPTOK_WHILE while_bindings ':' while_types ARROW type {
      $$ = parse_new_op(ps, $1, POS(@1));
      CHECK(parse_while_entry(ps, $$, $2, $4, POS(@4), vec1(ps, (void *)$6)));
    }
  /* no loop-carried values: MLIR prints `scf.while : () -> () {` without the bindings */
  | OPTOK_WHILE ':' while_types ARROW while_types {
      $$ = parse_new_op(ps, $1, POS(@1));
      CHECK(parse_while_entry(ps, $$, vec_new(ps), $3, POS(@3), $5));
    }
  ;

while_bindings:
    '(' ')'                  { $$ = vec_new(ps); }
  | '(' iter_bindings ')'    { $$ = $2; }
  ;

while_types:
    '(' ')'                  { $$ = vec_new(ps); }
  | '(' type_list ')'        { $$ = $2; }
  ;

opt_colon_int:
    %empty                   { $$ = 0; }
  | ':' INT_TYPE             { $$ = $2; }
  | ':' KW_INDEX             { $$ = 0; }
  ;

/* The bindings, each given its type from the result list. */
opt_iter_args:
    %empty                   { $$ = NULL; }
  | BARE_ID '(' iter_bindings ')' ARROW '(' type_list ')' {
      if (strcmp($1, "iter_args") != 0) { parse_error_at(ps, POS(@1), "expected 'iter_args', found '%s'", $1); YYABORT; }
      if ($3->n != $7->n) {
        parse_error_at(ps, POS(@6), "scf.for has %d iter_args but %d result types", $3->n, $7->n);
        YYABORT;
      }
      for (int i = 0; i < $3->n; i++) ((parsed_arg *)$3->items[i])->type = $7->items[i];
      $$ = $3;
    }
  ;

iter_bindings:
    iter_binding                   { $$ = vec1(ps, $1); }
  | iter_bindings ',' iter_binding { $$ = $1; pv_push(ps, $$, $3); }
  ;

iter_binding:
    VALUE_DEF '=' value_use {
      $$ = ir_alloc(ps->ctx, sizeof *$$);
      $$->name = $1; $$->init = $3; $$->pos = POS(@1);
    }
  ;

opt_if_results:
    %empty                   { $$ = NULL; }
  | ARROW '(' type_list ')'  { $$ = $3; }
  | ARROW type               { $$ = vec1(ps, (void *)$2); }
  ;

opt_else:
    %empty                   { $$ = NULL; }
  | KW_ELSE region           { $$ = $2; }
  ;

region:
    '{' { parse_push_region(ps, NULL); } region_items '}' { $$ = parse_pop_region(ps); }
  ;

region_items:
    %empty
  | region_items region_item
  ;

region_item:
    operation
  | CARET_ID opt_block_args ':' { CHECK(parse_start_block(ps, $1, $2 ? $2 : vec_new(ps), POS(@1))); }
  ;

opt_block_args:
    %empty                   { $$ = NULL; }
  | '(' block_args ')'       { $$ = $2; }
  ;

block_args:
    block_arg                { $$ = vec1(ps, $1); }
  | block_args ',' block_arg { $$ = $1; pv_push(ps, $$, $3); }
  ;

block_arg:
    VALUE_ID ':' type opt_loc {
      $$ = ir_alloc(ps->ctx, sizeof *$$);
      $$->name = $1; $$->type = $3; $$->loc = $4; $$->pos = POS(@1);
    }
  ;

opt_generic_regions:
    %empty                   { $$ = NULL; }
  | '(' region_list ')'      { $$ = $2; }
  ;

region_list:
    region                   { $$ = vec1(ps, $1); }
  | region_list ',' region   { $$ = $1; pv_push(ps, $$, $3); }
  ;

opt_props:
    %empty                   { $$ = NULL; }
  | '<' '{' opt_dict_entries '}' '>' { $$ = $3 ? $3 : vec_new(ps); }
  ;

/* ------------------------------------------------------------------ locations */

opt_loc:
    %empty                   { $$ = NULL; }
  | KW_LOC '(' loc_body ')'  { $$ = $3; }
  ;

loc_body:
    STRING ':' INTEGER ':' INTEGER { $$ = parse_loc_file(ps, $1, $3, $5, POS(@1)); CHECK($$); }
  | STRING                   { $$ = parse_loc_name(ps, $1, NULL); }
  | STRING '(' loc_body ')'  { $$ = parse_loc_name(ps, $1, $3); }
  | BARE_ID                  { $$ = parse_loc_word(ps, $1, POS(@1)); CHECK($$); }
  | BARE_ID '(' loc_body BARE_ID loc_body ')' { $$ = parse_loc_callsite(ps, $3, $4, $5, POS(@1)); CHECK($$); }
  | BARE_ID '[' loc_list ']' {
      if (strcmp($1, "fused") != 0) { parse_error_at(ps, POS(@1), "expected 'fused', found '%s'", $1); YYABORT; }
      $$ = parse_loc_fused(ps, $3);
    }
  | HASH_ID                  { $$ = parse_loc_alias_ref(ps, $1, POS(@1)); }
  ;

loc_list:
    loc_body                 { $$ = vec1(ps, $1); }
  | loc_list ',' loc_body    { $$ = $1; pv_push(ps, $$, $3); }
  ;

/* ------------------------------------------------------------------ types */

type:
    INT_TYPE                 { $$ = ir_int_type(ps->ctx, (unsigned)$1); }
  | FLOAT_TYPE               { $$ = ir_float_type(ps->ctx, (ir_float_kind)$1); }
  | KW_INDEX                 { $$ = ir_index_type(ps->ctx); }
  | KW_NONE                  { $$ = ir_none_type(ps->ctx); }
  | KW_TENSOR '<' shaped_or_scalar '>' { $$ = parse_tensor_type(ps, $3, NULL, POS(@1)); CHECK($$); }
  | KW_TENSOR '<' shaped_or_scalar ',' attribute '>' { $$ = parse_tensor_type(ps, $3, $5, POS(@1)); CHECK($$); }
  | BANG_ID '<' shaped_or_scalar dims_params '>' { $$ = parse_dialect_type(ps, $1, $3, $4, POS(@1)); CHECK($$); }
  | BANG_ID                  { $$ = parse_type_alias(ps, $1, POS(@1)); CHECK($$); }
  | '(' opt_type_list ')' ARROW func_result {
      int n = $2 ? $2->n : 0;
      int r;
      const ir_type *const *res;
      if ($5->kind == TY_FUNC && $5->num_inputs == -1) { r = $5->num_results; res = $5->results; }
      else { r = 1; res = &$5; }
      $$ = ir_func_type(ps->ctx, n, n ? (const ir_type *const *)$2->items : NULL, r, res);
    }
  ;

shaped_or_scalar:
    type                     { $$ = parse_shape(ps, "", $1, POS(@1)); CHECK($$); }
  | DIMS type                { $$ = parse_shape(ps, $1, $2, POS(@1)); CHECK($$); }
  ;

dims_params:
    %empty                   { $$ = NULL; }
  | dims_params ',' type_param { $$ = $1 ? $1 : vec_new(ps); pv_push(ps, $$, $3); }
  ;

type_param:
    hash_attr                { $$ = tparam(ps, TP_ATTR, $1, NULL, POS(@1)); }
  | INTEGER                  { $$ = tparam(ps, TP_INT, NULL, $1, POS(@1)); }
  | DIMS INTEGER             {
      size_t n = strlen($1) + strlen($2) + 1;
      char *s = ir_alloc(ps->ctx, n);
      snprintf(s, n, "%s%s", $1, $2);
      $$ = tparam(ps, TP_DIMS, NULL, s, POS(@1));
    }
  | BARE_ID                  { $$ = tparam(ps, TP_WORD, NULL, $1, POS(@1)); }
  ;

func_result:
    type                     { $$ = $1; }
  | '(' opt_type_list ')'    {
      /* a result list: wrap as a marker function type with num_inputs -1 */
      ir_type *t = ir_alloc(ps->ctx, sizeof *t);
      t->kind = TY_FUNC;
      t->num_inputs = -1;
      t->num_results = $2 ? $2->n : 0;
      t->results = $2 ? (const ir_type *const *)$2->items : NULL;
      $$ = t;
    }
  ;

opt_type_list:
    %empty                   { $$ = NULL; }
  | type_list                { $$ = $1; }
  ;

type_list:
    type                     { $$ = vec1(ps, (void *)$1); }
  | type_list ',' type       { $$ = $1; pv_push(ps, $$, (void *)$3); }
  ;

/* ------------------------------------------------------------------ attributes */

opt_attr_dict:
    %empty                   { $$ = NULL; }
  | attr_dict                { $$ = $1; }
  ;

attr_dict:
    '{' opt_dict_entries '}' { $$ = $2 ? $2 : vec_new(ps); }
  ;

opt_dict_entries:
    %empty                   { $$ = NULL; }
  | dict_entries             { $$ = $1; }
  ;

dict_entries:
    dict_entry               { $$ = vec1(ps, $1); }
  | dict_entries ',' dict_entry { $$ = $1; pv_push(ps, $$, $3); }
  ;

dict_entry:
    word '=' attribute       { $$ = entry(ps, $1, $3, POS(@1)); }
  | word                     { $$ = entry(ps, $1, ir_unit_attr(ps->ctx), POS(@1)); }
  ;

word:
    BARE_ID                  { $$ = $1; }
  | DOTTED_ID                { $$ = $1; }
  | STRING                   { $$ = $1; }
  | OPTOK_PLAIN                 { $$ = ir_op_info_of((ir_op_kind)$1)->name; }
  | OPTOK_SEG                { $$ = ir_op_info_of((ir_op_kind)$1)->name; }
  | OPTOK_WS                 { $$ = ir_op_info_of((ir_op_kind)$1)->name; }
  | OPTOK_YIELD              { $$ = ir_op_info_of((ir_op_kind)$1)->name; }
  | KW_LOC                   { $$ = "loc"; }
  | KW_ELSE                  { $$ = "else"; }
  | KW_ATTRIBUTES            { $$ = "attributes"; }
  | KW_DENSE                 { $$ = "dense"; }
  | KW_ARRAY                 { $$ = "array"; }
  | KW_TENSOR                { $$ = "tensor"; }
  | KW_INDEX                 { $$ = "index"; }
  | KW_NONE                  { $$ = "none"; }
  ;

attribute:
    number                   { $$ = parse_number_attr(ps, $1, NULL); CHECK($$); }
  | number ':' type          { $$ = parse_number_attr(ps, $1, $3); CHECK($$); }
  | STRING                   { $$ = ir_string_attr(ps->ctx, $1, strlen($1)); }
  | BARE_ID                  { $$ = parse_word_attr(ps, $1, POS(@1)); CHECK($$); }
  | '[' opt_attr_list ']'    {
      int n = $2 ? $2->n : 0;
      $$ = ir_array_attr(ps->ctx, n, n ? (const ir_attr *const *)$2->items : NULL);
    }
  | attr_dict                { $$ = parse_dict_from_entries(ps, $1, POS(@1)); CHECK(!ps->failed); }
  | KW_DENSE '<' dense_body '>' ':' type { $$ = parse_dense(ps, $3, $6, POS(@1)); CHECK($$); }
  | KW_DENSE '<' '>' ':' type { $$ = parse_dense(ps, NULL, $5, POS(@1)); CHECK($$); }
  | KW_ARRAY '<' type ':' number_list '>' { $$ = parse_dense_array(ps, $3, $5, POS(@1)); CHECK($$); }
  | KW_ARRAY '<' type '>'    { $$ = parse_dense_array(ps, $3, vec_new(ps), POS(@1)); CHECK($$); }
  | AT_ID                    { $$ = ir_symbol_attr(ps->ctx, $1); }
  | hash_attr                { $$ = $1; }
  | INT_TYPE                 { $$ = ir_type_attr(ps->ctx, ir_int_type(ps->ctx, (unsigned)$1)); }
  | '(' opt_type_list ')' ARROW func_result {
      int n = $2 ? $2->n : 0;
      int r;
      const ir_type *const *res;
      if ($5->kind == TY_FUNC && $5->num_inputs == -1) { r = $5->num_results; res = $5->results; }
      else { r = 1; res = &$5; }
      $$ = ir_type_attr(ps->ctx, ir_func_type(ps->ctx, n, n ? (const ir_type *const *)$2->items : NULL, r, res));
    }
  | FLOAT_TYPE               { $$ = ir_type_attr(ps->ctx, ir_float_type(ps->ctx, (ir_float_kind)$1)); }
  | BANG_ID '<' shaped_or_scalar dims_params '>' {
      const ir_type *t = parse_dialect_type(ps, $1, $3, $4, POS(@1));
      CHECK(t);
      $$ = ir_type_attr(ps->ctx, t);
    }
  | KW_TENSOR '<' shaped_or_scalar '>' {
      const ir_type *t = parse_tensor_type(ps, $3, NULL, POS(@1)); CHECK(t);
      $$ = ir_type_attr(ps->ctx, t);
    }
  ;

number:
    INTEGER                  { $$ = number(ps, $1, false, INTEGER, POS(@1)); }
  | '-' INTEGER              { $$ = number(ps, $2, true, INTEGER, POS(@1)); }
  | FLOAT                    { $$ = number(ps, $1, false, FLOAT, POS(@1)); }
  | '-' FLOAT                { $$ = number(ps, $2, true, FLOAT, POS(@1)); }
  | HEX                      { $$ = number(ps, $1, false, HEX, POS(@1)); }
  ;

number_list:
    number                   { $$ = vec1(ps, $1); }
  | number_list ',' number   { $$ = $1; pv_push(ps, $$, $3); }
  ;

dense_body:
    number                   { $$ = ir_alloc(ps->ctx, sizeof *$$); $$->number = $1; $$->pos = POS(@1); }
  | BARE_ID                  { $$ = ir_alloc(ps->ctx, sizeof *$$); $$->word = $1; $$->pos = POS(@1); }
  | '[' ']'                  { $$ = ir_alloc(ps->ctx, sizeof *$$); $$->is_list = true; $$->pos = POS(@1); }
  | '[' dense_list ']'       {
      $$ = ir_alloc(ps->ctx, sizeof *$$); $$->is_list = true; $$->children = *$2; $$->pos = POS(@1);
    }
  ;

dense_list:
    dense_body               { $$ = vec1(ps, $1); }
  | dense_list ',' dense_body { $$ = $1; pv_push(ps, $$, $3); }
  ;

hash_attr:
    HASH_ID                  { $$ = parse_attr_ref(ps, $1, POS(@1)); CHECK($$); }
  | HASH_ID '<' attribute '>' { $$ = parse_dialect_attr(ps, $1, $3, POS(@1)); CHECK($$); }
  ;

opt_attr_list:
    %empty                   { $$ = NULL; }
  | attr_list                { $$ = $1; }
  ;

attr_list:
    attribute                { $$ = vec1(ps, (void *)$1); }
  | attr_list ',' attribute  { $$ = $1; pv_push(ps, $$, (void *)$3); }
  ;

%%

void tir_error(TIR_LTYPE *loc, parse_state *ps, void *scanner, const char *msg) {
  (void)scanner;
  if (ps->failed) return; /* the lexer or an action already said what is wrong */
  if (strcmp(msg, "memory exhausted") == 0) /* bison's stack limit (YYMAXDEPTH) */
    msg = "input is nested too deeply (more than 10000 open brackets)";
  parse_error_at(ps, POS(*loc), "%s", msg);
}

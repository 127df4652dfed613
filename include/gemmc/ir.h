/* gemmc IR: context, interned types and attributes, SSA values, ops, blocks, regions. */
#ifndef GEMMC_IR_H
#define GEMMC_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IR_MAX_RANK 16

typedef struct gemmc_context gemmc_context;
typedef struct ir_type ir_type;
typedef struct ir_attr ir_attr;
typedef struct ir_loc ir_loc;
typedef struct ir_value ir_value;
typedef struct ir_operand ir_operand;
typedef struct ir_op ir_op;
typedef struct ir_block ir_block;
typedef struct ir_region ir_region;

/* ------------------------------------------------------------------ context */

/* Allocator the embedder may replace (Lua style): realloc semantics, size 0 frees. */
typedef void *(*gemmc_alloc_fn)(void *user, void *ptr, size_t old_size, size_t new_size);

gemmc_context *gemmc_context_create(void);
gemmc_context *gemmc_context_create_with_allocator(gemmc_alloc_fn fn, void *user);
/* Frees every type, attribute, op and string the context ever made. */
void gemmc_context_destroy(gemmc_context *ctx);

/* Arena memory owned by the context, zero-filled. When the allocator fails, the context
 * records it (gemmc_context_out_of_memory) and unwinds to the entry point that is running
 * (parser, pass runner, compiler), which reports it; code that builds IR outside those entry
 * points must use an allocator that does not fail. */
void *ir_alloc(gemmc_context *ctx, size_t size);
char *ir_strdup(gemmc_context *ctx, const char *s, size_t len);
/* Interned string: equal strings give the same pointer. */
const char *ir_intern_string(gemmc_context *ctx, const char *s, size_t len);
bool gemmc_context_out_of_memory(const gemmc_context *ctx);

/* Caps the bytes the context takes from its allocator (IR, tables, scratch; not LLVM's memory):
 * an allocation past the cap fails like one the allocator refused. 0 restores the default,
 * GEMMC_DEFAULT_MEMORY_LIMIT (gemmc/limits.h). */
void gemmc_context_set_memory_limit(gemmc_context *ctx, size_t bytes);
size_t gemmc_context_memory_in_use(const gemmc_context *ctx);
/* True when the last allocation failure was the memory limit rather than the allocator. */
bool gemmc_context_over_memory_limit(const gemmc_context *ctx);
/* Runs fn(ctx, user) as an entry point: an allocation failure anywhere inside unwinds back here
 * and becomes an "out of memory" error, and guard returns false. Returns fn's result otherwise.
 * Memory a failed fn had taken stays with the context until gemmc_context_destroy. */
bool gemmc_context_guard(gemmc_context *ctx, bool (*fn)(gemmc_context *ctx, void *user), void *user);

/* ------------------------------------------------------------------ diagnostics */

typedef enum { IR_DIAG_ERROR, IR_DIAG_WARNING, IR_DIAG_NOTE, IR_DIAG_REMARK } ir_diag_severity;

/* A source buffer registered with the context so diagnostics can show the line. */
typedef struct ir_source {
  const char *name;
  const char *text;
  size_t len;
  int first_line; /* the line number of text's first line in the file (0 means 1) */
} ir_source;

struct ir_loc {
  enum { LOC_UNKNOWN, LOC_FILE, LOC_NAME, LOC_CALLSITE, LOC_FUSED, LOC_ALIAS } kind;
  const char *file; /* LOC_FILE */
  int line, col;    /* LOC_FILE */
  const char *name; /* LOC_NAME: the name; LOC_ALIAS: the alias ("loc12") before resolution */
  ir_loc *child;    /* LOC_NAME: the location it names (may be NULL) */
  ir_loc *callee, *caller; /* LOC_CALLSITE */
  int num_fused;
  ir_loc **fused;
  /* Where the loc(...) text itself was in the .tir file (for the primary diagnostic). */
  const ir_source *src;
  int src_line, src_col;
};

/* Diagnostic sink: every diagnostic goes through it. Default prints to stderr. */
typedef void (*ir_diag_handler)(void *user, ir_diag_severity sev, const ir_loc *loc,
                                const char *message);
void ir_set_diag_handler(gemmc_context *ctx, ir_diag_handler fn, void *user);
/* Prints `file:line:col: error: message`, the source line and a caret. */
void ir_emit_diag(gemmc_context *ctx, ir_diag_severity sev, const ir_loc *loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define ir_error(ctx, loc, ...) ir_emit_diag((ctx), IR_DIAG_ERROR, (loc), __VA_ARGS__)
int ir_error_count(const gemmc_context *ctx);
/* Formats a diagnostic the standard way into f (used by the default handler). */
void ir_print_diag(FILE *f, ir_diag_severity sev, const ir_loc *loc, const char *message);
/* The location of the .tir text (file:line:col of the op) for a diagnostic. */
ir_loc *ir_loc_file(gemmc_context *ctx, const ir_source *src, int line, int col);
ir_loc *ir_loc_unknown(gemmc_context *ctx);
/* The innermost file:line:col of a (Triton) location, or NULL. */
const ir_loc *ir_loc_file_part(const ir_loc *loc);
/* An error at an op: at its .tir position, with a note at its loc(...) when it has one. */
void ir_op_emit_diag(gemmc_context *ctx, ir_diag_severity sev, const ir_op *op, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define ir_op_error(ctx, op, ...) ir_op_emit_diag((ctx), IR_DIAG_ERROR, (op), __VA_ARGS__)

/* ------------------------------------------------------------------ types */

typedef enum {
  TY_INT,     /* iN */
  TY_FLOAT,   /* f16 bf16 f32 f64 tf32 f8... */
  TY_INDEX,   /* index */
  TY_PTR,     /* !tt.ptr<T[, addrspace]> */
  TY_TENSOR,  /* tensor<AxBxT[, #enc]> */
  TY_MEMDESC, /* !ttg.memdesc<AxBxT, #enc, #memspace[, mutable][, allocShape]> */
  TY_TOKEN,   /* !ttg.async.token */
  TY_FUNC,    /* (inputs) -> results */
  TY_NONE,    /* none */
  TY_TENSORDESC /* !tt.tensordesc<tensor<AxBxT[, #shared]>>: a TMA descriptor of a block shape */
} ir_type_kind;

typedef enum {
  FLT_F16,
  FLT_BF16,
  FLT_F32,
  FLT_F64,
  FLT_TF32,
  FLT_F8E4M3FN,
  FLT_F8E5M2,
  FLT_F8E4M3FNUZ,
  FLT_F8E5M2FNUZ,
  FLT_F8E4M3B11FNUZ,
  FLT_COUNT
} ir_float_kind;

struct ir_type {
  ir_type_kind kind;
  unsigned width;           /* TY_INT bits; TY_FLOAT storage bits */
  ir_float_kind float_kind; /* TY_FLOAT */
  const ir_type *elem;      /* TY_PTR pointee; TY_TENSOR/TY_MEMDESC/TY_TENSORDESC element */
  int addr_space;           /* TY_PTR; 1 (global) is the default and not printed */
  int rank;                 /* TY_TENSOR/TY_MEMDESC/TY_TENSORDESC (the block shape) */
  const int64_t *shape;
  const ir_attr *encoding;  /* TY_TENSOR (may be NULL), TY_MEMDESC, TY_TENSORDESC (shared layout, may be NULL) */
  const ir_attr *memspace;  /* TY_MEMDESC */
  bool is_mutable;          /* TY_MEMDESC */
  int alloc_rank;           /* TY_MEMDESC: trailing alloc shape, 0 when absent */
  const int64_t *alloc_shape;
  int num_inputs, num_results; /* TY_FUNC */
  const ir_type *const *inputs;
  const ir_type *const *results;
};

const ir_type *ir_int_type(gemmc_context *ctx, unsigned width);
const ir_type *ir_float_type(gemmc_context *ctx, ir_float_kind kind);
const ir_type *ir_index_type(gemmc_context *ctx);
const ir_type *ir_none_type(gemmc_context *ctx);
const ir_type *ir_ptr_type(gemmc_context *ctx, const ir_type *pointee, int addr_space);
const ir_type *ir_tensor_type(gemmc_context *ctx, int rank, const int64_t *shape, const ir_type *elem,
                              const ir_attr *encoding);
const ir_type *ir_memdesc_type(gemmc_context *ctx, int rank, const int64_t *shape, const ir_type *elem,
                               const ir_attr *encoding, const ir_attr *memspace, bool is_mutable,
                               int alloc_rank, const int64_t *alloc_shape);
const ir_type *ir_token_type(gemmc_context *ctx);
/* !tt.tensordesc: the block a TMA copy moves (shape, element) and its shared layout (NULL in TTIR). */
const ir_type *ir_tensordesc_type(gemmc_context *ctx, int rank, const int64_t *shape, const ir_type *elem,
                                  const ir_attr *shared_layout);
const ir_type *ir_func_type(gemmc_context *ctx, int num_inputs, const ir_type *const *inputs,
                            int num_results, const ir_type *const *results);

/* Helpers that every pass needs. */
bool ir_type_is_int(const ir_type *t, unsigned width); /* width 0: any width */
bool ir_type_is_float(const ir_type *t);
bool ir_type_is_tensor(const ir_type *t);
/* Scalar element: tensor, memdesc, tensor descriptor -> element; scalar -> itself. */
const ir_type *ir_type_element(const ir_type *t);
/* Same shape and encoding as `like` (scalar if like is scalar), new element type. */
const ir_type *ir_type_with_element(gemmc_context *ctx, const ir_type *like, const ir_type *elem);
const ir_type *ir_type_with_encoding(gemmc_context *ctx, const ir_type *tensor, const ir_attr *enc);
int64_t ir_type_num_elements(const ir_type *t); /* a tensor's, memdesc's or descriptor block's; 1 for scalars */
/* Bytes of a tensor's, memdesc's or descriptor block's elements (whole bytes per element), of a scalar otherwise. */
int64_t ir_type_num_bytes(const ir_type *t);
/* Size in bits of a scalar (pointer: 64). */
unsigned ir_type_bits(const ir_type *t);
const char *ir_float_kind_name(ir_float_kind k);
/* The bits of v in an 8-bit float kind (f8E4M3FN, f8E5M2): round to nearest even, saturating
 * at the largest finite value; NaN stays NaN. 0 for other kinds. */
uint8_t ir_float_to_fp8_bits(ir_float_kind k, double v);

/* ------------------------------------------------------------------ attributes */

typedef enum {
  AT_INT,           /* 16 : i32 (type NULL means i64 / untyped) */
  AT_FLOAT,         /* 1.0 : f32 */
  AT_BOOL,          /* true / false */
  AT_STRING,        /* "text" */
  AT_ARRAY,         /* [a, b] */
  AT_DENSE,         /* dense<...> : tensor<...> */
  AT_DENSE_ARRAY,   /* array<i32: 1, 0> */
  AT_DICT,          /* {a = 1, b} */
  AT_TYPE,          /* a type used as attribute value */
  AT_UNIT,          /* present without value */
  AT_SYMBOL,        /* @name */
  AT_KEYWORD,       /* a bare keyword value (enum case in custom syntax), e.g. tf32 */
  /* layout encodings and memory spaces */
  AT_BLOCKED,
  AT_SLICE,
  AT_NVIDIA_MMA,
  AT_AMD_MFMA,
  AT_DOT_OP,
  AT_SWIZZLED_SHARED,
  AT_NVMMA_SHARED,
  AT_AMD_ROTATING_SHARED, /* swizzled_shared whose phase also XORs the block of rows (AMD LDS) */
  AT_SHARED_MEMORY,
  AT_LINEAR,
  AT_KIND_COUNT
} ir_attr_kind;

/* Parameters of a layout encoding; which fields mean something depends on the kind. */
/* Every field of a layout encoding, listed once: the struct and the interning key
 * (lib/ir/attributes.c) are both generated from this list, so no field can be left out of the
 * key and make two different layouts one pointer. S(type, name) is a scalar, A(type, name, n) an
 * array of n. */
#define IR_LAYOUT_FIELDS(S, A)                                                                     \
  S(int, rank)                                                                                      \
  /* blocked */                                                                                     \
  A(int, size_per_thread, IR_MAX_RANK)                                                              \
  A(int, threads_per_warp, IR_MAX_RANK)                                                             \
  A(int, warps_per_cta, IR_MAX_RANK)  /* also nvidia_mma, amd_mfma */                               \
  A(int, order, IR_MAX_RANK)          /* also swizzled_shared */                                    \
  S(const ir_attr *, cga_layout)      /* optional CGALayout = [[..]] (array attr), NULL for one CTA */ \
  /* slice, dot_op */                                                                               \
  S(int, dim)                         /* slice */                                                   \
  S(const ir_attr *, parent)          /* slice, dot_op */                                           \
  S(int, op_idx)                      /* dot_op */                                                  \
  S(int, k_width)                     /* dot_op; 0 = not given */                                   \
  /* nvidia_mma / amd_mfma */                                                                       \
  S(int, version_major)               /* mfma: its version */                                       \
  S(int, version_minor)                                                                             \
  S(int, instr_rank)                                                                                \
  A(int, instr_shape, 3)                                                                            \
  S(bool, is_transposed)              /* mfma */                                                    \
  S(int, tiles_per_warp_rank)         /* mfma, 0 when absent */                                     \
  A(int, tiles_per_warp, IR_MAX_RANK)                                                               \
  S(int, element_bit_width)           /* mfma (0 when absent), nvmma_shared */                      \
  /* swizzled_shared */                                                                             \
  S(int, vec)                                                                                       \
  S(int, per_phase)                                                                                 \
  S(int, max_phase)                                                                                 \
  /* nvmma_shared */                                                                                \
  S(int, swizzling_byte_width)                                                                      \
  S(bool, transposed)                                                                               \
  S(bool, fp4_padded)                                                                               \
  S(int, nvmma_rank)                  /* 0 when not printed */                                      \
  /* linear: register/lane/warp/block bases, each an array attr of int arrays */                   \
  S(const ir_attr *, lin_register)                                                                  \
  S(const ir_attr *, lin_lane)                                                                      \
  S(const ir_attr *, lin_warp)                                                                      \
  S(const ir_attr *, lin_block)

#define IR_LAYOUT_SCALAR_FIELD(type, name) type name;
#define IR_LAYOUT_ARRAY_FIELD(type, name, n) type name[n];
typedef struct ir_layout_params {
  IR_LAYOUT_FIELDS(IR_LAYOUT_SCALAR_FIELD, IR_LAYOUT_ARRAY_FIELD)
} ir_layout_params;
#undef IR_LAYOUT_SCALAR_FIELD
#undef IR_LAYOUT_ARRAY_FIELD

struct ir_attr {
  ir_attr_kind kind;
  const ir_type *type; /* INT/FLOAT (NULL: untyped), DENSE (tensor type), TYPE, DENSE_ARRAY (elem) */
  int64_t int_value;   /* INT, BOOL */
  double float_value;  /* FLOAT */
  const char *str;     /* STRING/SYMBOL/KEYWORD (interned, NUL-terminated; strings may hold NUL) */
  size_t str_len;
  int num_elems;               /* ARRAY, DICT, DENSE (non-splat), DENSE_ARRAY */
  const ir_attr *const *elems; /* ARRAY, DICT values, DENSE elements (splat: one) */
  const char *const *names;    /* DICT keys (interned, sorted) */
  const int64_t *ints;         /* DENSE_ARRAY int values */
  const double *floats;        /* DENSE_ARRAY float values */
  bool dense_splat;            /* DENSE */
  ir_layout_params layout;     /* layout kinds */
};

const ir_attr *ir_int_attr(gemmc_context *ctx, int64_t v, const ir_type *type);
const ir_attr *ir_i32_attr(gemmc_context *ctx, int64_t v);
const ir_attr *ir_float_attr(gemmc_context *ctx, double v, const ir_type *type);
const ir_attr *ir_bool_attr(gemmc_context *ctx, bool v);
const ir_attr *ir_string_attr(gemmc_context *ctx, const char *s, size_t len);
const ir_attr *ir_keyword_attr(gemmc_context *ctx, const char *s);
const ir_attr *ir_symbol_attr(gemmc_context *ctx, const char *s);
const ir_attr *ir_unit_attr(gemmc_context *ctx);
const ir_attr *ir_type_attr(gemmc_context *ctx, const ir_type *t);
const ir_attr *ir_array_attr(gemmc_context *ctx, int n, const ir_attr *const *elems);
/* Entries are copied and sorted by name; duplicate names are the caller's error. */
const ir_attr *ir_dict_attr(gemmc_context *ctx, int n, const char *const *names,
                            const ir_attr *const *values);
/* Splat when n == 1 and splat is true; otherwise n == number of elements of type. */
const ir_attr *ir_dense_attr(gemmc_context *ctx, const ir_type *type, bool splat, int n,
                             const ir_attr *const *elems);
const ir_attr *ir_dense_int_array_attr(gemmc_context *ctx, const ir_type *elem, int n, const int64_t *v);
/* Layout encodings: kind is one of the layout kinds; params copied. */
const ir_attr *ir_layout_attr(gemmc_context *ctx, ir_attr_kind kind, const ir_layout_params *params);
bool ir_attr_is_layout(const ir_attr *a);
const ir_attr *ir_dict_get(const ir_attr *dict, const char *name);
const char *ir_attr_kind_name(ir_attr_kind kind); /* "ttg.blocked", ... for layouts */

/* ------------------------------------------------------------------ ops table */

/* How an op is written in its pretty form; parser and printer switch on it. */
typedef enum {
  FMT_GENERIC,       /* only "name"(...) form: tt.reduce, tt.scan */
  FMT_MODULE,        /* module [@name] [attributes {..}] { ... } */
  FMT_FUNC,          /* tt.func [public|private] @name(args) [-> results] [attributes {..}] { ... } */
  FMT_CALL,          /* tt.call @f(%a, %b) {attrs} : (T, T) -> R */
  FMT_OPERANDS_TYPES,/* [%a, %b] {attrs} [: T, T]; results take the operand types when the op has results */
  FMT_CONVERT,       /* %x [keywords] {attrs} [, rounding = m] : T -> R */
  FMT_CAST,          /* %x {attrs} : T to R */
  FMT_SAME,          /* %a, %b {attrs} : T  (operands and result share T) */
  FMT_CMP,           /* pred, %a, %b {attrs} : T  (result i1 of T's shape) */
  FMT_SELECT,        /* %c, %a, %b {attrs} : [C,] T */
  FMT_CONSTANT,      /* {attrs} value [: T] */
  FMT_MAKE_RANGE,    /* {attrs} : T */
  FMT_AXIS,          /* x|y|z {attrs} : i32 */
  FMT_ADDPTR,        /* %p, %o {attrs} : P, O */
  FMT_LOAD,          /* %p[, %m[, %o]] [cacheModifier = c] [evictionPolicy = e] {attrs} : P */
  FMT_STORE,         /* %p, %v[, %m] [cacheModifier = c] [evictionPolicy = e] {attrs} : P */
  FMT_DOT,           /* %a, %b, %c[, inputPrecision = p] {attrs} : A * B -> D */
  FMT_DOT_SCALED,    /* %a[ scale %as], %b[ scale %bs], %c lhs = f rhs = f {attrs} : A[, AS] * B[, BS] -> D */
  FMT_FOR,           /* scf.for %iv = %lb to %ub step %s [iter_args(..) -> (..)] [: T] { } */
  FMT_IF,            /* scf.if %c [-> (T..)] { } [else { }] */
  FMT_WHILE,         /* scf.while (%a = %x, ..) : (T..) -> (R..) { .. scf.condition } do { ^bb0(..): .. } */
  FMT_CONDITION,     /* scf.condition(%c) [%a, .. : R, ..] */
  FMT_EXTERN,        /* %a, .. {attrs} : (T, ..) -> R   (tt.extern_elementwise) */
  FMT_LOCAL_ALLOC,   /* [%x] {attrs} : ([T]) -> M */
  FMT_LOCAL_LOAD,    /* %m [token %t] {attrs} : M -> T */
  FMT_LOCAL_STORE,   /* %v, %m {attrs} : T -> M */
  FMT_MEMDESC_INDEX, /* %m[%i] {attrs} : M -> M */
  FMT_ASYNC_COPY,    /* %p, %m [mask %k] [other %o] [cacheModifier..] {attrs} : P -> <memdesc> */
  FMT_ASYNC_COMMIT,  /* [tokens %a, ...] {attrs} */
  FMT_ASYNC_WAIT,    /* [%a, ...] {attrs} */
  FMT_ATOMIC_RMW,    /* op, sem, scope, %p, %v[, %m] {attrs} : (P, V[, M]) -> R */
  FMT_ATOMIC_CAS,    /* sem, scope, %p, %c, %v {attrs} : (P, C, V) -> R */
  FMT_IMMEDIATE,     /* N {attrs}: one integer attribute (ir_op_immediate_attr names it), no operands */
  FMT_YIELD,         /* {attrs} [%a, %b : T, T]  (tt.return, scf.yield, ttg.warp_yield: attributes first) */
  FMT_MAKE_DESC,     /* %base, [%shape..], [%strides..] {attrs} : <T>, <tensor<..>> */
  FMT_MAKE_TENSOR_PTR, /* %base, [%shape..], [%strides..], [%offsets..] {attrs} : <tensor<..>> */
  FMT_ADVANCE,       /* %ptr, [%offsets..] {attrs} : <tensor<..>> */
  FMT_DESC_LOAD,     /* %desc[%i..] [cacheModifier = c] [evictionPolicy = e] {attrs} : D -> T */
  FMT_DESC_STORE,    /* %desc[%i..], %v {attrs} : D, T */
  FMT_DESC_GATHER,   /* %desc[%x, %y] {attrs} : (D, X, i32) -> T */
  FMT_DESC_SCATTER,  /* %desc[%x, %y], %v {attrs} : D, X, i32, T */
  FMT_TMA_LOAD,      /* %desc[%c..] %buf, %bar, %pred [cacheModifier..] {attrs} : D, B -> M */
  FMT_TMA_STORE,     /* %desc[%c..] %buf {attrs} : D, M [-> !ttg.async.token] */
  FMT_BARRIER_COUNT, /* %bar, N[, %pred] {attrs} : B   (attribute `count`) */
  FMT_BARRIER_EXPECT,/* %bar, N {attrs}, %pred : B     (attribute `size`) */
  FMT_WAIT_BARRIER,  /* %bar, %phase[, %pred] [deps %m..] {attrs} : B[, M..] */
  FMT_SUBSLICE,      /* %m[o, o] {attrs} : M -> M      (attribute `offsets`) */
  FMT_TENSORMAP_CREATE, /* %d, %g, [..], [..], [..], [..] {attrs} : (types) -> () */
  FMT_WARP_SPECIALIZE,  /* (%a..) [attributes {..}] default {..} partitionN(%x: T..) num_warps(N) {..}.. : (T..) -> (R..) */
  FMT_INLINE_ASM,    /* "asm" {attrs} [%a, .. : T, ..] -> R, ..   (tt.elementwise_inline_asm) */
  FMT_PRINT,         /* "prefix" {attrs} [: %a, .. : T, ..]   (tt.print) */
  FMT_ASSERT,        /* %cond, "message" {attrs} : T   (tt.assert) */
  FMT_COUNT
} ir_op_format;

/* Traits, as bits. */
enum {
  TRAIT_PURE = 1 << 0,
  TRAIT_ELEMENTWISE = 1 << 1,
  TRAIT_TERMINATOR = 1 << 2,
  TRAIT_READS_MEMORY = 1 << 3,
  TRAIT_WRITES_MEMORY = 1 << 4,
  TRAIT_HAS_REGIONS = 1 << 5,
  TRAIT_SAME_OPERAND_RESULT_TYPE = 1 << 6,
  TRAIT_COMMUTATIVE = 1 << 7,
  TRAIT_ISOLATED = 1 << 8, /* values from outside are not visible (module, func) */
  TRAIT_SYMBOL = 1 << 9,
  TRAIT_ISOLATED_PARTITIONS = 1 << 10, /* regions after the first are isolated from above (warp_specialize) */
};

typedef enum {
#define IR_OP(id, name, format, min_operands, max_operands, num_results, num_regions, traits) OP_##id,
#include "gemmc/ops.def"
#undef IR_OP
  OP_COUNT
} ir_op_kind;

typedef struct ir_op_info {
  const char *name;
  ir_op_format format;
  int min_operands, max_operands; /* max -1: variadic */
  int num_results;                /* -1: variadic */
  int num_regions;                /* -1: variadic (at least one) */
  unsigned traits;
} ir_op_info;

const ir_op_info *ir_op_info_of(ir_op_kind kind);
/* Whether op may be erased when unused, moved or computed twice: its kind is pure and, for
 * tt.elementwise_inline_asm, its `pure` attribute says so. */
bool ir_op_is_pure(const ir_op *op);
/* Looks an op up by its full name ("tt.load"); returns false when unknown. */
bool ir_op_kind_from_name(const char *name, size_t len, ir_op_kind *out);
/* FMT_IMMEDIATE ops: the name and bit width of the integer attribute written after the op name
 * (rocdl.s.setprio: priority, i16; rocdl.sched.barrier: mask, i32); NULL for other ops. */
const char *ir_op_immediate_attr(ir_op_kind kind, int *bits);

/* ------------------------------------------------------------------ values, ops, blocks */

struct ir_operand {
  ir_value *value;
  ir_op *owner;
  int index;                    /* position in owner's operands */
  ir_operand *next_use, *prev_use; /* the value's use list */
};

struct ir_value {
  const ir_type *type;
  ir_op *def_op;     /* result of this op, or NULL for a block argument */
  ir_block *owner_block; /* block argument owner, else NULL */
  int index;         /* result index or argument index */
  ir_operand *first_use;
  const char *name;  /* name hint from the source (without '%'), or NULL */
  ir_loc *loc;       /* block arguments: loc(...) trailer */
};

typedef struct ir_named_attr {
  const char *name; /* interned */
  const ir_attr *value;
} ir_named_attr;

struct ir_op {
  ir_op_kind kind;
  int num_operands;
  ir_operand *operands;
  int num_results;
  ir_value *results;
  int num_attrs, cap_attrs;
  ir_named_attr *attrs; /* kept sorted by name */
  int num_props;
  const char **props;     /* attr names that were given as properties */
  int num_regions;
  ir_region *regions;
  ir_block *parent;
  ir_op *prev, *next;
  ir_loc *loc;      /* from loc(...) or the .tir position */
  ir_loc *src_loc;  /* where the op is in the .tir file */
};

struct ir_block {
  ir_region *parent;
  int num_args, cap_args;
  ir_value **args;
  ir_op *first, *last;
  ir_block *prev, *next;
};

struct ir_region {
  ir_op *parent;
  ir_block *first, *last;
};

/* Creation: operands may contain NULL only while building (set them later). */
ir_op *ir_op_create(gemmc_context *ctx, ir_op_kind kind, int num_operands, ir_value *const *operands,
                    int num_results, const ir_type *const *result_types, int num_regions, ir_loc *loc);
void ir_op_set_operand(ir_op *op, int index, ir_value *v);
/* Appends an operand (variadic ops). */
void ir_op_add_operand(gemmc_context *ctx, ir_op *op, ir_value *v);
/* Removes operand i, shifting the rest. */
void ir_op_remove_operand(ir_op *op, int index);
void ir_op_set_attr(gemmc_context *ctx, ir_op *op, const char *name, const ir_attr *value);
const ir_attr *ir_op_get_attr(const ir_op *op, const char *name);
bool ir_op_remove_attr(ir_op *op, const char *name);
int64_t ir_op_get_int_attr(const ir_op *op, const char *name, int64_t default_value);
bool ir_op_attr_is_property(const ir_op *op, const char *name);
void ir_op_mark_property(gemmc_context *ctx, ir_op *op, const char *name);
const char *ir_op_name(const ir_op *op);

ir_block *ir_block_create(gemmc_context *ctx);
ir_value *ir_block_add_arg(gemmc_context *ctx, ir_block *block, const ir_type *type, ir_loc *loc);
void ir_region_append_block(ir_region *region, ir_block *block);
void ir_block_append_op(ir_block *block, ir_op *op);
void ir_op_insert_before(ir_op *anchor, ir_op *op);
void ir_op_insert_after(ir_op *anchor, ir_op *op);
/* Unlinks op from its block (its uses of operands are dropped too). */
void ir_op_erase(ir_op *op);
/* Unlinks without dropping operand uses (for moving ops). */
void ir_op_unlink(ir_op *op);
ir_block *ir_region_entry(const ir_region *region);
ir_op *ir_block_terminator(const ir_block *block);

void ir_value_replace_all_uses(ir_value *from, ir_value *to);
int ir_value_num_uses(const ir_value *v);
bool ir_value_has_one_use(const ir_value *v);

/* Walk every op nested under op (pre-order, op itself first). Return false from fn to stop. */
typedef bool (*ir_walk_fn)(ir_op *op, void *user);
bool ir_walk(ir_op *op, ir_walk_fn fn, void *user);

/* The enclosing op of a given kind (tt.func, module), or NULL. */
ir_op *ir_op_parent_op(const ir_op *op);
ir_op *ir_op_ancestor_of_kind(ir_op *op, ir_op_kind kind);
ir_op *ir_module_lookup_func(ir_op *module, const char *name);
/* Module-level integer attribute such as "ttg.num-warps". */
int64_t ir_module_int_attr(const ir_op *module, const char *name, int64_t default_value);

/* ------------------------------------------------------------------ parse, print, verify */

typedef struct ir_parse_options {
  const char *filename; /* for diagnostics */
} ir_parse_options;

/* Parses a whole .tir text (must stay alive as long as ctx). Returns the module op or NULL with
 * diagnostics emitted. The text need not be NUL-terminated. */
ir_op *ir_parse_module(gemmc_context *ctx, const char *text, size_t len, const char *filename);
/* As ir_parse_module, for text that is a piece of a file starting at line first_line (gemmc-opt's
 * --split-input-file chunks): diagnostics and locations use the file's line numbers. */
ir_op *ir_parse_module_at_line(gemmc_context *ctx, const char *text, size_t len, const char *filename,
                               int first_line);

typedef struct ir_print_options {
  bool debug_info;   /* print loc(...) trailers and #loc aliases */
  bool generic;      /* print every op in generic form */
} ir_print_options;

/* Printing goes through a callback (MLIR-C style). */
typedef void (*ir_print_callback)(const char *data, size_t len, void *user);
void ir_print_module(gemmc_context *ctx, const ir_op *module, const ir_print_options *opts,
                     ir_print_callback cb, void *user);
void ir_print_module_to_file(gemmc_context *ctx, const ir_op *module, const ir_print_options *opts,
                             FILE *f);
void ir_print_type(const ir_type *t, ir_print_callback cb, void *user);
void ir_print_attr(const ir_attr *a, ir_print_callback cb, void *user);
/* Convenience: arena-allocated text of a type/attr, for diagnostics. */
const char *ir_type_str(gemmc_context *ctx, const ir_type *t);
const char *ir_attr_str(gemmc_context *ctx, const ir_attr *a);

/* Checks every op under op; emits diagnostics; returns true when valid. */
bool ir_verify(gemmc_context *ctx, ir_op *op);
/* As ir_verify, without the module's lowering-cost limit (gemmc/limits.h): for the IR between
 * the passes of a pipeline, whose layouts are not yet the ones that get lowered (after
 * assign-layouts, tt.dot operands are in FMA layouts that replicate along K). The IR is checked
 * with the limit before the pipeline (TTIR, counting the conversions coalesce adds) and after. */
bool ir_verify_between_passes(gemmc_context *ctx, ir_op *op);

#ifdef __cplusplus
}
#endif
#endif

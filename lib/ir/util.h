/* Small helpers shared by lib/: growable pointer lists, one pointer-keyed hash map, op cloning and slices, cmp predicate names, log2 (cproc-style util). */
#ifndef GEMMC_UTIL_H
#define GEMMC_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "gemmc/ir.h"

/* ------------------------------------------------------------------ containers */

/* A growable array of pointers on the context's allocator; zero-initialize with .ctx set.
 * Past 32 items the block behind `items` also holds a hash index of them (2 * cap slots after
 * the cap items), so that membership tests stay O(1): passes test membership in slices as
 * large as the function. Only the functions below may change a list. */
typedef struct ptr_list {
  gemmc_context *ctx;
  void **items;
  int count, cap;
} ptr_list;

void ptr_list_push(ptr_list *l, void *p);
/* Appends p unless it is already there. */
void ptr_list_push_unique(ptr_list *l, void *p);
/* Appends each item of `from` that l does not hold yet. */
void ptr_list_append_unique(ptr_list *l, const ptr_list *from);
bool ptr_list_contains(const ptr_list *l, const void *p);
/* Empties the list (its index too), keeping the storage for reuse. */
void ptr_list_clear(ptr_list *l);
void ptr_list_free(ptr_list *l);

/* A well-mixed hash of a pointer, for open-addressing tables keyed by IR objects. */
uint64_t hash_pointer(const void *p);

/* What a ptr_map keeps for a key: a pointer or a number, as its user decides. */
typedef union ptr_map_value {
  void *ptr;
  int64_t num;
} ptr_map_value;

typedef struct ptr_map_entry {
  const void *key, *key2; /* key NULL: an empty slot */
  ptr_map_value value;
} ptr_map_entry;

/* The one hash map of lib/: open addressing, keyed by a pointer or by a pair of pointers (key2
 * NULL for one), its table on the context's allocator; zero-initialize with .ctx set. There is no
 * iteration: nothing may depend on the order of pointers. Keys must not be NULL. */
typedef struct ptr_map {
  gemmc_context *ctx;
  ptr_map_entry *entries;
  size_t cap, count;
} ptr_map;

/* The value of (key, key2), or NULL when absent. The pointer is good until the next insertion:
 * keep what a value points to stable (arena objects), never the slot. */
ptr_map_value *ptr_map_find(const ptr_map *m, const void *key, const void *key2);
/* The value of (key, key2), added zeroed when absent; NULL when memory ran out. */
ptr_map_value *ptr_map_insert(ptr_map *m, const void *key, const void *key2);
/* One-pointer keys with pointer values: the value (NULL when absent), and store (false when
 * memory ran out). */
void *ptr_map_get(const ptr_map *m, const void *key);
bool ptr_map_put(ptr_map *m, const void *key, void *value);
/* Forgets every key, keeping the table. */
void ptr_map_clear(ptr_map *m);
void ptr_map_free(ptr_map *m);

/* ------------------------------------------------------------------ IR helpers */

/* A new op of op's kind, location and attributes (which ones are properties included), with
 * these operands and result types (op->num_results of them); no regions, result names not
 * copied, not inserted anywhere. */
ir_op *op_clone_with_attrs(gemmc_context *ctx, const ir_op *op, int num_operands, ir_value *const *operands,
                           const ir_type *const *result_types);

/* A new ttg.convert_layout of v to type `to`, with anchor's locations, inserted right before
 * (after) anchor; its result. */
ir_value *convert_layout_before(gemmc_context *ctx, ir_op *anchor, ir_value *v, const ir_type *to);
ir_value *convert_layout_after(gemmc_context *ctx, ir_op *anchor, ir_value *v, const ir_type *to);

/* A copy of op with its regions (block arguments and nested ops copied too), operands through
 * `map` (old value -> new; unmapped values stay), every result and block argument of the copy
 * recorded in `map`; not inserted anywhere. */
ir_op *op_clone_deep(gemmc_context *ctx, const ir_op *op, ptr_map *map);

/* The op whose region holds the block of block argument v; NULL for an op result or a detached
 * block. */
ir_op *block_arg_owner(const ir_value *v);

/* True when v is defined before op runs and outside it (an argument of an enclosing block, or an
 * op that is not op and not nested in it). */
bool value_defined_outside(const ir_value *v, const ir_op *op);

/* Whether a comes before b in one block (false when they are in different blocks). */
bool op_precedes(const ir_op *a, const ir_op *b);

/* Which ops a slice keeps (NULL: all of them). */
typedef bool (*op_filter_fn)(const ir_op *op, const void *user);

/* mlir::getSlice(root, filter): root and the closure under operand definitions (for a block
 * argument, the op owning its block), users of results and ops nested in regions, keeping only
 * the ops `keep` accepts; appended to `slice` in the order they are found, root first. */
void op_slice(ir_op *root, op_filter_fn keep, const void *user, ptr_list *slice);

/* arith.cmpi / arith.cmpf predicate names in MLIR's enum order (the integer form of the
 * attribute), and their count; NULL for other ops. */
const char *const *cmp_predicate_names(ir_op_kind kind, int *count);
/* The index of `name` among kind's predicates; -1 when it is not one. */
int cmp_predicate_index(ir_op_kind kind, const char *name);
/* The predicate of a cmpi / cmpf op as a name: its keyword (as written), or the name of its
 * integer form; NULL when it has none or the integer is out of range. */
const char *cmp_predicate_of(const ir_op *op);

/* Erases pure ops (regions only for tt.reduce / tt.scan) whose results nothing uses, nested
 * under root, until none is left; true when it erased any. */
bool erase_dead_pure_ops(gemmc_context *ctx, ir_op *root);

/* tt.elementwise_inline_asm: how many elements of type e one asm register carries in packs of
 * `pack`, as Triton packs them (narrower than 32 bits: min(32 / bits, pack), as a vector; wider:
 * one); 0 when e cannot be passed (not an integer or float of 1 to 64 bits, an i1 in a pack, or a
 * pack that count does not divide). The verifier and the lowering both count registers with it. */
int inline_asm_elems_per_register(const ir_type *e, int64_t pack);

/* Triton's atomic keywords (NULL-terminated): tt.atomic_rmw's operation (RMWOp) and both atomics'
 * memory semantics and scope, each list in the order of target_atomic_op / _sem / _scope. The
 * parser, the verifier and the lowering read them. */
extern const char *const ir_atomic_rmw_ops[11], *const ir_atomic_sems[5], *const ir_atomic_scopes[4];
/* tt.descriptor_reduce's and ttng.async_tma_reduce's `kind` (Triton's DescriptorReduceKind). */
extern const char *const ir_descriptor_reduce_kinds[9];
/* The index of word in a NULL-terminated list, or -1. */
int ir_word_index(const char *word, const char *const *list);

/* The operand index of tt.dot_scaled's scale of operand `which` (0: a, 1: b), or -1 when it has
 * none: operands are a, b, c, then the scales present (operandSegmentSizes says which). */
int dot_scaled_scale_operand(const ir_op *op, int which);

/* One entry of tt.elementwise_inline_asm's constraint string: "=r" / "=&r" (output), "r" or a tied
 * output's number "0" (input), "~{..}" (clobber). */
typedef enum { INLINE_ASM_OUTPUT, INLINE_ASM_INPUT, INLINE_ASM_CLOBBER } inline_asm_constraint_kind;
typedef struct inline_asm_constraint {
  inline_asm_constraint_kind kind;
  const char *text, *code, *stop; /* the entry, what follows its '=', '=&' or '~', its end */
  int tied;                       /* code's number when it is all digits; -1 no digits, -2 digits then more */
} inline_asm_constraint;
/* The entry at *c of a constraint string ending at `end` (or a NUL), *c moved past its comma;
 * false when there is none left. The verifier checks the entries, the lowering their letters. */
bool inline_asm_next_constraint(const char **c, const char *end, inline_asm_constraint *out);
/* The scf.for `loop` rebuilt with n more iter args (initial values `inits`): its body block moves
 * to the new op and gets n more arguments (their new values must still be yielded); the uses of
 * the old results go to the new ones. Returns the new loop (the old one is erased). */
ir_op *scf_for_add_iter_args(gemmc_context *ctx, ir_op *loop, int n, ir_value *const *inits);
/* Drops the iter args of an scf.for whose results are unused and whose block arguments only
 * feed pure ops that feed nothing but the same yield position (a pointer recurrence nothing
 * reads any more); returns the loop that replaces it (loop itself when nothing was dropped). */
ir_op *scf_for_drop_dead_iter_args(gemmc_context *ctx, ir_op *loop);

/* An scf.for from 0 with a constant step s > 1 rewritten in place to step 1: the upper bound
 * becomes its trip count (ub > 0 ? (ub - 1) / s + 1 : 0, without overflow) and the body sees
 * iv * s where it saw iv. False (nothing changed) unless lb is 0 and s a constant > 1. */
bool scf_for_normalize_step(gemmc_context *ctx, ir_op *loop);

/* Whether loop is an scf.for from the constant 0 with a constant step >= 1 (*step). */
bool scf_for_step_from_zero(const ir_op *loop, int64_t *step);

/* What an scf.for's iter arg grows by each iteration: x where the body yields arith.addi(arg, x)
 * (either order) and x is loop-invariant (defined outside the loop, or a constant); NULL
 * otherwise. */
ir_value *scf_for_iter_arg_increment(const ir_value *arg);

/* The pipelining depth of an scf.for: its tt.num_stages (Triton's tl.range(..., num_stages=N)),
 * else `fallback` (the kernel's num_stages). */
int scf_for_num_stages(const ir_op *loop, int fallback);

/* Builders that insert before `anchor` (its location): an op of one result (result NULL: none),
 * an integer constant of `width` bits, a binary op of a's type, an arith.cmpi. */
ir_value *build_before(gemmc_context *ctx, ir_op *anchor, ir_op_kind kind, int n, ir_value *const *operands,
                       const ir_type *result);
ir_value *build_int_constant(gemmc_context *ctx, ir_op *anchor, int64_t v, unsigned width);
/* An integer constant of type t (a scalar, or a tensor: the splat of v) before anchor. */
ir_value *build_int_constant_of(gemmc_context *ctx, ir_op *anchor, int64_t v, const ir_type *t);
/* A one-operand op `kind` (a cast or layout conversion) of v to type `to` before anchor, with
 * anchor's location and source location. */
ir_value *build_cast_before(gemmc_context *ctx, ir_op *anchor, ir_op_kind kind, ir_value *v, const ir_type *to);
/* op's result 0 takes type t; a `back` op (a cast or layout conversion) right after op turns it
 * into the old type again for every use it had. Returns the back op's result. */
ir_value *retype_result_with_cast_back(gemmc_context *ctx, ir_op *op, const ir_type *t, ir_op_kind back);
ir_value *build_binary(gemmc_context *ctx, ir_op *anchor, ir_op_kind kind, ir_value *a, ir_value *b);
ir_value *build_cmpi(gemmc_context *ctx, ir_op *anchor, const char *predicate, ir_value *a, ir_value *b);
/* A ring position advanced by one before anchor: slot + 1, or `zero` (a 0 of slot's type that
 * dominates anchor) once that reaches `size`. An add, a compare and a select: what software
 * pipelines carry around a loop instead of a remainder. */
ir_value *build_ring_next(gemmc_context *ctx, ir_op *anchor, ir_value *slot, int64_t size, ir_value *zero);

/* True when v may differ between programs: it is computed from tt.get_program_id (or from a
 * value this cannot follow: loop-carried values, region results). */
bool value_depends_on_program_id(gemmc_context *ctx, const ir_value *v);

/* The integer an arith.constant holds: a scalar, or the element of a splat dense tensor. */
bool value_int_constant(const ir_value *v, int64_t *out);

/* An arith.constant splat of zero: +0.0 (not -0.0), integer 0 or false. */
bool value_is_zero_splat(const ir_value *v);

/* Whether tile v (a load's result) reaches operand `index` of a ttng.warp_group_dot (0: A, 1: B)
 * through a ttg.local_alloc of it (and one view of that, a column-major operand's): tma-loads (sizing the ring it
 * predicts) and warp-specialize (choosing the operand two programs share) must agree on which load is B. */
bool value_feeds_dot_operand(const ir_value *v, int index);

/* tt.trans, tt.reshape, tt.split and tt.join: shape ops whose result layout can follow from the
 * operand's so that no element changes thread (the op lowers to a renaming of registers). */
bool op_renames_registers(const ir_op *op);
/* That result layout for an operand in `operand` (layout_infer_*_result); NULL when no layout
 * keeps the elements in place (a split whose halves are not one register bit apart). */
const ir_attr *renamed_result_layout(gemmc_context *ctx, const ir_op *op, const ir_attr *operand);

/* ttg.memdesc_trans / memdesc_reshape: views of a buffer's memory (same bytes, another shape). */
bool op_is_memdesc_view(const ir_op *op);

/* After v took the place of another buffer value (replace_all_uses), the views made of it
 * (transitively) take v's mutability, which views must share with their source. */
void memdesc_views_follow(gemmc_context *ctx, ir_value *v);

/* ------------------------------------------------------------------ bit math */

/* k with 2^k == v; -1 when v is not a positive power of two. */
int log2_exact(int64_t v);

#endif

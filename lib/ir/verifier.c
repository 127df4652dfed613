/* The IR verifier: op structure, dominance, per-op type rules and layout encodings. */
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "context_internal.h"
#include "util.h"
#include "gemmc/layout.h"
#include "gemmc/limits.h"
#include "verifier_internal.h"

struct verifier {
  gemmc_context *ctx;
  const ir_op *root;
  int num_errors;
  int num_warps;        /* ttg.num-warps (4 when the module does not say); 0: no module, unchecked */
  int threads_per_warp; /* ttg.threads-per-warp, 32 by default */
  /* Dominance in structured code: every value defined so far -> the block depth it was defined
   * at (-1: its block has been left, so it is no longer visible), and a stack of them in
   * definition order so leaving a block hides what it defined. */
  ptr_map visible;
  const ir_value **stack;
  size_t stack_len, stack_cap;
  int depth;                   /* block nesting depth of the walk */
  int barrier;                 /* values defined at a smaller depth are outside the isolated op */
  const ir_op *isolating_op;   /* innermost isolated-from-above op being walked */
  bool dominance_off;          /* scratch allocation failed: skip dominance, do not guess */
  /* Types and encodings already checked (checked_slot): each bad one is reported once. */
  ptr_map checked;
  int64_t module_per_thread; /* lowering cost so far: weighted per-thread elements of tensor values */
  int shared_buffers;        /* ops of the current function that may take a shared-memory buffer */
  bool reported_module_size;
  bool check_lowering_cost;  /* false between the passes of a pipeline (ir_verify_between_passes) */
  bool amd_target;           /* the module's ttg.target is AMD ("hip:..."): elementwise ops cost more */
};

/* ------------------------------------------------------------------ diagnostics */

static void verr(verifier *v, const ir_op *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void verr(verifier *v, const ir_op *op, const char *fmt, ...) {
  char msg[960];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  ir_op_error(v->ctx, op, "'%s' op %s", ir_op_name(op), msg);
  v->num_errors++;
}

static const char *ts(verifier *v, const ir_type *t) {
  return t ? ir_type_str(v->ctx, t) : "<no type>";
}

static const char *as(verifier *v, const ir_attr *a) {
  return a ? ir_attr_str(v->ctx, a) : "<none>";
}

/* ------------------------------------------------------------------ type helpers */

static bool is_shaped(const ir_type *t) { return t && (t->kind == TY_TENSOR || t->kind == TY_MEMDESC); }
static bool is_memdesc(const ir_type *t) { return t && t->kind == TY_MEMDESC; }
static int rank_of(const ir_type *t) { return is_shaped(t) ? t->rank : 0; }
static const ir_type *elem_of(const ir_type *t) { return ir_type_element(t); }
static bool is_intlike(const ir_type *t) { return t && (t->kind == TY_INT || t->kind == TY_INDEX); }
static bool is_ptr(const ir_type *t) { return t && t->kind == TY_PTR; }
static bool is_scalar(const ir_type *t) {
  return t && (t->kind == TY_INT || t->kind == TY_INDEX || t->kind == TY_FLOAT || t->kind == TY_PTR);
}

static bool same_dims(const ir_type *a, const ir_type *b) {
  if (rank_of(a) != rank_of(b)) return false;
  for (int i = 0; i < rank_of(a); i++)
    if (a->shape[i] != b->shape[i]) return false;
  return true;
}

/* Same kind (tensor or scalar), same shape, same encoding. */
static bool same_shape_encoding(const ir_type *a, const ir_type *b) {
  if (ir_type_is_tensor(a) != ir_type_is_tensor(b)) return false;
  if (!ir_type_is_tensor(a)) return true;
  return same_dims(a, b) && a->encoding == b->encoding;
}

static bool same_shape(const ir_type *a, const ir_type *b) {
  return ir_type_is_tensor(a) == ir_type_is_tensor(b) && same_dims(a, b);
}

static const ir_type *operand_type(const ir_op *op, int i) { return op->operands[i].value->type; }
static const ir_type *result_type(const ir_op *op, int i) { return op->results[i].type; }

static bool is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

/* ------------------------------------------------------------------ attribute helpers */

static bool attr_int(const ir_attr *a, int64_t *out) {
  if (a && (a->kind == AT_INT || a->kind == AT_BOOL)) {
    *out = a->int_value;
    return true;
  }
  return false;
}

static const char *attr_word(const ir_attr *a) {
  return a && (a->kind == AT_KEYWORD || a->kind == AT_STRING) ? a->str : NULL;
}

static int name_index(const char *s, const char *const *names, int n) {
  for (int i = 0; s && i < n; i++)
    if (strcmp(s, names[i]) == 0) return i;
  return -1;
}

/* An enum attribute is written as a keyword (custom form) or its integer (generic form). */
static bool enum_attr_valid(const ir_attr *a, const char *const *names, int n) {
  int64_t iv;
  if (attr_word(a)) return name_index(attr_word(a), names, n) >= 0;
  if (attr_int(a, &iv)) return iv >= 0 && iv < n;
  return false;
}

/* ------------------------------------------------------------------ dominance bookkeeping */

static ptr_map_value *vis_find(verifier *v, const ir_value *val) { return ptr_map_find(&v->visible, val, NULL); }

static void vis_define(verifier *v, const ir_value *val) {
  if (v->dominance_off) return;
  ptr_map_value *depth = ptr_map_insert(&v->visible, val, NULL);
  if (!depth) {
    v->dominance_off = true;
    return;
  }
  depth->num = v->depth;
  if (v->stack_len == v->stack_cap) {
    size_t ncap = v->stack_cap ? v->stack_cap * 2 : 256;
    const ir_value **ns = ctx_raw_realloc(v->ctx, v->stack, v->stack_cap * sizeof *ns, ncap * sizeof *ns);
    if (!ns) {
      v->dominance_off = true;
      return;
    }
    v->stack = ns;
    v->stack_cap = ncap;
  }
  v->stack[v->stack_len++] = val;
}

static void vis_pop_to(verifier *v, size_t mark) {
  if (v->dominance_off) return;
  while (v->stack_len > mark) {
    ptr_map_value *depth = vis_find(v, v->stack[--v->stack_len]);
    if (depth) depth->num = -1;
  }
}

/* The op whose body holds the definition: the defining op, or the op owning the block of a
 * block argument. NULL when the value is detached. */
static const ir_op *value_anchor(const ir_value *val) {
  if (val->def_op) return val->def_op;
  if (val->owner_block && val->owner_block->parent) return val->owner_block->parent->parent;
  return NULL;
}

static bool op_is_under(const ir_op *op, const ir_op *ancestor) {
  for (const ir_op *o = op; o; o = ir_op_parent_op(o))
    if (o == ancestor) return true;
  return false;
}

/* The innermost isolated-from-above op enclosing (or being) op: values never cross it. */
static const ir_op *isolated_scope(const ir_op *op) {
  for (const ir_op *o = op; o; o = ir_op_parent_op(o))
    if (ir_op_info_of(o->kind)->traits & TRAIT_ISOLATED) return o;
  return NULL;
}

static void check_operand_dominance(verifier *v, const ir_op *op, int index) {
  if (v->dominance_off) return;
  const ir_value *val = op->operands[index].value;
  const ptr_map_value *depth = vis_find(v, val);
  if (depth && depth->num >= v->barrier) return;
  if (depth && depth->num >= 0) {
    verr(v, op, "operand #%d uses a value defined outside the isolated '%s' op", index,
         ir_op_name(v->isolating_op));
    return;
  }
  const ir_op *anchor = value_anchor(val);
  bool inside_root = anchor && op_is_under(anchor, v->root);
  /* Verifying a non-isolated op alone: values from the enclosing code cannot be judged here. */
  if (!inside_root && anchor && !(ir_op_info_of(v->root->kind)->traits & TRAIT_ISOLATED)) return;
  if (!anchor || (val->def_op && !val->def_op->parent)) {
    verr(v, op, "operand #%d uses a value whose definition is not in any block (erased?)", index);
    return;
  }
  if (!inside_root) {
    verr(v, op, "operand #%d uses a value defined outside the isolated '%s' op", index,
         ir_op_name(v->root));
    return;
  }
  const ir_op *use_scope = isolated_scope(ir_op_parent_op(op));
  const ir_op *def_scope = val->def_op ? isolated_scope(ir_op_parent_op(val->def_op)) : isolated_scope(anchor);
  if (use_scope && use_scope != def_scope) {
    verr(v, op, "operand #%d uses a value defined outside the isolated '%s' op", index, ir_op_name(use_scope));
    return;
  }
  verr(v, op, "operand #%d does not dominate this use", index);
  if (val->def_op) ir_op_emit_diag(v->ctx, IR_DIAG_NOTE, val->def_op, "operand defined here");
}

/* ------------------------------------------------------------------ layout encodings */

/* The entries of v->checked are keyed by a type or an encoding together with the warps of the
 * region being walked (key2 holds the number): a layout valid in a 4-warp region is checked again
 * in a 1-warp partition, and what one thread holds depends on the warps. Types are interned, so
 * one entry stands for every value of a type: its value is the elements one thread holds (0 when
 * the type has no layout). An encoding's value is the rank it was checked for, negated when the
 * layout was invalid, so that a bad layout is reported once however many shapes use it. */
static const void *region_warps_key(const verifier *v) { return (const void *)(uintptr_t)v->num_warps; }

/* key's entry for the current warps, added (zeroed, *fresh set) when absent; NULL when the table
 * cannot grow, and then everything is checked again each time. Good until the next insertion. */
static ptr_map_value *checked_slot(verifier *v, const void *key, bool *fresh) {
  *fresh = ptr_map_find(&v->checked, key, region_warps_key(v)) == NULL;
  ptr_map_value *slot = ptr_map_insert(&v->checked, key, region_warps_key(v));
  if (!slot) *fresh = false;
  return slot;
}

/* Layout rules live in the layout library; this is the one place the verifier asks it, and it
 * adds the op and value to the message. Returns the elements per thread (0: unknown). */
static int64_t check_encoding(verifier *v, const ir_op *op, const char *what, const ir_type *t) {
  if (!ir_attr_is_layout(t->encoding)) {
    verr(v, op, "%s has type %s whose encoding is not a layout", what, ts(v, t));
    return 0;
  }
  if (!layout_is_distributed(t->encoding)) {
    verr(v, op, "%s has type %s: a tensor encoding must be a distributed layout, got #%s", what,
         ts(v, t), ir_attr_kind_name(t->encoding->kind));
    return 0;
  }
  bool fresh;
  ptr_map_value *seen = checked_slot(v, t->encoding, &fresh);
  if (seen && !fresh && (seen->num == t->rank || seen->num == -t->rank)) {
    if (seen->num < 0) return 0; /* reported already */
  } else {
    const char *problem = layout_check(t->encoding, t->rank, v->num_warps, v->threads_per_warp);
    if (seen) seen->num = problem ? -t->rank : t->rank;
    if (problem) {
      verr(v, op, "%s has an invalid encoding %s: %s", what, as(v, t->encoding), problem);
      return 0;
    }
  }
  /* 0 when the layout library cannot evaluate the layout (a kind the lowering does not support
   * either, which reports it); layout_check has bounded sizePerThread for those. */
  int64_t per_thread = layout_elems_per_thread(t->encoding, t->rank, t->shape);
  if (per_thread > GEMMC_MAX_ELEMS_PER_THREAD) {
    verr(v, op, "%s has type %s whose layout gives each thread %lld elements; gemmc allows at most %lld "
                "(a smaller sizePerThread or more warps)",
         what, ts(v, t), (long long)per_thread, (long long)GEMMC_MAX_ELEMS_PER_THREAD);
    return 0;
  }
  return per_thread;
}

/* The limits every later stage relies on, for one value type: tensor dims are powers of two
 * (Triton's rule; layouts are linear maps over GF(2)), tensors and shared buffers are not
 * absurdly large, and a layout gives each thread a bounded number of elements. Returns the
 * elements per thread (0 when the type has no layout or is invalid). */
static bool is_checked_kind(const ir_type *t) {
  return t && (t->kind == TY_TENSOR || t->kind == TY_MEMDESC || t->kind == TY_TENSORDESC);
}

static int64_t check_value_type(verifier *v, const ir_op *op, const char *what, const ir_type *t) {
  if (!is_checked_kind(t)) return 0;
  if (t->kind == TY_TENSORDESC) {
    /* The block a TMA copy moves becomes a tensor (descriptor loads) and a shared buffer: the
     * tensor limit applies to it too. The parser bounds the product far below overflow. */
    int64_t n = ir_type_num_elements(t);
    if (n > GEMMC_MAX_TENSOR_ELEMENTS)
      verr(v, op, "%s has type %s whose block has %lld elements; a tensor may have at most %lld (Triton's limit)", what,
           ts(v, t), (long long)n, (long long)GEMMC_MAX_TENSOR_ELEMENTS);
    return 0;
  }
  if (t->kind == TY_MEMDESC) {
    int64_t n = ir_type_num_elements(t);
    if (n > GEMMC_MAX_MEMDESC_ELEMENTS)
      verr(v, op, "%s has type %s with %lld elements; gemmc allows at most %lld in one shared-memory buffer", what,
           ts(v, t), (long long)n, (long long)GEMMC_MAX_MEMDESC_ELEMENTS);
    return 0;
  }
  for (int d = 0; d < t->rank; d++)
    if (!is_pow2(t->shape[d])) {
      verr(v, op, "%s has type %s: tensor dimensions must be powers of two (dimension %d is %lld)", what, ts(v, t), d,
           (long long)t->shape[d]);
      return 0;
    }
  int64_t n = ir_type_num_elements(t);
  if (n > GEMMC_MAX_TENSOR_ELEMENTS) {
    verr(v, op, "%s has type %s with %lld elements; a tensor may have at most %lld (Triton's limit)", what, ts(v, t),
         (long long)n, (long long)GEMMC_MAX_TENSOR_ELEMENTS);
    return 0;
  }
  return t->encoding ? check_encoding(v, op, what, t) : 0;
}

/* What lowering one per-thread element of an op's result costs, relative to an elementwise op,
 * measured through the whole LLVM pipeline (plain build): most elementwise ops take 5 to 10 us
 * per element; moving data through shared memory (layout conversions, reductions, local loads
 * and stores, async copies) or tensor cores about 180 us (20 000 conversions of 4 elements per
 * thread, or 100 chained 128x128 tt.dot); an integer multiply 15 us, and 300 us when it squares
 * its operand (InstCombine's known-bits recursion on x * x chains). Unvectorized async copies
 * grow faster than linearly (code generation of one huge block): 176 000 units took 6.5 s.
 * A global load not vectorized (one predicated load per element) takes 68 us per element.
 * Stores and atomics are ordered with each other, and NVPTX code generation is quadratic in
 * them within a block (8000 scalar stores: 1.6 s; 4000 stores of 8 elements: 2.1 s). */
static int64_t lowering_weight(const ir_op *op, bool amd_target) {
  /* On AMD, global memory ops weigh eight times more: a 131072-element vector add (512 elements
   * per thread, a dozen ops) took 28 s of gfx942 code generation (fuzz finding), 256 per thread
   * 8 s, 128 per thread 1.4 s (now the largest accepted). */
  int64_t amd_memory = amd_target ? 8 : 1;
  switch (op->kind) {
  case OP_STORE: case OP_DESC_STORE: case OP_DESC_REDUCE: case OP_DESC_SCATTER: case OP_ATOMIC_RMW: case OP_ATOMIC_CAS:
  case OP_ASYNC_COPY:
    return 32 * amd_memory;
  case OP_CONVERT_LAYOUT: case OP_IN_THREAD_TRANSPOSE: case OP_GATHER: case OP_HISTOGRAM: case OP_DOT:
  case OP_WARP_GROUP_DOT: case OP_REDUCE: case OP_SCAN: case OP_LOCAL_ALLOC: case OP_LOCAL_LOAD: case OP_LOCAL_STORE:
    return 32;
  case OP_LOAD: case OP_DESC_LOAD: case OP_DESC_GATHER:
    return 8 * amd_memory;
  case OP_MULI: case OP_MULHIUI:
    return 8;
  /* Elementwise ops that lower to a dozen or more instructions per element (1 warp, 15 000
   * elements, plain build): erf's polynomial 320 us each, powf 250, ceil/floor division 290,
   * fp8 conversions 360 (inline PTX); tanh and remf 33, exp and log 22, clampf 23. A chain of
   * 15 000 ceildivsi took two minutes before its lowering dropped the srem (fuzz finding). */
  /* A printed element is a dozen stores and a call. */
  case OP_PRINT:
    return 64;
  case OP_ASSERT:
    return 2;
  case OP_ERF: case OP_EXTERN_ELEMENTWISE: case OP_CEILDIVSI: case OP_FLOORDIVSI: case OP_FP_TO_FP:
    return 32 * (amd_target ? 2 : 1);
  /* The asm text is copied into the output once per pack: long texts weigh more. */
  case OP_ELEMENTWISE_INLINE_ASM: {
    const ir_attr *text = ir_op_get_attr(op, "asm_string");
    int64_t len = text && text->kind == AT_STRING ? (int64_t)text->str_len : 0;
    return 4 + (len < (1 << 20) ? len : (1 << 20)) / 32;
  }
  /* Computed to an ulp by the lowering (lower_math_f32.c, lower_trig.c), one warp, a chain of 4
   * on 512 elements per thread: sin and cos 710 us each (a reduction, a polynomial pair and the
   * large arguments' loop), log and log2 600, erf 415, tanh 240. */
  case OP_SIN: case OP_COS: case OP_LOG: case OP_LOG2:
    return amd_target ? 128 : 64;
  case OP_TANH:
    return amd_target ? 64 : 32;
  case OP_REMF:
    return amd_target ? 32 : 4;
  case OP_EXP: case OP_CLAMPF:
    return amd_target ? 16 : 2;
  default:
    /* AMDGPU's code generation slows down super-linearly once the values of one block exceed
     * the registers (its scheduler re-runs its stages): 70 elementwise ops on 128 elements per
     * thread took 73 s on gfx942 (fuzz finding), 64 elements 1.5 s; NVPTX leaves that to ptxas. */
    return amd_target ? 16 : 1;
  }
}

/* A value type checked once per distinct type: what each thread holds of it (0: no layout). */
static int64_t type_per_thread(verifier *v, const ir_op *op, const char *what, const ir_type *t) {
  if (!is_checked_kind(t)) return 0;
  bool fresh;
  ptr_map_value *slot = checked_slot(v, t, &fresh);
  if (slot && !fresh) return slot->num;
  int64_t per_thread = check_value_type(v, op, what, t);
  /* checking entered the encoding into the table, which may have moved: find t again */
  slot = checked_slot(v, t, &fresh);
  if (slot) slot->num = per_thread;
  return per_thread;
}

/* Adds an op's lowering cost (per-thread elements it handles, weighted by its kind) to the
 * module's total, which bounds the lowering's and LLVM's work. */
static void add_lowering_cost(verifier *v, const ir_op *op, int64_t per_thread, int64_t weight) {
  /* Each term is far below 2^40 and the sum stops growing once it is reported: no overflow. */
  if (!v->check_lowering_cost || v->reported_module_size || per_thread <= 0) return;
  v->module_per_thread += per_thread * weight;
  if (v->module_per_thread > GEMMC_MAX_MODULE_LOWERING_COST) {
    v->reported_module_size = true;
    verr(v, op, "the kernel is too large for gemmc to compile in reasonable time: its tensor values, weighted "
                "by what lowering them costs, reach %lld elements per thread (the limit is %lld; smaller tiles, "
                "fewer ops or more warps)",
         (long long)v->module_per_thread, (long long)GEMMC_MAX_MODULE_LOWERING_COST);
  }
}

static void verify_value_type(verifier *v, const ir_op *op, const char *what, const ir_type *t) {
  (void)type_per_thread(v, op, what, t);
}

/* What one thread handles of a value for the cost: its elements per thread under its layout; for
 * a tensor without one (TTIR, before the passes choose layouts) a lower bound, its elements
 * spread over the most threads a block can have; 0 for scalars and other types. */
static int64_t cost_elements(verifier *v, const ir_op *op, const ir_type *t) {
  if (!t || t->kind != TY_TENSOR) return 0;
  if (t->encoding) return type_per_thread(v, op, "operand", t);
  int64_t n = ir_type_num_elements(t);
  return (n + GEMMC_MAX_THREADS_PER_BLOCK - 1) / GEMMC_MAX_THREADS_PER_BLOCK;
}

/* An op's lowering cost: the per-thread elements of its tensor results (or, with none, of its
 * largest tensor operand: tt.store, an async copy whose result is a token), at least 1 (a
 * scalar op), times its kind's weight. */
static bool is_global_memory_op(const ir_op *op) {
  return op->kind == OP_LOAD || op->kind == OP_STORE || op->kind == OP_ATOMIC_RMW || op->kind == OP_ATOMIC_CAS ||
         op->kind == OP_ASYNC_COPY;
}

/* True when the op's tensor types have no layouts yet (TTIR). */
static bool without_layouts(const ir_op *op) {
  for (int i = 0; i < op->num_operands; i++) {
    const ir_type *t = op->operands[i].value ? op->operands[i].value->type : NULL;
    if (t && t->kind == TY_TENSOR) return t->encoding == NULL;
  }
  return false;
}

/* How many times the lowering emits an op of a tt.reduce / tt.scan combine region: tt.reduce
 * once per element a thread combines, plus the shuffle and cross-warp steps (at most 16);
 * tt.scan (lower_scan.c) at most twice per element and bit of the axis position, plus twice per
 * element (its runs and their carries); 1 elsewhere. A combine region of 400 ops over 512
 * elements per thread took 2.5 s while it cost 400. */
static int64_t combine_repeats(verifier *v, const ir_op *op) {
  for (const ir_op *p = ir_op_parent_op(op); p; p = ir_op_parent_op(p))
    if ((p->kind == OP_REDUCE || p->kind == OP_SCAN) && p->num_operands > 0 && p->operands[0].value) {
      const ir_type *t = p->operands[0].value->type;
      int64_t n = cost_elements(v, p, t), per_elem = 1;
      int64_t axis = ir_op_get_int_attr(p, "axis", 0);
      if (p->kind == OP_SCAN && t->kind == TY_TENSOR && axis >= 0 && axis < t->rank) {
        int64_t bits = 0;
        while (bits < 62 && (INT64_C(1) << bits) < t->shape[axis]) bits++;
        per_elem = 2 * bits + 2;
      }
      return n > 0 ? n * per_elem + 16 : 1;
    }
  return 1;
}

static void add_op_cost(verifier *v, const ir_op *op) {
  int64_t elems = 0;
  /* Before the passes (TTIR), coalesce will put a layout conversion (weight 32) on each tensor
   * operand and result of a global memory op: count them now, so that an input the passes would
   * blow up is refused before they run (20 000 loads of one pointer: 102 s of passes). */
  if (is_global_memory_op(op) && without_layouts(op)) {
    int64_t n = 0;
    for (int i = 0; i < op->num_operands; i++) {
      const ir_value *val = op->operands[i].value;
      n += val ? cost_elements(v, op, val->type) : 0;
    }
    for (int i = 0; i < op->num_results; i++) n += cost_elements(v, op, op->results[i].type);
    add_lowering_cost(v, op, n ? n : 1, 32);
  }
  for (int i = 0; i < op->num_results; i++) elems += cost_elements(v, op, op->results[i].type);
  for (int i = 0; elems == 0 && i < op->num_operands; i++) {
    const ir_value *val = op->operands[i].value;
    int64_t n = val ? cost_elements(v, op, val->type) : 0;
    if (n > elems) elems = n;
  }
  add_lowering_cost(v, op, (elems ? elems : 1) * combine_repeats(v, op), lowering_weight(op, v->amd_target));
}

/* ------------------------------------------------------------------ structure */

static ir_op_kind expected_parent_of_terminator(ir_op_kind kind, const char **also) {
  *also = NULL;
  switch (kind) {
  case OP_RETURN: return OP_FUNC;
  case OP_SCF_YIELD: *also = "scf.if"; return OP_SCF_FOR; /* or scf.while's after region */
  case OP_SCF_CONDITION: return OP_SCF_WHILE;
  case OP_REDUCE_RETURN: return OP_REDUCE;
  case OP_SCAN_RETURN: return OP_SCAN;
  case OP_WARP_YIELD:
  case OP_WARP_RETURN: return OP_WARP_SPECIALIZE;
  default: return OP_COUNT;
  }
}

static void verify_terminator_position(verifier *v, const ir_op *op) {
  if (!(ir_op_info_of(op->kind)->traits & TRAIT_TERMINATOR)) return;
  if (op->parent && op->next) verr(v, op, "must be the last operation in its block");
  const char *also;
  ir_op_kind want = expected_parent_of_terminator(op->kind, &also);
  if (want == OP_COUNT) return;
  const ir_op *parent = ir_op_parent_op(op);
  bool ok = parent && (parent->kind == want || (also && parent->kind == OP_SCF_IF) ||
                       (op->kind == OP_SCF_YIELD && parent->kind == OP_SCF_WHILE));
  if (op->parent && !ok) {
    if (op->kind == OP_SCF_YIELD)
      verr(v, op, "expects parent op 'scf.for', 'scf.if' or 'scf.while', found '%s'",
           parent ? ir_op_name(parent) : "none");
    else if (also)
      verr(v, op, "expects parent op '%s' or '%s', found '%s'", ir_op_info_of(want)->name, also,
           parent ? ir_op_name(parent) : "none");
    else
      verr(v, op, "expects parent op '%s', found '%s'", ir_op_info_of(want)->name,
           parent ? ir_op_name(parent) : "none");
  }
}

/* Checks that region `r` of op has exactly one block ending with `term` (a missing terminator
 * is reported here; a wrong one reports itself through its parent check). Returns the block. */
static ir_block *single_block_region(verifier *v, const ir_op *op, int r, const char *region_name,
                                     ir_op_kind term) {
  const ir_region *reg = &op->regions[r];
  if (!reg->first) {
    verr(v, op, "%s must have one block, found none", region_name);
    return NULL;
  }
  if (reg->first != reg->last) {
    verr(v, op, "%s must have exactly one block", region_name);
    return NULL;
  }
  ir_block *b = reg->first;
  if (!b->last || !(ir_op_info_of(b->last->kind)->traits & TRAIT_TERMINATOR)) {
    verr(v, op, "%s must end with '%s', found %s%s%s", region_name, ir_op_info_of(term)->name,
         b->last ? "'" : "an empty block", b->last ? ir_op_name(b->last) : "", b->last ? "'" : "");
    return NULL;
  }
  if (b->last->kind != term) return NULL;
  return b;
}

/* Room for n types in the context's arena (NULL when out of memory: the caller checks nothing
 * more, the out-of-memory unwind or error reports it). */
static const ir_type **type_list(verifier *v, int n) {
  return ir_alloc(v->ctx, sizeof(const ir_type *) * (size_t)(n > 0 ? n : 1));
}

/* A terminator's operands against the types its parent expects (reported at the terminator). */
static void check_yield_types(verifier *v, const ir_op *owner, const ir_op *term, int n,
                              const ir_type *const *want, const char *what) {
  if (term->num_operands != n) {
    verr(v, term, "yields %d values but the enclosing '%s' expects %d (%s)", term->num_operands,
         ir_op_name(owner), n, what);
    return;
  }
  for (int i = 0; i < n; i++) {
    const ir_value *val = term->operands[i].value;
    if (val && val->type != want[i])
      verr(v, term, "operand #%d has type %s but the enclosing '%s' expects %s (%s)", i, ts(v, val->type),
           ir_op_name(owner), ts(v, want[i]), what);
  }
}

/* ------------------------------------------------------------------ elementwise and arith */

/* All tensor operands (from `first`) and results share one shape and encoding. */
static bool check_elementwise(verifier *v, const ir_op *op, int first) {
  const ir_type *ref = NULL;
  for (int i = first; i < op->num_operands + op->num_results; i++) {
    const ir_type *t = i < op->num_operands ? operand_type(op, i) : result_type(op, i - op->num_operands);
    if (!ref) {
      ref = t;
    } else if (!same_shape_encoding(ref, t)) {
      verr(v, op, "requires all operands and results to have the same shape and encoding, got %s and %s",
           ts(v, ref), ts(v, t));
      return false;
    }
  }
  return true;
}

static bool is_int_same_op(ir_op_kind k) {
  switch (k) {
  case OP_ADDI: case OP_SUBI: case OP_MULI: case OP_MULHIUI: case OP_DIVSI: case OP_DIVUI: case OP_CEILDIVSI:
  case OP_FLOORDIVSI: case OP_REMSI: case OP_REMUI: case OP_MINSI: case OP_MAXSI: case OP_MINUI:
  case OP_MAXUI: case OP_ANDI: case OP_ORI: case OP_XORI: case OP_SHLI: case OP_SHRSI:
  case OP_SHRUI: case OP_ABSI:
    return true;
  default:
    return false;
  }
}

static void verify_same(verifier *v, const ir_op *op) {
  const ir_type *rt = result_type(op, 0);
  for (int i = 0; i < op->num_operands; i++)
    if (operand_type(op, i) != rt) {
      verr(v, op, "requires the same type for all operands and results, got %s and %s",
           ts(v, operand_type(op, i)), ts(v, rt));
      return;
    }
  const ir_type *e = elem_of(rt);
  /* i1 is an integer here as in MLIR's arith: andi/ori/xori on masks are the common case. */
  if (is_int_same_op(op->kind) && !is_intlike(e))
    verr(v, op, "operands must be integers (or tensors of integers), got %s", ts(v, rt));
  else if (!is_int_same_op(op->kind) && !ir_type_is_float(e))
    verr(v, op, "operands must be floating-point (or tensors of floats), got %s", ts(v, rt));
}

static void verify_cmp(verifier *v, const ir_op *op) {
  const ir_type *a = operand_type(op, 0), *b = operand_type(op, 1), *r = result_type(op, 0);
  bool is_int = op->kind == OP_CMPI;
  if (a != b) {
    verr(v, op, "operands must have the same type, got %s and %s", ts(v, a), ts(v, b));
    return;
  }
  if (is_int && !is_intlike(elem_of(a)))
    verr(v, op, "operands must be integers (or tensors of integers), got %s", ts(v, a));
  if (!is_int && !ir_type_is_float(elem_of(a)))
    verr(v, op, "operands must be floating-point (or tensors of floats), got %s", ts(v, a));
  if (!ir_type_is_int(elem_of(r), 1))
    verr(v, op, "result must be i1 with the operands' shape and encoding, got %s", ts(v, r));
  const ir_attr *pred = ir_op_get_attr(op, "predicate");
  int num_predicates;
  const char *const *predicates = cmp_predicate_names(op->kind, &num_predicates);
  if (!pred)
    verr(v, op, "requires a 'predicate' attribute");
  else if (!enum_attr_valid(pred, predicates, num_predicates))
    verr(v, op, "predicate %s is not a valid %s predicate", as(v, pred), is_int ? "integer" : "float");
}

static void verify_select(verifier *v, const ir_op *op) {
  const ir_type *c = operand_type(op, 0), *a = operand_type(op, 1), *b = operand_type(op, 2),
                *r = result_type(op, 0);
  if (a != b || a != r) {
    verr(v, op, "true value, false value and result must have the same type, got %s, %s and %s",
         ts(v, a), ts(v, b), ts(v, r));
    return;
  }
  bool cond_ok = ir_type_is_int(c, 1) || (ir_type_is_int(elem_of(c), 1) && same_shape_encoding(c, r));
  if (!cond_ok)
    verr(v, op, "condition must be i1 or a tensor of i1 with the result's shape and encoding, got %s for result %s",
         ts(v, c), ts(v, r));
}

static void verify_cast(verifier *v, const ir_op *op) {
  const ir_type *st = operand_type(op, 0), *dt = result_type(op, 0);
  const ir_type *s = elem_of(st), *d = elem_of(dt);
  bool ok = true;
  const char *rule = "";
  switch (op->kind) {
  case OP_EXTSI:
  case OP_EXTUI:
    ok = ir_type_is_int(s, 0) && ir_type_is_int(d, 0) && d->width > s->width;
    rule = "an integer to a wider integer";
    break;
  case OP_TRUNCI:
    ok = ir_type_is_int(s, 0) && ir_type_is_int(d, 0) && d->width < s->width;
    rule = "an integer to a narrower integer";
    break;
  case OP_EXTF:
    ok = ir_type_is_float(s) && ir_type_is_float(d) && d->width > s->width;
    rule = "a float to a wider float";
    break;
  case OP_TRUNCF:
    ok = ir_type_is_float(s) && ir_type_is_float(d) && d->width < s->width;
    rule = "a float to a narrower float";
    break;
  case OP_SITOFP:
  case OP_UITOFP:
    ok = ir_type_is_int(s, 0) && ir_type_is_float(d);
    rule = "an integer to a float";
    break;
  case OP_FPTOSI:
  case OP_FPTOUI:
    ok = ir_type_is_float(s) && ir_type_is_int(d, 0);
    rule = "a float to an integer";
    break;
  case OP_BITCAST:
    ok = (ir_type_is_int(s, 0) || ir_type_is_float(s)) && (ir_type_is_int(d, 0) || ir_type_is_float(d)) &&
         s->width == d->width;
    rule = "an integer or float to one of the same bit width";
    break;
  case OP_INDEX_CAST:
    ok = (s && s->kind == TY_INDEX && ir_type_is_int(d, 0)) || (ir_type_is_int(s, 0) && d && d->kind == TY_INDEX);
    rule = "between index and an integer";
    break;
  case OP_INT_TO_PTR:
    ok = ir_type_is_int(s, 64) && is_ptr(d);
    rule = "i64 to a pointer";
    break;
  case OP_PTR_TO_INT:
    ok = is_ptr(s) && ir_type_is_int(d, 64);
    rule = "a pointer to i64";
    break;
  case OP_TT_BITCAST:
    ok = is_scalar(s) && is_scalar(d) && ir_type_bits(s) == ir_type_bits(d) && is_ptr(s) == is_ptr(d);
    rule = "a scalar to one of the same bit width (pointers to pointers)";
    break;
  case OP_FP_TO_FP: {
    ok = ir_type_is_float(s) && ir_type_is_float(d);
    rule = "a float to a float";
    const ir_attr *rounding = ir_op_get_attr(op, "rounding");
    static const char *const modes[] = {"rtz", "rtne"};
    if (ok && rounding && !enum_attr_valid(rounding, modes, 2)) {
      verr(v, op, "rounding must be rtz or rtne, got %s", as(v, rounding));
      return;
    }
    if (ok && d->width < s->width && !rounding) {
      verr(v, op, "a rounding mode is required to convert %s to the narrower %s", ts(v, s), ts(v, d));
      return;
    }
    break;
  }
  default:
    return;
  }
  if (!ok) verr(v, op, "casts %s, got %s to %s", rule, ts(v, st), ts(v, dt));
}

static void verify_constant(verifier *v, const ir_op *op) {
  const ir_attr *val = ir_op_get_attr(op, "value");
  const ir_type *rt = result_type(op, 0);
  if (!val) {
    verr(v, op, "requires a 'value' attribute");
    return;
  }
  switch (val->kind) {
  case AT_INT:
    if (val->type ? val->type != rt : !is_intlike(rt))
      verr(v, op, "value type %s does not match the result type %s", val->type ? ts(v, val->type) : "(untyped integer)",
           ts(v, rt));
    break;
  case AT_BOOL:
    if (!ir_type_is_int(rt, 1)) verr(v, op, "value type i1 does not match the result type %s", ts(v, rt));
    break;
  case AT_FLOAT:
    if (val->type ? val->type != rt : !ir_type_is_float(rt))
      verr(v, op, "value type %s does not match the result type %s", val->type ? ts(v, val->type) : "(untyped float)",
           ts(v, rt));
    break;
  case AT_DENSE:
    if (val->type != rt) verr(v, op, "value type %s does not match the result type %s", ts(v, val->type), ts(v, rt));
    break;
  default:
    verr(v, op, "value must be an integer, float, bool or dense attribute, got %s", as(v, val));
  }
}

/* ------------------------------------------------------------------ tt: shapes and pointers */

static void verify_addptr(verifier *v, const ir_op *op) {
  const ir_type *p = operand_type(op, 0), *o = operand_type(op, 1), *r = result_type(op, 0);
  if (!is_ptr(elem_of(p))) {
    verr(v, op, "operand #0 must be a pointer or a tensor of pointers, got %s", ts(v, p));
    return;
  }
  if (!is_intlike(elem_of(o))) {
    verr(v, op, "operand #1 must be an integer or a tensor of integers, got %s", ts(v, o));
    return;
  }
  if (!same_shape(p, o)) {
    verr(v, op, "operand #1 must have the same shape as the pointer, got %s and %s", ts(v, o), ts(v, p));
    return;
  }
  if (ir_type_is_tensor(p) && p->encoding != o->encoding) {
    verr(v, op, "operand #1 must have the same encoding as the pointer, got %s and %s", ts(v, o), ts(v, p));
    return;
  }
  if (r != p) verr(v, op, "result type must be the pointer type %s, got %s", ts(v, p), ts(v, r));
}

static void verify_splat(verifier *v, const ir_op *op) {
  const ir_type *s = operand_type(op, 0), *r = result_type(op, 0);
  if (!is_scalar(s)) {
    verr(v, op, "operand must be a scalar, got %s", ts(v, s));
    return;
  }
  if (!ir_type_is_tensor(r)) {
    verr(v, op, "result must be a tensor, got %s", ts(v, r));
    return;
  }
  if (r->elem != s) verr(v, op, "result element type must be the operand type, got %s and %s", ts(v, s), ts(v, r));
}

/* The source of expand_dims / the result of reduce: #ttg.slice<{dim = axis, parent = P}>. */
static bool is_slice_of(const ir_attr *enc, int64_t dim, const ir_attr *parent) {
  return enc && enc->kind == AT_SLICE && enc->layout.dim == dim && enc->layout.parent == parent;
}

static bool get_axis(verifier *v, const ir_op *op, int64_t *axis) {
  if (!attr_int(ir_op_get_attr(op, "axis"), axis)) {
    verr(v, op, "requires an integer 'axis' attribute");
    return false;
  }
  return true;
}

static void verify_expand_dims(verifier *v, const ir_op *op) {
  const ir_type *s = operand_type(op, 0), *r = result_type(op, 0);
  int64_t axis;
  if (!get_axis(v, op, &axis)) return;
  if (!ir_type_is_tensor(s) || !ir_type_is_tensor(r)) {
    verr(v, op, "operand and result must be tensors, got %s and %s", ts(v, s), ts(v, r));
    return;
  }
  if (axis < 0 || axis > s->rank) {
    verr(v, op, "axis %lld is out of range for an operand of rank %d", (long long)axis, s->rank);
    return;
  }
  bool shape_ok = r->rank == s->rank + 1 && r->shape[axis] == 1;
  for (int i = 0, j = 0; shape_ok && i < r->rank; i++) {
    if (i == axis) continue;
    shape_ok = r->shape[i] == s->shape[j++];
  }
  if (!shape_ok) {
    verr(v, op, "result must be the operand shape with a 1 inserted at axis %lld, got %s -> %s", (long long)axis,
         ts(v, s), ts(v, r));
    return;
  }
  if (r->elem != s->elem) {
    verr(v, op, "result element type must be the operand element type, got %s -> %s", ts(v, s), ts(v, r));
    return;
  }
  if ((s->encoding || r->encoding) && !is_slice_of(s->encoding, axis, r->encoding))
    verr(v, op, "operand encoding must be #ttg.slice<{dim = %lld, parent = %s}> (a slice of the result encoding), got %s",
         (long long)axis, as(v, r->encoding), as(v, s->encoding));
}

static void verify_broadcast(verifier *v, const ir_op *op) {
  const ir_type *s = operand_type(op, 0), *r = result_type(op, 0);
  if (!ir_type_is_tensor(s) || !ir_type_is_tensor(r) || s->rank != r->rank) {
    verr(v, op, "operand and result must be tensors of the same rank, got %s -> %s", ts(v, s), ts(v, r));
    return;
  }
  for (int i = 0; i < s->rank; i++)
    if (s->shape[i] != r->shape[i] && s->shape[i] != 1) {
      verr(v, op, "dimension %d of the operand must be 1 or equal the result's, got %s -> %s", i, ts(v, s), ts(v, r));
      return;
    }
  if (s->elem != r->elem || s->encoding != r->encoding)
    verr(v, op, "operand and result must have the same element type and encoding, got %s -> %s", ts(v, s), ts(v, r));
}

static void verify_reshape(verifier *v, const ir_op *op) {
  const ir_type *s = operand_type(op, 0), *r = result_type(op, 0);
  if (!ir_type_is_tensor(s) || !ir_type_is_tensor(r) || s->elem != r->elem) {
    verr(v, op, "operand and result must be tensors of the same element type, got %s -> %s", ts(v, s), ts(v, r));
    return;
  }
  if (ir_type_num_elements(s) != ir_type_num_elements(r))
    verr(v, op, "operand and result must have the same number of elements, got %s (%lld) -> %s (%lld)", ts(v, s),
         (long long)ir_type_num_elements(s), ts(v, r), (long long)ir_type_num_elements(r));
}

/* tt.split: a tensor whose last dim is 2 -> its two halves along that dim (same type);
 * tt.join: the inverse. */
static void verify_split_join(verifier *v, const ir_op *op) {
  bool split = op->kind == OP_SPLIT;
  const ir_type *whole = split ? operand_type(op, 0) : result_type(op, 0);
  const ir_type *half = split ? result_type(op, 0) : operand_type(op, 0);
  const ir_type *other = split ? result_type(op, 1) : operand_type(op, 1);
  if (!ir_type_is_tensor(whole) || !ir_type_is_tensor(half) || other != half || whole->elem != half->elem) {
    verr(v, op, "%s must be tensors of one element type, got %s -> %s",
         split ? "operand and results" : "operands and result", ts(v, split ? whole : half),
         ts(v, split ? half : whole));
    return;
  }
  bool shapes_ok = whole->rank == half->rank + 1 && whole->shape[whole->rank - 1] == 2;
  for (int d = 0; shapes_ok && d < half->rank; d++) shapes_ok = whole->shape[d] == half->shape[d];
  if (!shapes_ok)
    verr(v, op, "%s must have the shape of %s with a last dim of 2 added, got %s -> %s",
         split ? "the operand" : "the result", split ? "the results" : "the operands", ts(v, split ? whole : half),
         ts(v, split ? half : whole));
}

/* tt.cat: two tensors of one type, the result twice as long along dim 0. */
static void verify_cat(verifier *v, const ir_op *op) {
  const ir_type *a = operand_type(op, 0), *b = operand_type(op, 1), *r = result_type(op, 0);
  bool ok = ir_type_is_tensor(a) && a == b && ir_type_is_tensor(r) && r->elem == a->elem && r->rank == a->rank;
  for (int d = 0; ok && d < a->rank; d++) ok = r->shape[d] == (d ? a->shape[d] : 2 * a->shape[d]);
  if (!ok)
    verr(v, op, "needs two tensors of one type and a result of twice their length along dim 0, got %s, %s -> %s",
         ts(v, a), ts(v, b), ts(v, r));
}

/* tt.gather: source and indices tensors of one rank, integer indices; the result has the indices'
 * shape (and encoding) and the source's element type; off the axis, the indices' dims are the
 * source's. */
static void verify_gather(verifier *v, const ir_op *op) {
  const ir_type *s = operand_type(op, 0), *ix = operand_type(op, 1), *r = result_type(op, 0);
  int64_t axis;
  if (!get_axis(v, op, &axis)) return;
  if (!ir_type_is_tensor(s) || !ir_type_is_tensor(ix) || !ir_type_is_tensor(r) || ix->elem->kind != TY_INT ||
      s->rank != ix->rank || r->rank != ix->rank || r->elem != s->elem) {
    verr(v, op,
         "needs a source tensor and integer indices of one rank, the result of the indices' shape and the source's "
         "element type, got (%s, %s) -> %s",
         ts(v, s), ts(v, ix), ts(v, r));
    return;
  }
  if (axis < 0 || axis >= s->rank) {
    verr(v, op, "axis %lld is not a dim of %s", (long long)axis, ts(v, s));
    return;
  }
  for (int d = 0; d < r->rank; d++)
    if (r->shape[d] != ix->shape[d] || (d != axis && ix->shape[d] != s->shape[d])) {
      verr(v, op, "the result must have the indices' shape and, off axis %lld, the source's, got (%s, %s) -> %s",
           (long long)axis, ts(v, s), ts(v, ix), ts(v, r));
      return;
    }
  if ((ix->encoding || r->encoding) && ix->encoding != r->encoding)
    verr(v, op, "the result must have the indices' encoding, got %s and %s", ts(v, ix), ts(v, r));
}

/* tt.histogram: a 1-D integer source (and an i1 mask of its shape and encoding) -> 1-D integer
 * bins. */
/* tt.elementwise_inline_asm: the attributes Triton prints, and a constraint string LLVM accepts
 * for the registers the lowering passes (outputs "=c", then inputs "c" or a tied output's
 * number, then clobbers "~{..}"); which letters the target has is checked when lowering. */
static void verify_inline_asm(verifier *v, const ir_op *op) {
  const ir_attr *text = ir_op_get_attr(op, "asm_string"), *cons = ir_op_get_attr(op, "constraints");
  const ir_attr *pure = ir_op_get_attr(op, "pure"), *packed = ir_op_get_attr(op, "packed_element");
  if (!text || text->kind != AT_STRING) verr(v, op, "needs a string attribute 'asm_string'");
  if (!cons || cons->kind != AT_STRING || !cons->str) {
    verr(v, op, "needs a string attribute 'constraints'");
    return;
  }
  if (!pure || pure->kind != AT_BOOL) verr(v, op, "needs a bool attribute 'pure'");
  if (!packed || packed->kind != AT_INT || packed->int_value < 1 || packed->int_value > 16) {
    verr(v, op, "needs an integer attribute 'packed_element' from 1 to 16, got %s", packed ? as(v, packed) : "none");
    return;
  }
  if (op->num_results < 1) {
    verr(v, op, "needs at least one result");
    return;
  }
  int regs[2] = {0, 0}; /* inputs, outputs */
  for (int i = 0; i < op->num_operands + op->num_results; i++) {
    bool is_result = i >= op->num_operands;
    const ir_type *t = is_result ? result_type(op, i - op->num_operands) : operand_type(op, i);
    int per_reg = inline_asm_elems_per_register(elem_of(t), packed->int_value);
    if (!per_reg) {
      verr(v, op,
           "cannot pass %s #%d (%s) to inline asm in packs of %lld: integers and floats of 1 (unpacked) "
           "to 64 bits, and a pack a multiple of the elements per 32-bit register",
           is_result ? "result" : "operand", is_result ? i - op->num_operands : i, ts(v, t),
           (long long)packed->int_value);
      return;
    }
    regs[is_result] += (int)(packed->int_value / per_reg);
  }
  int seen[3] = {0, 0, 0}; /* outputs, inputs, clobbers (inline_asm_constraint_kind) */
  inline_asm_constraint k;
  for (const char *c = cons->str; inline_asm_next_constraint(&c, cons->str + cons->str_len, &k);) {
    bool ok = k.code < k.stop &&
              (k.kind == INLINE_ASM_CLOBBER ? *k.code == '{' && k.stop[-1] == '}' : *k.code != '*' && *k.code != '=');
    /* only an input ties to an output, and to one that exists */
    if (ok && k.tied != -1) ok = k.kind == INLINE_ASM_INPUT && k.tied >= 0 && k.tied < regs[1];
    if (!ok || (k.kind < INLINE_ASM_CLOBBER && seen[k.kind + 1]) || (k.kind == INLINE_ASM_OUTPUT && seen[1])) {
      verr(v, op,
           "constraint '%.*s' is malformed or out of place (outputs '=r', then inputs 'r' or a tied "
           "output's number, then clobbers '~{..}')",
           (int)(k.stop - k.text), k.text);
      return;
    }
    seen[k.kind]++;
  }
  if (seen[0] != regs[1] || seen[1] != regs[0]) {
    verr(v, op,
         "constraints name %d output%s and %d input%s, but the asm gets %d output and %d input registers "
         "(packed_element %lld)",
         seen[0], seen[0] == 1 ? "" : "s", seen[1], seen[1] == 1 ? "" : "s", regs[1], regs[0],
         (long long)packed->int_value);
    return;
  }
  /* $N and ${N} name registers 0 .. outputs + inputs - 1, $$ is a '$' (LLVM aborts on anything else) */
  const char *s = text && text->kind == AT_STRING && text->str ? text->str : "";
  for (const char *d = strchr(s, '$'); d; d = strchr(d, '$')) {
    d++;
    if (*d == '$') {
      d++;
      continue;
    }
    bool braced = *d == '{';
    long n = 0;
    const char *digits = d + braced;
    for (d = digits; *d >= '0' && *d <= '9' && n < 100000; d++) n = n * 10 + (*d - '0');
    if (d == digits || n >= regs[0] + regs[1] || (braced && *d != '}')) {
      int shown = (int)(d - digits) + braced + (braced && *d);
      verr(v, op, "the asm text's '$%.*s' names no register: $0 .. $%d (outputs, then inputs), ${N} or $$",
           shown > 8 ? 8 : shown, digits - braced, regs[0] + regs[1] - 1);
      return;
    }
    d += braced;
  }
}

/* tt.print: a prefix, hex, and one signedness flag per printed value; values are integers, floats
 * or pointers (scalars or tensors). */
static void verify_print(verifier *v, const ir_op *op) {
  const ir_attr *prefix = ir_op_get_attr(op, "prefix"), *hex = ir_op_get_attr(op, "hex");
  const ir_attr *sign = ir_op_get_attr(op, "isSigned");
  if (!prefix || prefix->kind != AT_STRING) verr(v, op, "needs a string attribute 'prefix'");
  if (hex && hex->kind != AT_BOOL) verr(v, op, "'hex' must be true or false, got %s", as(v, hex));
  if (op->num_operands && (!sign || sign->kind != AT_DENSE_ARRAY || sign->num_elems != op->num_operands))
    verr(v, op, "needs 'isSigned' = array<i32: ..> with one entry per value (%d), got %s", op->num_operands,
         sign ? as(v, sign) : "none");
  for (int i = 0; i < op->num_operands; i++) {
    const ir_type *e = elem_of(operand_type(op, i));
    if (e->kind != TY_INT && e->kind != TY_FLOAT && e->kind != TY_PTR)
      verr(v, op, "cannot print value #%d of type %s (integers, floats and pointers)", i, ts(v, operand_type(op, i)));
  }
}

static void verify_assert(verifier *v, const ir_op *op) {
  const ir_attr *message = ir_op_get_attr(op, "message");
  if (!message || message->kind != AT_STRING) verr(v, op, "needs a string attribute 'message'");
  if (!ir_type_is_int(elem_of(operand_type(op, 0)), 1))
    verr(v, op, "the condition must be i1 or a tensor of i1, got %s", ts(v, operand_type(op, 0)));
}

static void verify_histogram(verifier *v, const ir_op *op) {
  const ir_type *s = operand_type(op, 0), *r = result_type(op, 0);
  if (!ir_type_is_tensor(s) || !ir_type_is_tensor(r) || s->rank != 1 || r->rank != 1 || s->elem->kind != TY_INT ||
      r->elem->kind != TY_INT) {
    verr(v, op, "maps a 1-D integer tensor to 1-D integer bins, got %s -> %s", ts(v, s), ts(v, r));
    return;
  }
  if (op->num_operands > 1) {
    const ir_type *m = operand_type(op, 1);
    if (!ir_type_is_tensor(m) || !ir_type_is_int(m->elem, 1) || m->rank != 1 || m->shape[0] != s->shape[0] ||
        m->encoding != s->encoding)
      verr(v, op, "the mask must be i1 of the source's shape and encoding, got %s for %s", ts(v, m), ts(v, s));
  }
}

static void verify_trans(verifier *v, const ir_op *op) {
  const ir_type *s = operand_type(op, 0), *r = result_type(op, 0);
  const ir_attr *order = ir_op_get_attr(op, "order");
  if (!ir_type_is_tensor(s) || !ir_type_is_tensor(r) || s->rank != r->rank || s->elem != r->elem) {
    verr(v, op, "operand and result must be tensors of the same rank and element type, got %s -> %s", ts(v, s),
         ts(v, r));
    return;
  }
  if (!order || order->kind != AT_DENSE_ARRAY || !order->ints || order->num_elems != s->rank) {
    verr(v, op, "requires an 'order' attribute (array<i32: ...>) with %d entries", s->rank);
    return;
  }
  bool seen[IR_MAX_RANK] = {false};
  for (int i = 0; i < s->rank; i++) {
    int64_t o = order->ints[i];
    if (o < 0 || o >= s->rank || o >= IR_MAX_RANK || seen[o]) {
      verr(v, op, "order %s is not a permutation of 0..%d", as(v, order), s->rank - 1);
      return;
    }
    seen[o] = true;
  }
  for (int i = 0; i < s->rank; i++)
    if (r->shape[i] != s->shape[order->ints[i]]) {
      verr(v, op, "result shape must be the operand shape permuted by order %s, got %s -> %s", as(v, order),
           ts(v, s), ts(v, r));
      return;
    }
}

static void verify_make_range(verifier *v, const ir_op *op) {
  const ir_type *r = result_type(op, 0);
  int64_t start, end;
  if (!attr_int(ir_op_get_attr(op, "start"), &start) || !attr_int(ir_op_get_attr(op, "end"), &end)) {
    verr(v, op, "requires integer 'start' and 'end' attributes");
    return;
  }
  if (!ir_type_is_tensor(r) || r->rank != 1 || !ir_type_is_int(r->elem, 32)) {
    verr(v, op, "result must be a 1-D tensor of i32, got %s", ts(v, r));
    return;
  }
  /* The range's values are i32 (Triton's start and end are i32 attributes); within that, end -
   * start below cannot overflow. */
  if (start < INT32_MIN || start > INT32_MAX || end < INT32_MIN || end > INT32_MAX) {
    verr(v, op, "start %lld and end %lld must be i32 values", (long long)start, (long long)end);
    return;
  }
  if (start >= end) {
    verr(v, op, "start %lld must be less than end %lld", (long long)start, (long long)end);
    return;
  }
  if (end - start != r->shape[0]) {
    verr(v, op, "result %s must have end - start = %lld elements", ts(v, r), (long long)(end - start));
    return;
  }
  if (!is_pow2(end - start))
    verr(v, op, "number of elements %lld must be a power of two", (long long)(end - start));
}

/* The type a pointer (or tensor of pointers) loads: the pointee, with the pointer's shape. */
static const ir_type *loaded_type(verifier *v, const ir_type *p) {
  const ir_type *pe = elem_of(p);
  if (!is_ptr(pe)) return NULL;
  return ir_type_is_tensor(p) ? ir_type_with_element(v->ctx, p, pe->elem) : pe->elem;
}

static bool check_pointer_operand(verifier *v, const ir_op *op, int index) {
  if (is_ptr(elem_of(operand_type(op, index)))) return true;
  verr(v, op, "operand #%d must be a pointer or a tensor of pointers, got %s", index, ts(v, operand_type(op, index)));
  return false;
}

static void check_mask(verifier *v, const ir_op *op, int index, const ir_type *ptr) {
  if (index >= op->num_operands) return;
  const ir_type *m = operand_type(op, index);
  /* Block pointers (!tt.ptr<tensor<..>>) are masked by boundary checks, not by a mask. */
  if (!ir_type_is_tensor(ptr) && ir_type_is_tensor(elem_of(ptr)->elem)) return;
  if (m != ir_type_with_element(v->ctx, ptr, ir_int_type(v->ctx, 1)))
    verr(v, op, "mask must be i1 with the pointer's shape and encoding, got %s for pointer %s", ts(v, m), ts(v, ptr));
}

static void verify_load(verifier *v, const ir_op *op) {
  if (!check_pointer_operand(v, op, 0)) return;
  const ir_type *p = operand_type(op, 0), *want = loaded_type(v, p), *r = result_type(op, 0);
  if (r != want) {
    verr(v, op, "result type must be %s (the pointee of %s), got %s", ts(v, want), ts(v, p), ts(v, r));
    return;
  }
  check_mask(v, op, 1, p);
  if (op->num_operands > 2 && operand_type(op, 2) != want)
    verr(v, op, "'other' must have the result type %s, got %s", ts(v, want), ts(v, operand_type(op, 2)));
}

static void verify_store(verifier *v, const ir_op *op) {
  if (!check_pointer_operand(v, op, 0)) return;
  const ir_type *p = operand_type(op, 0), *want = loaded_type(v, p), *val = operand_type(op, 1);
  if (val != want) {
    verr(v, op, "value type must be %s (the pointee of %s), got %s", ts(v, want), ts(v, p), ts(v, val));
    return;
  }
  check_mask(v, op, 2, p);
}

static void verify_atomic(verifier *v, const ir_op *op) {
  if (!check_pointer_operand(v, op, 0)) return;
  const ir_type *p = operand_type(op, 0), *want = loaded_type(v, p), *r = result_type(op, 0);
  int first_value = 1, last_value = op->kind == OP_ATOMIC_CAS ? 2 : 1;
  for (int i = first_value; i <= last_value; i++)
    if (operand_type(op, i) != want) {
      verr(v, op, "operand #%d must have type %s (the pointee of %s), got %s", i, ts(v, want), ts(v, p),
           ts(v, operand_type(op, i)));
      return;
    }
  if (r != want) verr(v, op, "result type must be %s, got %s", ts(v, want), ts(v, r));
  if (op->kind == OP_ATOMIC_RMW) check_mask(v, op, 2, p);
  /* Triton's RMWOp, MemSemantic and MemSyncScope (the custom form's leading words). */
  const char *const *lists[3] = {ir_atomic_rmw_ops, ir_atomic_sems, ir_atomic_scopes};
  const char *names[3] = {"atomic_rmw_op", "sem", "scope"};
  for (int k = op->kind == OP_ATOMIC_RMW ? 0 : 1; k < 3; k++) {
    const ir_attr *a = ir_op_get_attr(op, names[k]);
    if (!a || a->kind != AT_KEYWORD || ir_word_index(a->str, lists[k]) < 0)
      verr(v, op, "'%s' needs a %s keyword attribute", ir_op_name(op), names[k]);
  }
  const ir_type *e = ir_type_element(want);
  const ir_attr *kind = ir_op_get_attr(op, "atomic_rmw_op");
  if (op->kind == OP_ATOMIC_RMW && kind && kind->kind == AT_KEYWORD && e) {
    bool fadd = strcmp(kind->str, "fadd") == 0, exch = strcmp(kind->str, "exch") == 0;
    if (fadd != ir_type_is_float(e) && !exch) verr(v, op, "atomic '%s' does not apply to %s", kind->str, ts(v, e));
  }
}

/* ------------------------------------------------------------------ tt.dot_scaled */

/* The element type each tt.dot_scaled format is stored as (fp4/fp6 as i8 bytes). */
static bool dot_scaled_elem_ok(const char *format, const ir_type *e) {
  if (!strcmp(format, "e4m3")) return e->kind == TY_FLOAT && e->float_kind == FLT_F8E4M3FN;
  if (!strcmp(format, "e5m2")) return e->kind == TY_FLOAT && e->float_kind == FLT_F8E5M2;
  if (!strcmp(format, "bf16")) return e->kind == TY_FLOAT && e->float_kind == FLT_BF16;
  if (!strcmp(format, "fp16")) return e->kind == TY_FLOAT && e->float_kind == FLT_F16;
  return e->kind == TY_INT && e->width == 8; /* e2m1 (two per byte), e2m3, e3m2 */
}

static void verify_dot_scaled(verifier *v, const ir_op *op) {
  static const char *const formats[] = {"e4m3", "e5m2", "e2m3", "e3m2", "e2m1", "bf16", "fp16", NULL};
  const ir_attr *seg = ir_op_get_attr(op, "operandSegmentSizes");
  if (seg && (seg->kind != AT_DENSE_ARRAY || seg->num_elems != 5 || !seg->ints || seg->ints[0] != 1 ||
              seg->ints[1] != 1 || seg->ints[2] != 1 || seg->ints[3] < 0 || seg->ints[3] > 1 || seg->ints[4] < 0 ||
              seg->ints[4] > 1 || 3 + seg->ints[3] + seg->ints[4] != op->num_operands)) {
    verr(v, op, "operandSegmentSizes must be array<i32: 1, 1, 1, 0|1, 0|1> matching the %d operands", op->num_operands);
    return;
  }
  const char *fmt[2];
  const char *names[2] = {"a_elem_type", "b_elem_type"};
  for (int i = 0; i < 2; i++) {
    const ir_attr *f = ir_op_get_attr(op, names[i]);
    if (!f || f->kind != AT_KEYWORD || ir_word_index(f->str, formats) < 0) {
      verr(v, op, "needs %s (lhs / rhs = e4m3, e5m2, e2m3, e3m2, e2m1, bf16 or fp16)", names[i]);
      return;
    }
    fmt[i] = f->str;
  }
  const ir_type *a = operand_type(op, 0), *b = operand_type(op, 1), *c = operand_type(op, 2), *r = result_type(op, 0);
  if (!ir_type_is_tensor(a) || !ir_type_is_tensor(b) || !ir_type_is_tensor(r) || a->rank != 2 || b->rank != 2 ||
      r->rank != 2 || c != r || !ir_type_is_float(r->elem)) {
    verr(v, op, "needs 2-D tensors A, B and a float accumulator of the result's type, got %s * %s, %s -> %s", ts(v, a),
         ts(v, b), ts(v, c), ts(v, r));
    return;
  }
  const ir_type *ops[2] = {a, b};
  for (int i = 0; i < 2; i++)
    if (!dot_scaled_elem_ok(fmt[i], ops[i]->elem)) {
      verr(v, op, "operand #%d of format %s cannot be %s", i, fmt[i], ts(v, ops[i]));
      return;
    }
  /* fp4 packs two elements to a byte along K (lhs_k_pack / rhs_k_pack default) */
  int64_t ka = a->shape[1] * (strcmp(fmt[0], "e2m1") ? 1 : 2), kb = b->shape[0] * (strcmp(fmt[1], "e2m1") ? 1 : 2);
  if (ka != kb || a->shape[0] != r->shape[0] || b->shape[1] != r->shape[1]) {
    verr(v, op, "shapes do not multiply: %s (K = %lld) * %s (K = %lld) -> %s", ts(v, a), (long long)ka, ts(v, b),
         (long long)kb, ts(v, r));
    return;
  }
  for (int i = 0; i < 2; i++) {
    int k = dot_scaled_scale_operand(op, i);
    if (k < 0) continue;
    const ir_type *st = operand_type(op, k);
    int64_t rows = i ? r->shape[1] : r->shape[0];
    if (!ir_type_is_tensor(st) || st->rank != 2 || st->elem->kind != TY_INT || st->elem->width != 8 ||
        st->shape[0] != rows || ka % 32 || st->shape[1] != ka / 32)
      verr(v, op, "the scale of operand #%d must be tensor<%lldx%lldxi8> (one e8m0 byte per 32 elements of K), got %s",
           i, (long long)rows, (long long)(ka / 32), ts(v, st));
  }
}

/* ------------------------------------------------------------------ tt.dot */

static const char *const input_precisions[] = {"tf32", "tf32x3", "ieee", "bf16x3", "bf16x6"};

static void check_dot_operand_encoding(verifier *v, const ir_op *op, int index, const ir_type *t,
                                       const ir_attr *d_enc) {
  if (!ir_type_is_tensor(t)) return; /* wgmma operands in shared memory */
  const ir_attr *e = t->encoding;
  if (!d_enc) {
    if (e) verr(v, op, "operand #%d has encoding %s but the result has none", index, as(v, e));
    return;
  }
  if (!e || e->kind != AT_DOT_OP || e->layout.op_idx != index || e->layout.parent != d_enc)
    verr(v, op, "operand #%d encoding must be #ttg.dot_op<{opIdx = %d, parent = %s}>, got %s", index, index,
         as(v, d_enc), as(v, e));
}

static void verify_dot(verifier *v, const ir_op *op) {
  const ir_type *a = operand_type(op, 0), *b = operand_type(op, 1), *c = operand_type(op, 2),
                *d = result_type(op, 0);
  for (int i = 0; i < 3; i++) {
    const ir_type *t = operand_type(op, i);
    bool shaped_ok = op->kind == OP_DOT ? ir_type_is_tensor(t) : (is_shaped(t) && (i < 2 || ir_type_is_tensor(t)));
    if (!shaped_ok) {
      verr(v, op, "operand #%d must be a tensor%s, got %s", i, op->kind == OP_DOT ? "" : " or shared memory descriptor",
           ts(v, t));
      return;
    }
  }
  int rank = a->rank;
  if ((rank != 2 && rank != 3) || b->rank != rank || c->rank != rank) {
    verr(v, op, "operands must all be 2-D (or 3-D, batched), got %s, %s and %s", ts(v, a), ts(v, b), ts(v, c));
    return;
  }
  int64_t m = a->shape[rank - 2], k = a->shape[rank - 1], n = b->shape[rank - 1];
  if (rank == 3 && (b->shape[0] != a->shape[0] || c->shape[0] != a->shape[0])) {
    verr(v, op, "batch dimensions must agree, got %s, %s and %s", ts(v, a), ts(v, b), ts(v, c));
    return;
  }
  if (b->shape[rank - 2] != k) {
    verr(v, op, "operand #1 must have K = %lld rows (the columns of operand #0), got %s * %s", (long long)k, ts(v, a),
         ts(v, b));
    return;
  }
  if (c->shape[rank - 2] != m || c->shape[rank - 1] != n) {
    verr(v, op, "accumulator must be %lldx%lld (M x N), got %s", (long long)m, (long long)n, ts(v, c));
    return;
  }
  if (d != c) {
    verr(v, op, "result type must be the accumulator type %s, got %s", ts(v, c), ts(v, d));
    return;
  }
  check_dot_operand_encoding(v, op, 0, a, d->encoding);
  check_dot_operand_encoding(v, op, 1, b, d->encoding);
  const ir_attr *prec = ir_op_get_attr(op, "inputPrecision");
  if (prec && !enum_attr_valid(prec, input_precisions, 5))
    verr(v, op, "inputPrecision must be one of tf32, tf32x3, ieee, bf16x3, bf16x6, got %s", as(v, prec));
}

/* ------------------------------------------------------------------ tt.reduce / tt.scan */

/* Reduce and scan share operand and region rules; `is_reduce` adds the dropped axis. */
static void verify_reduce_or_scan(verifier *v, const ir_op *op, bool is_reduce) {
  int64_t axis;
  if (!get_axis(v, op, &axis)) return;
  int n = op->num_operands;
  const ir_type *first = operand_type(op, 0);
  for (int i = 0; i < n; i++) {
    const ir_type *t = operand_type(op, i);
    if (!ir_type_is_tensor(t) || !same_shape_encoding(t, first)) {
      verr(v, op, "operands must be tensors of one shape and encoding, got %s and %s", ts(v, first), ts(v, t));
      return;
    }
  }
  if (axis < 0 || axis >= first->rank) {
    verr(v, op, "axis %lld is out of range for operands of rank %d", (long long)axis, first->rank);
    return;
  }
  if (op->num_results != n) {
    verr(v, op, "has %d operands but %d results", n, op->num_results);
    return;
  }
  for (int i = 0; i < n; i++) {
    const ir_type *in = operand_type(op, i), *r = result_type(op, i);
    bool ok;
    if (!is_reduce) {
      ok = r == in;
    } else if (in->rank == 1) {
      ok = r == in->elem;
    } else {
      ok = ir_type_is_tensor(r) && r->rank == in->rank - 1 && r->elem == in->elem;
      for (int d = 0, j = 0; ok && d < in->rank; d++)
        if (d != axis) ok = r->shape[j++] == in->shape[d];
      if (ok && (in->encoding || r->encoding)) ok = is_slice_of(r->encoding, axis, in->encoding);
    }
    if (!ok) {
      if (is_reduce)
        verr(v, op, "result #%d must be operand #%d without dimension %lld (a scalar for 1-D, encoding "
                    "#ttg.slice<{dim = %lld, parent = ...}>), got %s -> %s",
             i, i, (long long)axis, (long long)axis, ts(v, in), ts(v, r));
      else
        verr(v, op, "result #%d must have the type of operand #%d, got %s -> %s", i, i, ts(v, in), ts(v, r));
      return;
    }
  }
  ir_block *body = single_block_region(v, op, 0, "combine region", is_reduce ? OP_REDUCE_RETURN : OP_SCAN_RETURN);
  if (!body) return;
  if (body->num_args != 2 * n) {
    verr(v, op, "combine region must take %d scalar arguments (two per operand), found %d", 2 * n, body->num_args);
    return;
  }
  const ir_type **elems = type_list(v, n);
  if (!elems) return;
  for (int i = 0; i < n; i++) {
    elems[i] = operand_type(op, i)->elem;
    for (int half = 0; half < 2; half++) {
      const ir_type *at = body->args[half * n + i]->type;
      if (at != elems[i]) {
        verr(v, op, "combine region argument #%d must have type %s, got %s", half * n + i, ts(v, elems[i]), ts(v, at));
        return;
      }
    }
  }
  check_yield_types(v, op, body->last, n, elems, "the element types");
}

/* ------------------------------------------------------------------ scf */

/* scf.while: the before region takes the operands and ends in scf.condition(%c) forwarding the
 * results' types; the after region takes those and yields the operands' types. */
static void verify_while(verifier *v, const ir_op *op) {
  int n = op->num_operands, m = op->num_results;
  const char *names[2] = {"before region", "after region"};
  ir_op_kind terms[2] = {OP_SCF_CONDITION, OP_SCF_YIELD};
  ir_block *blocks[2];
  for (int r = 0; r < 2; r++) {
    blocks[r] = single_block_region(v, op, r, names[r], terms[r]);
    if (!blocks[r]) {
      const ir_block *b = op->regions[r].first;
      if (b && b == op->regions[r].last && b->last && b->last->kind != terms[r])
        verr(v, op, "%s must end with '%s', found '%s'", names[r], ir_op_info_of(terms[r])->name, ir_op_name(b->last));
      return;
    }
  }
  const int counts[2] = {n, m};
  for (int r = 0; r < 2; r++) {
    if (blocks[r]->num_args != counts[r]) {
      verr(v, op, "%s must take %d arguments, found %d", names[r], counts[r], blocks[r]->num_args);
      return;
    }
    for (int i = 0; i < counts[r]; i++) {
      const ir_type *want = r == 0 ? operand_type(op, i) : result_type(op, i);
      if (blocks[r]->args[i]->type != want) {
        verr(v, op, "%s argument #%d type %s does not match %s", names[r], i, ts(v, blocks[r]->args[i]->type),
             ts(v, want));
        return;
      }
    }
  }
  const ir_op *cond = blocks[0]->last;
  if (!ir_type_is_int(operand_type(cond, 0), 1)) {
    verr(v, cond, "condition must be i1, found %s", ts(v, operand_type(cond, 0)));
    return;
  }
  if (cond->num_operands - 1 != m) {
    verr(v, cond, "forwards %d values but the enclosing 'scf.while' has %d results", cond->num_operands - 1, m);
    return;
  }
  for (int i = 0; i < m; i++)
    if (operand_type(cond, 1 + i) != result_type(op, i)) {
      verr(v, cond, "value #%d has type %s but the enclosing 'scf.while' result is %s", i,
           ts(v, operand_type(cond, 1 + i)), ts(v, result_type(op, i)));
      return;
    }
  const ir_type **want = type_list(v, n);
  if (!want) return;
  for (int i = 0; i < n; i++) want[i] = operand_type(op, i);
  check_yield_types(v, op, blocks[1]->last, n, want, "the before region's arguments");
}

static void verify_for(verifier *v, const ir_op *op) {
  const ir_type *lb = operand_type(op, 0), *ub = operand_type(op, 1), *step = operand_type(op, 2);
  if (!is_intlike(lb) || lb != ub || lb != step) {
    verr(v, op, "lower bound, upper bound and step must have the same integer or index type, got %s, %s and %s",
         ts(v, lb), ts(v, ub), ts(v, step));
    return;
  }
  int n = op->num_operands - 3;
  if (op->num_results != n) {
    verr(v, op, "has %d iter_args but %d results", n, op->num_results);
    return;
  }
  for (int i = 0; i < n; i++)
    if (result_type(op, i) != operand_type(op, 3 + i)) {
      verr(v, op, "result #%d type %s does not match its iter_arg init type %s", i, ts(v, result_type(op, i)),
           ts(v, operand_type(op, 3 + i)));
      return;
    }
  ir_block *body = single_block_region(v, op, 0, "body", OP_SCF_YIELD);
  if (!body) return;
  if (body->num_args != n + 1) {
    verr(v, op, "body must take %d arguments (the induction variable and %d iter_args), found %d", n + 1, n,
         body->num_args);
    return;
  }
  if (body->args[0]->type != lb) {
    verr(v, op, "induction variable must have the bound type %s, got %s", ts(v, lb), ts(v, body->args[0]->type));
    return;
  }
  for (int i = 0; i < n; i++)
    if (body->args[i + 1]->type != operand_type(op, 3 + i)) {
      verr(v, op, "body argument #%d type %s does not match its iter_arg type %s", i + 1, ts(v, body->args[i + 1]->type),
           ts(v, operand_type(op, 3 + i)));
      return;
    }
  const ir_type **want = type_list(v, n);
  if (!want) return;
  for (int i = 0; i < n; i++) want[i] = result_type(op, i);
  check_yield_types(v, op, body->last, n, want, "the loop results");
}

static void verify_if(verifier *v, const ir_op *op) {
  const ir_type *c = operand_type(op, 0);
  if (!ir_type_is_int(c, 1)) {
    verr(v, op, "condition must be i1, got %s", ts(v, c));
    return;
  }
  int n = op->num_results;
  const ir_type **want = type_list(v, n);
  if (!want) return;
  for (int i = 0; i < n; i++) want[i] = result_type(op, i);
  ir_block *then_block = single_block_region(v, op, 0, "then region", OP_SCF_YIELD);
  if (then_block) check_yield_types(v, op, then_block->last, n, want, "the results");
  if (!op->regions[1].first) {
    if (n > 0) verr(v, op, "must have an else region when it has results");
    return;
  }
  ir_block *else_block = single_block_region(v, op, 1, "else region", OP_SCF_YIELD);
  if (else_block) check_yield_types(v, op, else_block->last, n, want, "the results");
  for (int r = 0; r < 2; r++) {
    const ir_block *b = op->regions[r].first;
    if (b && b->num_args) verr(v, op, "%s region must take no arguments", r ? "else" : "then");
  }
}

/* ------------------------------------------------------------------ functions */

static const ir_type *func_type_of(const ir_op *func) {
  const ir_attr *a = ir_op_get_attr(func, "function_type");
  return a && a->kind == AT_TYPE && a->type && a->type->kind == TY_FUNC ? a->type : NULL;
}

static const char *func_name_of(const ir_op *func) {
  const ir_attr *a = ir_op_get_attr(func, "sym_name");
  return a && a->str ? a->str : "?";
}

/* A symbol gemmc turns into a PTX name (after ir_ptx_symbol_name's escaping): not empty, not huge. */
static void check_symbol_name(verifier *v, const ir_op *op, const char *what, const char *name) {
  size_t n = strlen(name);
  if (n == 0)
    verr(v, op, "%s must not be empty", what);
  else if (n > GEMMC_MAX_SYMBOL_BYTES)
    verr(v, op, "%s is %zu bytes long; gemmc allows at most %d", what, n, GEMMC_MAX_SYMBOL_BYTES);
}

static void verify_func(verifier *v, const ir_op *op) {
  const ir_op *parent = ir_op_parent_op(op);
  if (op->parent && (!parent || parent->kind != OP_MODULE))
    verr(v, op, "must be directly in a module, not in '%s'", parent ? ir_op_name(parent) : "a detached block");
  const ir_attr *name = ir_op_get_attr(op, "sym_name");
  if (!name || (name->kind != AT_STRING && name->kind != AT_SYMBOL) || !name->str)
    verr(v, op, "requires a 'sym_name' attribute");
  else
    check_symbol_name(v, op, "the function name", name->str);
  const ir_type *ft = func_type_of(op);
  if (!ft) {
    verr(v, op, "requires a 'function_type' attribute holding a function type");
    return;
  }
  /* Axis-info hints on arguments: positive and within int, as every user reads them. */
  const ir_attr *arg_attrs = ir_op_get_attr(op, "arg_attrs");
  for (int i = 0; arg_attrs && arg_attrs->kind == AT_ARRAY && i < arg_attrs->num_elems; i++) {
    const ir_attr *dict = arg_attrs->elems[i];
    static const char *const hints[] = {"tt.divisibility", "tt.contiguity", "tt.constancy"};
    for (int h = 0; dict && dict->kind == AT_DICT && h < 3; h++) {
      const ir_attr *a = ir_dict_get(dict, hints[h]);
      if (a && a->kind == AT_INT && (a->int_value < 1 || a->int_value > (1 << 30)))
        verr(v, op, "argument #%d: %s must be from 1 to 2^30, got %lld", i, hints[h], (long long)a->int_value);
    }
  }
  const ir_block *entry = op->regions[0].first;
  if (!entry) return; /* a declaration */
  if (entry->num_args != ft->num_inputs) {
    verr(v, op, "@%s has %d parameters in its type but its entry block takes %d arguments", func_name_of(op),
         ft->num_inputs, entry->num_args);
    return;
  }
  for (int i = 0; i < ft->num_inputs; i++)
    if (entry->args[i]->type != ft->inputs[i]) {
      verr(v, op, "entry block argument #%d type %s does not match the function signature type %s", i,
           ts(v, entry->args[i]->type), ts(v, ft->inputs[i]));
      return;
    }
  for (const ir_block *b = entry; b; b = b->next)
    if (!b->last || !(ir_op_info_of(b->last->kind)->traits & TRAIT_TERMINATOR))
      verr(v, op, "@%s: body block must end with 'tt.return', found %s%s%s", func_name_of(op),
           b->last ? "'" : "an empty block", b->last ? ir_op_name(b->last) : "", b->last ? "'" : "");
}

static void verify_return(verifier *v, const ir_op *op) {
  const ir_op *func = ir_op_parent_op(op);
  if (!func || func->kind != OP_FUNC) return; /* reported by the terminator check */
  const ir_type *ft = func_type_of(func);
  if (!ft) return;
  if (op->num_operands != ft->num_results) {
    verr(v, op, "has %d operands, but the enclosing function @%s returns %d", op->num_operands, func_name_of(func),
         ft->num_results);
    return;
  }
  for (int i = 0; i < op->num_operands; i++)
    if (operand_type(op, i) != ft->results[i])
      verr(v, op, "operand #%d type %s does not match the function result type %s", i, ts(v, operand_type(op, i)),
           ts(v, ft->results[i]));
}

static void verify_call(verifier *v, const ir_op *op) {
  const ir_attr *callee = ir_op_get_attr(op, "callee");
  if (!callee || !callee->str) {
    verr(v, op, "requires a 'callee' symbol attribute");
    return;
  }
  ir_op *module = ir_op_ancestor_of_kind((ir_op *)op, OP_MODULE);
  ir_op *func = module ? ir_module_lookup_func(module, callee->str) : NULL;
  if (!func) {
    if (module) verr(v, op, "callee @%s is not a function of this module", callee->str);
    return;
  }
  const ir_type *ft = func_type_of(func);
  if (!ft) return;
  if (op->num_operands != ft->num_inputs || op->num_results != ft->num_results) {
    verr(v, op, "calls @%s with %d arguments and %d results, but it takes %d and returns %d", callee->str,
         op->num_operands, op->num_results, ft->num_inputs, ft->num_results);
    return;
  }
  for (int i = 0; i < op->num_operands; i++)
    if (operand_type(op, i) != ft->inputs[i]) {
      verr(v, op, "argument #%d type %s does not match @%s's parameter type %s", i, ts(v, operand_type(op, i)),
           callee->str, ts(v, ft->inputs[i]));
      return;
    }
  for (int i = 0; i < op->num_results; i++)
    if (result_type(op, i) != ft->results[i]) {
      verr(v, op, "result #%d type %s does not match @%s's result type %s", i, ts(v, result_type(op, i)), callee->str,
           ts(v, ft->results[i]));
      return;
    }
}

static void verify_module(verifier *v, const ir_op *op) {
  /* One module, at the top: every stage (and the printer's value names) assumes it. */
  if (op->parent) verr(v, op, "must be the top-level op (modules do not nest)");
  int64_t tpw = ir_module_int_attr(op, "ttg.threads-per-warp", 32);
  if (tpw != 32 && tpw != 64) verr(v, op, "ttg.threads-per-warp must be 32 or 64, got %lld", (long long)tpw);
  int64_t nw = ir_module_int_attr(op, "ttg.num-warps", 1);
  int64_t threads;
  if (!is_pow2(nw))
    verr(v, op, "ttg.num-warps must be a positive power of two, got %lld", (long long)nw);
  else if ((tpw == 32 || tpw == 64) &&
           (__builtin_mul_overflow(nw, tpw, &threads) || threads > GEMMC_MAX_THREADS_PER_BLOCK))
    verr(v, op, "ttg.num-warps = %lld with %lld threads per warp is more than the %d threads a block can hold",
         (long long)nw, (long long)tpw, GEMMC_MAX_THREADS_PER_BLOCK);
  if (op->regions[0].first != op->regions[0].last) verr(v, op, "body must have exactly one block");
  /* Triton modules hold functions only; every stage after the parser assumes so (a value
   * defined in the module body has no function to live in). */
  int functions = 0;
  for (const ir_op *o = op->regions[0].first ? op->regions[0].first->first : NULL; o; o = o->next) {
    if (o->kind != OP_FUNC) {
      verr(v, o, "is not allowed directly in a module (only tt.func is)");
      break;
    }
    /* Symbol lookups and the call graph (axis-info analyses callers before callees, recursively)
     * are linear in the functions per call: bounded. */
    if (++functions == GEMMC_MAX_FUNCTIONS + 1) {
      verr(v, o, "is function number %d of the module; gemmc allows %d", functions, GEMMC_MAX_FUNCTIONS);
      break;
    }
  }
}

/* ------------------------------------------------------------------ ttg: layouts and shared memory */

static void verify_convert_layout(verifier *v, const ir_op *op) {
  const ir_type *s = operand_type(op, 0), *r = result_type(op, 0);
  if (!ir_type_is_tensor(s) || !ir_type_is_tensor(r) || !same_dims(s, r) || s->elem != r->elem)
    verr(v, op, "operand and result must be tensors of the same shape and element type, got %s -> %s", ts(v, s),
         ts(v, r));
}

/* rocdl.s.setprio / rocdl.sched.barrier: their one integer attribute, in range. */
static void verify_immediate(verifier *v, const ir_op *op) {
  int bits = 32;
  const char *name = ir_op_immediate_attr(op->kind, &bits);
  const ir_attr *a = name ? ir_op_get_attr(op, name) : NULL;
  if (!a || a->kind != AT_INT || a->int_value < 0 || a->int_value >= (INT64_C(1) << (bits - 1)))
    verr(v, op, "needs an integer attribute '%s' that fits i%d", name ? name : "?", bits);
}

/* A tensor and a shared-memory descriptor holding the same elements. */
static bool check_tensor_memdesc(verifier *v, const ir_op *op, const ir_type *tensor, const ir_type *mem) {
  if (!ir_type_is_tensor(tensor) || !is_memdesc(mem)) {
    verr(v, op, "expects a tensor and a shared memory descriptor, got %s and %s", ts(v, tensor), ts(v, mem));
    return false;
  }
  if (!same_dims(tensor, mem) || tensor->elem != mem->elem) {
    verr(v, op, "tensor %s and memory descriptor %s must have the same shape and element type", ts(v, tensor),
         ts(v, mem));
    return false;
  }
  return true;
}

static void verify_local_alloc(verifier *v, const ir_op *op) {
  const ir_type *m = result_type(op, 0);
  if (!is_memdesc(m)) {
    verr(v, op, "result must be a shared memory descriptor, got %s", ts(v, m));
    return;
  }
  if (op->num_operands == 1)
    check_tensor_memdesc(v, op, operand_type(op, 0), m);
  else if (!m->is_mutable)
    verr(v, op, "an allocation without an initial value must be mutable, got %s", ts(v, m));
}

static void verify_local_load(verifier *v, const ir_op *op) {
  if (!check_tensor_memdesc(v, op, result_type(op, 0), operand_type(op, 0))) return;
  if (op->num_operands == 2 && operand_type(op, 1)->kind != TY_TOKEN)
    verr(v, op, "token operand must be !ttg.async.token, got %s", ts(v, operand_type(op, 1)));
}

static void verify_local_store(verifier *v, const ir_op *op) {
  const ir_type *m = operand_type(op, 1);
  if (!check_tensor_memdesc(v, op, operand_type(op, 0), m)) return;
  if (!m->is_mutable) verr(v, op, "cannot store into immutable memory %s", ts(v, m));
}

static void verify_memdesc_index(verifier *v, const ir_op *op) {
  const ir_type *s = operand_type(op, 0), *idx = operand_type(op, 1), *r = result_type(op, 0);
  if (!is_memdesc(s) || !is_memdesc(r) || s->rank < 1) {
    verr(v, op, "operand and result must be shared memory descriptors, got %s -> %s", ts(v, s), ts(v, r));
    return;
  }
  if (!ir_type_is_int(idx, 32)) {
    verr(v, op, "index must be i32, got %s", ts(v, idx));
    return;
  }
  bool ok = r->elem == s->elem && r->memspace == s->memspace && r->is_mutable == s->is_mutable;
  /* A rank-1 buffer (an array of mbarriers) indexes to one element: `3xi64` -> `1xi64`. */
  if (s->rank == 1)
    ok = ok && r->rank == 1 && r->shape[0] == 1;
  else
    ok = ok && r->rank == s->rank - 1;
  for (int i = 0; ok && s->rank > 1 && i < r->rank; i++) ok = r->shape[i] == s->shape[i + 1];
  if (!ok)
    verr(v, op, "result must be the operand without its leading dimension (1 element for a 1-D buffer; same "
                "element type, memory space and mutability), got %s -> %s",
         ts(v, s), ts(v, r));
}

static void verify_async_copy(verifier *v, const ir_op *op) {
  const ir_type *p = operand_type(op, 0), *m = operand_type(op, 1);
  if (!ir_type_is_tensor(p) || !is_ptr(p->elem)) {
    verr(v, op, "source must be a tensor of pointers, got %s", ts(v, p));
    return;
  }
  const ir_type *want = loaded_type(v, p);
  if (!check_tensor_memdesc(v, op, want, m)) return;
  if (!m->is_mutable) verr(v, op, "cannot copy into immutable memory %s", ts(v, m));
  check_mask(v, op, 2, p);
  if (op->num_operands > 3 && operand_type(op, 3) != want)
    verr(v, op, "'other' must have type %s, got %s", ts(v, want), ts(v, operand_type(op, 3)));
  if (result_type(op, 0)->kind != TY_TOKEN) verr(v, op, "result must be !ttg.async.token, got %s", ts(v, result_type(op, 0)));
}

static void verify_tokens(verifier *v, const ir_op *op) {
  for (int i = 0; i < op->num_operands; i++)
    if (operand_type(op, i)->kind != TY_TOKEN) {
      verr(v, op, "operand #%d must be !ttg.async.token, got %s", i, ts(v, operand_type(op, i)));
      return;
    }
  if (result_type(op, 0)->kind != TY_TOKEN) verr(v, op, "result must be !ttg.async.token, got %s", ts(v, result_type(op, 0)));
}

static void verify_program_axis(verifier *v, const ir_op *op) {
  int64_t axis;
  if (!get_axis(v, op, &axis)) return;
  if (axis < 0 || axis > 2) verr(v, op, "axis must be 0, 1 or 2 (x, y, z), got %lld", (long long)axis);
  if (!ir_type_is_int(result_type(op, 0), 32)) verr(v, op, "result must be i32, got %s", ts(v, result_type(op, 0)));
}

/* A count of outstanding groups (ttng.warp_group_dot_wait's pendings, ttg.async_wait's num):
 * when present, an integer the wait instruction can take, 0 .. 2^31 - 1 (a negative count is not
 * a count; ptxas rejects it). */
static void verify_group_count(verifier *v, const ir_op *op, const char *name) {
  const ir_attr *a = ir_op_get_attr(op, name);
  if (!a) return;
  if (a->kind != AT_INT) verr(v, op, "'%s' must be an integer", name);
  else if (a->int_value < 0 || a->int_value > INT32_MAX)
    verr(v, op, "'%s' must be in [0, %d], got %lld", name, INT32_MAX, (long long)a->int_value);
}

static void verify_dot_wait(verifier *v, const ir_op *op) {
  verify_group_count(v, op, "pendings");
  if (op->num_results != op->num_operands) {
    verr(v, op, "has %d operands but %d results", op->num_operands, op->num_results);
    return;
  }
  for (int i = 0; i < op->num_results; i++)
    if (result_type(op, i) != operand_type(op, i)) {
      verr(v, op, "result #%d type %s must be operand #%d's type %s", i, ts(v, result_type(op, i)), i,
           ts(v, operand_type(op, i)));
      return;
    }
}

/* ------------------------------------------------------------------ per-op dispatch */

static void verify_op_semantics(verifier *v, const ir_op *op) {
  const ir_op_info *info = ir_op_info_of(op->kind);
  bool own_shape_rule = op->kind == OP_ADDPTR || op->kind == OP_SELECT;
  if ((info->traits & TRAIT_ELEMENTWISE) && !own_shape_rule && !check_elementwise(v, op, 0)) return;
  if (info->format == FMT_SAME) {
    verify_same(v, op);
    return;
  }
  switch (op->kind) {
  case OP_MODULE: verify_module(v, op); break;
  case OP_FUNC: verify_func(v, op); break;
  case OP_RETURN: verify_return(v, op); break;
  case OP_CALL: verify_call(v, op); break;
  case OP_SCF_FOR: verify_for(v, op); break;
  case OP_SCF_IF: verify_if(v, op); break;
  case OP_SCF_WHILE: verify_while(v, op); break;
  case OP_EXTERN_ELEMENTWISE: {
    const ir_attr *symbol = ir_op_get_attr(op, "symbol");
    if (!symbol || symbol->kind != AT_STRING) verr(v, op, "needs a string attribute 'symbol' (the function's name)");
    break;
  }
  case OP_GET_PROGRAM_ID:
  case OP_GET_NUM_PROGRAMS: verify_program_axis(v, op); break;
  case OP_MAKE_RANGE: verify_make_range(v, op); break;
  case OP_SPLAT: verify_splat(v, op); break;
  case OP_EXPAND_DIMS: verify_expand_dims(v, op); break;
  case OP_BROADCAST: verify_broadcast(v, op); break;
  case OP_RESHAPE: verify_reshape(v, op); break;
  case OP_TRANS: verify_trans(v, op); break;
  case OP_GATHER: verify_gather(v, op); break;
  case OP_HISTOGRAM: verify_histogram(v, op); break;
  case OP_ELEMENTWISE_INLINE_ASM: verify_inline_asm(v, op); break;
  case OP_PRINT: verify_print(v, op); break;
  case OP_ASSERT: verify_assert(v, op); break;
  case OP_SPLIT:
  case OP_JOIN:
    verify_split_join(v, op);
    break;
  case OP_CAT: verify_cat(v, op); break;
  case OP_ADDPTR: verify_addptr(v, op); break;
  case OP_LOAD: verify_load(v, op); break;
  case OP_STORE: verify_store(v, op); break;
  case OP_ATOMIC_RMW:
  case OP_ATOMIC_CAS: verify_atomic(v, op); break;
  case OP_DOT:
  case OP_WARP_GROUP_DOT: verify_dot(v, op); break;
  case OP_DOT_SCALED: verify_dot_scaled(v, op); break;
  case OP_REDUCE: verify_reduce_or_scan(v, op, true); break;
  case OP_SCAN: verify_reduce_or_scan(v, op, false); break;
  case OP_CONSTANT: verify_constant(v, op); break;
  case OP_CMPI:
  case OP_CMPF: verify_cmp(v, op); break;
  case OP_SELECT:
    if (check_elementwise(v, op, 1)) verify_select(v, op);
    break;
  case OP_CONVERT_LAYOUT:
  case OP_IN_THREAD_TRANSPOSE: verify_convert_layout(v, op); break;
  case OP_ROCDL_SETPRIO:
  case OP_ROCDL_SCHED_BARRIER: verify_immediate(v, op); break;
  case OP_LLVM_ASSUME:
    if (!ir_type_is_int(operand_type(op, 0), 1)) /* TY_INT: a scalar */
      verr(v, op, "the condition must be a scalar i1, got %s", ts(v, operand_type(op, 0)));
    break;
  case OP_LOCAL_ALLOC: verify_local_alloc(v, op); break;
  case OP_LOCAL_LOAD: verify_local_load(v, op); break;
  case OP_LOCAL_STORE: verify_local_store(v, op); break;
  case OP_LOCAL_DEALLOC:
    if (!is_memdesc(operand_type(op, 0)))
      verr(v, op, "operand must be a shared memory descriptor, got %s", ts(v, operand_type(op, 0)));
    break;
  case OP_MEMDESC_INDEX: verify_memdesc_index(v, op); break;
  case OP_ASYNC_COPY: verify_async_copy(v, op); break;
  case OP_ASYNC_COMMIT_GROUP:
  case OP_ASYNC_WAIT:
    verify_tokens(v, op);
    verify_group_count(v, op, "num");
    break;
  case OP_WARP_GROUP_DOT_WAIT: verify_dot_wait(v, op); break;
  default:
    if (verify_nvgpu_op(v, op)) break;
    if (info->format == FMT_CAST || (info->format == FMT_CONVERT && (info->traits & TRAIT_ELEMENTWISE)))
      verify_cast(v, op);
    break;
  }
}

/* Counts, missing operands and types. False when the op is too malformed for its own rules. */
static bool verify_op_shape(verifier *v, const ir_op *op) {
  const ir_op_info *info = ir_op_info_of(op->kind);
  bool ok = true;
  if (op->num_operands < info->min_operands || (info->max_operands >= 0 && op->num_operands > info->max_operands)) {
    if (info->min_operands == info->max_operands)
      verr(v, op, "expects %d operands, found %d", info->min_operands, op->num_operands);
    else if (info->max_operands < 0)
      verr(v, op, "expects at least %d operands, found %d", info->min_operands, op->num_operands);
    else
      verr(v, op, "expects %d to %d operands, found %d", info->min_operands, info->max_operands, op->num_operands);
    ok = false;
  }
  if (info->num_results >= 0 && op->num_results != info->num_results) {
    verr(v, op, "expects %d results, found %d", info->num_results, op->num_results);
    ok = false;
  }
  if (info->num_regions < 0 ? op->num_regions < 1 : op->num_regions != info->num_regions) {
    verr(v, op, "expects %d regions, found %d", info->num_regions, op->num_regions);
    ok = false;
  }
  for (int i = 0; i < op->num_operands; i++) {
    const ir_value *val = op->operands[i].value;
    if (!val) {
      verr(v, op, "operand #%d is null", i);
      ok = false;
    } else if (!val->type) {
      verr(v, op, "operand #%d has no type", i);
      ok = false;
    }
  }
  for (int i = 0; i < op->num_results; i++)
    if (!op->results[i].type) {
      verr(v, op, "result #%d has no type", i);
      ok = false;
    }
  return ok;
}

static void verify_op(verifier *v, const ir_op *op);

static void verify_block(verifier *v, const ir_op *owner, const ir_block *b) {
  size_t mark = v->stack_len;
  v->depth++;
  for (int i = 0; i < b->num_args; i++) {
    const ir_value *arg = b->args[i];
    char what[48];
    snprintf(what, sizeof what, "block argument #%d", i);
    if (!arg->type)
      verr(v, owner, "%s has no type", what);
    else
      verify_value_type(v, owner, what, arg->type);
    vis_define(v, arg);
  }
  for (const ir_op *o = b->first; o; o = o->next) {
    if (o->parent != b) verr(v, o, "is linked into a block it does not name as its parent");
    verify_op(v, o);
    for (int i = 0; i < o->num_results; i++) vis_define(v, &o->results[i]);
  }
  vis_pop_to(v, mark);
  v->depth--;
}

static void verify_op(verifier *v, const ir_op *op) {
  bool well_formed = verify_op_shape(v, op);
  if (well_formed)
    for (int i = 0; i < op->num_operands; i++) {
      /* One value used twice (x + x) is one problem. */
      bool seen_before = false;
      for (int j = 0; j < i && !seen_before; j++) seen_before = op->operands[j].value == op->operands[i].value;
      if (!seen_before) check_operand_dominance(v, op, i);
    }
  verify_terminator_position(v, op);
  int errors_before = v->num_errors;
  if (well_formed) verify_op_semantics(v, op);
  /* An op that broke its own rules has said what is wrong with its result types. */
  bool results_reported = v->num_errors > errors_before;
  for (int i = 0; i < op->num_results && !results_reported; i++) {
    char what[48];
    snprintf(what, sizeof what, "result #%d", i);
    if (op->results[i].type) verify_value_type(v, op, what, op->results[i].type);
  }
  if (well_formed && !results_reported) add_op_cost(v, op);
  /* Every later stage recurses over regions: the nesting is bounded here, before them. */
  if (op->num_regions && v->depth >= GEMMC_MAX_REGION_DEPTH) {
    verr(v, op, "regions are nested more than %d deep", GEMMC_MAX_REGION_DEPTH);
    return;
  }
  /* The shared-memory allocator places each buffer against those live with it: bounded here. */
  if (op->kind == OP_LOCAL_ALLOC || op->kind == OP_CONVERT_LAYOUT || op->kind == OP_REDUCE || op->kind == OP_SCAN ||
      op->kind == OP_MAKE_TENSOR_DESC) {
    if (++v->shared_buffers == GEMMC_MAX_SHARED_BUFFERS + 1)
      verr(v, op,
           "is the %dth op of its function that may need a shared-memory buffer (allocations, layout "
           "conversions, reductions, scans, tensor maps); gemmc allows %d",
           GEMMC_MAX_SHARED_BUFFERS + 1, GEMMC_MAX_SHARED_BUFFERS);
  }
  int saved_buffers = v->shared_buffers;
  if (op->kind == OP_FUNC) v->shared_buffers = 0;
  bool isolated = ir_op_info_of(op->kind)->traits & TRAIT_ISOLATED;
  int saved_barrier = v->barrier;
  const ir_op *saved_isolating = v->isolating_op;
  if (isolated) {
    v->barrier = v->depth + 1;
    v->isolating_op = op;
  }
  bool partitions = ir_op_info_of(op->kind)->traits & TRAIT_ISOLATED_PARTITIONS;
  int saved_warps = v->num_warps;
  for (int r = 0; r < op->num_regions; r++) {
    if (partitions && r > 0) {
      /* A warp_specialize partition sees only its block arguments, and runs on its own warps. */
      v->barrier = v->depth + 1;
      v->isolating_op = op;
      int warps = verify_partition_num_warps(op, r - 1);
      if (warps > 0) v->num_warps = warps;
    }
    for (const ir_block *b = op->regions[r].first; b; b = b->next) verify_block(v, op, b);
  }
  v->num_warps = saved_warps;
  v->barrier = saved_barrier;
  v->isolating_op = saved_isolating;
  if (op->kind == OP_FUNC) v->shared_buffers = saved_buffers;
}

static bool verify(gemmc_context *ctx, ir_op *op, bool check_lowering_cost) {
  if (!op) return false;
  verifier v;
  memset(&v, 0, sizeof v);
  v.ctx = ctx;
  v.check_lowering_cost = check_lowering_cost;
  v.visible.ctx = ctx;
  v.checked.ctx = ctx;
  v.root = op;
  v.isolating_op = op;
  const ir_op *module = op->kind == OP_MODULE ? op : ir_op_ancestor_of_kind(op, OP_MODULE);
  /* Out-of-range values are reported by verify_module; the layout checks then use 0 (unknown)
   * rather than a truncated number. */
  /* Without ttg.num-warps the rest of gemmc (lowering, kernel.json) assumes 4 warps, so the
   * layouts are checked against 4: a layout for 8 warps would otherwise be lowered for 4. */
  int64_t num_warps = module ? ir_module_int_attr(module, "ttg.num-warps", 4) : 0;
  int64_t threads_per_warp = ir_module_int_attr(module, "ttg.threads-per-warp", 32);
  v.num_warps = num_warps > 0 && num_warps <= GEMMC_MAX_THREADS_PER_BLOCK ? (int)num_warps : 0;
  v.threads_per_warp = threads_per_warp > 0 && threads_per_warp <= GEMMC_MAX_THREADS_PER_BLOCK ? (int)threads_per_warp : 0;
  const ir_attr *target = module ? ir_op_get_attr(module, "ttg.target") : NULL;
  v.amd_target = target && target->kind == AT_STRING && target->str && !strncmp(target->str, "hip:", 4);
  verify_op(&v, op);
  ptr_map_free(&v.visible);
  ctx_raw_free(ctx, v.stack, v.stack_cap * sizeof *v.stack);
  ptr_map_free(&v.checked);
  return v.num_errors == 0;
}

bool ir_verify(gemmc_context *ctx, ir_op *op) { return verify(ctx, op, true); }
bool ir_verify_between_passes(gemmc_context *ctx, ir_op *op) { return verify(ctx, op, false); }

/* ------------------------------------------------------------------ helpers for verifier_nvgpu.c */

void vfy_error(verifier *v, const ir_op *op, const char *fmt, ...) {
  char msg[960];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  verr(v, op, "%s", msg);
}

const char *vfy_type(verifier *v, const ir_type *t) { return ts(v, t); }
const char *vfy_attr(verifier *v, const ir_attr *a) { return as(v, a); }
gemmc_context *vfy_context(verifier *v) { return v->ctx; }
const ir_type **vfy_type_list(verifier *v, int n) { return type_list(v, n); }

ir_block *vfy_single_block_region(verifier *v, const ir_op *op, int r, const char *region_name, ir_op_kind term) {
  return single_block_region(v, op, r, region_name, term);
}

void vfy_check_yield_types(verifier *v, const ir_op *owner, const ir_op *term, int n, const ir_type *const *want,
                           const char *what) {
  check_yield_types(v, owner, term, n, want, what);
}

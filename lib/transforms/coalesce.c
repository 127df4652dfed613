/* --coalesce (alias --tritongpu-coalesce): every global memory op gets the blocked layout that coalesces and vectorizes it (Triton's Coalesce). */
#include <stdio.h>
#include <string.h>

#include "util.h"
#include "context_internal.h"
#include "gemmc/axis_info.h"
#include "gemmc/layout.h"
#include "gemmc/passes.h"

/* Widest vector a thread can load or store, in bits (ld.global.v4.b32). */
#define MAX_VECTOR_BITS 128


/* The pointer operand of a global memory access (Triton's getMemAccessPtr), or NULL. */
static ir_value *mem_access_ptr(const ir_op *op) {
  switch (op->kind) {
  case OP_LOAD:
  case OP_STORE:
  case OP_ATOMIC_RMW:
  case OP_ATOMIC_CAS:
  case OP_ASYNC_COPY: return op->num_operands > 0 ? op->operands[0].value : NULL;
  default: return NULL;
  }
}

static bool is_tensor_of_pointers(const ir_type *t) {
  return t && t->kind == TY_TENSOR && t->elem && t->elem->kind == TY_PTR;
}

static bool same_shape(const ir_type *a, const ir_type *b) {
  if (!a || !b || a->kind != TY_TENSOR || b->kind != TY_TENSOR || a->rank != b->rank) return false;
  for (int d = 0; d < a->rank; d++)
    if (a->shape[d] != b->shape[d]) return false;
  return true;
}

/* ------------------------------------------------------------------ the layout */

static unsigned pointee_bits(const ir_type *ptr_tensor) {
  const ir_type *p = ptr_tensor->elem;
  unsigned bits = p && p->elem ? ir_type_bits(p->elem) : 8;
  return bits ? bits : 8;
}

/* Elements one thread can access with one vector (Triton's getNumElementsPerThread). */
static unsigned elements_per_thread(const axis_info_analysis *ai, const ir_op *op, const int *order) {
  const ir_value *ptr = mem_access_ptr(op);
  const ir_type *t = ptr->type;
  const axis_info *info = axis_info_of(ai, ptr);
  unsigned bits = pointee_bits(t);
  unsigned bytes = bits / 8 ? bits / 8 : 1;
  int64_t div = axis_info_divisibility(info, order[0]);
  /* Triton holds this in an unsigned; saturate instead of wrapping 2^62 to 0 */
  if (div > ((int64_t)1 << 31)) div = (int64_t)1 << 31;
  int64_t max_multiple = div / bytes;
  if (max_multiple < 1) max_multiple = 1;
  int64_t max_contig = axis_info_contiguity(info, order[0]);
  if (max_contig > t->shape[order[0]]) max_contig = t->shape[order[0]];
  int64_t alignment = max_multiple < max_contig ? max_multiple : max_contig;
  int64_t vec = MAX_VECTOR_BITS / bits;
  if (vec < 1) vec = 1;
  return (unsigned)(alignment < vec ? alignment : vec);
}

static bool same_order(const int *a, const int *b, int rank) {
  for (int d = 0; d < rank; d++)
    if (a[d] != b[d]) return false;
  return true;
}

/* Triton's buildCoalescedEncoding for one memory op. */
static const ir_attr *coalesced_encoding(gemmc_context *ctx, const axis_info_analysis *ai, ir_op *op,
                                         int num_warps, int threads_per_warp) {
  ir_value *ptr = mem_access_ptr(op);
  const ir_type *t = ptr->type;
  int rank = t->rank;
  int order[IR_MAX_RANK];
  /* the most contiguous dim is the fastest */
  axis_info_order_from_contiguity(axis_info_of(ai, ptr), rank, order);

  /* Pointers computed from the same values, with the same shape and order, are accessed
   * together: take the best vector width among them. */
  ptr_list same = {ctx, NULL, 0, 0};
  ptr_list_push(&same, op);
  if (ptr->def_op) {
    ptr_list slice = {ctx, NULL, 0, 0};
    op_slice(op, NULL, NULL, &slice); /* mlir::getSlice(op), unfiltered */
    for (int i = 0; i < slice.count; i++) {
      ir_op *use = slice.items[i];
      ir_value *val = mem_access_ptr(use);
      if (!val || !same_shape(val->type, t) || ptr_list_contains(&same, use)) continue;
      int cur[IR_MAX_RANK];
      axis_info_order_from_contiguity(axis_info_of(ai, val), rank, cur);
      if (same_order(order, cur, rank)) ptr_list_push(&same, use);
    }
    ptr_list_free(&slice);
  }

  int64_t num_elems = ir_type_num_elements(t);
  int64_t num_threads = (int64_t)num_warps * threads_per_warp;
  unsigned per_thread = elements_per_thread(ai, op, order);
  for (int i = 1; i < same.count; i++) {
    unsigned cur = elements_per_thread(ai, same.items[i], order);
    if (cur > per_thread) per_thread = cur;
  }
  ptr_list_free(&same);
  int64_t cap = num_elems / num_threads;
  if (cap < 1) cap = 1;
  if ((int64_t)per_thread > cap) per_thread = (unsigned)cap;
  /* A write wider than 128 bits per thread leaves gaps in a warp's store; loads are fine
   * (L1 absorbs the gaps), so only non-loads are clamped to their own width. */
  if (op->kind != OP_LOAD) {
    unsigned own = elements_per_thread(ai, op, order);
    if (own < per_thread) per_thread = own;
  }
  int size_per_thread[IR_MAX_RANK];
  for (int d = 0; d < rank; d++) size_per_thread[d] = 1;
  size_per_thread[order[0]] = (int)per_thread;
  return layout_blocked_get(ctx, rank, t->shape, size_per_thread, order, num_warps, threads_per_warp);
}

/* ------------------------------------------------------------------ the rewrite */

/* Operands to the new layout, a clone of the op with new result types, results converted
 * back to their old layouts (Triton's coalesceOp; remove-conversions cleans up later). */
static void rewrite_memory_op(gemmc_context *ctx, ir_op *op, const ir_attr *encoding) {
  ir_value *operands[8];
  int n = op->num_operands;
  if (n > 8) return;
  for (int i = 0; i < n; i++) {
    ir_value *v = op->operands[i].value;
    const ir_type *t = v ? v->type : NULL;
    if (t && t->kind == TY_TENSOR && !(t->encoding && layout_is_shared(t->encoding)))
      operands[i] = convert_layout_before(ctx, op, v, ir_type_with_encoding(ctx, t, encoding));
    else
      operands[i] = v;
  }
  const ir_type *result_types[4];
  int nr = op->num_results;
  if (nr > 4) return;
  for (int i = 0; i < nr; i++) {
    const ir_type *t = op->results[i].type;
    bool keep = op->kind == OP_ASYNC_COPY || !t || t->kind != TY_TENSOR;
    result_types[i] = keep ? t : ir_type_with_encoding(ctx, t, encoding);
  }
  ir_op *clone = op_clone_with_attrs(ctx, op, n, operands, result_types);
  ir_op_insert_before(op, clone);
  for (int i = 0; i < nr; i++) {
    ir_value *r = &clone->results[i];
    clone->results[i].name = op->results[i].name;
    if (result_types[i] != op->results[i].type) {
      ir_op *back = convert_layout_after(ctx, clone, r, op->results[i].type)->def_op;
      clone->results[i].name = NULL;
      back->results[0].name = op->results[i].name;
      r = &back->results[0];
    }
    ir_value_replace_all_uses(&op->results[i], r);
  }
  ir_op_erase(op);
}

/* ------------------------------------------------------------------ the pass */

typedef struct collect_walk {
  ptr_list *ops;
} collect_walk;

static bool collect_memory_ops(ir_op *op, void *user) {
  collect_walk *w = user;
  ir_value *ptr = mem_access_ptr(op);
  /* only tensors of pointers (block pointers keep their layout here) */
  if (ptr && is_tensor_of_pointers(ptr->type)) ptr_list_push(w->ops, op);
  return true;
}

bool gemmc_pass_coalesce(const gemmc_pass_context *pc, ir_op *module) {
  gemmc_context *ctx = pc->ctx;
  int num_warps = pc->num_warps;
  int threads_per_warp = pc->threads_per_warp;
  if (num_warps < 1 || threads_per_warp < 1) {
    ir_op_error(ctx, module, "coalesce: bad ttg.num-warps (%d) or ttg.threads-per-warp (%d)", num_warps,
                threads_per_warp);
    return false;
  }
  ptr_list ops = {ctx, NULL, 0, 0};
  collect_walk w = {&ops};
  ir_walk(module, collect_memory_ops, &w);
  if (ops.count == 0) {
    ptr_list_free(&ops);
    return true;
  }
  axis_info_analysis *ai = axis_info_run(ctx, module);
  if (!ai) {
    ptr_list_free(&ops);
    ir_op_error(ctx, module, "coalesce: out of memory");
    return false;
  }
  /* Every layout is chosen before any op changes: the analysis describes the input. */
  const ir_attr **layouts = ctx_raw_alloc(ctx, (size_t)ops.count * sizeof *layouts);
  bool ok = true;
  for (int i = 0; i < ops.count; i++) {
    layouts[i] = coalesced_encoding(ctx, ai, ops.items[i], num_warps, threads_per_warp);
    if (!layouts[i]) {
      ir_op_error(ctx, ops.items[i], "coalesce: cannot build a blocked layout for this access");
      ok = false;
    }
  }
  axis_info_free(ai);
  if (ok)
    for (int i = 0; i < ops.count; i++) rewrite_memory_op(ctx, ops.items[i], layouts[i]);
  ctx_raw_free(ctx, layouts, (size_t)ops.count * sizeof *layouts);
  ptr_list_free(&ops);
  return ok;
}

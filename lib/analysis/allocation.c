/* Shared-memory allocation: sizes and lifetimes (program order) of every buffer and conversion scratch of a tt.func, offsets first-fit. */
#include "gemmc/allocation.h"

#include <stdlib.h>
#include <string.h>

#include "context_internal.h"
#include "gemmc/layout.h"
#include "util.h"

typedef struct alloc_buffer {
  const ir_op *op;
  int64_t size, align;
  int start, end; /* program-order numbers, inclusive */
  int64_t offset;
  int64_t copy_stride; /* bytes between the copies of a replicated region's scratch (0: one copy) */
} alloc_buffer;

struct gemmc_allocation {
  gemmc_context *ctx;
  alloc_buffer *buffers;
  int count, cap;
  int64_t total;
  bool failed;
};

static int64_t elem_bytes(const ir_type *t) {
  const ir_type *e = ir_type_element(t);
  if (e->kind == TY_PTR || e->kind == TY_INDEX) return 8;
  int64_t bits = e->width ? e->width : 8;
  return bits < 8 ? 1 : bits / 8;
}

/* A tt.reduce's or tt.scan's operand 0, its axis and its linear layout; false when it has none. */
static bool axis_source_layout(const ir_op *op, const ir_type **src, int *axis, layout_linear *ll) {
  *src = op->operands[0].value->type;
  *axis = (int)ir_op_get_int_attr(op, "axis", 0);
  const ir_type *t = *src;
  return ir_type_is_tensor(t) && t->encoding && *axis >= 0 && *axis < t->rank &&
         layout_to_linear(t->encoding, t->rank, t->shape, ll);
}

int64_t gemmc_allocation_scratch_bytes(const ir_op *op) {
  if (op->kind == OP_CONVERT_LAYOUT) {
    const ir_type *src = op->operands[0].value->type, *dst = op->results[0].type;
    if (!ir_type_is_tensor(src) || !src->encoding || !dst->encoding) return 0;
    /* The same question the lowering asks: a register permutation needs no memory. */
    if (!layout_conversion_needs_scratch(src->encoding, dst->encoding, src->rank, src->shape)) return 0;
    return ir_type_num_elements(src) * elem_bytes(src);
  }
  const ir_type *src;
  int axis;
  layout_linear ll;
  if (op->kind == OP_REDUCE) {
    if (!axis_source_layout(op, &src, &axis, &ll)) return 0;
    int64_t warps_along_axis = 1;
    for (int i = 0; i < ll.num_bases[LAYOUT_IN_WARP]; i++)
      if (ll.bases[LAYOUT_IN_WARP][i][axis] != 0) warps_along_axis *= 2;
    if (warps_along_axis == 1) return 0;
    int64_t out_elems = ir_type_num_elements(src) / src->shape[axis];
    int64_t total = 0;
    for (int k = 0; k < op->num_operands; k++) {
      int64_t bytes = warps_along_axis * out_elems * elem_bytes(op->operands[k].value->type);
      total += (bytes + 15) / 16 * 16;
    }
    return total;
  }
  /* tt.scan: when an element and its partner across some bit of the axis position are in
   * different warps (lower_scan.c), each operand's run totals meet there, in row-major order. */
  if (op->kind == OP_SCAN) {
    if (!axis_source_layout(op, &src, &axis, &ll)) return 0;
    bool across_warps = false;
    for (int64_t step = 1; step < src->shape[axis] && !across_warps; step *= 2) {
      int64_t unit[IR_MAX_RANK] = {0}, in[LAYOUT_IN_COUNT];
      unit[axis] = step;
      across_warps = layout_linear_invert(&ll, unit, in) && in[LAYOUT_IN_WARP] != 0;
    }
    if (!across_warps) return 0;
    int64_t total = 0;
    for (int k = 0; k < op->num_operands; k++)
      total += (ir_type_num_elements(src) * elem_bytes(op->operands[k].value->type) + 15) / 16 * 16;
    return total;
  }
  /* tt.gather: the source, in row-major order */
  if (op->kind == OP_GATHER) {
    const ir_type *src = op->operands[0].value->type;
    return ir_type_is_tensor(src) ? (ir_type_num_elements(src) * elem_bytes(src) + 15) / 16 * 16 : 0;
  }
  /* tt.histogram: the bins (i32), counted with shared-memory atomics */
  if (op->kind == OP_HISTOGRAM) {
    const ir_type *bins = op->results[0].type;
    return ir_type_is_tensor(bins) ? (bins->shape[0] * 4 + 15) / 16 * 16 : 0;
  }
  if ((op->kind == OP_ATOMIC_RMW || op->kind == OP_ATOMIC_CAS) && gemmc_atomic_result_is_shared(op)) {
    const ir_type *t = op->results[0].type;
    return ((ir_type_is_tensor(t) ? ir_type_num_elements(t) : 1) * elem_bytes(t) + 15) / 16 * 16;
  }
  /* A device-side tensor map is assembled in shared memory, then copied to global memory. */
  if (op->kind == OP_MAKE_TENSOR_DESC || op->kind == OP_TENSORMAP_CREATE) return ALLOCATION_TENSORMAP_BYTES;
  return 0;
}

bool gemmc_atomic_result_is_shared(const ir_op *op) {
  if ((op->kind != OP_ATOMIC_RMW && op->kind != OP_ATOMIC_CAS) || !op->num_results || !op->results[0].first_use)
    return false;
  const ir_type *t = op->results[0].type;
  if (!ir_type_is_tensor(t)) return true;
  layout_linear ll;
  if (!t->encoding || !layout_to_linear(t->encoding, t->rank, t->shape, &ll)) return false;
  return layout_linear_copy_bits(&ll, LAYOUT_IN_LANE) || layout_linear_copy_bits(&ll, LAYOUT_IN_WARP);
}

static bool in_tensormap_run(const ir_op *op) {
  return op->kind == OP_MAKE_TENSOR_DESC || (ir_op_is_pure(op) && !op->num_regions);
}

int gemmc_tensormap_run_index(const ir_op *op) {
  int index = 0;
  for (const ir_op *p = op->prev; p && in_tensormap_run(p); p = p->prev) index += p->kind == OP_MAKE_TENSOR_DESC;
  return index;
}

const ir_op *gemmc_tensormap_run_last(const ir_op *op) {
  const ir_op *last = op;
  for (const ir_op *n = op->next; n && in_tensormap_run(n); n = n->next)
    if (n->kind == OP_MAKE_TENSOR_DESC) last = n;
  return last;
}

/* A convert_layout to a #ttg.dot_op with an nvidia_mma parent stores its operand in a swizzled
 * scratch buffer; when its only user is a tt.dot of the same block (as operand A or B), the dot
 * reads the buffer with ldmatrix right before each instruction that needs a fragment, so the
 * buffer must live until the dot (the lowering, lower_operand_is_deferred, asks this function). */
const ir_op *gemmc_allocation_scratch_until(const ir_op *op) {
  if (op->kind == OP_MAKE_TENSOR_DESC) return gemmc_tensormap_run_last(op);
  if (op->kind != OP_CONVERT_LAYOUT || op->num_results != 1) return op;
  const ir_type *dt = op->results[0].type, *st = op->operands[0].value->type;
  if (!ir_type_is_tensor(dt) || !ir_type_is_tensor(st) || !layout_is_mma_operand_conversion(st->encoding, dt->encoding))
    return op;
  if (gemmc_allocation_scratch_bytes(op) <= 0) return op;
  const ir_operand *use = op->results[0].first_use;
  if (!use || use->next_use || use->owner->kind != OP_DOT || use->index > 1 || use->owner->parent != op->parent)
    return op;
  return use->owner;
}

/* Ops are numbered in program order: an op's number is its index in the walk's list. */
static bool number_op(ir_op *op, void *user) {
  ptr_list *w = user;
  int before = w->count;
  ptr_list_push(w, op);
  return w->count > before; /* false: out of memory */
}

static int number_of(const ptr_list *w, const ir_op *op) {
  for (int i = 0; i < w->count; i++)
    if (w->items[i] == op) return i;
  return -1;
}

/* The number of the last op nested in `op` (op itself when it has no regions). */
static int last_nested(const ptr_list *w, const ir_op *op) {
  int i = number_of(w, op);
  if (i < 0) return i;
  int last = i;
  for (int j = i + 1; j < w->count; j++) {
    const ir_op *p = w->items[j];
    bool inside = false;
    for (const ir_op *q = ir_op_parent_op(p); q; q = ir_op_parent_op(q))
      if (q == op) {
        inside = true;
        break;
      }
    if (!inside) break;
    last = j;
  }
  return last;
}

/* The regions of a ttg.warp_specialize run at the same time on different warps: a buffer made
 * inside one lives for the whole op (the outermost such op). */
static void widen_for_specialization(const ptr_list *w, const ir_op *op, int *start, int *end) {
  const ir_op *ws = NULL;
  for (const ir_op *q = ir_op_parent_op(op); q; q = ir_op_parent_op(q))
    if (q->kind == OP_WARP_SPECIALIZE) ws = q;
  if (!ws) return;
  int first = number_of(w, ws), last = last_nested(w, ws);
  if (first >= 0 && first < *start) *start = first;
  if (last > *end) *end = last;
}

/* The number of the last op that uses v or a view made of it (ttg.memdesc_trans / reshape), at
 * the level of `alloc`'s block; at least `end`. */
static int last_use(const ptr_list *w, const ir_op *alloc, const ir_value *v, int end) {
  for (const ir_operand *u = v->first_use; u; u = u->next_use) {
    const ir_op *user = u->owner;
    if (op_is_memdesc_view(user)) end = last_use(w, alloc, &user->results[0], end);
    while (user && user->parent != alloc->parent) user = ir_op_parent_op(user);
    int e = user ? last_nested(w, user) : w->count - 1;
    if (e > end) end = e;
  }
  return end;
}

int gemmc_allocation_copies(const ir_op *op) {
  for (const ir_op *child = op, *q = ir_op_parent_op(op); q; child = q, q = ir_op_parent_op(q)) {
    if (q->kind != OP_WARP_SPECIALIZE) continue;
    if (!child->parent || child->parent->parent != &q->regions[0]) return 1;
    const ir_attr *rep = ir_op_get_attr(q, "gemmc.replica_of_default");
    int copies = 1;
    if (rep && rep->kind == AT_DENSE_ARRAY && rep->ints)
      for (int i = 0; i < rep->num_elems; i++) copies += rep->ints[i] > 0;
    return copies;
  }
  return 1;
}

/* A buffer whose every use is a ttg.memdesc_index by gemmc.replica_id: the pass that made it gave
 * each copy of the region its own slice already. */
static bool indexed_by_copy(const ir_op *alloc) {
  const ir_operand *u = alloc->results[0].first_use;
  if (!u) return false;
  for (; u; u = u->next_use) {
    const ir_op *user = u->owner;
    const ir_value *index = user->num_operands > 1 ? user->operands[1].value : NULL;
    if (user->kind != OP_MEMDESC_INDEX || u->index != 0 || !index || !index->def_op ||
        index->def_op->kind != OP_REPLICA_ID)
      return false;
  }
  return true;
}

static bool add_buffer(gemmc_allocation *a, const ir_op *op, int64_t size, int64_t align, int start, int end) {
  if (a->count == a->cap) {
    int cap = a->cap ? a->cap * 2 : 16;
    alloc_buffer *b = ctx_raw_realloc(a->ctx, a->buffers, (size_t)a->cap * sizeof *b, (size_t)cap * sizeof *b);
    if (!b) return false;
    a->buffers = b;
    a->cap = cap;
  }
  a->buffers[a->count++] = (alloc_buffer){op, size, align, start, end, -1, 0};
  return true;
}

/* op's buffer or scratch of `bytes`, laid out `copies` times, each on an `align` boundary. */
static bool add_buffer_copies(gemmc_allocation *a, const ir_op *op, int64_t bytes, int64_t align, int start, int end,
                              int copies) {
  int64_t stride = (bytes + align - 1) / align * align;
  if (!add_buffer(a, op, copies > 1 ? stride * copies : bytes, align, start, end)) return false;
  if (copies > 1) a->buffers[a->count - 1].copy_stride = stride;
  return true;
}

static int by_offset(const void *x, const void *y) {
  const alloc_buffer *a = *(const alloc_buffer *const *)x, *b = *(const alloc_buffer *const *)y;
  return a->offset < b->offset ? -1 : a->offset > b->offset;
}

static int by_size_desc(const void *x, const void *y) {
  const alloc_buffer *a = x, *b = y;
  if (a->size != b->size) return a->size < b->size ? 1 : -1;
  return a->start - b->start;
}

gemmc_allocation *gemmc_allocation_run(gemmc_context *ctx, ir_op *func) {
  gemmc_allocation *a = ctx_raw_alloc(ctx, sizeof *a);
  if (!a) return NULL;
  memset(a, 0, sizeof *a);
  a->ctx = ctx;
  ptr_list w = {ctx, NULL, 0, 0};
  if (!ir_walk(func, number_op, &w)) goto fail;
  for (int i = 0; i < w.count; i++) {
    const ir_op *op = w.items[i];
    if (op->kind == OP_LOCAL_ALLOC && op->num_results == 1 && op->results[0].type->kind == TY_MEMDESC) {
      const ir_type *t = op->results[0].type;
      /* Live until the last use (of the buffer or of a view of it); a use nested in a loop or
       * branch keeps it for that op. */
      int end = last_use(&w, op, &op->results[0], i);
      /* Swizzled nvmma_shared buffers start on a whole swizzle period (8 lines of up to 128 bytes):
       * the tensor cores and the copy engine apply the swizzle to address bits. */
      int64_t align = t->encoding && t->encoding->kind == AT_NVMMA_SHARED ? 1024 : 128;
      int start = i;
      widen_for_specialization(&w, op, &start, &end);
      int copies = indexed_by_copy(op) ? 1 : gemmc_allocation_copies(op);
      if (!add_buffer_copies(a, op, ir_type_num_elements(t) * elem_bytes(t), align, start, end, copies)) goto fail;
    } else {
      int64_t bytes = gemmc_allocation_scratch_bytes(op);
      if (bytes <= 0) continue;
      /* tensormap.replace: 128-byte aligned. Scratch is private to the threads running the op, one
       * per copy; descriptors (tensor maps) are not exchanged between threads that way. */
      bool tensormap = op->kind == OP_MAKE_TENSOR_DESC || op->kind == OP_TENSORMAP_CREATE;
      int64_t align = tensormap ? ALLOCATION_TENSORMAP_BYTES : 16;
      int start = i, end = last_nested(&w, gemmc_allocation_scratch_until(op));
      widen_for_specialization(&w, op, &start, &end);
      if (!add_buffer_copies(a, op, bytes, align, start, end, tensormap ? 1 : gemmc_allocation_copies(op))) goto fail;
    }
  }
  ptr_list_free(&w);
  if (a->count > 1) qsort(a->buffers, (size_t)a->count, sizeof *a->buffers, by_size_desc);
  /* First fit: the lowest aligned offset that overlaps no placed buffer live at the same time.
   * The placed buffers live together with this one are swept in offset order, so a buffer costs
   * O(k log k) for k of them (rescanning all of them after every move was cubic). */
  const alloc_buffer **live = a->count ? malloc((size_t)a->count * sizeof *live) : NULL;
  if (a->count && !live) goto fail;
  for (int i = 0; i < a->count; i++) {
    alloc_buffer *b = &a->buffers[i];
    int k = 0;
    for (int j = 0; j < i; j++) {
      const alloc_buffer *p = &a->buffers[j];
      if (p->start <= b->end && b->start <= p->end) live[k++] = p;
    }
    if (k > 1) qsort(live, (size_t)k, sizeof *live, by_offset);
    int64_t offset = 0;
    for (int j = 0; j < k; j++) {
      const alloc_buffer *p = live[j];
      if (offset + b->size <= p->offset) break;     /* fits in the gap before p */
      if (p->offset + p->size > offset) offset = p->offset + p->size; /* overlaps p: go past it */
      offset = (offset + b->align - 1) / b->align * b->align;
    }
    b->offset = offset;
    if (offset + b->size > a->total) a->total = offset + b->size;
  }
  free(live);
  return a;
fail:
  ptr_list_free(&w);
  gemmc_allocation_free(a);
  return NULL;
}

void gemmc_allocation_free(gemmc_allocation *a) {
  if (!a) return;
  if (a->buffers) ctx_raw_free(a->ctx, a->buffers, (size_t)a->cap * sizeof *a->buffers);
  ctx_raw_free(a->ctx, a, sizeof *a);
}

static const alloc_buffer *buffer_of(const gemmc_allocation *a, const ir_op *op) {
  for (int i = 0; a && i < a->count; i++)
    if (a->buffers[i].op == op) return &a->buffers[i];
  return NULL;
}

int64_t gemmc_allocation_offset(const gemmc_allocation *a, const ir_op *op) {
  const alloc_buffer *b = buffer_of(a, op);
  return b ? b->offset : -1;
}

bool gemmc_allocation_disjoint(const gemmc_allocation *a, const ir_op *x, const ir_op *y) {
  const alloc_buffer *bx = buffer_of(a, x), *by = buffer_of(a, y);
  if (!bx || !by || bx->offset < 0 || by->offset < 0) return false;
  return bx->offset + bx->size <= by->offset || by->offset + by->size <= bx->offset;
}

int64_t gemmc_allocation_copy_stride(const gemmc_allocation *a, const ir_op *op) {
  const alloc_buffer *b = buffer_of(a, op);
  return b ? b->copy_stride : 0;
}

int64_t gemmc_allocation_total(const gemmc_allocation *a) { return a ? a->total : 0; }

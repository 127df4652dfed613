/* Verifier rules of the Hopper ops: tensor descriptors, block pointers, mbarriers, TMA copies,
 * device-side tensor maps, shared-memory views and warp specialization (Triton 3.6's rules). */
#include <string.h>

#include "gemmc/layout.h"
#include "gemmc/limits.h"
#include "util.h"
#include "verifier_internal.h"

#define ERR(...) vfy_error(v, op, __VA_ARGS__)
#define TS(t) vfy_type(v, (t))

static const ir_type *operand_type(const ir_op *op, int i) { return op->operands[i].value->type; }
static const ir_type *result_type(const ir_op *op, int i) { return op->results[i].type; }
static bool is_memdesc(const ir_type *t) { return t && t->kind == TY_MEMDESC; }
static bool is_desc(const ir_type *t) { return t && t->kind == TY_TENSORDESC; }
static bool is_scalar_ptr(const ir_type *t) { return t && t->kind == TY_PTR && t->elem && t->elem->kind != TY_TENSOR; }
static bool is_block_ptr(const ir_type *t) { return t && t->kind == TY_PTR && t->elem && t->elem->kind == TY_TENSOR; }

/* Elements of a shaped type (tensor, memdesc, tensor descriptor block). */
static int64_t numel(const ir_type *t) {
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++) n *= t->shape[i];
  return n;
}


/* Operands [from, from + n) are all integers of `width` bits; `what` names them in the message. */
static bool check_ints(verifier *v, const ir_op *op, int from, int n, unsigned width, const char *what) {
  for (int i = from; i < from + n; i++)
    if (!ir_type_is_int(operand_type(op, i), width)) {
      ERR("%s must be i%u, got %s (operand #%d)", what, width, TS(operand_type(op, i)), i);
      return false;
    }
  return true;
}

static bool check_pred(verifier *v, const ir_op *op, int index) {
  if (ir_type_is_int(operand_type(op, index), 1)) return true;
  ERR("predicate must be i1, got %s", TS(operand_type(op, index)));
  return false;
}

/* An integer attribute in [lo, hi]; false (error reported) when missing or out of range. */
static bool int_attr(verifier *v, const ir_op *op, const char *name, int64_t lo, int64_t hi, int64_t *out) {
  const ir_attr *a = ir_op_get_attr(op, name);
  if (!a || a->kind != AT_INT) {
    ERR("requires an integer '%s' attribute", name);
    return false;
  }
  if (a->int_value < lo || a->int_value > hi) {
    ERR("'%s' must be in [%lld, %lld], got %lld", name, (long long)lo, (long long)hi, (long long)a->int_value);
    return false;
  }
  if (out) *out = a->int_value;
  return true;
}

/* An optional boolean attribute. */
static void bool_attr_if_present(verifier *v, const ir_op *op, const char *name) {
  const ir_attr *a = ir_op_get_attr(op, name);
  if (a && a->kind != AT_BOOL) ERR("'%s' must be a boolean", name);
}

/* A dense i32 array attribute of `n` entries (n < 0: any length). */
static const ir_attr *i32_array_attr(verifier *v, const ir_op *op, const char *name, int n) {
  const ir_attr *a = ir_op_get_attr(op, name);
  if (!a || a->kind != AT_DENSE_ARRAY || (!a->ints && a->num_elems) || !ir_type_is_int(a->type, 32) ||
      (n >= 0 && a->num_elems != n)) {
    if (n >= 0)
      ERR("requires a '%s' attribute array<i32: ...> with %d entries, got %s", name, n, vfy_attr(v, a));
    else
      ERR("requires a '%s' attribute array<i32: ...>, got %s", name, vfy_attr(v, a));
    return NULL;
  }
  return a;
}

/* An mbarrier: a mutable 1xi64 shared memory descriptor (one per CTA of the cluster). */
static bool check_barrier(verifier *v, const ir_op *op, int index) {
  const ir_type *t = operand_type(op, index);
  const ir_op *module = ir_op_ancestor_of_kind((ir_op *)op, OP_MODULE);
  int64_t ctas = module ? ir_module_int_attr(module, "ttg.num-ctas", 1) : 1;
  if (!is_memdesc(t) || !ir_type_is_int(t->elem, 64) || t->rank != 1 || (t->shape[0] != 1 && t->shape[0] != ctas)) {
    ERR("barrier must be a !ttg.memdesc<1xi64, ...> (one mbarrier), got %s", TS(t));
    return false;
  }
  return true;
}

/* A shared memory buffer holding a descriptor's block: same element type, same number of elements. */
static bool check_block_buffer(verifier *v, const ir_op *op, const ir_type *desc, const ir_type *buf, bool writes) {
  if (!is_memdesc(buf)) {
    ERR("buffer must be a shared memory descriptor, got %s", TS(buf));
    return false;
  }
  if (buf->elem != desc->elem || numel(buf) != numel(desc)) {
    ERR("buffer %s must hold the descriptor's block %s (same element type and number of elements)", TS(buf),
        TS(desc));
    return false;
  }
  if (writes && !buf->is_mutable) {
    ERR("cannot copy into immutable memory %s", TS(buf));
    return false;
  }
  return true;
}

/* ------------------------------------------------------------------ tt: descriptors, block pointers */

static void verify_make_desc(verifier *v, const ir_op *op) {
  const ir_type *base = operand_type(op, 0), *d = result_type(op, 0);
  if (!is_scalar_ptr(base)) {
    ERR("base must be a scalar pointer, got %s", TS(base));
    return;
  }
  if (!is_desc(d)) {
    ERR("result must be a !tt.tensordesc, got %s", TS(d));
    return;
  }
  int n = (op->num_operands - 1) / 2;
  if ((op->num_operands - 1) % 2 || n != d->rank) {
    ERR("needs %d sizes and %d strides for a rank-%d block, got %d operands after the base", d->rank, d->rank,
        d->rank, op->num_operands - 1);
    return;
  }
  if (d->rank > 5) {
    ERR("TMA descriptors have at most 5 dimensions, got %d", d->rank);
    return;
  }
  if (base->elem != d->elem) {
    ERR("base pointee %s must be the block element type of %s", TS(base->elem), TS(d));
    return;
  }
  if (check_ints(v, op, 1, n, 32, "sizes")) check_ints(v, op, 1 + n, n, 64, "strides");
  if (d->encoding && !layout_is_shared(d->encoding)) ERR("descriptor layout must be a shared layout, got %s", TS(d));
}

/* descriptor_load/store: the tensor holds the block (same element type and number of elements). */
static void verify_desc_load_store(verifier *v, const ir_op *op) {
  bool load = op->kind == OP_DESC_LOAD;
  const ir_type *d = operand_type(op, 0);
  if (!is_desc(d)) {
    ERR("operand #0 must be a !tt.tensordesc, got %s", TS(d));
    return;
  }
  int first_index = load ? 1 : 2;
  int n = op->num_operands - first_index;
  if (n != d->rank) {
    ERR("needs %d indices for %s, got %d", d->rank, TS(d), n);
    return;
  }
  if (!check_ints(v, op, first_index, n, 32, "indices")) return;
  const ir_type *t = load ? result_type(op, 0) : operand_type(op, 1);
  if (!ir_type_is_tensor(t) || t->elem != d->elem || numel(t) != numel(d))
    ERR("%s %s must hold the descriptor's block %s (same element type and number of elements)",
        load ? "result" : "stored value", TS(t), TS(d));
}

/* descriptor_gather/scatter: a [1, N] block, rows picked by a 1-D i32 tensor of x offsets. */
static void verify_desc_gather_scatter(verifier *v, const ir_op *op) {
  bool gather = op->kind == OP_DESC_GATHER;
  const ir_type *d = operand_type(op, 0), *x = operand_type(op, 1), *y = operand_type(op, 2);
  const ir_type *t = gather ? result_type(op, 0) : operand_type(op, 3);
  if (!is_desc(d) || d->rank != 2 || d->shape[0] != 1) {
    ERR("descriptor must have a 1xN block, got %s", TS(d));
    return;
  }
  if (!ir_type_is_tensor(x) || x->rank != 1 || !ir_type_is_int(x->elem, 32)) {
    ERR("x offsets must be a 1-D tensor of i32, got %s", TS(x));
    return;
  }
  if (!ir_type_is_int(y, 32)) {
    ERR("y offset must be i32, got %s", TS(y));
    return;
  }
  if (!ir_type_is_tensor(t) || t->rank != 2 || t->shape[0] != x->shape[0] || t->shape[1] != d->shape[1] ||
      t->elem != d->elem)
    ERR("%s must be %lldx%lld of %s (x offsets by block columns), got %s", gather ? "result" : "stored value",
        (long long)x->shape[0], (long long)d->shape[1], TS(d->elem), TS(t));
}

static void verify_make_tensor_ptr(verifier *v, const ir_op *op) {
  const ir_type *base = operand_type(op, 0), *r = result_type(op, 0);
  if (!is_block_ptr(r)) {
    ERR("result must be a block pointer !tt.ptr<tensor<...>>, got %s", TS(r));
    return;
  }
  int rank = r->elem->rank;
  if (op->num_operands != 1 + 3 * rank) {
    ERR("needs %d sizes, strides and offsets for %s, got %d operands after the base", rank, TS(r),
        op->num_operands - 1);
    return;
  }
  if (!is_scalar_ptr(base) || base->elem != r->elem->elem) {
    ERR("base must be a pointer to %s, got %s", TS(r->elem->elem), TS(base));
    return;
  }
  if (!check_ints(v, op, 1, 2 * rank, 64, "sizes and strides") || !check_ints(v, op, 1 + 2 * rank, rank, 32, "offsets"))
    return;
  const ir_attr *order = i32_array_attr(v, op, "order", rank);
  if (!order) return;
  bool seen[IR_MAX_RANK] = {false};
  for (int i = 0; i < rank && i < IR_MAX_RANK; i++) {
    int64_t o = order->ints[i];
    if (o < 0 || o >= rank || seen[o]) {
      ERR("order %s is not a permutation of 0..%d", vfy_attr(v, order), rank - 1);
      return;
    }
    seen[o] = true;
  }
}

static void verify_advance(verifier *v, const ir_op *op) {
  const ir_type *p = operand_type(op, 0), *r = result_type(op, 0);
  if (!is_block_ptr(p) || r != p) {
    ERR("operand and result must be the same block pointer type, got %s -> %s", TS(p), TS(r));
    return;
  }
  if (op->num_operands - 1 != p->elem->rank) {
    ERR("needs %d offsets for %s, got %d", p->elem->rank, TS(p), op->num_operands - 1);
    return;
  }
  check_ints(v, op, 1, op->num_operands - 1, 32, "offsets");
}

/* ------------------------------------------------------------------ ttng: mbarriers, fences */

static void verify_barrier_op(verifier *v, const ir_op *op) {
  if (!check_barrier(v, op, 0)) return;
  switch (op->kind) {
  case OP_INIT_BARRIER:
    if (!operand_type(op, 0)->is_mutable) ERR("cannot initialize an mbarrier in immutable memory");
    int_attr(v, op, "count", 1, (1 << 20) - 1, NULL); /* PTX: arrival count in [1, 2^20 - 1] */
    break;
  case OP_ARRIVE_BARRIER:
    int_attr(v, op, "count", 1, (1 << 20) - 1, NULL);
    bool_attr_if_present(v, op, "gemmc.peer");
    if (op->num_operands > 1) check_pred(v, op, 1);
    break;
  case OP_BARRIER_EXPECT:
    int_attr(v, op, "size", 0, (1 << 20) - 1, NULL); /* transaction count */
    check_pred(v, op, 1);
    break;
  case OP_WAIT_BARRIER: {
    if (!ir_type_is_int(operand_type(op, 1), 32)) {
      ERR("phase must be i32, got %s", TS(operand_type(op, 1)));
      return;
    }
    int deps = 2;
    if (op->num_operands > 2 && ir_type_is_int(operand_type(op, 2), 1)) deps = 3;
    for (int i = deps; i < op->num_operands; i++)
      if (!is_memdesc(operand_type(op, i))) {
        ERR("deps must be shared memory descriptors, got %s (operand #%d)", TS(operand_type(op, i)), i);
        return;
      }
    break;
  }
  default: break;
  }
}

/* ------------------------------------------------------------------ ttng: TMA copies and tensor maps */

static void verify_tma_load(verifier *v, const ir_op *op) {
  const ir_type *d = operand_type(op, 0);
  if (!is_desc(d)) {
    ERR("operand #0 must be a !tt.tensordesc, got %s", TS(d));
    return;
  }
  int n = op->num_operands;
  int offsets = n - 4 - d->rank; /* desc, coords (rank), offsets (im2col), barrier, result, pred */
  if (offsets < 0) {
    ERR("needs %d coordinates for %s, got %d", d->rank, TS(d), n - 4);
    return;
  }
  if (!check_ints(v, op, 1, d->rank, 32, "coordinates") || !check_ints(v, op, 1 + d->rank, offsets, 16, "im2col offsets"))
    return;
  if (!check_barrier(v, op, n - 3)) return;
  if (!check_block_buffer(v, op, d, operand_type(op, n - 2), true)) return;
  check_pred(v, op, n - 1);
}

/* The `kind` of a descriptor reduction and the element types TMA reduces with it (PTX's
 * cp.reduce.async.bulk.tensor). */
static void verify_reduce_kind(verifier *v, const ir_op *op, const ir_type *desc) {
  const ir_attr *k = ir_op_get_attr(op, "kind");
  int kind = k && k->kind == AT_KEYWORD ? ir_word_index(k->str, ir_descriptor_reduce_kinds) : -1;
  if (kind < 0) {
    ERR("needs a kind: add, min, max, inc, dec, and, or or xor");
    return;
  }
  const ir_type *e = desc->kind == TY_TENSORDESC ? desc->elem : NULL;
  if (!e) return;
  bool is_int = e->kind == TY_INT && (e->width == 32 || e->width == 64);
  bool half = e->kind == TY_FLOAT && (e->float_kind == FLT_F16 || e->float_kind == FLT_BF16);
  bool f32 = e->kind == TY_FLOAT && e->float_kind == FLT_F32;
  bool ok = kind == 0 ? is_int || half || f32                              /* add */
            : kind <= 2 ? is_int || half                                    /* min, max */
            : kind <= 4 ? e->kind == TY_INT && e->width == 32               /* inc, dec */
                        : is_int;                                           /* and, or, xor */
  if (!ok) ERR("TMA cannot reduce %s elements with '%s'", TS(e), k->str);
}

static void verify_tma_store(verifier *v, const ir_op *op) {
  const ir_type *d = operand_type(op, 0);
  int n = op->num_operands;
  if (!is_desc(d)) {
    ERR("operand #0 must be a !tt.tensordesc, got %s", TS(d));
    return;
  }
  if (n - 2 != d->rank) {
    ERR("needs %d coordinates for %s, got %d", d->rank, TS(d), n - 2);
    return;
  }
  if (!check_ints(v, op, 1, d->rank, 32, "coordinates")) return;
  if (!check_block_buffer(v, op, d, operand_type(op, n - 1), false)) return;
  if (op->num_results > 1 || (op->num_results == 1 && result_type(op, 0)->kind != TY_TOKEN))
    ERR("has at most one result, a !ttg.async.token");
}

static void verify_tensormap_create(verifier *v, const ir_op *op) {
  const ir_attr *seg = i32_array_attr(v, op, "operandSegmentSizes", 6);
  if (!seg) return;
  int64_t total = 0;
  for (int i = 0; i < 6; i++) total += seg->ints[i];
  int64_t rank = seg->ints[2];
  if (seg->ints[0] != 1 || seg->ints[1] != 1 || total != op->num_operands || rank < 1 || rank > 5 ||
      seg->ints[3] != rank || seg->ints[4] != rank - 1 || seg->ints[5] != rank) {
    ERR("needs rank R in 1..5 box sizes, R global sizes, R-1 global strides and R element strides, got segments %s",
        vfy_attr(v, seg));
    return;
  }
  if (!is_scalar_ptr(operand_type(op, 0)) || !is_scalar_ptr(operand_type(op, 1))) {
    ERR("descriptor and global address must be pointers, got %s and %s", TS(operand_type(op, 0)),
        TS(operand_type(op, 1)));
    return;
  }
  int r = (int)rank;
  if (!check_ints(v, op, 2, 2 * r, 32, "box and global sizes") || !check_ints(v, op, 2 + 2 * r, r - 1, 64, "global strides") ||
      !check_ints(v, op, 1 + 3 * r, r, 32, "element strides"))
    return;
  if (int_attr(v, op, "elem_type", 0, 15, NULL) && int_attr(v, op, "interleave_layout", 0, 2, NULL) &&
      int_attr(v, op, "swizzle_mode", 0, 3, NULL))
    int_attr(v, op, "fill_mode", 0, 1, NULL);
}

/* ------------------------------------------------------------------ ttg: shared-memory views */

static bool same_memory(const ir_type *s, const ir_type *r) {
  return is_memdesc(s) && is_memdesc(r) && s->elem == r->elem && s->memspace == r->memspace &&
         s->is_mutable == r->is_mutable;
}

static void verify_subslice(verifier *v, const ir_op *op) {
  const ir_type *s = operand_type(op, 0), *r = result_type(op, 0);
  if (!same_memory(s, r) || s->rank != r->rank || s->encoding != r->encoding) {
    ERR("result must view the operand's memory (same element type, rank, layout, memory space and mutability), got "
        "%s -> %s",
        TS(s), TS(r));
    return;
  }
  const ir_attr *offsets = i32_array_attr(v, op, "offsets", s->rank);
  if (!offsets) return;
  for (int i = 0; i < s->rank; i++)
    if (offsets->ints[i] < 0 || offsets->ints[i] + r->shape[i] > s->shape[i]) {
      ERR("dimension %d: offset %lld plus size %lld exceeds the operand's %lld", i, (long long)offsets->ints[i],
          (long long)r->shape[i], (long long)s->shape[i]);
      return;
    }
}

static void verify_memdesc_view(verifier *v, const ir_op *op) {
  const ir_type *s = operand_type(op, 0), *r = result_type(op, 0);
  if (op->kind == OP_MEMDESC_REINTERPRET) {
    if (!is_memdesc(s) || !is_memdesc(r) || s->memspace != r->memspace)
      ERR("operand and result must be shared memory descriptors of one memory space, got %s -> %s", TS(s), TS(r));
    return;
  }
  if (!same_memory(s, r)) {
    ERR("result must view the operand's memory (same element type, memory space and mutability), got %s -> %s",
        TS(s), TS(r));
    return;
  }
  if (op->kind == OP_MEMDESC_RESHAPE) {
    if (numel(s) != numel(r))
      ERR("operand and result must have the same number of elements, got %s -> %s", TS(s), TS(r));
    return;
  }
  /* memdesc_trans */
  const ir_attr *order = i32_array_attr(v, op, "order", s->rank);
  if (!order) return;
  if (r->rank != s->rank) {
    ERR("result must have the operand's rank, got %s -> %s", TS(s), TS(r));
    return;
  }
  bool seen[IR_MAX_RANK] = {false};
  for (int i = 0; i < s->rank && i < IR_MAX_RANK; i++) {
    int64_t o = order->ints[i];
    if (o < 0 || o >= s->rank || seen[o]) {
      ERR("order %s is not a permutation of 0..%d", vfy_attr(v, order), s->rank - 1);
      return;
    }
    seen[o] = true;
    if (r->shape[i] != s->shape[o]) {
      ERR("result shape must be the operand shape permuted by order %s, got %s -> %s", vfy_attr(v, order), TS(s),
          TS(r));
      return;
    }
  }
}

/* ------------------------------------------------------------------ ttg.warp_specialize */

int verify_partition_num_warps(const ir_op *ws, int index) {
  const ir_attr *a = ir_op_get_attr(ws, "partitionNumWarps");
  if (!a || a->kind != AT_DENSE_ARRAY || !a->ints || index >= a->num_elems) return 0;
  int64_t w = a->ints[index];
  return w >= 1 && w <= GEMMC_MAX_THREADS_PER_BLOCK ? (int)w : 0; /* else verify_warp_specialize reports it */
}

/* gemmc.replica_of_default (gemmc's own, optional): per partition 0 (it runs its own body) or k
 * >= 1 (its warps run the default region as copy k, gemmc.replica_id = k): such a partition has
 * the default region's warps, an empty body, and each k is used once. */
static void verify_replicas(verifier *v, const ir_op *op, const ir_attr *warps, int64_t module_warps) {
  int nparts = op->num_regions - 1;
  if (!ir_op_get_attr(op, "gemmc.replica_of_default")) return;
  const ir_attr *rep = i32_array_attr(v, op, "gemmc.replica_of_default", nparts);
  if (!rep) return;
  for (int p = 0; p < nparts; p++) {
    int64_t k = rep->ints[p];
    if (k == 0) continue;
    if (k < 0 || k > nparts) {
      ERR("gemmc.replica_of_default: partition #%d has copy %lld, not 0..%d", p, (long long)k, nparts);
      return;
    }
    for (int q = 0; q < p; q++)
      if (rep->ints[q] == k) {
        ERR("gemmc.replica_of_default: partitions #%d and #%d are both copy %lld", q, p, (long long)k);
        return;
      }
    if (warps->ints[p] != module_warps) {
      ERR("gemmc.replica_of_default: partition #%d runs the default region but has %lld warps, not %lld", p,
          (long long)warps->ints[p], (long long)module_warps);
      return;
    }
    const ir_block *b = op->regions[1 + p].first;
    if (b && b->first && b->first->kind != OP_WARP_RETURN) {
      ERR("gemmc.replica_of_default: partition #%d runs the default region, so its own body must be empty", p);
      return;
    }
  }
}

static void verify_warp_specialize(verifier *v, const ir_op *op) {
  int nparts = op->num_regions - 1;
  const ir_attr *warps = i32_array_attr(v, op, "partitionNumWarps", nparts);
  if (!warps) return;
  /* The partitions' warps join the block's (the lowering sizes the block, its named barriers and
   * the register budget from the sum), so together they must fit a block. */
  const ir_op *module = ir_op_ancestor_of_kind((ir_op *)op, OP_MODULE);
  int64_t module_warps = ir_module_int_attr(module, "ttg.num-warps", 4);
  int64_t threads_per_warp = ir_module_int_attr(module, "ttg.threads-per-warp", 32);
  int64_t total_warps = module_warps;
  for (int i = 0; i < nparts; i++) {
    int64_t w = warps->ints[i];
    if (w < 1 || (w & (w - 1))) {
      ERR("partition #%d must have a power-of-two number of warps, got %lld", i, (long long)w);
      return;
    }
    if (w > GEMMC_MAX_THREADS_PER_BLOCK) {
      ERR("partition #%d has %lld warps; a block holds at most %d threads", i, (long long)w,
          GEMMC_MAX_THREADS_PER_BLOCK);
      return;
    }
    total_warps += w;
  }
  /* Out-of-range module attributes are verify_module's to report; with them in range every term
   * is at most 1024, so neither the sum nor the product can overflow. */
  bool module_in_range = module_warps >= 1 && module_warps <= GEMMC_MAX_THREADS_PER_BLOCK && threads_per_warp >= 1 &&
                         threads_per_warp <= 64;
  if (module_in_range && total_warps * threads_per_warp > GEMMC_MAX_THREADS_PER_BLOCK) {
    ERR("its partitions bring the block to %lld warps of %lld threads, more than the %d threads a block can hold",
        (long long)total_warps, (long long)threads_per_warp, GEMMC_MAX_THREADS_PER_BLOCK);
    return;
  }
  ir_block *def = vfy_single_block_region(v, op, 0, "default region", OP_WARP_YIELD);
  if (def) {
    if (def->num_args) ERR("default region takes no arguments, found %d", def->num_args);
    int n = op->num_results;
    const ir_type **want = vfy_type_list(v, n);
    for (int i = 0; want && i < n; i++) want[i] = result_type(op, i);
    if (want) vfy_check_yield_types(v, op, def->last, n, want, "the results of ttg.warp_specialize");
  }
  for (int p = 0; p < nparts; p++) {
    char name[48];
    snprintf(name, sizeof name, "partition #%d", p);
    ir_block *b = vfy_single_block_region(v, op, 1 + p, name, OP_WARP_RETURN);
    if (!b) continue;
    if (b->num_args != op->num_operands) {
      ERR("partition #%d takes %d arguments but the op captures %d values", p, b->num_args, op->num_operands);
      continue;
    }
    for (int i = 0; i < b->num_args; i++)
      if (b->args[i]->type != operand_type(op, i)) {
        ERR("partition #%d argument #%d has type %s but the captured value is %s", p, i, TS(b->args[i]->type),
            TS(operand_type(op, i)));
        break;
      }
  }
  verify_replicas(v, op, warps, module_warps);
}

/* warp_yield ends the default region, warp_return a partition. */
static void verify_warp_terminator(verifier *v, const ir_op *op) {
  const ir_op *ws = ir_op_parent_op(op);
  if (!ws || ws->kind != OP_WARP_SPECIALIZE || !op->parent || !op->parent->parent) return; /* parent check reports */
  bool in_default = op->parent->parent == &ws->regions[0];
  if (op->kind == OP_WARP_YIELD && !in_default) ERR("ends the default region; partitions end with ttg.warp_return");
  if (op->kind == OP_WARP_RETURN && in_default) ERR("ends a partition; the default region ends with ttg.warp_yield");
}

/* ------------------------------------------------------------------ dispatch */

bool verify_nvgpu_op(verifier *v, const ir_op *op) {
  switch (op->kind) {
  case OP_MAKE_TENSOR_DESC: verify_make_desc(v, op); return true;
  case OP_DESC_LOAD:
  case OP_DESC_STORE: verify_desc_load_store(v, op); return true;
  case OP_DESC_REDUCE:
    verify_desc_load_store(v, op);
    verify_reduce_kind(v, op, operand_type(op, 0));
    return true;
  case OP_DESC_GATHER:
  case OP_DESC_SCATTER: verify_desc_gather_scatter(v, op); return true;
  case OP_MAKE_TENSOR_PTR: verify_make_tensor_ptr(v, op); return true;
  case OP_ADVANCE: verify_advance(v, op); return true;
  case OP_INIT_BARRIER:
  case OP_INVAL_BARRIER:
  case OP_BARRIER_EXPECT:
  case OP_WAIT_BARRIER:
  case OP_ARRIVE_BARRIER:
  case OP_ASYNC_COPY_MBARRIER_ARRIVE: verify_barrier_op(v, op); return true;
  case OP_FENCE_ASYNC_SHARED: {
    const ir_attr *c = ir_op_get_attr(op, "bCluster");
    if (!c || c->kind != AT_BOOL) ERR("requires a boolean 'bCluster' attribute");
    return true;
  }
  case OP_CLUSTER_ARRIVE: bool_attr_if_present(v, op, "relaxed"); return true;
  case OP_CLUSTER_WAIT:
  case OP_FENCE_MBARRIER_INIT: return true;
  case OP_TMA_LOAD:
    verify_tma_load(v, op);
    bool_attr_if_present(v, op, "gemmc.multicast");
    bool_attr_if_present(v, op, "gemmc.multicast_whole");
    return true;
  case OP_TMA_STORE: verify_tma_store(v, op); return true;
  case OP_TMA_REDUCE:
    verify_tma_store(v, op);
    verify_reduce_kind(v, op, operand_type(op, 0));
    return true;
  case OP_TMA_STORE_WAIT: int_attr(v, op, "pendings", 0, 1 << 20, NULL); return true;
  case OP_TENSORMAP_CREATE: verify_tensormap_create(v, op); return true;
  case OP_TENSORMAP_FENCEPROXY_ACQUIRE:
    if (!is_scalar_ptr(operand_type(op, 0))) ERR("operand must be a pointer, got %s", TS(operand_type(op, 0)));
    return true;
  case OP_REINTERPRET_TENSOR_DESC:
    if (!is_scalar_ptr(operand_type(op, 0)) || !is_desc(result_type(op, 0)))
      ERR("reinterprets a pointer as a !tt.tensordesc, got %s to %s", TS(operand_type(op, 0)), TS(result_type(op, 0)));
    return true;
  case OP_GLOBAL_SCRATCH_ALLOC:
    if (!is_scalar_ptr(result_type(op, 0))) ERR("result must be a pointer, got %s", TS(result_type(op, 0)));
    if (int_attr(v, op, "nbytes", 0, 0x7fffffff, NULL)) int_attr(v, op, "alignment", 1, 1 << 20, NULL);
    return true;
  case OP_MEMDESC_SUBSLICE: verify_subslice(v, op); return true;
  case OP_MEMDESC_TRANS:
  case OP_MEMDESC_RESHAPE:
  case OP_MEMDESC_REINTERPRET: verify_memdesc_view(v, op); return true;
  case OP_WARP_SPECIALIZE: verify_warp_specialize(v, op); return true;
  case OP_NUM_WORKERS:
  case OP_CLUSTER_SIZE:
  case OP_REPLICA_ID:
    if (!ir_type_is_int(result_type(op, 0), 32)) ERR("result must be i32, got %s", TS(result_type(op, 0)));
    return true;
  case OP_WARP_YIELD:
  case OP_WARP_RETURN: verify_warp_terminator(v, op); return true;
  default: return false;
  }
}

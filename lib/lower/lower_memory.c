/* Memory and shape ops: make_range, splat, expand_dims, broadcast, reshape, trans, split, join, addptr, and vectorized,
 * predicated tt.load / tt.store through the target. */
#include "lower_memory.h"

#include <stdio.h>
#include <string.h>

#include "lower_index.h"
#include "lower_ops.h"

/* ---------------------------------------------------------------- shape ops */

typedef struct project_info {
  int src_rank, dst_rank, axis;
  const int64_t *src_shape, *dst_shape;
  int perm[IR_MAX_RANK]; /* tt.trans: result dim d is source dim perm[d] */
} project_info;

static void project_permute(const void *ctx, const int64_t *c, int64_t *p) {
  const project_info *pi = ctx;
  for (int d = 0; d < pi->dst_rank; d++) p[pi->perm[d]] = c[d];
}

static void project_drop_axis(const void *ctx, const int64_t *c, int64_t *p) {
  const project_info *pi = ctx;
  for (int d = 0, k = 0; d < pi->dst_rank; d++)
    if (d != pi->axis) p[k++] = c[d];
}

static void project_broadcast(const void *ctx, const int64_t *c, int64_t *p) {
  const project_info *pi = ctx;
  for (int d = 0; d < pi->dst_rank; d++) p[d] = pi->src_shape[d] == 1 ? 0 : c[d];
}

static void project_reshape(const void *ctx, const int64_t *c, int64_t *p) {
  const project_info *pi = ctx;
  int64_t lin = 0;
  for (int d = 0; d < pi->dst_rank; d++) lin = lin * pi->dst_shape[d] + c[d];
  for (int d = pi->src_rank - 1; d >= 0; d--) {
    p[d] = lin % pi->src_shape[d];
    lin /= pi->src_shape[d];
  }
}

static bool lower_shape_op(lower_state *s, ir_op *op) {
  const ir_type *st = op->operands[0].value->type, *dt = op->results[0].type;
  const lower_values *src = lower_get(s, op, op->operands[0].value);
  if (!src) return false;
  lower_layout_info *dli = lower_layout_of(s, op, dt);
  if (!dli) return false;
  if (!ir_type_is_tensor(st)) { /* a scalar broadcast: same as splat */
    lower_values *out = lower_values_new(s, op, dli->num_regs);
    if (!out) return false;
    for (int i = 0; i < dli->num_regs; i++) out->v[i] = src->v[0];
    return lower_set(s, &op->results[0], out);
  }
  lower_layout_info *sli = lower_layout_of(s, op, st);
  if (!sli) return false;
  project_info pi = {st->rank, dt->rank, (int)ir_op_get_int_attr(op, "axis", 0), st->shape, dt->shape, {0}};
  layout_project_fn fn = op->kind == OP_EXPAND_DIMS ? project_drop_axis
                        : op->kind == OP_BROADCAST ? project_broadcast
                        : op->kind == OP_TRANS     ? project_permute
                                                   : project_reshape;
  if (op->kind == OP_TRANS) {
    const ir_attr *order = ir_op_get_attr(op, "order");
    if (!order || order->kind != AT_DENSE_ARRAY || order->num_elems != dt->rank) {
      ir_op_error(s->ctx, op, "tt.trans needs an 'order' permutation of its %d dims", dt->rank);
      return false;
    }
    for (int d = 0; d < dt->rank; d++) pi.perm[d] = (int)order->ints[d];
  }
  int *map = lower_alloc(s, sizeof(int) * (size_t)dli->num_regs);
  lower_values *out = lower_values_new(s, op, dli->num_regs);
  if (!map || !out) return false;
  if (!lower_register_map(dli, sli, fn, &pi, map)) {
    ir_op_error(s->ctx, op, "lowering of this '%s' is not implemented yet: its layouts place elements on different threads",
                ir_op_name(op));
    return false;
  }
  for (int r = 0; r < dli->num_regs; r++) out->v[r] = src->v[map[r]];
  return lower_set(s, &op->results[0], out);
}

/* tt.split: coordinate c of the first half is (c, 0) in the operand (the second half's registers
 * are those XOR the operand register that holds (0, .., 0, 1)); tt.join: (c, h) is c of operand h. */
static void project_split(const void *ctx, const int64_t *c, int64_t *p) {
  int dst_rank = *(const int *)ctx;
  for (int d = 0; d < dst_rank; d++) p[d] = c[d];
  p[dst_rank] = 0;
}

static void project_join(const void *ctx, const int64_t *c, int64_t *p) {
  int dst_rank = *(const int *)ctx;
  for (int d = 0; d < dst_rank - 1; d++) p[d] = c[d];
}

/* tt.split and tt.join rename registers: each result register is an operand register of the same
 * thread (the layouts assign-layouts gives them, layout_infer_split/join_result, guarantee it). */
static bool lower_split_join(lower_state *s, ir_op *op) {
  bool split = op->kind == OP_SPLIT;
  const ir_type *st = op->operands[0].value->type, *dt = op->results[0].type;
  lower_layout_info *sli = lower_layout_of(s, op, st), *dli = sli ? lower_layout_of(s, op, dt) : NULL;
  if (!dli) return false;
  const lower_values *src[2] = {lower_get(s, op, op->operands[0].value),
                                split ? NULL : lower_get(s, op, op->operands[1].value)};
  if (!src[0] || (!split && !src[1])) return false;
  int *map = lower_alloc(s, sizeof(int) * (size_t)dli->num_regs);
  if (!map) return false;
  if (!split) {
    /* The half a result register holds must not depend on the lane or warp. */
    for (int in = LAYOUT_IN_LANE; in < LAYOUT_IN_COUNT; in++)
      for (int i = 0; i < dli->ll.num_bases[in]; i++)
        if (dli->ll.bases[in][i][dt->rank - 1]) goto different_threads;
  }
  int rank = dt->rank;
  if (!lower_register_map(dli, sli, split ? project_split : project_join, &rank, map)) goto different_threads;
  int64_t second = 0; /* split: the register bit between the halves */
  if (split) {
    int64_t unit[IR_MAX_RANK] = {0};
    unit[st->rank - 1] = 1;
    if ((second = layout_linear_register_at(&sli->ll, unit)) <= 0) goto different_threads;
  }
  for (int h = 0; h < (split ? 2 : 1); h++) {
    lower_values *out = lower_values_new(s, op, dli->num_regs);
    if (!out) return false;
    for (int r = 0; r < dli->num_regs; r++) {
      int64_t coord[IR_MAX_RANK];
      lower_reg_coord(dli, r, coord);
      out->v[r] = split ? src[0]->v[map[r] ^ (h ? second : 0)] : src[coord[rank - 1] & 1]->v[map[r]];
    }
    if (!lower_set(s, &op->results[h], out)) return false;
  }
  return true;
different_threads:
  ir_op_error(s->ctx, op, "cannot lower this '%s': its layouts place elements on different threads (%s -> %s)",
              ir_op_name(op), ir_attr_str(s->ctx, st->encoding), ir_attr_str(s->ctx, dt->encoding));
  return false;
}

static bool lower_make_range(lower_state *s, ir_op *op) {
  lower_layout_info *li = lower_layout_of(s, op, op->results[0].type);
  if (!li) return false;
  int64_t start = ir_op_get_int_attr(op, "start", 0);
  lower_values *out = lower_values_new(s, op, li->num_regs);
  if (!out) return false;
  for (int r = 0; r < li->num_regs; r++) {
    LLVMValueRef c = lower_coord(s, li, r, 0);
    out->v[r] = start ? LLVMBuildAdd(s->b, c, lower_i32(s, start), "") : c;
  }
  return lower_set(s, &op->results[0], out);
}

static bool lower_splat(lower_state *s, ir_op *op) {
  const lower_values *src = lower_get(s, op, op->operands[0].value);
  lower_layout_info *li = lower_layout_of(s, op, op->results[0].type);
  if (!src || !li) return false;
  lower_values *out = lower_values_new(s, op, li->num_regs);
  if (!out) return false;
  for (int r = 0; r < li->num_regs; r++) out->v[r] = src->v[0];
  return lower_set(s, &op->results[0], out);
}

static bool lower_addptr(lower_state *s, ir_op *op) {
  const ir_type *pty = ir_type_element(op->results[0].type);
  LLVMTypeRef pointee = lower_elem_type(s, pty->elem);
  const lower_values *p = lower_get(s, op, op->operands[0].value), *o = lower_get(s, op, op->operands[1].value);
  if (!p || !o) return false;
  if (!pointee) {
    ir_op_error(s->ctx, op, "cannot lower pointers to '%s'", ir_type_str(s->ctx, pty->elem));
    return false;
  }
  int n = p->n > o->n ? p->n : o->n;
  lower_values *out = lower_values_new(s, op, n);
  if (!out) return false;
  int64_t same; /* register bits that repeat a lower register's pointer */
  if (!lower_equal_register_bits(s, op, &op->results[0], &same)) return false;
  for (int i = 0; i < n; i++) {
    if (i & same) {
      out->v[i] = out->v[i & ~same];
      continue;
    }
    LLVMValueRef off = lower_elem(o, i);
    out->v[i] = LLVMBuildGEP2(s->b, pointee, lower_elem(p, i), &off, 1, "");
  }
  return lower_set(s, &op->results[0], out);
}

/* ---------------------------------------------------------------- load / store */

/* Memory width of one element (i1 is stored as a byte, pointers as 64 bits). */
static int mem_bits(const ir_type *elem) {
  if (elem->kind == TY_PTR || elem->kind == TY_INDEX) return 64;
  return elem->width < 8 ? 8 : (int)elem->width;
}

target_cache lower_cache_modifier(const ir_op *op) {
  static const char *const caches[] = {"", "ca", "cg", "cs", "cv", "wb", "wt"};
  const ir_attr *c = ir_op_get_attr(op, "cache");
  for (int i = 1; c && c->str && i < (int)(sizeof caches / sizeof caches[0]); i++)
    if (strcmp(c->str, caches[i]) == 0) return (target_cache)i;
  return TARGET_CACHE_DEFAULT;
}

/* The cache operator and eviction priority of a load/store (its cache / evict attributes). */
static void cache_policy(const ir_op *op, target_global_access *a) {
  const ir_attr *e = ir_op_get_attr(op, "evict");
  a->cache = lower_cache_modifier(op);
  a->evict = TARGET_EVICT_NORMAL;
  if (e && e->str && strcmp(e->str, "evict_first") == 0) a->evict = TARGET_EVICT_FIRST;
  if (e && e->str && strcmp(e->str, "evict_last") == 0) a->evict = TARGET_EVICT_LAST;
}

/* Element -> integer of `bits` bits. */
static LLVMValueRef to_bits(lower_state *s, LLVMValueRef x, int bits) {
  LLVMTypeRef it = LLVMIntTypeInContext(s->llctx, (unsigned)bits);
  LLVMTypeRef t = LLVMTypeOf(x);
  switch (LLVMGetTypeKind(t)) {
  case LLVMPointerTypeKind: return LLVMBuildPtrToInt(s->b, x, it, "");
  case LLVMIntegerTypeKind: return LLVMGetIntTypeWidth(t) == (unsigned)bits ? x : LLVMBuildZExt(s->b, x, it, "");
  default: return LLVMBuildBitCast(s->b, x, it, "");
  }
}

static LLVMValueRef from_bits(lower_state *s, LLVMValueRef x, LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMPointerTypeKind: return LLVMBuildIntToPtr(s->b, x, t, "");
  case LLVMIntegerTypeKind:
    if (LLVMGetIntTypeWidth(t) == 1) return LLVMBuildICmp(s->b, LLVMIntNE, x, LLVMConstInt(LLVMTypeOf(x), 0, 0), "");
    return x;
  default: return LLVMBuildBitCast(s->b, x, t, "");
  }
}

/* vec elements -> words (i32; one narrower word when the vector is under 32 bits, zero-extended). */
static int pack_words(lower_state *s, LLVMValueRef *elems, int vec, int bits, LLVMValueRef *words) {
  LLVMTypeRef it = LLVMIntTypeInContext(s->llctx, (unsigned)bits);
  LLVMTypeRef vt = LLVMVectorType(it, (unsigned)vec);
  LLVMValueRef v = LLVMGetUndef(vt);
  for (int j = 0; j < vec; j++) v = LLVMBuildInsertElement(s->b, v, to_bits(s, elems[j], bits), lower_i32(s, j), "");
  int total = vec * bits;
  if (total < 32) {
    LLVMValueRef w = LLVMBuildBitCast(s->b, v, LLVMIntTypeInContext(s->llctx, (unsigned)total), "");
    words[0] = LLVMBuildZExt(s->b, w, s->i32, "");
    return 1;
  }
  int nw = total / 32;
  LLVMValueRef wv = LLVMBuildBitCast(s->b, v, LLVMVectorType(s->i32, (unsigned)nw), "");
  for (int k = 0; k < nw; k++) words[k] = LLVMBuildExtractElement(s->b, wv, lower_i32(s, k), "");
  return nw;
}

static void unpack_words(lower_state *s, LLVMValueRef *words, int nw, int vec, int bits, LLVMTypeRef et,
                         LLVMValueRef *elems) {
  LLVMTypeRef it = LLVMIntTypeInContext(s->llctx, (unsigned)bits);
  int total = vec * bits;
  LLVMValueRef v;
  if (total < 32) {
    LLVMValueRef w = LLVMBuildTrunc(s->b, words[0], LLVMIntTypeInContext(s->llctx, (unsigned)total), "");
    v = LLVMBuildBitCast(s->b, w, LLVMVectorType(it, (unsigned)vec), "");
  } else {
    LLVMValueRef wv = LLVMGetUndef(LLVMVectorType(s->i32, (unsigned)nw));
    for (int k = 0; k < nw; k++) wv = LLVMBuildInsertElement(s->b, wv, words[k], lower_i32(s, k), "");
    v = LLVMBuildBitCast(s->b, wv, LLVMVectorType(it, (unsigned)vec), "");
  }
  for (int j = 0; j < vec; j++) elems[j] = from_bits(s, LLVMBuildExtractElement(s->b, v, lower_i32(s, j), ""), et);
}

static LLVMValueRef and_pred(lower_state *s, LLVMValueRef a, LLVMValueRef b) {
  if (!a) return b;
  if (!b) return a;
  return LLVMBuildAnd(s->b, a, b, "");
}

bool lower_global_load_values(lower_state *s, const ir_op *op, const ir_value *ptr, const ir_value *mask,
                              const ir_value *other, const ir_type *rty, lower_values **result) {
  const ir_type *elem = ir_type_element(rty);
  LLVMTypeRef et = lower_elem_type(s, rty);
  const lower_values *p = lower_get(s, op, ptr), *m = mask ? lower_get(s, op, mask) : NULL,
                     *o = other ? lower_get(s, op, other) : NULL;
  if (!p || (mask && !m) || (other && !o) || !et) return false;
  int n = p->n;
  int64_t dup = 0;
  if (ir_type_is_tensor(rty)) {
    lower_layout_info *li = lower_layout_of(s, op, rty);
    if (!li) return false;
    n = li->num_regs;
    dup = li->reg_dup_mask;
  }
  int bits = mem_bits(elem);
  int vec = (int)axis_info_access_width(s->axis, ptr, mask, bits);
  lower_values *out = lower_values_new(s, op, n);
  if (!out) return false;
  target_global_access access;
  memset(&access, 0, sizeof access);
  cache_policy(op, &access);
  const ir_attr *vol = ir_op_get_attr(op, "isVolatile");
  access.is_volatile = vol && vol->kind == AT_BOOL && vol->int_value;
  int total = vec * bits, nw = total < 32 ? 1 : total / 32;
  access.words = nw;
  access.bits = total;
  for (int r0 = 0; r0 < n; r0 += vec) {
    if (r0 & dup) { /* a broadcast copy of a register loaded already */
      for (int j = 0; j < vec; j++) out->v[r0 + j] = out->v[(r0 + j) & ~dup];
      continue;
    }
    access.ptr = lower_elem(p, r0);
    access.pred = m ? lower_elem(m, r0) : NULL;
    memset(access.other, 0, sizeof access.other);
    if (access.pred && o) {
      /* Masked-off elements keep `other`. */
      LLVMValueRef oe[16];
      for (int j = 0; j < vec; j++) oe[j] = lower_elem(o, r0 + j);
      pack_words(s, oe, vec, bits, access.other);
    }
    LLVMValueRef words[4];
    s->cg->load_global(&s->em, &access, words);
    unpack_words(s, words, nw, vec, bits, et, out->v + r0);
  }
  *result = out;
  return true;
}

static bool lower_load(lower_state *s, ir_op *op) {
  const ir_value *mask = op->num_operands > 1 ? op->operands[1].value : NULL;
  const ir_value *other = op->num_operands > 2 ? op->operands[2].value : NULL;
  lower_values *out;
  if (!lower_global_load_values(s, op, op->operands[0].value, mask, other, op->results[0].type, &out)) return false;
  return lower_set(s, &op->results[0], out);
}

static bool lower_store(lower_state *s, ir_op *op) {
  const ir_value *ptr = op->operands[0].value, *val = op->operands[1].value;
  const ir_value *mask = op->num_operands > 2 ? op->operands[2].value : NULL;
  const ir_type *vty = val->type, *elem = ir_type_element(vty);
  const lower_values *p = lower_get(s, op, ptr), *v = lower_get(s, op, val), *m = mask ? lower_get(s, op, mask) : NULL;
  if (!p || !v || (mask && !m)) return false;
  int n = p->n;
  int64_t dup = 0;
  LLVMValueRef owner = NULL;
  if (ir_type_is_tensor(vty)) {
    lower_layout_info *li = lower_layout_of(s, op, vty);
    if (!li) return false;
    n = li->num_regs;
    dup = li->reg_dup_mask;
    owner = li->owner; /* broadcast copies on other lanes/warps must not store again */
  } else {
    owner = lower_thread0(s);
  }
  int bits = mem_bits(elem);
  int vec = (int)axis_info_access_width(s->axis, ptr, mask, bits);
  target_global_access access;
  memset(&access, 0, sizeof access);
  cache_policy(op, &access);
  int total = vec * bits;
  access.bits = total;
  for (int r0 = 0; r0 < n; r0 += vec) {
    if (r0 & dup) continue;
    LLVMValueRef pred = and_pred(s, m ? lower_elem(m, r0) : NULL, owner);
    LLVMValueRef elems[16], words[4];
    for (int j = 0; j < vec; j++) elems[j] = lower_elem(v, r0 + j);
    access.words = pack_words(s, elems, vec, bits, words);
    access.ptr = lower_elem(p, r0);
    access.pred = pred;
    s->cg->store_global(&s->em, &access, words);
  }
  return true;
}

bool lower_memory(lower_state *s, ir_op *op) {
  switch (op->kind) {
  case OP_MAKE_RANGE: return lower_make_range(s, op);
  case OP_SPLAT: return lower_splat(s, op);
  case OP_EXPAND_DIMS:
  case OP_BROADCAST:
  case OP_RESHAPE:
  case OP_TRANS: return lower_shape_op(s, op);
  case OP_SPLIT:
  case OP_JOIN:
    return lower_split_join(s, op);
  case OP_ADDPTR: return lower_addptr(s, op);
  case OP_LOAD: return lower_load(s, op);
  case OP_STORE: return lower_store(s, op);
  default: ir_op_error(s->ctx, op, "lowering of '%s' is not implemented yet", ir_op_name(op)); return false;
  }
}

/* Axis-info analysis: contiguity / divisibility / constancy per dim of every value, with Triton's transfer functions. */
#include <stdio.h>
#include <string.h>

#include "util.h"
#include "context_internal.h"
#include "gemmc/axis_info.h"
#include "gemmc/layout.h"

#define MAX_DIVISOR AXIS_INFO_MAX_DIVISOR
/* A loop's fixpoint comes within a few rounds (every join is a gcd); the bound only guards
 * against a transfer function that is not monotone. */
#define MAX_LOOP_ROUNDS 64

/* ------------------------------------------------------------------ storage */

/* Arguments hints of a callee, gathered from its call sites (Triton writes them into the
 * callee's arg attrs; we keep them here so the analysis does not change the IR). */
typedef struct call_site_hints {
  const ir_op *func;
  int num_args;
  bool *set;
  int64_t *contiguity, *divisibility, *constancy;
} call_site_hints;

struct axis_info_analysis {
  gemmc_context *ctx;
  /* value -> its axis_info, allocated in the context's arena so that pointers handed out by
   * axis_info_of stay valid while the map grows (until the context is destroyed). */
  ptr_map infos;
  call_site_hints *hints;
  int num_hints, cap_hints;
  ir_op *module; /* for tt.call lookups; NULL when run on a lone function */
};


static axis_info *info_find(const axis_info_analysis *a, const ir_value *v) { return ptr_map_get(&a->infos, v); }

/* The stored info of v, added in the uninitialised state (rank 0) on first sight; NULL when
 * memory ran out (v then stays unknown: the pessimistic answer). */
static axis_info *info_insert(axis_info_analysis *a, const ir_value *v) {
  axis_info *info = info_find(a, v);
  if (info) return info;
  info = ir_alloc(a->ctx, sizeof *info); /* zeroed: rank 0 */
  return info && ptr_map_put(&a->infos, v, info) ? info : NULL;
}

/* ------------------------------------------------------------------ integer helpers */

static int64_t gcd2(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a; /* gcd(a, 0) = a, as Triton's */
}
static int64_t gcd3(int64_t a, int64_t b, int64_t c) { return gcd2(gcd2(a, b), c); }
static int64_t gcd4(int64_t a, int64_t b, int64_t c, int64_t d) { return gcd2(gcd3(a, b, c), d); }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Product of two divisors saturating at 2^62 (Triton's multiplyDivisor). */
static int64_t multiply_divisor(int64_t lhs, int64_t rhs) {
  if (rhs <= 0) return lhs;
  if (lhs > MAX_DIVISOR / rhs) return MAX_DIVISOR;
  return lhs * rhs;
}

/* Largest power of two dividing a constant; 0 is divisible by everything (2^62). */
static int64_t constant_divisor(int64_t v) {
  uint64_t u = (uint64_t)v;
  if (u == 0) return MAX_DIVISOR;
  int tz = __builtin_ctzll(u);
  return tz >= 62 ? MAX_DIVISOR : (int64_t)1 << tz;
}

/* make_range's start is a 32-bit attribute: 0 gives 2^30 (highestPowOf2Divisor<uint32_t>). */
static int64_t range_start_divisor(int64_t start) {
  uint32_t u = (uint32_t)start;
  if (u == 0) return (int64_t)1 << 30;
  return (int64_t)(u & (~u + 1u));
}

static int64_t sign_extend(int64_t v, unsigned width) {
  if (width == 0 || width >= 64) return v;
  uint64_t m = (uint64_t)1 << (width - 1);
  uint64_t x = (uint64_t)v & (((uint64_t)1 << width) - 1);
  return (int64_t)((x ^ m) - m);
}

static uint64_t zero_extend(int64_t v, unsigned width) {
  if (width == 0 || width >= 64) return (uint64_t)v;
  return (uint64_t)v & (((uint64_t)1 << width) - 1);
}

/* ------------------------------------------------------------------ type helpers */

static const ir_type *tensor_of(const ir_type *t) {
  if (t && t->kind == TY_TENSOR) return t;
  /* !tt.ptr<tensor<..>>: the pessimistic state has the tensor's rank */
  if (t && t->kind == TY_PTR && t->elem && t->elem->kind == TY_TENSOR) return t->elem;
  return NULL;
}

static int type_rank(const ir_type *t) {
  const ir_type *tt = tensor_of(t);
  return tt ? tt->rank : 1;
}

/* Bit width of an integer (or index) scalar or element; 0 for anything else. */
static unsigned int_width(const ir_type *t) {
  const ir_type *e = ir_type_element(t);
  if (!e) return 0;
  if (e->kind == TY_INT) return e->width;
  if (e->kind == TY_INDEX) return 64;
  return 0;
}

/* Pointee size in bytes of a pointer (or tensor of pointers), at least 1. */
static int64_t pointee_bytes(const ir_type *t) {
  const ir_type *e = ir_type_element(t);
  if (!e || e->kind != TY_PTR || !e->elem) return 1;
  int64_t bytes = (int64_t)ir_type_bits(e->elem) / 8;
  return bytes < 1 ? 1 : bytes;
}

static bool is_pointer_like(const ir_type *t) {
  const ir_type *e = ir_type_element(t);
  return e && e->kind == TY_PTR;
}

/* ------------------------------------------------------------------ lattice helpers */

static void info_init(axis_info *x, int rank) {
  memset(x, 0, sizeof *x);
  x->rank = rank;
  for (int d = 0; d < rank; d++) x->contiguity[d] = x->divisibility[d] = x->constancy[d] = 1;
}

/* Unit contiguity makes every element a group base, so a divisibility seen on such a dim
 * holds for every element and so on every dim (Triton's getGlobalDivisibility, applied by its
 * AxisInfo constructor). */
static void info_normalize(axis_info *x) {
  int64_t global = 1;
  for (int d = 0; d < x->rank; d++)
    if (x->contiguity[d] == 1) global = max64(global, x->divisibility[d]);
  for (int d = 0; d < x->rank; d++) x->divisibility[d] = max64(x->divisibility[d], global);
}

static int64_t global_divisibility(const axis_info *x) {
  int64_t global = 1;
  for (int d = 0; d < x->rank; d++)
    if (x->contiguity[d] == 1) global = max64(global, x->divisibility[d]);
  return global;
}

static bool info_equal(const axis_info *a, const axis_info *b) {
  if (a->rank != b->rank || a->has_constant != b->has_constant) return false;
  if (a->has_constant && a->constant != b->constant) return false;
  for (int d = 0; d < a->rank; d++)
    if (a->contiguity[d] != b->contiguity[d] || a->divisibility[d] != b->divisibility[d] ||
        a->constancy[d] != b->constancy[d])
      return false;
  return true;
}

/* Divisibility where two infos merge: group bases move when contiguity changes, so the old
 * run lengths bound the new divisibility (Triton's getDivisibilityFromContiguity). */
static int64_t divisibility_from_contiguity(const axis_info *l, const axis_info *r, int d) {
  if (l->contiguity[d] == r->contiguity[d] || l->contiguity[d] == MAX_DIVISOR ||
      r->contiguity[d] == MAX_DIVISOR)
    return gcd2(l->divisibility[d], r->divisibility[d]);
  return gcd4(l->divisibility[d], r->divisibility[d], l->contiguity[d], r->contiguity[d]);
}

/* Triton's AxisInfo::join: gcd everywhere; the constant survives only when both agree. */
static axis_info info_join(const axis_info *l, const axis_info *r) {
  if (l->rank == 0) return *r;
  if (r->rank == 0 || l->rank != r->rank) return *l;
  axis_info x;
  info_init(&x, l->rank);
  for (int d = 0; d < l->rank; d++) {
    x.contiguity[d] = gcd2(l->contiguity[d], r->contiguity[d]);
    x.divisibility[d] = divisibility_from_contiguity(l, r, d);
    x.constancy[d] = gcd2(l->constancy[d], r->constancy[d]);
  }
  if (l->has_constant && r->has_constant && l->constant == r->constant) {
    x.has_constant = true;
    x.constant = l->constant;
  }
  info_normalize(&x);
  return x;
}

/* Triton's getConstantValueState: a known constant of `type`. */
static axis_info constant_state(const ir_type *type, int64_t value) {
  axis_info x;
  const ir_type *t = tensor_of(type);
  info_init(&x, t ? t->rank : 1);
  for (int d = 0; d < x.rank; d++) {
    x.divisibility[d] = constant_divisor(value);
    x.constancy[d] = t ? t->shape[d] : 1;
  }
  x.has_constant = true;
  x.constant = value;
  return x;
}

/* Reads a hint attribute (IntegerAttr or dense<..>) into vec; returns the number of entries
 * (0 when the attribute is absent or of another kind). */
static int hint_values(const ir_attr *attr, int64_t *vec) {
  if (!attr) return 0;
  if (attr->kind == AT_INT || attr->kind == AT_BOOL) {
    vec[0] = attr->int_value;
    return 1;
  }
  if (attr->kind == AT_DENSE) {
    int64_t n = attr->type ? ir_type_num_elements(attr->type) : attr->num_elems;
    if (n < 1 || n > IR_MAX_RANK) return 0;
    for (int64_t i = 0; i < n; i++) {
      const ir_attr *e = attr->dense_splat ? attr->elems[0] : (i < attr->num_elems ? attr->elems[i] : NULL);
      if (!e || (e->kind != AT_INT && e->kind != AT_BOOL)) return 0;
      vec[i] = e->int_value;
    }
    return (int)n;
  }
  if (attr->kind == AT_DENSE_ARRAY && attr->ints && attr->num_elems >= 1 && attr->num_elems <= IR_MAX_RANK) {
    for (int i = 0; i < attr->num_elems; i++) vec[i] = attr->ints[i];
    return attr->num_elems;
  }
  return 0;
}

/* Replaces one vector by a hint. A single value on a tensor applies to every dim (Triton would
 * produce a rank-1 vector there; spreading it keeps the ranks consistent). */
static void apply_hint(const ir_attr *attr, int64_t *vec, int rank) {
  int64_t vals[IR_MAX_RANK];
  int n = hint_values(attr, vals);
  if (n == 0) return;
  for (int d = 0; d < rank; d++) vec[d] = n == 1 ? vals[0] : (d < n ? vals[d] : vec[d]);
}

static void apply_op_hints(const ir_op *op, axis_info *x) {
  apply_hint(ir_op_get_attr(op, "tt.contiguity"), x->contiguity, x->rank);
  apply_hint(ir_op_get_attr(op, "tt.divisibility"), x->divisibility, x->rank);
  apply_hint(ir_op_get_attr(op, "tt.constancy"), x->constancy, x->rank);
}

/* Triton's getPessimisticValueState for a value that is not a function argument. */
static axis_info pessimistic_state(const ir_value *v) {
  axis_info x;
  info_init(&x, type_rank(v->type));
  if (v->def_op) apply_op_hints(v->def_op, &x);
  info_normalize(&x);
  return x;
}

/* ------------------------------------------------------------------ value access */

static void store(axis_info_analysis *a, const ir_value *v, const axis_info *info) {
  axis_info *stored = info_insert(a, v);
  /* The stored state only goes down: a value in a loop body sees every round's state. */
  if (stored) *stored = info_join(stored, info);
}

static void store_replace(axis_info_analysis *a, const ir_value *v, const axis_info *info) {
  axis_info *stored = info_insert(a, v);
  if (stored) *stored = *info;
}

static axis_info get(const axis_info_analysis *a, const ir_value *v) {
  const axis_info *stored = v ? info_find(a, v) : NULL;
  if (stored && stored->rank) return *stored;
  /* A value not reached yet (or from outside the analysed op) is unknown. */
  axis_info x;
  info_init(&x, v ? type_rank(v->type) : 1);
  return x;
}

/* ------------------------------------------------------------------ constant folding */

static bool constant_of(const axis_info *x, int64_t *v) {
  if (!x->has_constant) return false;
  *v = x->constant;
  return true;
}

/* The value of arith.constant when it is an integer or an integer splat. */
static bool constant_op_value(const ir_op *op, int64_t *out) {
  const ir_attr *v = ir_op_get_attr(op, "value");
  unsigned width = int_width(op->results[0].type);
  if (!v || width == 0) return false;
  if (v->kind == AT_INT || v->kind == AT_BOOL) {
    *out = sign_extend(v->int_value, width);
    return true;
  }
  if (v->kind == AT_DENSE && v->dense_splat && v->num_elems >= 1 && v->elems[0] &&
      (v->elems[0]->kind == AT_INT || v->elems[0]->kind == AT_BOOL)) {
    *out = sign_extend(v->elems[0]->int_value, width);
    return true;
  }
  return false;
}

static bool apply_cmp_predicate(const char *pred, int64_t a, int64_t b, unsigned width, int64_t *out) {
  uint64_t ua = zero_extend(a, width), ub = zero_extend(b, width);
  bool r;
  if (!strcmp(pred, "eq")) r = a == b;
  else if (!strcmp(pred, "ne")) r = a != b;
  else if (!strcmp(pred, "slt")) r = a < b;
  else if (!strcmp(pred, "sle")) r = a <= b;
  else if (!strcmp(pred, "sgt")) r = a > b;
  else if (!strcmp(pred, "sge")) r = a >= b;
  else if (!strcmp(pred, "ult")) r = ua < ub;
  else if (!strcmp(pred, "ule")) r = ua <= ub;
  else if (!strcmp(pred, "ugt")) r = ua > ub;
  else if (!strcmp(pred, "uge")) r = ua >= ub;
  else return false;
  *out = r ? 1 : 0;
  return true;
}

/* The cmpi predicate's name; "" when it has none (then nothing is folded). */
static const char *predicate_of(const ir_op *op) {
  const char *p = cmp_predicate_of(op);
  return p ? p : "";
}

/* Exact integer value of an op's result when its operands are known constants (the
 * constant-evaluation step Triton runs before the transfer functions). */
static bool fold_constant(const ir_op *op, const axis_info *in, unsigned width, int64_t *out) {
  int64_t a = 0, b = 0, c = 0;
  bool ka = op->num_operands > 0 && constant_of(&in[0], &a);
  bool kb = op->num_operands > 1 && constant_of(&in[1], &b);
  bool kc = op->num_operands > 2 && constant_of(&in[2], &c);
  unsigned src_width = op->num_operands > 0 ? int_width(op->operands[0].value->type) : 0;
  uint64_t ua = zero_extend(a, src_width), ub = zero_extend(b, src_width);
  switch (op->kind) {
  case OP_CONSTANT: return constant_op_value(op, out);
  case OP_EXTSI:
    if (!ka) return false;
    *out = a;
    return true;
  case OP_EXTUI:
    if (!ka) return false;
    *out = (int64_t)zero_extend(a, src_width);
    return true;
  case OP_TRUNCI:
    if (!ka) return false;
    *out = sign_extend(a, width);
    return true;
  case OP_MULI:
    /* 0 * x = 0 whatever x is */
    if ((ka && a == 0) || (kb && b == 0)) {
      *out = 0;
      return true;
    }
    if (!ka || !kb) return false;
    *out = sign_extend((int64_t)((uint64_t)a * (uint64_t)b), width);
    return true;
  case OP_REMSI:
  case OP_REMUI:
    /* x % 1 = 0; signed x % -1 = 0 */
    if (kb && (b == 1 || (op->kind == OP_REMSI && b == -1))) {
      *out = 0;
      return true;
    }
    if (!ka || !kb || b == 0) return false;
    *out = op->kind == OP_REMSI ? sign_extend(a % b, width) : sign_extend((int64_t)(ua % ub), width);
    return true;
  default: break;
  }
  if (op->kind == OP_SELECT) {
    if (kc && kb && b == c && !ka) {
      *out = b;
      return true;
    }
    if (!ka) return false;
    if (a != 0 ? !kb : !kc) return false;
    *out = a != 0 ? b : c;
    return true;
  }
  if (!ka || !kb) return false;
  switch (op->kind) {
  case OP_ADDI: *out = sign_extend((int64_t)((uint64_t)a + (uint64_t)b), width); return true;
  case OP_SUBI: *out = sign_extend((int64_t)((uint64_t)a - (uint64_t)b), width); return true;
  case OP_DIVSI:
    if (b == 0 || (b == -1 && a == INT64_MIN)) return false;
    *out = sign_extend(a / b, width);
    return true;
  case OP_DIVUI:
    if (ub == 0) return false;
    *out = sign_extend((int64_t)(ua / ub), width);
    return true;
  case OP_ANDI: *out = a & b; return true;
  case OP_ORI: *out = a | b; return true;
  case OP_XORI: *out = a ^ b; return true;
  case OP_SHLI:
    if (ub >= width) return false;
    *out = sign_extend((int64_t)((uint64_t)a << ub), width);
    return true;
  case OP_SHRSI:
    if (ub >= width) return false;
    *out = a >> ub; /* a is sign-extended, so this is the arithmetic shift */
    return true;
  case OP_SHRUI:
    if (ub >= width) return false;
    *out = sign_extend((int64_t)(ua >> ub), width);
    return true;
  case OP_MINSI: *out = a < b ? a : b; return true;
  case OP_MAXSI: *out = a > b ? a : b; return true;
  case OP_MINUI: *out = ua < ub ? a : b; return true;
  case OP_MAXUI: *out = ua > ub ? a : b; return true;
  case OP_CMPI:
    /* Scalar comparisons are not folded (Triton's cmpi visitor gives up on scalars). */
    if (!tensor_of(op->results[0].type)) return false;
    return apply_cmp_predicate(predicate_of(op), a, b, src_width, out);
  default: return false;
  }
}

/* ------------------------------------------------------------------ transfer functions */

static const int64_t *result_shape(const ir_op *op) {
  const ir_type *t = tensor_of(op->results[0].type);
  return t ? t->shape : NULL;
}

static bool is_contiguous_dim(const axis_info *x, const int64_t *shape, int d) {
  return shape && x->contiguity[d] == shape[d];
}
static bool is_constant_dim(const axis_info *x, const int64_t *shape, int d) {
  return shape && x->constancy[d] == shape[d];
}

static bool const_is(const axis_info *x, int64_t v) { return x->has_constant && x->constant == v; }

/* arith.addi / arith.subi / tt.addptr (AddSubOpAxisInfoVisitor). */
static int64_t add_sub_contiguity(ir_op_kind kind, const axis_info *l, const axis_info *r, int d) {
  if (kind == OP_SUBI) return gcd2(l->contiguity[d], r->constancy[d]);
  /* (base + t) + const stays contiguous for as long as both runs last */
  return max64(gcd2(l->constancy[d], r->contiguity[d]), gcd2(l->contiguity[d], r->constancy[d]));
}

static void visit_add_sub(const ir_op *op, const axis_info *l, const axis_info *r, axis_info *x) {
  int64_t elem = op->kind == OP_ADDPTR ? pointee_bytes(op->operands[0].value->type) : 1;
  for (int d = 0; d < x->rank; d++) {
    x->contiguity[d] = add_sub_contiguity(op->kind, l, r, d);
    x->constancy[d] = gcd2(l->constancy[d], r->constancy[d]);
    int64_t ldiv = l->divisibility[d];
    /* offsets count elements, pointer divisibility counts bytes */
    int64_t rdiv = op->kind == OP_ADDPTR ? multiply_divisor(r->divisibility[d], elem) : r->divisibility[d];
    if (l->contiguity[d] > 1 && r->contiguity[d] > 1) {
      /* (a + t) - (b + t) keeps the bases; (a + t) + (b + t) steps by 2 */
      if (op->kind == OP_SUBI && l->contiguity[d] == r->contiguity[d])
        x->divisibility[d] = gcd2(ldiv, rdiv);
      else
        x->divisibility[d] = (ldiv % 2 == 0 && rdiv % 2 == 0) ? 2 : 1;
    } else if (l->contiguity[d] > 1 || r->contiguity[d] > 1) {
      /* a result group can start inside an operand's run: clamp by the result's run length */
      x->divisibility[d] = gcd3(ldiv, rdiv, multiply_divisor(x->contiguity[d], elem));
    } else {
      x->divisibility[d] = gcd2(ldiv, rdiv);
    }
  }
}

static void visit_mul(const axis_info *l, const axis_info *r, axis_info *x) {
  for (int d = 0; d < x->rank; d++) {
    int64_t lc = const_is(r, 1) ? l->contiguity[d] : 1;
    int64_t rc = const_is(l, 1) ? r->contiguity[d] : 1;
    x->contiguity[d] = max64(lc, rc);
    x->constancy[d] = gcd2(l->constancy[d], r->constancy[d]);
    /* [4,5,6,7] * 2 = [8,10,12,14]: a contiguous run's base divisibility does not carry over */
    int64_t ldiv = (l->contiguity[d] > 1 && !const_is(r, 1)) ? 1 : l->divisibility[d];
    int64_t rdiv = (r->contiguity[d] > 1 && !const_is(l, 1)) ? 1 : r->divisibility[d];
    x->divisibility[d] = multiply_divisor(ldiv, rdiv);
  }
}

static void visit_div(const ir_op *op, const axis_info *l, const axis_info *r, axis_info *x) {
  const int64_t *shape = result_shape(op);
  for (int d = 0; d < x->rank; d++) {
    x->contiguity[d] = const_is(r, 1) ? l->contiguity[d] : 1;
    int64_t constancy = gcd2(l->constancy[d], r->constancy[d]);
    /* [0..n) / c is constant over runs of gcd(run, base divisibility, c) */
    if (is_contiguous_dim(l, shape, d) && is_constant_dim(r, shape, d))
      constancy = max64(constancy, gcd3(l->contiguity[d], l->divisibility[d], r->divisibility[d]));
    x->constancy[d] = constancy;
    int64_t div = 1;
    if (const_is(l, 0) || const_is(r, 1)) {
      div = l->divisibility[d];
    } else if (r->has_constant && l->contiguity[d] == 1) {
      uint64_t divisor = (uint64_t)r->constant;
      if (op->kind == OP_DIVSI && r->constant < 0) divisor = (uint64_t)0 - divisor;
      if (op->kind == OP_DIVUI) divisor = zero_extend(r->constant, int_width(op->operands[1].value->type));
      if (divisor && (divisor & (divisor - 1)) == 0) {
        int shift = __builtin_ctzll(divisor);
        if (shift > 62) shift = 62;
        div = max64(1, l->divisibility[d] >> shift);
      }
    }
    x->divisibility[d] = div;
  }
}

static void visit_rem(const ir_op *op, const axis_info *l, const axis_info *r, axis_info *x) {
  const int64_t *shape = result_shape(op);
  for (int d = 0; d < x->rank; d++) {
    int64_t contiguity = 1;
    /* [k*a .. k*a+n) % c stays contiguous over runs of gcd(run, base divisibility, c) */
    if (is_contiguous_dim(l, shape, d) && is_constant_dim(r, shape, d))
      contiguity = gcd3(l->contiguity[d], l->divisibility[d], r->divisibility[d]);
    x->contiguity[d] = contiguity;
    x->constancy[d] = gcd2(l->constancy[d], r->constancy[d]);
    int64_t div = gcd2(l->divisibility[d], r->divisibility[d]);
    /* new group bases inside an operand's run sit at multiples of the result's run length */
    if (l->contiguity[d] > contiguity || r->contiguity[d] > contiguity) div = gcd2(div, contiguity);
    x->divisibility[d] = div;
  }
}

static void visit_cmp(const ir_op *op, const axis_info *l, const axis_info *r, axis_info *x) {
  const int64_t *shape = result_shape(op);
  const char *p = predicate_of(op);
  bool gt = !strcmp(p, "sgt") || !strcmp(p, "ugt");
  bool ge = !strcmp(p, "sge") || !strcmp(p, "uge");
  bool lt = !strcmp(p, "slt") || !strcmp(p, "ult");
  bool le = !strcmp(p, "sle") || !strcmp(p, "ule");
  for (int d = 0; d < x->rank; d++) {
    int64_t hint = gcd2(l->constancy[d], r->constancy[d]);
    /* constant vs a contiguous run whose bases and the constant share a divisor: the
     * comparison cannot flip inside a group of that length */
    if ((gt || le) && is_constant_dim(l, shape, d))
      hint = max64(hint, gcd3(r->contiguity[d], l->divisibility[d], r->divisibility[d]));
    else if ((lt || ge) && is_constant_dim(r, shape, d))
      hint = max64(hint, gcd3(l->contiguity[d], l->divisibility[d], r->divisibility[d]));
    x->constancy[d] = hint;
    x->contiguity[d] = 1;
    x->divisibility[d] = 1;
  }
}

static void visit_select(const ir_op *op, const axis_info *cond, const axis_info *l, const axis_info *r,
                         axis_info *x) {
  if (cond->has_constant) {
    *x = cond->constant == 0 ? *r : *l;
    return;
  }
  /* A scalar condition picks a whole tensor: the result is one of the two. */
  if (!tensor_of(op->operands[0].value->type)) {
    *x = info_join(l, r);
    x->has_constant = false;
    return;
  }
  for (int d = 0; d < x->rank; d++) {
    x->constancy[d] = gcd3(l->constancy[d], r->constancy[d], cond->constancy[d]);
    x->contiguity[d] = gcd3(l->contiguity[d], r->contiguity[d], cond->constancy[d]);
    x->divisibility[d] = gcd2(divisibility_from_contiguity(l, r, d), x->contiguity[d]);
  }
}

static void visit_shift(const ir_op *op, const axis_info *l, const axis_info *r, axis_info *x) {
  unsigned width = int_width(op->results[0].type);
  for (int d = 0; d < x->rank; d++) {
    x->constancy[d] = gcd2(l->constancy[d], r->constancy[d]);
    x->contiguity[d] = const_is(r, 0) ? l->contiguity[d] : 1;
    int64_t ldiv = l->divisibility[d];
    bool zero_shift = const_is(r, 0);
    if (op->kind == OP_SHLI) {
      if (l->contiguity[d] > 1 && !zero_shift) ldiv = 1;
      if (!r->has_constant) {
        x->divisibility[d] = ldiv;
      } else if (zero_extend(r->constant, width) >= width) {
        x->divisibility[d] = 1;
      } else {
        uint64_t s = zero_extend(r->constant, width);
        x->divisibility[d] = multiply_divisor(ldiv, (int64_t)1 << (s > 62 ? 62 : s));
      }
    } else {
      if (!r->has_constant || zero_extend(r->constant, width) >= width) {
        x->divisibility[d] = 1;
        continue;
      }
      if (l->contiguity[d] > 1 && !zero_shift) ldiv = 1;
      uint64_t s = zero_extend(r->constant, width);
      x->divisibility[d] = max64(1, ldiv >> (s > 62 ? 62 : s));
    }
  }
}

static void visit_expand_dims(const ir_op *op, const axis_info *src, axis_info *x) {
  int axis = (int)ir_op_get_int_attr(op, "axis", 0);
  if (axis < 0 || axis > src->rank || src->rank + 1 > IR_MAX_RANK) {
    x->rank = 0;
    return;
  }
  /* The new size-1 dim: every element is a group base, so only the divisibility every
   * element has counts ([2^n, 2^n+1, ..] has none beyond 1). */
  int64_t new_div = 1;
  if (src->rank) {
    new_div = src->contiguity[0] > 1 ? 1 : src->divisibility[0];
    for (int d = 1; d < src->rank; d++) new_div = gcd2(new_div, src->contiguity[d] > 1 ? 1 : src->divisibility[d]);
  }
  int s = 0;
  for (int d = 0; d < x->rank; d++) {
    if (d == axis) {
      x->contiguity[d] = 1;
      x->divisibility[d] = new_div;
      x->constancy[d] = 1;
    } else {
      x->contiguity[d] = src->contiguity[s];
      x->divisibility[d] = src->divisibility[s];
      x->constancy[d] = src->constancy[s];
      s++;
    }
  }
}

static void visit_broadcast(const ir_op *op, const axis_info *src, axis_info *x) {
  const ir_type *from = tensor_of(op->operands[0].value->type);
  const int64_t *shape = result_shape(op);
  if (!from || !shape || from->rank != x->rank || src->rank != x->rank) {
    x->rank = 0;
    return;
  }
  for (int d = 0; d < x->rank; d++) {
    bool stretched = from->shape[d] == 1;
    x->contiguity[d] = stretched ? 1 : src->contiguity[d];
    x->divisibility[d] = src->divisibility[d];
    x->constancy[d] = stretched ? shape[d] : src->constancy[d];
  }
  x->has_constant = src->has_constant;
  x->constant = src->constant;
}

/* tt.reshape: each destination dim inherits from the source dim it splits, when its stride
 * lands on that dim's boundary (Triton's ReshapeOpAxisInfoVisitor). */
static void visit_reshape(const ir_op *op, const axis_info *src, axis_info *x) {
  const ir_type *st = tensor_of(op->operands[0].value->type);
  const ir_type *dt = tensor_of(op->results[0].type);
  if (!st || !dt || src->rank != st->rank) {
    x->rank = 0;
    return;
  }
  int sr = st->rank, dr = dt->rank;
  int64_t sp[IR_MAX_RANK + 1], dp[IR_MAX_RANK + 1]; /* suffix products: stride of dim d is p[d+1] */
  sp[sr] = 1;
  for (int d = sr - 1; d >= 0; d--) sp[d] = sp[d + 1] * st->shape[d];
  dp[dr] = 1;
  for (int d = dr - 1; d >= 0; d--) dp[d] = dp[d + 1] * dt->shape[d];
  int64_t global = global_divisibility(src);
  for (int d = 0; d < dr; d++) {
    x->contiguity[d] = 1;
    x->divisibility[d] = global;
    x->constancy[d] = 1;
  }
  for (int dd = 0; dd < dr; dd++) {
    int64_t dst_stride = dp[dd + 1];
    int sd = 0;
    for (; sd < sr; sd++)
      if (sp[sd + 1] <= dst_stride && dst_stride < sp[sd]) break;
    if (sd == sr) sd = 0; /* a leading size-1 dim reuses the outermost source dim */
    int64_t src_stride = sp[sd + 1];
    int64_t src_contig = src->contiguity[sd], src_div = src->divisibility[sd], src_const = src->constancy[sd];
    if (src_contig > 1) {
      /* contiguity survives only on the low boundary of the source dim */
      if (dst_stride == src_stride) {
        int64_t c = min64(src_contig, dt->shape[dd]);
        x->contiguity[dd] = c;
        int64_t div = c == src_contig ? src_div : min64(src_div, c);
        x->divisibility[dd] = max64(global, div);
      }
      continue;
    }
    int64_t constancy_end = src_stride * src_const;
    if (dst_stride <= constancy_end) {
      int64_t c = min64(dt->shape[dd], constancy_end / dst_stride);
      /* whole constant source dims merge into one longer constant run */
      int64_t remaining = dt->shape[dd] / c;
      for (int dim = sd - 1; src_const == st->shape[sd] && dim >= 0 && remaining > 1; --dim) {
        int64_t piece = min64(st->shape[dim], remaining);
        int64_t piece_const = min64(src->constancy[dim], piece);
        c *= piece_const;
        if (piece_const < piece) break;
        remaining /= piece;
      }
      x->constancy[dd] = c;
    }
  }
}

static void visit_trans(const ir_op *op, const axis_info *src, axis_info *x) {
  const ir_attr *order = ir_op_get_attr(op, "order");
  int64_t perm[IR_MAX_RANK];
  int n = hint_values(order, perm);
  if (n != x->rank || src->rank != x->rank) {
    x->rank = 0;
    return;
  }
  for (int d = 0; d < x->rank; d++) {
    int s = (int)perm[d];
    if (s < 0 || s >= src->rank) {
      x->rank = 0;
      return;
    }
    x->contiguity[d] = src->contiguity[s];
    x->divisibility[d] = src->divisibility[s];
    x->constancy[d] = src->constancy[s];
  }
  x->has_constant = src->has_constant;
  x->constant = src->constant;
}

static void visit_bitcast(const ir_op *op, const axis_info *src, axis_info *x) {
  *x = *src;
  if (!is_pointer_like(op->operands[0].value->type)) return;
  int64_t src_bytes = pointee_bytes(op->operands[0].value->type);
  int64_t dst_bytes = pointee_bytes(op->results[0].type);
  if (src_bytes == dst_bytes) return;
  /* every former element becomes a group base */
  for (int d = 0; d < x->rank; d++) {
    if (src->contiguity[d] > 1) x->divisibility[d] = gcd2(x->divisibility[d], src_bytes);
    x->contiguity[d] = 1;
  }
}

/* The transfer function of op's only result; rank 0 in *x when there is none (the caller then
 * falls back to the pessimistic state). */
static void transfer(const axis_info_analysis *a, const ir_op *op, axis_info *x) {
  axis_info in[3];
  int n = op->num_operands < 3 ? op->num_operands : 3;
  for (int i = 0; i < n; i++) in[i] = get(a, op->operands[i].value);
  const ir_type *rt = op->results[0].type;
  info_init(x, type_rank(rt));
  unsigned width = int_width(rt);
  int64_t folded;
  if (width && fold_constant(op, in, width, &folded)) {
    *x = constant_state(rt, folded);
    return;
  }
  const int64_t *shape = result_shape(op);
  switch (op->kind) {
  case OP_POISON:
    /* Poison is never read: the most optimistic state, so joins take the other side's. */
    for (int d = 0; d < x->rank; d++)
      x->contiguity[d] = x->divisibility[d] = x->constancy[d] = MAX_DIVISOR;
    return;
  case OP_MAKE_RANGE: {
    int64_t start = ir_op_get_int_attr(op, "start", 0), end = ir_op_get_int_attr(op, "end", 0);
    x->contiguity[0] = end - start;
    x->divisibility[0] = range_start_divisor(start);
    x->constancy[0] = 1;
    return;
  }
  case OP_EXTSI:
  case OP_EXTUI:
  case OP_TRUNCI:
    *x = in[0];
    x->has_constant = false; /* an exact constant was folded above */
    return;
  case OP_CONVERT_LAYOUT: *x = in[0]; return;
  case OP_TT_BITCAST: visit_bitcast(op, &in[0], x); return;
  case OP_ADDI:
  case OP_SUBI:
  case OP_ADDPTR: visit_add_sub(op, &in[0], &in[1], x); return;
  case OP_MULI: visit_mul(&in[0], &in[1], x); return;
  case OP_DIVSI:
  case OP_DIVUI: visit_div(op, &in[0], &in[1], x); return;
  case OP_REMSI:
  case OP_REMUI: visit_rem(op, &in[0], &in[1], x); return;
  case OP_SPLAT:
    for (int d = 0; d < x->rank; d++) {
      x->contiguity[d] = 1;
      x->divisibility[d] = in[0].divisibility[0];
      x->constancy[d] = shape ? shape[d] : 1;
    }
    x->has_constant = in[0].has_constant;
    x->constant = in[0].constant;
    return;
  case OP_LOAD:
    for (int d = 0; d < x->rank; d++) {
      x->contiguity[d] = 1;
      x->divisibility[d] = 1;
      x->constancy[d] = gcd2(in[0].rank > d ? in[0].constancy[d] : 1,
                             op->num_operands > 1 && in[1].rank > d ? in[1].constancy[d] : 0);
    }
    return;
  case OP_EXPAND_DIMS:
    if (in[0].has_constant) break;
    visit_expand_dims(op, &in[0], x);
    return;
  case OP_BROADCAST: visit_broadcast(op, &in[0], x); return;
  case OP_RESHAPE:
    if (in[0].has_constant) break;
    visit_reshape(op, &in[0], x);
    return;
  case OP_TRANS: visit_trans(op, &in[0], x); return;
  case OP_CMPI:
    if (!shape) { /* scalar comparisons get no visitor in Triton: pessimistic */
      x->rank = 0;
      return;
    }
    visit_cmp(op, &in[0], &in[1], x);
    return;
  case OP_ANDI:
  case OP_ORI:
  case OP_XORI:
    for (int d = 0; d < x->rank; d++) x->constancy[d] = gcd2(in[0].constancy[d], in[1].constancy[d]);
    return;
  case OP_SELECT: visit_select(op, &in[0], &in[1], &in[2], x); return;
  case OP_SHLI:
  case OP_SHRSI:
  case OP_SHRUI: visit_shift(op, &in[0], &in[1], x); return;
  case OP_MINSI:
  case OP_MAXSI:
  case OP_MINUI:
  case OP_MAXUI:
    *x = info_join(&in[0], &in[1]);
    x->has_constant = false;
    return;
  default:
    x->rank = 0;
    return;
  }
  /* Shape ops on a known constant: the constant, shaped like the result. */
  if (width) *x = constant_state(rt, in[0].constant);
  else x->rank = 0;
}

/* ------------------------------------------------------------------ the walk */

static void visit_block(axis_info_analysis *a, ir_block *b);

/* Every value under a region that is statically never executed gets the pessimistic state,
 * as Triton's module analysis falls back to for values its solver never reached. */
static void mark_dead_region(axis_info_analysis *a, ir_region *r) {
  for (ir_block *b = r->first; b; b = b->next) {
    for (int i = 0; i < b->num_args; i++) {
      axis_info p = pessimistic_state(b->args[i]);
      store(a, b->args[i], &p);
    }
    for (ir_op *o = b->first; o; o = o->next) {
      for (int i = 0; i < o->num_results; i++) {
        axis_info p = pessimistic_state(&o->results[i]);
        store(a, &o->results[i], &p);
      }
      for (int k = 0; k < o->num_regions; k++) mark_dead_region(a, &o->regions[k]);
    }
  }
}

static ir_op *region_yield(ir_region *r) {
  ir_block *b = r->first;
  return b ? ir_block_terminator(b) : NULL;
}

static void visit_for(axis_info_analysis *a, ir_op *op) {
  ir_block *body = op->num_regions ? ir_region_entry(&op->regions[0]) : NULL;
  int num_iter = op->num_operands - 3;
  if (!body || body->num_args < 1 + num_iter) {
    for (int i = 0; i < op->num_results; i++) {
      axis_info p = pessimistic_state(&op->results[i]);
      store(a, &op->results[i], &p);
    }
    return;
  }
  /* induction variable: gcd of the divisibilities of lb and step */
  axis_info lb = get(a, op->operands[0].value), step = get(a, op->operands[2].value);
  axis_info iv;
  info_init(&iv, 1);
  iv.divisibility[0] = gcd2(lb.divisibility[0], step.divisibility[0]);
  info_normalize(&iv);
  store(a, body->args[0], &iv);
  for (int i = 0; i < num_iter; i++) {
    axis_info init = get(a, op->operands[3 + i].value);
    store(a, body->args[1 + i], &init);
  }
  for (int round = 0; round < MAX_LOOP_ROUNDS; round++) {
    visit_block(a, body);
    ir_op *yield = ir_block_terminator(body);
    bool changed = false;
    for (int i = 0; i < num_iter; i++) {
      if (!yield || i >= yield->num_operands) break;
      axis_info old = get(a, body->args[1 + i]);
      axis_info y = get(a, yield->operands[i].value);
      axis_info joined = info_join(&old, &y);
      if (!info_equal(&joined, &old)) {
        store_replace(a, body->args[1 + i], &joined);
        changed = true;
      }
    }
    if (!changed) break;
  }
  /* results: the inits (zero trips) joined with every yield, which is the iter args' state */
  for (int i = 0; i < op->num_results && i < num_iter; i++) {
    axis_info r = get(a, body->args[1 + i]);
    store(a, &op->results[i], &r);
  }
}

static void visit_if(axis_info_analysis *a, ir_op *op) {
  axis_info cond = get(a, op->operands[0].value);
  bool known = cond.has_constant && !tensor_of(op->operands[0].value->type);
  for (int r = 0; r < op->num_regions && r < 2; r++) {
    bool live = !known || (r == 0) == (cond.constant != 0);
    if (live) {
      for (ir_block *b = op->regions[r].first; b; b = b->next) visit_block(a, b);
    } else {
      mark_dead_region(a, &op->regions[r]);
    }
  }
  for (int i = 0; i < op->num_results; i++) {
    axis_info res;
    memset(&res, 0, sizeof res);
    for (int r = 0; r < op->num_regions && r < 2; r++) {
      if (known && (r == 0) != (cond.constant != 0)) continue;
      ir_op *y = region_yield(&op->regions[r]);
      if (!y || i >= y->num_operands) continue;
      axis_info v = get(a, y->operands[i].value);
      res = info_join(&res, &v);
    }
    if (res.rank == 0) res = pessimistic_state(&op->results[i]);
    store(a, &op->results[i], &res);
  }
}

static void visit_op(axis_info_analysis *a, ir_op *op) {
  if (op->kind == OP_SCF_FOR) {
    visit_for(a, op);
    return;
  }
  if (op->kind == OP_SCF_IF && op->num_operands >= 1) {
    visit_if(a, op);
    return;
  }
  /* Other regions (tt.reduce, tt.scan, nested functions): their arguments are unknown. */
  for (int r = 0; r < op->num_regions; r++)
    for (ir_block *b = op->regions[r].first; b; b = b->next) {
      for (int i = 0; i < b->num_args; i++) {
        axis_info p = pessimistic_state(b->args[i]);
        store(a, b->args[i], &p);
      }
      visit_block(a, b);
    }
  if (op->num_results == 0) return;
  if (op->num_results > 1 || op->kind == OP_FUNC || op->kind == OP_MODULE) {
    for (int i = 0; i < op->num_results; i++) {
      axis_info p = pessimistic_state(&op->results[i]);
      store(a, &op->results[i], &p);
    }
    return;
  }
  axis_info x;
  transfer(a, op, &x);
  if (x.rank == 0 || x.rank != type_rank(op->results[0].type)) {
    x = pessimistic_state(&op->results[0]);
  } else {
    /* hints written on the op (tl.multiple_of and friends) replace the computed vectors */
    apply_op_hints(op, &x);
    info_normalize(&x);
  }
  store(a, &op->results[0], &x);
}

static void visit_block(axis_info_analysis *a, ir_block *b) {
  for (ir_op *o = b->first; o; o = o->next) visit_op(a, o);
}

/* ------------------------------------------------------------------ functions and calls */

static call_site_hints *hints_for(axis_info_analysis *a, const ir_op *func, bool create) {
  for (int i = 0; i < a->num_hints; i++)
    if (a->hints[i].func == func) return &a->hints[i];
  if (!create) return NULL;
  if (a->num_hints == a->cap_hints) {
    int ncap = a->cap_hints ? a->cap_hints * 2 : 8;
    a->hints = ctx_raw_realloc(a->ctx, a->hints, (size_t)a->cap_hints * sizeof *a->hints,
                               (size_t)ncap * sizeof *a->hints);
    a->cap_hints = ncap;
  }
  call_site_hints *h = &a->hints[a->num_hints++];
  memset(h, 0, sizeof *h);
  h->func = func;
  ir_block *entry = func->num_regions ? ir_region_entry(&func->regions[0]) : NULL;
  h->num_args = entry ? entry->num_args : 0;
  size_t n = (size_t)(h->num_args ? h->num_args : 1);
  h->set = ctx_raw_alloc(a->ctx, n * sizeof *h->set);
  memset(h->set, 0, n * sizeof *h->set);
  h->contiguity = ctx_raw_alloc(a->ctx, n * sizeof(int64_t));
  h->divisibility = ctx_raw_alloc(a->ctx, n * sizeof(int64_t));
  h->constancy = ctx_raw_alloc(a->ctx, n * sizeof(int64_t));
  return h;
}

static const ir_attr *func_arg_attr(const ir_op *func, int index, const char *name) {
  const ir_attr *arg_attrs = ir_op_get_attr(func, "arg_attrs");
  if (!arg_attrs || arg_attrs->kind != AT_ARRAY || index >= arg_attrs->num_elems) return NULL;
  const ir_attr *dict = arg_attrs->elems[index];
  if (!dict || dict->kind != AT_DICT) return NULL;
  return ir_dict_get(dict, name);
}

/* The entry state of a function argument: pessimistic, then the arg attrs (or what the call
 * sites say, which Triton writes over the arg attrs). */
static axis_info argument_state(const axis_info_analysis *a, const ir_op *func, const ir_value *arg) {
  axis_info x;
  info_init(&x, type_rank(arg->type));
  const call_site_hints *h = NULL;
  for (int i = 0; i < a->num_hints; i++)
    if (a->hints[i].func == func) h = &a->hints[i];
  int idx = arg->index;
  if (h && idx < h->num_args && h->set[idx]) {
    for (int d = 0; d < x.rank; d++) {
      x.contiguity[d] = h->contiguity[idx];
      x.divisibility[d] = h->divisibility[idx];
      x.constancy[d] = h->constancy[idx];
    }
  } else {
    apply_hint(func_arg_attr(func, idx, "tt.contiguity"), x.contiguity, x.rank);
    apply_hint(func_arg_attr(func, idx, "tt.divisibility"), x.divisibility, x.rank);
    apply_hint(func_arg_attr(func, idx, "tt.constancy"), x.constancy, x.rank);
  }
  info_normalize(&x);
  return x;
}

static int64_t arg_int_hint(const ir_op *func, int index, const char *name) {
  const ir_attr *attr = func_arg_attr(func, index, name);
  return attr && attr->kind == AT_INT ? attr->int_value : MAX_DIVISOR;
}

typedef struct call_walk {
  axis_info_analysis *a;
} call_walk;

/* Folds a call's scalar argument infos into the callee's argument hints (gcd over callers). */
static bool update_callee(ir_op *op, void *user) {
  call_walk *w = user;
  axis_info_analysis *a = w->a;
  if (op->kind != OP_CALL || !a->module) return true;
  const ir_attr *callee_attr = ir_op_get_attr(op, "callee");
  if (!callee_attr || !callee_attr->str) return true;
  ir_op *callee = ir_module_lookup_func(a->module, callee_attr->str);
  if (!callee) return true;
  call_site_hints *h = hints_for(a, callee, true);
  for (int i = 0; i < op->num_operands && i < h->num_args; i++) {
    axis_info info = get(a, op->operands[i].value);
    /* only scalar (rank-1) information is forwarded */
    if (info.rank != 1) continue;
    if (!h->set[i]) {
      h->contiguity[i] = arg_int_hint(callee, i, "tt.contiguity");
      h->divisibility[i] = arg_int_hint(callee, i, "tt.divisibility");
      h->constancy[i] = arg_int_hint(callee, i, "tt.constancy");
      h->set[i] = true;
    }
    h->contiguity[i] = gcd2(h->contiguity[i], info.contiguity[0]);
    h->divisibility[i] = gcd2(h->divisibility[i], info.divisibility[0]);
    h->constancy[i] = gcd2(h->constancy[i], info.constancy[0]);
  }
  return true;
}

static void analyse_function(axis_info_analysis *a, ir_op *func) {
  ir_block *entry = func->num_regions ? ir_region_entry(&func->regions[0]) : NULL;
  if (!entry) return;
  for (int i = 0; i < entry->num_args; i++) {
    axis_info x = argument_state(a, func, entry->args[i]);
    store(a, entry->args[i], &x);
  }
  for (ir_block *b = func->regions[0].first; b; b = b->next) {
    if (b != entry)
      for (int i = 0; i < b->num_args; i++) {
        axis_info p = pessimistic_state(b->args[i]);
        store(a, b->args[i], &p);
      }
    visit_block(a, b);
  }
  call_walk w = {a};
  ir_walk(func, update_callee, &w);
}

/* Callers before callees: reverse post-order of the call graph from every function. */
typedef struct func_order {
  ir_op **funcs;
  int num_funcs;
  bool *visited;
  ir_op **post;
  int num_post;
  ir_op *module;
} func_order;

static int func_index(const func_order *fo, const ir_op *f) {
  for (int i = 0; i < fo->num_funcs; i++)
    if (fo->funcs[i] == f) return i;
  return -1;
}

typedef struct callee_walk {
  func_order *fo;
} callee_walk;

static void order_visit(func_order *fo, int idx);

static bool visit_callees(ir_op *op, void *user) {
  callee_walk *w = user;
  if (op->kind != OP_CALL) return true;
  const ir_attr *callee_attr = ir_op_get_attr(op, "callee");
  if (!callee_attr || !callee_attr->str) return true;
  ir_op *callee = ir_module_lookup_func(w->fo->module, callee_attr->str);
  int idx = callee ? func_index(w->fo, callee) : -1;
  if (idx >= 0) order_visit(w->fo, idx);
  return true;
}

static void order_visit(func_order *fo, int idx) {
  if (fo->visited[idx]) return;
  fo->visited[idx] = true;
  callee_walk w = {fo};
  ir_walk(fo->funcs[idx], visit_callees, &w);
  fo->post[fo->num_post++] = fo->funcs[idx];
}

static void analyse_module(axis_info_analysis *a, ir_op *module) {
  int n = 0;
  for (ir_block *b = module->num_regions ? module->regions[0].first : NULL; b; b = b->next)
    for (ir_op *o = b->first; o; o = o->next)
      if (o->kind == OP_FUNC) n++;
  if (n == 0) return;
  func_order fo = {0};
  fo.module = module;
  fo.funcs = ctx_raw_alloc(a->ctx, (size_t)n * sizeof *fo.funcs);
  fo.post = ctx_raw_alloc(a->ctx, (size_t)n * sizeof *fo.post);
  fo.visited = ctx_raw_alloc(a->ctx, (size_t)n * sizeof *fo.visited);
  memset(fo.visited, 0, (size_t)n * sizeof *fo.visited);
  for (ir_block *b = module->regions[0].first; b; b = b->next)
    for (ir_op *o = b->first; o; o = o->next)
      if (o->kind == OP_FUNC) fo.funcs[fo.num_funcs++] = o;
  for (int i = 0; i < n; i++) order_visit(&fo, i);
  for (int i = fo.num_post - 1; i >= 0; i--) analyse_function(a, fo.post[i]);
  ctx_raw_free(a->ctx, fo.funcs, (size_t)n * sizeof *fo.funcs);
  ctx_raw_free(a->ctx, fo.post, (size_t)n * sizeof *fo.post);
  ctx_raw_free(a->ctx, fo.visited, (size_t)n * sizeof *fo.visited);
}

/* ------------------------------------------------------------------ public API */

axis_info_analysis *axis_info_run(gemmc_context *ctx, ir_op *func_or_module) {
  axis_info_analysis *a = ctx_raw_alloc(ctx, sizeof *a);
  if (!a) return NULL;
  memset(a, 0, sizeof *a);
  a->ctx = ctx;
  a->infos.ctx = ctx;
  if (!func_or_module) return a;
  if (func_or_module->kind == OP_MODULE) {
    a->module = func_or_module;
    analyse_module(a, func_or_module);
  } else if (func_or_module->kind == OP_FUNC) {
    a->module = ir_op_ancestor_of_kind(func_or_module, OP_MODULE);
    analyse_function(a, func_or_module);
  } else {
    visit_op(a, func_or_module);
  }
  return a;
}

void axis_info_free(axis_info_analysis *a) {
  if (!a) return;
  gemmc_context *ctx = a->ctx;
  for (int i = 0; i < a->num_hints; i++) {
    size_t n = (size_t)(a->hints[i].num_args ? a->hints[i].num_args : 1);
    ctx_raw_free(ctx, a->hints[i].set, n * sizeof(bool));
    ctx_raw_free(ctx, a->hints[i].contiguity, n * sizeof(int64_t));
    ctx_raw_free(ctx, a->hints[i].divisibility, n * sizeof(int64_t));
    ctx_raw_free(ctx, a->hints[i].constancy, n * sizeof(int64_t));
  }
  if (a->hints) ctx_raw_free(ctx, a->hints, (size_t)a->cap_hints * sizeof *a->hints);
  ptr_map_free(&a->infos);
  ctx_raw_free(ctx, a, sizeof *a);
}

const axis_info *axis_info_of(const axis_info_analysis *a, const ir_value *v) {
  if (!a || !v) return NULL;
  const axis_info *info = info_find(a, v);
  return info && info->rank ? info : NULL;
}

int axis_info_rank(const axis_info *info) { return info ? info->rank : 0; }

int64_t axis_info_contiguity(const axis_info *info, int dim) {
  return info && dim >= 0 && dim < info->rank ? info->contiguity[dim] : 1;
}
int64_t axis_info_divisibility(const axis_info *info, int dim) {
  return info && dim >= 0 && dim < info->rank ? info->divisibility[dim] : 1;
}
int64_t axis_info_constancy(const axis_info *info, int dim) {
  return info && dim >= 0 && dim < info->rank ? info->constancy[dim] : 1;
}
bool axis_info_constant(const axis_info *info, int64_t *value) {
  if (!info || !info->has_constant) return false;
  if (value) *value = info->constant;
  return true;
}

static int format_vector(char *buf, size_t size, const char *name, const int64_t *v, int n) {
  int len = snprintf(buf, size, "%s = [", name);
  for (int d = 0; d < n; d++) {
    size_t off = (size_t)len < size ? (size_t)len : size;
    len += snprintf(buf + off, size - off, "%s%lld", d ? ", " : "", (long long)v[d]);
  }
  size_t off = (size_t)len < size ? (size_t)len : size;
  len += snprintf(buf + off, size - off, "]");
  return len;
}

int axis_info_format(const axis_info *info, char *buf, size_t size) {
  axis_info empty;
  info_init(&empty, 0);
  if (!info) info = &empty;
  int len = 0;
  size_t off;
#define APPEND(expr)                                  \
  do {                                                \
    off = (size_t)len < size ? (size_t)len : size;    \
    len += (expr);                                    \
  } while (0)
  APPEND(format_vector(buf + off, size - off, "contiguity", info->contiguity, info->rank));
  APPEND(snprintf(buf + off, size - off, ", "));
  APPEND(format_vector(buf + off, size - off, "divisibility", info->divisibility, info->rank));
  APPEND(snprintf(buf + off, size - off, ", "));
  APPEND(format_vector(buf + off, size - off, "constancy", info->constancy, info->rank));
  if (info->has_constant)
    APPEND(snprintf(buf + off, size - off, ", constant_value = %lld", (long long)info->constant));
  else
    APPEND(snprintf(buf + off, size - off, ", constant_value = <none>"));
#undef APPEND
  return len;
}

void axis_info_order_from_contiguity(const axis_info *info, int rank, int *order_out) {
  for (int i = 0; i < rank; i++) order_out[i] = rank - 1 - i;
  /* stable insertion sort by decreasing contiguity */
  for (int i = 1; i < rank; i++) {
    int cur = order_out[i];
    int64_t c = axis_info_contiguity(info, cur);
    int j = i - 1;
    while (j >= 0 && axis_info_contiguity(info, order_out[j]) < c) {
      order_out[j + 1] = order_out[j];
      j--;
    }
    order_out[j + 1] = cur;
  }
}

/* The fastest dim of a tensor value's layout (row-major without an encoding). */
static int fastest_dim(const ir_type *t) {
  if (!t || t->kind != TY_TENSOR || t->rank < 1) return 0;
  if (!t->encoding) return t->rank - 1;
  int order[IR_MAX_RANK];
  layout_order(t->encoding, t->rank, order);
  return order[0] >= 0 && order[0] < t->rank ? order[0] : t->rank - 1;
}

unsigned axis_info_ptr_alignment(const axis_info_analysis *a, const ir_value *v) {
  if (!v || !v->type || v->type->kind != TY_TENSOR) return 1;
  const axis_info *info = axis_info_of(a, v);
  if (!info) return 1;
  int d = fastest_dim(v->type);
  int64_t div = axis_info_divisibility(info, d);
  int64_t max_multiple = div;
  if (is_pointer_like(v->type)) {
    max_multiple = div / pointee_bytes(v->type);
    if (max_multiple < 1) max_multiple = 1;
  }
  int64_t alignment = min64(max_multiple, axis_info_contiguity(info, d));
  return alignment > 0xffffffffLL ? 0xffffffffu : (unsigned)alignment;
}

unsigned axis_info_ptr_contiguity(const axis_info_analysis *a, const ir_value *v) {
  if (!v || !v->type || v->type->kind != TY_TENSOR) return 1;
  unsigned align = axis_info_ptr_alignment(a, v);
  const ir_type *t = v->type;
  if (!t->encoding) return align;
  int d = fastest_dim(t);
  int per_thread = layout_contig_per_thread(t->encoding, t->rank, t->shape, d);
  if (per_thread > 0 && (unsigned)per_thread < align) return (unsigned)per_thread;
  return align;
}

unsigned axis_info_mask_alignment(const axis_info_analysis *a, const ir_value *mask) {
  if (!mask || !mask->type || mask->type->kind != TY_TENSOR) return 1;
  const axis_info *info = axis_info_of(a, mask);
  if (!info) return 1;
  int64_t c = axis_info_constancy(info, fastest_dim(mask->type));
  if (c < 1) c = 1;
  return c > 0xffffffffLL ? 0xffffffffu : (unsigned)c;
}

unsigned axis_info_access_width(const axis_info_analysis *a, const ir_value *ptr, const ir_value *mask, int elem_bits) {
  if (!ptr || !ptr->type || ptr->type->kind != TY_TENSOR) return 1;
  unsigned vec = axis_info_ptr_contiguity(a, ptr);
  if (elem_bits > 0 && 128u / (unsigned)elem_bits < vec) vec = 128u / (unsigned)elem_bits;
  if (mask) {
    unsigned m = axis_info_mask_alignment(a, mask);
    if (m < vec) vec = m;
  }
  if (vec < 1) vec = 1;
  while (vec & (vec - 1)) vec &= vec - 1;
  return vec;
}

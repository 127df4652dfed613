/* --expand-ops: TTIR ops gemmc builds from others before layouts are assigned: tt.cat as join + trans + reshape, tt.dot_scaled as upcasts, scale multiplies and a tt.dot (Triton's decomposition on GPUs without scaled MMA). */
#include <string.h>

#include "gemmc/passes.h"
#include "util.h"

/*
 * tt.cat %a, %b : tensor<NxT> -> tensor<2NxT> (tl.cat, whose element order Triton leaves open) is
 * the concatenation along dim 0: join (a last dim of 2), trans moving it to the front, reshape.
 *
 * tt.dot_scaled %a scale %as, %b scale %bs, %c lhs = fa rhs = fb (tl.dot_scaled, mxfp4 / mxfp8
 * GEMMs) on Hopper, as Triton's DecomposeScaledBlocked does it: each operand goes to f32 (fp8 by
 * tt.fp_to_fp; fp4 bytes split into their two nibbles, low first along K, each decoded from its
 * sign, two exponent and one mantissa bits), is multiplied by 2^(scale - 127) of its group of 32
 * along K (scale 255: NaN), then rounded to the compute type (f16 when either side is fp16, else
 * bf16: exact for fp8 and fp4 times a power of two in range), and one tt.dot takes them with the
 * accumulator.
 */

typedef struct expander {
  gemmc_context *ctx;
  ir_op *at; /* new ops go before it */
  bool ok;
} expander;

/* A tensor type without a layout (assign-layouts gives it one). */
static const ir_type *tensor(expander *x, int rank, const int64_t *shape, const ir_type *elem) {
  return ir_tensor_type(x->ctx, rank, shape, elem, NULL);
}

static ir_value *op1(expander *x, ir_op_kind kind, ir_value *a, const ir_type *to) {
  return build_before(x->ctx, x->at, kind, 1, &a, to);
}

static ir_value *op2(expander *x, ir_op_kind kind, ir_value *a, ir_value *b, const ir_type *to) {
  ir_value *ops[2] = {a, b};
  return build_before(x->ctx, x->at, kind, 2, ops, to ? to : a->type);
}

static ir_value *splat_int(expander *x, const ir_type *t, int64_t v) { return build_int_constant_of(x->ctx, x->at, v, t); }

static ir_value *transpose(expander *x, ir_value *v, const int64_t *order) {
  const ir_type *t = v->type;
  int64_t shape[IR_MAX_RANK];
  for (int d = 0; d < t->rank; d++) shape[d] = t->shape[order[d]];
  ir_value *r = op1(x, OP_TRANS, v, tensor(x, t->rank, shape, t->elem));
  ir_op_set_attr(x->ctx, r->def_op, "order", ir_dense_int_array_attr(x->ctx, ir_int_type(x->ctx, 32), t->rank, order));
  return r;
}

static ir_value *reshape(expander *x, ir_value *v, int rank, const int64_t *shape) {
  return op1(x, OP_RESHAPE, v, tensor(x, rank, shape, v->type->elem));
}

/* ------------------------------------------------------------------ tt.cat */

static bool expand_cat(expander *x, ir_op *cat) {
  const ir_type *t = cat->operands[0].value->type;
  if (t->rank + 1 > IR_MAX_RANK) {
    ir_op_error(x->ctx, cat, "tt.cat of rank %d: the join it becomes needs rank %d (at most %d)", t->rank, t->rank + 1,
                IR_MAX_RANK);
    return false;
  }
  int64_t joined[IR_MAX_RANK], order[IR_MAX_RANK];
  for (int d = 0; d < t->rank; d++) joined[d] = t->shape[d];
  joined[t->rank] = 2;
  order[0] = t->rank;
  for (int d = 0; d < t->rank; d++) order[d + 1] = d;
  ir_value *a = cat->operands[0].value, *b = cat->operands[1].value;
  ir_value *j = op2(x, OP_JOIN, a, b, tensor(x, t->rank + 1, joined, t->elem));
  ir_value *r = op1(x, OP_RESHAPE, transpose(x, j, order), cat->results[0].type);
  ir_value_replace_all_uses(&cat->results[0], r);
  return true;
}

/* ------------------------------------------------------------------ tt.dot_scaled */

/* fp4 (e2m1) nibbles (the low 4 bits of n, i32) as f32: sign, exponent e (2 bits), mantissa m (1
 * bit); e = 0: m * 0.5, else 2^(e - 1) * (1 + m / 2), built as f32 bits. */
static ir_value *e2m1_to_f32(expander *x, ir_value *n) {
  const ir_type *t = n->type, *f32 = ir_float_type(x->ctx, FLT_F32);
  ir_value *one = splat_int(x, t, 1), *three = splat_int(x, t, 3), *zero = splat_int(x, t, 0);
  ir_value *sign = op2(x, OP_SHLI, op2(x, OP_SHRUI, n, three, NULL), splat_int(x, t, 31), NULL);
  ir_value *e = op2(x, OP_ANDI, op2(x, OP_SHRUI, n, one, NULL), three, NULL);
  ir_value *m = op2(x, OP_ANDI, n, one, NULL);
  ir_value *biased = op2(x, OP_ADDI, e, splat_int(x, t, 126), NULL);
  ir_value *normal = op2(x, OP_ORI, op2(x, OP_SHLI, biased, splat_int(x, t, 23), NULL),
                         op2(x, OP_SHLI, m, splat_int(x, t, 22), NULL), NULL);
  ir_value *half_or_zero = op2(x, OP_MULI, m, splat_int(x, t, 126 << 23), NULL);
  ir_value *is_sub = build_cmpi(x->ctx, x->at, "eq", e, zero);
  ir_value *sel[3] = {is_sub, half_or_zero, normal};
  ir_value *mag = build_before(x->ctx, x->at, OP_SELECT, 3, sel, t);
  ir_value *bits = op2(x, OP_ORI, sign, mag, NULL);
  return op1(x, OP_BITCAST, bits, tensor(x, t->rank, t->shape, f32));
}

/* Operand `which` (0: A [M, K], 1: B [K, N]) of format fmt as f32 of its logical shape. */
static ir_value *operand_f32(expander *x, ir_op *dot, int which, const char *fmt) {
  ir_value *v = dot->operands[which].value;
  const ir_type *t = v->type, *f32 = ir_float_type(x->ctx, FLT_F32);
  if (strcmp(fmt, "e2m1") == 0) {
    const ir_type *i32 = ir_int_type(x->ctx, 32);
    ir_value *w = op1(x, OP_EXTUI, v, tensor(x, 2, t->shape, i32));
    ir_value *lo = e2m1_to_f32(x, op2(x, OP_ANDI, w, splat_int(x, w->type, 15), NULL));
    ir_value *hi = e2m1_to_f32(x, op2(x, OP_SHRUI, w, splat_int(x, w->type, 4), NULL));
    int64_t joined[3] = {t->shape[0], t->shape[1], 2};
    ir_value *j = op2(x, OP_JOIN, lo, hi, tensor(x, 3, joined, f32));
    if (which == 0) { /* [M, K/2, 2] -> [M, K] */
      int64_t shape[2] = {t->shape[0], t->shape[1] * 2};
      return reshape(x, j, 2, shape);
    }
    int64_t order[3] = {0, 2, 1}, shape[2] = {t->shape[0] * 2, t->shape[1]}; /* [K/2, N, 2] -> [K/2, 2, N] -> [K, N] */
    return reshape(x, transpose(x, j, order), 2, shape);
  }
  if (strcmp(fmt, "e4m3") == 0 || strcmp(fmt, "e5m2") == 0)
    return op1(x, OP_FP_TO_FP, v, tensor(x, 2, t->shape, f32));
  if (strcmp(fmt, "bf16") == 0 || strcmp(fmt, "fp16") == 0) return op1(x, OP_EXTF, v, tensor(x, 2, t->shape, f32));
  ir_op_error(x->ctx, dot, "tt.dot_scaled with %s operands (fp6) is not supported yet", fmt);
  x->ok = false;
  return NULL;
}

/* v (f32, A [M, K] or B [K, N]) times 2^(s - 127) of the e8m0 scale s [rows, K / 32] of its
 * element's group of 32 along K; s = 255 is NaN. */
static ir_value *apply_scale(expander *x, ir_value *v, ir_value *s, int which) {
  const ir_type *st = s->type, *i32 = ir_int_type(x->ctx, 32), *f32 = ir_float_type(x->ctx, FLT_F32);
  ir_value *w = op1(x, OP_EXTUI, s, tensor(x, 2, st->shape, i32));
  ir_value *bits = op2(x, OP_SHLI, w, splat_int(x, w->type, 23), NULL);
  /* s = 0 is 2^-127, a subnormal: its bits are 1 << 22, not 0 */
  ir_value *zero = build_cmpi(x->ctx, x->at, "eq", w, splat_int(x, w->type, 0));
  ir_value *sub[3] = {zero, splat_int(x, w->type, 1 << 22), bits};
  bits = build_before(x->ctx, x->at, OP_SELECT, 3, sub, w->type);
  ir_value *all_ones = build_cmpi(x->ctx, x->at, "eq", w, splat_int(x, w->type, 255));
  ir_value *nan[3] = {all_ones, splat_int(x, w->type, 0x7FC00000), bits};
  bits = build_before(x->ctx, x->at, OP_SELECT, 3, nan, w->type);
  ir_value *f = op1(x, OP_BITCAST, bits, tensor(x, 2, st->shape, f32));
  /* [rows, K/32] -> [rows, K/32, 1] -> [rows, K/32, 32] -> [rows, K] (-> [K, rows] for B) */
  int64_t e3[3] = {st->shape[0], st->shape[1], 1}, b3[3] = {st->shape[0], st->shape[1], 32};
  int64_t flat[2] = {st->shape[0], st->shape[1] * 32};
  ir_value *ex = op1(x, OP_EXPAND_DIMS, f, tensor(x, 3, e3, f32));
  ir_op_set_attr(x->ctx, ex->def_op, "axis", ir_i32_attr(x->ctx, 2));
  ir_value *per_elem = reshape(x, op1(x, OP_BROADCAST, ex, tensor(x, 3, b3, f32)), 2, flat);
  if (which == 1) {
    int64_t order[2] = {1, 0};
    per_elem = transpose(x, per_elem, order);
  }
  return op2(x, OP_MULF, v, per_elem, NULL);
}

static bool expand_dot_scaled(expander *x, ir_op *dot) {
  const char *fmt[2];
  for (int i = 0; i < 2; i++) fmt[i] = ir_op_get_attr(dot, i ? "b_elem_type" : "a_elem_type")->str;
  if (!strcmp(fmt[0], "e2m1") || !strcmp(fmt[1], "e2m1")) {
    for (int i = 0; i < 2; i++) {
      const ir_attr *pack = ir_op_get_attr(dot, i ? "rhs_k_pack" : "lhs_k_pack");
      if (pack && pack->kind == AT_BOOL && !pack->int_value) {
        ir_op_error(x->ctx, dot, "tt.dot_scaled with fp4 packed along M or N (k_pack = false) is not supported yet");
        return false;
      }
    }
  }
  bool f16 = !strcmp(fmt[0], "fp16") || !strcmp(fmt[1], "fp16");
  const ir_type *ct = ir_float_type(x->ctx, f16 ? FLT_F16 : FLT_BF16);
  ir_value *ops[3];
  for (int i = 0; i < 2; i++) {
    ir_value *v = operand_f32(x, dot, i, fmt[i]);
    if (!v) return false;
    int k = dot_scaled_scale_operand(dot, i);
    if (k >= 0) v = apply_scale(x, v, dot->operands[k].value, i);
    ops[i] = op1(x, OP_TRUNCF, v, tensor(x, 2, v->type->shape, ct));
  }
  ops[2] = dot->operands[2].value;
  ir_value *r = build_before(x->ctx, x->at, OP_DOT, 3, ops, dot->results[0].type);
  ir_value_replace_all_uses(&dot->results[0], r);
  return true;
}

static bool collect(ir_op *op, void *user) {
  if (op->kind == OP_CAT || op->kind == OP_DOT_SCALED) ptr_list_push(user, op);
  return true;
}

bool gemmc_pass_expand_ops(const gemmc_pass_context *pc, ir_op *module) {
  ptr_list found = {pc->ctx, NULL, 0, 0};
  ir_walk(module, collect, &found);
  expander x = {pc->ctx, NULL, true};
  for (int i = 0; i < found.count && x.ok; i++) {
    ir_op *op = found.items[i];
    x.at = op;
    x.ok = op->kind == OP_CAT ? expand_cat(&x, op) : expand_dot_scaled(&x, op);
    if (x.ok) ir_op_erase(op);
  }
  ptr_list_free(&found);
  return x.ok;
}

/* --expand-ops: TTIR ops gemmc builds from others before layouts are assigned: tt.cat as join + trans + reshape, tt.dot_scaled as upcasts, scale multiplies and a tt.dot (Triton's decomposition on GPUs without scaled MMA), f32 dots of inputPrecision tf32x3 / bf16x3 / bf16x6 as tensor-core dots of split operands (Triton's F32DotTC). */
#include <string.h>

#include "gemmc/passes.h"
#include "target/mma.h"
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
 *
 * tt.dot of f32 operands with inputPrecision = tf32x3 (a target with tf32 MMA) or bf16x3 / bf16x6
 * (a target with bf16 MMA), as Triton's F32DotTC pass writes them, products summed in its order:
 * - tf32x3: big = cvt.rna.tf32 (x), small = x - big per operand; small_a big_b + big_a small_b
 *   from zero, NaNs of that sum zeroed (an infinite operand's small part is 0 and its product
 *   NaN), then + big_a big_b, then + the accumulator.
 * - bf16xN: x split into hi = bf16 (x), mid = bf16 (x - hi), lo = bf16 (x - hi - mid); from zero
 *   (bf16x6: mid mid, lo hi, hi lo;) mid hi, hi mid, NaNs zeroed, + hi hi, + the accumulator.
 * Elsewhere these precisions stay f32 FMA dots (exact products, slower).
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

/* tt.dot a, b, c (inputPrecision `precision` when not NULL). */
static ir_value *part_dot(expander *x, ir_value *a, ir_value *b, ir_value *c, const char *precision) {
  ir_value *ops[3] = {a, b, c};
  ir_value *r = build_before(x->ctx, x->at, OP_DOT, 3, ops, c->type);
  if (precision) ir_op_set_attr(x->ctx, r->def_op, "inputPrecision", ir_keyword_attr(x->ctx, precision));
  return r;
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
  ir_value *ops[2];
  for (int i = 0; i < 2; i++) {
    ir_value *v = operand_f32(x, dot, i, fmt[i]);
    if (!v) return false;
    int k = dot_scaled_scale_operand(dot, i);
    if (k >= 0) v = apply_scale(x, v, dot->operands[k].value, i);
    ops[i] = op1(x, OP_TRUNCF, v, tensor(x, 2, v->type->shape, ct));
  }
  ir_value *r = part_dot(x, ops[0], ops[1], dot->operands[2].value, NULL);
  ir_value_replace_all_uses(&dot->results[0], r);
  return true;
}

/* ------------------------------------------------------------------ f32 dots on tensor cores */

static ir_value *splat_f32(expander *x, const ir_type *t, double v) {
  const ir_attr *a = ir_float_attr(x->ctx, v, ir_type_element(t));
  ir_op *op = ir_op_create(x->ctx, OP_CONSTANT, 0, NULL, 1, &t, 0, x->at->loc);
  ir_op_set_attr(x->ctx, op, "value", ir_dense_attr(x->ctx, t, true, 1, &a));
  ir_op_insert_before(x->at, op);
  return &op->results[0];
}

/* v with its NaN elements replaced by 0. */
static ir_value *zero_nans(expander *x, ir_value *v) {
  ir_value *ops[2] = {v, v};
  const ir_type *i1 = ir_type_with_element(x->ctx, v->type, ir_int_type(x->ctx, 1));
  ir_value *nan = build_before(x->ctx, x->at, OP_CMPF, 2, ops, i1);
  ir_op_set_attr(x->ctx, nan->def_op, "predicate", ir_keyword_attr(x->ctx, "uno"));
  ir_value *sel[3] = {nan, splat_f32(x, v->type, 0.0), v};
  return build_before(x->ctx, x->at, OP_SELECT, 3, sel, v->type);
}

/* v rounded to tf32 (to nearest, ties away from zero), kept in f32: the instruction Triton uses. */
static ir_value *tf32_round(expander *x, ir_value *v) {
  ir_value *r = op1(x, OP_ELEMENTWISE_INLINE_ASM, v, v->type);
  static const char text[] = "cvt.rna.tf32.f32 $0, $1;", cons[] = "=r,r";
  ir_op_set_attr(x->ctx, r->def_op, "asm_string", ir_string_attr(x->ctx, text, strlen(text)));
  ir_op_set_attr(x->ctx, r->def_op, "constraints", ir_string_attr(x->ctx, cons, strlen(cons)));
  ir_op_set_attr(x->ctx, r->def_op, "pure", ir_bool_attr(x->ctx, true));
  ir_op_set_attr(x->ctx, r->def_op, "packed_element", ir_i32_attr(x->ctx, 1));
  return r;
}

/* The first n bf16 parts of f32 v: hi = bf16 (v), then each next part of what is left. */
static void split_bf16(expander *x, ir_value *v, int n, ir_value *parts[3]) {
  const ir_type *bf16 = ir_type_with_element(x->ctx, v->type, ir_float_type(x->ctx, FLT_BF16));
  for (int i = 0; i < n; i++) {
    parts[i] = op1(x, OP_TRUNCF, v, bf16);
    if (i + 1 < n) v = op2(x, OP_SUBF, v, op1(x, OP_EXTF, parts[i], v->type), NULL);
  }
}

/* The precision of an f32 dot that expands on `target` (tf32x3, bf16x3, bf16x6), else NULL. */
static const char *split_precision(const gemmc_target *target, const ir_op *dot) {
  if (!target || !(target->mma_kinds & (GEMMC_MMA_SYNC | GEMMC_MMA_MFMA))) return NULL;
  for (int i = 0; i < 2; i++) {
    const ir_type *e = ir_type_element(dot->operands[i].value->type);
    if (!ir_type_is_float(e) || e->float_kind != FLT_F32) return NULL;
  }
  const char *p = target_dot_input_precision(dot);
  if (!p) return NULL;
  if (!strcmp(p, "tf32x3")) return target->arch == GEMMC_ARCH_NVPTX ? p : NULL;
  return !strcmp(p, "bf16x3") || !strcmp(p, "bf16x6") ? p : NULL;
}

static bool expand_split_dot(expander *x, ir_op *dot, const char *precision) {
  ir_value *a = dot->operands[0].value, *b = dot->operands[1].value, *c = dot->operands[2].value;
  ir_value *r = splat_f32(x, c->type, 0.0);
  if (!strcmp(precision, "tf32x3")) {
    ir_value *a_big = tf32_round(x, a), *b_big = tf32_round(x, b);
    ir_value *a_small = op2(x, OP_SUBF, a, a_big, NULL), *b_small = op2(x, OP_SUBF, b, b_big, NULL);
    r = part_dot(x, a_small, b_big, r, "tf32");
    r = part_dot(x, a_big, b_small, r, "tf32");
    r = part_dot(x, a_big, b_big, zero_nans(x, r), "tf32");
  } else {
    enum { HI, MID, LO };
    int n = !strcmp(precision, "bf16x6") ? 3 : 2;
    ir_value *ap[3], *bp[3];
    split_bf16(x, a, n, ap);
    split_bf16(x, b, n, bp);
    if (n == 3) {
      r = part_dot(x, ap[MID], bp[MID], r, NULL);
      r = part_dot(x, ap[LO], bp[HI], r, NULL);
      r = part_dot(x, ap[HI], bp[LO], r, NULL);
    }
    r = part_dot(x, ap[MID], bp[HI], r, NULL);
    r = part_dot(x, ap[HI], bp[MID], r, NULL);
    r = part_dot(x, ap[HI], bp[HI], zero_nans(x, r), NULL);
  }
  r = op2(x, OP_ADDF, r, c, NULL);
  ir_value_replace_all_uses(&dot->results[0], r);
  return true;
}

typedef struct expansions {
  const gemmc_target *target;
  ptr_list ops;
} expansions;

static bool collect(ir_op *op, void *user) {
  expansions *e = user;
  if (op->kind == OP_CAT || op->kind == OP_DOT_SCALED || (op->kind == OP_DOT && split_precision(e->target, op)))
    ptr_list_push(&e->ops, op);
  return true;
}

bool gemmc_pass_expand_ops(const gemmc_pass_context *pc, ir_op *module) {
  expansions found = {pc->target, {pc->ctx, NULL, 0, 0}};
  ir_walk(module, collect, &found);
  expander x = {pc->ctx, NULL, true};
  for (int i = 0; i < found.ops.count && x.ok; i++) {
    ir_op *op = found.ops.items[i];
    x.at = op;
    x.ok = op->kind == OP_CAT           ? expand_cat(&x, op)
           : op->kind == OP_DOT_SCALED ? expand_dot_scaled(&x, op)
                                       : expand_split_dot(&x, op, split_precision(pc->target, op));
    if (x.ok) ir_op_erase(op);
  }
  ptr_list_free(&found.ops);
  return x.ok;
}

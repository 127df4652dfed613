/* f32 sine and cosine to about 1 ulp over the whole range, as libdevice's sinf / cosf (Triton's math.sin / math.cos):
 * Cody-Waite reduction by pi/2, Payne-Hanek above 105615, minimax polynomials on [-pi/4, pi/4]. */
#include "lower_ops.h"

#include <math.h>

/* The hardware's sin.approx loses absolute accuracy with |x| (1e-3 at 1e4, 0.1 at 1e6): angles
 * such as rotary embeddings' positions times frequencies reach those sizes, and Triton's results
 * there are exact to an ulp. */

/* 2/pi >> 2 in 32-bit words (word k holds bits 32k .. 32k + 31 after the binary point). */
static const unsigned two_over_pi_words[7] = {0x28be60db, 0x9391054a, 0x7f09d5f4, 0x7d4d3770,
                                              0x36d8a566, 0x4f10e410, 0x7f9458ea};

/* Above this the three-part pi/2 of the fast reduction is not precise enough. */
#define TRIG_FAST_LIMIT 105615.0

typedef struct trig_emit {
  lower_state *s;
  LLVMTypeRef i32, i64, f64;
} trig_emit;

static LLVMValueRef i32c(trig_emit *t, unsigned long long v) { return LLVMConstInt(t->i32, v, 0); }
static LLVMValueRef i64c(trig_emit *t, unsigned long long v) { return LLVMConstInt(t->i64, v, 0); }

/* Fast reduction: x = j * pi/2 + r with j the nearest integer (as f32) to x * 2/pi. */
static void reduce_fast(trig_emit *t, LLVMValueRef x, LLVMValueRef *r, LLVMValueRef *q) {
  LLVMValueRef magic = lower_f32(t->s, 12582912.0); /* 1.5 * 2^23: adding it rounds to an integer */
  LLVMValueRef j = LLVMBuildFSub(t->s->b, lower_fma_f32(t->s, x, lower_f32(t->s, 6.36619747e-1), magic), magic, "");
  LLVMValueRef v = lower_fma_f32(t->s, j, lower_f32(t->s, -1.57079601e+00), x);
  v = lower_fma_f32(t->s, j, lower_f32(t->s, -3.13916473e-07), v);
  *r = lower_fma_f32(t->s, j, lower_f32(t->s, -5.39030253e-15), v);
  *q = LLVMBuildFPToSI(t->s->b, j, t->i32, "");
}

/* Word k + i of the table for i in 0..4 (k + i outside it reads 0). */
static LLVMValueRef table_word(trig_emit *t, LLVMValueRef i, int k) {
  LLVMValueRef w = i32c(t, 0);
  for (int v = 0; v <= 4; v++) {
    int at = v + k;
    if (at < 0 || at >= 7) continue;
    LLVMValueRef hit = LLVMBuildICmp(t->s->b, LLVMIntEQ, i, i32c(t, (unsigned)v), "");
    w = LLVMBuildSelect(t->s->b, hit, i32c(t, two_over_pi_words[at]), w, "");
  }
  return w;
}

static LLVMValueRef funnel_left(trig_emit *t, LLVMValueRef hi, LLVMValueRef lo, LLVMValueRef shift) {
  LLVMValueRef args[3] = {hi, lo, shift};
  return lower_call(t->s, "llvm.fshl.i32", t->i32, args, 3);
}

/* Payne-Hanek: x * 2/pi in 2.62 fixed point from the bits of 2/pi that x's exponent selects
 * (lower_sin_cos_f32's loop emits it once). */
static void reduce_slow(trig_emit *t, LLVMValueRef x, LLVMValueRef *r, LLVMValueRef *q) {
  LLVMBuilderRef b = t->s->b;
  LLVMValueRef bits = LLVMBuildBitCast(b, x, t->i32, "");
  LLVMValueRef mant = LLVMBuildOr(b, LLVMBuildShl(b, LLVMBuildAnd(b, bits, i32c(t, 0x007fffff), ""), i32c(t, 8), ""),
                                  i32c(t, 0x80000000), "");
  LLVMValueRef e =
      LLVMBuildSub(b, LLVMBuildAnd(b, LLVMBuildLShr(b, bits, i32c(t, 23), ""), i32c(t, 0xff), ""), i32c(t, 126), "");
  LLVMValueRef i = LLVMBuildLShr(b, e, i32c(t, 5), ""), sh = LLVMBuildAnd(b, e, i32c(t, 31), "");
  LLVMValueRef hi = table_word(t, i, -1), mid = table_word(t, i, 0), lo = table_word(t, i, 1),
               next = table_word(t, i, 2);
  hi = funnel_left(t, hi, mid, sh);
  mid = funnel_left(t, mid, lo, sh);
  lo = funnel_left(t, lo, next, sh);
  LLVMValueRef m64 = LLVMBuildZExt(b, mant, t->i64, "");
  LLVMValueRef p = LLVMBuildMul(b, m64, LLVMBuildZExt(b, lo, t->i64, ""), "");
  p = LLVMBuildAdd(b, LLVMBuildMul(b, m64, LLVMBuildZExt(b, mid, t->i64, ""), ""), LLVMBuildLShr(b, p, i64c(t, 32), ""),
                   "");
  LLVMValueRef top = LLVMBuildZExt(b, LLVMBuildMul(b, mant, hi, ""), t->i64, "");
  p = LLVMBuildAdd(b, LLVMBuildShl(b, top, i64c(t, 32), ""), p, "");
  /* The quadrant is the integer part, rounded to nearest by the fraction's top bit. */
  LLVMValueRef quad = LLVMBuildTrunc(b, LLVMBuildLShr(b, p, i64c(t, 62), ""), t->i32, "");
  LLVMValueRef frac = LLVMBuildAnd(b, p, i64c(t, 0x3fffffffffffffffULL), "");
  LLVMValueRef up =
      LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, frac, i64c(t, 0x2000000000000000ULL), ""), i64c(t, 0), "");
  frac = LLVMBuildSelect(b, up, LLVMBuildSub(b, frac, i64c(t, 0x4000000000000000ULL), ""), frac, "");
  quad = LLVMBuildAdd(b, quad, LLVMBuildZExt(b, up, t->i32, ""), "");
  LLVMValueRef d = LLVMBuildFMul(b, LLVMBuildSIToFP(b, frac, t->f64, ""),
                                 LLVMConstReal(t->f64, 3.4061215800865545e-19 /* pi/2 * 2^-62 */), "");
  LLVMValueRef rr = LLVMBuildFPTrunc(b, d, t->s->f32, "");
  LLVMValueRef neg = LLVMBuildFCmp(b, LLVMRealOLT, x, lower_f32(t->s, 0.0), "");
  *r = LLVMBuildSelect(b, neg, LLVMBuildFNeg(b, rr, ""), rr, "");
  *q = LLVMBuildSelect(b, neg, LLVMBuildNeg(b, quad, ""), quad, "");
}

/* sin (q even) or cos (q odd) of r in [-pi/4, pi/4], negated when bit 1 of q is set. */
static LLVMValueRef trig_kernel(trig_emit *t, LLVMValueRef r, LLVMValueRef q) {
  LLVMBuilderRef b = t->s->b;
  LLVMValueRef s2 = LLVMBuildFMul(b, r, r, "");
  LLVMValueRef c = lower_fma_f32(t->s, lower_f32(t->s, 2.44331571e-5), s2, lower_f32(t->s, -1.38873163e-3));
  c = lower_fma_f32(t->s, c, s2, lower_f32(t->s, 4.16666457e-2));
  c = lower_fma_f32(t->s, c, s2, lower_f32(t->s, -5.0e-1));
  c = lower_fma_f32(t->s, c, s2, lower_f32(t->s, 1.0));
  LLVMValueRef sn = lower_fma_f32(t->s, lower_f32(t->s, -1.95152959e-4), s2, lower_f32(t->s, 8.33216087e-3));
  sn = lower_fma_f32(t->s, sn, s2, lower_f32(t->s, -1.66666546e-1));
  sn = lower_fma_f32(t->s, LLVMBuildFMul(b, sn, s2, ""), r, r);
  LLVMValueRef odd = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, q, i32c(t, 1), ""), i32c(t, 0), "");
  LLVMValueRef v = LLVMBuildSelect(b, odd, c, sn, "");
  LLVMValueRef flip = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, q, i32c(t, 2), ""), i32c(t, 0), "");
  return LLVMBuildSelect(b, flip, LLVMBuildFNeg(b, v, ""), v, "");
}

/* Finite |x| above the fast reduction's limit; infinities and NaN take the fast path (NaN). */
static LLVMValueRef needs_slow(trig_emit *t, LLVMValueRef x) {
  LLVMValueRef ax = lower_call(t->s, "llvm.fabs.f32", t->s->f32, &x, 1);
  return LLVMBuildAnd(t->s->b, LLVMBuildFCmp(t->s->b, LLVMRealOGT, ax, lower_f32(t->s, TRIG_FAST_LIMIT), ""),
                      LLVMBuildFCmp(t->s->b, LLVMRealONE, ax, lower_f32(t->s, INFINITY), ""), "");
}

bool lower_sin_cos_f32(lower_state *s, LLVMValueRef *x, int n, bool cos, LLVMValueRef *out) {
  LLVMBuilderRef b = s->b;
  trig_emit t = {s, LLVMInt32TypeInContext(s->llctx), LLVMInt64TypeInContext(s->llctx),
                 LLVMDoubleTypeInContext(s->llctx)};
  LLVMValueRef *r = lower_alloc(s, sizeof *r * (size_t)n * 6);
  if (!r) return false;
  LLVMValueRef *q = r + n, *rp = r + 2 * n, *qp = r + 3 * n, *rn = r + 4 * n, *qn = r + 5 * n;
  LLVMValueRef any = NULL;
  for (int i = 0; i < n; i++) {
    reduce_fast(&t, x[i], &r[i], &q[i]);
    LLVMValueRef slow = needs_slow(&t, x[i]);
    any = any ? LLVMBuildOr(b, any, slow, "") : slow;
  }
  /* The slow reduction, when some register of the thread needs it: one loop over the registers,
   * the Payne-Hanek code once in its body. Emitted per register (in one block, in blocks of their
   * own, or as calls) it made a sin-heavy kernel's code generation 4 to 30 times slower. */
  LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "trig.slow");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "trig.join");
  LLVMBuildCondBr(b, any, loop, join);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef k = LLVMBuildPhi(b, t.i32, "");
  for (int i = 0; i < n; i++) {
    rp[i] = LLVMBuildPhi(b, s->f32, "");
    qp[i] = LLVMBuildPhi(b, t.i32, "");
  }
  LLVMValueRef *hit = lower_alloc(s, sizeof *hit * (size_t)n);
  if (!hit) return false;
  LLVMValueRef xk = x[0];
  for (int i = 0; i < n; i++) {
    hit[i] = LLVMBuildICmp(b, LLVMIntEQ, k, i32c(&t, (unsigned)i), "");
    if (i) xk = LLVMBuildSelect(b, hit[i], x[i], xk, "");
  }
  LLVMValueRef rk, qk;
  reduce_slow(&t, xk, &rk, &qk);
  LLVMValueRef take = needs_slow(&t, xk);
  for (int i = 0; i < n; i++) {
    LLVMValueRef here = LLVMBuildAnd(b, hit[i], take, "");
    rn[i] = LLVMBuildSelect(b, here, rk, rp[i], "");
    qn[i] = LLVMBuildSelect(b, here, qk, qp[i], "");
  }
  LLVMValueRef k1 = LLVMBuildAdd(b, k, i32c(&t, 1), "");
  LLVMBasicBlockRef loop_end = LLVMGetInsertBlock(b);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, k1, i32c(&t, (unsigned)n), ""), loop, join);
  LLVMBasicBlockRef in[2] = {from, loop_end};
  LLVMValueRef kv[2] = {i32c(&t, 0), k1};
  LLVMAddIncoming(k, kv, in, 2);
  for (int i = 0; i < n; i++) {
    LLVMValueRef rv[2] = {r[i], rn[i]}, qv[2] = {q[i], qn[i]};
    LLVMAddIncoming(rp[i], rv, in, 2);
    LLVMAddIncoming(qp[i], qv, in, 2);
  }
  LLVMPositionBuilderAtEnd(b, join);
  for (int i = 0; i < n; i++) { /* the phis first: rp / qp now hold the joined values */
    LLVMValueRef rv[2] = {r[i], rn[i]}, qv[2] = {q[i], qn[i]};
    rp[i] = LLVMBuildPhi(b, s->f32, "");
    qp[i] = LLVMBuildPhi(b, t.i32, "");
    LLVMAddIncoming(rp[i], rv, in, 2);
    LLVMAddIncoming(qp[i], qv, in, 2);
  }
  for (int i = 0; i < n; i++) out[i] = trig_kernel(&t, rp[i], cos ? LLVMBuildAdd(b, qp[i], i32c(&t, 1), "") : qp[i]);
  return true;
}

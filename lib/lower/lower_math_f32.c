/* f32 log, log2, tanh, erf and pow to about an ulp (pow a few), as the libdevice functions Triton links
 * (math.log, math.log2, libdevice tanh, math.erf, libdevice pow): lg2.approx / tanh.approx were 100-1000 ulp off. */
#include "lower_ops.h"

#include <math.h>

/* Polynomials fitted here (Lawson-weighted least squares on the relative error, coefficients
 * rounded to f32; max errors measured in an f32 model against the exact functions): */
/* log1p(t) = t - t^2/2 + t^3 Q(t) on t in [-0.25, 0.5): log within 0.9 ulp, log2 within 1.6. */
static const double log1p_q[8] = {0.3333345055580139,  -0.25000104308128357, 0.19990810751914978,
                                  -0.1664695292711258, 0.14478333294391632,  -0.13164465129375458,
                                  0.10470359027385712, -0.045123446732759476};
/* tanh(x) = x + x^3 P(x^2) for |x| < 0.6; 1 - 2 / (e^{2|x|} + 1) above (the target's exp2 and
 * reciprocal): within 1.8 ulp. */
static const double tanh_p[4] = {-0.33332598209381104, 0.13313108682632446, -0.05221143737435341, 0.015612121671438217};

/* erf(x) = x + x Pa(x^2) for |x| < 1; 1 - 2^Pb(u), u = (|x| - 1) / 2.92, below 3.92; 1 above:
 * within 1 ulp (plus exp2's error near 1). */
static const double erf_pa[7] = {0.12837916612625122,   -0.3761262595653534,    0.1128358542919159,
                                 -0.026853810995817184, 0.0051883249543607235,  -0.0008010168094187975,
                                 7.85377633292228e-05};
static const double erf_pb[10] = {-2.668416738510132,  -11.11709976196289,   -10.371003150939941,
                                  -1.4936394691467285, 1.0585699081420898,   -0.633891761302948,
                                  0.2945815622806549,  -0.09420707821846008, 0.016791511327028275,
                                  -0.0009428186458535492};

/* log2(e) and ln(2) as f32 pairs hi + lo, for products exact to about 2^-48. */
static const double log2e_hi = 1.4426950216293335, log2e_lo = 1.925963033500011e-08;
static const double ln2_hi = 0.6931471824645996, ln2_lo = -1.9046542121259336e-09;

static LLVMValueRef horner(lower_state *s, const double *c, int n, LLVMValueRef x) {
  LLVMValueRef p = lower_f32(s, c[n - 1]);
  for (int i = n - 2; i >= 0; i--) p = lower_fma_f32(s, p, x, lower_f32(s, c[i]));
  return p;
}

/* x = 2^e (1 + t) with 1 + t in [0.75, 1.5) (subnormals scaled first): *ef = e as f32, and
 * log1p(t) = t - t^2/2 + t^3 Q(t). Meaningful for finite x > 0 only. */
static LLVMValueRef log_parts(lower_state *s, LLVMValueRef x, LLVMValueRef *ef) {
  LLVMBuilderRef b = s->b;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(s->llctx);
  LLVMValueRef tiny = LLVMBuildFCmp(b, LLVMRealOLT, x, lower_f32(s, 0x1p-126), "");
  LLVMValueRef xs = LLVMBuildSelect(b, tiny, LLVMBuildFMul(b, x, lower_f32(s, 0x1p23), ""), x, "");
  LLVMValueRef bits = LLVMBuildBitCast(b, xs, i32, "");
  LLVMValueRef e = LLVMBuildSub(b, LLVMBuildLShr(b, bits, LLVMConstInt(i32, 23, 0), ""), LLVMConstInt(i32, 127, 0), "");
  e = LLVMBuildSelect(b, tiny, LLVMBuildSub(b, e, LLVMConstInt(i32, 23, 0), ""), e, "");
  /* t = m - 1 is exact. */
  LLVMValueRef mbits = LLVMBuildOr(b, LLVMBuildAnd(b, bits, LLVMConstInt(i32, 0x7fffff, 0), ""),
                                   LLVMConstInt(i32, 0x3f800000, 0), "");
  LLVMValueRef m = LLVMBuildBitCast(b, mbits, s->f32, "");
  LLVMValueRef big = LLVMBuildFCmp(b, LLVMRealOGE, m, lower_f32(s, 1.5), "");
  m = LLVMBuildSelect(b, big, LLVMBuildFMul(b, m, lower_f32(s, 0.5), ""), m, "");
  *ef = LLVMBuildSIToFP(b, LLVMBuildAdd(b, e, LLVMBuildZExt(b, big, i32, ""), ""), s->f32, "");
  LLVMValueRef t = LLVMBuildFSub(b, m, lower_f32(s, 1.0), "");
  LLVMValueRef q = horner(s, log1p_q, 8, t);
  return lower_fma_f32(s, lower_fma_f32(s, q, t, lower_f32(s, -0.5)), LLVMBuildFMul(b, t, t, ""), t);
}

/* log(+inf) = +inf, log(0) = -inf, log(x < 0) = NaN, NaN stays NaN. */
static LLVMValueRef log_special_cases(lower_state *s, LLVMValueRef x, LLVMValueRef r) {
  LLVMBuilderRef b = s->b;
  r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, x, lower_f32(s, INFINITY), ""), x, r, "");
  r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, x, lower_f32(s, 0.0), ""), lower_f32(s, -INFINITY), r, "");
  return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealULT, x, lower_f32(s, 0.0), ""), lower_f32(s, NAN), r, "");
}

LLVMValueRef lower_log_f32(lower_state *s, LLVMValueRef x, bool base2) {
  LLVMValueRef ef, l = log_parts(s, x, &ef);
  LLVMValueRef r = base2 ? lower_fma_f32(s, l, lower_f32(s, log2e_hi), lower_fma_f32(s, l, lower_f32(s, log2e_lo), ef))
                         : lower_fma_f32(s, ef, lower_f32(s, ln2_hi), lower_fma_f32(s, ef, lower_f32(s, ln2_lo), l));
  return log_special_cases(s, x, r);
}

/* An odd function from its two branches: `small` where |x| < limit, else `large` (computed for |x|)
 * with x's sign. */
static LLVMValueRef odd_branches(lower_state *s, LLVMValueRef x, LLVMValueRef ax, double limit, LLVMValueRef small,
                                 LLVMValueRef large) {
  LLVMValueRef args[2] = {large, x};
  large = lower_call(s, "llvm.copysign.f32", s->f32, args, 2);
  return LLVMBuildSelect(s->b, LLVMBuildFCmp(s->b, LLVMRealOLT, ax, lower_f32(s, limit), ""), small, large, "");
}

LLVMValueRef lower_tanh_f32(lower_state *s, LLVMValueRef x) {
  LLVMBuilderRef b = s->b;
  LLVMValueRef ax = lower_call(s, "llvm.fabs.f32", s->f32, &x, 1);
  LLVMValueRef x2 = LLVMBuildFMul(b, x, x, "");
  LLVMValueRef small = lower_fma_f32(s, LLVMBuildFMul(b, horner(s, tanh_p, 4, x2), x2, ""), x, x);
  /* 1 - 2 / (e^{2|x|} + 1), with the sign put back; 1 from |x| >= 9.01 on (and for infinities). */
  LLVMValueRef y = LLVMBuildFMul(b, ax, lower_f32(s, 2.885390043258667 /* 2 log2(e) */), "");
  LLVMValueRef e = s->cg->special_f32(&s->em, TARGET_SPECIAL_EXP2, y);
  LLVMValueRef d = LLVMBuildFAdd(b, e, lower_f32(s, 1.0), "");
  LLVMValueRef large =
      lower_fma_f32(s, s->cg->special_f32(&s->em, TARGET_SPECIAL_RCP, d), lower_f32(s, -2.0), lower_f32(s, 1.0));
  large = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGE, ax, lower_f32(s, 9.01), ""), lower_f32(s, 1.0), large, "");
  return odd_branches(s, x, ax, 0.6, small, large);
}

LLVMValueRef lower_erf_f32(lower_state *s, LLVMValueRef x) {
  LLVMBuilderRef b = s->b;
  LLVMValueRef ax = lower_call(s, "llvm.fabs.f32", s->f32, &x, 1);
  LLVMValueRef small = lower_fma_f32(s, x, horner(s, erf_pa, 7, LLVMBuildFMul(b, x, x, "")), x);
  LLVMValueRef u = LLVMBuildFMul(b, LLVMBuildFSub(b, ax, lower_f32(s, 1.0), ""), lower_f32(s, 0.34246575832366943), "");
  LLVMValueRef tail = s->cg->special_f32(&s->em, TARGET_SPECIAL_EXP2, horner(s, erf_pb, 10, u)); /* erfc(|x|) */
  LLVMValueRef large = LLVMBuildFSub(b, lower_f32(s, 1.0), tail, "");
  large = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGE, ax, lower_f32(s, 3.92), ""), lower_f32(s, 1.0), large, "");
  return odd_branches(s, x, ax, 1.0, small, large);
}

/* powf(x, y) = 2^(y log2|x|) with log2|x| and the product carried as f32 pairs (hi + lo), so that
 * only exp2's own error is left: negative x only with an integer y (odd: negative), NaN otherwise;
 * y = 0 gives 1 for every x, as C's pow does. */
LLVMValueRef lower_pow_f32(lower_state *s, LLVMValueRef x, LLVMValueRef y) {
  LLVMBuilderRef b = s->b;
  LLVMValueRef zero = lower_f32(s, 0.0), one = lower_f32(s, 1.0);
  LLVMValueRef ax = lower_call(s, "llvm.fabs.f32", s->f32, &x, 1);
  LLVMValueRef ef, l = log_parts(s, ax, &ef);
  /* log1p(t) log2(e) as l2 + l2_lo (the product's rounding error by fma), then plus e. */
  LLVMValueRef l2 = LLVMBuildFMul(b, l, lower_f32(s, log2e_hi), "");
  LLVMValueRef l2_lo = lower_fma_f32(s, l, lower_f32(s, log2e_lo),
                                     lower_fma_f32(s, l, lower_f32(s, log2e_hi), LLVMBuildFNeg(b, l2, "")));
  LLVMValueRef hi = LLVMBuildFAdd(b, ef, l2, "");
  LLVMValueRef lo = LLVMBuildFAdd(b, LLVMBuildFAdd(b, LLVMBuildFSub(b, ef, hi, ""), l2, ""), l2_lo, "");
  hi = log_special_cases(s, ax, hi);
  LLVMValueRef p = LLVMBuildFMul(b, y, hi, "");
  LLVMValueRef p_lo = lower_fma_f32(s, y, lo, lower_fma_f32(s, y, hi, LLVMBuildFNeg(b, p, "")));
  LLVMValueRef finite =
      LLVMBuildFCmp(b, LLVMRealOLT, lower_call(s, "llvm.fabs.f32", s->f32, &p, 1), lower_f32(s, INFINITY), "");
  p_lo = LLVMBuildSelect(b, finite, p_lo, zero, "");
  /* 2^(p + p_lo) = 2^p (1 + p_lo ln2) */
  LLVMValueRef r0 = s->cg->special_f32(&s->em, TARGET_SPECIAL_EXP2, p);
  LLVMValueRef r = lower_fma_f32(s, r0, LLVMBuildFMul(b, p_lo, lower_f32(s, ln2_hi), ""), r0);
  r = LLVMBuildSelect(b, finite, r, r0, "");
  LLVMValueRef fy = lower_call(s, "llvm.floor.f32", s->f32, &y, 1);
  LLVMValueRef y_int = LLVMBuildFCmp(b, LLVMRealOEQ, fy, y, "");
  LLVMValueRef half = LLVMBuildFMul(b, y, lower_f32(s, 0.5), "");
  LLVMValueRef fh = lower_call(s, "llvm.floor.f32", s->f32, &half, 1);
  LLVMValueRef y_odd = LLVMBuildAnd(b, y_int, LLVMBuildFCmp(b, LLVMRealUNE, fh, half, ""), "");
  LLVMValueRef neg = LLVMBuildSelect(b, y_odd, LLVMBuildFNeg(b, r, ""), r, "");
  neg = LLVMBuildSelect(b, y_int, neg, lower_f32(s, NAN), "");
  r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, x, zero, ""), neg, r, "");
  return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, y, zero, ""), one, r, "");
}

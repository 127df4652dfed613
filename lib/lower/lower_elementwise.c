/* Elementwise lowering: arith and math ops, casts, tt.fp_to_fp, constants and program ids, one LLVM value per element. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lower_index.h"
#include "lower_ops.h"

static bool is_fp8(const ir_type *t) {
  const ir_type *e = ir_type_element(t);
  return e->kind == TY_FLOAT && e->float_kind >= FLT_F8E4M3FN;
}

/* ".f32"-style suffix of an LLVM intrinsic overload. */
static const char *type_suffix(lower_state *s, LLVMTypeRef t) {
  if (t == s->f32) return "f32";
  switch (LLVMGetTypeKind(t)) {
  case LLVMHalfTypeKind: return "f16";
  case LLVMBFloatTypeKind: return "bf16";
  case LLVMDoubleTypeKind: return "f64";
  case LLVMIntegerTypeKind:
    switch (LLVMGetIntTypeWidth(t)) {
    case 1: return "i1";
    case 8: return "i8";
    case 16: return "i16";
    case 32: return "i32";
    default: return "i64";
    }
  default: return "f32";
  }
}

static LLVMValueRef call_overloaded(lower_state *s, const char *base, LLVMValueRef *args, int n) {
  char name[64];
  LLVMTypeRef t = LLVMTypeOf(args[0]);
  snprintf(name, sizeof name, "llvm.%s.%s", base, type_suffix(s, t));
  return lower_call(s, name, t, args, n);
}

static bool is_half_like(LLVMTypeRef t) {
  LLVMTypeKind k = LLVMGetTypeKind(t);
  return k == LLVMHalfTypeKind || k == LLVMBFloatTypeKind;
}

/* One of the target's approximate f32 special functions. */
static LLVMValueRef special(lower_state *s, target_special_fn fn, LLVMValueRef x) {
  return s->cg->special_f32(&s->em, fn, x);
}

/* f32 transcendentals: exp, exp2 and rsqrt from the target's approximate special functions as
 * Triton computes them; log, log2, tanh, erf, sin and cos to about an ulp, as the libdevice
 * functions Triton links (lower_math_f32.c, lower_trig.c). */
static LLVMValueRef math_f32(lower_state *s, ir_op_kind kind, LLVMValueRef x) {
  LLVMBuilderRef b = s->b;
  switch (kind) {
  case OP_EXP: {
    LLVMValueRef y = LLVMBuildFMul(b, x, LLVMConstReal(s->f32, 1.4426950408889634), "");
    return special(s, TARGET_SPECIAL_EXP2, y);
  }
  case OP_EXP2: return special(s, TARGET_SPECIAL_EXP2, x);
  case OP_LOG: return lower_log_f32(s, x, false);
  case OP_LOG2: return lower_log_f32(s, x, true);
  case OP_RSQRT: return special(s, TARGET_SPECIAL_RSQRT, x);
  case OP_TANH: return lower_tanh_f32(s, x);
  case OP_ERF: return lower_erf_f32(s, x);
  default: return NULL;
  }
}

static LLVMIntPredicate int_pred(const char *p, bool *ok) {
  static const struct { const char *name; LLVMIntPredicate pred; } table[] = {
      {"eq", LLVMIntEQ},   {"ne", LLVMIntNE},   {"slt", LLVMIntSLT}, {"sle", LLVMIntSLE}, {"sgt", LLVMIntSGT},
      {"sge", LLVMIntSGE}, {"ult", LLVMIntULT}, {"ule", LLVMIntULE}, {"ugt", LLVMIntUGT}, {"uge", LLVMIntUGE}};
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (p && strcmp(p, table[i].name) == 0) return table[i].pred;
  *ok = false;
  return LLVMIntEQ;
}

static LLVMRealPredicate real_pred(const char *p, bool *ok) {
  static const struct { const char *name; LLVMRealPredicate pred; } table[] = {
      {"false", LLVMRealPredicateFalse}, {"oeq", LLVMRealOEQ}, {"ogt", LLVMRealOGT}, {"oge", LLVMRealOGE},
      {"olt", LLVMRealOLT}, {"ole", LLVMRealOLE}, {"one", LLVMRealONE}, {"ord", LLVMRealORD},
      {"ueq", LLVMRealUEQ}, {"ugt", LLVMRealUGT}, {"uge", LLVMRealUGE}, {"ult", LLVMRealULT},
      {"ule", LLVMRealULE}, {"une", LLVMRealUNE}, {"uno", LLVMRealUNO}, {"true", LLVMRealPredicateTrue}};
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (p && strcmp(p, table[i].name) == 0) return table[i].pred;
  *ok = false;
  return LLVMRealOEQ;
}

/* fp8 <-> f16 / bf16 / f32 / f64: the target converts between fp8 and f16 or f32 (nearest even),
 * bf16 and f64 go through f32. */
static LLVMValueRef fp8_convert(lower_state *s, const ir_op *op, LLVMValueRef x, LLVMTypeRef to) {
  const ir_type *from_e = ir_type_element(op->operands[0].value->type), *to_e = ir_type_element(op->results[0].type);
  if (is_fp8(op->operands[0].value->type) && is_fp8(op->results[0].type)) {
    if (from_e == to_e) return x;
    x = s->cg->fp8_to_float(&s->em, x, from_e->float_kind == FLT_F8E4M3FN, s->f32);
    return s->cg->float_to_fp8(&s->em, x, to_e->float_kind == FLT_F8E4M3FN);
  }
  if (is_fp8(op->operands[0].value->type)) {
    LLVMTypeRef half = LLVMHalfTypeInContext(s->llctx);
    LLVMTypeRef via = to == half ? half : s->f32;
    LLVMValueRef v = s->cg->fp8_to_float(&s->em, x, from_e->float_kind == FLT_F8E4M3FN, via);
    if (via == to) return v;
    return LLVMGetTypeKind(to) == LLVMDoubleTypeKind ? LLVMBuildFPExt(s->b, v, to, "") : LLVMBuildFPTrunc(s->b, v, to, "");
  }
  LLVMTypeRef t = LLVMTypeOf(x);
  if (LLVMGetTypeKind(t) == LLVMBFloatTypeKind || LLVMGetTypeKind(t) == LLVMDoubleTypeKind)
    x = LLVMGetTypeKind(t) == LLVMDoubleTypeKind ? LLVMBuildFPTrunc(s->b, x, s->f32, "") : LLVMBuildFPExt(s->b, x, s->f32, "");
  return s->cg->float_to_fp8(&s->em, x, to_e->float_kind == FLT_F8E4M3FN);
}

/* tt.fp_to_fp with rounding = rtz (nearest even otherwise). */
static bool rounds_toward_zero(const ir_op *op) {
  const ir_attr *r = ir_op_get_attr(op, "rounding");
  return r && r->str && strcmp(r->str, "rtz") == 0;
}

/* tt.fp_to_fp between f16, bf16, f32 and f64; rtz downcasts through the target's rounding toward zero. */
static LLVMValueRef fp_to_fp(lower_state *s, const ir_op *op, LLVMValueRef x, LLVMTypeRef to) {
  if (is_fp8(op->operands[0].value->type) || is_fp8(op->results[0].type)) return fp8_convert(s, op, x, to);
  LLVMTypeRef from = LLVMTypeOf(x);
  unsigned fb = LLVMGetTypeKind(from) == LLVMDoubleTypeKind ? 64 : LLVMGetTypeKind(from) == LLVMFloatTypeKind ? 32 : 16;
  unsigned tb = LLVMGetTypeKind(to) == LLVMDoubleTypeKind ? 64 : LLVMGetTypeKind(to) == LLVMFloatTypeKind ? 32 : 16;
  if (from == to) return x;
  if (tb > fb) return LLVMBuildFPExt(s->b, x, to, "");
  bool rtz = rounds_toward_zero(op);
  if (fb == 16 && tb == 16) { /* f16 <-> bf16 through f32 */
    x = LLVMBuildFPExt(s->b, x, s->f32, "");
    fb = 32;
  }
  if (!rtz) return LLVMBuildFPTrunc(s->b, x, to, "");
  if (fb == 64) x = LLVMBuildFPTrunc(s->b, x, s->f32, ""); /* double rounding is acceptable here */
  if (tb == 32) return x;
  return s->cg->truncate_rtz(&s->em, x, to);
}

/* f32 -> f16 / bf16 to nearest even (arith.truncf, tt.fp_to_fp without rtz) of an even number of
 * registers, on a target that rounds two in one instruction. */
static bool rounds_pairs_at_once(lower_state *s, const ir_op *op, LLVMTypeRef rt, int n) {
  if (n < 2 || n % 2 || !s->cg->truncate_pair || !(s->target->caps & GEMMC_CAP_CVT_F16X2)) return false;
  if (op->kind != OP_TRUNCF && op->kind != OP_FP_TO_FP) return false;
  if (lower_elem_type(s, op->operands[0].value->type) != s->f32) return false;
  if (LLVMGetTypeKind(rt) != LLVMHalfTypeKind && LLVMGetTypeKind(rt) != LLVMBFloatTypeKind) return false;
  return !rounds_toward_zero(op);
}

/* f32 / f16 / bf16 -> fp8 (tt.fp_to_fp) of an even number of registers, on a target that converts
 * two f32 in one instruction (Triton converts its registers in pairs too). */
static bool converts_fp8_pairs(lower_state *s, const ir_op *op, int n) {
  if (n < 2 || n % 2 || !s->cg->float_pair_to_fp8 || op->kind != OP_FP_TO_FP) return false;
  if (!is_fp8(op->results[0].type) || is_fp8(op->operands[0].value->type)) return false;
  return ir_type_bits(ir_type_element(op->operands[0].value->type)) <= 32;
}

/* Registers i and i + 1 of out from the two elements of a 2-vector computed for both. */
static void set_pair(lower_state *s, lower_values *out, int i, LLVMValueRef pair) {
  out->v[i] = LLVMBuildExtractElement(s->b, pair, lower_i32(s, 0), "");
  out->v[i + 1] = LLVMBuildExtractElement(s->b, pair, lower_i32(s, 1), "");
}

/* A register as f32 (extended from f16 / bf16). */
static LLVMValueRef as_f32(lower_state *s, LLVMValueRef x) {
  return LLVMTypeOf(x) == s->f32 ? x : LLVMBuildFPExt(s->b, x, s->f32, "");
}

/* libdevice functions Triton's TTIR calls through tt.extern_elementwise (libdevice is not linked):
 * the op whose lowering computes the same function, or OP_EXTERN_ELEMENTWISE for those computed
 * below from LLVM intrinsics (`intrinsic`) or by hand (powf); OP_COUNT when gemmc has none. */
static ir_op_kind extern_function(const ir_op *op, const char **intrinsic) {
  static const struct {
    const char *symbol;
    ir_op_kind kind;
    const char *intrinsic;
  } table[] = {
      {"__nv_tanhf", OP_TANH, NULL},
      {"__nv_expf", OP_EXP, NULL},
      {"__nv_fast_expf", OP_EXP, NULL},
      {"__nv_exp2f", OP_EXP2, NULL},
      {"__nv_logf", OP_LOG, NULL},
      {"__nv_fast_logf", OP_LOG, NULL},
      {"__nv_log2f", OP_LOG2, NULL},
      {"__nv_sqrtf", OP_SQRT, NULL},
      {"__nv_rsqrtf", OP_RSQRT, NULL},
      {"__nv_sinf", OP_SIN, NULL},
      {"__nv_cosf", OP_COS, NULL},
      {"__nv_erff", OP_ERF, NULL},
      {"__nv_fabsf", OP_ABSF, NULL},
      {"__nv_floorf", OP_FLOOR, NULL},
      {"__nv_ceilf", OP_CEIL, NULL},
      {"__nv_fmaf", OP_FMA, NULL},
      {"__nv_fmaxf", OP_MAXNUMF, NULL},
      {"__nv_fminf", OP_MINNUMF, NULL},
      {"__nv_roundf", OP_EXTERN_ELEMENTWISE, "round"},
      {"__nv_rintf", OP_EXTERN_ELEMENTWISE, "rint"},
      {"__nv_nearbyintf", OP_EXTERN_ELEMENTWISE, "nearbyint"},
      {"__nv_truncf", OP_EXTERN_ELEMENTWISE, "trunc"},
      {"__nv_copysignf", OP_EXTERN_ELEMENTWISE, "copysign"},
      {"__nv_powf", OP_EXTERN_ELEMENTWISE, NULL},
      /* f64: what the hardware or LLVM computes exactly (exp, log, sin, .. need libdevice) */
      {"__nv_sqrt", OP_SQRT, NULL},
      {"__nv_rsqrt", OP_RSQRT, NULL},
      {"__nv_fabs", OP_ABSF, NULL},
      {"__nv_floor", OP_FLOOR, NULL},
      {"__nv_ceil", OP_CEIL, NULL},
      {"__nv_fma", OP_FMA, NULL},
      {"__nv_fmax", OP_MAXNUMF, NULL},
      {"__nv_fmin", OP_MINNUMF, NULL},
      {"__nv_round", OP_EXTERN_ELEMENTWISE, "round"},
      {"__nv_rint", OP_EXTERN_ELEMENTWISE, "rint"},
      {"__nv_nearbyint", OP_EXTERN_ELEMENTWISE, "nearbyint"},
      {"__nv_trunc", OP_EXTERN_ELEMENTWISE, "trunc"},
      {"__nv_copysign", OP_EXTERN_ELEMENTWISE, "copysign"},
  };
  const ir_attr *symbol = ir_op_get_attr(op, "symbol");
  *intrinsic = NULL;
  if (!symbol || symbol->kind != AT_STRING) return OP_COUNT;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strlen(table[i].symbol) == symbol->str_len && !memcmp(table[i].symbol, symbol->str, symbol->str_len)) {
      *intrinsic = table[i].intrinsic;
      return table[i].kind;
    }
  return OP_COUNT;
}

/* With fp fusion on (Triton's default enable_fp_fusion), a user's mulf feeding an addf / subf may become
 * one fma (one rounding), as Triton's LLVM target options allow: the `contract` flag on both. */
static LLVMValueRef contractible(lower_state *s, LLVMValueRef v) {
  if (s->fp_fusion && LLVMIsAInstruction(v) && LLVMCanValueUseFastMathFlags(v))
    LLVMSetFastMathFlags(v, LLVMFastMathAllowContract);
  return v;
}

/* One element of an elementwise op computing `kind` (op's own kind, or the op a libdevice call
 * stands for; for the f32 calls computed here, OP_EXTERN_ELEMENTWISE with the LLVM intrinsic, or
 * NULL for powf); NULL after reporting an error. */
static LLVMValueRef emit_scalar(lower_state *s, ir_op *op, ir_op_kind kind, const char *intrinsic, LLVMValueRef *a,
                                LLVMTypeRef rt) {
  LLVMBuilderRef b = s->b;
  bool ok = true;
  switch (kind) {
  case OP_ADDI: return LLVMBuildAdd(b, a[0], a[1], "");
  case OP_SUBI: return LLVMBuildSub(b, a[0], a[1], "");
  case OP_MULI: return LLVMBuildMul(b, a[0], a[1], "");
  case OP_MULHIUI: { /* NVPTX selects mul.hi.u32 / .u64 */
    LLVMTypeRef t = LLVMTypeOf(a[0]);
    unsigned w = LLVMGetIntTypeWidth(t);
    LLVMTypeRef wide = LLVMIntTypeInContext(s->llctx, 2 * w);
    LLVMValueRef x = LLVMBuildZExt(b, a[0], wide, ""), y = LLVMBuildZExt(b, a[1], wide, "");
    LLVMValueRef p = LLVMBuildMul(b, x, y, "");
    return LLVMBuildTrunc(b, LLVMBuildLShr(b, p, LLVMConstInt(wide, w, 0), ""), t, "");
  }
  case OP_DIVSI: return LLVMBuildSDiv(b, a[0], a[1], "");
  case OP_DIVUI: return LLVMBuildUDiv(b, a[0], a[1], "");
  case OP_REMSI: return LLVMBuildSRem(b, a[0], a[1], "");
  case OP_REMUI: return LLVMBuildURem(b, a[0], a[1], "");
  case OP_CEILDIVSI:
  case OP_FLOORDIVSI: {
    /* q = a / b truncates; floor: q - 1 when the remainder is nonzero and the signs differ;
     * ceil: q + 1 when the remainder is nonzero and the signs agree. The remainder is a - q b, not
     * an srem: LLVM's div-rem-pairs would rewrite the pair so anyway (NVPTX has no divrem), and
     * it does so in time quadratic in the block (each rewrite renumbers it): 4096 of them took
     * 3.5 s, 15 000 two minutes (fuzz finding). */
    LLVMTypeRef t = LLVMTypeOf(a[0]);
    LLVMValueRef zero = LLVMConstInt(t, 0, 0);
    LLVMValueRef q = LLVMBuildSDiv(b, a[0], a[1], "");
    LLVMValueRef r = LLVMBuildSub(b, a[0], LLVMBuildMul(b, q, a[1], ""), "");
    LLVMValueRef nz = LLVMBuildICmp(b, LLVMIntNE, r, zero, "");
    LLVMValueRef diff = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildICmp(b, LLVMIntSLT, r, zero, ""),
                                      LLVMBuildICmp(b, LLVMIntSLT, a[1], zero, ""), "");
    if (kind == OP_FLOORDIVSI)
      return LLVMBuildSelect(b, LLVMBuildAnd(b, nz, diff, ""), LLVMBuildSub(b, q, LLVMConstInt(t, 1, 0), ""), q, "");
    return LLVMBuildSelect(b, LLVMBuildAnd(b, nz, LLVMBuildNot(b, diff, ""), ""), LLVMBuildAdd(b, q, LLVMConstInt(t, 1, 0), ""), q, "");
  }
  case OP_MINSI: return call_overloaded(s, "smin", a, 2);
  case OP_MAXSI: return call_overloaded(s, "smax", a, 2);
  case OP_MINUI: return call_overloaded(s, "umin", a, 2);
  case OP_MAXUI: return call_overloaded(s, "umax", a, 2);
  case OP_ANDI: return LLVMBuildAnd(b, a[0], a[1], "");
  case OP_ORI: return LLVMBuildOr(b, a[0], a[1], "");
  case OP_XORI: return LLVMBuildXor(b, a[0], a[1], "");
  case OP_SHLI: return LLVMBuildShl(b, a[0], a[1], "");
  case OP_SHRSI: return LLVMBuildAShr(b, a[0], a[1], "");
  case OP_SHRUI: return LLVMBuildLShr(b, a[0], a[1], "");
  case OP_CMPI: {
    LLVMIntPredicate p = int_pred(cmp_predicate_of(op), &ok);
    if (!ok) break;
    return LLVMBuildICmp(b, p, a[0], a[1], "");
  }
  case OP_CMPF: {
    LLVMRealPredicate p = real_pred(cmp_predicate_of(op), &ok);
    if (!ok) break;
    return LLVMBuildFCmp(b, p, a[0], a[1], "");
  }
  case OP_SELECT: return LLVMBuildSelect(b, a[0], a[1], a[2], "");
  case OP_EXTSI: return LLVMBuildSExt(b, a[0], rt, "");
  case OP_EXTUI: return LLVMBuildZExt(b, a[0], rt, "");
  case OP_TRUNCI: return LLVMBuildTrunc(b, a[0], rt, "");
  case OP_EXTF: return LLVMBuildFPExt(b, a[0], rt, "");
  case OP_TRUNCF: return LLVMBuildFPTrunc(b, a[0], rt, "");
  case OP_SITOFP: return LLVMBuildSIToFP(b, a[0], rt, "");
  case OP_UITOFP: return LLVMBuildUIToFP(b, a[0], rt, "");
  case OP_FPTOSI: return LLVMBuildFPToSI(b, a[0], rt, "");
  case OP_FPTOUI: return LLVMBuildFPToUI(b, a[0], rt, "");
  case OP_BITCAST:
  case OP_TT_BITCAST:
    if (LLVMGetTypeKind(rt) == LLVMPointerTypeKind || LLVMGetTypeKind(LLVMTypeOf(a[0])) == LLVMPointerTypeKind)
      return LLVMBuildAddrSpaceCast(b, a[0], rt, "");
    return LLVMBuildBitCast(b, a[0], rt, "");
  case OP_INDEX_CAST: {
    unsigned from = LLVMGetIntTypeWidth(LLVMTypeOf(a[0])), to = LLVMGetIntTypeWidth(rt);
    return to > from ? LLVMBuildSExt(b, a[0], rt, "") : to < from ? LLVMBuildTrunc(b, a[0], rt, "") : a[0];
  }
  case OP_INT_TO_PTR: return LLVMBuildIntToPtr(b, a[0], rt, "");
  case OP_PTR_TO_INT: return LLVMBuildPtrToInt(b, a[0], rt, "");
  case OP_FP_TO_FP: return fp_to_fp(s, op, a[0], rt);
  case OP_ADDF: return contractible(s, LLVMBuildFAdd(b, a[0], a[1], ""));
  case OP_SUBF: return contractible(s, LLVMBuildFSub(b, a[0], a[1], ""));
  case OP_MULF: return contractible(s, LLVMBuildFMul(b, a[0], a[1], ""));
  case OP_DIVF:
    if (!s->cg->divide_f32 || (LLVMTypeOf(a[0]) != s->f32 && !is_half_like(LLVMTypeOf(a[0]))))
      return LLVMBuildFDiv(b, a[0], a[1], "");
    if (LLVMTypeOf(a[0]) == s->f32) return s->cg->divide_f32(&s->em, a[0], a[1]);
    /* f16 / bf16 divide in f32 and round back, as Triton does. */
    return LLVMBuildFPTrunc(b, s->cg->divide_f32(&s->em, as_f32(s, a[0]), as_f32(s, a[1])), LLVMTypeOf(a[0]), "");
  case OP_REMF: return LLVMBuildFRem(b, a[0], a[1], "");
  case OP_NEGF: return LLVMBuildFNeg(b, a[0], "");
  case OP_MAXIMUMF: return call_overloaded(s, "maximum", a, 2);
  case OP_MINIMUMF: return call_overloaded(s, "minimum", a, 2);
  case OP_MAXNUMF: return call_overloaded(s, "maxnum", a, 2);
  case OP_MINNUMF: return call_overloaded(s, "minnum", a, 2);
  case OP_ABSF: return call_overloaded(s, "fabs", a, 1);
  case OP_ABSI: {
    LLVMValueRef args[2] = {a[0], LLVMConstInt(s->i1, 0, 0)};
    char name[32];
    snprintf(name, sizeof name, "llvm.abs.%s", type_suffix(s, LLVMTypeOf(a[0])));
    return lower_call(s, name, LLVMTypeOf(a[0]), args, 2);
  }
  case OP_SQRT:
  case OP_PRECISE_SQRT: return call_overloaded(s, "sqrt", a, 1);
  case OP_PRECISE_DIVF: return LLVMBuildFDiv(b, a[0], a[1], "");
  case OP_CLAMPF: {
    /* propagateNan = all: a NaN operand gives NaN; none: the bounds win over a NaN x. */
    const ir_attr *nan = ir_op_get_attr(op, "propagateNan");
    bool all = nan && nan->kind == AT_KEYWORD && nan->str_len == 3 && !memcmp(nan->str, "all", 3);
    LLVMValueRef lo[2] = {a[0], a[1]};
    LLVMValueRef up[2] = {call_overloaded(s, all ? "maximum" : "maxnum", lo, 2), a[2]};
    return call_overloaded(s, all ? "minimum" : "minnum", up, 2);
  }
  case OP_EXTERN_ELEMENTWISE: /* f32, or f64 for the intrinsics (lower_elementwise checked) */
    return intrinsic ? call_overloaded(s, intrinsic, a, op->num_operands) : lower_pow_f32(s, a[0], a[1]);
  case OP_FLOOR: return call_overloaded(s, "floor", a, 1);
  case OP_CEIL: return call_overloaded(s, "ceil", a, 1);
  case OP_FMA: return call_overloaded(s, "fma", a, 3);
  case OP_EXP:
  case OP_EXP2:
  case OP_LOG:
  case OP_LOG2:
  case OP_RSQRT:
  case OP_TANH:
  case OP_ERF: {
    LLVMTypeRef t = LLVMTypeOf(a[0]);
    if (t == s->f32) return math_f32(s, kind, a[0]);
    if (is_half_like(t)) { /* no f16/bf16 hardware for these: compute in f32 */
      LLVMValueRef r = math_f32(s, kind, LLVMBuildFPExt(b, a[0], s->f32, ""));
      return LLVMBuildFPTrunc(b, r, t, "");
    }
    if (kind == OP_RSQRT) return s->cg->rsqrt_f64(&s->em, a[0]);
    ir_op_error(s->ctx, op, "lowering of '%s' on f64 is not implemented yet", ir_op_name(op));
    return NULL;
  }
  default: break;
  }
  if (!ok) ir_op_error(s->ctx, op, "unknown predicate for '%s'", ir_op_name(op));
  else ir_op_error(s->ctx, op, "lowering of '%s' is not implemented yet", ir_op_name(op));
  return NULL;
}

static LLVMValueRef constant_of(lower_state *s, const ir_op *op, const ir_attr *a, LLVMTypeRef t) {
  switch (a->kind) {
  case AT_INT:
  case AT_BOOL: return LLVMConstInt(t, (unsigned long long)a->int_value, 1);
  case AT_FLOAT:
    if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind) { /* fp8: its bits in an i8 */
      const ir_type *e = ir_type_element(op->results[0].type);
      return LLVMConstInt(t, ir_float_to_fp8_bits(e->float_kind, a->float_value), 0);
    }
    return LLVMConstReal(t, a->float_value);
  default: break;
  }
  ir_op_error(s->ctx, op, "lowering of this constant (%s) is not implemented yet", ir_attr_str(s->ctx, a));
  return NULL;
}

bool lower_elementwise(lower_state *s, ir_op *op) {
  const ir_type *rty = op->results[0].type;
  int n = 1;
  if (ir_type_is_tensor(rty)) {
    lower_layout_info *li = lower_layout_of(s, op, rty);
    if (!li) return false;
    n = li->num_regs;
  }
  int64_t same; /* register bits that repeat a lower register's value */
  if (!lower_equal_register_bits(s, op, &op->results[0], &same)) return false;
  LLVMTypeRef rt = lower_elem_type(s, rty);
  if (!rt) {
    ir_op_error(s->ctx, op, "cannot lower values of type '%s'", ir_type_str(s->ctx, rty));
    return false;
  }
  lower_values *out = lower_values_new(s, op, n);
  if (!out) return false;
  if (op->kind == OP_CONSTANT) {
    const ir_attr *v = ir_op_get_attr(op, "value");
    if (v && v->kind == AT_DENSE) {
      if (!v->dense_splat || v->num_elems < 1) {
        ir_op_error(s->ctx, op, "lowering of non-splat dense constants is not implemented yet");
        return false;
      }
      v = v->elems[0];
    }
    LLVMValueRef c = v ? constant_of(s, op, v, rt) : NULL;
    if (!c) {
      if (!v) ir_op_error(s->ctx, op, "arith.constant without a value");
      return false;
    }
    for (int i = 0; i < n; i++) out->v[i] = c;
    return lower_set(s, &op->results[0], out);
  }
  /* fp8 has no arithmetic: it is moved, selected, bitcast and converted (tt.fp_to_fp) only. */
  bool fp8_ok = op->kind == OP_SELECT || op->kind == OP_FP_TO_FP || op->kind == OP_BITCAST || op->kind == OP_TT_BITCAST;
  for (int k = 0; k < op->num_operands; k++)
    if ((is_fp8(op->operands[k].value->type) || is_fp8(rty)) && !fp8_ok) {
      ir_op_error(s->ctx, op, "lowering of '%s' on fp8 types is not supported (fp8 is converted with tt.fp_to_fp)",
                  ir_op_name(op));
      return false;
    }
  if (op->kind == OP_FP_TO_FP && (is_fp8(op->operands[0].value->type) || is_fp8(rty)) &&
      (!s->cg->fp8_to_float || s->target->compute_capability < 89)) {
    ir_op_error(s->ctx, op, "fp8 conversions need a target with fp8 instructions (sm_89 or newer), not %s", s->target->name);
    return false;
  }
  const lower_values *in[3] = {NULL, NULL, NULL};
  if (op->num_operands > 3) {
    ir_op_error(s->ctx, op, "lowering of '%s' with more than 3 operands is not implemented", ir_op_name(op));
    return false;
  }
  ir_op_kind kind = op->kind;
  const char *intrinsic = NULL;
  if (kind == OP_EXTERN_ELEMENTWISE) {
    kind = extern_function(op, &intrinsic);
    const ir_attr *symbol = ir_op_get_attr(op, "symbol");
    /* powf is computed by hand for f32; the intrinsics take f32 and f64 */
    LLVMTypeRef want = intrinsic && rt == LLVMDoubleTypeInContext(s->llctx) ? rt : s->f32;
    bool typed = rt == want;
    for (int k = 0; k < op->num_operands; k++) typed &= lower_elem_type(s, op->operands[k].value->type) == want;
    if (kind == OP_COUNT || (kind == OP_EXTERN_ELEMENTWISE && !typed)) {
      ir_op_error(s->ctx, op,
                  "tt.extern_elementwise: gemmc has no lowering of '%.*s' (libdevice is not linked; "
                  "f32 tanh, exp, exp2, log, log2, sqrt, rsqrt, sin, cos, erf, pow, fabs, floor, ceil, round, rint, "
                  "trunc, fma, fmax, fmin, copysign are, and of these sqrt, rsqrt, fabs, floor, ceil, round, rint, "
                  "trunc, fma, fmax, fmin, copysign on f64)",
                  symbol ? (int)symbol->str_len : 0, symbol ? symbol->str : "");
      return false;
    }
  }
  for (int k = 0; k < op->num_operands; k++)
    if (!(in[k] = lower_get(s, op, op->operands[k].value))) return false;
  int i = 0;
  if (rounds_pairs_at_once(s, op, rt, n))
    for (; i < n; i += 2) /* neighbouring registers are usually stored together: one packed value */
      set_pair(s, out, i, s->cg->truncate_pair(&s->em, lower_elem(in[0], i), lower_elem(in[0], i + 1), rt));
  if ((kind == OP_SIN || kind == OP_COS) && (rt == s->f32 || is_half_like(rt))) {
    /* A whole tensor at once: the rare large arguments' reduction is one loop over its registers. */
    LLVMValueRef *x = lower_alloc(s, sizeof *x * (size_t)n);
    int m = 0;
    if (!x) return false;
    for (int r = 0; r < n; r++)
      if (!(r & same)) x[m++] = as_f32(s, lower_elem(in[0], r));
    if (!lower_sin_cos_f32(s, x, m, kind == OP_COS, x)) return false;
    for (int r = 0, k = 0; r < n; r++)
      out->v[r] = r & same ? out->v[r & ~same] : rt == s->f32 ? x[k++] : LLVMBuildFPTrunc(s->b, x[k++], rt, "");
    return lower_set(s, &op->results[0], out);
  }
  if (converts_fp8_pairs(s, op, n)) {
    bool e4m3 = ir_type_element(op->results[0].type)->float_kind == FLT_F8E4M3FN;
    for (; i < n; i += 2) {
      LLVMValueRef pair =
          s->cg->float_pair_to_fp8(&s->em, as_f32(s, lower_elem(in[0], i)), as_f32(s, lower_elem(in[0], i + 1)), e4m3);
      set_pair(s, out, i, LLVMBuildBitCast(s->b, pair, LLVMVectorType(rt, 2), ""));
    }
  }
  for (; i < n; i++) {
    if (i & same) {
      out->v[i] = out->v[i & ~same];
      continue;
    }
    LLVMValueRef a[3];
    for (int k = 0; k < op->num_operands; k++) a[k] = lower_elem(in[k], i);
    if (!(out->v[i] = emit_scalar(s, op, kind, intrinsic, a, rt))) return false;
  }
  return lower_set(s, &op->results[0], out);
}

bool lower_program_id(lower_state *s, ir_op *op) {
  int axis = (int)ir_op_get_int_attr(op, "axis", 0);
  if (axis < 0 || axis > 2) {
    ir_op_error(s->ctx, op, "program id axis must be x, y or z");
    return false;
  }
  LLVMValueRef id = op->kind == OP_GET_PROGRAM_ID ? s->cg->program_id(&s->em, axis) : s->cg->num_programs(&s->em, axis);
  return lower_set1(s, &op->results[0], id);
}

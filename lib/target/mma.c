/* The matrix-multiply instruction table (see mma.h). */
#include "mma.h"

#include <string.h>

/* One MFMA entry: the operand bits follow from the type, the instruction is the intrinsic. */
#define MFMA_BITS(t) (TARGET_DT_##t == TARGET_DT_F16 || TARGET_DT_##t == TARGET_DT_BF16 ? 16 \
                      : TARGET_DT_##t == TARGET_DT_F32 || TARGET_DT_##t == TARGET_DT_TF32 ? 32 : 8)
#define MFMA(family, a, b, c, m, n, k, suffix)                                                        \
  {family, TARGET_DT_##a, TARGET_DT_##b, TARGET_DT_##c, m, n, k, MFMA_BITS(a), false, false,          \
   "v_mfma_" suffix, "llvm.amdgcn.mfma." suffix, false}

static const target_mma mma_table[] = {
    /* mma.sync (nvidia_mma v2, sm_80+): one warp, m16n8kK, fragments in the PTX ISA's layout. */
    {GEMMC_MMA_SYNC, TARGET_DT_F16, TARGET_DT_F16, TARGET_DT_F32, 16, 8, 16, 16, false, false,
     "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "llvm.nvvm.mma.m16n8k16.row.col.f32.f32", false},
    {GEMMC_MMA_SYNC, TARGET_DT_F16, TARGET_DT_F16, TARGET_DT_F16, 16, 8, 16, 16, false, true,
     "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", "llvm.nvvm.mma.m16n8k16.row.col.f16.f16", false},
    {GEMMC_MMA_SYNC, TARGET_DT_BF16, TARGET_DT_BF16, TARGET_DT_F32, 16, 8, 16, 16, true, false,
     "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "llvm.nvvm.mma.m16n8k16.row.col.bf16", false},
    {GEMMC_MMA_SYNC, TARGET_DT_TF32, TARGET_DT_TF32, TARGET_DT_F32, 16, 8, 8, 32, true, false,
     "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "llvm.nvvm.mma.m16n8k8.row.col.tf32", false},
    {GEMMC_MMA_SYNC, TARGET_DT_I8, TARGET_DT_I8, TARGET_DT_I32, 16, 8, 32, 8, true, false,
     "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32", "llvm.nvvm.mma.m16n8k32.row.col.satfinite.s8", false},
    /* wgmma.mma_async (nvidia_mma v3, sm_90a): one warpgroup, m64nNkK, B (and A, here) read from
     * shared memory through matrix descriptors; the type suffix is the "intrinsic". Only f16 and
     * bf16 take MN-major (transposed) operands. */
    {GEMMC_MMA_WGMMA, TARGET_DT_F16, TARGET_DT_F16, TARGET_DT_F32, 64, 256, 16, 16, false, false,
     "wgmma.mma_async.m64nNk16.f32.f16.f16", ".f32.f16.f16", true},
    {GEMMC_MMA_WGMMA, TARGET_DT_F16, TARGET_DT_F16, TARGET_DT_F16, 64, 256, 16, 16, false, true,
     "wgmma.mma_async.m64nNk16.f16.f16.f16", ".f16.f16.f16", true},
    {GEMMC_MMA_WGMMA, TARGET_DT_BF16, TARGET_DT_BF16, TARGET_DT_F32, 64, 256, 16, 16, false, false,
     "wgmma.mma_async.m64nNk16.f32.bf16.bf16", ".f32.bf16.bf16", true},
    {GEMMC_MMA_WGMMA, TARGET_DT_TF32, TARGET_DT_TF32, TARGET_DT_F32, 64, 256, 8, 32, false, false,
     "wgmma.mma_async.m64nNk8.f32.tf32.tf32", ".f32.tf32.tf32", false},
    {GEMMC_MMA_WGMMA, TARGET_DT_E4M3, TARGET_DT_E4M3, TARGET_DT_F32, 64, 256, 32, 8, false, false,
     "wgmma.mma_async.m64nNk32.f32.e4m3.e4m3", ".f32.e4m3.e4m3", false},
    {GEMMC_MMA_WGMMA, TARGET_DT_E4M3, TARGET_DT_E5M2, TARGET_DT_F32, 64, 256, 32, 8, false, false,
     "wgmma.mma_async.m64nNk32.f32.e4m3.e5m2", ".f32.e4m3.e5m2", false},
    {GEMMC_MMA_WGMMA, TARGET_DT_E5M2, TARGET_DT_E4M3, TARGET_DT_F32, 64, 256, 32, 8, false, false,
     "wgmma.mma_async.m64nNk32.f32.e5m2.e4m3", ".f32.e5m2.e4m3", false},
    {GEMMC_MMA_WGMMA, TARGET_DT_E5M2, TARGET_DT_E5M2, TARGET_DT_F32, 64, 256, 32, 8, false, false,
     "wgmma.mma_async.m64nNk32.f32.e5m2.e5m2", ".f32.e5m2.e5m2", false},
    {GEMMC_MMA_WGMMA, TARGET_DT_E4M3, TARGET_DT_E4M3, TARGET_DT_F16, 64, 256, 32, 8, false, true,
     "wgmma.mma_async.m64nNk32.f16.e4m3.e4m3", ".f16.e4m3.e4m3", false},
    {GEMMC_MMA_WGMMA, TARGET_DT_E5M2, TARGET_DT_E5M2, TARGET_DT_F16, 64, 256, 32, 8, false, true,
     "wgmma.mma_async.m64nNk32.f16.e5m2.e5m2", ".f16.e5m2.e5m2", false},
    {GEMMC_MMA_WGMMA, TARGET_DT_I8, TARGET_DT_I8, TARGET_DT_I32, 64, 224, 32, 8, false, false,
     "wgmma.mma_async.m64nNk32.s32.s8.s8", ".s32.s8.s8", false},
    /* MFMA (AMD CDNA, one wave of 64 lanes), LLVM 19's llvm.amdgcn.mfma.* (test/driver/
     * amdgpu-mfma-table.tir checks that each selects on its targets). For the same types and
     * M = N, the larger K comes first (target_mfma_find prefers it). */
    MFMA(GEMMC_MMA_MFMA, F16, F16, F32, 16, 16, 16, "f32.16x16x16f16"),
    MFMA(GEMMC_MMA_MFMA, F16, F16, F32, 32, 32, 8, "f32.32x32x8f16"),
    MFMA(GEMMC_MMA_MFMA, BF16, BF16, F32, 16, 16, 16, "f32.16x16x16bf16.1k"),
    MFMA(GEMMC_MMA_MFMA_CDNA2, BF16, BF16, F32, 16, 16, 8, "f32.16x16x8bf16"),
    MFMA(GEMMC_MMA_MFMA, BF16, BF16, F32, 32, 32, 8, "f32.32x32x8bf16.1k"),
    MFMA(GEMMC_MMA_MFMA_CDNA2, BF16, BF16, F32, 32, 32, 4, "f32.32x32x4bf16.1k"),
    MFMA(GEMMC_MMA_MFMA, F32, F32, F32, 16, 16, 4, "f32.16x16x4f32"),
    MFMA(GEMMC_MMA_MFMA, F32, F32, F32, 32, 32, 2, "f32.32x32x2f32"),
    MFMA(GEMMC_MMA_MFMA_CDNA3, TF32, TF32, F32, 16, 16, 8, "f32.16x16x8.xf32"),
    MFMA(GEMMC_MMA_MFMA_CDNA3, TF32, TF32, F32, 32, 32, 4, "f32.32x32x4.xf32"),
    /* 8-bit integers: CDNA3 doubled K and dropped CDNA2's forms (LLVM aborts on them). */
    MFMA(GEMMC_MMA_MFMA_CDNA2, I8, I8, I32, 16, 16, 16, "i32.16x16x16i8"),
    MFMA(GEMMC_MMA_MFMA_CDNA2, I8, I8, I32, 32, 32, 8, "i32.32x32x8i8"),
    MFMA(GEMMC_MMA_MFMA_CDNA3, I8, I8, I32, 16, 16, 32, "i32.16x16x32.i8"),
    MFMA(GEMMC_MMA_MFMA_CDNA3, I8, I8, I32, 32, 32, 16, "i32.32x32x16.i8"),
    /* fp8 (E4M3FNUZ) and bf8 (E5M2FNUZ), any pairing. */
    MFMA(GEMMC_MMA_MFMA_FP8, E4M3FNUZ, E4M3FNUZ, F32, 16, 16, 32, "f32.16x16x32.fp8.fp8"),
    MFMA(GEMMC_MMA_MFMA_FP8, E4M3FNUZ, E5M2FNUZ, F32, 16, 16, 32, "f32.16x16x32.fp8.bf8"),
    MFMA(GEMMC_MMA_MFMA_FP8, E5M2FNUZ, E4M3FNUZ, F32, 16, 16, 32, "f32.16x16x32.bf8.fp8"),
    MFMA(GEMMC_MMA_MFMA_FP8, E5M2FNUZ, E5M2FNUZ, F32, 16, 16, 32, "f32.16x16x32.bf8.bf8"),
    MFMA(GEMMC_MMA_MFMA_FP8, E4M3FNUZ, E4M3FNUZ, F32, 32, 32, 16, "f32.32x32x16.fp8.fp8"),
    MFMA(GEMMC_MMA_MFMA_FP8, E4M3FNUZ, E5M2FNUZ, F32, 32, 32, 16, "f32.32x32x16.fp8.bf8"),
    MFMA(GEMMC_MMA_MFMA_FP8, E5M2FNUZ, E4M3FNUZ, F32, 32, 32, 16, "f32.32x32x16.bf8.fp8"),
    MFMA(GEMMC_MMA_MFMA_FP8, E5M2FNUZ, E5M2FNUZ, F32, 32, 32, 16, "f32.32x32x16.bf8.bf8"),
};

/* Triton's lists of instruction N, largest first. */
static const int wgmma_n_float[] = {256, 248, 240, 232, 224, 216, 208, 200, 192, 184, 176, 168, 160, 152, 144, 136, 128,
                                    120, 112, 104, 96,  88,  80,  72,  64,  56,  48,  40,  32,  24,  16,  8,   0};
static const int wgmma_n_int8[] = {224, 208, 192, 176, 160, 144, 128, 112, 96, 80, 64, 48, 32, 24, 16, 8, 0};

const int *target_wgmma_valid_n(const target_mma *instr) {
  return instr->a == TARGET_DT_I8 ? wgmma_n_int8 : wgmma_n_float;
}

target_dtype target_dtype_of(const ir_type *e, const char *input_precision) {
  if (!e) return TARGET_DT_NONE;
  if (e->kind == TY_INT) return e->width == 8 ? TARGET_DT_I8 : e->width == 32 ? TARGET_DT_I32 : TARGET_DT_NONE;
  if (e->kind != TY_FLOAT) return TARGET_DT_NONE;
  switch (e->float_kind) {
  case FLT_F16: return TARGET_DT_F16;
  case FLT_BF16: return TARGET_DT_BF16;
  case FLT_F32: return input_precision && strcmp(input_precision, "tf32") == 0 ? TARGET_DT_TF32 : TARGET_DT_F32;
  case FLT_F8E4M3FN: return TARGET_DT_E4M3;
  case FLT_F8E5M2: return TARGET_DT_E5M2;
  case FLT_F8E4M3FNUZ: return TARGET_DT_E4M3FNUZ;
  case FLT_F8E5M2FNUZ: return TARGET_DT_E5M2FNUZ;
  default: return TARGET_DT_NONE;
  }
}

const target_mma *target_mma_find(unsigned families, const ir_type *a, const ir_type *b, const ir_type *c,
                                  const char *input_precision) {
  target_dtype da = target_dtype_of(a, input_precision), db = target_dtype_of(b, input_precision);
  /* The accumulator is never tf32: f32 stays f32 whatever the inputs' precision. */
  target_dtype dc = target_dtype_of(c, NULL);
  if (da == TARGET_DT_NONE || db == TARGET_DT_NONE || dc == TARGET_DT_NONE) return NULL;
  for (size_t i = 0; i < sizeof mma_table / sizeof mma_table[0]; i++) {
    const target_mma *m = &mma_table[i];
    if ((m->family & families) && m->a == da && m->b == db && m->c == dc) return m;
  }
  return NULL;
}

const char *target_dot_input_precision(const ir_op *dot) {
  static const char *const names[] = {"tf32", "tf32x3", "ieee", "bf16x3", "bf16x6"};
  const ir_attr *prec = ir_op_get_attr(dot, "inputPrecision");
  if (!prec) return NULL;
  if (prec->str) return prec->str;
  if ((prec->kind == AT_INT) && prec->int_value >= 0 && prec->int_value < 5) return names[prec->int_value];
  return NULL;
}

const target_mma *target_mma_for_dot(unsigned families, const ir_op *dot) {
  const ir_type *a = ir_type_element(dot->operands[0].value->type);
  const ir_type *b = ir_type_element(dot->operands[1].value->type);
  const ir_type *c = ir_type_element(dot->results[0].type);
  /* Mixed operand types: only the fp8 pairs of warpgroup MMA have instructions. */
  if (a != b && !(families & GEMMC_MMA_WGMMA)) return NULL;
  return target_mma_find(families, a, b, c, target_dot_input_precision(dot));
}

/* ---------------------------------------------------------------- fragments: the PTX ISA's formulas for mma.sync */

int target_mma_fragment_size(target_mma_operand kind, int elem_bits) {
  if (kind == TARGET_MMA_C) return 4;
  int a = elem_bits == 16 ? 8 : elem_bits == 32 ? 4 : elem_bits == 8 ? 16 : 0;
  return kind == TARGET_MMA_A ? a : a / 2;
}

bool target_mma_fragment_coord(target_mma_operand kind, int elem_bits, int slot, int lane, int *row, int *col) {
  if (lane < 0 || lane >= 32 || slot < 0 || slot >= target_mma_fragment_size(kind, elem_bits)) return false;
  int g = lane >> 2, t = lane & 3; /* PTX's groupID and threadID_in_group */
  if (kind == TARGET_MMA_C) {
    *row = g + 8 * (slot >> 1);
    *col = 2 * t + (slot & 1);
    return true;
  }
  if (kind == TARGET_MMA_A) {
    switch (elem_bits) {
    case 16: /* m16n8k16 .f16/.bf16 */
      *row = g + 8 * ((slot >> 1) & 1);
      *col = 2 * t + (slot & 1) + 8 * (slot >> 2);
      return true;
    case 32: /* m16n8k8 .tf32 */
      *row = g + 8 * (slot & 1);
      *col = t + 4 * (slot >> 1);
      return true;
    default: /* m16n8k32 .s8 */
      *row = g + 8 * ((slot >> 2) & 1);
      *col = 4 * t + (slot & 3) + 16 * (slot >> 3);
      return true;
    }
  }
  switch (elem_bits) {
  case 16:
    *row = 2 * t + (slot & 1) + 8 * (slot >> 1);
    break;
  case 32:
    *row = t + 4 * slot;
    break;
  default:
    *row = 4 * t + (slot & 3) + 16 * (slot >> 2);
    break;
  }
  *col = g;
  return true;
}


/* ---------------------------------------------------------------- MFMA */

enum { MFMA_FAMILIES = GEMMC_MMA_MFMA | GEMMC_MMA_MFMA_FP8 | GEMMC_MMA_MFMA_CDNA2 | GEMMC_MMA_MFMA_CDNA3 };

int target_mfma_k_base(const target_mma *instr) { return instr->m * instr->k / 64; }

int target_mfma_version(const gemmc_target *t) {
  if (!t || !(t->mma_kinds & GEMMC_MMA_MFMA)) return 0;
  return (t->mma_kinds & GEMMC_MMA_MFMA_CDNA3) ? 3 : 2;
}

/* The MFMA of `families` for these types and M = N = nonk_dim preferring the larger K, as
 * Triton's MfmaIntrinsic::selectFor: the largest K not above k_size, else the smallest. */
static const target_mma *mfma_select(unsigned families, target_dtype a, target_dtype b, target_dtype c, int nonk_dim,
                                     int64_t k_size) {
  const target_mma *best = NULL, *smallest = NULL;
  for (size_t i = 0; i < sizeof mma_table / sizeof mma_table[0]; i++) {
    const target_mma *m = &mma_table[i];
    if (!(m->family & families & MFMA_FAMILIES) || m->a != a || m->b != b || m->c != c || m->m != nonk_dim) continue;
    if (!smallest || m->k < smallest->k) smallest = m;
    if (k_size >= m->k && (!best || m->k > best->k)) best = m;
  }
  return best ? best : smallest;
}

const target_mma *target_mfma_find(unsigned families, const ir_op *dot, int nonk_dim, int64_t k_size) {
  const ir_type *ae = ir_type_element(dot->operands[0].value->type);
  const ir_type *be = ir_type_element(dot->operands[1].value->type);
  const ir_type *ce = ir_type_element(dot->results[0].type);
  const char *precision = target_dot_input_precision(dot);
  target_dtype a = target_dtype_of(ae, precision), b = target_dtype_of(be, precision);
  target_dtype c = ce->kind == TY_INT ? TARGET_DT_I32 : ce->kind == TY_FLOAT ? TARGET_DT_F32 : TARGET_DT_NONE;
  if (a == TARGET_DT_NONE || b == TARGET_DT_NONE || c == TARGET_DT_NONE) return NULL;
  const target_mma *m = mfma_select(families, a, b, c, nonk_dim, k_size);
  /* tf32 where the target has no xf32 (CDNA2): the f32 instructions, as Triton (allowXF32 is
   * CDNA3 only). */
  if (!m && a == TARGET_DT_TF32 && b == TARGET_DT_TF32)
    m = mfma_select(families, TARGET_DT_F32, TARGET_DT_F32, c, nonk_dim, k_size);
  return m;
}

bool target_mfma_fragment_coord(const target_mma *instr, target_mma_operand kind, int slot, int lane, int *row,
                                int *col) {
  int m = instr->m, k_base = target_mfma_k_base(instr);
  if (lane < 0 || lane >= 64 || slot < 0) return false;
  int group = lane / m; /* lanes m apart hold the next K group (A, B) or the next rows (C) */
  if (kind == TARGET_MMA_C) {
    if (slot >= m * instr->n / 64) return false;
    /* Four consecutive rows per register group; 32x32 stacks two lane groups, then 8 rows. */
    int groups = 64 / m;
    *row = (slot / 4) * 4 * groups + 4 * group + slot % 4;
    *col = lane % m;
    return true;
  }
  if (slot >= k_base) return false;
  int k = k_base * group + slot;
  if (kind == TARGET_MMA_A) {
    *row = lane % m;
    *col = k;
  } else {
    *row = k;
    *col = lane % m;
  }
  return true;
}

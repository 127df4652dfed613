/* The matrix-multiply instruction table (see mma.h). */
#include "mma.h"

#include <string.h>

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


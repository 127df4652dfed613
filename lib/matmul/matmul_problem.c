/* gemmc_matmul's argument checks and the move from cuBLAS's column-major operands to the templates' row-major kernel coordinates. */
#include "matmul_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *const mm_slot_names[MM_SLOT_COUNT] = {
#define MM_SLOT_NAME(id, name) name,
    MM_SLOTS(MM_SLOT_NAME)
#undef MM_SLOT_NAME
};

bool mm_slot_is_pointer(mm_slot s) { return s <= MM_SLOT_FLAGS_PTR; }
bool mm_slot_is_scalar_float(mm_slot s) { return s == MM_SLOT_ALPHA || s == MM_SLOT_BETA || s == MM_SLOT_SLOPE; }

int mm_dtype_bytes(gemmc_datatype t) {
  switch (t) {
  case GEMMC_R_16F: case GEMMC_R_16BF: return 2;
  case GEMMC_R_32F: case GEMMC_R_32I: return 4;
  case GEMMC_R_8I: case GEMMC_R_8F_E4M3: case GEMMC_R_8F_E5M2: return 1;
  }
  return 0;
}

const char *mm_dtype_ir(gemmc_datatype t) {
  switch (t) {
  case GEMMC_R_16F: return "f16";
  case GEMMC_R_16BF: return "bf16";
  case GEMMC_R_32F: return "f32";
  case GEMMC_R_8I: return "i8";
  case GEMMC_R_32I: return "i32";
  case GEMMC_R_8F_E4M3: return "f8E4M3FN";
  case GEMMC_R_8F_E5M2: return "f8E5M2";
  }
  return "?";
}

uint64_t mm_div_of_values(const uint64_t *values) {
  uint64_t d = 0;
  for (int s = 0; s < MM_SLOT_COUNT; s++) {
    if (mm_slot_is_scalar_float((mm_slot)s)) continue;
    /* Integers are stored sign-extended to 64 bits; both -16 and 16 divide by 16. */
    uint64_t v = values[s], level = (v & 15) == 0 ? 3 : (v & 7) == 0 ? 2 : (v & 3) == 0 ? 1 : 0;
    d |= level << (2 * s);
  }
  return d;
}

int mm_div_of_slot(uint64_t div, mm_slot s) {
  static const int divisors[4] = {1, 4, 8, 16};
  return divisors[(div >> (2 * (int)s)) & 3];
}

uint64_t mm_div_keep(uint64_t div, uint32_t slots) {
  uint64_t mask = 0;
  for (int s = 0; s < MM_SLOT_COUNT; s++)
    if ((slots >> s) & 1) mask |= (uint64_t)3 << (2 * s);
  return div & mask;
}

bool mm_operand_rows_off_sector(uint32_t unit, uint64_t div, int elem_bytes, char operand) {
  /* The operand's unit-stride dim is the vector dim; the other stride separates the rows. */
  mm_slot first = operand == 'a' ? MM_SLOT_STRIDE_AM : MM_SLOT_STRIDE_BK;
  mm_slot second = operand == 'a' ? MM_SLOT_STRIDE_AK : MM_SLOT_STRIDE_BN;
  mm_slot batch = operand == 'a' ? MM_SLOT_STRIDE_AB : MM_SLOT_STRIDE_BB;
  if (elem_bytes < 2 || !((unit >> first) & 1 || (unit >> second) & 1)) return false;
  mm_slot rows = (unit >> second) & 1 ? first : second;
  int d = mm_div_of_slot(div, rows), db = mm_div_of_slot(div, batch);
  return elem_bytes * (d < db ? d : db) < 32;
}

uint32_t mm_unit_of_values(const uint64_t *values) {
  uint32_t u = 0;
  for (int s = 0; s < MM_SLOT_COUNT; s++)
    if (!mm_slot_is_scalar_float((mm_slot)s) && values[s] == 1) u |= 1u << s;
  return u;
}

/* f32 -> IEEE half bits, rounding to nearest even (the scalars of GEMMC_COMPUTE_16F). */
static uint16_t f32_to_f16_bits(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, absx = x & 0x7fffffffu;
  if (absx > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);
  if (absx >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
  if (absx < 0x38800000u) { /* below 2^-14: a subnormal half; scaling by 2^24 is exact */
    float v;
    memcpy(&v, &absx, 4);
    return (uint16_t)(sign | (uint32_t)lrintf(v * 16777216.0f)); /* nearest even */
  }
  uint32_t h = (absx - 0x38000000u) >> 13, rest = absx & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;
  return (uint16_t)(sign | h);
}

#define INVALID(...) mm_status_error(GEMMC_ERROR_INVALID_ARGUMENT, __VA_ARGS__)
#define UNSUPPORTED(...) mm_status_error(GEMMC_ERROR_UNSUPPORTED, __VA_ARGS__)

gemmc_status mm_status_error(gemmc_status_code code, const char *fmt, ...) {
  gemmc_status s;
  s.code = code;
  s.driver_error = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s.message, sizeof s.message, fmt, ap);
  va_end(ap);
  return s;
}

/* Success without zeroing the 1 KiB message (this runs on every call). */
gemmc_status mm_status_ok(void) {
  gemmc_status s;
  s.code = GEMMC_OK;
  s.driver_error = 0;
  s.message[0] = 0;
  return s;
}

static bool is_fp8(gemmc_datatype t) { return t == GEMMC_R_8F_E4M3 || t == GEMMC_R_8F_E5M2; }

/* Checks the type combination and fills the class, accumulator and precision. */
static gemmc_status classify(const gemmc_matmul_desc *d, mm_problem *p) {
  static const char *const names[] = {"f16", "bf16", "f32", "int8", "int32", "fp8 e4m3", "fp8 e5m2"};
  if ((unsigned)d->a_type > GEMMC_R_8F_E5M2 || (unsigned)d->b_type > GEMMC_R_8F_E5M2 ||
      (unsigned)d->c_type > GEMMC_R_8F_E5M2 || (unsigned)d->d_type > GEMMC_R_8F_E5M2)
    return INVALID("gemmc_matmul: unknown data type");
  if ((unsigned)d->compute > GEMMC_COMPUTE_32I) return INVALID("gemmc_matmul: unknown compute type %d", (int)d->compute);
  if ((unsigned)d->activation > GEMMC_ACT_GELU) return INVALID("gemmc_matmul: unknown activation %d", (int)d->activation);
  if (d->a_type != d->b_type)
    return UNSUPPORTED("gemmc_matmul: A is %s and B is %s; mixed input types are not supported", names[d->a_type],
                       names[d->b_type]);
  if (d->c_type != d->d_type)
    return UNSUPPORTED("gemmc_matmul: C is %s and D is %s; C and D must have one type", names[d->c_type], names[d->d_type]);
  gemmc_datatype in = d->a_type, out = d->d_type;
  p->at = in;
  p->out = out;
  p->tf32 = false;
  bool float_out = out == GEMMC_R_16F || out == GEMMC_R_16BF || out == GEMMC_R_32F;
  switch (d->compute) {
  case GEMMC_COMPUTE_32F:
    p->acc = MM_ACC_F32;
    if ((in == GEMMC_R_16F || in == GEMMC_R_16BF) && float_out) p->cls = MM_CLASS_F16;
    else if (in == GEMMC_R_32F && out == GEMMC_R_32F) p->cls = MM_CLASS_F32;
    else if (is_fp8(in) && float_out) p->cls = MM_CLASS_F8;
    else goto bad;
    break;
  case GEMMC_COMPUTE_32F_FAST_TF32:
    if (in != GEMMC_R_32F || out != GEMMC_R_32F) goto bad;
    p->acc = MM_ACC_F32;
    p->cls = MM_CLASS_TF32;
    p->tf32 = true;
    break;
  case GEMMC_COMPUTE_16F:
    if (in != GEMMC_R_16F || out != GEMMC_R_16F) goto bad;
    p->acc = MM_ACC_F16;
    p->cls = MM_CLASS_F16;
    break;
  case GEMMC_COMPUTE_32I:
    if (in != GEMMC_R_8I || out != GEMMC_R_32I) goto bad;
    p->acc = MM_ACC_I32;
    p->cls = MM_CLASS_I8;
    if (d->activation != GEMMC_ACT_NONE || d->bias)
      return UNSUPPORTED("gemmc_matmul: GEMMC_COMPUTE_32I has no activation or bias epilogue");
    break;
  }
  return mm_status_ok();
bad:
  return UNSUPPORTED("gemmc_matmul: %s inputs with %s C/D are not supported with compute type %d (see gemmc/matmul.h "
                     "for the combinations)",
                     names[in], names[out], (int)d->compute);
}

/* The scalar's bits in the accumulator's type. */
static uint64_t scalar_bits(const void *ptr, mm_acc acc, double fallback) {
  if (acc == MM_ACC_I32) {
    int32_t v = ptr ? *(const int32_t *)ptr : (int32_t)fallback;
    return (uint64_t)(uint32_t)v;
  }
  float f = ptr ? *(const float *)ptr : (float)fallback;
  if (acc == MM_ACC_F16) return f32_to_f16_bits(f);
  uint32_t bits;
  memcpy(&bits, &f, 4);
  return bits;
}

static bool scalar_is(const void *ptr, mm_acc acc, double v) {
  if (!ptr) return false;
  if (acc == MM_ACC_I32) return *(const int32_t *)ptr == (int32_t)v;
  return *(const float *)ptr == (float)v;
}

/* The largest element offset of a rows x cols column-major matrix with leading dimension ld (all
 * three the caller's numbers, so the product is checked) is below 2^31. */
static bool fits_i32(int64_t rows, int64_t cols, int64_t ld) {
  if (rows == 0 || cols == 0) return true;
  int64_t span;
  if (__builtin_mul_overflow(cols - 1, ld, &span) || span >= ((int64_t)1 << 31)) return false;
  return (rows - 1) + span < ((int64_t)1 << 31); /* rows < 2^31: checked before */
}

gemmc_status mm_problem_from_desc(const gemmc_matmul_desc *d, mm_problem *p) {
  memset(p, 0, sizeof *p);
  if (!d) return INVALID("gemmc_matmul: no descriptor");
  gemmc_status st = classify(d, p);
  if (st.code != GEMMC_OK) return st;
  if ((unsigned)d->transa > GEMMC_OP_T || (unsigned)d->transb > GEMMC_OP_T)
    return INVALID("gemmc_matmul: transa and transb must be GEMMC_OP_N or GEMMC_OP_T");
  if (d->m < 0 || d->n < 0 || d->k < 0 || d->batch_count < 0)
    return INVALID("gemmc_matmul: negative size (m %lld, n %lld, k %lld, batch_count %lld)", (long long)d->m,
                   (long long)d->n, (long long)d->k, (long long)d->batch_count);
  /* cuBLAS's rules: each leading dimension covers the stored rows, and is at least 1. */
  int64_t a_rows = d->transa == GEMMC_OP_N ? d->m : d->k, a_cols = d->transa == GEMMC_OP_N ? d->k : d->m;
  int64_t b_rows = d->transb == GEMMC_OP_N ? d->k : d->n, b_cols = d->transb == GEMMC_OP_N ? d->n : d->k;
  if (d->lda < (a_rows > 1 ? a_rows : 1)) return INVALID("gemmc_matmul: lda %lld < %lld rows of A", (long long)d->lda, (long long)a_rows);
  if (d->ldb < (b_rows > 1 ? b_rows : 1)) return INVALID("gemmc_matmul: ldb %lld < %lld rows of B", (long long)d->ldb, (long long)b_rows);
  if (d->ldd < (d->m > 1 ? d->m : 1)) return INVALID("gemmc_matmul: ldd %lld < m = %lld", (long long)d->ldd, (long long)d->m);
  bool beta_zero = d->beta ? scalar_is(d->beta, p->acc, 0) : true;
  p->has_c = !beta_zero;
  if (p->has_c && d->ldc < (d->m > 1 ? d->m : 1)) return INVALID("gemmc_matmul: ldc %lld < m = %lld", (long long)d->ldc, (long long)d->m);
  if (!d->alpha) return INVALID("gemmc_matmul: alpha is NULL");
  int64_t batch = d->batch_count;
  p->M = d->n, p->N = d->m, p->K = d->k, p->batch = batch;
  if (p->M == 0 || p->N == 0 || batch == 0) return mm_status_ok(); /* nothing to write */
  if (!d->D) return INVALID("gemmc_matmul: D is NULL");
  if (p->K > 0 && (!d->A || !d->B)) return INVALID("gemmc_matmul: A or B is NULL");
  if (p->has_c && !d->C) return INVALID("gemmc_matmul: beta != 0 but C is NULL");
  if (d->m >= ((int64_t)1 << 31) || d->n >= ((int64_t)1 << 31) || d->k >= ((int64_t)1 << 31) ||
      !fits_i32(a_rows, a_cols, d->lda) || !fits_i32(b_rows, b_cols, d->ldb) || !fits_i32(d->m, d->n, d->ldd) ||
      (p->has_c && !fits_i32(d->m, d->n, d->ldc)))
    return UNSUPPORTED("gemmc_matmul: a matrix spans 2^31 elements or more; gemmc's kernels index one matrix "
                       "with 32-bit offsets (batches may be larger)");
  if (batch > 65535)
    return UNSUPPORTED("gemmc_matmul: batch_count %lld is above 65535 (the grid's y limit); split the batch",
                       (long long)batch);
  p->has_alpha = !scalar_is(d->alpha, p->acc, 1);
  p->has_bias = d->bias != NULL;
  p->act = d->activation;

  uint64_t *v = p->values;
  /* A' = op(B)^T is M x K: element (i, kk) is op(B)(kk, i). */
  v[MM_SLOT_A_PTR] = (uint64_t)(uintptr_t)d->B;
  v[MM_SLOT_B_PTR] = (uint64_t)(uintptr_t)d->A;
  v[MM_SLOT_C_PTR] = p->has_c ? (uint64_t)(uintptr_t)d->C : (uint64_t)(uintptr_t)d->D;
  v[MM_SLOT_D_PTR] = (uint64_t)(uintptr_t)d->D;
  v[MM_SLOT_BIAS_PTR] = p->has_bias ? (uint64_t)(uintptr_t)d->bias : (uint64_t)(uintptr_t)d->D;
  v[MM_SLOT_M] = (uint64_t)p->M;
  v[MM_SLOT_N] = (uint64_t)p->N;
  v[MM_SLOT_K] = (uint64_t)p->K;
  /* op(B)(kk, i): B(kk, i) = B[kk + i ldb] (N) or B(i, kk) = B[i + kk ldb] (T). */
  v[MM_SLOT_STRIDE_AM] = d->transb == GEMMC_OP_N ? (uint64_t)d->ldb : 1;
  v[MM_SLOT_STRIDE_AK] = d->transb == GEMMC_OP_N ? 1 : (uint64_t)d->ldb;
  /* B' = op(A)^T is K x N: element (kk, j) is op(A)(j, kk) = A[j + kk lda] (N) or A[kk + j lda] (T). */
  v[MM_SLOT_STRIDE_BK] = d->transa == GEMMC_OP_N ? (uint64_t)d->lda : 1;
  v[MM_SLOT_STRIDE_BN] = d->transa == GEMMC_OP_N ? 1 : (uint64_t)d->lda;
  /* C' and D' are M x N = D^T: element (i, j) is D(j, i) = D[j + i ldd]. */
  v[MM_SLOT_STRIDE_CM] = p->has_c ? (uint64_t)d->ldc : (uint64_t)d->ldd;
  v[MM_SLOT_STRIDE_CN] = 1;
  v[MM_SLOT_STRIDE_DM] = (uint64_t)d->ldd;
  v[MM_SLOT_STRIDE_DN] = 1;
  bool batched = batch > 1;
  v[MM_SLOT_STRIDE_AB] = batched ? (uint64_t)d->stride_b : 0;
  v[MM_SLOT_STRIDE_BB] = batched ? (uint64_t)d->stride_a : 0;
  v[MM_SLOT_STRIDE_CB] = batched ? (uint64_t)(p->has_c ? d->stride_c : d->stride_d) : 0;
  v[MM_SLOT_STRIDE_DB] = batched ? (uint64_t)d->stride_d : 0;
  v[MM_SLOT_STRIDE_DZ] = 0;
  v[MM_SLOT_STRIDE_WZ] = 0;
  v[MM_SLOT_SPLITS] = 1;
  v[MM_SLOT_WS_PTR] = 0;
  v[MM_SLOT_FLAGS_PTR] = 0;
  v[MM_SLOT_BATCH] = (uint64_t)batch;
  v[MM_SLOT_SHARED_TILES] = 0;
  v[MM_SLOT_WAYS] = 1;
  v[MM_SLOT_ALPHA] = scalar_bits(d->alpha, p->acc, 1);
  v[MM_SLOT_BETA] = scalar_bits(d->beta, p->acc, 0);
  float slope = d->leaky_slope;
  v[MM_SLOT_SLOPE] = scalar_bits(&slope, p->acc == MM_ACC_I32 ? MM_ACC_F32 : p->acc, 0);
  if (batched && (d->stride_a < 0 || d->stride_b < 0 || d->stride_d < 0 || (p->has_c && d->stride_c < 0)))
    return INVALID("gemmc_matmul: negative batch stride");
  return mm_status_ok();
}

void gemmc_matmul_desc_init(gemmc_matmul_desc *desc) {
  memset(desc, 0, sizeof *desc);
  desc->transa = desc->transb = GEMMC_OP_N;
  desc->a_type = desc->b_type = desc->c_type = desc->d_type = GEMMC_R_16F;
  desc->compute = GEMMC_COMPUTE_32F;
  desc->activation = GEMMC_ACT_NONE;
  desc->leaky_slope = 0.01f;
  desc->batch_count = 1;
}

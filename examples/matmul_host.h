/* Host code shared by the matmul examples, test/gpu/gemm_suite.c and bench/gemm.c: dtypes, random data, CPU reference, -D constants, compile and launch. */
#ifndef GEMMC_EXAMPLES_MATMUL_HOST_H
#define GEMMC_EXAMPLES_MATMUL_HOST_H

/* Header-only on purpose: the build makes one executable per .c file of examples/ and bench/,
 * so shared code travels as static inline functions (unused ones cost nothing and warn not). */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gemmc/cache.h"
#include "gemmc/gemmc.h"
#include "gemmc/ir.h"
#include "gemmc/runtime.h"
#include "gemmc/target.h"
#include "gemmc/tune.h"

/* ------------------------------------------------------------------ errors */

/* Every fallible helper fills one of these instead of printing, so that callers decide. */
typedef struct mh_error {
  char message[1536];
} mh_error;

static inline bool mh_fail(mh_error *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->message, sizeof e->message, fmt, ap);
  va_end(ap);
  return false;
}

/* Turns a runtime status into false + message ("what: driver words"). */
static inline bool mh_ok(gemmc_status s, const char *what, mh_error *e) {
  if (s.code == GEMMC_OK) return true;
  return mh_fail(e, "%s: %s", what, s.message);
}

/* ------------------------------------------------------------------ element types */

/* E4M3 / E5M2: the fp8 formats (f8E4M3FN, f8E5M2 in the IR; one byte, no arithmetic, only dot
 * inputs). */
typedef enum mh_dtype { MH_F16, MH_BF16, MH_F32, MH_I8, MH_I32, MH_E4M3, MH_E5M2 } mh_dtype;

static inline const char *mh_dtype_name(mh_dtype t) {
  static const char *const names[] = {"f16", "bf16", "f32", "i8", "i32", "f8E4M3FN", "f8E5M2"};
  return names[t];
}
static inline size_t mh_dtype_size(mh_dtype t) {
  static const size_t sizes[] = {2, 2, 4, 1, 4, 1, 1};
  return sizes[t];
}
static inline bool mh_dtype_is_fp8(mh_dtype t) { return t == MH_E4M3 || t == MH_E5M2; }
static inline bool mh_dtype_is_float(mh_dtype t) {
  return t == MH_F16 || t == MH_BF16 || t == MH_F32 || mh_dtype_is_fp8(t);
}

/* Accepts the IR names and the usual long ones (fp16, float16, bfloat16, int8, ...). */
static inline bool mh_dtype_parse(const char *s, mh_dtype *out) {
  static const struct {
    const char *name;
    mh_dtype type;
  } names[] = {{"f16", MH_F16},  {"fp16", MH_F16},      {"float16", MH_F16}, {"half", MH_F16},
               {"bf16", MH_BF16}, {"bfloat16", MH_BF16}, {"f32", MH_F32},     {"fp32", MH_F32},
               {"float32", MH_F32}, {"float", MH_F32},   {"i8", MH_I8},       {"int8", MH_I8},
               {"i32", MH_I32},   {"int32", MH_I32},     {"f8E4M3FN", MH_E4M3}, {"e4m3", MH_E4M3},
               {"fp8", MH_E4M3},  {"f8E5M2", MH_E5M2},   {"e5m2", MH_E5M2}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(s, names[i].name)) {
      *out = names[i].type;
      return true;
    }
  return false;
}

/* Round to nearest even, as the GPU's cvt.rn does. */
static inline uint16_t mh_f32_to_f16_bits(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, absx = x & 0x7fffffffu;
  if (absx > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);      /* NaN */
  if (absx >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);     /* rounds to >= 65520: inf */
  if (absx < 0x38800000u) { /* below 2^-14: an f16 subnormal; scaling by 2^24 is exact */
    float v;
    memcpy(&v, &absx, 4);
    return (uint16_t)(sign | (uint32_t)lrintf(v * 16777216.0f)); /* default mode: nearest even */
  }
  uint32_t h = ((absx - 0x38000000u) >> 13), rest = absx & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;
  return (uint16_t)(sign | h);
}

static inline float mh_f16_bits_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu, x;
  if (exp == 0) {
    float v = ldexpf((float)mant, -24);
    return sign ? -v : v;
  }
  if (exp == 31) x = sign | 0x7f800000u | (mant << 13);
  else x = sign | ((exp + 112) << 23) | (mant << 13);
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static inline uint16_t mh_f32_to_bf16_bits(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN */
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}

static inline float mh_bf16_bits_to_f32(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static inline double mh_fp8_bits_to_double(uint8_t x, int mbits, int bias) {
  int exp = (x & 0x7f) >> mbits, mant = x & ((1 << mbits) - 1);
  double v = exp == 0 ? ldexp(mant, 1 - bias - mbits) : ldexp((1 << mbits) + mant, exp - bias - mbits);
  return x & 0x80 ? -v : v;
}

/* Element i of a buffer of type t, as a double. */
static inline double mh_load(mh_dtype t, const void *buf, size_t i) {
  switch (t) {
  case MH_F16: return mh_f16_bits_to_f32(((const uint16_t *)buf)[i]);
  case MH_BF16: return mh_bf16_bits_to_f32(((const uint16_t *)buf)[i]);
  case MH_F32: return ((const float *)buf)[i];
  case MH_I8: return ((const int8_t *)buf)[i];
  case MH_I32: return ((const int32_t *)buf)[i];
  case MH_E4M3: {
    uint8_t x = ((const uint8_t *)buf)[i];
    return (x & 0x7f) == 0x7f ? NAN : mh_fp8_bits_to_double(x, 3, 7);
  }
  case MH_E5M2: {
    uint8_t x = ((const uint8_t *)buf)[i];
    if ((x & 0x7c) == 0x7c) return (x & 3) ? NAN : (x & 0x80 ? -INFINITY : INFINITY);
    return mh_fp8_bits_to_double(x, 2, 15);
  }
  }
  return NAN;
}

/* Stores v rounded to type t (integers: v must already be integral and in range). */
static inline void mh_store(mh_dtype t, void *buf, size_t i, double v) {
  switch (t) {
  case MH_F16: ((uint16_t *)buf)[i] = mh_f32_to_f16_bits((float)v); break;
  case MH_BF16: ((uint16_t *)buf)[i] = mh_f32_to_bf16_bits((float)v); break;
  case MH_F32: ((float *)buf)[i] = (float)v; break;
  case MH_I8: ((int8_t *)buf)[i] = (int8_t)v; break;
  case MH_I32: ((int32_t *)buf)[i] = (int32_t)v; break;
  /* The same rounding the compiler uses for fp8 constants (nearest even, saturating). */
  case MH_E4M3: ((uint8_t *)buf)[i] = ir_float_to_fp8_bits(FLT_F8E4M3FN, v); break;
  case MH_E5M2: ((uint8_t *)buf)[i] = ir_float_to_fp8_bits(FLT_F8E5M2, v); break;
  }
}

/* ------------------------------------------------------------------ random numbers */

/* splitmix64: small, fast, good enough for test data; the state is the caller's. */
typedef struct mh_rng {
  uint64_t state;
} mh_rng;

static inline uint64_t mh_rng_next(mh_rng *r) {
  uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
/* Uniform in [-1, 1). */
static inline double mh_rng_uniform(mh_rng *r) { return (double)(mh_rng_next(r) >> 11) * 0x1p-52 - 1.0; }

/* A different seed every run (the inputs must be fresh); print it so a failure can be replayed. */
static inline uint64_t mh_fresh_seed(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  mh_rng r = {((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) ^ ((uint64_t)getpid() << 32)};
  return mh_rng_next(&r);
}

/* ------------------------------------------------------------------ the problem */

typedef enum mh_kernel_kind {
  MH_KERNEL_MATMUL,     /* examples/matmul.tir */
  MH_KERNEL_BATCHED,    /* examples/batched_matmul.tir */
  MH_KERNEL_LEAKY_RELU, /* examples/matmul_leaky_relu.tir */
} mh_kernel_kind;

/* One GEMM: C[b] (M x N, row-major) = A[b] (M x K, row-major) x B[b] (K x N, either major),
 * optionally followed by leaky_relu. Strides are in elements. */
typedef struct mh_gemm {
  mh_kernel_kind kind;
  int batch, m, n, k;
  mh_dtype in, acc, out;
  bool tf32;        /* f32 inputs: tt.dot inputPrecision = tf32 (else ieee) */
  bool b_col_major; /* B stored as N x K row-major (cuBLAS' "T") */
  int pad;          /* extra, poisoned elements at the end of every row (leading dim = cols + pad) */
  double alpha, bias; /* leaky_relu: x = acc + bias; x >= 0 ? x : alpha * x */
  double beta;        /* bench-gemm --api --beta: the library calls compute C = A B + beta C in place */
  /* Filled by mh_gemm_layout. */
  int64_t stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn;
  int64_t stride_ab, stride_bb, stride_cb;
  size_t a_elems, b_elems, c_elems; /* whole buffers, pads and the guard included */
} mh_gemm;

/* Elements after the last matrix, poisoned and checked: catches stores (and reads) past the end. */
enum { MH_GUARD_ELEMS = 1024 };

static inline void mh_gemm_layout(mh_gemm *g) {
  int64_t lda = (int64_t)g->k + g->pad, ldc = (int64_t)g->n + g->pad;
  g->stride_am = lda;
  g->stride_ak = 1;
  g->stride_ab = (int64_t)g->m * lda;
  if (g->b_col_major) {
    int64_t ldb = (int64_t)g->k + g->pad;
    g->stride_bk = 1;
    g->stride_bn = ldb;
    g->stride_bb = (int64_t)g->n * ldb;
  } else {
    int64_t ldb = (int64_t)g->n + g->pad;
    g->stride_bk = ldb;
    g->stride_bn = 1;
    g->stride_bb = (int64_t)g->k * ldb;
  }
  g->stride_cm = ldc;
  g->stride_cn = 1;
  g->stride_cb = (int64_t)g->m * ldc;
  int batch = g->batch > 0 ? g->batch : 1;
  g->a_elems = (size_t)(g->stride_ab * batch) + MH_GUARD_ELEMS;
  g->b_elems = (size_t)(g->stride_bb * batch) + MH_GUARD_ELEMS;
  g->c_elems = (size_t)(g->stride_cb * batch) + MH_GUARD_ELEMS;
}

static inline double mh_gemm_flops(const mh_gemm *g) {
  return 2.0 * (g->batch > 0 ? g->batch : 1) * (double)g->m * g->n * g->k;
}

/* "f16 x f16 -> f32 (acc f32)" style description. */
static inline void mh_gemm_dtypes_str(const mh_gemm *g, char *buf, size_t n) {
  snprintf(buf, n, "%s->%s acc=%s%s", mh_dtype_name(g->in), mh_dtype_name(g->out), mh_dtype_name(g->acc),
           g->in == MH_F32 ? (g->tf32 ? " tf32" : " ieee") : "");
}

/* Checks the combinations the kernels and the reference understand. */
static inline bool mh_gemm_check(const mh_gemm *g, mh_error *e) {
  if (g->m <= 0 || g->n <= 0 || g->k <= 0 || (g->kind == MH_KERNEL_BATCHED && g->batch <= 0))
    return mh_fail(e, "sizes must be positive (batch %d, M %d, N %d, K %d)", g->batch, g->m, g->n, g->k);
  bool int_in = g->in == MH_I8;
  if (int_in != (g->acc == MH_I32) || (int_in && g->out != MH_I32))
    return mh_fail(e, "i8 inputs go with an i32 accumulator and i32 output (got %s/%s/%s)", mh_dtype_name(g->in),
                   mh_dtype_name(g->acc), mh_dtype_name(g->out));
  if (!int_in && (!mh_dtype_is_float(g->acc) || !mh_dtype_is_float(g->out) || g->acc == MH_BF16 ||
                  mh_dtype_is_fp8(g->acc) || mh_dtype_is_fp8(g->out)))
    return mh_fail(e, "float inputs need an f32 or f16 accumulator and an f16, bf16 or f32 output");
  if (mh_dtype_size(g->out) > mh_dtype_size(g->acc))
    return mh_fail(e, "the output (%s) may not be wider than the accumulator (%s)", mh_dtype_name(g->out),
                   mh_dtype_name(g->acc));
  if (g->kind == MH_KERNEL_LEAKY_RELU && int_in) return mh_fail(e, "leaky_relu needs a float accumulator");
  int batch = g->batch > 0 ? g->batch : 1;
  double biggest = (double)batch * (double)(g->m > g->n ? g->m : g->n) * ((double)g->k + g->pad);
  if (biggest >= 2147483648.0 || (double)g->m * ((double)g->n + g->pad) * batch >= 2147483648.0)
    return mh_fail(e, "offsets past 2^31 elements: the kernels index with i32");
  return true;
}

/* ------------------------------------------------------------------ host data and reference */

typedef struct mh_host {
  void *a, *b, *c; /* c: what came back from the GPU */
} mh_host;

static inline void mh_host_free(mh_host *h) {
  free(h->a);
  free(h->b);
  free(h->c);
  memset(h, 0, sizeof *h);
}

/* Random A and B; pads and guards hold NaN (floats) or 127 (i8), so a read past a mask shows. */
static inline bool mh_host_init(const mh_gemm *g, mh_rng *rng, mh_host *h, mh_error *e) {
  memset(h, 0, sizeof *h);
  size_t es = mh_dtype_size(g->in);
  h->a = malloc(g->a_elems * es);
  h->b = malloc(g->b_elems * es);
  h->c = malloc(g->c_elems * mh_dtype_size(g->out));
  if (!h->a || !h->b || !h->c) {
    mh_host_free(h);
    return mh_fail(e, "out of host memory");
  }
  int poison = mh_dtype_is_float(g->in) ? 0xff : 0x7f;
  memset(h->a, poison, g->a_elems * es);
  memset(h->b, poison, g->b_elems * es);
  int batch = g->batch > 0 ? g->batch : 1;
  for (int bi = 0; bi < batch; bi++) {
    for (int i = 0; i < g->m; i++)
      for (int k = 0; k < g->k; k++) {
        double v = g->in == MH_I8 ? (double)(int)(mh_rng_next(rng) % 256) - 128 : mh_rng_uniform(rng);
        mh_store(g->in, h->a, (size_t)(bi * g->stride_ab + i * g->stride_am + k * g->stride_ak), v);
      }
    for (int k = 0; k < g->k; k++)
      for (int j = 0; j < g->n; j++) {
        double v = g->in == MH_I8 ? (double)(int)(mh_rng_next(rng) % 256) - 128 : mh_rng_uniform(rng);
        mh_store(g->in, h->b, (size_t)(bi * g->stride_bb + k * g->stride_bk + j * g->stride_bn), v);
      }
  }
  return true;
}

/* Bytes an untouched output element keeps: 0xff everywhere (NaN for floats). */
enum { MH_OUTPUT_POISON = 0xff };

/* The error bound, relative to sum_k |a_ik * b_kj|: rounding of the output, of tf32 inputs and
 * of the accumulation (random-walk growth sqrt(K), doubled for safety). Integers are exact. */
static inline double mh_error_bound(const mh_gemm *g) {
  if (g->in == MH_I8) return 0.0;
  double u_out = g->out == MH_F16 ? 0x1p-11 : g->out == MH_BF16 ? 0x1p-8 : 0x1p-24;
  double u_acc = g->acc == MH_F16 ? 0x1p-11 : 0x1p-24;
  double u_in = g->in == MH_F32 && g->tf32 ? 0x1p-10 : 0.0; /* tf32 may truncate: one ulp */
  /* fp8 inputs are exact (the reference reads the same bytes), but Hopper's fp8 tensor cores
   * add the products with fewer mantissa bits than f32 (about 13 are kept). */
  if (mh_dtype_is_fp8(g->in) && g->acc == MH_F32) u_acc = 0x1p-13;
  double bound = 2 * u_out + 2 * u_in + 2 * sqrt((double)g->k) * u_acc;
  return bound < 1e-5 ? 1e-5 : bound; /* f32: summation order alone differs by ~1e-6 */
}

typedef struct mh_check_result {
  long long checked, bad, nan, stray; /* stray: pad or guard elements that lost their poison */
  double max_err, bound;              /* relative to sum |a*b| (+|bias|) */
  int worst_b, worst_i, worst_j;
  double worst_got, worst_want;
  bool sampled; /* only some rows were checked (huge problems) */
} mh_check_result;

/* Compares h->c with a double-precision reference. Problems above ~2^30 multiply-adds check a
 * sample of rows (first, last and random ones), which still sees every column and tile edge. */
static inline bool mh_check(const mh_gemm *g, const mh_host *h, mh_rng *rng, mh_check_result *r, mh_error *e) {
  memset(r, 0, sizeof *r);
  r->bound = mh_error_bound(g);
  int batch = g->batch > 0 ? g->batch : 1;
  double *arow = malloc((size_t)g->k * sizeof *arow), *bt = malloc((size_t)g->k * g->n * sizeof *bt);
  if (!arow || !bt) {
    free(arow);
    free(bt);
    return mh_fail(e, "out of host memory for the reference");
  }
  double macs = (double)batch * g->m * g->n * g->k;
  int rows_per_batch = g->m;
  if (macs > 1073741824.0) {
    r->sampled = true;
    rows_per_batch = (int)(1073741824.0 / ((double)batch * g->n * g->k));
    if (rows_per_batch < 4) rows_per_batch = 4;
    if (rows_per_batch > g->m) rows_per_batch = g->m;
  }
  for (int bi = 0; bi < batch; bi++) {
    for (int k = 0; k < g->k; k++) /* B transposed: the inner loop reads memory in order */
      for (int j = 0; j < g->n; j++)
        bt[(size_t)j * g->k + k] = mh_load(g->in, h->b, (size_t)(bi * g->stride_bb + k * g->stride_bk + j * g->stride_bn));
    for (int ri = 0; ri < rows_per_batch; ri++) {
      int i = ri;
      if (r->sampled) i = ri == 0 ? 0 : ri == 1 ? g->m - 1 : (int)(mh_rng_next(rng) % (uint64_t)g->m);
      for (int k = 0; k < g->k; k++)
        arow[k] = mh_load(g->in, h->a, (size_t)(bi * g->stride_ab + i * g->stride_am + k * g->stride_ak));
      for (int j = 0; j < g->n; j++) {
        const double *bcol = bt + (size_t)j * g->k;
        double sum = 0, abs_sum = 0;
        for (int k = 0; k < g->k; k++) {
          double p = arow[k] * bcol[k];
          sum += p;
          abs_sum += fabs(p);
        }
        if (g->kind == MH_KERNEL_LEAKY_RELU) {
          sum += g->bias;
          abs_sum += fabs(g->bias);
          if (!(sum >= 0)) sum *= g->alpha;
        }
        double got = mh_load(g->out, h->c, (size_t)(bi * g->stride_cb + i * g->stride_cm + j * g->stride_cn));
        double err;
        if (g->out == MH_I32) err = got == sum ? 0.0 : INFINITY;
        else err = fabs(got - sum) / (abs_sum > 1e-30 ? abs_sum : 1e-30);
        r->checked++;
        if (isnan(got)) r->nan++;
        double score = isnan(err) ? INFINITY : err;
        if (score > r->bound) r->bad++;
        if (r->checked == 1 || score > r->max_err) {
          r->max_err = score;
          r->worst_b = bi, r->worst_i = i, r->worst_j = j, r->worst_got = got, r->worst_want = sum;
        }
      }
    }
  }
  free(arow);
  free(bt);
  /* Pads (row ends) and the guard must still hold the poison: the kernel writes only M x N. */
  const unsigned char *cb = h->c;
  size_t es = mh_dtype_size(g->out);
  for (int bi = 0; bi < batch; bi++)
    for (int i = 0; i < g->m; i++)
      for (int j = g->n; j < g->n + g->pad; j++) {
        size_t at = (size_t)(bi * g->stride_cb + i * g->stride_cm + j) * es;
        for (size_t q = 0; q < es; q++) r->stray += cb[at + q] != MH_OUTPUT_POISON;
      }
  for (size_t q = (g->c_elems - MH_GUARD_ELEMS) * es; q < g->c_elems * es; q++) r->stray += cb[q] != MH_OUTPUT_POISON;
  return true;
}

static inline bool mh_check_passed(const mh_check_result *r) { return r->bad == 0 && r->stray == 0 && r->checked > 0; }

/* "max_rel_err=1.2e-04 (bound 9.8e-04)" plus, on failure, where and what. */
static inline void mh_check_str(const mh_check_result *r, char *buf, size_t n) {
  int len = snprintf(buf, n, "max_rel_err=%.2e (bound %.2e)%s", r->max_err, r->bound, r->sampled ? " sampled rows" : "");
  if (len < 0 || (size_t)len >= n) return;
  if (r->bad || r->stray)
    snprintf(buf + len, n - (size_t)len, "; %lld/%lld wrong (%lld NaN), %lld stray bytes; worst C[%d][%d][%d]=%g want %g",
             r->bad, r->checked, r->nan, r->stray, r->worst_b, r->worst_i, r->worst_j, r->worst_got, r->worst_want);
}

/* ------------------------------------------------------------------ configs and -D constants */

/* One point of the seed's autotuning space; num_stages is the depth of the K loop's cp.async
 * ring (gemmc_compile_options.num_stages). */
/* A config's sm_90+ operand path: the compiler's default (TMA and warp specialization where
 * measured faster), TMA without warp specialization (":tma"), cp.async only (":cp"), or
 * warp-specialized with ping-pong consumer groups instead of pairs (":pp", 4-warp kernels), or
 * warp-specialized and launched in 2-block clusters (":cl2": 8-warp kernels share B tiles, 4-warp pairs A;
 * cluster_size 2), or warp-specialized wherever legal (":ws", GEMMC_WARP_SPECIALIZE_ON: the
 * 8-warp kernels the default leaves on cp.async rings). */
typedef enum mh_path {
  MH_PATH_AUTO,
  MH_PATH_TMA,
  MH_PATH_CP,
  MH_PATH_PING_PONG,
  MH_PATH_CLUSTER,
  MH_PATH_WS,
  MH_NUM_PATHS
} mh_path;
/* Each path's config-string suffix (after ':'). */
static const char *const mh_path_suffix[MH_NUM_PATHS] = {"", "tma", "cp", "pp", "cl2", "ws"};

typedef struct mh_config {
  int block_m, block_n, block_k, group_m, num_warps, num_stages;
  mh_path path;
} mh_config;

/* The seed's CUDA config list (triton.Config(...) in the tutorial's autotune decorator). */
static const mh_config mh_seed_configs[] = {
    {128, 256, 64, 8, 8, 3, 0}, {64, 256, 32, 8, 4, 4, 0}, {128, 128, 32, 8, 4, 4, 0}, {128, 64, 32, 8, 4, 4, 0},
    {64, 128, 32, 8, 4, 4, 0},  {128, 32, 32, 8, 4, 4, 0}, {64, 32, 32, 8, 2, 5, 0},   {32, 64, 32, 8, 2, 5, 0},
};
enum { MH_NUM_SEED_CONFIGS = sizeof mh_seed_configs / sizeof mh_seed_configs[0] };
/* The Triton 3.6 dump's config (shared/triton-3.6/matmul_128x128x64_s3_w4.ttir). */
static const mh_config mh_default_config = {128, 128, 64, 8, 4, 3, 0};

/* "128x128x64" with optional ":g8", ":w4", ":s3" parts in any order (also "128x128x64:8:4:3"). */
static inline bool mh_config_parse(const char *s, mh_config *c) {
  mh_config r = mh_default_config;
  int used = 0;
  if (sscanf(s, "%dx%dx%d%n", &r.block_m, &r.block_n, &r.block_k, &used) != 3) return false;
  const char *p = s + used;
  int position = 0;
  while (*p == ':') {
    p++;
    mh_path path = MH_PATH_AUTO;
    for (int k = MH_PATH_TMA; k < MH_NUM_PATHS && !path; k++)
      if (!strncmp(p, mh_path_suffix[k], strlen(mh_path_suffix[k]))) path = (mh_path)k;
    if (path) {
      r.path = path;
      p += strlen(mh_path_suffix[path]);
      continue;
    }
    char tag = 0;
    if (*p == 'g' || *p == 'w' || *p == 's') tag = *p++;
    else tag = position == 0 ? 'g' : position == 1 ? 'w' : 's';
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || v <= 0 || v > 1024) return false;
    if (tag == 'g') r.group_m = (int)v;
    else if (tag == 'w') r.num_warps = (int)v;
    else r.num_stages = (int)v;
    p = end;
    position++;
  }
  if (*p || r.block_m <= 0 || r.block_n <= 0 || r.block_k <= 0) return false;
  *c = r;
  return true;
}

static inline void mh_config_str(const mh_config *c, char *buf, size_t n) {
  snprintf(buf, n, "%dx%dx%d:g%d:w%d:s%d%s%s", c->block_m, c->block_n, c->block_k, c->group_m, c->num_warps,
           c->num_stages, c->path ? ":" : "", mh_path_suffix[c->path]);
}

enum { MH_MAX_DEFINES = 64, MH_DEFINE_CHARS = 48 };

/* A list of -D NAME=VALUE, with its own storage for the strings. */
typedef struct mh_defines {
  gemmc_define items[MH_MAX_DEFINES];
  char names[MH_MAX_DEFINES][MH_DEFINE_CHARS];
  char values[MH_MAX_DEFINES][MH_DEFINE_CHARS];
  int count;
} mh_defines;

/* Adds or replaces NAME (the last value wins, as with repeated -D). False when full or too long. */
static inline bool mh_defines_set(mh_defines *d, const char *name, const char *value) {
  if (strlen(name) >= MH_DEFINE_CHARS || strlen(value) >= MH_DEFINE_CHARS) return false;
  int i = 0;
  while (i < d->count && strcmp(d->names[i], name)) i++;
  if (i == d->count) {
    if (d->count == MH_MAX_DEFINES) return false;
    d->count++;
  }
  snprintf(d->names[i], MH_DEFINE_CHARS, "%s", name);
  snprintf(d->values[i], MH_DEFINE_CHARS, "%s", value);
  for (int k = 0; k < d->count; k++) d->items[k] = (gemmc_define){d->names[k], d->values[k]};
  return true;
}
static inline bool mh_defines_set_int(mh_defines *d, const char *name, long long v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", v);
  return mh_defines_set(d, name, buf);
}
/* "NAME=VALUE" as written on a command line. */
static inline bool mh_defines_set_arg(mh_defines *d, const char *arg) {
  const char *eq = strchr(arg, '=');
  char name[MH_DEFINE_CHARS];
  if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof name) return false;
  memcpy(name, arg, (size_t)(eq - arg));
  name[eq - arg] = 0;
  return mh_defines_set(d, name, eq + 1);
}
static inline void mh_defines_str(const mh_defines *d, char *buf, size_t n) {
  size_t at = 0;
  buf[0] = 0;
  for (int i = 0; i < d->count && at < n; i++) {
    int w = snprintf(buf + at, n - at, "%s-D %s=%s", i ? " " : "", d->names[i], d->values[i]);
    if (w < 0) break;
    at += (size_t)w;
  }
}

/* Triton's divisibility specialization, generalized: the largest power of two up to 16 that
 * divides v (0 counts as divisible by anything). */
static inline int mh_divisibility(int64_t v) {
  if (v < 0) v = -v;
  if (v == 0) return 16;
  int d = 1;
  while (d < 16 && v % (d * 2) == 0) d *= 2;
  return d;
}

/* A named scalar argument of the kernels (name as in the .tir signature). */
typedef struct mh_arg {
  const char *name;
  int64_t value;
} mh_arg;

enum { MH_MAX_ARGS = 16 };

/* The integer arguments of g's kernel, by name (pointers come separately). */
static inline int mh_gemm_int_args(const mh_gemm *g, mh_arg *args) {
  int n = 0;
  args[n++] = (mh_arg){"M", g->m};
  args[n++] = (mh_arg){"N", g->n};
  args[n++] = (mh_arg){"K", g->k};
  args[n++] = (mh_arg){"stride_am", g->stride_am};
  args[n++] = (mh_arg){"stride_ak", g->stride_ak};
  args[n++] = (mh_arg){"stride_bk", g->stride_bk};
  args[n++] = (mh_arg){"stride_bn", g->stride_bn};
  args[n++] = (mh_arg){"stride_cm", g->stride_cm};
  args[n++] = (mh_arg){"stride_cn", g->stride_cn};
  if (g->kind == MH_KERNEL_BATCHED) {
    args[n++] = (mh_arg){"batch", g->batch};
    args[n++] = (mh_arg){"stride_ab", g->stride_ab};
    args[n++] = (mh_arg){"stride_bb", g->stride_bb};
    args[n++] = (mh_arg){"stride_cb", g->stride_cb};
  }
  return n;
}

/* Every -D constant the .tir of g's kind declares, for g and config c: tiles, dtypes, which
 * strides are the constant 1, and the divisibility of each integer argument. */
static inline bool mh_gemm_defines(const mh_gemm *g, const mh_config *c, mh_defines *d, mh_error *e) {
  bool ok = mh_defines_set_int(d, "BLOCK_M", c->block_m) && mh_defines_set_int(d, "BLOCK_N", c->block_n) &&
            mh_defines_set_int(d, "BLOCK_K", c->block_k) && mh_defines_set_int(d, "GROUP_SIZE_M", c->group_m);
  ok = ok && mh_defines_set(d, "DT", mh_dtype_name(g->in)) && mh_defines_set(d, "ACC", mh_dtype_name(g->acc)) &&
       mh_defines_set(d, "OUT", mh_dtype_name(g->out)) &&
       mh_defines_set(d, "CVT", g->acc == g->out ? "arith.bitcast" : g->in == MH_I8 ? "arith.trunci" : "arith.truncf") &&
       mh_defines_set(d, "ZERO", g->in == MH_I8 ? "0" : "0.000000e+00") &&
       mh_defines_set(d, "PRECISION", g->in == MH_F32 && !g->tf32 ? "ieee" : "tf32");
  mh_arg args[MH_MAX_ARGS];
  int nargs = mh_gemm_int_args(g, args);
  for (int i = 0; i < nargs; i++) {
    char name[2 * MH_DEFINE_CHARS], upper[MH_DEFINE_CHARS];
    size_t len = strlen(args[i].name);
    for (size_t q = 0; q <= len; q++) upper[q] = (char)(args[i].name[q] >= 'a' && args[i].name[q] <= 'z' ? args[i].name[q] - 32 : args[i].name[q]);
    snprintf(name, sizeof name, "DIV_%s", upper);
    ok = ok && mh_defines_set_int(d, name, mh_divisibility(args[i].value));
    /* STRIDE_XY: the argument, or the constant 1 when it is 1 (then axis-info sees contiguity). */
    bool batch_stride = !strncmp(args[i].name, "stride_", 7) && args[i].name[8] == 'b'; /* stride_ab... */
    if (!strncmp(args[i].name, "stride_", 7) && !batch_stride) {
      char value[MH_DEFINE_CHARS];
      snprintf(name, sizeof name, "%s", upper);
      snprintf(value, sizeof value, args[i].value == 1 ? "%%c1_i32" : "%%%s", args[i].name);
      ok = ok && mh_defines_set(d, name, value);
    }
  }
  if (g->kind == MH_KERNEL_LEAKY_RELU) {
    char v[MH_DEFINE_CHARS];
    snprintf(v, sizeof v, "%.9e", g->alpha);
    ok = ok && mh_defines_set(d, "ALPHA", v);
    snprintf(v, sizeof v, "%.9e", g->bias);
    ok = ok && mh_defines_set(d, "BIAS", v);
  }
  return ok ? true : mh_fail(e, "too many -D constants");
}

/* ------------------------------------------------------------------ compile, load, launch */

static inline bool mh_read_file(const char *path, char **text, size_t *len, mh_error *e) {
  FILE *f = fopen(path, "rb");
  if (!f) return mh_fail(e, "cannot open %s: %s", path, strerror(errno));
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    char *grown = realloc(buf, cap * 2);
    if (!grown) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = grown;
    cap *= 2;
  }
  bool bad = ferror(f);
  fclose(f);
  if (!buf || bad) {
    free(buf);
    return mh_fail(e, "cannot read %s", path);
  }
  *text = buf;
  *len = n;
  return true;
}

/* The compile options a config sets: warps, stages (when given) and its sm_90 operand path (every
 * build of a config goes through here, so ":cp" means cp.async wherever a config is compiled). */
static inline void mh_config_options(const mh_config *c, gemmc_compile_options *opts) {
  opts->num_warps = c->num_warps;
  if (c->num_stages > 0) opts->num_stages = c->num_stages;
  if (c->path == MH_PATH_TMA || c->path == MH_PATH_CP) opts->warp_specialize = -1;
  if (c->path == MH_PATH_PING_PONG) opts->warp_specialize = GEMMC_WARP_SPECIALIZE_PING_PONG;
  if (c->path == MH_PATH_TMA) opts->tma = 1;
  if (c->path == MH_PATH_CP) opts->tma = -1;
  if (c->path == MH_PATH_CLUSTER) opts->cluster_size = 2;
  if (c->path == MH_PATH_WS) opts->warp_specialize = GEMMC_WARP_SPECIALIZE_ON;
}

/* The .tir of a kernel kind: `explicit_path` when given, else NAME.tir in $GEMMC_EXAMPLES_DIR
 * (binaries that travel to another machine), else examples/ of the current folder (the
 * repository root), else the source tree's examples/ the build recorded. */
static inline const char *mh_default_tir(mh_kernel_kind kind) {
  return kind == MH_KERNEL_BATCHED ? "batched_matmul.tir" : kind == MH_KERNEL_LEAKY_RELU ? "matmul_leaky_relu.tir" : "matmul.tir";
}
#ifndef GEMMC_EXAMPLES_DIR
#define GEMMC_EXAMPLES_DIR "examples"
#endif
static inline void mh_find_tir(mh_kernel_kind kind, const char *explicit_path, char *out, size_t n) {
  if (explicit_path) {
    snprintf(out, n, "%s", explicit_path);
    return;
  }
  const char *env = getenv("GEMMC_EXAMPLES_DIR");
  if (env && *env) {
    snprintf(out, n, "%s/%s", env, mh_default_tir(kind));
    return;
  }
  snprintf(out, n, "examples/%s", mh_default_tir(kind));
  if (access(out, R_OK) == 0) return;
  snprintf(out, n, "%s/%s", GEMMC_EXAMPLES_DIR, mh_default_tir(kind));
}

/* A compiled kernel, loaded when a runtime is given. Owns its gemmc context, or (from mh_tune) the
 * kernel image its metadata lives in. */
typedef struct mh_kernel {
  gemmc_context *ctx;
  gemmc_compiled *compiled;
  gemmc_kernel_image *image;
  const gemmc_kernel_metadata *meta;
  gemmc_runtime_module *module;
  gemmc_runtime_kernel *fn;
  double compile_seconds;
} mh_kernel;

static inline void mh_kernel_destroy(gemmc_runtime *rt, mh_kernel *k) {
  if (k->module && rt) gemmc_runtime_module_unload(rt, k->module);
  gemmc_compiled_destroy(k->compiled);
  if (k->ctx) gemmc_context_destroy(k->ctx);
  gemmc_kernel_image_destroy(k->image);
  memset(k, 0, sizeof *k);
}

static inline double mh_now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Compiles `path` with the defines and config (num_warps) for `target`, and loads it into rt
 * when rt is not NULL. On failure the message holds gemmc's diagnostics or the driver's log. */
static inline bool mh_kernel_build(gemmc_runtime *rt, const char *path, const mh_config *c, const mh_defines *d,
                                   const char *target, mh_kernel *k, mh_error *e) {
  memset(k, 0, sizeof *k);
  char *text = NULL;
  size_t len = 0;
  if (!mh_read_file(path, &text, &len, e)) return false;
  k->ctx = gemmc_context_create();
  if (!k->ctx) {
    free(text);
    return mh_fail(e, "out of memory creating a gemmc context");
  }
  gemmc_compile_options opts;
  gemmc_compile_options_init(&opts);
  opts.target = target;
  /* AMD targets end in a linked code object, NVIDIA ones in PTX the driver JITs. */
  const gemmc_target *t = gemmc_target_lookup(target, NULL, 0);
  bool amd = t && t->arch == GEMMC_ARCH_AMDGPU;
  if (amd) opts.stage = GEMMC_STAGE_HSACO;
  mh_config_options(c, &opts);
  opts.defines = d->items;
  opts.num_defines = d->count;
  double t0 = mh_now_seconds();
  bool ok = gemmc_compile(k->ctx, text, len, path, &opts, &k->compiled);
  k->compile_seconds = mh_now_seconds() - t0;
  free(text);
  if (!ok) {
    char defs[1024];
    mh_defines_str(d, defs, sizeof defs);
    mh_fail(e, "gemmc could not compile %s (num_warps %d, %s):\n%s", path, c->num_warps, defs,
            k->compiled ? gemmc_compiled_diagnostics(k->compiled) : "out of memory");
    mh_kernel_destroy(rt, k);
    return false;
  }
  k->meta = gemmc_compiled_kernel(k->compiled);
  if (!rt) return true;
  size_t image_len = 0;
  const void *image = amd ? gemmc_compiled_hsaco(k->compiled, &image_len) : gemmc_compiled_ptx(k->compiled, &image_len);
  if (!image || !k->meta) {
    mh_kernel_destroy(rt, k);
    return mh_fail(e, "gemmc returned no %s for %s", amd ? "code object" : "PTX", path);
  }
  if (!amd) image_len++; /* the PTX's NUL */
  if (!mh_ok(gemmc_runtime_module_load(rt, image, image_len, &k->module), amd ? "loading the code object" : "loading the PTX", e) ||
      !mh_ok(gemmc_runtime_module_get_kernel(rt, k->module, k->meta->name, &k->fn), "finding the kernel", e)) {
    mh_kernel_destroy(rt, k);
    return false;
  }
  if (k->meta->dynamic_shared_bytes > 48 * 1024 &&
      !mh_ok(gemmc_runtime_kernel_set_max_dynamic_shared(rt, k->fn, (int)k->meta->dynamic_shared_bytes),
             "opting in to dynamic shared memory", e)) {
    mh_kernel_destroy(rt, k);
    return false;
  }
  return true;
}

/* Kernel arguments in signature order, from names: pointers a_ptr/b_ptr/c_ptr and the integers.
 * Values are checked against the divisibility the kernel was compiled to assume. */
typedef struct mh_launch_args {
  void *slots[MH_MAX_ARGS];
  gemmc_devptr ptrs[MH_MAX_ARGS];
  int32_t ints[MH_MAX_ARGS];
} mh_launch_args;

static inline bool mh_launch_args_fill(const gemmc_kernel_metadata *meta, gemmc_devptr a, gemmc_devptr b, gemmc_devptr c,
                                       const mh_arg *ints, int nints, mh_launch_args *out, mh_error *e) {
  if (meta->num_args > MH_MAX_ARGS) return mh_fail(e, "kernel %s has %d arguments", meta->name, meta->num_args);
  for (int i = 0; i < meta->num_args; i++) {
    const gemmc_kernel_arg *arg = &meta->args[i];
    if (arg->kind == GEMMC_ARG_POINTER) {
      gemmc_devptr p = !strcmp(arg->name, "a_ptr") ? a : !strcmp(arg->name, "b_ptr") ? b : !strcmp(arg->name, "c_ptr") ? c : 0;
      if (!p) return mh_fail(e, "kernel argument %d '%s' is not a_ptr, b_ptr or c_ptr", i, arg->name);
      if (arg->divisibility > 1 && p % (uint64_t)arg->divisibility)
        return mh_fail(e, "%s = 0x%llx breaks tt.divisibility = %d", arg->name, (unsigned long long)p, arg->divisibility);
      out->ptrs[i] = p;
      out->slots[i] = &out->ptrs[i];
      continue;
    }
    int j = 0;
    while (j < nints && strcmp(ints[j].name, arg->name)) j++;
    if (j == nints) return mh_fail(e, "kernel argument %d '%s' is unknown to this host program", i, arg->name);
    if (arg->kind != GEMMC_ARG_INT || arg->size_bytes != 4)
      return mh_fail(e, "kernel argument '%s' has type %s; expected i32", arg->name, arg->type);
    if (arg->divisibility > 1 && ints[j].value % arg->divisibility)
      return mh_fail(e, "%s = %lld breaks tt.divisibility = %d (compile with -D DIV_... matching the values)", arg->name,
                     (long long)ints[j].value, arg->divisibility);
    out->ints[i] = (int32_t)ints[j].value;
    out->slots[i] = &out->ints[i];
  }
  return true;
}

/* Device buffers of one problem. */
typedef struct mh_device {
  gemmc_devptr a, b, c;
} mh_device;

static inline void mh_device_free(gemmc_runtime *rt, mh_device *d) {
  if (d->a) gemmc_runtime_mem_free(rt, d->a);
  if (d->b) gemmc_runtime_mem_free(rt, d->b);
  if (d->c) gemmc_runtime_mem_free(rt, d->c);
  memset(d, 0, sizeof *d);
}

/* Allocates, uploads A and B, poisons C (0xff: NaN for floats). */
static inline bool mh_device_init(gemmc_runtime *rt, const mh_gemm *g, const mh_host *h, mh_device *d, mh_error *e) {
  memset(d, 0, sizeof *d);
  size_t ai = g->a_elems * mh_dtype_size(g->in), bi = g->b_elems * mh_dtype_size(g->in),
         cb = g->c_elems * mh_dtype_size(g->out);
  bool ok = mh_ok(gemmc_runtime_mem_alloc(rt, ai, &d->a), "allocating A", e) &&
            mh_ok(gemmc_runtime_mem_alloc(rt, bi, &d->b), "allocating B", e) &&
            mh_ok(gemmc_runtime_mem_alloc(rt, cb, &d->c), "allocating C", e) &&
            mh_ok(gemmc_runtime_copy_htod(rt, d->a, h->a, ai), "uploading A", e) &&
            mh_ok(gemmc_runtime_copy_htod(rt, d->b, h->b, bi), "uploading B", e) &&
            mh_ok(gemmc_runtime_memset_d8(rt, d->c, MH_OUTPUT_POISON, cb), "poisoning C", e);
  if (!ok) mh_device_free(rt, d);
  return ok;
}

/* The launch grid: tiles of C on x, the batch on y. */
static inline gemmc_launch_config mh_launch_config(const mh_gemm *g, const mh_config *c, const gemmc_kernel_metadata *meta) {
  gemmc_launch_config lc;
  memset(&lc, 0, sizeof lc);
  unsigned tiles = (unsigned)((g->m + c->block_m - 1) / c->block_m) * (unsigned)((g->n + c->block_n - 1) / c->block_n);
  lc.grid[0] = tiles;
  lc.grid[1] = g->kind == MH_KERNEL_BATCHED ? (unsigned)g->batch : 1;
  lc.grid[2] = 1;
  lc.block[0] = (unsigned)meta->threads_per_block;
  lc.block[1] = lc.block[2] = 1;
  lc.dynamic_shared_bytes = (unsigned)meta->dynamic_shared_bytes;
  lc.cluster_x = gemmc_launch_cluster_x(meta->cluster_size, tiles);
  return lc;
}

/* Launches k on g's buffers on `stream` (asynchronous; NULL: the default stream). */
static inline bool mh_launch_on(gemmc_runtime *rt, const mh_kernel *k, const mh_gemm *g, const mh_config *c,
                                gemmc_devptr a, gemmc_devptr b, gemmc_devptr cc, gemmc_runtime_stream *stream,
                                mh_error *e) {
  mh_arg ints[MH_MAX_ARGS];
  int nints = mh_gemm_int_args(g, ints);
  mh_launch_args la;
  if (!mh_launch_args_fill(k->meta, a, b, cc, ints, nints, &la, e)) return false;
  gemmc_launch_config lc = mh_launch_config(g, c, k->meta);
  lc.stream = stream;
  return mh_ok(gemmc_runtime_launch(rt, k->fn, &lc, la.slots), "launching the kernel", e);
}

static inline bool mh_launch(gemmc_runtime *rt, const mh_kernel *k, const mh_gemm *g, const mh_config *c,
                             gemmc_devptr a, gemmc_devptr b, gemmc_devptr cc, mh_error *e) {
  return mh_launch_on(rt, k, g, c, a, b, cc, NULL, e);
}

/* Opens the backend's driver. CUDA: *rt is NULL and true is returned when there is no driver (a
 * normal outcome on build machines, where the programs still compile). HIP: no runtime is an
 * error, because nothing can be checked without one (the message is the runtime's one line). */
static inline bool mh_runtime_open_backend(gemmc_backend backend, gemmc_runtime **rt, mh_error *e) {
  *rt = NULL;
  gemmc_status s = gemmc_runtime_create(backend, 0, rt);
  if (s.code == GEMMC_OK) return true;
  *rt = NULL;
  if (s.code == GEMMC_ERROR_NO_DRIVER && backend == GEMMC_BACKEND_CUDA) {
    snprintf(e->message, sizeof e->message, "%s", s.message);
    return true;
  }
  if (s.code == GEMMC_ERROR_NO_DRIVER) return mh_fail(e, "%s", s.message);
  return mh_fail(e, "opening the %s runtime: %s", backend == GEMMC_BACKEND_HIP ? "HIP" : "CUDA", s.message);
}

static inline bool mh_runtime_open(gemmc_runtime **rt, mh_error *e) {
  return mh_runtime_open_backend(GEMMC_BACKEND_CUDA, rt, e);
}

/* The gemmc target for the device (sm_90a on Hopper, gfx942 on MI300), or sm_90a without one. */
static inline const char *mh_target(gemmc_runtime *rt) {
  const gemmc_device_info *info = rt ? gemmc_runtime_device_info(rt) : NULL;
  if (info && info->target_name[0]) return info->target_name;
  return info && info->backend == GEMMC_BACKEND_HIP ? "gfx942" : "sm_90a";
}

/* "cuda" or "hip" (the examples' --backend). */
static inline bool mh_backend_parse(const char *s, gemmc_backend *out) {
  if (!strcmp(s, "cuda")) *out = GEMMC_BACKEND_CUDA;
  else if (!strcmp(s, "hip")) *out = GEMMC_BACKEND_HIP;
  else return false;
  return true;
}

/* ------------------------------------------------------------------ tuning a config list */

/* One config's outcome in mh_tune. */
typedef struct mh_tuned {
  mh_config config;
  bool ok;
  char error[512];
  double compile_ms, jit_ms; /* in its compile thread; compile_ms of a cache hit is the read */
  bool cache_hit;
  gemmc_tune_timing timing; /* when timed */
  gemmc_kernel_info info;   /* registers, spills (when loaded) */
} mh_tuned;

/* Buffers mh_tune launches on: `sets` copies of A, B and C, used in turn (inputs larger than L2). */
typedef struct mh_tune_buffers {
  const gemmc_devptr *a, *b, *c;
  int sets;
} mh_tune_buffers;

typedef struct mh_tune_launch_state {
  gemmc_runtime *rt;
  const mh_kernel *k;
  const mh_gemm *g;
  const mh_config *c;
  const mh_tune_buffers *buf;
} mh_tune_launch_state;

static inline bool mh_tune_launch(void *user, int index, char *err, size_t errlen) {
  mh_tune_launch_state *s = user;
  int set = index % s->buf->sets;
  mh_error e;
  if (mh_launch(s->rt, s->k, s->g, s->c, s->buf->a[set], s->buf->b[set], s->buf->c[set], &e)) return true;
  snprintf(err, errlen, "%s", e.message);
  return false;
}

/* gemmc's one tuner (gemmc/tune.h) on the examples' matmul kernels: compiles `path` for every
 * config in parallel through `cache` (with the driver's JIT when rt is given), then loads and
 * times each on buf (samples, CUDA events). Without rt it only compiles (compile times).
 * results[i] belongs to configs[i]; *best is the fastest (-1 when none ran); with best_kernel
 * the fastest stays loaded there for the caller (mh_kernel_destroy). *wall_ms: the compile
 * batch's wall time (all configs, parallel, on `threads` threads: 0 is one per CPU). */
static inline bool mh_tune(gemmc_runtime *rt, gemmc_cache *cache, const mh_gemm *g, const char *path, const char *target,
                           const mh_config *configs, int n, const mh_tune_buffers *buf, int samples, int threads,
                           FILE *progress,
                           mh_tuned *results, int *best, mh_kernel *best_kernel, double *wall_ms, mh_error *e) {
  *best = -1;
  if (best_kernel) memset(best_kernel, 0, sizeof *best_kernel);
  char *text = NULL;
  size_t len = 0;
  if (!mh_read_file(path, &text, &len, e)) return false;
  mh_defines *defs = calloc((size_t)n, sizeof *defs);
  gemmc_tune_source *src = calloc((size_t)n, sizeof *src);
  gemmc_tune_compiled *built = calloc((size_t)n, sizeof *built);
  char (*labels)[64] = calloc((size_t)n, sizeof *labels);
  if (!defs || !src || !built || !labels) {
    free(text), free(defs), free(src), free(built), free(labels);
    return mh_fail(e, "out of memory");
  }
  for (int i = 0; i < n; i++) {
    memset(&results[i], 0, sizeof results[i]);
    results[i].config = configs[i];
    mh_config_str(&configs[i], labels[i], sizeof labels[i]);
    mh_gemm_defines(g, &configs[i], &defs[i], e);
    src[i].label = labels[i];
    src[i].text = text;
    src[i].len = len;
    src[i].filename = path;
    gemmc_compile_options_init(&src[i].options);
    src[i].options.target = target;
    mh_config_options(&configs[i], &src[i].options);
    src[i].options.defines = defs[i].items;
    src[i].options.num_defines = defs[i].count;
  }
  int driver = rt ? gemmc_runtime_device_info(rt)->driver_version : 0;
  gemmc_status st = gemmc_tune_compile(rt, cache, driver, src, n, threads, progress, built, wall_ms);
  bool ok = mh_ok(st, "compiling the configs", e);
  for (int i = 0; ok && i < n; i++) {
    mh_tuned *r = &results[i];
    r->ok = built[i].ok;
    r->compile_ms = built[i].compile_ms;
    r->jit_ms = built[i].jit_ms;
    r->cache_hit = built[i].cache_hit;
    snprintf(r->error, sizeof r->error, "%.500s", built[i].error);
    if (!r->ok || !rt) continue;
    mh_kernel k;
    memset(&k, 0, sizeof k);
    k.image = built[i].image;
    built[i].image = NULL;
    k.meta = gemmc_kernel_image_metadata(k.image);
    k.compile_seconds = (r->compile_ms + r->jit_ms) / 1e3;
    st = gemmc_cache_load(rt, cache, k.image, &k.module, &k.fn);
    if (st.code == GEMMC_OK) gemmc_runtime_kernel_get_info(rt, k.fn, &r->info);
    mh_tune_launch_state ls = {rt, &k, g, &configs[i], buf};
    if (st.code == GEMMC_OK) st = gemmc_tune_time(rt, NULL, mh_tune_launch, &ls, 3, samples, 1.0, &r->timing);
    if (st.code != GEMMC_OK) {
      r->ok = false;
      snprintf(r->error, sizeof r->error, "%.500s", st.message);
      mh_kernel_destroy(rt, &k);
      if (strstr(st.message, "launch failed") || strstr(st.message, "cuEventSynchronize")) break; /* the context is gone */
      continue;
    }
    if (progress) {
      fprintf(progress, "  tune %-24s %9.4f ms  %3d registers%s\n", labels[i], r->timing.median_ms, r->info.num_registers,
              r->info.local_bytes ? " (spills)" : "");
      fflush(progress);
    }
    bool better = *best < 0 || r->timing.median_ms < results[*best].timing.median_ms;
    if (better && best_kernel) {
      mh_kernel_destroy(rt, best_kernel);
      *best_kernel = k;
    } else {
      mh_kernel_destroy(rt, &k);
    }
    if (better) *best = i;
  }
  for (int i = 0; i < n; i++) gemmc_kernel_image_destroy(built[i].image);
  free(text), free(defs), free(src), free(built), free(labels);
  return ok;
}

/* ------------------------------------------------------------------ one checked run */

/* Fresh random inputs, poisoned output, one launch, the copy back and the comparison with the
 * CPU reference: what every correctness check does. */
static inline bool mh_run_checked(gemmc_runtime *rt, const mh_kernel *k, const mh_gemm *g, const mh_config *c, mh_rng *rng,
                                  mh_check_result *r, mh_error *e) {
  mh_host h;
  if (!mh_host_init(g, rng, &h, e)) return false;
  mh_device d;
  if (!mh_device_init(rt, g, &h, &d, e)) {
    mh_host_free(&h);
    return false;
  }
  bool ok = mh_launch(rt, k, g, c, d.a, d.b, d.c, e) &&
            mh_ok(gemmc_runtime_synchronize(rt), "running the kernel", e) &&
            mh_ok(gemmc_runtime_copy_dtoh(rt, h.c, d.c, g->c_elems * mh_dtype_size(g->out)), "downloading C", e) &&
            mh_check(g, &h, rng, r, e);
  mh_device_free(rt, &d);
  mh_host_free(&h);
  return ok;
}

/* "M=128 N=256 K=32" (with "batch=4" first for batched kernels) and the B layout. */
static inline void mh_gemm_shape_str(const mh_gemm *g, char *buf, size_t n) {
  char batch[32] = "";
  if (g->kind == MH_KERNEL_BATCHED) snprintf(batch, sizeof batch, "batch=%d ", g->batch);
  snprintf(buf, n, "%sM=%d N=%d K=%d B=%s%s", batch, g->m, g->n, g->k, g->b_col_major ? "col" : "row",
           g->pad ? " padded" : "");
}

/* ------------------------------------------------------------------ the examples' command line */

static inline void mh_example_usage(FILE *f, const char *program, mh_kernel_kind kind) {
  fprintf(f,
          "usage: %s [options]\n"
          "Compiles examples/%s with gemmc for the given config and dtypes, runs it on fresh random\n"
          "inputs and checks C against a double-precision CPU reference. Without a CUDA driver it\n"
          "only compiles to PTX. Prints one line; exit status 0 = pass.\n"
          "\n"
          "  --tir PATH            the kernel (default: examples/%s)\n"
          "  -M N, -N N, -K N      problem size (default 512 512 512)\n"
          "%s"
          "  --dtype T             A and B: f16 bf16 f32 i8 (default f16)\n"
          "  --acc T               accumulator: f32 f16 i32 (default f32; i32 for i8)\n"
          "  --out T               C: f16 bf16 f32 i32 (default: the input type; f32 for f32, i32 for i8)\n"
          "  --precision P         f32 inputs: tf32 (default) or ieee\n"
          "  --b-col-major         B stored column-major (its K dimension contiguous)\n"
          "  --pad N               N poisoned extra elements per row of A, B and C (checks masks)\n"
          "  --config C            BMxBNxBK[:gG][:wW][:sS] (default 128x128x64:g8:w4:s3)\n"
          "%s"
          "  -D NAME=VALUE         extra / overriding compile-time constant (repeatable)\n"
          "  --target T            gemmc target (default: the device's, else sm_90a)\n"
          "  --backend cuda|hip    runtime to run on (default cuda; hip needs libamdhip64 and an AMD target)\n"
          "  --ptx FILE            also write the PTX to FILE\n"
          "  --seed N              replay a run (default: fresh inputs every run)\n",
          program, mh_default_tir(kind), mh_default_tir(kind),
          kind == MH_KERNEL_BATCHED ? "  --batch N             matrices in the batch (default 8)\n" : "",
          kind == MH_KERNEL_LEAKY_RELU ? "  --alpha X, --bias X   leaky_relu slope (default 0.01) and the add before it\n"
                                         "                        (default 0; the seed's variant is --bias 1)\n"
                                       : "");
}

/* The whole example program: parse, compile, run, check, print one line. Returns the exit status. */
static inline int mh_example_main(int argc, char **argv, mh_kernel_kind kind) {
  const char *program = argv[0], *tir = NULL, *target = NULL, *ptx_path = NULL;
  gemmc_backend backend = GEMMC_BACKEND_CUDA;
  mh_gemm g;
  memset(&g, 0, sizeof g);
  g.kind = kind;
  g.m = g.n = g.k = 512;
  g.batch = kind == MH_KERNEL_BATCHED ? 8 : 1;
  g.in = MH_F16;
  g.alpha = 0.01;
  g.tf32 = true;
  bool acc_set = false, out_set = false;
  mh_config cfg = mh_default_config;
  mh_defines extra;
  memset(&extra, 0, sizeof extra);
  uint64_t seed = mh_fresh_seed();
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    bool takes_value = true;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      mh_example_usage(stdout, program, kind);
      return 0;
    } else if (!strcmp(a, "--b-col-major")) {
      g.b_col_major = true;
      takes_value = false;
    } else if (!strncmp(a, "-D", 2) && a[2]) {
      if (!mh_defines_set_arg(&extra, a + 2)) goto bad_value;
      takes_value = false;
    }
    if (!takes_value) continue;
    if (!v) {
      fprintf(stderr, "%s: %s needs a value (try --help)\n", program, a);
      return 2;
    }
    i++;
    char *end = NULL;
    long long n = strtoll(v, &end, 10);
    bool is_int = end != v && !*end;
    if (!strcmp(a, "--tir")) tir = v;
    else if (!strcmp(a, "--target")) target = v;
    else if (!strcmp(a, "--backend")) {
      if (!mh_backend_parse(v, &backend)) goto bad_value;
    }
    else if (!strcmp(a, "--ptx")) ptx_path = v;
    else if (!strcmp(a, "-D")) {
      if (!mh_defines_set_arg(&extra, v)) goto bad_value;
    } else if (!strcmp(a, "-M") && is_int) g.m = (int)n;
    else if (!strcmp(a, "-N") && is_int) g.n = (int)n;
    else if (!strcmp(a, "-K") && is_int) g.k = (int)n;
    else if (!strcmp(a, "--batch") && is_int && kind == MH_KERNEL_BATCHED) g.batch = (int)n;
    else if (!strcmp(a, "--pad") && is_int && n >= 0) g.pad = (int)n;
    else if (!strcmp(a, "--seed") && is_int) seed = (uint64_t)n;
    else if (!strcmp(a, "--dtype")) {
      if (!mh_dtype_parse(v, &g.in)) goto bad_value;
    } else if (!strcmp(a, "--acc")) {
      if (!mh_dtype_parse(v, &g.acc)) goto bad_value;
      acc_set = true;
    } else if (!strcmp(a, "--out")) {
      if (!mh_dtype_parse(v, &g.out)) goto bad_value;
      out_set = true;
    } else if (!strcmp(a, "--precision")) {
      if (strcmp(v, "tf32") && strcmp(v, "ieee")) goto bad_value;
      g.tf32 = !strcmp(v, "tf32");
    } else if (!strcmp(a, "--config")) {
      if (!mh_config_parse(v, &cfg)) goto bad_value;
    } else if (!strcmp(a, "--alpha") && kind == MH_KERNEL_LEAKY_RELU) g.alpha = strtod(v, NULL);
    else if (!strcmp(a, "--bias") && kind == MH_KERNEL_LEAKY_RELU) g.bias = strtod(v, NULL);
    else {
      fprintf(stderr, "%s: unknown option or bad value: %s %s (try --help)\n", program, a, v);
      return 2;
    }
    continue;
  bad_value:
    fprintf(stderr, "%s: bad value for %s: %s (try --help)\n", program, a, v ? v : argv[i]);
    return 2;
  }
  if (!acc_set) g.acc = g.in == MH_I8 ? MH_I32 : MH_F32;
  if (!out_set) g.out = g.in == MH_I8 ? MH_I32 : g.in;

  mh_error e = {""};
  char path[4096], shape[160], dtypes[96], config[64], line[2048];
  mh_find_tir(kind, tir, path, sizeof path);
  mh_gemm_layout(&g);
  mh_gemm_shape_str(&g, shape, sizeof shape);
  mh_gemm_dtypes_str(&g, dtypes, sizeof dtypes);
  mh_config_str(&cfg, config, sizeof config);
  snprintf(line, sizeof line, "%s %s %s cfg=%s", mh_default_tir(kind), shape, dtypes, config);
  if (!mh_gemm_check(&g, &e)) {
    fprintf(stderr, "%s: %s\n", program, e.message);
    return 2;
  }
  mh_defines defines;
  memset(&defines, 0, sizeof defines);
  if (!mh_gemm_defines(&g, &cfg, &defines, &e)) goto fail;
  for (int i = 0; i < extra.count; i++) mh_defines_set(&defines, extra.names[i], extra.values[i]);

  gemmc_runtime *rt;
  if (!mh_runtime_open_backend(backend, &rt, &e)) goto fail;
  mh_kernel k;
  if (!mh_kernel_build(rt, path, &cfg, &defines, target ? target : mh_target(rt), &k, &e)) {
    gemmc_runtime_destroy(rt);
    goto fail;
  }
  if (ptx_path) {
    FILE *f = fopen(ptx_path, "w");
    size_t len = 0;
    const char *ptx = gemmc_compiled_ptx(k.compiled, &len);
    if (!f || !ptx || fwrite(ptx, 1, len, f) != len) fprintf(stderr, "%s: cannot write %s\n", program, ptx_path);
    if (f) fclose(f);
  }
  if (!rt) {
    printf("compiled %s to PTX (%s, %d threads/block, %lld bytes dynamic shared); no CUDA driver: skipping the run\n",
           line, k.meta ? k.meta->target : "?", k.meta ? k.meta->threads_per_block : 0,
           k.meta ? (long long)k.meta->dynamic_shared_bytes : 0LL);
    mh_kernel_destroy(rt, &k);
    return 0;
  }
  mh_rng rng = {seed};
  mh_check_result r;
  bool ran = mh_run_checked(rt, &k, &g, &cfg, &rng, &r, &e);
  mh_kernel_destroy(rt, &k);
  gemmc_runtime_destroy(rt);
  if (!ran) goto fail;
  char verdict[768];
  mh_check_str(&r, verdict, sizeof verdict);
  bool pass = mh_check_passed(&r);
  printf("%s %s %s seed=%llu\n", pass ? "PASS" : "FAIL", line, verdict, (unsigned long long)seed);
  return pass ? 0 : 1;
fail:
  printf("FAIL %s: %s\n", line, e.message);
  return 1;
}

#endif /* GEMMC_EXAMPLES_MATMUL_HOST_H */

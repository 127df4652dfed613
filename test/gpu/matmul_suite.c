/* GPU correctness suite of gemmc_matmul: named edge cases, a randomized sweep of shapes, layouts, dtypes and epilogues, determinism and batch invariance, all against a double-precision CPU reference with poisoned outputs and guard bands; built as test_gpu_matmul. */
#include "../../examples/matmul_host.h"
#include "gemmc/matmul.h"

/* Every case allocates each operand with GUARD bytes before and after it (and a chosen
 * misalignment), fills A, B, C and the bias with random values, poisons D and its guards, runs
 * gemmc_matmul_ex and compares D with a double-precision reference. Elements of D's leading-
 * dimension padding and the guards must keep the poison; C is NaN when beta = 0 (it must not be
 * read). One line per failing case (all with --verbose), then "N passed, N failed". Without a
 * CUDA driver: "skipped: no CUDA driver ...". */

enum { GUARD = 256 };

typedef struct mcase {
  char name[96];
  gemmc_operation ta, tb;
  int64_t m, n, k, batch;
  gemmc_datatype in, out;
  gemmc_compute_type compute;
  gemmc_activation act;
  bool bias;
  double alpha, beta;
  float slope;
  int64_t lda, ldb, ldc, ldd;          /* 0: the rows */
  int64_t sa, sb, sc, sd;              /* batch strides; -1: packed */
  int off_a, off_b, off_c, off_d, off_bias; /* misalignment in elements */
  gemmc_status_code expect;            /* GEMMC_OK, or the error the call must return */
} mcase;

static mh_dtype host_type(gemmc_datatype t) {
  switch (t) {
  case GEMMC_R_16F: return MH_F16;
  case GEMMC_R_16BF: return MH_BF16;
  case GEMMC_R_32F: return MH_F32;
  case GEMMC_R_8I: return MH_I8;
  case GEMMC_R_8F_E4M3: return MH_E4M3;
  case GEMMC_R_8F_E5M2: return MH_E5M2;
  default: return MH_I32;
  }
}

static const char *dt_name(gemmc_datatype t) {
  static const char *const names[] = {"f16", "bf16", "f32", "i8", "i32", "e4m3", "e5m2"};
  return names[t];
}

static const char *compute_name(gemmc_compute_type c) {
  static const char *const names[] = {"32F", "TF32", "16F", "32I"};
  return names[c];
}

/* One operand on host and device: elements [0, elems) at device address base + GUARD + off. */
typedef struct operand {
  size_t elems, es;
  int off;
  unsigned char *host; /* GUARD + off*es + elems*es + GUARD bytes */
  gemmc_devptr dev;
  size_t bytes;
} operand;

static size_t extent(int64_t rows, int64_t cols, int64_t ld, int64_t stride, int64_t batch) {
  if (rows == 0 || cols == 0 || batch == 0) return 1;
  return (size_t)((batch - 1) * stride + (cols - 1) * ld + rows);
}

static bool operand_alloc(gemmc_runtime *rt, operand *o, size_t elems, size_t es, int off, mh_error *e) {
  memset(o, 0, sizeof *o);
  o->elems = elems, o->es = es, o->off = off;
  o->bytes = 2 * GUARD + (size_t)off * es + elems * es;
  o->host = malloc(o->bytes);
  if (!o->host) return mh_fail(e, "out of host memory");
  return mh_ok(gemmc_runtime_mem_alloc(rt, o->bytes, &o->dev), "allocating", e);
}

static void operand_free(gemmc_runtime *rt, operand *o) {
  free(o->host);
  if (o->dev) gemmc_runtime_mem_free(rt, o->dev);
  memset(o, 0, sizeof *o);
}

static void *operand_data(const operand *o) { return o->host + GUARD + (size_t)o->off * o->es; }
static gemmc_devptr operand_addr(const operand *o) { return o->dev + GUARD + (gemmc_devptr)o->off * o->es; }

/* Random values in the elements of a rows x cols column-major matrix (per batch), poison elsewhere. */
static void fill_matrix(operand *o, mh_dtype t, int64_t rows, int64_t cols, int64_t ld, int64_t stride, int64_t batch,
                        mh_rng *rng, bool nan_everywhere) {
  memset(o->host, t == MH_I8 ? 0x7f : 0xff, o->bytes);
  if (nan_everywhere) return;
  for (int64_t b = 0; b < batch; b++)
    for (int64_t j = 0; j < cols; j++)
      for (int64_t i = 0; i < rows; i++) {
        double v = t == MH_I8 || t == MH_I32 ? (double)(int)(mh_rng_next(rng) % 256) - 128 : mh_rng_uniform(rng);
        mh_store(t, operand_data(o), (size_t)(b * stride + j * ld + i), v);
      }
}

typedef struct check_stats {
  long long checked, bad, stray;
  double worst;
  char where[256];
} check_stats;

static double act_ref(gemmc_activation act, double x, double slope) {
  switch (act) {
  case GEMMC_ACT_RELU: return x > 0 ? x : 0;
  case GEMMC_ACT_LEAKY_RELU: return x >= 0 ? x : slope * x;
  case GEMMC_ACT_GELU: return 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  default: return x;
  }
}

/* The bound on |got - want| relative to |alpha| sum |a b| + |beta c| + |bias|. */
static double bound_of(const mcase *c) {
  if (c->in == GEMMC_R_8I) return 0;
  double u_out = c->out == GEMMC_R_16F ? 0x1p-11 : c->out == GEMMC_R_16BF ? 0x1p-8 : 0x1p-24;
  /* fp8 warpgroup MMAs accumulate with about 14 mantissa bits on Hopper (DeepSeek-V3 technical
   * report, section 3.3.2), not f32's 24. */
  bool fp8 = c->in == GEMMC_R_8F_E4M3 || c->in == GEMMC_R_8F_E5M2;
  double u_acc = c->compute == GEMMC_COMPUTE_16F ? 0x1p-11 : fp8 ? 0x1p-13 : 0x1p-24;
  double u_in = c->compute == GEMMC_COMPUTE_32F_FAST_TF32 ? 0x1p-10 : 0;
  double u_c = c->compute == GEMMC_COMPUTE_16F ? 0x1p-10 : 0; /* alpha, beta, bias in f16 */
  double b = 2 * u_out + 2 * u_in + 2 * sqrt((double)(c->k > 1 ? c->k : 1)) * u_acc + 4 * u_c;
  if (c->act == GEMMC_ACT_GELU) b += 0x1p-9; /* tanh.approx.f32 */
  return b < 1e-5 ? 1e-5 : b;
}

/* Leading dimensions and batch strides left at 0 / -1 become the packed ones. */
static void normalize(mcase *x) {
  int64_t a_rows = x->ta == GEMMC_OP_N ? x->m : x->k, a_cols = x->ta == GEMMC_OP_N ? x->k : x->m;
  int64_t b_rows = x->tb == GEMMC_OP_N ? x->k : x->n, b_cols = x->tb == GEMMC_OP_N ? x->n : x->k;
  if (!x->lda) x->lda = a_rows > 1 ? a_rows : 1;
  if (!x->ldb) x->ldb = b_rows > 1 ? b_rows : 1;
  if (!x->ldc) x->ldc = x->m > 1 ? x->m : 1;
  if (!x->ldd) x->ldd = x->m > 1 ? x->m : 1;
  if (x->sa < 0) x->sa = x->lda * a_cols;
  if (x->sb < 0) x->sb = x->ldb * b_cols;
  if (x->sc < 0) x->sc = x->ldc * x->n;
  if (x->sd < 0) x->sd = x->ldd * x->n;
}

typedef struct scalars {
  float af, bf;
  int32_t ai, bi;
} scalars;

/* The descriptor of a normalized case on operands at the given device addresses. */
static void fill_desc(const mcase *x, gemmc_matmul_desc *d, scalars *s, gemmc_devptr a, gemmc_devptr b, gemmc_devptr c,
                      gemmc_devptr dd, gemmc_devptr bias) {
  gemmc_matmul_desc_init(d);
  s->af = (float)x->alpha, s->bf = (float)x->beta, s->ai = (int32_t)x->alpha, s->bi = (int32_t)x->beta;
  bool int_compute = x->compute == GEMMC_COMPUTE_32I;
  d->transa = x->ta, d->transb = x->tb, d->m = x->m, d->n = x->n, d->k = x->k;
  d->alpha = int_compute ? (const void *)&s->ai : (const void *)&s->af;
  d->beta = int_compute ? (const void *)&s->bi : (const void *)&s->bf;
  d->A = (const void *)(uintptr_t)a, d->a_type = x->in, d->lda = x->lda, d->stride_a = x->sa;
  d->B = (const void *)(uintptr_t)b, d->b_type = x->in, d->ldb = x->ldb, d->stride_b = x->sb;
  d->C = x->beta != 0 ? (const void *)(uintptr_t)c : NULL, d->c_type = x->out, d->ldc = x->ldc, d->stride_c = x->sc;
  d->D = (void *)(uintptr_t)dd, d->d_type = x->out, d->ldd = x->ldd, d->stride_d = x->sd;
  d->batch_count = x->batch, d->compute = x->compute, d->activation = x->act, d->leaky_slope = x->slope;
  d->bias = x->bias ? (const void *)(uintptr_t)bias : NULL;
}

/* Stand-in addresses with the alignment run_case's real ones will have (cuMemAlloc returns
 * 256-byte aligned memory; each operand starts GUARD + off elements in). */
static void stand_in_desc(const mcase *c, gemmc_matmul_desc *d, scalars *s) {
  mcase x = *c;
  normalize(&x);
  size_t esi = mh_dtype_size(host_type(x.in)), eso = mh_dtype_size(host_type(x.out));
  gemmc_devptr base = (gemmc_devptr)1 << 30;
  fill_desc(&x, d, s, base + GUARD + x.off_a * esi, base + GUARD + x.off_b * esi, base + GUARD + x.off_c * eso,
            base + GUARD + x.off_d * eso, base + GUARD + x.off_bias * eso);
}

static bool run_case(gemmc_handle *h, gemmc_runtime *rt, const mcase *c, mh_rng *rng, bool verbose, char *verdict,
                     size_t vn, const void *expect_d, void *got_d_out) {
  mh_error e = {""};
  mcase x = *c;
  normalize(&x);
  int64_t a_rows = x.ta == GEMMC_OP_N ? x.m : x.k, a_cols = x.ta == GEMMC_OP_N ? x.k : x.m;
  int64_t b_rows = x.tb == GEMMC_OP_N ? x.k : x.n, b_cols = x.tb == GEMMC_OP_N ? x.n : x.k;
  int64_t nb = x.batch;
  mh_dtype ti = host_type(x.in), to = host_type(x.out);
  size_t esi = mh_dtype_size(ti), eso = mh_dtype_size(to);
  operand A, B, C, D, Bias;
  memset(&A, 0, sizeof A), memset(&B, 0, sizeof B), memset(&C, 0, sizeof C), memset(&D, 0, sizeof D),
      memset(&Bias, 0, sizeof Bias);
  bool ok = operand_alloc(rt, &A, extent(a_rows, a_cols, x.lda, x.sa, nb), esi, x.off_a, &e) &&
            operand_alloc(rt, &B, extent(b_rows, b_cols, x.ldb, x.sb, nb), esi, x.off_b, &e) &&
            operand_alloc(rt, &C, extent(x.m, x.n, x.ldc, x.sc, nb), eso, x.off_c, &e) &&
            operand_alloc(rt, &D, extent(x.m, x.n, x.ldd, x.sd, nb), eso, x.off_d, &e) &&
            operand_alloc(rt, &Bias, x.m > 0 ? (size_t)x.m : 1, eso, x.off_bias, &e);
  int poison = to == MH_I32 ? 0x7f : 0xff;
  if (ok) {
    /* B before A: a test that grows only m then sees the same B and a prefix of the same A. */
    fill_matrix(&B, ti, b_rows, b_cols, x.ldb, x.sb, nb, rng, false);
    fill_matrix(&A, ti, a_rows, a_cols, x.lda, x.sa, nb, rng, false);
    fill_matrix(&C, to, x.m, x.n, x.ldc, x.sc, nb, rng, x.beta == 0); /* beta = 0: NaN, never read */
    fill_matrix(&Bias, to, x.m, 1, 1, 0, 1, rng, false);
    memset(D.host, poison, D.bytes);
    ok = mh_ok(gemmc_runtime_copy_htod(rt, A.dev, A.host, A.bytes), "upload A", &e) &&
         mh_ok(gemmc_runtime_copy_htod(rt, B.dev, B.host, B.bytes), "upload B", &e) &&
         mh_ok(gemmc_runtime_copy_htod(rt, C.dev, C.host, C.bytes), "upload C", &e) &&
         mh_ok(gemmc_runtime_copy_htod(rt, Bias.dev, Bias.host, Bias.bytes), "upload bias", &e) &&
         mh_ok(gemmc_runtime_copy_htod(rt, D.dev, D.host, D.bytes), "poison D", &e);
  }
  gemmc_matmul_desc d;
  scalars sc;
  fill_desc(&x, &d, &sc, operand_addr(&A), operand_addr(&B), operand_addr(&C), operand_addr(&D), operand_addr(&Bias));
  gemmc_status st = {GEMMC_OK, 0, ""};
  if (ok) {
    st = gemmc_matmul_ex(h, &d);
    if (st.code != x.expect) {
      ok = false;
      snprintf(e.message, sizeof e.message, "returned %d (expected %d): %.300s", (int)st.code, (int)x.expect, st.message);
    } else if (x.expect != GEMMC_OK) {
      snprintf(verdict, vn, "returned the expected error: %.160s", st.message);
      operand_free(rt, &A), operand_free(rt, &B), operand_free(rt, &C), operand_free(rt, &D), operand_free(rt, &Bias);
      return true;
    }
  }
  if (ok)
    ok = mh_ok(gemmc_runtime_synchronize(rt), "running", &e) &&
         mh_ok(gemmc_runtime_copy_dtoh(rt, D.host, D.dev, D.bytes), "download D", &e);
  check_stats cs = {0, 0, 0, 0, ""};
  double bnd = bound_of(&x);
  if (ok) {
    const unsigned char *dh = D.host;
    /* Guards and padding keep their poison. */
    for (size_t q = 0; q < GUARD + (size_t)x.off_d * eso; q++) cs.stray += dh[q] != poison;
    for (size_t q = D.bytes - GUARD; q < D.bytes; q++) cs.stray += dh[q] != poison;
    const void *A0 = operand_data(&A), *B0 = operand_data(&B), *C0 = operand_data(&C), *D0 = operand_data(&D),
               *bias0 = operand_data(&Bias);
    for (int64_t b = 0; b < nb; b++)
      for (int64_t j = 0; j < x.n; j++) {
        for (int64_t i = x.m; i < x.ldd && (b < nb - 1 || j < x.n - 1); i++) {
          size_t at = (size_t)(b * x.sd + j * x.ldd + i) * eso;
          for (size_t q = 0; q < eso; q++) cs.stray += ((const unsigned char *)D0)[at + q] != poison;
        }
        for (int64_t i = 0; i < x.m; i++) {
          double sum = 0, abs_sum = 0;
          for (int64_t kk = 0; kk < x.k; kk++) {
            size_t ia = (size_t)(b * x.sa + (x.ta == GEMMC_OP_N ? i + kk * x.lda : kk + i * x.lda));
            size_t ib = (size_t)(b * x.sb + (x.tb == GEMMC_OP_N ? kk + j * x.ldb : j + kk * x.ldb));
            double p = mh_load(ti, A0, ia) * mh_load(ti, B0, ib);
            sum += p;
            abs_sum += fabs(p);
          }
          double want = x.alpha * sum, scale = fabs(x.alpha) * abs_sum;
          if (x.beta != 0) {
            double cv = mh_load(to, C0, (size_t)(b * x.sc + j * x.ldc + i));
            want += x.beta * cv;
            scale += fabs(x.beta * cv);
          }
          if (x.bias) {
            double bv = mh_load(to, bias0, (size_t)i);
            want += bv;
            scale += fabs(bv);
          }
          want = act_ref(x.act, want, x.slope);
          double got = mh_load(to, D0, (size_t)(b * x.sd + j * x.ldd + i));
          /* Outputs in the f16 / bf16 subnormal range are spaced 2^-24 / 2^-133 apart whatever the
           * magnitude of the sum: half a step of that is always allowed, per rounding into that
           * range: one (the output), three with f16 compute (the f16 accumulator, alpha times it,
           * the output: sweep#850 of a 2026-11-24 run, k = 1, want 6.1e-8, got 1.19e-7). */
          int roundings = x.compute == GEMMC_COMPUTE_16F ? 3 : 1;
          double floor_abs = roundings * (x.out == GEMMC_R_16F ? 0x1p-25 : x.out == GEMMC_R_16BF ? 0x1p-134 : 0);
          double diff = fabs(got - want) > floor_abs ? fabs(got - want) - floor_abs : 0;
          double err = to == MH_I32 ? (got == want ? 0 : INFINITY) : diff / (scale > 1e-30 ? scale : 1e-30);
          if (isnan(err)) err = INFINITY;
          cs.checked++;
          if (err > bnd) {
            if (!cs.bad || err > cs.worst)
              snprintf(cs.where, sizeof cs.where, "D[b=%lld][i=%lld][j=%lld] = %.9g, want %.9g (err %.2e > %.2e)", (long long)b,
                       (long long)i, (long long)j, got, want, err, bnd);
            cs.bad++;
          }
          if (err > cs.worst) cs.worst = err;
        }
      }
    if (expect_d) {
      /* The same call must give the same bytes (determinism, batch invariance). */
      size_t elems = (size_t)x.n * (size_t)x.m;
      for (int64_t j = 0; j < x.n; j++)
        if (memcmp((const char *)D0 + (size_t)(j * x.ldd) * eso, (const char *)expect_d + (size_t)(j * x.m) * eso, (size_t)x.m * eso)) {
          cs.bad++;
          snprintf(cs.where, sizeof cs.where, "column %lld differs bitwise from the reference run", (long long)j);
          break;
        }
      (void)elems;
    }
    if (got_d_out)
      for (int64_t j = 0; j < x.n; j++)
        memcpy((char *)got_d_out + (size_t)(j * x.m) * eso, (const char *)D0 + (size_t)(j * x.ldd) * eso, (size_t)x.m * eso);
  }
  gemmc_matmul_info info;
  bool have_info = gemmc_matmul_last_info(h, &info).code == GEMMC_OK;
  if (ok)
    snprintf(verdict, vn, "%lld checked, max_err %.2e (bound %.2e)%s%s%s; %s", cs.checked, cs.worst, bnd,
             cs.bad || cs.stray ? "; WRONG: " : "", cs.bad ? cs.where : "", cs.stray ? " stray bytes written" : "",
             have_info ? info.config : "");
  else
    snprintf(verdict, vn, "%s", e.message);
  (void)verbose;
  operand_free(rt, &A), operand_free(rt, &B), operand_free(rt, &C), operand_free(rt, &D), operand_free(rt, &Bias);
  return ok && cs.bad == 0 && cs.stray == 0;
}

static void describe(const mcase *c, char *buf, size_t n) {
  snprintf(buf, n, "%s%s%c%c m=%lld n=%lld k=%lld b=%lld %s->%s %s%s%s%s a=%g b=%g ld+%lld,%lld,%lld,%lld off=%d,%d,%d,%d",
           c->name, c->name[0] ? " " : "", c->ta == GEMMC_OP_N ? 'N' : 'T', c->tb == GEMMC_OP_N ? 'N' : 'T', (long long)c->m,
           (long long)c->n, (long long)c->k, (long long)c->batch, dt_name(c->in), dt_name(c->out), compute_name(c->compute),
           c->bias ? " bias" : "", c->act == GEMMC_ACT_RELU ? " relu" : c->act == GEMMC_ACT_LEAKY_RELU ? " leaky" : c->act == GEMMC_ACT_GELU ? " gelu" : "",
           "", c->alpha, c->beta, (long long)c->lda, (long long)c->ldb, (long long)c->ldc, (long long)c->ldd, c->off_a,
           c->off_b, c->off_c, c->off_d);
}

/* ------------------------------------------------------------------ case lists */

typedef struct combo {
  gemmc_datatype in, out;
  gemmc_compute_type compute;
} combo;
static const combo combos[] = {
    {GEMMC_R_16F, GEMMC_R_16F, GEMMC_COMPUTE_32F},   {GEMMC_R_16BF, GEMMC_R_16BF, GEMMC_COMPUTE_32F},
    {GEMMC_R_16F, GEMMC_R_32F, GEMMC_COMPUTE_32F},   {GEMMC_R_16BF, GEMMC_R_32F, GEMMC_COMPUTE_32F},
    {GEMMC_R_32F, GEMMC_R_32F, GEMMC_COMPUTE_32F},   {GEMMC_R_32F, GEMMC_R_32F, GEMMC_COMPUTE_32F_FAST_TF32},
    {GEMMC_R_16F, GEMMC_R_16F, GEMMC_COMPUTE_16F},   {GEMMC_R_8I, GEMMC_R_32I, GEMMC_COMPUTE_32I},
};
enum { NUM_COMBOS = sizeof combos / sizeof combos[0] };

static mcase base(const char *name, int64_t m, int64_t n, int64_t k, combo cb) {
  mcase c;
  memset(&c, 0, sizeof c);
  snprintf(c.name, sizeof c.name, "%s", name);
  c.ta = c.tb = GEMMC_OP_N;
  c.m = m, c.n = n, c.k = k, c.batch = 1;
  c.in = cb.in, c.out = cb.out, c.compute = cb.compute;
  c.alpha = 1, c.beta = 0, c.slope = 0.1f;
  c.sa = c.sb = c.sc = c.sd = -1;
  c.act = GEMMC_ACT_NONE;
  c.expect = GEMMC_OK;
  return c;
}

static int fixed_cases(mcase *out, int max, bool quick) {
  int n = 0;
#define ADD(c) do { if (n < max) out[n++] = (c); } while (0)
  for (int ci = 0; ci < NUM_COMBOS; ci++) {
    combo cb = combos[ci];
    for (int t = 0; t < 4; t++) {
      mcase c = base("odd", 17, 33, 7, cb);
      c.ta = t & 1 ? GEMMC_OP_T : GEMMC_OP_N, c.tb = t & 2 ? GEMMC_OP_T : GEMMC_OP_N;
      ADD(c);
      if (quick) continue;
      c = base("padded", 100, 70, 30, cb);
      c.ta = t & 1 ? GEMMC_OP_T : GEMMC_OP_N, c.tb = t & 2 ? GEMMC_OP_T : GEMMC_OP_N;
      c.lda = (c.ta == GEMMC_OP_N ? 100 : 30) + 3, c.ldb = (c.tb == GEMMC_OP_N ? 30 : 70) + 5, c.ldd = 107;
      ADD(c);
      c = base("unaligned", 65, 63, 129, cb);
      c.ta = t & 1 ? GEMMC_OP_T : GEMMC_OP_N, c.tb = t & 2 ? GEMMC_OP_T : GEMMC_OP_N;
      c.off_a = 1, c.off_b = 3, c.off_c = 1, c.off_d = 1, c.off_bias = 1;
      c.beta = cb.compute == GEMMC_COMPUTE_32I ? 1 : 0.5, c.bias = cb.compute != GEMMC_COMPUTE_32I;
      ADD(c);
    }
    ADD(base("1x1x1", 1, 1, 1, cb));
    ADD(base("K=1", 64, 48, 1, cb));
    ADD(base("M=1", 1, 200, 77, cb));
    ADD(base("N=1", 200, 1, 77, cb));
    if (!quick) {
      ADD(base("aligned", 256, 128, 512, cb));
      mcase c = base("beta", 128, 96, 64, cb);
      c.alpha = cb.compute == GEMMC_COMPUTE_32I ? 2 : 0.75, c.beta = cb.compute == GEMMC_COMPUTE_32I ? -1 : 1.5;
      ADD(c);
      c = base("batched", 48, 40, 56, cb);
      c.batch = 3, c.sa = 48 * 56 + 7, c.sb = 56 * 40 + 9, c.sd = 48 * 40 + 11, c.beta = 1, c.sc = 48 * 40 + 5;
      ADD(c);
      c = base("batched A shared", 32, 64, 64, cb);
      c.batch = 4, c.sa = 0;
      ADD(c);
      c = base("split-K", 64, 64, 8192, cb);
      ADD(c);
      c = base("K=0", 40, 30, 0, cb);
      c.beta = cb.compute == GEMMC_COMPUTE_32I ? 3 : 0.5, c.bias = cb.compute != GEMMC_COMPUTE_32I;
      ADD(c);
    }
  }
  combo f16 = combos[0], bf16 = combos[1], f32 = combos[4];
  static const gemmc_activation acts[] = {GEMMC_ACT_RELU, GEMMC_ACT_LEAKY_RELU, GEMMC_ACT_GELU};
  for (int a = 0; a < 3; a++) {
    mcase c = base("epilogue", 96, 80, 72, a == 1 ? bf16 : a == 2 ? f32 : f16);
    c.act = acts[a], c.bias = true, c.alpha = 0.5, c.beta = -1;
    ADD(c);
    c = base("epilogue split-K", 32, 48, 4096, f16);
    c.act = acts[a], c.bias = true, c.beta = 1;
    ADD(c);
    c = base("epilogue f16 acc", 64, 64, 64, combos[6]);
    c.act = acts[a], c.bias = true;
    ADD(c);
  }
  /* Zero sizes: nothing to do, and D must stay untouched. */
  mcase z = base("m=0", 0, 10, 10, f16);
  ADD(z);
  z = base("n=0", 10, 0, 10, f16);
  ADD(z);
  z = base("batch=0", 10, 10, 10, f16);
  z.batch = 0;
  ADD(z);
  /* fp8 inputs (e4m3, e5m2): f16 operands for the MMA where no fp8 instruction fits. */
  combo e4m3 = {GEMMC_R_8F_E4M3, GEMMC_R_16F, GEMMC_COMPUTE_32F}, e5m2 = {GEMMC_R_8F_E5M2, GEMMC_R_32F, GEMMC_COMPUTE_32F};
  ADD(base("fp8 e4m3", 128, 96, 64, e4m3));
  ADD(base("fp8 e5m2", 128, 96, 64, e5m2));
  if (!quick) {
    mcase f8 = base("fp8 e4m3 odd", 77, 45, 130, e4m3);
    f8.ta = GEMMC_OP_T, f8.beta = 0.5, f8.bias = true, f8.act = GEMMC_ACT_RELU, f8.off_a = 1;
    ADD(f8);
    f8 = base("fp8 e5m2 batched", 64, 40, 96, e5m2);
    f8.tb = GEMMC_OP_T, f8.batch = 2;
    ADD(f8);
  }
  /* What must fail cleanly. */
  mcase bad = base("fp8 out", 64, 64, 64, (combo){GEMMC_R_8F_E4M3, GEMMC_R_8F_E4M3, GEMMC_COMPUTE_32F});
  bad.expect = GEMMC_ERROR_UNSUPPORTED;
  ADD(bad);
  bad = base("int8 bias", 64, 64, 64, combos[7]);
  bad.bias = true;
  bad.expect = GEMMC_ERROR_UNSUPPORTED;
  ADD(bad);
  bad = base("lda too small", 64, 64, 64, f16);
  bad.lda = 10;
  bad.expect = GEMMC_ERROR_INVALID_ARGUMENT;
  ADD(bad);
#undef ADD
  return n;
}

static int64_t rand_size(mh_rng *r) {
  uint64_t u = mh_rng_next(r) % 100;
  if (u < 5) return 1 + (int64_t)(mh_rng_next(r) % 3);
  if (u < 70) return 1 + (int64_t)(mh_rng_next(r) % 160);
  if (u < 90) return 16 * (1 + (int64_t)(mh_rng_next(r) % 24));
  return 1 + (int64_t)(mh_rng_next(r) % 700);
}

static mcase random_case(mh_rng *r, int index) {
  combo cb = combos[mh_rng_next(r) % NUM_COMBOS];
  char name[32];
  snprintf(name, sizeof name, "sweep#%d", index);
  mcase c = base(name, rand_size(r), rand_size(r), rand_size(r), cb);
  if (mh_rng_next(r) % 10 == 0) c.k = 512 + (int64_t)(mh_rng_next(r) % 3000); /* deep K: split-K */
  c.ta = mh_rng_next(r) % 2 ? GEMMC_OP_T : GEMMC_OP_N;
  c.tb = mh_rng_next(r) % 2 ? GEMMC_OP_T : GEMMC_OP_N;
  if (mh_rng_next(r) % 3 == 0) {
    c.lda = (c.ta == GEMMC_OP_N ? c.m : c.k) + (int64_t)(mh_rng_next(r) % 9);
    c.ldb = (c.tb == GEMMC_OP_N ? c.k : c.n) + (int64_t)(mh_rng_next(r) % 9);
    c.ldc = c.m + (int64_t)(mh_rng_next(r) % 9);
    c.ldd = c.m + (int64_t)(mh_rng_next(r) % 9);
    if (c.lda < 1) c.lda = 1;
    if (c.ldb < 1) c.ldb = 1;
  }
  if (mh_rng_next(r) % 4 == 0) {
    c.off_a = (int)(mh_rng_next(r) % 4), c.off_b = (int)(mh_rng_next(r) % 4);
    c.off_c = (int)(mh_rng_next(r) % 4), c.off_d = (int)(mh_rng_next(r) % 4), c.off_bias = (int)(mh_rng_next(r) % 4);
  }
  bool int_compute = cb.compute == GEMMC_COMPUTE_32I;
  switch (mh_rng_next(r) % 4) {
  case 0: c.alpha = 1, c.beta = 0; break;
  case 1: c.alpha = int_compute ? 2 : 0.5, c.beta = int_compute ? 1 : 1.25; break;
  case 2: c.alpha = int_compute ? -1 : -1.5, c.beta = 0; break;
  default: c.alpha = 1, c.beta = int_compute ? -2 : -0.5; break;
  }
  if (!int_compute && mh_rng_next(r) % 3 == 0) {
    c.bias = mh_rng_next(r) % 2;
    c.act = (gemmc_activation)(mh_rng_next(r) % 4);
  }
  if (mh_rng_next(r) % 6 == 0) {
    c.batch = 2 + (int64_t)(mh_rng_next(r) % 3);
    if (mh_rng_next(r) % 3 == 0) c.sa = 0;
  }
  return c;
}

/* ------------------------------------------------------------------ main */

static void usage(FILE *f, const char *program) {
  fprintf(f,
          "usage: %s [options]\n"
          "gemmc_matmul against a CPU reference: named edge cases (odd sizes, padded leading dimensions,\n"
          "unaligned pointers, K = 1, M = 1, zero sizes, every dtype and transpose, batches, epilogues,\n"
          "split-K, unsupported requests), determinism and batch invariance; --sweep N adds N random cases.\n"
          "\n"
          "  --sweep N          N random shapes / layouts / dtypes / epilogues (default 0)\n"
          "  --no-fixed         only the sweep\n"
          "  --quick            fewer named cases\n"
          "  --seed S           replay a run\n"
          "  --verbose          one line per case, passing ones too\n"
          "  --cache-dir DIR    the kernel cache (default: gemmc's)\n",
          program);
}

/* Runs c twice on h from one seed: true when both runs are correct and the second's D has the
 * first's bits. The verdict is the second run's, or why the first failed. */
static bool same_bits_twice(gemmc_handle *h, gemmc_runtime *rt, const mcase *c, uint64_t seed, char *verdict, size_t n) {
  /* run_case copies the first matrix of D, m x n */
  void *first = malloc((size_t)c->m * (size_t)c->n * mh_dtype_size(host_type(c->out)));
  char v1[1024] = "";
  mh_rng r1 = {seed}, r2 = {seed};
  verdict[0] = 0;
  bool ok = first && run_case(h, rt, c, &r1, false, v1, sizeof v1, NULL, first) &&
            run_case(h, rt, c, &r2, false, verdict, n, first, NULL);
  if (!ok && !verdict[0]) snprintf(verdict, n, "%s", first ? v1 : "out of memory");
  free(first);
  return ok;
}

/* Every row of the config table, forced (gemmc_handle_options.config), on cases the model would
 * rarely give it: tile counts odd for every tile shape (a cluster row rounds its grid up to
 * even), rows off a 32-byte sector, ragged edges, a batch with beta and a bias. A row that does
 * not serve a case's types on this device answers GEMMC_ERROR_UNSUPPORTED and is skipped. */
static void forced_rows(const gemmc_handle_options *base_opts, gemmc_runtime *rt, uint64_t seed, bool quick,
                        int *passed, int *failed) {
  const char *names[128];
  int rows = gemmc_matmul_configs(names, 128);
  if (rows > 128) rows = 128;
  static const combo kinds[] = {
      {GEMMC_R_16F, GEMMC_R_16F, GEMMC_COMPUTE_32F},     {GEMMC_R_32F, GEMMC_R_32F, GEMMC_COMPUTE_32F_FAST_TF32},
      {GEMMC_R_32F, GEMMC_R_32F, GEMMC_COMPUTE_32F},     {GEMMC_R_8I, GEMMC_R_32I, GEMMC_COMPUTE_32I},
      {GEMMC_R_8F_E4M3, GEMMC_R_16F, GEMMC_COMPUTE_32F},
  };
  for (int r = 0; r < 2 * rows; r++) {
    /* Each row twice: unsplit, then split 3 (rows that never split are skipped the second time). */
    gemmc_handle_options fo = *base_opts;
    fo.runtime = rt;
    fo.config = names[r % rows];
    fo.split_k = r < rows ? 0 : 3;
    gemmc_handle *hf = NULL;
    gemmc_status st = gemmc_handle_create(&fo, &hf);
    if (st.code != GEMMC_OK) {
      printf("FAIL  forced row %s split %d: %s\n", names[r % rows], fo.split_k, st.message);
      (*failed)++;
      continue;
    }
    int served = 0;
    for (size_t ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++) {
      /* 761 x 379: 3 x 3 tiles of 128 x 256 (the kernel's N = m), 7 x 3 of 128 x 128, 12 x 3 of
       * 64 x 128; k = 200 (520 split: two K tiles per split at least) puts every other row of
       * op(B)^T 16 bytes off a sector. */
      mcase odd = base("forced, odd tile counts", 761, 379, fo.split_k ? 520 : 200, kinds[ki]);
      mcase batch = base("forced, batched", 520, 136, 72, kinds[ki]);
      batch.batch = 3, batch.beta = kinds[ki].compute == GEMMC_COMPUTE_32I ? 1 : 0.5;
      batch.bias = kinds[ki].compute != GEMMC_COMPUTE_32I, batch.ldd = 523, batch.ldc = 521;
      mcase cases[2] = {odd, batch};
      for (int ci = 0; ci < (quick ? 1 : 2); ci++) {
        mcase c = cases[ci];
        char line[512], verdict[1024];
        mh_rng rng = {seed ^ (uint64_t)(r * 16 + (int)ki * 4 + ci)};
        bool ok = run_case(hf, rt, &c, &rng, false, verdict, sizeof verdict, NULL, NULL);
        if (!ok && strstr(verdict, "cannot run this problem")) break; /* the row does not serve these types here */
        served++;
        describe(&c, line, sizeof line);
        if (!ok) printf("FAIL  row %s split %d  %s  %s\n", names[r % rows], fo.split_k, line, verdict);
        ok ? (*passed)++ : (*failed)++;
        if (!ok && strstr(verdict, "running")) {
          gemmc_handle_destroy(hf);
          return;
        }
      }
    }
    if (served) printf("      row %s split %d: %d forced cases\n", names[r % rows], fo.split_k, served);
    gemmc_handle_destroy(hf);
  }
}

/* The tail-split rows (names with "_tail_"), forced: tiles split over several blocks (few tiles,
 * long K; a ragged K), shared tiles before whole ones (more tiles than the SMs hold), the
 * epilogue's parts on the owner's sums, batches, K = 1 and K = 0 (the epilogue alone), f16
 * accumulation; then the same call twice gives the same bits. */
static void tail_split_rows(const gemmc_handle_options *base_opts, gemmc_runtime *rt, uint64_t seed, int *passed,
                          int *failed) {
  const char *names[128];
  int rows = gemmc_matmul_configs(names, 128);
  if (rows > 128) rows = 128;
  for (int r = 0; r < rows; r++) {
    if (!strstr(names[r], "_tail_")) continue;
    gemmc_handle_options fo = *base_opts;
    fo.runtime = rt;
    fo.config = names[r];
    gemmc_handle *hf = NULL;
    gemmc_status st = gemmc_handle_create(&fo, &hf);
    if (st.code != GEMMC_OK) {
      printf("FAIL  tail-split row %s: %s\n", names[r], st.message);
      (*failed)++;
      continue;
    }
    mcase cases[9];
    int n = 0;
    /* The first three must share tiles: their grids have more blocks than tiles. */
    cases[n++] = base("tail split, one tile over many blocks", 200, 120, 6000, combos[0]);
    cases[n++] = base("tail split, fewer tiles than SMs, ragged K", 1000, 1100, 1500, combos[0]);
    cases[n++] = base("tail split, shared tiles before whole ones", 2100, 2100, 700, combos[0]);
    cases[n] = base("tail split, batched, beta C, bias, gelu", 777, 555, 1000, combos[1]);
    cases[n].batch = 3, cases[n].beta = 0.5, cases[n].bias = true, cases[n].act = GEMMC_ACT_GELU, cases[n].ldc = 781;
    n++;
    cases[n] = base("tail split, f16 accumulation, alpha", 520, 900, 700, combos[6]);
    cases[n].alpha = 0.75;
    n++;
    cases[n++] = base("tail split, f32 out, transposed", 390, 610, 2000, combos[2]);
    cases[n - 1].ta = GEMMC_OP_T, cases[n - 1].tb = GEMMC_OP_T;
    cases[n++] = base("tail split, K = 1", 300, 500, 1, combos[0]);
    cases[n] = base("tail split, K = 0", 300, 500, 0, combos[0]);
    cases[n].beta = 0.5;
    n++;
    for (int i = 0; i < n; i++) {
      char line[512], verdict[1024];
      mh_rng rng = {seed ^ (uint64_t)(1000 + r * 16 + i)};
      bool ok = run_case(hf, rt, &cases[i], &rng, false, verdict, sizeof verdict, NULL, NULL);
      gemmc_matmul_info mi;
      bool ran_it = ok && gemmc_matmul_last_info(hf, &mi).code == GEMMC_OK && strstr(mi.config, names[r]);
      describe(&cases[i], line, sizeof line);
      if (ok && !ran_it) snprintf(verdict, sizeof verdict, "ran another config (%s)", mi.config);
      /* Kernel coordinates: M = n, N = m; checked for the rows of 128 x 256 tiles. */
      int64_t tiles = (cases[i].n + 127) / 128 * ((cases[i].m + 255) / 256) * cases[i].batch;
      if (ok && ran_it && i < 3 && strstr(names[r], "_128x256x") && (int64_t)mi.launch.grid[0] <= tiles) {
        ran_it = false;
        snprintf(verdict, sizeof verdict, "no tile was shared (grid %u for %lld tiles)", mi.launch.grid[0], (long long)tiles);
      }
      printf("%s  row %s  %s  %s\n", ok && ran_it ? "PASS" : "FAIL", names[r], line, verdict);
      ok && ran_it ? (*passed)++ : (*failed)++;
      if (!ok && strstr(verdict, "running")) {
        gemmc_handle_destroy(hf);
        return;
      }
    }
    mcase c = base("tail-split determinism", 1000, 1100, 1500, combos[0]);
    char verdict[1024];
    bool ok = same_bits_twice(hf, rt, &c, seed ^ 78, verdict, sizeof verdict);
    printf("%s  row %s  determinism: two runs, same bits  %s\n", ok ? "PASS" : "FAIL", names[r], verdict);
    ok ? (*passed)++ : (*failed)++;
    gemmc_handle_destroy(hf);
  }
}

int main(int argc, char **argv) {
  int sweep = 0;
  bool fixed = true, quick = false, verbose = false;
  const char *cache_dir = NULL;
  uint64_t seed = mh_fresh_seed();
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout, argv[0]);
      return 0;
    } else if (!strcmp(a, "--quick")) quick = true;
    else if (!strcmp(a, "--no-fixed")) fixed = false;
    else if (!strcmp(a, "--verbose")) verbose = true;
    else if (i + 1 < argc && !strcmp(a, "--sweep")) sweep = atoi(argv[++i]);
    else if (i + 1 < argc && !strcmp(a, "--seed")) seed = strtoull(argv[++i], NULL, 10);
    else if (i + 1 < argc && !strcmp(a, "--cache-dir")) cache_dir = argv[++i];
    else {
      fprintf(stderr, "%s: unknown option %s (try --help)\n", argv[0], a);
      return 2;
    }
  }
  gemmc_handle_options ho;
  gemmc_handle_options_init(&ho);
  ho.cache_dir = cache_dir;
  ho.tune = 0;
  gemmc_handle *h = NULL;
  gemmc_status st = gemmc_handle_create(&ho, &h);
  if (st.code == GEMMC_ERROR_NO_DRIVER) {
    printf("skipped: %s\n", st.message);
    return 0;
  }
  if (st.code != GEMMC_OK) {
    printf("FAIL: gemmc_handle_create: %s\n0 passed, 1 failed\n", st.message);
    return 1;
  }
  gemmc_runtime *rt = gemmc_handle_runtime(h);
  const gemmc_device_info *info = gemmc_runtime_device_info(rt);
  printf("device: %s (sm_%d%d, %d SMs), seed %llu\n", info->name, info->compute_capability_major,
         info->compute_capability_minor, info->multiprocessor_count, (unsigned long long)seed);
  fflush(stdout);
  mh_rng rng = {seed};
  int passed = 0, failed = 0;
  double t0 = mh_now_seconds();
  enum { MAX_FIXED = 512 };
  mcase *list = calloc(MAX_FIXED, sizeof *list);
  int n = fixed && list ? fixed_cases(list, MAX_FIXED, quick) : 0;
  bool saw_split = false;
  /* Every case's kernels first, built in parallel (gemmc_matmul_prepare_many). */
  mcase *all = calloc((size_t)(n + sweep) + 1, sizeof *all);
  gemmc_matmul_desc *descs = calloc((size_t)(n + sweep) + 1, sizeof *descs);
  scalars *scal = calloc((size_t)(n + sweep) + 1, sizeof *scal);
  if (!all || !descs || !scal) {
    printf("FAIL: out of memory\n");
    return 1;
  }
  for (int i = 0; i < n + sweep; i++) {
    all[i] = i < n ? list[i] : random_case(&rng, i - n);
    stand_in_desc(&all[i], &descs[i], &scal[i]);
  }
  double prep_ms = 0;
  st = gemmc_matmul_prepare_many(h, descs, n + sweep, &prep_ms);
  printf("built the kernels of %d cases in %.0f ms (gemmc_matmul_prepare_many)%s%.200s\n", n + sweep, prep_ms,
         st.code == GEMMC_OK ? "" : "; first failure: ", st.code == GEMMC_OK ? "" : st.message);
  fflush(stdout);
  for (int i = 0; i < n + sweep; i++) {
    mcase c = all[i];
    char line[512], verdict[1024];
    describe(&c, line, sizeof line);
    bool ok = run_case(h, rt, &c, &rng, verbose, verdict, sizeof verdict, NULL, NULL);
    gemmc_matmul_info mi;
    if (ok && c.expect == GEMMC_OK && gemmc_matmul_last_info(h, &mi).code == GEMMC_OK && mi.split_k > 1) saw_split = true;
    if (!ok || verbose) printf("%s  %s  %s\n", ok ? "PASS" : "FAIL", line, verdict);
    fflush(stdout);
    if (ok) passed++;
    else failed++;
    if (!ok && strstr(verdict, "running")) {
      printf("stopping: the CUDA context is lost after a kernel fault\n");
      break;
    }
  }
  if (fixed && !quick) {
    printf("%s  split-K was used by at least one named case\n", saw_split ? "PASS" : "FAIL");
    saw_split ? passed++ : failed++;
  }

  /* Determinism: the same call twice gives the same bytes (split-K included). */
  static const int64_t det_shapes[][3] = {{200, 130, 300}, {64, 64, 8192}};
  for (int s = 0; fixed && s < 2; s++) {
    mcase c = base("determinism", det_shapes[s][0], det_shapes[s][1], det_shapes[s][2], combos[0]);
    char verdict[1024];
    bool ok = same_bits_twice(h, rt, &c, seed ^ 77, verdict, sizeof verdict);
    printf("%s  determinism m=%lld n=%lld k=%lld: two runs, same bits  %s\n", ok ? "PASS" : "FAIL", (long long)c.m,
           (long long)c.n, (long long)c.k, verdict);
    ok ? passed++ : failed++;
  }

  /* Batch invariance: with the option, row i of D is the same bits whatever m (the rows come
   * from the first m rows of one A). */
  if (fixed) {
    gemmc_handle_options bo = ho;
    bo.runtime = rt;
    bo.batch_invariant = true;
    gemmc_handle *hb = NULL;
    st = gemmc_handle_create(&bo, &hb);
    if (st.code != GEMMC_OK) {
      printf("FAIL  batch invariance: %s\n", st.message);
      failed++;
    } else {
      static const int64_t ms[] = {1, 3, 16, 100, 517, 1024};
      const int64_t m_max = 4096, n_cols = 256, k = 1024;
      /* op(A) = A^T with A stored k x m_max (lda = k): the first m rows of op(A) are the first m
       * columns of A, which the generator fills first; B is filled before A, so it is the same
       * in every run. Every run uses the same seed. */
      mcase full = base("batch invariance", m_max, n_cols, k, combos[0]);
      full.ta = GEMMC_OP_T;
      full.lda = k;
      const size_t es = 2;
      void *ref = malloc((size_t)m_max * n_cols * es);
      void *part = malloc((size_t)m_max * n_cols * es);
      char v[1024] = "";
      mh_rng r0 = {seed ^ 99};
      bool have_ref = ref && part && run_case(hb, rt, &full, &r0, false, v, sizeof v, NULL, ref);
      gemmc_matmul_info mi;
      gemmc_matmul_last_info(hb, &mi);
      printf("%s  batch invariance m=%lld (the reference rows): %s\n", have_ref ? "PASS" : "FAIL", (long long)m_max, v);
      have_ref ? passed++ : failed++;
      for (size_t si = 0; have_ref && si < sizeof ms / sizeof ms[0]; si++) {
        mcase c = full;
        c.m = ms[si];
        mh_rng r = {seed ^ 99};
        bool ok = run_case(hb, rt, &c, &r, false, v, sizeof v, NULL, part);
        bool same = ok;
        for (int64_t j = 0; same && j < n_cols; j++)
          same = !memcmp((char *)part + (size_t)(j * c.m) * es, (char *)ref + (size_t)(j * m_max) * es, (size_t)c.m * es);
        gemmc_matmul_last_info(hb, &mi);
        printf("%s  batch invariance: the %lld rows of m=%lld are bitwise those of m=%lld (%s; %s)\n",
               ok && same ? "PASS" : "FAIL", (long long)c.m, (long long)c.m, (long long)m_max, ok ? "correct" : v, mi.config);
        ok && same ? passed++ : failed++;
      }
      free(ref);
      free(part);
      gemmc_handle_destroy(hb);
    }
  }
  if (fixed) forced_rows(&ho, rt, seed, quick, &passed, &failed);
  if (fixed) tail_split_rows(&ho, rt, seed, &passed, &failed);
  free(list);
  free(all);
  free(descs);
  free(scal);
  printf("%.1f s, seed %llu\n", mh_now_seconds() - t0, (unsigned long long)seed);
  printf("%d passed, %d failed\n", passed, failed);
  gemmc_handle_destroy(h);
  return failed ? 1 : 0;
}

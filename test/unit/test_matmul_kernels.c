/* Unit test of gemmc_matmul's kernel building without a GPU: every config row (fp8 included), epilogue, layout fact and the split-K pair compile from the embedded templates (and assemble with ptxas when it is there). */
#include "gemmc/target.h"
#include "gemmc/tune.h"
#include "matmul/matmul_internal.h"
#include "matmul/template.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { MAX_SPECS = 64 };

typedef struct built_spec {
  mm_spec spec;
  char label[128];
  bool expect_ok;
} built_spec;

static built_spec specs[MAX_SPECS];

/* The spec whose PTX is checked for cp.async through L1 (rows 16 bytes off a 32-byte sector). */
#define CP_ROW_DIV8_LABEL "wgmma_64x128x64_s8_cp, divisible by 8"
static int num_specs;

#define BIT(x) (1u << MM_SLOT_##x)
/* Row-major A and B (cuBLAS NN), everything 16-divisible: the fast path. */
static const uint64_t all_div16 = ~(uint64_t)0;
static const uint32_t nn_unit = BIT(STRIDE_AK) | BIT(STRIDE_BN) | BIT(STRIDE_CN) | BIT(STRIDE_DN);

static mm_spec gemm_spec(int config) {
  mm_spec s;
  memset(&s, 0, sizeof s);
  s.kind = MM_KIND_GEMM;
  s.config = (uint16_t)config;
  switch (matmul_configs[config].cls) {
  case MM_CLASS_F16: s.at = GEMMC_R_16F, s.out = GEMMC_R_16F, s.acc = MM_ACC_F32; break;
  case MM_CLASS_TF32: s.at = GEMMC_R_32F, s.out = GEMMC_R_32F, s.acc = MM_ACC_F32, s.tf32 = 1; break;
  case MM_CLASS_F32: s.at = GEMMC_R_32F, s.out = GEMMC_R_32F, s.acc = MM_ACC_F32; break;
  case MM_CLASS_I8: s.at = GEMMC_R_8I, s.out = GEMMC_R_32I, s.acc = MM_ACC_I32; break;
  default: s.at = GEMMC_R_8F_E4M3, s.out = GEMMC_R_16F, s.acc = MM_ACC_F32; break;
  }
  s.act = GEMMC_ACT_NONE;
  s.div = all_div16;
  s.unit = nn_unit;
  return s;
}

/* Whether ptx has a 16-byte copy of the given opcode prefix ("cp.async.ca."). */
static bool has_16_byte_copy(const char *ptx, const char *opcode) {
  for (const char *at = ptx ? strstr(ptx, opcode) : NULL; at; at = strstr(at + 1, opcode)) {
    const char *eol = strchr(at, '\n');
    const char *size = strstr(at, "], 16,");
    if (size && (!eol || size < eol)) return true;
  }
  return false;
}

static void add(mm_spec s, bool expect_ok, const char *fmt, const char *arg) {
  if (num_specs == MAX_SPECS) return;
  specs[num_specs].spec = s;
  specs[num_specs].expect_ok = expect_ok;
  snprintf(specs[num_specs].label, sizeof specs[num_specs].label, fmt, arg);
  num_specs++;
}

static void build_list(void) {
  int first_f16 = -1;
  for (int i = 0; i < matmul_num_configs; i++) {
    add(gemm_spec(i), true, "%s", matmul_configs[i].name);
    if (first_f16 < 0 && matmul_configs[i].cls == MM_CLASS_F16) first_f16 = i;
  }
  CHECK(first_f16 >= 0, "the table has an f16 row");
  if (first_f16 < 0) return;
  mm_spec s = gemm_spec(first_f16);
  s.unit = BIT(STRIDE_AM) | BIT(STRIDE_BK) | BIT(STRIDE_CN) | BIT(STRIDE_DN); /* cuBLAS TT */
  add(s, true, "%s, transposed operands", "f16");
  s = gemm_spec(first_f16);
  s.div = 0;
  s.unit = BIT(STRIDE_AK) | BIT(STRIDE_BN) | BIT(STRIDE_DN);
  add(s, true, "%s, nothing aligned", "f16");
  s = gemm_spec(first_f16);
  s.div = 0xaaaaaaaaaaaaaaaaull; /* every value divides by 8: 16-byte f16 rows, e.g. lda = 1000 */
  add(s, true, "%s, divisible by 8", "f16");
  int cp_row = mm_config_find("wgmma_64x128x64_s8_cp");
  CHECK(cp_row >= 0, "the table has the cp.async row wgmma_64x128x64_s8_cp");
  if (cp_row >= 0) {
    s = gemm_spec(cp_row);
    s.div = 0xaaaaaaaaaaaaaaaaull; /* strides of 8 f16: 16-byte rows; pointers 16-byte aligned */
    static const mm_slot pointers[] = {MM_SLOT_A_PTR, MM_SLOT_B_PTR, MM_SLOT_C_PTR, MM_SLOT_D_PTR, MM_SLOT_BIAS_PTR};
    for (size_t k = 0; k < sizeof pointers / sizeof pointers[0]; k++) s.div |= (uint64_t)3 << (2 * pointers[k]);
    add(s, true, CP_ROW_DIV8_LABEL "%s", "");
  }
  s = gemm_spec(first_f16);
  s.has_alpha = s.has_c = s.has_bias = 1;
  s.act = GEMMC_ACT_GELU;
  add(s, true, "%s, alpha, beta C, bias, gelu", "f16");
  s.act = GEMMC_ACT_RELU;
  s.out = GEMMC_R_16BF;
  s.at = GEMMC_R_16BF;
  add(s, true, "%s, alpha, beta C, bias, relu", "bf16");
  s.act = GEMMC_ACT_LEAKY_RELU;
  s.out = GEMMC_R_32F;
  add(s, true, "%s -> f32, leaky_relu", "bf16");
  s = gemm_spec(first_f16);
  s.acc = MM_ACC_F16;
  s.has_c = s.has_bias = 1;
  s.act = GEMMC_ACT_GELU;
  add(s, true, "%s, f16 accumulation, gelu", "f16");
  s = gemm_spec(first_f16);
  s.split = 1;
  s.unit |= BIT(STRIDE_DN);
  add(s, true, "%s, split-K part", "f16");
  for (int i = 0; i < matmul_num_configs; i++) {
    if (matmul_configs[i].cls != MM_CLASS_F8) continue;
    s = gemm_spec(i);
    s.at = GEMMC_R_8F_E5M2, s.out = GEMMC_R_32F, s.has_c = s.has_bias = 1, s.act = GEMMC_ACT_RELU;
    add(s, true, "%s, e5m2 -> f32, C, bias, relu", matmul_configs[i].name);
    break;
  }
  for (int i = 0; i < matmul_num_configs; i++) {
    if (matmul_configs[i].cls != MM_CLASS_I8) continue;
    s = gemm_spec(i);
    s.has_alpha = s.has_c = 1;
    add(s, true, "%s, alpha, beta C", matmul_configs[i].name);
    s.split = 1;
    s.has_alpha = s.has_c = 0;
    add(s, true, "%s, split-K part", matmul_configs[i].name);
    break;
  }
  mm_spec r;
  memset(&r, 0, sizeof r);
  r.kind = MM_KIND_REDUCE;
  r.at = GEMMC_R_16F, r.out = GEMMC_R_16F, r.acc = MM_ACC_F32, r.act = GEMMC_ACT_NONE;
  r.div = all_div16;
  r.unit = BIT(STRIDE_CN) | BIT(STRIDE_DN);
  add(r, true, "%s split-K reduce", "f16");
  r.has_alpha = r.has_c = r.has_bias = 1;
  r.act = GEMMC_ACT_GELU;
  r.div = 0;
  add(r, true, "%s split-K reduce, full epilogue, unaligned", "f16");
  r.at = GEMMC_R_8I, r.out = GEMMC_R_32I, r.acc = MM_ACC_I32, r.act = GEMMC_ACT_NONE, r.has_bias = 0;
  add(r, true, "%s split-K reduce", "i8");
}

int main(void) {
  build_list();
  gemmc_tune_source *src = calloc((size_t)num_specs, sizeof *src);
  mm_kernel_source *ks = calloc((size_t)num_specs, sizeof *ks);
  char **texts = calloc((size_t)num_specs, sizeof *texts);
  gemmc_tune_compiled *out = calloc((size_t)num_specs, sizeof *out);
  if (!src || !ks || !texts || !out) return 2;
  for (int i = 0; i < num_specs; i++) {
    char err[512];
    size_t len = 0;
    bool ok = mm_kernel_source_for(&specs[i].spec, &ks[i], err, sizeof err) &&
              template_instantiate(ks[i].template_name, ks[i].defines, ks[i].num_defines, &texts[i], &len, err, sizeof err);
    CHECK(ok, "%s: %s", specs[i].label, err);
    src[i].label = specs[i].label;
    src[i].text = texts[i] ? texts[i] : "";
    src[i].len = len;
    src[i].filename = ks[i].template_name;
    gemmc_compile_options_init(&src[i].options);
    src[i].options.target = "sm_90a";
    src[i].options.num_warps = ks[i].num_warps;
    src[i].options.num_stages = ks[i].num_stages;
    src[i].options.tma = ks[i].tma; /* the row's path, as gemmc_matmul compiles it */
    src[i].options.warp_specialize = ks[i].warp_specialize;
    src[i].options.defines = ks[i].defines;
    src[i].options.num_defines = ks[i].num_defines;
  }
  double wall = 0;
  gemmc_tune_compile(NULL, NULL, 0, src, num_specs, 0, NULL, out, &wall);
  bool have_ptxas = gemmc_target_find_ptxas(NULL, 0);
  const gemmc_target *sm90a = gemmc_target_lookup("sm_90a", NULL, 0);
  for (int i = 0; i < num_specs; i++) {
    if (specs[i].expect_ok) {
      CHECK(out[i].ok, "%s: %s", specs[i].label, out[i].error);
    } else {
      const char *diag = out[i].image ? gemmc_kernel_image_diagnostics(out[i].image) : "";
      CHECK(!out[i].ok && strstr(diag, "not implemented yet"), "%s fails as not implemented yet: %s", specs[i].label, diag);
    }
    if (out[i].ok && have_ptxas && sm90a) {
      char report[8192], err[8192];
      bool ok = gemmc_target_run_ptxas(gemmc_kernel_image_ptx(out[i].image, NULL), sm90a, NULL, report, sizeof report, err,
                                       sizeof err);
      CHECK(ok, "ptxas %s: %s", specs[i].label, err);
      if (ok && specs[i].spec.kind == MM_KIND_GEMM && mm_config_is_tail_split(&matmul_configs[specs[i].spec.config]))
        CHECK(strstr(report, " 0 bytes spill stores"), "%s: no spills (ptxas -v: %.300s)", specs[i].label, report);
    }
    const char *ptx = out[i].ok ? gemmc_kernel_image_ptx(out[i].image, NULL) : NULL;
    bool ca16 = has_16_byte_copy(ptx, "cp.async.ca."), cg16 = has_16_byte_copy(ptx, "cp.async.cg.");
    /* The tail split's protocol: a contribution's flag set with release semantics after a block
     * barrier; the owner's wait an acquiring compare-and-swap that resets it; partial sums through
     * L2 only (the other SM's stores are not in this SM's L1). Above: no spills (its 128x256 f32
     * sums and a partner's tile stay in registers). */
    if (ptx && mm_config_is_tail_split(&matmul_configs[specs[i].spec.config]) && specs[i].spec.kind == MM_KIND_GEMM) {
      const char *exch = strstr(ptx, "atom.acq_rel.gpu.global.exch.b32");
      const char *barrier = strstr(ptx, "bar.sync");
      CHECK(exch && barrier && barrier < exch && strstr(ptx, "atom.acq_rel.gpu.global.cas.b32") &&
                strstr(ptx, "ld.global.cg.") && strstr(ptx, "st.global.cg."),
            "%s: flags with release / acquire, partial sums through L2", specs[i].label);
    }
    if (!strcmp(specs[i].label, CP_ROW_DIV8_LABEL))
      CHECK(ca16 && !cg16, "%s: its 16-byte copies go through L1 (cp.async.ca)", specs[i].label);
    else if (specs[i].spec.kind == MM_KIND_GEMM && specs[i].spec.div == all_div16)
      CHECK(!ca16, "%s: 16-divisible rows keep 16-byte copies on cp.async.cg", specs[i].label);
    const gemmc_kernel_metadata *md = out[i].ok ? gemmc_kernel_image_metadata(out[i].image) : NULL;
    for (int a = 0; md && a < md->num_args; a++) {
      int slot = 0;
      while (slot < MM_SLOT_COUNT && strcmp(mm_slot_names[slot], md->args[a].name)) slot++;
      CHECK(slot < MM_SLOT_COUNT, "%s: argument %s has a slot", specs[i].label, md->args[a].name);
    }
    gemmc_kernel_image_destroy(out[i].image);
    free(texts[i]);
  }
  printf("%d kernels compiled in %.0f ms%s; %d checks, %d failed\n", num_specs, wall, have_ptxas ? " and assembled" : "",
         checks, failures);
  free(src);
  free(ks);
  free(texts);
  free(out);
  return failures ? 1 : 0;
}

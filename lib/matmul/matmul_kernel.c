/* From a kernel spec (types, epilogue, config, facts about the arguments) to the template and -D constants that build it. */
#include "matmul_internal.h"

#include <stdio.h>
#include <string.h>

static bool add(mm_kernel_source *s, const char *name, const char *value) {
  if (s->num_defines == (int)(sizeof s->defines / sizeof s->defines[0])) return false;
  if (strlen(name) >= sizeof s->storage[0][0] || strlen(value) >= sizeof s->storage[0][1]) return false;
  /* A later value replaces an earlier one (rows' extra defines override the defaults). */
  int i = 0;
  while (i < s->num_defines && strcmp(s->storage[i][0], name)) i++;
  if (i == s->num_defines) s->num_defines++;
  snprintf(s->storage[i][0], sizeof s->storage[i][0], "%s", name);
  snprintf(s->storage[i][1], sizeof s->storage[i][1], "%s", value);
  s->defines[i].name = s->storage[i][0];
  s->defines[i].value = s->storage[i][1];
  return true;
}

static bool add_int(mm_kernel_source *s, const char *name, long long v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", v);
  return add(s, name, buf);
}

static const char *acc_ir(int acc) { return acc == MM_ACC_I32 ? "i32" : acc == MM_ACC_F16 ? "f16" : "f32"; }

/* OUT -> ACC or ACC -> DST: same type is a bitcast, floats widen or narrow. */
static const char *convert_op(const char *from, const char *to) {
  if (!strcmp(from, to)) return "arith.bitcast";
  bool wider = !strcmp(to, "f32") || (!strcmp(to, "f16") && strcmp(from, "f32"));
  return wider ? "arith.extf" : "arith.truncf";
}

static void upper(const char *in, char *out, size_t n) {
  size_t i = 0;
  for (; in[i] && i + 1 < n; i++) out[i] = (char)(in[i] >= 'a' && in[i] <= 'z' ? in[i] - 32 : in[i]);
  out[i] = 0;
}

/* DIV_<SLOT> for each slot the template declares, and STRIDE_<XY> = %c1_i32 for unit strides. */
static bool add_argument_facts(mm_kernel_source *s, const mm_spec *spec, const mm_slot *slots, int n) {
  bool ok = true;
  for (int i = 0; i < n; i++) {
    char name[64], up[48];
    upper(mm_slot_names[slots[i]], up, sizeof up);
    snprintf(name, sizeof name, "DIV_%s", up);
    ok = ok && add_int(s, name, mm_div_of_slot(spec->div, slots[i]));
  }
  static const mm_slot strides2d[] = {MM_SLOT_STRIDE_AM, MM_SLOT_STRIDE_AK, MM_SLOT_STRIDE_BK, MM_SLOT_STRIDE_BN,
                                      MM_SLOT_STRIDE_CM, MM_SLOT_STRIDE_CN, MM_SLOT_STRIDE_DM, MM_SLOT_STRIDE_DN};
  for (size_t i = 0; i < sizeof strides2d / sizeof strides2d[0]; i++) {
    bool declared = false;
    for (int k = 0; k < n; k++) declared |= slots[k] == strides2d[i];
    if (!declared) continue;
    char name[48], value[48];
    upper(mm_slot_names[strides2d[i]], name, sizeof name);
    snprintf(value, sizeof value, (spec->unit >> strides2d[i]) & 1 ? "%%c1_i32" : "%%%s", mm_slot_names[strides2d[i]]);
    ok = ok && add(s, name, value);
  }
  return ok;
}

static bool add_epilogue(mm_kernel_source *s, const mm_spec *spec) {
  return add_int(s, "HAS_ALPHA", spec->has_alpha) && add_int(s, "HAS_C", spec->has_c) &&
         add_int(s, "HAS_BIAS", spec->has_bias) && add_int(s, "ACT_NONE", spec->act == GEMMC_ACT_NONE) &&
         add_int(s, "ACT_RELU", spec->act == GEMMC_ACT_RELU) && add_int(s, "ACT_LEAKY", spec->act == GEMMC_ACT_LEAKY_RELU) &&
         add_int(s, "ACT_GELU", spec->act == GEMMC_ACT_GELU);
}

static bool add_types(mm_kernel_source *s, const mm_spec *spec, const char *dst) {
  const char *acc = acc_ir(spec->acc), *out = mm_dtype_ir((gemmc_datatype)spec->out);
  bool int_acc = spec->acc == MM_ACC_I32;
  return add(s, "ACC", acc) && add(s, "OUT", out) && add(s, "DST", dst) &&
         add(s, "ZERO", int_acc ? "0" : "0.000000e+00") && add(s, "ONE", int_acc ? "1" : "1.000000e+00") &&
         add(s, "MUL", int_acc ? "arith.muli" : "arith.mulf") && add(s, "ADD", int_acc ? "arith.addi" : "arith.addf") &&
         add(s, "CVT_IN", convert_op(out, acc)) && add(s, "CVT_OUT", convert_op(acc, dst));
}

/* "NAME=VALUE NAME=VALUE" of a config row. */
static bool add_row_defines(mm_kernel_source *s, const char *list) {
  if (!list) return true;
  char buf[512];
  snprintf(buf, sizeof buf, "%s", list);
  for (char *save = NULL, *tok = strtok_r(buf, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq) return false;
    *eq = 0;
    if (!add(s, tok, eq + 1)) return false;
  }
  return true;
}

bool mm_kernel_source_for(const mm_spec *spec, mm_kernel_source *s, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  bool ok = true;
  if (spec->kind == MM_KIND_REDUCE) {
    static const mm_slot slots[] = {MM_SLOT_C_PTR, MM_SLOT_D_PTR, MM_SLOT_BIAS_PTR, MM_SLOT_M, MM_SLOT_N,
                                    MM_SLOT_STRIDE_CM, MM_SLOT_STRIDE_CN, MM_SLOT_STRIDE_DM, MM_SLOT_STRIDE_DN,
                                    MM_SLOT_STRIDE_CB, MM_SLOT_STRIDE_DB, MM_SLOT_STRIDE_WZ};
    s->template_name = "gemm_splitk_reduce.tir";
    s->num_warps = matmul_reduce_num_warps;
    s->num_stages = 1;
    ok = add_int(s, "BLOCK_M", matmul_reduce_block_m) && add_int(s, "BLOCK_N", matmul_reduce_block_n) &&
         add_types(s, spec, mm_dtype_ir((gemmc_datatype)spec->out)) && add_epilogue(s, spec) &&
         add_argument_facts(s, spec, slots, (int)(sizeof slots / sizeof slots[0]));
  } else {
    if (spec->config >= matmul_num_configs) {
      snprintf(err, errlen, "internal error: config %d is not in the table", spec->config);
      return false;
    }
    const matmul_config *c = &matmul_configs[spec->config];
    static const mm_slot slots[] = {MM_SLOT_A_PTR, MM_SLOT_B_PTR, MM_SLOT_C_PTR, MM_SLOT_D_PTR, MM_SLOT_BIAS_PTR,
                                    MM_SLOT_M, MM_SLOT_N, MM_SLOT_K, MM_SLOT_STRIDE_AM, MM_SLOT_STRIDE_AK,
                                    MM_SLOT_STRIDE_BK, MM_SLOT_STRIDE_BN, MM_SLOT_STRIDE_CM, MM_SLOT_STRIDE_CN,
                                    MM_SLOT_STRIDE_DM, MM_SLOT_STRIDE_DN, MM_SLOT_STRIDE_AB, MM_SLOT_STRIDE_BB,
                                    MM_SLOT_STRIDE_CB, MM_SLOT_STRIDE_DB, MM_SLOT_STRIDE_DZ};
    /* Tail-split kernels add their partial sums themselves: they lack the split-K stride (the
     * list's last slot). */
    bool tail_split = mm_config_is_tail_split(c);
    int num_slots = (int)(sizeof slots / sizeof slots[0]) - (tail_split ? 1 : 0);
    s->template_name = c->template_name;
    s->num_warps = c->num_warps;
    s->num_stages = c->num_stages;
    /* The rows name their path: the compiler's default keeps 8-warp kernels on cp.async rings. */
    if (c->path == 0 || c->path == 3) s->warp_specialize = GEMMC_WARP_SPECIALIZE_ON;
    if (c->path == 1) s->warp_specialize = GEMMC_WARP_SPECIALIZE_PING_PONG;
    if (c->path == 2) s->tma = s->warp_specialize = -1;
    if (c->path == 3) s->cluster_size = 2;
    const char *at = mm_dtype_ir((gemmc_datatype)spec->at);
    const char *dst = spec->split ? acc_ir(spec->acc) : mm_dtype_ir((gemmc_datatype)spec->out);
    ok = add_int(s, "BLOCK_M", c->block_m) && add_int(s, "BLOCK_N", c->block_n) && add_int(s, "BLOCK_K", c->block_k) &&
         add_int(s, "GROUP_SIZE_M", c->group_m) && add(s, "AT", at) &&
         add(s, "AZERO", spec->at == GEMMC_R_8I ? "0" : "0.000000e+00") && add_types(s, spec, dst) &&
         add(s, "PRECISION", spec->at == GEMMC_R_32F && !spec->tf32 ? "ieee" : "tf32") &&
         (tail_split || add_int(s, "SPLIT_K", spec->split)) && add_epilogue(s, spec) &&
         add_int(s, "A_CACHE_CA", mm_operand_rows_off_sector(spec->unit, spec->div, mm_dtype_bytes(spec->at), 'a')) &&
         add_int(s, "B_CACHE_CA", mm_operand_rows_off_sector(spec->unit, spec->div, mm_dtype_bytes(spec->at), 'b')) &&
         add_argument_facts(s, spec, slots, num_slots) && add_row_defines(s, c->defines);
  }
  if (!ok) snprintf(err, errlen, "internal error: too many or too long -D constants for %s", s->template_name);
  return ok;
}

/* --accelerate-matmul (alias --tritongpu-accelerate-matmul): tt.dot gets an nvidia_mma v2 layout and dot_op operands where mma.sync supports it (Triton's AccelerateMatmul, MMA v2 only). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "context_internal.h"
#include "gemmc/layout.h"
#include "gemmc/passes.h"

/* ------------------------------------------------------------------ options */

/* The text of `key=value` in "a=1,b=2" (or space separated, possibly in braces); NULL if absent. */
static const char *option_value(const char *options, const char *key, size_t *len) {
  size_t klen = strlen(key);
  const char *found = NULL;
  for (const char *p = options; p && *p;) {
    while (*p == ',' || *p == ' ' || *p == '{' || *p == '}') p++;
    const char *e = p;
    while (*e && *e != ',' && *e != ' ' && *e != '}') e++;
    if ((size_t)(e - p) > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
      found = p + klen + 1;
      *len = (size_t)(e - found);
    }
    p = e;
  }
  return found;
}

/* Compute capability from "sm_80", "sm_90a", "cuda:90" or "90"; -1 when not an NVIDIA target. */
static int parse_compute_capability(const char *text, size_t len) {
  char buf[32];
  if (len == 0 || len >= sizeof buf) return -1;
  memcpy(buf, text, len);
  buf[len] = 0;
  const char *digits = buf;
  if (strncmp(buf, "sm_", 3) == 0) digits = buf + 3;
  else if (strncmp(buf, "cuda:", 5) == 0) digits = buf + 5;
  char *end = NULL;
  long cc = strtol(digits, &end, 10);
  if (end == digits || (*end && strcmp(end, "a") != 0) || cc < 10 || cc > 999) return -1;
  return (int)cc;
}

/* ------------------------------------------------------------------ which dots */

/* The instruction K of mma.sync for this dot's types, or 0 when it stays on the FMA path: f16
 * with f32 or f16 accumulators, bf16 with f32, f32 with inputPrecision = tf32, i8 with i32
 * (Triton's supportMMA for version 2, restricted to what mma.sync has). */
static int mma_v2_k(const ir_op *dot) {
  const ir_type *a = ir_type_element(dot->operands[0].value->type);
  const ir_type *b = ir_type_element(dot->operands[1].value->type);
  const ir_type *c = ir_type_element(dot->results[0].type);
  if (a != b) return 0;
  bool c_f32 = c->kind == TY_FLOAT && c->float_kind == FLT_F32;
  if (a->kind == TY_FLOAT && a->float_kind == FLT_F16)
    return c_f32 || (c->kind == TY_FLOAT && c->float_kind == FLT_F16) ? 16 : 0;
  if (a->kind == TY_FLOAT && a->float_kind == FLT_BF16) return c_f32 ? 16 : 0;
  if (a->kind == TY_FLOAT && a->float_kind == FLT_F32) {
    const ir_attr *prec = ir_op_get_attr(dot, "inputPrecision");
    return c_f32 && prec && prec->str && strcmp(prec->str, "tf32") == 0 ? 8 : 0;
  }
  if (ir_type_is_int(a, 8) && ir_type_is_int(c, 32)) return 32;
  return 0;
}

/* ------------------------------------------------------------------ warps per tile */


/* Triton's slice filter: ops of the dot's own block, tt.trans excluded. */
static bool in_slice(const ir_op *op, const ir_op *dot) { return op && op->parent == dot->parent && op->kind != OP_TRANS; }

/* mlir::getSlice(dot) with that filter: the closure under operand definitions and result users. */
static void dot_slice(ir_op *dot, ptr_list *slice) {
  ptr_list_push_unique(slice, dot);
  for (int i = 0; i < slice->count; i++) {
    ir_op *op = slice->items[i];
    for (int k = 0; k < op->num_operands; k++) {
      ir_value *v = op->operands[k].value;
      if (v && in_slice(v->def_op, dot)) ptr_list_push_unique(slice, v->def_op);
    }
    for (int r = 0; r < op->num_results; r++)
      for (ir_operand *u = op->results[r].first_use; u; u = u->next_use)
        if (in_slice(u->owner, dot)) ptr_list_push_unique(slice, u->owner);
  }
}

/* Triton's warpsPerTileV2 for the [M, N] tile: a dot chained to one that already has an MMA
 * layout takes its warps; other chained dots put every warp on the longer dim; otherwise warps
 * double along the dim with more 16x8 repetitions left (M on ties), which balances the A and B
 * registers each warp holds. */
static void warps_per_tile_v2(gemmc_context *ctx, ir_op *dot, int64_t m, int64_t n, int num_warps, int *wm, int *wn) {
  ptr_list slice = {ctx, NULL, 0, 0};
  /* Batched dots skip the chained-dot rule, as in Triton. */
  if (dot->results[0].type->rank == 2) dot_slice(dot, &slice);
  bool chained = false;
  for (int i = 0; i < slice.count; i++) {
    ir_op *other = slice.items[i];
    if (other == dot || other->kind != OP_DOT) continue;
    const ir_type *t = other->results[0].type;
    if (t->rank != dot->results[0].type->rank) continue;
    if (t->encoding && t->encoding->kind == AT_NVIDIA_MMA) {
      *wm = t->encoding->layout.warps_per_cta[t->rank - 2];
      *wn = t->encoding->layout.warps_per_cta[t->rank - 1];
      ptr_list_free(&slice);
      return;
    }
    chained = true;
  }
  ptr_list_free(&slice);
  if (chained) {
    *wm = m >= n ? num_warps : 1;
    *wn = m >= n ? 1 : num_warps;
    return;
  }
  int64_t reps_m = (m + 15) / 16, reps_n = (n + 7) / 8;
  int w0 = 1, w1 = 1;
  while (w0 * w1 < num_warps) {
    if (reps_m >= reps_n) {
      w0 *= 2;
      if (reps_m != 1) reps_m /= 2; /* too many warps for this tile: the rest go to M */
    } else {
      w1 *= 2;
      reps_n /= 2;
    }
  }
  *wm = w0;
  *wn = w1;
}

/* ------------------------------------------------------------------ the rewrite */

static ir_value *convert_before(gemmc_context *ctx, ir_op *anchor, ir_value *v, const ir_type *to) {
  ir_op *cvt = ir_op_create(ctx, OP_CONVERT_LAYOUT, 1, &v, 1, &to, 0, anchor->loc);
  cvt->src_loc = anchor->src_loc;
  ir_op_insert_before(anchor, cvt);
  return &cvt->results[0];
}

/* The value to convert from: the first source of the convert_layout chain feeding the dot (the
 * dot_op(blocked) form would hold the whole K extent per thread, and every hop would be a round
 * trip through shared memory), else the operand itself. */
static ir_value *conversion_source(ir_value *v) {
  for (;;) {
    ir_op *def = v->def_op;
    if (!def || def->kind != OP_CONVERT_LAYOUT) return v;
    ir_value *src = def->operands[0].value;
    if (!src || !ir_type_is_tensor(src->type) || !src->type->encoding || !layout_is_distributed(src->type->encoding))
      return v;
    v = src;
  }
}

/* Erases the convert_layout chain that fed an operand, as far as nothing else uses it. */
static void erase_if_unused(ir_op *op) {
  while (op && op->kind == OP_CONVERT_LAYOUT && ir_value_num_uses(&op->results[0]) == 0) {
    ir_op *next = op->operands[0].value->def_op;
    ir_op_erase(op);
    op = next;
  }
}

/* A splat constant rebuilt with another encoding (no conversion needed for it). */
static ir_value *splat_with_encoding(gemmc_context *ctx, ir_op *anchor, ir_value *v, const ir_type *to) {
  ir_op *def = v->def_op;
  const ir_attr *value = def && def->kind == OP_CONSTANT ? ir_op_get_attr(def, "value") : NULL;
  if (!value || value->kind != AT_DENSE || !value->dense_splat || value->num_elems != 1) return NULL;
  const ir_attr *splat = ir_dense_attr(ctx, to, true, 1, value->elems);
  ir_op *c = ir_op_create(ctx, OP_CONSTANT, 0, NULL, 1, &to, 0, def->loc);
  c->src_loc = def->src_loc;
  ir_op_set_attr(ctx, c, "value", splat);
  ir_op_insert_before(anchor, c);
  return &c->results[0];
}

/*
 * The accumulator of a dot in a loop is carried in the MMA layout: when the dot's accumulator is
 * an scf.for iter_arg used only by the dot and the dot's result is yielded back into the same
 * iter_arg (the matmul main loop), the loop carries the MMA layout and the conversions move out
 * of the loop: the init is converted once before it (a splat constant is rebuilt in place) and
 * the loop result once after it. Triton gets the same from remove-layout-conversions; without it
 * every iteration would round-trip the whole accumulator through shared memory.
 */
static bool carry_accumulator_in_mma(gemmc_context *ctx, ir_op *new_dot, ir_op *back) {
  ir_value *acc_cvt = new_dot->operands[2].value;
  ir_op *cvt = acc_cvt->def_op;
  if (!cvt || cvt->kind != OP_CONVERT_LAYOUT || !ir_value_has_one_use(acc_cvt)) return false;
  ir_value *arg = cvt->operands[0].value;
  ir_block *body = arg->owner_block;
  ir_op *loop = body && body->parent ? body->parent->parent : NULL;
  if (!loop || loop->kind != OP_SCF_FOR || body != new_dot->parent || arg->index < 1) return false;
  if (!ir_value_has_one_use(arg) || !ir_value_has_one_use(&back->results[0])) return false;
  ir_operand *use = back->results[0].first_use;
  int idx = arg->index - 1; /* iter_arg number: block arg 0 is the induction variable */
  if (use->owner->kind != OP_SCF_YIELD || use->owner->parent != body || use->index != idx) return false;
  const ir_type *mma_type = new_dot->results[0].type, *old_type = arg->type;
  /* Inside: the dot reads the iter_arg and its result is yielded directly. */
  arg->type = mma_type;
  ir_op_set_operand(new_dot, 2, arg);
  ir_op_erase(cvt);
  ir_op_set_operand(use->owner, idx, &new_dot->results[0]);
  ir_op_erase(back);
  /* Before: the init in the MMA layout. */
  ir_value *init = loop->operands[3 + idx].value;
  ir_value *new_init = splat_with_encoding(ctx, loop, init, mma_type);
  if (!new_init) new_init = convert_before(ctx, loop, init, mma_type);
  ir_op *init_def = init->def_op;
  ir_op_set_operand(loop, 3 + idx, new_init);
  if (init_def && init_def->kind == OP_CONSTANT && ir_value_num_uses(&init_def->results[0]) == 0) ir_op_erase(init_def);
  /* After: the loop result back in the old layout for its users. */
  ir_value *res = &loop->results[idx];
  res->type = mma_type;
  ir_op *after = ir_op_create(ctx, OP_CONVERT_LAYOUT, 1, &res, 1, &old_type, 0, loop->loc);
  after->src_loc = loop->src_loc;
  ir_op_insert_after(loop, after);
  after->results[0].name = res->name;
  res->name = NULL;
  ir_value_replace_all_uses(res, &after->results[0]);
  ir_op_set_operand(after, 0, res);
  return true;
}

static void rewrite_dot(gemmc_context *ctx, ir_op *dot, const ir_attr *mma, int k_width) {
  const ir_type *c_type = dot->results[0].type;
  const ir_type *mma_type = ir_type_with_encoding(ctx, c_type, mma);
  ir_value *operands[3];
  ir_op *old_defs[2];
  for (int i = 0; i < 2; i++) {
    ir_value *v = dot->operands[i].value;
    old_defs[i] = v->def_op;
    const ir_attr *enc = layout_dot_op_get(ctx, i, mma, k_width);
    operands[i] = convert_before(ctx, dot, conversion_source(v), ir_type_with_encoding(ctx, v->type, enc));
  }
  operands[2] = convert_before(ctx, dot, dot->operands[2].value, mma_type);
  ir_op *new_dot = ir_op_create(ctx, OP_DOT, 3, operands, 1, &mma_type, 0, dot->loc);
  new_dot->src_loc = dot->src_loc;
  for (int i = 0; i < dot->num_attrs; i++) {
    ir_op_set_attr(ctx, new_dot, dot->attrs[i].name, dot->attrs[i].value);
    if (ir_op_attr_is_property(dot, dot->attrs[i].name)) ir_op_mark_property(ctx, new_dot, dot->attrs[i].name);
  }
  ir_op_insert_before(dot, new_dot);
  ir_value *r = &new_dot->results[0];
  ir_op *back = ir_op_create(ctx, OP_CONVERT_LAYOUT, 1, &r, 1, &c_type, 0, dot->loc);
  back->src_loc = dot->src_loc;
  ir_op_insert_after(new_dot, back);
  back->results[0].name = dot->results[0].name;
  ir_value_replace_all_uses(&dot->results[0], &back->results[0]);
  ir_op_erase(dot);
  for (int i = 0; i < 2; i++) erase_if_unused(old_defs[i]);
  carry_accumulator_in_mma(ctx, new_dot, back);
}

/* ------------------------------------------------------------------ the pass */

static bool collect_dots(ir_op *op, void *user) {
  if (op->kind == OP_DOT) ptr_list_push_unique(user, op);
  return true;
}

/* AMD targets ("hip:gfx942"): MFMA (#ttg.amd_mfma) is not implemented yet; the options it will
 * read are checked here so that the driver's pass-through is exercised already. */
static bool amd_accelerate_matmul(gemmc_context *ctx, ir_op *module, const char *options, const char *target,
                                  size_t target_len) {
  size_t len = 0;
  const char *nonk = option_value(options, "matrix-instr-nonkdim", &len);
  if (nonk && !(len == 1 && nonk[0] == '0') && !(len == 2 && (!strncmp(nonk, "16", 2) || !strncmp(nonk, "32", 2)))) {
    ir_op_error(ctx, module, "accelerate-matmul: matrix-instr-nonkdim must be 0, 16 or 32, got '%.*s'", (int)len, nonk);
    return false;
  }
  const char *kpack = option_value(options, "kpack", &len);
  if (kpack && !(len == 1 && (kpack[0] == '1' || kpack[0] == '2'))) {
    ir_op_error(ctx, module, "accelerate-matmul: kpack must be 1 or 2, got '%.*s'", (int)len, kpack);
    return false;
  }
  ptr_list dots = {ctx, NULL, 0, 0};
  ir_walk(module, collect_dots, &dots);
  bool ok = dots.count == 0;
  if (!ok)
    ir_op_error(ctx, dots.items[0], "accelerate-matmul: MFMA for %.*s (#ttg.amd_mfma) is not implemented yet",
                (int)target_len, target);
  ptr_list_free(&dots);
  return ok;
}

bool gemmc_pass_accelerate_matmul(gemmc_context *ctx, ir_op *module, const char *options, FILE *out) {
  (void)out;
  size_t len = 0;
  const char *target = option_value(options, "target", &len);
  if (!target) {
    const ir_attr *t = ir_op_get_attr(module, "ttg.target");
    if (t && t->kind == AT_STRING) {
      target = t->str;
      len = t->str_len;
    }
  }
  if (!target) {
    ir_op_error(ctx, module, "accelerate-matmul: no target (pass target=sm_80 or set the module's ttg.target)");
    return false;
  }
  if (len > 4 && strncmp(target, "hip:", 4) == 0) return amd_accelerate_matmul(ctx, module, options, target, len);
  int cc = parse_compute_capability(target, len);
  if (cc < 0) {
    ir_op_error(ctx, module, "accelerate-matmul: '%.*s' is not an NVIDIA target (sm_80, sm_90a, cuda:90, ...)", (int)len,
                target);
    return false;
  }
  int num_warps = (int)ir_module_int_attr(module, "ttg.num-warps", 4);
  if (num_warps < 1 || (num_warps & (num_warps - 1)) != 0) {
    ir_op_error(ctx, module, "accelerate-matmul: ttg.num-warps must be a power of two, got %d", num_warps);
    return false;
  }
  /* mma.sync needs sm_80 (Triton gives up on sm_7x too); Hopper uses it until wgmma lands. */
  if (cc < 80) return true;
  ptr_list dots = {ctx, NULL, 0, 0};
  ir_walk(module, collect_dots, &dots);
  for (int i = 0; i < dots.count; i++) {
    ir_op *dot = dots.items[i];
    const ir_type *ct = dot->results[0].type;
    if (!ct->encoding || ct->encoding->kind != AT_BLOCKED) continue;
    int k_instr = mma_v2_k(dot);
    int rank = ct->rank;
    if (!k_instr || (rank != 2 && rank != 3)) continue;
    int64_t m = ct->shape[rank - 2], n = ct->shape[rank - 1];
    int64_t k = dot->operands[0].value->type->shape[rank - 1];
    /* A tile smaller than one instruction along K would multiply broadcast copies. */
    if (m < 16 || n < 8 || k < k_instr || k % k_instr != 0) continue;
    int wm, wn;
    warps_per_tile_v2(ctx, dot, m, n, num_warps, &wm, &wn);
    ir_layout_params p;
    memset(&p, 0, sizeof p);
    p.rank = rank;
    p.version_major = 2;
    p.version_minor = 0;
    /* Batched dots keep one batch per warp row: all warps on the matrix dims. */
    if (rank == 3) p.warps_per_cta[0] = 1;
    p.warps_per_cta[rank - 2] = wm;
    p.warps_per_cta[rank - 1] = wn;
    p.instr_rank = rank;
    if (rank == 3) p.instr_shape[0] = 1;
    p.instr_shape[rank - 2] = 16;
    p.instr_shape[rank - 1] = 8;
    const ir_attr *mma = ir_layout_attr(ctx, AT_NVIDIA_MMA, &p);
    unsigned bits = ir_type_bits(ir_type_element(dot->operands[0].value->type));
    int k_width = bits >= 32 ? 1 : (int)(32 / bits);
    rewrite_dot(ctx, dot, mma, k_width);
  }
  ptr_list_free(&dots);
  return true;
}

/* --accelerate-matmul (alias --tritongpu-accelerate-matmul): tt.dot gets an nvidia_mma v2 layout and dot_op operands where mma.sync supports it (Triton's AccelerateMatmul, MMA v2 only). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "context_internal.h"
#include "gemmc/layout.h"
#include "gemmc/passes.h"
#include "target/mma.h"
#include "accelerate_matmul.h"

/* ------------------------------------------------------------------ which dots */

/* The instruction K of mma.sync for this dot's types (the target's MMA table), or 0 when it
 * stays on the FMA path. */
static int mma_v2_k(const ir_op *dot) {
  const target_mma *mi = target_mma_for_dot(GEMMC_MMA_SYNC, dot);
  return mi ? mi->k : 0;
}

/* ------------------------------------------------------------------ warps per tile */


/* Triton's slice filter: ops of the dot's own block, tt.trans excluded. */
static bool in_slice(const ir_op *op, const void *dot) {
  return op->parent == ((const ir_op *)dot)->parent && op->kind != OP_TRANS;
}

/* Triton's warpsPerTileV2 for the [M, N] tile: a dot chained to one that already has an MMA
 * layout takes its warps; other chained dots put every warp on the longer dim; otherwise warps
 * double along the dim with more 16x8 repetitions left (M on ties), which balances the A and B
 * registers each warp holds. */
static void warps_per_tile_v2(gemmc_context *ctx, ir_op *dot, int64_t m, int64_t n, int num_warps, int *wm, int *wn) {
  ptr_list slice = {ctx, NULL, 0, 0};
  /* Batched dots skip the chained-dot rule, as in Triton. */
  if (dot->results[0].type->rank == 2) op_slice(dot, in_slice, dot, &slice);
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

/* Erases the convert_layout chain (and a tt.trans the operand was a view of) that fed an operand,
 * as far as nothing else uses it. */
static void erase_if_unused(ir_op *op) {
  while (op && (op->kind == OP_CONVERT_LAYOUT || op->kind == OP_TRANS) && ir_value_num_uses(&op->results[0]) == 0) {
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
  ir_op *loop = block_arg_owner(arg);
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
  if (!new_init) new_init = convert_layout_before(ctx, loop, init, mma_type);
  ir_op *init_def = init->def_op;
  ir_op_set_operand(loop, 3 + idx, new_init);
  if (init_def && init_def->kind == OP_CONSTANT && ir_value_num_uses(&init_def->results[0]) == 0) ir_op_erase(init_def);
  /* After: the loop result back in the old layout for its users. */
  ir_value *res = &loop->results[idx];
  res->type = mma_type;
  ir_op *after = convert_layout_after(ctx, loop, res, old_type)->def_op;
  after->results[0].name = res->name;
  res->name = NULL;
  ir_value_replace_all_uses(res, &after->results[0]);
  ir_op_set_operand(after, 0, res);
  return true;
}

ir_op *accelerate_rewrite_dot(gemmc_context *ctx, ir_op *dot, const ir_attr *mma, int k_width) {
  const ir_type *c_type = dot->results[0].type;
  const ir_type *mma_type = ir_type_with_encoding(ctx, c_type, mma);
  ir_value *operands[3];
  ir_op *old_defs[2];
  for (int i = 0; i < 2; i++) {
    ir_value *v = dot->operands[i].value;
    old_defs[i] = v->def_op;
    const ir_attr *enc = layout_dot_op_get(ctx, i, mma, k_width);
    operands[i] = convert_layout_before(ctx, dot, conversion_source(v), ir_type_with_encoding(ctx, v->type, enc));
  }
  operands[2] = convert_layout_before(ctx, dot, dot->operands[2].value, mma_type);
  ir_op *new_dot = op_clone_with_attrs(ctx, dot, 3, operands, &mma_type);
  ir_op_insert_before(dot, new_dot);
  ir_value *r = &new_dot->results[0];
  ir_op *back = convert_layout_after(ctx, new_dot, r, c_type)->def_op;
  back->results[0].name = dot->results[0].name;
  ir_value_replace_all_uses(&dot->results[0], &back->results[0]);
  ir_op_erase(dot);
  for (int i = 0; i < 2; i++) erase_if_unused(old_defs[i]);
  carry_accumulator_in_mma(ctx, new_dot, back);
  return new_dot;
}

/* ------------------------------------------------------------------ warpgroup MMA (nvidia_mma v3) */

/* Triton's mmaVersionToInstrShape for version 3: the largest instruction N that divides the
 * tile's N and leaves every warp (grouped along M first) some columns; 0 when none fits. */
static int wgmma_instr_n(const target_mma *mi, int64_t m, int64_t n, int num_warps) {
  int64_t m_warps = m / 16 > 1 ? m / 16 : 1;
  int64_t n_warps = num_warps / m_warps > 1 ? num_warps / m_warps : 1;
  int64_t max_n = n / n_warps > 8 ? n / n_warps : 8;
  for (const int *v = target_wgmma_valid_n(mi); *v; v++)
    if (n % *v == 0 && *v <= max_n) return *v;
  return 0;
}

static bool forward_slice_has_dot(gemmc_context *ctx, ir_op *dot) {
  ptr_list seen = {ctx, NULL, 0, 0};
  ptr_list_push(&seen, dot);
  bool found = false;
  for (int i = 0; i < seen.count && !found; i++) {
    ir_op *op = seen.items[i];
    for (int r = 0; r < op->num_results; r++)
      for (ir_operand *u = op->results[r].first_use; u; u = u->next_use) {
        if (u->owner->kind == OP_DOT || u->owner->kind == OP_WARP_GROUP_DOT) found = true;
        ptr_list_push_unique(&seen, u->owner);
      }
  }
  ptr_list_free(&seen);
  return found;
}

/* Triton's warpsPerTileV3: warpgroups of 4 warps along M; more warps go along M while the tile
 * has 16 rows for each, then along N; a dot feeding another dot puts all warps on M. */
static void warps_per_tile_v3(gemmc_context *ctx, ir_op *dot, int64_t m, int num_warps, int *wm, int *wn) {
  if (forward_slice_has_dot(ctx, dot)) {
    *wm = num_warps;
    *wn = 1;
    return;
  }
  int w0 = 4, w1 = 1;
  while (w0 * w1 < num_warps) {
    if (m > 16 * w0) w0 *= 2;
    else w1 *= 2;
  }
  *wm = w0;
  *wn = w1;
}

/* The immutable shared buffer of type mt holding x, made before `at`: a value several dots read
 * (the big part of a tf32x3 split feeds two; attention's Q feeds a dot in each of its loops; its
 * backward pass reads a loaded tile directly and through tt.trans) is stored once, so an earlier
 * dot's buffer is reused; else a new one. */
static ir_value *operand_buffer(gemmc_context *ctx, ir_op *dot, ir_value *x, const ir_type *mt, ir_op *at) {
  for (ir_operand *u = x->first_use; u; u = u->next_use) {
    ir_op *o = u->owner;
    if (o->kind == OP_LOCAL_ALLOC && o->results[0].type == mt && o->parent == at->parent &&
        (o == at || op_precedes(o, at)))
      return &o->results[0];
  }
  ir_op *alloc = ir_op_create(ctx, OP_LOCAL_ALLOC, 1, &x, 1, &mt, 0, dot->loc);
  alloc->src_loc = dot->src_loc;
  ir_op_insert_before(at, alloc);
  return &alloc->results[0];
}

/* Triton's getSharedMemoryMMAOperand: the operand (or the source of the conversions feeding it)
 * stored in shared memory with the nvmma_shared layout, in the source's order where the
 * instruction takes both majors, else K-major (A: order [1, 0], B: [0, 1]). */
/* An operand made by a 2-D tt.trans used only by this dot (through conversions): the untransposed
 * tensor goes to shared memory and the dot reads a transposed view of it (ttg.memdesc_trans, as
 * Triton's FuseTransMMAV3Plus does), so a load of it can fill the buffer directly (a TMA ring)
 * and nothing is transposed in registers. NULL when the view's layout is not the buffer's
 * (checked on every basis coordinate: the layouts are XOR-linear). */
static ir_value *transposed_view_operand(gemmc_context *ctx, ir_op *dot, ir_value *v, ir_value *arg, const int *order) {
  ir_op *tr = arg->def_op;
  const ir_attr *perm_attr = tr && tr->kind == OP_TRANS ? ir_op_get_attr(tr, "order") : NULL;
  if (!perm_attr || perm_attr->kind != AT_DENSE_ARRAY || perm_attr->num_elems != 2 || arg->type->rank != 2) return NULL;
  for (ir_value *w = v; w != arg; w = w->def_op->operands[0].value)
    if (!ir_value_has_one_use(w)) return NULL;
  if (!ir_value_has_one_use(arg)) return NULL;
  ir_value *x = tr->operands[0].value;
  const ir_type *t = arg->type, *xt = x->type;
  int perm[2] = {(int)perm_attr->ints[0], (int)perm_attr->ints[1]}, xorder[2] = {perm[order[0]], perm[order[1]]};
  int bits = (int)ir_type_bits(ir_type_element(t));
  const ir_attr *buf_layout = layout_nvmma_shared_get(ctx, 2, xt->shape, xorder, bits, false);
  const ir_attr *view_layout = layout_nvmma_shared_get(ctx, 2, t->shape, order, bits, false);
  if (!layout_shared_is_permuted_view(view_layout, t->shape, buf_layout, xt->shape, 2, perm)) return NULL;
  const ir_attr *smem = ir_layout_attr(ctx, AT_SHARED_MEMORY, NULL);
  const ir_type *buf_type = ir_memdesc_type(ctx, 2, xt->shape, xt->elem, buf_layout, smem, false, 0, NULL);
  const ir_type *view_type = ir_memdesc_type(ctx, 2, t->shape, t->elem, view_layout, smem, false, 0, NULL);
  ir_value *buf = operand_buffer(ctx, dot, x, buf_type, dot);
  ir_op *view = ir_op_create(ctx, OP_MEMDESC_TRANS, 1, &buf, 1, &view_type, 0, dot->loc);
  view->src_loc = dot->src_loc;
  ir_op_set_attr(ctx, view, "order", perm_attr);
  ir_op_insert_before(dot, view);
  return &view->results[0];
}

/* Where the shared buffer of dot operand v goes: right after the tt.load that makes v in the
 * dot's block (Triton's getSharedMemoryMMAOperand: the tile is stored before the next one is
 * loaded, so a loop that loads element by element holds one tile in registers, not two); before
 * the dot; or, when v comes from outside the loops around the dot (attention's Q tile), before the
 * outermost of them that v's block holds, so that it is stored once rather than in every
 * iteration (Triton's buffer is made there). */
static ir_op *buffer_position(ir_op *dot, const ir_value *v) {
  const ir_block *home = v->def_op ? v->def_op->parent : v->owner_block;
  if (v->def_op && v->def_op->kind == OP_LOAD && home == dot->parent) return v->def_op->next;
  ir_op *at = dot;
  for (ir_op *p = ir_op_parent_op(at); p && p->kind == OP_SCF_FOR && at->parent != home; p = ir_op_parent_op(p)) at = p;
  return at->parent == home ? at : dot;
}

static ir_value *shared_operand(gemmc_context *ctx, ir_op *dot, ir_value *v, int op_idx, bool allow_transpose) {
  ir_value *arg = conversion_source(v);
  const ir_type *t = arg->type;
  int order[IR_MAX_RANK];
  layout_order(t->encoding, t->rank, order);
  if (!allow_transpose) {
    order[0] = op_idx == 1 ? 0 : 1;
    order[1] = op_idx == 1 ? 1 : 0;
  }
  ir_value *view = transposed_view_operand(ctx, dot, v, arg, order);
  if (view) return view;
  const ir_attr *shared =
      layout_nvmma_shared_get(ctx, t->rank, t->shape, order, (int)ir_type_bits(ir_type_element(t)), false);
  const ir_attr *smem = ir_layout_attr(ctx, AT_SHARED_MEMORY, NULL);
  const ir_type *mt = ir_memdesc_type(ctx, t->rank, t->shape, t->elem, shared, smem, false, 0, NULL);
  return operand_buffer(ctx, dot, arg, mt, buffer_position(dot, arg));
}

/* A stays in registers when it is computed there (an elementwise result, such as an upcast of
 * loaded fp8, or another dot's result) rather than loaded: the instruction reads its fragment
 * from registers and nothing goes through shared memory. Loaded A goes to shared memory, where
 * the pipeline can fill it asynchronously. */
static bool a_from_registers(ir_value *a, const target_mma *mi) {
  const ir_op *def = conversion_source(a)->def_op;
  if (!def || mi->operand_bits > 16) return false;
  unsigned traits = ir_op_info_of(def->kind)->traits;
  return (traits & TRAIT_ELEMENTWISE) || def->kind == OP_DOT || def->kind == OP_WARP_GROUP_DOT ||
         def->kind == OP_WARP_GROUP_DOT_WAIT;
}

/* tt.dot -> ttng.warp_group_dot reading B (and A, unless it is better in registers) from shared
 * memory, accumulator in the v3 layout. */
static void rewrite_dot_v3(gemmc_context *ctx, ir_op *dot, const ir_attr *mma, const target_mma *mi) {
  const ir_type *c_type = dot->results[0].type;
  const ir_type *mma_type = ir_type_with_encoding(ctx, c_type, mma);
  ir_value *operands[3];
  ir_op *old_defs[2];
  for (int i = 0; i < 2; i++) {
    ir_value *v = dot->operands[i].value;
    old_defs[i] = v->def_op;
    if (i == 0 && a_from_registers(v, mi)) {
      const ir_attr *enc = layout_dot_op_get(ctx, 0, mma, 32 / mi->operand_bits);
      operands[i] = convert_layout_before(ctx, dot, conversion_source(v), ir_type_with_encoding(ctx, v->type, enc));
      continue;
    }
    operands[i] = shared_operand(ctx, dot, v, i, mi->allows_transpose);
  }
  operands[2] = convert_layout_before(ctx, dot, dot->operands[2].value, mma_type);
  ir_op *new_dot = ir_op_create(ctx, OP_WARP_GROUP_DOT, 3, operands, 1, &mma_type, 0, dot->loc);
  new_dot->src_loc = dot->src_loc;
  /* Triton's enum: tf32 = 0, tf32x3 = 1, ieee = 2, bf16x3 = 3, bf16x6 = 4. */
  static const char *const precisions[] = {"tf32", "tf32x3", "ieee", "bf16x3", "bf16x6"};
  const char *prec = target_dot_input_precision(dot);
  int prec_index = 0;
  for (int i = 0; prec && i < 5; i++)
    if (strcmp(prec, precisions[i]) == 0) prec_index = i;
  ir_op_set_attr(ctx, new_dot, "inputPrecision", ir_i32_attr(ctx, prec_index));
  ir_op_insert_before(dot, new_dot);
  ir_value *r = &new_dot->results[0];
  ir_op *back = convert_layout_after(ctx, new_dot, r, c_type)->def_op;
  back->results[0].name = dot->results[0].name;
  ir_value_replace_all_uses(&dot->results[0], &back->results[0]);
  ir_op_erase(dot);
  for (int i = 0; i < 2; i++) erase_if_unused(old_defs[i]);
  carry_accumulator_in_mma(ctx, new_dot, back);
}

/* The wgmma instruction and layout for a dot, or NULL when it stays on mma.sync: Triton's
 * supportMMA(3): 2-D, a multiple of 4 warps, M a multiple of 64, N of 8, K of the instruction's
 * K, and an instruction N that fits. */
static const ir_attr *wgmma_layout(gemmc_context *ctx, ir_op *dot, int num_warps, const target_mma **mi_out) {
  const target_mma *mi = target_mma_for_dot(GEMMC_MMA_WGMMA, dot);
  const ir_type *ct = dot->results[0].type;
  if (!mi || ct->rank != 2 || num_warps % 4 != 0) return NULL;
  int64_t m = ct->shape[0], n = ct->shape[1], k = dot->operands[0].value->type->shape[1];
  if (m % 64 != 0 || n % 8 != 0 || k % mi->k != 0) return NULL;
  int instr_n = wgmma_instr_n(mi, m, n, num_warps);
  if (!instr_n) return NULL;
  int wm, wn;
  warps_per_tile_v3(ctx, dot, m, num_warps, &wm, &wn);
  if (m % (16 * wm) != 0 || m < 16 * wm || n % (instr_n * wn) != 0) return NULL;
  ir_layout_params p;
  memset(&p, 0, sizeof p);
  p.rank = 2;
  p.version_major = 3;
  p.version_minor = 0;
  p.warps_per_cta[0] = wm;
  p.warps_per_cta[1] = wn;
  p.instr_rank = 3;
  p.instr_shape[0] = 16;
  p.instr_shape[1] = instr_n;
  p.instr_shape[2] = mi->k;
  *mi_out = mi;
  return ir_layout_attr(ctx, AT_NVIDIA_MMA, &p);
}

/* fp8 operands of a dot converted to f16 with tt.fp_to_fp (exact: every fp8 value is an f16). */
static void promote_fp8_operands(gemmc_context *ctx, ir_op *dot) {
  for (int i = 0; i < 2; i++) {
    ir_value *v = dot->operands[i].value;
    const ir_type *e = ir_type_element(v->type);
    if (e->kind != TY_FLOAT || (e->float_kind != FLT_F8E4M3FN && e->float_kind != FLT_F8E5M2)) continue;
    const ir_type *f16 = ir_type_with_element(ctx, v->type, ir_float_type(ctx, FLT_F16));
    ir_op *cvt = ir_op_create(ctx, OP_FP_TO_FP, 1, &v, 1, &f16, 0, dot->loc);
    cvt->src_loc = dot->src_loc;
    ir_op_insert_before(dot, cvt);
    ir_op_set_operand(dot, i, &cvt->results[0]);
  }
}

/* ------------------------------------------------------------------ the pass */

static bool collect_dots(ir_op *op, void *user) {
  if (op->kind == OP_DOT) ptr_list_push_unique(user, op);
  return true;
}

bool gemmc_pass_accelerate_matmul(const gemmc_pass_context *pc, ir_op *module) {
  gemmc_context *ctx = pc->ctx;
  const gemmc_target *target = pc->target;
  if (!target) {
    ir_op_error(ctx, module, "accelerate-matmul: no target (pass target=sm_80 or set the module's ttg.target)");
    return false;
  }
  if (target->arch == GEMMC_ARCH_AMDGPU) return accelerate_amd_matmul(pc, module);
  if (target->arch != GEMMC_ARCH_NVPTX) {
    ir_op_error(ctx, module, "accelerate-matmul: '%s' is not an NVIDIA target (sm_80, sm_90a, cuda:90, ...)", target->name);
    return false;
  }
  int num_warps = pc->num_warps;
  if (num_warps < 1 || (num_warps & (num_warps - 1)) != 0) {
    ir_op_error(ctx, module, "accelerate-matmul: ttg.num-warps must be a power of two, got %d", num_warps);
    return false;
  }
  /* Targets without mma.sync (before sm_80: Triton gives up on sm_7x too) keep the FMA path. */
  if (!(target->mma_kinds & GEMMC_MMA_SYNC)) return true;
  ptr_list dots = {ctx, NULL, 0, 0};
  ir_walk(module, collect_dots, &dots);
  for (int i = 0; i < dots.count; i++) {
    ir_op *dot = dots.items[i];
    const ir_type *ct = dot->results[0].type;
    if (!ct->encoding || ct->encoding->kind != AT_BLOCKED) continue;
    /* Hopper: warpgroup MMA where the dot fits it (Triton tries v3, then v2). */
    const target_mma *wgmma = NULL;
    const ir_attr *mma_v3 = (target->mma_kinds & GEMMC_MMA_WGMMA) ? wgmma_layout(ctx, dot, num_warps, &wgmma) : NULL;
    if (mma_v3) {
      rewrite_dot_v3(ctx, dot, mma_v3, wgmma);
      continue;
    }
    /* fp8 without a native instruction here: the operands go up to f16 (Triton's
     * decomposeMixedModeDotOp), then mma.sync or the FMA path takes the dot. */
    promote_fp8_operands(ctx, dot);
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
    accelerate_rewrite_dot(ctx, dot, mma, k_width);
  }
  ptr_list_free(&dots);
  return true;
}

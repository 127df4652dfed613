/* --tma-loads: tile loads of warpgroup-MMA operands whose pointers are affine with a unit-stride inner dim and 16-byte-aligned base and strides become tt.descriptor_load through a tensor descriptor made before the loop (sm_90+). */
#include <stdint.h>
#include <string.h>

#include "gemmc/axis_info.h"
#include "gemmc/layout.h"
#include "gemmc/passes.h"
#include "gemmc/tile_access.h"
#include "util.h"

/*
 * The tutorial's operand load
 *
 *   %a_ptrs = a_ptr + ((pid_m * BM + arange(BM)) % M)[:, None] * stride_am + arange(BK)[None, :]
 *   scf.for %k = 0 to cdiv(K, BK) iter_args(%p = %a_ptrs, ..) {
 *     %a = tt.load %p, arange(BK)[None, :] < K - %k * BK, 0.0
 *     %a_smem = ttg.local_alloc %a : #nvmma_shared          (accelerate-matmul, wgmma operand)
 *     ..
 *     scf.yield tt.addptr(%p, BK), ..
 *   }
 *
 * becomes
 *
 *   %desc = tt.make_tensor_descriptor %a_ptr, [%M, %K], [%stride_am, 1] : <tensor<BMxBK, #nvmma>>
 *   scf.for %k .. {
 *     %a = tt.descriptor_load %desc[pid_m * BM, %k * BK]
 *     %a_smem = ttg.local_alloc %a
 *   }
 *
 * and pipeline-loads turns it into TMA copies into the ring. The descriptor's extents are the
 * mask bounds (TMA fills what lies past them with zeros, which is what `other` = 0 gives), or, for
 * an index wrapped with `% M` and no mask, M itself: the rows past M then hold zeros instead of
 * rows 0.., which tile_wrap_is_masked_off proves only ever reach masked-off outputs. A dim with
 * neither is unbounded (no clipping, as the load does not clip). TMA needs the base address and
 * the strides in bytes to be multiples of 16 (from tt.divisibility through the axis info), the
 * inner dim contiguous, and boxes that the nvmma layout stores as TMA writes them (lowering checks
 * the last part element by element).
 */

enum { TMA_MAX_BOX = 256 };

/* The wgmma operand buffer the load's only use fills: local_alloc into a swizzled nvmma_shared
 * layout (transposed: the tile's dim 0 is the contiguous one). */
static ir_op *nvmma_alloc_of(const ir_op *load) {
  if (!ir_value_has_one_use(&load->results[0])) return NULL;
  ir_op *alloc = load->results[0].first_use->owner;
  if (alloc->kind != OP_LOCAL_ALLOC || alloc->parent != load->parent) return NULL;
  const ir_attr *enc = alloc->results[0].type->encoding;
  if (!enc || enc->kind != AT_NVMMA_SHARED || enc->layout.fp4_padded) return NULL;
  if (enc->layout.swizzling_byte_width < 32) return NULL;
  return alloc;
}

/* Whether every factor of c is defined outside `op` (the descriptor is made before it). */
static bool coef_outside(const tile_coef *c, const ir_op *op) {
  for (int i = 0; i < c->n; i++)
    if (!value_defined_outside(c->f[i], op)) return false;
  return true;
}

/* c as an i64 value built before anchor. */
static ir_value *build_coef_i64(gemmc_context *ctx, ir_op *anchor, const tile_coef *c) {
  const ir_type *i64 = ir_int_type(ctx, 64);
  ir_value *v = c->c != 1 || c->n == 0 ? build_int_constant(ctx, anchor, c->c, 64) : NULL;
  for (int i = 0; i < c->n; i++) {
    ir_value *f = c->f[i];
    if (!ir_type_is_int(f->type, 64)) f = build_before(ctx, anchor, OP_EXTSI, 1, &f, i64);
    v = v ? build_binary(ctx, anchor, OP_MULI, v, f) : f;
  }
  return v;
}

typedef struct tma_plan {
  tile_access acc;
  ir_op *load, *alloc;
  ir_value *extent[2]; /* NULL: unbounded */
  /* The tile's contiguous dim: 1, or 0 for a column-major operand (B of `x @ W.T`, A of
   * `x.T @ y`), whose descriptor and TMA box are the transposed tile [dim 1, dim 0]: TMA fills
   * a non-transposed buffer (buffer_layout) that the dot reads through a ttg.memdesc_trans view
   * with the alloc's own (transposed) layout. */
  int inner;
  const ir_attr *buffer_layout;
  /* A scalar offset index * stride whose index differs between programs (the batch of a
   * batched GEMM: a_ptr + pid_b * stride_ab) becomes a leading descriptor dim of block size 1,
   * so that the descriptor is the same for every program. */
  int batch_offset;    /* its entry in acc.offsets, -1: none */
  ir_value *batch_index;
  tile_coef batch_stride;
} tma_plan;

static bool coef_uniform(gemmc_context *ctx, const tile_coef *c) {
  for (int i = 0; i < c->n; i++)
    if (value_depends_on_program_id(ctx, c->f[i])) return false;
  return true;
}

/* Auto mode takes TMA only where the warp-specialized kernel will (measured: TMA rings without
 * warp specialization, with a descriptor made per block, ran slower than cp.async rings): the
 * descriptor must be the same for every program. */
static bool uniform_descriptor(gemmc_context *ctx, const tma_plan *p) {
  const tile_access *a = &p->acc;
  if (value_depends_on_program_id(ctx, a->base) || !coef_uniform(ctx, &a->dim[0].stride)) return false;
  for (int i = 0; i < a->num_offsets; i++)
    if (i != p->batch_offset && !coef_uniform(ctx, &a->offsets[i])) return false;
  if (p->batch_offset >= 0 && !coef_uniform(ctx, &p->batch_stride)) return false;
  for (int d = 0; d < 2; d++)
    if (p->extent[d] && value_depends_on_program_id(ctx, p->extent[d])) return false;
  return true;
}

/* align: gemmc_target_tma_alignment of the target. */
static bool plan_load(gemmc_context *ctx, const axis_info_analysis *ai, int align, ir_op *load, tma_plan *p) {
  memset(p, 0, sizeof *p);
  p->batch_offset = -1;
  p->load = load;
  p->alloc = nvmma_alloc_of(load);
  if (!p->alloc || ir_op_get_attr(load, "isVolatile") || !tile_access_of(load, &p->acc) || p->acc.num_scalar_masks)
    return false;
  const ir_type *t = load->results[0].type;
  int bytes = (int)ir_type_bits(ir_type_element(t)) / 8;
  if (bytes != 1 && bytes != 2 && bytes != 4) return false;
  tile_access *a = &p->acc;
  static const tile_coef unit = {1, 0, {NULL}};
  /* The contiguous dim must be the one the buffer's rows run along. */
  const ir_attr *enc = p->alloc->results[0].type->encoding;
  p->inner = enc->layout.transposed ? 0 : 1;
  int outer = 1 - p->inner;
  if (!tile_coef_equal(&a->dim[p->inner].stride, &unit)) return false;
  p->buffer_layout = enc;
  if (p->inner == 0) {
    /* TMA writes the transposed tile into a non-transposed buffer; the dot's view of it must
     * address every element where the alloc's layout has it. */
    int64_t shape[2] = {t->shape[1], t->shape[0]};
    static const int order[2] = {1, 0}, perm[2] = {1, 0};
    p->buffer_layout = layout_nvmma_shared_get(ctx, 2, shape, order, bytes * 8, false);
    if (!p->buffer_layout || p->buffer_layout->kind != AT_NVMMA_SHARED || p->buffer_layout->layout.transposed ||
        p->buffer_layout->layout.swizzling_byte_width < 32 ||
        !layout_shared_is_permuted_view(enc, t->shape, p->buffer_layout, shape, 2, perm))
      return false;
    /* The descriptor load's tile (registers, should it stay unpipelined) in the transposed layout. */
    if (!layout_infer_trans_result(ctx, t->encoding, perm, 2)) return false;
  }
  /* 16-byte aligned base (tt.divisibility of a pointer counts bytes) and strides. */
  if (axis_info_divisibility(axis_info_of(ai, a->base), 0) < align) return false;
  for (int i = 0; i < a->num_offsets; i++) {
    ir_value *index;
    tile_coef stride;
    if (p->batch_offset < 0 && tile_split_program_offset(ctx, &a->offsets[i], &index, &stride) &&
        tile_bytes_aligned(tile_coef_divisibility(ai, &stride), bytes, align)) {
      p->batch_offset = i;
      p->batch_index = index;
      p->batch_stride = stride;
      continue;
    }
    if (!tile_bytes_aligned(tile_coef_divisibility(ai, &a->offsets[i]), bytes, align)) return false;
  }
  if (!tile_bytes_aligned(tile_coef_divisibility(ai, &a->dim[outer].stride), bytes, align)) return false;
  /* Everything the descriptor is made of exists before the loop. */
  const ir_op *at = a->loop ? a->loop : load;
  if (!value_defined_outside(a->base, at) || !coef_outside(&a->dim[outer].stride, at)) return false;
  for (int i = 0; i < a->num_offsets; i++)
    if (!coef_outside(&a->offsets[i], at)) return false;
  if (p->batch_offset >= 0 && !value_defined_outside(p->batch_index, at)) return false;
  for (int d = 0; d < 2; d++) {
    const tile_dim *td = &a->dim[d];
    if (td->bound) p->extent[d] = td->bound;
    else if (td->wrap && tile_wrap_is_masked_off(ctx, load, d, td->start, td->wrap)) p->extent[d] = td->wrap;
    else if (td->wrap) return false;
    if (p->extent[d] && (!ir_type_is_int(p->extent[d]->type, 32) || !value_defined_outside(p->extent[d], at)))
      return false;
    if (td->start && !value_defined_outside(td->start, at)) return false;
  }
  /* Boxes: rows of at most 256, inner runs of the swizzle width. */
  int swizzle = p->buffer_layout->layout.swizzling_byte_width;
  if (t->shape[outer] > TMA_MAX_BOX || (t->shape[p->inner] * bytes) % swizzle != 0) return false;
  return true;
}

static void rewrite_load(gemmc_context *ctx, tma_plan *p) {
  tile_access *a = &p->acc;
  ir_op *load = p->load;
  const ir_type *t = load->results[0].type;
  ir_op *at = a->loop ? a->loop : load;
  bool batched = p->batch_offset >= 0;
  int rank = batched ? 3 : 2, lead = batched ? 1 : 0;
  /* The descriptor, before the loop: dims [batch,] rows, columns. */
  ir_value *base = a->base;
  for (int i = 0; i < a->num_offsets; i++) {
    if (i == p->batch_offset) continue;
    ir_value *ops[2] = {base, build_coef_i64(ctx, at, &a->offsets[i])};
    base = build_before(ctx, at, OP_ADDPTR, 2, ops, base->type);
  }
  /* Descriptor dims in the buffer's order: the outer (strided) tile dim, then the contiguous one. */
  int dims[2] = {1 - p->inner, p->inner};
  ir_value *operands[7];
  operands[0] = base;
  if (batched) {
    operands[1] = build_int_constant(ctx, at, INT32_MAX, 32);
    operands[1 + rank] = build_coef_i64(ctx, at, &p->batch_stride);
  }
  for (int i = 0; i < 2; i++)
    operands[1 + lead + i] = p->extent[dims[i]] ? p->extent[dims[i]] : build_int_constant(ctx, at, INT32_MAX, 32);
  operands[1 + rank + lead] = build_coef_i64(ctx, at, &a->dim[dims[0]].stride);
  operands[1 + rank + lead + 1] = build_int_constant(ctx, at, 1, 64);
  const ir_attr *enc = p->buffer_layout;
  int64_t shape[3] = {1, t->shape[dims[0]], t->shape[dims[1]]};
  const ir_type *desc_type = ir_tensordesc_type(ctx, rank, batched ? shape : shape + 1, t->elem, enc);
  ir_value *desc = build_before(ctx, at, OP_MAKE_TENSOR_DESC, 1 + 2 * rank, operands, desc_type);
  /* The tile's coordinates: [batch,] start + iv * advance, in the descriptor's dim order. */
  ir_value *idx[4];
  idx[0] = desc;
  if (batched) idx[1] = p->batch_index;
  for (int i = 0; i < 2; i++) {
    int d = dims[i];
    const tile_dim *td = &a->dim[d];
    ir_value *c = td->start;
    if (td->advance && a->loop) {
      ir_value *iv = ir_region_entry(&a->loop->regions[0])->args[0];
      ir_value *moved = build_binary(ctx, load, OP_MULI, iv, build_int_constant(ctx, load, td->advance, 32));
      c = c ? build_binary(ctx, load, OP_ADDI, c, moved) : moved;
    }
    idx[1 + lead + i] = c ? c : build_int_constant(ctx, load, 0, 32);
  }
  if (p->inner == 1) {
    ir_op *dl = ir_op_create(ctx, OP_DESC_LOAD, 1 + rank, idx, 1, &t, 0, load->loc);
    ir_op_insert_before(load, dl);
    ir_value_replace_all_uses(&load->results[0], &dl->results[0]);
    ir_op_erase(load);
    return;
  }
  /* Column-major: the transposed tile (in the transposed blocked layout, should it ever live in
   * registers), a buffer of it, and the alloc's view for the dot. */
  static const int perm[2] = {1, 0};
  const ir_type *loaded =
      ir_tensor_type(ctx, 2, shape + 1, t->elem, layout_infer_trans_result(ctx, t->encoding, perm, 2));
  ir_op *dl = ir_op_create(ctx, OP_DESC_LOAD, 1 + rank, idx, 1, &loaded, 0, load->loc);
  ir_op_insert_before(load, dl);
  ir_op *old_alloc = p->alloc;
  const ir_type *view_type = old_alloc->results[0].type;
  const ir_type *buf_type =
      ir_memdesc_type(ctx, 2, shape + 1, t->elem, enc, view_type->memspace, view_type->is_mutable, 0, NULL);
  ir_value *loaded_value = &dl->results[0];
  ir_value *buf = build_before(ctx, old_alloc, OP_LOCAL_ALLOC, 1, &loaded_value, buf_type);
  ir_value *view = build_before(ctx, old_alloc, OP_MEMDESC_TRANS, 1, &buf, view_type);
  static const int64_t order[2] = {1, 0};
  ir_op_set_attr(ctx, view->def_op, "order", ir_dense_int_array_attr(ctx, ir_int_type(ctx, 32), 2, order));
  ir_value_replace_all_uses(&old_alloc->results[0], view);
  ir_op_erase(old_alloc);
  ir_op_erase(load);
}

typedef struct load_walk {
  ptr_list loads;
} load_walk;

static bool collect_load(ir_op *op, void *user) {
  if (op->kind == OP_LOAD) ptr_list_push(&((load_walk *)user)->loads, op);
  return true;
}

static bool collect_for(ir_op *op, void *user) {
  if (op->kind == OP_SCF_FOR) ptr_list_push(user, op);
  return true;
}

bool gemmc_pass_tma_loads(const gemmc_pass_context *pc, ir_op *module) {
  gemmc_context *ctx = pc->ctx;
  if (!pc->tma || !pc->target || !(pc->target->caps & GEMMC_CAP_TMA)) return true;
  /* Auto: only for the warp-specialized kernel (cooperative or ping-pong consumer groups). */
  bool auto_mode = pc->tma == 1;
  int warps = (int)ir_module_int_attr(module, "ttg.num-warps", 4);
  if (auto_mode && (!(pc->target->caps & GEMMC_CAP_SETMAXNREG) || !gemmc_warp_specialized_warps(warps, pc->warp_specialize)))
    return true;
  axis_info_analysis *ai = axis_info_run(ctx, module);
  if (!ai) {
    ir_op_error(ctx, module, "out of memory in the axis-info analysis");
    return false;
  }
  load_walk w = {{ctx, NULL, 0, 0}};
  ir_walk(module, collect_load, &w);
  /* Plan every load first (the analysis reads the IR the rewrites change), then rewrite. */
  tma_plan *plans = ir_alloc(ctx, sizeof *plans * (size_t)(w.loads.count + 1));
  int n = 0, align = gemmc_target_tma_alignment(pc->target);
  for (int i = 0; i < w.loads.count; i++)
    if (plan_load(ctx, ai, align, w.loads.items[i], &plans[n]) && (!auto_mode || uniform_descriptor(ctx, &plans[n]))) n++;
  /* Auto: only where warp-specialize will take the loop (TMA without it measured slower than
   * cp.async rings): its ring and epilogue must fit, and ping-pong stages must carry enough. */
  if (auto_mode && n > 0) {
    int64_t stage_bytes = 0, b_bytes = 0;
    const ir_op *loop = plans[0].acc.loop;
    for (int i = 0; i < n; i++) {
      int64_t bytes = ir_type_num_bytes(plans[i].load->results[0].type);
      stage_bytes += bytes;
      if (value_feeds_dot_operand(&plans[i].load->results[0], 1)) b_bytes = bytes;
      if (plans[i].acc.loop != loop) loop = NULL; /* one K loop, as warp-specialize wants */
    }
    if (!loop || !gemmc_warp_specialized_accumulator(loop) ||
        gemmc_warp_specialized_stages(pc, loop, warps, stage_bytes, b_bytes) < 2)
      n = 0;
    /* Cooperative kernels only when asked: their pointer loads stay on cp.async rings. */
    if (warps == GEMMC_WS_CONSUMER_WARPS && !gemmc_ws_cooperative_wanted(pc, loop)) n = 0;
    /* Every dot operand the loop loads must go through a descriptor, or warp-specialize leaves
     * the loop alone and one operand on TMA beside the other on cp.async is slower than both on
     * cp.async (fp8 with an N-major B: 27.6 against 24.4 us at 1024x1024x512 on an H100). */
    for (int i = 0; n > 0 && i < w.loads.count; i++) {
      ir_op *load = w.loads.items[i];
      if (ir_op_ancestor_of_kind(load, OP_SCF_FOR) != loop) continue;
      if (!value_feeds_dot_operand(&load->results[0], 0) && !value_feeds_dot_operand(&load->results[0], 1)) continue;
      bool planned = false;
      for (int j = 0; j < n && !planned; j++) planned = plans[j].load == load;
      if (!planned) n = 0;
    }
  }
  /* A K loop written `for k in range(0, K, BLOCK_K)` (the seed's batched kernel) counts
   * iterations from here on: the coordinates are iteration * advance, and warp-specialize reads
   * the trip count as the upper bound. */
  for (int i = 0; i < n; i++)
    if (plans[i].acc.loop) scf_for_normalize_step(ctx, plans[i].acc.loop);
  for (int i = 0; i < n; i++) rewrite_load(ctx, &plans[i]);
  axis_info_free(ai);
  ptr_list_free(&w.loads);
  if (n == 0) return true;
  /* The pointer and mask arithmetic the loads used, and the pointer recurrences, are dead now. */
  erase_dead_pure_ops(ctx, module);
  ptr_list loops = {ctx, NULL, 0, 0};
  ir_walk(module, collect_for, &loops);
  for (int i = loops.count - 1; i >= 0; i--) scf_for_drop_dead_iter_args(ctx, loops.items[i]);
  ptr_list_free(&loops);
  erase_dead_pure_ops(ctx, module);
  return true;
}

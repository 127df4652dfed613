/* --amd-in-thread-transpose (alias --tritonamdgpu-in-thread-transpose): MFMA operands whose K is not contiguous in global memory are loaded "thread-raked", several K rows per thread, so that each thread can transpose them in registers and store K-contiguous vectors to LDS (Triton's InThreadTranspose, the load half). */
#include <string.h>

#include "gemmc/layout.h"
#include "gemmc/passes.h"
#include "util.h"

/*
 * An MFMA lane takes kBase consecutive K values of its operand, so the operand is read from a
 * K-contiguous LDS buffer. B of a row-major matmul is N-contiguous in global memory: coalesced
 * loads give each thread 8 consecutive N of one K row, which would be stored to LDS in N order
 * and read back one 2-byte element per ds_read. Triton's gfx942 pipeline instead gives each
 * thread sizePerThread[K] = min(64 bits / element bits, BLOCK_K / the K rows the layout covers)
 * rows of K as well (a tile of 4 x 8 for f16), the same global loads, and transposes that tile in
 * registers before the LDS store (amdg.in_thread_transpose, emitted by amd-stream-pipeline
 * together with the #ttg.amd_rotating_shared buffer).
 *
 * This pass changes the loads: `tt.load` of such an operand (feeding `ttg.convert_layout` to a
 * #ttg.dot_op of an #ttg.amd_mfma) gets the thread-raked blocked layout, its operands converted
 * to it and its result converted back; remove-layout-conversions then carries the pointers in
 * that layout (and folds the conversions into the one to the dot operand).
 */

/* The thread-raked layout for a load of operand op_idx, or NULL when there is nothing to do. */
static const ir_attr *thread_raked_layout(gemmc_context *ctx, const ir_type *t, int op_idx, int num_warps,
                                          int threads_per_warp) {
  const ir_attr *blocked = t->encoding;
  if (!blocked || blocked->kind != AT_BLOCKED || t->rank != 2) return NULL;
  int k_dim = op_idx == 0 ? 1 : 0;
  const ir_layout_params *p = &blocked->layout;
  if (p->order[0] == k_dim) return NULL; /* K is contiguous already */
  int64_t covered = (int64_t)p->size_per_thread[k_dim] * p->threads_per_warp[k_dim] * p->warps_per_cta[k_dim];
  int64_t repeats = covered > 0 ? t->shape[k_dim] / covered : 0;
  if (repeats < 2) return NULL; /* no room along K for more rows per thread */
  int per_ds_write = 64 / (int)ir_type_bits(ir_type_element(t)); /* ds_write_b64 */
  int spt[IR_MAX_RANK];
  memcpy(spt, p->size_per_thread, sizeof spt);
  spt[k_dim] = (int)(repeats < per_ds_write ? repeats : per_ds_write);
  return layout_blocked_get(ctx, 2, t->shape, spt, p->order, num_warps, threads_per_warp);
}

static void rake_load(gemmc_context *ctx, ir_op *load, const ir_attr *layout) {
  for (int k = 0; k < load->num_operands; k++) {
    ir_value *v = load->operands[k].value;
    if (ir_type_is_tensor(v->type))
      ir_op_set_operand(load, k, build_cast_before(ctx, load, OP_CONVERT_LAYOUT, v, ir_type_with_encoding(ctx, v->type, layout)));
  }
  retype_result_with_cast_back(ctx, load, ir_type_with_encoding(ctx, load->results[0].type, layout), OP_CONVERT_LAYOUT);
}

static void rake_dot_operands(const gemmc_pass_context *pc, ir_op *dot) {
  for (int i = 0; i < 2; i++) {
    const ir_attr *enc = dot->operands[i].value->type->encoding;
    if (!enc || enc->kind != AT_DOT_OP || !enc->layout.parent || enc->layout.parent->kind != AT_AMD_MFMA) continue;
    ir_op *cvt = dot->operands[i].value->def_op;
    if (!cvt || cvt->kind != OP_CONVERT_LAYOUT || !ir_value_has_one_use(&cvt->results[0])) continue;
    ir_op *load = cvt->operands[0].value->def_op;
    if (!load || load->kind != OP_LOAD || !ir_value_has_one_use(&load->results[0])) continue;
    const ir_attr *raked =
        thread_raked_layout(pc->ctx, load->results[0].type, enc->layout.op_idx, pc->num_warps, pc->threads_per_warp);
    if (raked) rake_load(pc->ctx, load, raked);
  }
}

typedef struct dot_list {
  ir_op **dots;
  int n;
} dot_list;

static bool count_dots(ir_op *op, void *user) {
  if (op->kind == OP_DOT) ((dot_list *)user)->n++;
  return true;
}

static bool collect_dots(ir_op *op, void *user) {
  dot_list *l = user;
  if (op->kind == OP_DOT) l->dots[l->n++] = op;
  return true;
}

bool gemmc_pass_amd_in_thread_transpose(const gemmc_pass_context *pc, ir_op *module) {
  dot_list l = {NULL, 0};
  ir_walk(module, count_dots, &l);
  if (!l.n) return true;
  l.dots = ir_alloc(pc->ctx, sizeof *l.dots * (size_t)l.n);
  l.n = 0;
  ir_walk(module, collect_dots, &l);
  for (int i = 0; i < l.n; i++) rake_dot_operands(pc, l.dots[i]);
  return true;
}

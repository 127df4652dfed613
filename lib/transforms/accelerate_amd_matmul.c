/* accelerate-matmul on AMD targets: tt.dot gets a #ttg.amd_mfma layout and dot_op operands where an MFMA instruction fits (Triton's AccelerateAMDMatmul, BlockedToMFMA). */
#include <string.h>

#include "accelerate_matmul.h"
#include "gemmc/layout.h"
#include "target/mma.h"
#include "util.h"

/*
 * For each tt.dot with a blocked result, as Triton 3.6 for the same TTIR:
 *   - M = N of the instruction: matrix-instr-nonkdim when given, else 32 when min(M, N) >= 32,
 *     16 when it is >= 16 (smaller tiles stay on the FMA path);
 *   - the instruction: the target's MFMA table for the types (target_mfma_find), the larger K
 *     when BLOCK_K allows; BLOCK_K not a multiple of its K keeps the FMA path;
 *   - warpsPerCTA: Triton's warpsPerTile (batched: all warps on the batch dim; the head of a
 *     chain of dots: all on M; the tail: M first, capped by M / 16);
 *   - isTransposed unless the inputs are fp8 (a lane then holds consecutive N of C, which
 *     vectorizes the stores of C); a chained dot is always transposed;
 *   - kWidth = kBase * kpack, except for the tail of a chain (its A comes from a dot's result);
 *   - an f16 / bf16 accumulator is extended to f32 for the MFMA and truncated after it.
 */

/* ------------------------------------------------------------------ chained dots (Triton's isChainDotHead / Tail) */

/* Some tt.dot takes a value computed from op's result (through any ops) as its operand A. */
static bool is_chain_head(gemmc_context *ctx, ir_op *dot) {
  ptr_list seen = {ctx, NULL, 0, 0};
  ptr_list_push(&seen, dot);
  bool found = false;
  for (int i = 0; i < seen.count && !found; i++) {
    ir_op *op = seen.items[i];
    for (int r = 0; r < op->num_results && !found; r++)
      for (ir_operand *u = op->results[r].first_use; u && !found; u = u->next_use) {
        if (u->owner->kind == OP_DOT && u->index == 0) found = true;
        else if (u->owner->kind != OP_DOT && u->owner->kind != OP_SCF_YIELD) ptr_list_push_unique(&seen, u->owner);
      }
  }
  ptr_list_free(&seen);
  return found;
}

/* The dot's operand A is computed (through any ops of the function) from another tt.dot. */
static bool is_chain_tail(gemmc_context *ctx, ir_op *dot) {
  ptr_list seen = {ctx, NULL, 0, 0};
  ir_op *a = dot->operands[0].value->def_op;
  if (a) ptr_list_push(&seen, a);
  bool found = false;
  for (int i = 0; i < seen.count && !found; i++) {
    ir_op *op = seen.items[i];
    if (op->kind == OP_DOT) {
      found = true;
      break;
    }
    for (int k = 0; k < op->num_operands; k++) {
      ir_op *def = op->operands[k].value->def_op;
      if (def) ptr_list_push_unique(&seen, def);
    }
  }
  ptr_list_free(&seen);
  return found;
}

/* ------------------------------------------------------------------ warps (Triton's warpsPerTile) */

static void warps_per_tile(int64_t m, int64_t n, int num_warps, int instr, bool head, bool tail, int *wm, int *wn) {
  if (head) {
    *wm = num_warps;
    *wn = 1;
    return;
  }
  if (tail) {
    int64_t rows = (m + instr - 1) / instr;
    *wm = (int)(rows < num_warps ? rows : num_warps);
    *wn = num_warps / *wm;
    return;
  }
  int64_t r0 = 1, r1 = 1;
  while (r0 * r1 < num_warps) {
    if (m / (instr * 2) / r0 >= n / instr / r1) {
      if (r0 < m / instr) r0 *= 2;
      else r1 *= 2;
    } else {
      r1 *= 2;
    }
  }
  if (r1 * instr > n) {
    int64_t t = r0;
    r0 = r1;
    r1 = t;
  }
  *wm = (int)r0;
  *wn = (int)r1;
}

/* ------------------------------------------------------------------ the rewrite */

static bool is_fp8(const ir_type *e) {
  return e->kind == TY_FLOAT && (e->float_kind == FLT_F8E4M3FN || e->float_kind == FLT_F8E5M2 ||
                                 e->float_kind == FLT_F8E4M3FNUZ || e->float_kind == FLT_F8E5M2FNUZ ||
                                 e->float_kind == FLT_F8E4M3B11FNUZ);
}

/* An f16 / bf16 accumulator (the dot already in the MFMA layout): the MFMA accumulates in f32
 * between an extf of C and a truncf of the result, both in the MFMA layout, so that a loop
 * carries the narrow accumulator in registers (Triton's convertAndCastTensor: convert, then
 * cast). */
static void accumulate_in_f32(gemmc_context *ctx, ir_op *dot) {
  const ir_type *ct = dot->results[0].type;
  const ir_type *f32 = ir_type_with_element(ctx, ct, ir_float_type(ctx, FLT_F32));
  ir_op_set_operand(dot, 2, build_cast_before(ctx, dot, OP_EXTF, dot->operands[2].value, f32));
  retype_result_with_cast_back(ctx, dot, f32, OP_TRUNCF);
}

/* OCP fp8 (f8E4M3FN, f8E5M2): CDNA3's MFMA takes the FNUZ variants only; Triton emulates these
 * with f16. */
static bool is_ocp_fp8(const ir_type *e) {
  return e->kind == TY_FLOAT && (e->float_kind == FLT_F8E4M3FN || e->float_kind == FLT_F8E5M2);
}

/* False (with an error) for dots gemmc cannot run on this target at all. */
static bool rewrite_mfma(const gemmc_pass_context *pc, ir_op *dot, int version) {
  gemmc_context *ctx = pc->ctx;
  const ir_type *ct = dot->results[0].type;
  int rank = ct->rank;
  for (int i = 0; i < 2; i++) {
    const ir_type *e = ir_type_element(dot->operands[i].value->type);
    if (is_ocp_fp8(e)) {
      ir_op_error(ctx, dot,
                  "accelerate-matmul: %s's MFMA takes fp8 as f8E4M3FNUZ / f8E5M2FNUZ; dots of %s are not "
                  "implemented yet on AMD targets",
                  pc->target->name, ir_type_str(ctx, e));
      return false;
    }
  }
  if (rank != 2 && rank != 3) return true;
  int64_t m = ct->shape[rank - 2], n = ct->shape[rank - 1];
  int64_t k = dot->operands[0].value->type->shape[rank - 1];
  const ir_type *ce = ir_type_element(ct);
  bool narrow_float_acc = ce->kind == TY_FLOAT && (ce->float_kind == FLT_F16 || ce->float_kind == FLT_BF16);
  if (!(ce->kind == TY_FLOAT && ce->float_kind == FLT_F32) && !narrow_float_acc && !ir_type_is_int(ce, 32)) return true;
  int nonk = pc->matrix_instr_nonkdim;
  int64_t min_mn = m < n ? m : n;
  if (!nonk) nonk = min_mn >= 32 ? 32 : min_mn >= 16 ? 16 : 0;
  /* A tile smaller than one instruction (or BLOCK_K not a multiple of its K) would duplicate
   * data in the operands: the FMA path is the better choice, as Triton's without an enforced
   * non-K dim (gemmc keeps it with one too: the lowering needs whole instructions). */
  if (!nonk || m % nonk != 0 || n % nonk != 0) return true;
  const target_mma *mi = target_mfma_find(pc->target->mma_kinds, dot, nonk, k);
  if (!mi || k % mi->k != 0) return true;
  bool head = rank == 2 && is_chain_head(ctx, dot), tail = rank == 2 && is_chain_tail(ctx, dot);
  ir_layout_params p;
  memset(&p, 0, sizeof p);
  p.rank = rank;
  p.version_major = version;
  p.version_minor = 0;
  if (rank == 3) {
    p.warps_per_cta[0] = pc->num_warps;
    p.warps_per_cta[1] = p.warps_per_cta[2] = 1;
  } else {
    warps_per_tile(m, n, pc->num_warps, nonk, head, tail, &p.warps_per_cta[0], &p.warps_per_cta[1]);
  }
  p.instr_rank = 3;
  p.instr_shape[0] = mi->m;
  p.instr_shape[1] = mi->n;
  p.instr_shape[2] = mi->k;
  p.is_transposed = head || tail || !is_fp8(ir_type_element(dot->operands[0].value->type));
  const ir_attr *mfma = ir_layout_attr(ctx, AT_AMD_MFMA, &p);
  int k_width = target_mfma_k_base(mi) * (tail ? 1 : pc->kpack);
  ir_op *mfma_dot = accelerate_rewrite_dot(ctx, dot, mfma, k_width);
  if (narrow_float_acc) accumulate_in_f32(ctx, mfma_dot);
  return true;
}

static bool collect_dots(ir_op *op, void *user) {
  if (op->kind == OP_DOT) ptr_list_push_unique(user, op);
  return true;
}

bool accelerate_amd_matmul(const gemmc_pass_context *pc, ir_op *module) {
  gemmc_context *ctx = pc->ctx;
  int num_warps = pc->num_warps;
  if (num_warps < 1 || (num_warps & (num_warps - 1)) != 0) {
    ir_op_error(ctx, module, "accelerate-matmul: ttg.num-warps must be a power of two, got %d", num_warps);
    return false;
  }
  int version = target_mfma_version(pc->target);
  if (!version) return true; /* no matrix cores: the FMA path */
  ptr_list dots = {ctx, NULL, 0, 0};
  ir_walk(module, collect_dots, &dots);
  for (int i = 0; i < dots.count; i++) {
    ir_op *dot = dots.items[i];
    const ir_type *ct = dot->results[0].type;
    if (ct->encoding && ct->encoding->kind == AT_BLOCKED && !rewrite_mfma(pc, dot, version)) {
      ptr_list_free(&dots);
      return false;
    }
  }
  ptr_list_free(&dots);
  return true;
}

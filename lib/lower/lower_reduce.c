/* tt.reduce: combine within the thread, then across lanes with butterfly shuffles, then across warps through shared memory. */
#include <string.h>

#include "lower_dispatch.h"
#include "lower_index.h"
#include "lower_ops.h"

typedef struct reduce_group {
  int64_t key[IR_MAX_RANK]; /* register coordinate with the axis zeroed */
  int64_t rep;              /* a register of the group */
  LLVMValueRef acc[LOWER_COMBINE_MAX_OPERANDS];
} reduce_group;

static int find_group(const reduce_group *g, int n, const int64_t *key, int rank) {
  for (int i = 0; i < n; i++)
    if (memcmp(g[i].key, key, sizeof(int64_t) * (size_t)rank) == 0) return i;
  return -1;
}

/* Row-major linear index over the dims other than axis (the result's elements). */
static LLVMValueRef out_linear(lower_state *s, const lower_layout_info *li, int64_t reg, int axis) {
  LLVMValueRef lin = lower_i32(s, 0);
  int64_t stride = 1;
  for (int d = li->rank - 1; d >= 0; d--) {
    if (d == axis) continue;
    LLVMValueRef c = lower_coord(s, li, reg, d);
    lin = LLVMBuildAdd(s->b, lin, stride == 1 ? c : LLVMBuildMul(s->b, c, lower_i32(s, stride), ""), "");
    stride *= li->shape[d];
  }
  return lin;
}

bool lower_reduce(lower_state *s, ir_op *op) {
  int nops = op->num_operands;
  int axis = (int)ir_op_get_int_attr(op, "axis", 0);
  const ir_type *st = op->operands[0].value->type;
  if (nops > LOWER_COMBINE_MAX_OPERANDS || !ir_type_is_tensor(st) || axis < 0 || axis >= st->rank) {
    ir_op_error(s->ctx, op, "lowering of this tt.reduce is not implemented yet");
    return false;
  }
  lower_layout_info *li = lower_layout_of(s, op, st);
  if (!li) return false;
  const layout_linear *ll = &li->ll;
  const lower_values *src[LOWER_COMBINE_MAX_OPERANDS];
  for (int k = 0; k < nops; k++)
    if (!(src[k] = lower_get(s, op, op->operands[k].value))) return false;

  /* 1. Within the thread: registers that differ only along the axis. */
  reduce_group *groups = lower_alloc(s, sizeof *groups * (size_t)li->num_regs);
  if (!groups) return false;
  int ng = 0;
  for (int r = 0; r < li->num_regs; r++) {
    if (r & li->reg_dup_mask) continue; /* a copy: combining it would count it twice */
    int64_t key[IR_MAX_RANK];
    lower_reg_coord(li, r, key);
    key[axis] = 0;
    int g = find_group(groups, ng, key, li->rank);
    LLVMValueRef cur[LOWER_COMBINE_MAX_OPERANDS];
    for (int k = 0; k < nops; k++) cur[k] = src[k]->v[r];
    if (g < 0) {
      g = ng++;
      memcpy(groups[g].key, key, sizeof key);
      groups[g].rep = r;
      memcpy(groups[g].acc, cur, sizeof(LLVMValueRef) * (size_t)nops);
    } else if (!lower_combine_region(s, op, groups[g].acc, cur, groups[g].acc)) {
      return false;
    }
  }

  /* 2. Across lanes: butterfly over the lane bits that move along the axis. */
  for (int i = ll->num_bases[LAYOUT_IN_LANE] - 1; i >= 0; i--) {
    const int32_t *base = ll->bases[LAYOUT_IN_LANE][i];
    if (base[axis] == 0) continue;
    for (int d = 0; d < li->rank; d++)
      if (d != axis && base[d] != 0) {
        ir_op_error(s->ctx, op, "lowering of tt.reduce over a layout whose lanes move along several dims is not implemented yet");
        return false;
      }
    for (int g = 0; g < ng; g++) {
      LLVMValueRef other[LOWER_COMBINE_MAX_OPERANDS];
      for (int k = 0; k < nops; k++) other[k] = lower_shuffle_xor(s, groups[g].acc[k], 1 << i);
      if (!lower_combine_region(s, op, groups[g].acc, other, groups[g].acc)) return false;
    }
  }

  /* 3. Across warps: partials to shared memory [warp along axis][result element], then every
   * thread combines the partials of its result elements in warp order. */
  int64_t warp_vals[LAYOUT_MAX_BASES];
  int num_axis_warps = 0;
  for (int i = 0; i < ll->num_bases[LAYOUT_IN_WARP]; i++) {
    const int32_t *base = ll->bases[LAYOUT_IN_WARP][i];
    warp_vals[i] = 0;
    if (base[axis] == 0) continue;
    for (int d = 0; d < li->rank; d++)
      if (d != axis && base[d] != 0) {
        ir_op_error(s->ctx, op, "lowering of tt.reduce over a layout whose warps move along several dims is not implemented yet");
        return false;
      }
    warp_vals[i] = INT64_C(1) << num_axis_warps++;
  }
  int64_t nwarps_axis = INT64_C(1) << num_axis_warps;
  int64_t out_elems = ir_type_num_elements(st) / st->shape[axis];
  int64_t operand_offset[LOWER_COMBINE_MAX_OPERANDS]; /* bytes into the scratch */
  LLVMValueRef scratch = NULL;
  if (num_axis_warps > 0) {
    if (!(scratch = lower_shared_base(s, op))) {
      ir_op_error(s->ctx, op, "internal error: tt.reduce across warps has no shared memory");
      return false;
    }
    int64_t at = 0;
    for (int k = 0; k < nops; k++) {
      operand_offset[k] = at;
      int64_t bytes = nwarps_axis * out_elems * lower_elem_bytes(op->operands[k].value->type);
      at += (bytes + 15) / 16 * 16;
    }
    LLVMValueRef waxis = lower_apply_bits(s, s->threads->warp, warp_vals, ll->num_bases[LAYOUT_IN_WARP]);
    LLVMValueRef wbase = LLVMBuildMul(s->b, waxis, lower_i32(s, out_elems), "");
    lower_barrier(s); /* the previous user of this scratch space is done */
    for (int g = 0; g < ng; g++) {
      LLVMValueRef idx = LLVMBuildAdd(s->b, wbase, out_linear(s, li, groups[g].rep, axis), "");
      for (int k = 0; k < nops; k++) {
        LLVMValueRef v = groups[g].acc[k];
        LLVMTypeRef mt = lower_memory_type(s, LLVMTypeOf(v));
        if (mt != LLVMTypeOf(v)) v = LLVMBuildZExt(s->b, v, mt, "");
        LLVMBuildStore(s->b, v, lower_smem_ptr_from(s, scratch, operand_offset[k], mt, idx));
      }
    }
    lower_barrier(s);
  }

  /* 4. Results: in the result's (slice) layout, or one scalar for a rank-1 input. */
  bool scalar = !ir_type_is_tensor(op->results[0].type);
  lower_layout_info *rli = scalar ? NULL : lower_layout_of(s, op, op->results[0].type);
  if (!scalar && !rli) return false;
  int nout = scalar ? 1 : rli->num_regs;
  lower_values *out[LOWER_COMBINE_MAX_OPERANDS];
  for (int k = 0; k < nops; k++)
    if (!(out[k] = lower_values_new(s, op, nout))) return false;
  for (int r = 0; r < nout; r++) {
    int64_t key[IR_MAX_RANK] = {0};
    if (!scalar) {
      int64_t c[IR_MAX_RANK];
      lower_reg_coord(rli, r, c);
      for (int d = 0, j = 0; d < li->rank; d++) key[d] = d == axis ? 0 : c[j++];
    }
    int g = find_group(groups, ng, key, li->rank);
    if (g < 0) {
      ir_op_error(s->ctx, op, "internal error: a result of tt.reduce has no source registers");
      return false;
    }
    if (num_axis_warps == 0) {
      for (int k = 0; k < nops; k++) out[k]->v[r] = groups[g].acc[k];
      continue;
    }
    LLVMValueRef lin = out_linear(s, li, groups[g].rep, axis);
    LLVMValueRef acc[LOWER_COMBINE_MAX_OPERANDS];
    for (int w = 0; w < nwarps_axis; w++) {
      LLVMValueRef idx = LLVMBuildAdd(s->b, lin, lower_i32(s, w * out_elems), "");
      LLVMValueRef cur[LOWER_COMBINE_MAX_OPERANDS];
      for (int k = 0; k < nops; k++) {
        LLVMTypeRef t = LLVMTypeOf(groups[g].acc[k]), mt = lower_memory_type(s, t);
        LLVMValueRef v = LLVMBuildLoad2(s->b, mt, lower_smem_ptr_from(s, scratch, operand_offset[k], mt, idx), "");
        cur[k] = mt != t ? LLVMBuildTrunc(s->b, v, t, "") : v;
      }
      if (w == 0) memcpy(acc, cur, sizeof(LLVMValueRef) * (size_t)nops);
      else if (!lower_combine_region(s, op, acc, cur, acc)) return false;
    }
    for (int k = 0; k < nops; k++) out[k]->v[r] = acc[k];
  }
  for (int k = 0; k < nops; k++)
    if (!lower_set(s, &op->results[k], out[k])) return false;
  return true;
}

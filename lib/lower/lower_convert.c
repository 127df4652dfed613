/* ttg.convert_layout: register permutations in place, anything else through a swizzled shared-memory tile chosen for few bank conflicts. */
#include <string.h>

#include "lower_ops.h"
#include "lower_shared.h"

/* Shared-memory wavefronts of one warp-wide access of vec elements (warp 0, register 0): the most
 * distinct 4-byte words any one of the 32 banks must serve. */
static int wavefronts(const layout_offset_map *m, int vec, int elem_bytes) {
  int64_t words[32 * 8];
  int nwords = 0;
  int lanes = 1 << m->num_bases[LAYOUT_IN_LANE];
  for (int lane = 0; lane < lanes && lane < 32; lane++) {
    int64_t off = 0;
    for (int i = 0; i < m->num_bases[LAYOUT_IN_LANE]; i++)
      if ((lane >> i) & 1) off ^= m->off[LAYOUT_IN_LANE][i];
    int64_t first = off * elem_bytes / 4, last = (off * elem_bytes + vec * elem_bytes - 1) / 4;
    for (int64_t w = first; w <= last && nwords < 32 * 8; w++) {
      bool seen = false;
      for (int j = 0; j < nwords && !seen; j++) seen = words[j] == w;
      if (!seen) words[nwords++] = w;
    }
  }
  int per_bank[32] = {0}, worst = 1;
  for (int j = 0; j < nwords; j++) {
    int bank = (int)(words[j] % 32);
    if (++per_bank[bank] > worst) worst = per_bank[bank];
  }
  return worst;
}

static int64_t unique_regs(const lower_layout_info *li) {
  int64_t n = 0;
  for (int64_t r = 0; r < li->num_regs; r++) n += (r & li->reg_dup_mask) == 0;
  return n;
}

typedef struct convert_plan {
  layout_offset_map src, dst;
  int src_vec, dst_vec;
  int64_t cost;         /* shared-memory wavefronts */
  int64_t instructions; /* shared-memory instructions, between plans of equal cost */
} convert_plan;

static bool evaluate(lower_state *s, const ir_attr *shared, const lower_layout_info *src, const lower_layout_info *dst,
                     int elem_bytes, convert_plan *plan) {
  if (!shared || !layout_compose_shared(&src->ll, shared, src->rank, src->shape, &plan->src) ||
      !layout_compose_shared(&dst->ll, shared, dst->rank, dst->shape, &plan->dst))
    return false;
  int max_vec = 16 / elem_bytes > 0 ? 16 / elem_bytes : 1;
  plan->src_vec = layout_offset_map_vector_width(&plan->src, max_vec);
  plan->dst_vec = layout_offset_map_vector_width(&plan->dst, max_vec);
  plan->cost = unique_regs(src) / plan->src_vec * wavefronts(&plan->src, plan->src_vec, elem_bytes) +
               unique_regs(dst) / plan->dst_vec * wavefronts(&plan->dst, plan->dst_vec, elem_bytes);
  /* stmatrix moves as many bytes per wavefront as vector stores, in fewer instructions. */
  int store_width = lower_smem_matrix_store_width(s, &plan->src, src, elem_bytes);
  plan->instructions = unique_regs(src) / (store_width ? store_width : plan->src_vec) + unique_regs(dst) / plan->dst_vec;
  return true;
}

/* Searches swizzled_shared tiles (order of either side, vec, perPhase, maxPhase) for the fewest
 * wavefronts of the stores plus the loads: vector accesses on both sides where the layouts
 * allow, an XOR swizzle that spreads the other side over the banks (the transpose case). */
static bool choose_plan(lower_state *s, const lower_layout_info *src, const lower_layout_info *dst, int elem_bytes,
                        convert_plan *best) {
  int rank = src->rank;
  int orders[2][IR_MAX_RANK];
  layout_order(src->layout, rank, orders[0]);
  layout_order(dst->layout, rank, orders[1]);
  bool found = false;
  convert_plan cand;
  for (int o = 0; o < 2; o++) {
    if (o == 1 && memcmp(orders[0], orders[1], sizeof(int) * (size_t)rank) == 0) break;
    const int *order = orders[o];
    int64_t cols = src->shape[order[0]], rows = rank > 1 ? src->shape[order[1]] : 1;
    for (int vec = 1; vec <= 16 && vec <= cols; vec *= 2)
      for (int per_phase = 1; per_phase <= 32 && per_phase <= rows; per_phase *= 2)
        for (int max_phase = 1; max_phase * vec <= cols && max_phase <= rows; max_phase *= 2) {
          if (max_phase == 1 && (vec > 1 || per_phase > 1)) continue; /* same as unswizzled */
          if (rank < 2 && max_phase > 1) continue;
          const ir_attr *shared = layout_swizzled_shared_get(s->ctx, rank, vec, per_phase, max_phase, order);
          if (!evaluate(s, shared, src, dst, elem_bytes, &cand)) continue;
          if (!found || cand.cost < best->cost ||
              (cand.cost == best->cost && cand.instructions < best->instructions)) {
            *best = cand;
            found = true;
          }
        }
  }
  return found;
}

bool lower_convert(lower_state *s, ir_op *op) {
  const ir_type *st = op->operands[0].value->type, *dt = op->results[0].type;
  const lower_values *src = lower_get(s, op, op->operands[0].value);
  if (!src) return false;
  lower_layout_info *sli = lower_layout_of(s, op, st), *dli = lower_layout_of(s, op, dt);
  if (!sli || !dli) return false;
  int *map = lower_alloc(s, sizeof(int) * (size_t)dli->num_regs);
  if (!map) return false;
  int rank = st->rank;
  /* Same lanes and warps: a renaming of registers, no code at all. */
  if (lower_register_map(dli, sli, layout_project_identity, &rank, map)) {
    lower_values *out = lower_values_new(s, op, dli->num_regs);
    if (!out) return false;
    for (int r = 0; r < dli->num_regs; r++) out->v[r] = src->v[map[r]];
    return lower_set(s, &op->results[0], out);
  }
  LLVMValueRef tile = lower_shared_base(s, op);
  if (!tile) {
    ir_op_error(s->ctx, op, "internal error: ttg.convert_layout has no shared memory");
    return false;
  }
  int eb = lower_elem_bytes(st);
  convert_plan *plan = lower_alloc(s, sizeof *plan);
  if (!plan) return false;
  if (!choose_plan(s, sli, dli, eb, plan)) {
    ir_op_error(s->ctx, op, "lowering of this ttg.convert_layout is not implemented yet (no shared tile fits)");
    return false;
  }
  LLVMTypeRef et = lower_elem_type(s, st);
  lower_smem_map src_map = {.map = plan->src}, dst_map = {.map = plan->dst};
  lower_smem_map_finish(s, &src_map);
  lower_smem_map_finish(s, &dst_map);

  lower_barrier(s); /* the previous user of this scratch space is done */
  lower_smem_store_values(s, tile, &src_map, sli, et, eb, src);
  lower_barrier(s);
  lower_smem_loader ld;
  if (!lower_smem_loader_init_map(s, op, &ld, tile, &dst_map, dt)) return false;
  for (int r = 0; r < dli->num_regs; r++) lower_smem_loader_get(s, &ld, r);
  return lower_set(s, &op->results[0], ld.out);
}

/* --warp-specialize: on sm_90a, a kernel whose K loop feeds warpgroup MMAs from TMA loads becomes persistent and warp-specialized: a producer warpgroup streams every tile's operands into a ring guarded by full/empty mbarriers, consumer warpgroups run the MMAs and the epilogue; a kernel of one warpgroup gets two consumer groups, running two programs that share their B tiles at once (pairs, the default) or alternate tiles (ping-pong); with cluster-size=2 the cooperative kernel runs in 2-block clusters that share B tiles through TMA multicast, and pairs in clusters that share A tiles. */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "gemmc/allocation.h"
#include "gemmc/axis_info.h"
#include "gemmc/layout.h"
#include "gemmc/passes.h"
#include "gemmc/tile_access.h"
#include "util.h"

/*
 * The input (after tma-loads): the function body is a prologue P, one K loop L and an epilogue E
 *
 *   P: %pid = tt.get_program_id ..; %desc = tt.make_tensor_descriptor ..; offsets, bounds
 *   L: scf.for %k = 0 to %ub step 1 iter_args(%acc = %init) {
 *        %x = tt.descriptor_load %desc[coords(%k)]; %xs = ttg.local_alloc %x   (per operand)
 *        %d = ttng.warp_group_dot %as, %bs, %acc; scf.yield %d }
 *   E: the epilogue (conversions, stores) of L's result
 *
 * The output (seed 003's design, CUTLASS's kernel shape):
 *
 *   scf.if (this block's linear id %start < gemmc.num_workers (W)) {   the others leave at once
 *   descriptors (moved to the top: they depend on the arguments only), rings[S], full[S], empty[S]
 *   ttg.warp_specialize
 *   default (consumer group 0), partition 1 (consumer group 1, ping-pong only):
 *     scf.for %v = %start + g * W to %programs step G * W {           tiles of this group
 *       P with the program ids of tile %v
 *       ping-pong: wait for this group's turn (order[g])
 *       scf.for %k = 0 to %ub {                                       i = %j * %ub + %k
 *         wait full[i % S] (phase (i / S) & 1); wgmma on rings[i % S] (async); wait for all but 1
 *         arrive empty[(i - 1) % S] (k > 0: the previous stage's MMAs are done) }
 *       ping-pong: the other group's turn (arrive order[1 - g])
 *       wait for all; arrive empty[last stage]; E }
 *   partition 0 (producer, one warpgroup, 40 registers):
 *     scf.for %v = %start to %programs step W {                       every tile of the block
 *       the part of P the coordinates and %ub need
 *       scf.for %k = 0 to %ub { wait empty[i % S] (phase ((i / S) & 1) ^ 1: a fresh barrier's
 *         "previous phase" counts as complete), expect the stage's bytes on full[i % S], TMA copies } }
 *
 * Tile j of a block occupies ring positions j * ub .. j * ub + ub - 1 (ub must not depend on the
 * program id), so every role finds each stage's slot and phase from (j, k) alone. Where one K
 * step carries too few bytes for a stage (ring_stages), a position holds two steps: a tile then
 * takes ceil(ub / 2) positions, the consumer runs both steps' MMAs per position and an odd ub's
 * last step in a loop of its own, the producer copies the second step only where it exists.
 *
 * Pairs (one-warpgroup kernels by default) replace the tile loops: unit u holds programs 2u and
 * 2u + 1 (or one, see rewrite); every role computes both programs' B coordinates and, when they
 * agree, runs the unit as one pass of ub positions whose stages carry both A tiles and one B tile,
 * else as one pass per program. Both consumer groups wait on and release every position of every
 * pass (MMAs only in the passes that feed their program), so a group never waits on a barrier
 * more than one phase ahead; a position's base is carried from unit to unit. Programs are
 * independent in Triton's model, so running them as iterations of one block's loop is allowed;
 * blocks past W only run an empty loop. Each consumer warpgroup arrives once on a stage's empty
 * barrier (count: the group's warpgroups).
 *
 * Clusters (cluster-size=2, cooperative kernels; CUTLASS's 2x1 cluster with multicast): launched
 * in clusters of two blocks along x, blocks 2c and 2c + 1 run tiles v and v ^ 1 (W even), so
 * both rings hold the same ring positions at the same time. Where both tiles exist and read the
 * same B tile (the tutorial's grouped order: neighbours share pid_n), each producer copies half of
 * B's boxes into both blocks' rings (each block's full barrier still expects the whole stage);
 * wherever both exist, each consumer warpgroup releases a stage in both blocks (empty count: two
 * per warpgroup; the other block's producer may be writing into this ring), else twice in its own.
 * Cluster barriers after the mbarrier inits and before leaving keep either block from using the
 * other's barriers before they exist or after it has gone. Launched without clusters, the cluster
 * size reads 1 and the kernel runs as without the option.
 *
 * Pairs in clusters (cluster-size=2, one-warpgroup kernels): the blocks of a cluster run slots s
 * and s ^ 1 of a loop over slots (the units rounded up to a multiple of 2d), holding units u and
 * u ^ d, d chosen at run time so that units 0 and d read the same A tiles (the grouped order's
 * neighbouring columns: GROUP_SIZE_M / 2 in the tutorial). Both take the larger of the two units'
 * pass counts (a block whose unit is shorter or absent pads with passes whose stages only
 * arrive), so they hold the same ring positions; where both units run one shared pass and read
 * the same A tiles, each producer copies the A tile of its own rank's program into both blocks'
 * rings (gemmc.multicast_whole) and B into its own. Every stage goes back to both blocks (each
 * consumer group arrives here and there: empty count 4), since the other block's producer may
 * write into this ring at any position. Measured slower than plain pairs on aligned rows and
 * much faster where rows start off a 32-byte sector (docs/perf-notes.md, 69), so only on request.
 */

enum { MAX_WS_LOADS = 4, MAX_WS_STORES = 4, PRODUCER_WARPS = 4, PRODUCER_REGISTERS = 40, CONSUMER_REGISTERS = 232 };

/* An epilogue tt.store that goes out through TMA: the tile is written to a shared buffer of the
 * consumer group and copied to global memory asynchronously (the next tile's MMAs overlap the
 * copy; the buffer is reused after async_tma_store_wait). */
typedef struct ws_store {
  ir_op *store;
  tile_access acc;
  ir_value *value;      /* what goes to shared memory (the source of the store's layout conversion) */
  const ir_attr *shared;
  ir_value *desc;       /* made at the top */
  ir_value *buffer;     /* per consumer group */
  int batch_offset;     /* the offset that becomes a leading descriptor dim (-1: none) */
  ir_value *batch_index;
  tile_coef batch_stride;
  ir_value *batch_bound; /* the mask's `batch_index < bound`, or NULL */
  /* 2: the tile goes out in two column halves through a buffer of half the tile (split in
   * registers: reshape, trans, split), when that leaves room for more ring stages; else 1. */
  int chunks;
  bool halves_in_registers; /* the value's layout splits into column halves without moving data */
} ws_store;

typedef struct ws_load {
  ir_op *load, *alloc;
  ir_op *view; /* the ttg.memdesc_trans the dot reads the buffer through (column-major operands), or NULL */
  ir_value *ring;
  const ir_type *slot_type;
  int64_t bytes;
} ws_load;

typedef struct ws_plan {
  gemmc_context *ctx;
  ir_op *func, *loop, *dot;
  ir_block *entry, *body;
  ws_load loads[MAX_WS_LOADS];
  int num_loads;
  ws_store stores[MAX_WS_STORES];
  int num_stores;
  axis_info_analysis *axis;
  int tma_align; /* gemmc_target_tma_alignment of the target */
  int stages, groups, warps;
  /* K steps (iterations of L) per ring stage: 1, or 2 where one step's operands are too few
   * bytes for a stage's barrier round trip (ring_stages): position q then holds steps 2q and
   * 2q + 1, the second absent past the trip count. */
  int steps;
  /* Pairs (two consumer groups of one warpgroup each): the groups run programs 2u and 2u + 1 of
   * unit u at once; when their B coordinates agree one copy of B feeds both. shared_load is the
   * load that feeds the dot's B, b_leaves the program-dependent values of P its coordinates read
   * (equal for both programs: B is shared), b_need the ops of P they are made of. */
  bool pairs;
  int shared_load;
  ptr_list b_leaves, b_need;
  ptr_list hoist;    /* descriptors and what they are made of, moved to the top */
  ptr_list old_ops;  /* P, L and E: replaced by the roles' copies */
  ptr_list pid_ops;  /* their tt.get_program_id ops (nested ones too) */
  ir_value *full, *empty, *order, *start, *programs, *workers, *nx, *ny;
  /* Pairs: units below pair_units hold two programs, the rest (the tail: fewer than 2W programs)
   * two as well when tail_paired (more than W of them), else one each; units counts them. */
  ir_value *pair_units, *tail_paired, *units;
  /* Clusters (cluster-size=2, cooperative kernels): the blocks of a 2-block cluster (launched so)
   * run tiles v and v ^ 1 at the same ring positions; when both exist (peer_active, per tile) each
   * block's consumers release a stage in both blocks (its producer may multicast into the other's
   * ring), and when they also read the same B tile (b_leaves agree) each producer copies half of
   * it into both rings (gemmc.multicast). in_cluster: launched in clusters of 2. */
  int cluster;
  ir_value *in_cluster, *peer_active;
  /* Pairs in clusters: the blocks of a cluster run units d apart (partner_stride, chosen at run
   * time: the smallest of 1, 2, 4, 8 for which units 0 and d read the same A tiles; the tutorial's
   * grouped order gives GROUP_SIZE_M / 2), over `slots` (the units rounded up to a multiple of
   * 2d); a_load is A's load, a_leaves as b_leaves, a_need the ops of P both operands' leaves come
   * from (b_need's and A's: what comparing two units' programs needs); rank: the block's place in
   * its cluster. */
  int a_load;
  ptr_list a_leaves, a_need;
  ir_value *partner_stride, *slots, *rank;
} ws_plan;

/* ------------------------------------------------------------------ legality */

bool gemmc_warp_specialized_accumulator(const ir_op *loop) {
  ir_block *body = loop->kind == OP_SCF_FOR ? ir_region_entry(&((ir_op *)loop)->regions[0]) : NULL;
  ir_op *yield = body ? ir_block_terminator(body) : NULL;
  if (!yield) return false;
  const ir_op *dot = NULL;
  for (const ir_op *op = body->first; op; op = op->next)
    if (op->kind == OP_WARP_GROUP_DOT) {
      if (dot) return false;
      dot = op;
    }
  if (!dot || dot->num_operands < 3) return false;
  const ir_value *acc = dot->operands[2].value;
  int k = acc->def_op || acc->owner_block != body ? -1 : acc->index - 1;
  return k >= 0 && k < yield->num_operands && yield->operands[k].value == &dot->results[0] &&
         ir_value_num_uses(&dot->results[0]) == 1 && ir_value_num_uses(acc) == 1;
}

static bool is_pure(const ir_op *op) { return ir_op_is_pure(op) && op->num_regions == 0; }

/* The ops of the entry block that v is computed from (pure, no program id) into `slice`; false
 * when it needs anything else. */
static bool uniform_slice(const ws_plan *p, ir_value *v, ptr_list *slice) {
  ir_op *def = v->def_op;
  if (!def) return v->owner_block == p->entry; /* a kernel argument */
  if (def->parent != p->entry || !is_pure(def) || def->kind == OP_GET_PROGRAM_ID) return false;
  if (ptr_list_contains(slice, def)) return true;
  for (int i = 0; i < def->num_operands; i++)
    if (!uniform_slice(p, def->operands[i].value, slice)) return false;
  ptr_list_push(slice, def);
  return true;
}

/* The pure ops of `block` that v is computed from (stopping at values from elsewhere). */
static bool local_slice(ir_block *block, ir_value *v, ptr_list *slice, bool allow_program_id) {
  ir_op *def = v->def_op;
  if (!def || def->parent != block) return true;
  if (!is_pure(def) || (!allow_program_id && def->kind == OP_GET_PROGRAM_ID)) return false;
  if (ptr_list_contains(slice, def)) return true;
  for (int i = 0; i < def->num_operands; i++)
    if (!local_slice(block, def->operands[i].value, slice, allow_program_id)) return false;
  ptr_list_push(slice, def);
  return true;
}

/* The program-dependent scalars of P that load l's coordinates read (`leaves`) and the ops of P
 * they come from (`need`); false when a coordinate reads anything else of the program. Pairs ask
 * for B's (shared by a unit's programs), pairs in clusters for A's too (shared with the partner
 * unit). */
static bool plan_operand_leaves(ws_plan *p, int l, ptr_list *leaves, ptr_list *need) {
  ir_op *load = p->loads[l].load;
  ptr_list coords = {p->ctx, NULL, 0, 0};
  for (int i = 1; i < load->num_operands; i++) local_slice(p->body, load->operands[i].value, &coords, false);
  ptr_list inputs = {p->ctx, NULL, 0, 0};
  for (int i = 1; i < load->num_operands; i++) ptr_list_push_unique(&inputs, load->operands[i].value);
  for (int i = 0; i < coords.count; i++) {
    ir_op *op = coords.items[i];
    for (int o = 0; o < op->num_operands; o++) ptr_list_push_unique(&inputs, op->operands[o].value);
  }
  bool ok = true;
  for (int i = 0; i < inputs.count && ok; i++) {
    ir_value *v = inputs.items[i];
    if (v == p->body->args[0] || (v->def_op && v->def_op->parent == p->body)) continue;
    if (!value_depends_on_program_id(p->ctx, v)) continue;
    ok = v->def_op && v->def_op->parent == p->entry && ir_type_is_int(v->type, 0) && local_slice(p->entry, v, need, true);
    if (ok) ptr_list_push_unique(leaves, v);
  }
  ptr_list_free(&coords);
  ptr_list_free(&inputs);
  return ok;
}

static bool plan(ws_plan *p) {
  ir_block *entry = p->entry;
  for (ir_op *op = entry->first; op; op = op->next) {
    if (op->kind == OP_SCF_FOR) {
      if (p->loop) return false;
      p->loop = op;
    } else if (op->kind == OP_WARP_SPECIALIZE) {
      return false;
    } else if (!p->loop && op->num_regions) {
      return false; /* control flow in the prologue */
    }
  }
  ir_op *loop = p->loop;
  if (!loop || loop->num_operands != 4 || loop->num_results != 1) return false;
  int64_t step;
  if (!scf_for_step_from_zero(loop, &step) || step != 1) return false;
  p->body = ir_region_entry(&loop->regions[0]);
  ir_block *body = p->body;
  if (!body || body->next || body->num_args != 2) return false;
  for (ir_op *op = body->first; op; op = op->next) {
    switch (op->kind) {
    case OP_DESC_LOAD: {
      if (p->num_loads == MAX_WS_LOADS || !ir_value_has_one_use(&op->results[0])) return false;
      ir_op *alloc = op->results[0].first_use->owner;
      const ir_type *desc = op->operands[0].value->type;
      if (alloc->kind != OP_LOCAL_ALLOC || alloc->parent != body || !desc->encoding ||
          alloc->results[0].type->encoding != desc->encoding || !ir_value_has_one_use(&alloc->results[0]))
        return false;
      ir_op *view = alloc->results[0].first_use->owner;
      if (view->kind != OP_MEMDESC_TRANS)
        view = NULL;
      else if (view->parent != body || !ir_value_has_one_use(&view->results[0]))
        return false;
      p->loads[p->num_loads++] = (ws_load){op, alloc, view, NULL, NULL, ir_type_num_bytes(desc)};
      break;
    }
    case OP_LOCAL_ALLOC:
    case OP_MEMDESC_TRANS: break; /* checked with its load */
    case OP_WARP_GROUP_DOT:
      if (p->dot) return false;
      p->dot = op;
      break;
    case OP_SCF_YIELD: break;
    default:
      if (!is_pure(op)) return false;
    }
  }
  ir_op *dot = p->dot;
  if (!dot || p->num_loads == 0 || !gemmc_warp_specialized_accumulator(loop)) return false;
  p->shared_load = -1;
  for (int i = 0; i < 2; i++) {
    bool from_load = false;
    for (int j = 0; j < p->num_loads; j++)
      from_load |= dot->operands[i].value == &(p->loads[j].view ? p->loads[j].view : p->loads[j].alloc)->results[0];
    if (!from_load) return false;
  }
  /* B, as tma-loads decided when it sized the ring (the loop has one dot). */
  for (int j = 0; j < p->num_loads; j++)
    if (value_feeds_dot_operand(&p->loads[j].load->results[0], 1)) p->shared_load = j;
  for (int i = 3; i < dot->num_operands; i++)
    if (dot->operands[i].value->def_op && dot->operands[i].value->def_op->parent == body) return false;
  /* The trip count and the descriptors are the same for every program. */
  ptr_list ub_slice = {p->ctx, NULL, 0, 0};
  bool ok = uniform_slice(p, loop->operands[1].value, &ub_slice);
  ptr_list_free(&ub_slice);
  if (!ok) return false;
  for (int j = 0; j < p->num_loads; j++) {
    ir_value *desc = p->loads[j].load->operands[0].value;
    if (!desc->def_op || desc->def_op->kind != OP_MAKE_TENSOR_DESC || !uniform_slice(p, desc, &p->hoist)) return false;
    /* The coordinates: pure ops of the body over values of P. */
    ptr_list coords = {p->ctx, NULL, 0, 0};
    for (int i = 1; i < p->loads[j].load->num_operands && ok; i++)
      ok = local_slice(body, p->loads[j].load->operands[i].value, &coords, false);
    ptr_list_free(&coords);
    if (!ok) return false;
  }
  if (p->pairs) p->pairs = p->shared_load >= 0 && plan_operand_leaves(p, p->shared_load, &p->b_leaves, &p->b_need);
  /* Pairs in clusters share A with the partner unit: each block copies one program's A tile into
   * both blocks' rings (two loads: A and B). */
  if (p->cluster == 2 && gemmc_ws_cluster_shares_a(p->warps)) {
    p->a_load = 1 - p->shared_load;
    ptr_list_append_unique(&p->a_need, &p->b_need);
    if (!p->pairs || p->num_loads != 2 || !plan_operand_leaves(p, p->a_load, &p->a_leaves, &p->a_need)) p->cluster = 1;
    return true;
  }
  /* Clusters share B in halves: its copy must be an even number of TMA boxes. */
  if (p->cluster == 2) {
    layout_tma_box box;
    bool ok = p->shared_load >= 0 && layout_tma_boxes(p->loads[p->shared_load].load->operands[0].value->type, &box) &&
              box.num_boxes % 2 == 0 && plan_operand_leaves(p, p->shared_load, &p->b_leaves, &p->b_need);
    if (!ok) p->cluster = 1;
  }
  return true;
}

/* Epilogue stores TMA can take: a 2-D tile, base + row * stride + column (16-byte aligned base
 * and stride), masks only at the tensor's edge, everything but the tile's start the same for all
 * programs; the shared layout is the nvmma one of the tile. */
static bool uniform_coef(const ws_plan *p, const tile_coef *c, ptr_list *slice) {
  for (int i = 0; i < c->n; i++)
    if (!uniform_slice(p, c->f[i], slice)) return false;
  return true;
}

/* The column halves of a 2-D tile [R, C] as Triton's EPILOGUE_SUBTILE makes them: reshape to
 * [R, 2, C/2], trans to [R, C/2, 2], split. The layouts of the three results (out[0..2]) when
 * every step renames registers; NULL otherwise. */
static const ir_attr *column_halves_layout_steps(gemmc_context *ctx, const ir_type *t, const ir_attr *out[3]) {
  if (!ir_type_is_tensor(t) || t->rank != 2 || t->shape[1] % 2 || !t->encoding) return NULL;
  int64_t wide[3] = {t->shape[0], 2, t->shape[1] / 2}, swapped[3] = {t->shape[0], t->shape[1] / 2, 2};
  static const int perm[3] = {0, 2, 1};
  out[0] = layout_infer_reshape_result(ctx, t->encoding, 2, t->shape, 3, wide);
  out[1] = out[0] ? layout_infer_permute_result(ctx, out[0], perm, 3, wide) : NULL;
  out[2] = out[1] ? layout_infer_split_result(ctx, out[1], 3, swapped) : NULL;
  return out[2];
}

static const ir_attr *column_halves_layout(gemmc_context *ctx, const ir_type *t) {
  const ir_attr *steps[3];
  return column_halves_layout_steps(ctx, t, steps);
}

static void plan_stores(ws_plan *p) {
  static const tile_coef unit = {1, 0, {NULL}};
  for (ir_op *op = p->loop->next; op && p->num_stores < MAX_WS_STORES; op = op->next) {
    if (op->kind != OP_STORE || op->num_operands < 2) continue;
    ws_store st;
    memset(&st, 0, sizeof st);
    st.store = op;
    st.batch_offset = -1;
    const ir_type *t = op->operands[1].value->type;
    int bytes = (int)ir_type_bits(ir_type_element(t)) / 8;
    if (!tile_access_of(op, &st.acc) || st.acc.loop || (bytes != 2 && bytes != 4) || t->rank != 2) continue;
    if (st.acc.dim[0].wrap || st.acc.dim[1].wrap || !tile_coef_equal(&st.acc.dim[1].stride, &unit)) continue;
    ptr_list slice = {p->ctx, NULL, 0, 0};
    bool ok = uniform_slice(p, st.acc.base, &slice) && uniform_coef(p, &st.acc.dim[0].stride, &slice);
    for (int i = 0; ok && i < st.acc.num_offsets; i++) {
      if (st.batch_offset < 0 &&
          tile_split_program_offset(p->ctx, &st.acc.offsets[i], &st.batch_index, &st.batch_stride) &&
          uniform_coef(p, &st.batch_stride, &slice) &&
          tile_bytes_aligned(tile_coef_divisibility(p->axis, &st.batch_stride), bytes, p->tma_align)) {
        st.batch_offset = i;
        continue;
      }
      ok = uniform_coef(p, &st.acc.offsets[i], &slice);
    }
    for (int d = 0; ok && d < 2; d++) ok = !st.acc.dim[d].bound || uniform_slice(p, st.acc.dim[d].bound, &slice);
    ptr_list_free(&slice);
    if (!ok || axis_info_divisibility(axis_info_of(p->axis, st.acc.base), 0) < p->tma_align ||
        !tile_bytes_aligned(tile_coef_divisibility(p->axis, &st.acc.dim[0].stride), bytes, p->tma_align))
      continue;
    /* The contiguous dim's extent must be whole 16-byte units too: a TMA store clipped at N = 70
     * f16 wrote columns 70 and 71 (measured on an H100; CUTLASS requires the same alignment of
     * the extent). An unmasked dim has no extent to clip. */
    const ir_value *column_bound = st.acc.dim[1].bound;
    if (column_bound &&
        !tile_bytes_aligned(axis_info_divisibility(axis_info_of(p->axis, column_bound), 0), bytes, p->tma_align))
      continue;
    for (int i = 0; ok && i < st.acc.num_offsets; i++)
      ok = i == st.batch_offset || tile_bytes_aligned(tile_coef_divisibility(p->axis, &st.acc.offsets[i]), bytes, p->tma_align);
    /* A scalar mask can only be the batch's own bound (index < bound: the batch dim's extent). */
    for (int i = 0; ok && i < st.acc.num_scalar_masks; i++) {
      const ir_op *cmp = st.acc.scalar_masks[i]->def_op;
      const char *pred = cmp && cmp->kind == OP_CMPI ? cmp_predicate_of(cmp) : NULL;
      ok = st.batch_offset >= 0 && !st.batch_bound && pred && !strcmp(pred, "slt") &&
           cmp->operands[0].value == st.batch_index && ir_type_is_int(cmp->operands[1].value->type, 32);
      if (ok) {
        st.batch_bound = cmp->operands[1].value;
        ptr_list bslice = {p->ctx, NULL, 0, 0};
        ok = uniform_slice(p, st.batch_bound, &bslice);
        ptr_list_free(&bslice);
      }
    }
    int order[2] = {1, 0};
    st.shared = layout_nvmma_shared_get(p->ctx, 2, t->shape, order, bytes * 8, false);
    if (!ok || !st.shared || st.shared->layout.transposed || st.shared->layout.swizzling_byte_width < 32 ||
        t->shape[0] > 256 || (t->shape[1] * bytes) % st.shared->layout.swizzling_byte_width)
      continue;
    st.value = op->operands[1].value;
    if (st.value->def_op && st.value->def_op->kind == OP_CONVERT_LAYOUT) st.value = st.value->def_op->operands[0].value;
    st.chunks = 1;
    st.halves_in_registers = column_halves_layout(p->ctx, st.value->type) != NULL && t->shape[1] % 2 == 0 &&
                             ((t->shape[1] / 2) * bytes) % st.shared->layout.swizzling_byte_width == 0;
    p->stores[p->num_stores++] = st;
  }
}

/* ------------------------------------------------------------------ building */

static ir_value *c32(ws_plan *p, ir_op *at, int64_t v) { return build_int_constant(p->ctx, at, v, 32); }

static ir_value *bin(ws_plan *p, ir_op *at, ir_op_kind k, ir_value *a, ir_value *b) {
  return build_binary(p->ctx, at, k, a, b);
}

/* async_tma_store_wait {pendings = 0} before `at` (at the location of `source`): this group's TMA
 * stores have read their shared buffers. */
static void store_wait(ws_plan *p, ir_op *at, const ir_op *source) {
  ir_op *wait = ir_op_create(p->ctx, OP_TMA_STORE_WAIT, 0, NULL, 0, NULL, 0, source->loc);
  ir_op_set_attr(p->ctx, wait, "pendings", ir_i32_attr(p->ctx, 0));
  ir_op_insert_before(at, wait);
}

/* The column halves of tile v in registers before `at` (reshape, trans, split at source's
 * location); plan_stores checked that each step renames registers. */
static void column_halves(ws_plan *p, ir_op *at, ir_value *v, const ir_op *source, ir_value *halves[2]) {
  gemmc_context *ctx = p->ctx;
  const ir_type *t = v->type;
  const ir_attr *layouts[3];
  column_halves_layout_steps(ctx, t, layouts);
  int64_t wide[3] = {t->shape[0], 2, t->shape[1] / 2}, swapped[3] = {t->shape[0], t->shape[1] / 2, 2};
  const ir_type *wide_t = ir_tensor_type(ctx, 3, wide, t->elem, layouts[0]);
  const ir_type *swapped_t = ir_tensor_type(ctx, 3, swapped, t->elem, layouts[1]);
  const ir_type *half_t = ir_tensor_type(ctx, 2, swapped, t->elem, layouts[2]);
  ir_op *reshape = ir_op_create(ctx, OP_RESHAPE, 1, &v, 1, &wide_t, 0, source->loc);
  ir_op_insert_before(at, reshape);
  ir_value *w = &reshape->results[0];
  ir_op *trans = ir_op_create(ctx, OP_TRANS, 1, &w, 1, &swapped_t, 0, source->loc);
  static const int64_t order[3] = {0, 2, 1};
  ir_op_set_attr(ctx, trans, "order", ir_dense_int_array_attr(ctx, ir_int_type(ctx, 32), 3, order));
  ir_op_insert_before(at, trans);
  ir_value *x = &trans->results[0];
  const ir_type *two[2] = {half_t, half_t};
  ir_op *split = ir_op_create(ctx, OP_SPLIT, 1, &x, 2, two, 0, source->loc);
  ir_op_insert_before(at, split);
  halves[0] = &split->results[0];
  halves[1] = &split->results[1];
}

/* One element of a ring of stages (rings of buffers or of mbarriers). */
static ir_value *stage_view(ws_plan *p, ir_op *at, ir_value *ring, ir_value *slot) {
  const ir_type *t = ring->type;
  const ir_type *view = ir_memdesc_type(p->ctx, t->rank - 1, t->shape + 1, t->elem, t->encoding, t->memspace, true, 0, NULL);
  ir_value *ops[2] = {ring, slot};
  return build_before(p->ctx, at, OP_MEMDESC_INDEX, 2, ops, view);
}

static ir_value *alloc_ring(ws_plan *p, ir_op *at, int64_t slots, int rank, const int64_t *shape, const ir_type *elem,
                            const ir_attr *enc) {
  int64_t ring_shape[IR_MAX_RANK + 1];
  ring_shape[0] = slots;
  memcpy(ring_shape + 1, shape, sizeof(int64_t) * (size_t)rank);
  const ir_attr *smem = ir_layout_attr(p->ctx, AT_SHARED_MEMORY, NULL);
  const ir_type *t = ir_memdesc_type(p->ctx, rank + 1, ring_shape, elem, enc, smem, true, 0, NULL);
  return build_before(p->ctx, at, OP_LOCAL_ALLOC, 0, NULL, t);
}

static ir_op *barrier_op(ws_plan *p, ir_op *at, ir_op_kind kind, ir_value *bar, const char *attr, int64_t v,
                         ir_value *pred) {
  ir_value *ops[2] = {bar, pred};
  ir_op *op = ir_op_create(p->ctx, kind, pred ? 2 : 1, ops, 0, NULL, 0, at->loc);
  if (attr) ir_op_set_attr(p->ctx, op, attr, ir_i32_attr(p->ctx, v));
  ir_op_insert_before(at, op);
  return op;
}

/* A consumer warpgroup's release of the stage whose empty barrier is `bar` (when pred holds, NULL:
 * always). In a cluster the barrier counts two releases per warpgroup: one here and one from the
 * same warpgroup of the other block while both run tiles (the other block's producer may multicast
 * into this ring, so it waits for this block's release too), else both here. */
static void release_stage(ws_plan *p, ir_op *at, ir_value *bar, ir_value *pred) {
  barrier_op(p, at, OP_ARRIVE_BARRIER, bar, "count", 1, pred);
  if (p->cluster < 2) return;
  ir_value *on = build_int_constant(p->ctx, at, 1, 1);
  ir_value *remote = p->peer_active, *local = bin(p, at, OP_XORI, p->peer_active, on);
  if (pred) remote = bin(p, at, OP_ANDI, pred, remote), local = bin(p, at, OP_ANDI, pred, local);
  ir_op *arrive = barrier_op(p, at, OP_ARRIVE_BARRIER, bar, "count", 1, remote);
  ir_op_set_attr(p->ctx, arrive, "gemmc.peer", ir_bool_attr(p->ctx, true));
  barrier_op(p, at, OP_ARRIVE_BARRIER, bar, "count", 1, local);
}

/* An scf.for %iv = lb to ub step st with no iter args, its body ending in scf.yield; returns the
 * yield (where the body's ops go). */
static ir_op *build_for(ws_plan *p, ir_op *at, ir_value *lb, ir_value *ub, ir_value *st, ir_value **iv,
                        int num_iter, ir_value *const *init, ir_value **args, ir_op **loop_out) {
  ir_value *ops[8] = {lb, ub, st};
  const ir_type *types[4] = {NULL};
  for (int i = 0; i < num_iter; i++) {
    ops[3 + i] = init[i];
    types[i] = init[i]->type;
  }
  ir_op *loop = ir_op_create(p->ctx, OP_SCF_FOR, 3 + num_iter, ops, num_iter, types, 1, at->loc);
  ir_block *b = ir_block_create(p->ctx);
  *iv = ir_block_add_arg(p->ctx, b, lb->type, NULL);
  for (int i = 0; i < num_iter; i++) args[i] = ir_block_add_arg(p->ctx, b, init[i]->type, NULL);
  ir_region_append_block(&loop->regions[0], b);
  ir_op *yield = ir_op_create(p->ctx, OP_SCF_YIELD, num_iter, args, 0, NULL, 0, at->loc);
  ir_block_append_op(b, yield);
  ir_op_insert_before(at, loop);
  if (loop_out) *loop_out = loop;
  return yield;
}

/* The program ids of tile %v (x fastest), mapped for the copies of P and E. */
static void map_program_ids(ws_plan *p, ir_op *at, ir_value *v, ptr_map *map) {
  ir_value *px = bin(p, at, OP_REMSI, v, p->nx);
  ir_value *rest = bin(p, at, OP_DIVSI, v, p->nx);
  ir_value *py = bin(p, at, OP_REMSI, rest, p->ny);
  ir_value *pz = bin(p, at, OP_DIVSI, rest, p->ny);
  ir_value *axis[3] = {px, py, pz};
  for (int i = 0; i < p->pid_ops.count; i++) {
    ir_op *op = p->pid_ops.items[i];
    ptr_map_put(map, &op->results[0], axis[ir_op_get_int_attr(op, "axis", 0) % 3]);
  }
}

static bool collect_program_ids(ir_op *op, void *user) {
  if (op->kind == OP_GET_PROGRAM_ID) ptr_list_push(user, op);
  return true;
}

/* Copies `op` before `at` through `map`. */
static void copy_before(ws_plan *p, ir_op *at, const ir_op *op, ptr_map *map) {
  ir_op_insert_before(at, op_clone_deep(p->ctx, op, map));
}

/* i = j * ub + k, its slot and round in the ring. */
static void ring_position(ws_plan *p, ir_op *at, ir_value *base, ir_value *k, ir_value **slot, ir_value **round) {
  ir_value *i = bin(p, at, OP_ADDI, base, k);
  ir_value *S = c32(p, at, p->stages);
  *slot = bin(p, at, OP_REMSI, i, S);
  *round = bin(p, at, OP_DIVSI, i, S);
}

/* Waits before `at` on ring position base + k of the barrier ring `bars` (full for a consumer,
 * empty for the producer, whose first round passes on the fresh barrier: the opposite parity);
 * returns the position's slot. */
static ir_value *wait_ring(ws_plan *p, ir_op *at, ir_value *bars, ir_value *base, ir_value *k, bool producer) {
  ir_value *slot, *round;
  ring_position(p, at, base, k, &slot, &round);
  ir_value *phase = producer ? bin(p, at, OP_XORI, bin(p, at, OP_ANDI, round, c32(p, at, 1)), c32(p, at, 1))
                             : bin(p, at, OP_ANDI, round, c32(p, at, 1));
  ir_value *wait_ops[2] = {stage_view(p, at, bars, slot), phase};
  build_before(p->ctx, at, OP_WAIT_BARRIER, 2, wait_ops, NULL);
  return slot;
}

/* Copies of a load's ring per stage: pairs keep each program's own operands apart (the B tile
 * feeds both groups from one copy). */
static int ring_copies(const ws_plan *p, int l) { return p->pairs && l != p->shared_load ? 2 : 1; }

/* The view of load l's buffer that consumer group `group` reads at `slot`, K step `step` of the
 * stage. */
static ir_value *operand_view(ws_plan *p, ir_op *at, int l, ir_value *slot, ir_value *group, int step) {
  if (ring_copies(p, l) == 2) slot = bin(p, at, OP_ADDI, slot, bin(p, at, OP_MULI, group, c32(p, at, p->stages)));
  if (p->steps > 1) slot = bin(p, at, OP_ADDI, bin(p, at, OP_MULI, slot, c32(p, at, p->steps)), c32(p, at, step));
  return stage_view(p, at, p->loads[l].ring, slot);
}

/* The ring positions a K loop of `ub` steps takes: ceil(ub / steps). */
static ir_value *ring_positions(ws_plan *p, ir_op *at, ir_value *ub) {
  if (p->steps == 1) return ub;
  ir_value *up = bin(p, at, OP_ADDI, ub, c32(p, at, p->steps - 1));
  return bin(p, at, OP_DIVSI, up, c32(p, at, p->steps));
}

/* K step `step` of ring position q: q * steps + step. */
static ir_value *position_step(ws_plan *p, ir_op *at, ir_value *q, int step) {
  if (p->steps == 1) return q;
  return bin(p, at, OP_ADDI, bin(p, at, OP_MULI, q, c32(p, at, p->steps)), c32(p, at, step));
}

/* Whether position q holds all its steps (NULL when a position is one step). */
static ir_value *position_whole(ws_plan *p, ir_op *at, ir_value *q, ir_value *ub) {
  if (p->steps == 1) return NULL;
  return build_cmpi(p->ctx, at, "slt", position_step(p, at, q, p->steps - 1), ub);
}

/* The expect-tx of a stage carrying `bytes` per K step on `full` when `pred` holds: steps *
 * bytes at a whole position, bytes at the trip count's odd tail. */
static void expect_stage(ws_plan *p, ir_op *at, ir_value *full, int64_t bytes, ir_value *pred, ir_value *whole) {
  if (!whole) {
    barrier_op(p, at, OP_BARRIER_EXPECT, full, "size", bytes, pred);
    return;
  }
  ir_value *on = build_int_constant(p->ctx, at, 1, 1);
  barrier_op(p, at, OP_BARRIER_EXPECT, full, "size", bytes * p->steps, bin(p, at, OP_ANDI, pred, whole));
  barrier_op(p, at, OP_BARRIER_EXPECT, full, "size", bytes, bin(p, at, OP_ANDI, pred, bin(p, at, OP_XORI, whole, on)));
}

/* An scf.if %cond with no results; *then_end and *else_end get its branches' yields. */
static void build_if(ws_plan *p, ir_op *at, ir_value *cond, ir_op **then_end, ir_op **else_end) {
  ir_op *if_op = ir_op_create(p->ctx, OP_SCF_IF, 1, &cond, 0, NULL, 2, at->loc);
  ir_op_insert_before(at, if_op);
  ir_op **ends[2] = {then_end, else_end};
  for (int r = 0; r < 2; r++) {
    ir_block *b = ir_block_create(p->ctx);
    ir_region_append_block(&if_op->regions[r], b);
    *ends[r] = ir_op_create(p->ctx, OP_SCF_YIELD, 0, NULL, 0, NULL, 0, at->loc);
    ir_block_append_op(b, *ends[r]);
  }
}

/* Ping-pong: what a group's turn is made of: its first tile and tile step, its number and the
 * other group's. */
typedef struct ws_turn {
  ir_value *first, *step, *group, *other;
} ws_turn;

/* A consumer K loop before `at` over ring positions lo .. hi - 1 (from `base`), `steps` K steps
 * each, the accumulator from `init` (`map`: P's copies; the operands and the loop's arguments
 * are mapped here); returns the loop's result. Each position: wait for its stage, the MMAs of its
 * steps (asynchronous, chained on the accumulator), then release a stage (eager: this one once
 * its MMAs are done; otherwise the previous one, its MMAs done while this one's run). */
static ir_value *consumer_positions(ws_plan *p, ir_op *at, ir_value *lo, ir_value *hi, int steps, ir_value *base,
                                    ir_value *group, ir_value *init, ptr_map *map, bool eager) {
  gemmc_context *ctx = p->ctx;
  ir_value *q, *acc;
  ir_op *inner;
  ir_op *k_end = build_for(p, at, lo, hi, c32(p, at, 1), &q, 1, &init, &acc, &inner);
  ir_value *slot = wait_ring(p, k_end, p->full, base, q, false);
  ir_op *dot = NULL;
  for (int s = 0; s < steps; s++) {
    for (int l = 0; l < p->num_loads; l++) {
      ir_value *buffer = operand_view(p, k_end, l, slot, group, s);
      ptr_map_put(map, &p->loads[l].alloc->results[0], buffer);
      if (!p->loads[l].view) continue;
      copy_before(p, k_end, p->loads[l].view, map);
      memdesc_views_follow(ctx, buffer); /* the view of a ring stage is mutable like it */
    }
    ptr_map_put(map, p->body->args[0], position_step(p, k_end, q, s));
    ptr_map_put(map, p->body->args[1], dot ? &dot->results[0] : acc);
    dot = op_clone_deep(ctx, p->dot, map);
    ir_op_set_attr(ctx, dot, "isAsync", ir_bool_attr(ctx, true));
    ir_op_insert_before(k_end, dot);
  }
  ir_value *d = &dot->results[0];
  ir_op *wait = ir_op_create(ctx, OP_WARP_GROUP_DOT_WAIT, 1, &d, 1, &d->type, 0, dot->loc);
  ir_op_set_attr(ctx, wait, "pendings", ir_i32_attr(ctx, eager ? 0 : 1));
  ir_op_insert_before(k_end, wait);
  if (eager) {
    release_stage(p, k_end, stage_view(p, k_end, p->empty, slot), NULL);
  } else {
    ir_value *prev =
        bin(p, k_end, OP_REMSI, bin(p, k_end, OP_ADDI, slot, c32(p, k_end, p->stages - 1)), c32(p, k_end, p->stages));
    ir_value *not_first = build_cmpi(ctx, k_end, "sgt", q, c32(p, k_end, 0));
    release_stage(p, k_end, stage_view(p, k_end, p->empty, prev), not_first);
  }
  ir_op_set_operand(k_end, 0, &wait->results[0]);
  return &inner->results[0];
}

/* One tile of a consumer group before `at`: P with the program ids of tile %v, the K loop over
 * its ring positions from base (NULL: j * positions, j the tile's number in the block), then E. */
static void consumer_tile(ws_plan *p, ir_op *at, ir_value *v, ir_value *j, ir_value *base, ir_value *group,
                          const ws_turn *turn) {
  gemmc_context *ctx = p->ctx;
  ptr_map map = {ctx, NULL, 0, 0};
  map_program_ids(p, at, v, &map);
  ir_op *loop = p->loop;
  /* P, in order (the descriptors are at the top already). */
  for (ir_op *op = p->entry->first; op && op != loop; op = op->next)
    if (ptr_list_contains(&p->old_ops, op) && op->kind != OP_GET_PROGRAM_ID) copy_before(p, at, op, &map);
  ir_value *ub = ptr_map_get(&map, loop->operands[1].value);
  if (!ub) ub = loop->operands[1].value;
  ir_value *positions = ring_positions(p, at, ub);
  if (!base) base = bin(p, at, OP_MULI, j, positions);
  ir_value *init = ptr_map_get(&map, loop->operands[3].value);
  if (!init) init = loop->operands[3].value;
  /* Ping-pong: the two groups' K loops take turns (CUTLASS's math order barrier), so a group
   * waits on a stage's full barrier at most one phase ahead of it, and one group's MMAs overlap
   * the other's epilogue rather than its MMAs. Group 0 waits on the opposite parity: its first
   * wait passes on the fresh barrier. */
  if (turn) {
    ir_value *n = bin(p, at, OP_DIVSI, bin(p, at, OP_SUBI, v, turn->first), turn->step);
    ir_value *parity = bin(p, at, OP_XORI, bin(p, at, OP_ANDI, n, c32(p, at, 1)), turn->other);
    ir_value *wait_ops[2] = {stage_view(p, at, p->order, turn->group), parity};
    build_before(ctx, at, OP_WAIT_BARRIER, 2, wait_ops, NULL);
  }
  /* A stage goes back one position later, its MMAs overlapping the next stage's. Pairs on a ring
   * of three release a stage as soon as the group's MMAs on it are done instead: late, the
   * producer would be only one stage ahead (docs/perf-notes.md, 30). One-step pairs on four
   * stages or more release late too: the producer stays two ahead, and a group that runs alone
   * (a unit of one program, a pass of unshared B) issues back to back: 1024^3 +17%, 3072^3 +7%,
   * larger shapes within 1% (docs/perf-notes.md, 71); so do pairs in clusters: 3072^3 +7%,
   * 4096^3 +5%, 1024^3 +10% (73). Two-step pairs keep eager releases: at f16 no more than three
   * positions fit (eager by the first part of the rule anyway), and no two-step ring of four or
   * more positions has run late. */
  bool eager = p->pairs && (p->stages < GEMMC_PAIRS_MIN_STAGES || p->steps > 1);
  /* The whole positions, then (two steps per stage, an odd trip count) the last one's one step. */
  ir_value *whole = p->steps == 1 ? positions : bin(p, at, OP_DIVSI, ub, c32(p, at, p->steps));
  ir_value *res = consumer_positions(p, at, c32(p, at, 0), whole, p->steps, base, group, init, &map, eager);
  if (p->steps > 1) res = consumer_positions(p, at, whole, positions, 1, base, group, res, &map, eager);
  /* After the K loop: the other group's turn, all MMAs done, the last stage released, then E. */
  if (turn) barrier_op(p, at, OP_ARRIVE_BARRIER, stage_view(p, at, p->order, turn->other), "count", 1, NULL);
  ir_op *done = ir_op_create(ctx, OP_WARP_GROUP_DOT_WAIT, 1, &res, 1, &res->type, 0, loop->loc);
  ir_op_set_attr(ctx, done, "pendings", ir_i32_attr(ctx, 0));
  ir_op_insert_before(at, done);
  if (!eager) {
    ir_value *any = build_cmpi(ctx, at, "sgt", positions, c32(p, at, 0));
    ir_value *last_q = bin(p, at, OP_MAXSI, bin(p, at, OP_SUBI, positions, c32(p, at, 1)), c32(p, at, 0));
    ir_value *last_slot, *last_round;
    ring_position(p, at, base, last_q, &last_slot, &last_round);
    release_stage(p, at, stage_view(p, at, p->empty, last_slot), any);
  }
  ptr_map_put(&map, &loop->results[0], &done->results[0]);
  for (ir_op *op = loop->next; op && !(ir_op_info_of(op->kind)->traits & TRAIT_TERMINATOR); op = op->next) {
    if (!ptr_list_contains(&p->old_ops, op)) continue;
    const ws_store *st = NULL;
    for (int i = 0; i < p->num_stores; i++)
      if (p->stores[i].store == op) st = &p->stores[i];
    if (!st) {
      copy_before(p, at, op, &map);
      continue;
    }
    ir_value *val = ptr_map_get(&map, st->value);
    if (!val) val = st->value;
    ir_value *parts[2] = {val, NULL};
    if (st->chunks == 2) column_halves(p, at, val, op, parts);
    int lead = st->batch_offset >= 0 ? 1 : 0;
    ir_value *copy_ops[5] = {st->desc};
    if (lead) {
      ir_value *m = ptr_map_get(&map, st->batch_index);
      copy_ops[1] = m ? m : st->batch_index;
    }
    for (int dim = 0; dim < 2; dim++) {
      ir_value *start = st->acc.dim[dim].start;
      ir_value *m = start ? ptr_map_get(&map, start) : NULL;
      copy_ops[1 + lead + dim] = start ? (m ? m : start) : c32(p, at, 0);
    }
    copy_ops[3 + lead] = st->buffer;
    ir_value *column = copy_ops[2 + lead];
    for (int c = 0; c < st->chunks; c++) {
      /* The previous copy has read the buffer (the previous tile's, or this tile's first half);
       * the last one goes out behind the next MMAs. */
      store_wait(p, at, op);
      ir_value *ls_ops[2] = {parts[c], st->buffer};
      build_before(ctx, at, OP_LOCAL_STORE, 2, ls_ops, NULL);
      ir_op *fence = ir_op_create(ctx, OP_FENCE_ASYNC_SHARED, 0, NULL, 0, NULL, 0, op->loc);
      ir_op_set_attr(ctx, fence, "bCluster", ir_bool_attr(ctx, false));
      ir_op_insert_before(at, fence);
      int64_t half = st->store->operands[1].value->type->shape[1] / 2;
      copy_ops[2 + lead] = c ? bin(p, at, OP_ADDI, column, c32(p, at, half)) : column;
      build_before(ctx, at, OP_TMA_STORE, 4 + lead, copy_ops, NULL);
    }
  }
  ptr_map_free(&map);
}

/* Copies before `at` of the ops of P a uniform value (the trip count) is made of. */
static ir_value *copy_uniform(ws_plan *p, ir_op *at, ir_value *v) {
  ptr_list slice = {p->ctx, NULL, 0, 0};
  uniform_slice(p, v, &slice);
  ptr_map map = {p->ctx, NULL, 0, 0};
  for (int i = 0; i < slice.count; i++)
    if (ptr_list_contains(&p->old_ops, slice.items[i])) copy_before(p, at, slice.items[i], &map);
  ir_value *copy = ptr_map_get(&map, v);
  ptr_list_free(&slice);
  ptr_map_free(&map);
  return copy ? copy : v;
}

/* Copies before `at` of the ops of P that `need` lists, for program %v (map gets them). */
static void program_copies(ws_plan *p, ir_op *at, ir_value *v, const ptr_list *need, ptr_map *map) {
  map_program_ids(p, at, v, map);
  for (ir_op *op = p->entry->first; op && op != p->loop; op = op->next)
    if (ptr_list_contains(need, op) && op->kind != OP_GET_PROGRAM_ID) copy_before(p, at, op, map);
}

/* `same` and whether two programs read the same values of `leaves` (b_leaves: the same B tiles,
 * a_leaves: A; their maps from program_copies of the leaves' need or more). */
static ir_value *same_leaves(ws_plan *p, ir_op *at, ir_value *same, const ptr_list *leaves, ptr_map *a, ptr_map *b) {
  for (int i = 0; i < leaves->count; i++) {
    ir_value *leaf = leaves->items[i];
    ir_value *x = ptr_map_get(a, leaf), *y = ptr_map_get(b, leaf);
    same = bin(p, at, OP_ANDI, same, build_cmpi(p->ctx, at, "eq", x ? x : leaf, y ? y : leaf));
  }
  return same;
}

/* Pairs: `same` and whether two programs read the same B tiles. */
static ir_value *same_b(ws_plan *p, ir_op *at, ir_value *same, ptr_map *a, ptr_map *b) {
  return same_leaves(p, at, same, &p->b_leaves, a, b);
}

/* Clusters: whether tile %v's partner v ^ 1 (the other block's tile at the same ring positions:
 * the blocks' ids differ in their lowest bit and the worker count is even) exists; *peer (when
 * not NULL) gets it. */
static ir_value *peer_active(ws_plan *p, ir_op *at, ir_value *v, ir_value **peer) {
  ir_value *partner = bin(p, at, OP_XORI, v, c32(p, at, 1));
  if (peer) *peer = partner;
  return bin(p, at, OP_ANDI, p->in_cluster, build_cmpi(p->ctx, at, "slt", partner, p->programs));
}

/* Both blocks of the cluster reach this point before either goes on. */
static void cluster_sync(ws_plan *p, ir_op *at) {
  build_before(p->ctx, at, OP_CLUSTER_ARRIVE, 0, NULL, NULL);
  build_before(p->ctx, at, OP_CLUSTER_WAIT, 0, NULL, NULL);
}

/* Pairs by rows: programs x and x + 1 of a 2-D grid need not share B (tl.swizzle2d's order maps
 * them to different pid_n), while x on rows y and y + 1 may. Every role asks once, from programs
 * 0, 1 and nx: true when 0 and 1 differ in B and 0 and nx agree (and there are two rows), and
 * then pairs the rows (pair_relabel). Run time, not compile time: the tutorial's grouped order
 * shares B between 2u and 2u + 1 for whatever M and N. Measured on an H100: tl.swizzle2d's
 * order with pairs of neighbours in x, every unit two passes one after the other, 265.8 us at
 * 4096^3 against ping-pong's 217.5 (docs/perf-notes.md, 47). NULL (never) when the kernel reads
 * no program id along y: its programs form one row (the tutorial's 1-D grid), and the check would
 * only cost compile time. */
static ir_value *pair_rows_flag(ws_plan *p, ir_op *at) {
  bool reads_y = false;
  for (int i = 0; i < p->pid_ops.count; i++) reads_y |= ir_op_get_int_attr(p->pid_ops.items[i], "axis", 0) == 1;
  if (!reads_y) return NULL;
  ptr_map m[3] = {{p->ctx, NULL, 0, 0}, {p->ctx, NULL, 0, 0}, {p->ctx, NULL, 0, 0}};
  ir_value *prog[3] = {c32(p, at, 0), c32(p, at, 1), p->nx};
  for (int i = 0; i < 3; i++) program_copies(p, at, prog[i], &p->b_need, &m[i]);
  ir_value *yes = build_int_constant(p->ctx, at, 1, 1);
  ir_value *across = same_b(p, at, yes, &m[0], &m[1]), *down = same_b(p, at, yes, &m[0], &m[2]);
  for (int i = 0; i < 3; i++) ptr_map_free(&m[i]);
  ir_value *rows = build_cmpi(p->ctx, at, "sge", p->ny, c32(p, at, 2));
  ir_value *not_across = bin(p, at, OP_XORI, across, yes);
  return bin(p, at, OP_ANDI, rows, bin(p, at, OP_ANDI, not_across, down));
}

/* Program %v's place when the rows are paired: within each x-y plane, the first nx * (ny - ny % 2)
 * programs go in pairs (x, 2j), (x, 2j + 1) at 2u, 2u + 1 with u = j * nx + x; an odd last row keeps
 * its order. A permutation of the programs, so every role computes the same one. */
static ir_value *pair_relabel(ws_plan *p, ir_op *at, ir_value *v, ir_value *rows) {
  ir_value *plane = bin(p, at, OP_MULI, p->nx, p->ny);
  ir_value *z = bin(p, at, OP_DIVSI, v, plane), *w = bin(p, at, OP_REMSI, v, plane);
  ir_value *even_rows = bin(p, at, OP_SUBI, p->ny, bin(p, at, OP_REMSI, p->ny, c32(p, at, 2)));
  ir_value *inside = build_cmpi(p->ctx, at, "slt", w, bin(p, at, OP_MULI, p->nx, even_rows));
  ir_value *u = bin(p, at, OP_DIVSI, w, c32(p, at, 2)), *bit = bin(p, at, OP_REMSI, w, c32(p, at, 2));
  ir_value *x = bin(p, at, OP_REMSI, u, p->nx), *pair_row = bin(p, at, OP_DIVSI, u, p->nx);
  ir_value *row = bin(p, at, OP_ADDI, bin(p, at, OP_MULI, pair_row, c32(p, at, 2)), bit);
  ir_value *paired = bin(p, at, OP_ADDI, x, bin(p, at, OP_MULI, row, p->nx));
  ir_value *sel[3] = {inside, paired, w};
  ir_value *w2 = build_before(p->ctx, at, OP_SELECT, 3, sel, v->type);
  ir_value *moved = bin(p, at, OP_ADDI, bin(p, at, OP_MULI, z, plane), w2);
  ir_value *pick[3] = {rows, moved, v};
  return build_before(p->ctx, at, OP_SELECT, 3, pick, v->type);
}

/* Pairs: the programs of unit %u (v[0], v[1]; v[1] = the program count when the unit has one),
 * whether it has a second, and whether the two read the same B tiles (map[0], map[1] get b_need,
 * or all of what `need` lists, with the program ids of v[g]). `rows`: pair_rows_flag (NULL: no
 * relabeling). map and v point to two each (pointers, not array parameters: GCC's
 * -Wstringop-overflow misjudged the arrays' sizes in sanitizer builds). */
static ir_value *unit_programs(ws_plan *p, ir_op *at, ir_value *u, const ptr_list *need, ir_value *rows, ptr_map *map,
                               ir_value **v, ir_value **second) {
  ir_value *twice = bin(p, at, OP_MULI, u, c32(p, at, 2));
  ir_value *paired = bin(p, at, OP_ORI, p->tail_paired, build_cmpi(p->ctx, at, "slt", u, p->pair_units));
  ir_value *sel0[3] = {paired, twice, bin(p, at, OP_ADDI, u, p->pair_units)};
  v[0] = build_before(p->ctx, at, OP_SELECT, 3, sel0, u->type);
  ir_value *sel1[3] = {paired, bin(p, at, OP_ADDI, twice, c32(p, at, 1)), p->programs};
  v[1] = build_before(p->ctx, at, OP_SELECT, 3, sel1, u->type);
  *second = build_cmpi(p->ctx, at, "slt", v[1], p->programs);
  if (rows) {
    v[0] = pair_relabel(p, at, v[0], rows);
    ir_value *sel2[3] = {*second, pair_relabel(p, at, v[1], rows), v[1]}; /* the program count stays */
    v[1] = build_before(p->ctx, at, OP_SELECT, 3, sel2, u->type);
  }
  for (int g = 0; g < 2; g++) program_copies(p, at, v[g], need, &map[g]);
  return same_b(p, at, *second, &map[0], &map[1]);
}

/* Pairs: ring passes of a unit: one when it shares B or has one program, else one per program. */
static ir_value *unit_passes(ws_plan *p, ir_op *at, ir_value *shared, ir_value *second) {
  ir_value *one = c32(p, at, 1);
  ir_value *sel[3] = {second, c32(p, at, 2), one};
  ir_value *unshared = build_before(p->ctx, at, OP_SELECT, 3, sel, one->type);
  ir_value *sel2[3] = {shared, one, unshared};
  return build_before(p->ctx, at, OP_SELECT, 3, sel2, one->type);
}

/* Pairs in clusters: the unit of slot %s. Slots s and s ^ 1 (the two blocks of a cluster, at the
 * same ring positions) get units u and u ^ d: with i = s / 2, u = (i - i % d) * 2 + (s % 2) * d +
 * i % d (d a power of two). Launched without clusters, slot s is unit s. */
static ir_value *slot_unit(ws_plan *p, ir_op *at, ir_value *s) {
  ir_value *d = p->partner_stride;
  ir_value *i = bin(p, at, OP_DIVSI, s, c32(p, at, 2));
  ir_value *low = bin(p, at, OP_ANDI, i, bin(p, at, OP_SUBI, d, c32(p, at, 1)));
  ir_value *high = bin(p, at, OP_MULI, bin(p, at, OP_SUBI, i, low), c32(p, at, 2));
  ir_value *side = bin(p, at, OP_MULI, bin(p, at, OP_ANDI, s, c32(p, at, 1)), d);
  ir_value *u = bin(p, at, OP_ADDI, high, bin(p, at, OP_ADDI, side, low));
  ir_value *sel[3] = {p->in_cluster, u, s};
  return build_before(p->ctx, at, OP_SELECT, 3, sel, s->type);
}

/* Pairs in clusters, before `at`: the partner stride d, the smallest of 1, 2, 4, 8 for which units 0
 * and d (both existing) read the same A tiles (1 when none does: the units then multicast nothing),
 * and the slots, the units rounded up to a multiple of 2d (launched without clusters: the units). */
static void plan_partners(ws_plan *p, ir_op *at) {
  ir_value *rows = pair_rows_flag(p, at);
  ptr_map first[2] = {{p->ctx, NULL, 0, 0}, {p->ctx, NULL, 0, 0}};
  ir_value *v[2], *second;
  unit_programs(p, at, c32(p, at, 0), &p->a_need, rows, first, v, &second);
  ir_value *d = c32(p, at, 1);
  for (int c = 8; c >= 2; c /= 2) { /* the smallest that agrees is chosen last */
    ptr_map other[2] = {{p->ctx, NULL, 0, 0}, {p->ctx, NULL, 0, 0}};
    ir_value *agree = build_cmpi(p->ctx, at, "slt", c32(p, at, c), p->units);
    unit_programs(p, at, c32(p, at, c), &p->a_need, rows, other, v, &second);
    for (int g = 0; g < 2; g++) agree = same_leaves(p, at, agree, &p->a_leaves, &first[g], &other[g]);
    ir_value *sel[3] = {agree, c32(p, at, c), d};
    d = build_before(p->ctx, at, OP_SELECT, 3, sel, d->type);
    for (int g = 0; g < 2; g++) ptr_map_free(&other[g]);
  }
  for (int g = 0; g < 2; g++) ptr_map_free(&first[g]);
  p->partner_stride = d;
  ir_value *group = bin(p, at, OP_MULI, d, c32(p, at, 2));
  ir_value *up = bin(p, at, OP_ADDI, p->units, bin(p, at, OP_SUBI, group, c32(p, at, 1)));
  ir_value *slots = bin(p, at, OP_MULI, bin(p, at, OP_DIVSI, up, group), group);
  ir_value *sel[3] = {p->in_cluster, slots, p->units};
  p->slots = build_before(p->ctx, at, OP_SELECT, 3, sel, slots->type);
}

/* Pairs: the loops both roles run, over the block's units and over each unit's ring passes. A
 * unit's passes take ring_positions(ub) positions each from `base`, carried from unit to unit,
 * so the producer and the consumer groups find every position's slot and phase alike. */
typedef struct pair_loops {
  ir_value *ub, *positions, *u, *base, *v[2], *second, *shared, *passes, *pass, *pass_base;
  /* Clusters: the passes of this block's own unit (passes: the larger of its and the partner
   * unit's, so that both blocks take the same ring positions; the other pads with passes that
   * carry nothing), and whether both units read the same A tiles in one pass each (multicast).
   * NULL without clusters. */
  ir_value *own_passes, *multicast;
  ir_op *unit_end, *pass_end;
  ptr_map map[2]; /* the unit's two programs: `need` (pair_units_begin) with their program ids */
} pair_loops;

/* The unit loop before `at` and the unit's programs, whether they share B, its pass count; the
 * caller adds what it needs per unit, then pair_passes_begin. */
static void pair_units_begin(ws_plan *p, ir_op *at, const ptr_list *need, pair_loops *w) {
  w->ub = copy_uniform(p, at, p->loop->operands[1].value);
  w->positions = ring_positions(p, at, w->ub);
  ir_value *zero = c32(p, at, 0);
  ir_value *rows = pair_rows_flag(p, at);
  for (int g = 0; g < 2; g++) w->map[g] = (ptr_map){p->ctx, NULL, 0, 0};
  w->own_passes = w->multicast = NULL;
  if (p->cluster != 2) {
    w->unit_end = build_for(p, at, p->start, p->units, p->workers, &w->u, 1, &zero, &w->base, NULL);
    w->shared = unit_programs(p, w->unit_end, w->u, need, rows, w->map, w->v, &w->second);
    w->passes = unit_passes(p, w->unit_end, w->shared, w->second);
    return;
  }
  /* Clusters: slots instead of units; the partner unit's programs and passes too. */
  ir_value *s;
  w->unit_end = build_for(p, at, p->start, p->slots, p->workers, &s, 1, &zero, &w->base, NULL);
  ir_op *e = w->unit_end;
  ir_value *u = slot_unit(p, e, s), *partner = bin(p, e, OP_XORI, u, p->partner_stride);
  ir_value *exists = build_cmpi(p->ctx, e, "slt", u, p->units);
  ir_value *peer = bin(p, e, OP_ANDI, p->in_cluster, build_cmpi(p->ctx, e, "slt", partner, p->units));
  ir_value *none = c32(p, e, 0);
  ir_value *own_unit[3] = {exists, u, none}, *peer_unit[3] = {peer, partner, none};
  w->u = build_before(p->ctx, e, OP_SELECT, 3, own_unit, u->type);
  ptr_list own_need = {p->ctx, NULL, 0, 0};
  ptr_list_append_unique(&own_need, need);
  ptr_list_append_unique(&own_need, &p->a_need);
  w->shared = unit_programs(p, e, w->u, &own_need, rows, w->map, w->v, &w->second);
  ptr_map peer_map[2] = {{p->ctx, NULL, 0, 0}, {p->ctx, NULL, 0, 0}};
  ir_value *peer_v[2], *peer_second;
  ir_value *peer_shared = unit_programs(p, e, build_before(p->ctx, e, OP_SELECT, 3, peer_unit, u->type), &p->a_need,
                                        rows, peer_map, peer_v, &peer_second);
  ir_value *own_sel[3] = {exists, unit_passes(p, e, w->shared, w->second), none};
  w->own_passes = build_before(p->ctx, e, OP_SELECT, 3, own_sel, none->type);
  ir_value *peer_sel[3] = {peer, unit_passes(p, e, peer_shared, peer_second), none};
  w->passes = bin(p, e, OP_MAXSI, w->own_passes, build_before(p->ctx, e, OP_SELECT, 3, peer_sel, none->type));
  ir_value *mc = bin(p, e, OP_ANDI, bin(p, e, OP_ANDI, exists, peer), bin(p, e, OP_ANDI, w->shared, peer_shared));
  for (int g = 0; g < 2; g++) mc = same_leaves(p, e, mc, &p->a_leaves, &w->map[g], &peer_map[g]);
  w->multicast = mc;
  for (int g = 0; g < 2; g++) ptr_map_free(&peer_map[g]);
  ptr_list_free(&own_need);
}

/* The pass loop inside the unit loop, and the pass's first ring position. */
static void pair_passes_begin(ws_plan *p, pair_loops *w) {
  w->pass_end = build_for(p, w->unit_end, c32(p, w->unit_end, 0), w->passes, c32(p, w->unit_end, 1), &w->pass, 0, NULL,
                          NULL, NULL);
  w->pass_base = bin(p, w->pass_end, OP_ADDI, w->base, bin(p, w->pass_end, OP_MULI, w->pass, w->positions));
}

/* The next unit's base: this one's passes have taken passes * positions. */
static void pair_units_end(ws_plan *p, pair_loops *w) {
  ir_value *taken = bin(p, w->unit_end, OP_MULI, w->passes, w->positions);
  ir_op_set_operand(w->unit_end, 0, bin(p, w->unit_end, OP_ADDI, w->base, taken));
  for (int g = 0; g < 2; g++) ptr_map_free(&w->map[g]);
}

/* Pairs, one consumer group: for each pass of each unit, its own program's tile when the pass
 * feeds it, else a wait on every stage of the pass and its release: both groups touch every ring
 * position in order, so neither waits on a barrier more than one phase ahead. */
static void build_pair_consumer(ws_plan *p, ir_op *at, ir_value *group) {
  gemmc_context *ctx = p->ctx;
  pair_loops w;
  pair_units_begin(p, at, &p->b_need, &w);
  ir_value *is_second = build_cmpi(ctx, w.unit_end, "eq", group, c32(p, w.unit_end, 1));
  ir_value *sel[3] = {is_second, w.v[1], w.v[0]};
  ir_value *mine = build_before(ctx, w.unit_end, OP_SELECT, 3, sel, w.u->type);
  pair_passes_begin(p, &w);
  ir_value *active = bin(p, w.pass_end, OP_ORI, w.shared, build_cmpi(ctx, w.pass_end, "eq", w.pass, group));
  /* Clusters: a pass past the unit's own (the partner unit takes more) carries nothing. */
  if (w.own_passes)
    active = bin(p, w.pass_end, OP_ANDI, active, build_cmpi(ctx, w.pass_end, "slt", w.pass, w.own_passes));
  ir_op *then_end, *else_end;
  build_if(p, w.pass_end, active, &then_end, &else_end);
  consumer_tile(p, then_end, mine, NULL, w.pass_base, group, NULL);
  ir_value *q;
  ir_op *k_end = build_for(p, else_end, c32(p, else_end, 0), w.positions, c32(p, else_end, 1), &q, 0, NULL, NULL, NULL);
  ir_value *slot = wait_ring(p, k_end, p->full, w.pass_base, q, false);
  release_stage(p, k_end, stage_view(p, k_end, p->empty, slot), NULL);
  pair_units_end(p, &w);
}

/* The consumer code, once: every consumer group runs it (two groups: the default region and its
 * copy, the group number from gemmc.replica_id), so the groups' differences are values: the first
 * tile, the turn barriers, the epilogue buffer, the operand copies. */
static void build_consumer(ws_plan *p, ir_op *at) {
  gemmc_context *ctx = p->ctx;
  const ir_attr *smem_space = ir_layout_attr(ctx, AT_SHARED_MEMORY, NULL);
  const ir_type *i32 = ir_int_type(ctx, 32);
  ir_value *group = p->groups == 2 ? build_before(ctx, at, OP_REPLICA_ID, 0, NULL, i32) : c32(p, at, 0);
  for (int i = 0; i < p->num_stores; i++) {
    ws_store *st = &p->stores[i];
    const ir_type *t = st->store->operands[1].value->type;
    /* One buffer per group: the groups' epilogues overlap. */
    int64_t shape[3] = {p->groups, t->shape[0], t->shape[1] / st->chunks};
    int rank = p->groups == 2 ? 3 : 2;
    const ir_type *bt = ir_memdesc_type(ctx, rank, shape + 3 - rank, t->elem, st->shared, smem_space, true, 0, NULL);
    st->buffer = build_before(ctx, at, OP_LOCAL_ALLOC, 0, NULL, bt);
    if (rank == 3) st->buffer = stage_view(p, at, st->buffer, group);
  }
  if (p->num_stores) {
    /* The group's last copies are done before its warps leave. */
    store_wait(p, at, at);
    at = at->prev;
  }
  if (p->pairs) {
    build_pair_consumer(p, at, group);
    return;
  }
  ir_value *first = bin(p, at, OP_ADDI, p->start, bin(p, at, OP_MULI, p->workers, group));
  /* Ping-pong: the other group's number (its turn barrier; group 0's parity is flipped by it). */
  ir_value *other = p->groups == 2 ? bin(p, at, OP_SUBI, c32(p, at, 1), group) : NULL;
  ir_value *step = bin(p, at, OP_MULI, p->workers, c32(p, at, p->groups));
  ir_value *v;
  ir_op *tile_end = build_for(p, at, first, p->programs, step, &v, 0, NULL, NULL, NULL);
  ir_value *j = bin(p, tile_end, OP_DIVSI, bin(p, tile_end, OP_SUBI, v, p->start), p->workers);
  ws_turn turn = {first, step, group, other};
  if (p->cluster == 2) p->peer_active = peer_active(p, tile_end, v, NULL);
  consumer_tile(p, tile_end, v, j, NULL, group, p->groups == 2 ? &turn : NULL);
}

/* The operand bytes one program reads per K step (what the producer expects on a stage's full
 * barrier, pairs: on a stage of an unshared pass). */
static int64_t stage_bytes(const ws_plan *p) {
  int64_t bytes = 0;
  for (int l = 0; l < p->num_loads; l++) bytes += p->loads[l].bytes;
  return bytes;
}

/* The part of P that the trip count and the load coordinates read (`need`) and the body ops that
 * compute the coordinates (`coord_ops`). */
static void producer_slices(ws_plan *p, ptr_list *need, ptr_list *coord_ops) {
  ir_op *loop = p->loop;
  local_slice(p->entry, loop->operands[1].value, need, true);
  for (int l = 0; l < p->num_loads; l++)
    for (int i = 1; i < p->loads[l].load->num_operands; i++)
      local_slice(p->body, p->loads[l].load->operands[i].value, coord_ops, false);
  for (int i = 0; i < coord_ops->count; i++) {
    ir_op *op = coord_ops->items[i];
    for (int o = 0; o < op->num_operands; o++) local_slice(p->entry, op->operands[o].value, need, true);
  }
  for (int l = 0; l < p->num_loads; l++)
    for (int i = 1; i < p->loads[l].load->num_operands; i++)
      local_slice(p->entry, p->loads[l].load->operands[i].value, need, true);
}

/* Load l's TMA copy into `buffer` before `at`, its coordinates through `map` (or `other` where
 * `use_other` holds), completing on `full` when `pred` holds; returns the copy. */
static ir_op *tma_copy(ws_plan *p, ir_op *at, int l, ptr_map *map, ptr_map *other, ir_value *use_other, ir_value *full,
                       ir_value *buffer, ir_value *pred) {
  ir_op *load = p->loads[l].load;
  ir_value *ops[4 + IR_MAX_RANK];
  int n = 0;
  ops[n++] = load->operands[0].value;
  for (int i = 1; i < load->num_operands; i++) {
    ir_value *c = load->operands[i].value, *m = ptr_map_get(map, c);
    if (m) c = m;
    if (other) {
      ir_value *o = ptr_map_get(other, load->operands[i].value);
      ir_value *sel[3] = {use_other, o ? o : load->operands[i].value, c};
      c = build_before(p->ctx, at, OP_SELECT, 3, sel, c->type);
    }
    ops[n++] = c;
  }
  ops[n++] = full;
  ops[n++] = buffer;
  ops[n++] = pred;
  build_before(p->ctx, at, OP_TMA_LOAD, n, ops, NULL);
  return at->prev;
}

/* Pairs: the producer streams each unit's passes; a shared pass carries both programs' own
 * operands and one B tile, an unshared one the operands of the program it feeds. */
static void build_pair_producer(ws_plan *p, ir_op *at) {
  gemmc_context *ctx = p->ctx;
  ptr_list need = {ctx, NULL, 0, 0}, coord_ops = {ctx, NULL, 0, 0};
  producer_slices(p, &need, &coord_ops);
  pair_loops w;
  pair_units_begin(p, at, &need, &w);
  ir_value *shared = w.shared;
  ptr_map *map = w.map;
  ir_value *on = build_int_constant(ctx, w.unit_end, 1, 1);
  ir_value *unshared = bin(p, w.unit_end, OP_XORI, shared, on);
  int64_t own = 0, common = p->loads[p->shared_load].bytes;
  for (int l = 0; l < p->num_loads; l++)
    if (l != p->shared_load) own += p->loads[l].bytes;
  pair_passes_begin(p, &w);
  ir_op *pass_end = w.pass_end;
  /* The unit's second pass (unshared) feeds the second program. */
  ir_value *for_second = build_cmpi(ctx, pass_end, "eq", w.pass, c32(p, pass_end, 1));
  ir_value *for_first = bin(p, pass_end, OP_XORI, for_second, on);
  ir_value *second_copy = bin(p, pass_end, OP_ORI, shared, for_second);
  /* Clusters: a pass past the unit's own copies nothing, its stages only arrive; in a unit that
   * shares A with the partner unit this block copies the A tile of its own rank's program into
   * both blocks' rings and the other block the other one. */
  ir_value *live = NULL, *mine[2] = {NULL, NULL};
  if (w.own_passes) {
    live = build_cmpi(ctx, pass_end, "slt", w.pass, w.own_passes);
    shared = bin(p, pass_end, OP_ANDI, shared, live);
    unshared = bin(p, pass_end, OP_ANDI, unshared, live);
    for_first = bin(p, pass_end, OP_ANDI, for_first, live);
    second_copy = bin(p, pass_end, OP_ANDI, second_copy, live);
    for (int g = 0; g < 2; g++) mine[g] = build_cmpi(ctx, pass_end, "eq", p->rank, c32(p, pass_end, g));
  }
  ir_value *q;
  ir_op *k_end = build_for(p, pass_end, c32(p, pass_end, 0), w.positions, c32(p, pass_end, 1), &q, 0, NULL, NULL, NULL);
  ir_value *slot = wait_ring(p, k_end, p->empty, w.pass_base, q, true);
  ir_value *full = stage_view(p, k_end, p->full, slot);
  ir_value *whole = position_whole(p, k_end, q, w.ub);
  expect_stage(p, k_end, full, 2 * own + common, shared, whole);
  expect_stage(p, k_end, full, own + common, unshared, whole);
  if (live) expect_stage(p, k_end, full, 0, bin(p, k_end, OP_XORI, live, on), whole);
  ir_value *group1 = NULL, *group0 = NULL;
  for (int s = 0; s < p->steps; s++) {
    ir_value *k = position_step(p, k_end, q, s);
    for (int g = 0; g < 2; g++) {
      ptr_map_put(&map[g], p->body->args[0], k);
      for (ir_op *op = p->body->first; op; op = op->next)
        if (ptr_list_contains(&coord_ops, op)) copy_before(p, k_end, op, &map[g]);
    }
    if (s == 0) group1 = c32(p, k_end, 1), group0 = c32(p, k_end, 0);
    /* A step past the trip count (the odd tail's second) copies nothing. */
    ir_value *present = s == 0 ? (live ? live : on) : live ? bin(p, k_end, OP_ANDI, live, whole) : whole;
    ir_value *first_copy = s == 0 ? for_first : bin(p, k_end, OP_ANDI, for_first, whole);
    ir_value *second = s == 0 ? second_copy : bin(p, k_end, OP_ANDI, second_copy, whole);
    for (int l = 0; l < p->num_loads; l++) {
      if (l == p->shared_load) {
        tma_copy(p, k_end, l, &map[0], &map[1], for_second, full, operand_view(p, k_end, l, slot, group0, s), present);
        continue;
      }
      ir_value *copies[2] = {first_copy, second}, *groups[2] = {group0, group1};
      for (int g = 0; g < 2; g++) {
        ir_value *buffer = operand_view(p, k_end, l, slot, groups[g], s);
        if (!w.multicast) {
          tma_copy(p, k_end, l, &map[g], NULL, NULL, full, buffer, copies[g]);
          continue;
        }
        ir_value *alone = bin(p, k_end, OP_XORI, w.multicast, on);
        tma_copy(p, k_end, l, &map[g], NULL, NULL, full, buffer, bin(p, k_end, OP_ANDI, copies[g], alone));
        ir_value *both = bin(p, k_end, OP_ANDI, copies[g], bin(p, k_end, OP_ANDI, w.multicast, mine[g]));
        ir_op *copy = tma_copy(p, k_end, l, &map[g], NULL, NULL, full, buffer, both);
        ir_op_set_attr(ctx, copy, "gemmc.multicast_whole", ir_bool_attr(ctx, true));
      }
    }
  }
  pair_units_end(p, &w);
  ptr_list_free(&need);
  ptr_list_free(&coord_ops);
}

static void build_producer(ws_plan *p, ir_op *at) {
  gemmc_context *ctx = p->ctx;
  ir_value *v;
  ir_op *tile_end = build_for(p, at, p->start, p->programs, p->workers, &v, 0, NULL, NULL, NULL);
  ptr_map map = {ctx, NULL, 0, 0};
  ir_value *j = bin(p, tile_end, OP_DIVSI, bin(p, tile_end, OP_SUBI, v, p->start), p->workers);
  map_program_ids(p, tile_end, v, &map);
  ir_op *loop = p->loop;
  ptr_list need = {ctx, NULL, 0, 0}, coord_ops = {ctx, NULL, 0, 0};
  producer_slices(p, &need, &coord_ops);
  for (ir_op *op = p->entry->first; op && op != loop; op = op->next)
    if (ptr_list_contains(&need, op) && op->kind != OP_GET_PROGRAM_ID) copy_before(p, tile_end, op, &map);
  ir_value *ub = ptr_map_get(&map, loop->operands[1].value);
  if (!ub) ub = loop->operands[1].value;
  ir_value *positions = ring_positions(p, tile_end, ub);
  ir_value *base = bin(p, tile_end, OP_MULI, j, positions);
  /* Clusters: B goes to both blocks' rings in halves when both tiles read the same B tile. */
  ir_value *multicast = NULL;
  if (p->cluster == 2) {
    ir_value *peer;
    ir_value *active = peer_active(p, tile_end, v, &peer);
    ptr_map peer_map = {ctx, NULL, 0, 0};
    program_copies(p, tile_end, peer, &p->b_need, &peer_map);
    multicast = same_b(p, tile_end, active, &map, &peer_map);
    ptr_map_free(&peer_map);
  }
  ir_value *q;
  ir_op *k_end = build_for(p, tile_end, c32(p, tile_end, 0), positions, c32(p, tile_end, 1), &q, 0, NULL, NULL, NULL);
  ir_value *slot = wait_ring(p, k_end, p->empty, base, q, true);
  ir_value *full = stage_view(p, k_end, p->full, slot);
  ir_value *on = build_int_constant(ctx, k_end, 1, 1);
  ir_value *whole = position_whole(p, k_end, q, ub);
  expect_stage(p, k_end, full, stage_bytes(p), on, whole);
  for (int s = 0; s < p->steps; s++) {
    ptr_map_put(&map, p->body->args[0], position_step(p, k_end, q, s));
    for (ir_op *op = p->body->first; op; op = op->next)
      if (ptr_list_contains(&coord_ops, op)) copy_before(p, k_end, op, &map);
    /* A step past the trip count (the odd tail's second) copies nothing. */
    ir_value *present = s == 0 ? on : whole;
    for (int l = 0; l < p->num_loads; l++) {
      ir_value *buffer = operand_view(p, k_end, l, slot, NULL, s);
      if (!multicast || l != p->shared_load) {
        tma_copy(p, k_end, l, &map, NULL, NULL, full, buffer, present);
        continue;
      }
      tma_copy(p, k_end, l, &map, NULL, NULL, full, buffer,
               bin(p, k_end, OP_ANDI, present, bin(p, k_end, OP_XORI, multicast, on)));
      ir_op *half = tma_copy(p, k_end, l, &map, NULL, NULL, full, buffer, bin(p, k_end, OP_ANDI, present, multicast));
      ir_op_set_attr(ctx, half, "gemmc.multicast", ir_bool_attr(ctx, true));
    }
  }
  ptr_list_free(&need);
  ptr_list_free(&coord_ops);
  ptr_map_free(&map);
}

/* Partitions see outer values only through block arguments: every outer value a partition uses
 * becomes a captured operand (all partitions take all of them). */
typedef struct capture_walk {
  const ir_op *ws;
  ptr_list *values;
} capture_walk;

static bool defined_inside(const ir_value *v, const ir_op *ws) {
  const ir_op *def = v->def_op ? v->def_op : block_arg_owner(v);
  for (const ir_op *q = def; q; q = ir_op_parent_op(q))
    if (q == ws) return true;
  return false;
}

static bool collect_captures(ir_op *op, void *user) {
  capture_walk *w = user;
  for (int i = 0; i < op->num_operands; i++)
    if (!defined_inside(op->operands[i].value, w->ws)) ptr_list_push_unique(w->values, op->operands[i].value);
  return true;
}

static void isolate_partitions(ws_plan *p, ir_op *ws) {
  ptr_list values = {p->ctx, NULL, 0, 0};
  capture_walk w = {ws, &values};
  for (int r = 1; r < ws->num_regions; r++)
    for (ir_op *op = ws->regions[r].first->first; op; op = op->next) ir_walk(op, collect_captures, &w);
  for (int i = 0; i < values.count; i++) ir_op_add_operand(p->ctx, ws, values.items[i]);
  for (int r = 1; r < ws->num_regions; r++) {
    ir_block *b = ws->regions[r].first;
    for (int i = 0; i < values.count; i++) {
      ir_value *outer = values.items[i];
      ir_value *arg = ir_block_add_arg(p->ctx, b, outer->type, NULL);
      /* Uses of the outer value inside this region move to the argument. */
      for (ir_operand *u = outer->first_use, *next; u; u = next) {
        next = u->next_use;
        ir_op *q = u->owner;
        while (q && q->parent != b) q = ir_op_parent_op(q);
        if (q) ir_op_set_operand(u->owner, u->index, arg);
      }
    }
  }
  ptr_list_free(&values);
}

/* The block's linear id over the launch grid (x fastest) before `at`; *programs (or NULL) gets
 * the grid's block count and *nx, *ny (or NULL) its x and y sizes. */
static ir_value *linear_block_id(ws_plan *p, ir_op *at, ir_value **programs, ir_value **nx, ir_value **ny) {
  gemmc_context *ctx = p->ctx;
  const ir_type *i32 = ir_int_type(ctx, 32);
  ir_value *ids[3], *counts[3];
  for (int a = 0; a < 3; a++) {
    ir_op *pid = ir_op_create(ctx, OP_GET_PROGRAM_ID, 0, NULL, 1, &i32, 0, at->loc);
    ir_op_set_attr(ctx, pid, "axis", ir_i32_attr(ctx, a));
    ir_op_insert_before(at, pid);
    ids[a] = &pid->results[0];
    ir_op *num = ir_op_create(ctx, OP_GET_NUM_PROGRAMS, 0, NULL, 1, &i32, 0, at->loc);
    ir_op_set_attr(ctx, num, "axis", ir_i32_attr(ctx, a));
    ir_op_insert_before(at, num);
    counts[a] = &num->results[0];
  }
  ir_value *nxy = bin(p, at, OP_MULI, counts[0], counts[1]);
  if (programs) *programs = bin(p, at, OP_MULI, nxy, counts[2]);
  if (nx) *nx = counts[0];
  if (ny) *ny = counts[1];
  return bin(p, at, OP_ADDI, ids[0], bin(p, at, OP_ADDI, bin(p, at, OP_MULI, ids[1], counts[0]), bin(p, at, OP_MULI, ids[2], nxy)));
}

/* The launch has a block per program, but only the first W work: the others wait for an SM
 * (each needs the whole shared memory) and should leave at once, before building descriptors,
 * barriers and rings. Everything after `working`'s computation (at the function's top) goes under
 * `scf.if %working`. */
static void skip_idle_blocks(ws_plan *p, ir_value *working) {
  ir_op *term = ir_block_terminator(p->entry), *first = working->def_op->next;
  ir_op *then_end, *else_end;
  build_if(p, term, working, &then_end, &else_end);
  ir_op *if_op = term->prev;
  for (ir_op *op = first, *next; op != if_op; op = next) {
    next = op->next;
    ir_op_unlink(op);
    ir_op_insert_before(then_end, op);
  }
}

/* Programmatic dependent launch: whether `op`, outside the warp_specialize op, may touch global
 * memory: a memory op that takes a pointer or a tensor descriptor (shared-memory ops take memdescs
 * and barriers), printing and assertions (the printf buffer), inline assembly (anything). */
static bool reaches_global(const ir_type *t) {
  return t->kind == TY_PTR || t->kind == TY_TENSORDESC || (t->kind == TY_TENSOR && t->elem->kind == TY_PTR);
}

static bool touches_global_memory(const ir_op *op) {
  if (op->kind == OP_ELEMENTWISE_INLINE_ASM || op->kind == OP_PRINT || op->kind == OP_ASSERT) return true;
  if (!(ir_op_info_of(op->kind)->traits & (TRAIT_READS_MEMORY | TRAIT_WRITES_MEMORY))) return false;
  for (int i = 0; i < op->num_operands; i++)
    if (reaches_global(op->operands[i].value->type)) return true;
  return false;
}

typedef struct global_outside {
  const ir_op *ws;
  bool found;
} global_outside;

static bool find_global_outside(ir_op *op, void *user) {
  global_outside *g = user;
  /* The roles run after the wait. */
  if (op != g->ws && ir_op_ancestor_of_kind(op, OP_WARP_SPECIALIZE) != g->ws && touches_global_memory(op))
    g->found = true;
  return !g->found;
}

/* The kernel may let its successor start early and wait for its predecessor just before the
 * roles (gemmc.programmatic_launch, lowered to griddepcontrol): what comes before them (slot
 * claim, tensor maps, rings, barriers) reads only arguments and writes only this block's shared
 * memory and the kernel's own slots, so a launch behind another grid builds them while that grid
 * is still running. Every global access of the kernel must be inside the roles. */
static void allow_programmatic_launch(ws_plan *p, ir_op *ws) {
  global_outside g = {ws, false};
  ir_walk(p->func, find_global_outside, &g);
  if (!g.found) ir_op_set_attr(p->ctx, ws, "gemmc.programmatic_launch", ir_bool_attr(p->ctx, true));
}

static void rewrite(ws_plan *p) {
  gemmc_context *ctx = p->ctx;
  ir_op *term = ir_block_terminator(p->entry);
  /* Everything but the descriptors and the return is rebuilt per role. */
  for (ir_op *op = p->entry->first; op && op != term; op = op->next)
    if (!ptr_list_contains(&p->hoist, op)) {
      ptr_list_push(&p->old_ops, op);
      ir_walk(op, collect_program_ids, &p->pid_ops);
    }
  ir_op *top = p->entry->first;
  for (int i = 0; i < p->hoist.count; i++) {
    ir_op *op = p->hoist.items[i];
    if (op == top) {
      top = op->next;
      continue;
    }
    ir_op_unlink(op);
    ir_op_insert_before(top, op);
  }
  /* The epilogue stores' descriptors join the run of the loads' ones. */
  for (int i = 0; i < p->num_stores; i++) {
    ws_store *st = &p->stores[i];
    const ir_type *t = st->store->operands[1].value->type;
    ir_value *base = st->acc.base;
    for (int k = 0; k < st->acc.num_offsets; k++) {
      if (k == st->batch_offset) continue;
      const tile_coef *cf = &st->acc.offsets[k];
      ir_value *v = build_int_constant(ctx, top, cf->c, 64);
      for (int f = 0; f < cf->n; f++) {
        ir_value *x = cf->f[f];
        if (!ir_type_is_int(x->type, 64)) x = build_before(ctx, top, OP_EXTSI, 1, &x, ir_int_type(ctx, 64));
        v = bin(p, top, OP_MULI, v, x);
      }
      ir_value *ops[2] = {base, v};
      base = build_before(ctx, top, OP_ADDPTR, 2, ops, base->type);
    }
    bool batched = st->batch_offset >= 0;
    int rank = batched ? 3 : 2, lead = batched ? 1 : 0;
    ir_value *operands[7];
    operands[0] = base;
    for (int d = 0; d < 2; d++)
      operands[1 + lead + d] =
          st->acc.dim[d].bound ? st->acc.dim[d].bound : build_int_constant(ctx, top, INT32_MAX, 32);
    ir_value *strides[3];
    const tile_coef *coefs[2] = {&st->batch_stride, &st->acc.dim[0].stride};
    for (int k = batched ? 0 : 1; k < 2; k++) {
      const tile_coef *sc = coefs[k];
      ir_value *stride = build_int_constant(ctx, top, sc->c, 64);
      for (int f = 0; f < sc->n; f++) {
        ir_value *x = sc->f[f];
        if (!ir_type_is_int(x->type, 64)) x = build_before(ctx, top, OP_EXTSI, 1, &x, ir_int_type(ctx, 64));
        stride = bin(p, top, OP_MULI, stride, x);
      }
      strides[k] = stride;
    }
    if (batched) {
      operands[1] = st->batch_bound ? st->batch_bound : build_int_constant(ctx, top, INT32_MAX, 32);
      operands[1 + rank] = strides[0];
    }
    operands[1 + rank + lead] = strides[1];
    operands[1 + rank + lead + 1] = build_int_constant(ctx, top, 1, 64);
    int64_t shape[3] = {1, t->shape[0], t->shape[1] / st->chunks};
    const ir_type *dt = ir_tensordesc_type(ctx, rank, batched ? shape : shape + 1, t->elem, st->shared);
    st->desc = build_before(ctx, top, OP_MAKE_TENSOR_DESC, 1 + 2 * rank, operands, dt);
  }
  ir_op *at = term;
  for (int l = 0; l < p->num_loads; l++) {
    /* The operand's shape (a descriptor may add a leading batch dim of size 1). */
    const ir_type *d = p->loads[l].alloc->results[0].type;
    int64_t slots = (int64_t)p->stages * ring_copies(p, l) * p->steps;
    p->loads[l].ring = alloc_ring(p, at, slots, d->rank, d->shape, d->elem, d->encoding);
  }
  int order0 = 0;
  int64_t one = 1;
  const ir_attr *plain = layout_swizzled_shared_get(ctx, 1, 1, 1, 1, &order0);
  p->full = alloc_ring(p, at, p->stages, 1, &one, ir_int_type(ctx, 64), plain);
  p->empty = alloc_ring(p, at, p->stages, 1, &one, ir_int_type(ctx, 64), plain);
  for (int s = 0; s < p->stages; s++) {
    barrier_op(p, at, OP_INIT_BARRIER, stage_view(p, at, p->full, c32(p, at, s)), "count", 1, NULL);
    /* Every warpgroup that reads a stage releases it (pairs: both groups read every stage). */
    barrier_op(p, at, OP_INIT_BARRIER, stage_view(p, at, p->empty, c32(p, at, s)), "count",
               (p->pairs ? 2 : p->warps / 4) * p->cluster, NULL);
  }
  if (p->cluster == 2) {
    /* The other block arrives on these barriers and multicasts into this ring: both blocks'
     * barriers exist before either starts. */
    build_before(ctx, at, OP_FENCE_MBARRIER_INIT, 0, NULL, NULL);
    cluster_sync(p, at);
  }
  if (p->groups == 2 && !p->pairs) {
    int64_t two[2] = {2, 1};
    const ir_attr *smem = ir_layout_attr(ctx, AT_SHARED_MEMORY, NULL);
    const ir_type *t = ir_memdesc_type(ctx, 2, two, ir_int_type(ctx, 64), plain, smem, true, 0, NULL);
    p->order = build_before(ctx, at, OP_LOCAL_ALLOC, 0, NULL, t);
    for (int g = 0; g < 2; g++)
      barrier_op(p, at, OP_INIT_BARRIER, stage_view(p, at, p->order, c32(p, at, g)), "count", p->warps / 4, NULL);
  }
  /* Linear block id, program count, workers, at the function's top: a block at or past the
   * workers skips the rest (skip_idle_blocks), so a working block's first tile is its id. */
  const ir_type *i32 = ir_int_type(ctx, 32);
  ir_op *first = p->entry->first;
  ir_value *linear = linear_block_id(p, first, &p->programs, &p->nx, &p->ny);
  p->workers = build_before(ctx, first, OP_NUM_WORKERS, 0, NULL, i32);
  if (p->cluster == 2) {
    /* In clusters of two the workers come in whole clusters: blocks 2c and 2c + 1 both work or
     * both leave, and their tiles stay partners (v, v ^ 1) from round to round. */
    ir_value *size = build_before(ctx, first, OP_CLUSTER_SIZE, 0, NULL, i32);
    p->in_cluster = build_cmpi(ctx, first, "eq", size, c32(p, first, 2));
    ir_value *even = bin(p, first, OP_ANDI, p->workers, c32(p, first, -2));
    ir_value *sel[3] = {p->in_cluster, even, p->workers};
    p->workers = build_before(ctx, first, OP_SELECT, 3, sel, i32);
    /* Pairs' slots run past the units (to a multiple of 2d) and every slot needs a block: no
     * more workers than blocks launched (a grid smaller than the SM count; even in clusters). */
    if (p->pairs) p->workers = bin(p, first, OP_MINSI, p->workers, p->programs);
  }
  ir_value *working = build_cmpi(ctx, first, "slt", linear, p->workers);
  p->start = linear;
  if (p->pairs) {
    /* Whole waves of pair units (2W programs each) first; a tail of more than W programs in
     * pairs too (each block gets one unit at most), a shorter one (all programs when there are no
     * more than W) one program per unit: pairing it would leave SMs idle while others run two
     * (3072^3: 0.93x ping-pong with the tail in pairs). */
    ir_value *two_waves = bin(p, first, OP_MULI, p->workers, c32(p, first, 2));
    p->pair_units = bin(p, first, OP_MULI, bin(p, first, OP_DIVSI, p->programs, two_waves), p->workers);
    ir_value *tail = bin(p, first, OP_SUBI, p->programs, bin(p, first, OP_MULI, p->pair_units, c32(p, first, 2)));
    p->tail_paired = build_cmpi(ctx, first, "sgt", tail, p->workers);
    ir_value *halves = bin(p, first, OP_DIVSI, bin(p, first, OP_ADDI, p->programs, c32(p, first, 1)), c32(p, first, 2));
    ir_value *sel[3] = {p->tail_paired, halves, bin(p, first, OP_ADDI, p->pair_units, tail)};
    p->units = build_before(ctx, first, OP_SELECT, 3, sel, i32);
  }

  if (p->cluster == 2 && gemmc_ws_cluster_shares_a(p->warps)) {
    plan_partners(p, at);
    p->rank = bin(p, at, OP_ANDI, p->start, c32(p, at, 1)); /* the grid's x is even in clusters */
    /* Every stage goes back to both blocks whenever launched in clusters: the other block's
     * producer may multicast into this ring at any position, so it waits for this block's
     * releases too. */
    p->peer_active = p->in_cluster;
  }

  int nregions = 1 + 1 + (p->groups - 1);
  ir_op *ws = ir_op_create(ctx, OP_WARP_SPECIALIZE, 0, NULL, 0, NULL, nregions, at->loc);
  int64_t part_warps[2] = {PRODUCER_WARPS, p->warps};
  ir_op_set_attr(ctx, ws, "partitionNumWarps", ir_dense_int_array_attr(ctx, i32, nregions - 1, part_warps));
  int64_t regs[3] = {CONSUMER_REGISTERS, PRODUCER_REGISTERS, CONSUMER_REGISTERS};
  ir_op_set_attr(ctx, ws, "actualRegisters", ir_dense_int_array_attr(ctx, i32, nregions, regs));
  ir_op_insert_before(at, ws);
  ir_op *ends[3];
  for (int r = 0; r < nregions; r++) {
    ir_block *b = ir_block_create(ctx);
    ir_region_append_block(&ws->regions[r], b);
    ends[r] = ir_op_create(ctx, r == 0 ? OP_WARP_YIELD : OP_WARP_RETURN, 0, NULL, 0, NULL, 0, at->loc);
    ir_block_append_op(b, ends[r]);
  }
  build_consumer(p, ends[0]);
  if (p->pairs) build_pair_producer(p, ends[1]);
  else build_producer(p, ends[1]);
  if (p->groups == 2) { /* partition 1: the second consumer group runs the default region's code */
    int64_t copy_of[2] = {0, 1};
    ir_op_set_attr(ctx, ws, "gemmc.replica_of_default", ir_dense_int_array_attr(ctx, i32, 2, copy_of));
  }
  if (p->cluster == 2) {
    /* Neither block leaves while the other may still arrive on its barriers. */
    cluster_sync(p, at);
  }
  isolate_partitions(p, ws);
  for (int i = p->old_ops.count - 1; i >= 0; i--) ir_op_erase(p->old_ops.items[i]);
  skip_idle_blocks(p, working);
  /* The copies of P and E keep what only the replaced stores used (conversions, pointers). */
  erase_dead_pure_ops(ctx, p->func);
  allow_programmatic_launch(p, ws);
}

/* Consumer groups: ping-pong kernels have two (one warpgroup each), cooperative ones one. */
static int consumer_groups(int warps) { return warps == GEMMC_WS_PING_PONG_WARPS ? 2 : 1; }

/* Pairs by default: measured 1.02-1.05x ping-pong at 3072^3-8192^3 and 1.05-1.07x at 2048^3 (f16,
 * bf16, the tutorial 128x128x64 w4; 1.03x on the seed's batched 16 x 4096^3), 0.90x at 1024^3,
 * where a block has one program and its single group then ran on a ring of three stages with
 * eager releases (docs/perf-notes.md, 29; four stages since entry 67, late releases since 71:
 * 1024^3 +17% over the eager four-stage kernel). */
bool gemmc_warp_specialized_pairs(int mode) {
  return mode == GEMMC_WS_MODE_PAIRS || mode == GEMMC_WS_MODE_DEFAULT || mode == GEMMC_WS_MODE_ON;
}

bool gemmc_ws_programmatic_launch(const ir_op *ws) {
  return ws->kind == OP_WARP_SPECIALIZE && ir_op_get_attr(ws, "gemmc.programmatic_launch") != NULL;
}

static bool not_programmatic(ir_op *op, void *user) {
  (void)user;
  return !gemmc_ws_programmatic_launch(op);
}

bool gemmc_kernel_programmatic_launch(ir_op *func) { return !ir_walk(func, not_programmatic, NULL); }

bool gemmc_ws_cooperative_wanted(const gemmc_pass_context *pc, const ir_op *loop) {
  return pc->warp_specialize != GEMMC_WS_MODE_DEFAULT || pc->cluster_size == 2 ||
         (loop && ir_op_get_attr(loop, "tt.warp_specialize"));
}

/* Stages that fit beside the epilogue's scratch (every consumer group has its own). Buffers made
 * inside a ttg.warp_specialize live for the whole op (lib/analysis/allocation.c), so the
 * epilogue's buffers are all alive together: their sizes add up. */
static int ring_stages(const gemmc_pass_context *pc, const ir_op *loop, int warps, int64_t stage_bytes,
                       int64_t shared_bytes, bool pairs, int64_t relief, int *steps) {
  int groups = consumer_groups(warps);
  int wanted = scf_for_num_stages(loop, pc->num_stages);
  *steps = 1;
  if (groups == 2) {
    /* Too few bytes per K step (128x128x32 f16: 16 KiB): a stage takes two steps. */
    if (stage_bytes < GEMMC_PING_PONG_MIN_STAGE_BYTES) *steps = 2;
    if (*steps * stage_bytes < GEMMC_PING_PONG_MIN_STAGE_BYTES) return 0;
    if (!pairs && wanted < GEMMC_PING_PONG_MIN_STAGES) wanted = GEMMC_PING_PONG_MIN_STAGES;
    /* The kernel's num_stages is a default; a loop's own (tl.range(..., num_stages=N)) is kept. */
    bool own_depth = scf_for_num_stages(loop, INT_MIN) != INT_MIN;
    if (pairs && *steps == 1 && !own_depth && wanted < GEMMC_PAIRS_MIN_STAGES)
      wanted = GEMMC_PAIRS_MIN_STAGES;
  }
  int64_t max_shared = pc->max_shared > 0 ? pc->max_shared : pc->target ? pc->target->shared_mem_per_block : 0;
  int64_t per_stage = 16 + *steps * (pairs ? 2 * stage_bytes - shared_bytes : stage_bytes);
  int64_t scratch = 0;
  for (const ir_op *op = loop->next; op; op = op->next) {
    int64_t b = gemmc_allocation_scratch_bytes(op);
    if (op->kind == OP_LOCAL_ALLOC && op->num_results) b = ir_type_num_elements(op->results[0].type) * 4;
    scratch += (b + 15) / 16 * 16;
  }
  /* relief: the bytes per group that epilogue stores going out in column halves save. */
  scratch = scratch > relief ? scratch - relief : 0;
  int64_t budget = max_shared - groups * scratch - 2048;
  int s = wanted;
  while (s >= 2 && s * per_stage > budget) s--;
  return s;
}

/* Epilogue stores whose tiles split into column halves in registers go out in halves through
 * half the buffer when that frees room for more ring stages: the pairs kernel with f32 or i32
 * outputs gets 3 stages instead of 2, and one-step pairs with f16 outputs 4 instead of 3 (measured
 * on an H100: 128x128x64 w4 +4% at 4096^3, 8192^3 and 16 x 4096^3 with f32 outputs; +4% at
 * 4096^3-8192^3 with f16, perf-notes 67). The second half's copy waits for
 * the first's to have read the buffer. Two-step kernels (128x128x32) keep 3 whole-tile stages
 * when they have them: their fourth stage measured -1 to -2% on the seed's batched shape
 * (docs/perf-notes.md, 35). */
static void plan_store_halves(const gemmc_pass_context *pc, ws_plan *p) {
  if (p->steps > 1 && p->stages >= 3) return;
  int64_t relief = 0;
  for (int i = 0; i < p->num_stores; i++)
    if (p->stores[i].halves_in_registers) relief += ir_type_num_bytes(p->stores[i].store->operands[1].value->type) / 2;
  if (!relief || p->stages < 1) return;
  int steps;
  int stages =
      ring_stages(pc, p->loop, p->warps, stage_bytes(p), p->loads[p->shared_load].bytes, p->pairs, relief, &steps);
  if (stages <= p->stages || steps != p->steps) return;
  p->stages = stages;
  for (int i = 0; i < p->num_stores; i++) {
    ws_store *st = &p->stores[i];
    if (!st->halves_in_registers) continue;
    const ir_type *t = st->store->operands[1].value->type;
    int64_t half[2] = {t->shape[0], t->shape[1] / 2};
    int order[2] = {1, 0};
    st->shared = layout_nvmma_shared_get(p->ctx, 2, half, order, (int)ir_type_bits(ir_type_element(t)), false);
    st->chunks = 2;
  }
}

int gemmc_warp_specialized_stages(const gemmc_pass_context *pc, const ir_op *loop, int warps, int64_t stage_bytes,
                                  int64_t shared_bytes) {
  bool pairs = consumer_groups(warps) == 2 && gemmc_warp_specialized_pairs(pc->warp_specialize);
  int steps;
  return ring_stages(pc, loop, warps, stage_bytes, shared_bytes, pairs, 0, &steps);
}

bool gemmc_pass_warp_specialize(const gemmc_pass_context *pc, ir_op *module) {
  gemmc_context *ctx = pc->ctx;
  if (!pc->warp_specialize || !pc->target || !(pc->target->caps & GEMMC_CAP_SETMAXNREG) ||
      !(pc->target->caps & GEMMC_CAP_TMA))
    return true;
  int warps = (int)ir_module_int_attr(module, "ttg.num-warps", 4);
  if (!gemmc_warp_specialized_warps(warps, pc->warp_specialize)) return true;
  ir_block *mb = ir_region_entry(&module->regions[0]);
  for (ir_op *func = mb ? mb->first : NULL; func; func = func->next) {
    if (func->kind != OP_FUNC || !ir_region_entry(&func->regions[0])) continue;
    ws_plan p;
    memset(&p, 0, sizeof p);
    p.ctx = ctx;
    p.func = func;
    p.entry = ir_region_entry(&func->regions[0]);
    p.hoist.ctx = p.old_ops.ctx = p.pid_ops.ctx = ctx;
    p.warps = warps;
    p.tma_align = gemmc_target_tma_alignment(pc->target);
    p.groups = consumer_groups(warps);
    p.pairs = p.groups == 2 && gemmc_warp_specialized_pairs(pc->warp_specialize);
    p.b_leaves.ctx = p.b_need.ctx = ctx;
    p.a_leaves.ctx = p.a_need.ctx = ctx;
    p.cluster = pc->cluster_size == 2 && (p.groups == 1 || p.pairs) ? 2 : 1;
    if (plan(&p)) {
      p.axis = axis_info_run(ctx, module);
      if (p.axis) plan_stores(&p);
      p.stages = ring_stages(pc, p.loop, warps, stage_bytes(&p), p.loads[p.shared_load].bytes, p.pairs, 0, &p.steps);
      plan_store_halves(pc, &p);
      if (p.stages >= 2) {
        rewrite(&p);
        if (p.cluster == 2) ir_op_set_attr(ctx, module, "gemmc.cluster-size", ir_i32_attr(ctx, 2));
      }
      if (p.axis) axis_info_free(p.axis);
    }
    ptr_list_free(&p.hoist);
    ptr_list_free(&p.old_ops);
    ptr_list_free(&p.pid_ops);
    ptr_list_free(&p.b_leaves);
    ptr_list_free(&p.b_need);
    ptr_list_free(&p.a_leaves);
    ptr_list_free(&p.a_need);
  }
  return true;
}

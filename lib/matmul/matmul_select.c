/* gemmc_matmul's analytical model: ranks the config table's rows (and split-K factors) for a problem from tile waves, tensor-core throughput and memory traffic. */
#include "matmul_internal.h"
#include "gemmc/passes.h"

#include <math.h>
#include <string.h>

static const matmul_machine *machine_for(int cc) {
  for (int i = 0; i < matmul_num_machines; i++)
    if (cc >= matmul_machines[i].min_cc && cc <= matmul_machines[i].max_cc) return &matmul_machines[i];
  return &matmul_machines[matmul_num_machines - 1];
}

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int device_cc(const gemmc_device_info *dev) {
  return dev ? dev->compute_capability_major * 10 + dev->compute_capability_minor : 90;
}

int mm_config_find(const char *name) {
  for (int i = 0; name && i < matmul_num_configs; i++)
    if (!strcmp(matmul_configs[i].name, name)) return i;
  return -1;
}

static int acc_bytes(const mm_problem *p) { return p->acc == MM_ACC_F16 ? 2 : 4; }

uint64_t mm_split_workspace_bytes(const mm_problem *p, int split) {
  if (split <= 1) return 0;
  return (uint64_t)split * (uint64_t)p->batch * (uint64_t)p->M * (uint64_t)p->N * (uint64_t)acc_bytes(p);
}

bool mm_config_is_tail_split(const matmul_config *c) { return !strcmp(c->template_name, "gemm_tail_split.tir"); }

static double device_sms(const gemmc_device_info *dev) {
  return dev && dev->multiprocessor_count > 0 ? dev->multiprocessor_count : 132;
}

/* Row c's output tiles over p's batch. */
static int64_t tile_count(const mm_problem *p, const matmul_config *c) {
  return cdiv(p->M, c->block_m) * cdiv(p->N, c->block_n) * p->batch;
}

/* K steps of each of `split` parts of a tile's K loop; K = 0 still has one (the epilogue). */
static int64_t k_steps_per_split(const mm_problem *p, const matmul_config *c, int split) {
  int64_t steps = cdiv(cdiv(p->K, c->block_k), split);
  return steps > 0 ? steps : 1;
}

/* The efficiency of row c for p (below). */
static double efficiency_of(const matmul_config *c, const mm_problem *p);

/*
 * The model's time for a tail-split row's shape k (seconds, before the launch and memory terms).
 * The shared segments take the first slots; whole tiles go to the other slots and to each slot a
 * segment frees, in rounds of `slots` tiles, so the last round ends one segment after the
 * tiles' waves: segment + waves * tile, where a segment is ceil(k_steps / ways) K steps plus its
 * owner's fixup (ways - 1 partial tiles read after one is written, at about twice one SM's share
 * of the L2 bandwidth: fitted on 1024 x 1024 x 8192, H100, perf-notes 63). Every block after a
 * slot's first pays the machine's tile start.
 */
static double tail_split_compute_s(const mm_problem *p, const matmul_config *c, const matmul_machine *m,
                                 const gemmc_device_info *dev, const mm_tail_split_shape *k) {
  double peak = m->peak_tflops_per_sm[c->cls] * 1e12;
  double step_s = 2.0 * c->block_m * c->block_n * c->block_k / (peak * efficiency_of(c, p)) * c->blocks_per_sm;
  double waves = (double)((k->tiles - k->shared_tiles) / k->slots);
  double segment = k->shared_tiles ? ceil((double)k->k_steps / (double)k->ways) * step_s : 0;
  if (k->shared_tiles && k->ways > 1)
    segment += (double)k->ways * c->block_m * c->block_n * acc_bytes(p) * c->blocks_per_sm /
               (2.0 * m->l2_gbytes_per_s * 1e9 / device_sms(dev));
  double blocks_per_slot = waves + (k->shared_tiles ? 1 : 0);
  return segment + waves * (double)k->k_steps * step_s +
         fmax(0.0, blocks_per_slot - 1) / c->blocks_per_sm * m->tile_start_us * 1e-6;
}

mm_tail_split_shape mm_tail_split_shape_of(const mm_problem *p, const gemmc_device_info *dev, const matmul_config *c) {
  mm_tail_split_shape k;
  k.tiles = tile_count(p, c);
  k.k_steps = k_steps_per_split(p, c, 1);
  k.slots = (int64_t)device_sms(dev) * c->blocks_per_sm;
  if (k.slots > MM_TAIL_SPLIT_MAX_BLOCKS) k.slots = MM_TAIL_SPLIT_MAX_BLOCKS;
  k.shared_tiles = k.tiles % k.slots;
  /* The split the model likes best: every shared block resident at once, each segment at least
   * two K steps, at most 8 ways (the owner reads the others' sums one after another). */
  const matmul_machine *m = machine_for(device_cc(dev));
  mm_tail_split_shape best = k;
  best.ways = 1;
  double best_s = INFINITY;
  for (int64_t ways = 1; ways <= 8; ways++) {
    if (ways > 1 && (k.shared_tiles * ways > k.slots || k.k_steps < 2 * ways)) break;
    mm_tail_split_shape t = k;
    t.ways = ways;
    double s = tail_split_compute_s(p, c, m, dev, &t);
    if (s < best_s * 0.98) best = t, best_s = s;
  }
  best.grid = best.shared_tiles * best.ways + best.tiles - best.shared_tiles;
  return best;
}

uint64_t mm_workspace_bytes(const mm_problem *p, const gemmc_device_info *dev, int config, int split) {
  if (config < 0 || config >= matmul_num_configs) return 0;
  const matmul_config *c = &matmul_configs[config];
  if (!mm_config_is_tail_split(c)) return mm_split_workspace_bytes(p, split);
  mm_tail_split_shape k = mm_tail_split_shape_of(p, dev, c);
  return mm_tail_split_workspace_bytes(p, c, &k);
}

uint64_t mm_tail_split_workspace_bytes(const mm_problem *p, const matmul_config *c, const mm_tail_split_shape *k) {
  return (uint64_t)(k->shared_tiles * k->ways) * (uint64_t)c->block_m * (uint64_t)c->block_n * (uint64_t)acc_bytes(p);
}

bool mm_config_keeps_rows_invariant(int config, int split) {
  return split == 1 && config >= 0 && config < matmul_num_configs && !mm_config_is_tail_split(&matmul_configs[config]);
}

bool mm_config_serves(const mm_problem *p, const gemmc_device_info *dev, int config, int split) {
  if (config < 0 || config >= matmul_num_configs || split < 1) return false;
  const matmul_config *c = &matmul_configs[config];
  int cc = device_cc(dev);
  if (c->cls != p->cls || cc < c->min_cc || (c->max_cc && cc > c->max_cc)) return false;
  /* A tail split splits K itself; its (tile, K step) numbers are i32 in the kernel. */
  if (mm_config_is_tail_split(c)) return split == 1 && tile_count(p, c) * k_steps_per_split(p, c, 1) < 2147483648.0 / 2;
  if (split == 1) return true;
  if (split > c->max_split_k) return false;
  /* Each split gets at least two K tiles, and the workspace is indexed with 32-bit offsets. */
  if (cdiv(p->K, c->block_k) < 2 * (int64_t)split) return false;
  return (double)split * (double)p->batch * (double)p->M * (double)p->N < 2147483648.0;
}

/* Persistent rows (one block per SM looping over the tiles, its next tile's loads overlapping
 * this one's epilogue) are the ones with a setup cost. */
static bool row_is_persistent(const matmul_config *c) { return c->setup_us > 0; }

/* The row's efficiency for p: lower where its operands' rows start off a 32-byte sector (each such
 * row costs TMA and cp.async extra L2 requests; perf-notes 55, 56, 58). */
static double efficiency_of(const matmul_config *c, const mm_problem *p) {
  uint32_t unit = mm_unit_of_values(p->values);
  uint64_t div = mm_div_of_values(p->values);
  int bytes = mm_dtype_bytes(p->at);
  bool off_a = mm_operand_rows_off_sector(unit, div, bytes, 'a'),
       off_b = mm_operand_rows_off_sector(unit, div, bytes, 'b');
  double factor = off_a && off_b ? c->off_sector[2] : off_a ? c->off_sector[0] : off_b ? c->off_sector[1] : 1.0;
  return c->efficiency * factor;
}

/* DRAM and L2 time of one launch of row c over p's operands and outputs, K split `split` ways:
 * inputs once from DRAM, each tile's A and B panels from L2 (cluster rows, path 3, read the tile
 * the two blocks share once per pair: B in the 8-warp kernel, A in the 4-warp pairs kernel),
 * outputs (C too), or the split's partial sums. */
static double memory_s(const mm_problem *p, const matmul_config *c, const matmul_machine *m, int split) {
  double in = mm_dtype_bytes(p->at), out = mm_dtype_bytes(p->out), batch = (double)p->batch;
  double tiles = (double)tile_count(p, c) * split;
  double k_tile = (double)(k_steps_per_split(p, c, split) * c->block_k);
  double mn = batch * (double)p->M * p->N;
  double outputs = split > 1 ? mn * split * acc_bytes(p) : mn * out * (p->has_c ? 2 : 1);
  double dram = batch * ((double)p->M * p->K + (double)p->K * p->N) * in + outputs;
  bool cluster = c->path == 3, shares_a = gemmc_ws_cluster_shares_a(c->num_warps);
  double a_reads = cluster && shares_a ? 0.5 : 1.0, b_reads = cluster && !shares_a ? 0.5 : 1.0;
  double l2 = tiles * (a_reads * c->block_m + b_reads * c->block_n) * k_tile * in;
  return fmax(dram / (m->dram_gbytes_per_s * 1e9), l2 / (m->l2_gbytes_per_s * 1e9));
}

/* Tail-split rows: tail_split_compute_s for the shape mm_tail_split_shape_of picks. */
static double predict_tail_split_ms(const mm_problem *p, const matmul_config *c, const matmul_machine *m,
                                  const gemmc_device_info *dev) {
  if (m->peak_tflops_per_sm[c->cls] <= 0) return -1;
  mm_tail_split_shape k = mm_tail_split_shape_of(p, dev, c);
  double t = tail_split_compute_s(p, c, m, dev, &k);
  return (fmax(t, memory_s(p, c, m, 1)) + m->launch_us * 1e-6 + c->setup_us * 1e-6) * 1e3;
}

/*
 * The model, per kernel launch:
 *   compute: tiles go round-robin to the SMs; an SM with c tiles runs them at the row's
 *            efficiency (efficiency_of: less where rows start off a sector), lowered when c is
 *            below the blocks it could hold (less latency hidden):
 *            t = c * flops_per_tile / (peak_per_sm * efficiency * (0.5 + 0.5 min(1, c / blocks_per_sm)))
 *            plus, for rows that are not persistent, the machine's tile start for each tile after
 *            the first, divided among the resident blocks: (c - 1) / blocks_per_sm * tile_start;
 *   memory:  DRAM traffic (inputs once, outputs, split-K partials) and L2 traffic (each tile
 *            reads its A and B panels) at the machine's bandwidths, overlapped with compute;
 *   split-K: a second kernel reads the partials and writes D, after the first;
 *   setup:   the row's fixed cost per launch (persistent kernels' tensor maps and barriers).
 */
double mm_predict_ms(const mm_problem *p, const gemmc_device_info *dev, int config, int split) {
  if (!mm_config_serves(p, dev, config, split)) return -1;
  const matmul_config *c = &matmul_configs[config];
  const matmul_machine *m = machine_for(device_cc(dev));
  double sms = device_sms(dev);
  if (mm_config_is_tail_split(c)) return predict_tail_split_ms(p, c, m, dev);
  double tiles = (double)tile_count(p, c) * split;
  double per_sm = ceil(tiles / sms);
  double k_tile = (double)(k_steps_per_split(p, c, split) * c->block_k);
  double flops_per_tile = 2.0 * c->block_m * c->block_n * k_tile;
  double peak = m->peak_tflops_per_sm[c->cls] * 1e12;
  if (peak <= 0) return -1;
  double occupancy = fmin(1.0, per_sm / c->blocks_per_sm);
  double t_compute = per_sm * flops_per_tile / (peak * efficiency_of(c, p) * (0.5 + 0.5 * occupancy));
  if (!row_is_persistent(c)) t_compute += (per_sm - 1) / c->blocks_per_sm * m->tile_start_us * 1e-6;
  double out = mm_dtype_bytes(p->out), mn = (double)p->batch * (double)p->M * p->N, launch = m->launch_us * 1e-6;
  double t = fmax(t_compute, memory_s(p, c, m, split)) + launch + c->setup_us * 1e-6;
  /* split-K: the reduce kernel reads the partial sums and writes D, after the first */
  if (split > 1) t += (mn * split * acc_bytes(p) + mn * out * (p->has_c ? 2 : 1)) / (m->dram_gbytes_per_s * 1e9) + launch;
  return t * 1e3;
}

bool mm_choose(const mm_problem *p, const gemmc_device_info *dev, bool batch_invariant, mm_choice *out) {
  mm_problem q = *p;
  /* Batch-invariant: the choice may not look at cuBLAS's m, which is the kernel's N (see
   * mm_problem_from_desc): rank as if it were large. */
  if (batch_invariant) q.N = 8192;
  out->config = -1;
  out->split = 1;
  out->predicted_ms = INFINITY;
  for (int i = 0; i < matmul_num_configs; i++) {
    /* Tail-split rows are for tuning and forcing only: measured, they gained 4% where the last
     * wave was nearly empty (3072^3, 5000^3) and lost up to 40% where the model put them
     * elsewhere (perf-notes 63); the model cannot yet tell those apart. */
    if (mm_config_is_tail_split(&matmul_configs[i])) continue;
    for (int s = 0; s < matmul_num_split_choices; s++) {
      int split = matmul_split_choices[s];
      if (batch_invariant && !mm_config_keeps_rows_invariant(i, split)) break;
      double t = mm_predict_ms(&q, dev, i, split);
      if (t >= 0 && t < out->predicted_ms * 0.999) { /* ties keep the earlier row */
        out->config = i;
        out->split = split;
        out->predicted_ms = t;
      }
    }
  }
  return out->config >= 0;
}

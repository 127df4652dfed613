/* Unit tests of the layout library: builders, Triton's hand-worked bases, bijections, shared offsets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemmc/ir.h"
#include "gemmc/layout.h"

#include "check.h"

/* ------------------------------------------------------------------ helpers */

static const ir_attr *blocked(gemmc_context *ctx, int rank, const int *spt, const int *tpw, const int *wpc,
                              const int *order) {
  ir_layout_params p;
  memset(&p, 0, sizeof p);
  p.rank = rank;
  memcpy(p.size_per_thread, spt, sizeof(int) * (size_t)rank);
  memcpy(p.threads_per_warp, tpw, sizeof(int) * (size_t)rank);
  memcpy(p.warps_per_cta, wpc, sizeof(int) * (size_t)rank);
  memcpy(p.order, order, sizeof(int) * (size_t)rank);
  return ir_layout_attr(ctx, AT_BLOCKED, &p);
}

static const ir_attr *mma(gemmc_context *ctx, int version, int wm, int wn, int instr_n) {
  ir_layout_params p;
  memset(&p, 0, sizeof p);
  p.rank = 2;
  p.version_major = version;
  p.warps_per_cta[0] = wm;
  p.warps_per_cta[1] = wn;
  if (version == 2) {
    p.instr_rank = 2;
    p.instr_shape[0] = 16;
    p.instr_shape[1] = 8;
  } else {
    p.instr_rank = 3;
    p.instr_shape[0] = 16;
    p.instr_shape[1] = instr_n;
    p.instr_shape[2] = 16;
  }
  return ir_layout_attr(ctx, AT_NVIDIA_MMA, &p);
}

static const ir_attr *mfma(gemmc_context *ctx, int mn, int wm, int wn, bool transposed) {
  ir_layout_params p;
  memset(&p, 0, sizeof p);
  p.rank = 2;
  p.version_major = 3;
  p.warps_per_cta[0] = wm;
  p.warps_per_cta[1] = wn;
  p.instr_rank = 3;
  p.instr_shape[0] = mn;
  p.instr_shape[1] = mn;
  p.instr_shape[2] = mn == 32 ? 8 : 16;
  p.is_transposed = transposed;
  return ir_layout_attr(ctx, AT_AMD_MFMA, &p);
}

static const ir_attr *int_list(gemmc_context *ctx, int n, const int *v) {
  const ir_attr *e[IR_MAX_RANK];
  for (int i = 0; i < n; i++) e[i] = ir_int_attr(ctx, v[i], NULL);
  return ir_array_attr(ctx, n, e);
}

/* [[..], [..]] from a flat list of n bases of `rank` values. */
static const ir_attr *bases_attr(gemmc_context *ctx, int n, int rank, const int *flat) {
  const ir_attr *e[LAYOUT_MAX_BASES];
  for (int i = 0; i < n; i++) e[i] = int_list(ctx, rank, flat + i * rank);
  return ir_array_attr(ctx, n, e);
}

static int64_t numel(int rank, const int64_t *shape) {
  int64_t n = 1;
  for (int d = 0; d < rank; d++) n *= shape[d];
  return n;
}

static int64_t linear_index(int rank, const int64_t *shape, const int64_t *c) {
  int64_t idx = 0;
  for (int d = 0; d < rank; d++) idx = idx * shape[d] + c[d];
  return idx;
}

static bool bases_equal(const layout_linear *ll, layout_in_dim in, int n, const int *flat) {
  if (ll->num_bases[in] != n) return false;
  for (int i = 0; i < n; i++)
    for (int d = 0; d < ll->rank; d++)
      if (ll->bases[in][i][d] != flat[i * ll->rank + d]) return false;
  return true;
}

static void print_bases(const layout_linear *ll, layout_in_dim in) {
  printf("  bases[%d] =", (int)in);
  for (int i = 0; i < ll->num_bases[in]; i++) {
    printf(" (");
    for (int d = 0; d < ll->rank; d++) printf("%s%d", d ? "," : "", ll->bases[in][i][d]);
    printf(")");
  }
  printf("\n");
}

/* Every (register, lane, warp) maps inside the tensor; every element is held by the same number
 * of threads/registers (1 for a bijection); layout_thread_of returns the lowest holder
 * (warp, then lane, then register); layout_coords agrees with the linear layout. */
static void check_distributed_map(const char *name, const ir_attr *layout, int rank, const int64_t *shape,
                                  int num_warps, int lanes, int64_t expect_copies) {
  layout_linear ll;
  bool ok = layout_to_linear(layout, rank, shape, &ll);
  CHECK(ok, "%s: layout_to_linear failed", name);
  if (!ok) return;
  int64_t n = numel(rank, shape);
  int64_t regs = layout_elems_per_thread(layout, rank, shape);
  CHECK(regs == layout_linear_in_size(&ll, LAYOUT_IN_REGISTER), "%s: elems_per_thread %lld", name, (long long)regs);
  CHECK(layout_linear_in_size(&ll, LAYOUT_IN_LANE) == lanes, "%s: lane bits %d", name, ll.num_bases[LAYOUT_IN_LANE]);
  CHECK(layout_linear_in_size(&ll, LAYOUT_IN_WARP) == num_warps, "%s: warp bits %d", name,
        ll.num_bases[LAYOUT_IN_WARP]);
  int64_t total = regs * lanes * num_warps;
  CHECK(total == n * expect_copies, "%s: %lld slots for %lld elements, expected %lld copies", name,
        (long long)total, (long long)n, (long long)expect_copies);
  int64_t *count = calloc((size_t)n, sizeof *count);
  int64_t *first = malloc((size_t)n * sizeof *first); /* packed (warp, lane, reg) of the lowest holder */
  if (!count || !first) {
    free(count);
    free(first);
    return;
  }
  bool in_range = true;
  for (int w = 0; w < num_warps; w++)
    for (int l = 0; l < lanes; l++)
      for (int64_t r = 0; r < regs; r++) {
        int64_t in[LAYOUT_IN_COUNT] = {r, l, w, 0, 0}, c[IR_MAX_RANK];
        layout_linear_apply(&ll, in, c);
        for (int d = 0; d < rank; d++) in_range &= c[d] >= 0 && c[d] < shape[d];
        if (!in_range) continue;
        int64_t idx = linear_index(rank, shape, c);
        if (count[idx]++ == 0) first[idx] = ((int64_t)w * lanes + l) * regs + r;
      }
  CHECK(in_range, "%s: a coordinate falls outside the tensor", name);
  int64_t bad_count = -1, bad_owner = -1;
  for (int64_t i = 0; i < n; i++) {
    if (count[i] != expect_copies && bad_count < 0) bad_count = i;
    int64_t c[IR_MAX_RANK], rem = i;
    for (int d = rank - 1; d >= 0; d--) {
      c[d] = rem % shape[d];
      rem /= shape[d];
    }
    int64_t reg;
    int lane, warp;
    bool found = layout_thread_of(layout, rank, shape, c, &reg, &lane, &warp);
    if ((!found || ((int64_t)warp * lanes + lane) * regs + reg != first[i]) && bad_owner < 0) bad_owner = i;
  }
  CHECK(bad_count < 0, "%s: element %lld held %lld times, expected %lld", name, (long long)bad_count,
        (long long)(bad_count >= 0 ? count[bad_count] : 0), (long long)expect_copies);
  CHECK(bad_owner < 0, "%s: layout_thread_of(element %lld) is not its lowest holder", name, (long long)bad_owner);
  /* The one-shot API agrees with the linear layout. */
  int64_t c1[IR_MAX_RANK], c2[IR_MAX_RANK];
  int64_t in[LAYOUT_IN_COUNT] = {regs - 1, lanes - 1, num_warps - 1, 0, 0};
  layout_coords(layout, rank, shape, regs - 1, lanes - 1, num_warps - 1, c1);
  layout_linear_apply(&ll, in, c2);
  CHECK(memcmp(c1, c2, sizeof(int64_t) * (size_t)rank) == 0, "%s: layout_coords disagrees", name);
  free(count);
  free(first);
}

/* Closed form of a blocked layout (triton-internals.md 2.1), an oracle independent of the
 * linear-layout code. */
static void blocked_closed_form(const ir_layout_params *p, int rank, const int64_t *shape, int64_t r, int lane,
                                int warp, int64_t *coord) {
  const int *o = p->order;
  int64_t tile[IR_MAX_RANK], reps[IR_MAX_RANK], l[IR_MAX_RANK], w[IR_MAX_RANK], rr[IR_MAX_RANK], rep[IR_MAX_RANK];
  for (int d = 0; d < rank; d++) {
    tile[d] = (int64_t)p->size_per_thread[d] * p->threads_per_warp[d] * p->warps_per_cta[d];
    reps[d] = shape[d] / tile[d] > 1 ? shape[d] / tile[d] : 1;
  }
  int64_t lr = lane, wr = warp, q = r;
  for (int i = 0; i < rank; i++) {
    int d = o[i];
    l[d] = lr % p->threads_per_warp[d];
    lr /= p->threads_per_warp[d];
    w[d] = wr % p->warps_per_cta[d];
    wr /= p->warps_per_cta[d];
    rr[d] = q % p->size_per_thread[d];
    q /= p->size_per_thread[d];
  }
  for (int i = 0; i < rank; i++) {
    int d = o[i];
    rep[d] = q % reps[d];
    q /= reps[d];
  }
  for (int d = 0; d < rank; d++)
    coord[d] = (rep[d] * tile[d] + w[d] * p->size_per_thread[d] * p->threads_per_warp[d] +
                l[d] * p->size_per_thread[d] + rr[d]) %
               shape[d];
}

static void check_blocked_case(gemmc_context *ctx, const char *name, int rank, const int64_t *shape,
                               const int *spt, const int *order, int num_warps, int lanes) {
  const ir_attr *b = layout_blocked_get(ctx, rank, shape, spt, order, num_warps, lanes);
  CHECK(b != NULL, "%s: builder returned NULL", name);
  if (!b) return;
  CHECK(layout_check(b, rank, num_warps, lanes) == NULL, "%s: builder result invalid: %s", name,
        layout_check(b, rank, num_warps, lanes));
  int64_t tile[IR_MAX_RANK], copies = 1;
  layout_shape_per_cta_tile(b, rank, tile);
  for (int d = 0; d < rank; d++)
    if (tile[d] > shape[d]) copies *= tile[d] / shape[d];
  check_distributed_map(name, b, rank, shape, num_warps, lanes, copies);
  layout_linear ll;
  if (!layout_to_linear(b, rank, shape, &ll)) return;
  int64_t regs = layout_linear_in_size(&ll, LAYOUT_IN_REGISTER);
  int mismatches = 0;
  for (int w = 0; w < num_warps; w++)
    for (int l = 0; l < lanes; l++)
      for (int64_t r = 0; r < regs; r++) {
        int64_t in[LAYOUT_IN_COUNT] = {r, l, w, 0, 0}, c1[IR_MAX_RANK], c2[IR_MAX_RANK];
        layout_linear_apply(&ll, in, c1);
        blocked_closed_form(&b->layout, rank, shape, r, l, w, c2);
        mismatches += memcmp(c1, c2, sizeof(int64_t) * (size_t)rank) != 0;
      }
  CHECK(mismatches == 0, "%s: %d (reg, lane, warp) differ from the closed form", name, mismatches);
}

/* ------------------------------------------------------------------ tests */

static void test_blocked_builder(gemmc_context *ctx) {
  /* triton-internals.md 2.1 worked example and the seed's coalesced load layout. */
  int64_t shape[2] = {64, 64};
  int spt_a[2] = {1, 4}, order_a[2] = {1, 0};
  const ir_attr *a = layout_blocked_get(ctx, 2, shape, spt_a, order_a, 4, 32);
  int tpw[2], wpc[2];
  layout_threads_per_warp(a, 2, tpw);
  layout_warps_per_cta(a, 2, wpc);
  CHECK(tpw[0] == 2 && tpw[1] == 16, "tpw [%d, %d], expected [2, 16]", tpw[0], tpw[1]);
  CHECK(wpc[0] == 4 && wpc[1] == 1, "wpc [%d, %d], expected [4, 1]", wpc[0], wpc[1]);
  int tpw_a[2] = {2, 16}, wpc_a[2] = {4, 1};
  CHECK(a == blocked(ctx, 2, spt_a, tpw_a, wpc_a, order_a), "builder result is not the interned attribute");
  CHECK(layout_equal(a, blocked(ctx, 2, spt_a, tpw_a, wpc_a, order_a)), "layout_equal");

  /* The seed's coalesced store layout: spt [4,1], order [0,1] -> tpw [16,2], wpc [1,4]. */
  int spt_b[2] = {4, 1}, order_b[2] = {0, 1};
  const ir_attr *b = layout_blocked_get(ctx, 2, shape, spt_b, order_b, 4, 32);
  int tpw_b[2] = {16, 2}, wpc_b[2] = {1, 4};
  CHECK(b == blocked(ctx, 2, spt_b, tpw_b, wpc_b, order_b), "seed store layout: got tpw [%d, %d] wpc [%d, %d]",
        b->layout.threads_per_warp[0], b->layout.threads_per_warp[1], b->layout.warps_per_cta[0],
        b->layout.warps_per_cta[1]);

  /* Default layout: 1D vecadd [256] with 4 warps -> [1], [32], [4], [0]. */
  int64_t s1[1] = {256};
  const ir_attr *d1 = layout_default_blocked(ctx, 1, s1, 4, 32);
  int one[1] = {1}, t32[1] = {32}, w4[1] = {4}, o0[1] = {0};
  CHECK(d1 == blocked(ctx, 1, one, t32, w4, o0), "default 1D blocked");
  /* Default 64x64, 4 warps: dim 1 takes 32 lanes and 2 warps, dim 0 the other 2 warps. */
  const ir_attr *d2 = layout_default_blocked(ctx, 2, shape, 4, 32);
  int ones[2] = {1, 1}, t[2] = {1, 32}, w[2] = {2, 2}, o10[2] = {1, 0};
  CHECK(d2 == blocked(ctx, 2, ones, t, w, o10), "default 64x64 blocked");
  /* Small dims: 16x8 with 8 warps of 64 lanes: lanes along dim 1 clamp at 8. */
  int64_t small[2] = {16, 8};
  const ir_attr *d3 = layout_default_blocked(ctx, 2, small, 8, 64);
  CHECK(d3->layout.threads_per_warp[1] == 8 && d3->layout.threads_per_warp[0] == 8 &&
            d3->layout.warps_per_cta[1] == 1 && d3->layout.warps_per_cta[0] == 8,
        "default 16x8 / 8 warps / 64 lanes: tpw [%d, %d] wpc [%d, %d]", d3->layout.threads_per_warp[0],
        d3->layout.threads_per_warp[1], d3->layout.warps_per_cta[0], d3->layout.warps_per_cta[1]);
}

static void test_blocked_maps(gemmc_context *ctx) {
  /* LinearLayoutConversionsTest: blocked spt=[1] tpw=[4] wpc=[4], shape [16]. */
  int spt[1] = {1}, tpw[1] = {4}, wpc[1] = {4}, o[1] = {0};
  const ir_attr *b = blocked(ctx, 1, spt, tpw, wpc, o);
  layout_linear ll;
  int64_t s16[1] = {16}, s32[1] = {32}, s8[1] = {8};
  CHECK(layout_to_linear(b, 1, s16, &ll), "to_linear");
  int lane_b[] = {1, 2}, warp_b[] = {4, 8}, reg32[] = {16}, warp8[] = {4, 0};
  CHECK(bases_equal(&ll, LAYOUT_IN_REGISTER, 0, NULL) && bases_equal(&ll, LAYOUT_IN_LANE, 2, lane_b) &&
            bases_equal(&ll, LAYOUT_IN_WARP, 2, warp_b),
        "blocked [16] bases");
  CHECK(layout_to_linear(b, 1, s32, &ll) && bases_equal(&ll, LAYOUT_IN_REGISTER, 1, reg32), "blocked [32] bases");
  CHECK(layout_to_linear(b, 1, s8, &ll) && bases_equal(&ll, LAYOUT_IN_WARP, 2, warp8), "blocked [8] broadcast warp");
  check_distributed_map("blocked1d[8]", b, 1, s8, 4, 4, 2);

  struct {
    const char *name;
    int rank;
    int64_t shape[3];
    int spt[3], order[3];
    int warps, lanes;
  } cases[] = {
      {"64x64 spt[1,4] o[1,0] w4", 2, {64, 64}, {1, 4}, {1, 0}, 4, 32},
      {"64x64 spt[4,1] o[0,1] w4", 2, {64, 64}, {4, 1}, {0, 1}, 4, 32},
      {"128x32 spt[1,8] o[1,0] w8", 2, {128, 32}, {1, 8}, {1, 0}, 8, 32},
      {"32x128 spt[2,2] o[0,1] w4 l64", 2, {32, 128}, {2, 2}, {0, 1}, 4, 64},
      {"16x16 spt[1,1] o[1,0] w8 (broadcast)", 2, {16, 16}, {1, 1}, {1, 0}, 8, 32},
      {"4x8 spt[1,4] o[1,0] w4 l64 (broadcast)", 2, {4, 8}, {1, 4}, {1, 0}, 4, 64},
      {"8x16x32 spt[1,2,4] o[2,0,1] w4", 3, {8, 16, 32}, {1, 2, 4}, {2, 0, 1}, 4, 32},
      {"256 spt[4] w4", 1, {256}, {4}, {0}, 4, 32},
      {"1024 spt[1] w2 l64", 1, {1024}, {1}, {0}, 2, 64},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    check_blocked_case(ctx, cases[i].name, cases[i].rank, cases[i].shape, cases[i].spt, cases[i].order,
                       cases[i].warps, cases[i].lanes);

  /* Hand-written layout with shape smaller than sizePerThread: registers duplicate. */
  int spt2[2] = {1, 4}, tpw2[2] = {2, 16}, wpc2[2] = {4, 1}, o10[2] = {1, 0};
  const ir_attr *seed = blocked(ctx, 2, spt2, tpw2, wpc2, o10);
  int64_t s64x2[2] = {64, 2};
  /* 4 registers (one bit duplicated: the dim is 2 wide) times 8 row repetitions. */
  CHECK(layout_elems_per_thread(seed, 2, s64x2) == 32, "elems of 64x2: %lld",
        (long long)layout_elems_per_thread(seed, 2, s64x2));
  CHECK(layout_contig_per_thread(seed, 2, s64x2, 1) == 2, "contig 64x2 dim1: %d",
        layout_contig_per_thread(seed, 2, s64x2, 1));
  int64_t s64[2] = {64, 64};
  CHECK(layout_elems_per_thread(seed, 2, s64) == 32, "elems 64x64");
  CHECK(layout_contig_per_thread(seed, 2, s64, 1) == 4 && layout_contig_per_thread(seed, 2, s64, 0) == 1,
        "contig 64x64");
  int64_t c[2];
  layout_coords(seed, 2, s64, 5, 17, 2, c);
  /* reg 5 = spt index 1, rep 1 along dim 0; lane 17 = (1, 1); warp 2 -> row 2*2. */
  CHECK(c[0] == 8 * 1 + 4 + 1 && c[1] == 4 + 1, "coords (5, 17, 2) = (%lld, %lld)", (long long)c[0], (long long)c[1]);
}

static void test_slice(gemmc_context *ctx) {
  int spt[2] = {1, 4}, tpw[2] = {2, 16}, wpc[2] = {4, 1}, o10[2] = {1, 0};
  const ir_attr *parent = blocked(ctx, 2, spt, tpw, wpc, o10);
  const ir_attr *s1 = layout_slice_get(ctx, 1, parent);
  int64_t s64[1] = {64};
  CHECK(layout_rank(s1) == 1, "slice rank");
  CHECK(layout_check(s1, 1, 4, 32) == NULL, "slice check: %s", layout_check(s1, 1, 4, 32));
  /* Lanes along dim 1 (16 of them) broadcast; 8 rows per tile, 8 repetitions. */
  CHECK(layout_elems_per_thread(s1, 1, s64) == 8, "slice elems: %lld", (long long)layout_elems_per_thread(s1, 1, s64));
  check_distributed_map("slice dim1 of [1,4]/[2,16]/[4,1]", s1, 1, s64, 4, 32, 16);
  /* Same holders as the parent's [64, 1] tensor, whose first two register bits (sizePerThread
   * along the sliced dim) are duplicates the slice drops. */
  int64_t ps[2] = {64, 1};
  int mism = 0;
  for (int w = 0; w < 4; w++)
    for (int l = 0; l < 32; l++)
      for (int r = 0; r < 8; r++) {
        int64_t a[1], b[2];
        layout_coords(s1, 1, s64, r, l, w, a);
        layout_coords(parent, 2, ps, (int64_t)r << 2, l, w, b);
        mism += a[0] != b[0];
      }
  CHECK(mism == 0, "slice coords differ from the parent's [64,1] coords (%d)", mism);

  /* The seed's slice of #blocked2 along dim 0: warps broadcast over half the range. */
  int spt2[2] = {1, 1}, tpw2[2] = {1, 32}, wpc2[2] = {1, 4}, o01[2] = {0, 1};
  const ir_attr *s0 = layout_slice_get(ctx, 0, blocked(ctx, 2, spt2, tpw2, wpc2, o01));
  check_distributed_map("slice dim0 of [1,1]/[1,32]/[1,4]", s0, 1, s64, 4, 32, 2);
  int order[1];
  layout_order(s0, 1, order);
  CHECK(order[0] == 0, "slice order");
  /* 3D order renumbering: parent order [2, 0, 1], slice dim 0 -> [1, 0]. */
  int spt3[3] = {1, 1, 1}, tpw3[3] = {1, 4, 8}, wpc3[3] = {1, 2, 2}, o3[3] = {2, 0, 1};
  const ir_attr *s3 = layout_slice_get(ctx, 0, blocked(ctx, 3, spt3, tpw3, wpc3, o3));
  int order2[2];
  layout_order(s3, 2, order2);
  CHECK(order2[0] == 1 && order2[1] == 0, "slice 3D order [%d, %d]", order2[0], order2[1]);
}

static void test_mma(gemmc_context *ctx) {
  /* MMAv2_32x32 from Triton's LinearLayoutConversionsTest. */
  const ir_attr *m1 = mma(ctx, 2, 1, 1, 0);
  int64_t s32[2] = {32, 32};
  layout_linear ll;
  int reg[] = {0, 1, 8, 0, 0, 8, 0, 16, 16, 0};
  int lane[] = {0, 2, 0, 4, 1, 0, 2, 0, 4, 0};
  CHECK(layout_to_linear(m1, 2, s32, &ll) && bases_equal(&ll, LAYOUT_IN_REGISTER, 5, reg) &&
            bases_equal(&ll, LAYOUT_IN_LANE, 5, lane),
        "MMAv2_32x32 bases");
  if (!bases_equal(&ll, LAYOUT_IN_REGISTER, 5, reg)) {
    print_bases(&ll, LAYOUT_IN_REGISTER);
    print_bases(&ll, LAYOUT_IN_LANE);
  }
  check_distributed_map("mma v2 32x32 w1", m1, 2, s32, 1, 32, 1);

  /* Closed form of the m16n8 accumulator with warps [2, 2] on 64x64 (triton-internals.md 2.3). */
  const ir_attr *m22 = mma(ctx, 2, 2, 2, 0);
  int64_t s64[2] = {64, 64};
  check_distributed_map("mma v2 64x64 w[2,2]", m22, 2, s64, 4, 32, 1);
  CHECK(layout_elems_per_thread(m22, 2, s64) == 32, "mma v2 elems");
  CHECK(layout_linear_in_size(&ll, LAYOUT_IN_REGISTER) == 32, "MMAv2_32x32 regs");
  int bad = 0;
  if (layout_to_linear(m22, 2, s64, &ll)) {
    int WM = 2, WN = 2, nrep_n = 64 / (8 * WN);
    for (int w = 0; w < 4; w++)
      for (int l = 0; l < 32; l++)
        for (int r = 0; r < 32; r++) {
          int rep = r >> 2, rep_n = rep % nrep_n, rep_m = rep / nrep_n;
          int64_t col = 2 * (l % 4) + (r & 1) + 8 * (w % WN) + 8 * WN * rep_n;
          int64_t row = l / 4 + 8 * ((r >> 1) & 1) + 16 * (w / WN) + 16 * WM * rep_m;
          int64_t in[LAYOUT_IN_COUNT] = {r, l, w, 0, 0}, c[2];
          layout_linear_apply(&ll, in, c);
          bad += c[0] != row || c[1] != col;
        }
  }
  CHECK(bad == 0, "mma v2 closed form: %d mismatches", bad);

  /* SliceOfMmaV2 (warps [2, 2]): warp bit 0 walks N. */
  const ir_attr *slice_n = layout_slice_get(ctx, 0, m22), *slice_m = layout_slice_get(ctx, 1, m22);
  int64_t n16[1] = {16}, m32[1] = {32};
  int wn[] = {8, 0}, wm[] = {0, 16};
  CHECK(layout_to_linear(slice_n, 1, n16, &ll) && bases_equal(&ll, LAYOUT_IN_WARP, 2, wn), "SliceOfMmaV2 N warps");
  CHECK(layout_to_linear(slice_m, 1, m32, &ll) && bases_equal(&ll, LAYOUT_IN_WARP, 2, wm), "SliceOfMmaV2 M warps");

  /* Hopper accumulator: warps stack 16-row slabs along M. */
  const ir_attr *h = mma(ctx, 3, 4, 1, 64);
  CHECK(layout_check(h, 2, 4, 32) == NULL, "v3 check: %s", layout_check(h, 2, 4, 32));
  check_distributed_map("mma v3 64x64 w[4,1] n64", h, 2, s64, 4, 32, 1);
  bad = 0;
  if (layout_to_linear(h, 2, s64, &ll)) {
    for (int w = 0; w < 4; w++)
      for (int l = 0; l < 32; l++)
        for (int r = 0; r < 32; r++) {
          int64_t row = 16 * w + l / 4 + 8 * ((r >> 1) & 1), col = 8 * (r >> 2) + 2 * (l % 4) + (r & 1);
          int64_t in[LAYOUT_IN_COUNT] = {r, l, w, 0, 0}, c[2];
          layout_linear_apply(&ll, in, c);
          bad += c[0] != row || c[1] != col;
        }
  }
  CHECK(bad == 0, "wgmma accumulator fragment: %d mismatches", bad);
  const ir_attr *h8 = mma(ctx, 3, 4, 2, 128);
  int64_t s128x256[2] = {128, 256};
  check_distributed_map("mma v3 128x256 w[4,2] n128", h8, 2, s128x256, 8, 32, 1);
  int sp[2], tp[2], wp[2], order[2];
  int64_t tile[2];
  layout_threads_per_warp(m22, 2, tp);
  layout_warps_per_cta(m22, 2, wp);
  layout_size_per_thread(m22, 2, sp);
  layout_shape_per_cta_tile(m22, 2, tile);
  layout_order(m22, 2, order);
  CHECK(tp[0] == 8 && tp[1] == 4 && wp[0] == 2 && wp[1] == 2 && sp[0] == 1 && sp[1] == 2, "mma per-dim params");
  CHECK(tile[0] == 32 && tile[1] == 16 && order[0] == 1 && order[1] == 0, "mma tile / order");
}

static void test_dot_op(gemmc_context *ctx) {
  const ir_attr *m22 = mma(ctx, 2, 2, 2, 0);
  /* DotMMAv2_tile_kwidth8: shape [16, 64], kWidth 8, opIdx 0. */
  const ir_attr *a8 = layout_dot_op_get(ctx, 0, mma(ctx, 2, 1, 1, 0), 8);
  int64_t s[2] = {16, 64};
  layout_linear ll;
  int reg[] = {0, 1, 0, 2, 0, 4, 8, 0, 0, 32};
  int lane[] = {0, 8, 0, 16, 1, 0, 2, 0, 4, 0};
  CHECK(layout_to_linear(a8, 2, s, &ll) && bases_equal(&ll, LAYOUT_IN_REGISTER, 5, reg) &&
            bases_equal(&ll, LAYOUT_IN_LANE, 5, lane),
        "DotMMAv2_tile_kwidth8 bases");

  /* A (f16, kWidth 2) on 64x32 with warps [2, 2]: the PTX a0..a7 fragment; warps along N
   * broadcast (each element held by the 2 warps of a row of warps). */
  const ir_attr *a = layout_dot_op_get(ctx, 0, m22, 2);
  CHECK(layout_check(a, 2, 4, 32) == NULL, "dot A check: %s", layout_check(a, 2, 4, 32));
  int64_t sa[2] = {64, 32};
  check_distributed_map("dot_op A kWidth2 64x32", a, 2, sa, 4, 32, 2);
  int bad = 0;
  if (layout_to_linear(a, 2, sa, &ll)) {
    for (int l = 0; l < 32; l++)
      for (int r = 0; r < 8; r++) {
        int g = l / 4, t = l % 4;
        int64_t row = g + 8 * ((r >> 1) & 1), col = 2 * t + (r & 1) + 8 * (r >> 2);
        int64_t in[LAYOUT_IN_COUNT] = {r, l, 0, 0, 0}, c[2];
        layout_linear_apply(&ll, in, c);
        bad += c[0] != row || c[1] != col;
      }
  }
  CHECK(bad == 0, "dot A fragment: %d mismatches", bad);
  /* B (f16, kWidth 2) on 32x64: b0,b1 = (k 2t..2t+1, n g), b2,b3 = k + 8. */
  const ir_attr *b = layout_dot_op_get(ctx, 1, m22, 2);
  int64_t sb[2] = {32, 64};
  check_distributed_map("dot_op B kWidth2 32x64", b, 2, sb, 4, 32, 2);
  bad = 0;
  if (layout_to_linear(b, 2, sb, &ll)) {
    for (int l = 0; l < 32; l++)
      for (int r = 0; r < 4; r++) {
        int g = l / 4, t = l % 4;
        int64_t k = 2 * t + (r & 1) + 8 * (r >> 1), n = g;
        int64_t in[LAYOUT_IN_COUNT] = {r, l, 0, 0, 0}, c[2];
        layout_linear_apply(&ll, in, c);
        bad += c[0] != k || c[1] != n;
      }
  }
  CHECK(bad == 0, "dot B fragment: %d mismatches", bad);
  int order_a[2], order_b[2], wpc_a[2];
  layout_order(a, 2, order_a);
  layout_order(b, 2, order_b);
  layout_warps_per_cta(a, 2, wpc_a);
  CHECK(order_a[0] == 1 && order_a[1] == 0 && order_b[0] == 0 && order_b[1] == 1, "dot_op K-contiguous orders");
  CHECK(wpc_a[0] == 2 && wpc_a[1] == 1, "dot_op A warps [%d, %d]", wpc_a[0], wpc_a[1]);
  /* kWidth 4 (8-bit A). */
  const ir_attr *a4 = layout_dot_op_get(ctx, 0, m22, 4);
  int64_t sa4[2] = {64, 64};
  check_distributed_map("dot_op A kWidth4 64x64", a4, 2, sa4, 4, 32, 2);
  /* A from registers for wgmma (Hopper parent). */
  const ir_attr *ha = layout_dot_op_get(ctx, 0, mma(ctx, 3, 4, 1, 64), 2);
  int64_t sha[2] = {64, 64};
  check_distributed_map("dot_op A of v3 64x64", ha, 2, sha, 4, 32, 1);
  CHECK(layout_check(layout_dot_op_get(ctx, 1, mma(ctx, 3, 4, 1, 64), 2), 2, 4, 32) != NULL, "wgmma B rejected");

  /* FMA path: each thread holds all of K; lanes and warps along K broadcast. */
  int spt[2] = {2, 2}, tpw[2] = {4, 8}, wpc[2] = {2, 2}, o10[2] = {1, 0};
  const ir_attr *parent = blocked(ctx, 2, spt, tpw, wpc, o10);
  const ir_attr *fa = layout_dot_op_get(ctx, 0, parent, 0), *fb = layout_dot_op_get(ctx, 1, parent, 0);
  int64_t sfa[2] = {32, 16}, sfb[2] = {16, 64};
  check_distributed_map("fma dot A 32x16", fa, 2, sfa, 4, 32, 16);
  check_distributed_map("fma dot B 16x64", fb, 2, sfb, 4, 32, 8);
  /* sizePerThread [2, 16] (all of K), 2 repetitions along M. */
  CHECK(layout_elems_per_thread(fa, 2, sfa) == 2 * 16 * 2, "fma A elems: %lld", (long long)layout_elems_per_thread(fa, 2, sfa));
  /* Order [1, 0]: register bits walk K (16) then M (2); lane bits 0-2 and warp bit 0 point
   * along K and broadcast. Register 31, lane 5, warp 3: k 15, row 1 + 2*4*(warp bit 1). */
  int64_t c[2];
  layout_coords(fa, 2, sfa, 31, 5, 3, c);
  CHECK(c[0] == 8 + 1 && c[1] == 15, "fma A coords (%lld, %lld)", (long long)c[0], (long long)c[1]);
}

static void test_mfma(gemmc_context *ctx) {
  int64_t s32[2] = {32, 32}, s16[2] = {16, 16}, s64[2] = {64, 64};
  layout_linear ll;
  for (int transposed = 0; transposed < 2; transposed++) {
    const ir_attr *m = mfma(ctx, 32, 1, 1, transposed);
    int bad = 0;
    if (layout_to_linear(m, 2, s32, &ll))
      for (int l = 0; l < 64; l++)
        for (int r = 0; r < 16; r++) {
          int64_t a = (r & 3) + 8 * (r >> 2) + 4 * (l >> 5), b = l & 31;
          int64_t row = transposed ? b : a, col = transposed ? a : b;
          int64_t in[LAYOUT_IN_COUNT] = {r, l, 0, 0, 0}, c[2];
          layout_linear_apply(&ll, in, c);
          bad += c[0] != row || c[1] != col;
        }
    CHECK(bad == 0, "mfma32 transposed=%d: %d mismatches", transposed, bad);
    const ir_attr *m16 = mfma(ctx, 16, 1, 1, transposed);
    bad = 0;
    if (layout_to_linear(m16, 2, s16, &ll))
      for (int l = 0; l < 64; l++)
        for (int r = 0; r < 4; r++) {
          int64_t a = r + 4 * (l >> 4), b = l & 15;
          int64_t row = transposed ? b : a, col = transposed ? a : b;
          int64_t in[LAYOUT_IN_COUNT] = {r, l, 0, 0, 0}, c[2];
          layout_linear_apply(&ll, in, c);
          bad += c[0] != row || c[1] != col;
        }
    CHECK(bad == 0, "mfma16 transposed=%d: %d mismatches", transposed, bad);
    check_distributed_map(transposed ? "mfma32 T 64x64 w[2,2]" : "mfma32 64x64 w[2,2]",
                          mfma(ctx, 32, 2, 2, transposed), 2, s64, 4, 64, 1);
    check_distributed_map(transposed ? "mfma16 T 64x64 w[2,2]" : "mfma16 64x64 w[2,2]",
                          mfma(ctx, 16, 2, 2, transposed), 2, s64, 4, 64, 1);
  }
  const ir_attr *m = mfma(ctx, 32, 2, 2, false);
  CHECK(layout_check(m, 2, 4, 64) == NULL, "mfma check");
  CHECK(layout_check(m, 2, 4, 32) != NULL, "mfma with 32 lanes rejected");
  const ir_attr *da = layout_dot_op_get(ctx, 0, m, 4), *db = layout_dot_op_get(ctx, 1, m, 4);
  int64_t sa[2] = {64, 32}, sb[2] = {32, 64};
  check_distributed_map("mfma dot A 64x32", da, 2, sa, 4, 64, 2);
  check_distributed_map("mfma dot B 32x64", db, 2, sb, 4, 64, 2);
}

static void test_linear_attr(gemmc_context *ctx) {
  /* #ttg.linear from test/TritonGPU/ops.mlir (triton-internals.md 2.0). */
  int reg[] = {0, 1, 16, 0, 32, 0, 64, 0};
  int lane[] = {0, 0, 0, 0, 0, 0, 1, 0, 2, 0};
  int warp[] = {4, 0, 8, 0};
  ir_layout_params p;
  memset(&p, 0, sizeof p);
  p.lin_register = bases_attr(ctx, 4, 2, reg);
  p.lin_lane = bases_attr(ctx, 5, 2, lane);
  p.lin_warp = bases_attr(ctx, 2, 2, warp);
  p.lin_block = ir_array_attr(ctx, 0, NULL);
  const ir_attr *lin = ir_layout_attr(ctx, AT_LINEAR, &p);
  CHECK(layout_rank(lin) == 2, "linear rank");
  CHECK(layout_check(lin, 2, 4, 32) == NULL, "linear check: %s", layout_check(lin, 2, 4, 32));
  int64_t s[2] = {128, 2};
  CHECK(layout_elems_per_thread(lin, 2, s) == 16, "linear elems");
  check_distributed_map("linear 128x2", lin, 2, s, 4, 32, 8);
  int64_t c[2];
  layout_coords(lin, 2, s, 0xF, 31, 3, c);
  CHECK(c[0] == (16 ^ 32 ^ 64 ^ 1 ^ 2 ^ 4 ^ 8) && c[1] == 1, "linear coords (%lld, %lld)", (long long)c[0],
        (long long)c[1]);
  int order[2];
  layout_order(lin, 2, order);
  CHECK(order[0] == 1 && order[1] == 0, "linear order");
}

static void check_shared_permutation(const char *name, const ir_attr *layout, int rank, const int64_t *shape) {
  int64_t n = numel(rank, shape);
  unsigned char *seen = calloc((size_t)n, 1);
  if (!seen) return;
  int64_t bad = -1, dup = -1, back = -1;
  for (int64_t i = 0; i < n; i++) {
    int64_t c[IR_MAX_RANK], rem = i;
    for (int d = rank - 1; d >= 0; d--) {
      c[d] = rem % shape[d];
      rem /= shape[d];
    }
    int64_t off = layout_shared_offset(layout, rank, shape, c);
    if (off < 0 || off >= n) {
      if (bad < 0) bad = i;
      continue;
    }
    if (seen[off]++ && dup < 0) dup = i;
    int64_t c2[IR_MAX_RANK];
    if ((!layout_shared_coord(layout, rank, shape, off, c2) || memcmp(c, c2, sizeof(int64_t) * (size_t)rank)) &&
        back < 0)
      back = i;
  }
  CHECK(bad < 0, "%s: element %lld has no offset", name, (long long)bad);
  CHECK(dup < 0, "%s: element %lld shares its offset", name, (long long)dup);
  CHECK(back < 0, "%s: layout_shared_coord does not invert element %lld", name, (long long)back);
  free(seen);
}

static void test_swizzled_shared(gemmc_context *ctx) {
  /* SharedSwizzled2D_Vec: 4x8, vec 2, perPhase 1, maxPhase 4. */
  int o10[2] = {1, 0}, o01[2] = {0, 1};
  const ir_attr *sw = layout_swizzled_shared_get(ctx, 2, 2, 1, 4, o10);
  int64_t s48[2] = {4, 8};
  layout_linear ll;
  int off[] = {0, 1, 0, 2, 0, 4, 1, 2, 2, 4};
  CHECK(layout_to_linear(sw, 2, s48, &ll) && bases_equal(&ll, LAYOUT_IN_OFFSET, 5, off), "SharedSwizzled2D_Vec bases");
  check_shared_permutation("swizzled 4x8 v2 p1 m4", sw, 2, s48);

  /* The classic formula, where vec * maxPhase fits in a row. */
  struct {
    int vec, per_phase, max_phase;
    int64_t rows, cols;
    const int *order;
  } cases[] = {{8, 1, 8, 64, 64, o10}, {8, 2, 4, 64, 32, o10}, {4, 1, 8, 32, 64, o01}, {1, 1, 1, 16, 16, o10},
               {8, 4, 2, 32, 16, o10}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const ir_attr *l = layout_swizzled_shared_get(ctx, 2, cases[i].vec, cases[i].per_phase, cases[i].max_phase,
                                                  cases[i].order);
    int col_dim = cases[i].order[0], row_dim = cases[i].order[1];
    int64_t shape[2];
    shape[row_dim] = cases[i].rows;
    shape[col_dim] = cases[i].cols;
    check_shared_permutation("swizzled case", l, 2, shape);
    int bad = 0;
    for (int64_t r = 0; r < cases[i].rows; r++)
      for (int64_t cc = 0; cc < cases[i].cols; cc++) {
        int64_t c[2];
        c[row_dim] = r;
        c[col_dim] = cc;
        int64_t phase = (r / cases[i].per_phase) % cases[i].max_phase;
        int64_t col_sw = ((cc / cases[i].vec) ^ phase) * cases[i].vec + cc % cases[i].vec;
        bad += layout_shared_offset(l, 2, shape, c) != r * cases[i].cols + col_sw;
      }
    CHECK(bad == 0, "swizzled case %zu: %d offsets differ from the classic formula", i, bad);
  }
  /* Pipelined buffer [3, 64, 32]: each stage is contiguous. */
  int o3[3] = {2, 1, 0};
  const ir_attr *sw3 = layout_swizzled_shared_get(ctx, 3, 8, 2, 4, o3);
  int64_t s3[3] = {3, 64, 32};
  check_shared_permutation("swizzled 3x64x32", sw3, 3, s3);
  int64_t c3[3] = {2, 5, 9}, c2[2] = {5, 9}, s2[2] = {64, 32};
  const ir_attr *sw2 = layout_swizzled_shared_get(ctx, 2, 8, 2, 4, o10);
  CHECK(layout_shared_offset(sw3, 3, s3, c3) == 2 * 64 * 32 + layout_shared_offset(sw2, 2, s2, c2), "stage offset");

  /* Builder (triton-internals.md 2.5): f16, kWidth 2, K contiguous. */
  int64_t a64[2] = {128, 64}, a32[2] = {128, 32};
  const ir_attr *b64 = layout_swizzled_shared_for_dot_operand(ctx, 0, 2, 2, a64, o10, 16);
  const ir_attr *b32 = layout_swizzled_shared_for_dot_operand(ctx, 0, 2, 2, a32, o10, 16);
  CHECK(b64 == layout_swizzled_shared_get(ctx, 2, 8, 1, 8, o10), "K=64 builder: {%d, %d, %d}", b64->layout.vec,
        b64->layout.per_phase, b64->layout.max_phase);
  CHECK(b32 == layout_swizzled_shared_get(ctx, 2, 8, 2, 4, o10), "K=32 builder: {%d, %d, %d}", b32->layout.vec,
        b32->layout.per_phase, b32->layout.max_phase);
  /* B [K, N] with N contiguous (order [1, 0], K = dim 0): vec and mmaStride swap. */
  int64_t bshape[2] = {32, 128};
  const ir_attr *bn = layout_swizzled_shared_for_dot_operand(ctx, 1, 2, 2, bshape, o10, 16);
  CHECK(bn->layout.vec == 8 && bn->layout.per_phase == 1 && bn->layout.max_phase == 8, "B N-contig builder");
  CHECK(layout_check(b64, 2, 4, 32) == NULL, "swizzled check");
}

static void test_nvmma_shared(gemmc_context *ctx) {
  int o10[2] = {1, 0}, o01[2] = {0, 1};
  int64_t s128x64[2] = {128, 64}, s64x16[2] = {64, 16}, s64x128[2] = {64, 128}, s4x64[2] = {4, 64};
  const ir_attr *n128 = layout_nvmma_shared_get(ctx, 2, s128x64, o10, 16, false);
  CHECK(n128->layout.swizzling_byte_width == 128 && !n128->layout.transposed && n128->layout.element_bit_width == 16,
        "nvmma builder 128x64 f16");
  const ir_attr *n32 = layout_nvmma_shared_get(ctx, 2, s64x16, o10, 16, false);
  CHECK(n32->layout.swizzling_byte_width == 32, "nvmma builder 64x16 f16: %d", n32->layout.swizzling_byte_width);
  const ir_attr *nt = layout_nvmma_shared_get(ctx, 2, s128x64, o01, 16, false);
  CHECK(nt->layout.swizzling_byte_width == 128 && nt->layout.transposed, "nvmma builder transposed");
  const ir_attr *n0 = layout_nvmma_shared_get(ctx, 2, s4x64, o10, 16, false);
  CHECK(n0->layout.swizzling_byte_width == 0, "nvmma builder: fewer than 8 rows is unswizzled");
  CHECK(layout_check(n128, 2, 4, 32) == NULL, "nvmma check");

  check_shared_permutation("nvmma 128x64 f16 sw128", n128, 2, s128x64);
  check_shared_permutation("nvmma 64x128 f16 sw128", n128, 2, s64x128);
  check_shared_permutation("nvmma 64x16 f16 sw32", n32, 2, s64x16);
  check_shared_permutation("nvmma 128x64 f16 sw128 transposed", nt, 2, s128x64);
  check_shared_permutation("nvmma 4x64 unswizzled rows", n0, 2, s64x128);
  int bad = 0;
  for (int64_t r = 0; r < 8; r++)
    for (int64_t c = 0; c < 64; c++) {
      int64_t coord[2] = {r, c};
      bad += layout_shared_offset(n128, 2, s128x64, coord) != r * 64 + (c ^ (8 * r));
    }
  CHECK(bad == 0, "128B swizzle atom: %d mismatches", bad);
  /* 64x128 f16: the second 64-column chunk starts after all 64 rows of the first. */
  int64_t chunk[2] = {0, 64}, row9[2] = {9, 0};
  CHECK(layout_shared_offset(n128, 2, s64x128, chunk) == 64 * 64, "column chunk offset %lld",
        (long long)layout_shared_offset(n128, 2, s64x128, chunk));
  CHECK(layout_shared_offset(n128, 2, s64x128, row9) == 9 * 64 + 8, "row 9 offset");
  /* 64B swizzle, f16: tile 8 x 32, vec 8, perPhase 2, maxPhase 4. */
  int64_t s32x32[2] = {32, 32};
  const ir_attr *n64 = layout_nvmma_shared_get(ctx, 2, s32x32, o10, 16, false);
  CHECK(n64->layout.swizzling_byte_width == 64, "64B builder");
  bad = 0;
  for (int64_t r = 0; r < 32; r++)
    for (int64_t c = 0; c < 32; c++) {
      int64_t coord[2] = {r, c};
      bad += layout_shared_offset(n64, 2, s32x32, coord) != r * 32 + (c ^ (8 * ((r / 2) % 4)));
    }
  CHECK(bad == 0, "64B swizzle: %d mismatches", bad);
  /* Three pipeline stages of 128x64. */
  int o3[3] = {2, 1, 0};
  int64_t s3[3] = {3, 128, 64};
  const ir_attr *n3 = layout_nvmma_shared_get(ctx, 3, s3, o3, 16, false);
  CHECK(n3->layout.swizzling_byte_width == 128 && layout_rank(n3) == 3, "nvmma rank 3");
  check_shared_permutation("nvmma 3x128x64", n3, 3, s3);
  int64_t c3[3] = {2, 3, 5};
  CHECK(layout_shared_offset(n3, 3, s3, c3) == 2 * 128 * 64 + 3 * 64 + (5 ^ 24), "nvmma stage offset");
}

/* Registers whose bases stay inside a constancy block: the tutorial's B-operand layout
 * (spt [1,8], tpw [2,16], wpc [4,1]) on 64x128 holds rows r + 8j; a row mask constant over 16
 * rows repeats every other row register, and the 8 column registers of a vector are free too
 * when the value is constant along columns. */
static void test_register_bits_within(gemmc_context *ctx) {
  int spt[2] = {1, 8}, tpw[2] = {2, 16}, wpc[2] = {4, 1}, o[2] = {1, 0};
  const ir_attr *b = blocked(ctx, 2, spt, tpw, wpc, o);
  layout_linear ll;
  int64_t shape[2] = {64, 128};
  CHECK(layout_to_linear(b, 2, shape, &ll), "64x128 to_linear");
  /* Register bits 0-2: columns 1, 2, 4; bits 3-5: rows 8, 16, 32. */
  int64_t rows16[2] = {16, 1}, rows16_cols128[2] = {16, 128}, one[2] = {1, 1}, all[2] = {64, 128};
  CHECK(layout_linear_register_bits_within(&ll, one) == 0, "constancy 1: no register repeats");
  CHECK(layout_linear_register_bits_within(&ll, rows16) == 0x08, "rows 16, columns 1: only the +8 row bit");
  CHECK(layout_linear_register_bits_within(&ll, rows16_cols128) == 0x0f, "rows 16, columns 128: bits %llx",
        (unsigned long long)layout_linear_register_bits_within(&ll, rows16_cols128));
  CHECK(layout_linear_register_bits_within(&ll, all) == 0x3f, "a splat: every register repeats register 0");
}

static void test_check(gemmc_context *ctx) {
  int spt[2] = {1, 4}, tpw[2] = {2, 8}, wpc[2] = {4, 1}, o10[2] = {1, 0};
  const ir_attr *b = blocked(ctx, 2, spt, tpw, wpc, o10);
  const char *m = layout_check(b, 2, 4, 32);
  CHECK(m && strcmp(m, "threadsPerWarp multiplies to 16, expected 32") == 0, "message: %s", m ? m : "(null)");
  int tpw_ok[2] = {2, 16};
  const ir_attr *ok = blocked(ctx, 2, spt, tpw_ok, wpc, o10);
  CHECK(layout_check(ok, 2, 4, 32) == NULL, "valid blocked");
  m = layout_check(ok, 2, 8, 32);
  CHECK(m && strcmp(m, "warpsPerCTA multiplies to 4, expected 8") == 0, "message: %s", m ? m : "(null)");
  CHECK(layout_check(ok, 3, 4, 32) != NULL, "rank mismatch rejected");
  int bad_order[2] = {1, 1};
  CHECK(layout_check(blocked(ctx, 2, spt, tpw_ok, wpc, bad_order), 2, 4, 32) != NULL, "bad order rejected");
  CHECK(layout_check(layout_dot_op_get(ctx, 0, mma(ctx, 2, 2, 2, 0), 0), 2, 4, 32) != NULL, "kWidth 0 rejected");
  CHECK(layout_check(mma(ctx, 2, 2, 2, 0), 2, 4, 32) == NULL, "mma v2 valid");
  CHECK(layout_check(mma(ctx, 3, 2, 2, 64), 2, 4, 32) != NULL, "v3 with 2 warps along M rejected");
  CHECK(layout_is_shared(layout_swizzled_shared_get(ctx, 1, 1, 1, 1, o10)) && layout_is_distributed(ok),
        "kind predicates");
}

int main(void) {
  gemmc_context *ctx = gemmc_context_create();
  if (!ctx) {
    printf("FAIL: no context\n");
    return 1;
  }
  test_blocked_builder(ctx);
  test_blocked_maps(ctx);
  test_slice(ctx);
  test_mma(ctx);
  test_dot_op(ctx);
  test_mfma(ctx);
  test_linear_attr(ctx);
  test_swizzled_shared(ctx);
  test_nvmma_shared(ctx);
  test_register_bits_within(ctx);
  test_check(ctx);
  gemmc_context_destroy(ctx);
  printf("%s: %d checks, %d failed\n", failures ? "FAIL" : "PASS", checks, failures);
  return failures ? 1 : 0;
}

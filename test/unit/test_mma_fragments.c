/* The MMA v2 layouts (nvidia_mma, dot_op) against the PTX ISA's mma.sync fragments, and the ldmatrix shape of their swizzled shared buffers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemmc/ir.h"
#include "gemmc/layout.h"
#include "target/mma.h"

#include "check.h"

/* ------------------------------------------------------------------ the PTX ISA, written out again */

/* PTX ISA 9.7.14.5 "Matrix Fragments for mma.m16n8k16 / m16n8k8 / m16n8k32", written from the
 * manual's tables independently of lib/lower/lower_dot.c: groupID = lane >> 2,
 * threadID_in_group = lane % 4. */
typedef enum { FRAG_A, FRAG_B, FRAG_C } frag;

static void ptx_fragment(frag f, int bits, int i, int lane, int *row, int *col) {
  int group = lane >> 2, tig = lane % 4;
  if (f == FRAG_C) { /* .f32/.f16/.s32 accumulators of all three shapes */
    *row = i < 2 ? group : group + 8;
    *col = tig * 2 + (i & 1);
    return;
  }
  if (bits == 16) { /* m16n8k16 .f16 / .bf16 */
    if (f == FRAG_A) {
      *row = (i < 2 || (i >= 4 && i < 6)) ? group : group + 8;
      *col = i < 4 ? tig * 2 + (i & 1) : tig * 2 + (i & 1) + 8;
    } else {
      *row = i < 2 ? tig * 2 + (i & 1) : tig * 2 + (i & 1) + 8;
      *col = group;
    }
  } else if (bits == 32) { /* m16n8k8 .tf32 */
    if (f == FRAG_A) {
      *row = (i == 0 || i == 2) ? group : group + 8;
      *col = i < 2 ? tig : tig + 4;
    } else {
      *row = i == 0 ? tig : tig + 4;
      *col = group;
    }
  } else { /* m16n8k32 .s8 / .u8 */
    if (f == FRAG_A) {
      *row = (i < 4 || (i >= 8 && i < 12)) ? group : group + 8;
      *col = i < 8 ? tig * 4 + (i & 3) : tig * 4 + (i & 3) + 16;
    } else {
      *row = i < 4 ? tig * 4 + (i & 3) : tig * 4 + (i & 3) + 16;
      *col = group;
    }
  }
}

static int fragment_size(frag f, int bits) {
  if (f == FRAG_C) return 4;
  int a = 128 / bits; /* 16 x (256 / bits) A elements over 32 lanes: 8, 4, 16 */
  return f == FRAG_A ? a : a / 2;
}

/* ------------------------------------------------------------------ layouts */

static const ir_attr *mma_v2(gemmc_context *ctx, int rank, int wm, int wn) {
  ir_layout_params p;
  memset(&p, 0, sizeof p);
  p.rank = rank;
  p.version_major = 2;
  for (int d = 0; d < rank; d++) p.warps_per_cta[d] = 1;
  p.warps_per_cta[rank - 2] = wm;
  p.warps_per_cta[rank - 1] = wn;
  p.instr_rank = rank;
  for (int d = 0; d < rank; d++) p.instr_shape[d] = 1;
  p.instr_shape[rank - 2] = 16;
  p.instr_shape[rank - 1] = 8;
  return ir_layout_attr(ctx, AT_NVIDIA_MMA, &p);
}

/* One instruction tile: registers 0.. of the layout must be the PTX slots 0.. in order, lane by
 * lane (this is what lets mma.sync take the registers as the layout lists them). */
static void check_one_instruction(gemmc_context *ctx, int bits) {
  const ir_attr *c = mma_v2(ctx, 2, 1, 1);
  int k_width = 32 / bits;
  int k = 256 / bits; /* instruction K: 16, 8, 32 */
  struct {
    frag f;
    const ir_attr *layout;
    int64_t shape[2];
  } ops[3] = {{FRAG_A, layout_dot_op_get(ctx, 0, c, k_width), {16, k}},
              {FRAG_B, layout_dot_op_get(ctx, 1, c, k_width), {k, 8}},
              {FRAG_C, c, {16, 8}}};
  for (int o = 0; o < 3; o++) {
    int n = fragment_size(ops[o].f, bits);
    CHECK(layout_elems_per_thread(ops[o].layout, 2, ops[o].shape) == n, "bits %d operand %d: %lld elements per thread",
          bits, o, (long long)layout_elems_per_thread(ops[o].layout, 2, ops[o].shape));
    for (int lane = 0; lane < 32; lane++)
      for (int i = 0; i < n; i++) {
        int row, col, lrow, lcol;
        int64_t coord[2];
        ptx_fragment(ops[o].f, bits, i, lane, &row, &col);
        layout_coords(ops[o].layout, 2, ops[o].shape, i, lane, 0, coord);
        CHECK(coord[0] == row && coord[1] == col, "bits %d operand %c slot %d lane %d: layout (%lld, %lld), PTX (%d, %d)",
              bits, "ABC"[o], i, lane, (long long)coord[0], (long long)coord[1], row, col);
        /* the lowering's own table agrees with the manual too */
        bool ok = target_mma_fragment_coord((target_mma_operand)ops[o].f, bits, i, lane, &lrow, &lcol);
        CHECK(ok && lrow == row && lcol == col, "bits %d operand %c slot %d lane %d: lowering table (%d, %d)", bits,
              "ABC"[o], i, lane, lrow, lcol);
      }
  }
}

/* A whole tile with warps [wm, wn]: every element a lane holds sits in the PTX slot of that lane
 * inside its instruction tile, and each warp holds exactly the A rows and B columns of the
 * accumulator rows and columns it computes (warp and repetition orders of the three layouts
 * agree). */
static void check_tile(gemmc_context *ctx, int bits, int64_t m, int64_t n, int64_t k, int wm, int wn) {
  const ir_attr *c = mma_v2(ctx, 2, wm, wn);
  const ir_attr *a = layout_dot_op_get(ctx, 0, c, 32 / bits), *b = layout_dot_op_get(ctx, 1, c, 32 / bits);
  int64_t sa[2] = {m, k}, sb[2] = {k, n}, sc[2] = {m, n};
  int64_t na = layout_elems_per_thread(a, 2, sa), nb = layout_elems_per_thread(b, 2, sb), nc = layout_elems_per_thread(c, 2, sc);
  CHECK(nc == m * n / (32 * wm * wn), "C holds %lld per thread", (long long)nc);
  CHECK(na == m * k / (32 * wm), "A holds %lld per thread (broadcast over the %d warps along N)", (long long)na, wn);
  CHECK(nb == k * n / (32 * wn), "B holds %lld per thread", (long long)nb);
  int64_t kk = 256 / bits;
  for (int warp = 0; warp < wm * wn; warp++) {
    /* rows of C this warp computes == rows of A it holds; same for columns and B */
    uint8_t rows_c[1024] = {0}, cols_c[1024] = {0}, rows_a[1024] = {0}, cols_b[1024] = {0};
    for (int lane = 0; lane < 32; lane++) {
      for (int64_t r = 0; r < nc; r++) {
        int64_t co[2];
        layout_coords(c, 2, sc, r, lane, warp, co);
        rows_c[co[0]] = cols_c[co[1]] = 1;
        /* the C fragment: slot of (row, col) inside its 16x8 tile matches the PTX formula */
        int dm = (int)(co[0] % 16), dn = (int)(co[1] % 8), slot = (dm >= 8 ? 2 : 0) + (dn & 1), row, col;
        ptx_fragment(FRAG_C, bits, slot, lane, &row, &col);
        CHECK(row == dm && col == dn, "C (%lld, %lld) at lane %d is not PTX slot %d", (long long)co[0], (long long)co[1],
              lane, slot);
      }
      for (int64_t r = 0; r < na; r++) {
        int64_t co[2];
        layout_coords(a, 2, sa, r, lane, warp, co);
        rows_a[co[0]] = 1;
        int dm = (int)(co[0] % 16), dk = (int)(co[1] % kk);
        bool found = false;
        for (int i = 0; i < fragment_size(FRAG_A, bits) && !found; i++) {
          int row, col;
          ptx_fragment(FRAG_A, bits, i, lane, &row, &col);
          found = row == dm && col == dk;
        }
        CHECK(found, "A (%lld, %lld) at lane %d is in no PTX slot", (long long)co[0], (long long)co[1], lane);
      }
      for (int64_t r = 0; r < nb; r++) {
        int64_t co[2];
        layout_coords(b, 2, sb, r, lane, warp, co);
        cols_b[co[1]] = 1;
        int dk = (int)(co[0] % kk), dn = (int)(co[1] % 8);
        bool found = false;
        for (int i = 0; i < fragment_size(FRAG_B, bits) && !found; i++) {
          int row, col;
          ptx_fragment(FRAG_B, bits, i, lane, &row, &col);
          found = row == dk && col == dn;
        }
        CHECK(found, "B (%lld, %lld) at lane %d is in no PTX slot", (long long)co[0], (long long)co[1], lane);
      }
    }
    CHECK(memcmp(rows_a, rows_c, (size_t)m) == 0, "warp %d: A rows differ from C rows", warp);
    CHECK(memcmp(cols_b, cols_c, (size_t)n) == 0, "warp %d: B columns differ from C columns", warp);
  }
}

/* The swizzled buffer Triton picks for a 16-bit operand must let ldmatrix read it: one register
 * pair, then two lanes, walk 8 contiguous elements (or, transposed, lanes 2..4 do), every other
 * bit moves whole 16-byte rows, and the 8 rows one ldmatrix phase reads fall in 8 different
 * 16-byte bank groups (no bank conflicts). */
static void check_ldmatrix_buffer(gemmc_context *ctx, int op_idx, int64_t rows, int64_t cols, bool row_major) {
  const ir_attr *c = mma_v2(ctx, 2, 2, 2);
  const ir_attr *dot = layout_dot_op_get(ctx, op_idx, c, 2);
  int64_t shape[2] = {rows, cols};
  int order[2] = {row_major ? 1 : 0, row_major ? 0 : 1};
  const ir_attr *shared = layout_swizzled_shared_for_dot_operand(ctx, op_idx, 2, 2, shape, order, 16);
  layout_linear reg, sh;
  CHECK(layout_to_linear(dot, 2, shape, &reg) && layout_to_linear(shared, 2, shape, &sh), "linear layouts");
  int64_t off[3][LAYOUT_MAX_BASES] = {{0}};
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < reg.num_bases[k]; i++) {
      int64_t coord[2] = {reg.bases[k][i][0], reg.bases[k][i][1]}, in[LAYOUT_IN_COUNT];
      if (coord[0] == 0 && coord[1] == 0) continue;
      CHECK(layout_linear_invert(&sh, coord, in), "basis in the buffer");
      off[k][i] = in[LAYOUT_IN_OFFSET];
    }
  /* K contiguous in memory: no transpose (A row-major, B column-major). */
  bool trans = (op_idx == 0) != row_major;
  int64_t row_bases[3];
  if (!trans) {
    CHECK(off[0][0] == 1 && off[1][0] == 2 && off[1][1] == 4, "op %d: a row is not 8 contiguous elements", op_idx);
    for (int i = 0; i < 3; i++) row_bases[i] = off[1][2 + i];
  } else {
    CHECK(off[1][2] == 1 && off[1][3] == 2 && off[1][4] == 4, "op %d: lanes 4..28 do not walk a row", op_idx);
    row_bases[0] = off[0][0];
    row_bases[1] = off[1][0];
    row_bases[2] = off[1][1];
  }
  for (int i = 0; i < 3; i++) CHECK(row_bases[i] % 8 == 0, "op %d: row basis %d not 16-byte aligned", op_idx, i);
  /* One phase: rows j = 0..7 at row_bases combinations, XOR any fixed other offset (a register
   * group). Bank group = (offset / 8) % 8 must be a permutation of 0..7. */
  for (int g = 0; g < (1 << (reg.num_bases[0] - 1)); g++) {
    int64_t base = 0;
    for (int i = 1; i < reg.num_bases[0]; i++)
      if ((g >> (i - 1)) & 1) base ^= off[0][i];
    int seen = 0;
    for (int j = 0; j < 8; j++) {
      int64_t o = base;
      for (int i = 0; i < 3; i++)
        if ((j >> i) & 1) o ^= row_bases[i];
      seen |= 1 << ((o / 8) % 8);
    }
    CHECK(seen == 0xff, "op %d %s %lldx%lld: ldmatrix phase %d has bank conflicts (groups 0x%x)", op_idx,
          row_major ? "row-major" : "col-major", (long long)rows, (long long)cols, g, seen);
  }
}

int main(void) {
  gemmc_context *ctx = gemmc_context_create();
  if (!ctx) return 1;
  check_one_instruction(ctx, 16);
  check_one_instruction(ctx, 32);
  check_one_instruction(ctx, 8);
  check_tile(ctx, 16, 128, 128, 64, 2, 2);
  check_tile(ctx, 16, 128, 256, 64, 2, 4);
  check_tile(ctx, 16, 64, 64, 32, 2, 2);
  check_tile(ctx, 32, 64, 64, 32, 2, 2);
  check_tile(ctx, 8, 64, 64, 64, 2, 2);
  check_ldmatrix_buffer(ctx, 0, 128, 64, true);
  check_ldmatrix_buffer(ctx, 1, 64, 128, true);
  check_ldmatrix_buffer(ctx, 1, 64, 128, false);
  check_ldmatrix_buffer(ctx, 0, 128, 32, true);
  check_ldmatrix_buffer(ctx, 1, 32, 128, true);
  gemmc_context_destroy(ctx);
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}

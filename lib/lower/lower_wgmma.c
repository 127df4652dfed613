/* Warpgroup MMA: ttng.warp_group_dot (the target's wgmma with shared-memory matrix descriptors, accumulator fragments from the nvidia_mma v3 layout) and ttng.warp_group_dot_wait. */
#include <string.h>

#include "lower_dot.h"
#include "lower_ops.h"
#include "target/mma.h"

/*
 * One instruction computes a 64 x N tile of a warpgroup (4 consecutive warps, 16 rows each) from
 * A (64 x K) and B (K x N) in shared memory. A shared operand is described to the tensor cores
 * by a 64-bit descriptor: its start address, the byte distance between 8-row groups (the
 * "stride" offset) and between swizzle atoms along the other dim (the "leading" offset), and
 * the swizzle width. Everything is read off the operand's #ttg.nvmma_shared layout through the
 * layout module (layout_shared_offset), the way Triton's DotOpMmaSmemLoader reads its linear
 * layout, so that the copies that fill the buffer and the instruction agree by construction.
 */

/* A shared operand of the dot, ready for descriptors. */
typedef struct wgmma_operand {
  const ir_type *type;        /* the memdesc */
  int elem_bytes;
  bool mn_major;              /* M (A) or N (B) is the contiguous dim: a transposed operand */
  unsigned long long bits;    /* leading / stride offsets and swizzle mode */
  LLVMValueRef desc;          /* i64 descriptor of this warpgroup's (0, 0) */
} wgmma_operand;

static int64_t shared_offset(const ir_type *mt, int64_t row, int64_t col) {
  int64_t coord[2] = {row, col};
  return layout_shared_offset(mt->encoding, 2, mt->shape, coord);
}

/* Descriptor constants of a 2-D nvmma_shared operand read by instructions of extent
 * instr[0] x instr[1] (A: 64 x K, B: K x N), `mn_dim` being its M or N dim (Triton's
 * DotOpMmaSmemLoader::getDescriptor). */
static bool operand_bits(lower_state *s, ir_op *op, const ir_type *mt, int mn_dim, const int64_t *instr,
                         wgmma_operand *o) {
  const ir_attr *enc = mt->encoding;
  if (mt->kind != TY_MEMDESC || mt->rank != 2 || !enc || enc->kind != AT_NVMMA_SHARED) {
    ir_op_error(s->ctx, op, "lowering of ttng.warp_group_dot needs 2-D #ttg.nvmma_shared operands in shared memory, got %s",
                ir_type_str(s->ctx, mt));
    return false;
  }
  int bits = (int)ir_type_bits(ir_type_element(mt));
  int swizzle = enc->layout.swizzling_byte_width;
  int order[2];
  layout_order(enc, 2, order);
  int contig = order[0];
  /* The swizzle atom ("core matrix" when unswizzled): 8 rows of one 16..128-byte line. */
  int64_t atom[2];
  atom[contig] = (int64_t)(swizzle ? swizzle : 16) * 8 / bits;
  atom[1 - contig] = 8;
  o->mn_major = contig == mn_dim;
  int leading = contig, strided = 1 - contig;
  if (swizzle == 0 && o->mn_major) { /* the offsets swap roles for unswizzled MN-major operands */
    leading = 1 - contig;
    strided = contig;
  }
  if (mt->shape[0] < instr[0] || mt->shape[1] < instr[1]) {
    ir_op_error(s->ctx, op, "cannot lower ttng.warp_group_dot: operand %s is smaller than one %lldx%lld instruction tile",
                ir_type_str(s->ctx, mt), (long long)instr[0], (long long)instr[1]);
    return false;
  }
  int64_t unit[2][2] = {{atom[0], 0}, {0, atom[1]}};
  int64_t lbo = instr[leading] > atom[leading] ? shared_offset(mt, unit[leading][0], unit[leading][1]) : 0;
  int64_t sbo = instr[strided] > atom[strided] ? shared_offset(mt, unit[strided][0], unit[strided][1]) : 0;
  if (lbo < 0 || sbo < 0) {
    ir_op_error(s->ctx, op, "cannot lower ttng.warp_group_dot: no descriptor for %s", ir_type_str(s->ctx, mt));
    return false;
  }
  o->type = mt;
  o->elem_bytes = bits / 8;
  o->bits = s->cg->matrix_descriptor((int)(lbo * o->elem_bytes), (int)(sbo * o->elem_bytes), swizzle);
  return true;
}

/* The descriptor of this thread's warpgroup at the operand's origin: the buffer address plus
 * the offset of the rows (A) or columns (B) that the warpgroup bits of the accumulator layout
 * select, >> 4, with the constant bits. */
static LLVMValueRef warpgroup_descriptor(lower_state *s, ir_op *op, const lower_layout_info *lc, int mn_dim,
                                         const wgmma_operand *o) {
  const lower_values *mem = lower_get(s, op, op->operands[mn_dim == 0 ? 0 : 1].value);
  if (!mem) return NULL;
  int64_t wg_off[LAYOUT_MAX_BASES] = {0};
  int nbits = lc->ll.num_bases[LAYOUT_IN_WARP];
  for (int i = 2; i < nbits; i++) { /* warp bits 0, 1 are the warps of one warpgroup */
    int64_t mn = lc->ll.bases[LAYOUT_IN_WARP][i][mn_dim];
    wg_off[i] = (mn_dim == 0 ? shared_offset(o->type, mn, 0) : shared_offset(o->type, 0, mn)) * o->elem_bytes;
  }
  LLVMValueRef wg = lower_apply_bits(s, s->threads->warp, wg_off, nbits);
  LLVMValueRef addr = LLVMBuildPtrToInt(s->b, mem->v[0], s->i32, "");
  addr = LLVMBuildAdd(s->b, addr, wg, "");
  LLVMValueRef start = LLVMBuildAnd(s->b, LLVMBuildLShr(s->b, addr, lower_i32(s, 4), ""), lower_i32(s, 0x3FFF), "");
  LLVMValueRef desc = LLVMBuildZExt(s->b, start, s->i64, "");
  return LLVMBuildOr(s->b, desc, LLVMConstInt(s->i64, o->bits, 0), "");
}

/* The descriptor of the instruction tile at (row, col) of the warpgroup's part of the operand. */
static LLVMValueRef tile_descriptor(lower_state *s, const wgmma_operand *o, int64_t row, int64_t col) {
  int64_t bytes = shared_offset(o->type, row, col) * o->elem_bytes;
  unsigned long long add = (unsigned long long)(bytes >> 4);
  /* The pattern offset: which 128-byte line of the swizzle period the tile starts at. */
  int swizzle = o->type->encoding->layout.swizzling_byte_width;
  if (swizzle) add |= (unsigned long long)((bytes / 128) & ((swizzle >> 4) - 1)) << 49;
  return add ? LLVMBuildAdd(s->b, o->desc, LLVMConstInt(s->i64, add, 0), "") : o->desc;
}

/* One m64 x n accumulator tile of a warpgroup: its origin (warp 0, lane 0) and, for each
 * register of the instruction's D fragment, the layout register holding it. */
typedef struct acc_tile {
  int64_t m0, n0;
  int *reg; /* n/2 entries */
} acc_tile;

/* The PTX ISA's D fragment of wgmma m64nNk*: element i of lane l in warp w of the warpgroup. */
static void d_fragment(int i, int lane, int warp, int64_t *row, int64_t *col) {
  *row = 16 * warp + lane / 4 + 8 * ((i >> 1) & 1);
  *col = 8 * (i >> 2) + 2 * (lane % 4) + (i & 1);
}

/* Groups the accumulator's registers into instruction tiles and checks, lane by lane, that the
 * layout is the instruction's fragment. */
static acc_tile *accumulator_tiles(lower_state *s, ir_op *op, const lower_layout_info *lc, int n, int *num_tiles) {
  int per_tile = n / 2;
  int ntiles = lc->num_regs / per_tile;
  if (ntiles * per_tile != lc->num_regs || lc->ll.num_bases[LAYOUT_IN_WARP] < 2 || lc->ll.num_bases[LAYOUT_IN_LANE] != 5) {
    ir_op_error(s->ctx, op, "cannot lower ttng.warp_group_dot: the accumulator layout is not wgmma's");
    return NULL;
  }
  acc_tile *tiles = lower_alloc(s, sizeof *tiles * (size_t)ntiles);
  if (!tiles) return NULL;
  int count = 0;
  for (int r = 0; r < lc->num_regs; r++) {
    int64_t c[IR_MAX_RANK];
    lower_reg_coord(lc, r, c);
    int64_t m0 = c[0] - c[0] % 16, n0 = c[1] - c[1] % n;
    int64_t dm = c[0] - m0, dn = c[1] - n0;
    int i = (int)((dn / 8) * 4 + (dm / 8) * 2 + (dn & 1));
    int t = 0;
    while (t < count && !(tiles[t].m0 == m0 && tiles[t].n0 == n0)) t++;
    if (t == count) {
      if (count == ntiles) break;
      tiles[t].m0 = m0;
      tiles[t].n0 = n0;
      tiles[t].reg = lower_alloc(s, sizeof(int) * (size_t)per_tile);
      if (!tiles[t].reg) return NULL;
      for (int j = 0; j < per_tile; j++) tiles[t].reg[j] = -1;
      count++;
    }
    if ((dm != 0 && dm != 8) || dn % 8 > 1 || tiles[t].reg[i] >= 0) {
      count = -1;
      break;
    }
    tiles[t].reg[i] = r;
  }
  /* Every lane of the four warps of the first warpgroup holds the formula's element. The layout
   * is linear in the lane and warp bits, and so is the fragment where its bit fields do not carry
   * into the tile's origin (row origins at multiples of 64; column origins are multiples of 8):
   * then lane and warp 0 and each single lane or warp bit decide all 128 threads. */
  static const int probes[][2] = {{0, 0}, {1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {0, 1}, {0, 2}};
  for (int t = 0; t < count; t++) {
    bool affine = tiles[t].m0 % 64 == 0;
    for (int i = 0; i < per_tile; i++)
      for (int k = 0; k < (affine ? 8 : 128); k++) {
        int lane = affine ? probes[k][0] : k % 32, w = affine ? probes[k][1] : k / 32;
        int64_t in[LAYOUT_IN_COUNT] = {0}, got[IR_MAX_RANK], row, col;
        in[LAYOUT_IN_REGISTER] = tiles[t].reg[i];
        in[LAYOUT_IN_LANE] = lane;
        in[LAYOUT_IN_WARP] = w;
        layout_linear_apply(&lc->ll, in, got);
        d_fragment(i, lane, w, &row, &col);
        if (got[0] != tiles[t].m0 + row || got[1] != tiles[t].n0 + col) {
          ir_op_error(s->ctx, op, "cannot lower ttng.warp_group_dot: the accumulator layout is not wgmma's D fragment");
          return NULL;
        }
      }
  }
  if (count != ntiles) {
    ir_op_error(s->ctx, op, "cannot lower ttng.warp_group_dot: the accumulator layout is not wgmma's D fragment");
    return NULL;
  }
  *num_tiles = ntiles;
  return tiles;
}

/* The instruction registers of a tile: f32/s32 scalars, or f16 pairs packed into i32. */
static int pack_tile(lower_state *s, const lower_values *vc, const acc_tile *t, int per_tile, bool packed_f16,
                     LLVMValueRef *regs) {
  if (!packed_f16) {
    for (int i = 0; i < per_tile; i++) regs[i] = lower_elem(vc, t->reg[i]);
    return per_tile;
  }
  for (int j = 0; j < per_tile / 2; j++) {
    LLVMValueRef pair[2] = {lower_elem(vc, t->reg[2 * j]), lower_elem(vc, t->reg[2 * j + 1])};
    regs[j] = lower_pack_f16x2(s, pair);
  }
  return per_tile / 2;
}

static void unpack_tile(lower_state *s, lower_values *out, const acc_tile *t, int per_tile, bool packed_f16,
                        LLVMValueRef *regs) {
  if (!packed_f16) {
    for (int i = 0; i < per_tile; i++) out->v[t->reg[i]] = regs[i];
    return;
  }
  for (int j = 0; j < per_tile / 2; j++) {
    LLVMValueRef pair[2];
    lower_unpack_f16x2(s, regs[j], pair);
    for (int h = 0; h < 2; h++) out->v[t->reg[2 * j + h]] = pair[h];
  }
}

/* A's fragment from registers for the instruction at rows m0.., K step ks: the same per-warp
 * fragment as mma.sync's A (16 rows of a warp; m16n8k16 for 16-bit, m16n8k32 for 8-bit
 * elements), packed into four i32. */
static bool a_fragment(lower_state *s, ir_op *op, const target_mma *mi, const lower_layout_info *la,
                       const lower_values *va, int64_t m0, int64_t ks, LLVMValueRef *regs) {
  int bits = mi->operand_bits, per_reg = 32 / bits;
  LLVMTypeRef elem = lower_elem_type(s, op->operands[0].value->type);
  for (int r = 0; r < 4; r++) {
    LLVMValueRef v = LLVMGetUndef(LLVMVectorType(elem, (unsigned)per_reg));
    for (int j = 0; j < per_reg; j++) {
      int64_t reg = lower_mma_fragment_register(la, TARGET_MMA_A, bits, r * per_reg + j, 0, m0, ks * mi->k);
      if (reg < 0) {
        ir_op_error(s->ctx, op, "cannot lower to %s: the layout of A in registers is not the instruction's fragment",
                    mi->name);
        return false;
      }
      v = LLVMBuildInsertElement(s->b, v, lower_elem(va, (int)reg), lower_i32(s, j), "");
    }
    regs[r] = LLVMBuildBitCast(s->b, v, s->i32, "");
  }
  return true;
}

/* The ttng.warp_group_dot_wait right after dot that waits for dot's result and nothing else
 * (memdescs pass through it), or NULL. */
static ir_op *folded_wait(ir_op *dot) {
  ir_op *wait = dot->next;
  if (!wait || wait->kind != OP_WARP_GROUP_DOT_WAIT) return NULL;
  int tensors = 0;
  for (int i = 0; i < wait->num_operands; i++)
    if (ir_type_is_tensor(wait->operands[i].value->type)) {
      if (wait->operands[i].value != &dot->results[0]) return NULL;
      tensors++;
    }
  return tensors == 1 ? wait : NULL;
}

static bool lower_warp_group_dot(lower_state *s, ir_op *op) {
  const ir_type *at = op->operands[0].value->type, *bt = op->operands[1].value->type, *ct = op->results[0].type;
  const ir_attr *enc = ct->encoding;
  if (!s->cg->wgmma || !(s->target->mma_kinds & GEMMC_MMA_WGMMA)) {
    ir_op_error(s->ctx, op, "target %s has no warpgroup MMA (wgmma needs sm_90a)", s->target->name);
    return false;
  }
  if (!enc || enc->kind != AT_NVIDIA_MMA || enc->layout.version_major != 3 || ct->rank != 2) {
    ir_op_error(s->ctx, op, "ttng.warp_group_dot needs a 2-D #ttg.nvidia_mma version 3 result");
    return false;
  }
  const target_mma *mi = target_mma_for_dot(GEMMC_MMA_WGMMA, op);
  if (!mi) {
    ir_op_error(s->ctx, op, "wgmma does not multiply %s x %s -> %s", ir_type_str(s->ctx, ir_type_element(at)),
                ir_type_str(s->ctx, ir_type_element(bt)), ir_type_str(s->ctx, ir_type_element(ct)));
    return false;
  }
  int n = enc->layout.instr_shape[1];
  int64_t K = at->shape[1];
  if (n % 8 != 0 || n > 256 || K % mi->k != 0) {
    ir_op_error(s->ctx, op, "cannot lower to %s: N = %d, K = %lld do not fit the instruction", mi->name, n, (long long)K);
    return false;
  }
  lower_layout_info *lc = lower_layout_of(s, op, ct);
  const lower_values *vc = lower_get(s, op, op->operands[2].value);
  if (!lc || !vc) return false;
  int ntiles = 0;
  acc_tile *tiles = accumulator_tiles(s, op, lc, n, &ntiles);
  if (!tiles) return false;
  wgmma_operand oa, ob;
  memset(&oa, 0, sizeof oa);
  int64_t instr_a[2] = {64, mi->k}, instr_b[2] = {mi->k, n};
  /* A from shared memory (a descriptor), or from registers (a #ttg.dot_op of the v3 layout). */
  bool regs_a = at->kind != TY_MEMDESC;
  lower_layout_info *la = regs_a ? lower_layout_of(s, op, at) : NULL;
  const lower_values *va = regs_a ? lower_get(s, op, op->operands[0].value) : NULL;
  if (regs_a && (!la || !va)) return false;
  if (regs_a && (!at->encoding || at->encoding->kind != AT_DOT_OP || mi->operand_bits > 16)) {
    ir_op_error(s->ctx, op, "cannot lower ttng.warp_group_dot: A in registers must be a 16- or 8-bit #ttg.dot_op");
    return false;
  }
  if ((!regs_a && !operand_bits(s, op, at, 0, instr_a, &oa)) || !operand_bits(s, op, bt, 1, instr_b, &ob)) return false;
  if (!mi->allows_transpose && (oa.mn_major || ob.mn_major)) {
    ir_op_error(s->ctx, op, "cannot lower to %s: its operands must be K-major in shared memory", mi->name);
    return false;
  }
  if ((!regs_a && !(oa.desc = warpgroup_descriptor(s, op, lc, 0, &oa))) ||
      !(ob.desc = warpgroup_descriptor(s, op, lc, 1, &ob)))
    return false;

  bool packed = mi->c_packed_f16;
  int per_tile = n / 2, nregs = packed ? per_tile / 2 : per_tile;
  /* One instruction holds its whole accumulator tile in registers; a block so large that a
   * thread gets fewer (64K registers shared by the block) cannot be assembled (ptxas C7602: a
   * fuzz finding with 32 warps and n = 128). The margin is the descriptors and addresses. */
  int block_threads = s->num_warps * s->threads_per_warp;
  int regs_per_thread = block_threads > 0 ? 65536 / block_threads : 255;
  if (regs_per_thread > 255) regs_per_thread = 255;
  if (nregs + 24 > regs_per_thread) {
    ir_op_error(s->ctx, op,
                "cannot lower ttng.warp_group_dot: its %dx%d accumulator tiles need %d registers per thread, more "
                "than the %d a block of %d threads leaves each (fewer warps or a narrower instruction)",
                64, n, nregs + 24, regs_per_thread, block_threads);
    return false;
  }
  lower_values *out = lower_values_new(s, op, lc->num_regs);
  LLVMValueRef *regs = lower_alloc(s, sizeof *regs * (size_t)(ntiles * nregs));
  target_wgmma *instrs = lower_alloc(s, sizeof *instrs * (size_t)(ntiles * (K / mi->k)));
  if (!out || !regs || !instrs) return false;
  /* useC (false: a reset accumulator) applies to the first instruction of each tile; the rest
   * accumulate what it started. */
  LLVMValueRef always = LLVMConstInt(s->i1, 1, 0), first_use_c = always;
  if (op->num_operands > 3) {
    const lower_values *u = lower_get(s, op, op->operands[3].value);
    if (!u) return false;
    first_use_c = u->v[0];
  }
  /* All tiles' registers in one statement when they fit it (the wait can then join it), else one
   * statement per tile (each instruction's registers counted from its tile's first). */
  bool together = ntiles * nregs <= TARGET_WGMMA_MAX_ACC;
  /* Tiles outer, K inner: the instructions of one accumulator chain in the tensor cores. */
  int count = 0;
  for (int t = 0; t < ntiles; t++) {
    pack_tile(s, vc, &tiles[t], per_tile, packed, regs + t * nregs);
    for (int64_t ks = 0; ks < K / mi->k; ks++) {
      target_wgmma *w = &instrs[count++];
      w->instr = mi;
      w->n = n;
      w->acc_first = together ? t * nregs : 0;
      w->acc_count = nregs;
      w->trans_a = oa.mn_major;
      w->trans_b = ob.mn_major;
      w->use_c = ks == 0 ? first_use_c : always;
      if (regs_a) {
        if (!a_fragment(s, op, mi, la, va, tiles[t].m0, ks, w->a_regs)) return false;
      } else {
        w->desc_a = tile_descriptor(s, &oa, tiles[t].m0, ks * mi->k);
      }
      w->desc_b = tile_descriptor(s, &ob, ks * mi->k, tiles[t].n0);
    }
  }
  /* The wait that follows a dot (Triton's pipelined loops put it right after) goes into the
   * dot's own statement when all its registers fit one: then nothing has to carry them past the
   * wait again. A synchronous dot waits for itself. */
  const ir_attr *async = ir_op_get_attr(op, "isAsync");
  bool sync = !async || !async->int_value;
  ir_op *wait = sync ? NULL : folded_wait(op);
  int commit_wait = !together ? -1 : sync ? 0 : wait ? (int)ir_op_get_int_attr(wait, "pendings", 0) : -1;
  s->cg->wgmma_fence(&s->em);
  bool emitted = true;
  if (together) {
    emitted = s->cg->wgmma(&s->em, instrs, count, regs, ntiles * nregs, commit_wait);
  } else {
    int per = (int)(K / mi->k);
    for (int t = 0; t < ntiles && emitted; t++)
      emitted = s->cg->wgmma(&s->em, instrs + t * per, per, regs + t * nregs, nregs, -1);
  }
  if (!emitted) {
    ir_op_error(s->ctx, op, "cannot lower ttng.warp_group_dot: the code generator could not write its %d instructions",
                count);
    return false;
  }
  if (commit_wait < 0) s->cg->wgmma_commit(&s->em);
  if (sync && commit_wait < 0) s->cg->wgmma_wait(&s->em, 0, regs, ntiles * nregs);
  for (int t = 0; t < ntiles; t++) unpack_tile(s, out, &tiles[t], per_tile, packed, regs + t * nregs);
  if (wait && commit_wait >= 0) s->folded_wgmma_wait = wait;
  return lower_set(s, &op->results[0], out);
}

/* Whether a tensor's registers are f16 values that go through a wait in packed pairs. */
static bool f16_pairs(lower_state *s, const lower_values *v) {
  return v->n % 2 == 0 && LLVMTypeOf(v->v[0]) == LLVMHalfTypeInContext(s->llctx);
}

/* Waits until at most `pendings` groups are in flight; the tensors it names are read only
 * after it (their registers go through the wait). A barrier of the role follows before the next
 * shared-memory access: the shared memory the finished groups read may be overwritten by any
 * thread after it, and another warpgroup's groups may still read it. (One warpgroup would be
 * safe without it, but the cp.async ring measured 10% slower without it on an H100, and 4-6%
 * slower with it right here than right before the next copies: docs/perf-notes.md.) */
static bool lower_warp_group_dot_wait(lower_state *s, ir_op *op) {
  if (!s->cg->wgmma_wait) {
    ir_op_error(s->ctx, op, "target %s has no warpgroup MMA", s->target->name);
    return false;
  }
  int pendings = (int)ir_op_get_int_attr(op, "pendings", 0);
  int total = 0;
  for (int i = 0; i < op->num_operands; i++)
    if (ir_type_is_tensor(op->operands[i].value->type)) {
      const lower_values *v = lower_get(s, op, op->operands[i].value);
      if (!v) return false;
      total += v->n;
    }
  LLVMValueRef *regs = lower_alloc(s, sizeof *regs * (size_t)(total > 0 ? total : 1));
  if (!regs) return false;
  /* f16 accumulators go through in the pairs their MMA packs them in (lower_packed_phis.c then
   * carries those pairs through the loop as they are); a wait the dot already did passes its
   * values on as they are. */
  bool folded = s->folded_wgmma_wait == op;
  if (folded) s->folded_wgmma_wait = NULL; /* done by the dot before it (lower_warp_group_dot) */
  int k = 0;
  for (int i = 0; i < op->num_operands; i++)
    if (ir_type_is_tensor(op->operands[i].value->type)) {
      const lower_values *v = lower_get(s, op, op->operands[i].value);
      bool pairs = !folded && f16_pairs(s, v);
      for (int j = 0; j < v->n; j += pairs ? 2 : 1) regs[k++] = pairs ? lower_pack_f16x2(s, v->v + j) : v->v[j];
    }
  if (!folded) s->cg->wgmma_wait(&s->em, pendings, regs, k);
  lower_barrier_defer(s);
  k = 0;
  for (int i = 0; i < op->num_operands; i++) {
    const lower_values *v = lower_get(s, op, op->operands[i].value);
    if (!v) return false;
    if (!ir_type_is_tensor(op->operands[i].value->type)) {
      if (!lower_set(s, &op->results[i], v)) return false; /* a memdesc passes through */
      continue;
    }
    lower_values *out = lower_values_new(s, op, v->n);
    if (!out) return false;
    bool pairs = !folded && f16_pairs(s, v);
    for (int j = 0; j < v->n; j += pairs ? 2 : 1) {
      if (pairs)
        lower_unpack_f16x2(s, regs[k++], out->v + j);
      else
        out->v[j] = regs[k++];
    }
    if (!lower_set(s, &op->results[i], out)) return false;
  }
  return true;
}

bool lower_wgmma(lower_state *s, ir_op *op) {
  if (op->kind == OP_WARP_GROUP_DOT) return lower_warp_group_dot(s, op);
  return lower_warp_group_dot_wait(s, op);
}

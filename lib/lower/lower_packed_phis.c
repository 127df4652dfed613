/* Loop-carried f16 pairs as packed i32 phis, so ptxas keeps f16-accumulator warpgroup MMAs asynchronous (C7514). */
#include "lower_state.h"

/*
 * A warpgroup MMA with f16 accumulators takes them as f16 pairs packed into 32-bit registers
 * (lower_wgmma.c's pack_tile), and the lowering carries every element through a loop as a phi of
 * its own. Each iteration then unpacks the instruction's results into halves and packs them again
 * for the next instruction: the unpacking reads the accumulator registers of an MMA still in
 * flight (the loop's wait keeps one group pending), and ptxas serializes every MMA of the kernel
 * (C7514; 10% of the 128x256 cp.async kernel's speed, perf-notes 62). Here, once a function is
 * lowered, every `bitcast (<2 x half> of phis a, b) to i32` whose a and b are phis of one block
 * becomes one i32 phi of that block, its incoming values packed in the predecessors (where they
 * were unpacked, LLVM folds pack(unpack(x)) back to x); the half phis go when nothing else reads
 * them. The wait after the loop packs its halves the same way (lower_warp_group_dot_wait).
 */

typedef struct packed_phi {
  LLVMValueRef lo, hi, phi;
} packed_phi;

static bool half_phis_of_one_block(LLVMValueRef a, LLVMValueRef b);

/* The phis a and b when `cast` is bitcast(insertelement(insertelement(undef, a, 0), b, 1)) to i32
 * with a, b half phis of one block; else false. */
static bool phi_pair(LLVMValueRef cast, LLVMTypeRef i32, LLVMValueRef *a, LLVMValueRef *b) {
  if (LLVMGetInstructionOpcode(cast) != LLVMBitCast || LLVMTypeOf(cast) != i32) return false;
  LLVMValueRef hi_ins = LLVMGetOperand(cast, 0);
  if (!LLVMIsAInsertElementInst(hi_ins)) return false;
  LLVMValueRef lo_ins = LLVMGetOperand(hi_ins, 0);
  if (!LLVMIsAInsertElementInst(lo_ins) || !LLVMIsUndef(LLVMGetOperand(lo_ins, 0))) return false;
  LLVMValueRef lo_lane = LLVMGetOperand(lo_ins, 2), hi_lane = LLVMGetOperand(hi_ins, 2);
  if (!LLVMIsAConstantInt(lo_lane) || LLVMConstIntGetZExtValue(lo_lane) != 0 || !LLVMIsAConstantInt(hi_lane) ||
      LLVMConstIntGetZExtValue(hi_lane) != 1)
    return false;
  *a = LLVMGetOperand(lo_ins, 1);
  *b = LLVMGetOperand(hi_ins, 1);
  return half_phis_of_one_block(*a, *b);
}

/* Whether a and b are half phis of one block (a pair that an i32 phi can carry). */
static bool half_phis_of_one_block(LLVMValueRef a, LLVMValueRef b) {
  return LLVMIsAPHINode(a) && LLVMIsAPHINode(b) && a != b &&
         LLVMGetInstructionParent(a) == LLVMGetInstructionParent(b) &&
         LLVMGetTypeKind(LLVMTypeOf(a)) == LLVMHalfTypeKind && LLVMTypeOf(a) == LLVMTypeOf(b);
}

typedef struct packed_phis {
  packed_phi *made;
  int count, capacity;
} packed_phis;

/* The i32 phi that carries the pair (a, b): made once per pair at the top of their block (and
 * recorded before its incoming values, so a pair that flows round a loop unchanged finds it),
 * each incoming pair packed right before its predecessor's terminator, or carried by its own i32
 * phi when it is a pair of phis too (a loop's results entering the next loop). */
static LLVMValueRef packed_phi_of(lower_state *s, packed_phis *p, LLVMValueRef a, LLVMValueRef b) {
  for (int i = 0; i < p->count; i++)
    if (p->made[i].lo == a && p->made[i].hi == b) return p->made[i].phi;
  if (p->count == p->capacity) return NULL;
  LLVMBasicBlockRef block = LLVMGetInstructionParent(a);
  LLVMPositionBuilder(s->b, block, LLVMGetFirstInstruction(block));
  LLVMValueRef phi = LLVMBuildPhi(s->b, s->i32, "acc.pair");
  p->made[p->count++] = (packed_phi){a, b, phi};
  LLVMTypeRef half2 = LLVMVectorType(LLVMTypeOf(a), 2);
  unsigned n = LLVMCountIncoming(a);
  for (unsigned i = 0; i < n; i++) {
    LLVMBasicBlockRef pred = LLVMGetIncomingBlock(a, i);
    LLVMValueRef pair[2] = {LLVMGetIncomingValue(a, i), NULL};
    for (unsigned j = 0; j < LLVMCountIncoming(b) && !pair[1]; j++)
      if (LLVMGetIncomingBlock(b, j) == pred) pair[1] = LLVMGetIncomingValue(b, j);
    LLVMValueRef packed = half_phis_of_one_block(pair[0], pair[1]) ? packed_phi_of(s, p, pair[0], pair[1]) : NULL;
    if (!packed) {
      LLVMPositionBuilderBefore(s->b, LLVMGetBasicBlockTerminator(pred));
      packed = LLVMBuildBitCast(s->b, lower_build_vector(s, half2, pair, 2), s->i32, "");
    }
    LLVMAddIncoming(phi, &packed, &pred, 1);
  }
  return phi;
}

static void erase_if_unused(LLVMValueRef v) {
  if (v && LLVMIsAInstruction(v) && !LLVMGetFirstUse(v)) LLVMInstructionEraseFromParent(v);
}

bool lower_pack_half_phis(lower_state *s, LLVMValueRef fn) {
  int num_casts = 0, num_half_phis = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
      LLVMValueRef a, b;
      if (phi_pair(in, s->i32, &a, &b)) num_casts++;
      if (LLVMIsAPHINode(in) && LLVMGetTypeKind(LLVMTypeOf(in)) == LLVMHalfTypeKind) num_half_phis++;
    }
  if (num_casts == 0) return true;
  LLVMValueRef *casts = lower_alloc(s, sizeof *casts * (size_t)num_casts);
  /* Pairs are disjoint in what the lowering makes: at most one per two half phis. */
  packed_phis p = {lower_alloc(s, sizeof *p.made * (size_t)(num_half_phis / 2 + 1)), 0, num_half_phis / 2 + 1};
  if (!casts || !p.made) return false;
  int k = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
      LLVMValueRef a, b;
      if (phi_pair(in, s->i32, &a, &b)) casts[k++] = in;
    }
  for (int i = 0; i < num_casts; i++) {
    LLVMValueRef a, b, phi;
    if (!phi_pair(casts[i], s->i32, &a, &b) || !(phi = packed_phi_of(s, &p, a, b))) continue;
    LLVMReplaceAllUsesWith(casts[i], phi);
    LLVMValueRef hi_ins = LLVMGetOperand(casts[i], 0), lo_ins = LLVMGetOperand(hi_ins, 0);
    LLVMInstructionEraseFromParent(casts[i]);
    erase_if_unused(hi_ins);
    erase_if_unused(lo_ins);
  }
  /* Half phis nothing reads any more but each other (a loop's phi and the next loop's, a pair
   * carried round a loop unchanged) go; their incoming unpacking then goes in LLVM's clean-up. */
  LLVMValueRef *dead = lower_alloc(s, sizeof *dead * (size_t)(2 * p.count + 1));
  if (!dead) return false;
  int num_dead = 0;
  for (int i = 0; i < p.count; i++)
    for (int h = 0; h < 2; h++) {
      LLVMValueRef phi = h ? p.made[i].hi : p.made[i].lo;
      bool seen = false;
      for (int j = 0; j < num_dead && !seen; j++) seen = dead[j] == phi;
      if (!seen) dead[num_dead++] = phi;
    }
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = 0; i < num_dead; i++) {
      bool read_elsewhere = false;
      for (LLVMUseRef u = LLVMGetFirstUse(dead[i]); u && !read_elsewhere; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        bool in_set = false;
        for (int j = 0; j < num_dead && !in_set; j++) in_set = dead[j] == user;
        read_elsewhere = !in_set;
      }
      if (read_elsewhere) {
        dead[i--] = dead[--num_dead];
        changed = true;
      }
    }
  }
  for (int i = 0; i < num_dead; i++) LLVMReplaceAllUsesWith(dead[i], LLVMGetUndef(LLVMTypeOf(dead[i])));
  for (int i = 0; i < num_dead; i++) LLVMInstructionEraseFromParent(dead[i]);
  return true;
}

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

/* Whether a and b are half phis of one block (a pair that an i32 phi can carry). */
static bool half_phis_of_one_block(LLVMValueRef a, LLVMValueRef b) {
  return LLVMIsAPHINode(a) && LLVMIsAPHINode(b) && a != b &&
         LLVMGetInstructionParent(a) == LLVMGetInstructionParent(b) &&
         LLVMGetTypeKind(LLVMTypeOf(a)) == LLVMHalfTypeKind && LLVMTypeOf(a) == LLVMTypeOf(b);
}

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

/* The i32 phis made so far, by the pair of half phis each carries, and those half phis. */
typedef struct packed_phis {
  ptr_map by_pair;
  ptr_list halves;
} packed_phis;

/* The i32 phi that carries the pair (a, b): made once per pair at the top of their block (and
 * recorded before its incoming values, so a pair that flows round a loop unchanged finds it),
 * each incoming pair packed right before its predecessor's terminator, or carried by its own i32
 * phi when it is a pair of phis too (a loop's results entering the next loop). NULL: out of
 * memory. */
static LLVMValueRef packed_phi_of(lower_state *s, packed_phis *p, LLVMValueRef a, LLVMValueRef b) {
  ptr_map_value *made = ptr_map_insert(&p->by_pair, a, b);
  if (!made) return NULL;
  if (made->ptr) return made->ptr;
  LLVMBasicBlockRef block = LLVMGetInstructionParent(a);
  LLVMPositionBuilder(s->b, block, LLVMGetFirstInstruction(block));
  LLVMValueRef phi = LLVMBuildPhi(s->b, s->i32, "acc.pair");
  made->ptr = phi;
  ptr_list_push_unique(&p->halves, a);
  ptr_list_push_unique(&p->halves, b);
  unsigned n = LLVMCountIncoming(a);
  for (unsigned i = 0; i < n; i++) {
    LLVMBasicBlockRef pred = LLVMGetIncomingBlock(a, i);
    LLVMValueRef pair[2] = {LLVMGetIncomingValue(a, i), NULL};
    for (unsigned j = 0; j < LLVMCountIncoming(b) && !pair[1]; j++)
      if (LLVMGetIncomingBlock(b, j) == pred) pair[1] = LLVMGetIncomingValue(b, j);
    LLVMValueRef packed;
    if (half_phis_of_one_block(pair[0], pair[1])) {
      if (!(packed = packed_phi_of(s, p, pair[0], pair[1]))) return NULL;
    } else {
      LLVMPositionBuilderBefore(s->b, LLVMGetBasicBlockTerminator(pred));
      packed = lower_pack_f16x2(s, pair);
    }
    LLVMAddIncoming(phi, &packed, &pred, 1);
  }
  return phi;
}

static void erase_if_unused(LLVMValueRef v) {
  if (v && LLVMIsAInstruction(v) && !LLVMGetFirstUse(v)) LLVMInstructionEraseFromParent(v);
}

/* Half phis of p that nothing reads any more but each other (a loop's phi and the next loop's, a
 * pair carried round a loop unchanged) go; their incoming unpacking then goes in LLVM's clean-up.
 * False: out of memory. */
static bool erase_unread_halves(packed_phis *p, gemmc_context *ctx) {
  ptr_map read_elsewhere = {ctx, NULL, 0, 0};
  bool ok = true;
  for (bool changed = true; changed && ok;) {
    changed = false;
    for (int i = 0; i < p->halves.count && ok; i++) {
      LLVMValueRef phi = p->halves.items[i];
      if (ptr_map_get(&read_elsewhere, phi)) continue;
      for (LLVMUseRef u = LLVMGetFirstUse(phi); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (!ptr_list_contains(&p->halves, user) || ptr_map_get(&read_elsewhere, user)) {
          ok = ptr_map_put(&read_elsewhere, phi, phi);
          changed = true;
          break;
        }
      }
    }
  }
  if (ok) {
    for (int i = 0; i < p->halves.count; i++)
      if (!ptr_map_get(&read_elsewhere, p->halves.items[i]))
        LLVMReplaceAllUsesWith(p->halves.items[i], LLVMGetUndef(LLVMTypeOf(p->halves.items[i])));
    for (int i = 0; i < p->halves.count; i++)
      if (!ptr_map_get(&read_elsewhere, p->halves.items[i])) LLVMInstructionEraseFromParent(p->halves.items[i]);
  }
  ptr_map_free(&read_elsewhere);
  return ok;
}

bool lower_pack_half_phis(lower_state *s, LLVMValueRef fn) {
  ptr_list casts = {s->ctx, NULL, 0, 0};
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
      LLVMValueRef a, b;
      if (phi_pair(in, s->i32, &a, &b)) ptr_list_push(&casts, in);
    }
  packed_phis p = {{s->ctx, NULL, 0, 0}, {s->ctx, NULL, 0, 0}};
  bool ok = true;
  for (int i = 0; i < casts.count && ok; i++) {
    LLVMValueRef cast = casts.items[i], a, b, phi;
    phi_pair(cast, s->i32, &a, &b);
    if (!(phi = packed_phi_of(s, &p, a, b))) {
      ok = false;
      break;
    }
    LLVMReplaceAllUsesWith(cast, phi);
    LLVMValueRef hi_ins = LLVMGetOperand(cast, 0), lo_ins = LLVMGetOperand(hi_ins, 0);
    LLVMInstructionEraseFromParent(cast);
    erase_if_unused(hi_ins);
    erase_if_unused(lo_ins);
  }
  ok = ok && erase_unread_halves(&p, s->ctx);
  ptr_list_free(&casts);
  ptr_map_free(&p.by_pair);
  ptr_list_free(&p.halves);
  return ok;
}

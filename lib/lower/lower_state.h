/* The lowering state every op family works on: the LLVM module and builders, the value map (IR value -> its per-thread LLVM values), memory, types and small emission helpers (lower_state.c). */
#ifndef GEMMC_LOWER_STATE_H
#define GEMMC_LOWER_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include <llvm-c/Core.h>

#include "gemmc/allocation.h"
#include "gemmc/axis_info.h"
#include "gemmc/ir.h"
#include "gemmc/layout.h"
#include "gemmc/target.h"
#include "ir/util.h"
#include "target/codegen.h"

/* What one IR value is per thread: a scalar is one value; a tensor the list of the elements this
 * thread holds, in register order of its layout (length layout_elems_per_thread). */
typedef struct lower_values {
  int n;
  LLVMValueRef *v;
} lower_values;

/* Per (layout, shape) index information (lower_index.h). */
typedef struct lower_layout_info lower_layout_info;

/* The threads that run the code being lowered: the whole block, or (warp specialization) the
 * warps of one role. Coordinates are relative to the role, and every layout's lane/warp index
 * math is computed once per role in its own prologue, so roles never share register values. */
typedef struct lower_threads {
  int num_warps;               /* warps of this role */
  int first_warp;              /* the role's warps are [first_warp, first_warp + num_warps) of the block */
  int barrier_id;              /* its hardware barrier: 0 for the whole block, 1.. for a specialized role */
  LLVMValueRef barrier_value;  /* the barrier id as a value when copies of a region share its code (else NULL) */
  LLVMValueRef replica;        /* gemmc.replica_id: which copy of the region runs (NULL: 0) */
  LLVMBuilderRef pro;          /* this role's prologue: before its first block's branch */
  LLVMValueRef tid, lane, warp; /* i32, computed in the prologue */
  lower_layout_info *layouts;  /* per-(layout, shape) index info for these threads */
} lower_threads;

typedef struct lower_state {
  gemmc_context *ctx;
  const gemmc_target *target;
  const target_codegen *cg; /* what the target emits (lib/target/codegen.h) */
  target_emitter em;        /* the target's view of the main builder */
  LLVMContextRef llctx;
  LLVMModuleRef mod;
  LLVMBuilderRef b;        /* main builder: where the current op's code goes */
  LLVMValueRef fn;
  ir_op *func;
  axis_info_analysis *axis;
  gemmc_allocation *alloc;
  LLVMValueRef smem;       /* the dynamic shared memory array (the target's shared address space) */
  int num_warps, threads_per_warp;
  int kernel_max_registers; /* .maxnreg of the kernel being lowered (0: none) */
  bool fp_fusion;           /* mulf / addf / subf may contract into fma (Triton's enable_fp_fusion) */
  lower_threads kernel_threads; /* every thread of the block */
  lower_threads *threads;       /* the role being lowered (&kernel_threads outside specialized regions) */
  /* ir_value -> lower_values. The values live in the arena (lower_alloc), not in the table, so
   * a pointer from lower_get stays valid while the map grows. */
  ptr_map map;
  /* Device-side tensor maps of the kernel being lowered (lower_tma.c): its table of slots, the
   * slot this block holds (NULL: the kernel makes no descriptors), descriptors so far. */
  LLVMValueRef tma_maps, tma_busy, tma_ticket, tma_slot;
  LLVMTypeRef tma_maps_type;
  int tma_num_descs, tma_next_desc;
  /* A slot's bytes: the maps, then the ttg.global_scratch_alloc ops' bytes (0: the kernel claims
   * none); each scratch op -> its bytes' offset after the maps. */
  int64_t tma_slot_bytes;
  ptr_map tma_scratch_offsets;
  const ir_op *tma_claim_at; /* the first descriptor of the run the slot is claimed in (NULL: at the start) */
  /* A late claim's compare-and-swap on the block's own slot, issued at the start (thread 0: the
   * flag's old value, 0 = won; others 1) and that slot; tma_claim_which: the first descriptor's
   * index in the table. */
  LLVMValueRef tma_own_slot, tma_speculative_old;
  int tma_claim_which;
  int64_t tma_slot_word;     /* shared byte offset of the word that hands the slot over */
  int64_t tma_extra_shared;  /* bytes past the allocation the slot hand-over takes */
  bool oom; /* an allocation failed (without an out-of-memory unwind set by the caller) */
  /* A barrier of s->threads is owed before the next op that may touch shared memory or leave
   * the block (lower_barrier_defer). */
  bool barrier_deferred;
  /* The ttg.local_alloc whose closing barrier is the one owed, when only ops that leave shared
   * memory alone came after it (NULL otherwise): a second local_alloc whose bytes are apart from
   * its needs no opening barrier of its own (the first one's opening barrier ordered every earlier
   * reader), the owed one publishes both. */
  const ir_op *owed_store;
  /* Threads may have read shared memory (ld.shared, ldmatrix) since the last barrier: an
   * asynchronous copy into shared memory waits for a barrier first (write after read). Unknown,
   * so set, where control flow joins (region entries, after region ops). */
  bool smem_read_pending;
  /* The ttng.warp_group_dot_wait whose wait the dot before it already emitted (lower_wgmma.c). */
  const ir_op *folded_wgmma_wait;
  /* cached types */
  LLVMTypeRef i1, i8, i16, i32, i64, f32, voidt, gptr, sptr;
} lower_state;

/* A state for lowering into a new LLVM module `module_name` (s->mod, the caller's to keep or
 * dispose): builders, cached types and the dynamic shared-memory array; lower_state_dispose
 * releases all but the module. */
void lower_state_init(lower_state *s, gemmc_context *ctx, const gemmc_target *target, const target_codegen *cg,
                      LLVMContextRef llctx, const char *module_name, int num_warps, int threads_per_warp);
void lower_state_dispose(lower_state *s);
/* Forgets the lowered values and the per-layout info of the function just lowered. */
void lower_state_forget_function(lower_state *s);
/* Zeroed memory in the context's arena (NULL, and s->oom set, when it ran out). */
void *lower_alloc(lower_state *s, size_t size);
/* A fresh list of n values (NULL on out of memory, after reporting it at op). */
lower_values *lower_values_new(lower_state *s, const ir_op *op, int n);
bool lower_set(lower_state *s, const ir_value *v, const lower_values *vals);
bool lower_set1(lower_state *s, const ir_value *v, LLVMValueRef x);
/* The lowered form of v, or NULL (with an error at op) when it was never lowered. */
const lower_values *lower_get(lower_state *s, const ir_op *op, const ir_value *v);
/* Element i of a lowered value; scalars broadcast to any i. */
LLVMValueRef lower_elem(const lower_values *vals, int i);

/* The LLVM type of one element of t (i1 stays i1; fp8 is i8 storage). NULL when unsupported. */
LLVMTypeRef lower_elem_type(lower_state *s, const ir_type *t);
/* Bytes an element of t takes in memory (i1 takes one byte, pointers 8). */
int lower_elem_bytes(const ir_type *t);
LLVMValueRef lower_i32(lower_state *s, int64_t v);
/* An f32 constant (v rounded to f32). */
LLVMValueRef lower_f32(lower_state *s, double v);
/* a * b + c in f32 with one rounding (llvm.fma.f32). */
LLVMValueRef lower_fma_f32(lower_state *s, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c);
/* i1: this is thread 0 of the current role (s->threads). */
LLVMValueRef lower_thread0(lower_state *s);
/* An integer index as i32: sign-extended when narrower; when wider, truncated if it fits, else -1
 * (out of range of any unsigned bound check). */
LLVMValueRef lower_index_i32(lower_state *s, LLVMValueRef v);
/* Code after lower_begin_if runs only where cond holds, until lower_end_if(s, the block it
 * returned), where both paths meet. */
LLVMBasicBlockRef lower_begin_if(lower_state *s, LLVMValueRef cond, const char *name);
void lower_end_if(lower_state *s, LLVMBasicBlockRef done);
/* The vector of type vt (n lanes) holding elems[0..n): the vector the elements were extracted
 * from when they are its lanes in order (a conversion that produced pairs, packed again for a
 * store or an MMA), else one built lane by lane. Keeps extract/insert round trips out of the IR
 * that LLVM would otherwise spend its time folding. */
LLVMValueRef lower_build_vector(lower_state *s, LLVMTypeRef vt, const LLVMValueRef *elems, int n);
/* Two f16 values packed into one i32, pair[0] in the low half (how MMAs take f16 pairs), and
 * back. */
LLVMValueRef lower_pack_f16x2(lower_state *s, const LLVMValueRef pair[2]);
void lower_unpack_f16x2(lower_state *s, LLVMValueRef packed, LLVMValueRef pair[2]);
/* Calls a target-independent LLVM intrinsic (llvm.fmuladd.f32, ...; declared on first use). */
LLVMValueRef lower_call(lower_state *s, const char *name, LLVMTypeRef ret, LLVMValueRef *args, int n);
/* A barrier of the threads of the current role. */
void lower_barrier(lower_state *s);
/* The same barrier, emitted only before the next op of the block that may access shared memory
 * or leave the block (lower_block), so that register arithmetic runs before the warps meet (as
 * Triton's barrier insertion places it: right before the conflicting write). */
void lower_barrier_defer(lower_state *s);
/* Emits the deferred barrier, if one is owed. */
void lower_barrier_settle(lower_state *s);
/* x from the lane whose index differs from this one's in lane_mask (the target's butterfly
 * shuffle of 32-bit words): 64-bit values go as two halves, narrower ones widened, floats and
 * pointers as their bits. */
LLVMValueRef lower_shuffle_xor(lower_state *s, LLVMValueRef x, int lane_mask);
/* The type an element of LLVM type t takes in memory: i1 takes a byte (i8), others themselves. */
LLVMTypeRef lower_memory_type(lower_state *s, LLVMTypeRef t);
/* Pointer into dynamic shared memory at a constant byte offset plus a dynamic element index. */
LLVMValueRef lower_smem_ptr(lower_state *s, int64_t byte_offset, LLVMTypeRef elem, LLVMValueRef index);
/* The same from base (a shared-memory pointer, e.g. lower_shared_base's) instead of the start. */
LLVMValueRef lower_smem_ptr_from(lower_state *s, LLVMValueRef base, int64_t byte_offset, LLVMTypeRef elem,
                                 LLVMValueRef index);
int64_t lower_scratch_offset(lower_state *s, const ir_op *op);
/* Where op's shared memory (a ttg.local_alloc's buffer, another op's scratch space) starts for
 * the threads lowering it now: the copies of a replicated warp-specialize region each have their
 * own (gemmc_allocation_copy_stride); NULL when op has none. */
LLVMValueRef lower_shared_base(lower_state *s, const ir_op *op);

#endif

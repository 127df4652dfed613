/* Hopper's asynchronous machinery: mbarriers (ttng.init/inval/arrive/wait_barrier, barrier_expect), TMA copies (async_tma_copy_*, async_tma_store_wait), fences, and tensor descriptors built on the device (tt.make_tensor_descriptor; Triton's ttg.global_scratch_alloc + ttng.tensormap_create) in per-block slots of a global table. */
#include <stdio.h>
#include <string.h>

#include "lower_ops.h"

/*
 * Device-side tensor maps. A tensor map must sit in global (or parameter) memory while TMA
 * copies use it, and blocks of one launch may run beside blocks of another launch of the same
 * kernel with other arguments (other streams). Every kernel that makes descriptors therefore
 * owns a table of TMA_SLOTS slots of (descriptors of the kernel) x 128 bytes, a ticket counter
 * and a busy flag per slot. Thread 0 first tries the slot of its block id (compare-and-swap on
 * the flag: blocks of one launch never collide there, so one atomic round trip is the usual
 * cost), then takes tickets until the flag of slot ticket % TMA_SLOTS is free; all threads read
 * the slot through shared memory, and the flag is released when the block returns. A block waits
 * only while TMA_SLOTS other blocks hold slots (more than fit on a GPU at once). When the
 * descriptors are all made in one run that executes at most once (no enclosing loop or
 * warp-specialized region) the claim is late: thread 0 issues the own slot's compare-and-swap
 * first in the kernel (blocks below %nsmid only, so a persistent kernel's idle waves do no
 * atomics), the run's maps are filled in shared memory, and only then is the result read (tickets
 * if it lost), so the round trip overlaps the worker count's load and the fills (perf-notes 33).
 * Otherwise the claim comes first in the kernel. Each descriptor is written into its 128 bytes of
 * shared scratch by the first lane of one warp (tensormap.replace on a zeroed map; a run of
 * descriptors takes one warp each), copied out and released to the tensor-map proxy by that warp
 * (tensormap.cp_fenceproxy), acquired (Triton's TMAToLLVM sequence), and prefetched into the TMA
 * unit's descriptor cache.
 *
 * Triton's own TTGIR makes device-side descriptors itself: ttg.global_scratch_alloc (per-program
 * global bytes, which Triton's launcher allocates and passes as an extra kernel parameter),
 * ttng.tensormap_create into them, ttng.tensormap_fenceproxy_acquire, and
 * ttng.reinterpret_tensor_descriptor. gemmc keeps the kernel's parameters as the TTGIR declares
 * them and gives each block its scratch in the same slot table instead: a slot holds the
 * kernel's tt.make_tensor_descriptor maps, then the scratch ops' bytes in program order (each at
 * its alignment, at most 128); a kernel with scratch claims its slot at the start.
 */
enum { TMA_SLOTS = 1024, TMA_MAP_BYTES = 128 };
/* Global scratch of one block: Triton's kernels take 128 bytes per device-side descriptor;
 * the table holds TMA_SLOTS of them. */
enum { MAX_GLOBAL_SCRATCH_BYTES = 4096 };
/* A busy flag is 0 or 1; this stands for "no compare-and-swap was issued". */
enum { SLOT_UNTRIED = 2 };

static LLVMValueRef and_pred(lower_state *s, LLVMValueRef a, LLVMValueRef b) {
  return b ? LLVMBuildAnd(s->b, a, b, "") : a;
}

static bool need(lower_state *s, const ir_op *op, bool have) {
  if (!have) ir_op_error(s->ctx, op, "'%s' needs the Hopper asynchronous units (target %s has none)", ir_op_name(op),
                         s->target->name);
  return have;
}

static LLVMValueRef value1(lower_state *s, const ir_op *op, int i) {
  const lower_values *v = lower_get(s, op, op->operands[i].value);
  return v ? v->v[0] : NULL;
}

/* ------------------------------------------------------------------ per-kernel descriptor slots */

static bool count_descs(ir_op *op, void *user) {
  if (op->kind == OP_MAKE_TENSOR_DESC) (*(int *)user)++;
  return true;
}

/* The ttg.global_scratch_alloc ops of a function in program order, each at its alignment: their
 * bytes, the largest alignment, how many, and each op's offset (in s->tma_scratch_offsets, so
 * that lowering one needs no walk). */
typedef struct scratch_sum {
  lower_state *s;
  int64_t bytes, max_align;
  int count;
} scratch_sum;

static bool sum_scratch(ir_op *op, void *user) {
  scratch_sum *w = user;
  if (op->kind != OP_GLOBAL_SCRATCH_ALLOC) return true;
  int64_t align = ir_op_get_int_attr(op, "alignment", 1);
  w->bytes = (w->bytes + align - 1) / align * align;
  ptr_map_value *at = ptr_map_insert(&w->s->tma_scratch_offsets, op, NULL);
  if (!at) {
    w->s->oom = true;
    return false;
  }
  at->num = w->bytes;
  w->bytes += ir_op_get_int_attr(op, "nbytes", 0);
  if (align > w->max_align) w->max_align = align;
  w->count++;
  return true;
}

static LLVMValueRef kernel_global(lower_state *s, const char *suffix, LLVMTypeRef type, unsigned addr_space, int align) {
  char name[256];
  snprintf(name, sizeof name, "%s_%s", LLVMGetValueName(s->fn), suffix);
  LLVMValueRef g = LLVMAddGlobalInAddressSpace(s->mod, type, name, addr_space);
  LLVMSetInitializer(g, LLVMConstNull(type));
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetAlignment(g, (unsigned)align);
  return g;
}

static bool find_first_desc(ir_op *op, void *user) {
  if (op->kind != OP_MAKE_TENSOR_DESC) return true;
  *(ir_op **)user = op;
  return false;
}

/* The first descriptor op when every descriptor of func is made in its run and that run executes
 * at most once, uniformly: its ancestors are scf.if ops (scalar, block-uniform conditions) and
 * func. NULL otherwise. */
static const ir_op *late_claim_point(ir_op *func, int num_descs) {
  ir_op *first = NULL;
  ir_walk(func, find_first_desc, &first);
  if (!first) return NULL;
  int in_run = 0;
  const ir_op *last = gemmc_tensormap_run_last(first);
  for (const ir_op *op = first; op; op = op == last ? NULL : op->next) in_run += op->kind == OP_MAKE_TENSOR_DESC;
  if (in_run != num_descs) return NULL;
  for (const ir_op *op = ir_op_parent_op(first); op && op != func; op = ir_op_parent_op(op))
    if (op->kind != OP_SCF_IF) return NULL;
  return first;
}

/* The shared word that hands the claimed slot (or -1: none) to the block's threads. */
static LLVMValueRef slot_word(lower_state *s) { return lower_smem_ptr(s, s->tma_slot_word, s->i32, lower_i32(s, 0)); }

/* The busy flag of `slot`. */
static LLVMValueRef slot_flag(lower_state *s, LLVMValueRef slot) {
  LLVMValueRef idx[2] = {lower_i32(s, 0), slot};
  return LLVMBuildGEP2(s->b, LLVMArrayType(s->i32, TMA_SLOTS), s->tma_busy, idx, 2, "");
}

/* Compare-and-swap of slot's flag from free to busy; i1: this thread got it. */
static LLVMValueRef try_slot(lower_state *s, LLVMValueRef slot) {
  LLVMValueRef cas = LLVMBuildAtomicCmpXchg(s->b, slot_flag(s, slot), lower_i32(s, 0), lower_i32(s, 1),
                                            LLVMAtomicOrderingAcquire, LLVMAtomicOrderingMonotonic, false);
  return LLVMBuildExtractValue(s->b, cas, 1, "");
}

/* The block's linear id: x + y * nx + z * nx * ny. */
static LLVMValueRef linear_block_id(lower_state *s) {
  LLVMValueRef linear = s->cg->program_id(&s->em, 2);
  for (int axis = 1; axis >= 0; axis--)
    linear = LLVMBuildAdd(s->b, LLVMBuildMul(s->b, linear, s->cg->num_programs(&s->em, axis), ""),
                          s->cg->program_id(&s->em, axis), "");
  return linear;
}

/* The own slot of the block of linear id `linear`: one launch's blocks get distinct ones. */
static LLVMValueRef own_slot(lower_state *s, LLVMValueRef linear) {
  return LLVMBuildAnd(s->b, linear, lower_i32(s, TMA_SLOTS - 1), "slot.own");
}

/* Thread 0 claims a slot and stores it in the shared word; every thread reads it after a barrier.
 * It tries its own slot with one compare-and-swap, then takes tickets. A late claim finds that
 * compare-and-swap's result from the start (SLOT_UNTRIED: the block did not issue it). */
static void claim_slot(lower_state *s) {
  LLVMValueRef shared_slot = slot_word(s);
  LLVMBasicBlockRef acquire = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "tma.acquire");
  LLVMBasicBlockRef try_own = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "tma.own");
  LLVMBasicBlockRef take = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "tma.tickets");
  LLVMBasicBlockRef retry = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "tma.retry");
  LLVMBasicBlockRef got = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "tma.got");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "tma.join");
  LLVMBuildCondBr(s->b, lower_thread0(s), acquire, join);

  LLVMPositionBuilderAtEnd(s->b, acquire);
  LLVMValueRef own = s->tma_speculative_old ? s->tma_own_slot : own_slot(s, linear_block_id(s));
  LLVMBasicBlockRef won_at_start = NULL;
  if (s->tma_speculative_old) {
    LLVMBasicBlockRef lost = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "tma.own.lost");
    LLVMBuildCondBr(s->b, LLVMBuildICmp(s->b, LLVMIntEQ, s->tma_speculative_old, lower_i32(s, 0), ""), got, lost);
    won_at_start = acquire;
    LLVMPositionBuilderAtEnd(s->b, lost);
    LLVMBuildCondBr(s->b, LLVMBuildICmp(s->b, LLVMIntEQ, s->tma_speculative_old, lower_i32(s, SLOT_UNTRIED), ""),
                    try_own, take);
  } else {
    LLVMBuildBr(s->b, try_own);
  }
  LLVMPositionBuilderAtEnd(s->b, try_own);
  LLVMBuildCondBr(s->b, try_slot(s, own), got, take);

  LLVMPositionBuilderAtEnd(s->b, take);
  LLVMValueRef first = LLVMBuildAtomicRMW(s->b, LLVMAtomicRMWBinOpAdd, s->tma_ticket, lower_i32(s, 1),
                                          LLVMAtomicOrderingMonotonic, false);
  LLVMBuildBr(s->b, retry);
  LLVMPositionBuilderAtEnd(s->b, retry);
  LLVMValueRef t = LLVMBuildPhi(s->b, s->i32, "ticket");
  LLVMValueRef slot = LLVMBuildAnd(s->b, t, lower_i32(s, TMA_SLOTS - 1), "slot");
  LLVMValueRef won = try_slot(s, slot);
  LLVMValueRef next = LLVMBuildAtomicRMW(s->b, LLVMAtomicRMWBinOpAdd, s->tma_ticket, lower_i32(s, 1),
                                         LLVMAtomicOrderingMonotonic, false);
  /* The extra ticket of a winner is harmless: tickets only spread blocks over slots. */
  LLVMBuildCondBr(s->b, won, got, retry);
  LLVMValueRef in_vals[2] = {first, next};
  LLVMBasicBlockRef in_blocks[2] = {take, retry};
  LLVMAddIncoming(t, in_vals, in_blocks, 2);

  LLVMPositionBuilderAtEnd(s->b, got);
  LLVMValueRef held = LLVMBuildPhi(s->b, s->i32, "slot.held");
  LLVMValueRef got_vals[3] = {own, slot, own};
  LLVMBasicBlockRef got_blocks[3] = {try_own, retry, won_at_start};
  LLVMAddIncoming(held, got_vals, got_blocks, won_at_start ? 3 : 2);
  LLVMBuildStore(s->b, held, shared_slot);
  LLVMBuildBr(s->b, join);
  LLVMPositionBuilderAtEnd(s->b, join);
  s->cg->barrier(&s->em);
  s->tma_slot = LLVMBuildLoad2(s->b, s->i32, shared_slot, "tma.slot");
}

/* Host-built descriptors (by-value parameters): thread 0 warms the TMA unit's descriptor cache
 * with each at the start, as CUTLASS's producers do, so the first copies need not fetch them. */
static void prefetch_parameter_maps(lower_state *s, ir_op *func) {
  if (!s->cg->tensormap_prefetch) return;
  ir_block *entry = ir_region_entry(&func->regions[0]);
  for (int i = 0; entry && i < entry->num_args; i++) {
    if (entry->args[i]->type->kind != TY_TENSORDESC) continue;
    const lower_values *v = lower_get(s, func, entry->args[i]);
    if (v) s->cg->tensormap_prefetch(&s->em, v->v[0], lower_thread0(s));
  }
}

bool lower_tma_kernel_begin(lower_state *s, ir_op *func) {
  prefetch_parameter_maps(s, func);
  s->tma_extra_shared = 0;
  s->tma_num_descs = 0;
  s->tma_next_desc = 0;
  s->tma_slot = NULL;
  s->tma_claim_at = NULL;
  s->tma_own_slot = s->tma_speculative_old = NULL;
  s->tma_claim_which = 0;
  s->tma_slot_bytes = 0;
  ir_walk(func, count_descs, &s->tma_num_descs);
  ptr_map_clear(&s->tma_scratch_offsets);
  scratch_sum scratch = {.s = s};
  ir_walk(func, sum_scratch, &scratch);
  if (s->oom) {
    ir_op_error(s->ctx, func, "out of memory while placing the kernel's global scratch");
    return false;
  }
  bool has_scratch = scratch.count > 0;
  if (!s->tma_num_descs && !has_scratch) return true;
  if (s->tma_num_descs && !s->cg->tensormap_write) {
    ir_op_error(s->ctx, func, "tensor descriptors need TMA (NVIDIA sm_90 or newer), not target %s", s->target->name);
    return false;
  }
  if (scratch.max_align > TMA_MAP_BYTES || scratch.bytes > MAX_GLOBAL_SCRATCH_BYTES) {
    ir_op_error(
        s->ctx, func,
        "the kernel's ttg.global_scratch_alloc ops take %lld bytes at alignment %lld; gemmc gives a block at most "
        "%d bytes at alignment %d",
        (long long)scratch.bytes, (long long)scratch.max_align, MAX_GLOBAL_SCRATCH_BYTES, TMA_MAP_BYTES);
    return false;
  }
  s->tma_slot_bytes =
      (int64_t)s->tma_num_descs * TMA_MAP_BYTES + (scratch.bytes + TMA_MAP_BYTES - 1) / TMA_MAP_BYTES * TMA_MAP_BYTES;
  if (!s->tma_slot_bytes) s->tma_slot_bytes = TMA_MAP_BYTES; /* scratch ops of 0 bytes still get an address */
  LLVMTypeRef maps_type = LLVMArrayType(s->i8, (unsigned)(TMA_SLOTS * s->tma_slot_bytes));
  s->tma_maps = kernel_global(s, "tma_maps", maps_type, s->cg->global_addr_space, TMA_MAP_BYTES);
  s->tma_maps_type = maps_type;
  s->tma_busy = kernel_global(s, "tma_busy", LLVMArrayType(s->i32, TMA_SLOTS), s->cg->global_addr_space, 4);
  s->tma_ticket = kernel_global(s, "tma_ticket", s->i32, s->cg->global_addr_space, 4);
  /* The slot number goes to the other threads through a word of shared memory past the
   * kernel's buffers (a static shared variable would move the dynamic array, whose nvmma
   * buffers need 1024-byte alignment). */
  s->tma_slot_word = (gemmc_allocation_total(s->alloc) + 15) / 16 * 16;
  s->tma_extra_shared = s->tma_slot_word + 16 - gemmc_allocation_total(s->alloc);
  /* Scratch may be used anywhere: the slot is claimed first. */
  s->tma_claim_at = has_scratch ? NULL : late_claim_point(func, s->tma_num_descs);
  if (!s->tma_claim_at) {
    claim_slot(s);
    return true;
  }
  /* Claimed later, or never (a block that makes no descriptor): the word says which, for the
   * release at the end, which thread 0 (the claimer) reads itself. Thread 0 also issues the
   * compare-and-swap on the block's own slot now, so that its round trip overlaps the worker
   * count's load and the maps' fills instead of following them (the claim only reads the result;
   * a block that never claims gives a won slot back at the end). Blocks past the SM ids never
   * work in a persistent kernel and skip it: a large grid's idle blocks, which run in waves after
   * the workers, stay free of atomics (perf-notes 22). */
  LLVMValueRef linear = linear_block_id(s);
  s->tma_own_slot = own_slot(s, linear);
  LLVMBasicBlockRef from = LLVMGetInsertBlock(s->b);
  LLVMBasicBlockRef mark = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "tma.unclaimed");
  LLVMBasicBlockRef speculate = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "tma.speculate");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "tma.marked");
  LLVMBuildCondBr(s->b, lower_thread0(s), mark, join);
  LLVMPositionBuilderAtEnd(s->b, mark);
  LLVMBuildStore(s->b, lower_i32(s, -1), slot_word(s));
  LLVMValueRef may_work = LLVMConstInt(s->i1, 1, 0);
  if (s->cg->num_multiprocessors)
    may_work = LLVMBuildICmp(s->b, LLVMIntULT, linear, s->cg->num_multiprocessors(&s->em), "");
  LLVMBuildCondBr(s->b, may_work, speculate, join);
  LLVMPositionBuilderAtEnd(s->b, speculate);
  LLVMValueRef cas = LLVMBuildAtomicCmpXchg(s->b, slot_flag(s, s->tma_own_slot), lower_i32(s, 0), lower_i32(s, 1),
                                            LLVMAtomicOrderingAcquire, LLVMAtomicOrderingMonotonic, false);
  LLVMValueRef old = LLVMBuildExtractValue(s->b, cas, 0, "");
  LLVMBuildBr(s->b, join);
  LLVMPositionBuilderAtEnd(s->b, join);
  s->tma_speculative_old = LLVMBuildPhi(s->b, s->i32, "slot.own.old");
  LLVMValueRef vals[3] = {old, lower_i32(s, SLOT_UNTRIED), lower_i32(s, SLOT_UNTRIED)};
  LLVMBasicBlockRef blocks[3] = {speculate, mark, from};
  LLVMAddIncoming(s->tma_speculative_old, vals, blocks, 3);
  return true;
}

void lower_tma_kernel_end(lower_state *s) {
  if (!s->tma_slot_bytes) return;
  /* Every copy that used the block's maps has completed (loads were waited for, stores drained
   * by async_tma_store_wait); the flag goes back after all threads are done. */
  s->cg->barrier(&s->em);
  LLVMBasicBlockRef release = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "tma.release");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "tma.done");
  LLVMValueRef held = s->tma_slot;
  LLVMValueRef releases = lower_thread0(s);
  if (s->tma_claim_at) {
    /* The claimed slot, else the own slot when the start's compare-and-swap won it. */
    LLVMValueRef word = LLVMBuildLoad2(s->b, s->i32, slot_word(s), "");
    LLVMValueRef claimed = LLVMBuildICmp(s->b, LLVMIntSGE, word, lower_i32(s, 0), "");
    LLVMValueRef won = LLVMBuildICmp(s->b, LLVMIntEQ, s->tma_speculative_old, lower_i32(s, 0), "");
    held = LLVMBuildSelect(s->b, claimed, word, s->tma_own_slot, "");
    releases = LLVMBuildAnd(s->b, releases, LLVMBuildOr(s->b, claimed, won, ""), "");
  }
  LLVMBuildCondBr(s->b, releases, release, done);
  LLVMPositionBuilderAtEnd(s->b, release);
  LLVMBuildAtomicRMW(s->b, LLVMAtomicRMWBinOpXchg, slot_flag(s, held), lower_i32(s, 0), LLVMAtomicOrderingRelease,
                     false);
  LLVMBuildBr(s->b, done);
  LLVMPositionBuilderAtEnd(s->b, done);
}

/* ------------------------------------------------------------------ boxes */

/* The boxes of a descriptor block (layout_tma_boxes), or an error at op. */
static bool tma_box_of(lower_state *s, const ir_op *op, const ir_type *desc, layout_tma_box *b) {
  if (layout_tma_boxes(desc, b)) return true;
  const ir_attr *enc = desc->encoding;
  if (!enc || enc->kind != AT_NVMMA_SHARED || enc->layout.transposed || enc->layout.fp4_padded)
    ir_op_error(s->ctx, op, "lowering of TMA copies of %s is not implemented (needs a non-transposed nvmma_shared layout)",
                ir_type_str(s->ctx, desc));
  else
    ir_op_error(s->ctx, op, "cannot lower a TMA copy of %s: its shared layout is not how TMA writes boxes",
                ir_type_str(s->ctx, desc));
  return false;
}

/* PTX tensormap element type of a block element. */
static int tma_elem_type(const ir_type *elem) {
  unsigned bits = ir_type_bits(elem);
  if (elem->kind == TY_FLOAT) {
    if (bits == 16) return elem->float_kind == FLT_BF16 ? 10 : 6;
    if (bits == 32) return 7;
    if (bits == 64) return 9;
    return 0; /* fp8: bytes */
  }
  return bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 3 : 5;
}

/* ------------------------------------------------------------------ ops */

/* The 128 bytes of the kernel's descriptor `which` in the block's slot. */
static LLVMValueRef slot_bytes_at(lower_state *s, int64_t offset, const char *name) {
  LLVMValueRef byte = LLVMBuildMul(s->b, s->tma_slot, lower_i32(s, s->tma_slot_bytes), "");
  byte = LLVMBuildAdd(s->b, byte, lower_i32(s, offset), "");
  LLVMValueRef idx[2] = {lower_i32(s, 0), byte};
  return LLVMBuildGEP2(s->b, s->tma_maps_type, s->tma_maps, idx, 2, name);
}

static LLVMValueRef slot_map(lower_state *s, int which) {
  return slot_bytes_at(s, (int64_t)which * TMA_MAP_BYTES, "tensormap");
}

/* The warp of a descriptor op (one per descriptor of its run) zeroes its 128 bytes of shared
 * scratch and lets its first lane fill them in (t), then publishes them to `map`: copies them
 * out, releases them to the tensor-map proxy, acquires and prefetches them. Either part may be
 * left out (NULL). */
static void build_map(lower_state *s, const ir_op *op, const target_tensormap *t, LLVMValueRef map) {
  int64_t scratch = lower_scratch_offset(s, op);
  LLVMValueRef smem = lower_smem_ptr(s, scratch, s->i8, lower_i32(s, 0));
  int warp = gemmc_tensormap_run_index(op) % s->threads->num_warps;
  LLVMValueRef mine = LLVMBuildICmp(s->b, LLVMIntEQ, s->threads->warp, lower_i32(s, warp), "");
  LLVMValueRef lane0 = LLVMBuildICmp(s->b, LLVMIntEQ, s->threads->lane, lower_i32(s, 0), "");
  LLVMBasicBlockRef build_bb =
      LLVMAppendBasicBlockInContext(s->llctx, s->fn, t ? "tensormap.zero" : "tensormap.publish");
  LLVMBasicBlockRef after_bb = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "tensormap.filled");
  LLVMBuildCondBr(s->b, mine, build_bb, after_bb);
  LLVMPositionBuilderAtEnd(s->b, build_bb);
  if (t) {
    LLVMBuildStore(s->b, lower_i32(s, 0), lower_smem_ptr(s, scratch, s->i32, s->threads->lane));
    s->cg->warp_sync(&s->em);
    s->cg->tensormap_write(&s->em, smem, t, lane0);
    s->cg->warp_sync(&s->em);
  }
  if (map) {
    s->cg->tensormap_publish(&s->em, map, smem, NULL);
    s->cg->tensormap_acquire(&s->em, map, NULL);
    /* Measured 0.3-1 us off a launch's start: the first copy finds the map cached (perf-notes 27). */
    if (s->cg->tensormap_prefetch) s->cg->tensormap_prefetch(&s->em, map, lane0);
  }
  LLVMBuildBr(s->b, after_bb);
  LLVMPositionBuilderAtEnd(s->b, after_bb);
}

/* True when no op of the run that starts at `first` reads a descriptor of the run. */
static bool fills_before_claim(const ir_op *first) {
  const ir_op *last = gemmc_tensormap_run_last(first);
  for (const ir_op *q = first->next; q; q = q == last ? NULL : q->next)
    for (int i = 0; i < q->num_operands; i++) {
      const ir_op *def = q->operands[i].value->def_op;
      if (def && def->kind == OP_MAKE_TENSOR_DESC) return false;
    }
  return true;
}

static bool lower_make_desc(lower_state *s, ir_op *op) {
  const ir_type *d = op->results[0].type;
  layout_tma_box box;
  if (!tma_box_of(s, op, d, &box)) return false;
  int r = d->rank;
  /* Strides are in elements, the innermost one 1. */
  const ir_value *inner_stride = op->operands[1 + r + r - 1].value;
  if (!inner_stride->def_op || inner_stride->def_op->kind != OP_CONSTANT ||
      ir_op_get_int_attr(inner_stride->def_op, "value", 0) != 1) {
    ir_op_error(s->ctx, op, "lowering of a tensor descriptor needs the innermost stride to be the constant 1");
    return false;
  }
  target_tensormap t = {.rank = r, .elem_type = tma_elem_type(d->elem), .swizzle_bytes = box.swizzle_bytes};
  t.global_address = value1(s, op, 0);
  if (!t.global_address) return false;
  for (int i = 0; i < r; i++) {
    t.box_dim[i] = box.box[i];
    t.global_dim[i] = value1(s, op, 1 + (r - 1 - i));
    if (!t.global_dim[i]) return false;
  }
  for (int i = 0; i + 1 < r; i++) {
    LLVMValueRef stride = value1(s, op, 1 + r + (r - 2 - i));
    if (!stride) return false;
    t.global_stride[i] = LLVMBuildMul(s->b, stride, LLVMConstInt(s->i64, (unsigned long long)box.elem_bytes, 0), "");
  }
  /* A late claim waits for the run's fills when nothing in the run reads one of its
   * descriptors: the maps are written in shared memory while the slot is claimed, then
   * published together. */
  bool fills_first = s->tma_claim_at && fills_before_claim(s->tma_claim_at);
  if (op == s->tma_claim_at) {
    s->tma_claim_which = s->tma_next_desc;
    if (!fills_first) claim_slot(s);
  }
  int which = s->tma_next_desc++;
  if (lower_scratch_offset(s, op) < 0 || (!fills_first && !s->tma_slot)) {
    ir_op_error(s->ctx, op, "internal error: the tensor descriptor has no scratch or slot");
    return false;
  }
  /* A run of descriptors is built at once, one warp each (the scratch of each lives until the
   * run's last): barriers before the first and after the last only. */
  bool last = gemmc_tensormap_run_last(op) == op;
  if (gemmc_tensormap_run_index(op) == 0) lower_barrier(s);
  if (!fills_first) {
    LLVMValueRef map = slot_map(s, which);
    build_map(s, op, &t, map);
    if (last) lower_barrier(s);
    return lower_set1(s, &op->results[0], map);
  }
  build_map(s, op, &t, NULL);
  if (!last) return true; /* its result is set with the run's last */
  claim_slot(s);
  which = s->tma_claim_which;
  bool ok = true;
  for (ir_op *q = (ir_op *)s->tma_claim_at; ok; q = q->next) {
    if (q->kind == OP_MAKE_TENSOR_DESC) {
      LLVMValueRef map = slot_map(s, which++);
      build_map(s, q, NULL, map);
      ok = lower_set1(s, &q->results[0], map);
    }
    if (q == op) break;
  }
  lower_barrier(s);
  return ok;
}

/* The shared buffer of a copy must hold the descriptor's block in the descriptor's layout (the
 * block may have leading dims of size 1 the buffer leaves out: a batch index). */
static bool check_buffer(lower_state *s, const ir_op *op, const ir_type *desc, const ir_type *buf) {
  int lead = desc->rank - buf->rank;
  bool same = buf->kind == TY_MEMDESC && lead >= 0 && buf->encoding == desc->encoding;
  for (int d = 0; same && d < lead; d++) same = desc->shape[d] == 1;
  for (int d = 0; same && d < buf->rank; d++) same = buf->shape[d] == desc->shape[lead + d];
  if (!same)
    ir_op_error(s->ctx, op, "lowering of a TMA copy between %s and %s is not implemented (shapes and layouts must match)",
                ir_type_str(s->ctx, desc), ir_type_str(s->ctx, buf));
  return same;
}

/* Coordinates innermost first, box k's inner coordinate moved by k boxes. */
static bool box_coords(lower_state *s, const ir_op *op, const layout_tma_box *b, int first, int k, LLVMValueRef *out) {
  for (int i = 0; i < b->rank; i++) {
    out[i] = value1(s, op, first + b->rank - 1 - i);
    if (!out[i]) return false;
  }
  if (k) out[0] = LLVMBuildAdd(s->b, out[0], lower_i32(s, (int64_t)k * b->box[0]), "");
  return true;
}

static LLVMValueRef box_ptr(lower_state *s, LLVMValueRef base, const layout_tma_box *b, int k) {
  if (!b->box_offset[k]) return base;
  LLVMValueRef off = lower_i32(s, b->box_offset[k] * b->elem_bytes);
  return LLVMBuildGEP2(s->b, s->i8, base, &off, 1, "");
}

/* gemmc.multicast (2-block clusters, lib/transforms/warp_specialize.c): each block of the cluster
 * copies half of the block's boxes (rank r: boxes r * n/2 ..) into both blocks' shared memory, so
 * the pair reads the tile from L2 once; each block's barrier sees all of the tile's bytes. */
static bool lower_tma_multicast(lower_state *s, ir_op *op, const layout_tma_box *b, LLVMValueRef map, LLVMValueRef bar,
                                LLVMValueRef dst, LLVMValueRef pred) {
  if (!need(s, op, s->cg->tma_load_multicast != NULL && s->cg->cluster_rank != NULL)) return false;
  if (b->num_boxes % 2) {
    ir_op_error(s->ctx, op, "cannot multicast a TMA copy of %d box(es) between two blocks: it needs an even count",
                b->num_boxes);
    return false;
  }
  int half = b->num_boxes / 2;
  LLVMValueRef second = LLVMBuildICmp(s->b, LLVMIntNE, s->cg->cluster_rank(&s->em), lower_i32(s, 0), "");
  LLVMValueRef mask = LLVMConstInt(LLVMInt16TypeInContext(s->llctx), 3, 0);
  LLVMValueRef start[5];
  if (!box_coords(s, op, b, 1, 0, start)) return false;
  for (int k = 0; k < half; k++) {
    LLVMValueRef coords[5];
    memcpy(coords, start, sizeof coords);
    LLVMValueRef first_x = lower_i32(s, (int64_t)k * b->box[0]),
                 second_x = lower_i32(s, (int64_t)(k + half) * b->box[0]);
    coords[0] = LLVMBuildAdd(s->b, coords[0], LLVMBuildSelect(s->b, second, second_x, first_x, ""), "");
    LLVMValueRef off = LLVMBuildSelect(s->b, second, lower_i32(s, b->box_offset[k + half] * b->elem_bytes),
                                       lower_i32(s, b->box_offset[k] * b->elem_bytes), "");
    LLVMValueRef to = LLVMBuildGEP2(s->b, s->i8, dst, &off, 1, "");
    s->cg->tma_load_multicast(&s->em, to, map, coords, b->rank, bar, mask, pred);
  }
  return true;
}

static bool lower_tma_load(lower_state *s, ir_op *op) {
  const ir_type *desc = op->operands[0].value->type;
  int n = op->num_operands;
  layout_tma_box b;
  if (!tma_box_of(s, op, desc, &b) || !check_buffer(s, op, desc, op->operands[n - 2].value->type)) return false;
  if (n - 4 != desc->rank) {
    ir_op_error(s->ctx, op, "lowering of im2col TMA copies is not implemented");
    return false;
  }
  LLVMValueRef map = value1(s, op, 0), bar = value1(s, op, n - 3), dst = value1(s, op, n - 2), pred = value1(s, op, n - 1);
  if (!map || !bar || !dst || !pred) return false;
  pred = and_pred(s, lower_thread0(s), pred);
  if (ir_op_get_int_attr(op, "gemmc.multicast", 0)) return lower_tma_multicast(s, op, &b, map, bar, dst, pred);
  /* gemmc.multicast_whole (pairs in 2-block clusters): this block copies the whole tile into both
   * blocks' shared memory (the other block copies another tile to both). */
  bool to_both = ir_op_get_int_attr(op, "gemmc.multicast_whole", 0);
  if (to_both && !need(s, op, s->cg->tma_load_multicast != NULL)) return false;
  LLVMValueRef both = LLVMConstInt(LLVMInt16TypeInContext(s->llctx), 3, 0);
  for (int k = 0; k < b.num_boxes; k++) {
    LLVMValueRef coords[5];
    if (!box_coords(s, op, &b, 1, k, coords)) return false;
    if (to_both) s->cg->tma_load_multicast(&s->em, box_ptr(s, dst, &b, k), map, coords, b.rank, bar, both, pred);
    else s->cg->tma_load(&s->em, box_ptr(s, dst, &b, k), map, coords, b.rank, bar, pred);
  }
  return true;
}

/* One thread copies the block out and commits its bulk group; async_tma_store_wait drains it. */
static bool lower_tma_store(lower_state *s, ir_op *op) {
  const ir_type *desc = op->operands[0].value->type;
  int n = op->num_operands;
  layout_tma_box b;
  if (!tma_box_of(s, op, desc, &b) || !check_buffer(s, op, desc, op->operands[n - 1].value->type)) return false;
  LLVMValueRef map = value1(s, op, 0), src = value1(s, op, n - 1);
  if (!map || !src) return false;
  LLVMValueRef pred = lower_thread0(s);
  const ir_attr *kind = op->kind == OP_TMA_REDUCE ? ir_op_get_attr(op, "kind") : NULL; /* verified */
  for (int k = 0; k < b.num_boxes; k++) {
    LLVMValueRef coords[5];
    if (!box_coords(s, op, &b, 1, k, coords)) return false;
    s->cg->tma_store(&s->em, map, coords, b.rank, box_ptr(s, src, &b, k), kind ? kind->str : NULL, pred);
  }
  s->cg->bulk_commit(&s->em, pred);
  if (op->num_results) return lower_set1(s, &op->results[0], LLVMGetUndef(s->i32));
  return true;
}

/* ttg.global_scratch_alloc: the op's bytes in the block's slot, after the descriptors' maps. */
static bool lower_global_scratch(lower_state *s, ir_op *op) {
  if (!s->tma_slot) {
    ir_op_error(s->ctx, op, "internal error: the global scratch has no slot");
    return false;
  }
  const ptr_map_value *placed = ptr_map_find(&s->tma_scratch_offsets, op, NULL);
  if (!placed) {
    ir_op_error(s->ctx, op, "internal error: the global scratch op was not placed");
    return false;
  }
  int64_t offset = (int64_t)s->tma_num_descs * TMA_MAP_BYTES + placed->num;
  return lower_set1(s, &op->results[0], slot_bytes_at(s, offset, "global.scratch"));
}

/* The value of an i32 operand that Triton writes as an arith.constant, or -1 after an error. */
static int constant_operand(lower_state *s, const ir_op *op, int i, const char *what) {
  int64_t v;
  if (!value_int_constant(op->operands[i].value, &v) || v < 1 || v > 256) {
    ir_op_error(s->ctx, op, "lowering of ttng.tensormap_create needs each %s to be a constant in 1..256 (operand %d)",
                what, i);
    return -1;
  }
  return (int)v;
}

/* The box a TMA copy through `desc` assumes (layout_tma_boxes) must be the map's: checked for
 * every ttng.reinterpret_tensor_descriptor of the map's bytes. */
static bool map_matches_uses(lower_state *s, const ir_op *op, const target_tensormap *t) {
  for (const ir_operand *use = op->operands[0].value->first_use; use; use = use->next_use) {
    const ir_op *user = use->owner;
    if (user->kind != OP_REINTERPRET_TENSOR_DESC) continue;
    const ir_type *desc = user->results[0].type;
    layout_tma_box b;
    if (!tma_box_of(s, user, desc, &b)) return false;
    bool same = b.rank == t->rank && b.swizzle_bytes == t->swizzle_bytes && tma_elem_type(desc->elem) == t->elem_type;
    for (int i = 0; same && i < t->rank; i++) same = b.box[i] == t->box_dim[i];
    if (!same) {
      ir_op_error(
          s->ctx, op,
          "this tensor map does not copy the boxes that %s is copied in (its box, swizzle or element type differs)",
          ir_type_str(s->ctx, desc));
      return false;
    }
  }
  return true;
}

/* ttng.tensormap_create (Triton's lowering of a device-side tl.make_tensor_descriptor): the map
 * is assembled in the op's shared scratch by one warp and copied to its global bytes with a
 * release to the tensor-map proxy; ttng.tensormap_fenceproxy_acquire follows it. Operands, all
 * innermost first: the map's bytes, the global address, box sizes, global sizes, global strides
 * in bytes, element strides. */
static bool lower_tensormap_create(lower_state *s, ir_op *op) {
  int r = (op->num_operands - 1) / 4;
  if (r < 1 || r > 5 || op->num_operands != 4 * r + 1) {
    ir_op_error(s->ctx, op, "internal error: ttng.tensormap_create with %d operands", op->num_operands);
    return false;
  }
  int swizzle_mode = (int)ir_op_get_int_attr(op, "swizzle_mode", 0);
  if (ir_op_get_int_attr(op, "interleave_layout", 0) != 0 || ir_op_get_int_attr(op, "fill_mode", 0) != 0) {
    ir_op_error(s->ctx, op, "lowering of interleaved or NaN-filling tensor maps is not implemented");
    return false;
  }
  /* PTX's element types 13-15 (packed 4- and 6-bit) need PTX 8.7 and sm_100 */
  if (ir_op_get_int_attr(op, "elem_type", 0) > 12) {
    ir_op_error(s->ctx, op, "lowering of tensor maps of element type %lld is not implemented (sm_90 takes 0..12)",
                (long long)ir_op_get_int_attr(op, "elem_type", 0));
    return false;
  }
  target_tensormap t = {.rank = r,
                        .elem_type = (int)ir_op_get_int_attr(op, "elem_type", 0),
                        .swizzle_bytes = swizzle_mode ? 16 << swizzle_mode : 0};
  t.global_address = value1(s, op, 1);
  LLVMValueRef map = value1(s, op, 0);
  if (!t.global_address || !map) return false;
  for (int i = 0; i < r; i++) {
    if ((t.box_dim[i] = constant_operand(s, op, 2 + i, "box size")) < 0) return false;
    int element_stride = constant_operand(s, op, 2 + 3 * r - 1 + i, "element stride");
    if (element_stride < 0) return false;
    if (element_stride != 1) {
      ir_op_error(s->ctx, op, "lowering of tensor maps with element strides other than 1 is not implemented");
      return false;
    }
    if (!(t.global_dim[i] = value1(s, op, 2 + r + i))) return false;
  }
  for (int i = 0; i + 1 < r; i++)
    if (!(t.global_stride[i] = value1(s, op, 2 + 2 * r + i))) return false;
  if (!map_matches_uses(s, op, &t)) return false;
  if (lower_scratch_offset(s, op) < 0) {
    ir_op_error(s->ctx, op, "internal error: the tensor map has no shared scratch");
    return false;
  }
  lower_barrier(s); /* earlier users of the scratch bytes are done */
  build_map(s, op, &t, map);
  return true;
}

static bool is_kind(const ir_op *op, ir_op_kind kind) { return op && op->kind == kind; }

bool lower_tma(lower_state *s, ir_op *op) {
  const target_codegen *cg = s->cg;
  switch (op->kind) {
  case OP_MAKE_TENSOR_DESC: return need(s, op, cg->tensormap_write != NULL) && lower_make_desc(s, op);
  case OP_GLOBAL_SCRATCH_ALLOC: return lower_global_scratch(s, op);
  case OP_TENSORMAP_CREATE: return need(s, op, cg->tensormap_write != NULL) && lower_tensormap_create(s, op);
  case OP_TENSORMAP_FENCEPROXY_ACQUIRE: {
    /* Triton's order: the first warp acquires, a barrier hands the map to the others. */
    LLVMValueRef map = value1(s, op, 0);
    if (!need(s, op, cg->tensormap_acquire != NULL) || !map) return false;
    cg->tensormap_acquire(&s->em, map, LLVMBuildICmp(s->b, LLVMIntEQ, s->threads->warp, lower_i32(s, 0), ""));
    lower_barrier(s);
    return true;
  }
  case OP_REINTERPRET_TENSOR_DESC: {
    LLVMValueRef raw = value1(s, op, 0);
    return raw && lower_set1(s, &op->results[0], raw);
  }
  case OP_TMA_LOAD: return need(s, op, cg->tma_load != NULL) && lower_tma_load(s, op);
  case OP_TMA_STORE:
  case OP_TMA_REDUCE: return need(s, op, cg->tma_store != NULL) && lower_tma_store(s, op);
  case OP_TMA_STORE_WAIT:
    if (!need(s, op, cg->bulk_wait != NULL)) return false;
    /* Only the storing thread has groups; the barrier lets every thread reuse the bytes. */
    cg->bulk_wait(&s->em, (int)ir_op_get_int_attr(op, "pendings", 0), true, lower_thread0(s));
    lower_barrier(s);
    return true;
  case OP_FENCE_ASYNC_SHARED:
    if (!need(s, op, cg->fence_async_shared != NULL)) return false;
    cg->fence_async_shared(&s->em);
    return true;
  case OP_INIT_BARRIER: {
    LLVMValueRef bar = value1(s, op, 0);
    if (!need(s, op, cg->mbarrier_init != NULL) || !bar) return false;
    /* The barrier rule: earlier users of these bytes are done; the barriers exist for everyone
     * after the last init of a run. */
    if (!is_kind(op->prev, OP_INIT_BARRIER) && !is_kind(op->prev, OP_MEMDESC_INDEX)) lower_barrier(s);
    cg->mbarrier_init(&s->em, bar, (int)ir_op_get_int_attr(op, "count", 1), lower_thread0(s));
    const ir_op *next = op->next;
    while (next && (next->kind == OP_MEMDESC_INDEX || next->kind == OP_CONSTANT)) next = next->next;
    if (!is_kind(next, OP_INIT_BARRIER)) lower_barrier(s);
    return true;
  }
  case OP_INVAL_BARRIER: {
    LLVMValueRef bar = value1(s, op, 0);
    if (!need(s, op, cg->mbarrier_inval != NULL) || !bar) return false;
    const ir_op *prev = op->prev;
    while (prev && (prev->kind == OP_MEMDESC_INDEX || prev->kind == OP_CONSTANT)) prev = prev->prev;
    if (!is_kind(prev, OP_INVAL_BARRIER)) lower_barrier(s); /* nobody waits on it any more */
    cg->mbarrier_inval(&s->em, bar, lower_thread0(s));
    return true;
  }
  case OP_BARRIER_EXPECT: {
    LLVMValueRef bar = value1(s, op, 0), pred = value1(s, op, 1);
    if (!need(s, op, cg->mbarrier_expect_tx != NULL) || !bar || !pred) return false;
    cg->mbarrier_expect_tx(&s->em, bar, (int)ir_op_get_int_attr(op, "size", 0), and_pred(s, lower_thread0(s), pred));
    return true;
  }
  case OP_ARRIVE_BARRIER: {
    /* One arrival per warpgroup of the role (its first thread), each after its own waits: a
     * warpgroup's MMAs finish for all its threads at once, another's need their own arrival. */
    LLVMValueRef bar = value1(s, op, 0), pred = op->num_operands > 1 ? value1(s, op, 1) : NULL;
    if (!need(s, op, cg->mbarrier_arrive != NULL) || !bar || (op->num_operands > 1 && !pred)) return false;
    LLVMValueRef first =
        s->threads->num_warps >= 4
            ? LLVMBuildICmp(s->b, LLVMIntEQ, LLVMBuildAnd(s->b, s->threads->tid, lower_i32(s, 127), ""),
                            lower_i32(s, 0), "")
            : lower_thread0(s);
    int count = (int)ir_op_get_int_attr(op, "count", 1);
    if (!ir_op_get_int_attr(op, "gemmc.peer", 0)) {
      cg->mbarrier_arrive(&s->em, bar, count, and_pred(s, first, pred));
      return true;
    }
    /* gemmc.peer: the same barrier in the other block of a 2-block cluster. */
    if (!need(s, op, cg->mbarrier_arrive_cluster != NULL && cg->cluster_rank != NULL)) return false;
    LLVMValueRef peer = LLVMBuildXor(s->b, cg->cluster_rank(&s->em), lower_i32(s, 1), "");
    cg->mbarrier_arrive_cluster(&s->em, bar, peer, count, and_pred(s, first, pred));
    return true;
  }
  case OP_CLUSTER_ARRIVE:
    if (!need(s, op, cg->cluster_arrive != NULL)) return false;
    cg->cluster_arrive(&s->em, ir_op_get_int_attr(op, "relaxed", 0));
    return true;
  case OP_CLUSTER_WAIT:
    if (!need(s, op, cg->cluster_wait != NULL)) return false;
    cg->cluster_wait(&s->em);
    return true;
  case OP_FENCE_MBARRIER_INIT:
    if (!need(s, op, cg->fence_mbarrier_init != NULL)) return false;
    cg->fence_mbarrier_init(&s->em);
    return true;
  case OP_WAIT_BARRIER: {
    LLVMValueRef bar = value1(s, op, 0), phase = value1(s, op, 1);
    if (!need(s, op, cg->mbarrier_wait != NULL) || !bar || !phase) return false;
    if (op->num_operands > 2 && ir_type_is_int(op->operands[2].value->type, 1)) {
      ir_op_error(s->ctx, op, "lowering of a predicated ttng.wait_barrier is not implemented yet");
      return false;
    }
    cg->mbarrier_wait(&s->em, bar, phase);
    return true;
  }
  default:
    ir_op_error(s->ctx, op, "internal error: '%s' is not a TMA or mbarrier op", ir_op_name(op));
    return false;
  }
}

/* The op families' entry points: what the dispatch (lower_dispatch.c) calls for each op kind; each lowers `op` at the main builder and records its results in the value map. */
#ifndef GEMMC_LOWER_OPS_H
#define GEMMC_LOWER_OPS_H

#include "lower_state.h"

/* lower_elementwise.c: arith and math ops, casts, tt.fp_to_fp, constants (op traits: elementwise). */
bool lower_elementwise(lower_state *s, ir_op *op);
/* lower_elementwise.c: tt.get_program_id, tt.get_num_programs. */
bool lower_program_id(lower_state *s, ir_op *op);
/* lower_trig.c: sin (cos: true, cos) of n f32 values to about 1 ulp over the whole range
 * (libdevice's sinf / cosf, which Triton links); out may alias x. */
bool lower_sin_cos_f32(lower_state *s, LLVMValueRef *x, int n, bool cos, LLVMValueRef *out);
/* lower_math_f32.c: f32 log (base2: log2), tanh, erf and pow of one value to about an ulp
 * (libdevice's logf / log2f / tanhf / erff, powf within a few). */
LLVMValueRef lower_log_f32(lower_state *s, LLVMValueRef x, bool base2);
LLVMValueRef lower_tanh_f32(lower_state *s, LLVMValueRef x);
LLVMValueRef lower_erf_f32(lower_state *s, LLVMValueRef x);
LLVMValueRef lower_pow_f32(lower_state *s, LLVMValueRef x, LLVMValueRef y);
/* lower_memory.c: make_range, splat, expand_dims, broadcast, reshape, addptr, tt.load, tt.store. */
bool lower_memory(lower_state *s, ir_op *op);
/* lower_control.c: scf.for, scf.if. */
bool lower_control(lower_state *s, ir_op *op);
/* lower_reduce.c: tt.reduce. */
bool lower_reduce(lower_state *s, ir_op *op);
/* lower_scan.c: tt.scan: runs in registers, then the position bits across registers, lanes
 * (shuffles) and warps (shared memory). */
bool lower_scan(lower_state *s, ir_op *op);
/* lower_convert.c: ttg.convert_layout other than to an MMA operand. */
bool lower_convert(lower_state *s, ir_op *op);
/* lower_gather.c: tt.gather through shared memory. */
bool lower_gather(lower_state *s, ir_op *op);
/* lower_atomic.c: tt.atomic_rmw and tt.atomic_cas. */
bool lower_atomic(lower_state *s, ir_op *op);
/* lower_histogram.c: tt.histogram with shared-memory atomics. */
bool lower_histogram(lower_state *s, ir_op *op);
/* lower_debug.c: tt.print (vprintf, NVIDIA), tt.assert (__assertfail; a trap on AMD). */
bool lower_print(lower_state *s, ir_op *op);
bool lower_assert(lower_state *s, ir_op *op);
/* lower_inline_asm.c: tt.elementwise_inline_asm, one asm statement per pack of elements. */
bool lower_inline_asm(lower_state *s, ir_op *op);
/* lower_dot_operand.c: ttg.convert_layout to an MMA operand (#ttg.dot_op of an nvidia_mma): through
 * a swizzled shared buffer (the op's scratch), stored with vector st.shared, read back with
 * ldmatrix; lower_is_convert_to_mma_operand says which converts those are. */
bool lower_convert_to_dot_operand(lower_state *s, ir_op *op);
bool lower_is_convert_to_mma_operand(const ir_op *op);
/* lower_dot.c: tt.dot: mma.sync (nvidia_mma v2 result), per-thread FMA (blocked result) or, through
 * lower_dot_mfma, MFMA. */
bool lower_dot(lower_state *s, ir_op *op);
/* lower_mfma.c: tt.dot with an #ttg.amd_mfma result. */
bool lower_dot_mfma(lower_state *s, ir_op *op);
/* lower_local_memory.c: ttg.local_alloc / local_load / local_store / local_dealloc / memdesc_index. */
bool lower_local_memory(lower_state *s, ir_op *op);
/* lower_async.c: ttg.async_copy_global_to_local, async_commit_group, async_wait. */
bool lower_async(lower_state *s, ir_op *op);
/* lower_wgmma.c: ttng.warp_group_dot, ttng.warp_group_dot_wait. */
bool lower_wgmma(lower_state *s, ir_op *op);
/* lower_sched_hint.c: rocdl.s.setprio, rocdl.sched.barrier (AMD scheduling hints); llvm.intr.assume. */
bool lower_sched_hint(lower_state *s, ir_op *op);
bool lower_assume(lower_state *s, ir_op *op);

/* lower_tma.c: tt.make_tensor_descriptor, TMA copies, mbarriers, fence_async_shared. The kernel's
 * descriptor slot is taken at its entry and given back at its return. */
bool lower_tma(lower_state *s, ir_op *op);
/* lower_warp_specialize.c: ttg.warp_specialize (regions on their own warps), gemmc.num_workers;
 * the block's warps when the op's partitions are added to the default region's. */
bool lower_warp_specialize(lower_state *s, ir_op *op);
bool lower_num_workers(lower_state *s, ir_op *op);
int lower_warp_specialize_total_warps(const ir_op *op, int default_warps);
/* Programmatic dependent launch, at a kernel's start: the launch of the next grid and the module's
 * marker when a warp_specialize op of the kernel waits for the previous one; false with an error
 * when the target cannot. */
bool lower_programmatic_launch_begin(lower_state *s, ir_op *func);
bool lower_tma_kernel_begin(lower_state *s, ir_op *func);
void lower_tma_kernel_end(lower_state *s);
/* lower_packed_phis.c: after a function is lowered, phis of f16 pairs that are packed into i32
 * (warpgroup MMA accumulators) become i32 phis. False: out of memory. */
bool lower_pack_half_phis(lower_state *s, LLVMValueRef fn);

#endif

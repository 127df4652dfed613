/* gemmc's input limits: what the parser and verifier refuse before any later stage relies on it (docs/limits.md). */
#ifndef GEMMC_LIMITS_H
#define GEMMC_LIMITS_H

#include <stddef.h>
#include <stdint.h>

/* The largest .tir text the parser reads. Triton's own dumps of a GEMM are about 20 KB; 8 MiB is
 * some 200 000 ops, which every stage handles in a few seconds (docs/limits.md has the times).
 * Larger inputs are refused at once rather than compiled for minutes. */
#define GEMMC_MAX_INPUT_BYTES ((size_t)8 << 20)

/* Elements of one tensor: Triton's TRITON_MAX_TENSOR_NUMEL (python/triton/language/core.py). */
#define GEMMC_MAX_TENSOR_ELEMENTS ((int64_t)1 << 20)

/* Elements of one shared-memory descriptor (all its buffers): 16 Mi elements is far past any
 * GPU's shared memory even at one byte each (227 KiB on H100), so nothing real is refused, and
 * every size product below stays far from overflow. */
#define GEMMC_MAX_MEMDESC_ELEMENTS ((int64_t)1 << 24)

/* Elements one thread holds of one tensor value (its registers for that value). The register
 * file is 255 32-bit registers per thread, so real kernels stay in the hundreds (a 128x256 f32
 * accumulator over 4 warps is 256); 16384 is 64 times the register file: well past what can run
 * without spilling everything, yet every Triton-sized tensor (2^20 elements) fits from 2 warps
 * up. Above it, a layout's replication (a huge sizePerThread) would only make the lowering
 * emit millions of instructions. */
#define GEMMC_MAX_ELEMS_PER_THREAD ((int64_t)1 << 14)

/* The lowering cost of a module: every op costs the per-thread elements it handles (its tensor
 * results, or its largest tensor operand when it has none; 1 for a scalar op) times its kind's
 * weight (1 for most elementwise ops, 8 for loads and integer multiplies, 32 for stores, atomics, layout
 * conversions, tt.dot, reductions and shared-memory ops; on AMD targets elementwise ops weigh 16
 * and global memory ops 8 times as much, for AMDGPU's slower code generation; lib/ir/verifier.c has the table and
 * docs/limits.md the measurements). It bounds the LLVM instructions the lowering emits. LLVM's
 * code generation is superlinear in the size of a basic block (a kernel body is one), so the
 * bound is set where the worst mixes measured stay within seconds: about 5 s at the limit. Real
 * kernels cost 32 000 (Triton's 128x128x64 GEMM) to 60 000 (a 256x256 tile over 8 warps). */
#define GEMMC_MAX_MODULE_LOWERING_COST ((int64_t)1 << 17)

/* Ops of one function that may take a shared-memory buffer (local_alloc, convert_layout,
 * reduce): a GEMM has a handful (two per pipeline stage and a few conversions). The allocator
 * places each buffer against those live at the same time, so this bounds its work (20 000
 * buffers alive together took minutes before the allocator's sweep, 16 s after). */
#define GEMMC_MAX_SHARED_BUFFERS 4096

/* Functions in a module: a Triton kernel and its noinline helpers, a handful. Symbol lookups
 * and the call graph walk are linear in them per call. */
#define GEMMC_MAX_FUNCTIONS 1024

/* Regions nested in regions (scf.for in scf.if in ...): Triton kernels use a handful. */
#define GEMMC_MAX_REGION_DEPTH 64

/* num-warps * threads-per-warp: NVIDIA and AMD GPUs both cap a block at 1024 threads. */
#define GEMMC_MAX_THREADS_PER_BLOCK 1024

/* Bytes of a symbol name (tt.func, tt.call callee); PTX names are built from it. */
#define GEMMC_MAX_SYMBOL_BYTES 1024

/* The default cap on a context's own memory (gemmc_context_set_memory_limit). The largest input
 * above needs well under half of it. */
#define GEMMC_DEFAULT_MEMORY_LIMIT ((size_t)2 << 30)

#endif

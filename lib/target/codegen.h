/* The target interface: everything the TTGIR -> LLVM lowering asks a GPU target to emit (ids, barriers, shuffles, memory access, async copies, special functions, MMA, kernel attributes). */
#ifndef GEMMC_TARGET_CODEGEN_H
#define GEMMC_TARGET_CODEGEN_H

#include <stdbool.h>
#include <stddef.h>

#include <llvm-c/Core.h>

#include "gemmc/target.h"
#include "mma.h"

/*
 * The lowering (lib/lower) is written once for every GPU: it computes which thread holds which
 * element from the layouts and builds ordinary LLVM IR for arithmetic. Whatever only a target
 * can say (which intrinsic reads the thread id, how a predicated vector load is spelled, which
 * matrix instruction multiplies f16 tiles) comes through one `target_codegen` record of data and
 * function pointers, in the spirit of QBE's `Target` and Triton's `TargetInfoBase`.
 * lib/target/nvptx_codegen.c implements it for NVIDIA, lib/target/amdgpu_codegen.c for AMD
 * (llvm.amdgcn.* intrinsics: wave64, LDS, MFMA).
 *
 * Thread coordinates are per call, not per kernel: `thread_id` may be read in any block, so a
 * kernel whose warps take different roles (warp specialization: a producer warpgroup and
 * consumer warpgroups, each with its own register budget) computes its own lane/warp numbers in
 * each role's region.
 */

/* Where target code goes: the lowering's LLVM context, module and current builder. */
typedef struct target_emitter {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMBuilderRef b;
  int ptx_version; /* NVIDIA: the PTX ISA emitted (85 = 8.5); 0 elsewhere */
  int compute_capability; /* NVIDIA: 80, 90, ..; 0 for AMD */
} target_emitter;

/* Cache operators of a global access (Triton's cacheModifier), and L1 eviction priorities. */
typedef enum target_cache {
  TARGET_CACHE_DEFAULT,
  TARGET_CACHE_CA,
  TARGET_CACHE_CG,
  TARGET_CACHE_CS,
  TARGET_CACHE_CV,
  TARGET_CACHE_WB,
  TARGET_CACHE_WT,
} target_cache;

typedef enum target_evict {
  TARGET_EVICT_NORMAL,
  TARGET_EVICT_FIRST,
  TARGET_EVICT_LAST,
} target_evict;

/* One vector access to global memory of `bits` bits (8, 16, 32, 64 or 128) moved as 32-bit
 * words (`words` = max(1, bits / 32); a narrower access is one zero-extended word). */
typedef struct target_global_access {
  LLVMValueRef ptr;  /* address of the first byte (ptr addrspace(1)) */
  LLVMValueRef pred; /* i1: the access happens only where it is true; NULL: always */
  int words;
  int bits;
  target_cache cache;
  target_evict evict;
  bool is_volatile;
  /* Loads: what a masked-off access yields, per word (NULL: zero). */
  LLVMValueRef other[4];
} target_global_access;

/* One atomic read-modify-write (or compare-and-swap) of global memory, Triton's tt.atomic_rmw /
 * tt.atomic_cas on one element: the operation, its memory ordering and the threads it orders
 * with (Triton's sem and scope). */
typedef enum target_atomic_op {
  TARGET_ATOMIC_AND,
  TARGET_ATOMIC_OR,
  TARGET_ATOMIC_XOR,
  TARGET_ATOMIC_ADD,  /* integers */
  TARGET_ATOMIC_FADD, /* f16, bf16, f32, f64 */
  TARGET_ATOMIC_MAX,  /* signed */
  TARGET_ATOMIC_MIN,
  TARGET_ATOMIC_UMAX,
  TARGET_ATOMIC_UMIN,
  TARGET_ATOMIC_EXCH,
  TARGET_ATOMIC_CAS,
} target_atomic_op;

typedef enum target_atomic_sem { TARGET_SEM_RELAXED, TARGET_SEM_ACQUIRE, TARGET_SEM_RELEASE, TARGET_SEM_ACQ_REL } target_atomic_sem;
typedef enum target_atomic_scope { TARGET_SCOPE_GPU, TARGET_SCOPE_CTA, TARGET_SCOPE_SYS } target_atomic_scope;

typedef struct target_atomic {
  target_atomic_op op;
  target_atomic_sem sem;
  target_atomic_scope scope;
  LLVMValueRef ptr;  /* ptr addrspace(1), of the first element */
  /* The operand (CAS: the new value) of the element type; `vec` > 1 (fadd of consecutive
   * elements): a vector of that many, one instruction for all, each element atomic on its own. */
  LLVMValueRef val;
  int vec;
  LLVMValueRef cmp;  /* CAS: the expected value; NULL otherwise */
  LLVMValueRef pred; /* i1: only where true; NULL: always. Elsewhere the result is unspecified */
} target_atomic;

/* Special functions of f32 (approximate: ex2.approx / rsqrt.approx, as Triton emits them for
 * math.exp / exp2 / rsqrt). */
typedef enum target_special_fn {
  TARGET_SPECIAL_EXP2,
  TARGET_SPECIAL_RSQRT,
  TARGET_SPECIAL_RCP, /* 1 / x within an ulp (NVIDIA: rcp.approx.ftz, as libdevice's tanhf uses it) */
} target_special_fn;

/* One warpgroup MMA instruction (m64 x n x k of `instr`): D = A * B + (use_c ? D : 0), D being
 * acc[acc_first .. acc_first + acc_count) of the call's accumulators (this thread's registers in
 * the instruction's fragment order; f32 or s32 scalars, or <2 x half> pairs as i32 for f16
 * accumulators). */
typedef struct target_wgmma {
  const target_mma *instr;
  int n;                 /* the instruction's N */
  int acc_first, acc_count;
  LLVMValueRef desc_a;   /* i64 shared-memory matrix descriptor of A, or NULL: A in registers */
  LLVMValueRef a_regs[4]; /* A from registers: the instruction's A fragment, four i32 */
  LLVMValueRef desc_b;   /* i64 descriptor of B */
  bool trans_a, trans_b; /* A is M-major / B is N-major in shared memory */
  LLVMValueRef use_c;    /* i1: accumulate into D (false: D = A * B) */
} target_wgmma;

/* The most accumulator registers one wgmma call takes (a 64 x 256 f32 tile). */
#define TARGET_WGMMA_MAX_ACC 128

/* A TMA tensor map (CUtensorMap) as built on the device: dims innermost first. */
typedef struct target_tensormap {
  int rank;                     /* 1..5 */
  LLVMValueRef global_address;  /* ptr addrspace(1) of element 0 */
  LLVMValueRef global_dim[5];   /* i32 extents */
  LLVMValueRef global_stride[4];/* i64 bytes between neighbours along dims 1..rank-1 */
  int box_dim[5];               /* elements per copy along each dim */
  int elem_type;                /* PTX tensormap elemtype: 0 u8, 1 u16, 2 u32, 3 s32, 6 f16, 7 f32, 10 bf16 */
  int swizzle_bytes;            /* 0, 32, 64, 128 */
} target_tensormap;

/* What a kernel's entry tells the code generator. */
typedef struct target_kernel_attrs {
  int threads_per_block; /* the launch's block size (NVIDIA: .maxntid; AMD: flat work-group size) */
  int max_registers;     /* per thread (NVIDIA: .maxnreg), 0: the code generator's choice */
} target_kernel_attrs;

typedef struct target_codegen {
  const char *name; /* "nvptx", "amdgpu" */
  /* Address spaces of global and shared (LDS) memory, and the widest vector access to each. */
  unsigned global_addr_space, shared_addr_space;
  int max_global_access_bits;
  int max_shared_access_bytes;

  /* Thread index within the block (x), block index and grid size along axis 0..2. */
  LLVMValueRef (*thread_id)(const target_emitter *e);
  LLVMValueRef (*program_id)(const target_emitter *e, int axis);
  LLVMValueRef (*num_programs)(const target_emitter *e, int axis);
  /* Every thread of the block arrives; shared memory written before is visible after. */
  void (*barrier)(const target_emitter *e);
  /* An i32 from the lane whose index differs from this one's in lane_mask (butterfly). */
  LLVMValueRef (*shuffle_xor)(const target_emitter *e, LLVMValueRef x, int lane_mask);

  /* Predicated vector global memory access; `words` receives / supplies a->words i32 values. */
  void (*load_global)(const target_emitter *e, const target_global_access *a, LLVMValueRef *words);
  void (*store_global)(const target_emitter *e, const target_global_access *a, LLVMValueRef const *words);
  /* The atomic `a`; returns the value memory held before it (a vector of a->vec), or NULL
   * (nothing emitted) when the target has no such atomic for the value's type and width. */
  LLVMValueRef (*atomic)(const target_emitter *e, const target_atomic *a);

  /* Asynchronous global -> shared copies (NULL when the target has none): `bytes` (4, 8 or 16)
   * from src to dst, zero-filled where pred is false, issued only where `issue` (NULL: always)
   * is true, through the caches `cache` names (the copied load's cacheModifier); commit closes a
   * group; wait leaves at most `pending` groups of this thread in flight. */
  void (*async_copy)(const target_emitter *e, LLVMValueRef dst, LLVMValueRef src, int bytes, LLVMValueRef pred,
                     LLVMValueRef issue, target_cache cache);
  void (*async_commit)(const target_emitter *e);
  void (*async_wait)(const target_emitter *e, int pending);

  /* f32 special functions; f64 reciprocal square root; f32 -> f16/bf16 rounding toward zero.
   * NULL result: the target has no such instruction (the caller reports it). */
  LLVMValueRef (*special_f32)(const target_emitter *e, target_special_fn fn, LLVMValueRef x);
  LLVMValueRef (*rsqrt_f64)(const target_emitter *e, LLVMValueRef x);
  LLVMValueRef (*truncate_rtz)(const target_emitter *e, LLVMValueRef x, LLVMTypeRef to);
  /* Two f32 to a <2 x half> or <2 x bfloat> (lo in element 0), each rounded to nearest even, in
   * one instruction; NULL when the target has none (GEMMC_CAP_CVT_F16X2 says where it applies). */
  LLVMValueRef (*truncate_pair)(const target_emitter *e, LLVMValueRef lo, LLVMValueRef hi, LLVMTypeRef to);
  /* f32 a / b as Triton's arith.divf computes it on this target (NVIDIA: div.full.f32, within 2 ulp
   * over the full range); NULL: IEEE division (LLVM's fdiv), as on AMD. */
  LLVMValueRef (*divide_f32)(const target_emitter *e, LLVMValueRef a, LLVMValueRef b);
  /* fp8 (an i8 of E4M3FN or E5M2 bits) to f16 / f32, and f16 / f32 to fp8 (nearest even,
   * saturating); NULL when the target has no fp8 conversions. */
  LLVMValueRef (*fp8_to_float)(const target_emitter *e, LLVMValueRef bits, bool e4m3, LLVMTypeRef to);
  LLVMValueRef (*float_to_fp8)(const target_emitter *e, LLVMValueRef x, bool e4m3);
  /* Two f32 to fp8 in one instruction: an i16 with lo's byte in bits 0-7 and hi's in 8-15. */
  LLVMValueRef (*float_pair_to_fp8)(const target_emitter *e, LLVMValueRef lo, LLVMValueRef hi, bool e4m3);

  /* Warp-cooperative load of num_mats 8x8 matrices of 16-bit elements from shared memory
   * (ldmatrix; NULL when the target has none): i32 for one matrix, else a struct of i32s. */
  LLVMValueRef (*load_matrices)(const target_emitter *e, LLVMValueRef addr, int num_mats, bool trans);
  /* Its inverse (stmatrix; NULL when the target has none): words[j] (i32) is this lane's part of
   * matrix j, and lane L gives the address of row L % 8 of matrix L / 8. */
  void (*store_matrices)(const target_emitter *e, LLVMValueRef addr, LLVMValueRef const *words, int num_mats,
                         bool trans);

  /* One matrix instruction of the target's MMA table: args are its A, B and C registers in the
   * instruction's order; returns its D registers (a struct). mma.sync: packed 32-bit A/B
   * registers; MFMA: one A and one B register each, the lane's kBase elements as a vector
   * (mma.h), then the m*n/64 accumulators. */
  LLVMValueRef (*mma)(const target_emitter *e, const target_mma *instr, LLVMValueRef *args, int num_args);

  /* Warpgroup MMA (NULL when the target has none). fence orders register accesses to the
   * accumulators before the first instruction; commit closes a group of instructions; wait
   * leaves at most `pendings` groups in flight and hands back `regs` (in and out), so that
   * nothing reads an accumulator before its group is done. wgmma issues `count` instructions in
   * order on the accumulators `acc` (in and out, at most TARGET_WGMMA_MAX_ACC); with
   * commit_wait >= 0 it then commits the group and waits until at most commit_wait groups are in
   * flight, and acc holds the registers as they are after the wait (false, nothing emitted: more
   * than TARGET_WGMMA_MAX_ACC accumulators). */
  void (*wgmma_fence)(const target_emitter *e);
  bool (*wgmma)(const target_emitter *e, const target_wgmma *instrs, int count, LLVMValueRef *acc, int num_acc,
                int commit_wait);
  void (*wgmma_commit)(const target_emitter *e);
  void (*wgmma_wait)(const target_emitter *e, int pendings, LLVMValueRef *regs, int num_regs);
  /* The constant bits of a shared-memory matrix descriptor: leading and stride byte offsets,
   * swizzle width in bytes (0, 32, 64, 128); the start address (bytes >> 4) is added to it. */
  unsigned long long (*matrix_descriptor)(int leading_bytes, int stride_bytes, int swizzle_bytes);
  /* Makes this thread's earlier ordinary shared-memory writes visible to the tensor cores'
   * (asynchronous proxy's) reads; a barrier must still follow for other threads' writes. */
  void (*fence_async_shared)(const target_emitter *e);

  /* Scheduling hints (NULL when the target has none; AMDGPU: Triton's rocdl.s.setprio and
   * rocdl.sched.barrier in TTGIR). set_priority raises (1..3) or lowers (0) the wave's issue
   * priority from here on (s_setprio); sched_barrier keeps the code generator's scheduler from
   * moving instructions across this point except the classes set in `mask` (0: none). */
  void (*set_priority)(const target_emitter *e, int priority);
  void (*sched_barrier)(const target_emitter *e, int mask);

  /* mbarriers (NULL when the target has none): `bar` is a ptr to 8 bytes of shared memory; pred
   * (i1, NULL: always) says which threads execute. init sets the arrival count; inval ends its
   * life; arrive counts `count` arrivals; expect_tx arrives and adds `bytes` of expected asynchronous
   * transactions; wait returns once the phase of parity `phase` (i32 0/1) has completed. */
  void (*mbarrier_init)(const target_emitter *e, LLVMValueRef bar, int count, LLVMValueRef pred);
  void (*mbarrier_inval)(const target_emitter *e, LLVMValueRef bar, LLVMValueRef pred);
  void (*mbarrier_arrive)(const target_emitter *e, LLVMValueRef bar, int count, LLVMValueRef pred);
  void (*mbarrier_expect_tx)(const target_emitter *e, LLVMValueRef bar, int bytes, LLVMValueRef pred);
  void (*mbarrier_wait)(const target_emitter *e, LLVMValueRef bar, LLVMValueRef phase);
  /* Tensor copies (TMA): a box at `coords` (i32, innermost first) of the tensor map at `map` (a
   * global or parameter address) into shared memory `dst`, completing as transactions on `bar`;
   * a box from shared memory `src` to the tensor (reduce: combined with it by that operation, one of
 * ir_descriptor_reduce_kinds, instead of overwriting it), in the thread's bulk group; commit closes the
   * group, wait leaves `pending` groups (read_only: until their shared memory has been read). */
  void (*tma_load)(const target_emitter *e, LLVMValueRef dst, LLVMValueRef map, LLVMValueRef const *coords, int rank,
                   LLVMValueRef bar, LLVMValueRef pred);
  void (*tma_store)(const target_emitter *e, LLVMValueRef map, LLVMValueRef const *coords, int rank, LLVMValueRef src,
                    const char *reduce, LLVMValueRef pred);
  /* tma_load_multicast: one box as tma_load, written to the same shared-memory offset `dst` and
   * completing on the same barrier offset in every block of the cluster that `cta_mask` (i16)
   * names. */
  void (*tma_load_multicast)(const target_emitter *e, LLVMValueRef dst, LLVMValueRef map, LLVMValueRef const *coords,
                             int rank, LLVMValueRef bar, LLVMValueRef cta_mask, LLVMValueRef pred);
  void (*bulk_commit)(const target_emitter *e, LLVMValueRef pred);
  void (*bulk_wait)(const target_emitter *e, int pending, bool read_only, LLVMValueRef pred);
  /* Device-side tensor maps: write the fields of `t` into the 128 zeroed bytes at `smem`
   * (threads with pred), then copy them to global `map` and release them to the tensor-map
   * proxy (a whole warp: `warp_pred` true on all its lanes), then acquire them for this
   * thread's later TMA copies. tensormap_prefetch warms the TMA unit's descriptor cache with the
   * map at generic address `map` (global or by-value parameter; threads with pred), so the first
   * copy does not wait for the descriptor's fetch. */
  void (*tensormap_write)(const target_emitter *e, LLVMValueRef smem, const target_tensormap *t, LLVMValueRef pred);
  void (*tensormap_publish)(const target_emitter *e, LLVMValueRef map, LLVMValueRef smem, LLVMValueRef warp_pred);
  void (*tensormap_acquire)(const target_emitter *e, LLVMValueRef map, LLVMValueRef pred);
  void (*tensormap_prefetch)(const target_emitter *e, LLVMValueRef map, LLVMValueRef pred);
  /* Warp specialization (NULL when the target has none): a barrier of `threads` threads on
   * hardware barrier `id` (1..15; 0 is the whole block's); the register budget per thread of the
   * executing warpgroup raised or lowered to `regs`; the number of multiprocessors (i32). */
  void (*barrier_named)(const target_emitter *e, LLVMValueRef id, int threads); /* id: i32, may vary */
  void (*set_max_registers)(const target_emitter *e, bool increase, int regs);
  LLVMValueRef (*num_multiprocessors)(const target_emitter *e);
  /* Thread block clusters (NULL when the target has none): this block's rank in its cluster and
   * the cluster's block count (i32); `count` arrivals on the mbarrier at `bar`'s offset in block
   * `cta` (i32) of the cluster (release at cluster scope); the cluster-wide barrier (arrive:
   * release, wait: acquire; every thread of every block of the cluster takes part); the fence that
   * makes this thread's mbarrier inits visible to the cluster's other blocks. */
  LLVMValueRef (*cluster_rank)(const target_emitter *e);
  LLVMValueRef (*cluster_size)(const target_emitter *e);
  void (*mbarrier_arrive_cluster)(const target_emitter *e, LLVMValueRef bar, LLVMValueRef cta, int count,
                                  LLVMValueRef pred);
  void (*cluster_arrive)(const target_emitter *e, bool relaxed);
  void (*cluster_wait)(const target_emitter *e);
  void (*fence_mbarrier_init)(const target_emitter *e);
  /* Programmatic dependent launch (NULL when the target has none): the executing thread waits
   * until the grids this launch depends on have completed and their memory is visible; this
   * block lets the grid launched after it start (its blocks then run up to their own wait). Both
   * are no-ops in a launch made without the programmatic-serialization attribute. */
  void (*grid_dependency_wait)(const target_emitter *e);
  void (*grid_dependents_launch)(const target_emitter *e);
  /* The threads of the warp (all 32 lanes) wait for each other; shared memory they wrote is
   * visible to the warp after it. */
  void (*warp_sync)(const target_emitter *e);

  /* Makes fn a kernel entry with these attributes. */
  void (*mark_kernel)(const target_emitter *e, LLVMValueRef fn, const target_kernel_attrs *attrs);
  /* Kernel parameters indices[0..n) (0-based, n <= 16) each hold `bytes` passed by value that
   * the kernel addresses in place (NVIDIA: byval + grid_constant, host-encoded CUtensorMaps read
   * by TMA through their generic address); their LLVM type must be `ptr`. NULL: not supported. */
  void (*mark_params_in_place)(const target_emitter *e, LLVMValueRef fn, const int *indices, int n, int bytes, int align);
} target_codegen;

/* The interface of target t, or NULL when gemmc cannot lower for its architecture yet. */
const target_codegen *target_codegen_of(const gemmc_target *t);

/* ---------------------------------------------------------------- helpers for implementations */

/* Calls intrinsic `name` (declared on first use with the types of args). */
LLVMValueRef target_call(const target_emitter *e, const char *name, LLVMTypeRef ret, LLVMValueRef *args, int n);
/* Inline assembly in the target's dialect (AT&T syntax, $N operands). */
LLVMValueRef target_inline_asm(const target_emitter *e, const char *text, const char *constraints, LLVMTypeRef ret,
                               LLVMValueRef *args, int n, bool side_effects);
LLVMValueRef target_i32(const target_emitter *e, long long v);
/* The width in bits of an integer or f16 / bf16 / f32 / f64 type; 0 for any other. */
int target_scalar_bits(LLVMTypeRef t);
/* The width in bits of the register an inline-asm constraint letter of target t names, as LLVM
 * 19's back end allocates it: NVPTX b 1, h 16, r and f 32, l and d 64; AMDGPU v any of 16, 32 and
 * 64 (-1). 0 for letters gemmc does not hand to LLVM (ones it would reject with a fatal error, or
 * that need what a tensor element is not: memory, immediates, uniform registers). */
int target_asm_register_bits(const gemmc_target *t, char letter);

#endif /* GEMMC_TARGET_CODEGEN_H */

/* Private interface of the TTGIR -> LLVM lowering: the lowering state, the value map, per-layout index info, op-family entry points. */
#ifndef GEMMC_LOWER_INTERNAL_H
#define GEMMC_LOWER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <llvm-c/Core.h>

#include "gemmc/allocation.h"
#include "gemmc/axis_info.h"
#include "gemmc/ir.h"
#include "gemmc/layout.h"
#include "gemmc/target.h"
#include "target/codegen.h"

/* What one IR value is per thread: a scalar is one value; a tensor the list of the elements this
 * thread holds, in register order of its layout (length layout_elems_per_thread). */
typedef struct lower_values {
  int n;
  LLVMValueRef *v;
} lower_values;

/* Per (layout, shape): the linear layout and what every op using it needs, computed once in the
 * kernel's prologue block so that loops never recompute lane/warp index math. */
typedef struct lower_layout_info {
  const ir_attr *layout;
  int rank;
  int64_t shape[IR_MAX_RANK];
  layout_linear ll;
  int num_regs;
  /* The lane/warp part of each coordinate (i32); the register part is a compile-time constant
   * combined by XOR (Triton's applyLinearLayout). */
  LLVMValueRef lw_coord[IR_MAX_RANK];
  /* Registers that duplicate another register (zero register bases): bits to skip on stores. */
  int64_t reg_dup_mask;
  /* i1: this thread owns its elements (its lane/warp bits along broadcast bases are 0); NULL when
   * every thread owns what it holds. */
  LLVMValueRef owner;
  struct lower_layout_info *next;
} lower_layout_info;

/* Pointer-keyed hash map ir_value* -> lower_values (open addressing). The values live in the
 * lowering's chunks, so a pointer from lower_get stays valid while the map grows. */
typedef struct lower_value_map {
  const ir_value **keys;
  lower_values **vals;
  size_t cap, count;
} lower_value_map;

/* A chunk of the lowering's private bump allocator (freed at the end of the lowering). */
typedef struct lower_chunk {
  struct lower_chunk *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
} lower_chunk;

/* The threads that run the code being lowered: the whole block, or (warp specialization) the
 * warps of one role. Coordinates are relative to the role, and every layout's lane/warp index
 * math is computed once per role in its own prologue, so roles never share register values. */
typedef struct lower_threads {
  int num_warps;               /* warps of this role */
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
  bool tensor_core_reads_shared; /* the kernel has warpgroup MMAs: shared memory they read must be
                                 * fenced for the async proxy after ordinary writes */
  lower_threads kernel_threads; /* every thread of the block */
  lower_threads *threads;       /* the role being lowered (&kernel_threads outside specialized regions) */
  lower_value_map map;
  lower_chunk *chunks;
  bool oom;
  /* cached types */
  LLVMTypeRef i1, i8, i16, i32, i64, f32, voidt, gptr, sptr;
} lower_state;

/* ---------------------------------------------------------------- lower.c: infrastructure */
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
/* Calls a target-independent LLVM intrinsic (llvm.fmuladd.f32, ...; declared on first use). */
LLVMValueRef lower_call(lower_state *s, const char *name, LLVMTypeRef ret, LLVMValueRef *args, int n);
/* A barrier of the threads of the current role. */
void lower_barrier(lower_state *s);
/* Pointer into dynamic shared memory at a constant byte offset plus a dynamic element index. */
LLVMValueRef lower_smem_ptr(lower_state *s, int64_t byte_offset, LLVMTypeRef elem, LLVMValueRef index);
int64_t lower_scratch_offset(lower_state *s, const ir_op *op);

/* Lowers the ops of a block, stopping before its terminator, which is returned (NULL on error). */
ir_op *lower_block(lower_state *s, ir_block *block, bool *ok);
bool lower_op(lower_state *s, ir_op *op);

/* ---------------------------------------------------------------- lower_index.c */
/* The per-layout info of a tensor type (built on first use; prologue code emitted then). */
lower_layout_info *lower_layout_of(lower_state *s, const ir_op *op, const ir_type *tensor);
/* Compile-time coordinate of register r (lane 0, warp 0). */
void lower_reg_coord(const lower_layout_info *li, int64_t r, int64_t *coord);
/* Runtime i32 coordinate along dim d of register r: lw_coord[d] ^ reg part. */
LLVMValueRef lower_coord(lower_state *s, const lower_layout_info *li, int64_t r, int d);
/* Applies the lane/warp bases of a linear map whose outputs are one integer (e.g. shared
 * offsets): value = XOR over set bits i of lane (warp) of lane_vals[i] (warp_vals[i]). Emits into
 * the prologue. */
LLVMValueRef lower_apply_bits(lower_state *s, LLVMValueRef x, const int64_t *vals, int nbits);
/* Number of warps/lanes that hold this layout's data with broadcast bits: helpers. */
bool lower_bases_equal(const layout_linear *a, const layout_linear *b, layout_in_dim in);

/* ---------------------------------------------------------------- families */
bool lower_elementwise(lower_state *s, ir_op *op); /* arith, math, casts, constants */
bool lower_program_id(lower_state *s, ir_op *op);
bool lower_memory(lower_state *s, ir_op *op);
/* Elements per global access of a tensor of pointers: min(contiguous registers along the
 * fastest dim, pointer alignment, mask constancy, 128 bits), a power of two; 1 for scalars. */
int lower_global_vector_width(lower_state *s, const ir_value *ptr, const ir_value *mask, int elem_bits);      /* load/store/addptr/splat/... */
bool lower_control(lower_state *s, ir_op *op);     /* scf.for / scf.if */
bool lower_reduce(lower_state *s, ir_op *op);
bool lower_convert(lower_state *s, ir_op *op);
bool lower_async(lower_state *s, ir_op *op);       /* async copies, commit, wait (lower_async.c) */
bool lower_wgmma(lower_state *s, ir_op *op);       /* ttng.warp_group_dot(_wait) (lower_wgmma.c) */
bool lower_dot_mfma(lower_state *s, ir_op *op);    /* tt.dot with an #ttg.amd_mfma result (lower_mfma.c) */
bool lower_sched_hint(lower_state *s, ir_op *op);  /* rocdl.s.setprio, rocdl.sched.barrier (lower_sched_hint.c) */
/* Maps every register of dst to a register of src when the two layouts place data on the same
 * lanes and warps after projecting dst coordinates onto src (layout_register_map); false when not. */
bool lower_register_map(const lower_layout_info *dst, const lower_layout_info *src, layout_project_fn project,
                        const void *project_ctx, int *map_out);

#endif

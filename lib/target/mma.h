/* The matrix-multiply instruction table: for each target family, which operand and accumulator types an instruction takes, its shape, and how it is emitted; read by accelerate-matmul and by the lowering. */
#ifndef GEMMC_TARGET_MMA_H
#define GEMMC_TARGET_MMA_H

#include <stdbool.h>

#include "gemmc/ir.h"
#include "gemmc/target.h"

/* Element types as the instructions name them (f32 with inputPrecision = tf32 is TF32). */
typedef enum target_dtype {
  TARGET_DT_NONE,
  TARGET_DT_F16,
  TARGET_DT_BF16,
  TARGET_DT_F32,
  TARGET_DT_TF32,
  TARGET_DT_I8,
  TARGET_DT_I32,
  TARGET_DT_E4M3,
  TARGET_DT_E5M2,
  TARGET_DT_E4M3FNUZ, /* AMD's fp8 (CDNA3): bias 8, no infinities, NaN is 0x80 */
  TARGET_DT_E5M2FNUZ, /* AMD's bf8 (CDNA3): bias 16 */
} target_dtype;

typedef struct target_mma {
  unsigned family;          /* one GEMMC_MMA_* bit: the target must have it */
  target_dtype a, b, c;     /* operand and accumulator types */
  int m, n, k;              /* shape of one instruction */
  int operand_bits;         /* bits of an A/B element (selects the fragment formulas) */
  bool ab_as_i32;           /* A/B registers are i32 (else vectors of 2 x 16-bit elements) */
  bool c_packed_f16;        /* C/D are <2 x half> registers (else one scalar each) */
  const char *name;         /* the instruction, for messages */
  const char *intrinsic;    /* how the target emits it (an LLVM intrinsic, or the instruction's type
                             * suffix for inline assembly), read by lib/target only */
  bool allows_transpose;    /* warpgroup MMA: operands may be MN-major in shared memory */
} target_mma;

/* Operand of a warp-level MMA instruction. */
typedef enum { TARGET_MMA_A, TARGET_MMA_B, TARGET_MMA_C } target_mma_operand;

/* The PTX ISA's fragment formulas for mma.sync.m16n8k{8,16,32}: the (row, col) inside the
 * instruction tile (A: M x K, B: K x N, C: M x N) of element `slot` held by `lane`, for operands
 * of `elem_bits` bits (16: f16/bf16 m16n8k16, 32: tf32 m16n8k8, 8: s8 m16n8k32). False when the
 * slot is out of range. */
bool target_mma_fragment_coord(target_mma_operand kind, int elem_bits, int slot, int lane, int *row, int *col);
/* Elements per thread of each fragment (A, B, C) for operands of elem_bits bits; 0 if unknown. */
int target_mma_fragment_size(target_mma_operand kind, int elem_bits);

/* The instruction type of an IR element type under a dot's inputPrecision ("tf32", "ieee",
 * ...; NULL when absent). */
target_dtype target_dtype_of(const ir_type *elem, const char *input_precision);

/* The instruction of one of `families` (GEMMC_MMA_* bits) that multiplies a x b into c, or NULL.
 * Independent of any one target: check `target->mma_kinds & instr->family` before using it. */
const target_mma *target_mma_find(unsigned families, const ir_type *a, const ir_type *b, const ir_type *c,
                                  const char *input_precision);

/* The same for a tt.dot or ttng.warp_group_dot: its operand and result element types and its
 * inputPrecision. */
const target_mma *target_mma_for_dot(unsigned families, const ir_op *dot);

/* A dot's inputPrecision as a name ("tf32", "ieee", ...), written as a keyword (tt.dot) or as
 * Triton's enum integer (ttng.warp_group_dot); NULL when absent. */
const char *target_dot_input_precision(const ir_op *dot);

/* Warpgroup MMA (wgmma): N values an instruction of `instr` may take, largest first, ending
 * with 0 (Triton's mmaVersionToInstrShape list). */
const int *target_wgmma_valid_n(const target_mma *instr);

/* ---------------------------------------------------------------- MFMA (AMD CDNA, wave64) */

/* An MFMA entry (family GEMMC_MMA_MFMA*) multiplies an m x k tile of A by a k x n tile of B
 * (m = n = 16 or 32) on one wave of 64 lanes. Each lane gives kBase = m * k / 64 consecutive K
 * elements of A and of B (one register each for the lowering: a vector <kBase x element>) and
 * holds m * n / 64 accumulators (scalars). */
int target_mfma_k_base(const target_mma *instr);

/* The #ttg.amd_mfma version of a target (Triton's getMfmaVersion): 2 for CDNA2 (gfx90a), 3 for
 * CDNA3 (gfx942); 0 when it has no MFMA. */
int target_mfma_version(const gemmc_target *t);

/* The MFMA instruction for a tt.dot on a target with `families` (its mma_kinds), Triton's
 * chooseMfmaInstruction: M = N = nonk_dim (16 or 32), the operand types (f32 with
 * inputPrecision = tf32 takes xf32 where the target has it, else f32), an i32 accumulator for
 * integers and f32 otherwise; of two instructions for the same types the larger K when
 * k_size >= that K. NULL when the target has none. */
const target_mma *target_mfma_find(unsigned families, const ir_op *dot, int nonk_dim, int64_t k_size);

/* The hardware's fragments of an MFMA instruction (the AMD matrix instruction calculator's
 * layout, not transposed): the (row, col) inside the instruction tile (A: M x K, B: K x N, C: M x N)
 * of element `slot` held by `lane` (0..63). A and B: slot 0..kBase-1; C: slot 0..m*n/64-1.
 * False when out of range. */
bool target_mfma_fragment_coord(const target_mma *instr, target_mma_operand kind, int slot, int lane, int *row,
                                int *col);

#endif /* GEMMC_TARGET_MMA_H */

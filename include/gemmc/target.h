/* gemmc targets: one data record per GPU (triple, CPU, features, limits, MMA kinds) and emission. */
#ifndef GEMMC_TARGET_H
#define GEMMC_TARGET_H

#include <stdbool.h>
#include <stddef.h>

/* The two LLVM C API handles used here, declared exactly as llvm-c/Types.h does (C11 allows the
 * repeated typedef), so that including this header needs no LLVM include path. */
typedef struct LLVMOpaqueModule *LLVMModuleRef;
typedef struct LLVMOpaqueValue *LLVMValueRef;

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gemmc_target_arch {
  GEMMC_ARCH_NVPTX,
  GEMMC_ARCH_AMDGPU,
} gemmc_target_arch;

/* Matrix-multiply instruction families a target has (a bit set in gemmc_target.mma_kinds). */
enum {
  GEMMC_MMA_SYNC = 1u << 0,     /* mma.sync m16n8k16 f16/bf16 -> f32 (sm_80+) */
  GEMMC_MMA_SYNC_FP8 = 1u << 1, /* mma.sync m16n8k32 e4m3/e5m2 (sm_89+, PTX 8.4) */
  GEMMC_MMA_WGMMA = 1u << 2,    /* wgmma.mma_async, warpgroup MMA (sm_90a only) */
  GEMMC_MMA_MFMA = 1u << 3,     /* v_mfma f16, bf16 (1k), f32 (CDNA2 and CDNA3) */
  GEMMC_MMA_MFMA_FP8 = 1u << 4, /* v_mfma fp8/bf8, FNUZ (CDNA3, gfx942) */
  GEMMC_MMA_MFMA_CDNA2 = 1u << 5, /* CDNA2 only (gfx90a): i8 K16/K8, bf16 of the smaller K */
  GEMMC_MMA_MFMA_CDNA3 = 1u << 6, /* CDNA3 only (gfx942): i8 K32/K16, xf32 */
};

/* Hardware features the lowering may rely on (a bit set in gemmc_target.caps). */
enum {
  GEMMC_CAP_CP_ASYNC = 1u << 0,    /* cp.async global->shared (sm_80+) */
  GEMMC_CAP_TMA = 1u << 1,         /* cp.async.bulk.tensor + mbarrier expect_tx (sm_90+) */
  GEMMC_CAP_CLUSTERS = 1u << 2,    /* thread-block clusters, distributed shared memory (sm_90+) */
  GEMMC_CAP_SETMAXNREG = 1u << 3,  /* setmaxnreg for warp specialization (sm_90a) */
  GEMMC_CAP_LDMATRIX = 1u << 4,    /* ldmatrix (sm_75+) */
  GEMMC_CAP_STMATRIX = 1u << 5,    /* stmatrix (sm_90+) */
  GEMMC_CAP_CVT_F16X2 = 1u << 6,   /* f32 pairs to packed f16 / bf16 in one cvt (sm_80+) */
  GEMMC_CAP_GRID_DEPENDENCY = 1u << 7, /* griddepcontrol: programmatic dependent launch (sm_90+) */
};

/* One target. The lookup table holds immutable records; copy one to change the PTX version.
 * `features` is stored inline so a copy is self-contained. */
typedef struct gemmc_target {
  const char *name;   /* what --target accepts: "sm_90a", "gfx942" */
  gemmc_target_arch arch;
  const char *triple; /* "nvptx64-nvidia-cuda", "amdgcn-amd-amdhsa" */
  const char *cpu;    /* LLVM CPU name: "sm_90a", "gfx942" */
  char features[64];  /* LLVM feature string: "+ptx85"; every entry checked against LLVM 19's list */
  int compute_capability; /* NVIDIA: 80, 86, 89, 90; 0 for AMD */
  int ptx_version;        /* NVIDIA: 85 means PTX ISA 8.5; 0 for AMD */
  int min_ptx_version;    /* the oldest PTX ISA that knows this CPU */
  int warp_size;          /* 32 on NVIDIA, 64 on CDNA */
  int max_threads_per_block;
  int shared_mem_static_per_block; /* bytes usable without opting in (48 KiB on NVIDIA) */
  int shared_mem_per_block;        /* bytes after opting in (dynamic shared memory) */
  int max_registers_per_thread;
  unsigned mma_kinds; /* GEMMC_MMA_* */
  unsigned caps;      /* GEMMC_CAP_* */
} gemmc_target;

/* The record for `name`, or NULL with a message listing the valid names in err.
 * The record is static and immutable: do not free it. */
const gemmc_target *gemmc_target_lookup(const char *name, char *err, size_t errlen);

/* All known targets, in the order --help lists them; *count receives their number. */
const gemmc_target *gemmc_target_list(int *count);

/* Applies an explicit --ptx-version ("8.5", "85" or "ptx85") to a copy of a target: checks that
 * LLVM 19 knows it (7.0 .. 8.5; LLVM silently ignores unknown +ptxNN features, so we must not)
 * and that it is new enough for the target's CPU, then rewrites t->ptx_version and t->features. */
bool gemmc_target_set_ptx_version(gemmc_target *t, const char *version, char *err, size_t errlen);

/* Bytes that a TMA copy's global base address and its strides must be whole multiples of (the
 * tensor map's rule, also applied to the contiguous extent of a clipped store); 0 for a target
 * without TMA (GEMMC_CAP_TMA). */
int gemmc_target_tma_alignment(const gemmc_target *t);

/* Checks a (possibly hand-made) target record: known arch, CPU and every +/-feature. */
bool gemmc_target_validate(const gemmc_target *t, char *err, size_t errlen);

/* Marks fn as an NVPTX kernel the way LLVM 19 reads it: the ptx_kernel calling convention and
 * `!nvvm.annotations !{ptr @fn, !"kernel", i32 1}`; max_threads > 0 adds `maxntidx`
 * (PTX `.maxntid N, 1, 1`), which lets ptxas budget registers for that block size. */
void gemmc_target_mark_kernel(LLVMModuleRef m, LLVMValueRef fn, int max_threads);
/* One more NVVM kernel annotation (!nvvm.annotations), e.g. "maxnreg". */
void gemmc_target_annotate_kernel(LLVMModuleRef m, LLVMValueRef fn, const char *key, int value);
/* Appends `!{ptr @fn, !"key", !{i32 p+1, ...}}` (1-based parameter numbers, at most 16), the form
 * of NVVM's "grid_constant". */
void gemmc_target_annotate_param_list(LLVMModuleRef m, LLVMValueRef fn, const char *key, const int *params, int n);

/* Marks fn as a kernel for target t (NVPTX as above; AMDGPU: amdgpu_kernel calling convention
 * and "amdgpu-flat-work-group-size"="1,max_threads"). */
void gemmc_target_mark_kernel_for(const gemmc_target *t, LLVMModuleRef m, LLVMValueRef fn,
                                  int max_threads);

/* Sets m's triple and data layout for t and runs LLVM's default<O{opt_level}> pipeline on m in
 * place (opt_level 0..3). Verifies m first. Useful for --emit=llvm after optimization. */
bool gemmc_target_optimize(const gemmc_target *t, LLVMModuleRef m, int opt_level, char *err,
                           size_t errlen);

/* Emits PTX for m. m itself is not modified: a clone is optimized (default<O{opt_level}>) and
 * handed to the NVPTX code generator. The text is checked to carry t's .version and .target.
 * On success *ptx_out is malloc'ed, NUL-terminated text (free() it) and *len_out its length
 * without the NUL. */
bool gemmc_target_emit_ptx(const gemmc_target *t, LLVMModuleRef m, int opt_level, char **ptx_out,
                           size_t *len_out, char *err, size_t errlen);

/* Emits PTX for m that gemmc_target_optimize has already optimized, without the clone and the
 * second optimization gemmc_target_emit_ptx pays for (compile time). Code generation mutates m:
 * afterwards m is only good for LLVMDisposeModule. Output and checks as gemmc_target_emit_ptx. */
bool gemmc_target_codegen_ptx(const gemmc_target *t, LLVMModuleRef m, int opt_level,
                              char **ptx_out, size_t *len_out, char *err, size_t errlen);

/* Emits AMDGPU assembly (text) for m, from a clone like gemmc_target_emit_ptx. Linking to a
 * .hsaco needs ld.lld and is not done here. */
bool gemmc_target_emit_amdgpu_asm(const gemmc_target *t, LLVMModuleRef m, int opt_level,
                                  char **asm_out, size_t *len_out, char *err, size_t errlen);

/* The PTX name of a kernel called `name` in the .tir (lib/target/symbol_name.c has the rule):
 * valid identifiers of letters, digits and '_' are kept; other bytes become `$xx`. Writes at
 * most out_size bytes including the NUL; returns the length the name needs (at most 3 * strlen). */
size_t gemmc_ptx_symbol_name(const char *name, char *out, size_t out_size);

/* True when an executable `ptxas` is on PATH (its path copied to path_out when given). */
bool gemmc_target_find_ptxas(char *path_out, size_t path_len);

/* Assembles NUL-terminated ptx with `ptxas -arch=<t->cpu> -v`, writing the cubin to cubin_path
 * (NULL: the cubin is discarded). ptxas' output (registers, spills, shared memory per kernel, or
 * its error messages) goes to report. Fails with a clear message when ptxas is not on PATH or
 * exits non-zero (its output then also goes into err). Runs ptxas through posix_spawn, no shell. */
bool gemmc_target_run_ptxas(const char *ptx, const gemmc_target *t, const char *cubin_path,
                            char *report, size_t report_len, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* GEMMC_TARGET_H */

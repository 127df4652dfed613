/* AMDGPU code objects: kernel attributes, relocatable objects, linking into .hsaco with ld.lld, the metadata note read back, kernarg packing. */
#ifndef GEMMC_AMDGPU_H
#define GEMMC_AMDGPU_H

#include <stdbool.h>
#include <stddef.h>

#include "gemmc/gemmc.h"
#include "gemmc/target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ kernel attributes */

/* What an AMDGPU kernel function carries besides its body (Triton's make_llir sets the same). */
typedef struct gemmc_amdgpu_kernel_attrs {
  int max_threads;       /* "amdgpu-flat-work-group-size"="1,max_threads"; 0: not set */
  int waves_per_eu;      /* "amdgpu-waves-per-eu"="N, N" (Triton 3.6's spelling); 0: not set */
  bool flush_denormals;  /* "denormal-fp-math-f32"="preserve-sign" instead of "ieee" */
  bool preload_kernargs; /* `inreg` on every parameter: gfx940+ firmware preloads them into SGPRs */
} gemmc_amdgpu_kernel_attrs;

/* Makes fn an AMDGPU kernel: amdgpu_kernel calling convention, the attributes above,
 * "uniform-work-group-size"="true" (grids are whole blocks), and the module flag
 * amdhsa_code_object_version = 500 (code object version 5). */
void gemmc_target_amdgpu_mark_kernel(LLVMModuleRef m, LLVMValueRef fn, const gemmc_amdgpu_kernel_attrs *attrs);

/* The most waves per SIMD (EU) the target runs: 8 on gfx90a and gfx942; 0 for other targets. */
int gemmc_target_amdgpu_max_waves_per_eu(const gemmc_target *t);

/* Checks the AMD-only compile options against t (0 means "not set" for each): waves_per_eu in
 * 1..max, matrix_instr_nonkdim 16 or 32, kpack 1 or 2; any of them non-zero needs an AMD target. */
bool gemmc_target_amdgpu_check_options(const gemmc_target *t, int waves_per_eu, int matrix_instr_nonkdim,
                                       int kpack, char *err, size_t errlen);

/* ------------------------------------------------------------------ objects and linking */

/* Emits a relocatable ELF object for m: a clone is optimized (default<O{opt_level}>) and handed
 * to the AMDGPU code generator; m is not modified. The object is checked to be an AMDGPU ELF of
 * code object version 5. *obj_out is malloc'ed (free() it). */
bool gemmc_target_emit_amdgpu_object(const gemmc_target *t, LLVMModuleRef m, int opt_level, void **obj_out,
                                     size_t *len_out, char *err, size_t errlen);

/* The same for a module gemmc_target_optimize has already optimized, without the clone: code
 * generation mutates m, which is only good for LLVMDisposeModule afterwards. */
bool gemmc_target_codegen_amdgpu_object(const gemmc_target *t, LLVMModuleRef m, int opt_level, void **obj_out,
                                        size_t *len_out, char *err, size_t errlen);

/* AMDGCN assembly for an already optimized module, leaving m usable (the code generator gets a
 * clone; gemmc_target_emit_amdgpu_asm optimizes its clone first). */
bool gemmc_target_codegen_amdgpu_asm(const gemmc_target *t, LLVMModuleRef m, int opt_level, char **asm_out,
                                     size_t *len_out, char *err, size_t errlen);

/* ld.lld from LLVM 19: $GEMMC_LLD when set (a path), else `ld.lld-19` on PATH, then
 * /usr/lib/llvm-19/bin/ld.lld, then ROCm's /opt/rocm/llvm/bin/ld.lld (a bare `ld.lld` on PATH is
 * not taken: Debian's is whatever version `lld` points at, 14 on Debian 12). */
bool gemmc_target_find_lld(char *path_out, size_t path_len);

/* Links a relocatable AMDGPU object into a loadable shared code object (.hsaco) with
 * `ld.lld -shared --no-undefined`, run through posix_spawn. *hsaco_out is malloc'ed. */
bool gemmc_target_link_hsaco(const void *obj, size_t obj_len, void **hsaco_out, size_t *hsaco_len, char *err,
                             size_t errlen);

/* ------------------------------------------------------------------ the metadata note */

/* Everything the NT_AMDGPU_METADATA note of a code object (relocatable or linked) says. */
typedef struct gemmc_amdgpu_code_object {
  const char *target;          /* amdhsa.target: "amdgcn-amd-amdhsa--gfx942" */
  int code_object_version;     /* from the ELF header: 5 */
  int metadata_version[2];     /* amdhsa.version: {1, 2} for version 5 */
  int num_kernels;
  const gemmc_amdgpu_kernel_info *kernels;
} gemmc_amdgpu_code_object;

/* Reads the ELF's metadata note (msgpack) into *out; free it with gemmc_amdgpu_code_object_free.
 * Fails with a message for anything that is not a little-endian ELF64 AMDGPU object, has no
 * note, or a note that lacks a required key or has an argument outside the kernarg segment. */
bool gemmc_amdgpu_read_code_object(const void *elf, size_t len, gemmc_amdgpu_code_object **out, char *err,
                                   size_t errlen);
void gemmc_amdgpu_code_object_free(gemmc_amdgpu_code_object *co);
/* The kernel named `name` (its .name), or NULL. */
const gemmc_amdgpu_kernel_info *gemmc_amdgpu_code_object_kernel(const gemmc_amdgpu_code_object *co,
                                                                const char *name);

/* ------------------------------------------------------------------ launching */

/* Bytes of kernarg buffer the caller fills: up to the end of the last explicit argument (the
 * HIP runtime appends the hidden ones itself). */
size_t gemmc_amdgpu_explicit_kernarg_bytes(const gemmc_amdgpu_kernel_info *k);

/* Lays out a launch's arguments as the kernarg segment expects them: args[i] points at the value
 * of the i-th explicit argument (as cuLaunchKernel / hipModuleLaunchKernel take them); its .size
 * bytes go to its .offset, gaps are zero. num_args must equal k->num_explicit_kernargs. *used
 * receives gemmc_amdgpu_explicit_kernarg_bytes(k), which must fit in buf_size. */
bool gemmc_amdgpu_pack_kernargs(const gemmc_amdgpu_kernel_info *k, void *const *args, int num_args, void *buf,
                                size_t buf_size, size_t *used, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* GEMMC_AMDGPU_H */

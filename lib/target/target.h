/* Helpers shared by the target files (target.c, nvptx.c, amdgpu.c); not part of the public API. */
#ifndef GEMMC_LIB_TARGET_H
#define GEMMC_LIB_TARGET_H

#include "gemmc/target.h"

#include <llvm-c/TargetMachine.h>

/* snprintf into err when err is given; always returns false so callers can `return target_fail(..)`. */
bool target_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Registers one backend with LLVM (idempotent; LLVM keeps the registry). */
void target_nvptx_initialize(void);
/* PTX peephole (ptx_peephole.c): in kernels that issue wgmma, `mul.wide.s32 d, s, 2^k` becomes
 * `cvt.s64.s32` + `shl.b64`, which ptxas keeps in registers instead of recomputing inside loops.
 * *ptx (malloc'ed, NUL-terminated, *len bytes) may be replaced; false when memory runs out (then
 * *ptx is unchanged). */
bool target_ptx_split_wide_shifts(char **ptx, size_t *len);
void target_amdgpu_initialize(void);

/* Validates t, registers its backend and creates an LLVM target machine. */
bool target_create_machine(const gemmc_target *t, int opt_level, LLVMTargetMachineRef *tm_out,
                           char *err, size_t errlen);

/* Verifies m, sets its triple and data layout from tm and runs default<O{opt_level}>. */
bool target_optimize_with_machine(const gemmc_target *t, LLVMTargetMachineRef tm, LLVMModuleRef m,
                                  int opt_level, char *err, size_t errlen);

/* LLVMTargetMachineEmitToMemoryBuffer with LLVM's fatal errors turned into a false return and
 * "LLVM fatal error: <reason>" in err (see target.c). On LLVM's own failure, false with *message
 * set (LLVMDisposeMessage it). On success *buffer holds the output. */
bool target_emit_guarded(LLVMTargetMachineRef tm, LLVMModuleRef m, LLVMCodeGenFileType file_type, char **message,
                         LLVMMemoryBufferRef *buffer, char *err, size_t errlen);

/* Clones m, optimizes the clone and emits it as assembly text (malloc'ed, NUL-terminated):
 * code generation mutates the module, so the caller's stays usable for other targets. */
bool target_emit_assembly(const gemmc_target *t, LLVMModuleRef m, int opt_level, char **text_out,
                          size_t *len_out, char *err, size_t errlen);

/* Emits m, which the caller has already optimized, as assembly text without cloning it: code
 * generation mutates m, so m is only good for disposal afterwards. */
bool target_codegen_optimized(const gemmc_target *t, LLVMModuleRef m, int opt_level,
                              char **text_out, size_t *len_out, char *err, size_t errlen);

void target_amdgpu_mark_kernel(LLVMModuleRef m, LLVMValueRef fn, int max_threads);

/* Adds the module flag amdhsa_code_object_version = 500 unless present; fails when the module
 * already asks for another version. */
bool target_amdgpu_set_code_object_version(LLVMModuleRef m, char *err, size_t errlen);

/* ---- host tools (host_tool.c): ptxas, ld.lld */

/* Finds an executable `name` on PATH, else the first executable of the NULL-terminated list of
 * full paths `fallbacks` (may be NULL); copies its path to path_out. */
bool target_find_tool(const char *name, const char *const *fallbacks, char *path_out, size_t path_len);

/* Writes len bytes to a fresh <TMPDIR>/gemmc-XXXXXX<suffix>; path_out gets its name. */
bool target_write_temp_file(const void *data, size_t len, const char *suffix, char *path_out,
                            size_t path_len, char *err, size_t errlen);

/* Reads a whole regular file of at most max_bytes into *data_out (malloc'ed; free it). */
bool target_read_file(const char *path, size_t max_bytes, void **data_out, size_t *len_out,
                      char *err, size_t errlen);

/* Runs argv[0] (a path; no shell) with stdin from /dev/null and stdout + stderr captured into
 * *output (malloc'ed, NUL-terminated). *exit_status is the exit status, -1 after a signal. */
bool target_spawn_and_capture(char *const argv[], char **output, int *exit_status, char *err,
                              size_t errlen);

#endif /* GEMMC_LIB_TARGET_H */

/* Helpers shared by the target files (target.c, nvptx.c, amdgpu.c); not part of the public API. */
#ifndef GEMMC_LIB_TARGET_H
#define GEMMC_LIB_TARGET_H

#include "gemmc/target.h"

#include <llvm-c/TargetMachine.h>

/* snprintf into err when err is given; always returns false so callers can `return target_fail(..)`. */
bool target_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Registers one backend with LLVM (idempotent; LLVM keeps the registry). */
void target_nvptx_initialize(void);
void target_amdgpu_initialize(void);

/* Validates t, registers its backend and creates an LLVM target machine. */
bool target_create_machine(const gemmc_target *t, int opt_level, LLVMTargetMachineRef *tm_out,
                           char *err, size_t errlen);

/* Verifies m, sets its triple and data layout from tm and runs default<O{opt_level}>. */
bool target_optimize_with_machine(const gemmc_target *t, LLVMTargetMachineRef tm, LLVMModuleRef m,
                                  int opt_level, char *err, size_t errlen);

/* Clones m, optimizes the clone and emits it as assembly text (malloc'ed, NUL-terminated):
 * code generation mutates the module, so the caller's stays usable for other targets. */
bool target_emit_assembly(const gemmc_target *t, LLVMModuleRef m, int opt_level, char **text_out,
                          size_t *len_out, char *err, size_t errlen);

/* Emits m, which the caller has already optimized, as assembly text without cloning it: code
 * generation mutates m, so m is only good for disposal afterwards. */
bool target_codegen_optimized(const gemmc_target *t, LLVMModuleRef m, int opt_level,
                              char **text_out, size_t *len_out, char *err, size_t errlen);

void target_amdgpu_mark_kernel(LLVMModuleRef m, LLVMValueRef fn, int max_threads);

#endif /* GEMMC_LIB_TARGET_H */

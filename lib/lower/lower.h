/* Lowering of TTGIR (every tensor has a layout) to LLVM IR through the LLVM C API. */
#ifndef GEMMC_LOWER_H
#define GEMMC_LOWER_H

#include <llvm-c/Core.h>

#include "gemmc/ir.h"
#include "gemmc/target.h"

/* What the runtime and the metadata file need to know about the lowered kernel: the lowering
 * says it, nobody reads it back out of the assembly. */
typedef struct gemmc_lowered_kernel {
  const char *name;            /* the tt.func symbol (arena string) */
  int num_params;              /* parameters of the LLVM kernel: the tt.func's arguments, in order */
  int num_warps;
  int threads_per_warp;
  int threads_per_block;       /* num_warps * threads_per_warp */
  int64_t shared_bytes;        /* shared memory the kernel's buffers take (the allocation's end); they
                                  live in the module's one dynamic shared array */
  int64_t static_shared_bytes; /* shared arrays of fixed size the module defines (the PTX's non-extern
                                  .shared): they need nothing at launch */
} gemmc_lowered_kernel;

/* Lowers every public tt.func of `module` into a new LLVM module owned by `llvm_ctx`.
 * The module must be TTGIR that verifies. Kernels are marked for the target (kernel calling convention /
 * amdgpu_kernel). On error emits diagnostics at the offending op and returns false.
 * `kernels` receives up to `max_kernels` descriptions; *num_kernels the count. */
bool gemmc_lower_to_llvm(gemmc_context *ctx, ir_op *module, const gemmc_target *target, bool fp_fusion,
                         LLVMContextRef llvm_ctx, LLVMModuleRef *out, gemmc_lowered_kernel *kernels, int max_kernels,
                         int *num_kernels);

#endif

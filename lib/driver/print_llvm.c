/* --print-llvm (alias --convert-to-llvm): lower the module and print its LLVM IR or PTX, for lit tests of the lowering. */
#include <stdio.h>
#include <stdlib.h>

#include "gemmc/passes.h"
#include "lower/lower.h"

enum { MAX_KERNELS = 16 };

bool gemmc_pass_print_llvm(const gemmc_pass_context *pc, ir_op *module) {
  gemmc_context *ctx = pc->ctx;
  char err[512];
  const gemmc_target *t = pc->target ? pc->target : gemmc_target_lookup("sm_90a", err, sizeof err);
  bool ptx = pc->emit_ptx;
  int opt_level = pc->opt_level >= 0 ? pc->opt_level : ptx ? 3 : 0;
  LLVMContextRef llctx = LLVMContextCreate();
  LLVMModuleRef m = NULL;
  gemmc_lowered_kernel kernels[MAX_KERNELS];
  int n = 0;
  bool ok = gemmc_lower_to_llvm(ctx, module, t, pc->fp_fusion, llctx, &m, kernels, MAX_KERNELS, &n);
  FILE *f = pc->out;
  if (ok && pc->output) {
    f = fopen(pc->output, "w");
    if (!f) {
      ir_op_error(ctx, module, "--print-llvm: cannot open '%s'", pc->output);
      ok = false;
    }
  }
  if (ok) {
    const char *comment = ptx ? "//" : ";";
    for (int i = 0; i < n && i < MAX_KERNELS; i++)
      fprintf(f, "%s gemmc kernel @%s: threads_per_block = %d, shared_bytes = %lld\n", comment, kernels[i].name,
              kernels[i].threads_per_block, (long long)kernels[i].shared_bytes);
    if (ptx) {
      char *text = NULL;
      size_t len = 0;
      ok = gemmc_target_emit_ptx(t, m, opt_level, &text, &len, err, sizeof err);
      if (ok) fwrite(text, 1, len, f);
      else ir_op_error(ctx, module, "--print-llvm: %s", err);
      free(text);
    } else {
      if (opt_level > 0 && !gemmc_target_optimize(t, m, opt_level, err, sizeof err)) {
        ir_op_error(ctx, module, "--print-llvm: %s", err);
        ok = false;
      }
      if (ok) {
        char *text = LLVMPrintModuleToString(m);
        fputs(text, f);
        LLVMDisposeMessage(text);
      }
    }
    if (f != pc->out) fclose(f);
  }
  if (m) LLVMDisposeModule(m);
  LLVMContextDispose(llctx);
  return ok;
}

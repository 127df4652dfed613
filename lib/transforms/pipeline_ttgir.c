/* --pipeline=ttgir[,options]: the TTIR -> TTGIR front half as one pass (assign-layouts, coalesce,
 * remove-layout-conversions, accelerate-matmul, remove-layout-conversions), as gemmc runs it. */
#include <stdio.h>
#include <string.h>

#include "gemmc/passes.h"

/* The pipeline name comes first in the options ("ttgir,num-warps=8"); the rest is passed to
 * every pass of the pipeline, each reading the keys it knows. */
bool gemmc_pass_pipeline_ttgir(gemmc_context *ctx, ir_op *module, const char *options, FILE *out) {
  const char *name = options ? options : "";
  size_t len = strcspn(name, ",");
  if (len != 5 || strncmp(name, "ttgir", 5) != 0) {
    ir_op_error(ctx, module, "unknown pipeline '%.*s' (known: ttgir)", (int)len, name);
    return false;
  }
  const char *rest = name[len] == ',' ? name + len + 1 : NULL;
  if (!gemmc_pass_assign_layouts(ctx, module, rest, out)) return false;
  if (!ir_verify(ctx, module)) return false;
  if (!gemmc_pass_coalesce(ctx, module, rest, out)) return false;
  if (!gemmc_pass_remove_layout_conversions(ctx, module, rest, out)) return false;
  if (!gemmc_pass_accelerate_matmul(ctx, module, rest, out)) return false;
  return gemmc_pass_remove_layout_conversions(ctx, module, rest, out);
}

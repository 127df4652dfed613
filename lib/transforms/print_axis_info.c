/* --print-axis-info (alias --test-print-alignment): a remark with the axis info of every op result, as Triton's test pass prints. */
#include <stdio.h>
#include <string.h>

#include "gemmc/axis_info.h"
#include "gemmc/passes.h"

typedef struct print_walk {
  gemmc_context *ctx;
  const axis_info_analysis *analysis;
} print_walk;

static bool remark_results(ir_op *op, void *user) {
  print_walk *w = user;
  for (int i = 0; i < op->num_results; i++) {
    const ir_value *v = &op->results[i];
    char info[512];
    axis_info_format(axis_info_of(w->analysis, v), info, sizeof info);
    /* Triton prints the value first ("%x = op ... => contiguity = ..."); lit tests match the
     * part after "=>", so the op name and the value's name are enough here. */
    char name[160];
    if (v->name && op->num_results > 1)
      snprintf(name, sizeof name, "%%%s#%d", v->name, i);
    else if (v->name)
      snprintf(name, sizeof name, "%%%s", v->name);
    else
      snprintf(name, sizeof name, "result #%d", i);
    ir_op_emit_diag(w->ctx, IR_DIAG_REMARK, op, "%s = %s => %s", name, ir_op_name(op), info);
  }
  return true;
}

bool gemmc_pass_print_axis_info(const gemmc_pass_context *pc, ir_op *module) {
  gemmc_context *ctx = pc->ctx;
  axis_info_analysis *analysis = axis_info_run(ctx, module);
  if (!analysis) {
    ir_op_error(ctx, module, "axis-info analysis ran out of memory");
    return false;
  }
  print_walk w = {ctx, analysis};
  ir_walk(module, remark_results, &w);
  axis_info_free(analysis);
  return true;
}

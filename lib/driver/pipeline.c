/* The pass pipelines, in one table: what gemmc and libgemmc run on TTIR and what `gemmc-opt --pipeline=NAME` runs. */
#include <string.h>

#include "gemmc/passes.h"

/* A step runs always, or only when the kernel is pipelined: num_stages >= 2 and the target has
 * asynchronous copies (NVIDIA), or is an AMD target (pipelined through registers). */
typedef enum step_when { STEP_ALWAYS, STEP_WHEN_AMD, STEP_WHEN_PIPELINED, STEP_WHEN_AMD_PIPELINED } step_when;

typedef struct pipeline_step {
  gemmc_pass_fn run;
  const char *name;
  step_when when;
} pipeline_step;

/* Triton's order: coalesce, remove-conversions, accelerate-matmul, remove-conversions (the MMA
 * layouts bring new conversions), on AMD the epilogue that stores from the MFMA layout (and the
 * conversions it moves to pointers and masks rematerialized), then software pipelining of the K
 * loops (cp.async on NVIDIA, through registers on AMD). */
static const pipeline_step compile_steps[] = {
    {gemmc_pass_assign_layouts, "assign-layouts", STEP_ALWAYS},
    {gemmc_pass_coalesce, "coalesce", STEP_ALWAYS},
    {gemmc_pass_remove_layout_conversions, "remove-layout-conversions", STEP_ALWAYS},
    {gemmc_pass_accelerate_matmul, "accelerate-matmul", STEP_ALWAYS},
    {gemmc_pass_remove_layout_conversions, "remove-layout-conversions", STEP_ALWAYS},
    /* AMD: MFMA results are stored from their own layout (Triton's AMD make_ttgir order). */
    {gemmc_pass_amd_optimize_epilogue, "amd-optimize-epilogue", STEP_WHEN_AMD},
    {gemmc_pass_remove_layout_conversions, "remove-layout-conversions", STEP_WHEN_AMD},
    {gemmc_pass_pipeline_loads, "pipeline-loads", STEP_WHEN_PIPELINED},
    {gemmc_pass_amd_stream_pipeline, "amd-stream-pipeline", STEP_WHEN_AMD_PIPELINED},
};

enum { COMPILE_STEPS = (int)(sizeof compile_steps / sizeof compile_steps[0]) };

typedef struct named_pipeline {
  const char *name;
  int num_steps; /* a prefix of compile_steps */
} named_pipeline;

static const named_pipeline pipelines[] = {
    {"ttgir", COMPILE_STEPS - 2},
    {"compile", COMPILE_STEPS},
};

bool gemmc_pipeline_run(const gemmc_pass_context *pc, ir_op *module, const char *name, bool verify_each) {
  const named_pipeline *p = NULL;
  for (size_t i = 0; i < sizeof pipelines / sizeof pipelines[0]; i++)
    if (name && strcmp(name, pipelines[i].name) == 0) p = &pipelines[i];
  if (!p) {
    ir_op_error(pc->ctx, module, "unknown pipeline '%s' (known: ttgir, compile)", name ? name : "");
    return false;
  }
  for (int i = 0; i < p->num_steps; i++) {
    const pipeline_step *step = &compile_steps[i];
    if (step->when == STEP_WHEN_PIPELINED &&
        (pc->num_stages < 2 || !pc->target || !(pc->target->caps & GEMMC_CAP_CP_ASYNC)))
      continue;
    if (step->when == STEP_WHEN_AMD && (!pc->target || pc->target->arch != GEMMC_ARCH_AMDGPU)) continue;
    if (step->when == STEP_WHEN_AMD_PIPELINED &&
        (pc->num_stages < 2 || !pc->target || pc->target->arch != GEMMC_ARCH_AMDGPU))
      continue;
    if (!step->run(pc, module)) return false;
    if ((verify_each || i == 0) && !ir_verify(pc->ctx, module)) return false;
  }
  return true;
}

/* --pipeline=NAME[,options]: the options fill the context that every pass of the pipeline gets. */
bool gemmc_pass_pipeline(const gemmc_pass_context *pc, ir_op *module) {
  return gemmc_pipeline_run(pc, module, pc->pipeline ? pc->pipeline : "", false);
}

/* The pass pipelines, in one table: what gemmc and libgemmc run on TTIR and what `gemmc-opt --pipeline=NAME` runs. */
#include <string.h>

#include "gemmc/passes.h"

/* When a step runs: NULL = always, else the predicate on the pass context. */
typedef bool (*step_when)(const gemmc_pass_context *pc);

static bool is_amd(const gemmc_pass_context *pc) { return pc->target && pc->target->arch == GEMMC_ARCH_AMDGPU; }
/* Triton enables the in-thread transpose on gfx942 (CDNA3, MFMA version 3) by default. */
static bool is_cdna3(const gemmc_pass_context *pc) {
  return is_amd(pc) && (pc->target->mma_kinds & GEMMC_MMA_MFMA_CDNA3);
}
/* Software pipelining: num_stages >= 2, and a target with asynchronous copies (NVIDIA) or an AMD
 * target (pipelined through registers). */
static bool pipelined_async(const gemmc_pass_context *pc) {
  return pc->num_stages >= 2 && pc->target && (pc->target->caps & GEMMC_CAP_CP_ASYNC);
}
static bool pipelined_amd(const gemmc_pass_context *pc) { return pc->num_stages >= 2 && is_amd(pc); }

typedef struct pipeline_step {
  gemmc_pass_fn run;
  const char *name;
  step_when when;
  /* Verified after it even without verify_each: assign-layouts, whose TTGIR must be consistent
   * (TTGIR handed in as TTIR gets layouts that contradict its own, caught here). */
  bool verify;
} pipeline_step;

/* Triton's order: coalesce, remove-conversions, accelerate-matmul, remove-conversions (the MMA
 * layouts bring new conversions); on AMD the epilogue that stores from the MFMA layout (and the
 * conversions it moves to pointers and masks rematerialized) and, on gfx942, the thread-raked
 * loads of the in-thread transpose; then, on NVIDIA, TMA loads and warp specialization where
 * they apply, and software pipelining of the K loops (cp.async or TMA rings on NVIDIA, through
 * registers on AMD); last, descriptor loads and stores left become single TMA copies. */
static const pipeline_step compile_steps[] = {
    {gemmc_pass_expand_ops, "expand-ops", NULL, false},
    {gemmc_pass_assign_layouts, "assign-layouts", NULL, true},
    {gemmc_pass_coalesce, "coalesce", NULL, false},
    {gemmc_pass_remove_layout_conversions, "remove-layout-conversions", NULL, false},
    {gemmc_pass_accelerate_matmul, "accelerate-matmul", NULL, false},
    {gemmc_pass_remove_layout_conversions, "remove-layout-conversions", NULL, false},
    {gemmc_pass_amd_optimize_epilogue, "amd-optimize-epilogue", is_amd, false},
    {gemmc_pass_remove_layout_conversions, "remove-layout-conversions", is_amd, false},
    {gemmc_pass_amd_in_thread_transpose, "amd-in-thread-transpose", is_cdna3, false},
    {gemmc_pass_remove_layout_conversions, "remove-layout-conversions", is_cdna3, false},
    /* The "ttgir" pipeline stops here, before TMA, warp specialization and pipelining. */
    {gemmc_pass_tma_loads, "tma-loads", pipelined_async, false},
    {gemmc_pass_warp_specialize, "warp-specialize", pipelined_async, false},
    {gemmc_pass_pipeline_loads, "pipeline-loads", pipelined_async, false},
    {gemmc_pass_amd_stream_pipeline, "amd-stream-pipeline", pipelined_amd, false},
    {gemmc_pass_remove_layout_conversions, "remove-layout-conversions", pipelined_amd, false},
    /* Descriptor loads and stores left after pipelining (or an error where the target has no TMA). */
    {gemmc_pass_tma_lowering, "tma-lowering", NULL, false},
    /* A loop-carried accumulator reset by a select becomes the MMA's useC flag. */
    {gemmc_pass_optimize_accumulator_init, "optimize-accumulator-init", NULL, false},
};

enum { COMPILE_STEPS = (int)(sizeof compile_steps / sizeof compile_steps[0]) };

typedef struct named_pipeline {
  const char *name;
  int num_steps; /* a prefix of compile_steps */
} named_pipeline;

static const named_pipeline pipelines[] = {
    {"ttgir", COMPILE_STEPS - 7},
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
    if (step->when && !step->when(pc)) continue;
    if (!step->run(pc, module)) return false;
    /* The lowering-cost limit waits for the end of the pipeline (the caller verifies its result):
     * the IR in between is not what gets lowered. */
    if ((verify_each || step->verify) && !ir_verify_between_passes(pc->ctx, module)) return false;
  }
  return true;
}

/* --pipeline=NAME[,options]: the options fill the context that every pass of the pipeline gets. */
bool gemmc_pass_pipeline(const gemmc_pass_context *pc, ir_op *module) {
  return gemmc_pipeline_run(pc, module, pc->pipeline ? pc->pipeline : "", false);
}

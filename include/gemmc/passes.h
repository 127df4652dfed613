/* Pass registry: every pass gemmc-opt and gemmc can run, by name, with its typed context and options, and the named pass pipelines. */
#ifndef GEMMC_PASSES_H
#define GEMMC_PASSES_H

#include <stdio.h>

#include "gemmc/ir.h"
#include "gemmc/target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What every pass knows besides the module. A pass reads the fields it needs and never parses
 * text: the one option parser (gemmc_pass_context_init + gemmc_pass_apply_options) fills them
 * from the caller, the module's ttg.* attributes and the pass's `--name=key=value,...` options. */
typedef struct gemmc_pass_context {
  gemmc_context *ctx;
  const gemmc_target *target; /* NULL when neither the caller, the module nor an option names one */
  int num_warps;              /* warps per block (module ttg.num-warps, default 4) */
  int threads_per_warp;       /* module ttg.threads-per-warp, default the target's warp size or 32 */
  int num_ctas;               /* module ttg.num-ctas, default 1 */
  int num_stages;             /* software-pipelining depth: shared-memory stages (default 3) */
  int64_t max_shared;         /* bytes per block the pipeline may use (default: the target's limit, 0 = none) */
  int matrix_instr_nonkdim;   /* AMD MFMA: 16 or 32 (0: the pass chooses), Triton's matrix_instr_nonkdim */
  int kpack;                  /* AMD MFMA: 1 or 2, Triton's kpack */
  int tma;                    /* tma=0: no TMA; 1 (default): where warp specialization will use it; 2: wherever legal */
  int warp_specialize;        /* warp-specialize=0: off; 1 (default): kernels of GEMMC_WS_CONSUMER_WARPS warps;
                               * 2: also ping-pong groups for one-warpgroup kernels (slower today) */
  FILE *out;                  /* where printing passes write */
  /* print-llvm */
  bool emit_ptx;              /* emit=ptx (else llvm) */
  int opt_level;              /* opt=0..3; -1: 3 for PTX, 0 for LLVM IR */
  const char *output;         /* output=FILE, or NULL for `out` */
  /* pipeline */
  const char *pipeline;       /* the pipeline's name (its first, positional option) */
} gemmc_pass_context;

/* The warps of the warp-specialized kernel's consumer group (two warpgroups sharing each tile):
 * warp-specialize takes kernels of this many warps, and tma-loads (auto) only feeds those. Kernels
 * of one warpgroup would take ping-pong groups, which measured slower than cp.async rings
 * (docs/perf-notes.md) and stay off. */
enum { GEMMC_WS_CONSUMER_WARPS = 8 };

/* A pass runs on the module; returns false after emitting a diagnostic. */
typedef bool (*gemmc_pass_fn)(const gemmc_pass_context *pc, ir_op *module);

typedef struct gemmc_pass_info {
  const char *name;    /* "coalesce" */
  const char *alias;   /* "tritongpu-coalesce", or NULL */
  const char *options; /* the option keys it takes, space-separated ("num-warps target") */
  const char *help;
  gemmc_pass_fn run;
} gemmc_pass_info;

/* Declarations of every pass function (from passes.def). */
#define GEMMC_PASS(name, alias, fn, options, help) bool fn(const gemmc_pass_context *pc, ir_op *module);
#include "gemmc/passes.def"
#undef GEMMC_PASS

const gemmc_pass_info *gemmc_pass_lookup(const char *name);
/* All passes, for --help; *count receives the number. */
const gemmc_pass_info *gemmc_pass_list(int *count);

/* The context for running passes on `module`: target (may be NULL: then the module's ttg.target,
 * "cuda:80" or an sm_/gfx name, when it has one), launch shape from the module's ttg.* attributes,
 * defaults for the rest. Errors (an unknown ttg.target) are diagnosed at the module. */
bool gemmc_pass_context_init(gemmc_pass_context *pc, gemmc_context *ctx, ir_op *module, const gemmc_target *target,
                             FILE *out);

/* Applies a pass's option text ("a=1,b=2", "a=1 b=2", possibly in braces) to pc. Every key must
 * be one the pass takes and every value in its range; otherwise an error at the module. */
bool gemmc_pass_apply_options(gemmc_pass_context *pc, const gemmc_pass_info *pass, ir_op *module,
                              const char *options);

/* Runs one pass as the command line names it: a fresh context for the module, the options
 * applied, the pass run. `target` and `out` as in gemmc_pass_context_init. */
bool gemmc_pass_run(gemmc_context *ctx, const gemmc_pass_info *pass, ir_op *module, const char *options,
                    const gemmc_target *target, FILE *out);

/* The target a Triton `ttg.target` string names: "cuda:80" -> sm_80, "cuda:86", "cuda:89",
 * "cuda:90" -> sm_90a (what Triton compiles Hopper for), "hip:gfx942" -> gfx942, or a gemmc
 * target name. NULL when unknown. */
const gemmc_target *gemmc_target_from_triton(const char *text, size_t len);
/* Triton's ttg.target string for t ("cuda:90", "hip:gfx942"), written into buf. */
void gemmc_target_triton_name(const gemmc_target *t, char *buf, size_t size);

/* ------------------------------------------------------------------ pipelines */

/* Runs a named pass pipeline (the one table in lib/driver/pipeline.c): "ttgir" = assign-layouts,
 * coalesce, remove-layout-conversions, accelerate-matmul, remove-layout-conversions; "compile" =
 * ttgir, then pipeline-loads when num_stages >= 2 and the target has async copies (what gemmc
 * and libgemmc run on TTIR). verify_each: the IR verifier after every pass. */
bool gemmc_pipeline_run(const gemmc_pass_context *pc, ir_op *module, const char *name, bool verify_each);

#ifdef __cplusplus
}
#endif
#endif

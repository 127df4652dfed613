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
  int warp_specialize;        /* warp-specialize=0: off; 1 (default): kernels of GEMMC_WS_PING_PONG_WARPS
                               * (two consumer groups: the pass's choice) and those of
                               * GEMMC_WS_CONSUMER_WARPS (cooperative) that tma-loads gives TMA
                               * (gemmc_ws_cooperative_wanted); GEMMC_WS_MODE_PING_PONG /
                               * GEMMC_WS_MODE_PAIRS force the arrangement of the two groups;
                               * GEMMC_WS_MODE_ON: every kernel where legal */
  int cluster_size;           /* cluster-size=1 (default) or 2: warp-specialize makes cluster-ready kernels */
  FILE *out;                  /* where printing passes write */
  /* print-llvm */
  bool emit_ptx;              /* emit=ptx (else llvm) */
  int opt_level;              /* opt=0..3; -1: 3 for PTX, 0 for LLVM IR */
  bool fp_fusion;             /* fp-fusion=0|1 (default 1): Triton's enable_fp_fusion */
  const char *output;         /* output=FILE, or NULL for `out` */
  /* pipeline */
  const char *pipeline;       /* the pipeline's name (its first, positional option) */
} gemmc_pass_context;

/* The warps of the warp-specialized kernel's consumer group when two warpgroups share each tile
 * (cooperative); a kernel of one warpgroup (4 warps) gets two consumer groups on alternate tiles
 * (ping-pong) instead. */
enum { GEMMC_WS_CONSUMER_WARPS = 8, GEMMC_WS_PING_PONG_WARPS = 4 };

/* Which operand the two blocks of a 2-block cluster share (read from L2 once, copied into both
 * by TMA multicast) in the warp-specialized kernel of `warps` warps: A in the pairs kernel (one
 * warpgroup per program; its two programs already share B inside a block), else B (the
 * cooperative kernel). Ping-pong kernels are not clustered. */
static inline bool gemmc_ws_cluster_shares_a(int warps) { return warps == GEMMC_WS_PING_PONG_WARPS; }

/* warp-specialize=N for kernels of one warpgroup: its two consumer groups take alternate tiles
 * (ping-pong), or run two programs that load the same B tile at once, from one copy of it
 * (pairs). */
enum { GEMMC_WS_MODE_DEFAULT = 1, GEMMC_WS_MODE_PING_PONG = 2, GEMMC_WS_MODE_PAIRS = 3, GEMMC_WS_MODE_ON = 4 };

/* Whether warp-specialize (and tma-loads in auto mode, which feeds it) takes a kernel of `warps`
 * warps under the pass option warp-specialize=`mode` (0: off). */
static inline bool gemmc_warp_specialized_warps(int warps, int mode) {
  return mode > 0 && (warps == GEMMC_WS_CONSUMER_WARPS || warps == GEMMC_WS_PING_PONG_WARPS);
}

/* Two-group (ping-pong, pairs) stages pay when they carry at least this many operand bytes
 * (128x128x64 f16: 32 KiB): measured 1.0-1.16x the cp.async ring there, but 0.76x at 128x128x32
 * (16 KiB per stage), where each stage's barrier round trip feeds too few MMAs (docs/perf-notes.md,
 * 20). A K step of fewer bytes fills a stage with two steps (pairs at 128x128x32: 1.27x the
 * cp.async ring on the seed's batched shape, perf-notes 34); under this in two steps, the
 * kernel is not specialized. */
enum { GEMMC_PING_PONG_MIN_STAGE_BYTES = 32 * 1024 };

/* Ring stages the warp-specialized kernel of K loop `loop` (in a kernel of `warps` warps, each
 * stage carrying stage_bytes of one program's operands, shared_bytes of them its dot's B tile)
 * gets: pc->num_stages (ping-pong: at least GEMMC_PING_PONG_MIN_STAGES; one-step pairs: at least
 * GEMMC_PAIRS_MIN_STAGES where the epilogue stores make room), lowered until the ring
 * and every consumer group's epilogue scratch fit in pc->max_shared (0: the target's shared
 * memory per block); 0 for two-group stages under GEMMC_PING_PONG_MIN_STAGE_BYTES in two K steps
 * (one step under it: two steps per stage, each stage twice the bytes). A pairs
 * stage holds two programs' operands with one B tile. Below 2 the kernel is not specialized,
 * and tma-loads (auto) leaves its loads to cp.async. */
int gemmc_warp_specialized_stages(const gemmc_pass_context *pc, const ir_op *loop, int warps, int64_t stage_bytes,
                                  int64_t shared_bytes);

/* Whether loop accumulates in place as warp-specialize needs: one ttng.warp_group_dot whose
 * accumulator is an iter arg nothing else reads and whose result only goes back to it (not
 * `acc += dot(a, b) * scale`). tma-loads (auto) leaves other loops to cp.async. */
bool gemmc_warp_specialized_accumulator(const ir_op *loop);

/* Whether the two consumer groups of a one-warpgroup kernel run program pairs (warp-specialize
 * option `mode`). */
bool gemmc_warp_specialized_pairs(int mode);

/* Programmatic dependent launch (docs/perf-notes.md, 76): whether warp_specialize op `ws` is
 * marked gemmc.programmatic_launch (nothing before its roles touches global memory; the roles
 * wait for the previous grid), and whether kernel `func` has such an op. kernel.json's
 * "programmatic_launch" and the lowering's griddepcontrol both ask these. */
bool gemmc_ws_programmatic_launch(const ir_op *ws);
bool gemmc_kernel_programmatic_launch(ir_op *func);

/* Whether a cooperative (8-warp) kernel's K loop `loop` is to become warp-specialized: asked for
 * (warp-specialize other than the default, cluster-size=2, or the loop's tt.warp_specialize, as
 * Triton's tl.range(..., warp_specialize=True) prints it). By default 8-warp pointer kernels keep
 * cp.async rings: 4-10% faster at K >= 2048 (docs/perf-notes.md, 59 and 61). */
bool gemmc_ws_cooperative_wanted(const gemmc_pass_context *pc, const ir_op *loop);

/* Ring depth of ping-pong groups: each group's K loop reads the ring in turn, so one more stage
 * than the usual three keeps the producer ahead of both (4096^3-8192^3: 3 stages 480-520
 * TFLOP/s, 4 stages 603-643). 5 (what fits beside the two epilogue buffers) measured +0-2% on
 * the tutorial at 4096^3-8192^3 but -10% on the seed's batched 16 x 4096^3 (perf-notes 22).
 * The kernel's num_stages when it asks for more. */
enum { GEMMC_PING_PONG_MIN_STAGES = 4 };

/* Ring depth of pairs whose stage holds one K step (128x128x64 f16): four 48 KiB stages, room
 * made by storing the epilogue tiles in column halves, measured +2% at 2048^3 and +4% at
 * 4096^3-8192^3 over the three that Triton's tutorial asks for (H100, perf-notes 67). Two-step
 * stages (128x128x32) keep what they ask for: a fourth measured -1 to -2% (perf-notes 35). The
 * kernel's num_stages when it asks for more; a K loop's own tt.num_stages is kept as it is. */
enum { GEMMC_PAIRS_MIN_STAGES = 4 };

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

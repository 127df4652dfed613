/* Pass registry: every pass gemmc-opt and gemmc can run, by name. */
#ifndef GEMMC_PASSES_H
#define GEMMC_PASSES_H

#include "gemmc/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A pass runs on the module. `options` is the text after '=' in `--name=opts`
 * ("num-warps=4,threads-per-warp=32"), or NULL. Printing passes write to `out`.
 * Returns false after emitting a diagnostic. */
typedef bool (*gemmc_pass_fn)(gemmc_context *ctx, ir_op *module, const char *options, FILE *out);

typedef struct gemmc_pass_info {
  const char *name;  /* "coalesce" */
  const char *alias; /* "tritongpu-coalesce", or NULL */
  const char *help;
  gemmc_pass_fn run;
} gemmc_pass_info;

/* Declarations of every pass function (from passes.def). */
#define GEMMC_PASS(name, alias, fn, help) bool fn(gemmc_context *ctx, ir_op *module, const char *options, FILE *out);
#include "gemmc/passes.def"
#undef GEMMC_PASS

const gemmc_pass_info *gemmc_pass_lookup(const char *name);
/* All passes, for --help; *count receives the number. */
const gemmc_pass_info *gemmc_pass_list(int *count);

/* Reads `key=value` from a pass option string ("a=1,b=2"); returns default when absent.
 * Sets *ok false (and leaves it otherwise) when the value is not an integer. */
int64_t gemmc_pass_option_int(const char *options, const char *key, int64_t default_value, bool *ok);

#ifdef __cplusplus
}
#endif
#endif

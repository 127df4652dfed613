/* Private interfaces between the files of lib/driver: -D substitution and kernel metadata. */
#ifndef GEMMC_DRIVER_INTERNAL_H
#define GEMMC_DRIVER_INTERNAL_H

#include "context_internal.h"
#include "gemmc/gemmc.h"
#include "gemmc/ir.h"

/* One `$NAME` / `${NAME}` replaced on a line; columns are 1-based. Kept so that diagnostics
 * about the expanded text can point at the original column. */
typedef struct define_subst {
  int line;
  int expanded_col, expanded_len;
  int original_col, original_len;
} define_subst;

typedef struct define_expansion {
  const char *text; /* arena; lines are exactly those of the original */
  size_t len;
  define_subst *substs; /* arena, in text order */
  int num_substs;
  /* Every constant in effect (defaults, then -D), for kernel.json; arena. */
  int num_constants;
  const char **constant_names, **constant_values;
} define_expansion;

/* Replaces every `$NAME` and `${NAME}` of src (outside comments and string literals) by the value
 * of -D NAME or of a `// gemmc-define: NAME=VALUE` default in the file. Errors (undefined constant,
 * unused -D, malformed define) go to ctx's diagnostics; returns false after any. */
bool defines_expand(gemmc_context *ctx, const ir_source *src, const gemmc_define *defines,
                    int num_defines, define_expansion *out);

/* The column in the original text of column `col` of line `line` of the expansion. */
int defines_original_column(const define_expansion *e, int line, int col);

/* Fills md from the kernel's tt.func (name, arguments, program-id axes) and the module's
 * ttg.num-warps / ttg.threads-per-warp; strings are arena-allocated. Returns false with a
 * diagnostic when the module has no public tt.func or more than one. */
bool metadata_from_module(gemmc_context *ctx, ir_op *module, gemmc_kernel_metadata *md);

/* kernel.json text (NUL-terminated, ctx allocator, length in *len); free with ctx_raw_free(len+1). */
char *metadata_to_json(gemmc_context *ctx, const gemmc_kernel_metadata *md, size_t *len);

#endif

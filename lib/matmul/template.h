/* Library templates: the .tir files embedded at build time and their `// @if` / `// @include` sections. */
#ifndef GEMMC_MATMUL_TEMPLATE_H
#define GEMMC_MATMUL_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>

#include "gemmc/gemmc.h"

typedef struct embedded_file {
  const char *name;
  const char *text;
  size_t len;
} embedded_file;

/* The files of lib/matmul/templates, generated into the build by cmake/embed_files.cmake. */
extern const embedded_file gemmc_embedded_templates[];

/* The embedded template called `name` ("gemm.tir"), or NULL. */
const embedded_file *template_find(const char *name);

/* Resolves the sections of template `name`: `// @if NAME` keeps the lines up to its `// @else`
 * or `// @endif` when constant NAME (from `defines`, the last one winning, else the template's
 * `// gemmc-define:` defaults) is not "0", the `// @else` part otherwise; `// @include FILE`
 * pastes embedded template FILE (resolved the same way). Dropped lines become empty comments,
 * so lines before the first include keep their numbers. The result (malloc'ed, NUL-terminated)
 * is .tir text with ${NAME} constants for gemmc_compile. */
bool template_instantiate(const char *name, const gemmc_define *defines, int num_defines, char **out, size_t *len,
                          char *err, size_t errlen);

#endif

/* Command-line value parsing shared by the tools (gemmc, gemmc-tune). */
#ifndef GEMMC_TOOL_ARGS_H
#define GEMMC_TOOL_ARGS_H

#include <stdbool.h>

/* A decimal integer in [lo, hi] that is the whole text (no sign-only, trailing bytes or
 * overflow); *out is written only on success. */
bool tool_parse_int(const char *text, long lo, long hi, int *out);

#endif

/* Shared by the libFuzzer targets: a context per input, the print/re-parse differential check, findings as aborts. */
#ifndef GEMMC_FUZZ_COMMON_H
#define GEMMC_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "gemmc/gemmc.h"
#include "gemmc/ir.h"

/* A context for one input: diagnostics discarded, memory capped well under libFuzzer's RSS
 * limit (an input that needs more is refused with "out of memory", which is a clean error). */
gemmc_context *fuzz_context(void);

/* A finding: prints what and where, then aborts so that libFuzzer saves the input. */
void fuzz_finding(const char *what, const char *detail) __attribute__((noreturn));

/* The differential check of the printer and parser: `ttgir` (text gemmc printed) must parse,
 * verify and print to the same text again. A finding otherwise. */
void fuzz_check_reparse(const char *ttgir, size_t len, const char *what);

#endif

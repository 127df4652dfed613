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

/* Whether the input holds `needle` (the targets' markers: an AMD ttg.target, a warp count). */
bool fuzz_contains(const uint8_t *data, size_t size, const char *needle);

/* The compile options of an input: the defaults, in 2-block clusters for odd-sized inputs (so
 * that mutants reach the cluster-ready warp-specialized kernel), 8 warps where the input says
 * `// fuzz: num-warps=8` (a TTIR seed of the cooperative kernel; TTIR has no warp count). */
void fuzz_compile_options(const uint8_t *data, size_t size, gemmc_compile_options *opts);

/* A finding: prints what and where, then aborts so that libFuzzer saves the input. */
void fuzz_finding(const char *what, const char *detail) __attribute__((noreturn));

/* Text printed by gemmc (ir_print_module's sink fuzz_text_append, user = a zero-initialized
 * fuzz_text; the caller frees data). Out of host memory is a finding. */
typedef struct fuzz_text {
  char *data;
  size_t len, cap;
} fuzz_text;
void fuzz_text_append(const char *data, size_t len, void *user);

/* The differential check of the printer and parser: `ttgir` (text gemmc printed) must parse,
 * verify and print to the same text again. A finding otherwise. */
void fuzz_check_reparse(const char *ttgir, size_t len, const char *what);

#endif

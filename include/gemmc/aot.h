/* gemmc ahead-of-time kernels: a compiled kernel as a C source + header pair that loads and launches it with only the CUDA driver (dlopen) at run time. */
#ifndef GEMMC_AOT_H
#define GEMMC_AOT_H

#include <stdbool.h>
#include <stddef.h>

#include "gemmc/gemmc.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * `gemmc kernel.tir --emit=c -o kernel.c` writes kernel.c and kernel.h. The .c embeds the PTX
 * (and the cubin when ptxas ran) and defines, for a prefix P (the kernel's name by default):
 *
 *   int P_load(void);          load into the current CUDA context (device 0's primary context
 *                              when there is none); 0 or a CUresult, -1 without a driver
 *   int P_launch(void *stream, unsigned grid_x, unsigned grid_y, unsigned grid_z, <the kernel's
 *                arguments, named and typed as in the .tir: uint64_t for pointers>);
 *   const char *P_error(void); the last failure in words
 *   P_grid(...)                the launch grid from kernel.json's constants, when the kernel
 *                              follows a known convention (BLOCK_M/BLOCK_N tiles over M and N,
 *                              or BLOCK elements over a length)
 *
 * and the header #defines P_<CONSTANT> for each compile-time constant, P_THREADS_PER_BLOCK and
 * P_DYNAMIC_SHARED_BYTES. It needs neither LLVM nor libgemmc: build it with any C99 compiler and
 * link with -ldl -lpthread.
 */

/* Writes the pair for a successful compile c (PTX stage or later). `prefix` NULL: the kernel's
 * name (made a C identifier); `header_name` is what the .c #includes. Both texts are malloc'ed
 * (free() them). False with a message in err when c has no PTX or memory ran out. */
bool gemmc_aot_emit_c(const gemmc_compiled *c, const char *prefix, const char *header_name, const char *source_name,
                      char **c_text, size_t *c_len, char **h_text, size_t *h_len, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* GEMMC_AOT_H */

/* Layout pictures: an SVG of which warp, lane and register owns each element of a tensor (register layouts), or where each element sits in shared memory and in which bank (shared layouts). */
#ifndef GEMMC_LAYOUT_SVG_H
#define GEMMC_LAYOUT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gemmc/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gemmc_layout_svg_options {
  const char *title;   /* first line of the picture (e.g. the alias and the layout's text) */
  int max_rows, max_cols; /* draw at most this window of the last two dims (0: 32 x 32) */
  int elem_bits;       /* element width, for shared-memory banks (0: 16) */
  int threads_per_warp; /* for the legend (0: 32) */
} gemmc_layout_svg_options;

/* Draws `layout` for a tensor of `shape` (rank >= 1; higher ranks draw the last two dims at
 * index 0 of the others) using only the layout module's public functions (gemmc/layout.h).
 * Register layouts (blocked, slice, nvidia_mma v2/v3, dot_op, amd_mfma, linear): one cell per
 * element, coloured by warp, with its lane and register; broadcast elements (held by several
 * threads) show their lowest owner. Shared layouts (swizzled_shared, nvmma_shared): one cell per
 * element with its offset in the buffer and its 4-byte bank (colour), so bank conflicts of a
 * column read show as repeated colours. *svg is malloc'ed. False with a message when the
 * layout cannot be evaluated for this shape. */
bool gemmc_layout_svg(const ir_attr *layout, int rank, const int64_t *shape, const gemmc_layout_svg_options *opts,
                      char **svg, size_t *len, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* GEMMC_LAYOUT_SVG_H */

/* gemmc-opt --draw-layout: finds a layout in a module (by alias or by value) and writes its SVG. */
#ifndef GEMMC_OPT_DRAW_LAYOUT_H
#define GEMMC_OPT_DRAW_LAYOUT_H

#include <stdbool.h>
#include <stdio.h>

#include "gemmc/ir.h"

/* spec: NAME[,shape=AxB][,window=RxC][,index=I]. NAME is a layout alias of the printed module
 * (`blocked1`, `#mma`, `#shared`), a layout kind for layouts that have no alias (`dot_op`,
 * `slice`: the I-th distinct one, 0 first), or a value (`%acc`: its type's layout and shape).
 * Without shape=, the shape is that of the first value with the layout. Writes the SVG to out;
 * errors go to stderr. */
bool draw_layout_write(gemmc_context *ctx, ir_op *module, const char *spec, FILE *out);

#endif

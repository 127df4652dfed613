/* Global memory access widths and vectorized loads, shared by plain and asynchronous copies (lower_memory.c). */
#ifndef GEMMC_LOWER_MEMORY_H
#define GEMMC_LOWER_MEMORY_H

#include "lower_state.h"

/* The values a tt.load of `ptr` (a tensor of type `rty`, or a scalar) under `mask` reads, `other`
 * (or zero) where masked off: vectorized global loads (axis_info_access_width) into a new
 * lower_values of op. */
bool lower_global_load_values(lower_state *s, const ir_op *op, const ir_value *ptr, const ir_value *mask,
                              const ir_value *other, const ir_type *rty, lower_values **result);

/* The cache operator Triton's cacheModifier attribute of a load, store or asynchronous copy
 * asks for (TARGET_CACHE_DEFAULT when it has none). */
target_cache lower_cache_modifier(const ir_op *op);

#endif

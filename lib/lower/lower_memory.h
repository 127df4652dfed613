/* Global memory access widths, shared by plain and asynchronous copies (lower_memory.c). */
#ifndef GEMMC_LOWER_MEMORY_H
#define GEMMC_LOWER_MEMORY_H

#include "lower_state.h"

/* Elements per global access of a tensor of pointers: min(contiguous registers along the
 * fastest dim, pointer alignment, mask constancy, 128 bits), a power of two; 1 for scalars. */
int lower_global_vector_width(lower_state *s, const ir_value *ptr, const ir_value *mask, int elem_bits);

#endif

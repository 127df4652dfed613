/* Shared-memory allocation analysis: a byte offset for every shared buffer and layout-conversion scratch of a kernel. */
#ifndef GEMMC_ALLOCATION_H
#define GEMMC_ALLOCATION_H

#include <stdbool.h>
#include <stdint.h>

#include "gemmc/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The buffers of one tt.func: ttg.local_alloc results (live from the alloc to the last use, a use
 * inside a loop or branch keeping the buffer live for that whole op) and the scratch space of
 * ops that exchange data between threads (ttg.convert_layout, tt.reduce across warps; live only
 * during the op). Offsets are chosen first-fit, largest buffer first (as Triton's allocator),
 * so buffers whose lifetimes (program order) do not overlap share bytes. */
typedef struct gemmc_allocation gemmc_allocation;

/* NULL when memory runs out. The result comes from ctx's allocator: free it with
 * gemmc_allocation_free. */
gemmc_allocation *gemmc_allocation_run(gemmc_context *ctx, ir_op *func);
void gemmc_allocation_free(gemmc_allocation *a);
/* Byte offset of op's buffer (local_alloc) or scratch space; -1 when op has none. */
int64_t gemmc_allocation_offset(const gemmc_allocation *a, const ir_op *op);
/* The copies of a ttg.warp_specialize default region (gemmc.replica_of_default) run one lowered
 * code over the same shared memory, so a buffer or scratch made inside it is laid out once per
 * copy: copy k's starts `k * gemmc_allocation_copy_stride` bytes after the offset above. The
 * stride is 0 where there is one copy, for tensor maps, and for a buffer used only through
 * ttg.memdesc_index by gemmc.replica_id (the pass that made it sliced it per copy itself). */
int gemmc_allocation_copies(const ir_op *op);
int64_t gemmc_allocation_copy_stride(const gemmc_allocation *a, const ir_op *op);
/* Bytes of shared memory the function needs (the end of the highest buffer). */
int64_t gemmc_allocation_total(const gemmc_allocation *a);
/* Whether the shared bytes of x's and y's buffers (every copy) are apart; false when either has none. */
bool gemmc_allocation_disjoint(const gemmc_allocation *a, const ir_op *x, const ir_op *y);

/* Scratch bytes op needs to exchange data between threads: a convert_layout whose layouts put
 * data on different lanes or warps (prod(shape) * element bytes), a tt.reduce whose axis spans
 * several warps (warps along the axis * result elements * bytes, per operand, each 16-byte
 * aligned), a tt.make_tensor_descriptor (ALLOCATION_TENSORMAP_BYTES), an atomic whose result is
 * shared (gemmc_atomic_result_is_shared); 0 otherwise. The lowering uses the same function, so the two always agree. */
int64_t gemmc_allocation_scratch_bytes(const ir_op *op);

/* A tt.atomic_rmw / tt.atomic_cas whose result is used while threads other than the one doing
 * the atomic hold copies of it (a scalar; a tensor whose layout repeats elements across lanes or
 * warps): its scratch passes the result on (prod(shape) * element bytes). */
bool gemmc_atomic_result_is_shared(const ir_op *op);

/* The scratch of a tt.make_tensor_descriptor: one CUtensorMap (128 bytes, 128-byte aligned). */
enum { ALLOCATION_TENSORMAP_BYTES = 128 };

/* Descriptors made one after the other (only pure ops between them) form a run that the
 * lowering builds at once, one warp each: their scratch lives until the run's last one. The
 * position of op in its run, and the run's last descriptor. */
int gemmc_tensormap_run_index(const ir_op *op);
const ir_op *gemmc_tensormap_run_last(const ir_op *op);

/* The last op during which op's scratch must stay: op itself, or the tt.dot that reads a
 * convert's MMA-operand buffer itself. */
const ir_op *gemmc_allocation_scratch_until(const ir_op *op);

#ifdef __cplusplus
}
#endif
#endif

/* Example: compile examples/batched_matmul.tir (the seed's batch GEMM, program id axis 1 = batch) and check every matrix of the batch against a CPU reference. */
#include "matmul_host.h"

/* The kernel reads its batch from program id y; the host launches
 * (cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N), batch, 1) programs and passes batch strides
 * (stride_ab = M * lda, ...), as cublasGemmStridedBatchedEx takes them.
 *
 *   example-batched_matmul                           8 x 512^3, f16
 *   example-batched_matmul --batch 16 -M 4096 -N 4096 -K 4096    (the seed's benchmark shape)
 *   example-batched_matmul --batch 4 --dtype f16 --acc f16       (fp16 accumulation, as the seed compared) */
int main(int argc, char **argv) { return mh_example_main(argc, argv, MH_KERNEL_BATCHED); }

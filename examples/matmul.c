/* Example: compile examples/matmul.tir (the Triton tutorial matmul) for one config and dtype, run it on random inputs and check it against a CPU reference. */
#include "matmul_host.h"

/* Everything but the choice of kernel lives in matmul_host.h, shared with the batched and
 * leaky_relu examples: the kernel's -D constants come from the problem (dtypes, which strides are
 * 1, divisibility of every integer argument) and the config, so one .tir serves all of them.
 *
 *   example-matmul                                   512^3, f16 in/out, f32 accumulator
 *   example-matmul -M 1000 -N 300 -K 70 --dtype bf16 --config 64x64x32:g8:w4
 *   example-matmul --dtype f32 --precision ieee --b-col-major
 *   example-matmul --dtype i8                        int8 x int8 -> int32, exact */
int main(int argc, char **argv) { return mh_example_main(argc, argv, MH_KERNEL_MATMUL); }

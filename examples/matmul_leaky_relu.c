/* Example: compile examples/matmul_leaky_relu.tir (matmul with leaky_relu fused on the fp32 accumulator) and check it against a CPU reference. */
#include "matmul_host.h"

/* The activation runs on the accumulator before the conversion to the output type, as the
 * tutorial says ("while the accumulator is still in FP32"); the reference applies it in double.
 *
 *   example-matmul_leaky_relu                        leaky_relu(x) = x >= 0 ? x : 0.01 x
 *   example-matmul_leaky_relu --bias 1               the seed's variant: x = acc + 1 first
 *   example-matmul_leaky_relu --alpha 0.2 --dtype bf16 */
int main(int argc, char **argv) { return mh_example_main(argc, argv, MH_KERNEL_LEAKY_RELU); }

/* gemmc_matmul: a cuBLAS-shaped GEMM (column-major, op(A) op(B), alpha/beta, D out of place, strided batches, fused epilogue) that gemmc compiles, tunes and caches itself. */
#ifndef GEMMC_MATMUL_H
#define GEMMC_MATMUL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gemmc/gemmc.h"
#include "gemmc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What it computes, for b = 0 .. batch_count-1 (cublasGemmStridedBatchedEx / cublasLtMatmul):
 *
 *     D[b] = act(alpha * op(A[b]) op(B[b]) + beta * C[b] + bias)
 *
 * Matrices are column-major as in cuBLAS: element (i, j) of C is C[i + j * ldc]. op(A) is
 * m x k (A itself k x m with GEMMC_OP_T), op(B) k x n, C and D m x n, and matrix b of a
 * batch starts b * stride_x elements after matrix 0 (a stride may be 0 to reuse one matrix).
 * Row-major data: D^T = op(B)^T op(A)^T, so call with A and B swapped and m and n swapped.
 * bias, when given, holds m elements (one per row of D, as cublasLt's bias epilogue).
 *
 * Pointers are device addresses (cudaMalloc / cuMemAlloc / gemmc_runtime_mem_alloc, cast to
 * a pointer) in the device's primary context, the one the CUDA runtime uses. Any size, any
 * leading dimension >= the rows, any element alignment: kernels are specialized for what holds
 * at run time (the pointers' alignment, what strides and sizes divide by, unit strides), so
 * aligned data takes the fast path and anything else a correct one. m, n or k = 0 and
 * batch_count = 0 are valid (k = 0 gives D = act(beta * C + bias)).
 *
 * Work runs asynchronously on the handle's stream. The first call for a new kind of problem
 * compiles a kernel (or reads it from the kernel cache, gemmc/cache.h) and takes milliseconds;
 * later calls cost a launch.
 */

typedef enum gemmc_operation {
  GEMMC_OP_N = 0, /* the matrix as stored */
  GEMMC_OP_T = 1, /* its transpose */
} gemmc_operation;

typedef enum gemmc_datatype {
  GEMMC_R_16F,     /* IEEE half */
  GEMMC_R_16BF,    /* bfloat16 */
  GEMMC_R_32F,     /* float */
  GEMMC_R_8I,      /* int8_t (A and B with GEMMC_COMPUTE_32I) */
  GEMMC_R_32I,     /* int32_t (C and D with GEMMC_COMPUTE_32I) */
  GEMMC_R_8F_E4M3, /* fp8 e4m3 (A and B; sm_89 and newer) */
  GEMMC_R_8F_E5M2, /* fp8 e5m2 (A and B; sm_89 and newer) */
} gemmc_datatype;

typedef enum gemmc_compute_type {
  GEMMC_COMPUTE_32F,           /* f32 accumulation; f32 inputs multiply in full f32 (FMA, no tensor cores) */
  GEMMC_COMPUTE_32F_FAST_TF32, /* f32 inputs rounded to tf32 on the tensor cores, f32 accumulation */
  GEMMC_COMPUTE_16F,           /* f16 inputs, f16 accumulation */
  GEMMC_COMPUTE_32I,           /* int8 inputs, int32 accumulation, int32 C and D */
} gemmc_compute_type;

typedef enum gemmc_activation {
  GEMMC_ACT_NONE,
  GEMMC_ACT_RELU,       /* x > 0 ? x : 0 */
  GEMMC_ACT_LEAKY_RELU, /* x >= 0 ? x : leaky_slope * x */
  GEMMC_ACT_GELU,       /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), as cublasLt's GELU */
} gemmc_activation;

/* Accepted combinations (a_type = b_type, c_type = d_type):
 *   f16/bf16 in, GEMMC_COMPUTE_32F, C/D f16, bf16 or f32
 *   f16 in, GEMMC_COMPUTE_16F, C/D f16
 *   f32 in, GEMMC_COMPUTE_32F or GEMMC_COMPUTE_32F_FAST_TF32, C/D f32
 *   int8 in, GEMMC_COMPUTE_32I, C/D int32 (no activation or bias)
 *   fp8 (e4m3 or e5m2) in, GEMMC_COMPUTE_32F, C/D f16, bf16 or f32 (sm_89+; the dot runs on f16
 *     operands where no fp8 MMA instruction fits)
 * Other combinations, and a kernel gemmc cannot lower yet, give GEMMC_ERROR_UNSUPPORTED.
 * alpha and beta point to host floats for the floating compute types (even GEMMC_COMPUTE_16F)
 * and to int32_t for GEMMC_COMPUTE_32I. beta = 0 means C is not read (it may be NULL). */
typedef struct gemmc_matmul_desc {
  gemmc_operation transa, transb;
  int64_t m, n, k;
  const void *alpha;
  const void *A;
  gemmc_datatype a_type;
  int64_t lda, stride_a;
  const void *B;
  gemmc_datatype b_type;
  int64_t ldb, stride_b;
  const void *beta;
  const void *C;
  gemmc_datatype c_type;
  int64_t ldc, stride_c;
  void *D;
  gemmc_datatype d_type;
  int64_t ldd, stride_d;
  int64_t batch_count; /* 1: one GEMM (strides unused); 0: nothing to do */
  gemmc_compute_type compute;
  gemmc_activation activation;
  const void *bias;  /* device, m elements of d_type, or NULL */
  float leaky_slope; /* GEMMC_ACT_LEAKY_RELU */
} gemmc_matmul_desc;

/* Fills *desc with: no transposes, zero sizes, f16 everywhere, GEMMC_COMPUTE_32F, no batch,
 * batch_count 1, no epilogue, leaky_slope 0.01. */
void gemmc_matmul_desc_init(gemmc_matmul_desc *desc);

/* ------------------------------------------------------------------ the handle */

typedef struct gemmc_handle gemmc_handle;

typedef struct gemmc_handle_options {
  int device;              /* CUDA device ordinal (default 0); ignored when runtime is given */
  gemmc_runtime *runtime;  /* run on this runtime (not owned) instead of opening one */
  const char *cache_dir;   /* NULL: gemmc_cache_open's default; "" turns the disk cache off */
  uint64_t cache_max_bytes; /* 0: gemmc_cache_open's default */
  /* Autotuning: -1 (default) reads $GEMMC_TUNE (1 = on); 1 times every candidate config of
   * the table on the first call of each shape class (one line per config on stderr) and keeps
   * the fastest, on disk next to the kernel cache, per device, driver and gemmc version; 0 uses
   * the analytical model's choice (and tuned results already on disk). */
  int tune;
  /* The config (tile, warps, stages) is chosen from n, k, the types and the layout only, never
   * from m, and K is never split: each row of D is then bitwise the same whatever m (the rows
   * of a batch of requests stay the same whichever other rows come with them). */
  bool batch_invariant;
  /* Force a config of the table by name (lib/matmul/matmul_configs.c; gemmc_matmul_configs
   * lists them), e.g. for benchmarks; NULL: the model or tuning decides. $GEMMC_MATMUL_CONFIG
   * does the same when this is NULL. */
  const char *config;
  int split_k;             /* with config: the split (0: the model's) */
  bool verbose;            /* one line on stderr per kernel built or loaded ($GEMMC_VERBOSE=1) */
  const char *target;      /* gemmc target; NULL: the device's */
} gemmc_handle_options;

/* Defaults: device 0, own runtime, default cache, tune -1, not batch-invariant. */
void gemmc_handle_options_init(gemmc_handle_options *opts);

/* Opens the device (or takes opts->runtime), the kernel cache and the tuning results. Without
 * a driver: GEMMC_ERROR_NO_DRIVER and *out NULL. opts NULL: the defaults. */
gemmc_status gemmc_handle_create(const gemmc_handle_options *opts, gemmc_handle **out);
/* Unloads every kernel, frees the handle's workspace, closes what it opened. Waits for the
 * handle's stream first. */
void gemmc_handle_destroy(gemmc_handle *h);
gemmc_runtime *gemmc_handle_runtime(gemmc_handle *h);
/* The stream later calls run on (a CUstream / cudaStream_t of the same context; NULL: the
 * default stream). */
gemmc_status gemmc_handle_set_stream(gemmc_handle *h, gemmc_runtime_stream *stream);
/* Device memory split-K may use (like cublasSetWorkspace). Without one, or when it is too
 * small, the handle allocates its own. */
gemmc_status gemmc_handle_set_workspace(gemmc_handle *h, void *workspace, size_t bytes);
gemmc_status gemmc_handle_set_batch_invariant(gemmc_handle *h, bool on);
gemmc_status gemmc_handle_set_tune(gemmc_handle *h, int tune);

/* ------------------------------------------------------------------ the calls */

/* The general call (every field of desc). */
gemmc_status gemmc_matmul_ex(gemmc_handle *h, const gemmc_matmul_desc *desc);

/* cublasGemmEx with D out of place. */
gemmc_status gemmc_matmul(gemmc_handle *h, gemmc_operation transa, gemmc_operation transb, int64_t m, int64_t n,
                          int64_t k, const void *alpha, const void *A, gemmc_datatype a_type, int64_t lda,
                          const void *B, gemmc_datatype b_type, int64_t ldb, const void *beta, const void *C,
                          gemmc_datatype c_type, int64_t ldc, void *D, gemmc_datatype d_type, int64_t ldd,
                          gemmc_compute_type compute);

/* cublasGemmStridedBatchedEx with D out of place. */
gemmc_status gemmc_matmul_strided_batched(gemmc_handle *h, gemmc_operation transa, gemmc_operation transb,
                                          int64_t m, int64_t n, int64_t k, const void *alpha, const void *A,
                                          gemmc_datatype a_type, int64_t lda, int64_t stride_a, const void *B,
                                          gemmc_datatype b_type, int64_t ldb, int64_t stride_b, const void *beta,
                                          const void *C, gemmc_datatype c_type, int64_t ldc, int64_t stride_c,
                                          void *D, gemmc_datatype d_type, int64_t ldd, int64_t stride_d,
                                          int64_t batch_count, gemmc_compute_type compute);

/* Builds (compiles or reads from the cache) and loads the kernels desc needs without running
 * them: a later gemmc_matmul_ex of the same kind costs a launch. Pointers may be NULL (taken as
 * 256-byte aligned) or stand-ins with the real ones' alignment; nothing is read or written, so
 * no autotuning happens here (the model's or stored tuned configs are used). */
gemmc_status gemmc_matmul_prepare(gemmc_handle *h, const gemmc_matmul_desc *desc);

/* gemmc_matmul_prepare for n descriptors at once: the kernels missing from the handle are
 * compiled and JIT-compiled in parallel (one thread per CPU, one gemmc_context each), then
 * loaded; a program warms up its shapes at start this way. Returns the first failure (the
 * others still build); *wall_ms (or NULL) gets the time taken. */
gemmc_status gemmc_matmul_prepare_many(gemmc_handle *h, const gemmc_matmul_desc *descs, int n, double *wall_ms);

/* ------------------------------------------------------------------ what happened */

enum { GEMMC_MATMUL_MAX_ARGS = 32 };

/* The last call's kernel launch, for benchmarks and tests: launch it yourself with
 * cuLaunchKernel(kernel, grid, block, shared, stream, args) and it does what the call did
 * (the main kernel; a split-K call also ran reduce_kernel afterwards). */
typedef struct gemmc_matmul_info {
  char config[128];               /* "name split=1 (model)" / "(tuned)" / "(forced)" */
  char kernel_key[65];            /* the kernel cache key */
  int split_k;
  bool batch_invariant;
  gemmc_runtime_kernel *kernel;
  gemmc_launch_config launch;     /* grid, block, dynamic shared memory, stream, cluster */
  int num_args;
  uint64_t arg_values[GEMMC_MATMUL_MAX_ARGS]; /* each argument's bytes, little-endian */
  void *args[GEMMC_MATMUL_MAX_ARGS];          /* point into arg_values of this struct */
  bool has_reduce;
  /* How the kernels were obtained the first time: compile (ms, 0 for a cache hit) and load
   * (driver JIT + module load, ms), and whether the disk cache had it. */
  double compile_ms, load_ms;
  bool disk_cache_hit;
} gemmc_matmul_info;

/* Copies the last successful call's launch into *out (args point into *out). */
gemmc_status gemmc_matmul_last_info(const gemmc_handle *h, gemmc_matmul_info *out);

/* The names of the config table's rows, for gemmc_handle_options.config and tools: returns the
 * row count; names[i] for i < count when names is not NULL (static strings). */
int gemmc_matmul_configs(const char **names, int max_names);

/* Resolves a library template (lib/matmul/templates, embedded in libgemmc: "gemm.tir",
 * "gemm_splitk_reduce.tir") against the -D constants: its `// @if NAME` / `// @else` /
 * `// @endif` sections and `// @include` lines. *text (malloc'ed, free() it) is .tir for
 * gemmc_compile with the same defines. False with a message in err when something is wrong. */
bool gemmc_matmul_template(const char *name, const gemmc_define *defines, int num_defines, char **text,
                           size_t *len, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* GEMMC_MATMUL_H */

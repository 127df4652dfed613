/* gemmc runtime: load and launch kernels through the CUDA driver or HIP, both opened with dlopen. */
#ifndef GEMMC_RUNTIME_H
#define GEMMC_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gemmc/gemmc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* No CUDA or ROCm header or library is needed to build or link this: the driver library is
 * opened at gemmc_runtime_create, and its absence is an ordinary error.
 *
 * Ownership and threading: a gemmc_runtime owns its driver context (the device's primary
 * context); modules, streams, events and device memory made through it must be released
 * before gemmc_runtime_destroy. The context is made current on the creating thread; another
 * thread calls gemmc_runtime_make_current first. Handles are the driver's own handles, opaque. */

typedef enum gemmc_backend {
  GEMMC_BACKEND_CUDA, /* libcuda.so.1, the CUDA driver API */
  GEMMC_BACKEND_HIP,  /* libamdhip64.so (skeleton, see lib/runtime/hip.c) */
} gemmc_backend;

typedef enum gemmc_status_code {
  GEMMC_OK = 0,
  GEMMC_ERROR_NO_DRIVER,          /* the driver library, or any device, is missing */
  GEMMC_ERROR_DRIVER,             /* the driver returned an error (driver_error says which) */
  GEMMC_ERROR_INVALID_ARGUMENT,   /* a NULL handle, a zero-sized grid, ... */
  GEMMC_ERROR_OUT_OF_HOST_MEMORY,
  GEMMC_ERROR_UNSUPPORTED,        /* not implemented for this backend, or (gemmc_matmul) not yet
                                     for these types or sizes: the message says which */
  GEMMC_ERROR_COMPILE,            /* gemmc could not compile a kernel (the message has its diagnostics) */
} gemmc_status_code;

/* Every call returns one. message is empty on success and otherwise names the call that failed
 * and the driver's own words (for a failed PTX JIT: ptxas' error log). */
typedef struct gemmc_status {
  gemmc_status_code code;
  int driver_error; /* CUresult or hipError_t when code is GEMMC_ERROR_DRIVER, else 0 */
  char message[1024];
} gemmc_status;

typedef struct gemmc_runtime gemmc_runtime;
typedef struct gemmc_runtime_module gemmc_runtime_module; /* CUmodule / hipModule_t */
typedef struct gemmc_runtime_kernel gemmc_runtime_kernel; /* CUfunction / hipFunction_t; lives as long as its module */
typedef struct gemmc_runtime_stream gemmc_runtime_stream; /* CUstream / hipStream_t; NULL is the default stream */
typedef struct gemmc_runtime_event gemmc_runtime_event;   /* CUevent / hipEvent_t */
typedef uint64_t gemmc_devptr;                            /* a device address */

typedef struct gemmc_device_info {
  gemmc_backend backend;
  int ordinal;
  char name[256];
  int compute_capability_major, compute_capability_minor; /* CUDA: 9, 0 */
  int multiprocessor_count;
  int warp_size;
  int max_shared_mem_per_block_optin; /* bytes a kernel may use after opting in */
  int driver_version;                 /* CUDA: 13000 is 13.0 */
  size_t total_memory;                /* bytes */
  /* The gemmc target that fits the device best ("sm_90a" on compute capability 9.0, which
   * runs sm_90a code), or "" when unknown. */
  char target_name[32];
} gemmc_device_info;

/* Opens the backend's driver and retains device `device`'s primary context. On failure *out is
 * NULL and, when the library is absent, the message is exactly
 * "no CUDA driver (libcuda.so.1 not found)" / "no HIP runtime (libamdhip64.so not found)". */
gemmc_status gemmc_runtime_create(gemmc_backend backend, int device, gemmc_runtime **out);
/* Releases the primary context and frees rt (NULL is ignored). */
void gemmc_runtime_destroy(gemmc_runtime *rt);
/* Owned by rt. */
const gemmc_device_info *gemmc_runtime_device_info(const gemmc_runtime *rt);
gemmc_status gemmc_runtime_make_current(gemmc_runtime *rt);
/* Waits for all work on the device (cuCtxSynchronize). */
gemmc_status gemmc_runtime_synchronize(gemmc_runtime *rt);

/* The i32 global that a persistent kernel's module defines for its worker count: loading such a
 * module sets it to the device's multiprocessor count (a host program that loads the PTX itself
 * may do the same with cuModuleGetGlobal; left 0, the kernel uses %nsmid). */
#define GEMMC_SM_COUNT_GLOBAL "gemmc_sm_count"

/* The i32 global (value 1) that a module defines when its kernels may be launched behind another
 * grid with programmatic stream serialization (CUDA's programmatic dependent launch): they wait
 * for the grid before them (griddepcontrol.wait) before they touch global memory and let the grid
 * after them launch at once (griddepcontrol.launch_dependents), so their blocks build tensor maps
 * and barriers while the previous grid finishes. Warp-specialized persistent kernels define it
 * (kernel.json: "programmatic_launch"). Launched without the attribute, such kernels run as any
 * other (both instructions do nothing). gemmc_runtime_launch sets the attribute for them when
 * the runtime's programmatic launch is on: off by default until measured on a GPU
 * (docs/perf-notes.md, 76); on when the environment variable GEMMC_PROGRAMMATIC_LAUNCH is 1 when
 * the runtime is created, or through gemmc_runtime_set_programmatic_launch. */
#define GEMMC_PROGRAMMATIC_LAUNCH_GLOBAL "gemmc_programmatic_launch"

/* Turns programmatic launch (above) on or off for this runtime's later launches. CUDA only:
 * GEMMC_ERROR_UNSUPPORTED for `on` with HIP. */
gemmc_status gemmc_runtime_set_programmatic_launch(gemmc_runtime *rt, bool on);

/* Loads PTX text (size with or without the NUL; a NUL-terminated copy is what the driver gets),
 * a cubin or fatbin (CUDA), or a code object (HIP). */
gemmc_status gemmc_runtime_module_load(gemmc_runtime *rt, const void *image, size_t size,
                                       gemmc_runtime_module **out);
/* Compiles PTX for the device with the driver's own JIT (cuLinkCreate .. cuLinkComplete) without
 * loading it: *cubin_out (malloc'ed, free with free()) is what gemmc_runtime_module_load takes,
 * and what a cache keeps so that later processes skip the JIT. Other threads may call this at
 * once after gemmc_runtime_make_current. CUDA only. */
gemmc_status gemmc_runtime_compile_ptx(gemmc_runtime *rt, const char *ptx, size_t len, void **cubin_out,
                                       size_t *len_out);
gemmc_status gemmc_runtime_module_unload(gemmc_runtime *rt, gemmc_runtime_module *module);
gemmc_status gemmc_runtime_module_get_kernel(gemmc_runtime *rt, gemmc_runtime_module *module,
                                             const char *name, gemmc_runtime_kernel **out);

typedef struct gemmc_kernel_info {
  int num_registers;            /* per thread */
  int local_bytes;              /* per thread: spills and local arrays */
  int static_shared_bytes;
  int max_threads_per_block;
} gemmc_kernel_info;
gemmc_status gemmc_runtime_kernel_get_info(gemmc_runtime *rt, gemmc_runtime_kernel *kernel,
                                           gemmc_kernel_info *out);
/* Allows `bytes` of dynamic shared memory (needed above 48 KiB on NVIDIA). */
gemmc_status gemmc_runtime_kernel_set_max_dynamic_shared(gemmc_runtime *rt,
                                                         gemmc_runtime_kernel *kernel, int bytes);

typedef struct gemmc_launch_config {
  unsigned grid[3];  /* blocks in x, y, z; all > 0 */
  unsigned block[3]; /* threads in x, y, z; all > 0 */
  unsigned dynamic_shared_bytes;
  gemmc_runtime_stream *stream; /* NULL: the default stream */
  /* Blocks per cluster along x (0 or 1: no clusters; 2: a kernel whose metadata says
   * cluster_size 2, with grid[0] even). CUDA only (cuLaunchKernelEx, CUDA 12+ drivers). */
  unsigned cluster_x;
} gemmc_launch_config;
/* The cluster_x to launch a kernel made for clusters of `cluster_size` blocks along x
 * (gemmc_kernel_metadata.cluster_size) on a grid of grid_x blocks along x: the cluster size when
 * it divides grid_x, else 0 (such kernels also run without clusters). */
unsigned gemmc_launch_cluster_x(int cluster_size, unsigned grid_x);
/* args[i] points at the value of the kernel's i-th parameter (as cuLaunchKernel takes them).
 * Asynchronous: errors inside the kernel show at the next synchronizing call. */
gemmc_status gemmc_runtime_launch(gemmc_runtime *rt, gemmc_runtime_kernel *kernel,
                                  const gemmc_launch_config *config, void **args);

/* A CUtensorMap for a GEMMC_ARG_TENSOR_MAP kernel argument (pass a pointer to it in args, as
 * for any by-value argument): the tensor at `base` with `shape` and `strides` (elements, outermost
 * first, Triton's TensorDescriptor order; the innermost stride must be 1, the others' bytes
 * multiples of 16, base 16-byte aligned), copied in boxes as `info` (the kernel's metadata) says;
 * out-of-bounds elements read as zero and are not written. NVIDIA only (cuTensorMapEncodeTiled of
 * CUDA 12+ drivers): GEMMC_ERROR_UNSUPPORTED elsewhere, GEMMC_ERROR_INVALID_ARGUMENT with the
 * reason for a map TMA cannot describe. */
typedef struct gemmc_tensor_map {
  uint64_t words[GEMMC_TENSOR_MAP_BYTES / 8];
} gemmc_tensor_map;
gemmc_status gemmc_runtime_encode_tensor_map(gemmc_runtime *rt, const gemmc_tensor_map_info *info, gemmc_devptr base,
                                             const int64_t *shape, const int64_t *strides, gemmc_tensor_map *out);

gemmc_status gemmc_runtime_mem_alloc(gemmc_runtime *rt, size_t bytes, gemmc_devptr *out);
gemmc_status gemmc_runtime_mem_free(gemmc_runtime *rt, gemmc_devptr ptr);
/* Synchronous copies and sets (on the default stream). */
gemmc_status gemmc_runtime_copy_htod(gemmc_runtime *rt, gemmc_devptr dst, const void *src,
                                     size_t bytes);
gemmc_status gemmc_runtime_copy_dtoh(gemmc_runtime *rt, void *dst, gemmc_devptr src, size_t bytes);
gemmc_status gemmc_runtime_copy_dtod(gemmc_runtime *rt, gemmc_devptr dst, gemmc_devptr src,
                                     size_t bytes);
gemmc_status gemmc_runtime_memset_d8(gemmc_runtime *rt, gemmc_devptr dst, uint8_t value,
                                     size_t count);
gemmc_status gemmc_runtime_memset_d32(gemmc_runtime *rt, gemmc_devptr dst, uint32_t value,
                                      size_t count);

gemmc_status gemmc_runtime_stream_create(gemmc_runtime *rt, gemmc_runtime_stream **out);
gemmc_status gemmc_runtime_stream_destroy(gemmc_runtime *rt, gemmc_runtime_stream *stream);
gemmc_status gemmc_runtime_stream_synchronize(gemmc_runtime *rt, gemmc_runtime_stream *stream);

/* Events time GPU work: record start and end on a stream, synchronize on end, take the
 * difference in milliseconds. */
gemmc_status gemmc_runtime_event_create(gemmc_runtime *rt, gemmc_runtime_event **out);
gemmc_status gemmc_runtime_event_destroy(gemmc_runtime *rt, gemmc_runtime_event *event);
gemmc_status gemmc_runtime_event_record(gemmc_runtime *rt, gemmc_runtime_event *event,
                                        gemmc_runtime_stream *stream);
gemmc_status gemmc_runtime_event_synchronize(gemmc_runtime *rt, gemmc_runtime_event *event);
gemmc_status gemmc_runtime_event_elapsed_ms(gemmc_runtime *rt, gemmc_runtime_event *start,
                                            gemmc_runtime_event *end, float *ms);

#ifdef __cplusplus
}
#endif

#endif /* GEMMC_RUNTIME_H */

/* The runtime's backend interface: each backend (cuda.c, hip.c) fills one table of operations. */
#ifndef GEMMC_RUNTIME_INTERNAL_H
#define GEMMC_RUNTIME_INTERNAL_H

#include "gemmc/runtime.h"

/* runtime.c checks arguments (NULL handles, empty grids) before calling these. */
typedef struct runtime_tensor_map {
  int data_type; /* CUtensorMapDataType */
  int rank;
  gemmc_devptr base;
  uint64_t dims[5], strides_bytes[4];
  uint32_t box[5];
  int swizzle; /* CUtensorMapSwizzle: 0 none, 1 32B, 2 64B, 3 128B */
} runtime_tensor_map;

typedef struct gemmc_runtime_ops {
  void (*destroy)(gemmc_runtime *rt);
  gemmc_status (*make_current)(gemmc_runtime *rt);
  gemmc_status (*synchronize)(gemmc_runtime *rt);
  gemmc_status (*module_load)(gemmc_runtime *rt, const void *image, size_t size,
                              gemmc_runtime_module **out);
  gemmc_status (*compile_ptx)(gemmc_runtime *rt, const char *ptx, size_t len, void **cubin_out, size_t *len_out);
  gemmc_status (*module_unload)(gemmc_runtime *rt, gemmc_runtime_module *module);
  gemmc_status (*module_get_kernel)(gemmc_runtime *rt, gemmc_runtime_module *module,
                                    const char *name, gemmc_runtime_kernel **out);
  gemmc_status (*kernel_get_info)(gemmc_runtime *rt, gemmc_runtime_kernel *kernel,
                                  gemmc_kernel_info *out);
  gemmc_status (*kernel_set_max_dynamic_shared)(gemmc_runtime *rt, gemmc_runtime_kernel *kernel,
                                                int bytes);
  gemmc_status (*launch)(gemmc_runtime *rt, gemmc_runtime_kernel *kernel,
                         const gemmc_launch_config *config, void **args);
  gemmc_status (*mem_alloc)(gemmc_runtime *rt, size_t bytes, gemmc_devptr *out);
  gemmc_status (*mem_free)(gemmc_runtime *rt, gemmc_devptr ptr);
  gemmc_status (*copy_htod)(gemmc_runtime *rt, gemmc_devptr dst, const void *src, size_t bytes);
  gemmc_status (*copy_dtoh)(gemmc_runtime *rt, void *dst, gemmc_devptr src, size_t bytes);
  gemmc_status (*copy_dtod)(gemmc_runtime *rt, gemmc_devptr dst, gemmc_devptr src, size_t bytes);
  gemmc_status (*memset_d8)(gemmc_runtime *rt, gemmc_devptr dst, uint8_t value, size_t count);
  gemmc_status (*memset_d32)(gemmc_runtime *rt, gemmc_devptr dst, uint32_t value, size_t count);
  gemmc_status (*stream_create)(gemmc_runtime *rt, gemmc_runtime_stream **out);
  gemmc_status (*stream_destroy)(gemmc_runtime *rt, gemmc_runtime_stream *stream);
  gemmc_status (*stream_synchronize)(gemmc_runtime *rt, gemmc_runtime_stream *stream);
  gemmc_status (*event_create)(gemmc_runtime *rt, gemmc_runtime_event **out);
  gemmc_status (*event_destroy)(gemmc_runtime *rt, gemmc_runtime_event *event);
  gemmc_status (*event_record)(gemmc_runtime *rt, gemmc_runtime_event *event,
                               gemmc_runtime_stream *stream);
  gemmc_status (*event_synchronize)(gemmc_runtime *rt, gemmc_runtime_event *event);
  gemmc_status (*event_elapsed_ms)(gemmc_runtime *rt, gemmc_runtime_event *start,
                                   gemmc_runtime_event *end, float *ms);
  /* Optional (NULL: unsupported). A tiled tensor map, CUDA's own numbering: dims, box and
   * element strides innermost first, strides_bytes for dims 1..rank-1. */
  gemmc_status (*encode_tensor_map)(gemmc_runtime *rt, const runtime_tensor_map *m, gemmc_tensor_map *out);
} gemmc_runtime_ops;

/* Each backend's runtime struct starts with this, so a gemmc_runtime * is also a pointer to it. */
struct gemmc_runtime {
  const gemmc_runtime_ops *ops;
  gemmc_device_info info;
  bool programmatic_launch; /* gemmc_runtime_set_programmatic_launch (CUDA only) */
};

gemmc_status runtime_cuda_create(int device, gemmc_runtime **out);
gemmc_status runtime_hip_create(int device, gemmc_runtime **out);

gemmc_status runtime_ok(void);
gemmc_status runtime_error(gemmc_status_code code, int driver_error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* GEMMC_RUNTIME_INTERNAL_H */

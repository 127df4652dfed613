/* HIP backend of the runtime (skeleton): libamdhip64.so through dlopen, never run on AMD hardware. */
/* Status: this mirrors cuda.c call for call with HIP's module API, but no AMD GPU has been
 * available to test it. What is missing on purpose: device attributes other than the name,
 * compute capability, memory and driver version (the values of hipDeviceAttribute_t moved in
 * ROCm 6, so they are not hard-coded blind), kernel attribute queries and the JIT log (HIP loads
 * finished code objects; there is no PTX-like JIT step). Treat every result as unverified. */
#include "runtime_internal.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The few HIP types used (hip_runtime_api.h, ROCm 6); handles are pointers, errors ints. */
typedef int hipError_t;
typedef int hipDevice_t;
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;
typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;
typedef void *hipDeviceptr_t;

enum { hipSuccess = 0, hipErrorNoDevice = 100 };

/* (field, symbol, return type, parameters) for every HIP entry point used. */
#define HIP_FUNCTIONS(X)                                                                           \
  X(init, "hipInit", hipError_t, (unsigned flags))                                                 \
  X(get_device_count, "hipGetDeviceCount", hipError_t, (int *count))                               \
  X(device_get, "hipDeviceGet", hipError_t, (hipDevice_t * device, int ordinal))                   \
  X(set_device, "hipSetDevice", hipError_t, (int ordinal))                                         \
  X(device_get_name, "hipDeviceGetName", hipError_t, (char *name, int len, hipDevice_t device))    \
  X(device_compute_capability, "hipDeviceComputeCapability", hipError_t,                           \
    (int *major, int *minor, hipDevice_t device))                                                  \
  X(device_total_mem, "hipDeviceTotalMem", hipError_t, (size_t * bytes, hipDevice_t device))       \
  X(driver_get_version, "hipDriverGetVersion", hipError_t, (int *version))                         \
  X(device_synchronize, "hipDeviceSynchronize", hipError_t, (void))                                \
  X(get_error_name, "hipGetErrorName", const char *, (hipError_t error))                           \
  X(get_error_string, "hipGetErrorString", const char *, (hipError_t error))                       \
  X(module_load_data, "hipModuleLoadData", hipError_t, (hipModule_t * module, const void *image))  \
  X(module_unload, "hipModuleUnload", hipError_t, (hipModule_t module))                            \
  X(module_get_function, "hipModuleGetFunction", hipError_t,                                       \
    (hipFunction_t * function, hipModule_t module, const char *name))                              \
  X(module_launch_kernel, "hipModuleLaunchKernel", hipError_t,                                     \
    (hipFunction_t f, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,         \
     unsigned block_y, unsigned block_z, unsigned shared_bytes, hipStream_t stream,                \
     void **params, void **extra))                                                                 \
  X(mem_alloc, "hipMalloc", hipError_t, (void **ptr, size_t bytes))                                   \
  X(mem_free, "hipFree", hipError_t, (void *ptr))                                                      \
  X(memcpy_htod, "hipMemcpyHtoD", hipError_t, (hipDeviceptr_t dst, void *src, size_t bytes))       \
  X(memcpy_dtoh, "hipMemcpyDtoH", hipError_t, (void *dst, hipDeviceptr_t src, size_t bytes))       \
  X(memcpy_dtod, "hipMemcpyDtoD", hipError_t,                                                      \
    (hipDeviceptr_t dst, hipDeviceptr_t src, size_t bytes))                                        \
  X(memset_d8, "hipMemsetD8", hipError_t, (hipDeviceptr_t dst, unsigned char value, size_t count)) \
  X(memset_d32, "hipMemsetD32", hipError_t, (hipDeviceptr_t dst, int value, size_t count))         \
  X(stream_create, "hipStreamCreate", hipError_t, (hipStream_t * stream))                          \
  X(stream_destroy, "hipStreamDestroy", hipError_t, (hipStream_t stream))                          \
  X(stream_synchronize, "hipStreamSynchronize", hipError_t, (hipStream_t stream))                  \
  X(event_create, "hipEventCreate", hipError_t, (hipEvent_t * event))                              \
  X(event_destroy, "hipEventDestroy", hipError_t, (hipEvent_t event))                              \
  X(event_record, "hipEventRecord", hipError_t, (hipEvent_t event, hipStream_t stream))            \
  X(event_synchronize, "hipEventSynchronize", hipError_t, (hipEvent_t event))                      \
  X(event_elapsed_time, "hipEventElapsedTime", hipError_t,                                         \
    (float *ms, hipEvent_t start, hipEvent_t end))

typedef struct hip_api {
#define DECLARE_FIELD(field, symbol, ret, params) ret(*field) params;
  HIP_FUNCTIONS(DECLARE_FIELD)
#undef DECLARE_FIELD
} hip_api;

static const struct {
  const char *name;
  size_t offset;
} hip_symbols[] = {
#define SYMBOL_ENTRY(field, symbol, ret, params) {symbol, offsetof(hip_api, field)},
    HIP_FUNCTIONS(SYMBOL_ENTRY)
#undef SYMBOL_ENTRY
};

typedef struct hip_runtime {
  gemmc_runtime base; /* first: a gemmc_runtime * points here */
  void *library;
  hip_api api;
  int ordinal; /* HIP keeps a current device per thread instead of a context */
} hip_runtime;

static hip_runtime *as_hip(gemmc_runtime *rt) { return (hip_runtime *)rt; }

static gemmc_status hip_failure(const hip_runtime *h, hipError_t error, const char *what) {
  const char *name = h->api.get_error_name ? h->api.get_error_name(error) : NULL;
  const char *text = h->api.get_error_string ? h->api.get_error_string(error) : NULL;
  return runtime_error(GEMMC_ERROR_DRIVER, error, "%s: %s (%d): %s", what,
                       name ? name : "HIP error", (int)error, text ? text : "unknown error");
}

#define HIP_CALL(h, call, what)                                                                    \
  do {                                                                                             \
    hipError_t error_ = (call);                                                                    \
    if (error_ != hipSuccess)                                                                      \
      return hip_failure((h), error_, (what));                                                     \
  } while (0)

static const gemmc_runtime_ops hip_ops;

static void hip_destroy(gemmc_runtime *rt) {
  /* Like libcuda, the HIP runtime stays loaded: it does not survive being unloaded well. */
  free(rt);
}

/* ROCm installs libamdhip64.so only with the development package; the versioned names ship
 * with the runtime itself. */
static void *open_hip_library(void) {
  static const char *const names[] = {"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    void *library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (library)
      return library;
  }
  return NULL;
}

gemmc_status runtime_hip_create(int device, gemmc_runtime **out) {
  void *library = open_hip_library();
  if (!library)
    return runtime_error(GEMMC_ERROR_NO_DRIVER, 0, "no HIP runtime (libamdhip64.so not found)");
  hip_runtime *h = calloc(1, sizeof *h);
  if (!h)
    return runtime_error(GEMMC_ERROR_OUT_OF_HOST_MEMORY, 0, "out of memory");
  h->base.ops = &hip_ops;
  h->library = library;
  h->ordinal = device;
  gemmc_status status;
  for (size_t i = 0; i < sizeof hip_symbols / sizeof hip_symbols[0]; i++) {
    void *fn = dlsym(library, hip_symbols[i].name);
    if (!fn) {
      status = runtime_error(GEMMC_ERROR_NO_DRIVER, 0, "no HIP runtime (libamdhip64.so lacks %s)",
                             hip_symbols[i].name);
      goto fail;
    }
    memcpy((char *)&h->api + hip_symbols[i].offset, &fn, sizeof fn);
  }
  hipError_t error = h->api.init(0);
  if (error == hipErrorNoDevice) {
    status = runtime_error(GEMMC_ERROR_NO_DRIVER, error, "no HIP device (hipInit: no device)");
    goto fail;
  }
  int count = 0;
  if (error == hipSuccess)
    error = h->api.get_device_count(&count);
  if (error != hipSuccess) {
    status = hip_failure(h, error, "hipInit");
    goto fail;
  }
  if (device >= count) {
    status = runtime_error(count ? GEMMC_ERROR_INVALID_ARGUMENT : GEMMC_ERROR_NO_DRIVER, 0,
                           "HIP device %d does not exist (%d devices)", device, count);
    goto fail;
  }
  hipDevice_t handle = 0;
  gemmc_device_info *info = &h->base.info;
  info->backend = GEMMC_BACKEND_HIP;
  info->ordinal = device;
  info->warp_size = 64;                           /* CDNA; RDNA would be 32 */
  info->max_shared_mem_per_block_optin = 64 * 1024; /* LDS per workgroup on CDNA */
  if ((error = h->api.set_device(device)) != hipSuccess ||
      (error = h->api.device_get(&handle, device)) != hipSuccess ||
      (error = h->api.device_get_name(info->name, (int)sizeof info->name - 1, handle)) !=
          hipSuccess ||
      (error = h->api.device_compute_capability(&info->compute_capability_major,
                                                &info->compute_capability_minor, handle)) !=
          hipSuccess ||
      (error = h->api.device_total_mem(&info->total_memory, handle)) != hipSuccess ||
      (error = h->api.driver_get_version(&info->driver_version)) != hipSuccess) {
    status = hip_failure(h, error, "querying the HIP device");
    goto fail;
  }
  /* gfx942 reports compute capability 9.4. */
  if (info->compute_capability_major == 9 && info->compute_capability_minor == 4)
    snprintf(info->target_name, sizeof info->target_name, "gfx942");
  *out = &h->base;
  return runtime_ok();

fail:
  hip_destroy(&h->base);
  return status;
}

static gemmc_status hip_make_current(gemmc_runtime *rt) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h, h->api.set_device(h->ordinal), "hipSetDevice");
  return runtime_ok();
}

static gemmc_status hip_synchronize(gemmc_runtime *rt) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h, h->api.device_synchronize(), "hipDeviceSynchronize");
  return runtime_ok();
}

static gemmc_status hip_module_load(gemmc_runtime *rt, const void *image, size_t size,
                                    gemmc_runtime_module **out) {
  (void)size; /* a code object is ELF and carries its own size */
  hip_runtime *h = as_hip(rt);
  hipModule_t module = NULL;
  HIP_CALL(h, h->api.module_load_data(&module, image), "hipModuleLoadData");
  *out = (gemmc_runtime_module *)module;
  return runtime_ok();
}

static gemmc_status hip_module_unload(gemmc_runtime *rt, gemmc_runtime_module *module) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h, h->api.module_unload((hipModule_t)module), "hipModuleUnload");
  return runtime_ok();
}

static gemmc_status hip_module_get_kernel(gemmc_runtime *rt, gemmc_runtime_module *module,
                                          const char *name, gemmc_runtime_kernel **out) {
  hip_runtime *h = as_hip(rt);
  hipFunction_t function = NULL;
  HIP_CALL(h, h->api.module_get_function(&function, (hipModule_t)module, name),
           "hipModuleGetFunction");
  *out = (gemmc_runtime_kernel *)function;
  return runtime_ok();
}

static gemmc_status hip_kernel_get_info(gemmc_runtime *rt, gemmc_runtime_kernel *kernel,
                                        gemmc_kernel_info *out) {
  (void)rt, (void)kernel, (void)out;
  return runtime_error(GEMMC_ERROR_UNSUPPORTED, 0, "kernel attributes are not queried on HIP yet");
}

/* AMD GPUs need no opt-in for LDS: anything up to the 64 KiB limit works as is. */
static gemmc_status hip_kernel_set_max_dynamic_shared(gemmc_runtime *rt,
                                                      gemmc_runtime_kernel *kernel, int bytes) {
  (void)kernel;
  if (bytes > rt->info.max_shared_mem_per_block_optin)
    return runtime_error(GEMMC_ERROR_INVALID_ARGUMENT, 0,
                         "%d bytes of dynamic shared memory exceed the device's %d", bytes,
                         rt->info.max_shared_mem_per_block_optin);
  return runtime_ok();
}

static gemmc_status hip_launch(gemmc_runtime *rt, gemmc_runtime_kernel *kernel,
                               const gemmc_launch_config *c, void **args) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h,
           h->api.module_launch_kernel((hipFunction_t)kernel, c->grid[0], c->grid[1], c->grid[2],
                                       c->block[0], c->block[1], c->block[2],
                                       c->dynamic_shared_bytes, (hipStream_t)c->stream, args, NULL),
           "hipModuleLaunchKernel");
  return runtime_ok();
}

static hipDeviceptr_t device_pointer(gemmc_devptr p) { return (hipDeviceptr_t)(uintptr_t)p; }

static gemmc_status hip_mem_alloc(gemmc_runtime *rt, size_t bytes, gemmc_devptr *out) {
  hip_runtime *h = as_hip(rt);
  void *ptr = NULL;
  HIP_CALL(h, h->api.mem_alloc(&ptr, bytes), "hipMalloc");
  *out = (gemmc_devptr)(uintptr_t)ptr;
  return runtime_ok();
}

static gemmc_status hip_mem_free(gemmc_runtime *rt, gemmc_devptr ptr) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h, h->api.mem_free(device_pointer(ptr)), "hipFree");
  return runtime_ok();
}

static gemmc_status hip_copy_htod(gemmc_runtime *rt, gemmc_devptr dst, const void *src,
                                  size_t bytes) {
  hip_runtime *h = as_hip(rt);
  /* hipMemcpyHtoD takes a non-const source but only reads it. */
  HIP_CALL(h, h->api.memcpy_htod(device_pointer(dst), (void *)(uintptr_t)src, bytes),
           "hipMemcpyHtoD");
  return runtime_ok();
}

static gemmc_status hip_copy_dtoh(gemmc_runtime *rt, void *dst, gemmc_devptr src, size_t bytes) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h, h->api.memcpy_dtoh(dst, device_pointer(src), bytes), "hipMemcpyDtoH");
  return runtime_ok();
}

static gemmc_status hip_copy_dtod(gemmc_runtime *rt, gemmc_devptr dst, gemmc_devptr src,
                                  size_t bytes) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h, h->api.memcpy_dtod(device_pointer(dst), device_pointer(src), bytes), "hipMemcpyDtoD");
  return runtime_ok();
}

static gemmc_status hip_memset_d8(gemmc_runtime *rt, gemmc_devptr dst, uint8_t value,
                                  size_t count) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h, h->api.memset_d8(device_pointer(dst), value, count), "hipMemsetD8");
  return runtime_ok();
}

static gemmc_status hip_memset_d32(gemmc_runtime *rt, gemmc_devptr dst, uint32_t value,
                                   size_t count) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h, h->api.memset_d32(device_pointer(dst), (int)value, count), "hipMemsetD32");
  return runtime_ok();
}

static gemmc_status hip_stream_create(gemmc_runtime *rt, gemmc_runtime_stream **out) {
  hip_runtime *h = as_hip(rt);
  hipStream_t stream = NULL;
  HIP_CALL(h, h->api.stream_create(&stream), "hipStreamCreate");
  *out = (gemmc_runtime_stream *)stream;
  return runtime_ok();
}

static gemmc_status hip_stream_destroy(gemmc_runtime *rt, gemmc_runtime_stream *stream) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h, h->api.stream_destroy((hipStream_t)stream), "hipStreamDestroy");
  return runtime_ok();
}

static gemmc_status hip_stream_synchronize(gemmc_runtime *rt, gemmc_runtime_stream *stream) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h, h->api.stream_synchronize((hipStream_t)stream), "hipStreamSynchronize");
  return runtime_ok();
}

static gemmc_status hip_event_create(gemmc_runtime *rt, gemmc_runtime_event **out) {
  hip_runtime *h = as_hip(rt);
  hipEvent_t event = NULL;
  HIP_CALL(h, h->api.event_create(&event), "hipEventCreate");
  *out = (gemmc_runtime_event *)event;
  return runtime_ok();
}

static gemmc_status hip_event_destroy(gemmc_runtime *rt, gemmc_runtime_event *event) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h, h->api.event_destroy((hipEvent_t)event), "hipEventDestroy");
  return runtime_ok();
}

static gemmc_status hip_event_record(gemmc_runtime *rt, gemmc_runtime_event *event,
                                     gemmc_runtime_stream *stream) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h, h->api.event_record((hipEvent_t)event, (hipStream_t)stream), "hipEventRecord");
  return runtime_ok();
}

static gemmc_status hip_event_synchronize(gemmc_runtime *rt, gemmc_runtime_event *event) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h, h->api.event_synchronize((hipEvent_t)event), "hipEventSynchronize");
  return runtime_ok();
}

static gemmc_status hip_event_elapsed_ms(gemmc_runtime *rt, gemmc_runtime_event *start,
                                         gemmc_runtime_event *end, float *ms) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h, h->api.event_elapsed_time(ms, (hipEvent_t)start, (hipEvent_t)end),
           "hipEventElapsedTime");
  return runtime_ok();
}

static const gemmc_runtime_ops hip_ops = {
    .destroy = hip_destroy,
    .make_current = hip_make_current,
    .synchronize = hip_synchronize,
    .module_load = hip_module_load,
    .module_unload = hip_module_unload,
    .module_get_kernel = hip_module_get_kernel,
    .kernel_get_info = hip_kernel_get_info,
    .kernel_set_max_dynamic_shared = hip_kernel_set_max_dynamic_shared,
    .launch = hip_launch,
    .mem_alloc = hip_mem_alloc,
    .mem_free = hip_mem_free,
    .copy_htod = hip_copy_htod,
    .copy_dtoh = hip_copy_dtoh,
    .copy_dtod = hip_copy_dtod,
    .memset_d8 = hip_memset_d8,
    .memset_d32 = hip_memset_d32,
    .stream_create = hip_stream_create,
    .stream_destroy = hip_stream_destroy,
    .stream_synchronize = hip_stream_synchronize,
    .event_create = hip_event_create,
    .event_destroy = hip_event_destroy,
    .event_record = hip_event_record,
    .event_synchronize = hip_event_synchronize,
    .event_elapsed_ms = hip_event_elapsed_ms,
};

/* HIP backend of the runtime: libamdhip64 through dlopen, code objects with their metadata note, launches with a kernarg buffer laid out by the note. */
/* No AMD GPU has run this yet: it is tested against a stand-in libamdhip64 (test/unit/fake_hip.c)
 * that records every call, so the calls, the argument buffers and the errors are checked, but
 * not the real runtime's behaviour. Device attributes are read through hipDeviceGetAttribute
 * with the ROCm 6 enum values (stable since ROCm 5: retired entries keep their numbers as
 * hipDeviceAttributeUnusedN). */
#include "runtime_internal.h"

#include "gemmc/amdgpu.h"

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

enum { hipSuccess = 0, hipErrorNoDevice = 100, hipErrorInsufficientDriver = 35 };
/* hipDeviceAttribute_t values (ROCm 6 hip_runtime_api.h). */
enum {
  hipDeviceAttributeMaxSharedMemoryPerBlock = 74,
  hipDeviceAttributeMultiprocessorCount = 63,
  hipDeviceAttributeWarpSize = 87,
};
/* The `extra` argument of hipModuleLaunchKernel: a kernarg buffer instead of per-argument
 * pointers (hip_runtime_api.h: HIP_LAUNCH_PARAM_BUFFER_POINTER etc.). */
#define HIP_LAUNCH_PARAM_BUFFER_POINTER ((void *)(uintptr_t)0x01)
#define HIP_LAUNCH_PARAM_BUFFER_SIZE ((void *)(uintptr_t)0x02)
#define HIP_LAUNCH_PARAM_END ((void *)(uintptr_t)0x03)

/* The kernarg segment of one dispatch is at most 4 KiB (HIP's limit); bigger layouts take the heap. */
#define KERNARG_STACK_BYTES 4096

/* (field, symbol, return type, parameters) for every HIP entry point used. */
#define HIP_FUNCTIONS(X)                                                                           \
  X(init, "hipInit", hipError_t, (unsigned flags))                                                 \
  X(get_device_count, "hipGetDeviceCount", hipError_t, (int *count))                               \
  X(device_get, "hipDeviceGet", hipError_t, (hipDevice_t * device, int ordinal))                   \
  X(set_device, "hipSetDevice", hipError_t, (int ordinal))                                         \
  X(device_get_name, "hipDeviceGetName", hipError_t, (char *name, int len, hipDevice_t device))    \
  X(device_compute_capability, "hipDeviceComputeCapability", hipError_t,                           \
    (int *major, int *minor, hipDevice_t device))                                                  \
  X(device_get_attribute, "hipDeviceGetAttribute", hipError_t, (int *value, int attribute, int device)) \
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
  X(mem_alloc, "hipMalloc", hipError_t, (void **ptr, size_t bytes))                                \
  X(mem_free, "hipFree", hipError_t, (void *ptr))                                                  \
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

/* A loaded code object: HIP's module, the note that lays out every kernel's arguments, and the
 * kernels looked up so far (they live as long as the module). */
typedef struct hip_kernel {
  hipFunction_t function;
  const gemmc_amdgpu_kernel_info *info;
  struct hip_kernel *next;
} hip_kernel;

typedef struct hip_module {
  hipModule_t module;
  gemmc_amdgpu_code_object *code_object;
  void *image; /* our copy: the runtime may read the ELF after hipModuleLoadData returns */
  hip_kernel *kernels;
} hip_module;

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

/* $GEMMC_HIP_LIBRARY when set (a path); else the loader's search for the development name and
 * the versioned ones the runtime package ships; else ROCm's default folder, which is often
 * not on the loader's path. */
static void *open_hip_library(char *why, size_t why_len) {
  const char *explicit_path = getenv("GEMMC_HIP_LIBRARY");
  if (explicit_path && *explicit_path) {
    void *library = dlopen(explicit_path, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char *e = dlerror();
      snprintf(why, why_len, "GEMMC_HIP_LIBRARY=%s cannot be loaded: %s", explicit_path, e ? e : "?");
    }
    return library;
  }
  static const char *const names[] = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.7",
                                      "/opt/rocm/lib/libamdhip64.so"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    void *library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (library)
      return library;
  }
  snprintf(why, why_len, "libamdhip64.so not found");
  return NULL;
}

/* The gemmc target of the device. HIP reports gfx942 as compute capability 9.4; 9.0 is every
 * gfx9 before it (gfx900, gfx906, gfx908, gfx90a), of which the MI200 series (MI210, MI250,
 * MI250X) are gfx90a. */
static void set_target_name(gemmc_device_info *info) {
  int major = info->compute_capability_major, minor = info->compute_capability_minor;
  if (major == 9 && minor == 4)
    snprintf(info->target_name, sizeof info->target_name, "gfx942");
  else if (major == 9 && minor == 0 && strstr(info->name, "MI2"))
    snprintf(info->target_name, sizeof info->target_name, "gfx90a");
}

static gemmc_status query_device_info(hip_runtime *h, int device) {
  hipDevice_t handle = 0;
  gemmc_device_info *info = &h->base.info;
  info->backend = GEMMC_BACKEND_HIP;
  info->ordinal = device;
  HIP_CALL(h, h->api.set_device(device), "hipSetDevice");
  HIP_CALL(h, h->api.device_get(&handle, device), "hipDeviceGet");
  HIP_CALL(h, h->api.device_get_name(info->name, (int)sizeof info->name - 1, handle), "hipDeviceGetName");
  HIP_CALL(h,
           h->api.device_compute_capability(&info->compute_capability_major, &info->compute_capability_minor,
                                            handle),
           "hipDeviceComputeCapability");
  HIP_CALL(h, h->api.device_total_mem(&info->total_memory, handle), "hipDeviceTotalMem");
  HIP_CALL(h, h->api.driver_get_version(&info->driver_version), "hipDriverGetVersion");
  HIP_CALL(h, h->api.device_get_attribute(&info->warp_size, hipDeviceAttributeWarpSize, device),
           "hipDeviceGetAttribute(WarpSize)");
  HIP_CALL(h, h->api.device_get_attribute(&info->multiprocessor_count, hipDeviceAttributeMultiprocessorCount, device),
           "hipDeviceGetAttribute(MultiprocessorCount)");
  /* AMD GPUs have no opt-in: a work-group may use all of its LDS (64 KiB on CDNA). */
  HIP_CALL(h,
           h->api.device_get_attribute(&info->max_shared_mem_per_block_optin, hipDeviceAttributeMaxSharedMemoryPerBlock,
                                       device),
           "hipDeviceGetAttribute(MaxSharedMemoryPerBlock)");
  set_target_name(info);
  return runtime_ok();
}

gemmc_status runtime_hip_create(int device, gemmc_runtime **out) {
  char why[512] = "";
  void *library = open_hip_library(why, sizeof why);
  if (!library)
    return runtime_error(GEMMC_ERROR_NO_DRIVER, 0, "no HIP runtime (%s)", why);
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
    /* POSIX guarantees that a function address from dlsym survives this conversion. */
    memcpy((char *)&h->api + hip_symbols[i].offset, &fn, sizeof fn);
  }
  hipError_t error = h->api.init(0);
  if (error == hipErrorNoDevice || error == hipErrorInsufficientDriver) {
    status = runtime_error(GEMMC_ERROR_NO_DRIVER, error, "no HIP device (hipInit: %s)",
                           error == hipErrorNoDevice ? "no device" : "no AMD GPU driver");
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
                           "HIP device %d does not exist (%d device%s)", device, count, count == 1 ? "" : "s");
    goto fail;
  }
  status = query_device_info(h, device);
  if (status.code != GEMMC_OK)
    goto fail;
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

static void free_module(hip_module *m) {
  while (m->kernels) {
    hip_kernel *next = m->kernels->next;
    free(m->kernels);
    m->kernels = next;
  }
  gemmc_amdgpu_code_object_free(m->code_object);
  free(m->image);
  free(m);
}

/* The note is read first: a launch needs every kernel's argument layout, and anything that is
 * not an AMDGPU code object (PTX, a cubin) is refused before HIP sees it. */
static gemmc_status hip_module_load(gemmc_runtime *rt, const void *image, size_t size, gemmc_runtime_module **out) {
  hip_runtime *h = as_hip(rt);
  hip_module *m = calloc(1, sizeof *m);
  if (!m || !(m->image = malloc(size))) {
    free(m);
    return runtime_error(GEMMC_ERROR_OUT_OF_HOST_MEMORY, 0, "out of memory loading a code object");
  }
  memcpy(m->image, image, size);
  char err[512];
  if (!gemmc_amdgpu_read_code_object(m->image, size, &m->code_object, err, sizeof err)) {
    free_module(m);
    return runtime_error(GEMMC_ERROR_INVALID_ARGUMENT, 0, "hipModuleLoadData: not a usable AMDGPU code object: %s",
                         err);
  }
  hipError_t error = h->api.module_load_data(&m->module, m->image);
  if (error != hipSuccess) {
    gemmc_status status = hip_failure(h, error, "hipModuleLoadData");
    size_t used = strlen(status.message);
    snprintf(status.message + used, sizeof status.message - used, " (code object for %s; device %s)",
             m->code_object->target ? m->code_object->target : "?",
             rt->info.target_name[0] ? rt->info.target_name : rt->info.name);
    free_module(m);
    return status;
  }
  *out = (gemmc_runtime_module *)m;
  return runtime_ok();
}

static gemmc_status hip_module_unload(gemmc_runtime *rt, gemmc_runtime_module *module) {
  hip_runtime *h = as_hip(rt);
  hip_module *m = (hip_module *)module;
  hipError_t error = h->api.module_unload(m->module);
  free_module(m);
  HIP_CALL(h, error, "hipModuleUnload");
  return runtime_ok();
}

static gemmc_status hip_module_get_kernel(gemmc_runtime *rt, gemmc_runtime_module *module, const char *name,
                                          gemmc_runtime_kernel **out) {
  hip_runtime *h = as_hip(rt);
  hip_module *m = (hip_module *)module;
  const gemmc_amdgpu_kernel_info *info = gemmc_amdgpu_code_object_kernel(m->code_object, name);
  if (!info)
    return runtime_error(GEMMC_ERROR_INVALID_ARGUMENT, 0, "the code object has no kernel \"%.256s\"", name);
  hipFunction_t function = NULL;
  hipError_t error = h->api.module_get_function(&function, m->module, name);
  if (error != hipSuccess) {
    char what[320];
    snprintf(what, sizeof what, "hipModuleGetFunction(\"%.256s\")", name);
    return hip_failure(h, error, what);
  }
  hip_kernel *k = calloc(1, sizeof *k);
  if (!k)
    return runtime_error(GEMMC_ERROR_OUT_OF_HOST_MEMORY, 0, "out of memory");
  k->function = function;
  k->info = info;
  k->next = m->kernels;
  m->kernels = k;
  *out = (gemmc_runtime_kernel *)k;
  return runtime_ok();
}

/* From the note, as the CUDA backend reads them from the driver: VGPRs per lane, scratch per
 * work-item, static LDS, the flat work-group size bound. */
static gemmc_status hip_kernel_get_info(gemmc_runtime *rt, gemmc_runtime_kernel *kernel, gemmc_kernel_info *out) {
  (void)rt;
  const gemmc_amdgpu_kernel_info *k = ((hip_kernel *)kernel)->info;
  out->num_registers = k->vgpr_count;
  out->local_bytes = (int)k->private_segment_fixed_size;
  out->static_shared_bytes = (int)k->group_segment_fixed_size;
  out->max_threads_per_block = k->max_flat_workgroup_size;
  return runtime_ok();
}

/* AMD GPUs need no opt-in for LDS: static plus dynamic LDS only has to fit the device. */
static gemmc_status hip_kernel_set_max_dynamic_shared(gemmc_runtime *rt, gemmc_runtime_kernel *kernel, int bytes) {
  int64_t fixed = ((hip_kernel *)kernel)->info->group_segment_fixed_size;
  if (fixed + bytes > rt->info.max_shared_mem_per_block_optin)
    return runtime_error(GEMMC_ERROR_INVALID_ARGUMENT, 0,
                         "%d bytes of dynamic LDS and %lld static exceed the device's %d", bytes, (long long)fixed,
                         rt->info.max_shared_mem_per_block_optin);
  return runtime_ok();
}

/* args[i] points at the i-th explicit argument, as for CUDA; they are packed into one kernarg
 * buffer at the offsets of the code object's note, and HIP appends the hidden arguments. */
static gemmc_status hip_launch(gemmc_runtime *rt, gemmc_runtime_kernel *kernel, const gemmc_launch_config *c,
                               void **args) {
  hip_runtime *h = as_hip(rt);
  const hip_kernel *k = (const hip_kernel *)kernel;
  if (c->cluster_x > 1) return runtime_error(GEMMC_ERROR_UNSUPPORTED, 0, "HIP launches have no thread block clusters");
  size_t bytes = gemmc_amdgpu_explicit_kernarg_bytes(k->info);
  _Alignas(16) unsigned char stack_buffer[KERNARG_STACK_BYTES];
  unsigned char *buffer = bytes <= sizeof stack_buffer ? stack_buffer : malloc(bytes);
  if (!buffer)
    return runtime_error(GEMMC_ERROR_OUT_OF_HOST_MEMORY, 0, "out of memory (%zu bytes of kernel arguments)", bytes);
  char err[512];
  size_t used = 0;
  if (!gemmc_amdgpu_pack_kernargs(k->info, args, k->info->num_explicit_kernargs, buffer, bytes, &used, err,
                                  sizeof err)) {
    if (buffer != stack_buffer)
      free(buffer);
    return runtime_error(GEMMC_ERROR_INVALID_ARGUMENT, 0, "%s", err);
  }
  void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, buffer, HIP_LAUNCH_PARAM_BUFFER_SIZE, &used,
                   HIP_LAUNCH_PARAM_END};
  hipError_t error = h->api.module_launch_kernel(k->function, c->grid[0], c->grid[1], c->grid[2], c->block[0],
                                                 c->block[1], c->block[2], c->dynamic_shared_bytes,
                                                 (hipStream_t)c->stream, NULL, extra);
  if (buffer != stack_buffer)
    free(buffer);
  if (error != hipSuccess) {
    char what[240];
    snprintf(what, sizeof what, "hipModuleLaunchKernel(%s: grid %u,%u,%u block %u,%u,%u, %u LDS bytes)", k->info->name,
             c->grid[0], c->grid[1], c->grid[2], c->block[0], c->block[1], c->block[2], c->dynamic_shared_bytes);
    return hip_failure(h, error, what);
  }
  return runtime_ok();
}

static hipDeviceptr_t device_pointer(gemmc_devptr p) { return (hipDeviceptr_t)(uintptr_t)p; }

static gemmc_status hip_mem_alloc(gemmc_runtime *rt, size_t bytes, gemmc_devptr *out) {
  hip_runtime *h = as_hip(rt);
  void *ptr = NULL;
  hipError_t error = h->api.mem_alloc(&ptr, bytes);
  if (error != hipSuccess) {
    char what[80];
    snprintf(what, sizeof what, "hipMalloc(%zu bytes)", bytes);
    return hip_failure(h, error, what);
  }
  *out = (gemmc_devptr)(uintptr_t)ptr;
  return runtime_ok();
}

static gemmc_status hip_mem_free(gemmc_runtime *rt, gemmc_devptr ptr) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h, h->api.mem_free(device_pointer(ptr)), "hipFree");
  return runtime_ok();
}

static gemmc_status hip_copy_htod(gemmc_runtime *rt, gemmc_devptr dst, const void *src, size_t bytes) {
  hip_runtime *h = as_hip(rt);
  /* hipMemcpyHtoD takes a non-const source but only reads it. */
  HIP_CALL(h, h->api.memcpy_htod(device_pointer(dst), (void *)(uintptr_t)src, bytes), "hipMemcpyHtoD");
  return runtime_ok();
}

static gemmc_status hip_copy_dtoh(gemmc_runtime *rt, void *dst, gemmc_devptr src, size_t bytes) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h, h->api.memcpy_dtoh(dst, device_pointer(src), bytes), "hipMemcpyDtoH");
  return runtime_ok();
}

static gemmc_status hip_copy_dtod(gemmc_runtime *rt, gemmc_devptr dst, gemmc_devptr src, size_t bytes) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h, h->api.memcpy_dtod(device_pointer(dst), device_pointer(src), bytes), "hipMemcpyDtoD");
  return runtime_ok();
}

static gemmc_status hip_memset_d8(gemmc_runtime *rt, gemmc_devptr dst, uint8_t value, size_t count) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h, h->api.memset_d8(device_pointer(dst), value, count), "hipMemsetD8");
  return runtime_ok();
}

static gemmc_status hip_memset_d32(gemmc_runtime *rt, gemmc_devptr dst, uint32_t value, size_t count) {
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

static gemmc_status hip_event_record(gemmc_runtime *rt, gemmc_runtime_event *event, gemmc_runtime_stream *stream) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h, h->api.event_record((hipEvent_t)event, (hipStream_t)stream), "hipEventRecord");
  return runtime_ok();
}

static gemmc_status hip_event_synchronize(gemmc_runtime *rt, gemmc_runtime_event *event) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h, h->api.event_synchronize((hipEvent_t)event), "hipEventSynchronize");
  return runtime_ok();
}

static gemmc_status hip_event_elapsed_ms(gemmc_runtime *rt, gemmc_runtime_event *start, gemmc_runtime_event *end,
                                         float *ms) {
  hip_runtime *h = as_hip(rt);
  HIP_CALL(h, h->api.event_elapsed_time(ms, (hipEvent_t)start, (hipEvent_t)end), "hipEventElapsedTime");
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

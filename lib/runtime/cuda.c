/* CUDA backend of the runtime: the driver API (libcuda.so.1) through dlopen, no CUDA headers. */
#include "runtime_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The few driver types and constants used, declared here so that building needs no CUDA
 * toolkit. Values are from cuda.h (CUDA 13.0) and are ABI: they never change. Enums are passed
 * as int, which is how C passes them. */
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr; /* CUdeviceptr_v2 */
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef int CUjit_option;
typedef struct CUlinkState_st *CUlinkState;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
};
enum {
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};
enum {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};
enum {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};
enum { CU_JIT_INPUT_PTX = 1 };
enum { CU_STREAM_NON_BLOCKING = 1, CU_EVENT_DEFAULT = 0 };

/* Every driver entry point used: (field, symbol, fallback symbol or NULL, return, parameters).
 * cuda.h maps plain names to versioned symbols (cuMemAlloc -> cuMemAlloc_v2); dlsym needs the
 * versioned one. The fallbacks serve drivers older than the versioned symbol. */
#define CUDA_DRIVER_FUNCTIONS(X)                                                                   \
  X(init, "cuInit", NULL, (unsigned flags))                                                        \
  X(driver_get_version, "cuDriverGetVersion", NULL, (int *version))                                \
  X(device_get_count, "cuDeviceGetCount", NULL, (int *count))                                      \
  X(device_get, "cuDeviceGet", NULL, (CUdevice * device, int ordinal))                             \
  X(device_get_name, "cuDeviceGetName", NULL, (char *name, int len, CUdevice device))              \
  X(device_get_attribute, "cuDeviceGetAttribute", NULL, (int *value, int attribute, CUdevice dev)) \
  X(device_total_mem, "cuDeviceTotalMem_v2", NULL, (size_t * bytes, CUdevice device))              \
  X(primary_ctx_retain, "cuDevicePrimaryCtxRetain", NULL, (CUcontext * ctx, CUdevice device))      \
  X(primary_ctx_release, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease",              \
    (CUdevice device))                                                                             \
  X(ctx_set_current, "cuCtxSetCurrent", NULL, (CUcontext ctx))                                     \
  X(ctx_synchronize, "cuCtxSynchronize", NULL, (void))                                             \
  X(get_error_string, "cuGetErrorString", NULL, (CUresult error, const char **text))               \
  X(get_error_name, "cuGetErrorName", NULL, (CUresult error, const char **text))                   \
  X(module_load_data_ex, "cuModuleLoadDataEx", NULL,                                               \
    (CUmodule * module, const void *image, unsigned num_options, CUjit_option *options,            \
     void **values))                                                                               \
  X(module_unload, "cuModuleUnload", NULL, (CUmodule module))                                      \
  X(link_create, "cuLinkCreate_v2", "cuLinkCreate",                                                \
    (unsigned num_options, CUjit_option *options, void **values, CUlinkState *state))              \
  X(link_add_data, "cuLinkAddData_v2", "cuLinkAddData",                                            \
    (CUlinkState state, int type, void *data, size_t size, const char *name, unsigned num_options, \
     CUjit_option *options, void **values))                                                        \
  X(link_complete, "cuLinkComplete", NULL, (CUlinkState state, void **cubin, size_t *size))        \
  X(link_destroy, "cuLinkDestroy", NULL, (CUlinkState state))                                      \
  X(module_get_function, "cuModuleGetFunction", NULL,                                              \
    (CUfunction * function, CUmodule module, const char *name))                                    \
  X(func_get_attribute, "cuFuncGetAttribute", NULL, (int *value, int attribute, CUfunction f))     \
  X(func_set_attribute, "cuFuncSetAttribute", NULL, (CUfunction f, int attribute, int value))      \
  X(launch_kernel, "cuLaunchKernel", NULL,                                                         \
    (CUfunction f, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,            \
     unsigned block_y, unsigned block_z, unsigned shared_bytes, CUstream stream, void **params,     \
     void **extra))                                                                                \
  X(mem_alloc, "cuMemAlloc_v2", NULL, (CUdeviceptr * ptr, size_t bytes))                           \
  X(mem_free, "cuMemFree_v2", NULL, (CUdeviceptr ptr))                                             \
  X(memcpy_htod, "cuMemcpyHtoD_v2", NULL, (CUdeviceptr dst, const void *src, size_t bytes))        \
  X(memcpy_dtoh, "cuMemcpyDtoH_v2", NULL, (void *dst, CUdeviceptr src, size_t bytes))              \
  X(memcpy_dtod, "cuMemcpyDtoD_v2", NULL, (CUdeviceptr dst, CUdeviceptr src, size_t bytes))        \
  X(memset_d8, "cuMemsetD8_v2", NULL, (CUdeviceptr dst, unsigned char value, size_t count))        \
  X(memset_d32, "cuMemsetD32_v2", NULL, (CUdeviceptr dst, unsigned value, size_t count))           \
  X(stream_create, "cuStreamCreate", NULL, (CUstream * stream, unsigned flags))                    \
  X(stream_destroy, "cuStreamDestroy_v2", "cuStreamDestroy", (CUstream stream))                    \
  X(stream_synchronize, "cuStreamSynchronize", NULL, (CUstream stream))                            \
  X(event_create, "cuEventCreate", NULL, (CUevent * event, unsigned flags))                        \
  X(event_destroy, "cuEventDestroy_v2", "cuEventDestroy", (CUevent event))                         \
  X(event_record, "cuEventRecord", NULL, (CUevent event, CUstream stream))                         \
  X(event_synchronize, "cuEventSynchronize", NULL, (CUevent event))                                \
  X(event_elapsed_time, "cuEventElapsedTime_v2", "cuEventElapsedTime",                             \
    (float *ms, CUevent start, CUevent end))

typedef struct cuda_driver_api {
#define DECLARE_FIELD(field, symbol, fallback, params) CUresult(*field) params;
  CUDA_DRIVER_FUNCTIONS(DECLARE_FIELD)
#undef DECLARE_FIELD
} cuda_driver_api;

typedef struct cuda_symbol {
  const char *name, *fallback;
  size_t offset; /* of the function pointer in cuda_driver_api */
} cuda_symbol;

static const cuda_symbol cuda_symbols[] = {
#define SYMBOL_ENTRY(field, symbol, fallback, params)                                              \
  {symbol, fallback, offsetof(cuda_driver_api, field)},
    CUDA_DRIVER_FUNCTIONS(SYMBOL_ENTRY)
#undef SYMBOL_ENTRY
};

/* cuLaunchKernelEx's configuration (CUDA 12.0+), as cuda.h lays it out: the cluster dimension
 * and programmatic stream serialization (an int) attributes are used. */
enum { CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4, CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6 };
typedef struct cu_launch_attribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    struct {
      unsigned x, y, z;
    } cluster_dim;
    int programmatic_stream_serialization_allowed;
  } value;
} cu_launch_attribute;
typedef struct cu_launch_config {
  unsigned grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes;
  CUstream stream;
  cu_launch_attribute *attrs;
  unsigned num_attrs;
} cu_launch_config;
typedef CUresult (*launch_kernel_ex_fn)(const cu_launch_config *config, CUfunction f, void **params, void **extra);

/* Optional: looked up, not required (a stand-in driver may lack it). */
typedef CUresult (*module_get_global_fn)(CUdeviceptr *ptr, size_t *bytes, CUmodule module, const char *name);
/* cuTensorMapEncodeTiled (CUDA 12.0+), enums as ints in cuda.h's numbering. */
typedef CUresult (*tensor_map_encode_tiled_fn)(void *map, int data_type, uint32_t rank, void *address,
                                               const uint64_t *dims, const uint64_t *strides, const uint32_t *box,
                                               const uint32_t *element_strides, int interleave, int swizzle,
                                               int l2_promotion, int oob_fill);

typedef struct cuda_runtime {
  gemmc_runtime base; /* first: a gemmc_runtime * points here */
  void *library;      /* dlopen handle of libcuda.so.1 */
  cuda_driver_api api;
  module_get_global_fn module_get_global;
  tensor_map_encode_tiled_fn tensor_map_encode_tiled;
  launch_kernel_ex_fn launch_kernel_ex; /* NULL: clusters cannot be launched */
  /* The modules that define GEMMC_PROGRAMMATIC_LAUNCH_GLOBAL and the kernels taken from them
   * (function NULL: the module's own entry), so that the handles stay the driver's own. */
  pthread_mutex_t programmatic_lock;
  struct programmatic_entry {
    CUmodule module;
    CUfunction function;
  } *programmatic;
  int num_programmatic, cap_programmatic;
  CUdevice device;
  CUcontext context; /* the device's primary context, retained */
} cuda_runtime;

static cuda_runtime *as_cuda(gemmc_runtime *rt) { return (cuda_runtime *)rt; }

/* The programmatic-launch registry (cuda_runtime.programmatic). Recording can only fail for want
 * of memory, and then the kernel is launched plainly, which is always correct. */
static void programmatic_record(cuda_runtime *cu, CUmodule module, CUfunction function) {
  pthread_mutex_lock(&cu->programmatic_lock);
  if (cu->num_programmatic == cu->cap_programmatic) {
    int cap = cu->cap_programmatic ? 2 * cu->cap_programmatic : 8;
    struct programmatic_entry *grown = realloc(cu->programmatic, (size_t)cap * sizeof *grown);
    if (grown) cu->programmatic = grown, cu->cap_programmatic = cap;
  }
  if (cu->num_programmatic < cu->cap_programmatic)
    cu->programmatic[cu->num_programmatic++] = (struct programmatic_entry){module, function};
  pthread_mutex_unlock(&cu->programmatic_lock);
}

/* Whether `module` (function NULL) or `function` (module NULL) is recorded. */
static bool programmatic_find(cuda_runtime *cu, CUmodule module, CUfunction function) {
  bool found = false;
  pthread_mutex_lock(&cu->programmatic_lock);
  for (int i = 0; i < cu->num_programmatic && !found; i++)
    found = function ? cu->programmatic[i].function == function
                     : cu->programmatic[i].module == module && !cu->programmatic[i].function;
  pthread_mutex_unlock(&cu->programmatic_lock);
  return found;
}

/* An unloaded module's entries go (the driver may hand its addresses out again). */
static void programmatic_forget(cuda_runtime *cu, CUmodule module) {
  pthread_mutex_lock(&cu->programmatic_lock);
  int kept = 0;
  for (int i = 0; i < cu->num_programmatic; i++)
    if (cu->programmatic[i].module != module) cu->programmatic[kept++] = cu->programmatic[i];
  cu->num_programmatic = kept;
  pthread_mutex_unlock(&cu->programmatic_lock);
}

/* "what: CUDA_ERROR_NAME (code): description" for a failed driver call. */
static gemmc_status cuda_failure(const cuda_runtime *cu, CUresult result, const char *what) {
  const char *name = NULL, *text = NULL;
  if (cu->api.get_error_name)
    cu->api.get_error_name(result, &name);
  if (cu->api.get_error_string)
    cu->api.get_error_string(result, &text);
  return runtime_error(GEMMC_ERROR_DRIVER, result, "%s: %s (%d): %s", what,
                       name ? name : "CUDA error", (int)result, text ? text : "unknown error");
}

#define CUDA_CALL(cu, call, what)                                                                  \
  do {                                                                                             \
    CUresult result_ = (call);                                                                     \
    if (result_ != CUDA_SUCCESS)                                                                   \
      return cuda_failure((cu), result_, (what));                                                  \
  } while (0)

static const gemmc_runtime_ops cuda_ops;

static void cuda_destroy(gemmc_runtime *rt) {
  cuda_runtime *cu = as_cuda(rt);
  if (cu->context)
    cu->api.primary_ctx_release(cu->device);
  /* libcuda.so.1 stays loaded: unloading the driver under its own helper threads can crash the
   * process, and a later gemmc_runtime_create would only load it again. */
  pthread_mutex_destroy(&cu->programmatic_lock);
  free(cu->programmatic);
  free(cu);
}

static gemmc_status load_driver_symbols(cuda_runtime *cu) {
  for (size_t i = 0; i < sizeof cuda_symbols / sizeof cuda_symbols[0]; i++) {
    const cuda_symbol *s = &cuda_symbols[i];
    void *fn = dlsym(cu->library, s->name);
    if (!fn && s->fallback)
      fn = dlsym(cu->library, s->fallback);
    if (!fn)
      return runtime_error(GEMMC_ERROR_NO_DRIVER, 0,
                           "no CUDA driver (libcuda.so.1 lacks %s: driver too old?)", s->name);
    /* POSIX guarantees that a function address from dlsym survives this conversion. */
    memcpy((char *)&cu->api + s->offset, &fn, sizeof fn);
  }
  void *get_global = dlsym(cu->library, "cuModuleGetGlobal_v2");
  if (get_global) memcpy(&cu->module_get_global, &get_global, sizeof get_global);
  void *encode = dlsym(cu->library, "cuTensorMapEncodeTiled");
  if (encode) memcpy(&cu->tensor_map_encode_tiled, &encode, sizeof encode);
  void *launch_ex = dlsym(cu->library, "cuLaunchKernelEx");
  if (launch_ex) memcpy(&cu->launch_kernel_ex, &launch_ex, sizeof launch_ex);
  return runtime_ok();
}

static gemmc_status query_device_info(cuda_runtime *cu, int ordinal) {
  gemmc_device_info *info = &cu->base.info;
  memset(info, 0, sizeof *info);
  info->backend = GEMMC_BACKEND_CUDA;
  info->ordinal = ordinal;
  CUDA_CALL(cu, cu->api.device_get_name(info->name, (int)sizeof info->name - 1, cu->device),
            "cuDeviceGetName");
  static const struct {
    int attribute;
    size_t offset;
  } attributes[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
       offsetof(gemmc_device_info, compute_capability_major)},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
       offsetof(gemmc_device_info, compute_capability_minor)},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, offsetof(gemmc_device_info, multiprocessor_count)},
      {CU_DEVICE_ATTRIBUTE_WARP_SIZE, offsetof(gemmc_device_info, warp_size)},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
       offsetof(gemmc_device_info, max_shared_mem_per_block_optin)},
  };
  for (size_t i = 0; i < sizeof attributes / sizeof attributes[0]; i++) {
    int value = 0;
    CUDA_CALL(cu, cu->api.device_get_attribute(&value, attributes[i].attribute, cu->device),
              "cuDeviceGetAttribute");
    memcpy((char *)info + attributes[i].offset, &value, sizeof value);
  }
  CUDA_CALL(cu, cu->api.driver_get_version(&info->driver_version), "cuDriverGetVersion");
  CUDA_CALL(cu, cu->api.device_total_mem(&info->total_memory, cu->device), "cuDeviceTotalMem_v2");
  /* Compute capability 9.0 runs the architecture-specific sm_90a code (wgmma, setmaxnreg). */
  int major = info->compute_capability_major, minor = info->compute_capability_minor;
  snprintf(info->target_name, sizeof info->target_name, "sm_%d%d%s", major, minor,
           major == 9 && minor == 0 ? "a" : "");
  return runtime_ok();
}

gemmc_status runtime_cuda_create(int device, gemmc_runtime **out) {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return runtime_error(GEMMC_ERROR_NO_DRIVER, 0, "no CUDA driver (libcuda.so.1 not found)");
  cuda_runtime *cu = calloc(1, sizeof *cu);
  if (!cu)
    return runtime_error(GEMMC_ERROR_OUT_OF_HOST_MEMORY, 0, "out of memory");
  cu->base.ops = &cuda_ops;
  cu->library = library;
  pthread_mutex_init(&cu->programmatic_lock, NULL);

  gemmc_status status = load_driver_symbols(cu);
  if (status.code != GEMMC_OK)
    goto fail;
  CUresult result = cu->api.init(0);
  if (result == CUDA_ERROR_STUB_LIBRARY) {
    status = runtime_error(GEMMC_ERROR_NO_DRIVER, result,
                           "no CUDA driver (libcuda.so.1 is the CUDA toolkit's stub library)");
    goto fail;
  }
  if (result == CUDA_ERROR_NO_DEVICE) {
    status = runtime_error(GEMMC_ERROR_NO_DRIVER, result, "no CUDA device (cuInit: no device)");
    goto fail;
  }
  if (result != CUDA_SUCCESS) {
    status = cuda_failure(cu, result, "cuInit");
    goto fail;
  }
  int count = 0;
  result = cu->api.device_get_count(&count);
  if (result != CUDA_SUCCESS) {
    status = cuda_failure(cu, result, "cuDeviceGetCount");
    goto fail;
  }
  if (device >= count) {
    status = runtime_error(count ? GEMMC_ERROR_INVALID_ARGUMENT : GEMMC_ERROR_NO_DRIVER, 0,
                           "CUDA device %d does not exist (%d device%s)", device, count,
                           count == 1 ? "" : "s");
    goto fail;
  }
  if ((result = cu->api.device_get(&cu->device, device)) != CUDA_SUCCESS) {
    status = cuda_failure(cu, result, "cuDeviceGet");
    goto fail;
  }
  /* The primary context is the one the CUDA runtime (cuBLAS, PyTorch) shares: no _v4 create. */
  if ((result = cu->api.primary_ctx_retain(&cu->context, cu->device)) != CUDA_SUCCESS) {
    cu->context = NULL;
    status = cuda_failure(cu, result, "cuDevicePrimaryCtxRetain");
    goto fail;
  }
  if ((result = cu->api.ctx_set_current(cu->context)) != CUDA_SUCCESS) {
    status = cuda_failure(cu, result, "cuCtxSetCurrent");
    goto fail;
  }
  status = query_device_info(cu, device);
  if (status.code != GEMMC_OK)
    goto fail;
  *out = &cu->base;
  return runtime_ok();

fail:
  cuda_destroy(&cu->base);
  return status;
}

static gemmc_status cuda_make_current(gemmc_runtime *rt) {
  cuda_runtime *cu = as_cuda(rt);
  CUDA_CALL(cu, cu->api.ctx_set_current(cu->context), "cuCtxSetCurrent");
  return runtime_ok();
}

static gemmc_status cuda_synchronize(gemmc_runtime *rt) {
  cuda_runtime *cu = as_cuda(rt);
  CUDA_CALL(cu, cu->api.ctx_synchronize(), "cuCtxSynchronize");
  return runtime_ok();
}

/* A cubin is ELF; a fatbin starts with 0xBA55ED50 (little-endian). Anything else is PTX text. */
static bool is_binary_image(const unsigned char *image, size_t size) {
  if (size >= 4 && memcmp(image, "\x7f" "ELF", 4) == 0)
    return true;
  return size >= 4 && image[0] == 0x50 && image[1] == 0xED && image[2] == 0x55 && image[3] == 0xBA;
}

/* Whether `name` occurs in the image (PTX text, or a cubin's string table). */
static bool image_mentions(const void *image, size_t size, const char *name) {
  size_t n = strlen(name);
  const char *p = image, *end = p + size;
  for (; n && (size_t)(end - p) >= n; p++) {
    p = memchr(p, name[0], (size_t)(end - p) - n + 1);
    if (!p) return false;
    if (!memcmp(p, name, n)) return true;
  }
  return false;
}

static gemmc_status cuda_module_load(gemmc_runtime *rt, const void *image, size_t size,
                                     gemmc_runtime_module **out) {
  cuda_runtime *cu = as_cuda(rt);
  const void *data = image;
  char *ptx_copy = NULL;
  if (!is_binary_image(image, size)) {
    /* The driver reads PTX up to a NUL; text from a file or a length-counted buffer has none. */
    ptx_copy = malloc(size + 1);
    if (!ptx_copy)
      return runtime_error(GEMMC_ERROR_OUT_OF_HOST_MEMORY, 0, "out of memory copying the PTX");
    memcpy(ptx_copy, image, size);
    ptx_copy[size] = '\0';
    data = ptx_copy;
  }
  char error_log[8192] = "", info_log[4096] = "";
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {error_log, (void *)(uintptr_t)sizeof error_log, info_log,
                    (void *)(uintptr_t)sizeof info_log};
  CUmodule module = NULL;
  CUresult result = cu->api.module_load_data_ex(&module, data, 4, options, values);
  free(ptx_copy);
  if (result != CUDA_SUCCESS) {
    error_log[sizeof error_log - 1] = '\0';
    gemmc_status status = cuda_failure(cu, result, "cuModuleLoadDataEx");
    size_t used = strlen(status.message);
    if (result == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
      used += (size_t)snprintf(status.message + used, sizeof status.message - used,
                               " (the driver, version %d, is older than the PTX ISA; try an "
                               "older --ptx-version)",
                               rt->info.driver_version);
    /* ptxas' log may be longer than the message: keep its beginning, where the first error is. */
    if (error_log[0] && used + 2 < sizeof status.message) {
      size_t room = sizeof status.message - used - 2, n = strlen(error_log);
      status.message[used] = '\n';
      memcpy(status.message + used + 1, error_log, n < room ? n : room);
      status.message[used + 1 + (n < room ? n : room)] = '\0';
    }
    return status;
  }
  /* Persistent kernels loop over their programs with one block per multiprocessor: they read
   * the count from this global (GEMMC_SM_COUNT_GLOBAL; 0 leaves them on %nsmid, which counts
   * SM ids and may be larger than the SMs there are). */
  CUdeviceptr count_ptr = 0;
  size_t count_bytes = 0;
  /* Only asked for when the image names it: a failed lookup is an API error to compute-sanitizer. */
  if (cu->module_get_global && image_mentions(image, size, GEMMC_SM_COUNT_GLOBAL) &&
      cu->module_get_global(&count_ptr, &count_bytes, module, GEMMC_SM_COUNT_GLOBAL) == CUDA_SUCCESS &&
      count_bytes == sizeof(int)) {
    int count = rt->info.multiprocessor_count;
    CUDA_CALL(cu, cu->api.memcpy_htod(count_ptr, &count, sizeof count), "cuMemcpyHtoD (SM count)");
  }
  CUdeviceptr marker = 0;
  size_t marker_bytes = 0;
  if (cu->module_get_global && cu->launch_kernel_ex && image_mentions(image, size, GEMMC_PROGRAMMATIC_LAUNCH_GLOBAL) &&
      cu->module_get_global(&marker, &marker_bytes, module, GEMMC_PROGRAMMATIC_LAUNCH_GLOBAL) == CUDA_SUCCESS)
    programmatic_record(cu, module, NULL);
  *out = (gemmc_runtime_module *)module;
  return runtime_ok();
}

/* The driver's PTX JIT into a cubin we keep (cuLink*), the error log appended on failure. */
static gemmc_status cuda_compile_ptx(gemmc_runtime *rt, const char *ptx, size_t len, void **cubin_out,
                                     size_t *len_out) {
  cuda_runtime *cu = as_cuda(rt);
  char *ptx_copy = malloc(len + 1); /* cuLinkAddData reads PTX up to a NUL */
  if (!ptx_copy)
    return runtime_error(GEMMC_ERROR_OUT_OF_HOST_MEMORY, 0, "out of memory copying the PTX");
  memcpy(ptx_copy, ptx, len);
  ptx_copy[len] = '\0';
  char error_log[8192] = "";
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {error_log, (void *)(uintptr_t)sizeof error_log};
  CUlinkState state = NULL;
  CUresult result = cu->api.link_create(2, options, values, &state);
  const char *what = "cuLinkCreate";
  if (result == CUDA_SUCCESS) {
    what = "cuLinkAddData(PTX)";
    result = cu->api.link_add_data(state, CU_JIT_INPUT_PTX, ptx_copy, len + 1, "gemmc.ptx", 0, NULL, NULL);
  }
  void *cubin = NULL;
  size_t size = 0;
  if (result == CUDA_SUCCESS) {
    what = "cuLinkComplete";
    result = cu->api.link_complete(state, &cubin, &size);
  }
  /* The cubin belongs to the link state: copy it out before destroying that. */
  void *copy = NULL;
  if (result == CUDA_SUCCESS && (copy = malloc(size ? size : 1)) != NULL)
    memcpy(copy, cubin, size);
  if (state)
    cu->api.link_destroy(state);
  free(ptx_copy);
  if (result != CUDA_SUCCESS) {
    gemmc_status status = cuda_failure(cu, result, what);
    size_t used = strlen(status.message);
    error_log[sizeof error_log - 1] = '\0';
    if (error_log[0] && used + 2 < sizeof status.message)
      snprintf(status.message + used, sizeof status.message - used, "\n%s", error_log);
    return status;
  }
  if (!copy)
    return runtime_error(GEMMC_ERROR_OUT_OF_HOST_MEMORY, 0, "out of memory copying the cubin");
  *cubin_out = copy;
  *len_out = size;
  return runtime_ok();
}

static gemmc_status cuda_module_unload(gemmc_runtime *rt, gemmc_runtime_module *module) {
  cuda_runtime *cu = as_cuda(rt);
  programmatic_forget(cu, (CUmodule)module);
  CUDA_CALL(cu, cu->api.module_unload((CUmodule)module), "cuModuleUnload");
  return runtime_ok();
}

static gemmc_status cuda_module_get_kernel(gemmc_runtime *rt, gemmc_runtime_module *module,
                                           const char *name, gemmc_runtime_kernel **out) {
  cuda_runtime *cu = as_cuda(rt);
  CUfunction function = NULL;
  CUresult result = cu->api.module_get_function(&function, (CUmodule)module, name);
  if (result != CUDA_SUCCESS) {
    char what[320];
    snprintf(what, sizeof what, "cuModuleGetFunction(\"%.256s\")", name);
    return cuda_failure(cu, result, what);
  }
  if (programmatic_find(cu, (CUmodule)module, NULL) && !programmatic_find(cu, NULL, function))
    programmatic_record(cu, (CUmodule)module, function);
  *out = (gemmc_runtime_kernel *)function;
  return runtime_ok();
}

static gemmc_status cuda_kernel_get_info(gemmc_runtime *rt, gemmc_runtime_kernel *kernel,
                                         gemmc_kernel_info *out) {
  cuda_runtime *cu = as_cuda(rt);
  CUfunction f = (CUfunction)kernel;
  CUDA_CALL(cu, cu->api.func_get_attribute(&out->num_registers, CU_FUNC_ATTRIBUTE_NUM_REGS, f),
            "cuFuncGetAttribute(NUM_REGS)");
  CUDA_CALL(cu,
            cu->api.func_get_attribute(&out->local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f),
            "cuFuncGetAttribute(LOCAL_SIZE_BYTES)");
  CUDA_CALL(cu,
            cu->api.func_get_attribute(&out->static_shared_bytes,
                                       CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f),
            "cuFuncGetAttribute(SHARED_SIZE_BYTES)");
  CUDA_CALL(cu,
            cu->api.func_get_attribute(&out->max_threads_per_block,
                                       CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f),
            "cuFuncGetAttribute(MAX_THREADS_PER_BLOCK)");
  return runtime_ok();
}

static gemmc_status cuda_kernel_set_max_dynamic_shared(gemmc_runtime *rt,
                                                       gemmc_runtime_kernel *kernel, int bytes) {
  cuda_runtime *cu = as_cuda(rt);
  CUresult result = cu->api.func_set_attribute((CUfunction)kernel,
                                               CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
  if (result != CUDA_SUCCESS) {
    char what[160];
    snprintf(what, sizeof what,
             "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, %d; the device allows %d)", bytes,
             rt->info.max_shared_mem_per_block_optin);
    return cuda_failure(cu, result, what);
  }
  return runtime_ok();
}

static gemmc_status cuda_launch(gemmc_runtime *rt, gemmc_runtime_kernel *kernel,
                                const gemmc_launch_config *c, void **args) {
  cuda_runtime *cu = as_cuda(rt);
  CUresult result;
  bool clusters = c->cluster_x > 1;
  /* The registry is asked only when the runtime's programmatic launch is on (off by default). */
  bool programmatic = rt->programmatic_launch && programmatic_find(cu, NULL, (CUfunction)kernel);
  if (clusters && !cu->launch_kernel_ex)
    return runtime_error(GEMMC_ERROR_UNSUPPORTED, 0, "launching in clusters needs cuLaunchKernelEx (a CUDA 12+ driver)");
  if (clusters && c->grid[0] % c->cluster_x)
    return runtime_error(GEMMC_ERROR_INVALID_ARGUMENT, 0, "grid x (%u) is not a multiple of the cluster size (%u)",
                         c->grid[0], c->cluster_x);
  if (clusters || programmatic) {
    cu_launch_attribute attrs[2];
    unsigned n = 0;
    memset(attrs, 0, sizeof attrs);
    if (clusters) {
      attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attrs[n].value.cluster_dim.x = c->cluster_x;
      attrs[n].value.cluster_dim.y = attrs[n].value.cluster_dim.z = 1;
      n++;
    }
    if (programmatic) {
      attrs[n].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attrs[n].value.programmatic_stream_serialization_allowed = 1;
      n++;
    }
    cu_launch_config config = {.grid_x = c->grid[0], .grid_y = c->grid[1], .grid_z = c->grid[2],
                               .block_x = c->block[0], .block_y = c->block[1], .block_z = c->block[2],
                               .shared_bytes = c->dynamic_shared_bytes, .stream = (CUstream)c->stream,
                               .attrs = attrs, .num_attrs = n};
    result = cu->launch_kernel_ex(&config, (CUfunction)kernel, args, NULL);
  } else {
    result = cu->api.launch_kernel((CUfunction)kernel, c->grid[0], c->grid[1], c->grid[2], c->block[0], c->block[1],
                                   c->block[2], c->dynamic_shared_bytes, (CUstream)c->stream, args, NULL);
  }
  if (result != CUDA_SUCCESS) {
    char what[200];
    snprintf(what, sizeof what, "cuLaunchKernel(grid %u,%u,%u block %u,%u,%u, %u shared bytes)",
             c->grid[0], c->grid[1], c->grid[2], c->block[0], c->block[1], c->block[2],
             c->dynamic_shared_bytes);
    return cuda_failure(cu, result, what);
  }
  return runtime_ok();
}

static gemmc_status cuda_mem_alloc(gemmc_runtime *rt, size_t bytes, gemmc_devptr *out) {
  cuda_runtime *cu = as_cuda(rt);
  CUdeviceptr ptr = 0;
  CUresult result = cu->api.mem_alloc(&ptr, bytes);
  if (result != CUDA_SUCCESS) {
    char what[80];
    snprintf(what, sizeof what, "cuMemAlloc_v2(%zu bytes)", bytes);
    return cuda_failure(cu, result, what);
  }
  *out = (gemmc_devptr)ptr;
  return runtime_ok();
}

static gemmc_status cuda_mem_free(gemmc_runtime *rt, gemmc_devptr ptr) {
  cuda_runtime *cu = as_cuda(rt);
  CUDA_CALL(cu, cu->api.mem_free((CUdeviceptr)ptr), "cuMemFree_v2");
  return runtime_ok();
}

static gemmc_status cuda_copy_htod(gemmc_runtime *rt, gemmc_devptr dst, const void *src,
                                   size_t bytes) {
  cuda_runtime *cu = as_cuda(rt);
  CUDA_CALL(cu, cu->api.memcpy_htod((CUdeviceptr)dst, src, bytes), "cuMemcpyHtoD_v2");
  return runtime_ok();
}

static gemmc_status cuda_copy_dtoh(gemmc_runtime *rt, void *dst, gemmc_devptr src, size_t bytes) {
  cuda_runtime *cu = as_cuda(rt);
  CUDA_CALL(cu, cu->api.memcpy_dtoh(dst, (CUdeviceptr)src, bytes), "cuMemcpyDtoH_v2");
  return runtime_ok();
}

static gemmc_status cuda_copy_dtod(gemmc_runtime *rt, gemmc_devptr dst, gemmc_devptr src,
                                   size_t bytes) {
  cuda_runtime *cu = as_cuda(rt);
  CUDA_CALL(cu, cu->api.memcpy_dtod((CUdeviceptr)dst, (CUdeviceptr)src, bytes), "cuMemcpyDtoD_v2");
  return runtime_ok();
}

static gemmc_status cuda_memset_d8(gemmc_runtime *rt, gemmc_devptr dst, uint8_t value,
                                   size_t count) {
  cuda_runtime *cu = as_cuda(rt);
  CUDA_CALL(cu, cu->api.memset_d8((CUdeviceptr)dst, value, count), "cuMemsetD8_v2");
  return runtime_ok();
}

static gemmc_status cuda_memset_d32(gemmc_runtime *rt, gemmc_devptr dst, uint32_t value,
                                    size_t count) {
  cuda_runtime *cu = as_cuda(rt);
  CUDA_CALL(cu, cu->api.memset_d32((CUdeviceptr)dst, value, count), "cuMemsetD32_v2");
  return runtime_ok();
}

/* Non-blocking: work on it does not serialize with the legacy default stream. */
static gemmc_status cuda_stream_create(gemmc_runtime *rt, gemmc_runtime_stream **out) {
  cuda_runtime *cu = as_cuda(rt);
  CUstream stream = NULL;
  CUDA_CALL(cu, cu->api.stream_create(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  *out = (gemmc_runtime_stream *)stream;
  return runtime_ok();
}

static gemmc_status cuda_stream_destroy(gemmc_runtime *rt, gemmc_runtime_stream *stream) {
  cuda_runtime *cu = as_cuda(rt);
  CUDA_CALL(cu, cu->api.stream_destroy((CUstream)stream), "cuStreamDestroy_v2");
  return runtime_ok();
}

static gemmc_status cuda_stream_synchronize(gemmc_runtime *rt, gemmc_runtime_stream *stream) {
  cuda_runtime *cu = as_cuda(rt);
  CUDA_CALL(cu, cu->api.stream_synchronize((CUstream)stream), "cuStreamSynchronize");
  return runtime_ok();
}

static gemmc_status cuda_event_create(gemmc_runtime *rt, gemmc_runtime_event **out) {
  cuda_runtime *cu = as_cuda(rt);
  CUevent event = NULL;
  CUDA_CALL(cu, cu->api.event_create(&event, CU_EVENT_DEFAULT), "cuEventCreate");
  *out = (gemmc_runtime_event *)event;
  return runtime_ok();
}

static gemmc_status cuda_event_destroy(gemmc_runtime *rt, gemmc_runtime_event *event) {
  cuda_runtime *cu = as_cuda(rt);
  CUDA_CALL(cu, cu->api.event_destroy((CUevent)event), "cuEventDestroy_v2");
  return runtime_ok();
}

static gemmc_status cuda_event_record(gemmc_runtime *rt, gemmc_runtime_event *event,
                                      gemmc_runtime_stream *stream) {
  cuda_runtime *cu = as_cuda(rt);
  CUDA_CALL(cu, cu->api.event_record((CUevent)event, (CUstream)stream), "cuEventRecord");
  return runtime_ok();
}

static gemmc_status cuda_event_synchronize(gemmc_runtime *rt, gemmc_runtime_event *event) {
  cuda_runtime *cu = as_cuda(rt);
  CUDA_CALL(cu, cu->api.event_synchronize((CUevent)event), "cuEventSynchronize");
  return runtime_ok();
}

static gemmc_status cuda_event_elapsed_ms(gemmc_runtime *rt, gemmc_runtime_event *start,
                                          gemmc_runtime_event *end, float *ms) {
  cuda_runtime *cu = as_cuda(rt);
  CUDA_CALL(cu, cu->api.event_elapsed_time(ms, (CUevent)start, (CUevent)end),
            "cuEventElapsedTime");
  return runtime_ok();
}

static gemmc_status cuda_encode_tensor_map(gemmc_runtime *rt, const runtime_tensor_map *m, gemmc_tensor_map *out) {
  cuda_runtime *cu = as_cuda(rt);
  if (!cu->tensor_map_encode_tiled)
    return runtime_error(GEMMC_ERROR_UNSUPPORTED, 0, "gemmc_runtime_encode_tensor_map: the driver has no cuTensorMapEncodeTiled (CUDA 12+)");
  _Alignas(64) unsigned char map[GEMMC_TENSOR_MAP_BYTES];
  const uint32_t element_strides[5] = {1, 1, 1, 1, 1};
  /* Interleave none, L2 promotion 256 B (what Triton's launcher asks for), out-of-bounds reads zero. */
  CUresult result = cu->tensor_map_encode_tiled(map, m->data_type, (uint32_t)m->rank, (void *)(uintptr_t)m->base, m->dims,
                                                m->strides_bytes, m->box, element_strides, 0, m->swizzle, 3, 0);
  if (result != CUDA_SUCCESS) return cuda_failure(cu, result, "cuTensorMapEncodeTiled");
  memcpy(out->words, map, sizeof map);
  return runtime_ok();
}

static const gemmc_runtime_ops cuda_ops = {
    .encode_tensor_map = cuda_encode_tensor_map,
    .destroy = cuda_destroy,
    .make_current = cuda_make_current,
    .synchronize = cuda_synchronize,
    .module_load = cuda_module_load,
    .compile_ptx = cuda_compile_ptx,
    .module_unload = cuda_module_unload,
    .module_get_kernel = cuda_module_get_kernel,
    .kernel_get_info = cuda_kernel_get_info,
    .kernel_set_max_dynamic_shared = cuda_kernel_set_max_dynamic_shared,
    .launch = cuda_launch,
    .mem_alloc = cuda_mem_alloc,
    .mem_free = cuda_mem_free,
    .copy_htod = cuda_copy_htod,
    .copy_dtoh = cuda_copy_dtoh,
    .copy_dtod = cuda_copy_dtod,
    .memset_d8 = cuda_memset_d8,
    .memset_d32 = cuda_memset_d32,
    .stream_create = cuda_stream_create,
    .stream_destroy = cuda_stream_destroy,
    .stream_synchronize = cuda_stream_synchronize,
    .event_create = cuda_event_create,
    .event_destroy = cuda_event_destroy,
    .event_record = cuda_event_record,
    .event_synchronize = cuda_event_synchronize,
    .event_elapsed_ms = cuda_event_elapsed_ms,
};

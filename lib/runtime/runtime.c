/* The public runtime API: argument checks, then dispatch to the backend's operation table. */
#include "runtime_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

gemmc_status runtime_ok(void) {
  gemmc_status status;
  status.code = GEMMC_OK;
  status.driver_error = 0;
  status.message[0] = '\0'; /* the rest stays unwritten: this runs on every launch */
  return status;
}

gemmc_status runtime_error(gemmc_status_code code, int driver_error, const char *fmt, ...) {
  gemmc_status status;
  status.code = code;
  status.driver_error = driver_error;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(status.message, sizeof status.message, fmt, ap);
  va_end(ap);
  return status;
}

#define INVALID(...) runtime_error(GEMMC_ERROR_INVALID_ARGUMENT, 0, __VA_ARGS__)
#define REQUIRE_RUNTIME(rt, fn)                                                                    \
  do {                                                                                             \
    if (!(rt))                                                                                     \
      return INVALID("%s: no runtime", fn);                                                        \
  } while (0)

gemmc_status gemmc_runtime_create(gemmc_backend backend, int device, gemmc_runtime **out) {
  if (!out)
    return INVALID("gemmc_runtime_create: no output pointer");
  *out = NULL;
  if (device < 0)
    return INVALID("gemmc_runtime_create: device ordinal %d is negative", device);
  gemmc_status st;
  switch (backend) {
  case GEMMC_BACKEND_CUDA: st = runtime_cuda_create(device, out); break;
  case GEMMC_BACKEND_HIP: return runtime_hip_create(device, out);
  default: return INVALID("gemmc_runtime_create: unknown backend %d", (int)backend);
  }
  if (st.code == GEMMC_OK) {
    const char *programmatic = getenv("GEMMC_PROGRAMMATIC_LAUNCH");
    (*out)->programmatic_launch = programmatic && strcmp(programmatic, "1") == 0;
  }
  return st;
}

gemmc_status gemmc_runtime_set_programmatic_launch(gemmc_runtime *rt, bool on) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_set_programmatic_launch");
  if (on && rt->info.backend != GEMMC_BACKEND_CUDA)
    return runtime_error(GEMMC_ERROR_UNSUPPORTED, 0, "gemmc_runtime_set_programmatic_launch: CUDA only");
  rt->programmatic_launch = on;
  return runtime_ok();
}

void gemmc_runtime_destroy(gemmc_runtime *rt) {
  if (rt)
    rt->ops->destroy(rt);
}

const gemmc_device_info *gemmc_runtime_device_info(const gemmc_runtime *rt) {
  return rt ? &rt->info : NULL;
}

gemmc_status gemmc_runtime_make_current(gemmc_runtime *rt) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_make_current");
  return rt->ops->make_current(rt);
}

gemmc_status gemmc_runtime_synchronize(gemmc_runtime *rt) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_synchronize");
  return rt->ops->synchronize(rt);
}

gemmc_status gemmc_runtime_module_load(gemmc_runtime *rt, const void *image, size_t size,
                                       gemmc_runtime_module **out) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_module_load");
  if (!out)
    return INVALID("gemmc_runtime_module_load: no output pointer");
  *out = NULL;
  if (!image || size == 0)
    return INVALID("gemmc_runtime_module_load: empty image");
  return rt->ops->module_load(rt, image, size, out);
}

gemmc_status gemmc_runtime_compile_ptx(gemmc_runtime *rt, const char *ptx, size_t len, void **cubin_out,
                                       size_t *len_out) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_compile_ptx");
  if (!cubin_out || !len_out)
    return INVALID("gemmc_runtime_compile_ptx: no output pointer");
  *cubin_out = NULL;
  *len_out = 0;
  if (!ptx || !len)
    return INVALID("gemmc_runtime_compile_ptx: empty PTX");
  if (!rt->ops->compile_ptx)
    return runtime_error(GEMMC_ERROR_UNSUPPORTED, 0, "gemmc_runtime_compile_ptx: not available for this backend");
  return rt->ops->compile_ptx(rt, ptx, len, cubin_out, len_out);
}

gemmc_status gemmc_runtime_module_unload(gemmc_runtime *rt, gemmc_runtime_module *module) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_module_unload");
  if (!module)
    return INVALID("gemmc_runtime_module_unload: no module");
  return rt->ops->module_unload(rt, module);
}

gemmc_status gemmc_runtime_module_get_kernel(gemmc_runtime *rt, gemmc_runtime_module *module,
                                             const char *name, gemmc_runtime_kernel **out) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_module_get_kernel");
  if (!out)
    return INVALID("gemmc_runtime_module_get_kernel: no output pointer");
  *out = NULL;
  if (!module || !name)
    return INVALID("gemmc_runtime_module_get_kernel: no module or kernel name");
  return rt->ops->module_get_kernel(rt, module, name, out);
}

gemmc_status gemmc_runtime_kernel_get_info(gemmc_runtime *rt, gemmc_runtime_kernel *kernel,
                                           gemmc_kernel_info *out) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_kernel_get_info");
  if (!kernel || !out)
    return INVALID("gemmc_runtime_kernel_get_info: no kernel or output pointer");
  return rt->ops->kernel_get_info(rt, kernel, out);
}

gemmc_status gemmc_runtime_kernel_set_max_dynamic_shared(gemmc_runtime *rt,
                                                         gemmc_runtime_kernel *kernel, int bytes) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_kernel_set_max_dynamic_shared");
  if (!kernel || bytes < 0)
    return INVALID("gemmc_runtime_kernel_set_max_dynamic_shared: no kernel or negative size");
  return rt->ops->kernel_set_max_dynamic_shared(rt, kernel, bytes);
}

unsigned gemmc_launch_cluster_x(int cluster_size, unsigned grid_x) {
  return cluster_size > 1 && grid_x % (unsigned)cluster_size == 0 ? (unsigned)cluster_size : 0;
}

gemmc_status gemmc_runtime_launch(gemmc_runtime *rt, gemmc_runtime_kernel *kernel,
                                  const gemmc_launch_config *config, void **args) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_launch");
  if (!kernel || !config)
    return INVALID("gemmc_runtime_launch: no kernel or launch configuration");
  for (int i = 0; i < 3; i++)
    if (config->grid[i] == 0 || config->block[i] == 0)
      return INVALID("gemmc_runtime_launch: empty grid (%u,%u,%u) or block (%u,%u,%u)",
                     config->grid[0], config->grid[1], config->grid[2], config->block[0],
                     config->block[1], config->block[2]);
  return rt->ops->launch(rt, kernel, config, args);
}

gemmc_status gemmc_runtime_mem_alloc(gemmc_runtime *rt, size_t bytes, gemmc_devptr *out) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_mem_alloc");
  if (!out)
    return INVALID("gemmc_runtime_mem_alloc: no output pointer");
  *out = 0;
  if (bytes == 0)
    return INVALID("gemmc_runtime_mem_alloc: zero bytes");
  return rt->ops->mem_alloc(rt, bytes, out);
}

gemmc_status gemmc_runtime_mem_free(gemmc_runtime *rt, gemmc_devptr ptr) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_mem_free");
  if (!ptr)
    return runtime_ok(); /* like free(NULL) */
  return rt->ops->mem_free(rt, ptr);
}

gemmc_status gemmc_runtime_copy_htod(gemmc_runtime *rt, gemmc_devptr dst, const void *src,
                                     size_t bytes) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_copy_htod");
  if (bytes == 0)
    return runtime_ok();
  if (!dst || !src)
    return INVALID("gemmc_runtime_copy_htod: NULL pointer");
  return rt->ops->copy_htod(rt, dst, src, bytes);
}

gemmc_status gemmc_runtime_copy_dtoh(gemmc_runtime *rt, void *dst, gemmc_devptr src, size_t bytes) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_copy_dtoh");
  if (bytes == 0)
    return runtime_ok();
  if (!dst || !src)
    return INVALID("gemmc_runtime_copy_dtoh: NULL pointer");
  return rt->ops->copy_dtoh(rt, dst, src, bytes);
}

gemmc_status gemmc_runtime_copy_dtod(gemmc_runtime *rt, gemmc_devptr dst, gemmc_devptr src,
                                     size_t bytes) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_copy_dtod");
  if (bytes == 0)
    return runtime_ok();
  if (!dst || !src)
    return INVALID("gemmc_runtime_copy_dtod: NULL pointer");
  return rt->ops->copy_dtod(rt, dst, src, bytes);
}

gemmc_status gemmc_runtime_memset_d8(gemmc_runtime *rt, gemmc_devptr dst, uint8_t value,
                                     size_t count) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_memset_d8");
  if (count == 0)
    return runtime_ok();
  if (!dst)
    return INVALID("gemmc_runtime_memset_d8: NULL pointer");
  return rt->ops->memset_d8(rt, dst, value, count);
}

gemmc_status gemmc_runtime_memset_d32(gemmc_runtime *rt, gemmc_devptr dst, uint32_t value,
                                      size_t count) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_memset_d32");
  if (count == 0)
    return runtime_ok();
  if (!dst || dst % 4 != 0)
    return INVALID("gemmc_runtime_memset_d32: NULL or unaligned pointer");
  return rt->ops->memset_d32(rt, dst, value, count);
}

gemmc_status gemmc_runtime_stream_create(gemmc_runtime *rt, gemmc_runtime_stream **out) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_stream_create");
  if (!out)
    return INVALID("gemmc_runtime_stream_create: no output pointer");
  *out = NULL;
  return rt->ops->stream_create(rt, out);
}

gemmc_status gemmc_runtime_stream_destroy(gemmc_runtime *rt, gemmc_runtime_stream *stream) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_stream_destroy");
  if (!stream)
    return INVALID("gemmc_runtime_stream_destroy: the default stream cannot be destroyed");
  return rt->ops->stream_destroy(rt, stream);
}

gemmc_status gemmc_runtime_stream_synchronize(gemmc_runtime *rt, gemmc_runtime_stream *stream) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_stream_synchronize");
  return rt->ops->stream_synchronize(rt, stream);
}

gemmc_status gemmc_runtime_event_create(gemmc_runtime *rt, gemmc_runtime_event **out) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_event_create");
  if (!out)
    return INVALID("gemmc_runtime_event_create: no output pointer");
  *out = NULL;
  return rt->ops->event_create(rt, out);
}

gemmc_status gemmc_runtime_event_destroy(gemmc_runtime *rt, gemmc_runtime_event *event) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_event_destroy");
  if (!event)
    return INVALID("gemmc_runtime_event_destroy: no event");
  return rt->ops->event_destroy(rt, event);
}

gemmc_status gemmc_runtime_event_record(gemmc_runtime *rt, gemmc_runtime_event *event,
                                        gemmc_runtime_stream *stream) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_event_record");
  if (!event)
    return INVALID("gemmc_runtime_event_record: no event");
  return rt->ops->event_record(rt, event, stream);
}

gemmc_status gemmc_runtime_event_synchronize(gemmc_runtime *rt, gemmc_runtime_event *event) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_event_synchronize");
  if (!event)
    return INVALID("gemmc_runtime_event_synchronize: no event");
  return rt->ops->event_synchronize(rt, event);
}

gemmc_status gemmc_runtime_event_elapsed_ms(gemmc_runtime *rt, gemmc_runtime_event *start,
                                            gemmc_runtime_event *end, float *ms) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_event_elapsed_ms");
  if (!start || !end || !ms)
    return INVALID("gemmc_runtime_event_elapsed_ms: no event or output pointer");
  return rt->ops->event_elapsed_ms(rt, start, end, ms);
}

/* CUtensorMapDataType and bytes of an IR element type name. */
static bool tensor_map_type(const char *elem, int *data_type, int *bytes) {
  static const struct {
    const char *name;
    int data_type, bytes;
  } types[] = {
      {"f16", 6, 2},      {"bf16", 9, 2},       {"f32", 7, 4},     {"f64", 8, 8},    {"i8", 0, 1},
      {"i16", 1, 2},      {"i32", 3, 4},        {"i64", 5, 8},     {"f8E4M3FN", 0, 1}, {"f8E5M2", 0, 1},
      {"f8E4M3FNUZ", 0, 1}, {"f8E5M2FNUZ", 0, 1},
  };
  for (size_t i = 0; elem && i < sizeof types / sizeof types[0]; i++)
    if (!strcmp(elem, types[i].name)) {
      *data_type = types[i].data_type;
      *bytes = types[i].bytes;
      return true;
    }
  return false;
}

gemmc_status gemmc_runtime_encode_tensor_map(gemmc_runtime *rt, const gemmc_tensor_map_info *info, gemmc_devptr base,
                                             const int64_t *shape, const int64_t *strides, gemmc_tensor_map *out) {
  REQUIRE_RUNTIME(rt, "gemmc_runtime_encode_tensor_map");
  if (!info || !shape || !strides || !out) return INVALID("gemmc_runtime_encode_tensor_map: a NULL argument");
  memset(out, 0, sizeof *out);
  runtime_tensor_map m = {0};
  int bytes = 0, r = info->rank;
  if (r < 1 || r > 5) return INVALID("gemmc_runtime_encode_tensor_map: rank %d is not in 1..5", r);
  if (!tensor_map_type(info->elem, &m.data_type, &bytes))
    return INVALID("gemmc_runtime_encode_tensor_map: no TMA element type for '%s'", info->elem ? info->elem : "(null)");
  switch (info->swizzle_bytes) {
  case 0: m.swizzle = 0; break;
  case 32: m.swizzle = 1; break;
  case 64: m.swizzle = 2; break;
  case 128: m.swizzle = 3; break;
  default: return INVALID("gemmc_runtime_encode_tensor_map: swizzle of %d bytes", info->swizzle_bytes);
  }
  if (!base || base % 16) return INVALID("gemmc_runtime_encode_tensor_map: base 0x%llx is not 16-byte aligned", (unsigned long long)base);
  if (strides[r - 1] != 1) return INVALID("gemmc_runtime_encode_tensor_map: the innermost stride is %lld, not 1", (long long)strides[r - 1]);
  m.rank = r;
  m.base = base;
  for (int i = 0; i < r; i++) {
    int d = r - 1 - i; /* CUDA counts from the innermost dim */
    if (shape[d] < 1 || shape[d] > ((int64_t)1 << 32))
      return INVALID("gemmc_runtime_encode_tensor_map: dim %d has size %lld (1..2^32)", d, (long long)shape[d]);
    if (info->box[d] < 1 || info->box[d] > 256)
      return INVALID("gemmc_runtime_encode_tensor_map: box dim %d is %d (1..256)", d, info->box[d]);
    m.dims[i] = (uint64_t)shape[d];
    m.box[i] = (uint32_t)info->box[d];
    if (i > 0) {
      int64_t sb = strides[d] * bytes;
      if (strides[d] < 1 || sb % 16 || sb >= ((int64_t)1 << 40))
        return INVALID("gemmc_runtime_encode_tensor_map: stride %lld of dim %d is not a positive multiple of 16 bytes below 2^40",
                       (long long)strides[d], d);
      m.strides_bytes[i - 1] = (uint64_t)sb;
    }
  }
  if (info->swizzle_bytes && (int64_t)m.box[0] * bytes > info->swizzle_bytes)
    return INVALID("gemmc_runtime_encode_tensor_map: an inner box of %lld bytes exceeds the %d-byte swizzle",
                   (long long)m.box[0] * bytes, info->swizzle_bytes);
  if (!rt->ops->encode_tensor_map)
    return runtime_error(GEMMC_ERROR_UNSUPPORTED, 0, "gemmc_runtime_encode_tensor_map: this backend has no tensor maps");
  return rt->ops->encode_tensor_map(rt, &m, out);
}

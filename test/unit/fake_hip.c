/* A stand-in libamdhip64 for test_hip_shim: every entry point the HIP backend loads, with host memory as device memory, recording each launch. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_hip.h"

typedef int hipError_t;
enum {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorInvalidImage = 200,
  hipErrorNotFound = 500,
};

static fake_launch last_launch;
static int live_modules, live_allocations;

const fake_launch *fake_hip_last_launch(void) { return &last_launch; }
int fake_hip_live_modules(void) { return live_modules; }
int fake_hip_live_allocations(void) { return live_allocations; }

typedef struct fake_module {
  int magic;
} fake_module;
typedef struct fake_function {
  char name[64];
} fake_function;

hipError_t hipInit(unsigned flags) { return flags == 0 ? hipSuccess : hipErrorInvalidValue; }
hipError_t hipGetDeviceCount(int *count) {
  *count = 1;
  return hipSuccess;
}
hipError_t hipDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? hipSuccess : hipErrorInvalidValue;
}
hipError_t hipSetDevice(int ordinal) { return ordinal == 0 ? hipSuccess : hipErrorInvalidValue; }
hipError_t hipDeviceGetName(char *name, int len, int device) {
  (void)device;
  snprintf(name, (size_t)len, "AMD Instinct MI300X (fake)");
  return hipSuccess;
}
hipError_t hipDeviceComputeCapability(int *major, int *minor, int device) {
  (void)device;
  *major = 9;
  *minor = 4;
  return hipSuccess;
}
hipError_t hipDeviceGetAttribute(int *value, int attribute, int device) {
  (void)device;
  switch (attribute) {
  case 63: *value = 304; return hipSuccess;       /* MultiprocessorCount */
  case 74: *value = 65536; return hipSuccess;     /* MaxSharedMemoryPerBlock */
  case 87: *value = 64; return hipSuccess;        /* WarpSize */
  default: return hipErrorInvalidValue;
  }
}
hipError_t hipDeviceTotalMem(size_t *bytes, int device) {
  (void)device;
  *bytes = (size_t)192 << 30;
  return hipSuccess;
}
hipError_t hipDriverGetVersion(int *version) {
  *version = 60342134;
  return hipSuccess;
}
hipError_t hipDeviceSynchronize(void) { return hipSuccess; }
const char *hipGetErrorName(hipError_t e) {
  return e == hipErrorNotFound ? "hipErrorNotFound" : e == hipErrorInvalidImage ? "hipErrorInvalidImage" : "hipErrorOther";
}
const char *hipGetErrorString(hipError_t e) { return e == hipErrorNotFound ? "named symbol not found" : "fake error"; }

hipError_t hipModuleLoadData(void **module, const void *image) {
  if (memcmp(image, "\x7f" "ELF", 4) != 0) return hipErrorInvalidImage;
  fake_module *m = malloc(sizeof *m);
  m->magic = 0x4d4f44;
  *module = m;
  live_modules++;
  return hipSuccess;
}
hipError_t hipModuleUnload(void *module) {
  fake_module *m = module;
  if (!m || m->magic != 0x4d4f44) return hipErrorInvalidValue;
  m->magic = 0;
  free(m);
  live_modules--;
  return hipSuccess;
}
/* Only matmul_kernel and copy_through_lds exist; the functions leak like HIP's (owned by the module). */
hipError_t hipModuleGetFunction(void **function, void *module, const char *name) {
  (void)module;
  static fake_function functions[2] = {{"matmul_kernel"}, {"copy_through_lds"}};
  for (int i = 0; i < 2; i++)
    if (!strcmp(name, functions[i].name)) {
      *function = &functions[i];
      return hipSuccess;
    }
  return hipErrorNotFound;
}
hipError_t hipModuleLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                 unsigned bz, unsigned shared, void *stream, void **params, void **extra) {
  static int launches;
  fake_launch *l = &last_launch;
  memset(l, 0, sizeof *l);
  l->count = ++launches;
  snprintf(l->kernel, sizeof l->kernel, "%s", ((fake_function *)f)->name);
  l->grid[0] = gx, l->grid[1] = gy, l->grid[2] = gz;
  l->block[0] = bx, l->block[1] = by, l->block[2] = bz;
  l->shared_bytes = shared;
  l->stream = stream;
  l->had_params = params != NULL;
  l->extra_well_formed = extra && extra[0] == (void *)(uintptr_t)1 && extra[2] == (void *)(uintptr_t)2 &&
                         extra[4] == (void *)(uintptr_t)3;
  if (!l->extra_well_formed) return hipErrorInvalidValue;
  l->buffer_size = *(size_t *)extra[3];
  if (l->buffer_size > sizeof l->buffer) return hipErrorInvalidValue;
  memcpy(l->buffer, extra[1], l->buffer_size);
  return hipSuccess;
}
hipError_t hipMalloc(void **ptr, size_t bytes) {
  *ptr = malloc(bytes);
  live_allocations += *ptr != NULL;
  return *ptr ? hipSuccess : 2;
}
hipError_t hipFree(void *ptr) {
  free(ptr);
  live_allocations--;
  return hipSuccess;
}
hipError_t hipMemcpyHtoD(void *dst, void *src, size_t bytes) {
  memcpy(dst, src, bytes);
  return hipSuccess;
}
hipError_t hipMemcpyDtoH(void *dst, void *src, size_t bytes) {
  memcpy(dst, src, bytes);
  return hipSuccess;
}
hipError_t hipMemcpyDtoD(void *dst, void *src, size_t bytes) {
  memcpy(dst, src, bytes);
  return hipSuccess;
}
hipError_t hipMemsetD8(void *dst, unsigned char value, size_t count) {
  memset(dst, value, count);
  return hipSuccess;
}
hipError_t hipMemsetD32(void *dst, int value, size_t count) {
  for (size_t i = 0; i < count; i++) memcpy((char *)dst + 4 * i, &value, 4);
  return hipSuccess;
}
static int stream_token, event_token;
hipError_t hipStreamCreate(void **stream) {
  *stream = &stream_token;
  return hipSuccess;
}
hipError_t hipStreamDestroy(void *stream) { return stream == &stream_token ? hipSuccess : hipErrorInvalidValue; }
hipError_t hipStreamSynchronize(void *stream) { return !stream || stream == &stream_token ? hipSuccess : hipErrorInvalidValue; }
hipError_t hipEventCreate(void **event) {
  *event = &event_token;
  return hipSuccess;
}
hipError_t hipEventDestroy(void *event) { return event == &event_token ? hipSuccess : hipErrorInvalidValue; }
hipError_t hipEventRecord(void *event, void *stream) {
  (void)stream;
  return event == &event_token ? hipSuccess : hipErrorInvalidValue;
}
hipError_t hipEventSynchronize(void *event) { return event == &event_token ? hipSuccess : hipErrorInvalidValue; }
hipError_t hipEventElapsedTime(float *ms, void *start, void *end) {
  (void)start, (void)end;
  *ms = 1.5f;
  return hipSuccess;
}

/* A stand-in CUDA driver (built as fake-cuda/libcuda.so.1) for testing the host side of the runtime and gemmc_matmul without a GPU: memory is host memory, kernels are recorded, not run. */
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef struct fake_function {
  char name[128];
  struct fake_function *next;
} fake_function;
typedef struct fake_module {
  size_t image_bytes;
  char *image;              /* a copy, for cuModuleGetGlobal's lookups */
  int globals[8];           /* the storage of the i32 globals the image names, in lookup order */
  char global_names[8][64];
  fake_function *functions; /* freed with the module, as a driver's are */
} fake_module;
typedef struct fake_event {
  double time_ms;
} fake_event;
typedef struct fake_link {
  char *image;
  size_t size;
} fake_link;

/* What the test reads back (fake_cuda_stats). Plain counters: the tests that use this are
 * single-threaded in the driver (JIT threads only touch link states). */
typedef struct fake_stats {
  int modules_loaded, modules_unloaded, launches, links;
  char last_kernel[128];
  unsigned last_grid[3], last_block[3], last_shared;
  /* cuLaunchKernelEx: launches through it, and the last one's attributes */
  int launches_ex, last_programmatic;
  unsigned last_cluster_x;
} fake_stats;

static fake_stats stats;
static double clock_ms; /* fake time: each launch costs what its grid asks for */

fake_stats *fake_cuda_stats(void) { return &stats; }

CUresult cuInit(unsigned flags) { return flags ? 1 : 0; }
CUresult cuDriverGetVersion(int *v) { return *v = 13000, 0; }
CUresult cuDeviceGetCount(int *n) { return *n = 1, 0; }
CUresult cuDeviceGet(int *d, int ordinal) { return ordinal ? 101 : (*d = 0, 0); }
CUresult cuDeviceGetName(char *name, int len, int dev) {
  (void)dev;
  snprintf(name, (size_t)len, "Fake GPU");
  return 0;
}
CUresult cuDeviceGetAttribute(int *v, int attribute, int dev) {
  (void)dev;
  switch (attribute) {
  case 75: *v = 9; break;      /* compute capability major */
  case 76: *v = 0; break;      /* minor */
  case 16: *v = 132; break;    /* SMs */
  case 10: *v = 32; break;     /* warp size */
  case 97: *v = 232448; break; /* shared memory per block, opt-in */
  default: *v = 0;
  }
  return 0;
}
CUresult cuDeviceTotalMem_v2(size_t *bytes, int dev) { return (void)dev, *bytes = (size_t)80 << 30, 0; }
CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) { return (void)dev, *ctx = (void *)&stats, 0; }
CUresult cuDevicePrimaryCtxRelease_v2(int dev) { return (void)dev, 0; }
CUresult cuCtxSetCurrent(void *ctx) { return (void)ctx, 0; }
CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuGetErrorString(CUresult e, const char **s) { return (void)e, *s = "fake error", 0; }
CUresult cuGetErrorName(CUresult e, const char **s) { return (void)e, *s = "CUDA_ERROR_FAKE", 0; }

CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned n, int *options, void **values) {
  (void)n, (void)options, (void)values;
  fake_module *m = calloc(1, sizeof *m);
  if (!m || !image) return 2;
  m->image_bytes = strlen(image);
  m->image = strdup(image);
  if (!m->image) return free(m), 2;
  *module = m;
  stats.modules_loaded++;
  return 0;
}
CUresult cuModuleUnload(void *module) {
  fake_module *m = module;
  for (fake_function *f = m ? m->functions : NULL, *next; f; f = next) {
    next = f->next;
    free(f);
  }
  if (m) free(m->image);
  free(module);
  stats.modules_unloaded++;
  return 0;
}
CUresult cuModuleGetFunction(void **f, void *module, const char *name) {
  fake_module *m = module;
  fake_function *fn = calloc(1, sizeof *fn);
  if (!fn || !m) return 2;
  snprintf(fn->name, sizeof fn->name, "%s", name);
  fn->next = m->functions;
  m->functions = fn;
  *f = fn;
  return 0;
}
CUresult cuFuncGetAttribute(int *v, int attribute, void *f) {
  (void)f;
  *v = attribute == 4 ? 128 : attribute == 0 ? 1024 : 0;
  return 0;
}
CUresult cuFuncSetAttribute(void *f, int attribute, int value) { return (void)f, (void)attribute, value > 232448 ? 1 : 0; }
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *stream, void **params, void **extra) {
  (void)stream, (void)extra;
  if (!f || !params || !gx || !gy || !gz || !bx) return 1;
  stats.launches++;
  stats.last_programmatic = 0;
  stats.last_cluster_x = 0;
  snprintf(stats.last_kernel, sizeof stats.last_kernel, "%s", ((fake_function *)f)->name);
  stats.last_grid[0] = gx, stats.last_grid[1] = gy, stats.last_grid[2] = gz;
  stats.last_block[0] = bx, stats.last_block[1] = by, stats.last_block[2] = bz;
  stats.last_shared = shared;
  /* Fake time: a fixed cost per block and per launch, so that fewer, larger tiles "win". */
  clock_ms += 0.002 + 1e-6 * (double)gx * gy * gz * (double)bx;
  return 0;
}

/* A global the image names (a driver would find it in the module's symbols): 4 bytes of the
 * module's own storage; CUDA_ERROR_NOT_FOUND (500) otherwise. */
CUresult cuModuleGetGlobal_v2(uint64_t *ptr, size_t *bytes, void *module, const char *name) {
  fake_module *m = module;
  if (!m || !name || !strstr(m->image, name)) return 500;
  int slot = 0;
  while (slot < 8 && m->global_names[slot][0] && strcmp(m->global_names[slot], name)) slot++;
  if (slot == 8) return 2;
  snprintf(m->global_names[slot], sizeof m->global_names[slot], "%s", name);
  if (ptr) *ptr = (uint64_t)(uintptr_t)&m->globals[slot];
  if (bytes) *bytes = sizeof m->globals[slot];
  return 0;
}

/* cuLaunchKernelEx's configuration and attributes as cuda.h lays them out. */
typedef struct fake_launch_attribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    unsigned cluster_dim[3];
    int programmatic_stream_serialization_allowed;
  } value;
} fake_launch_attribute;
typedef struct fake_launch_config {
  unsigned grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes;
  void *stream;
  fake_launch_attribute *attrs;
  unsigned num_attrs;
} fake_launch_config;

CUresult cuLaunchKernelEx(const fake_launch_config *c, void *f, void **params, void **extra) {
  if (!c) return 1;
  int programmatic = 0;
  unsigned cluster_x = 0;
  for (unsigned i = 0; i < c->num_attrs; i++) {
    if (c->attrs[i].id == 4) cluster_x = c->attrs[i].value.cluster_dim[0];
    else if (c->attrs[i].id == 6) programmatic = c->attrs[i].value.programmatic_stream_serialization_allowed;
    else return 1; /* an attribute the runtime does not set */
  }
  CUresult r = cuLaunchKernel(f, c->grid_x, c->grid_y, c->grid_z, c->block_x, c->block_y, c->block_z, c->shared_bytes,
                              c->stream, params, extra);
  if (r) return r;
  stats.launches_ex++;
  stats.last_programmatic = programmatic;
  stats.last_cluster_x = cluster_x;
  return 0;
}

CUresult cuLinkCreate_v2(unsigned n, int *options, void **values, void **state) {
  (void)n, (void)options, (void)values;
  fake_link *l = calloc(1, sizeof *l);
  if (!l) return 2;
  *state = l;
  return 0;
}
CUresult cuLinkAddData_v2(void *state, int type, void *data, size_t size, const char *name, unsigned n, int *o, void **v) {
  (void)type, (void)name, (void)n, (void)o, (void)v;
  fake_link *l = state;
  l->image = malloc(size + 1);
  if (!l->image) return 2;
  memcpy(l->image, data, size);
  l->image[size] = 0;
  l->size = size;
  return 0;
}
CUresult cuLinkComplete(void *state, void **cubin, size_t *size) {
  fake_link *l = state;
  *cubin = l->image, *size = l->size; /* the "cubin" is the PTX text itself */
  __atomic_fetch_add(&stats.links, 1, __ATOMIC_RELAXED);
  return 0;
}
CUresult cuLinkDestroy(void *state) {
  fake_link *l = state;
  free(l->image);
  free(l);
  return 0;
}

CUresult cuMemAlloc_v2(uint64_t *ptr, size_t bytes) {
  void *p = calloc(1, bytes);
  if (!p) return 2;
  *ptr = (uint64_t)(uintptr_t)p;
  return 0;
}
CUresult cuMemFree_v2(uint64_t ptr) { return free((void *)(uintptr_t)ptr), 0; }
CUresult cuMemcpyHtoD_v2(uint64_t dst, const void *src, size_t n) { return memcpy((void *)(uintptr_t)dst, src, n), 0; }
CUresult cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t n) { return memcpy(dst, (const void *)(uintptr_t)src, n), 0; }
CUresult cuMemcpyDtoD_v2(uint64_t dst, uint64_t src, size_t n) {
  return memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n), 0;
}
CUresult cuMemsetD8_v2(uint64_t dst, unsigned char v, size_t n) { return memset((void *)(uintptr_t)dst, v, n), 0; }
CUresult cuMemsetD32_v2(uint64_t dst, unsigned v, size_t n) {
  for (size_t i = 0; i < n; i++) memcpy((char *)(uintptr_t)dst + 4 * i, &v, 4);
  return 0;
}
CUresult cuStreamCreate(void **s, unsigned flags) { return (void)flags, *s = calloc(1, 1), *s ? 0 : 2; }
CUresult cuStreamDestroy_v2(void *s) { return free(s), 0; }
CUresult cuStreamSynchronize(void *s) { return (void)s, 0; }
CUresult cuEventCreate(void **e, unsigned flags) { return (void)flags, *e = calloc(1, sizeof(fake_event)), *e ? 0 : 2; }
CUresult cuEventDestroy_v2(void *e) { return free(e), 0; }
CUresult cuEventRecord(void *e, void *s) { return (void)s, ((fake_event *)e)->time_ms = clock_ms, 0; }
CUresult cuEventSynchronize(void *e) { return (void)e, 0; }
CUresult cuEventElapsedTime_v2(float *ms, void *a, void *b) {
  *ms = (float)(((fake_event *)b)->time_ms - ((fake_event *)a)->time_ms);
  return 0;
}

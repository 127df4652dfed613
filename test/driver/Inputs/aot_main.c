/* A host program for gemmc --emit=c's vector add: links the generated .c alone (no libgemmc, no LLVM); runs it where there is a GPU. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include AOT_HEADER

typedef int (*alloc_fn)(unsigned long long *, size_t);
typedef int (*htod_fn)(unsigned long long, const void *, size_t);
typedef int (*dtoh_fn)(void *, unsigned long long, size_t);
typedef int (*sync_fn)(void);

int main(void) {
  int r = add_kernel_load();
  if (r == -1) {
    printf("no driver: %s\n", add_kernel_error());
    return 0;
  }
  if (r != 0) {
    printf("load failed: %s\n", add_kernel_error());
    return 1;
  }
  /* The kernel is loaded in device 0's primary context; the buffers go there too. */
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW);
  alloc_fn alloc = (alloc_fn)(size_t)dlsym(cuda, "cuMemAlloc_v2");
  htod_fn htod = (htod_fn)(size_t)dlsym(cuda, "cuMemcpyHtoD_v2");
  dtoh_fn dtoh = (dtoh_fn)(size_t)dlsym(cuda, "cuMemcpyDtoH_v2");
  sync_fn sync = (sync_fn)(size_t)dlsym(cuda, "cuCtxSynchronize");
  enum { N = 1000 };
  float x[N], y[N], out[N];
  for (int i = 0; i < N; i++) x[i] = (float)i, y[i] = 0.5f * (float)i, out[i] = -1;
  unsigned long long dx, dy, dout;
  if (alloc(&dx, sizeof x) || alloc(&dy, sizeof y) || alloc(&dout, sizeof out) || htod(dx, x, sizeof x) ||
      htod(dy, y, sizeof y)) {
    printf("driver calls failed\n");
    return 1;
  }
  unsigned grid[3];
  add_kernel_grid(N, grid);
  r = add_kernel_launch(NULL, grid[0], grid[1], grid[2], dx, dy, dout, N);
  if (r || sync() || dtoh(out, dout, sizeof out)) {
    printf("launch failed: %s\n", add_kernel_error());
    return 1;
  }
  int correct = 0;
  for (int i = 0; i < N; i++) correct += out[i] == 1.5f * (float)i;
  printf("ran: %d of %d correct\n", correct, N);
  return correct == N ? 0 : 1;
}

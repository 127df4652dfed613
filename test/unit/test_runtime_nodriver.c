/* Unit test of the runtime: a clean error without a driver, and a hand-written PTX kernel run end to end with one. */
#include "gemmc/runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                     \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

/* Stops the GPU part at the first failed call, printing the runtime's message. */
#define CHECK_OK(call)                                                                             \
  do {                                                                                             \
    gemmc_status s_ = (call);                                                                      \
    if (s_.code != GEMMC_OK) {                                                                     \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, s_.message);            \
      failures++;                                                                                  \
      return;                                                                                      \
    }                                                                                              \
  } while (0)

/* out[tid.x] = 42. PTX 7.0 for sm_80 so that any driver since CUDA 11 JITs it for any GPU
 * since Ampere. No NUL counted in the size passed: the runtime must add it. */
static const char store42_ptx[] =
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry store42(.param .u64 out)\n"
    "{\n"
    "  .reg .b32 %r<3>;\n"
    "  .reg .b64 %rd<5>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd3, %r1, 4;\n"
    "  add.s64 %rd4, %rd2, %rd3;\n"
    "  mov.u32 %r2, 42;\n"
    "  st.global.u32 [%rd4], %r2;\n"
    "  ret;\n"
    "}\n";

static void test_invalid_arguments(void) {
  gemmc_status s = gemmc_runtime_create(GEMMC_BACKEND_CUDA, 0, NULL);
  CHECK(s.code == GEMMC_ERROR_INVALID_ARGUMENT);
  gemmc_runtime *rt = (gemmc_runtime *)(uintptr_t)1; /* must be overwritten with NULL */
  s = gemmc_runtime_create(GEMMC_BACKEND_CUDA, -1, &rt);
  CHECK(s.code == GEMMC_ERROR_INVALID_ARGUMENT && rt == NULL);
  gemmc_devptr p = 1;
  s = gemmc_runtime_mem_alloc(NULL, 16, &p);
  CHECK(s.code == GEMMC_ERROR_INVALID_ARGUMENT && strstr(s.message, "no runtime"));
  CHECK(gemmc_runtime_device_info(NULL) == NULL);
  gemmc_runtime_destroy(NULL); /* ignored */
}

static void run_store42(gemmc_runtime *rt) {
  enum { N = 256 };
  const gemmc_device_info *info = gemmc_runtime_device_info(rt);
  printf("test_runtime: %s, compute capability %d.%d, %d SMs, driver %d, %zu MiB, target %s\n",
         info->name, info->compute_capability_major, info->compute_capability_minor,
         info->multiprocessor_count, info->driver_version, info->total_memory >> 20,
         info->target_name);
  CHECK(info->warp_size == 32 && info->multiprocessor_count > 0 && info->name[0]);

  gemmc_runtime_module *module = NULL;
  gemmc_runtime_kernel *kernel = NULL;
  CHECK_OK(gemmc_runtime_module_load(rt, store42_ptx, strlen(store42_ptx), &module));
  CHECK_OK(gemmc_runtime_module_get_kernel(rt, module, "store42", &kernel));
  gemmc_kernel_info kinfo;
  CHECK_OK(gemmc_runtime_kernel_get_info(rt, kernel, &kinfo));
  CHECK(kinfo.num_registers > 0 && kinfo.local_bytes == 0 && kinfo.max_threads_per_block >= N);
  CHECK_OK(gemmc_runtime_kernel_set_max_dynamic_shared(rt, kernel, 64 * 1024));

  gemmc_runtime_kernel *missing = NULL;
  gemmc_status s = gemmc_runtime_module_get_kernel(rt, module, "no_such_kernel", &missing);
  CHECK(s.code == GEMMC_ERROR_DRIVER && strstr(s.message, "no_such_kernel") && missing == NULL);

  gemmc_devptr out = 0, copy = 0;
  CHECK_OK(gemmc_runtime_mem_alloc(rt, N * sizeof(unsigned), &out));
  CHECK_OK(gemmc_runtime_mem_alloc(rt, N * sizeof(unsigned), &copy));
  CHECK_OK(gemmc_runtime_memset_d8(rt, out, 0xab, N * sizeof(unsigned))); /* poison */
  unsigned host[N];
  CHECK_OK(gemmc_runtime_copy_dtoh(rt, host, out, sizeof host));
  CHECK(host[0] == 0xababababu && host[N - 1] == 0xababababu);

  gemmc_runtime_stream *stream = NULL;
  gemmc_runtime_event *start = NULL, *end = NULL;
  CHECK_OK(gemmc_runtime_stream_create(rt, &stream));
  CHECK_OK(gemmc_runtime_event_create(rt, &start));
  CHECK_OK(gemmc_runtime_event_create(rt, &end));
  void *args[] = {&out};
  gemmc_launch_config config = {{1, 1, 1}, {N, 1, 1}, 0, stream, 0};
  CHECK_OK(gemmc_runtime_event_record(rt, start, stream));
  CHECK_OK(gemmc_runtime_launch(rt, kernel, &config, args));
  CHECK_OK(gemmc_runtime_event_record(rt, end, stream));
  CHECK_OK(gemmc_runtime_event_synchronize(rt, end));
  CHECK_OK(gemmc_runtime_stream_synchronize(rt, stream));
  float ms = -1;
  CHECK_OK(gemmc_runtime_event_elapsed_ms(rt, start, end, &ms));
  CHECK(ms >= 0);

  CHECK_OK(gemmc_runtime_copy_dtod(rt, copy, out, sizeof host));
  memset(host, 0, sizeof host);
  CHECK_OK(gemmc_runtime_copy_dtoh(rt, host, copy, sizeof host));
  int wrong = 0;
  for (int i = 0; i < N; i++)
    wrong += host[i] != 42;
  CHECK(wrong == 0);

  /* Host to device and memset_d32 round trip. */
  for (int i = 0; i < N; i++)
    host[i] = (unsigned)i * 2654435761u;
  CHECK_OK(gemmc_runtime_copy_htod(rt, out, host, sizeof host));
  unsigned back[N];
  CHECK_OK(gemmc_runtime_copy_dtoh(rt, back, out, sizeof back));
  CHECK(memcmp(host, back, sizeof host) == 0);
  CHECK_OK(gemmc_runtime_memset_d32(rt, out, 0x12345678u, N));
  CHECK_OK(gemmc_runtime_copy_dtoh(rt, back, out, sizeof back));
  CHECK(back[0] == 0x12345678u && back[N - 1] == 0x12345678u);

  /* An empty grid is refused before the driver sees it. */
  gemmc_launch_config empty = {{0, 1, 1}, {N, 1, 1}, 0, NULL, 0};
  s = gemmc_runtime_launch(rt, kernel, &empty, args);
  CHECK(s.code == GEMMC_ERROR_INVALID_ARGUMENT);

  /* Broken PTX: the message carries the JIT's own error log. */
  gemmc_runtime_module *broken = NULL;
  static const char bad_ptx[] = ".version 7.0\n.target sm_80\n.address_size 64\n"
                                ".visible .entry bad() { frobnicate.u32 %r1; ret; }\n";
  s = gemmc_runtime_module_load(rt, bad_ptx, sizeof bad_ptx - 1, &broken);
  CHECK(s.code == GEMMC_ERROR_DRIVER && broken == NULL);
  CHECK(strstr(s.message, "cuModuleLoadDataEx") && strstr(s.message, "ptxas"));
  printf("test_runtime: broken PTX reports: %s\n", s.message);

  CHECK_OK(gemmc_runtime_event_destroy(rt, start));
  CHECK_OK(gemmc_runtime_event_destroy(rt, end));
  CHECK_OK(gemmc_runtime_stream_destroy(rt, stream));
  CHECK_OK(gemmc_runtime_mem_free(rt, out));
  CHECK_OK(gemmc_runtime_mem_free(rt, copy));
  CHECK_OK(gemmc_runtime_module_unload(rt, module));
  CHECK_OK(gemmc_runtime_synchronize(rt));
  printf("test_runtime: store42 ran (%.3f ms)\n", ms);
}

static void test_cuda(void) {
  gemmc_runtime *rt = NULL;
  gemmc_status s = gemmc_runtime_create(GEMMC_BACKEND_CUDA, 0, &rt);
  if (s.code == GEMMC_ERROR_NO_DRIVER) {
    CHECK(rt == NULL);
    /* The exact message when the library is absent; a stub library or no device say so too. */
    CHECK(strcmp(s.message, "no CUDA driver (libcuda.so.1 not found)") == 0 ||
          strstr(s.message, "stub library") || strstr(s.message, "no CUDA device"));
    printf("test_runtime: no driver, as expected here: %s\n", s.message);
    return;
  }
  CHECK(s.code == GEMMC_OK && rt != NULL);
  if (s.code != GEMMC_OK) {
    fprintf(stderr, "gemmc_runtime_create: %s\n", s.message);
    return;
  }
  gemmc_runtime *bad = NULL;
  s = gemmc_runtime_create(GEMMC_BACKEND_CUDA, 1000, &bad);
  CHECK(s.code == GEMMC_ERROR_INVALID_ARGUMENT && bad == NULL && strstr(s.message, "1000"));
  run_store42(rt);
  gemmc_runtime_destroy(rt);
}

static void test_hip(void) {
  gemmc_runtime *rt = NULL;
  gemmc_status s = gemmc_runtime_create(GEMMC_BACKEND_HIP, 0, &rt);
  if (s.code == GEMMC_OK) {
    printf("test_runtime: HIP device %s (skeleton backend, not exercised)\n",
           gemmc_runtime_device_info(rt)->name);
    gemmc_runtime_destroy(rt);
    return;
  }
  CHECK(rt == NULL && s.code == GEMMC_ERROR_NO_DRIVER);
  printf("test_runtime: %s\n", s.message);
}

int main(void) {
  test_invalid_arguments();
  test_cuda();
  test_hip();
  if (failures) {
    fprintf(stderr, "test_runtime_nodriver: %d check(s) failed\n", failures);
    return 1;
  }
  printf("test_runtime_nodriver: ok\n");
  return 0;
}

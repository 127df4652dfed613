/* Unit test of the HIP backend against a stand-in libamdhip64 (fake_hip.c): loading, code object checks, kernel lookup, kernarg buffers laid out by the note, memory, streams, events, and the one-line error without a runtime. */
#include "gemmc/runtime.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "amdgpu_test_kernel.h"
#include "check.h"
#include "fake_hip.h"

#define CHECK_OK(call)                                                                             \
  do {                                                                                             \
    gemmc_status s_ = (call);                                                                      \
    CHECK(s_.code == GEMMC_OK, "%s: %s", #call, s_.message);                                       \
  } while (0)

typedef const fake_launch *(*last_launch_fn)(void);
typedef int (*count_fn)(void);

/* libfake_amdhip64.so is built beside this program. */
static bool fake_library_path(char *out, size_t n) {
  char self[1024];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) return false;
  self[len] = 0;
  char *slash = strrchr(self, '/');
  if (!slash) return false;
  *slash = 0;
  snprintf(out, n, "%s/libfake_amdhip64.so", self);
  return access(out, R_OK) == 0;
}

static void test_no_runtime(void) {
  setenv("GEMMC_HIP_LIBRARY", "/nonexistent/libamdhip64.so", 1);
  gemmc_runtime *rt = (gemmc_runtime *)(uintptr_t)1;
  gemmc_status s = gemmc_runtime_create(GEMMC_BACKEND_HIP, 0, &rt);
  CHECK(s.code == GEMMC_ERROR_NO_DRIVER && rt == NULL, "code %d", (int)s.code);
  CHECK(!strncmp(s.message, "no HIP runtime (GEMMC_HIP_LIBRARY=/nonexistent/libamdhip64.so cannot be loaded", 77) &&
            !strchr(s.message, '\n'),
        "one line: %s", s.message);
  unsetenv("GEMMC_HIP_LIBRARY");
}

/* Launches `name` of the code object with args and checks the buffer the fake received against
 * gemmc_amdgpu_pack_kernargs on the same note. */
static void check_launch(gemmc_runtime *rt, const void *image, size_t len, const char *name, void **args, int num_args,
                         void *handle) {
  last_launch_fn last = (last_launch_fn)(uintptr_t)dlsym(handle, "fake_hip_last_launch");
  count_fn live_modules = (count_fn)(uintptr_t)dlsym(handle, "fake_hip_live_modules");
  CHECK(last && live_modules, "the fake's recorder");
  if (!last || !live_modules) return;
  gemmc_runtime_module *module = NULL;
  gemmc_runtime_kernel *kernel = NULL;
  CHECK_OK(gemmc_runtime_module_load(rt, image, len, &module));
  if (!module) return;
  CHECK(live_modules() == 1, "one module loaded");
  gemmc_status s = gemmc_runtime_module_get_kernel(rt, module, "no_such_kernel", &kernel);
  CHECK(s.code == GEMMC_ERROR_INVALID_ARGUMENT && strstr(s.message, "no kernel \"no_such_kernel\""), "%s", s.message);
  CHECK_OK(gemmc_runtime_module_get_kernel(rt, module, name, &kernel));
  if (kernel) {
    gemmc_amdgpu_code_object *co = NULL;
    char err[256];
    CHECK(gemmc_amdgpu_read_code_object(image, len, &co, err, sizeof err), "%s", err);
    const gemmc_amdgpu_kernel_info *k = gemmc_amdgpu_code_object_kernel(co, name);
    gemmc_kernel_info info;
    CHECK_OK(gemmc_runtime_kernel_get_info(rt, kernel, &info));
    CHECK(k && info.num_registers == k->vgpr_count && info.local_bytes == k->private_segment_fixed_size &&
              info.static_shared_bytes == k->group_segment_fixed_size &&
              info.max_threads_per_block == k->max_flat_workgroup_size,
          "kernel info from the note: %d VGPRs, %d scratch, %d LDS, %d threads", info.num_registers, info.local_bytes,
          info.static_shared_bytes, info.max_threads_per_block);
    CHECK_OK(gemmc_runtime_kernel_set_max_dynamic_shared(rt, kernel, 32768));
    s = gemmc_runtime_kernel_set_max_dynamic_shared(rt, kernel, 65536);
    CHECK(k && (k->group_segment_fixed_size == 0 || s.code == GEMMC_ERROR_INVALID_ARGUMENT), "LDS limit: %s",
          s.message);

    gemmc_runtime_stream *stream = NULL;
    CHECK_OK(gemmc_runtime_stream_create(rt, &stream));
    gemmc_launch_config config = {{7, 2, 1}, {256, 1, 1}, 32768, stream, 0};
    CHECK_OK(gemmc_runtime_launch(rt, kernel, &config, args));
    const fake_launch *l = last();
    unsigned char want[4096];
    size_t want_len = 0;
    CHECK(k && gemmc_amdgpu_pack_kernargs(k, args, num_args, want, sizeof want, &want_len, err, sizeof err), "%s",
          err);
    CHECK(l->count >= 1 && !strcmp(l->kernel, name), "launched %s", l->kernel);
    CHECK(l->extra_well_formed && !l->had_params, "arguments through extra only");
    CHECK(l->buffer_size == want_len && memcmp(l->buffer, want, want_len) == 0, "kernarg buffer (%zu bytes, want %zu)",
          l->buffer_size, want_len);
    CHECK(l->grid[0] == 7 && l->grid[1] == 2 && l->grid[2] == 1 && l->block[0] == 256 && l->block[1] == 1 &&
              l->shared_bytes == 32768 && l->stream == (void *)stream,
          "launch geometry");
    gemmc_launch_config clustered = config;
    clustered.cluster_x = 2;
    int launches = l->count;
    s = gemmc_runtime_launch(rt, kernel, &clustered, args);
    CHECK(s.code == GEMMC_ERROR_UNSUPPORTED && last()->count == launches, "a cluster launch on HIP: %s", s.message);
    CHECK_OK(gemmc_runtime_stream_synchronize(rt, stream));
    CHECK_OK(gemmc_runtime_stream_destroy(rt, stream));
    gemmc_amdgpu_code_object_free(co);
  }
  CHECK_OK(gemmc_runtime_module_unload(rt, module));
  CHECK(live_modules() == 0, "module unloaded");
}

static void test_fake_runtime(void) {
  char path[2048];
  if (!fake_library_path(path, sizeof path)) {
    CHECK(false, "libfake_amdhip64.so is not beside the test program");
    return;
  }
  setenv("GEMMC_HIP_LIBRARY", path, 1);
  gemmc_runtime *rt = NULL;
  gemmc_status s = gemmc_runtime_create(GEMMC_BACKEND_HIP, 0, &rt);
  CHECK(s.code == GEMMC_OK, "create with the fake: %s", s.message);
  if (!rt) return;
  void *handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  CHECK(handle != NULL, "the fake is loaded");
  const gemmc_device_info *info = gemmc_runtime_device_info(rt);
  CHECK(info->backend == GEMMC_BACKEND_HIP && !strcmp(info->target_name, "gfx942") && info->warp_size == 64 &&
            info->multiprocessor_count == 304 && info->max_shared_mem_per_block_optin == 65536 &&
            strstr(info->name, "MI300X"),
        "device info: %s %s warp %d, %d CUs, %d LDS", info->name, info->target_name, info->warp_size,
        info->multiprocessor_count, info->max_shared_mem_per_block_optin);
  /* Programmatic dependent launch is CUDA's: off is accepted, on is not. */
  CHECK(gemmc_runtime_set_programmatic_launch(rt, false).code == GEMMC_OK &&
            gemmc_runtime_set_programmatic_launch(rt, true).code == GEMMC_ERROR_UNSUPPORTED,
        "programmatic launch on HIP");
  gemmc_runtime *other = NULL;
  s = gemmc_runtime_create(GEMMC_BACKEND_HIP, 3, &other);
  CHECK(s.code == GEMMC_ERROR_INVALID_ARGUMENT && strstr(s.message, "HIP device 3 does not exist (1 device)"), "%s",
        s.message);

  /* PTX is not a code object: refused before HIP sees it. */
  static const char ptx[] = ".version 8.5\n.target sm_90a\n";
  gemmc_runtime_module *module = NULL;
  s = gemmc_runtime_module_load(rt, ptx, sizeof ptx, &module);
  CHECK(s.code == GEMMC_ERROR_INVALID_ARGUMENT && strstr(s.message, "not a usable AMDGPU code object: not an ELF file"),
        "%s", s.message);

  /* Memory, copies, sets and events through the fake (host memory stands in for the device's). */
  gemmc_devptr d = 0;
  CHECK_OK(gemmc_runtime_mem_alloc(rt, 64, &d));
  uint32_t in[16], out[16];
  for (int i = 0; i < 16; i++) in[i] = (uint32_t)i * 3u;
  CHECK_OK(gemmc_runtime_copy_htod(rt, d, in, sizeof in));
  CHECK_OK(gemmc_runtime_copy_dtoh(rt, out, d, sizeof out));
  CHECK(!memcmp(in, out, sizeof in), "round trip");
  CHECK_OK(gemmc_runtime_memset_d32(rt, d, 0xdeadbeefu, 16));
  CHECK_OK(gemmc_runtime_copy_dtoh(rt, out, d, sizeof out));
  CHECK(out[15] == 0xdeadbeefu, "memset");
  CHECK_OK(gemmc_runtime_mem_free(rt, d));
  gemmc_runtime_event *e0 = NULL, *e1 = NULL;
  float ms = 0;
  CHECK_OK(gemmc_runtime_event_create(rt, &e0));
  CHECK_OK(gemmc_runtime_event_create(rt, &e1));
  CHECK_OK(gemmc_runtime_event_record(rt, e0, NULL));
  CHECK_OK(gemmc_runtime_event_record(rt, e1, NULL));
  CHECK_OK(gemmc_runtime_event_synchronize(rt, e1));
  CHECK_OK(gemmc_runtime_event_elapsed_ms(rt, e0, e1, &ms));
  CHECK(ms == 1.5f, "elapsed %g", ms);
  CHECK_OK(gemmc_runtime_event_destroy(rt, e0));
  CHECK_OK(gemmc_runtime_event_destroy(rt, e1));
  CHECK_OK(gemmc_runtime_synchronize(rt));

  /* Our own kernel: (global float *out, int n). */
  char err[4096] = "";
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = build_lds_kernel(ctx);
  size_t len = 0;
  void *hsaco = link_test_kernel(m, &len, err, sizeof err);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  if (hsaco) {
    uint64_t out_ptr = 0x7f00deadbe00ull;
    int32_t n = 1000;
    void *args[] = {&out_ptr, &n};
    check_launch(rt, hsaco, len, "copy_through_lds", args, 2, handle);
  } else {
    printf("test_hip_shim: skip our kernel (%s)\n", err);
  }
  free(hsaco);

  /* Triton's matmul: 11 arguments, two of them Triton's scratch pointers. */
  char triton[4096];
  triton_hsaco_path(triton, sizeof triton);
  void *image = read_whole_file(triton, &len);
  if (image) {
    uint64_t a = 0x1000, b = 0x2000, c = 0x3000, scratch = 0;
    int32_t ints[6] = {512, 256, 128, 128, 256, 256};
    void *args[] = {&a, &b, &c, &ints[0], &ints[1], &ints[2], &ints[3], &ints[4], &ints[5], &scratch, &scratch};
    check_launch(rt, image, len, "matmul_kernel", args, 11, handle);
    free(image);
  } else {
    printf("test_hip_shim: skip Triton's code object (%s not found)\n", triton);
  }
  if (handle) dlclose(handle);
  gemmc_runtime_destroy(rt);
  unsetenv("GEMMC_HIP_LIBRARY");
}

int main(void) {
  test_no_runtime();
  test_fake_runtime();
  if (failures) {
    printf("test_hip_shim: %d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("test_hip_shim: ok (%d checks)\n", checks);
  return 0;
}

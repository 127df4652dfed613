/* Loading a gemmc_kernel_image into the driver: the cubin when there is one, else the driver's JIT of the PTX, kept in the cache for the next process. */
#include "kernel_image.h"
#include "runtime_internal.h"

#include <stdlib.h>
#include <string.h>

gemmc_status gemmc_cache_jit(gemmc_runtime *rt, gemmc_cache *cache, gemmc_kernel_image *img) {
  if (!rt || !img || !img->ok) return runtime_error(GEMMC_ERROR_INVALID_ARGUMENT, 0, "gemmc_cache_jit: no runtime or kernel");
  if (img->cubin) return runtime_ok();
  void *cubin = NULL;
  size_t len = 0;
  gemmc_status st = gemmc_runtime_compile_ptx(rt, img->ptx, img->ptx_len, &cubin, &len);
  if (st.code != GEMMC_OK) return st;
  bool kept = gemmc_cache_add_cubin(cache, img, cubin, len);
  free(cubin);
  return kept ? runtime_ok() : runtime_error(GEMMC_ERROR_OUT_OF_HOST_MEMORY, 0, "out of memory keeping the cubin");
}

static gemmc_status load_and_find(gemmc_runtime *rt, const void *image, size_t len, const gemmc_kernel_metadata *md,
                                  gemmc_runtime_module **module, gemmc_runtime_kernel **kernel) {
  gemmc_status st = gemmc_runtime_module_load(rt, image, len, module);
  if (st.code != GEMMC_OK) return st;
  st = gemmc_runtime_module_get_kernel(rt, *module, md->name, kernel);
  if (st.code == GEMMC_OK && md->dynamic_shared_bytes > 48 * 1024)
    st = gemmc_runtime_kernel_set_max_dynamic_shared(rt, *kernel, (int)md->dynamic_shared_bytes);
  if (st.code != GEMMC_OK) {
    gemmc_runtime_module_unload(rt, *module);
    *module = NULL;
    *kernel = NULL;
  }
  return st;
}

gemmc_status gemmc_cache_load(gemmc_runtime *rt, gemmc_cache *cache, gemmc_kernel_image *img,
                              gemmc_runtime_module **module, gemmc_runtime_kernel **kernel) {
  if (!module || !kernel) return runtime_error(GEMMC_ERROR_INVALID_ARGUMENT, 0, "gemmc_cache_load: no output pointer");
  *module = NULL;
  *kernel = NULL;
  if (!rt || !img || !img->ok) return runtime_error(GEMMC_ERROR_INVALID_ARGUMENT, 0, "gemmc_cache_load: no runtime or kernel");
  const gemmc_kernel_metadata *md = &img->md;
  if (img->cubin) {
    gemmc_status st = load_and_find(rt, img->cubin, img->cubin_len, md, module, kernel);
    if (st.code == GEMMC_OK || st.code != GEMMC_ERROR_DRIVER) return st;
    /* A cubin for another GPU: JIT the PTX again and keep that one instead. */
    free(img->cubin);
    img->cubin = NULL;
    img->cubin_len = 0;
  }
  gemmc_status st = gemmc_cache_jit(rt, cache, img);
  if (st.code == GEMMC_OK) return load_and_find(rt, img->cubin, img->cubin_len, md, module, kernel);
  if (st.code != GEMMC_ERROR_UNSUPPORTED) return st;
  return load_and_find(rt, img->ptx, img->ptx_len, md, module, kernel); /* a backend without a JIT API */
}

/* Packing a launch's arguments into an AMDGPU kernarg buffer laid out as the code object's metadata note says. */
#include "gemmc/amdgpu.h"

#include "target.h"

#include <string.h>

size_t gemmc_amdgpu_explicit_kernarg_bytes(const gemmc_amdgpu_kernel_info *k) {
  size_t end = 0;
  for (int i = 0; k && i < k->num_kernargs; i++) {
    const gemmc_kernarg *a = &k->kernargs[i];
    size_t arg_end = (size_t)a->offset + (size_t)a->size;
    if (!a->hidden && arg_end > end)
      end = arg_end;
  }
  return end;
}

bool gemmc_amdgpu_pack_kernargs(const gemmc_amdgpu_kernel_info *k, void *const *args, int num_args, void *buf,
                                size_t buf_size, size_t *used, char *err, size_t errlen) {
  if (used)
    *used = 0;
  if (!k)
    return target_fail(err, errlen, "no kernel metadata to lay the arguments out by");
  if (num_args != k->num_explicit_kernargs)
    return target_fail(err, errlen, "kernel %s takes %d arguments, the launch gives %d", k->name,
                       k->num_explicit_kernargs, num_args);
  size_t bytes = gemmc_amdgpu_explicit_kernarg_bytes(k);
  if (bytes > buf_size || (bytes && !buf))
    return target_fail(err, errlen, "kernel %s needs %zu bytes of arguments, the buffer has %zu", k->name, bytes,
                       buf_size);
  if (bytes)
    memset(buf, 0, bytes);
  int explicit_index = 0;
  for (int i = 0; i < k->num_kernargs; i++) {
    const gemmc_kernarg *a = &k->kernargs[i];
    if (a->hidden)
      continue;
    const void *value = args ? args[explicit_index] : NULL;
    if (!value && a->size > 0)
      return target_fail(err, errlen, "kernel %s: argument %d (%s) has no value", k->name, explicit_index,
                         a->value_kind);
    if (a->size > 0)
      memcpy((char *)buf + a->offset, value, (size_t)a->size);
    explicit_index++;
  }
  if (used)
    *used = bytes;
  return true;
}

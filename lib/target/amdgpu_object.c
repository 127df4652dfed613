/* AMDGPU code objects: a relocatable ELF object from the LLVM C API, linked by ld.lld (LLVM 19) into a loadable .hsaco. */
#include "gemmc/amdgpu.h"

#include "target.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

enum {
  ELF_TYPE_REL = 1,
  ELF_TYPE_DYN = 3,
  ELF_MACHINE_AMDGPU = 224,
  ELF_OSABI_AMDGPU_HSA = 64,
  ELF_ABI_VERSION_COV5 = 3, /* ELFABIVERSION_AMDGPU_HSA_V5 */
};

/* The largest code object read back from ld.lld: far above any kernel gemmc makes. */
#define MAX_CODE_OBJECT_BYTES (256u << 20)

#define LLD_FALLBACK "/usr/lib/llvm-19/bin/ld.lld"
/* ROCm's own linker (a newer LLVM, which reads LLVM 19's objects): what a GPU machine with ROCm
 * but without Debian's lld-19 has, and what Triton links with. */
#define LLD_ROCM "/opt/rocm/llvm/bin/ld.lld"

/* Checks that data is an AMDGPU HSA ELF of code object version 5 and the given ELF type. */
static bool check_elf(const void *data, size_t len, unsigned elf_type, const char *what, char *err, size_t errlen) {
  const unsigned char *e = data;
  if (len < 64 || memcmp(e, "\x7f" "ELF", 4) != 0 || e[4] != 2 || e[5] != 1)
    return target_fail(err, errlen, "%s is not a little-endian ELF64 file", what);
  unsigned type = e[0x10] | (unsigned)e[0x11] << 8, machine = e[0x12] | (unsigned)e[0x13] << 8;
  if (machine != ELF_MACHINE_AMDGPU || e[7] != ELF_OSABI_AMDGPU_HSA)
    return target_fail(err, errlen, "%s is not an AMDGPU HSA object (machine %u, OS/ABI %u)", what, machine, e[7]);
  if (e[8] != ELF_ABI_VERSION_COV5)
    return target_fail(err, errlen, "%s is code object version %d, not 5", what, e[8] + 2);
  if (type != elf_type)
    return target_fail(err, errlen, "%s has ELF type %u, expected %u", what, type, elf_type);
  return true;
}

static bool codegen_object(const gemmc_target *t, LLVMModuleRef m, int opt_level, bool optimize, void **obj_out,
                           size_t *len_out, char *err, size_t errlen) {
  LLVMTargetMachineRef tm = NULL;
  if (!target_create_machine(t, opt_level, &tm, err, errlen))
    return false;
  bool ok = true;
  if (optimize) {
    ok = target_optimize_with_machine(t, tm, m, opt_level, err, errlen);
  } else {
    LLVMSetTarget(m, t->triple);
    LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(m, layout);
    LLVMDisposeTargetData(layout);
  }
  LLVMMemoryBufferRef buffer = NULL;
  char *message = NULL;
  /* Guarded: an LLVM fatal error becomes this call's error instead of ending the process. */
  if (ok && !target_emit_guarded(tm, m, LLVMObjectFile, &message, &buffer, err, errlen)) {
    if (message) target_fail(err, errlen, "LLVM object emission for %s failed: %s", t->name, message);
    LLVMDisposeMessage(message);
    ok = false;
  }
  LLVMDisposeTargetMachine(tm);
  if (!ok)
    return false;
  size_t size = LLVMGetBufferSize(buffer);
  void *bytes = malloc(size ? size : 1);
  if (!bytes) {
    LLVMDisposeMemoryBuffer(buffer);
    return target_fail(err, errlen, "out of memory (%zu bytes of object)", size);
  }
  memcpy(bytes, LLVMGetBufferStart(buffer), size);
  LLVMDisposeMemoryBuffer(buffer);
  if (!check_elf(bytes, size, ELF_TYPE_REL, "LLVM's object", err, errlen)) {
    free(bytes);
    return false;
  }
  *obj_out = bytes;
  *len_out = size;
  return true;
}

static bool emit_object_common(const gemmc_target *t, LLVMModuleRef m, int opt_level, bool clone, void **obj_out,
                               size_t *len_out, char *err, size_t errlen) {
  if (!obj_out || !len_out)
    return target_fail(err, errlen, "no output pointer for the object");
  *obj_out = NULL;
  *len_out = 0;
  if (!t || t->arch != GEMMC_ARCH_AMDGPU)
    return target_fail(err, errlen, "target %s is not an AMD target", t ? t->name : "(null)");
  if (!m)
    return target_fail(err, errlen, "no LLVM module");
  /* Code generation mutates the module: the clone keeps the caller's usable. */
  LLVMModuleRef target_module = clone ? LLVMCloneModule(m) : m;
  bool ok = target_amdgpu_set_code_object_version(target_module, err, errlen) &&
            codegen_object(t, target_module, opt_level, clone, obj_out, len_out, err, errlen);
  if (clone)
    LLVMDisposeModule(target_module);
  return ok;
}

bool gemmc_target_emit_amdgpu_object(const gemmc_target *t, LLVMModuleRef m, int opt_level, void **obj_out,
                                     size_t *len_out, char *err, size_t errlen) {
  return emit_object_common(t, m, opt_level, true, obj_out, len_out, err, errlen);
}

bool gemmc_target_codegen_amdgpu_object(const gemmc_target *t, LLVMModuleRef m, int opt_level, void **obj_out,
                                        size_t *len_out, char *err, size_t errlen) {
  return emit_object_common(t, m, opt_level, false, obj_out, len_out, err, errlen);
}

bool gemmc_target_find_lld(char *path_out, size_t path_len) {
  const char *explicit_path = getenv("GEMMC_LLD");
  if (explicit_path && *explicit_path) {
    if (access(explicit_path, X_OK) != 0)
      return false;
    if (path_out && path_len)
      snprintf(path_out, path_len, "%s", explicit_path);
    return true;
  }
  static const char *const fallbacks[] = {LLD_FALLBACK, LLD_ROCM, NULL};
  return target_find_tool("ld.lld-19", fallbacks, path_out, path_len);
}

bool gemmc_target_link_hsaco(const void *obj, size_t obj_len, void **hsaco_out, size_t *hsaco_len, char *err,
                             size_t errlen) {
  if (!hsaco_out || !hsaco_len)
    return target_fail(err, errlen, "no output pointer for the code object");
  *hsaco_out = NULL;
  *hsaco_len = 0;
  if (!obj || !check_elf(obj, obj_len, ELF_TYPE_REL, "the object to link", err, errlen))
    return false;
  char lld[4096];
  if (!gemmc_target_find_lld(lld, sizeof lld))
    return target_fail(err, errlen,
                       "ld.lld from LLVM 19 not found (looked for $GEMMC_LLD, ld.lld-19 on PATH, " LLD_FALLBACK
                       " and " LLD_ROCM "; Debian: apt-get install lld-19)");
  char obj_path[4096], out_path[4096];
  if (!target_write_temp_file(obj, obj_len, ".o", obj_path, sizeof obj_path, err, errlen))
    return false;
  if (!target_write_temp_file("", 0, ".hsaco", out_path, sizeof out_path, err, errlen)) {
    unlink(obj_path);
    return false;
  }
  char shared[] = "-shared", no_undefined[] = "--no-undefined", output[] = "-o";
  char *argv[] = {lld, shared, no_undefined, output, out_path, obj_path, NULL};
  char *log = NULL;
  int status = 0;
  bool ok = target_spawn_and_capture(argv, &log, &status, err, errlen);
  unlink(obj_path);
  if (ok && status != 0)
    ok = target_fail(err, errlen, "%s failed (%s %d): %s", lld, status < 0 ? "killed, status" : "exit", status,
                     log && *log ? log : "no output");
  free(log);
  void *data = NULL;
  size_t len = 0;
  if (ok)
    ok = target_read_file(out_path, MAX_CODE_OBJECT_BYTES, &data, &len, err, errlen);
  unlink(out_path);
  if (ok && !check_elf(data, len, ELF_TYPE_DYN, "ld.lld's output", err, errlen)) {
    free(data);
    ok = false;
  }
  if (!ok)
    return false;
  *hsaco_out = data;
  *hsaco_len = len;
  return true;
}

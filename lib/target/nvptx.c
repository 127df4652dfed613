/* NVPTX back end: kernel marking, PTX emission through LLVM 19, and assembling with ptxas. */
#include "target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>

void target_nvptx_initialize(void) {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
  /* 32-bit pointers for shared, local and constant memory (data layout p3:32, as Triton sets):
   * shared addresses (ring slots, swizzled tiles, wgmma descriptors) take one register and no
   * 64-bit arithmetic. LLVM reads this only as a command-line option, so it is set once per
   * process, here, before any NVPTX target machine exists. */
  const char *const argv[] = {"gemmc", "-nvptx-short-ptr"};
  LLVMParseCommandLineOptions(2, argv, NULL);
}

/* Appends `!{ptr @fn, !"key", i32 value}` to !nvvm.annotations. */
static void add_nvvm_annotation(LLVMModuleRef m, LLVMValueRef fn, const char *key, int value) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMMetadataRef operands[3] = {
      LLVMValueAsMetadata(fn),
      LLVMMDStringInContext2(ctx, key, strlen(key)),
      LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), (unsigned long long)value, 0)),
  };
  LLVMMetadataRef node = LLVMMDNodeInContext2(ctx, operands, 3);
  LLVMAddNamedMetadataOperand(m, "nvvm.annotations", LLVMMetadataAsValue(ctx, node));
}

/* LLVM 19 takes a function for a kernel (.entry) when nvvm.annotations says "kernel" = 1, and
 * otherwise when its calling convention is ptx_kernel; setting both also keeps LLVM 20+, which
 * moves to the calling convention, happy. */
void gemmc_target_annotate_param_list(LLVMModuleRef m, LLVMValueRef fn, const char *key, const int *params, int n) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMMetadataRef list[16];
  if (n > 16) n = 16;
  for (int i = 0; i < n; i++)
    list[i] = LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), (unsigned long long)params[i] + 1, 0));
  LLVMMetadataRef operands[3] = {LLVMValueAsMetadata(fn), LLVMMDStringInContext2(ctx, key, strlen(key)),
                                 LLVMMDNodeInContext2(ctx, list, (size_t)n)};
  LLVMMetadataRef node = LLVMMDNodeInContext2(ctx, operands, 3);
  LLVMAddNamedMetadataOperand(m, "nvvm.annotations", LLVMMetadataAsValue(ctx, node));
}

void gemmc_target_annotate_kernel(LLVMModuleRef m, LLVMValueRef fn, const char *key, int value) {
  add_nvvm_annotation(m, fn, key, value);
}

void gemmc_target_mark_kernel(LLVMModuleRef m, LLVMValueRef fn, int max_threads) {
  LLVMSetFunctionCallConv(fn, LLVMPTXKernelCallConv);
  add_nvvm_annotation(m, fn, "kernel", 1);
  if (max_threads > 0)
    add_nvvm_annotation(m, fn, "maxntidx", max_threads);
}

/* True when `directive` followed by `word` (a whole word) occurs in text. */
static bool has_directive(const char *text, const char *directive_and_word) {
  size_t n = strlen(directive_and_word);
  for (const char *p = strstr(text, directive_and_word); p; p = strstr(p + 1, directive_and_word)) {
    char next = p[n];
    if (next == '\n' || next == '\r' || next == ',' || next == ' ' || next == '\0')
      return true;
  }
  return false;
}

/* LLVM quietly falls back to defaults for settings it does not take, so check the result. */
static bool check_ptx_header(const gemmc_target *t, const char *ptx, char *err, size_t errlen) {
  char expected_version[32], expected_target[32];
  snprintf(expected_version, sizeof expected_version, ".version %d.%d", t->ptx_version / 10,
           t->ptx_version % 10);
  snprintf(expected_target, sizeof expected_target, ".target %s", t->cpu);
  if (!has_directive(ptx, expected_version) || !has_directive(ptx, expected_target))
    return target_fail(err, errlen, "LLVM emitted PTX without '%s' and '%s'", expected_version,
                       expected_target);
  return true;
}

/* emit_ptx and codegen_ptx differ only in whether the module is cloned and optimized first. */
static bool emit_ptx_common(const gemmc_target *t, LLVMModuleRef m, int opt_level, bool optimized,
                            char **ptx_out, size_t *len_out, char *err, size_t errlen) {
  if (!ptx_out)
    return target_fail(err, errlen, "no output pointer for the PTX");
  *ptx_out = NULL;
  if (!t || t->arch != GEMMC_ARCH_NVPTX)
    return target_fail(err, errlen, "target %s is not an NVIDIA target", t ? t->name : "(null)");
  char *ptx = NULL;
  size_t len = 0;
  bool ok = optimized ? target_codegen_optimized(t, m, opt_level, &ptx, &len, err, errlen)
                      : target_emit_assembly(t, m, opt_level, &ptx, &len, err, errlen);
  if (!ok)
    return false;
  if (!check_ptx_header(t, ptx, err, errlen)) {
    free(ptx);
    return false;
  }
  if (!target_ptx_split_wide_shifts(&ptx, &len)) {
    free(ptx);
    return target_fail(err, errlen, "out of memory rewriting the PTX");
  }
  *ptx_out = ptx;
  if (len_out)
    *len_out = len;
  return true;
}

bool gemmc_target_emit_ptx(const gemmc_target *t, LLVMModuleRef m, int opt_level, char **ptx_out,
                           size_t *len_out, char *err, size_t errlen) {
  return emit_ptx_common(t, m, opt_level, false, ptx_out, len_out, err, errlen);
}

bool gemmc_target_codegen_ptx(const gemmc_target *t, LLVMModuleRef m, int opt_level,
                              char **ptx_out, size_t *len_out, char *err, size_t errlen) {
  return emit_ptx_common(t, m, opt_level, true, ptx_out, len_out, err, errlen);
}

bool gemmc_target_find_ptxas(char *path_out, size_t path_len) {
  return target_find_tool("ptxas", NULL, path_out, path_len);
}

bool gemmc_target_run_ptxas(const char *ptx, const gemmc_target *t, const char *cubin_path,
                            char *report, size_t report_len, char *err, size_t errlen) {
  if (report && report_len)
    report[0] = '\0';
  if (!ptx || !t || t->arch != GEMMC_ARCH_NVPTX)
    return target_fail(err, errlen, "ptxas needs PTX text and an NVIDIA target");
  char ptxas[4096];
  if (!gemmc_target_find_ptxas(ptxas, sizeof ptxas))
    return target_fail(err, errlen,
                       "ptxas not found on PATH (it comes with the CUDA toolkit; PTX emission "
                       "itself does not need it)");

  char ptx_path[4096], temp_cubin[4096] = "";
  if (!target_write_temp_file(ptx, strlen(ptx), ".ptx", ptx_path, sizeof ptx_path, err, errlen))
    return false;
  if (!cubin_path) {
    /* ptxas always writes an output file; give it one we delete afterwards. */
    if (!target_write_temp_file("", 0, ".cubin", temp_cubin, sizeof temp_cubin, err, errlen)) {
      unlink(ptx_path);
      return false;
    }
    cubin_path = temp_cubin;
  }

  char arch_flag[64], verbose_flag[] = "-v", output_flag[] = "-o";
  snprintf(arch_flag, sizeof arch_flag, "-arch=%s", t->cpu);
  char *argv[] = {ptxas, arch_flag, verbose_flag, output_flag, (char *)cubin_path, ptx_path, NULL};
  char *output = NULL;
  int exit_status = 0;
  bool ok = target_spawn_and_capture(argv, &output, &exit_status, err, errlen);
  unlink(ptx_path);
  if (temp_cubin[0])
    unlink(temp_cubin);
  if (!ok || !output)
    return false;
  if (report && report_len)
    snprintf(report, report_len, "%s", output);
  if (exit_status != 0) {
    target_fail(err, errlen, "ptxas -arch=%s failed (%s %d):\n%s", t->cpu,
                exit_status < 0 ? "killed, status" : "exit", exit_status, output);
    free(output);
    return false;
  }
  free(output);
  return true;
}

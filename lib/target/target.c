/* The target table, target validation, and the LLVM target-machine / pass-pipeline plumbing. */
#include "target.h"

#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/ErrorHandling.h>
#include <pthread.h>
#include <setjmp.h>
#include <llvm-c/Transforms/PassBuilder.h>

#define NVPTX_TRIPLE "nvptx64-nvidia-cuda"
#define AMDGPU_TRIPLE "amdgcn-amd-amdhsa"

/* PTX 8.5 is the newest ISA LLVM 19 can emit; every target defaults to it so that no intrinsic is
 * refused for an old ISA. It needs a CUDA 12.5+ driver (the GPU machine has 13). */
#define DEFAULT_PTX_VERSION 85

/* Shared memory: NVIDIA's static limit is 48 KiB; more needs dynamic shared memory and
 * cuFuncSetAttribute. Opt-in maxima are 163 KiB (A100), 99 KiB (sm_86/89), 227 KiB (H100). */
#define KIB 1024
static const gemmc_target targets[] = {
    /* Turing: no cp.async and no mma.sync shape gemmc emits (m16n8k16 needs sm_80), so kernels
     * take the FMA path, as in Triton, which gives up on MMA before sm_80 too. */
    {"sm_75", GEMMC_ARCH_NVPTX, NVPTX_TRIPLE, "sm_75", "+ptx85", 75, DEFAULT_PTX_VERSION, 63, 32,
     1024, 48 * KIB, 64 * KIB, 255, 0, GEMMC_CAP_LDMATRIX},
    {"sm_80", GEMMC_ARCH_NVPTX, NVPTX_TRIPLE, "sm_80", "+ptx85", 80, DEFAULT_PTX_VERSION, 70, 32,
     1024, 48 * KIB, 163 * KIB, 255, GEMMC_MMA_SYNC, GEMMC_CAP_CP_ASYNC | GEMMC_CAP_LDMATRIX | GEMMC_CAP_CVT_F16X2},
    {"sm_86", GEMMC_ARCH_NVPTX, NVPTX_TRIPLE, "sm_86", "+ptx85", 86, DEFAULT_PTX_VERSION, 71, 32,
     1024, 48 * KIB, 99 * KIB, 255, GEMMC_MMA_SYNC, GEMMC_CAP_CP_ASYNC | GEMMC_CAP_LDMATRIX | GEMMC_CAP_CVT_F16X2},
    {"sm_89", GEMMC_ARCH_NVPTX, NVPTX_TRIPLE, "sm_89", "+ptx85", 89, DEFAULT_PTX_VERSION, 78, 32,
     1024, 48 * KIB, 99 * KIB, 255, GEMMC_MMA_SYNC | GEMMC_MMA_SYNC_FP8,
     GEMMC_CAP_CP_ASYNC | GEMMC_CAP_LDMATRIX | GEMMC_CAP_CVT_F16X2},
    /* Plain sm_90 has TMA and clusters but not wgmma or setmaxnreg (those are sm_90a only). */
    {"sm_90", GEMMC_ARCH_NVPTX, NVPTX_TRIPLE, "sm_90", "+ptx85", 90, DEFAULT_PTX_VERSION, 78, 32,
     1024, 48 * KIB, 227 * KIB, 255, GEMMC_MMA_SYNC | GEMMC_MMA_SYNC_FP8,
     GEMMC_CAP_CP_ASYNC | GEMMC_CAP_LDMATRIX | GEMMC_CAP_STMATRIX | GEMMC_CAP_TMA |
         GEMMC_CAP_CLUSTERS | GEMMC_CAP_CVT_F16X2 | GEMMC_CAP_GRID_DEPENDENCY},
    {"sm_90a", GEMMC_ARCH_NVPTX, NVPTX_TRIPLE, "sm_90a", "+ptx85", 90, DEFAULT_PTX_VERSION, 80, 32,
     1024, 48 * KIB, 227 * KIB, 255, GEMMC_MMA_SYNC | GEMMC_MMA_SYNC_FP8 | GEMMC_MMA_WGMMA,
     GEMMC_CAP_CP_ASYNC | GEMMC_CAP_LDMATRIX | GEMMC_CAP_STMATRIX | GEMMC_CAP_TMA |
         GEMMC_CAP_CLUSTERS | GEMMC_CAP_SETMAXNREG | GEMMC_CAP_CVT_F16X2 | GEMMC_CAP_GRID_DEPENDENCY},
    /* MI200 (CDNA2): wave64, 64 KiB LDS per workgroup, 512 VGPRs (incl. AGPRs) per lane; MFMA
     * f16/bf16/i8/f32/f64, no fp8. */
    {"gfx90a", GEMMC_ARCH_AMDGPU, AMDGPU_TRIPLE, "gfx90a", "", 0, 0, 0, 64, 1024, 64 * KIB,
     64 * KIB, 512, GEMMC_MMA_MFMA | GEMMC_MMA_MFMA_CDNA2, 0},
    /* MI300 (CDNA3): wave64, 64 KiB LDS per workgroup, 512 VGPRs (incl. AGPRs) per lane. */
    {"gfx942", GEMMC_ARCH_AMDGPU, AMDGPU_TRIPLE, "gfx942", "", 0, 0, 0, 64, 1024, 64 * KIB,
     64 * KIB, 512, GEMMC_MMA_MFMA | GEMMC_MMA_MFMA_CDNA3 | GEMMC_MMA_MFMA_FP8, 0},
};
#define TARGET_COUNT ((int)(sizeof targets / sizeof targets[0]))

/* What LLVM 19's NVPTX backend knows (llc-19 -mtriple=nvptx64 -mcpu=help). LLVM warns on stderr
 * and carries on for anything else, so everything is checked against these lists first. */
static const int nvptx_ptx_versions[] = {32, 40, 41, 42, 43, 50, 60, 61, 62, 63, 64, 65, 70, 71,
                                         72, 73, 74, 75, 76, 77, 78, 80, 81, 82, 83, 84, 85};
static const char *const nvptx_cpus[] = {"sm_20", "sm_21", "sm_30", "sm_32", "sm_35", "sm_37",
                                         "sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62",
                                         "sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87",
                                         "sm_89", "sm_90", "sm_90a"};
/* AMDGPU: the CPUs and features gemmc has a use for (LLVM 19 knows many more; gfx950 it does not). */
static const char *const amdgpu_cpus[] = {"gfx90a", "gfx940", "gfx941", "gfx942"};
static const char *const amdgpu_features[] = {"wavefrontsize32", "wavefrontsize64", "sramecc",
                                              "xnack", "cumode", "tgsplit"};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

bool target_fail(char *err, size_t errlen, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return false;
}

static bool in_string_list(const char *s, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(s, list[i]) == 0)
      return true;
  return false;
}

static bool is_known_ptx_version(int v) {
  for (size_t i = 0; i < COUNT_OF(nvptx_ptx_versions); i++)
    if (nvptx_ptx_versions[i] == v)
      return true;
  return false;
}

const gemmc_target *gemmc_target_list(int *count) {
  if (count)
    *count = TARGET_COUNT;
  return targets;
}

const gemmc_target *gemmc_target_lookup(const char *name, char *err, size_t errlen) {
  if (name)
    for (int i = 0; i < TARGET_COUNT; i++)
      if (strcmp(name, targets[i].name) == 0)
        return &targets[i];
  char valid[256] = "";
  for (int i = 0; i < TARGET_COUNT; i++) {
    size_t used = strlen(valid);
    snprintf(valid + used, sizeof valid - used, "%s%s", i ? ", " : "", targets[i].name);
  }
  target_fail(err, errlen, "unknown target '%s' (valid targets: %s)", name ? name : "(null)", valid);
  return NULL;
}

/* Reads "8.5", "85" or "ptx85" into 85; false for anything else ("ptx8.5" is no LLVM feature). */
static bool parse_ptx_version(const char *text, int *out) {
  const char *p = text;
  bool prefixed = strncmp(p, "ptx", 3) == 0;
  if (prefixed)
    p += 3;
  if (!isdigit((unsigned char)p[0]))
    return false;
  int major = p[0] - '0';
  if (!prefixed && p[1] == '.' && isdigit((unsigned char)p[2]) && p[3] == '\0') {
    *out = major * 10 + (p[2] - '0');
    return true;
  }
  if (isdigit((unsigned char)p[1]) && p[2] == '\0') {
    *out = major * 10 + (p[1] - '0');
    return true;
  }
  return false;
}

bool gemmc_target_set_ptx_version(gemmc_target *t, const char *version, char *err, size_t errlen) {
  if (!t || !version)
    return target_fail(err, errlen, "no target or PTX version given");
  if (t->arch != GEMMC_ARCH_NVPTX)
    return target_fail(err, errlen, "--ptx-version applies to NVIDIA targets, not %s", t->name);
  int v = 0;
  if (!parse_ptx_version(version, &v))
    return target_fail(err, errlen, "bad PTX version '%s' (expected e.g. 8.5, 85 or ptx85)",
                       version);
  if (!is_known_ptx_version(v))
    return target_fail(err, errlen,
                       "PTX ISA %d.%d is not known to LLVM 19 (it emits 3.2 .. 8.5; LLVM would "
                       "silently ignore +ptx%d)",
                       v / 10, v % 10, v);
  if (v < t->min_ptx_version)
    return target_fail(err, errlen, "PTX ISA %d.%d is too old for %s (needs %d.%d or newer)",
                       v / 10, v % 10, t->name, t->min_ptx_version / 10, t->min_ptx_version % 10);
  t->ptx_version = v;
  snprintf(t->features, sizeof t->features, "+ptx%d", v);
  return true;
}

/* Checks each comma-separated "+name" / "-name" entry of t->features. */
static bool validate_features(const gemmc_target *t, char *err, size_t errlen) {
  const char *p = t->features;
  int ptx_in_features = 0;
  while (*p) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    char entry[32];
    if (len < 2 || len >= sizeof entry || (p[0] != '+' && p[0] != '-'))
      return target_fail(err, errlen, "target %s: malformed feature '%.*s' (expected +name or -name)",
                         t->name, (int)len, p);
    memcpy(entry, p + 1, len - 1);
    entry[len - 1] = '\0';
    bool known;
    if (t->arch == GEMMC_ARCH_NVPTX) {
      int v = 0;
      known = in_string_list(entry, nvptx_cpus, COUNT_OF(nvptx_cpus));
      if (!known && strncmp(entry, "ptx", 3) == 0 && parse_ptx_version(entry, &v) &&
          is_known_ptx_version(v)) {
        known = true;
        if (p[0] == '+')
          ptx_in_features = v;
      }
    } else {
      known = in_string_list(entry, amdgpu_features, COUNT_OF(amdgpu_features));
    }
    if (!known)
      return target_fail(err, errlen,
                         "target %s: feature '%.*s' is unknown to LLVM 19 (which would silently "
                         "ignore it)",
                         t->name, (int)len, p);
    p += len;
    if (*p == ',')
      p++;
  }
  if (t->arch == GEMMC_ARCH_NVPTX && ptx_in_features != t->ptx_version)
    return target_fail(err, errlen, "target %s: features '%s' do not select PTX %d.%d",
                       t->name, t->features, t->ptx_version / 10, t->ptx_version % 10);
  return true;
}

int gemmc_target_tma_alignment(const gemmc_target *t) { return t && (t->caps & GEMMC_CAP_TMA) ? 16 : 0; }

bool gemmc_target_validate(const gemmc_target *t, char *err, size_t errlen) {
  if (!t || !t->name || !t->triple || !t->cpu)
    return target_fail(err, errlen, "incomplete target record");
  switch (t->arch) {
  case GEMMC_ARCH_NVPTX:
    if (strcmp(t->triple, NVPTX_TRIPLE) != 0)
      return target_fail(err, errlen, "target %s: NVPTX triple must be %s, not %s", t->name,
                         NVPTX_TRIPLE, t->triple);
    if (!in_string_list(t->cpu, nvptx_cpus, COUNT_OF(nvptx_cpus)))
      return target_fail(err, errlen, "target %s: CPU '%s' is unknown to LLVM 19's NVPTX", t->name,
                         t->cpu);
    if (!is_known_ptx_version(t->ptx_version) || t->ptx_version < t->min_ptx_version)
      return target_fail(err, errlen, "target %s: unusable PTX version %d", t->name,
                         t->ptx_version);
    break;
  case GEMMC_ARCH_AMDGPU:
    if (strcmp(t->triple, AMDGPU_TRIPLE) != 0)
      return target_fail(err, errlen, "target %s: AMDGPU triple must be %s, not %s", t->name,
                         AMDGPU_TRIPLE, t->triple);
    if (!in_string_list(t->cpu, amdgpu_cpus, COUNT_OF(amdgpu_cpus)))
      return target_fail(err, errlen, "target %s: CPU '%s' is not a supported AMDGPU", t->name,
                         t->cpu);
    break;
  default:
    return target_fail(err, errlen, "target %s: unknown architecture", t->name);
  }
  if (memchr(t->features, '\0', sizeof t->features) == NULL)
    return target_fail(err, errlen, "target %s: feature string not terminated", t->name);
  return validate_features(t, err, errlen);
}

/* ------------------------------------------------------------------ LLVM fatal errors
 *
 * LLVM reports some errors with report_fatal_error, which calls the handler installed with
 * LLVMInstallFatalErrorHandler and then exits the process: a library must not let that happen
 * to the program that embeds it. gemmc installs its handler once per process (LLVM's handler is
 * process-wide) and runs each LLVM pipeline and code generation under a setjmp point; the
 * handler longjmps back there, so the call fails with "LLVM fatal error: <reason>".
 *
 * Caveats (docs/limits.md): the longjmp skips LLVM's C++ frames, so their destructors do not run
 * and whatever they held is leaked (pass managers, machine functions: bounded, once per such
 * error); the module that was being compiled is in an unspecified state and only good for
 * LLVMDisposeModule. Outside gemmc's own calls (another thread of the host using LLVM, or no
 * gemmc call active) the handler returns, and LLVM exits as it would have without gemmc. A host
 * that installs its own LLVM fatal-error handler replaces gemmc's. Errors LLVM reports by
 * assertions (in an assertion-enabled LLVM) or out of memory (report_bad_alloc_error) are not
 * covered. The two thread-locals below are the library's only mutable globals: LLVM's handler
 * takes no user data, so the jump target must be found through the thread. */
static _Thread_local jmp_buf *llvm_fatal_jump;
static _Thread_local char llvm_fatal_reason[512];
static pthread_once_t llvm_fatal_once = PTHREAD_ONCE_INIT;

static void on_llvm_fatal_error(const char *reason) {
  jmp_buf *jump = llvm_fatal_jump;
  if (!jump) return;
  snprintf(llvm_fatal_reason, sizeof llvm_fatal_reason, "%s", reason ? reason : "(no reason given)");
  llvm_fatal_jump = NULL;
  longjmp(*jump, 1);
}

static void install_llvm_fatal_handler(void) { LLVMInstallFatalErrorHandler(on_llvm_fatal_error); }

/* What target_llvm_guarded runs: one LLVM call and where its results go. */
typedef struct llvm_call {
  enum { CALL_RUN_PASSES, CALL_EMIT } kind;
  LLVMModuleRef module;
  LLVMTargetMachineRef machine;
  const char *pipeline;
  LLVMPassBuilderOptionsRef options;
  LLVMErrorRef pass_error;        /* CALL_RUN_PASSES */
  LLVMCodeGenFileType file_type;  /* CALL_EMIT: assembly or object */
  char *message;                  /* CALL_EMIT */
  LLVMMemoryBufferRef buffer;     /* CALL_EMIT */
  LLVMBool emit_failed;           /* CALL_EMIT */
} llvm_call;

/* Makes the LLVM call with fatal errors turned into a false return and "LLVM fatal error: .."
 * in err. True when LLVM returned (its own error results are in *call). */
static bool target_llvm_guarded(llvm_call *call, char *err, size_t errlen) {
  pthread_once(&llvm_fatal_once, install_llvm_fatal_handler);
  jmp_buf here;
  jmp_buf *volatile outer = llvm_fatal_jump;
  if (setjmp(here) != 0) {
    llvm_fatal_jump = outer;
    return target_fail(err, errlen, "LLVM fatal error: %s", llvm_fatal_reason);
  }
  llvm_fatal_jump = &here;
  if (call->kind == CALL_RUN_PASSES)
    call->pass_error = LLVMRunPasses(call->module, call->pipeline, call->machine, call->options);
  else
    call->emit_failed = LLVMTargetMachineEmitToMemoryBuffer(call->machine, call->module, call->file_type,
                                                            &call->message, &call->buffer);
  llvm_fatal_jump = outer;
  return true;
}

bool target_emit_guarded(LLVMTargetMachineRef tm, LLVMModuleRef m, LLVMCodeGenFileType file_type, char **message,
                         LLVMMemoryBufferRef *buffer, char *err, size_t errlen) {
  llvm_call call = {.kind = CALL_EMIT, .module = m, .machine = tm, .file_type = file_type};
  *message = NULL;
  *buffer = NULL;
  if (!target_llvm_guarded(&call, err, errlen)) return false;
  *message = call.message;
  *buffer = call.buffer;
  if (call.emit_failed) {
    if (!call.message) target_fail(err, errlen, "LLVM code generation failed");
    return false;
  }
  return true;
}

/* NVPTX at -O3 generates code at LLVM's Less level. Aggressive only swaps EarlyCSE for two GVN
 * runs in NVPTX's IR passes (NVPTXPassConfig::addEarlyCSEOrGVNPass), about a third of code
 * generation time, for the same PTX up to register numbering; Less makes PTX byte-identical to
 * Default's for every example and test kernel (scripts/ptx-snapshot.sh, 693 files) in three
 * quarters of Default's time; ptxas does the machine-level work (docs/performance.md, "Compile
 * time"). None is not enough: it leaves copies of wgmma accumulators that serialize the MMAs. */
static LLVMCodeGenOptLevel codegen_level(const gemmc_target *t, int opt_level) {
  if (t->arch == GEMMC_ARCH_NVPTX && opt_level == 3)
    return LLVMCodeGenLevelLess;
  switch (opt_level) {
  case 0: return LLVMCodeGenLevelNone;
  case 1: return LLVMCodeGenLevelLess;
  case 2: return LLVMCodeGenLevelDefault;
  default: return LLVMCodeGenLevelAggressive;
  }
}

bool target_create_machine(const gemmc_target *t, int opt_level, LLVMTargetMachineRef *tm_out,
                           char *err, size_t errlen) {
  if (opt_level < 0 || opt_level > 3)
    return target_fail(err, errlen, "optimization level %d is not 0..3", opt_level);
  if (!gemmc_target_validate(t, err, errlen))
    return false;
  /* LLVM's target registry is a global list that LLVMInitialize* appends to without a lock:
   * once per process, so that threads may compile at once (one gemmc_context each). */
  static pthread_once_t nvptx_once = PTHREAD_ONCE_INIT, amdgpu_once = PTHREAD_ONCE_INIT;
  if (t->arch == GEMMC_ARCH_NVPTX)
    pthread_once(&nvptx_once, target_nvptx_initialize);
  else
    pthread_once(&amdgpu_once, target_amdgpu_initialize);
  LLVMTargetRef llvm_target = NULL;
  char *message = NULL;
  if (LLVMGetTargetFromTriple(t->triple, &llvm_target, &message)) {
    target_fail(err, errlen, "LLVM has no backend for %s: %s", t->triple, message ? message : "");
    LLVMDisposeMessage(message);
    return false;
  }
  LLVMTargetMachineRef tm =
      LLVMCreateTargetMachine(llvm_target, t->triple, t->cpu, t->features, codegen_level(t, opt_level),
                              LLVMRelocDefault, LLVMCodeModelDefault);
  if (!tm)
    return target_fail(err, errlen, "LLVM could not create a target machine for %s", t->name);
  *tm_out = tm;
  return true;
}

/* The NVPTX -O3 pipeline: default<O3> (114 passes) trimmed to what changes the PTX of gemmc's
 * kernels. They are one straight-line kernel function with at most a few counted loops, no
 * calls, allocas or memcpys, so the inliner, IPO, coroutine, vectorizer, DSE and memcpyopt
 * passes of default<O3> found nothing to do yet took half its time (DSE alone a fifth). A
 * second trim (docs/perf-notes.md, entry 24) dropped what the lowering's cleaner IR no longer
 * needs: GVN, a second EarlyCSE, SROA, BDCE/ADCE, loop-deletion/unroll/instsimplify, the LICM
 * without speculation and three of the seven InstCombine/SimplifyCFG runs, each checked over the
 * examples and tests (scripts/ptx-snapshot.sh: the warp-specialized and default kernels keep
 * their PTX; a few cp.async and FMA configurations lose 1-60 integer instructions), a third of
 * the optimization time. A third trim (entry 74) dropped the InstCombine between LICM and
 * indvars: the tutorial's PTX stays byte-identical; two-step pairs kernels (128x128x32 w4) count
 * their producer loop down instead of comparing two registers; 1-4 ms of a 40 ms compile. Loop
 * rotation, LICM, indvars and SCCP stay: they shape the K loop; nvvm-intr-range gives the
 * thread-index ranges that keep index masks out. */
#define SIMPLIFYCFG                                                                               \
  "simplifycfg<bonus-inst-threshold=1;no-forward-switch-cond;switch-range-to-icmp;"              \
  "no-switch-to-lookup;keep-loops;no-hoist-common-insts;no-sink-common-insts;speculate-blocks;"  \
  "simplify-cond-branch;no-speculate-unpredictables>"
#define INSTCOMBINE "instcombine<max-iterations=1;no-use-loop-info;no-verify-fixpoint>"
static const char nvptx_o3_pipeline[] =
    "function(nvvm-intr-range," SIMPLIFYCFG ",early-cse<>," INSTCOMBINE ",reassociate,"
    "loop-mssa(loop-rotate<header-duplication;no-prepare-for-lto>,licm<allowspeculation>),"
    "loop(indvars),sccp," INSTCOMBINE ",infer-alignment,div-rem-pairs),globaldce";

bool target_optimize_with_machine(const gemmc_target *t, LLVMTargetMachineRef tm, LLVMModuleRef m,
                                  int opt_level, char *err, size_t errlen) {
  char *message = NULL;
  if (LLVMVerifyModule(m, LLVMReturnStatusAction, &message)) {
    target_fail(err, errlen, "invalid LLVM module: %s", message ? message : "");
    LLVMDisposeMessage(message);
    return false;
  }
  LLVMDisposeMessage(message);
  LLVMSetTarget(m, t->triple);
  LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(m, layout);
  LLVMDisposeTargetData(layout);

  char default_pipeline[16];
  snprintf(default_pipeline, sizeof default_pipeline, "default<O%d>", opt_level);
  const char *pipeline = t->arch == GEMMC_ARCH_NVPTX && opt_level == 3 ? nvptx_o3_pipeline
                                                                       : default_pipeline;
  LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
  llvm_call call = {.kind = CALL_RUN_PASSES, .module = m, .machine = tm, .pipeline = pipeline, .options = options};
  bool returned = target_llvm_guarded(&call, err, errlen);
  LLVMDisposePassBuilderOptions(options);
  if (!returned) return false;
  LLVMErrorRef error = call.pass_error;
  if (error) {
    char *text = LLVMGetErrorMessage(error);
    target_fail(err, errlen, "LLVM pass pipeline %s failed: %s", pipeline, text);
    LLVMDisposeErrorMessage(text);
    return false;
  }
  return true;
}

bool gemmc_target_optimize(const gemmc_target *t, LLVMModuleRef m, int opt_level, char *err,
                           size_t errlen) {
  LLVMTargetMachineRef tm = NULL;
  if (!target_create_machine(t, opt_level, &tm, err, errlen))
    return false;
  bool ok = target_optimize_with_machine(t, tm, m, opt_level, err, errlen);
  LLVMDisposeTargetMachine(tm);
  return ok;
}

/* Runs the code generator on m (already optimized, triple and data layout set) into malloc'ed,
 * NUL-terminated assembly text. Code generation mutates m. */
static bool codegen_to_text(const gemmc_target *t, LLVMTargetMachineRef tm, LLVMModuleRef m,
                            char **text_out, size_t *len_out, char *err, size_t errlen) {
  llvm_call call = {.kind = CALL_EMIT, .module = m, .machine = tm, .file_type = LLVMAssemblyFile};
  if (!target_llvm_guarded(&call, err, errlen)) return false;
  LLVMMemoryBufferRef buffer = call.buffer;
  char *message = call.message;
  if (call.emit_failed) {
    target_fail(err, errlen, "LLVM code generation for %s failed: %s", t->name,
                message ? message : "");
    LLVMDisposeMessage(message);
    return false;
  }
  size_t size = LLVMGetBufferSize(buffer);
  char *text = malloc(size + 1);
  bool ok = text != NULL;
  if (!ok) {
    target_fail(err, errlen, "out of memory (%zu bytes of assembly)", size);
  } else {
    memcpy(text, LLVMGetBufferStart(buffer), size);
    text[size] = '\0';
    *text_out = text;
    if (len_out)
      *len_out = size;
  }
  LLVMDisposeMemoryBuffer(buffer);
  return ok;
}

bool target_emit_assembly(const gemmc_target *t, LLVMModuleRef m, int opt_level, char **text_out,
                          size_t *len_out, char *err, size_t errlen) {
  *text_out = NULL;
  if (len_out)
    *len_out = 0;
  LLVMTargetMachineRef tm = NULL;
  if (!target_create_machine(t, opt_level, &tm, err, errlen))
    return false;
  LLVMModuleRef clone = LLVMCloneModule(m);
  bool ok = target_optimize_with_machine(t, tm, clone, opt_level, err, errlen) &&
            codegen_to_text(t, tm, clone, text_out, len_out, err, errlen);
  LLVMDisposeModule(clone);
  LLVMDisposeTargetMachine(tm);
  return ok;
}

bool target_codegen_optimized(const gemmc_target *t, LLVMModuleRef m, int opt_level,
                              char **text_out, size_t *len_out, char *err, size_t errlen) {
  *text_out = NULL;
  if (len_out)
    *len_out = 0;
  LLVMTargetMachineRef tm = NULL;
  if (!target_create_machine(t, opt_level, &tm, err, errlen))
    return false;
  /* Cheap, and makes a module that skipped gemmc_target_optimize (-O0 callers) still match tm. */
  LLVMSetTarget(m, t->triple);
  LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(m, layout);
  LLVMDisposeTargetData(layout);
  bool ok = codegen_to_text(t, tm, m, text_out, len_out, err, errlen);
  LLVMDisposeTargetMachine(tm);
  return ok;
}

void gemmc_target_mark_kernel_for(const gemmc_target *t, LLVMModuleRef m, LLVMValueRef fn,
                                  int max_threads) {
  if (t && t->arch == GEMMC_ARCH_AMDGPU)
    target_amdgpu_mark_kernel(m, fn, max_threads);
  else
    gemmc_target_mark_kernel(m, fn, max_threads);
}

/* gemmc_compile: the whole pipeline (defines, parse, verify, TTGIR passes, lowering, PTX, cubin, metadata) behind one call. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <llvm-c/Core.h>

#include "driver_internal.h"
#include "gemmc/amdgpu.h"
#include "gemmc/limits.h"
#include "gemmc/passes.h"
#include "gemmc/target.h"
#include "lower/lower.h"

#ifndef GEMMC_VERSION
#define GEMMC_VERSION "0.1.0"
#endif

#define DEFAULT_TARGET "sm_90a"
/* Shared-memory stages of the K-loop pipeline: past 8 no GEMM tile fits in shared memory. */
#define GEMMC_MAX_NUM_STAGES 8

/* A text the result owns: len + 1 bytes from the context's allocator. */
typedef struct owned_text {
  char *data;
  size_t len;
} owned_text;

struct gemmc_compiled {
  gemmc_context *ctx;
  bool ok;
  strbuf diagnostics;
  owned_text ttgir, llvm_ir, ptx, cubin, ptxas_report, json;
  owned_text amdgcn, hsaco;
  gemmc_amdgpu_code_object *code_object; /* the .hsaco's metadata note; kernel.amdgpu points into it */
  bool has_kernel;
  gemmc_kernel_metadata kernel;
  /* What the pipeline is working on; kept here (not in locals) so that an out-of-memory unwind
   * (longjmp) can still release LLVM's objects. */
  gemmc_compile_options opts;
  const char *filename;
  int errors_before; /* the context's error count when this compile began (it may compile many) */
  ir_source original;
  define_expansion expansion;
  const gemmc_target *target;
  LLVMContextRef llvm_ctx;
  LLVMModuleRef llvm_module;
  gemmc_phase_times times;
};

const char *gemmc_version(void) { return GEMMC_VERSION; }

void gemmc_compile_options_init(gemmc_compile_options *opts) {
  if (!opts) return;
  memset(opts, 0, sizeof *opts);
  opts->target = DEFAULT_TARGET;
  opts->opt_level = 3;
  opts->num_stages = 3;
  opts->stage = GEMMC_STAGE_PTX;
}

static bool own_copy(gemmc_context *ctx, owned_text *t, const void *data, size_t len) {
  t->data = ctx_raw_alloc(ctx, len + 1);
  if (!t->data) return false;
  if (len) memcpy(t->data, data, len);
  t->data[len] = 0;
  t->len = len;
  return true;
}

static void own_free(gemmc_context *ctx, owned_text *t) {
  if (t->data) ctx_raw_free(ctx, t->data, t->len + 1);
  t->data = NULL;
  t->len = 0;
}

/* ------------------------------------------------------------------ diagnostics */

/* Collects every diagnostic into c->diagnostics. Positions in the -D-expanded text are mapped
 * back to the original file (same line; the column of the `$NAME` that produced the text), so
 * the caret lands in the source the user wrote. */
static void collect_diagnostic(void *user, ir_diag_severity sev, const ir_loc *loc, const char *message) {
  gemmc_compiled *c = user;
  static const char *const words[] = {"error", "warning", "note", "remark"};
  if (!loc || (loc->kind == LOC_UNKNOWN && !loc->src)) {
    sb_printf(&c->diagnostics, "%s: %s\n", words[sev], message);
    return;
  }
  ir_loc mapped;
  if (loc->src && c->expansion.text && loc->src->text == c->expansion.text) {
    mapped = *loc;
    mapped.src = &c->original;
    mapped.src_col = defines_original_column(&c->expansion, loc->src_line, loc->src_col);
    loc = &mapped;
  }
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) {
    sb_printf(&c->diagnostics, "%s: %s\n", words[sev], message);
    return;
  }
  ir_print_diag(f, sev, loc, message);
  fclose(f);
  sb_put(&c->diagnostics, text, len);
  free(text);
}

/* An error with no source position (target, ptxas, LLVM); returns false for `return fail(...)`. */
static bool fail(gemmc_compiled *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(gemmc_compiled *c, const char *fmt, ...) {
  char message[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  ir_error(c->ctx, NULL, "%s", message);
  return false;
}

/* ------------------------------------------------------------------ pipeline steps */

/* A monotonic clock in milliseconds, for the phase times. */
static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

typedef struct encoding_walk {
  bool any_encoded, any_plain;
} encoding_walk;

static void note_type(encoding_walk *w, const ir_type *t) {
  if (!t || t->kind != TY_TENSOR) return;
  if (t->encoding) w->any_encoded = true;
  else w->any_plain = true;
}

static bool note_encodings(ir_op *op, void *user) {
  encoding_walk *w = user;
  for (int i = 0; i < op->num_results; i++) note_type(w, op->results[i].type);
  for (int r = 0; r < op->num_regions; r++)
    for (ir_block *b = op->regions[r].first; b; b = b->next)
      for (int i = 0; i < b->num_args; i++) note_type(w, b->args[i]->type);
  return true;
}

/* What the module says about where it runs must agree with the compile (issue 13: both were
 * ignored whatever they said). ttg.target: the same vendor, and no NVIDIA compute capability
 * newer than the target's (a newer GPU's instructions may be in it); an older one is fine
 * (Triton's cuda:80 TTGIR runs on sm_90a), and so is another AMD chip (the lowering asks the
 * target's own MFMA table). ttg.num-ctas: gemmc makes kernels of one CTA. */
static bool module_fits_target(gemmc_compiled *c, ir_op *module) {
  const ir_attr *t = ir_op_get_attr(module, "ttg.target");
  if (t && t->kind == AT_STRING) {
    const gemmc_target *want = gemmc_target_from_triton(t->str, t->str_len);
    if (!want) {
      ir_op_error(c->ctx, module, "unknown ttg.target '%.*s' (known: cuda:75 .. cuda:90, hip:gfx90a, hip:gfx942)",
                  (int)t->str_len, t->str);
      return false;
    }
    bool fits = want->arch == c->target->arch &&
                (want->arch == GEMMC_ARCH_AMDGPU || want->compute_capability <= c->target->compute_capability);
    if (!fits) {
      ir_op_error(c->ctx, module, "the module is for ttg.target = '%.*s' (%s), which the target %s cannot run; "
                  "compile it with --target=%s", (int)t->str_len, t->str, want->name, c->target->name, want->name);
      return false;
    }
  }
  int64_t ctas = ir_module_int_attr(module, "ttg.num-ctas", 1);
  if (ctas != 1) {
    ir_op_error(c->ctx, module, "ttg.num-ctas = %lld: gemmc compiles kernels of one CTA (thread-block clusters are "
                "not implemented yet)", (long long)ctas);
    return false;
  }
  return true;
}

/* TTIR (no layouts yet) gets default layouts and coalesced memory ops; TTGIR is used as it is. */
static bool to_ttgir(gemmc_compiled *c, ir_op *module) {
  if (!module_fits_target(c, module)) return false;
  encoding_walk w = {false, false};
  ir_walk(module, note_encodings, &w);
  const ir_attr *warps_attr = ir_op_get_attr(module, "ttg.num-warps");
  bool is_ttgir = warps_attr != NULL || (w.any_encoded && !w.any_plain);
  if (is_ttgir) {
    int module_warps = (int)ir_module_int_attr(module, "ttg.num-warps", 4);
    if (c->opts.num_warps && c->opts.num_warps != module_warps) {
      ir_op_error(c->ctx, module, "the module is TTGIR laid out for ttg.num-warps = %d; --num-warps %d "
                  "cannot change it (give TTIR to choose the warps)", module_warps, c->opts.num_warps);
      return false;
    }
    /* A TTGIR module that does not name its target gets the compile's, as TTIR does from
     * assign-layouts: the verifier weighs the lowering cost by it (AMDGPU's code generation is
     * far slower per element; without this a gfx942 compile of such a module took 60 s). */
    if (!ir_op_get_attr(module, "ttg.target")) {
      char target[32];
      gemmc_target_triton_name(c->target, target, sizeof target);
      ir_op_set_attr(c->ctx, module, "ttg.target", ir_string_attr(c->ctx, target, strlen(target)));
    }
    /* TTGIR is lowered as scheduled, but for the accumulator resets of flattened persistent loops
     * (Triton's own lowering folds those into the wgmma's scale-d as well). */
    gemmc_pass_context pc;
    if (!gemmc_pass_context_init(&pc, c->ctx, module, c->target, NULL)) return false;
    return gemmc_pass_optimize_accumulator_init(&pc, module);
  }
  /* The one pass pipeline (lib/driver/pipeline.c), with this compile's target and shape. */
  gemmc_pass_context pc;
  if (!gemmc_pass_context_init(&pc, c->ctx, module, c->target, NULL)) return false;
  pc.num_warps = c->opts.num_warps ? c->opts.num_warps : 4;
  pc.threads_per_warp = c->target->warp_size;
  pc.num_stages = c->opts.num_stages ? c->opts.num_stages : 3;
  pc.max_shared = c->target->shared_mem_per_block;
  /* AMD's MFMA knobs (Triton's AccelerateAMDMatmul reads the same). */
  pc.matrix_instr_nonkdim = c->opts.matrix_instr_nonkdim;
  pc.kpack = c->opts.kpack ? c->opts.kpack : 1;
  pc.tma = c->opts.tma < 0 ? 0 : c->opts.tma > 0 ? 2 : 1;
  static const int ws_modes[] = {0, GEMMC_WS_MODE_DEFAULT, GEMMC_WS_MODE_PING_PONG, GEMMC_WS_MODE_PAIRS,
                                 GEMMC_WS_MODE_ON};
  pc.warp_specialize = ws_modes[c->opts.warp_specialize + 1];
  pc.cluster_size = c->opts.cluster_size > 1 ? c->opts.cluster_size : 1;
  return gemmc_pipeline_run(&pc, module, "compile", c->opts.verify_each);
}

static void append_text(const char *data, size_t len, void *user) { sb_put(user, data, len); }

static bool keep_ttgir(gemmc_compiled *c, ir_op *module) {
  strbuf b;
  sb_init(&b, c->ctx);
  ir_print_options popts = {false, false};
  ir_print_module(c->ctx, module, &popts, append_text, &b);
  bool ok = own_copy(c->ctx, &c->ttgir, b.data ? b.data : "", b.len);
  sb_free(&b);
  return ok;
}

static bool keep_llvm_text(gemmc_compiled *c) {
  char *text = LLVMPrintModuleToString(c->llvm_module);
  bool ok = own_copy(c->ctx, &c->llvm_ir, text, strlen(text));
  LLVMDisposeMessage(text);
  return ok;
}

/* ptxas writes the cubin to a file; it comes back into memory here. */
static bool assemble_cubin(gemmc_compiled *c) {
  const char *dir = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/gemmc-XXXXXX.cubin", dir && *dir ? dir : "/tmp");
  int fd = mkstemps(path, 6);
  if (fd < 0) return fail(c, "cannot create a temporary file for the cubin: %s", strerror(errno));
  close(fd);
  char report[8192], err[8192];
  double start = now_ms();
  bool ok = gemmc_target_run_ptxas(c->ptx.data, c->target, path, report, sizeof report, err, sizeof err);
  c->times.ptxas_ms = now_ms() - start;
  if (!ok) {
    unlink(path);
    return fail(c, "%s", err);
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    unlink(path);
    return fail(c, "cannot read the cubin ptxas wrote: %s", strerror(errno));
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  /* Straight into the result's buffer (len + 1 bytes from the context's allocator). */
  c->cubin.data = size > 0 ? ctx_raw_alloc(c->ctx, (size_t)size + 1) : NULL;
  ok = c->cubin.data && fread(c->cubin.data, 1, (size_t)size, f) == (size_t)size;
  fclose(f);
  unlink(path);
  if (c->cubin.data) {
    c->cubin.len = (size_t)size;
    c->cubin.data[size] = 0;
  }
  if (!ok) return fail(c, "cannot read the cubin ptxas wrote");
  return own_copy(c->ctx, &c->ptxas_report, report, strlen(report));
}

/* The kernel attributes that come from compile options rather than from the IR
 * (waves_per_eu), set on the lowered kernel function. */
static bool amdgpu_kernel_attributes(gemmc_compiled *c) {
  LLVMValueRef fn = LLVMGetNamedFunction(c->llvm_module, c->kernel.name);
  if (!fn) return fail(c, "internal error: the LLVM module has no kernel '%s'", c->kernel.name);
  gemmc_amdgpu_kernel_attrs attrs;
  memset(&attrs, 0, sizeof attrs);
  attrs.max_threads = c->kernel.threads_per_block;
  attrs.waves_per_eu = c->opts.waves_per_eu;
  gemmc_target_amdgpu_mark_kernel(c->llvm_module, fn, &attrs);
  return true;
}

/* AMDGCN text, then (HSACO) the object, ld.lld's code object and its metadata note, which is
 * where kernel.json's AMD facts come from. */
static bool emit_amdgpu(gemmc_compiled *c) {
  char err[4096];
  char *text = NULL;
  size_t len = 0;
  double start = now_ms();
  if (!gemmc_target_codegen_amdgpu_asm(c->target, c->llvm_module, c->opts.opt_level, &text, &len, err, sizeof err))
    return fail(c, "AMDGCN emission failed: %s", err);
  bool ok = own_copy(c->ctx, &c->amdgcn, text, len);
  free(text);
  if (!ok) return false;
  if (c->opts.stage < GEMMC_STAGE_HSACO) {
    c->times.codegen_ms = now_ms() - start;
    return true;
  }
  void *obj = NULL, *hsaco = NULL;
  size_t obj_len = 0, hsaco_len = 0;
  /* Code generation mutates the module; nothing reads it afterwards. */
  ok = gemmc_target_codegen_amdgpu_object(c->target, c->llvm_module, c->opts.opt_level, &obj, &obj_len, err,
                                          sizeof err);
  c->times.codegen_ms = now_ms() - start;
  if (!ok) return fail(c, "AMDGPU object emission failed: %s", err);
  start = now_ms();
  ok = gemmc_target_link_hsaco(obj, obj_len, &hsaco, &hsaco_len, err, sizeof err);
  c->times.lld_ms = now_ms() - start;
  free(obj);
  if (!ok) return fail(c, "%s", err);
  ok = own_copy(c->ctx, &c->hsaco, hsaco, hsaco_len);
  free(hsaco);
  if (!ok) return false;
  if (!gemmc_amdgpu_read_code_object(c->hsaco.data, c->hsaco.len, &c->code_object, err, sizeof err))
    return fail(c, "internal error: reading the linked code object: %s", err);
  const gemmc_amdgpu_kernel_info *k = gemmc_amdgpu_code_object_kernel(c->code_object, c->kernel.name);
  if (!k) return fail(c, "internal error: the code object has no kernel '%s'", c->kernel.name);
  if (k->num_explicit_kernargs != c->kernel.num_args)
    return fail(c, "internal error: the code object's kernel '%s' has %d arguments but the tt.func has %d",
                c->kernel.name, k->num_explicit_kernargs, c->kernel.num_args);
  c->kernel.amdgpu = k;
  /* The note knows the static LDS; what the lowering allocated beyond it comes at launch. */
  int64_t lowered = c->kernel.static_shared_bytes + c->kernel.dynamic_shared_bytes; /* all the lowering placed */
  c->kernel.static_shared_bytes = k->group_segment_fixed_size;
  c->kernel.dynamic_shared_bytes = lowered > k->group_segment_fixed_size ? lowered - k->group_segment_fixed_size : 0;
  return true;
}

static bool lower_and_emit(gemmc_compiled *c, ir_op *module) {
  c->llvm_ctx = LLVMContextCreate();
  gemmc_lowered_kernel lowered[4];
  int num_lowered = 0;
  memset(lowered, 0, sizeof lowered);
  double start = now_ms();
  if (!gemmc_lower_to_llvm(c->ctx, module, c->target, !c->opts.disable_fp_fusion, c->llvm_ctx, &c->llvm_module, lowered,
                           4, &num_lowered))
    return false;
  c->times.lower_ms = now_ms() - start;
  if (!c->llvm_module) return fail(c, "internal error: lowering made no LLVM module");
  /* The lowering names kernels by their tt.func name; the LLVM function is the escaped symbol. */
  const gemmc_lowered_kernel *k = NULL;
  for (int i = 0; i < num_lowered && !k; i++)
    if (lowered[i].name && strcmp(lowered[i].name, c->kernel.source_name) == 0) k = &lowered[i];
  if (!k) return fail(c, "internal error: the lowering made no kernel '%s'", c->kernel.source_name);
  if (k->num_params != c->kernel.num_args)
    return fail(c, "internal error: the lowered kernel '%s' has %d parameters but the tt.func has %d",
                c->kernel.source_name, k->num_params, c->kernel.num_args);
  if (k->num_warps > 0) c->kernel.num_warps = k->num_warps;
  if (k->threads_per_warp > 0) c->kernel.threads_per_warp = k->threads_per_warp;
  if (k->threads_per_block > 0) c->kernel.threads_per_block = k->threads_per_block;
  /* The buffers live in the dynamic array; fixed-size arrays need nothing at launch. */
  c->kernel.static_shared_bytes = k->static_shared_bytes;
  c->kernel.dynamic_shared_bytes = k->shared_bytes > k->static_shared_bytes ? k->shared_bytes - k->static_shared_bytes : 0;
  /* A kernel that asks for more shared memory than a block can have would only fail at launch. */
  int64_t shared = c->kernel.static_shared_bytes + c->kernel.dynamic_shared_bytes;
  if (shared > c->target->shared_mem_per_block)
    return fail(c, "the kernel needs %lld bytes of shared memory per block; %s allows at most %d (smaller tiles or "
                "fewer pipeline stages)", (long long)shared, c->target->name, c->target->shared_mem_per_block);

  char err[4096];
  bool amd = c->target->arch == GEMMC_ARCH_AMDGPU;
  if (amd && !amdgpu_kernel_attributes(c)) return false;
  /* One -O pipeline, in place: its result is both the LLVM IR we keep and what the code
   * generator gets (optimizing a clone for the PTX and the module again for the text doubled
   * the LLVM time). */
  start = now_ms();
  if (!gemmc_target_optimize(c->target, c->llvm_module, c->opts.opt_level, err, sizeof err))
    return fail(c, "LLVM optimization failed: %s", err);
  c->times.llvm_opt_ms = now_ms() - start;
  if ((c->opts.stage == GEMMC_STAGE_LLVM || c->opts.keep_llvm_ir) && !keep_llvm_text(c)) return false;
  if (amd) return c->opts.stage >= GEMMC_STAGE_AMDGCN ? emit_amdgpu(c) : true;
  if (c->opts.stage >= GEMMC_STAGE_PTX) {
    char *ptx = NULL;
    size_t len = 0;
    start = now_ms();
    /* Code generation mutates the module; nothing reads it afterwards. */
    bool emitted = gemmc_target_codegen_ptx(c->target, c->llvm_module, c->opts.opt_level, &ptx, &len, err, sizeof err);
    c->times.codegen_ms = now_ms() - start;
    if (!emitted)
      return fail(c, "PTX emission failed: %s", err);
    bool ok = own_copy(c->ctx, &c->ptx, ptx, len);
    free(ptx);
    if (!ok) return false;
  }
  if (c->opts.stage >= GEMMC_STAGE_CUBIN && !assemble_cubin(c)) return false;
  return true;
}

/* The option rules gemmc.h states that need no target, each with its own message. */
static bool check_options(gemmc_compiled *c, const char *text, size_t len) {
  const gemmc_compile_options *o = &c->opts;
  if (!text && len) return fail(c, "gemmc_compile: text is NULL but len is %zu", len);
  if ((unsigned)o->stage > (unsigned)GEMMC_STAGE_HSACO)
    return fail(c, "gemmc_compile: stage must be GEMMC_STAGE_TTGIR .. GEMMC_STAGE_HSACO, got %d", (int)o->stage);
  if (o->opt_level < 0 || o->opt_level > 3) return fail(c, "optimization level must be 0..3, got %d", o->opt_level);
  if (o->num_warps < 0 || o->num_warps > 32 || (o->num_warps & (o->num_warps - 1)))
    return fail(c, "num-warps must be a power of two from 1 to 32, got %d", o->num_warps);
  if (o->num_stages < 0 || o->num_stages > GEMMC_MAX_NUM_STAGES)
    return fail(c, "num-stages must be 0 (the default, 3) or 1 .. %d, got %d", GEMMC_MAX_NUM_STAGES, o->num_stages);
  if (o->num_defines < 0) return fail(c, "gemmc_compile: num_defines must not be negative, got %d", o->num_defines);
  if (o->num_defines > 0 && !o->defines)
    return fail(c, "gemmc_compile: num_defines is %d but defines is NULL", o->num_defines);
  if (o->tma < -1 || o->tma > 1) return fail(c, "gemmc_compile: tma must be -1 (off), 0 (auto) or 1 (on), got %d", o->tma);
  if (o->warp_specialize < -1 || o->warp_specialize > GEMMC_WARP_SPECIALIZE_ON)
    return fail(
        c,
        "gemmc_compile: warp_specialize must be 0 (where measured faster), -1 (never), 1 (ping-pong), 2 (pairs) "
        "or 3 (wherever legal), got %d",
        o->warp_specialize);
  if (o->cluster_size < 0 || o->cluster_size > 2)
    return fail(c, "gemmc_compile: cluster_size must be 0, 1 (no clusters) or 2, got %d", o->cluster_size);
  if (len > GEMMC_MAX_INPUT_BYTES)
    return fail(c, "%s: the input is %zu bytes; gemmc reads at most %zu MiB (%zu bytes)", c->filename, len,
                GEMMC_MAX_INPUT_BYTES >> 20, GEMMC_MAX_INPUT_BYTES);
  return true;
}

static const char *stage_name(gemmc_stage s) {
  static const char *const names[] = {"ttgir", "llvm", "ptx", "cubin", "amdgcn", "hsaco"};
  return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

/* PTX and cubins are NVIDIA's, AMDGCN and code objects AMD's. */
static bool stage_fits_target(gemmc_compiled *c) {
  gemmc_stage s = c->opts.stage;
  bool nvidia_stage = s == GEMMC_STAGE_PTX || s == GEMMC_STAGE_CUBIN;
  bool amd_stage = s == GEMMC_STAGE_AMDGCN || s == GEMMC_STAGE_HSACO;
  if (nvidia_stage && c->target->arch != GEMMC_ARCH_NVPTX)
    return fail(c, "target %s: --emit=%s is for NVIDIA targets (AMD targets emit amdgcn or hsaco)", c->target->name,
                stage_name(s));
  if (amd_stage && c->target->arch != GEMMC_ARCH_AMDGPU)
    return fail(c, "target %s: --emit=%s is for AMD targets (gfx90a, gfx942)", c->target->name, stage_name(s));
  return true;
}

static bool compile_steps(gemmc_compiled *c, const char *text, size_t len) {
  gemmc_context *ctx = c->ctx;
  char err[1024];
  if (!check_options(c, text, len)) return false;
  if (!text) text = ""; /* len is 0 */
  c->target = gemmc_target_lookup(c->opts.target ? c->opts.target : DEFAULT_TARGET, err, sizeof err);
  if (!c->target) return fail(c, "%s", err);
  /* num_warps is at most 32 (check_options): the product cannot overflow. */
  if (c->opts.num_warps * c->target->warp_size > c->target->max_threads_per_block)
    return fail(c, "num-warps %d: %d threads per block exceed %s's %d", c->opts.num_warps,
                c->opts.num_warps * c->target->warp_size, c->target->name, c->target->max_threads_per_block);
  if (!gemmc_target_amdgpu_check_options(c->target, c->opts.waves_per_eu, c->opts.matrix_instr_nonkdim,
                                         c->opts.kpack, err, sizeof err))
    return fail(c, "%s", err);
  if (!stage_fits_target(c)) return false;

  double start = now_ms();
  c->original.name = c->filename;
  c->original.text = ir_strdup(ctx, text, len);
  c->original.len = len;
  if (!defines_expand(ctx, &c->original, c->opts.defines, c->opts.num_defines, &c->expansion)) return false;

  ir_op *module = ir_parse_module(ctx, c->expansion.text, c->expansion.len, c->filename);
  if (!module || ir_error_count(ctx) != c->errors_before) return false;
  if (!ir_verify(ctx, module)) return false;
  c->times.parse_ms = now_ms() - start;
  start = now_ms();
  if (!to_ttgir(c, module)) return false;
  if (!ir_verify(ctx, module)) return false;
  c->times.passes_ms = now_ms() - start;
  if ((c->opts.stage == GEMMC_STAGE_TTGIR || c->opts.keep_ttgir) && !keep_ttgir(c, module)) return false;
  if (!metadata_from_module(ctx, module, &c->kernel)) return false;
  c->kernel.target = c->target->name;
  c->kernel.ptx_version = c->target->ptx_version;
  c->kernel.num_constants = c->expansion.num_constants;
  c->kernel.constant_names = c->expansion.constant_names;
  c->kernel.constant_values = c->expansion.constant_values;
  c->has_kernel = true;
  if (c->opts.stage >= GEMMC_STAGE_LLVM && !lower_and_emit(c, module)) return false;
  c->json.data = metadata_to_json(ctx, &c->kernel, &c->json.len);
  return c->json.data != NULL;
}

/* Results for the two failures that leave no context memory to describe them: they are static,
 * hold one diagnostic, and gemmc_compiled_destroy knows not to free them. */
#define NO_CONTEXT_TEXT "error: gemmc_compile: ctx is NULL\n"
#define NO_RESULT_MEMORY_TEXT "error: out of memory (allocating the compile result)\n"
static const gemmc_compiled no_context_result = {
    .diagnostics = {.data = (char *)NO_CONTEXT_TEXT, .len = sizeof NO_CONTEXT_TEXT - 1}};
static const gemmc_compiled out_of_memory_result = {
    .diagnostics = {.data = (char *)NO_RESULT_MEMORY_TEXT, .len = sizeof NO_RESULT_MEMORY_TEXT - 1}};

/* Appends message; when memory is gone, it overwrites the end of what is there instead (the
 * buffer always has the 1 KiB reserved at the start), so a failed result always ends with an
 * error line. */
static void put_final_error(strbuf *b, const char *message) {
  size_t n = strlen(message), before = b->len;
  sb_put(b, message, n);
  if (b->len == before + n || b->cap <= n) return;
  size_t at = b->len < b->cap - n - 1 ? b->len : b->cap - n - 1;
  memcpy(b->data + at, message, n + 1);
  b->len = at + n;
}

static bool is_static_result(const gemmc_compiled *c) {
  return c == &no_context_result || c == &out_of_memory_result;
}

bool gemmc_compile(gemmc_context *ctx, const char *text, size_t len, const char *filename,
                   const gemmc_compile_options *opts, gemmc_compiled **out) {
  if (!out) return false; /* nowhere to put a result: the one misuse with no diagnostic */
  *out = (gemmc_compiled *)&no_context_result;
  if (!ctx) return false;
  *out = (gemmc_compiled *)&out_of_memory_result;
  /* Each compile starts with a clean memory state: an earlier one that ran out does not count. */
  ctx->out_of_memory = false;
  ctx->over_memory_limit = false;
  jmp_buf no_memory;
  jmp_buf *outer = ctx->bailout;
  ctx->bailout = &no_memory;
  gemmc_compiled *volatile allocated = NULL;
  if (setjmp(no_memory) == 0) allocated = ctx_raw_alloc(ctx, sizeof *allocated);
  ctx->bailout = outer;
  gemmc_compiled *c = allocated;
  if (!c) return false;
  memset(c, 0, sizeof *c);
  c->ctx = ctx;
  sb_init(&c->diagnostics, ctx);
  /* Room for the out-of-memory message, taken while there is memory: the message must get
   * into the result even when the compile stopped at the context's memory limit. */
  if (setjmp(no_memory) == 0) {
    ctx->bailout = &no_memory;
    sb_reserve(&c->diagnostics, 1024);
  }
  ctx->bailout = outer;
  if (c->diagnostics.cap < 1024) {
    sb_free(&c->diagnostics);
    ctx_raw_free(ctx, c, sizeof *c);
    return false; /* *out is out_of_memory_result */
  }
  if (opts) c->opts = *opts;
  else gemmc_compile_options_init(&c->opts);
  *out = c;

  /* Diagnostics go to this result only; the caller's handler is back in place afterwards. */
  ir_diag_handler saved_handler = ctx->diag;
  void *saved_user = ctx->diag_user;
  jmp_buf *saved_bailout = ctx->bailout;
  c->errors_before = ctx->num_errors;
  ir_set_diag_handler(ctx, collect_diagnostic, c);
  jmp_buf out_of_memory;
  ctx->bailout = &out_of_memory;
  double start = now_ms();
  if (setjmp(out_of_memory) == 0) {
    c->filename = ir_intern_string(ctx, filename ? filename : "<input>", strlen(filename ? filename : "<input>"));
    c->ok = compile_steps(c, text, len) && ctx->num_errors == c->errors_before;
  } else {
    c->ok = false;
    ctx->bailout = saved_bailout; /* the diagnostic below must not unwind here again */
    char message[160];
    if (gemmc_context_over_memory_limit(ctx))
      snprintf(message, sizeof message, "error: out of memory: the compile needs more than the context's limit of %zu MiB\n",
               ctx->memory_limit >> 20);
    else
      snprintf(message, sizeof message, "error: out of memory\n");
    put_final_error(&c->diagnostics, message);
  }
  ctx->bailout = saved_bailout;
  ir_set_diag_handler(ctx, saved_handler, saved_user);
  c->times.total_ms = now_ms() - start;

  if (c->llvm_module) LLVMDisposeModule(c->llvm_module);
  if (c->llvm_ctx) LLVMContextDispose(c->llvm_ctx);
  c->llvm_module = NULL;
  c->llvm_ctx = NULL;
  if (!c->ok) {
    /* A failed compile keeps its diagnostics only. */
    owned_text *texts[] = {&c->ttgir, &c->llvm_ir, &c->ptx, &c->cubin, &c->ptxas_report, &c->json,
                           &c->amdgcn, &c->hsaco};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) own_free(ctx, texts[i]);
    gemmc_amdgpu_code_object_free(c->code_object);
    c->code_object = NULL;
    c->kernel.amdgpu = NULL;
    c->has_kernel = false;
    if (!c->diagnostics.len) put_final_error(&c->diagnostics, "error: compilation failed\n");
  }
  return c->ok;
}

void gemmc_compiled_destroy(gemmc_compiled *c) {
  if (!c || is_static_result(c)) return;
  gemmc_context *ctx = c->ctx;
  owned_text *texts[] = {&c->ttgir, &c->llvm_ir, &c->ptx, &c->cubin, &c->ptxas_report, &c->json,
                         &c->amdgcn, &c->hsaco};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) own_free(ctx, texts[i]);
  gemmc_amdgpu_code_object_free(c->code_object);
  sb_free(&c->diagnostics);
  ctx_raw_free(ctx, c, sizeof *c);
}

/* ------------------------------------------------------------------ accessors */

/* Every accessor takes NULL (and the static results) and answers NULL / 0 / "". */
static const char *text_of(const gemmc_compiled *c, const owned_text *t, size_t *len) {
  const char *data = c ? t->data : NULL;
  if (len) *len = data ? t->len : 0;
  return data;
}

bool gemmc_compiled_ok(const gemmc_compiled *c) { return c && c->ok; }
const char *gemmc_compiled_diagnostics(const gemmc_compiled *c) {
  return c && c->diagnostics.data ? c->diagnostics.data : "";
}
const char *gemmc_compiled_ttgir(const gemmc_compiled *c, size_t *len) { return text_of(c, c ? &c->ttgir : NULL, len); }
const char *gemmc_compiled_llvm_ir(const gemmc_compiled *c, size_t *len) { return text_of(c, c ? &c->llvm_ir : NULL, len); }
const char *gemmc_compiled_ptx(const gemmc_compiled *c, size_t *len) { return text_of(c, c ? &c->ptx : NULL, len); }
const void *gemmc_compiled_cubin(const gemmc_compiled *c, size_t *len) { return text_of(c, c ? &c->cubin : NULL, len); }
const char *gemmc_compiled_amdgcn(const gemmc_compiled *c, size_t *len) { return text_of(c, c ? &c->amdgcn : NULL, len); }
const void *gemmc_compiled_hsaco(const gemmc_compiled *c, size_t *len) { return text_of(c, c ? &c->hsaco : NULL, len); }
const char *gemmc_compiled_ptxas_report(const gemmc_compiled *c) { return c ? c->ptxas_report.data : NULL; }
const gemmc_phase_times *gemmc_compiled_phase_times(const gemmc_compiled *c) { return c ? &c->times : NULL; }
const gemmc_kernel_metadata *gemmc_compiled_kernel(const gemmc_compiled *c) {
  return c && c->has_kernel ? &c->kernel : NULL;
}
const char *gemmc_kernel_constant(const gemmc_kernel_metadata *kernel, const char *name) {
  for (int i = 0; kernel && name && i < kernel->num_constants; i++)
    if (!strcmp(kernel->constant_names[i], name)) return kernel->constant_values[i];
  return NULL;
}

const char *gemmc_compiled_metadata_json(const gemmc_compiled *c, size_t *len) {
  return text_of(c, c ? &c->json : NULL, len);
}

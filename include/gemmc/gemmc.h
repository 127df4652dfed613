/* gemmc public compile API: .tir text (Triton TTIR or TTGIR) -> TTGIR, LLVM IR, PTX, cubin and kernel metadata. */
#ifndef GEMMC_GEMMC_H
#define GEMMC_GEMMC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ context
 *
 * A gemmc_context owns all IR memory (an arena), interned types and attributes. It is the same
 * handle as in gemmc/ir.h; the declarations are repeated so that this header needs no other.
 * One context per thread; a context may compile many kernels (each compile's IR stays in its
 * arena until gemmc_context_destroy). */
typedef struct gemmc_context gemmc_context;
/* Owned by the caller: free with gemmc_context_destroy. NULL when out of memory. */
gemmc_context *gemmc_context_create(void);
/* Frees everything the context made. Every gemmc_compiled made with it must be destroyed first. */
void gemmc_context_destroy(gemmc_context *ctx);

/* Library version string ("0.1.0", what kernel.json records); static, never free it. */
const char *gemmc_version(void);

/* ------------------------------------------------------------------ options */

/* How far gemmc_compile goes. Later stages include the earlier ones' results, except the TTGIR
 * and LLVM IR texts, which stages past GEMMC_STAGE_TTGIR / GEMMC_STAGE_LLVM keep only with
 * keep_ttgir / keep_llvm_ir (printing them costs a tenth of a compile or more). */
typedef enum gemmc_stage {
  GEMMC_STAGE_TTGIR, /* parse, verify, assign layouts and coalesce (TTIR input) */
  GEMMC_STAGE_LLVM,  /* ... and lower to LLVM IR */
  GEMMC_STAGE_PTX,   /* ... and emit PTX (the default) */
  GEMMC_STAGE_CUBIN, /* ... and assemble with ptxas (must be on PATH) */
  /* AMD targets (gfx90a, gfx942) stop at these instead of PTX / CUBIN: */
  GEMMC_STAGE_AMDGCN, /* ... and emit AMDGCN assembly (LLVM IR as for LLVM) */
  GEMMC_STAGE_HSACO,  /* ... and a linked code object (.hsaco; needs ld.lld from LLVM 19) */
} gemmc_stage;

/* A compile-time constant: every `$NAME` / `${NAME}` in the .tir text becomes `value`
 * (see docs/ir.md, "Compile-time constants"). Both strings are the caller's. */
typedef struct gemmc_define {
  const char *name;
  const char *value;
} gemmc_define;

typedef struct gemmc_compile_options {
  const char *target;   /* "sm_80" .. "sm_90a", "gfx90a", "gfx942"; NULL: "sm_90a" */
  int num_warps;        /* 0: the module's ttg.num-warps, else 4 (TTIR) */
  int num_stages;       /* K-loop software pipelining depth for TTIR (shared-memory stages); 0: 3, 1: off, at most 8 */
  int opt_level;        /* LLVM pipeline default<O0..3> */
  gemmc_stage stage;    /* where to stop */
  const gemmc_define *defines; /* caller-owned array of num_defines entries */
  int num_defines;
  bool verify_each;     /* run the IR verifier after every pass (it always runs after parsing) */
  /* AMD targets only, with Triton's meaning (HIPOptions); 0 everywhere means "not set", and a
   * non-zero value with an NVIDIA target is an error. */
  int waves_per_eu;         /* 1..8 waves per SIMD wanted: "amdgpu-waves-per-eu"="N, N"; 0: no limit */
  int matrix_instr_nonkdim; /* MFMA M = N: 16 or 32; 0: chosen per dot (32 when the tile allows) */
  int kpack;                /* 1 or 2 MFMA K-groups per LDS read (kWidth = kBase * kpack); 0: 1 */
  /* NVIDIA sm_90+ operand paths for TTIR K loops. warp_specialize: 0 (default) makes a persistent
   * warp-specialized kernel (producer + consumer warpgroups) where legal on sm_90a and measured
   * faster: kernels of 4 warps with >= 32 KiB ring stages (two consumer groups; slower at 2048^3
   * and below, where -1 keeps cp.async rings), and kernels of 8 warps that load through tensor
   * descriptors, whose K loop asks for it (Triton's tl.range(..., warp_specialize=True):
   * tt.warp_specialize) or that are compiled with cluster_size 2; other 8-warp pointer kernels
   * stay on cp.async rings, which measured 4-10% faster at K >= 2048 and 1-6% slower at K <= 1024
   * (docs/perf-notes.md, 59 and 61).
   * GEMMC_WARP_SPECIALIZE_ON: wherever legal (8 warps: two consumer warpgroups on one tile;
   * 4 warps: pairs). -1: never. For 4-warp kernels GEMMC_WARP_SPECIALIZE_PAIRS (what 0 chooses:
   * the groups run two programs at once from one copy of the B tile they share) or
   * GEMMC_WARP_SPECIALIZE_PING_PONG (the groups take alternate tiles) force the arrangement (and,
   * for 8-warp kernels, mean ON).
   * tma: 0 (default) uses TMA copies where the warp-specialized kernel takes them (measured
   * faster than cp.async only there), 1 wherever legal, -1 never. */
  int tma;
  int warp_specialize;
  bool keep_llvm_ir;    /* keep the optimized LLVM IR text (gemmc_compiled_llvm_ir) past GEMMC_STAGE_LLVM */
  /* Triton's enable_fp_fusion = False: round a * b + c twice. By default (false) floating-point
   * mulf / addf / subf may contract into fma, as Triton compiles them (LLVM's `contract`). */
  bool disable_fp_fusion;
  /* 0 or 1: none. 2: 8-warp kernels take the persistent warp-specialized kernel (cooperative)
   * where legal, and it becomes cluster-ready: launched in clusters of 2 blocks along x
   * (gemmc_kernel_metadata.cluster_size; gemmc_launch_config.cluster), the two blocks' tiles
   * share their B operand through TMA multicast when the programs they run read the same B tile.
   * The 4-warp pairs kernel (two programs per block sharing B) becomes cluster-ready too: the two
   * blocks run units whose programs read the same A tiles (the grouped order's neighbouring
   * columns), each block copying one of the two A tiles into both. Launched without clusters
   * either runs as without this option. Other kernels ignore it. */
  int cluster_size;
  bool keep_ttgir;      /* keep the TTGIR text (gemmc_compiled_ttgir) past GEMMC_STAGE_TTGIR */
} gemmc_compile_options;

enum { GEMMC_WARP_SPECIALIZE_PING_PONG = 1, GEMMC_WARP_SPECIALIZE_PAIRS = 2, GEMMC_WARP_SPECIALIZE_ON = 3 };

/* Fills *opts with the defaults: target sm_90a, num_warps 0, num_stages 3, opt_level 3, stage PTX, no defines.
 * NULL is ignored. */
void gemmc_compile_options_init(gemmc_compile_options *opts);

/* ------------------------------------------------------------------ kernel description */

typedef enum gemmc_arg_kind {
  GEMMC_ARG_POINTER, /* !tt.ptr<T>: pass a device address (8 bytes) */
  GEMMC_ARG_INT,     /* iN: pass an N-bit integer (i1 as 1 byte) */
  GEMMC_ARG_FLOAT,   /* f16/bf16/f32/f64: pass the value in its width */
  GEMMC_ARG_TENSOR_MAP, /* !tt.tensordesc<...> (a descriptor built on the host, Triton's TensorDescriptor):
                           pass a GEMMC_TENSOR_MAP_BYTES CUtensorMap by value, encoded with the
                           arg's tensor_map fields (gemmc_runtime_encode_tensor_map) */
} gemmc_arg_kind;

enum { GEMMC_TENSOR_MAP_BYTES = 128, GEMMC_TENSOR_MAP_ALIGN = 64 };

/* What a GEMMC_ARG_TENSOR_MAP argument's map must say besides the tensor's address, shape and
 * strides: the element type, the TMA box the kernel copies (not always the whole block: a block
 * wider than the swizzle moves as several boxes) and the swizzle of the kernel's shared layout. */
typedef struct gemmc_tensor_map_info {
  const char *elem;   /* element type as in the IR: "f16", "bf16", "f32", "i8", "f8E4M3FN", ... */
  int rank;           /* 1..5 */
  int block[5];       /* the descriptor's block shape, outermost first */
  int box[5];         /* the TMA box, outermost first */
  int swizzle_bytes;  /* 0 (none), 32, 64 or 128 */
} gemmc_tensor_map_info;

/* One kernel parameter, in the tt.func signature's order (the PTX parameter order). */
typedef struct gemmc_kernel_arg {
  const char *name;     /* source name without '%' ("x_ptr"), or "argN" */
  const char *type;     /* the IR type as written: "!tt.ptr<f32>", "i32" */
  gemmc_arg_kind kind;
  const char *pointee;  /* GEMMC_ARG_POINTER: element type ("f32"), else NULL */
  int size_bytes;       /* bytes of the value handed to the launch: 8 for pointers */
  int divisibility;     /* tt.divisibility promised to the compiler (1 when none): the launcher
                           must pass values (addresses for pointers) that are multiples of it */
  gemmc_tensor_map_info tensor_map; /* GEMMC_ARG_TENSOR_MAP only */
} gemmc_kernel_arg;

/* One entry of an AMDGPU kernel's kernarg segment as the code object's metadata note lists it:
 * the explicit arguments in signature order, then the hidden ones the HIP runtime fills. */
typedef struct gemmc_kernarg {
  int offset;                /* .offset: bytes from the start of the kernarg segment */
  int size;                  /* .size in bytes */
  const char *value_kind;    /* .value_kind: "by_value", "global_buffer", "hidden_block_count_x", ... */
  const char *address_space; /* .address_space of pointers ("global", "local"), else NULL */
  bool hidden;               /* value_kind starts with "hidden_": the runtime writes it, not the caller */
} gemmc_kernarg;

/* What an AMDGPU code object says about one kernel (its NT_AMDGPU_METADATA note, msgpack), read
 * back from the linked object, never re-derived. Names are the note's keys without the dot. */
typedef struct gemmc_amdgpu_kernel_info {
  const char *name;   /* .name: the kernel symbol */
  const char *symbol; /* .symbol: its kernel descriptor, "name.kd" */
  const char *target; /* amdhsa.target: "amdgcn-amd-amdhsa--gfx942" */
  int code_object_version;   /* from the ELF header's ABI version: 5 */
  int kernarg_segment_size;  /* bytes of kernarg segment, hidden arguments included */
  int kernarg_segment_align;
  int num_kernargs;          /* every .args entry, hidden ones included */
  const gemmc_kernarg *kernargs;
  int num_explicit_kernargs; /* entries that are not hidden: the kernel's own parameters */
  int64_t group_segment_fixed_size;   /* static LDS bytes (dynamic LDS is added at launch) */
  int64_t private_segment_fixed_size; /* scratch bytes per work-item: 0 unless registers spill */
  int vgpr_count, agpr_count, sgpr_count;
  int vgpr_spill_count, sgpr_spill_count;
  int wavefront_size;          /* 64 on CDNA */
  int max_flat_workgroup_size; /* the "amdgpu-flat-work-group-size" maximum */
  bool uses_dynamic_stack;
} gemmc_amdgpu_kernel_info;

typedef struct gemmc_kernel_metadata {
  const char *name;     /* the kernel symbol in the PTX: the tt.func name when it is a valid PTX
                           identifier of letters, digits and '_', else that name with every
                           other byte written $xx (a.b -> a$2eb, 1abc -> $31abc; see
                           gemmc_ptx_symbol_name in gemmc/target.h). Pass it to cuModuleGetFunction. */
  int num_args;
  const gemmc_kernel_arg *args;
  int num_warps;
  int threads_per_warp;
  int threads_per_block; /* launch blocks of (threads_per_block, 1, 1) */
  /* Blocks per cluster along x it is made for: 1, or 2 (cluster_size = 2 compiles: launch with
   * gemmc_launch_config.cluster_x = 2 when the grid's x is even; it also runs without clusters) */
  int cluster_size;
  int64_t static_shared_bytes;  /* declared in the PTX; needs nothing at launch */
  int64_t dynamic_shared_bytes; /* pass as the launch's dynamic shared memory (opt in above 48 KiB) */
  const char *target;    /* "sm_90a" */
  int ptx_version;       /* 85 is PTX ISA 8.5 */
  const char *grid_axes; /* the tt.get_program_id axes the kernel reads: "x", "xy", "" */
  /* The compile-time constants in effect (file defaults overridden by -D), e.g. BLOCK = "1024":
   * a host program reads its block sizes here to compute the grid. */
  int num_constants;
  const char *const *constant_names;
  const char *const *constant_values;
  /* AMD targets at the HSACO stage: the linked code object's metadata note for this kernel
   * (kernarg layout, LDS, scratch, registers); NULL otherwise. */
  const gemmc_amdgpu_kernel_info *amdgpu;
  const char *source_name; /* the tt.func name as written in the .tir (without '@') */
  /* The kernel may be launched behind another grid with programmatic stream serialization
   * (cuLaunchKernelEx's CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION; see
   * GEMMC_PROGRAMMATIC_LAUNCH_GLOBAL in gemmc/runtime.h); a plain launch is always correct too. */
  bool programmatic_launch;
} gemmc_kernel_metadata;

/* The value of constant `name` of a compiled kernel, or NULL (also when kernel or name is NULL).
 * Owned by the compile result. */
const char *gemmc_kernel_constant(const gemmc_kernel_metadata *kernel, const char *name);

/* ------------------------------------------------------------------ compiling */

typedef struct gemmc_compiled gemmc_compiled;

/* Compiles one .tir module (len bytes of text; need not be NUL-terminated; the text is copied)
 * with one public tt.func. filename is used in diagnostics (NULL: "<input>"). opts NULL means
 * gemmc_compile_options_init's defaults.
 *
 * Returns true on success. Whenever out is not NULL, *out is set, on success and on failure,
 * and is never NULL: on failure the result holds at least one diagnostic
 * (gemmc_compiled_diagnostics), including for the misuses below. The caller frees it with
 * gemmc_compiled_destroy (before destroying ctx). Nothing is printed; the library never exits,
 * aborts or lets LLVM exit the process. Not thread-safe with respect to ctx.
 *
 * Rules, each checked, each failing with its own diagnostic:
 * - out NULL: returns false, nothing else (there is nowhere to put a result);
 * - ctx NULL: false, and *out is a static result saying so (gemmc_compiled_destroy ignores it);
 * - text NULL with len > 0; len over GEMMC_MAX_INPUT_BYTES (gemmc/limits.h, 8 MiB);
 * - opts->stage outside GEMMC_STAGE_TTGIR .. GEMMC_STAGE_HSACO;
 * - opts->opt_level outside 0..3; opts->num_warps not 0 or a power of two up to 32;
 *   opts->num_stages outside 0..8; opts->tma outside -1..1; opts->warp_specialize outside -1..2;
 *   opts->num_defines negative, or positive with defines NULL;
 *   a define with a NULL or malformed name or a NULL, empty or multi-line value;
 * - opts->target not a known target name; num_warps warps more threads than the target's block
 *   holds; a stage of the other vendor (PTX / CUBIN for AMD, AMDGCN / HSACO for NVIDIA);
 *   waves_per_eu, matrix_instr_nonkdim or kpack non-zero for NVIDIA, or out of range for AMD;
 * - a kernel that needs more shared memory per block than the target has (it could not launch);
 * - running out of memory (the allocator, or the context's memory limit): "out of memory". */
bool gemmc_compile(gemmc_context *ctx, const char *text, size_t len, const char *filename,
                   const gemmc_compile_options *opts, gemmc_compiled **out);

/* Frees a compile result (NULL is ignored). */
void gemmc_compiled_destroy(gemmc_compiled *c);

/* Every accessor returns memory owned by c (valid until gemmc_compiled_destroy), or NULL/0 when
 * the stage was not reached. Texts are NUL-terminated; *len (when given) excludes the NUL.
 * Every accessor accepts c == NULL: NULL (0 in *len), false, or "" for the diagnostics. */
bool gemmc_compiled_ok(const gemmc_compiled *c);
/* All errors, warnings and notes, formatted `file:line:col: error: message` with the source
 * line and a caret; "" when there were none. */
const char *gemmc_compiled_diagnostics(const gemmc_compiled *c);
/* After gemmc's passes; past GEMMC_STAGE_TTGIR only with opts.keep_ttgir. */
const char *gemmc_compiled_ttgir(const gemmc_compiled *c, size_t *len);
/* After the O-level pipeline; past GEMMC_STAGE_LLVM only with opts.keep_llvm_ir. */
const char *gemmc_compiled_llvm_ir(const gemmc_compiled *c, size_t *len);
const char *gemmc_compiled_ptx(const gemmc_compiled *c, size_t *len);
const char *gemmc_compiled_amdgcn(const gemmc_compiled *c, size_t *len); /* AMDGCN assembly text */
const void *gemmc_compiled_hsaco(const gemmc_compiled *c, size_t *len);  /* linked code object */
const void *gemmc_compiled_cubin(const gemmc_compiled *c, size_t *len);
/* ptxas -v's report (registers, spills, shared memory) when the cubin stage ran, else NULL. */
const char *gemmc_compiled_ptxas_report(const gemmc_compiled *c);
const gemmc_kernel_metadata *gemmc_compiled_kernel(const gemmc_compiled *c);

/* Wall-clock milliseconds of each compile phase (what `gemmc --time` prints); 0 for a phase the
 * compile did not reach. Process start-up (loading libLLVM) happens before and is not counted. */
typedef struct gemmc_phase_times {
  double parse_ms;    /* -D expansion, parsing, verification */
  double passes_ms;   /* TTGIR passes (assign-layouts .. remove-layout-conversions), verification */
  double lower_ms;    /* TTGIR -> LLVM IR */
  double llvm_opt_ms; /* the LLVM -O pipeline */
  double codegen_ms;  /* LLVM NVPTX (or AMDGPU: assembly and object) code generation */
  double ptxas_ms;    /* ptxas, for --emit=cubin */
  double total_ms;    /* all of gemmc_compile, including what the phases above leave out */
  double lld_ms;      /* ld.lld, for --emit=hsaco */
} gemmc_phase_times;
const gemmc_phase_times *gemmc_compiled_phase_times(const gemmc_compiled *c);
/* kernel.json: everything a host program needs to launch the PTX without gemmc. */
const char *gemmc_compiled_metadata_json(const gemmc_compiled *c, size_t *len);

#ifdef __cplusplus
}
#endif
#endif /* GEMMC_GEMMC_H */

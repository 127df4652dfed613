/* Private interfaces of gemmc_matmul: the config table, kernel arguments by slot, kernel keys, selection and tuning. */
#ifndef GEMMC_MATMUL_INTERNAL_H
#define GEMMC_MATMUL_INTERNAL_H

#include "gemmc/cache.h"
#include "gemmc/matmul.h"

/* ------------------------------------------------------------------ the config table (matmul_configs.c) */

/* The kinds of arithmetic a row serves; each row serves one. */
typedef enum mm_class {
  MM_CLASS_F16,  /* f16 / bf16 inputs on tensor cores (f32 or f16 accumulation) */
  MM_CLASS_TF32, /* f32 inputs rounded to tf32 on tensor cores */
  MM_CLASS_F32,  /* f32 inputs, full f32 (FMA) */
  MM_CLASS_I8,   /* int8 inputs, int32 accumulation */
  MM_CLASS_F8,   /* fp8 inputs */
  MM_CLASS_COUNT
} mm_class;

/* One candidate kernel: a template and its compile-time choices, and what the model needs to
 * know about it. A new kernel variant (another template, extra -D constants) is one more row. */
typedef struct matmul_config {
  const char *name;     /* unique; tuning results and gemmc_handle_options.config name rows by it */
  const char *template_name;
  mm_class cls;
  int min_cc, max_cc;   /* compute capability range, e.g. 80 .. 0 (0: no upper bound) */
  int block_m, block_n, block_k, group_m, num_warps, num_stages;
  int max_split_k;      /* 1: never split K */
  double efficiency;    /* fraction of the class's peak it reaches once the GPU is full */
  int blocks_per_sm;    /* blocks resident per SM (registers and shared memory allow) */
  const char *defines;  /* extra "NAME=VALUE NAME=VALUE" constants for the template, or NULL */
  /* sm_90 operand path: 0 warp-specialized wherever legal (GEMMC_WARP_SPECIALIZE_ON: wgmma
   * kernels of 8 warps, or of 4 with 32 KiB stages, two 16 KiB K steps per stage at 128x128x32:
   * TMA + persistent warp specialization, 4-warp ones as pairs), 1 the same with
   * ping-pong consumer groups (warp_specialize = GEMMC_WARP_SPECIALIZE_PING_PONG), 2 cp.async
   * rings only (gemmc_compile_options tma = warp_specialize = -1), 3 path 0 made cluster-ready
   * (cluster_size 2: 2-block clusters sharing B tiles through TMA multicast where the grid's x is
   * even; the model counts half of B's L2 reads). */
  int path;
  /* Fixed cost of one launch beyond the machine's launch time (microseconds): the persistent
   * warp-specialized kernels build tensor maps and barriers once per block. */
  double setup_us;
  /* The efficiency's factor when tile rows start 16 bytes off a 32-byte sector
   * (mm_operand_rows_off_sector): A's rows only, B's only, both. Measured per row (1.00 where
   * not measured); TMA and cp.async pay differently, and a multicast B pays half. */
  double off_sector[3];
} matmul_config;

/* The model's constants for a range of GPUs. */
typedef struct matmul_machine {
  int min_cc, max_cc;
  double peak_tflops_per_sm[MM_CLASS_COUNT]; /* dense peak of one SM */
  double dram_gbytes_per_s, l2_gbytes_per_s; /* whole GPU */
  double launch_us;                          /* fixed cost of one kernel */
  /* What each tile after an SM's first costs a kernel that is not persistent (its ring filled
   * again, its epilogue not overlapped), shared among the blocks resident on the SM. */
  double tile_start_us;
} matmul_machine;

extern const matmul_config matmul_configs[];
extern const int matmul_num_configs;
extern const matmul_machine matmul_machines[];
extern const int matmul_num_machines;
/* The reduce kernel of split-K: its tile and warps. */
extern const int matmul_reduce_block_m, matmul_reduce_block_n, matmul_reduce_num_warps;
/* Split factors the model considers, ascending. */
extern const int matmul_split_choices[];
extern const int matmul_num_split_choices;

/* ------------------------------------------------------------------ kernel arguments */

/* Every argument a matmul template may take, by its name in the template's signature. A launch
 * fills one value per slot; a loaded kernel maps its parameters to slots by name. */
#define MM_SLOTS(X)                                                                                \
  X(A_PTR, "a_ptr") X(B_PTR, "b_ptr") X(C_PTR, "c_ptr") X(D_PTR, "d_ptr") X(BIAS_PTR, "bias_ptr")  \
  X(WS_PTR, "ws_ptr") X(FLAGS_PTR, "flags_ptr") X(M, "M") X(N, "N") X(K, "K") X(SPLITS, "splits")     \
  X(BATCH, "batch") X(SHARED_TILES, "shared_tiles") X(WAYS, "ways")                                \
  X(STRIDE_AM, "stride_am") X(STRIDE_AK, "stride_ak") X(STRIDE_BK, "stride_bk")                    \
  X(STRIDE_BN, "stride_bn") X(STRIDE_CM, "stride_cm") X(STRIDE_CN, "stride_cn")                    \
  X(STRIDE_DM, "stride_dm") X(STRIDE_DN, "stride_dn") X(STRIDE_AB, "stride_ab")                    \
  X(STRIDE_BB, "stride_bb") X(STRIDE_CB, "stride_cb") X(STRIDE_DB, "stride_db")                    \
  X(STRIDE_DZ, "stride_dz") X(STRIDE_WZ, "stride_wz") X(ALPHA, "alpha") X(BETA, "beta")            \
  X(SLOPE, "slope")

typedef enum mm_slot {
#define MM_SLOT_ENUM(id, name) MM_SLOT_##id,
  MM_SLOTS(MM_SLOT_ENUM)
#undef MM_SLOT_ENUM
  MM_SLOT_COUNT
} mm_slot;
/* mm_spec keeps one bit per slot in `unit` and two in `div`. */
_Static_assert(MM_SLOT_COUNT <= 32, "mm_spec's fact bit sets hold at most 32 slots");

extern const char *const mm_slot_names[MM_SLOT_COUNT];
/* Slots that are pointers (divisibility counts bytes) and the scalars (no divisibility). */
bool mm_slot_is_pointer(mm_slot s);
bool mm_slot_is_scalar_float(mm_slot s);

/* ------------------------------------------------------------------ problems in kernel coordinates */

typedef enum mm_acc { MM_ACC_F32, MM_ACC_F16, MM_ACC_I32 } mm_acc;

/* What a kernel is compiled for besides its config: types, epilogue, and the facts about the
 * argument values it may rely on (divisibility, unit strides). Plain bytes: compared and
 * hashed with memcmp. */
typedef struct mm_spec {
  uint8_t kind;      /* MM_KIND_* */
  uint8_t at, out;   /* gemmc_datatype of A/B and of C/D/bias */
  uint8_t acc;       /* mm_acc */
  uint8_t tf32;
  uint8_t has_alpha, has_c, has_bias, act;
  uint8_t split;     /* gemm: this kernel stores raw split-K partial sums */
  uint16_t config;   /* row of matmul_configs (gemm), 0 for the reduce kernel */
  uint32_t unit;     /* bit s: slot s's value is 1 (strides) */
  uint64_t div;      /* mm_div_*: what slot s's value divides by (pointers: bytes) */
} mm_spec;

/* The divisibility facts of the slots, two bits each: a value divides by 1, 4, 8 or 16 (the
 * largest that holds; a pointer's counts bytes). 8 is what an f16 row of a leading dimension
 * like 1000 has: 16-byte rows, enough for vector loads and TMA, where 16 would be untrue. */
uint64_t mm_div_of_values(const uint64_t *values);
/* What `div` says slot s divides by: 1, 4, 8 or 16. */
int mm_div_of_slot(uint64_t div, mm_slot s);
/* `div` with only the slots of the bit set `slots` kept. */
uint64_t mm_div_keep(uint64_t div, uint32_t slots);
/* Whether the tile rows of kernel operand 'a' or 'b' (elements of elem_bytes; unit and div as in
 * mm_spec) may start 16 bytes off a 32-byte sector: the stride between them (and the batch
 * stride) is not known to be a multiple of 32 bytes. False for 1-byte elements, whose facts
 * (divisible by 16 at most) cannot show 32, and for operands with no unit stride (no vectors). */
bool mm_operand_rows_off_sector(uint32_t unit, uint64_t div, int elem_bytes, char operand);

enum { MM_KIND_GEMM = 1, MM_KIND_REDUCE = 2 };

/* A gemmc_matmul_desc moved into the templates' row-major kernel coordinates (M = n, N = m,
 * A' = op(B)^T, B' = op(A)^T) with every argument value in its slot. */
typedef struct mm_problem {
  mm_class cls;
  gemmc_datatype at, out;
  mm_acc acc;
  bool tf32;
  bool has_alpha, has_c, has_bias;
  gemmc_activation act;
  int64_t M, N, K, batch;
  uint64_t values[MM_SLOT_COUNT]; /* little-endian bytes of each argument */
} mm_problem;

/* Checks desc like cuBLAS does and fills p. GEMMC_OK with p->M or N or batch 0 means
 * there is nothing to do. */
/* Statuses of the library's calls: an error with a formatted message, and success. */
gemmc_status mm_status_error(gemmc_status_code code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
gemmc_status mm_status_ok(void);

gemmc_status mm_problem_from_desc(const gemmc_matmul_desc *desc, mm_problem *p);
/* Bit s: slot s's value is 1. */
uint32_t mm_unit_of_values(const uint64_t *values);
/* Size in bytes of an element of t. */
int mm_dtype_bytes(gemmc_datatype t);
/* "f16" etc., the IR spelling. */
const char *mm_dtype_ir(gemmc_datatype t);

/* ------------------------------------------------------------------ choosing a config (matmul_select.c) */

typedef struct mm_choice {
  int config;         /* row of matmul_configs */
  int split;          /* 1: no split */
  double predicted_ms;
} mm_choice;

/* The config the model ranks first for p on the device (batch_invariant: as if M were large,
 * no split). False when no row serves p's class on this device. */
bool mm_choose(const mm_problem *p, const gemmc_device_info *dev, bool batch_invariant, mm_choice *out);
/* The model's time for one row and split (ms), or -1 when the row cannot serve p. */
double mm_predict_ms(const mm_problem *p, const gemmc_device_info *dev, int config, int split);
/* Whether row `config` may run p (class, compute capability, split within limits). */
bool mm_config_serves(const mm_problem *p, const gemmc_device_info *dev, int config, int split);
/* The workspace bytes split-K needs for p (0 for split 1). */
uint64_t mm_split_workspace_bytes(const mm_problem *p, int split);
/* Tail-split rows (template gemm_tail_split.tir): the tiles past the GPU's last whole wave are
 * split by K among several blocks, which add their partial sums in the workspace themselves. */
bool mm_config_is_tail_split(const matmul_config *c);
/* How a tail-split row runs p (gemm_tail_split.tir): the tiles past the last whole wave of the
 * `slots` blocks the SMs hold at once (all of them when there are fewer) are each split into
 * `ways` K segments, one block each, ahead of the other tiles' one block each (ways 1: nothing is
 * shared). grid = shared_tiles * ways + tiles - shared_tiles. */
typedef struct mm_tail_split_shape {
  int64_t tiles, k_steps, slots, shared_tiles, ways, grid;
} mm_tail_split_shape;
mm_tail_split_shape mm_tail_split_shape_of(const mm_problem *p, const gemmc_device_info *dev, const matmul_config *c);
/* The workspace a tail-split row with shape k needs for p: one tile of partial sums per shared block. */
uint64_t mm_tail_split_workspace_bytes(const mm_problem *p, const matmul_config *c, const mm_tail_split_shape *k);
/* The workspace bytes (config, split) needs for p: split-K's partial sums, or a tail-split row's
 * one tile of partial sums per shared block; 0 when it needs none. */
uint64_t mm_workspace_bytes(const mm_problem *p, const gemmc_device_info *dev, int config, int split);
/* Whether (config, split) computes each element of D the same way whatever M (batch invariance):
 * not with split-K, and not with a tail split, whose shares of K follow the tile count. */
bool mm_config_keeps_rows_invariant(int config, int split);
/* The most shared blocks a tail-split kernel may have: the flags gemmc_matmul keeps for them. */
#define MM_TAIL_SPLIT_MAX_BLOCKS 1024
/* Row index of a config name, or -1. */
int mm_config_find(const char *name);

/* ------------------------------------------------------------------ building kernels (matmul_kernel.c) */

/* The template, -D constants and compile options of a kernel spec. Strings live in *out. */
typedef struct mm_kernel_source {
  const char *template_name;
  gemmc_define defines[64];
  int num_defines;
  char storage[64][2][48];
  int num_warps, num_stages;
  int tma, warp_specialize, cluster_size; /* gemmc_compile_options' values for the row's path */
} mm_kernel_source;

bool mm_kernel_source_for(const mm_spec *spec, mm_kernel_source *out, char *err, size_t errlen);

#endif

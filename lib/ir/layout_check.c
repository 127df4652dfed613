/* layout_check: is a layout encoding valid for a tensor rank, warp count and warp size? */
#include <stddef.h>

#include "gemmc/limits.h"
#include "layout_internal.h"

/* "<what> multiplies to P, expected E" for powers of two P <= 256, as static strings: the library
 * keeps no mutable state, so it cannot format a message. */
#define MULT_MSG(what, p, e) what " multiplies to " #p ", expected " #e
#define MULT_ROW(what, e)                                                                        \
  {MULT_MSG(what, 1, e),  MULT_MSG(what, 2, e),  MULT_MSG(what, 4, e),                         \
   MULT_MSG(what, 8, e),  MULT_MSG(what, 16, e), MULT_MSG(what, 32, e),                        \
   MULT_MSG(what, 64, e), MULT_MSG(what, 128, e), MULT_MSG(what, 256, e)}

static const char *const lanes_msgs[][9] = {MULT_ROW("threadsPerWarp", 16), MULT_ROW("threadsPerWarp", 32),
                                            MULT_ROW("threadsPerWarp", 64)};
static const int lanes_expected[] = {16, 32, 64};
static const char *const warps_msgs[][9] = {MULT_ROW("warpsPerCTA", 1),  MULT_ROW("warpsPerCTA", 2),
                                            MULT_ROW("warpsPerCTA", 4),  MULT_ROW("warpsPerCTA", 8),
                                            MULT_ROW("warpsPerCTA", 16), MULT_ROW("warpsPerCTA", 32),
                                            MULT_ROW("warpsPerCTA", 64)};
static const int warps_expected[] = {1, 2, 4, 8, 16, 32, 64};

static const char *product_msg(bool lanes, int64_t product, int expected) {
  const int *exp = lanes ? lanes_expected : warps_expected;
  size_t rows = lanes ? sizeof lanes_expected / sizeof *lanes_expected
                      : sizeof warps_expected / sizeof *warps_expected;
  int k = log2_exact(product);
  for (size_t r = 0; r < rows && k >= 0 && k < 9; r++)
    if (exp[r] == expected) return lanes ? lanes_msgs[r][k] : warps_msgs[r][k];
  return lanes ? "threadsPerWarp does not multiply to the threads per warp"
               : "warpsPerCTA does not multiply to the number of warps";
}

static bool all_pow2(const int *v, int rank) {
  for (int d = 0; d < rank; d++)
    if (log2_exact(v[d]) < 0) return false;
  return true;
}

/* Saturates at INT64_MAX: entries come from the input (up to 2^24 each, 8 of them). */
static int64_t product(const int *v, int rank) {
  int64_t p = 1;
  for (int d = 0; d < rank; d++)
    if (__builtin_mul_overflow(p, (int64_t)v[d], &p)) return INT64_MAX;
  return p;
}

static bool is_permutation(const int *order, int rank) {
  bool seen[IR_MAX_RANK] = {false};
  for (int i = 0; i < rank; i++) {
    if (order[i] < 0 || order[i] >= rank || seen[order[i]]) return false;
    seen[order[i]] = true;
  }
  return true;
}

static const char *check_lanes(const int *tpw, int rank, int threads_per_warp) {
  int64_t p = product(tpw, rank);
  if (threads_per_warp > 0 && p != threads_per_warp) return product_msg(true, p, threads_per_warp);
  return NULL;
}

static const char *check_warps(const int *wpc, int rank, int num_warps) {
  if (!all_pow2(wpc, rank)) return "warpsPerCTA entries must be powers of two";
  int64_t p = product(wpc, rank);
  /* Whatever the module says, no block holds more than 1024 threads (32 warps of 32). */
  if (p > GEMMC_MAX_THREADS_PER_BLOCK / 32) return "warpsPerCTA multiplies to more than 32, more warps than a block can hold";
  if (num_warps > 0 && p != num_warps) return product_msg(false, p, num_warps);
  return NULL;
}

static const char *check_blocked(const ir_layout_params *p, int rank, int num_warps, int threads_per_warp) {
  if (!all_pow2(p->size_per_thread, rank)) return "sizePerThread entries must be powers of two";
  if (product(p->size_per_thread, rank) > GEMMC_MAX_ELEMS_PER_THREAD)
    return "sizePerThread multiplies to more than 16384, the most elements per thread gemmc allows";
  _Static_assert(GEMMC_MAX_ELEMS_PER_THREAD == 16384, "the message above names the limit");
  if (!all_pow2(p->threads_per_warp, rank)) return "threadsPerWarp entries must be powers of two";
  if (!is_permutation(p->order, rank)) return "order is not a permutation of the dims";
  const char *m = check_lanes(p->threads_per_warp, rank, threads_per_warp);
  return m ? m : check_warps(p->warps_per_cta, rank, num_warps);
}

static const char *check_nvidia_mma(const ir_layout_params *p, int rank, int num_warps, int threads_per_warp) {
  if (rank < 2) return "nvidia_mma needs a tensor of rank 2 or more";
  if (threads_per_warp > 0 && threads_per_warp != 32) return "nvidia_mma needs 32 threads per warp";
  if (p->version_major == 2) {
    if (p->instr_rank < 2 || p->instr_shape[p->instr_rank - 2] != 16 || p->instr_shape[p->instr_rank - 1] != 8)
      return "nvidia_mma v2 needs instrShape = [16, 8]";
  } else if (p->version_major == 3) {
    if (p->instr_rank != 3 || p->instr_shape[0] != 16 || p->instr_shape[1] % 8 != 0 || p->instr_shape[1] < 8 ||
        p->instr_shape[1] > 256)
      return "nvidia_mma v3 needs instrShape = [16, N, K] with N a multiple of 8 up to 256";
    if (p->warps_per_cta[rank - 2] % 4 != 0)
      return "nvidia_mma v3 needs warpsPerCTA along M a multiple of 4 (one warpgroup)";
  } else {
    return "nvidia_mma versionMajor must be 2 or 3";
  }
  return check_warps(p->warps_per_cta, rank, num_warps);
}

static const char *check_mfma(const ir_layout_params *p, int rank, int num_warps, int threads_per_warp) {
  if (rank < 2 || rank > 3) return "amd_mfma needs a tensor of rank 2 or 3";
  if (threads_per_warp > 0 && threads_per_warp != 64) return "amd_mfma needs 64 threads per warp";
  if (p->instr_rank < 2 || p->instr_shape[0] != p->instr_shape[1] ||
      (p->instr_shape[0] != 16 && p->instr_shape[0] != 32))
    return "amd_mfma instrShape must be [16, 16, K] or [32, 32, K]";
  return check_warps(p->warps_per_cta, rank, num_warps);
}

static const char *check_dot_op(const ir_layout_params *p, int rank, int num_warps, int threads_per_warp) {
  if (p->op_idx != 0 && p->op_idx != 1) return "dot_op opIdx must be 0 or 1";
  if (rank < 2) return "dot_op needs a tensor of rank 2 or more";
  const ir_attr *parent = p->parent;
  if (!parent) return "dot_op needs a parent layout";
  switch (parent->kind) {
  case AT_BLOCKED: break;
  case AT_NVIDIA_MMA:
    if (p->k_width <= 0) return "dot_op with an nvidia_mma parent needs kWidth";
    if (p->op_idx == 1 && parent->layout.version_major == 3)
      return "dot_op opIdx = 1 cannot have an nvidia_mma v3 parent (wgmma reads B from shared memory)";
    if (log2_exact(p->k_width) < 0) return "dot_op kWidth must be a power of two";
    break;
  case AT_AMD_MFMA:
    if (p->k_width <= 0) return "dot_op with an amd_mfma parent needs kWidth";
    if (log2_exact(p->k_width) < 0) return "dot_op kWidth must be a power of two";
    break;
  default: return "dot_op parent must be blocked, nvidia_mma or amd_mfma";
  }
  return layout_check(parent, rank, num_warps, threads_per_warp);
}

static const char *check_linear(const ir_attr *layout, int rank, int num_warps, int threads_per_warp) {
  const ir_layout_params *p = &layout->layout;
  const ir_attr *all[] = {p->lin_register, p->lin_lane, p->lin_warp, p->lin_block};
  for (int i = 0; i < 4; i++) {
    int r = ll_bases_attr_rank(all[i]);
    if (r >= 0 && r != rank) return "linear layout bases do not have one entry per tensor dim";
  }
  layout_linear ll;
  if (!ll_from_linear_attr(layout, rank, &ll)) return "linear layout bases must be lists of non-negative integers";
  if (threads_per_warp > 0 && layout_linear_in_size(&ll, LAYOUT_IN_LANE) != threads_per_warp)
    return "linear layout lane bases do not cover the threads per warp";
  if (num_warps > 0 && layout_linear_in_size(&ll, LAYOUT_IN_WARP) != num_warps)
    return "linear layout warp bases do not cover the warps";
  return NULL;
}

const char *layout_check(const ir_attr *layout, int rank, int num_warps, int threads_per_warp) {
  if (!layout || !ir_attr_is_layout(layout)) return "not a layout encoding";
  if (rank < 1 || rank > IR_MAX_RANK) return "tensor rank out of range";
  if (layout->kind == AT_SHARED_MEMORY) return "#ttg.shared_memory is a memory space, not a layout";
  if (layout->kind != AT_NVMMA_SHARED && layout->kind != AT_LINEAR && layout_rank(layout) != rank)
    return "layout rank does not match the tensor rank";
  const ir_layout_params *p = &layout->layout;
  switch (layout->kind) {
  case AT_BLOCKED: return check_blocked(p, rank, num_warps, threads_per_warp);
  case AT_SLICE:
    if (p->dim < 0 || p->dim > rank) return "slice dim out of range";
    if (!layout_is_distributed(p->parent)) return "slice parent must be a distributed layout";
    return layout_check(p->parent, rank + 1, num_warps, threads_per_warp);
  case AT_NVIDIA_MMA: return check_nvidia_mma(p, rank, num_warps, threads_per_warp);
  case AT_AMD_MFMA: return check_mfma(p, rank, num_warps, threads_per_warp);
  case AT_DOT_OP: return check_dot_op(p, rank, num_warps, threads_per_warp);
  case AT_SWIZZLED_SHARED:
  case AT_AMD_ROTATING_SHARED:
    if (log2_exact(p->vec) < 0 || log2_exact(p->per_phase) < 0 || log2_exact(p->max_phase) < 0)
      return "vec, perPhase and maxPhase must be powers of two";
    if (!is_permutation(p->order, rank)) return "order is not a permutation of the dims";
    return NULL;
  case AT_NVMMA_SHARED: {
    int s = p->swizzling_byte_width, b = p->element_bit_width;
    if (s != 0 && s != 32 && s != 64 && s != 128) return "swizzlingByteWidth must be 0, 32, 64 or 128";
    if (b != 4 && b != 8 && b != 16 && b != 32 && b != 64) return "elementBitWidth must be 4, 8, 16, 32 or 64";
    if (p->nvmma_rank > 0 && p->nvmma_rank != rank) return "layout rank does not match the tensor rank";
    return NULL;
  }
  case AT_LINEAR: return check_linear(layout, rank, num_warps, threads_per_warp);
  default: return "not a layout encoding";
  }
}

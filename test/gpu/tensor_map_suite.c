/* GPU test of kernels that take host-built tensor descriptors (Triton's TensorDescriptor): maps encoded with gemmc_runtime_encode_tensor_map from kernel.json's description, checked against a CPU reference; built as test_gpu_tensor_map. */
#include "../../examples/matmul_host.h"

/* Runs Triton's tutorial-09 TMA persistent matmul TTIR (C = A B^T-stored: A M x K, B N x K,
 * both row-major, C M x N, f16 in, f32 accumulate, f16 out) on fresh random inputs with C
 * poisoned, padded rows and a guard band, for shapes with ragged tiles and K below the block.
 * The kernel's arguments follow Triton's launcher: each descriptor's map, then its shape (i32)
 * and strides (i64), then M, N, K. The grid is NUM_SMS = 132 persistent programs (the constant
 * Triton baked into the TTIR). One line per case, "N passed, N failed"; exit 1 on any failure;
 * "skipped: ..." without a CUDA driver. */

typedef struct tm_shape {
  int m, n, k, pad;
} tm_shape;

/* M, N, K are multiples of 16 (the TTIR's tt.divisibility); tiles are 128 x 256 x 64. */
static const tm_shape shapes[] = {{128, 256, 64, 0},   {64, 64, 16, 0},      {304, 528, 208, 8},
                                  {1008, 1008, 1008, 0}, {2048, 2048, 2048, 0}, {256, 4096, 1024, 16}};

enum { PROGRAMS = 132, MAX_ARGS = 32 };

static bool run_case(gemmc_runtime *rt, const mh_kernel *k, const tm_shape *s, mh_rng *rng, char *line, size_t n,
                     mh_error *e) {
  mh_gemm g;
  memset(&g, 0, sizeof g);
  g.kind = MH_KERNEL_MATMUL, g.batch = 1, g.m = s->m, g.n = s->n, g.k = s->k;
  g.in = MH_F16, g.acc = MH_F32, g.out = MH_F16, g.b_col_major = true, g.pad = s->pad;
  mh_gemm_layout(&g);
  mh_host h;
  mh_device d;
  if (!mh_host_init(&g, rng, &h, e)) return false;
  if (!mh_device_init(rt, &g, &h, &d, e)) {
    mh_host_free(&h);
    return false;
  }
  /* Each tensor: base, shape, strides (elements, outermost first). */
  const gemmc_devptr bases[3] = {d.a, d.b, d.c};
  const int64_t shapes_of[3][2] = {{g.m, g.k}, {g.n, g.k}, {g.m, g.n}};
  const int64_t strides_of[3][2] = {{g.stride_am, 1}, {g.stride_bn, 1}, {g.stride_cm, 1}};
  gemmc_tensor_map maps[3];
  int32_t ints[MAX_ARGS];
  int64_t longs[MAX_ARGS];
  void *args[MAX_ARGS];
  int num_args = 0, num_maps = 0, num_ints = 0, num_longs = 0;
  const int32_t mnk[3] = {g.m, g.n, g.k};
  bool ok = k->meta->num_args <= MAX_ARGS;
  if (!ok) mh_fail(e, "the kernel has %d arguments", k->meta->num_args);
  /* Arguments in signature order: a map, its 2 shape ints and 2 stride longs, ..., then M, N, K. */
  for (int i = 0; ok && i < k->meta->num_args; i++) {
    const gemmc_kernel_arg *a = &k->meta->args[i];
    if (a->kind == GEMMC_ARG_TENSOR_MAP) {
      int t = num_maps;
      ok = t < 3 && mh_ok(gemmc_runtime_encode_tensor_map(rt, &a->tensor_map, bases[t], shapes_of[t], strides_of[t], &maps[t]),
                          "encoding a tensor map", e);
      args[num_args++] = &maps[num_maps++];
      int j;
      for (j = 0; ok && j < 4; j++) {
        const gemmc_kernel_arg *x = &k->meta->args[i + 1 + j];
        if (i + 1 + j >= k->meta->num_args || x->kind != GEMMC_ARG_INT) {
          ok = mh_fail(e, "descriptor argument %s is not followed by its shape and strides", a->name);
          break;
        }
        if (x->size_bytes == 4) {
          ints[num_ints] = (int32_t)shapes_of[t][j];
          args[num_args++] = &ints[num_ints++];
        } else {
          longs[num_longs] = strides_of[t][j - 2];
          args[num_args++] = &longs[num_longs++];
        }
      }
      i += 4;
    } else {
      int which = num_args - 15; /* M, N, K after three descriptors */
      ok = a->kind == GEMMC_ARG_INT && a->size_bytes == 4 && which >= 0 && which < 3;
      if (!ok) {
        mh_fail(e, "unexpected argument %s", a->name);
        break;
      }
      ints[num_ints] = mnk[which];
      args[num_args++] = &ints[num_ints++];
    }
  }
  gemmc_launch_config lc;
  memset(&lc, 0, sizeof lc);
  lc.grid[0] = PROGRAMS, lc.grid[1] = lc.grid[2] = 1;
  lc.block[0] = (unsigned)k->meta->threads_per_block, lc.block[1] = lc.block[2] = 1;
  lc.dynamic_shared_bytes = (unsigned)k->meta->dynamic_shared_bytes;
  size_t cbytes = g.c_elems * mh_dtype_size(g.out);
  ok = ok && mh_ok(gemmc_runtime_launch(rt, k->fn, &lc, args), "launching", e) &&
       mh_ok(gemmc_runtime_synchronize(rt), "running the kernel", e) &&
       mh_ok(gemmc_runtime_copy_dtoh(rt, h.c, d.c, cbytes), "downloading C", e);
  mh_check_result r;
  if (ok) ok = mh_check(&g, &h, rng, &r, e);
  if (ok) {
    char detail[512];
    mh_check_str(&r, detail, sizeof detail);
    snprintf(line, n, "%s: %dx%dx%d pad %d: %s", mh_check_passed(&r) ? "PASS" : "FAIL", g.m, g.n, g.k, g.pad, detail);
    ok = mh_check_passed(&r);
  }
  mh_device_free(rt, &d);
  mh_host_free(&h);
  return ok;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s TMA_PERSISTENT.tir\n", argv[0]);
    return 2;
  }
  mh_error e = {""};
  gemmc_runtime *rt = NULL;
  if (!mh_runtime_open_backend(GEMMC_BACKEND_CUDA, &rt, &e)) {
    printf("FAIL: %s\n0 passed, 1 failed\n", e.message);
    return 1;
  }
  if (!rt) {
    printf("skipped: %s\n", e.message);
    return 0;
  }
  const gemmc_device_info *info = gemmc_runtime_device_info(rt);
  printf("device: %s (sm_%d%d, %d SMs)\n", info->name, info->compute_capability_major, info->compute_capability_minor,
         info->multiprocessor_count);
  if (info->compute_capability_major < 9) {
    printf("skipped: tensor maps need sm_90\n");
    gemmc_runtime_destroy(rt);
    return 0;
  }
  mh_config c = {128, 256, 64, 8, 8, 3, 0};
  mh_defines defs;
  memset(&defs, 0, sizeof defs);
  mh_kernel k;
  if (!mh_kernel_build(rt, argv[1], &c, &defs, mh_target(rt), &k, &e)) {
    printf("FAIL: %s\n0 passed, 1 failed\n", e.message);
    gemmc_runtime_destroy(rt);
    return 1;
  }
  mh_rng rng = {0x7e11u ^ (uint64_t)time(NULL)};
  int passed = 0, failed = 0;
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    char line[768] = "";
    e.message[0] = '\0';
    bool ok = run_case(rt, &k, &shapes[i], &rng, line, sizeof line, &e);
    if (ok) passed++;
    else failed++;
    if (line[0]) printf("%s\n", line);
    else printf("FAIL: %dx%dx%d: %s\n", shapes[i].m, shapes[i].n, shapes[i].k, e.message);
    fflush(stdout);
  }
  printf("%d passed, %d failed\n", passed, failed);
  mh_kernel_destroy(rt, &k);
  gemmc_runtime_destroy(rt);
  return failed ? 1 : 0;
}

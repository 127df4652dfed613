"""The Triton 3.6 kernels gemmc is measured against, and the cases (kernel, dtype, config, shape) that
scripts/triton-dump.py dumps and bench/triton_compare.py times. Runs on the GPU machine (Triton 3.6,
PyTorch); elsewhere it imports without them (HAVE_TRITON False) so that the case lists can be checked.

Kernels:
  matmul_kernel                  Triton's tutorial 03 matmul (the kernel of shared/triton-3.6/*.ttir,
                                 whose #loc names it keeps: num_in_group, first_m, gsz, ...)
  batched_matmul_kernel          the seed's batched GEMM (shared/seeds/002), f32 or f16 accumulation
  matmul_kernel_persistent       tutorial 09: plain persistent (pointer loads, tl.range(flatten=True))
  matmul_kernel_tma              tutorial 09: host tensor descriptors, tl.range(k_tiles, warp_specialize=WS)
  matmul_kernel_tma_persistent   tutorial 09: host tensor descriptors, persistent, warp_specialize=WS
  matmul_kernel_descriptor_persistent  tutorial 09: device-side tl.make_tensor_descriptor, persistent, WS
  grouped_matmul_kernel          tutorial 08: grouped GEMM, a persistent loop over problems whose
                                 pointers come from device tables (scf.while, tt.int_to_ptr)
  matmul_variant_kernel          the tutorial's kernel with what users add to it: any operand layout
                                 (strides), f32 (tf32) and int8 inputs, a bias, tutorial 03's
                                 leaky_relu, any output type (test/gpu/triton_ttir_sweep.py's variants)
"""
import dataclasses
from typing import Callable, Dict, List, Optional, Tuple

try:
    import torch
    import triton
    import triton.language as tl
    from triton.language.extra import libdevice
    HAVE_TRITON = True
except ImportError:  # the build machine: no torch, no triton; kernels stay plain functions
    HAVE_TRITON = False

    class _Lang:
        constexpr = object
        float16 = bfloat16 = float32 = float8e4nv = None

    class _Triton:
        @staticmethod
        def jit(fn=None, **kwargs):
            return fn if fn is not None else (lambda f: f)

    triton = _Triton()
    tl = _Lang()
    torch = None
    libdevice = None

# ------------------------------------------------------------------------------------------------ kernels


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr,  #
                  M, N, K,  #
                  stride_am, stride_ak,  #
                  stride_bk, stride_bn,  #
                  stride_cm, stride_cn,  #
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,  #
                  GROUP_SIZE_M: tl.constexpr,  #
                  ASSUME: tl.constexpr = False,  #
                  ):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_in_group
    first_m = group_id * GROUP_SIZE_M
    gsz = min(num_pid_m - first_m, GROUP_SIZE_M)
    pid_m = first_m + ((pid % num_in_group) % gsz)
    pid_n = (pid % num_in_group) // gsz
    if ASSUME:  # the integer bound assumptions of the current tutorial 03 (llvm.intr.assume in TTIR)
        tl.assume(pid_m >= 0)
        tl.assume(pid_n >= 0)
        tl.assume(stride_am > 0)
        tl.assume(stride_ak > 0)
        tl.assume(stride_bn > 0)
        tl.assume(stride_bk > 0)
        tl.assume(stride_cm > 0)
        tl.assume(stride_cn > 0)
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = acc.to(c_ptr.dtype.element_ty)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def batched_matmul_kernel(A_ptr, B_ptr, C_ptr,  #
                          B, M, N, K,  #
                          stride_ab, stride_am, stride_ak,  #
                          stride_bb, stride_bk, stride_bn,  #
                          stride_cb, stride_cm, stride_cn,  #
                          BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,  #
                          GROUP_SIZE_M: tl.constexpr,  #
                          ACC_F16: tl.constexpr,  #
                          ):
    # The seed's kernel (shared/seeds/002): program id 1 is the batch; no K masks (K % BLOCK_K == 0).
    pid = tl.program_id(axis=0)
    offs_b = tl.program_id(axis=1)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    offs_k = tl.arange(0, BLOCK_SIZE_K)

    A_ptr = A_ptr + (offs_b * stride_ab + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak)
    B_ptr = B_ptr + (offs_b * stride_bb + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn)

    if ACC_F16:
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float16)
    else:
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_SIZE_K):
        a = tl.load(A_ptr)
        b = tl.load(B_ptr)
        if ACC_F16:
            acc += tl.dot(a, b, out_dtype=tl.float16)
        else:
            acc += tl.dot(a, b)
        A_ptr += BLOCK_SIZE_K * stride_ak
        B_ptr += BLOCK_SIZE_K * stride_bk

    c = acc.to(tl.float16)
    C_ptr = C_ptr + (offs_b * stride_cb + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn)
    c_mask = (offs_b < B) & (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(C_ptr, c, mask=c_mask)


@triton.jit
def matmul_variant_kernel(a_ptr, b_ptr, c_ptr, bias_ptr,  #
                          M, N, K,  #
                          stride_am, stride_ak,  #
                          stride_bk, stride_bn,  #
                          stride_cm, stride_cn,  #
                          BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,  #
                          GROUP_SIZE_M: tl.constexpr,  #
                          ACTIVATION: tl.constexpr, HAS_BIAS: tl.constexpr, ACC_INT: tl.constexpr,  #
                          MASKED: tl.constexpr = False,  #
                          ):
    # Tutorial 03 as users change it: the operands' layouts come with the strides (Triton
    # specializes a stride of 1 into the TTIR), int8 accumulates in int32, a bias row and the
    # tutorial's leaky_relu run on the f32 accumulator before the cast to C's type; MASKED loads
    # rows and columns under masks instead of wrapping their indices with % M and % N.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    if MASKED:
        offs_am = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_bn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    else:
        offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
        offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    if ACC_INT:
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.int32)
    else:
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a_mask = offs_k[None, :] < K - k * BLOCK_SIZE_K
        b_mask = offs_k[:, None] < K - k * BLOCK_SIZE_K
        if MASKED:
            a_mask = a_mask & (offs_am[:, None] < M)
            b_mask = b_mask & (offs_bn[None, :] < N)
        if ACC_INT:
            a = tl.load(a_ptrs, mask=a_mask, other=0)
            b = tl.load(b_ptrs, mask=b_mask, other=0)
            acc = tl.dot(a, b, acc, out_dtype=tl.int32)
        else:
            a = tl.load(a_ptrs, mask=a_mask, other=0.0)
            b = tl.load(b_ptrs, mask=b_mask, other=0.0)
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    if HAS_BIAS:
        bias = tl.load(bias_ptr + offs_cn, mask=offs_cn < N, other=0.0)
        acc = acc + bias[None, :].to(tl.float32)
    if ACTIVATION == "leaky_relu":
        acc = tl.where(acc >= 0, acc, 0.01 * acc)
    if ACTIVATION == "gelu_tanh":  # libdevice's tanh: tt.extern_elementwise __nv_tanhf
        acc = 0.5 * acc * (1 + libdevice.tanh(0.7978845608 * (acc + 0.044715 * acc * acc * acc)))
    if ACTIVATION == "clamp":  # tt.clampf
        acc = tl.clamp(acc, -2.0, 2.0)
    if ACTIVATION == "precise":  # tt.precise_divf, tt.precise_sqrt, libdevice's pow
        acc = tl.div_rn(acc, 3.0) + tl.sqrt_rn(tl.abs(acc)) + libdevice.pow(tl.abs(acc), 1.5)
    c = acc.to(c_ptr.dtype.element_ty)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def grouped_matmul_kernel(group_a_ptrs, group_b_ptrs, group_c_ptrs, group_gemm_sizes, g_lds, group_size,  #
                          NUM_SM: tl.constexpr, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,  #
                          BLOCK_SIZE_K: tl.constexpr):
    # Triton's tutorial 08 (grouped GEMM), as written there: no masks (sizes are tile multiples).
    tile_idx = tl.program_id(0)
    last_problem_end = 0
    for g in range(group_size):
        gm = tl.load(group_gemm_sizes + g * 3)
        gn = tl.load(group_gemm_sizes + g * 3 + 1)
        gk = tl.load(group_gemm_sizes + g * 3 + 2)
        num_m_tiles = tl.cdiv(gm, BLOCK_SIZE_M)
        num_n_tiles = tl.cdiv(gn, BLOCK_SIZE_N)
        num_tiles = num_m_tiles * num_n_tiles
        while (tile_idx >= last_problem_end and tile_idx < last_problem_end + num_tiles):
            k = gk
            lda = tl.load(g_lds + g * 3)
            ldb = tl.load(g_lds + g * 3 + 1)
            ldc = tl.load(g_lds + g * 3 + 2)
            a_ptr = tl.load(group_a_ptrs + g).to(tl.pointer_type(tl.float16))
            b_ptr = tl.load(group_b_ptrs + g).to(tl.pointer_type(tl.float16))
            c_ptr = tl.load(group_c_ptrs + g).to(tl.pointer_type(tl.float16))
            tile_idx_in_gemm = tile_idx - last_problem_end
            tile_m_idx = tile_idx_in_gemm // num_n_tiles
            tile_n_idx = tile_idx_in_gemm % num_n_tiles
            offs_am = tile_m_idx * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
            offs_bn = tile_n_idx * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
            offs_k = tl.arange(0, BLOCK_SIZE_K)
            a_ptrs = a_ptr + offs_am[:, None] * lda + offs_k[None, :]
            b_ptrs = b_ptr + offs_k[:, None] * ldb + offs_bn[None, :]
            accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
            for kk in range(0, tl.cdiv(k, BLOCK_SIZE_K)):
                tl.multiple_of(a_ptrs, [16, 16])
                tl.multiple_of(b_ptrs, [16, 16])
                a = tl.load(a_ptrs)
                b = tl.load(b_ptrs)
                accumulator += tl.dot(a, b)
                a_ptrs += BLOCK_SIZE_K
                b_ptrs += BLOCK_SIZE_K * ldb
            c = accumulator.to(tl.float16)
            offs_cm = tile_m_idx * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
            offs_cn = tile_n_idx * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
            c_ptrs = c_ptr + ldc * offs_cm[:, None] + offs_cn[None, :]
            tl.store(c_ptrs, c)
            tile_idx += NUM_SM
        last_problem_end = last_problem_end + num_tiles


@triton.jit
def _compute_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M, NUM_SMS):
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (tile_id % group_size_m)
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def matmul_kernel_persistent(a_ptr, b_ptr, c_ptr,  #
                             M, N, K,  #
                             stride_am, stride_ak,  #
                             stride_bk, stride_bn,  #
                             stride_cm, stride_cn,  #
                             BLOCK_SIZE_M: tl.constexpr,  #
                             BLOCK_SIZE_N: tl.constexpr,  #
                             BLOCK_SIZE_K: tl.constexpr,  #
                             GROUP_SIZE_M: tl.constexpr,  #
                             NUM_SMS: tl.constexpr,  #
                             ):
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n

    # The tutorial duplicates the tile counter for the epilogue (a Blackwell pipelining work-around).
    tile_id_c = start_pid - NUM_SMS

    offs_k_for_mask = tl.arange(0, BLOCK_SIZE_K)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n

    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):
        pid_m, pid_n = _compute_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M, NUM_SMS)
        start_m = pid_m * BLOCK_SIZE_M
        start_n = pid_n * BLOCK_SIZE_N
        offs_am = start_m + tl.arange(0, BLOCK_SIZE_M)
        offs_bn = start_n + tl.arange(0, BLOCK_SIZE_N)
        offs_am = tl.where(offs_am < M, offs_am, 0)
        offs_bn = tl.where(offs_bn < N, offs_bn, 0)
        offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BLOCK_SIZE_M), BLOCK_SIZE_M)
        offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BLOCK_SIZE_N), BLOCK_SIZE_N)

        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_SIZE_K + tl.arange(0, BLOCK_SIZE_K)
            a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
            b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

            a = tl.load(a_ptrs, mask=offs_k_for_mask[None, :] < K - ki * BLOCK_SIZE_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k_for_mask[:, None] < K - ki * BLOCK_SIZE_K, other=0.0)
            accumulator = tl.dot(a, b, accumulator)

        tile_id_c += NUM_SMS
        pid_m, pid_n = _compute_pid(tile_id_c, num_pid_in_group, num_pid_m, GROUP_SIZE_M, NUM_SMS)
        offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        c = accumulator.to(c_ptr.dtype.element_ty)
        tl.store(c_ptrs, c, mask=c_mask)


@triton.jit
def matmul_kernel_tma(a_desc, b_desc, c_desc,  #
                      M, N, K,  #
                      BLOCK_SIZE_M: tl.constexpr,  #
                      BLOCK_SIZE_N: tl.constexpr,  #
                      BLOCK_SIZE_K: tl.constexpr,  #
                      GROUP_SIZE_M: tl.constexpr,  #
                      FP8_OUTPUT: tl.constexpr,  #
                      WARP_SPECIALIZE: tl.constexpr,  #
                      ):
    dtype = tl.float8e4nv if FP8_OUTPUT else tl.float16

    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)

    offs_am = pid_m * BLOCK_SIZE_M
    offs_bn = pid_n * BLOCK_SIZE_N

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)

    for k in tl.range(k_tiles, warp_specialize=WARP_SPECIALIZE):
        offs_k = k * BLOCK_SIZE_K
        a = a_desc.load([offs_am, offs_k])
        b = b_desc.load([offs_bn, offs_k])
        accumulator = tl.dot(a, b.T, accumulator)

    c = accumulator.to(dtype)

    offs_cm = pid_m * BLOCK_SIZE_M
    offs_cn = pid_n * BLOCK_SIZE_N
    c_desc.store([offs_cm, offs_cn], c)


@triton.jit
def matmul_kernel_tma_persistent(a_desc, b_desc, c_desc,  #
                                 M, N, K,  #
                                 BLOCK_SIZE_M: tl.constexpr,  #
                                 BLOCK_SIZE_N: tl.constexpr,  #
                                 BLOCK_SIZE_K: tl.constexpr,  #
                                 GROUP_SIZE_M: tl.constexpr,  #
                                 FP8_OUTPUT: tl.constexpr,  #
                                 EPILOGUE_SUBTILE: tl.constexpr,  #
                                 NUM_SMS: tl.constexpr,  #
                                 WARP_SPECIALIZE: tl.constexpr,  #
                                 ):
    dtype = tl.float8e4nv if FP8_OUTPUT else tl.float16
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n

    tile_id_c = start_pid - NUM_SMS
    num_pid_in_group = GROUP_SIZE_M * num_pid_n

    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True, warp_specialize=WARP_SPECIALIZE):
        pid_m, pid_n = _compute_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M, NUM_SMS)
        offs_am = pid_m * BLOCK_SIZE_M
        offs_bn = pid_n * BLOCK_SIZE_N

        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_SIZE_K
            a = a_desc.load([offs_am, offs_k])
            b = b_desc.load([offs_bn, offs_k])
            accumulator = tl.dot(a, b.T, accumulator)

        tile_id_c += NUM_SMS
        pid_m, pid_n = _compute_pid(tile_id_c, num_pid_in_group, num_pid_m, GROUP_SIZE_M, NUM_SMS)
        offs_am_c = pid_m * BLOCK_SIZE_M
        offs_bn_c = pid_n * BLOCK_SIZE_N

        if EPILOGUE_SUBTILE:
            acc = tl.reshape(accumulator, (BLOCK_SIZE_M, 2, BLOCK_SIZE_N // 2))
            acc = tl.permute(acc, (0, 2, 1))
            acc0, acc1 = tl.split(acc)
            c0 = acc0.to(dtype)
            c_desc.store([offs_am_c, offs_bn_c], c0)
            c1 = acc1.to(dtype)
            c_desc.store([offs_am_c, offs_bn_c + BLOCK_SIZE_N // 2], c1)
        else:
            accumulator = accumulator.to(dtype)
            c_desc.store([offs_am_c, offs_bn_c], accumulator)


@triton.jit
def matmul_kernel_descriptor_persistent(a_ptr, b_ptr, c_ptr,  #
                                        M, N, K,  #
                                        BLOCK_SIZE_M: tl.constexpr,  #
                                        BLOCK_SIZE_N: tl.constexpr,  #
                                        BLOCK_SIZE_K: tl.constexpr,  #
                                        GROUP_SIZE_M: tl.constexpr,  #
                                        EPILOGUE_SUBTILE: tl.constexpr,  #
                                        NUM_SMS: tl.constexpr,  #
                                        WARP_SPECIALIZE: tl.constexpr,  #
                                        ):
    # Device-side descriptors: ttng.tensormap_create in a global scratch buffer (triton.set_allocator).
    dtype = c_ptr.dtype.element_ty
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n

    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1],
                                       block_shape=[BLOCK_SIZE_N, BLOCK_SIZE_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_SIZE_M,
                                                    BLOCK_SIZE_N if not EPILOGUE_SUBTILE else BLOCK_SIZE_N // 2])

    tile_id_c = start_pid - NUM_SMS
    num_pid_in_group = GROUP_SIZE_M * num_pid_n

    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True, warp_specialize=WARP_SPECIALIZE):
        pid_m, pid_n = _compute_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M, NUM_SMS)
        offs_am = pid_m * BLOCK_SIZE_M
        offs_bn = pid_n * BLOCK_SIZE_N

        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_SIZE_K
            a = a_desc.load([offs_am, offs_k])
            b = b_desc.load([offs_bn, offs_k])
            accumulator = tl.dot(a, b.T, accumulator)

        tile_id_c += NUM_SMS
        pid_m, pid_n = _compute_pid(tile_id_c, num_pid_in_group, num_pid_m, GROUP_SIZE_M, NUM_SMS)
        offs_cm = pid_m * BLOCK_SIZE_M
        offs_cn = pid_n * BLOCK_SIZE_N

        if EPILOGUE_SUBTILE:
            acc = tl.reshape(accumulator, (BLOCK_SIZE_M, 2, BLOCK_SIZE_N // 2))
            acc = tl.permute(acc, (0, 2, 1))
            acc0, acc1 = tl.split(acc)
            c0 = acc0.to(dtype)
            c_desc.store([offs_cm, offs_cn], c0)
            c1 = acc1.to(dtype)
            c_desc.store([offs_cm, offs_cn + BLOCK_SIZE_N // 2], c1)
        else:
            c = accumulator.to(dtype)
            c_desc.store([offs_cm, offs_cn], c)


# ------------------------------------------------------------------------------------------------ cases

@dataclasses.dataclass(frozen=True)
class Config:
    block_m: int
    block_n: int
    block_k: int
    num_stages: int
    num_warps: int
    group_m: int = 8

    def tag(self) -> str:
        return f"{self.block_m}x{self.block_n}x{self.block_k}_s{self.num_stages}_w{self.num_warps}"


@dataclasses.dataclass(frozen=True)
class Shape:
    m: int
    n: int
    k: int
    batch: int = 1

    def tag(self) -> str:
        return (f"{self.batch}x" if self.batch > 1 else "") + f"{self.m}x{self.n}x{self.k}"

    def flops(self) -> float:
        return 2.0 * self.batch * self.m * self.n * self.k


# The gemmc kernel of a case: the examples/ .tir and its -D constants (see examples/matmul.tir).
@dataclasses.dataclass(frozen=True)
class GemmcSpec:
    tir: str              # "matmul.tir" or "batched_matmul.tir" under examples/
    dt: str               # DT: f16, bf16, f8E4M3FN
    acc: str              # ACC: f32, f16
    out: str              # OUT
    b_col_major: bool = False


@dataclasses.dataclass(frozen=True)
class Case:
    """One kernel at one dtype and config; `kind` says how to build its arguments."""
    name: str                 # unique, used in file names: "tutorial_f16_128x128x64_s3_w4"
    kind: str                 # tutorial | batched | persistent | tma | tma_persistent | desc_persistent
    dtype: str                # f16 | bf16 | fp8e4m3 (inputs)
    acc: str                  # f32 | f16 (accumulator)
    config: Config
    warp_specialize: bool = False
    gemmc: Optional[GemmcSpec] = None   # None: gemmc has no kernel of this form
    epilogue_subtile: bool = False      # tutorial 09's EPILOGUE_SUBTILE: reshape, permute, split, two stores
    assume: bool = False                # tutorial: with the current tutorial's tl.assume lines
    note: str = ""

    @property
    def kernel(self):
        return {
            "tutorial": matmul_kernel,
            "batched": batched_matmul_kernel,
            "persistent": matmul_kernel_persistent,
            "tma": matmul_kernel_tma,
            "tma_persistent": matmul_kernel_tma_persistent,
            "desc_persistent": matmul_kernel_descriptor_persistent,
        }[self.kind]


def _tutorial(dtype: str, cfg: Config) -> Case:
    dt = {"f16": "f16", "bf16": "bf16", "fp8e4m3": "f8E4M3FN"}[dtype]
    out = "f16" if dtype == "fp8e4m3" else dt
    return Case(f"tutorial_{dtype}_{cfg.tag()}", "tutorial", dtype, "f32", cfg,
                gemmc=GemmcSpec("matmul.tir", dt, "f32", out, b_col_major=dtype == "fp8e4m3"),
                note="fp8: B column-major (K-contiguous), C f16" if dtype == "fp8e4m3" else "")


# The tutorial's autotune list has 128x128x32 and 64x256x32 s4 w4 too: 16 and 20 KiB of operands
# per K step, stages gemmc's warp-specialized pairs fill with two K steps.
TUTORIAL_CONFIGS = [Config(128, 128, 64, 3, 4), Config(128, 256, 64, 3, 8), Config(64, 128, 32, 4, 4),
                    Config(128, 128, 32, 4, 4), Config(64, 256, 32, 4, 4)]
FP8_CONFIGS = [Config(128, 256, 128, 3, 8), Config(128, 128, 128, 3, 4)]
BATCHED_F32 = Config(128, 128, 64, 4, 4)
BATCHED_F16 = Config(128, 128, 32, 4, 4)
PERSISTENT_WS = Config(128, 256, 64, 3, 8)
# The batched kernel at the tile the warp-specialized path takes (8 warps, 128x256).
BATCHED_WIDE = Config(128, 256, 64, 3, 8)


def all_cases() -> List[Case]:
    cases: List[Case] = []
    for dtype in ("f16", "bf16"):
        for cfg in TUTORIAL_CONFIGS:
            cases.append(_tutorial(dtype, cfg))
    for cfg in FP8_CONFIGS:
        cases.append(_tutorial("fp8e4m3", cfg))
    # The tutorial as Triton's repository has it now: eight tl.assume lines after pid_n.
    for cfg in TUTORIAL_CONFIGS[:2]:
        plain = _tutorial("f16", cfg)
        cases.append(dataclasses.replace(plain, name=f"tutorial_assume_f16_{cfg.tag()}", assume=True,
                                         note="tl.assume (llvm.intr.assume)"))
    cases.append(Case(f"batched_f16_accf32_{BATCHED_F32.tag()}", "batched", "f16", "f32", BATCHED_F32,
                      gemmc=GemmcSpec("batched_matmul.tir", "f16", "f32", "f16")))
    cases.append(Case(f"batched_f16_accf16_{BATCHED_F16.tag()}", "batched", "f16", "f16", BATCHED_F16,
                      gemmc=GemmcSpec("batched_matmul.tir", "f16", "f16", "f16")))
    for acc in ("f32", "f16"):
        cases.append(Case(f"batched_f16_acc{acc}_{BATCHED_WIDE.tag()}", "batched", "f16", acc, BATCHED_WIDE,
                          gemmc=GemmcSpec("batched_matmul.tir", "f16", acc, "f16")))
    for dtype in ("f16", "bf16"):
        cases.append(Case(f"persistent_{dtype}_{PERSISTENT_WS.tag()}", "persistent", dtype, "f32", PERSISTENT_WS))
        cases.append(Case(f"tma_persistent_ws_{dtype}_{PERSISTENT_WS.tag()}", "tma_persistent", dtype, "f32",
                          PERSISTENT_WS, warp_specialize=True))
        cases.append(Case(f"tma_persistent_{dtype}_{PERSISTENT_WS.tag()}", "tma_persistent", dtype, "f32",
                          PERSISTENT_WS, warp_specialize=False))
    cases.append(Case(f"tma_ws_f16_{Config(128, 128, 64, 3, 4).tag()}", "tma", "f16", "f32", Config(128, 128, 64, 3, 4),
                      warp_specialize=True, note="tl.range(k_tiles, warp_specialize=True), host descriptors"))
    cases.append(Case(f"desc_persistent_ws_f16_{PERSISTENT_WS.tag()}", "desc_persistent", "f16", "f32", PERSISTENT_WS,
                      warp_specialize=True, note="device-side tl.make_tensor_descriptor"))
    # EPILOGUE_SUBTILE=True: the accumulator leaves in two column halves (tl.reshape, tl.permute,
    # tl.split), each stored through a descriptor of half the tile's width.
    for ws in (False, True):
        cases.append(Case(f"tma_persistent{'_ws' if ws else ''}_subtile_f16_{PERSISTENT_WS.tag()}", "tma_persistent",
                          "f16", "f32", PERSISTENT_WS, warp_specialize=ws, epilogue_subtile=True,
                          note="EPILOGUE_SUBTILE"))
    cases.append(Case(f"desc_persistent_ws_subtile_f16_{PERSISTENT_WS.tag()}", "desc_persistent", "f16", "f32",
                      PERSISTENT_WS, warp_specialize=True, epilogue_subtile=True, note="EPILOGUE_SUBTILE"))
    return cases


# matmul_variant_kernel's variants:
# (name, input dtype, C dtype, A column-major, B column-major, activation (True: leaky_relu, or
# "gelu_tanh", "clamp", "precise"), bias[, masked rows and columns instead of % M / % N]). A column-major
# operand makes Triton specialize its unit stride into the TTIR (stride_am or stride_bn gone);
# K-major B is the layout of `x @ W.T`; tf32 and int8 take other MMA instructions.
VARIANTS = [("f16_acol", "f16", "f16", True, False, False, False),
            ("f16_bcol", "f16", "f16", False, True, False, False),
            ("f16_abcol", "f16", "f16", True, True, False, False),
            ("f16_bias_leaky", "f16", "f16", False, False, True, True),
            ("bf16_bcol_bias_leaky", "bf16", "bf16", False, True, True, True),
            ("f16_outf32", "f16", "f32", False, False, False, False),
            ("tf32", "f32", "f32", False, False, False, False),
            ("tf32_bcol", "f32", "f32", False, True, False, False),
            ("i8_bcol", "i8", "i32", False, True, False, False),
            ("i8", "i8", "i32", False, False, False, False),
            ("fp8_brow", "fp8e4m3", "f16", False, False, False, False),
            ("f16_masked", "f16", "f16", False, False, False, False, True),
            ("bf16_bcol_masked", "bf16", "bf16", False, True, False, False, True),
            ("f16_bias_gelu_tanh", "f16", "f16", False, False, "gelu_tanh", True),
            ("bf16_bcol_clamp", "bf16", "bf16", False, True, "clamp", False),
            ("f16_precise", "f16", "f32", False, False, "precise", False)]


class Variant:
    """One of VARIANTS at one config: its problems, reference, check and arguments (Triton's and
    gemmc's by name)."""

    def __init__(self, spec, cfg):
        (self.vname, self.dtype, self.out, self.a_col, self.b_col, activation, self.bias) = spec[:7]
        self.activation = "leaky_relu" if activation is True else (activation or "")
        self.has_activation = bool(self.activation)  # an epilogue cuBLAS's plain GEMM lacks
        self.masked = len(spec) > 7 and spec[7]
        self.config = Config(*cfg)
        self.name = f"variant_{self.vname}_{self.config.tag()}"
        self.kind = "variant"

    def torch_dtype(self, name):
        return {"i8": torch.int8, "i32": torch.int32}.get(name) or torch_dtype(name)

    def problem(self, shape, seed):
        """Fresh inputs in the variant's layouts (a column-major operand is a transposed view of a
        contiguous tensor), a bias row, C poisoned (NaN; int32: a value no product reaches)."""
        g = torch.Generator(device="cuda").manual_seed(seed)
        m, n, k = shape.m, shape.n, shape.k

        def operand(rows, cols, col_major):
            dims = (cols, rows) if col_major else (rows, cols)
            if self.dtype == "i8":
                t = torch.randint(-8, 9, dims, device="cuda", generator=g, dtype=torch.int8)
            else:
                t = torch.randn(dims, device="cuda", generator=g, dtype=torch.float32).to(self.torch_dtype(self.dtype))
            return t.t() if col_major else t
        a, b = operand(m, k, self.a_col), operand(k, n, self.b_col)
        bias_dt = torch.float16 if self.dtype in ("i8", "fp8e4m3") else self.torch_dtype(self.dtype)
        bias = torch.randn(n, device="cuda", generator=g, dtype=torch.float32).to(bias_dt)
        if self.out == "i32":
            c = torch.full((m, n), -(2 ** 31) + 7, device="cuda", dtype=torch.int32)
        else:
            c = torch.full((m, n), float("nan"), device="cuda", dtype=self.torch_dtype(self.out))
        return {"shape": shape, "a": a, "b": b, "bias": bias, "c": c}

    def reference(self, p):
        prev = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = False
        try:
            r = torch.matmul(p["a"].double(), p["b"].double()) if self.dtype == "i8" else \
                torch.matmul(p["a"].float(), p["b"].float())
        finally:
            torch.backends.cuda.matmul.allow_tf32 = prev
        if self.bias:
            r = r + p["bias"].float()[None, :]
        if self.activation == "leaky_relu":
            r = torch.where(r >= 0, r, 0.01 * r)
        elif self.activation == "gelu_tanh":
            r = torch.nn.functional.gelu(r, approximate="tanh")
        elif self.activation == "clamp":
            r = r.clamp(-2.0, 2.0)
        elif self.activation == "precise":
            r = r / 3.0 + r.abs().sqrt() + r.abs().pow(1.5)
        return r

    def poison(self, p):
        p["c"].fill_(-(2 ** 31) + 7 if self.out == "i32" else float("nan"))

    def check(self, p, ref):
        c = p["c"]
        if self.out == "i32":
            bad = (c.double() != ref).sum().item()
            return bad == 0, f"{bad} elements differ" if bad else "exact"
        cf = c.float()
        if not torch.isfinite(cf).all():
            return False, f"{(~torch.isfinite(cf)).sum().item()} non-finite elements (unwritten NaN poison or overflow)"
        err = (cf - ref).abs().max().item() / (ref.abs().max().item() or 1.0)
        tol = {"f16": 1e-2, "bf16": 2e-2, "f32": 1e-2, "fp8e4m3": 1e-2}[self.dtype]
        return err <= tol, f"max|err|/max|ref| = {err:.2e}"

    def arguments(self, p):
        s = p["shape"]
        a, b, c = p["a"], p["b"], p["c"]
        values = {"a_ptr": a.data_ptr(), "b_ptr": b.data_ptr(), "c_ptr": c.data_ptr(), "bias_ptr": p["bias"].data_ptr(),
                  "M": s.m, "N": s.n, "K": s.k, "stride_am": a.stride(0), "stride_ak": a.stride(1),
                  "stride_bk": b.stride(0), "stride_bn": b.stride(1), "stride_cm": c.stride(0), "stride_cn": c.stride(1)}
        cfg = self.config
        tiles = -(-s.m // cfg.block_m) * -(-s.n // cfg.block_n)
        args = (a, b, c, p["bias"], s.m, s.n, s.k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                c.stride(1))
        kw = dict(BLOCK_SIZE_M=cfg.block_m, BLOCK_SIZE_N=cfg.block_n, BLOCK_SIZE_K=cfg.block_k,
                  GROUP_SIZE_M=cfg.group_m, ACTIVATION=self.activation, HAS_BIAS=self.bias,
                  ACC_INT=self.dtype == "i8", MASKED=self.masked, num_warps=cfg.num_warps, num_stages=cfg.num_stages)
        return values, (tiles, 1, 1), args, kw

    def compile_only(self, p):
        _, grid, args, kw = self.arguments(p)
        return matmul_variant_kernel.warmup(*args, grid=grid[:1], **kw)

    def launcher(self, p):
        _, grid, args, kw = self.arguments(p)
        return lambda: matmul_variant_kernel[grid[:1]](*args, **kw)


class Grouped:
    """Tutorial 08's grouped GEMM at one config over one list of problem sizes (f16): the same
    interface as Variant."""

    def __init__(self, cfg, sizes):
        self.config = Config(*cfg)
        self.sizes = sizes
        self.name = f"grouped_f16_{self.config.tag()}"
        self.kind = "grouped"

    def problem(self, shape, seed):
        """Fresh A, B per problem, C poisoned, and the device tables the kernel reads (`shape` only
        names the row)."""
        g = torch.Generator(device="cuda").manual_seed(seed)
        p = {"shape": shape, "a": [], "b": [], "c": []}
        for m, n, k in self.sizes:
            p["a"].append(torch.randn(m, k, device="cuda", generator=g, dtype=torch.float32).half())
            p["b"].append(torch.randn(k, n, device="cuda", generator=g, dtype=torch.float32).half())
            p["c"].append(torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16))
        dev = dict(device="cuda")
        p["tables"] = [torch.tensor([t.data_ptr() for t in p[x]], **dev) for x in ("a", "b", "c")]
        p["sizes"] = torch.tensor([d for s in self.sizes for d in s], dtype=torch.int32, **dev)
        p["lds"] = torch.tensor([t.stride(0) for i in range(len(self.sizes)) for t in (p["a"][i], p["b"][i], p["c"][i])],
                                dtype=torch.int32, **dev)
        return p

    def reference(self, p):
        prev = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = False
        try:
            return [torch.matmul(a.float(), b.float()) for a, b in zip(p["a"], p["b"])]
        finally:
            torch.backends.cuda.matmul.allow_tf32 = prev

    def poison(self, p):
        for c in p["c"]:
            c.fill_(float("nan"))

    def check(self, p, ref):
        worst = 0.0
        for c, r in zip(p["c"], ref):
            cf = c.float()
            if not torch.isfinite(cf).all():
                return False, f"{(~torch.isfinite(cf)).sum().item()} non-finite elements (unwritten NaN poison)"
            worst = max(worst, (cf - r).abs().max().item() / (r.abs().max().item() or 1.0))
        return worst <= 1e-2, f"max|err|/max|ref| = {worst:.2e} over {len(ref)} problems"

    def arguments(self, p):
        sms = num_sms()
        values = {"group_a_ptrs": p["tables"][0].data_ptr(), "group_b_ptrs": p["tables"][1].data_ptr(),
                  "group_c_ptrs": p["tables"][2].data_ptr(), "group_gemm_sizes": p["sizes"].data_ptr(),
                  "g_lds": p["lds"].data_ptr(), "group_size": len(self.sizes)}
        cfg = self.config
        args = (p["tables"][0], p["tables"][1], p["tables"][2], p["sizes"], p["lds"], len(self.sizes))
        kw = dict(NUM_SM=sms, BLOCK_SIZE_M=cfg.block_m, BLOCK_SIZE_N=cfg.block_n, BLOCK_SIZE_K=cfg.block_k,
                  num_warps=cfg.num_warps, num_stages=cfg.num_stages)
        return values, (sms, 1, 1), args, kw

    def compile_only(self, p):
        _, grid, args, kw = self.arguments(p)
        return grouped_matmul_kernel.warmup(*args, grid=grid[:1], **kw)

    def launcher(self, p):
        _, grid, args, kw = self.arguments(p)
        return lambda: grouped_matmul_kernel[grid[:1]](*args, **kw)


def find_case(name: str) -> Case:
    for c in all_cases():
        if c.name == name:
            return c
    raise KeyError(name)


# ------------------------------------------------------------------------------------------------ arguments

def torch_dtype(name: str):
    return {"f16": torch.float16, "bf16": torch.bfloat16, "fp8e4m3": torch.float8_e4m3fn,
            "f32": torch.float32}[name]


@dataclasses.dataclass
class Problem:
    """Device tensors of one case at one shape. A is MxK row-major; B is KxN (`b`), with `b_t` its NxK
    K-contiguous copy for the descriptor kernels and fp8 (which wants B K-major); C is MxN."""
    shape: Shape
    a: "torch.Tensor"
    b: "torch.Tensor"          # KxN logical view (may be column-major)
    c: "torch.Tensor"
    b_t: Optional["torch.Tensor"] = None


def make_problem(case: Case, shape: Shape, seed: int = 0, device: str = "cuda") -> Problem:
    """Fresh random inputs (never zeros), scaled so sums stay well inside f16; C poisoned with NaN."""
    g = torch.Generator(device=device).manual_seed(seed)
    bsz = (shape.batch,) if shape.batch > 1 else ()
    in_dt = torch_dtype(case.dtype)
    gen_dt = torch.float16 if case.dtype == "fp8e4m3" else in_dt
    a = torch.randn(bsz + (shape.m, shape.k), device=device, dtype=gen_dt, generator=g)
    bn = torch.randn(bsz + (shape.n, shape.k), device=device, dtype=gen_dt, generator=g)  # N x K
    if case.dtype == "fp8e4m3":
        a = a.to(in_dt)
        bn = bn.to(in_dt)
    b_t = bn.contiguous()               # N x K, K contiguous
    if case.dtype == "fp8e4m3" or case.kind in ("tma", "tma_persistent", "desc_persistent"):
        b = b_t.transpose(-1, -2)       # K x N view, column-major
    else:
        b = b_t.transpose(-1, -2).contiguous()  # K x N row-major
    out_dt = torch.float16 if case.dtype == "fp8e4m3" else in_dt
    c = torch.full(bsz + (shape.m, shape.n), float("nan"), device=device, dtype=out_dt)
    return Problem(shape, a, b, c, b_t)


def reference(p: Problem) -> "torch.Tensor":
    """C in f32 from the (already rounded) inputs, TF32 off."""
    prev = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        return torch.matmul(p.a.float(), p.b.float())
    finally:
        torch.backends.cuda.matmul.allow_tf32 = prev


def num_sms() -> int:
    return torch.cuda.get_device_properties("cuda").multi_processor_count


def _ensure_allocator():
    """Device-side descriptors need a global scratch allocation per launch."""
    def alloc_fn(size: int, alignment: int, stream: Optional[int]):
        return torch.empty(size, device="cuda", dtype=torch.int8)
    triton.set_allocator(alloc_fn)


def launch_spec(case: Case, p: Problem) -> Tuple[tuple, Dict, tuple]:
    """(positional args, constexpr/launch kwargs, grid) for the case's Triton kernel on problem p."""
    s, cfg = p.shape, case.config
    common = dict(BLOCK_SIZE_M=cfg.block_m, BLOCK_SIZE_N=cfg.block_n, BLOCK_SIZE_K=cfg.block_k,
                  GROUP_SIZE_M=cfg.group_m, num_warps=cfg.num_warps, num_stages=cfg.num_stages)
    tiles = triton.cdiv(s.m, cfg.block_m) * triton.cdiv(s.n, cfg.block_n)
    if case.kind == "tutorial":
        args = (p.a, p.b, p.c, s.m, s.n, s.k, p.a.stride(0), p.a.stride(1), p.b.stride(0), p.b.stride(1),
                p.c.stride(0), p.c.stride(1))
        return args, dict(common, ASSUME=True) if case.assume else common, (tiles,)
    if case.kind == "batched":
        args = (p.a, p.b, p.c, s.batch, s.m, s.n, s.k,
                p.a.stride(0), p.a.stride(1), p.a.stride(2),
                p.b.stride(0), p.b.stride(1), p.b.stride(2),
                p.c.stride(0), p.c.stride(1), p.c.stride(2))
        return args, dict(common, ACC_F16=case.acc == "f16"), (tiles, s.batch)
    sms = num_sms()
    if case.kind == "persistent":
        args = (p.a, p.b, p.c, s.m, s.n, s.k, p.a.stride(0), p.a.stride(1), p.b.stride(0), p.b.stride(1),
                p.c.stride(0), p.c.stride(1))
        return args, dict(common, NUM_SMS=sms), (min(sms, tiles),)
    fp8_out = p.c.dtype == torch.float8_e4m3fn
    if case.kind in ("tma", "tma_persistent"):
        from triton.tools.tensor_descriptor import TensorDescriptor
        a_desc = TensorDescriptor.from_tensor(p.a, [cfg.block_m, cfg.block_k])
        b_desc = TensorDescriptor.from_tensor(p.b_t, [cfg.block_n, cfg.block_k])
        c_desc = TensorDescriptor.from_tensor(p.c, [cfg.block_m, cfg.block_n // (2 if case.epilogue_subtile else 1)])
        args = (a_desc, b_desc, c_desc, s.m, s.n, s.k)
        kw = dict(common, FP8_OUTPUT=fp8_out, WARP_SPECIALIZE=case.warp_specialize)
        if case.kind == "tma":
            return args, kw, (tiles,)
        return args, dict(kw, EPILOGUE_SUBTILE=case.epilogue_subtile, NUM_SMS=sms), (min(sms, tiles),)
    if case.kind == "desc_persistent":
        _ensure_allocator()
        args = (p.a, p.b_t, p.c, s.m, s.n, s.k)
        kw = dict(common, EPILOGUE_SUBTILE=case.epilogue_subtile, NUM_SMS=sms, WARP_SPECIALIZE=case.warp_specialize)
        return args, kw, (min(sms, tiles),)
    raise ValueError(case.kind)


def tolerance(case: Case, k: int) -> float:
    """Allowed max|C - ref| / max|ref|: output rounding plus accumulation error."""
    if case.acc == "f16":
        return 5e-2
    return {"f16": 1e-2, "bf16": 2e-2, "fp8e4m3": 1e-2}[case.dtype]


def check(case: Case, c: "torch.Tensor", ref: "torch.Tensor") -> Tuple[bool, str]:
    """True when C is finite everywhere (no poison left) and within tolerance of the reference."""
    cf = c.float()
    if not torch.isfinite(cf).all():
        bad = (~torch.isfinite(cf)).sum().item()
        return False, f"{bad} non-finite elements (unwritten NaN poison or overflow)"
    scale = ref.abs().max().item() or 1.0
    err = (cf - ref).abs().max().item() / scale
    ok = err <= tolerance(case, ref.shape[-1])
    return ok, f"max|err|/max|ref| = {err:.2e}"


def compile_only(case: Case, p: Problem):
    """Compiles without launching (JITFunction.warmup) and returns Triton's CompiledKernel."""
    args, kw, grid = launch_spec(case, p)
    return case.kernel.warmup(*args, grid=grid, **kw)


def launcher(case: Case, p: Problem) -> Callable[[], object]:
    """A closure that launches the case's kernel once on p (asynchronous), returning the CompiledKernel."""
    args, kw, grid = launch_spec(case, p)
    kernel = case.kernel

    def run():
        return kernel[grid](*args, **kw)
    return run


def default_shapes(case: Case) -> List[Shape]:
    if case.kind == "batched":
        return [Shape(4096, 4096, 4096, 16)]
    if case.dtype == "fp8e4m3":
        return [Shape(8192, 8192, 8192), Shape(4096, 4096, 4096)]
    if case.kind in ("persistent", "tma", "tma_persistent", "desc_persistent"):
        return [Shape(4096, 4096, 4096), Shape(8192, 8192, 8192)]
    return [Shape(s, s, s) for s in (1024, 2048, 4096, 8192)]


if __name__ == "__main__":
    for c in all_cases():
        print(f"{c.name:48s} {c.kind:16s} ws={int(c.warp_specialize)} gemmc={c.gemmc.tir if c.gemmc else '-'}"
              f" shapes={','.join(s.tag() for s in default_shapes(c))}")
    print(f"HAVE_TRITON={HAVE_TRITON}")

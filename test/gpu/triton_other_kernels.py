#!/usr/bin/env python3
"""Triton 3.6's TTIR of kernels beside the GEMMs users write (`x @ W.T` with an in-kernel tl.trans, a layer norm, an attention forward pass with two chained dots and an online softmax, tutorial 06's attention backward (dK, dV and dQ in one kernel, causal and not), a W4A16 GEMM, a cross-entropy, RMSNorm, rotary embedding, SwiGLU, an fp8 row quantizer, the tutorial's loop with tl.range options, the tutorial GEMM with block pointers, GEMMs as users write them beside the tutorial (a K loop stepping by BK, an epilogue reading C and a row bias, W8A8 with dequantizing scales, the old tutorial's hints with swizzle2d and a column-major C, 16-row decode tiles, a batch on program_id(2), fp8 e5m2, column sums added atomically and an fp8 row quantization fused into the epilogue, block-scaled fp8 and the fused mixture-of-experts GEMM of LLM serving stacks), a dropout with tl.rand, tl.gather along rows and from a lookup table, tl.histogram with and without a mask, tl.inline_asm_elementwise packed, with two results and impure), compiled by libgemmc and run against torch or Triton's own output (GPU machine only)."""
# Each kernel is compiled by Triton first (which also checks that Triton runs it), then its TTIR
# goes through libgemmc and runs with the same arguments on an output poisoned with NaN; a row
# passes when the output is finite and within tolerance of a float32 torch reference.
#
# Usage (after `source scripts/device-unpack.sh`): python3 test/gpu/triton_other_kernels.py [--rows REGEX]
# Exit 0 when every row is correct, 1 otherwise; without torch, Triton or a GPU: "skipped", exit 0.
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(root, "scripts"))
sys.path.insert(0, os.path.join(root, "bench"))
import triton_kernels as tk  # noqa: E402  (defines triton / tl, or stand-ins without them)

triton, tl = tk.triton, tk.tl


@triton.jit
def nt_matmul(a_ptr, w_ptr, c_ptr, M, N, K, stride_am, stride_wn, stride_cm,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # y = x @ W.T with W [N, K] row-major, written with an in-kernel transpose
    pid_m = tl.program_id(0); pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM); rn = pid_n * BN + tl.arange(0, BN); rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    w_ptrs = w_ptr + rn[:, None] * stride_wn + rk[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k * BK), other=0.0)
        w = tl.load(w_ptrs, mask=(rn[:, None] < N) & (rk[None, :] < K - k * BK), other=0.0)
        acc = tl.dot(a, tl.trans(w), acc)
        a_ptrs += BK; w_ptrs += BK
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))

@triton.jit
def layernorm(x_ptr, y_ptr, w_ptr, b_ptr, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < N, other=0.).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(cols < N, x - mean, 0.)
    var = tl.sum(xc * xc, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=cols < N); b = tl.load(b_ptr + cols, mask=cols < N)
    tl.store(y_ptr + row * stride + cols, xc * rstd * w + b, mask=cols < N)

@triton.jit
def attn_fwd(Q, K, V, O, stride_m, N_CTX, sm_scale, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
    start_m = tl.program_id(0)
    offs_m = start_m * BM + tl.arange(0, BM); offs_n = tl.arange(0, BN); offs_d = tl.arange(0, D)
    q = tl.load(Q + offs_m[:, None] * stride_m + offs_d[None, :])
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf"); l_i = tl.zeros([BM], dtype=tl.float32)
    acc = tl.zeros([BM, D], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in range(0, N_CTX, BN):
        k = tl.load(K + (start_n + offs_n)[None, :] * stride_m + offs_d[:, None])
        qk = tl.dot(q, k) * qk_scale
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V + (start_n + offs_n)[:, None] * stride_m + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(O + offs_m[:, None] * stride_m + offs_d[None, :], acc.to(tl.float16))

@triton.jit
def _attn_bwd_dkdv(dk, dv, Q, k, v, sm_scale, DO, M, D, stride_tok, stride_d, H, N_CTX, BLOCK_M1: tl.constexpr,
                   BLOCK_N1: tl.constexpr, HEAD_DIM: tl.constexpr, start_n, start_m, num_steps, MASK: tl.constexpr):
    offs_m = start_m + tl.arange(0, BLOCK_M1)
    offs_n = start_n + tl.arange(0, BLOCK_N1)
    offs_k = tl.arange(0, HEAD_DIM)
    qT_ptrs = Q + offs_m[None, :] * stride_tok + offs_k[:, None] * stride_d
    do_ptrs = DO + offs_m[:, None] * stride_tok + offs_k[None, :] * stride_d
    tl.static_assert(BLOCK_N1 % BLOCK_M1 == 0)
    curr_m = start_m
    step_m = BLOCK_M1
    for blk_idx in range(num_steps):
        qT = tl.load(qT_ptrs)
        offs_m = curr_m + tl.arange(0, BLOCK_M1)
        m = tl.load(M + offs_m)
        qkT = tl.dot(k, qT)
        pT = tl.math.exp2(qkT - m[None, :])
        if MASK:
            mask = (offs_m[None, :] >= offs_n[:, None])
            pT = tl.where(mask, pT, 0.0)
        do = tl.load(do_ptrs)
        ppT = pT.to(tl.float16)
        dv += tl.dot(ppT, do)
        Di = tl.load(D + offs_m)
        dpT = tl.dot(v, tl.trans(do)).to(tl.float32)
        dsT = pT * (dpT - Di[None, :])
        dsT = dsT.to(tl.float16)
        dk += tl.dot(dsT, tl.trans(qT))
        curr_m += step_m
        qT_ptrs += step_m * stride_tok
        do_ptrs += step_m * stride_tok
    return dk, dv

@triton.jit
def _attn_bwd_dq(dq, q, K, V, do, m, D, stride_tok, stride_d, H, N_CTX, BLOCK_M2: tl.constexpr, BLOCK_N2: tl.constexpr,
                 HEAD_DIM: tl.constexpr, start_m, start_n, num_steps, MASK: tl.constexpr):
    offs_m = start_m + tl.arange(0, BLOCK_M2)
    offs_n = start_n + tl.arange(0, BLOCK_N2)
    offs_k = tl.arange(0, HEAD_DIM)
    kT_ptrs = K + offs_n[None, :] * stride_tok + offs_k[:, None] * stride_d
    vT_ptrs = V + offs_n[None, :] * stride_tok + offs_k[:, None] * stride_d
    Di = tl.load(D + offs_m)
    tl.static_assert(BLOCK_M2 % BLOCK_N2 == 0)
    curr_n = start_n
    step_n = BLOCK_N2
    for blk_idx in range(num_steps):
        kT = tl.load(kT_ptrs)
        vT = tl.load(vT_ptrs)
        qk = tl.dot(q, kT)
        p = tl.math.exp2(qk - m)
        if MASK:
            offs_n = curr_n + tl.arange(0, BLOCK_N2)
            mask = (offs_m[:, None] >= offs_n[None, :])
            p = tl.where(mask, p, 0.0)
        dp = tl.dot(do, vT).to(tl.float32)
        ds = p * (dp - Di[:, None])
        ds = ds.to(tl.float16)
        dq += tl.dot(ds, tl.trans(kT))
        curr_n += step_n
        kT_ptrs += step_n * stride_tok
        vT_ptrs += step_n * stride_tok
    return dq

@triton.jit
def _attn_bwd(Q, K, V, sm_scale, DO, DQ, DK, DV, M, D, stride_z, stride_h, stride_tok, stride_d, H, N_CTX,
              BLOCK_M1: tl.constexpr, BLOCK_N1: tl.constexpr, BLOCK_M2: tl.constexpr, BLOCK_N2: tl.constexpr,
              BLK_SLICE_FACTOR: tl.constexpr, HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr):
    LN2: tl.constexpr = 0.6931471824645996
    bhid = tl.program_id(2)
    off_chz = (bhid * N_CTX).to(tl.int64)
    adj = (stride_h * (bhid % H) + stride_z * (bhid // H)).to(tl.int64)
    pid = tl.program_id(0)
    Q += adj
    K += adj
    V += adj
    DO += adj
    DQ += adj
    DK += adj
    DV += adj
    M += off_chz
    D += off_chz
    offs_k = tl.arange(0, HEAD_DIM)
    start_n = pid * BLOCK_N1
    start_m = 0
    MASK_BLOCK_M1: tl.constexpr = BLOCK_M1 // BLK_SLICE_FACTOR
    offs_n = start_n + tl.arange(0, BLOCK_N1)
    dv = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    dk = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    k = tl.load(K + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d)
    v = tl.load(V + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d)
    if CAUSAL:
        start_m = start_n
        num_steps = BLOCK_N1 // MASK_BLOCK_M1
        dk, dv = _attn_bwd_dkdv(dk, dv, Q, k, v, sm_scale, DO, M, D, stride_tok, stride_d, H, N_CTX, MASK_BLOCK_M1,
                                BLOCK_N1, HEAD_DIM, start_n, start_m, num_steps, MASK=True)
        start_m += num_steps * MASK_BLOCK_M1
    num_steps = (N_CTX - start_m) // BLOCK_M1
    dk, dv = _attn_bwd_dkdv(dk, dv, Q, k, v, sm_scale, DO, M, D, stride_tok, stride_d, H, N_CTX, BLOCK_M1, BLOCK_N1,
                            HEAD_DIM, start_n, start_m, num_steps, MASK=False)
    dv_ptrs = DV + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d
    tl.store(dv_ptrs, dv)
    dk *= sm_scale
    dk_ptrs = DK + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d
    tl.store(dk_ptrs, dk)
    start_m = pid * BLOCK_M2
    start_n = 0
    num_steps = N_CTX // BLOCK_N2
    MASK_BLOCK_N2: tl.constexpr = BLOCK_N2 // BLK_SLICE_FACTOR
    offs_m = start_m + tl.arange(0, BLOCK_M2)
    q = tl.load(Q + offs_m[:, None] * stride_tok + offs_k[None, :] * stride_d)
    dq = tl.zeros([BLOCK_M2, HEAD_DIM], dtype=tl.float32)
    do = tl.load(DO + offs_m[:, None] * stride_tok + offs_k[None, :] * stride_d)
    m = tl.load(M + offs_m)
    m = m[:, None]
    if CAUSAL:
        end_n = start_m + BLOCK_M2
        num_steps = BLOCK_M2 // MASK_BLOCK_N2
        dq = _attn_bwd_dq(dq, q, K, V, do, m, D, stride_tok, stride_d, H, N_CTX, BLOCK_M2, MASK_BLOCK_N2, HEAD_DIM,
                          start_m, end_n - num_steps * MASK_BLOCK_N2, num_steps, MASK=True)
        end_n -= num_steps * MASK_BLOCK_N2
        num_steps = end_n // BLOCK_N2
        start_n = end_n - num_steps * BLOCK_N2
    dq = _attn_bwd_dq(dq, q, K, V, do, m, D, stride_tok, stride_d, H, N_CTX, BLOCK_M2, BLOCK_N2, HEAD_DIM, start_m,
                      start_n, num_steps, MASK=False)
    dq_ptrs = DQ + offs_m[:, None] * stride_tok + offs_k[None, :] * stride_d
    dq *= LN2
    tl.store(dq_ptrs, dq)

@triton.jit
def w4a16_matmul(a_ptr, b_ptr, s_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, GROUP: tl.constexpr,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # B holds two signed 4-bit weights per byte along K (low nibble first), one f16 scale per GROUP rows.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    offs_kh = tl.arange(0, BK // 2)
    acc = tl.zeros((BM, BN), tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + (k0 + offs_k)[None, :], mask=offs_m[:, None] < M, other=0.0)
        bp = tl.load(b_ptr + (k0 // 2 + offs_kh)[:, None] * stride_bk + offs_n[None, :], mask=offs_n[None, :] < N,
                     other=0)
        lo = (bp & 0xF).to(tl.int8) - 8
        hi = (bp >> 4).to(tl.int8) - 8
        w = tl.permute(tl.join(lo, hi), (0, 2, 1)).reshape(BK, BN)
        sc = tl.load(s_ptr + (k0 // GROUP) * N + offs_n, mask=offs_n < N, other=0.0)
        acc = tl.dot(a, w.to(tl.float16) * sc[None, :], acc)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc.to(tl.float16),
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def cross_entropy(logits_ptr, labels_ptr, loss_ptr, stride, V, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = logits_ptr + row.to(tl.int64) * stride
    m = -float("inf")
    total = 0.0
    for start in range(0, V, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(base + offs, mask=offs < V, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, 0))
        total = total * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), 0)
        m = m_new
    label = tl.load(labels_ptr + row)
    tl.store(loss_ptr + row, tl.log(total) + m - tl.load(base + label).to(tl.float32))


@triton.jit
def rmsnorm(x_ptr, w_ptr, y_ptr, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, 0) / N + eps)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * stride + offs, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def rope(x_ptr, cos_ptr, sin_ptr, o_ptr, H: tl.constexpr, D: tl.constexpr):
    t = tl.program_id(0)
    half = tl.arange(0, D // 2)
    heads = tl.arange(0, H)
    base = x_ptr + t * H * D + heads[:, None] * D
    x1 = tl.load(base + half[None, :]).to(tl.float32)
    x2 = tl.load(base + D // 2 + half[None, :]).to(tl.float32)
    c = tl.load(cos_ptr + t * (D // 2) + half)[None, :]
    s = tl.load(sin_ptr + t * (D // 2) + half)[None, :]
    out = o_ptr + t * H * D + heads[:, None] * D
    tl.store(out + half[None, :], (x1 * c - x2 * s).to(tl.float16))
    tl.store(out + D // 2 + half[None, :], (x2 * c + x1 * s).to(tl.float16))


@triton.jit
def swiglu(a_ptr, b_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=m, other=0.0).to(tl.float32)
    tl.store(o_ptr + offs, (a * tl.sigmoid(a) * b).to(tl.bfloat16), mask=m)


@triton.jit
def quant_fp8_rows(x_ptr, q_ptr, s_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(x_ptr + row * N + offs, mask=m, other=0.0).to(tl.float32)
    scale = 448.0 / tl.maximum(tl.max(tl.abs(x), 0), 1e-12)
    tl.store(q_ptr + row * N + offs, (x * scale).to(tl.float8e4nv), mask=m)
    tl.store(s_ptr + row, 1.0 / scale)


@triton.jit
def matmul_range_options(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # The tutorial's loop with tl.range's per-loop options, as users tune it.
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_n = tl.program_id(1) * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), num_stages=2, loop_unroll_factor=2, disallow_acc_multi_buffer=True):
        kk = k * BK + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * K + kk[None, :], mask=(offs_m[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * N + offs_n[None, :], mask=(kk[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(tl.float16),
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def matmul_block_ptr(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # The block-pointer form of the tutorial GEMM (make_block_ptr, advance, boundary_check with zero padding).
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_bp = tl.make_block_ptr(a_ptr, (M, K), (stride_am, stride_ak), (pid_m * BM, 0), (BM, BK), (1, 0))
    b_bp = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, stride_bn), (0, pid_n * BN), (BK, BN), (1, 0))
    acc = tl.zeros((BM, BN), tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_bp, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_bp, boundary_check=(0, 1), padding_option="zero")
        acc = tl.dot(a, b, acc)
        a_bp = tl.advance(a_bp, (0, BK))
        b_bp = tl.advance(b_bp, (BK, 0))
    c_bp = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, stride_cn), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    tl.store(c_bp, acc.to(tl.float16), boundary_check=(0, 1))


@triton.jit
def _grouped_pid(M, N, BM: tl.constexpr, BN: tl.constexpr, GROUP: tl.constexpr):
    # The tutorial's grouped order: GROUP rows of tiles at a time, column by column.
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    group_id = pid // (GROUP * num_pid_n)
    first_pid_m = group_id * GROUP
    group_size_m = min(num_pid_m - first_pid_m, GROUP)
    pid_m = first_pid_m + ((pid % (GROUP * num_pid_n)) % group_size_m)
    pid_n = (pid % (GROUP * num_pid_n)) // group_size_m
    return pid_m, pid_n


@triton.jit
def _tutorial_tile(a_ptr, b_ptr, M, N, K, stride_am, stride_bk, BM: tl.constexpr, BN: tl.constexpr,
                   BK: tl.constexpr, GROUP: tl.constexpr):
    # The tutorial's tile of A @ B (rows and columns wrapped with % M / % N, K masked): its rows,
    # columns and f32 accumulator.
    pid_m, pid_n = _grouped_pid(M, N, BM, BN, GROUP)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + (rm % M)[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + (rn % N)[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    return rm, rn, acc


@triton.jit
def matmul_kstep(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # A K loop stepping by BK with the tile offsets recomputed from k each iteration, masks on
    # every edge, a 2-D grid without grouping: the GEMM as many users first write it.
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * stride_am + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * stride_bk + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def matmul_epilogue_io(a_ptr, b_ptr, c_ptr, d_ptr, bias_ptr, M, N, K, stride_am, stride_bk, stride_cm, stride_dm,
                       alpha, beta, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    # D = relu(alpha * A @ B + beta * C + bias[row]) in bf16: the epilogue reads a tile (C) and a
    # per-row bias (cuBLASLt's bias is per row of its column-major D), the tutorial's grouped order.
    rm, rn, acc = _tutorial_tile(a_ptr, b_ptr, M, N, K, stride_am, stride_bk, BM, BN, BK, GROUP)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    c = tl.load(c_ptr + rm[:, None] * stride_cm + rn[None, :], mask=mask, other=0.0)
    bias = tl.load(bias_ptr + rm, mask=rm < M, other=0.0)
    d = tl.maximum(alpha * acc + beta * c.to(tl.float32) + bias[:, None].to(tl.float32), 0.0)
    tl.store(d_ptr + rm[:, None] * stride_dm + rn[None, :], d.to(tl.bfloat16), mask=mask)


@triton.jit
def matmul_int8_dequant(a_ptr, w_ptr, sa_ptr, sw_ptr, c_ptr, M, N, K, stride_am, stride_wn, stride_cm,
                        BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # W8A8: int8 x @ W.T (W [N, K]) accumulated in int32, dequantized by a per-row scale of x and
    # a per-column scale of W into f16.
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    w_ptrs = w_ptr + rn[:, None] * stride_wn + rk[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.int32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k * BK), other=0)
        w = tl.load(w_ptrs, mask=(rn[:, None] < N) & (rk[None, :] < K - k * BK), other=0)
        acc = tl.dot(a, tl.trans(w), acc, out_dtype=tl.int32)
        a_ptrs += BK
        w_ptrs += BK
    sa = tl.load(sa_ptr + rm, mask=rm < M, other=0.0)
    sw = tl.load(sw_ptr + rn, mask=rn < N, other=0.0)
    c = acc.to(tl.float32) * sa[:, None] * sw[None, :]
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], c.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def matmul_hinted(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # The older tutorial's hints (tl.multiple_of, tl.max_contiguous), unmasked loads of a K that
    # is a multiple of BK, tl.swizzle2d's grouped order on a 2-D grid, C written column-major.
    pid_m, pid_n = tl.swizzle2d(tl.program_id(0), tl.program_id(1), tl.num_programs(0), tl.num_programs(1), 8)
    rm = tl.max_contiguous(tl.multiple_of((pid_m * BM + tl.arange(0, BM)) % M, BM), BM)
    rn = tl.max_contiguous(tl.multiple_of((pid_n * BN + tl.arange(0, BN)) % N, BN), BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K // BK):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    cm = pid_m * BM + tl.arange(0, BM)
    cn = pid_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + cm[:, None] + cn[None, :] * stride_cm, acc.to(tl.float16), mask=(cm[:, None] < M) & (cn[None, :] < N))


@triton.jit
def matmul_skinny(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # Decode-shaped GEMM: a few rows of activations against a large weight, a 16-row tile.
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k * BK), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - k * BK) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def bmm_grid_z(a_ptr, b_ptr, c_ptr, M, N, K, stride_ab, stride_am, stride_bb, stride_bk, stride_cb, stride_cm,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # Batched GEMM with the batch on program_id(2) and per-batch strides (torch.bmm's layout).
    bid = tl.program_id(2).to(tl.int64)
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + bid * stride_ab + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + bid * stride_bb + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k * BK), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - k * BK) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    tl.store(c_ptr + bid * stride_cb + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def matmul_colsum(a_ptr, b_ptr, c_ptr, s_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    # C = A @ B and, fused, the column sums of C added atomically (a bias gradient beside the GEMM):
    # a reduction across the warps of the accumulator's layout in the epilogue.
    rm, rn, acc = _tutorial_tile(a_ptr, b_ptr, M, N, K, stride_am, stride_bk, BM, BN, BK, GROUP)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16), mask=mask)
    tl.atomic_add(s_ptr + rn, tl.sum(tl.where(mask, acc, 0.0), axis=0), mask=rn < N)


@triton.jit
def matmul_rowquant(a_ptr, b_ptr, q_ptr, s_ptr, M, N, K, stride_am, stride_bk, stride_qm,
                    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # A GEMM whose epilogue quantizes each row of its tile to fp8 e4m3 with the tile row's absmax
    # (one scale per row and column block): a reduction along the rows and a division before the
    # conversion.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k * BK), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - k * BK) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    scale = tl.maximum(tl.max(tl.abs(acc), axis=1), 1e-6) / 448.0
    q = (acc / scale[:, None]).to(tl.float8e4nv)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(q_ptr + rm[:, None] * stride_qm + rn[None, :], q, mask=mask)
    tl.store(s_ptr + rm * tl.num_programs(1) + pid_n, scale, mask=rm < M)


@triton.jit
def fp8_block_scaled_matmul(a_ptr, b_ptr, c_ptr, as_ptr, bs_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                            stride_cm, stride_asm, stride_ask, stride_bsn, stride_bsk, GROUP_N: tl.constexpr,
                            GROUP_K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                            GROUP: tl.constexpr):
    # W8A8 with block-wise fp8 scales as LLM serving stacks write it (one scale per row and
    # 128 K of A, per 128 x 128 block of B): every K step's dot is scaled before it is added.
    pid_m, pid_n = _grouped_pid(M, N, BM, BN, GROUP)
    offs_am = (pid_m * BM + tl.arange(0, BM)) % M
    offs_bn = (pid_n * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn
    as_ptrs = as_ptr + offs_am * stride_asm
    bs_ptrs = bs_ptr + (offs_bn // GROUP_N) * stride_bsn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        ks = (k * BK) // GROUP_K
        a_s = tl.load(as_ptrs + ks * stride_ask)
        b_s = tl.load(bs_ptrs + ks * stride_bsk)
        acc += tl.dot(a, b) * a_s[:, None] * b_s[None, :]
        a_ptrs += BK * stride_ak
        b_ptrs += BK * stride_bk
    offs_cm = pid_m * BM + tl.arange(0, BM)
    offs_cn = pid_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :], acc.to(tl.bfloat16),
             mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def fused_moe(a_ptr, w_ptr, c_ptr, sorted_ids_ptr, expert_ids_ptr, N, K, EM, num_valid_tokens, stride_am, stride_we,
              stride_wn, stride_wk, stride_cm, TOP_K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
              BK: tl.constexpr, GROUP: tl.constexpr):
    # The fused mixture-of-experts GEMM of LLM serving stacks: rows of A gathered through the
    # token ids sorted by expert (padded per expert to BM with an out-of-range id), each block's
    # expert weight W[e] ([N, K], K-major), results scattered to the (token, k-th expert) rows of C.
    pid_m, pid_n = _grouped_pid(EM, N, BM, BN, GROUP)
    offs_token_id = pid_m * BM + tl.arange(0, BM)
    offs_token = tl.load(sorted_ids_ptr + offs_token_id)
    token_mask = offs_token < num_valid_tokens
    offs_bn = (pid_n * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + (offs_token[:, None] // TOP_K * stride_am + offs_k[None, :])
    off_expert = tl.load(expert_ids_ptr + pid_m)
    w_ptrs = w_ptr + off_expert * stride_we + (offs_k[:, None] * stride_wk + offs_bn[None, :] * stride_wn)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=token_mask[:, None] & (offs_k[None, :] < K - k * BK), other=0.0)
        w = tl.load(w_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc += tl.dot(a, w)
        a_ptrs += BK
        w_ptrs += BK * stride_wk
    offs_cn = pid_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + stride_cm * offs_token[:, None] + offs_cn[None, :], acc.to(tl.float16),
             mask=token_mask[:, None] & (offs_cn[None, :] < N))


@triton.jit
def dropout(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    # tl.rand: Philox 4x32 rounds (tt.mulhiui) on the element offsets
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def gather_rows(src_ptr, idx_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # out[m, k] = src[m, idx[m, k]]
    rm = tl.arange(0, M)[:, None]
    s = tl.load(src_ptr + rm * N + tl.arange(0, N)[None, :])
    ix = tl.load(idx_ptr + rm * K + tl.arange(0, K)[None, :])
    tl.store(out_ptr + rm * K + tl.arange(0, K)[None, :], tl.gather(s, ix, axis=1))


@triton.jit
def lookup(table_ptr, codes_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # a 16-entry codebook (4-bit dequantization): out[i] = table[codes[i]]
    t = tl.load(table_ptr + tl.arange(0, 16))
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    c = tl.load(codes_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + offs, tl.gather(t, c, axis=0), mask=offs < n)


@triton.jit
def histogram(x_ptr, out_ptr, BLOCK: tl.constexpr, BINS: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(x, BINS))


@triton.jit
def histogram_masked(x_ptr, out_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(x, BINS, mask=offs < n))


@triton.jit
def asm_shift_packed(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # Triton's own test of packed inline asm: four 8-bit values per register, (x & 0x1F) << 3
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    y = tl.inline_asm_elementwise("and.b32 $0, $1, 0x1F1F1F1F; shl.b32 $0, $0, 3;", "=r,r", [x], dtype=tl.int8,
                                  is_pure=True, pack=4)
    tl.store(y_ptr + offs, y, mask=offs < n)


@triton.jit
def asm_two_results(a_ptr, b_ptr, h_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # two results from packs of four (bytes of a widened, b negated), f16 pairs in one register,
    # and an impure statement whose result nobody reads (Triton's gdc_wait idiom)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs, mask=offs < n, other=0)
    b = tl.load(b_ptr + offs, mask=offs < n, other=0)
    h = tl.load(h_ptr + offs, mask=offs < n, other=0)
    tl.inline_asm_elementwise("mov.u32 $0, %clock;", "=r", [], dtype=tl.int32, is_pure=False, pack=1)
    c, d = tl.inline_asm_elementwise(
        "{ .reg .b8 t<4>; mov.b32 {t0, t1, t2, t3}, $8; cvt.u32.u8 $0, t0; cvt.u32.u8 $1, t1; cvt.u32.u8 $2, t2; "
        "cvt.u32.u8 $3, t3; } sub.s32 $4, 0, $9; sub.s32 $5, 0, $10; sub.s32 $6, 0, $11; sub.s32 $7, 0, $12;",
        "=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r", [a, b], dtype=(tl.uint32, tl.int32), is_pure=True, pack=4)
    h2 = tl.inline_asm_elementwise("add.f16x2 $0, $1, $1;", "=r,r", [h], dtype=tl.float16, is_pure=True, pack=2)
    tl.store(out_ptr + offs, c.to(tl.float32) * 4096.0 + d.to(tl.float32) + h2.to(tl.float32), mask=offs < n)


def rows(torch):
    """(name, Triton launch returning the compiled kernel, argument values by name, grid, output,
    reference, warps, stages, tolerance[, cuBLAS's nearest call]); output and reference may be
    tuples of tensors. The last field, on GEMM rows only, is what bench/other_kernels_vs_triton.py
    times beside the kernel: torch's matmul of the same operands (without the row's epilogue)."""
    out = []
    for m, n, k in [(512, 384, 256), (1000, 296, 72), (4096, 4096, 4096)]:
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        w = torch.randn(n, k, device="cuda", dtype=torch.float16)
        c = torch.empty(m, n, device="cuda", dtype=torch.float16)
        grid = ((m + 127) // 128, (n + 127) // 128, 1)

        def launch(a=a, w=w, c=c, m=m, n=n, k=k, grid=grid):
            return nt_matmul[grid[:2]](a, w, c, m, n, k, a.stride(0), w.stride(0), c.stride(0), BM=128, BN=128, BK=64,
                                       num_warps=4, num_stages=3)
        values = dict(a_ptr=a.data_ptr(), w_ptr=w.data_ptr(), c_ptr=c.data_ptr(), M=m, N=n, K=k, stride_am=a.stride(0),
                      stride_wn=w.stride(0), stride_cm=c.stride(0))
        out.append((f"nt_matmul {m}x{n}x{k}", launch, values, grid, c, lambda a=a, w=w: a.float() @ w.float().T, 4, 3,
                    1e-2, lambda a=a, w=w: a @ w.T))
    x = torch.randn(64, 1000, device="cuda")
    y = torch.empty_like(x)
    ww, bb = torch.randn(1000, device="cuda"), torch.randn(1000, device="cuda")
    out.append(("layernorm 64x1000", lambda: layernorm[(64,)](x, y, ww, bb, x.stride(0), 1000, 1e-5, BLOCK=1024),
                dict(x_ptr=x.data_ptr(), y_ptr=y.data_ptr(), w_ptr=ww.data_ptr(), b_ptr=bb.data_ptr(), stride=x.stride(0),
                     N=1000, eps=1e-5), (64, 1, 1), y,
                lambda: torch.nn.functional.layer_norm(x, (1000,), ww, bb, 1e-5), 4, 3, 1e-4))
    for n_ctx in (1024, 4096):
        q, kk, v = (torch.randn(n_ctx, 64, device="cuda", dtype=torch.float16) for _ in range(3))
        o = torch.empty_like(q)

        def launch(q=q, kk=kk, v=v, o=o, n_ctx=n_ctx):
            return attn_fwd[(n_ctx // 128,)](q, kk, v, o, q.stride(0), n_ctx, 0.125, BM=128, BN=64, D=64, num_warps=4,
                                             num_stages=2)

        def ref(q=q, kk=kk, v=v):
            return torch.softmax((q.float() @ kk.float().T) * 0.125, dim=-1) @ v.float()
        out.append((f"attn_fwd n_ctx={n_ctx}", launch, dict(Q=q.data_ptr(), K=kk.data_ptr(), V=v.data_ptr(),
                    O=o.data_ptr(), stride_m=q.stride(0), N_CTX=n_ctx, sm_scale=0.125), (n_ctx // 128, 1, 1), o, ref,
                    4, 2, 1e-2))
    # Tutorial 06's backward: three outputs, each against a float32 torch reference of the softmax
    # gradient (M is the base-2 log-sum-exp the forward pass stores, D = rowsum(O * dO)).
    rcp_ln2, sm = 1.4426950408889634, 0.5
    for causal in (True, False):
        zb, hb, nb, db = 1, 4, 1024, 64
        q, kb, vb, dob = (torch.randn(zb, hb, nb, db, device="cuda", dtype=torch.float16) * 0.5 for _ in range(4))
        s_ = (q.float() @ kb.float().transpose(-1, -2)) * sm
        if causal:
            s_ = s_.masked_fill(torch.ones(nb, nb, device="cuda", dtype=torch.bool).tril().logical_not(), float("-inf"))
        p_ = torch.softmax(s_, -1)
        o_ = (p_ @ vb.float()).half()
        m_ = (torch.logsumexp(s_, -1) * rcp_ln2).float().contiguous()
        delta = (o_.float() * dob.float()).sum(-1).contiguous()
        ds_ = p_ * (dob.float() @ vb.float().transpose(-1, -2) - delta[..., None])
        refs = (ds_ @ kb.float() * sm, ds_.transpose(-1, -2) @ q.float() * sm, p_.transpose(-1, -2) @ dob.float())
        arg_k = (kb * (sm * rcp_ln2)).contiguous()
        dq, dk, dv = (torch.empty_like(q) for _ in range(3))
        grid_b = (nb // 128, 1, zb * hb)

        def launch(q=q, arg_k=arg_k, vb=vb, dob=dob, dq=dq, dk=dk, dv=dv, m_=m_, delta=delta, causal=causal,
                   grid_b=grid_b):
            return _attn_bwd[grid_b](q, arg_k, vb, sm, dob, dq, dk, dv, m_, delta, *q.stride(), hb, nb, BLOCK_M1=32,
                                     BLOCK_N1=128, BLOCK_M2=128, BLOCK_N2=32, BLK_SLICE_FACTOR=2, HEAD_DIM=db,
                                     CAUSAL=causal, num_warps=4, num_stages=5)
        values = dict(Q=q.data_ptr(), K=arg_k.data_ptr(), V=vb.data_ptr(), sm_scale=sm, DO=dob.data_ptr(),
                      DQ=dq.data_ptr(), DK=dk.data_ptr(), DV=dv.data_ptr(), M=m_.data_ptr(), D=delta.data_ptr(),
                      stride_z=q.stride(0), stride_h=q.stride(1), stride_tok=q.stride(2), stride_d=q.stride(3), H=hb,
                      N_CTX=nb)
        out.append((f"attn_bwd causal={int(causal)} n_ctx={nb}", launch, values, grid_b, (dq, dk, dv),
                    lambda refs=refs: refs, 4, 5, 1e-2))
    # Kernels users write beside GEMMs: a W4A16 GEMM (int4 unpacked with tl.join / tl.permute /
    # reshape and scaled per group in the K loop), a cross-entropy over long rows (scalars carried),
    # RMSNorm, rotary embedding, SwiGLU, an fp8 row quantizer, and the tutorial's loop with
    # tl.range's per-loop options.
    for m, n, k in [(256, 512, 1024), (300, 200, 256), (4096, 4096, 4096)]:
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        q = torch.randint(0, 256, (k // 2, n), device="cuda", dtype=torch.uint8)
        sc = (torch.rand(k // 128, n, device="cuda") * 0.1 + 0.01).half()
        c = torch.empty(m, n, device="cuda", dtype=torch.float16)
        grid_w = ((m + 63) // 64, (n + 127) // 128, 1)
        w = torch.stack(((q & 0xF).int() - 8, (q >> 4).int() - 8), 1).reshape(k, n).float()
        wref = w * sc.float().repeat_interleave(128, 0)

        def launch(a=a, q=q, sc=sc, c=c, m=m, n=n, k=k, grid_w=grid_w):
            return w4a16_matmul[grid_w[:2]](a, q, sc, c, m, n, k, a.stride(0), q.stride(0), c.stride(0), GROUP=128,
                                            BM=64, BN=128, BK=64, num_warps=4, num_stages=3)
        out.append((f"w4a16 {m}x{n}x{k}", launch,
                    dict(a_ptr=a.data_ptr(), b_ptr=q.data_ptr(), s_ptr=sc.data_ptr(), c_ptr=c.data_ptr(), M=m, N=n, K=k,
                         stride_am=a.stride(0), stride_bk=q.stride(0), stride_cm=c.stride(0)), grid_w, c,
                    lambda a=a, wref=wref: a.float() @ wref, 4, 3, 1e-2))
    lg = torch.randn(64, 50_257, device="cuda", dtype=torch.bfloat16) * 4
    lb = torch.randint(0, 50_257, (64,), device="cuda", dtype=torch.int64)
    loss = torch.empty(64, device="cuda")
    out.append(("cross_entropy 64x50257 bf16", lambda: cross_entropy[(64,)](lg, lb, loss, lg.stride(0), 50_257, BLOCK=4096),
                dict(logits_ptr=lg.data_ptr(), labels_ptr=lb.data_ptr(), loss_ptr=loss.data_ptr(), stride=lg.stride(0),
                     V=50_257), (64, 1, 1), loss,
                lambda: torch.nn.functional.cross_entropy(lg.float(), lb, reduction="none"), 4, 3, 1e-5))
    xr = torch.randn(128, 4000, device="cuda", dtype=torch.bfloat16)
    wr = torch.randn(4000, device="cuda", dtype=torch.bfloat16)
    yr = torch.empty_like(xr)
    out.append(("rmsnorm 128x4000 bf16", lambda: rmsnorm[(128,)](xr, wr, yr, xr.stride(0), 4000, 1e-6, BLOCK=4096),
                dict(x_ptr=xr.data_ptr(), w_ptr=wr.data_ptr(), y_ptr=yr.data_ptr(), stride=xr.stride(0), N=4000,
                     eps=1e-6), (128, 1, 1), yr,
                lambda: xr.float() * torch.rsqrt((xr.float() ** 2).mean(-1, keepdim=True) + 1e-6) * wr.float(), 4, 3,
                1e-2))
    xq = torch.randn(300, 16, 128, device="cuda", dtype=torch.float16)
    ang = torch.rand(300, 64, device="cuda") * 6.28
    cs, sn = torch.cos(ang), torch.sin(ang)
    oq = torch.empty_like(xq)

    def rope_ref():
        x1, x2 = xq.float()[..., :64], xq.float()[..., 64:]
        c, s_ = cs[:, None, :], sn[:, None, :]
        return torch.cat((x1 * c - x2 * s_, x2 * c + x1 * s_), -1)
    out.append(("rope 300 tokens x 16 x 128", lambda: rope[(300,)](xq, cs, sn, oq, H=16, D=128),
                dict(x_ptr=xq.data_ptr(), cos_ptr=cs.data_ptr(), sin_ptr=sn.data_ptr(), o_ptr=oq.data_ptr()),
                (300, 1, 1), oq, rope_ref, 4, 3, 2e-3))
    ga, gb = (torch.randn(1_000_003, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    go2 = torch.empty_like(ga)
    grid_s = ((ga.numel() + 1023) // 1024, 1, 1)
    out.append(("swiglu n=1000003 bf16", lambda: swiglu[grid_s[:1]](ga, gb, go2, ga.numel(), BLOCK=1024),
                dict(a_ptr=ga.data_ptr(), b_ptr=gb.data_ptr(), o_ptr=go2.data_ptr(), n=ga.numel()), grid_s, go2,
                lambda: torch.nn.functional.silu(ga.float()) * gb.float(), 4, 3, 1e-2))
    xf = torch.randn(64, 3000, device="cuda")
    qt, qg = (torch.empty(64, 3000, device="cuda", dtype=torch.float8_e4m3fn) for _ in range(2))
    st, sg = torch.empty(64, device="cuda"), torch.empty(64, device="cuda")
    # the reference is Triton's own quantized bytes (its rounding of the e4m3 conversion)
    out.append(("quant fp8 rows 64x3000", lambda: quant_fp8_rows[(64,)](xf, qt, st, 3000, BLOCK=4096),
                dict(x_ptr=xf.data_ptr(), q_ptr=qg.data_ptr(), s_ptr=sg.data_ptr(),
                     N=3000), (64, 1, 1), qg, lambda: qt.float(), 4, 3, 0.0))
    ma, mb = torch.randn(1000, 700, device="cuda", dtype=torch.float16), torch.randn(700, 900, device="cuda",
                                                                                      dtype=torch.float16)
    mc = torch.empty(1000, 900, device="cuda", dtype=torch.float16)
    grid_r = ((1000 + 127) // 128, (900 + 127) // 128, 1)
    out.append(("matmul tl.range options", lambda: matmul_range_options[grid_r[:2]](ma, mb, mc, 1000, 900, 700,
                                                                                  BM=128, BN=128, BK=64),
                dict(a_ptr=ma.data_ptr(), b_ptr=mb.data_ptr(), c_ptr=mc.data_ptr(), M=1000, N=900, K=700), grid_r, mc,
                lambda: ma.float() @ mb.float(), 4, 3, 1e-2, lambda: ma @ mb))
    for m, n, k in [(1000, 900, 712), (1000, 1008, 720), (4096, 4096, 4096)]:
        bpa, bpb = (torch.randn(m, k, device="cuda", dtype=torch.float16),
                  torch.randn(k, n, device="cuda", dtype=torch.float16))
        bpc = torch.empty(m, n, device="cuda", dtype=torch.float16)
        grid_b2 = ((m + 127) // 128, (n + 127) // 128, 1)

        def launch(bpa=bpa, bpb=bpb, bpc=bpc, m=m, n=n, k=k, grid_b2=grid_b2):
            return matmul_block_ptr[grid_b2[:2]](bpa, bpb, bpc, m, n, k, bpa.stride(0), bpa.stride(1), bpb.stride(0),
                                                 bpb.stride(1), bpc.stride(0), bpc.stride(1), BM=128, BN=128, BK=64,
                                                 num_warps=4, num_stages=3)
        out.append((f"matmul block_ptr {m}x{n}x{k}", launch,
                    dict(a_ptr=bpa.data_ptr(), b_ptr=bpb.data_ptr(), c_ptr=bpc.data_ptr(), M=m, N=n, K=k,
                         stride_am=bpa.stride(0), stride_ak=bpa.stride(1), stride_bk=bpb.stride(0), stride_bn=bpb.stride(1),
                         stride_cm=bpc.stride(0), stride_cn=bpc.stride(1)), grid_b2, bpc,
                    lambda bpa=bpa, bpb=bpb: bpa.float() @ bpb.float(), 4, 3, 1e-2,
                    lambda bpa=bpa, bpb=bpb: bpa @ bpb))
    # GEMMs as users write them beside the tutorial: a K loop stepping by BK, an epilogue reading
    # C and a row bias, W8A8 with dequantizing scales, the old tutorial's hints with swizzle2d and
    # a column-major C, decode-shaped 16-row tiles, a batch on program_id(2), fp8 e5m2 inputs.
    for m, n, k, dt in [(4096, 4096, 4096, torch.float16), (1000, 900, 712, torch.float16),
                        (1024, 1024, 512, torch.float8_e5m2)]:
        ka = torch.randn(m, k, device="cuda").to(dt)
        kb = torch.randn(k, n, device="cuda").to(dt)
        kc = torch.empty(m, n, device="cuda", dtype=torch.float16)
        grid_k = ((m + 127) // 128, (n + 127) // 128, 1)
        tag = "e5m2" if dt == torch.float8_e5m2 else "f16"

        def launch(ka=ka, kb=kb, kc=kc, m=m, n=n, k=k, grid_k=grid_k, bk=128 if tag == "e5m2" else 64):
            return matmul_kstep[grid_k[:2]](ka, kb, kc, m, n, k, ka.stride(0), kb.stride(0), kc.stride(0), BM=128,
                                            BN=128, BK=bk, num_warps=4, num_stages=3)
        out.append((f"matmul k-step {tag} {m}x{n}x{k}", launch,
                    dict(a_ptr=ka.data_ptr(), b_ptr=kb.data_ptr(), c_ptr=kc.data_ptr(), M=m, N=n, K=k,
                         stride_am=ka.stride(0), stride_bk=kb.stride(0), stride_cm=kc.stride(0)), grid_k, kc,
                    lambda ka=ka, kb=kb: ka.float() @ kb.float(), 4, 3, 1e-2,
                    (lambda ka=ka, kb=kb: ka @ kb) if tag == "f16" else None))
    for m, n, k in [(4096, 4096, 4096), (1000, 900, 712)]:
        ea, eb = torch.randn(m, k, device="cuda", dtype=torch.float16), torch.randn(k, n, device="cuda", dtype=torch.float16)
        ec = torch.randn(m, n, device="cuda", dtype=torch.float16)
        ebias = torch.randn(m, device="cuda", dtype=torch.float16)
        ed = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        grid_e = (((m + 127) // 128) * ((n + 127) // 128), 1, 1)

        def launch(ea=ea, eb=eb, ec=ec, ed=ed, ebias=ebias, m=m, n=n, k=k, grid_e=grid_e):
            return matmul_epilogue_io[grid_e[:1]](ea, eb, ec, ed, ebias, m, n, k, ea.stride(0), eb.stride(0),
                                                  ec.stride(0), ed.stride(0), 0.5, -1.5, BM=128, BN=128, BK=64,
                                                  GROUP=8, num_warps=4, num_stages=3)
        out.append((f"matmul epilogue C+bias+relu {m}x{n}x{k}", launch,
                    dict(a_ptr=ea.data_ptr(), b_ptr=eb.data_ptr(), c_ptr=ec.data_ptr(), d_ptr=ed.data_ptr(),
                         bias_ptr=ebias.data_ptr(), M=m, N=n, K=k, stride_am=ea.stride(0), stride_bk=eb.stride(0),
                         stride_cm=ec.stride(0), stride_dm=ed.stride(0), alpha=0.5, beta=-1.5), grid_e, ed,
                    lambda ea=ea, eb=eb, ec=ec, ebias=ebias: torch.relu(0.5 * (ea.float() @ eb.float()) - 1.5 * ec.float()
                                                                       + ebias.float()[:, None]), 4, 3, 1e-2,
                    lambda ea=ea, eb=eb: ea @ eb))
    for m, n, k in [(4096, 4096, 4096), (2048, 2048, 512), (333, 520, 1000)]:
        qa = torch.randint(-64, 64, (m, k), device="cuda", dtype=torch.int8)
        qw = torch.randint(-64, 64, (n, k), device="cuda", dtype=torch.int8)
        qsa, qsw = torch.rand(m, device="cuda") * 0.01, torch.rand(n, device="cuda") * 0.01
        qc = torch.empty(m, n, device="cuda", dtype=torch.float16)
        grid_q = ((m + 127) // 128, (n + 127) // 128, 1)

        def launch(qa=qa, qw=qw, qsa=qsa, qsw=qsw, qc=qc, m=m, n=n, k=k, grid_q=grid_q):
            return matmul_int8_dequant[grid_q[:2]](qa, qw, qsa, qsw, qc, m, n, k, qa.stride(0), qw.stride(0),
                                                   qc.stride(0), BM=128, BN=128, BK=128, num_warps=4, num_stages=3)
        out.append((f"w8a8 dequant {m}x{n}x{k}", launch,
                    dict(a_ptr=qa.data_ptr(), w_ptr=qw.data_ptr(), sa_ptr=qsa.data_ptr(), sw_ptr=qsw.data_ptr(),
                         c_ptr=qc.data_ptr(), M=m, N=n, K=k, stride_am=qa.stride(0), stride_wn=qw.stride(0),
                         stride_cm=qc.stride(0)), grid_q, qc,
                    lambda qa=qa, qw=qw, qsa=qsa, qsw=qsw: (qa.double() @ qw.double().T).float() * qsa[:, None]
                    * qsw[None, :], 4, 3, 1e-2,
                    lambda qa=qa, qw=qw: torch._int_mm(qa, qw.T)))
    for m, n, k in [(4096, 4096, 4096), (2048, 2048, 256), (1000, 904, 512)]:
        hint_a, hint_b = torch.randn(m, k, device="cuda", dtype=torch.float16), torch.randn(k, n, device="cuda", dtype=torch.float16)
        hint_c = torch.empty(n, m, device="cuda", dtype=torch.float16).T  # column-major C
        grid_hint = ((m + 127) // 128, (n + 127) // 128, 1)

        def launch(hint_a=hint_a, hint_b=hint_b, hint_c=hint_c, m=m, n=n, k=k, grid_hint=grid_hint):
            return matmul_hinted[grid_hint[:2]](hint_a, hint_b, hint_c, m, n, k, hint_a.stride(0), hint_b.stride(0), hint_c.stride(1), BM=128,
                                             BN=128, BK=64, num_warps=4, num_stages=3)
        out.append((f"matmul hints swizzle2d C col-major {m}x{n}x{k}", launch,
                    dict(a_ptr=hint_a.data_ptr(), b_ptr=hint_b.data_ptr(), c_ptr=hint_c.data_ptr(), M=m, N=n, K=k,
                         stride_am=hint_a.stride(0), stride_bk=hint_b.stride(0), stride_cm=hint_c.stride(1)), grid_hint, hint_c,
                    lambda hint_a=hint_a, hint_b=hint_b: hint_a.float() @ hint_b.float(), 4, 3, 1e-2,
                    lambda hint_a=hint_a, hint_b=hint_b: hint_a @ hint_b))
    for m, n, k in [(16, 4096, 4096), (5, 11008, 4096)]:
        sa_, sb_ = torch.randn(m, k, device="cuda", dtype=torch.float16), torch.randn(k, n, device="cuda", dtype=torch.float16)
        sc_ = torch.empty(m, n, device="cuda", dtype=torch.float16)
        grid_sk = ((m + 15) // 16, (n + 63) // 64, 1)

        def launch(sa_=sa_, sb_=sb_, sc_=sc_, m=m, n=n, k=k, grid_sk=grid_sk):
            return matmul_skinny[grid_sk[:2]](sa_, sb_, sc_, m, n, k, sa_.stride(0), sb_.stride(0), sc_.stride(0),
                                              BM=16, BN=64, BK=128, num_warps=4, num_stages=4)
        out.append((f"matmul skinny 16-row tiles {m}x{n}x{k}", launch,
                    dict(a_ptr=sa_.data_ptr(), b_ptr=sb_.data_ptr(), c_ptr=sc_.data_ptr(), M=m, N=n, K=k,
                         stride_am=sa_.stride(0), stride_bk=sb_.stride(0), stride_cm=sc_.stride(0)), grid_sk, sc_,
                    lambda sa_=sa_, sb_=sb_: sa_.float() @ sb_.float(), 4, 4, 1e-2,
                    lambda sa_=sa_, sb_=sb_: sa_ @ sb_))
    for bsz, m, n, k in [(8, 1024, 1024, 512), (3, 300, 200, 100)]:
        za = torch.randn(bsz, m, k, device="cuda", dtype=torch.float16)
        zb_ = torch.randn(bsz, k, n, device="cuda", dtype=torch.float16)
        zc = torch.empty(bsz, m, n, device="cuda", dtype=torch.float16)
        grid_z = ((m + 127) // 128, (n + 127) // 128, bsz)

        def launch(za=za, zb_=zb_, zc=zc, m=m, n=n, k=k, grid_z=grid_z):
            return bmm_grid_z[grid_z](za, zb_, zc, m, n, k, za.stride(0), za.stride(1), zb_.stride(0), zb_.stride(1),
                                      zc.stride(0), zc.stride(1), BM=128, BN=128, BK=64, num_warps=4, num_stages=3)
        out.append((f"bmm grid z {bsz}x{m}x{n}x{k}", launch,
                    dict(a_ptr=za.data_ptr(), b_ptr=zb_.data_ptr(), c_ptr=zc.data_ptr(), M=m, N=n, K=k,
                         stride_ab=za.stride(0), stride_am=za.stride(1), stride_bb=zb_.stride(0), stride_bk=zb_.stride(1),
                         stride_cb=zc.stride(0), stride_cm=zc.stride(1)), grid_z, zc,
                    lambda za=za, zb_=zb_: za.float() @ zb_.float(), 4, 3, 1e-2,
                    lambda za=za, zb_=zb_: torch.bmm(za, zb_)))
    for m, n, k in [(4096, 4096, 4096), (2048, 2048, 256), (1000, 904, 512)]:
        ua, ub_ = torch.randn(m, k, device="cuda", dtype=torch.float16), torch.randn(k, n, device="cuda", dtype=torch.float16)
        uc = torch.empty(m, n, device="cuda", dtype=torch.float16)
        us = torch.zeros(n, device="cuda")
        grid_u = (((m + 127) // 128) * ((n + 127) // 128), 1, 1)

        def launch(ua=ua, ub_=ub_, uc=uc, us=us, m=m, n=n, k=k, grid_u=grid_u):
            us.zero_()
            return matmul_colsum[grid_u[:1]](ua, ub_, uc, us, m, n, k, ua.stride(0), ub_.stride(0), uc.stride(0), BM=128,
                                             BN=128, BK=64, GROUP=8, num_warps=4, num_stages=3)
        ref_u = (lambda ua=ua, ub_=ub_: (ua.float() @ ub_.float(), (ua.float() @ ub_.float()).sum(0)))
        # the column sums accumulate: AccumulateInto zeroes them (instead of the NaN poison) first
        out.append((f"matmul + column sums (atomics) {m}x{n}x{k}", launch,
                    dict(a_ptr=ua.data_ptr(), b_ptr=ub_.data_ptr(), c_ptr=uc.data_ptr(), s_ptr=us.data_ptr(), M=m, N=n,
                         K=k, stride_am=ua.stride(0), stride_bk=ub_.stride(0), stride_cm=uc.stride(0)), grid_u,
                    (uc, AccumulateInto(us)), ref_u, 4, 3, 1e-2))
    for m, n, k in [(4096, 4096, 4096), (1000, 904, 512)]:
        va, vb = torch.randn(m, k, device="cuda", dtype=torch.float16), torch.randn(k, n, device="cuda", dtype=torch.float16)
        vq, vq_t = (torch.empty(m, n, device="cuda", dtype=torch.float8_e4m3fn) for _ in range(2))
        nb_ = (n + 127) // 128
        vs, vs_t = (torch.empty(m, nb_, device="cuda") for _ in range(2))
        grid_v = ((m + 127) // 128, nb_, 1)

        def launch(va=va, vb=vb, vq_t=vq_t, vs_t=vs_t, m=m, n=n, k=k, grid_v=grid_v):
            return matmul_rowquant[grid_v[:2]](va, vb, vq_t, vs_t, m, n, k, va.stride(0), vb.stride(0), vq_t.stride(0),
                                               BM=128, BN=128, BK=64, num_warps=4, num_stages=3)
        # against Triton's own bytes and scales (one e4m3 step at the top of the range is 32/448)
        out.append((f"matmul + fp8 row quantization {m}x{n}x{k}", launch,
                    dict(a_ptr=va.data_ptr(), b_ptr=vb.data_ptr(), q_ptr=vq.data_ptr(), s_ptr=vs.data_ptr(), M=m, N=n,
                         K=k, stride_am=va.stride(0), stride_bk=vb.stride(0), stride_qm=vq.stride(0)), grid_v,
                    (vq, vs), lambda vq_t=vq_t, vs_t=vs_t: (vq_t.float(), vs_t.clone()), 4, 3, 0.08))
    # Block-scaled fp8 (e4m3 A [M, K] with one scale per row and 128 K, W [N, K] with one per
    # 128 x 128 block), bf16 out: the reference dequantizes both and multiplies in float32.
    for m, n, k, bm, w in [(4096, 4096, 4096, 128, 8), (1000, 768, 640, 64, 4)]:
        fa = (torch.randn(m, k, device="cuda") * 2).to(torch.float8_e4m3fn)
        fw = (torch.randn(n, k, device="cuda") * 2).to(torch.float8_e4m3fn)
        fas = torch.rand(m, (k + 127) // 128, device="cuda") * 0.1 + 0.01
        fbs = torch.rand((n + 127) // 128, (k + 127) // 128, device="cuda") * 0.1 + 0.01
        fc = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        grid_f = (((m + bm - 1) // bm) * ((n + 127) // 128), 1, 1)

        def launch(fa=fa, fw=fw, fc=fc, fas=fas, fbs=fbs, m=m, n=n, k=k, bm=bm, w=w, grid_f=grid_f):
            return fp8_block_scaled_matmul[grid_f[:1]](fa, fw, fc, fas, fbs, m, n, k, fa.stride(0), fa.stride(1),
                                                       fw.stride(1), fw.stride(0), fc.stride(0), fas.stride(0),
                                                       fas.stride(1), fbs.stride(0), fbs.stride(1), GROUP_N=128,
                                                       GROUP_K=128, BM=bm, BN=128, BK=128, GROUP=8, num_warps=w,
                                                       num_stages=3)

        def ref_f(fa=fa, fw=fw, fas=fas, fbs=fbs, k=k):
            a_deq = fa.float() * fas.repeat_interleave(128, 1)[:, :k]
            w_deq = fw.float() * fbs.repeat_interleave(128, 0)[:fw.shape[0]].repeat_interleave(128, 1)[:, :k]
            return a_deq @ w_deq.T
        out.append((f"fp8 block-scaled {m}x{n}x{k} w{w}", launch,
                    dict(a_ptr=fa.data_ptr(), b_ptr=fw.data_ptr(), c_ptr=fc.data_ptr(), as_ptr=fas.data_ptr(),
                         bs_ptr=fbs.data_ptr(), M=m, N=n, K=k, stride_am=fa.stride(0), stride_ak=fa.stride(1),
                         stride_bk=fw.stride(1), stride_bn=fw.stride(0), stride_cm=fc.stride(0),
                         stride_asm=fas.stride(0), stride_ask=fas.stride(1), stride_bsn=fbs.stride(0),
                         stride_bsk=fbs.stride(1)), grid_f, fc, ref_f, w, 3, 2e-2))
    # The fused MoE GEMM: T tokens routed to TOP_K of E experts each; the host sorts the
    # (token, k) pairs by expert and pads every expert's run to BM with the id T * TOP_K.
    for t_, e_, top_k, n, k in [(2048, 8, 2, 1408, 2048), (333, 16, 4, 512, 384)]:
        bm = 64
        ma_ = torch.randn(t_, k, device="cuda", dtype=torch.float16)
        mw = torch.randn(e_, n, k, device="cuda", dtype=torch.float16) * 0.05
        topk_ids = torch.stack([torch.randperm(e_, device="cuda")[:top_k] for _ in range(t_)])
        flat = topk_ids.flatten()
        ids, experts = [], []
        for ex in range(e_):
            mine = (flat == ex).nonzero().flatten()
            pad = (-mine.numel()) % bm
            ids.append(torch.cat((mine, torch.full((pad,), t_ * top_k, device="cuda", dtype=mine.dtype))))
            experts += [ex] * ((mine.numel() + pad) // bm)
        sorted_ids = torch.cat(ids).to(torch.int32)
        expert_ids = torch.tensor(experts, device="cuda", dtype=torch.int32)
        em = sorted_ids.numel()
        moe_c = torch.empty(t_ * top_k, n, device="cuda", dtype=torch.float16)
        grid_m = ((em // bm) * ((n + 127) // 128), 1, 1)

        def launch(ma_=ma_, mw=mw, moe_c=moe_c, sorted_ids=sorted_ids, expert_ids=expert_ids, n=n, k=k, em=em, t_=t_,
                   top_k=top_k, grid_m=grid_m, bm=bm):
            return fused_moe[grid_m[:1]](ma_, mw, moe_c, sorted_ids, expert_ids, n, k, em, t_ * top_k, ma_.stride(0),
                                         mw.stride(0), mw.stride(1), mw.stride(2), moe_c.stride(0), TOP_K=top_k, BM=bm,
                                         BN=128, BK=64, GROUP=8, num_warps=4, num_stages=3)

        def ref_m(ma_=ma_, mw=mw, flat=flat, top_k=top_k, e_=e_, n=n):
            r = torch.empty(flat.numel(), n, device="cuda")
            for ex in range(e_):
                mine = (flat == ex).nonzero().flatten()
                r[mine] = ma_.float()[mine // top_k] @ mw.float()[ex].T
            return r
        out.append((f"fused MoE {t_} tokens top{top_k} of {e_} experts {n}x{k}", launch,
                    dict(a_ptr=ma_.data_ptr(), w_ptr=mw.data_ptr(), c_ptr=moe_c.data_ptr(),
                         sorted_ids_ptr=sorted_ids.data_ptr(), expert_ids_ptr=expert_ids.data_ptr(), N=n, K=k, EM=em,
                         num_valid_tokens=t_ * top_k, stride_am=ma_.stride(0), stride_we=mw.stride(0),
                         stride_wn=mw.stride(1), stride_wk=mw.stride(2), stride_cm=moe_c.stride(0)), grid_m, moe_c, ref_m,
                    4, 3, 1e-2))
    # The reference is Triton's own output: the same Philox stream must keep the same elements.
    xd = torch.randn(1_000_003, device="cuda")
    yd, yt = torch.empty_like(xd), torch.empty_like(xd)
    grid_d = ((xd.numel() + 1023) // 1024, 1, 1)
    out.append(("dropout n=1000003 p=0.3", lambda: dropout[grid_d[:1]](xd, yt, xd.numel(), 0.3, 1234, BLOCK=1024),
                dict(x_ptr=xd.data_ptr(), out_ptr=yd.data_ptr(), n=xd.numel(), p=0.3, seed=1234), grid_d, yd,
                lambda: yt.clone(), 4, 3, 1e-6))
    gs = torch.randn(64, 32, device="cuda", dtype=torch.bfloat16)
    gi = torch.randint(0, 32, (64, 16), device="cuda", dtype=torch.int64)
    go = torch.empty(64, 16, device="cuda", dtype=torch.bfloat16)
    out.append(("gather_rows 64x32 -> 64x16", lambda: gather_rows[(1,)](gs, gi, go, M=64, N=32, K=16),
                dict(src_ptr=gs.data_ptr(), idx_ptr=gi.data_ptr(), out_ptr=go.data_ptr()), (1, 1, 1), go,
                lambda: torch.gather(gs, 1, gi).float(), 4, 3, 0.0))
    table = torch.randn(16, device="cuda")
    codes = torch.randint(0, 16, (100_003,), device="cuda", dtype=torch.int32)
    lo = torch.empty(100_003, device="cuda")
    grid_l = ((codes.numel() + 1023) // 1024, 1, 1)
    out.append(("lookup n=100003", lambda: lookup[grid_l[:1]](table, codes, lo, codes.numel(), BLOCK=1024),
                dict(table_ptr=table.data_ptr(), codes_ptr=codes.data_ptr(), out_ptr=lo.data_ptr(), n=codes.numel()),
                grid_l, lo, lambda: table[codes.long()], 4, 3, 0.0))
    hx = torch.randint(0, 256, (4096,), device="cuda", dtype=torch.int32)
    ho, hm = (torch.empty(256, device="cuda", dtype=torch.int32) for _ in range(2))
    out.append(("histogram 4096 -> 256", lambda: histogram[(1,)](hx, ho, BLOCK=4096, BINS=256),
                dict(x_ptr=hx.data_ptr(), out_ptr=ho.data_ptr()), (1, 1, 1), ho,
                lambda: torch.bincount(hx.long(), minlength=256).float(), 4, 3, 0.0))
    out.append(("histogram masked 3001 of 4096", lambda: histogram_masked[(1,)](hx, hm, 3001, BLOCK=4096, BINS=256),
                dict(x_ptr=hx.data_ptr(), out_ptr=hm.data_ptr(), n=3001), (1, 1, 1), hm,
                lambda: torch.bincount(hx[:3001].long(), minlength=256).float(), 4, 3, 0.0))
    xa = torch.randint(0, 256, (100_003,), device="cuda", dtype=torch.uint8)
    ya = torch.empty_like(xa)
    grid_a = ((xa.numel() + 1023) // 1024, 1, 1)
    out.append(("inline asm packed u8 n=100003", lambda: asm_shift_packed[grid_a[:1]](xa, ya, xa.numel(), BLOCK=1024),
                dict(x_ptr=xa.data_ptr(), y_ptr=ya.data_ptr(), n=xa.numel()), grid_a, ya,
                lambda: ((xa.int() & 0x1F) << 3).float(), 4, 3, 0.0))
    bi = torch.randint(-1000, 1000, (100_003,), device="cuda", dtype=torch.int32)
    hh = (torch.randn(100_003, device="cuda") * 8).half()
    ao = torch.empty(100_003, device="cuda")
    out.append(("inline asm 2 results n=100003",
                lambda: asm_two_results[grid_a[:1]](xa, bi, hh, ao, xa.numel(), BLOCK=1024),
                dict(a_ptr=xa.data_ptr(), b_ptr=bi.data_ptr(), h_ptr=hh.data_ptr(), out_ptr=ao.data_ptr(), n=xa.numel()),
                grid_a, ao, lambda: xa.float() * 4096.0 - bi.float() + 2 * hh.float(), 4, 3, 1e-6))
    return out


class AccumulateInto:
    """An output the kernel adds into (atomics): zeroed, not poisoned, before gemmc's launch."""

    def __init__(self, t):
        self.t = t


def output_tensor(o):
    return o.t if isinstance(o, AccumulateInto) else o


def poison(torch, t):
    """NaN in every element of a float output (NaN bytes for fp8), -1 in an integer one; zero in
    one the kernel accumulates into."""
    if isinstance(t, AccumulateInto):
        t.t.zero_()
    elif t.is_floating_point() and t.element_size() == 1:
        t.view(torch.uint8).fill_(0x7F)  # NaN in float8_e4m3fn
    else:
        t.fill_(float("nan") if t.is_floating_point() else -1)


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", default="", help="only the rows whose name matches this regular expression")
    args = ap.parse_args()
    import triton_compare
    modules = triton_compare.gpu_modules_and_gemmc()
    if not modules:
        return 0
    torch, _, tc, gemmc = modules
    torch.manual_seed(int.from_bytes(os.urandom(4), "little"))
    passed = failed = 0
    for name, launch, values, grid, out, ref, warps, stages, tol, *_ in rows(torch):
        if args.rows and not re.search(args.rows, name):
            continue
        try:
            ck = launch()
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 - Triton itself cannot run the row: not gemmc's to fail
            print(f"SKIP  {name:28s} Triton: {tc.first_line(e)}", flush=True)
            continue
        expect = ref()
        if os.environ.get("DUMP"):  # Triton's TTIR and PTX of each row, for debugging off the GPU
            for ext in ("ttir", "ptx"):
                with open(os.path.join(os.environ["DUMP"], re.sub(r"[^A-Za-z0-9_.-]", "_", name) + "." + ext), "w") as f:
                    f.write(ck.asm[ext])
        try:
            ptx, meta, _ = gemmc.compile(ck.asm["ttir"], name.split()[0] + ".ttir", warps, stages)
            fn, _ = gemmc.load(ptx, meta)
            outs, expects = (out, expect) if isinstance(out, tuple) else ((out,), (expect,))
            for o in outs:
                poison(torch, o)
            outs = tuple(output_tensor(o) for o in outs)
            gemmc.launcher(fn, meta, values, grid)()
            torch.cuda.synchronize()
            finite = all(bool(torch.isfinite(o.float()).all()) for o in outs)
            err = max((o.float() - e).abs().max().item() / (e.abs().max().item() or 1.0) for o, e in zip(outs, expects))
            ok, why = finite and err <= tol, f"max|err|/max|ref| = {err:.2e}" if finite else "non-finite elements"
        except Exception as e:  # noqa: BLE001 - a compile or launch error fails the row
            ok, why = False, "error: " + tc.first_line(e)
        passed += ok
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'}  {name:28s} {why}", flush=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

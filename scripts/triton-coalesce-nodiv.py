#!/usr/bin/env python3
"""Issue 13, fidelity: what Triton 3.6 itself picks for the B operand's global-load layout when N
and the K stride of B carry no divisibility (offsets `(pid * BN + arange(BN)) % N`).

Run on the GPU machine (it has Triton 3.6): compiles the tutorial matmul with N = 1000 and a B
whose row (K) stride is 1001, writes Triton's TTIR and TTGIR to $OUT (default /tmp/gemmc-out),
and prints the layout of every tt.load / async copy. Then, where gemmc is on PATH (the device
bundle), compiles Triton's TTIR with gemmc and prints gemmc's layouts for the same loads, so the
two can be compared line by line:

    python3 scripts/triton-coalesce-nodiv.py

The TTIR it writes is what test/transforms/coalesce-nodiv.tir should be checked against.
"""
import os
import re
import shutil
import subprocess
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                  BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(tl.float16)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def loads(ir):
    """The layout alias of each global load / async copy, with the alias definitions."""
    aliases = dict(re.findall(r"^(#\w+) = (#ttg\.blocked<.*>)$", ir, re.M))
    out = []
    for line in ir.splitlines():
        if "tt.load" in line or "async_copy_global_to_local" in line:
            m = re.search(r"tensor<([0-9x]+)x!tt\.ptr<\w+>, (#\w+)>", line)
            if m:
                out.append("%s %s = %s" % (m.group(1), m.group(2), aliases.get(m.group(2), "?")))
    return out


def main():
    out = os.environ.get("OUT", "/tmp/gemmc-out")
    os.makedirs(out, exist_ok=True)
    M, N, K = 1024, 1000, 512  # N not a multiple of 16
    a = torch.randn((M, K), device="cuda", dtype=torch.float16)
    b_store = torch.randn((K, 1001), device="cuda", dtype=torch.float16)
    b = b_store[:, :N]  # K stride 1001: no divisibility
    c = torch.empty((M, N), device="cuda", dtype=torch.float16)
    grid = (triton.cdiv(M, 128) * triton.cdiv(N, 128),)
    k = matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                            c.stride(0), c.stride(1), BLOCK_SIZE_M=128, BLOCK_SIZE_N=128,
                            BLOCK_SIZE_K=64, GROUP_SIZE_M=8, num_warps=4, num_stages=3)
    torch.testing.assert_close(c, (a @ b), atol=1e-1, rtol=1e-2)
    ttir, ttgir = k.asm["ttir"], k.asm["ttgir"]
    open(os.path.join(out, "nodiv.ttir"), "w").write(ttir)
    open(os.path.join(out, "nodiv.ttgir"), "w").write(ttgir)
    print("triton %s:" % triton.__version__)
    for line in loads(ttgir):
        print("  " + line)
    gemmc = shutil.which("gemmc")
    if gemmc:
        r = subprocess.run([gemmc, os.path.join(out, "nodiv.ttir"), "--emit=ttgir", "-o", "-"],
                           capture_output=True, text=True)
        print("gemmc:" if r.returncode == 0 else "gemmc failed: " + r.stderr)
        for line in loads(r.stdout):
            print("  " + line)
    else:
        print("gemmc not on PATH: compare %s/nodiv.ttir by hand" % out)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Triton 3.6's TTIR of tl.device_print and tl.device_assert (debug=True) kernels, compiled by libgemmc: the printed (index, value) pairs equal Triton's own print's, a passing assert is silent and a failing one stops the launch with the assert's message (GPU machine only)."""
# Each case runs in a child process: the device printf buffer is flushed to the process's stdout
# at synchronization, and a failed device assert leaves the CUDA context unusable.
#
# Usage (after `source scripts/device-unpack.sh`): python3 test/gpu/triton_debug_ops.py
# Exit 0 when every case passes, 1 otherwise; without torch, Triton or a GPU: "skipped", exit 0.
import os
import re
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(root, "scripts"))
sys.path.insert(0, os.path.join(root, "bench"))
import triton_kernels as tk  # noqa: E402  (defines triton / tl, or stand-ins without them)

triton, tl = tk.triton, tk.tl
N = 64


@triton.jit
def print_kernel(x_ptr, q_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    q = tl.load(q_ptr + offs)
    tl.device_print("x: ", x)
    tl.device_print("q: ", q)


@triton.jit
def assert_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.device_assert(x > 0, "x must be positive")
    tl.store(y_ptr + offs, x * 2)


def child(mode, who):
    """Runs one case in this process; prints what the parent compares."""
    import torch
    import triton_compare
    modules = triton_compare.gpu_modules_and_gemmc()
    if not modules:
        return 0
    torch, _, tc, gemmc = modules
    g = torch.Generator(device="cpu").manual_seed(7)
    if mode == "print":
        x = torch.randn(N, generator=g).cuda()
        q = torch.randint(-100, 100, (N,), generator=g, dtype=torch.int8).cuda()
        ck = print_kernel.warmup(x, q, BLOCK=N, grid=(1,))
        values, launch = dict(x_ptr=x.data_ptr(), q_ptr=q.data_ptr()), lambda: print_kernel[(1,)](x, q, BLOCK=N)
    else:
        x = torch.rand(N, generator=g).cuda() + 0.5
        if mode == "assert-fails":
            x[N // 3] = -1.0
        y = torch.empty_like(x)
        ck = assert_kernel.warmup(x, y, BLOCK=N, grid=(1,), debug=True)
        values, launch = dict(x_ptr=x.data_ptr(), y_ptr=y.data_ptr()), lambda: assert_kernel[(1,)](x, y, BLOCK=N,
                                                                                                   debug=True)
    if who == "triton":
        launch()
    else:
        ptx, meta, _ = gemmc.compile(ck.asm["ttir"], mode + ".ttir", 4, 3)
        fn, _ = gemmc.load(ptx, meta)
        gemmc.launcher(fn, meta, values, (1, 1, 1))()
    torch.cuda.synchronize()
    if mode != "print":
        print("y ok" if torch.equal(y, x * 2) else "y WRONG", flush=True)
    return 0


def run_child(mode, who):
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", mode, who], capture_output=True,
                       text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def printed(out, prefix):
    """(index, value) pairs of the lines a device print of `prefix` wrote, sorted."""
    pat = re.compile(r"idx \(\s*(\d+)\)\s*" + re.escape(prefix) + r"\s*(\S+)")
    return sorted((int(m.group(1)), m.group(2)) for m in map(pat.search, out.splitlines()) if m)


def main():
    if len(sys.argv) > 3 and sys.argv[1] == "--child":
        return child(sys.argv[2], sys.argv[3])
    import triton_compare
    if not triton_compare.gpu_modules_and_gemmc():
        return 0
    passed = failed = 0

    def report(ok, name, why):
        nonlocal passed, failed
        passed += ok
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'}  {name:34s} {why}", flush=True)

    rc_t, out_t, _ = run_child("print", "triton")
    rc_g, out_g, err_g = run_child("print", "gemmc")
    for prefix in ("x:", "q:"):
        t, g = printed(out_t, prefix), printed(out_g, prefix)
        # Triton prints an element once per thread holding it; gemmc once, from its owner.
        same = len(g) == N and sorted(set(g)) == sorted(set(t))
        report(rc_g == 0 and same, f"device_print {prefix} ({N} values)",
               f"{len(g)} lines, the values Triton printed: {same}" if rc_g == 0 else "exit %d: %s" % (rc_g, err_g[-300:]))
    rc, out, err = run_child("assert-passes", "gemmc")
    report(rc == 0 and "y ok" in out, "device_assert that holds", "exit %d, %s" % (rc, out.strip() or err[-300:]))
    rc, out, err = run_child("assert-fails", "gemmc")
    report(rc != 0 and "x must be positive" in out + err, "device_assert that fails",
           "exit %d, message %s" % (rc, "seen" if "x must be positive" in out + err else "missing: " + err[-300:]))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

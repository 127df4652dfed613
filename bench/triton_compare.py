#!/usr/bin/env python3
"""gemmc beside Triton 3.6 and cuBLAS in one process on the GPU machine: the same kernels and configs
(scripts/triton_kernels.py), the same fresh random inputs, results checked against a torch reference
(outputs poisoned with NaN first), timed with CUDA events (triton.testing.do_bench, median; small
problems inside a CUDA graph) in interleaved rounds: every column of a row once per round, the order
reversed every other round, the median of the rounds reported, so that the card's clock drifting
during a row does not favour whichever column ran first. Prints a table and writes
triton_compare.csv into --out.

gemmc runs through libgemmc (ctypes): gemmc_compile of examples/<kernel>.tir with the config's -D
constants, then gemmc_runtime_* to load the PTX and launch on PyTorch's stream. Two more gemmc
columns compile Triton's own TTIR and TTGIR of the same kernel (what issue 9 asks to run within 5%
of Triton's PTX); where gemmc cannot yet, the CSV keeps the first line of its error.

Usage (GPU machine, after `source scripts/device-unpack.sh`):
  python3 bench/triton_compare.py --out "$OUT" [--quick] [--cases REGEX]
Here (no GPU, no torch): python3 bench/triton_compare.py --dry-run [--libgemmc build-device/libgemmc.so]
  lists the plan and, when libgemmc.so is given, compiles every gemmc kernel of the plan to PTX.
"""
import argparse
import csv
import ctypes
import json
import os
import re
import statistics
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import triton_kernels as tk  # noqa: E402

# ------------------------------------------------------------------------------------------------ libgemmc


class _Define(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_char_p)]


class _CompileOptions(ctypes.Structure):  # gemmc_compile_options (include/gemmc/gemmc.h)
    _fields_ = [("target", ctypes.c_char_p), ("num_warps", ctypes.c_int), ("num_stages", ctypes.c_int),
                ("opt_level", ctypes.c_int), ("stage", ctypes.c_int), ("defines", ctypes.POINTER(_Define)),
                ("num_defines", ctypes.c_int), ("verify_each", ctypes.c_bool),
                ("waves_per_eu", ctypes.c_int), ("matrix_instr_nonkdim", ctypes.c_int), ("kpack", ctypes.c_int),
                ("tma", ctypes.c_int), ("warp_specialize", ctypes.c_int), ("keep_llvm_ir", ctypes.c_bool),
                ("disable_fp_fusion", ctypes.c_bool), ("cluster_size", ctypes.c_int),
                ("keep_ttgir", ctypes.c_bool)]


class _Status(ctypes.Structure):  # gemmc_status (include/gemmc/runtime.h)
    _fields_ = [("code", ctypes.c_int), ("driver_error", ctypes.c_int), ("message", ctypes.c_char * 1024)]


class _LaunchConfig(ctypes.Structure):  # gemmc_launch_config
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3), ("dynamic_shared_bytes", ctypes.c_uint),
                ("stream", ctypes.c_void_p), ("cluster_x", ctypes.c_uint)]


class _KernelInfo(ctypes.Structure):  # gemmc_kernel_info
    _fields_ = [("num_registers", ctypes.c_int), ("local_bytes", ctypes.c_int), ("static_shared_bytes", ctypes.c_int),
                ("max_threads_per_block", ctypes.c_int)]


class _TensorMapInfo(ctypes.Structure):  # gemmc_tensor_map_info (include/gemmc/gemmc.h)
    _fields_ = [("elem", ctypes.c_char_p), ("rank", ctypes.c_int), ("block", ctypes.c_int * 5),
                ("box", ctypes.c_int * 5), ("swizzle_bytes", ctypes.c_int)]


class _TensorMap(ctypes.Structure):  # gemmc_tensor_map: a CUtensorMap's 128 bytes
    _fields_ = [("words", ctypes.c_uint64 * 16)]


class GemmcError(Exception):
    pass


class Gemmc:
    """libgemmc's compile API and CUDA runtime through ctypes."""
    STAGE_PTX = 2

    def __init__(self, path, ptxas=None, warp_specialize=0, cluster_size=0, programmatic=False):
        self.path = path
        # a gemmc_pdl column: each gemmc kernel also launched through a second runtime whose
        # programmatic dependent launch is on (gemmc_runtime_set_programmatic_launch)
        self.programmatic = programmatic
        self.warp_specialize = warp_specialize  # gemmc_compile_options.warp_specialize for every compile
        self.cluster_size = cluster_size  # gemmc_compile_options.cluster_size for every compile
        self.lib = ctypes.CDLL(path)
        self.ptxas = ptxas  # assemble the PTX with this ptxas and load the cubin; None: the driver's JIT
        L = self.lib
        vp, sz = ctypes.c_void_p, ctypes.c_size_t
        L.gemmc_context_create.restype = vp
        L.gemmc_context_destroy.argtypes = [vp]
        L.gemmc_compile_options_init.argtypes = [ctypes.POINTER(_CompileOptions)]
        L.gemmc_compile.argtypes = [vp, ctypes.c_char_p, sz, ctypes.c_char_p, ctypes.POINTER(_CompileOptions),
                                    ctypes.POINTER(vp)]
        L.gemmc_compile.restype = ctypes.c_bool
        L.gemmc_compiled_destroy.argtypes = [vp]
        L.gemmc_compiled_diagnostics.argtypes = [vp]
        L.gemmc_compiled_diagnostics.restype = ctypes.c_char_p
        for f in ("gemmc_compiled_ptx", "gemmc_compiled_metadata_json"):
            getattr(L, f).argtypes = [vp, ctypes.POINTER(sz)]
            getattr(L, f).restype = vp
        self.rt = None

    def compile(self, text, filename, num_warps, num_stages, defines=None, target="sm_90a"):
        """(ptx bytes, kernel.json dict, seconds); GemmcError with the diagnostics on failure."""
        L = self.lib
        ctx = L.gemmc_context_create()
        if not ctx:
            raise GemmcError("out of memory creating a gemmc context")
        compiled = ctypes.c_void_p()
        try:
            opts = _CompileOptions()
            L.gemmc_compile_options_init(ctypes.byref(opts))
            opts.target = target.encode()
            opts.num_warps = num_warps
            opts.num_stages = num_stages
            opts.warp_specialize = self.warp_specialize
            opts.cluster_size = self.cluster_size
            items = list((defines or {}).items())
            arr = (_Define * max(1, len(items)))()
            for i, (k, v) in enumerate(items):
                arr[i].name, arr[i].value = k.encode(), str(v).encode()
            opts.defines = arr
            opts.num_defines = len(items)
            data = text.encode() if isinstance(text, str) else text
            t0 = time.perf_counter()
            ok = L.gemmc_compile(ctx, data, len(data), filename.encode(), ctypes.byref(opts), ctypes.byref(compiled))
            seconds = time.perf_counter() - t0
            if not ok:
                diag = L.gemmc_compiled_diagnostics(compiled) if compiled else b"out of memory"
                raise GemmcError((diag or b"").decode(errors="replace").strip() or "compile failed")
            n = ctypes.c_size_t()
            p = L.gemmc_compiled_ptx(compiled, ctypes.byref(n))
            ptx = ctypes.string_at(p, n.value)
            p = L.gemmc_compiled_metadata_json(compiled, ctypes.byref(n))
            meta = json.loads(ctypes.string_at(p, n.value).decode())
            return ptx, meta, seconds
        finally:
            if compiled:
                L.gemmc_compiled_destroy(compiled)
            L.gemmc_context_destroy(ctx)

    # ---------------------------------------------------------------- runtime
    def _check(self, st, what):
        if st.code != 0:
            raise GemmcError(f"{what}: {st.message.decode(errors='replace')}")

    def open_runtime(self):
        L = self.lib
        vp = ctypes.c_void_p
        for f, args in (("gemmc_runtime_create", [ctypes.c_int, ctypes.c_int, ctypes.POINTER(vp)]),
                        ("gemmc_runtime_module_load", [vp, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(vp)]),
                        ("gemmc_runtime_module_get_kernel", [vp, vp, ctypes.c_char_p, ctypes.POINTER(vp)]),
                        ("gemmc_runtime_kernel_set_max_dynamic_shared", [vp, vp, ctypes.c_int]),
                        ("gemmc_runtime_kernel_get_info", [vp, vp, ctypes.POINTER(_KernelInfo)]),
                        ("gemmc_runtime_launch", [vp, vp, ctypes.POINTER(_LaunchConfig), ctypes.POINTER(vp)]),
                        ("gemmc_runtime_encode_tensor_map",
                         [vp, ctypes.POINTER(_TensorMapInfo), ctypes.c_uint64, ctypes.POINTER(ctypes.c_int64),
                          ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(_TensorMap)])):
            getattr(L, f).argtypes = args
            getattr(L, f).restype = _Status
        rt = vp()
        self._check(L.gemmc_runtime_create(0, 0, ctypes.byref(rt)), "opening the CUDA driver")
        self.rt = rt
        self.rt_programmatic = None
        if programmatic:
            L.gemmc_runtime_set_programmatic_launch.argtypes = [vp, ctypes.c_bool]
            L.gemmc_runtime_set_programmatic_launch.restype = _Status
            rt2 = vp()
            self._check(L.gemmc_runtime_create(0, 0, ctypes.byref(rt2)), "opening the CUDA driver")
            self._check(L.gemmc_runtime_set_programmatic_launch(rt2, True), "programmatic launch")
            self.rt_programmatic = rt2

    def load(self, ptx, meta):
        """A launchable kernel: (function handle, kernel.json, registers, local bytes)."""
        L = self.lib
        module, fn = ctypes.c_void_p(), ctypes.c_void_p()
        image = self.assemble(ptx) if self.ptxas else ptx + b"\0"
        self._check(L.gemmc_runtime_module_load(self.rt, image, len(image), ctypes.byref(module)), "loading PTX")
        self._check(L.gemmc_runtime_module_get_kernel(self.rt, module, meta["kernel"].encode(), ctypes.byref(fn)),
                    "finding the kernel")
        if meta["dynamic_shared_bytes"] > 48 * 1024:
            self._check(L.gemmc_runtime_kernel_set_max_dynamic_shared(self.rt, fn, meta["dynamic_shared_bytes"]),
                        "opting in to dynamic shared memory")
        info = _KernelInfo()
        self._check(L.gemmc_runtime_kernel_get_info(self.rt, fn, ctypes.byref(info)), "kernel info")
        return fn, info

    def assemble(self, ptx):
        """The cubin self.ptxas makes of the PTX (for comparing code generators: Triton assembles its
        own PTX with the ptxas it bundles, gemmc's PTX is otherwise compiled by the driver)."""
        import subprocess
        import tempfile
        target = re.search(rb"^\.target\s+(\S+)", ptx, re.M)
        with tempfile.TemporaryDirectory() as d:
            src, out = os.path.join(d, "k.ptx"), os.path.join(d, "k.cubin")
            with open(src, "wb") as f:
                f.write(ptx)
            r = subprocess.run([self.ptxas, "-arch=" + (target.group(1).decode() if target else "sm_90a"), src,
                                "-o", out], capture_output=True, text=True)
            if r.returncode != 0:
                raise GemmcError(f"{self.ptxas}: {first_line(r.stderr or r.stdout)}")
            with open(out, "rb") as f:
                return f.read()

    def launcher(self, fn, meta, values, grid, programmatic=False):
        """A closure that launches fn on PyTorch's current stream with args taken by name from `values`.
        A tensor_map argument takes a torch tensor, encoded with gemmc_runtime_encode_tensor_map from
        kernel.json's description; the arguments after it that `values` lacks get the tensor's shape
        and strides (Triton's launcher passes a descriptor that way)."""
        import torch
        slots, keep, pending = [], [], []
        for arg in meta["args"]:
            name = arg["name"]
            if name not in values and pending and arg["kind"] == "int":
                values = dict(values, **{name: pending.pop(0)})
            if name not in values:
                raise GemmcError(f"no value for kernel argument '{name}' ({arg['type']})")
            v = values[name]
            if arg["kind"] == "tensor_map":
                rank = len(arg["block"])
                info = _TensorMapInfo()
                info.elem, info.rank, info.swizzle_bytes = arg["elem"].encode(), rank, arg["swizzle_bytes"]
                for d in range(rank):
                    info.block[d], info.box[d] = arg["block"][d], arg["box"][d]
                shape = (ctypes.c_int64 * rank)(*v.shape)
                strides = (ctypes.c_int64 * rank)(*v.stride())
                m = _TensorMap()
                self._check(self.lib.gemmc_runtime_encode_tensor_map(self.rt, ctypes.byref(info), v.data_ptr(), shape,
                                                                     strides, ctypes.byref(m)), f"encoding {name}")
                keep.append((m, info))
                slots.append(ctypes.cast(ctypes.pointer(m), ctypes.c_void_p))
                pending = list(v.shape) + list(v.stride())
                continue
            if arg["kind"] == "pointer":
                c = ctypes.c_uint64(v)
            elif arg["kind"] == "int":
                c = {1: ctypes.c_int8, 2: ctypes.c_int16, 4: ctypes.c_int32, 8: ctypes.c_int64}[arg["size"]](v)
            elif arg["kind"] == "float" and arg["size"] in (4, 8):  # f32 / f64 scalars (f16 ones are not passed so)
                c = {4: ctypes.c_float, 8: ctypes.c_double}[arg["size"]](v)
            else:
                raise GemmcError(f"argument '{name}' of kind {arg['kind']} is not supported here")
            div = arg.get("divisibility", 1)
            if div > 1 and v % div:
                raise GemmcError(f"{name} = {v} breaks tt.divisibility = {div}")
            keep.append(c)
            slots.append(ctypes.cast(ctypes.pointer(c), ctypes.c_void_p))
        args = (ctypes.c_void_p * max(1, len(slots)))(*slots)
        cfg = _LaunchConfig()
        for i in range(3):
            cfg.grid[i] = grid[i] if i < len(grid) else 1
            cfg.block[i] = meta["block"][i]
        cfg.dynamic_shared_bytes = meta["dynamic_shared_bytes"]
        cluster = meta.get("cluster", [1])[0]  # as gemmc_launch_cluster_x: only where it divides grid x
        cfg.cluster_x = cluster if cluster > 1 and cfg.grid[0] % cluster == 0 else 0
        L, rt = self.lib, (self.rt_programmatic if programmatic else self.rt)

        def run():
            cfg.stream = torch.cuda.current_stream().cuda_stream  # the capture stream inside a CUDA graph
            st = L.gemmc_runtime_launch(rt, fn, ctypes.byref(cfg), args)
            if st.code != 0:
                raise GemmcError("launch: " + st.message.decode(errors="replace"))
        run._keep = (keep, args, cfg)  # the argument storage lives as long as the closure
        return run


def divisibility(v):
    """Triton's divisibility specialization, generalized (as examples/matmul_host.h): the largest power of
    two up to 16 that divides v."""
    v = abs(int(v))
    if v == 0:
        return 16
    d = 1
    while d < 16 and v % (d * 2) == 0:
        d *= 2
    return d


def gemmc_int_args(case, shape, strides):
    """The integer arguments of gemmc's example kernel (names as in the .tir signatures)."""
    a, b, c = strides
    args = {"M": shape.m, "N": shape.n, "K": shape.k,
            "stride_am": a[-2], "stride_ak": a[-1], "stride_bk": b[-2], "stride_bn": b[-1],
            "stride_cm": c[-2], "stride_cn": c[-1]}
    if case.kind == "batched":
        args.update(batch=shape.batch, stride_ab=a[0], stride_bb=b[0], stride_cb=c[0])
    return args


def gemmc_defines(case, shape, strides):
    """The -D constants of examples/matmul.tir / batched_matmul.tir for this case (as mh_gemm_defines)."""
    g, cfg = case.gemmc, case.config
    d = {"BLOCK_M": cfg.block_m, "BLOCK_N": cfg.block_n, "BLOCK_K": cfg.block_k, "GROUP_SIZE_M": cfg.group_m,
         "DT": g.dt, "ACC": g.acc, "OUT": g.out, "CVT": "arith.bitcast" if g.acc == g.out else "arith.truncf",
         "ZERO": "0.000000e+00", "PRECISION": "tf32"}
    for name, v in gemmc_int_args(case, shape, strides).items():
        d["DIV_" + name.upper()] = divisibility(v)
        # A stride equal to 1 becomes the constant %c1_i32, as Triton specializes it (batch strides never).
        if name in ("stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn"):
            d[name.upper()] = "%c1_i32" if v == 1 else "%" + name
    return d


def planned_strides(case, shape):
    """Strides tk.make_problem gives (for --dry-run, without torch)."""
    m, n, k, bsz = shape.m, shape.n, shape.k, shape.batch
    a = (m * k, k, 1)
    col_b = case.dtype == "fp8e4m3" or case.kind in ("tma", "tma_persistent", "desc_persistent")
    b = (n * k, 1, k) if col_b else (k * n, n, 1)
    c = (m * n, n, 1)
    if bsz == 1:
        a, b, c = a[1:], b[1:], c[1:]
    return a, b, c


# ------------------------------------------------------------------------------------------------ timing

ROUNDS = 5  # interleaved timing rounds per row (3 with --quick)


def bench_ms(fn, quick, use_graph):
    """Median milliseconds of fn over one round: triton.testing.do_bench (CUDA events, L2 flushed before
    each run) or, for small problems where launch overhead would dominate, do_bench_cudagraph."""
    import triton.testing as tt
    rep = 15 if quick else 30
    if use_graph:
        try:
            return tt.do_bench_cudagraph(fn, rep=rep, return_mode="median"), "graph"
        except Exception:  # noqa: BLE001 - fall back to plain launches
            pass
    return tt.do_bench(fn, warmup=25, rep=rep, return_mode="median"), "events"


# ------------------------------------------------------------------------------------------------ cuBLAS

class CublasF16Batched:
    """cublasGemmStridedBatchedEx with CUBLAS_COMPUTE_16F on PyTorch's cuBLAS handle (f16 accumulation,
    what the seed measured); None when libcublas cannot be reached."""

    def __init__(self):
        import torch
        self.torch = torch
        self.lib = None
        for name in _loaded_libs("libcublas.so"):
            try:
                self.lib = ctypes.CDLL(name)
                break
            except OSError:
                continue
        if self.lib is None:
            raise OSError("libcublas not found among the loaded libraries")
        f = self.lib.cublasGemmStridedBatchedEx
        vp, i, ll = ctypes.c_void_p, ctypes.c_int, ctypes.c_longlong
        f.argtypes = [vp, i, i, i, i, i, vp, vp, i, i, ll, vp, i, i, ll, vp, vp, i, i, ll, i, i, i]
        f.restype = i
        self.fn = f
        self.setstream = self.lib.cublasSetStream_v2
        self.setstream.argtypes = [vp, vp]

    def run(self, a, b, c):
        # Row-major C = A B is column-major C^T = B^T A^T: swap the operands.
        torch = self.torch
        bsz, m, k = a.shape
        n = b.shape[2]
        alpha = ctypes.c_uint16(0x3C00)  # 1.0 in f16
        beta = ctypes.c_uint16(0)
        h = torch.cuda.current_blas_handle()
        self.setstream(h, torch.cuda.current_stream().cuda_stream)
        CUDA_R_16F, COMPUTE_16F, OP_N, ALGO = 2, 64, 0, 99
        st = self.fn(h, OP_N, OP_N, n, m, k, ctypes.byref(alpha), b.data_ptr(), CUDA_R_16F, n, n * k,
                     a.data_ptr(), CUDA_R_16F, k, m * k, ctypes.byref(beta), c.data_ptr(), CUDA_R_16F, n, m * n,
                     bsz, COMPUTE_16F, ALGO)
        if st != 0:
            raise RuntimeError(f"cublasGemmStridedBatchedEx returned {st}")


def _loaded_libs(prefix):
    seen = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                if os.path.basename(path).startswith(prefix) and path not in seen:
                    seen.append(path)
    except OSError:
        pass
    return seen + [prefix + ".13", prefix + ".12", prefix]


def cublas_runner(case, p, f16_batched):
    """(closure, label) computing p's C with cuBLAS / cuBLASLt."""
    import torch
    if case.dtype == "fp8e4m3":
        one = torch.ones((), device="cuda", dtype=torch.float32)
        out = {}

        def run():
            out["c"] = torch._scaled_mm(p.a, p.b, scale_a=one, scale_b=one, out_dtype=torch.float16)
        return run, out, "cuBLASLt fp8 (torch._scaled_mm)"
    c = torch.full_like(p.c, float("nan"))
    if case.kind == "batched" and case.acc == "f16" and f16_batched is not None:
        return (lambda: f16_batched.run(p.a, p.b, c)), {"c": c}, "cublasGemmStridedBatchedEx COMPUTE_16F"
    if case.kind == "batched":
        return (lambda: torch.bmm(p.a, p.b, out=c)), {"c": c}, "torch.bmm (f32 accumulation)"
    return (lambda: torch.matmul(p.a, p.b, out=c)), {"c": c}, "torch.matmul"


# ------------------------------------------------------------------------------------------------ one row

def first_line(msg):
    for line in str(msg).splitlines():
        if "error" in line:
            return line.strip()[:200]
    return str(msg).strip().splitlines()[0][:200] if str(msg).strip() else "error"


def tflops(shape, ms):
    return shape.flops() / (ms * 1e-3) / 1e12 if ms else None


def triton_arguments(case, p):
    """The values of the case's Triton kernel arguments by name (what Gemmc.launcher binds to the
    compiled kernel's parameters) and its 3-D grid, for problem p."""
    shape = p.shape
    values = {"a_ptr": p.a.data_ptr(), "b_ptr": p.b.data_ptr(), "c_ptr": p.c.data_ptr(),
              "A_ptr": p.a.data_ptr(), "B_ptr": p.b.data_ptr(), "C_ptr": p.c.data_ptr()}
    if p.b_t is not None:  # host-built descriptors (tutorial 09's TMA kernels): A, B as N x K, C
        values.update(a_desc=p.a, b_desc=p.b_t, c_desc=p.c)
    values.update({"M": shape.m, "N": shape.n, "K": shape.k, "B": shape.batch})
    a_s, b_s, c_s = p.a.stride(), p.b.stride(), p.c.stride()
    values.update(stride_am=a_s[-2], stride_ak=a_s[-1], stride_bk=b_s[-2], stride_bn=b_s[-1],
                  stride_cm=c_s[-2], stride_cn=c_s[-1])
    if case.kind == "batched":
        values.update(stride_ab=a_s[0], stride_bb=b_s[0], stride_cb=c_s[0])
    _, _, tgrid = tk.launch_spec(case, p)
    return values, tuple(tgrid) + (1,) * (3 - len(tgrid))


def run_row(case, shape, gemmc, examples, quick, f16_batched, log):
    import torch
    row = {"kernel": case.kind + ("_ws" if case.warp_specialize else ""), "case": case.name,
           "shape": shape.tag(), "dtype": case.dtype, "acc": case.acc, "config": case.config.tag(),
           "note": case.note}
    p = tk.make_problem(case, shape)
    ref = tk.reference(p)
    use_graph = shape.flops() <= 2.0 * 2048 ** 3
    strides = (tuple(p.a.stride()), tuple(p.b.stride()), tuple(p.c.stride()))

    timed = []  # (key, fn) of every column that ran correctly, timed together at the end

    def measure(key, fn, result):
        """Poison, run once, check; a correct column joins the timing rounds. `result` returns the
        output tensor after a run."""
        try:
            fn()
            torch.cuda.synchronize()
            ok, why = tk.check(case, result(), ref)
            row[key + "_check"] = ("ok " if ok else "WRONG ") + why
            if not ok:
                log(f"  {key}: WRONG {why}")
                return
            timed.append((key, fn))
        except Exception as e:  # noqa: BLE001 - one failing column must not stop the table
            row[key + "_check"] = "error: " + first_line(e)
            log(f"  {key}: {traceback.format_exc().strip().splitlines()[-1]}")

    def time_interleaved():
        """Every column in each of ROUNDS rounds, the order reversed every other round, so that the
        card's clock and temperature drifting over the row weigh on all columns alike; a column's
        time is the median of its rounds' medians."""
        rounds = 3 if quick else ROUNDS
        samples = {key: [] for key, _ in timed}
        for r in range(rounds):
            for key, fn in (timed if r % 2 == 0 else list(reversed(timed))):
                try:
                    ms, how = bench_ms(fn, quick, use_graph)
                    samples[key].append(ms)
                    row["timing"] = how
                except Exception as e:  # noqa: BLE001
                    row[key + "_check"] = "error: " + first_line(e)
        for key, ms_list in samples.items():
            if ms_list:
                ms = statistics.median(ms_list)
                row[key + "_ms"] = ms
                row[key + "_tflops"] = tflops(shape, ms)

    # Triton
    ck = None
    try:
        p.c.fill_(float("nan"))
        triton_run = tk.launcher(case, p)
        ck = triton_run()
        measure("triton", triton_run, lambda: p.c)
        if ck is not None:
            try:
                ck._init_handles()
                row["triton_regs"], row["triton_spills"] = ck.n_regs, ck.n_spills
            except Exception:  # noqa: BLE001
                pass
            row["triton_shared"] = getattr(ck.metadata, "shared", None)
    except Exception as e:  # noqa: BLE001
        row["triton_check"] = "error: " + first_line(e)
        log("  triton: " + traceback.format_exc().strip().splitlines()[-1])

    # cuBLAS
    try:
        run, out, label = cublas_runner(case, p, f16_batched)
        row["cublas_impl"] = label
        measure("cublas", run, lambda: out["c"])
    except Exception as e:  # noqa: BLE001
        row["cublas_check"] = "error: " + first_line(e)

    if gemmc is None:
        time_interleaved()
        return row
    ptrs = {"a_ptr": p.a.data_ptr(), "b_ptr": p.b.data_ptr(), "c_ptr": p.c.data_ptr(),
            "A_ptr": p.a.data_ptr(), "B_ptr": p.b.data_ptr(), "C_ptr": p.c.data_ptr()}
    # gemmc: its own example kernel at the same config
    if case.gemmc is not None:
        try:
            path = os.path.join(examples, case.gemmc.tir)
            with open(path) as f:
                text = f.read()
            ptx, meta, secs = gemmc.compile(text, path, case.config.num_warps, case.config.num_stages,
                                            gemmc_defines(case, shape, strides))
            fn, info = gemmc.load(ptx, meta)
            row["gemmc_regs"], row["gemmc_local_bytes"] = info.num_registers, info.local_bytes
            row["gemmc_compile_s"] = round(secs, 3)
            values = dict(ptrs, **gemmc_int_args(case, shape, strides))
            tiles = -(-shape.m // case.config.block_m) * -(-shape.n // case.config.block_n)
            grid = (tiles, shape.batch, 1) if case.kind == "batched" else (tiles, 1, 1)
            run = gemmc.launcher(fn, meta, values, grid)
            p.c.fill_(float("nan"))
            measure("gemmc", run, lambda: p.c)
            if gemmc.programmatic and meta.get("programmatic_launch"):
                run_pdl = gemmc.launcher(fn, meta, values, grid, programmatic=True)
                p.c.fill_(float("nan"))
                measure("gemmc_pdl", run_pdl, lambda: p.c)
        except Exception as e:  # noqa: BLE001
            row["gemmc_check"] = "error: " + first_line(e)
            log("  gemmc: " + first_line(e))
    # gemmc on Triton's own TTIR and TTGIR of this kernel
    if ck is not None:
        triton_values, grid3 = triton_arguments(case, p)
        for stage in ("ttir", "ttgir"):
            key = "gemmc_" + stage
            try:
                text = ck.asm[stage]
                ptx, meta, secs = gemmc.compile(text, f"{case.name}.{stage}", case.config.num_warps,
                                                case.config.num_stages)
                fn, info = gemmc.load(ptx, meta)
                row[key + "_regs"] = info.num_registers
                run = gemmc.launcher(fn, meta, triton_values, grid3)
                p.c.fill_(float("nan"))
                measure(key, run, lambda: p.c)
            except Exception as e:  # noqa: BLE001
                row[key + "_check"] = "error: " + first_line(e)
    time_interleaved()
    return row


# ------------------------------------------------------------------------------------------------ table

COLUMNS = ["kernel", "shape", "dtype", "acc", "config", "gemmc_tflops", "triton_tflops", "cublas_tflops",
           "gemmc_vs_triton", "gemmc_vs_cublas", "gemmc_pdl_tflops", "gemmc_pdl_vs_cublas", "gemmc_pdl_ms",
           "gemmc_pdl_check", "gemmc_ttir_tflops", "gemmc_ttgir_tflops", "triton_vs_cublas",
           "gemmc_ms", "triton_ms", "cublas_ms", "gemmc_ttir_ms", "gemmc_ttgir_ms",
           "gemmc_check", "triton_check", "cublas_check", "gemmc_ttir_check", "gemmc_ttgir_check",
           "gemmc_regs", "gemmc_local_bytes", "gemmc_ttir_regs", "gemmc_ttgir_regs", "triton_regs", "triton_spills",
           "triton_shared", "gemmc_compile_s", "cublas_impl", "timing", "case", "note"]


def ratio(a, b):
    return a / b if a and b else None


def finish_row(r):
    r["gemmc_vs_triton"] = ratio(r.get("gemmc_tflops"), r.get("triton_tflops"))
    r["gemmc_vs_cublas"] = ratio(r.get("gemmc_tflops"), r.get("cublas_tflops"))
    r["triton_vs_cublas"] = ratio(r.get("triton_tflops"), r.get("cublas_tflops"))
    r["gemmc_pdl_vs_cublas"] = ratio(r.get("gemmc_pdl_tflops"), r.get("cublas_tflops"))


def fmt(v, digits=1):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def print_table(rows, out=sys.stdout):
    head = ["kernel", "shape", "dtype", "acc", "config", "gemmc", "Triton", "cuBLAS", "g/T", "g/cuBLAS",
            "g(T ttir)", "g(T ttgir)"]
    pdl = any(r.get("gemmc_pdl_check") for r in rows)
    if pdl:
        head += ["g+pdl", "g+pdl/cuBLAS"]
    lines = [head]
    for r in rows:
        def t(key):
            v = r.get(key + "_tflops")
            if v is not None:
                return fmt(v)
            chk = r.get(key + "_check", "")
            return "WRONG" if chk.startswith("WRONG") else ("err" if chk.startswith("error") else "-")
        lines.append([r["kernel"], r["shape"], r["dtype"], r["acc"], r["config"], t("gemmc"), t("triton"),
                      t("cublas"), fmt(r.get("gemmc_vs_triton"), 2), fmt(r.get("gemmc_vs_cublas"), 2),
                      t("gemmc_ttir"), t("gemmc_ttgir")])
        if pdl:
            lines[-1] += [t("gemmc_pdl"), fmt(r.get("gemmc_pdl_vs_cublas"), 2)]
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(head))]
    for i, line in enumerate(lines):
        out.write("  ".join(str(c).rjust(w) if j >= 5 else str(c).ljust(w) for j, (c, w) in
                            enumerate(zip(line, widths))) + "\n")
        if i == 0:
            out.write("  ".join("-" * w for w in widths) + "\n")
    out.write("TFLOP/s (median, CUDA events); g/T = gemmc / Triton, g/cuBLAS = gemmc / cuBLAS; "
              "g(T ttir|ttgir) = gemmc compiling Triton's own TTIR|TTGIR of the kernel; "
              "g+pdl = gemmc's kernel launched with programmatic dependent launch (--programmatic-launch); "
              "err/WRONG: see the *_check columns of the CSV.\n")
    best = {}
    for r in rows:
        if r.get("triton_tflops") and r["dtype"] in ("f16", "bf16") and r["acc"] == "f32" and r["kernel"] != "batched":
            k = (r["shape"], r["dtype"])
            if r["triton_tflops"] > best.get(k, (0, ""))[0]:
                best[k] = (r["triton_tflops"], r["kernel"] + " " + r["config"])
    for (shape, dtype), (v, what) in sorted(best.items()):
        out.write(f"best Triton at {shape} {dtype}: {v:.1f} TFLOP/s ({what})\n")


def write_results(rows, out):
    with open(os.path.join(out, "triton_compare.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.4g}" if isinstance(v, float) else v) for k, v in r.items()})
    with open(os.path.join(out, "triton_compare.txt"), "w") as f:
        print_table(rows, f)


# ------------------------------------------------------------------------------------------------ main

QUICK = ("tutorial_f16_128x128x64_s3_w4", "tutorial_f16_128x256x64_s3_w8", "batched_f16_accf32_128x256x64_s3_w8",
         "tma_persistent_ws_f16_128x256x64_s3_w8")


def priority(case, shape):
    """The rows the issues' bars name come first, so a time budget cuts the least important ones."""
    big = shape.m >= 4096
    tutorial = case.kind == "tutorial" and case.dtype in ("f16", "bf16")
    if tutorial and case.config.tag() in ("128x128x64_s3_w4", "128x256x64_s3_w8") and big:
        return 0
    if case.kind == "tma_persistent" and case.warp_specialize:
        return 1
    if case.kind == "batched":
        return 2
    if tutorial and case.config.tag() in ("128x128x64_s3_w4", "128x256x64_s3_w8"):
        return 3
    if case.dtype == "fp8e4m3" and shape.m == 8192:
        return 4
    return 5


def plan(args):
    cases = [c for c in tk.all_cases() if re.search(args.cases, c.name)]
    if args.quick:
        cases = [c for c in cases if c.name in QUICK]
    out = []
    for c in cases:
        shapes = tk.default_shapes(c)
        if args.quick:
            shapes = shapes[:1] if c.kind != "tutorial" else [tk.Shape(4096, 4096, 4096)]
        out += [(c, s) for s in shapes]
    return sorted(out, key=lambda cs: priority(*cs))  # stable: the case order within a priority stays


def gpu_modules():
    """(torch, triton_kernels, triton_compare) on a machine with Triton and a CUDA device; elsewhere
    prints 'skipped: why' and returns None (the GPU scripts then exit 0)."""
    try:
        import torch
        if not tk.HAVE_TRITON or not torch.cuda.is_available():
            raise ImportError("Triton or a CUDA device missing")
    except ImportError as e:
        print(f"skipped: {e}")
        return None
    return torch, tk, sys.modules[__name__]


def gpu_modules_and_gemmc(lib=None):
    """gpu_modules() and a Gemmc on `lib` (default: default_lib()) with its CUDA runtime open, as
    (torch, triton_kernels, triton_compare, gemmc); None where gpu_modules() gives None."""
    modules = gpu_modules()
    if not modules:
        return None
    gemmc = Gemmc(lib or default_lib())
    gemmc.open_runtime()
    return modules + (gemmc,)


def default_lib():
    bins = [os.environ.get("GEMMC_BIN", ""), os.path.join(ROOT, "build-device"), os.path.join(ROOT, "build")]
    for p in [os.path.join(b, name) for b in bins if b for name in ("libgemmc.so", "libgemmc.so.0")]:
        if p and os.path.exists(p):
            return p
    return None


def dry_run(args):
    rows = plan(args)
    print(f"plan: {len(rows)} rows (HAVE_TRITON={tk.HAVE_TRITON})")
    lib = args.libgemmc or default_lib()
    g = None
    if lib:
        try:
            g = Gemmc(lib)
        except OSError as e:
            print(f"cannot load {lib}: {e}")
    failures = 0
    for case, shape in rows:
        line = f"  {case.name:46s} {shape.tag():18s}"
        if g and case.gemmc:
            strides = planned_strides(case, shape)
            try:
                path = os.path.join(args.examples, case.gemmc.tir)
                with open(path) as f:
                    ptx, meta, secs = g.compile(f.read(), path, case.config.num_warps, case.config.num_stages,
                                                gemmc_defines(case, shape, strides))
                names = [a["name"] for a in meta["args"]]
                values = gemmc_int_args(case, shape, strides)
                missing = [n for n in names if not n.endswith("_ptr") and n not in values]
                line += f" gemmc ok ({len(ptx)} B PTX, {meta['dynamic_shared_bytes']} B shared, {secs:.2f} s)"
                if missing:
                    line += f" MISSING ARGS {missing}"
                    failures += 1
            except GemmcError as e:
                line += " gemmc: " + first_line(e)
        print(line)
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/gemmc-out"))
    ap.add_argument("--libgemmc", default=None, help="libgemmc.so (default: $GEMMC_BIN, build-device/, build/)")
    ap.add_argument("--examples", default=os.environ.get("GEMMC_EXAMPLES_DIR", os.path.join(ROOT, "examples")))
    ap.add_argument("--cases", default=".", help="regex over case names (python3 scripts/triton_kernels.py lists them)")
    ap.add_argument("--quick", action="store_true", help="three cases at one shape, fewer timing repetitions")
    ap.add_argument("--no-gemmc", action="store_true", help="Triton and cuBLAS only")
    ap.add_argument("--dry-run", action="store_true", help="no GPU: list the plan, compile gemmc's kernels")
    ap.add_argument("--ptxas", default=None,
                    help="assemble gemmc's PTX with this ptxas ('triton': the one Triton bundles) instead of "
                         "the driver's JIT")
    ap.add_argument("--warp-specialize", type=int, default=0, choices=range(-1, 4),
                    help="gemmc_compile_options.warp_specialize for gemmc's compiles (3: wherever legal; 0: default)")
    ap.add_argument("--cluster", type=int, default=0, choices=range(0, 3),
                    help="gemmc_compile_options.cluster_size for gemmc's compiles (2: kernels made for 2-block "
                         "clusters, launched so where the grid's x is even; 0: default)")
    ap.add_argument("--programmatic-launch", action="store_true",
                    help="a g+pdl column: gemmc's warp-specialized kernels also launched with programmatic "
                         "dependent launch (gemmc_runtime_set_programmatic_launch), timed in the same rounds")
    ap.add_argument("--budget-s", type=float, default=0,
                    help="start no new row after this many seconds (0: no limit); rows run most important first")
    args = ap.parse_args()
    if args.dry_run:
        return dry_run(args)
    if not tk.HAVE_TRITON:
        print("triton_compare: needs torch and triton (the GPU machine); use --dry-run here", file=sys.stderr)
        return 2
    import torch
    import triton
    torch.cuda.init()
    os.makedirs(args.out, exist_ok=True)

    def log(msg):  # stdout only: the GPU run returns few files, and device-gpu-run.sh keeps stdout
        print(msg, flush=True)

    props = torch.cuda.get_device_properties(0)
    log(f"device: {props.name}, {props.multi_processor_count} SMs; torch {torch.__version__}, "
        f"triton {triton.__version__}, CUDA {torch.version.cuda}")
    gemmc = None
    if not args.no_gemmc:
        lib = args.libgemmc or default_lib()
        try:
            ptxas = args.ptxas
            if ptxas == "triton":
                ptxas = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "ptxas")
            gemmc = Gemmc(lib, ptxas, args.warp_specialize, args.cluster, args.programmatic_launch) if lib else None
            if args.warp_specialize:
                log(f"gemmc compiles with warp_specialize={args.warp_specialize}")
            if args.cluster:
                log(f"gemmc compiles with cluster_size={args.cluster}")
            if ptxas:
                log(f"gemmc's PTX assembled with {ptxas}")
            if gemmc:
                gemmc.open_runtime()
            log(f"libgemmc: {lib}")
        except (OSError, GemmcError) as e:
            log(f"libgemmc unavailable ({lib}): {e}; the gemmc columns stay empty")
            gemmc = None
    try:
        f16_batched = CublasF16Batched()
    except Exception as e:  # noqa: BLE001
        log(f"cublasGemmStridedBatchedEx not reachable ({e}); f16-accumulation batched cuBLAS uses torch.bmm")
        f16_batched = None
    rows = []
    t0 = time.time()
    todo = plan(args)
    for i, (case, shape) in enumerate(todo):
        if args.budget_s and time.time() - t0 > args.budget_s:
            log(f"time budget of {args.budget_s:.0f} s spent: {len(todo) - i} rows left out")
            break
        log(f"{case.name} {shape.tag()}")
        try:
            r = run_row(case, shape, gemmc, args.examples, args.quick, f16_batched, log)
        except Exception as e:  # noqa: BLE001 - e.g. out of memory: record and go on
            log("  row failed: " + traceback.format_exc().strip().splitlines()[-1])
            r = {"kernel": case.kind, "case": case.name, "shape": shape.tag(), "dtype": case.dtype,
                 "acc": case.acc, "config": case.config.tag(), "triton_check": "error: " + first_line(e)}
        finish_row(r)
        rows.append(r)
        write_results(rows, args.out)  # after every row: a run cut short keeps what it measured
        torch.cuda.empty_cache()
    print_table(rows)
    log(f"{len(rows)} rows in {time.time() - t0:.0f} s; CSV: {os.path.join(args.out, 'triton_compare.csv')}")
    bad = [r for r in rows if any(str(r.get(k + "_check", "")).startswith("WRONG")
                                  for k in ("gemmc", "triton", "cublas", "gemmc_ttir", "gemmc_ttgir"))]
    for r in bad:
        log(f"WRONG RESULT: {r['case']} {r['shape']}: " + "; ".join(
            f"{k}={r.get(k + '_check')}" for k in ("gemmc", "triton", "cublas", "gemmc_ttir", "gemmc_ttgir")))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

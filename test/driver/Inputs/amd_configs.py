#!/usr/bin/env python3
"""Compiles every example and the GEMM configurations of seed 001 (its NVIDIA and ROCm lists) for
gfx90a and gfx942 into linked code objects and checks them without a GPU:
  - every matmul has MFMA instructions (llvm-objdump -d);
  - the metadata note (llvm-readelf --notes) lists the tt.func's arguments: pointers as 8-byte
    global_buffer, 32-bit integers as 4-byte by_value, at increasing, naturally aligned offsets;
  - the ROCm configurations (and every other matmul) have no scratch and no spills.
Prints one line per code object; exits 1 on the first failure list.

Usage: amd_configs.py GEMMC EXAMPLES_DIR OUT_DIR
"""
import os
import re
import shutil
import subprocess
import sys

# Seed 001's autotuning lists: (BLOCK_M, BLOCK_N, BLOCK_K, GROUP_SIZE_M, num_warps, num_stages,
# waves_per_eu). The ROCm list uses Triton's num_stages 0, which Triton 3.6 treats as 1 (no
# pipelining); gemmc's --num-stages takes 0 too.
NVIDIA = [(128, 256, 64, 8, 8, 3, 0), (64, 256, 32, 8, 4, 4, 0), (128, 128, 32, 8, 4, 4, 0),
          (128, 64, 32, 8, 4, 4, 0), (64, 128, 32, 8, 4, 4, 0), (128, 32, 32, 8, 4, 4, 0),
          (64, 32, 32, 8, 2, 5, 0), (32, 64, 32, 8, 2, 5, 0)]
ROCM = [(128, 256, 16, 1, 4, 0, 2), (256, 256, 16, 4, 8, 0, 2), (128, 128, 32, 1, 8, 0, 2),
        (64, 128, 32, 8, 4, 0, 3), (64, 64, 32, 1, 4, 0, 8)]
TARGETS = ["gfx942", "gfx90a"]


def tool(name):
    path = shutil.which(name + "-19") or shutil.which(name)
    if not path and os.access("/usr/lib/llvm-19/bin/" + name, os.X_OK):
        path = "/usr/lib/llvm-19/bin/" + name
    if not path:
        sys.exit("amd_configs: %s not found" % name)
    return path


def signature(tir):
    """The kinds of the tt.func's arguments: 'ptr' or 'i32' (as the examples declare them)."""
    m = re.search(r"tt\.func public @\w+\((.*?)\)\s*(?:attributes|\{)", open(tir).read())
    return ["ptr" if "!tt.ptr" in arg else "i32" for arg in re.findall(r"%\w+:\s*([^{,]+)", m.group(1))]


def note_args(text):
    """(offset, size, value_kind) of the explicit arguments in llvm-readelf --notes output: the
    entries of `.args:` (each starts with "- .", its keys indented under it)."""
    args, in_args, indent = [], False, 0
    for line in text.splitlines():
        stripped = line.strip()
        if stripped == ".args:":
            in_args, indent = True, len(line) - len(line.lstrip())
            continue
        if not in_args:
            continue
        depth = len(line) - len(line.lstrip())
        if depth <= indent:
            break
        if stripped.startswith("- "):
            args.append({})
            stripped = stripped[2:]
        key, _, value = stripped.lstrip(".").partition(":")
        args[-1][key.strip()] = value.strip()
    return [(int(a["offset"]), int(a["size"]), a["value_kind"]) for a in args
            if "offset" in a and not a.get("value_kind", "").startswith("hidden")]


def note_value(text, key):
    m = re.search(r"^\s*\.%s:\s+(\S+)" % re.escape(key), text, re.M)
    return int(m.group(1)) if m else None


def check(gemmc, tir, target, cfg, out, tools, is_matmul, must_not_spill, failures):
    name = "%s-%s-%d" % (os.path.basename(tir)[:-4], target, len(os.listdir(out)))
    hsaco = os.path.join(out, name + ".hsaco")
    options = config_options(cfg) if cfg else []
    r = subprocess.run([gemmc, tir, "--target=" + target, "-o", hsaco, "--no-metadata"] + options,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    label = "%s %s %s" % (target, os.path.basename(tir)[:-4],
                          "%dx%dx%d g%d w%d s%d wpe%d" % cfg if cfg else "(defaults)")
    if r.returncode != 0:
        failures.append("%s: %s" % (label, r.stderr.strip().splitlines()[0] if r.stderr.strip() else "failed"))
        return
    readelf, objdump = tools
    notes = subprocess.run([readelf, "--notes", hsaco], stdout=subprocess.PIPE, text=True).stdout
    asm = subprocess.run([objdump, "-d", hsaco], stdout=subprocess.PIPE, text=True).stdout
    mfma = len(re.findall(r"\bv_mfma_", asm))
    vgpr, scratch = note_value(notes, "vgpr_count"), note_value(notes, "private_segment_fixed_size")
    spills = (note_value(notes, "vgpr_spill_count") or 0) + (note_value(notes, "sgpr_spill_count") or 0)
    problems = []
    if is_matmul and mfma == 0:
        problems.append("no MFMA")
    if must_not_spill and (scratch or spills):
        problems.append("scratch %s, spills %d" % (scratch, spills))
    want = signature(tir)
    got = note_args(notes)
    expect_offset = 0
    if len(got) != len(want):
        problems.append("%d arguments in the note, %d in the tt.func" % (len(got), len(want)))
    for (offset, size, kind), arg in zip(got, want):
        size_want, kind_want = (8, "global_buffer") if arg == "ptr" else (4, "by_value")
        expect_offset = (expect_offset + size_want - 1) // size_want * size_want
        if (offset, size, kind) != (expect_offset, size_want, kind_want):
            problems.append("argument at %d: %d bytes %s, expected %d bytes %s at %d" %
                            (offset, size, kind, size_want, kind_want, expect_offset))
            break
        expect_offset += size_want
    print("%-52s mfma=%-4d vgpr=%-4s scratch=%s args=%d %s" %
          (label, mfma, vgpr, scratch, len(got), "FAIL: " + "; ".join(problems) if problems else "ok"))
    if problems:
        failures.append("%s: %s" % (label, "; ".join(problems)))


def config_options(cfg):
    m, n, k, group, warps, stages, wpe = cfg
    options = ["-D", "BLOCK_M=%d" % m, "-D", "BLOCK_N=%d" % n, "-D", "BLOCK_K=%d" % k, "-D", "GROUP_SIZE_M=%d" % group,
               "--num-warps=%d" % warps, "--num-stages=%d" % stages]
    return options + (["--waves-per-eu=%d" % wpe] if wpe else [])


def main():
    gemmc, examples, out = sys.argv[1:4]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    tools = (tool("llvm-readelf"), tool("llvm-objdump"))
    failures = []
    matmuls = ["matmul.tir", "matmul_leaky_relu.tir"]
    for target in TARGETS:
        for tir in sorted(f for f in os.listdir(examples) if f.endswith(".tir")):
            is_matmul = "matmul" in tir
            check(gemmc, os.path.join(examples, tir), target, None, out, tools, is_matmul, is_matmul, failures)
        for tir in matmuls:
            for cfg in NVIDIA + ROCM:
                check(gemmc, os.path.join(examples, tir), target, cfg, out, tools, True, True, failures)
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        return 1
    print("all %d code objects ok" % len(os.listdir(out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""AMD code objects side by side: Triton's .hsaco and gemmc's for the same TTIR, in one table.

For each code object it prints the MFMA count and the instruction count (llvm-objdump -d, within
the kernel symbol), VGPRs, AGPRs, SGPRs, spills, static LDS and scratch bytes (the
NT_AMDGPU_METADATA note, llvm-readelf --notes), the code size, and the LDS the launch adds
(Triton's: summed from the ttg.local_alloc ops of the TTGIR beside the .hsaco, since Triton passes
it at launch and the object does not record it; gemmc's: kernel.json's dynamic_shared_bytes).

gemmc's object comes from --gemmc-hsaco, or is compiled here from --ttir (default: the .ttir
beside Triton's .hsaco) with the options in Triton's file name (..._w4_s2_wpe2: num_warps 4,
num_stages 2, waves_per_eu 2) and, from the TTGIR beside it, the MFMA instruction size and kpack
Triton used (instrShape [16, 16, 16] -> --matrix-instr-nonkdim=16; kWidth / kBase -> --kpack).
When gemmc cannot compile it the gemmc column says why and the script still exits 0;
--require-gemmc makes that an error.
With both objects it checks issue 11's bar: MFMA count equal, VGPRs within 10%, no scratch,
LDS no more than Triton's (exit 1 when one fails).

Usage: scripts/amd-side-by-side.py [--triton X.hsaco] [--ttir X.ttir | --gemmc-hsaco Y.hsaco]
                                   [--gemmc-bin build/gemmc] [--kernel NAME] [--require-gemmc]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_TRITON = os.path.join(os.path.dirname(ROOT), "shared", "triton-3.6-amd",
                              "matmul_gfx942_128x128x64_w4_s2_wpe2.hsaco")
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i8": 1, "i16": 2, "i32": 4, "i64": 8,
                 "f8E4M3FN": 1, "f8E5M2": 1, "f8E4M3FNUZ": 1, "f8E5M2FNUZ": 1}


def find_llvm_tool(name):
    """An LLVM 19 tool: name-19 on PATH, then /usr/lib/llvm-19/bin/name (as gemmc finds ld.lld)."""
    path = shutil.which(name + "-19")
    if path:
        return path
    fallback = "/usr/lib/llvm-19/bin/" + name
    if os.access(fallback, os.X_OK):
        return fallback
    sys.exit("amd-side-by-side: %s-19 not found (Debian: apt-get install llvm-19)" % name)


def run(argv):
    result = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        sys.exit("amd-side-by-side: %s failed: %s" % (" ".join(argv), result.stderr.strip()))
    return result.stdout


def read_note(readelf, path, kernel):
    """The kernel's entry of the metadata note as a dict of its scalar keys (plus 'args')."""
    text = run([readelf, "--notes", path])
    kernels, current, in_args = [], None, False
    for line in text.splitlines():
        m = re.match(r"^  - \.(\w+):\s*(.*)$", line)  # the first key of a kernel entry
        if m and not in_args and line.startswith("  - ."):
            current = {}
            kernels.append(current)
        if current is None:
            continue
        m = re.match(r"^\s+(?:- )?\.(\w+):\s*(.*)$", line)
        if not m:
            continue
        key, value = m.group(1), m.group(2).strip()
        if key == "args":
            in_args = True
            current["args"] = 0
            continue
        indent = len(line) - len(line.lstrip(" -"))
        if in_args and indent > 4:
            if key == "offset":
                current["args"] += 1
            continue
        in_args = False
        current[key] = value
    if not kernels:
        sys.exit("amd-side-by-side: %s has no AMDGPU metadata note" % path)
    for k in kernels:
        if kernel is None or k.get("name") == kernel:
            return k
    sys.exit("amd-side-by-side: %s has no kernel %s" % (path, kernel))


def kernel_range(readelf, path, name):
    """(start, end) address of the kernel's code from its FUNC symbol."""
    for line in run([readelf, "--syms", "--wide", path]).splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[3] == "FUNC" and fields[7] == name:
            start, size = int(fields[1], 16), int(fields[2], 0)
            return start, start + size, size
    sys.exit("amd-side-by-side: no FUNC symbol %s in %s" % (name, path))


def count_instructions(objdump, path, start, end):
    """(instructions, MFMAs, s_nops) in [start, end): llvm-objdump -d prints `mnemonic ... // ADDR: bytes`.
    s_nop is counted apart too: besides hazard waits it pads the 256-byte kernarg-preload prologue."""
    instructions = mfma = nops = 0
    for line in run([objdump, "-d", path]).splitlines():
        m = re.match(r"^\s+([a-z_][a-z0-9_.]*)\b.*//\s*([0-9A-Fa-f]+):", line)
        if not m:
            continue
        address = int(m.group(2), 16)
        if start <= address < end:
            instructions += 1
            mfma += m.group(1).startswith("v_mfma")
            nops += m.group(1) == "s_nop"
    return instructions, mfma, nops


def ttgir_local_alloc_bytes(path):
    """Bytes of all ttg.local_alloc results of a TTGIR (no reuse assumed), or None."""
    if not os.path.exists(path):
        return None
    total = 0
    for m in re.finditer(r"ttg\.local_alloc\b[^\n]*?->\s*!ttg\.memdesc<([0-9x]+)x(\w+)", open(path).read()):
        elements = 1
        for d in m.group(1).split("x"):
            elements *= int(d)
        if m.group(2) not in ELEMENT_BYTES:
            return None
        total += elements * ELEMENT_BYTES[m.group(2)]
    return total


def measure(path, kernel, dynamic_lds, dynamic_from, tools):
    readelf, objdump = tools
    note = read_note(readelf, path, kernel)
    name = note["name"]
    start, end, size = kernel_range(readelf, path, name)
    instructions, mfma, nops = count_instructions(objdump, path, start, end)
    static_lds = int(note["group_segment_fixed_size"])
    return {
        "kernel": name,
        "MFMA instructions": mfma,
        "instructions": instructions,
        "  of them s_nop": nops,
        "code bytes": size,
        "VGPRs": int(note["vgpr_count"]),
        "AGPRs": int(note.get("agpr_count", 0)),
        "SGPRs": int(note["sgpr_count"]),
        "VGPR spills": int(note.get("vgpr_spill_count", 0)),
        "SGPR spills": int(note.get("sgpr_spill_count", 0)),
        "scratch bytes": int(note["private_segment_fixed_size"]),
        "static LDS bytes": static_lds,
        "LDS bytes (static + launch)": None if dynamic_lds is None else static_lds + dynamic_lds,
        "kernarg bytes": int(note["kernarg_segment_size"]),
        "arguments": note.get("args", 0),
        "_lds_from": dynamic_from,
    }


def options_from_name(path):
    """num_warps / num_stages / waves_per_eu from Triton dump names like ..._w4_s2_wpe2."""
    stem = os.path.basename(path)
    options = []
    for flag, pattern in (("--num-warps", r"_w(\d+)"), ("--num-stages", r"_s(\d+)"),
                          ("--waves-per-eu", r"_wpe(\d+)")):
        m = re.search(pattern + r"(?:_|\.|$)", stem)
        if m:
            options.append("%s=%s" % (flag, m.group(1)))
    return options


def options_from_ttgir(path):
    """matrix_instr_nonkdim and kpack as Triton used them: the #ttg.amd_mfma instrShape of the
    TTGIR beside the dump, and its operands' kWidth over the instruction's kBase (M * K / 64)."""
    if not os.path.exists(path):
        return []
    text = open(path).read()
    m = re.search(r"#ttg\.amd_mfma<\{[^}]*instrShape = \[(\d+), (\d+), (\d+)\]", text)
    if not m:
        return []
    nonk, k = int(m.group(1)), int(m.group(3))
    options = ["--matrix-instr-nonkdim=%d" % nonk]
    w = re.search(r"#ttg\.dot_op<\{opIdx = 0, parent = #\w+, kWidth = (\d+)\}>", text)
    k_base = nonk * k // 64
    if w and k_base and int(w.group(1)) % k_base == 0 and int(w.group(1)) // k_base > 1:
        options.append("--kpack=%d" % (int(w.group(1)) // k_base))
    return options


def compile_with_gemmc(gemmc, ttir, target, extra):
    """(hsaco path, kernel.json dict or None, None) or (None, None, reason)."""
    out_dir = tempfile.mkdtemp(prefix="gemmc-side-by-side-")
    hsaco = os.path.join(out_dir, "gemmc.hsaco")
    argv = [gemmc, ttir, "--target=" + target, "--emit=hsaco", "-o", hsaco] + extra
    result = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        errors = [l for l in result.stderr.splitlines() if "error:" in l]
        reason = errors[0] if errors else result.stderr.strip().splitlines()[-1:] or ["gemmc failed"]
        return None, None, reason if isinstance(reason, str) else reason[0]
    meta = os.path.join(out_dir, "gemmc.json")
    if os.path.exists(meta):
        import json
        return hsaco, json.load(open(meta)), None
    return hsaco, None, None


ROWS = ["kernel", "MFMA instructions", "instructions", "  of them s_nop", "code bytes", "VGPRs", "AGPRs", "SGPRs", "VGPR spills",
        "SGPR spills", "scratch bytes", "static LDS bytes", "LDS bytes (static + launch)", "kernarg bytes",
        "arguments"]


def show(value):
    return "?" if value is None else str(value)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--triton", default=DEFAULT_TRITON, help="Triton's .hsaco (default: shared/triton-3.6-amd)")
    parser.add_argument("--ttir", help="TTIR gemmc compiles (default: the .ttir beside --triton)")
    parser.add_argument("--gemmc-hsaco", help="an already compiled gemmc code object (with its .json beside it)")
    parser.add_argument("--gemmc-bin", default=os.path.join(ROOT, "build", "gemmc"))
    parser.add_argument("--target", default="gfx942")
    parser.add_argument("--kernel", help="kernel name (default: the first in each note)")
    parser.add_argument("--gemmc-option", action="append", default=[],
                        help="extra gemmc option (repeatable), e.g. --gemmc-option=--matrix-instr-nonkdim=16")
    parser.add_argument("--require-gemmc", action="store_true", help="fail when gemmc's object is not available")
    args = parser.parse_args()

    tools = (find_llvm_tool("llvm-readelf"), find_llvm_tool("llvm-objdump"))
    if not os.path.exists(args.triton):
        sys.exit("amd-side-by-side: %s not found" % args.triton)
    stem = os.path.splitext(args.triton)[0]
    triton_lds = ttgir_local_alloc_bytes(stem + ".ttgir")
    triton = measure(args.triton, args.kernel, triton_lds, "TTGIR local_alloc" if triton_lds is not None else None,
                     tools)

    gemmc, reason, used = None, None, []
    if args.gemmc_hsaco:
        meta_path = os.path.splitext(args.gemmc_hsaco)[0] + ".json"
        meta = None
        if os.path.exists(meta_path):
            import json
            meta = json.load(open(meta_path))
        hsaco = args.gemmc_hsaco
    else:
        ttir = args.ttir or stem + ".ttir"
        if not os.path.exists(args.gemmc_bin):
            hsaco, meta, reason = None, None, "no gemmc driver at %s (build it first)" % args.gemmc_bin
        else:
            used = options_from_name(ttir) + options_from_ttgir(os.path.splitext(ttir)[0] + ".ttgir") + args.gemmc_option
            hsaco, meta, reason = compile_with_gemmc(args.gemmc_bin, ttir, args.target, used)
    if hsaco:
        dynamic = meta.get("dynamic_shared_bytes") if meta else None
        gemmc = measure(hsaco, args.kernel, dynamic, "kernel.json" if dynamic is not None else None, tools)

    print("Triton: %s" % args.triton)
    print("gemmc:  %s" % (args.gemmc_hsaco or ("compiled from %s --target=%s %s" % (args.ttir or stem + ".ttir", args.target,
                                                                                     " ".join(used)))))
    width = max(len(r) for r in ROWS)
    print("%-*s  %16s  %16s  %12s" % (width, "", "Triton", "gemmc", "gemmc-Triton"))
    for row in ROWS:
        t = triton[row]
        g = gemmc[row] if gemmc else None
        diff = ""
        if isinstance(t, int) and isinstance(g, int):
            diff = "%+d" % (g - t)
        print("%-*s  %16s  %16s  %12s" % (width, row, show(t), show(g) if gemmc else "n/a", diff))
    print("LDS at launch: Triton's from the %s, gemmc's from %s" %
          (triton["_lds_from"] or "(unknown)", (gemmc or {}).get("_lds_from") or "(n/a)"))
    if not gemmc:
        print("gemmc's code object is not available yet: %s" % reason)
        return 1 if args.require_gemmc else 0

    checks = [
        ("MFMA count equals Triton's", gemmc["MFMA instructions"] == triton["MFMA instructions"]),
        ("VGPRs within 10% of Triton's", abs(gemmc["VGPRs"] - triton["VGPRs"]) <= 0.1 * triton["VGPRs"]),
        ("no scratch", gemmc["scratch bytes"] == 0),
        ("LDS no more than Triton's",
         None if gemmc["LDS bytes (static + launch)"] is None or triton["LDS bytes (static + launch)"] is None
         else gemmc["LDS bytes (static + launch)"] <= triton["LDS bytes (static + launch)"]),
    ]
    failed = False
    for what, ok in checks:
        print("%-5s %s" % ("PASS" if ok else "?" if ok is None else "FAIL", what))
        failed |= ok is False
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Checks gemmc against a folder of Triton's own IR dumps (scripts/triton-dump.py's triton-dumps/, or
shared/triton-3.6): every .ttir / .ttgir must parse and verify, print back as Triton printed it
(byte for byte once Triton's loc(...) trailers and #loc lines are taken out), and print to a fixed
point with locations. With --gemmc, also says how far `gemmc --emit=ptx` gets (informative only).

Usage: check_dumps.py --gemmc-opt PATH [--gemmc PATH] FOLDER
Prints one line per file (EXACT, DIFFERS, FAIL) and a summary; exits 1 when any file is not EXACT.
"""
import argparse
import difflib
import glob
import os
import re
import subprocess
import sys

LOC_LINE = re.compile(r"^#loc\d* = loc\(.*\)$")
LOC_TRAILER = re.compile(r' loc\((#loc\d*|"(?:[^"\\]|\\.)*"\(#loc\d*\))\)')


def strip_locs(text):
    """Triton's text without its locations: what gemmc-opt prints without --mlir-print-debuginfo."""
    lines = [LOC_TRAILER.sub("", line) for line in text.splitlines() if not LOC_LINE.match(line)]
    return "\n".join(lines) + "\n"


def run(cmd, stdin=None):
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def first_error(stderr):
    for line in stderr.splitlines():
        if "error" in line:
            return line.strip()
    return stderr.strip().splitlines()[0] if stderr.strip() else "failed"


def check(path, gemmc_opt, gemmc):
    name = os.path.basename(path)
    with open(path) as f:
        text = f.read()
    rc, out, err = run([gemmc_opt, path])
    if rc != 0:
        return False, f"FAIL {name}: {first_error(err)}"
    want = strip_locs(text)
    if out != want:
        diff = list(difflib.unified_diff(want.splitlines(), out.splitlines(), "triton", "gemmc", n=0, lineterm=""))
        first = next((d for d in diff[2:] if d.startswith(("-", "+"))), "?")
        return False, f"DIFFERS {name}: {sum(1 for d in diff[2:] if d.startswith('-'))} lines, first: {first[:300]}"
    rc, once, err = run([gemmc_opt, "--mlir-print-debuginfo", path])
    if rc != 0:
        return False, f"FAIL {name} (debuginfo): {first_error(err)}"
    rc, twice, err = run([gemmc_opt, "--mlir-print-debuginfo", "-"], stdin=once)
    if rc != 0 or once != twice:
        return False, f"DIFFERS {name}: printing with locations is not a fixed point"
    line = f"EXACT {name}"
    if gemmc:
        rc, _, err = run([gemmc, path, "-o", os.devnull, "--no-metadata", "--emit=ptx"])
        line += " (gemmc: PTX)" if rc == 0 else f" (gemmc: {first_error(err)})"
    return True, line


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--gemmc-opt", required=True)
    ap.add_argument("--gemmc")
    ap.add_argument("folder")
    args = ap.parse_args()
    files = sorted(glob.glob(os.path.join(args.folder, "**", "*.ttir"), recursive=True) +
                   glob.glob(os.path.join(args.folder, "**", "*.ttgir"), recursive=True))
    if not files:
        print(f"no .ttir or .ttgir under {args.folder}")
        return 1
    bad = 0
    for path in files:
        ok, line = check(path, args.gemmc_opt, args.gemmc)
        bad += not ok
        print(line)
    print(f"all {len(files)} files: exact" if not bad else f"{bad} of {len(files)} files not exact")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

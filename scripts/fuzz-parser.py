#!/usr/bin/env python3
"""Mutation fuzzing of gemmc-opt: every mutated input must give exit 0 or 1 and no crash.

Usage: fuzz-parser.py GEMMC_OPT SEED_FILE... [--count N] [--seed S]
Mutations: byte flips, deletions, duplications, truncations, token swaps, garbage bytes,
splices between seeds, and numbers replaced by other sizes (so that many mutants still verify
and reach the later stages when the program is `gemmc`). A run fails on a signal, a sanitizer report, an exit code other than 0
or 1, a time-out, or an error message that lacks `file:line:col: error:` / `error:`.
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

TOKENS = [b"%", b"#", b"!", b"@", b"^", b"{", b"}", b"(", b")", b"<", b">", b"[", b"]", b",", b":",
          b"=", b"->", b"x", b"tensor<", b"!tt.ptr<", b"dense<", b"loc(", b"#loc", b"\"", b"//",
          b"scf.for", b"tt.load", b"arith.addi", b"-", b"0x", b"1e999", b"99999999999999999999",
          b"\x00", b"\xff", b"\n", b"// -----\n"]


def mutate(rng, data, seeds):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if not data:
            data = bytearray(rng.choice(seeds))
        kind = rng.randrange(9)
        i = rng.randrange(len(data))
        if kind == 0:
            data[i] = rng.randrange(256)
        elif kind == 1:
            del data[i:i + rng.randint(1, 16)]
        elif kind == 2:
            j = rng.randrange(len(data))
            data[i:i] = data[j:j + rng.randint(1, 64)]
        elif kind == 3:
            data = data[:i]
        elif kind == 4:
            data[i:i] = rng.choice(TOKENS)
        elif kind == 5:
            data[i:i + rng.randint(1, 8)] = rng.choice(TOKENS)
        elif kind == 6:
            other = rng.choice(seeds)
            j = rng.randrange(len(other))
            data[i:] = other[j:]
        elif kind == 7:
            data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        else:
            numbers = [m for m in re.finditer(rb"(?<![%#\w])\d+", bytes(data))]
            if numbers:
                m = rng.choice(numbers)
                size = rng.choice([0, 1, 2, 3, 4, 8, 16, 32, 64, 128, 256, 7, 1 << 20])
                data[m.start():m.end()] = str(size).encode()
    return bytes(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gemmc_opt")
    ap.add_argument("seeds", nargs="+")
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=10)
    args = ap.parse_args()
    seeds = [open(p, "rb").read() for p in args.seeds]
    rng = random.Random(args.seed)
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=0",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    failures = 0
    outcomes = {0: 0, 1: 0}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "fuzz.tir")
        for n in range(args.count):
            data = mutate(rng, rng.choice(seeds), seeds)
            with open(path, "wb") as f:
                f.write(data)
            try:
                r = subprocess.run([args.gemmc_opt, path, "-o", os.path.join(tmp, "out.tir")], capture_output=True, env=env,
                                   timeout=args.timeout)
                err = r.stderr.decode("utf-8", "replace")
                bad = r.returncode not in (0, 1) or "Sanitizer" in err or "runtime error" in err
                if r.returncode == 1 and "error:" not in err:
                    bad = True
            except subprocess.TimeoutExpired:
                bad, err, r = True, "timeout", None
            if bad:
                failures += 1
                keep = "fuzz-failure-%d.tir" % n
                with open(keep, "wb") as f:
                    f.write(data)
                print("FAIL #%d (exit %s), input kept in %s:\n%s" % (n, r and r.returncode, keep, err[-2000:]))
                if failures >= 5:
                    break
            else:
                outcomes[r.returncode] += 1
    print("fuzz: %d inputs, %d accepted, %d rejected cleanly, %d failures" %
          (args.count, outcomes[0], outcomes[1], failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Writes fuzz/corpus/: the seed inputs of every fuzz target, from the repository's own tests and
examples (run from the repository root after a build):

    python3 fuzz/make-corpus.py [build-dir]

- every `// -----` chunk of the lit tests' .tir inputs (RUN/CHECK comments stripped);
- the examples as TTIR with their `gemmc-define` defaults substituted, and as the TTGIR gemmc
  makes of them (through the whole pass pipeline), so that mutants reach lowering and PTX; the
  matmul example also at 128x256 on 8 warps (the warp-specialized kernel, clusters too);
- small scale inputs from test/lower/Inputs/many_values.py (many iter_args, big loop, else and
  reduce bodies: the shapes that found the lowering's use-after-free).
Seeds over 64 KiB are left out; names are content hashes, so reruns change only what changed.
"""
import hashlib
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "fuzz", "corpus")
MAX_SEED = 64 * 1024


def add(seeds, text):
    data = text.encode() if isinstance(text, str) else text
    if 0 < len(data) <= MAX_SEED:
        seeds[hashlib.sha1(data).hexdigest()[:16]] = data


def strip_test_comments(chunk):
    lines = [l for l in chunk.split("\n")
             if not re.match(r"\s*//\s*([A-Z0-9_-]+:|RUN|REQUIRES|expected-)", l)]
    return "\n".join(lines).strip() + "\n"


def expand_defaults(text, overrides=None):
    defaults = {}
    for m in re.finditer(r"gemmc-define:(.*)", text):
        for entry in re.split(r"[ ,\t]+", m.group(1).strip()):
            if "=" in entry:
                k, v = entry.split("=", 1)
                defaults[k] = v
    defaults.update(overrides or {})
    return re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", lambda m: defaults.get(m.group(1), m.group(0)), text)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    gemmc = os.path.join(build, "gemmc")
    seeds = {}
    for d, _, files in os.walk(os.path.join(ROOT, "test")):
        for f in sorted(files):
            if f.endswith(".tir"):
                for chunk in open(os.path.join(d, f), errors="replace").read().split("// -----"):
                    add(seeds, strip_test_comments(chunk))
    examples = os.path.join(ROOT, "examples")
    for f in sorted(os.listdir(examples)):
        if not f.endswith(".tir"):
            continue
        path = os.path.join(examples, f)
        add(seeds, expand_defaults(open(path).read()))
        if f == "matmul.tir":
            # The tutorial at 128x256 on 8 warps: the cooperative warp-specialized kernel (fuzz_passes
            # and fuzz_codegen build odd-sized inputs in 2-block clusters).
            add(seeds, "// fuzz: num-warps=8\n" + expand_defaults(open(path).read(), {"BLOCK_N": "256"}))
        if os.path.exists(gemmc):
            r = subprocess.run([gemmc, path, "--emit=ttgir", "-o", "-"], capture_output=True)
            if r.returncode == 0:
                add(seeds, r.stdout)
    gen = os.path.join(ROOT, "test", "lower", "Inputs", "many_values.py")
    for kind, n in (("iter-args", 120), ("if-else", 300), ("reduce", 300)):
        r = subprocess.run([sys.executable, gen, kind, str(n)], capture_output=True)
        if r.returncode == 0:
            add(seeds, r.stdout)
    os.makedirs(OUT, exist_ok=True)
    for old in os.listdir(OUT):
        if old not in seeds:
            os.remove(os.path.join(OUT, old))
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    total = sum(len(d) for d in seeds.values())
    print("fuzz/corpus: %d seeds, %d KiB" % (len(seeds), total // 1024))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Big inputs for gemmc-opt's scale tests (split-input-file.tir, verify-diagnostics-scale.tir).

  scale.py chunks N       N '// -----' chunks, each a small module with one expected error
  scale.py directives N   one module with N ops, each with its own expected-error directive
  scale.py nest N         N scf.for loops nested in each other, a pointer carried through all
  scale.py long-name N    a kernel whose name is N bytes long
  scale.py converts N     N layout conversions in a chain (TTGIR, 4 warps, 4 elements per thread)
  scale.py allocs N       N shared-memory buffers all alive at once
  scale.py types N        N distinct tensor types with layouts (the verifier's tables grow)
  scale.py args N         a kernel with a pointer and N i32 parameters
  scale.py squares N      N chained x * x over tensor<1024xi32> (8 elements per thread)
  scale.py stores N       N stores of one tensor<1024xi32> (ops with no result still cost)
  scale.py loads N        N loads of one tensor<128x!tt.ptr<i32>>, results unused
  scale.py scratch N      N ttg.global_scratch_alloc ops of 0 bytes (TTGIR)
"""
import sys


def chunks(n):
    out = []
    for i in range(n):
        out.append("tt.func @f%d() {\n"
                   "  // expected-error@+1 {{unknown operation 'tt.bad%d'}}\n"
                   "  %%0 = tt.bad%d : i32\n"
                   "  tt.return\n"
                   "}\n" % (i, i, i))
    return "// -----\n".join(out)


def directives(n):
    lines = ["tt.func @f(%a: tensor<4xi32>, %b: tensor<8xi32>) {"]
    for i in range(n):
        lines.append("  // expected-error@+1 {{'arith.addi' op requires all operands and results to have the same shape}}")
        lines.append('  %%v%d = "arith.addi"(%%a, %%b) : (tensor<4xi32>, tensor<8xi32>) -> tensor<4xi32>' % i)
    lines.append("  tt.return")
    lines.append("}")
    return "\n".join(lines) + "\n"


def nest(n):
    out = ["module {", "  tt.func public @k(%p: !tt.ptr<i32>, %n: i32) {",
           "    %c0 = arith.constant 0 : i32", "    %c1 = arith.constant 1 : i32"]
    prev = "%p"
    for d in range(n):
        out.append("    %%r%d = scf.for %%i%d = %%c0 to %%n step %%c1 iter_args(%%q%d = %s) -> (!tt.ptr<i32>) : i32 {"
                   % (d, d, d, prev))
        prev = "%%q%d" % d
    out.append("    %x = tt.addptr " + prev + ", %c1 : !tt.ptr<i32>, i32")
    out.append("    tt.store %x, %c1 : !tt.ptr<i32>")
    y = "%x"
    for d in reversed(range(n)):
        out.append("    scf.yield %s : !tt.ptr<i32>" % y)
        out.append("    }")
        y = "%%r%d" % d
    out += ["    tt.return", "  }", "}"]
    return "\n".join(out) + "\n"


def long_name(n):
    return "module {\n  tt.func public @%s() {\n    tt.return\n  }\n}\n" % ("k" * n)


def converts(n):
    out = ['#a = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>',
           '#b = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>',
           'module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {',
           '  tt.func public @k(%p: !tt.ptr<i32>) {',
           '    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #a>']
    prev = "%r"
    for i in range(n):
        src, dst = ("#a", "#b") if i % 2 == 0 else ("#b", "#a")
        out.append("    %%c%d = ttg.convert_layout %s : tensor<512xi32, %s> -> tensor<512xi32, %s>" % (i, prev, src, dst))
        prev = "%%c%d" % i
    last = "#a" if n % 2 == 0 else "#b"
    out += ["    %%ps = tt.splat %%p : !tt.ptr<i32> -> tensor<512x!tt.ptr<i32>, %s>" % last,
            "    %%pp = tt.addptr %%ps, %s : tensor<512x!tt.ptr<i32>, %s>, tensor<512xi32, %s>" % (prev, last, last),
            "    tt.store %%pp, %s : tensor<512x!tt.ptr<i32>, %s>" % (prev, last), "    tt.return", "  }", "}"]
    return "\n".join(out) + "\n"


def allocs(n):
    out = ['#s = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>',
           '#smem = #ttg.shared_memory',
           'module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {',
           '  tt.func public @k() {']
    out += ['    %%m%d = ttg.local_alloc : () -> !ttg.memdesc<4xi32, #s, #smem, mutable>' % i for i in range(n)]
    out += ['    ttg.local_dealloc %%m%d : !ttg.memdesc<4xi32, #s, #smem, mutable>' % i for i in range(n)]
    out += ['    tt.return', '  }', '}']
    return "\n".join(out) + "\n"


def scratch(n):
    out = ['module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", '
           '"ttg.threads-per-warp" = 32 : i32} {',
           '  tt.func public @k() {']
    out += ['    %%s%d = ttg.global_scratch_alloc {alignment = 1 : i32, nbytes = 0 : i32} : !tt.ptr<i8>' % i
            for i in range(n)]
    out += ['    tt.return', '  }', '}']
    return "\n".join(out) + "\n"


def types(n):
    """Each value a distinct type with a distinct layout (2-D blocked, parameters varied)."""
    out = ['module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {',
           '  tt.func public @k() {']
    combos = [(a, b, t) for a in (1, 2, 4, 8) for b in (1, 2, 4, 8) for t in (1, 2, 4, 8, 16, 32)]
    # One type without a layout first: the table then grows while a layout is being entered
    # (types and layouts alternate), the moment that used to leave a stale pointer.
    out.append("    %plain = arith.constant dense<0> : tensor<4xi32>")
    for i in range(n):
        a, b, t = combos[i % len(combos)]
        enc = ("#ttg.blocked<{sizePerThread = [%d, %d], threadsPerWarp = [%d, %d], warpsPerCTA = [4, 1], "
               "order = [1, 0]}>" % (a, b, t, 32 // t))
        out.append("    %%c%d = arith.constant dense<0> : tensor<64x64xi32, %s>" % (i, enc))
    out += ['    tt.return', '  }', '}']
    return "\n".join(out) + "\n"


def args(n):
    params = ", ".join("%%a%d: i32" % i for i in range(n))
    return ("module {\n  tt.func public @k(%%p: !tt.ptr<i32>, %s) {\n    tt.store %%p, %%a0 : !tt.ptr<i32>\n"
            "    tt.return\n  }\n}\n" % params)


def squares(n):
    out = ["module {", "  tt.func public @k(%p: !tt.ptr<i32> {tt.divisibility = 16 : i32}) {",
           "    %v0 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>"]
    out += ["    %%v%d = arith.muli %%v%d, %%v%d : tensor<1024xi32>" % (i, i - 1, i - 1) for i in range(1, n)]
    out += ["    %ps = tt.splat %p : !tt.ptr<i32> -> tensor<1024x!tt.ptr<i32>>",
            "    %pp = tt.addptr %ps, %v0 : tensor<1024x!tt.ptr<i32>>, tensor<1024xi32>",
            "    tt.store %%pp, %%v%d : tensor<1024x!tt.ptr<i32>>" % (n - 1), "    tt.return", "  }", "}"]
    return "\n".join(out) + "\n"


def stores(n):
    out = ["module {", "  tt.func public @k(%p: !tt.ptr<i32> {tt.divisibility = 16 : i32}) {",
           "    %v = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>",
           "    %ps = tt.splat %p : !tt.ptr<i32> -> tensor<1024x!tt.ptr<i32>>",
           "    %pp = tt.addptr %ps, %v : tensor<1024x!tt.ptr<i32>>, tensor<1024xi32>"]
    out += ["    tt.store %pp, %v : tensor<1024x!tt.ptr<i32>>"] * n
    out += ["    tt.return", "  }", "}"]
    return "\n".join(out) + "\n"


def loads(n):
    out = ["module {", "  tt.func public @k(%p: !tt.ptr<i32> {tt.divisibility = 16 : i32}) {",
           "    %v = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>",
           "    %ps = tt.splat %p : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>>",
           "    %pp = tt.addptr %ps, %v : tensor<128x!tt.ptr<i32>>, tensor<128xi32>"]
    out += ["    %%l%d = tt.load %%pp : tensor<128x!tt.ptr<i32>>" % i for i in range(n)]
    out += ["    tt.return", "  }", "}"]
    return "\n".join(out) + "\n"


def main():
    kind, n = sys.argv[1], int(sys.argv[2])
    sys.stdout.write({"chunks": chunks, "directives": directives, "nest": nest, "long-name": long_name,
                      "converts": converts, "allocs": allocs, "types": types, "args": args, "squares": squares, "stores": stores, "loads": loads,
                      "scratch": scratch}[kind](n))


if __name__ == "__main__":
    main()

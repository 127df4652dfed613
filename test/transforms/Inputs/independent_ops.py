#!/usr/bin/env python3
"""A kernel with N independent ops (issue 13: remove-layout-conversions must be linear in them).

  independent_ops.py N [scalar|tensor]

scalar: N arith.addi of two arguments (the issue's case: results unused);
tensor: N tensor<256xi32> adds of one range, each stored through its own pointer offset.
"""
import sys


def main():
    n = int(sys.argv[1])
    kind = sys.argv[2] if len(sys.argv) > 2 else "scalar"
    out = ["module {", "  tt.func public @independent(%p: !tt.ptr<i32>, %a: i32, %b: i32) {"]
    if kind == "scalar":
        for i in range(n):
            out.append("    %%v%d = arith.addi %%a, %%b : i32" % i)
    else:
        out.append("    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>")
        out.append("    %ps = tt.splat %p : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>>")
        out.append("    %pp = tt.addptr %ps, %r : tensor<256x!tt.ptr<i32>>, tensor<256xi32>")
        for i in range(n):
            out.append("    %%s%d = tt.splat %%a : i32 -> tensor<256xi32>" % i)
            out.append("    %%v%d = arith.addi %%r, %%s%d : tensor<256xi32>" % (i, i))
            out.append("    tt.store %%pp, %%v%d : tensor<256x!tt.ptr<i32>>" % i)
    out += ["    tt.return", "  }", "}"]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Big inputs for gemmc-opt's scale tests (split-input-file.tir, verify-diagnostics-scale.tir).

  scale.py chunks N       N '// -----' chunks, each a small module with one expected error
  scale.py directives N   one module with N ops, each with its own expected-error directive
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


def main():
    kind, n = sys.argv[1], int(sys.argv[2])
    sys.stdout.write({"chunks": chunks, "directives": directives}[kind](n))


if __name__ == "__main__":
    main()

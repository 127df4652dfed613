#!/usr/bin/env python3
"""Writes valid TTGIR kernels that make the lowering's value map grow while pointers into it are held.

many_values.py matmul IN.ttgir N   copies a matmul TTGIR with N unused constants inserted at the top of its K loop
many_values.py iter-args N         an scf.for carrying N i32 iter_args (each incremented), results stored
many_values.py while-args N        an scf.while carrying N i32 values (each incremented), one result stored
many_values.py if-else N           an scf.if whose else region defines N values before yielding
many_values.py reduce N            a tt.reduce whose combine region holds N ops
Output goes to standard output."""
import sys

HEAD = ('module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", '
        '"ttg.threads-per-warp" = 32 : i32} {')
BLOCKED = ('#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], '
           'order = [0]}>')


def matmul(path, n):
    out = []
    for line in open(path):
        out.append(line.rstrip('\n'))
        if 'scf.for' in line:
            out += ['      %%extra%d = arith.constant %d : i32' % (i, i) for i in range(n)]
    print('\n'.join(out))


def iter_args(n):
    print(HEAD)
    print('  tt.func public @iter_args(%out: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %trips: i32) {')
    print('    %c0 = arith.constant 0 : i32')
    print('    %c1 = arith.constant 1 : i32')
    inits = ', '.join('%%a%d = %%c0' % i for i in range(n))
    types = ', '.join(['i32'] * n)
    print('    %%r:%d = scf.for %%i = %%c0 to %%trips step %%c1 iter_args(%s) -> (%s) : i32 {' % (n, inits, types))
    for i in range(n):
        print('      %%b%d = arith.addi %%a%d, %%c1 : i32' % (i, i))
    print('      scf.yield %s : %s' % (', '.join('%%b%d' % i for i in range(n)), types))
    print('    }')
    print('    %%s0 = arith.addi %%r#0, %%r#%d : i32' % (n - 1))
    print('    tt.store %out, %s0 : !tt.ptr<i32>')
    print('    tt.return')
    print('  }')
    print('}')


def while_args(n):
    print(HEAD)
    print('  tt.func public @while_args(%out: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %trips: i32) {')
    print('    %c0 = arith.constant 0 : i32')
    print('    %c1 = arith.constant 1 : i32')
    inits = ', '.join('%%a%d = %%c0' % i for i in range(n))
    types = ', '.join(['i32'] * n)
    print('    %%r:%d = scf.while (%s) : (%s) -> (%s) {' % (n, inits, types, types))
    print('      %lt = arith.cmpi slt, %a0, %trips : i32')
    print('      scf.condition(%%lt) %s : %s' % (', '.join('%%a%d' % i for i in range(n)), types))
    print('    } do {')
    print('    ^bb0(%s):' % ', '.join('%%b%d: i32' % i for i in range(n)))
    for i in range(n):
        print('      %%n%d = arith.addi %%b%d, %%c1 : i32' % (i, i))
    print('      scf.yield %s : %s' % (', '.join('%%n%d' % i for i in range(n)), types))
    print('    }')
    print('    tt.store %%out, %%r#%d : !tt.ptr<i32>' % (n - 1))
    print('    tt.return')
    print('  }')
    print('}')


def if_else(n):
    print(HEAD)
    print('  tt.func public @if_else(%out: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %x: i32) {')
    print('    %c0 = arith.constant 0 : i32')
    print('    %c1 = arith.constant 1 : i32')
    print('    %cond = arith.cmpi sgt, %x, %c0 : i32')
    print('    %y = scf.if %cond -> (i32) {')
    print('      %t = arith.addi %x, %c1 : i32')
    print('      scf.yield %t : i32')
    print('    } else {')
    print('      %e0 = arith.subi %x, %c1 : i32')
    for i in range(1, n):
        print('      %%e%d = arith.addi %%e%d, %%c1 : i32' % (i, i - 1))
    print('      scf.yield %%e%d : i32' % (n - 1))
    print('    }')
    print('    tt.store %out, %y : !tt.ptr<i32>')
    print('    tt.return')
    print('  }')
    print('}')


def reduce(n):
    print(BLOCKED)
    print(HEAD)
    print('  tt.func public @reduce(%in: !tt.ptr<i32> {tt.divisibility = 16 : i32}, '
          '%out: !tt.ptr<i32> {tt.divisibility = 16 : i32}) {')
    print('    %c1 = arith.constant 1 : i32')
    print('    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>')
    print('    %ps = tt.splat %in : !tt.ptr<i32> -> tensor<512x!tt.ptr<i32>, #blocked>')
    print('    %p = tt.addptr %ps, %r : tensor<512x!tt.ptr<i32>, #blocked>, tensor<512xi32, #blocked>')
    print('    %v = tt.load %p : tensor<512x!tt.ptr<i32>, #blocked>')
    print('    %s = "tt.reduce"(%v) <{axis = 0 : i32}> ({')
    print('    ^bb0(%a: i32, %b: i32):')
    print('      %x0 = arith.addi %a, %b : i32')
    for i in range(1, n):
        print('      %%x%d = arith.xori %%x%d, %%c1 : i32' % (i, i - 1))
    print('      tt.reduce.return %%x%d : i32' % (n - 1))
    print('    }) : (tensor<512xi32, #blocked>) -> i32')
    print('    tt.store %out, %s : !tt.ptr<i32>')
    print('    tt.return')
    print('  }')
    print('}')


def main():
    kind = sys.argv[1]
    if kind == 'matmul':
        matmul(sys.argv[2], int(sys.argv[3]))
    elif kind == 'iter-args':
        iter_args(int(sys.argv[2]))
    elif kind == 'while-args':
        while_args(int(sys.argv[2]))
    elif kind == 'if-else':
        if_else(int(sys.argv[2]))
    elif kind == 'reduce':
        reduce(int(sys.argv[2]))
    else:
        sys.exit('unknown kind ' + kind)


main()

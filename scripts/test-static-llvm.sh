#!/usr/bin/env bash
# CI test of the static-LLVM build (-DGEMMC_STATIC_LLVM=ON: the GPU bundle's, releases'): the
# gemmc program is position-dependent with LLVM linked in, libgemmc.so exports C symbols only,
# and both compile what the default build compiles, byte for byte.
# Usage: scripts/test-static-llvm.sh BUILD_DIR [DEFAULT_BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$1
default_build=$(cd "${2:-$root/build}" && pwd)
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DGEMMC_STATIC_LLVM=ON -DGEMMC_WERROR=ON >/dev/null
cmake --build "$build" --target gemmc-bin gemmc_shared test_compile_api >/dev/null
build=$(cd "$build" && pwd)
fail() { echo "test-static-llvm: $*" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/gemmc" --version >/dev/null || fail "gemmc --version failed"
readelf -h "$build/gemmc" > "$tmp/header.txt"
grep -q 'Type: *EXEC' "$tmp/header.txt" || fail "gemmc is not a position-dependent executable"
readelf -d "$build/gemmc" > "$tmp/dynamic.txt"
if grep -q 'libgemmc' "$tmp/dynamic.txt"; then fail "gemmc links libgemmc.so instead of LLVM itself"; fi
nm -D --defined-only "$build/libgemmc.so" | awk '{print $3}' > "$tmp/exports.txt"
cxx=$(grep -c '^_Z' "$tmp/exports.txt" || true)
[[ $cxx -eq 0 ]] || fail "libgemmc.so exports $cxx C++ symbols"
for sym in gemmc_compile gemmc_matmul LLVMContextCreate; do
  grep -qx "$sym" "$tmp/exports.txt" || fail "libgemmc.so does not export $sym"
done
for kernel in "$root/examples/matmul.tir" "$root/examples/softmax.tir" "$root/bench/inputs/matmul_128x128x64_s3_w4.ttir"; do
  name=$(basename "$kernel")
  "$build/gemmc" "$kernel" -o "$tmp/static-$name.ptx" --no-metadata || fail "$name: the static gemmc failed"
  "$default_build/gemmc" "$kernel" -o "$tmp/default-$name.ptx" --no-metadata || fail "$name: the default gemmc failed"
  cmp -s "$tmp/static-$name.ptx" "$tmp/default-$name.ptx" || fail "$name: the two builds' PTX differ"
done
"$build/test_compile_api" >/dev/null || fail "test_compile_api against the static libgemmc.so failed"
echo "test-static-llvm: position-dependent gemmc, C-only exports, same PTX as the default build (3 kernels), test_compile_api passes"

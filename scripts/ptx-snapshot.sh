#!/usr/bin/env bash
# Writes the PTX, kernel.json and diagnostics gemmc makes of every example and test kernel into a
# folder, so that a refactor can be checked to change no output: snapshot before, snapshot after, diff.
#
#   scripts/ptx-snapshot.sh BUILD_DIR OUT_DIR          record
#   scripts/ptx-snapshot.sh --compare DIR_A DIR_B      diff two records (exit 1 when they differ)
#
# Covered: every examples/*.tir at its defaults and at the configs below, for sm_90a and sm_80;
# every test/**/*.tir (whole file through gemmc, and chunk by chunk through gemmc-opt
# --split-input-file --print-llvm=emit=ptx where the file has chunks), stdout and stderr both;
# and the TTGIR the pass pipeline makes of every test file, locations included (gemmc-opt
# --pipeline=compile,target=sm_90a --mlir-print-debuginfo), so pass refactors are covered too.
set -uo pipefail

if [[ ${1:-} == --compare ]]; then
  a=$2 b=$3
  if diff -r -q "$a" "$b" >/dev/null; then
    echo "ptx-snapshot: identical ($(find "$a" -type f | wc -l) files)"
    exit 0
  fi
  diff -r -q "$a" "$b"
  echo "ptx-snapshot: DIFFERENT (diff -r $a $b)"
  exit 1
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:?usage: ptx-snapshot.sh BUILD_DIR OUT_DIR}" && pwd)
out=${2:?usage: ptx-snapshot.sh BUILD_DIR OUT_DIR}
rm -rf "$out"
mkdir -p "$out"
gemmc=$build/gemmc
opt=$build/gemmc-opt

# One compile: NAME, then gemmc's arguments. PTX to NAME.ptx, kernel.json to NAME.json,
# diagnostics to NAME.err.
compile() {
  local name=$1
  shift
  "$gemmc" "$@" --metadata="$out/$name.json" -o "$out/$name.ptx" >"$out/$name.out" 2>"$out/$name.err"
  echo "exit $?" >>"$out/$name.err"
  # Paths in diagnostics differ between checkouts; keep the file name only.
  sed -i "s|$root/||g" "$out/$name.err"
}

configs=(
  ""
  "-D DT=bf16"
  "-D DT=f32 -D OUT=f32 -D CVT=arith.bitcast"
  "-D DT=f32 -D OUT=f32 -D CVT=arith.bitcast -D PRECISION=ieee"
  "-D DT=i8 -D ACC=i32 -D OUT=i32 -D CVT=arith.bitcast -D ZERO=0"
  "-D ACC=f16 -D CVT=arith.bitcast -D BLOCK_K=32"
  "-D BLOCK_M=64 -D BLOCK_N=64 -D BLOCK_K=32"
  "-D BLOCK_M=128 -D BLOCK_N=256 -D BLOCK_K=64 --num-warps=8"
  "--num-stages=1"
  "--num-stages=4"
  "-D STRIDE_BK=%c1_i32 -D STRIDE_BN=%stride_bn"
  "-D BLOCK_K=32 --num-stages=4"
  "--cluster=2"
  "-D BLOCK_N=256 --num-warps=8 --cluster=2"
)
cd "$root" || exit 1
for tir in examples/*.tir; do
  base=$(basename "$tir" .tir)
  for target in sm_90a sm_80; do
    i=0
    for cfg in "${configs[@]}"; do
      # shellcheck disable=SC2086
      compile "ex-$base-$target-$i" "$tir" --target=$target $cfg
      i=$((i + 1))
      [[ $base == matmul* || $base == batched* ]] || break
    done
  done
done
while IFS= read -r tir; do
  name=$(echo "${tir#test/}" | tr '/' '_')
  name=${name%.tir}
  compile "t-$name" "$tir"
  "$opt" "$tir" --split-input-file --pipeline=compile,target=sm_90a --mlir-print-debuginfo >"$out/t-$name.ttgir" 2>&1
  echo "exit $?" >>"$out/t-$name.ttgir"
  sed -i "s|$root/||g" "$out/t-$name.ttgir"
  if grep -q -- '^// -----' "$tir"; then
    "$opt" "$tir" --split-input-file --print-llvm=emit=ptx >"$out/t-$name.split.out" 2>&1
    echo "exit $?" >>"$out/t-$name.split.out"
    sed -i "s|$root/||g" "$out/t-$name.split.out"
  fi
done < <(find test -name '*.tir' -not -path '*/Inputs/*' | sort)
echo "ptx-snapshot: $(find "$out" -name '*.ptx' -size +0 | wc -l) PTX files in $out"

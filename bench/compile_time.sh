#!/usr/bin/env bash
# Compile-time benchmark: median wall time (ms) of 10 `gemmc` runs per example kernel (not a test).
# Usage: bench/compile_time.sh [path/to/gemmc] [runs]   (default: build/gemmc, 10 runs)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
gemmc="${1:-$root/build/gemmc}"
runs="${2:-10}"
if [[ ! -x "$gemmc" ]]; then
  echo "compile_time.sh: no gemmc at '$gemmc' (give its path as the first argument)" >&2
  exit 1
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# name | input | extra flags
cases=(
  "vector_add|examples/vector_add.tir|"
  "transpose|examples/transpose.tir|"
  "softmax|examples/softmax.tir|"
  "matmul 128x128x64|examples/matmul.tir|"
  "matmul 128x128x32|examples/matmul.tir|-D BLOCK_M=128 -D BLOCK_N=128 -D BLOCK_K=32"
  "matmul_leaky_relu|examples/matmul_leaky_relu.tir|"
  "batched_matmul|examples/batched_matmul.tir|"
)

# Milliseconds since the epoch, from date's nanoseconds (bash has no float clock).
now_ms() { local ns; ns=$(date +%s%N); echo $((ns / 1000)); }

printf '%-22s %10s %10s %10s\n' kernel "median ms" "min ms" "max ms"
for c in "${cases[@]}"; do
  IFS='|' read -r name input flags <<<"$c"
  times=()
  for ((i = 0; i < runs; i++)); do
    t0=$(now_ms)
    # shellcheck disable=SC2086
    "$gemmc" "$root/$input" $flags -o "$out/k.ptx" --no-metadata
    t1=$(now_ms)
    times+=($((t1 - t0)))
  done
  sorted=($(printf '%s\n' "${times[@]}" | sort -n))
  n=${#sorted[@]}
  if ((n % 2)); then med_us=${sorted[n / 2]}; else med_us=$(((sorted[n / 2 - 1] + sorted[n / 2]) / 2)); fi
  printf '%-22s %10.1f %10.1f %10.1f\n' "$name" \
    "$(awk -v v="$med_us" 'BEGIN{print v/1000}')" \
    "$(awk -v v="${sorted[0]}" 'BEGIN{print v/1000}')" \
    "$(awk -v v="${sorted[n - 1]}" 'BEGIN{print v/1000}')"
done

#!/usr/bin/env bash
# Compile times of the Triton tutorial matmul TTIR (bench/inputs/, Triton 3.6's own dump): gemmc to PTX
# and to a cubin (`gemmc --time`, median of N runs), Triton to a cubin in the same run (and both gemmc
# compiles again, interleaved with Triton's rounds: per-round ratios), and the
# seed's 8-config sweep compiled and JIT-compiled in parallel (gemmc-tune). On the GPU machine.
# Usage: bench/compile_vs_triton.sh [bin-dir] [runs]   (bin-dir: where gemmc and gemmc-tune are)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$root/build}"
runs="${2:-10}"
ttir="$root/bench/inputs/matmul_128x128x64_s3_w4.ttir"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2 ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2)}'; }
for emit in ptx cubin; do
  : > "$out/total.txt"
  : > "$out/phases.txt"
  for ((i = 0; i < runs; i++)); do
    t0=$(date +%s%N)
    "$bin/gemmc" "$ttir" --emit=$emit -o "$out/k.$emit" --no-metadata --time 2> "$out/time.txt"
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000)) >> "$out/total.txt"
    grep 'total (gemmc_compile)' "$out/time.txt" | awk '{print $NF}' >> "$out/phases.txt"
  done
  printf 'gemmc %s -> %s: process %.1f ms, gemmc_compile %.1f ms (median of %d)\n' "$(basename "$ttir")" "$emit" \
    "$(median < "$out/total.txt" | awk '{print $1/1000}')" "$(median < "$out/phases.txt")" "$runs"
done
echo "gemmc --time of the last cubin run:"
sed 's/^/  /' "$out/time.txt"
# A Python that has Triton: $PYTHON, python3, or a virtual environment's.
py=${PYTHON:-python3}
if ! "$py" -c 'import triton' 2>/dev/null; then
  for candidate in /opt/torch/.venv/bin/python /opt/*/.venv/bin/python /opt/*/venv/bin/python; do
    if [[ -x "$candidate" ]] && "$candidate" -c 'import triton' 2>/dev/null; then py=$candidate; break; fi
  done
fi
# Triton, then the same two gemmc compiles again interleaved with its rounds: the per-round ratios
# stay fair when the machine changes speed between the runs above and Triton's. Each command is one
# string that the script splits as a shell would (shlex): printf %q quotes paths with spaces.
"$py" "$root/bench/triton_compile_time.py" "$ttir" "$runs" \
  --gemmc "$(printf '%q ' "$bin/gemmc" "$ttir" --emit=ptx -o "$out/i.ptx" --no-metadata)" \
  --gemmc "$(printf '%q ' "$bin/gemmc" "$ttir" --emit=cubin -o "$out/i.cubin" --no-metadata)"
# The seed's 8 configs: compiled and JIT-compiled in parallel, no cache (gemmc-tune --no-cache).
"$bin/gemmc-tune" "$root/examples/matmul.tir" --seed-configs --no-cache --samples 3 2>&1 | tail -12

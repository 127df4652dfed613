#!/usr/bin/env bash
# The main job: builds gemmc, compiles every examples/*.tir, and runs the example programs
# when a GPU driver is present.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1
build=${GEMMC_BUILD_DIR:-"$root/build"}
out="$build/examples-out"

bash scripts/build.sh "$build" || { echo "run-examples: build failed" >&2; exit 1; }
mkdir -p "$out"

compiled=0 failed=0
for tir in examples/*.tir; do
  [[ -e "$tir" ]] || continue
  name=$(basename "$tir" .tir)
  if [[ -x "$build/gemmc" ]]; then
    # The driver runs the whole pipeline down to PTX and writes kernel.json beside it.
    step="gemmc --emit=ptx"
    cmd=("$build/gemmc" "$tir" --emit=ptx -o "$out/$name.ptx")
  else
    # Until the driver lands: the front end (parse, verify, print) is what can be checked.
    step="gemmc-opt (parse, verify, print)"
    cmd=("$build/gemmc-opt" "$tir" -o "$out/$name.tir")
  fi
  if "${cmd[@]}"; then
    echo "compiled  $tir  [$step] -> ${out#"$root"/}"
    compiled=$((compiled + 1))
  else
    echo "FAILED    $tir  [$step]"
    failed=$((failed + 1))
  fi
done
echo "run-examples: $compiled compiled, $failed failed"
[[ $failed -eq 0 ]] || exit 1

# Example programs (examples/*.c, built as example-NAME) need the CUDA driver to run.
if ! python3 -c 'import ctypes; ctypes.CDLL("libcuda.so.1")' 2>/dev/null; then
  echo "run-examples: no GPU driver here (libcuda.so.1 not loadable): stopping after the compile step"
  exit 0
fi
programs=("$build"/example-*)
if [[ ! -x "${programs[0]}" ]]; then
  echo "run-examples: GPU driver present, but no example programs are built yet"
  exit 0
fi
# Each program compiles its examples/NAME.tir with libgemmc, runs it on random data of ragged
# sizes with the output poisoned first, and checks it against a CPU reference.
export GEMMC_EXAMPLES_DIR="$root/examples"
ran=0 bad=0
for prog in "${programs[@]}"; do
  [[ -x "$prog" ]] || continue
  echo "==== $(basename "$prog")"
  if "$prog"; then ran=$((ran + 1)); else echo "FAILED $(basename "$prog")"; bad=$((bad + 1)); fi
done
echo "run-examples: $ran programs passed, $bad failed"
[[ $bad -eq 0 ]]

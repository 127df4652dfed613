#!/usr/bin/env bash
# On the GPU machine, from the repo root: runs the GPU checks and benchmarks from the carried
# bundle (scripts/build-device.sh) and writes one log per step into ${OUT:-/tmp/gemmc-out}.
# Usage: bash scripts/device-gpu-run.sh [quick|full|bench-only|triton|triton-quick|triton-sweep|product|pdl|sanitize[-TOOL]]
#   pdl: programmatic dependent launch (docs/perf-notes.md, 76): the GEMM suite's chain cases plain
#           and programmatic, the same programmatic chain under compute-sanitizer memcheck and
#           synccheck, then Triton's harness with the g+pdl column on the tutorial's f16 and bf16
#           128x128x64 rows and the seed's batched rows.
#   triton-sweep: test/gpu/triton_ttir_sweep.py (Triton's TTIR and TTGIR at every tutorial autotune
#           config, the seed's batched kernel, tutorial 09's kernels and the tutorial's kernel with
#           other layouts, dtypes and epilogues, through libgemmc on ragged shapes, against torch;
#           test/gpu/triton_other_kernels.py: layer norm, attention, x @ W.T with tl.trans;
#           test/gpu/triton_debug_ops.py: tl.device_print, tl.device_assert;
#           test/gpu/triton_language_sweep.py: small kernels over the language against Triton's output).
#   triton: Triton 3.6's IR of the kernels gemmc must match (triton-dumps.tar.gz) and gemmc beside
#           Triton and cuBLAS in one process (triton_compare.csv/.txt); triton-quick: 3 rows only.
#   product: gemmc_matmul (issue 12): the correctness suite and a 1000-case random sweep, warm-call
#   overhead beside cuLaunchKernel, the cold first call, 8 processes on one fresh kernel cache,
#   speed beside the best hand-picked config (4096^3, 8192^3, 16 x 4096^3 f16), compile times
#   beside Triton, the seed's 8-config sweep compiled in parallel.
#   sanitize: compute-sanitizer memcheck, racecheck and synccheck over the GEMM suite's ragged cases
#   (M, N or K not a multiple of 64) for the warp-specialized configs (pairs 128x128x64 w4, ping-pong,
#   pairs in 2-block clusters, cooperative 128x256x64 w8 asked for with :ws) and cp.async ones (128x256x64 w8 by default), and the examples' ragged cases (issues 10, 13); a
#   tool's report of any error fails the step. All three tools take longer than one 600 s device
#   call: sanitize-memcheck, sanitize-racecheck and sanitize-synccheck run one tool each, and
#   SANITIZE_CONFIGS=LIST (test_gpu_gemm --configs) narrows a run to some configs.
set -uo pipefail
mode=${1:-quick}
out=${OUT:-/tmp/gemmc-out}
mkdir -p "$out"
# shellcheck source=/dev/null
source scripts/device-unpack.sh > "$out/gpu.txt" 2>&1
export GEMMC_EXAMPLES_DIR=$PWD/examples
status=0
step() { # step NAME COMMAND...: runs, logs, records pass/fail
  local name=$1
  shift
  local start=$SECONDS
  "$@" > "$out/$name.log" 2>&1
  local rc=$?
  printf '%-28s exit %-3s %4ss\n' "$name" "$rc" "$((SECONDS - start))" | tee -a "$out/summary.txt"
  tail -3 "$out/$name.log" | sed 's/^/    /' | tee -a "$out/summary.txt"
  [ $rc -eq 0 ] || status=1
}
case "$mode" in
sanitize) tools=(memcheck racecheck synccheck) ;;
sanitize-memcheck | sanitize-racecheck | sanitize-synccheck) tools=("${mode#sanitize-}") ;;
*) tools=() ;;
esac
if [ ${#tools[@]} -gt 0 ]; then
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  # SANITIZE_CONFIGS narrows the configs so that one tool's run can be split over device calls.
  ws_configs=${SANITIZE_CONFIGS:-128x128x64:g8:w4:s3,128x128x64:g8:w4:s3:pp,128x128x64:g8:w4:s3:cl2,128x256x64:g8:w8:s3:ws,128x256x64:g8:w8:s3,64x32x32:g8:w2:s5}
  for tool in "${tools[@]}"; do
    # --error-exitcode: a finding fails the step even when the program itself exits 0.
    san=("$cs" --tool "$tool" --error-exitcode 99 --print-limit 20)
    step "san-$tool-gemm" "${san[@]}" test_gpu_gemm --ragged --configs "$ws_configs"
    step "san-$tool-vector_add" "${san[@]}" example-vector_add n=4097 BLOCK=256
    step "san-$tool-transpose" "${san[@]}" example-transpose m=129 n=65
    step "san-$tool-softmax" "${san[@]}" example-softmax m=7 n=781
    step "san-$tool-matmul" "${san[@]}" example-matmul -M 130 -N 70 -K 33
    step "san-$tool-batched" "${san[@]}" example-batched_matmul --batch 2 -M 65 -N 33 -K 17
  done
  exit $status
fi
if [ "$mode" = triton ] || [ "$mode" = triton-quick ]; then
  # At most 8 files come back from $OUT: gpu.txt, summary.txt, two logs, the dump archive, CSV, table.
  quick=()
  [ "$mode" = triton-quick ] && quick=(--quick)
  step triton-dump python3 scripts/triton-dump.py --out "$out"
  # Rows run most important first; none starts after 360 s, so dump + compare fit one 10-minute call.
  step triton-compare python3 bench/triton_compare.py --out "$out" --libgemmc "$(ls "$GEMMC_BIN"/libgemmc.so* | head -1)" \
    --budget-s 360 "${quick[@]}"
  exit $status
fi
if [ "$mode" = pdl ]; then
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  step pdl-chain test_gpu_gemm --quick --filter "launch"
  step pdl-chain-memcheck "$cs" --tool memcheck --error-exitcode 99 --print-limit 20 test_gpu_gemm --quick --filter "programmatic"
  step pdl-chain-synccheck "$cs" --tool synccheck --error-exitcode 99 --print-limit 20 test_gpu_gemm --quick --filter "programmatic"
  step pdl-compare python3 bench/triton_compare.py --out "$out" --libgemmc "$(ls "$GEMMC_BIN"/libgemmc.so* | head -1)" \
    --programmatic-launch --cases '^(tutorial_(f16|bf16)_128x128x64_s3_w4|batched_f16_acc(f32|f16)_128x128x(64|32)_s4_w4)$' --budget-s 360
  exit $status
fi
if [ "$mode" = triton-sweep ]; then
  # Triton's TTIR and TTGIR of the tutorial at every autotune config, and of the seed's batched
  # kernel, through libgemmc on ragged shapes (ten processes at once: Triton's compiles dominate).
  pids=()
  for group in tutorial_f16 tutorial_bf16 tutorial_fp8 batched descriptors variant_f16_ab variant_f16_epi variant_wide \
    variant_int grouped; do
    cases="^$group"
    [ "$group" = descriptors ] && cases='^(persistent|tma|desc)'
    [ "$group" = variant_f16_ab ] && cases='^variant_f16_(acol|bcol|abcol)_'
    [ "$group" = variant_f16_epi ] && cases='^variant_f16_(bias|outf32|masked|precise)'
    [ "$group" = variant_wide ] && cases='^variant_(bf16|tf32)'
    [ "$group" = variant_int ] && cases='^variant_(i8|fp8)'
    python3 test/gpu/triton_ttir_sweep.py --cases "$cases" > "$out/sweep-$group.log" 2>&1 &
    pids+=($!)
  done
  python3 test/gpu/triton_other_kernels.py > "$out/sweep-other-kernels.log" 2>&1 &
  pids+=($!)
  python3 test/gpu/triton_debug_ops.py > "$out/sweep-debug-ops.log" 2>&1 &
  pids+=($!)
  python3 test/gpu/triton_language_sweep.py > "$out/sweep-language.log" 2>&1 &
  pids+=($!)
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  for log in "$out"/sweep-*.log; do printf '%-40s %s\n' "$(basename "$log")" "$(tail -1 "$log")" | tee -a "$out/summary.txt"; done
  exit $status
fi
if [ "$mode" = product ]; then
  # One kernel cache for the run (fresh), so that the suites' compile times are this run's.
  export GEMMC_CACHE_DIR="$out/gemmc-cache"
  rm -rf "$GEMMC_CACHE_DIR"
  step unit-runtime test_runtime_nodriver
  step matmul-suite test_gpu_matmul
  step matmul-sweep test_gpu_matmul --no-fixed --sweep 1000
  step matmul-overhead bench-matmul_api --overhead
  step matmul-cold bench-matmul_api --cold
  step matmul-procs bench-matmul_api --procs 8
  step matmul-perf bench-matmul_api --perf
  step compile-vs-triton bash bench/compile_vs_triton.sh "$GEMMC_BIN" 10
  step tune-sweep gemmc-tune examples/matmul.tir --seed-configs --no-cache --shape 4096x4096x4096
  exit $status
fi
if [ "$mode" != bench-only ]; then
  step unit-runtime test_runtime_nodriver
  step unit-nvptx test_nvptx
  step vector_add bash -c 'example-vector_add n=1000003 && example-vector_add n=1 && example-vector_add n=4097 BLOCK=256 && example-vector_add n=65535 BLOCK=2048'
  step transpose bash -c 'example-transpose m=1000 n=1000 && example-transpose m=1 n=777 && example-transpose m=129 n=65 && example-transpose m=300 n=1000 TILE=32'
  step softmax bash -c 'example-softmax m=1823 n=781 && example-softmax m=7 n=1 && example-softmax m=64 n=1024 && example-softmax m=50 n=3000 BLOCK=4096'
  step matmul bash -c 'example-matmul && example-matmul --dtype bf16 -M 1000 -N 300 -K 70 --b-col-major --pad 2 --config 64x64x32:g8:w4 && example-matmul --dtype i8 && example-matmul --dtype f32 --precision ieee && example-matmul --dtype f32 --precision tf32'
  step batched_matmul example-batched_matmul --batch 16 -M 1024 -N 1024 -K 512
  step leaky_relu example-matmul_leaky_relu --bias 1
  step tensor-map test_gpu_tensor_map test/gpu/Inputs/tma-persistent.tir
  step bandwidth bench-bandwidth
  if [ "$mode" = full ]; then
    step gemm-suite test_gpu_gemm
    # The kernels made for 2-block clusters (--cluster=2): pairs sharing A, the 8-warp one sharing B.
    step gemm-suite-clusters test_gpu_gemm --configs 128x128x64:g8:w4:s3:cl2,128x256x64:g8:w8:s3:cl2
  else
    step gemm-suite-quick test_gpu_gemm --quick
  fi
fi
if [ "$mode" = full ] || [ "$mode" = bench-only ]; then
  step bench-gemm bench-gemm --csv "$out/gemm.csv" --svg "$out/gemm.svg"
else
  step bench-gemm-quick bench-gemm --quick --csv "$out/gemm.csv"
fi
exit $status

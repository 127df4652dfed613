#!/usr/bin/env bash
# Fuzzes the whole compiler: builds the libFuzzer targets (clang-19, ASan + UBSan) in build-fuzz/
# and runs each for a bounded time from the committed seeds; fails on any finding (crash,
# sanitizer report, leak, an input slower than 60 s in the instrumented build, a failed
# differential check).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [extra libFuzzer flags...]     (default 60 s each)
#
# Targets (fuzz/): parse (parse + verify, print/re-parse), passes (the TTGIR pipeline, TTGIR
# re-parse), codegen (lowering, LLVM, NVPTX; every new PTX assembled by ptxas when present).
# Findings are written to build-fuzz/findings/<target>-crash-<hash> (replay: build-fuzz/fuzz_<target>
# FILE); the seeds grown during the run stay in build-fuzz/corpus-<target>.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1
seconds=${1:-60}
shift || true
build=${FUZZ_BUILD:-$root/build-fuzz}
targets=(${FUZZ_TARGETS:-parse passes codegen})

cc=$(command -v clang-19 || true)
cxx=$(command -v clang++-19 || true)
if [[ -z "$cc" || -z "$cxx" ]]; then
  echo "fuzz: clang-19 not found (scripts/install-deps.sh installs clang-19 and libclang-rt-19-dev)" >&2
  exit 1
fi

start=$SECONDS
mkdir -p "$build"
generator=()
command -v ninja >/dev/null && [[ ! -f "$build/CMakeCache.txt" ]] && generator=(-G Ninja)
if ! CC=$cc CXX=$cxx cmake -S "$root" -B "$build" "${generator[@]}" -DGEMMC_FUZZ=ON -DGEMMC_WERROR=ON \
     >"$build/configure.log" 2>&1; then
  cat "$build/configure.log" >&2
  echo "fuzz: configure failed" >&2
  exit 1
fi
if ! cmake --build "$build" --parallel "$(nproc)" --target "${targets[@]/#/fuzz_}" >"$build/build.log" 2>&1; then
  tail -40 "$build/build.log" >&2
  echo "fuzz: build failed" >&2
  exit 1
fi
echo "fuzz: built ${targets[*]} in $((SECONDS - start)) s"

mkdir -p "$build/findings"
export ASAN_OPTIONS="${FUZZ_ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
failed=0
total_execs=0
for t in "${targets[@]}"; do
  corpus="$build/corpus-$t"
  mkdir -p "$corpus"
  cp -n fuzz/corpus/* "$corpus"/ 2>/dev/null
  log="$build/fuzz-$t.log"
  t0=$SECONDS
  # -timeout: an input taking over 60 s of wall-clock time is a finding (a hang). The fuzz build
  # (coverage + ASan + UBSan) is 3 to 5 times slower than the plain one and CI machines are shared,
  # so the bound is looser than the 20 s an input may take in the ASan build; anything super-linear
  # blows past it. -rss_limit_mb: a process past 2.5 GB is a finding; inputs up to 256 KiB leave
  # room for the scale mutations.
  "$build/fuzz_$t" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=2560 -max_len=262144 \
    -dict=fuzz/tir.dict -artifact_prefix="$build/findings/$t-" -print_final_stats=1 "$@" \
    "$corpus" >"$log" 2>&1
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  # -fork mode (long runs) prints "#N: cov: ..." progress lines instead of final stats.
  [[ -z "$execs" ]] && execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
  execs=${execs:-0}
  total_execs=$((total_execs + execs))
  if [[ $rc -ne 0 ]]; then
    failed=$((failed + 1))
    echo "fuzz: $t: FINDING after $((SECONDS - t0)) s, $execs executions (exit $rc); log $log"
    grep -E "ERROR: |==== gemmc fuzz finding|SUMMARY|Test unit written" "$log" | head -8 | sed 's/^/  /'
  else
    echo "fuzz: $t: $execs executions in $((SECONDS - t0)) s, no findings"
  fi
done
echo "fuzz: $total_execs executions, $failed target(s) with findings, $((SECONDS - start)) s in all"
[[ $failed -eq 0 ]]

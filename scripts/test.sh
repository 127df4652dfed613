#!/usr/bin/env bash
# Builds gemmc and runs every test (C unit tests + lit) twice: plainly in build/, then under
# AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/; then checks the static-LLVM build
# (build-static/, scripts/test-static-llvm.sh); then the parallel-compile tests
# under ThreadSanitizer in build-tsan/; then fuzzes the whole compiler for a bounded time
# (scripts/fuzz.sh, build-fuzz/). Ends with "N passed, N failed".
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1
jobs=$(nproc)

passed=0 failed=0 skipped=0

# Counts results from ctest's JUnit file and lit's xunit file; prints "passed failed skipped".
count_results() {
  python3 - "$1" "$2" <<'PY'
import os, sys
import xml.etree.ElementTree as ET

ctest_xml, lit_xml = sys.argv[1], sys.argv[2]
p = f = s = 0

def outcome(case):
    if case.find("failure") is not None or case.find("error") is not None:
        return "fail"
    if case.find("skipped") is not None or case.get("status") in ("notrun", "disabled"):
        return "skip"
    return "pass"

lit_counted = os.path.exists(lit_xml)
if lit_counted:
    for case in ET.parse(lit_xml).getroot().iter("testcase"):
        r = outcome(case)
        p, f, s = p + (r == "pass"), f + (r == "fail"), s + (r == "skip")
if os.path.exists(ctest_xml):
    for case in ET.parse(ctest_xml).getroot().iter("testcase"):
        r = outcome(case)
        # lit's tests are counted one by one above; its ctest entry only counts when lit
        # failed before writing its results.
        if case.get("name") == "lit" and lit_counted and r != "fail":
            continue
        p, f, s = p + (r == "pass"), f + (r == "fail"), s + (r == "skip")
else:
    f += 1  # ctest did not run at all
print(p, f, s)
PY
}

run_suite() {
  local name=$1 build=$2
  shift 2
  echo "==== $name: build in ${build#"$root"/}"
  if ! bash scripts/build.sh "$build" "$@"; then
    echo "==== $name: build FAILED"
    failed=$((failed + 1))
    return
  fi
  echo "==== $name: tests"
  rm -f "$build/ctest-results.xml" "$build/lit-results.xml"
  LIT_OPTS="${LIT_OPTS:-} --xunit-xml-output=$build/lit-results.xml" \
    ctest --test-dir "$build" --output-on-failure --timeout 900 -j "$jobs" \
      --output-junit "$build/ctest-results.xml"
  local counts
  counts=$(count_results "$build/ctest-results.xml" "$build/lit-results.xml") || counts="0 1 0"
  read -r p f s <<<"$counts"
  echo "==== $name: $p passed, $f failed, $s skipped"
  passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

start=$SECONDS
run_suite "default" "$root/build"
# detect_leaks: the library frees everything at context destruction, so leaks are real bugs.
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1}" \
UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
  run_suite "asan+ubsan" "$root/build-asan" -DGEMMC_SANITIZE=ON

# The static-LLVM build (the GPU bundle's): a position-dependent gemmc, libgemmc.so with C
# exports only, the same PTX as the default build.
echo "==== static-llvm: build in build-static"
if bash scripts/test-static-llvm.sh "$root/build-static" "$root/build"; then
  passed=$((passed + 1))
else
  echo "==== static-llvm: FAILED"
  failed=$((failed + 1))
fi

# ThreadSanitizer: the library and its parallel-compile tests only (gemmc_matmul's autotuning
# compiles candidates in threads, one gemmc_context each).
echo "==== tsan: build in build-tsan"
if bash scripts/test-tsan.sh "$root/build-tsan"; then
  passed=$((passed + 1))
else
  echo "==== tsan: FAILED"
  failed=$((failed + 1))
fi

# Fuzzing of the whole compiler (scripts/fuzz.sh): each libFuzzer target for FUZZ_SECONDS from the
# committed seeds, under ASan + UBSan; any finding fails the run. FUZZ_SECONDS=0 skips it.
fuzz_seconds=${FUZZ_SECONDS:-60}
if [[ $fuzz_seconds -gt 0 ]]; then
  echo "==== fuzz: ${fuzz_seconds} s per target"
  fuzz_start=$SECONDS
  if bash scripts/fuzz.sh "$fuzz_seconds"; then
    passed=$((passed + 1))
  else
    echo "==== fuzz: FAILED"
    failed=$((failed + 1))
  fi
  echo "==== fuzz: $((SECONDS - fuzz_start)) s (build and runs)"
fi

echo "test.sh: all configurations and fuzzing in $((SECONDS - start)) s"
echo "$passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]

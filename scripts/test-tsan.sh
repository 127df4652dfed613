#!/usr/bin/env bash
# Builds libgemmc and the parallel-compile tests with ThreadSanitizer (build-tsan/) and runs them:
# threads compiling at once, each with its own gemmc_context, through one kernel cache.
# LLVM itself is not instrumented; gemmc's own code (IR, passes, lowering, cache, tuner) is.
# Usage: scripts/test-tsan.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-"$root/build-tsan"}
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
[[ -f "$build/CMakeCache.txt" ]] && generator=()
mkdir -p "$build"
cmake -S "$root" -B "$build" "${generator[@]}" -DGEMMC_TSAN=ON -DGEMMC_WERROR=ON > "$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
cmake --build "$build" --parallel "$(nproc)" --target test_parallel_compile test_kernel_cache
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}"
"$build/test_parallel_compile"
"$build/test_kernel_cache"
echo "test-tsan: ThreadSanitizer found no data race"

#!/usr/bin/env bash
# Configures and builds gemmc: scripts/build.sh [build-dir] [extra cmake args...] (default: build/).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-"$root/build"}
shift || true

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# An existing build folder keeps the generator it was made with (CMake refuses a change).
[[ -f "$build/CMakeCache.txt" ]] && generator=()

mkdir -p "$build"
if ! cmake -S "$root" -B "$build" "${generator[@]}" -DGEMMC_WERROR=ON "$@" >"$build/configure.log" 2>&1; then
  cat "$build/configure.log" >&2
  echo "build: cmake configure failed in $build" >&2
  exit 1
fi
cmake --build "$build" --parallel "$(nproc)"

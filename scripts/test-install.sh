#!/usr/bin/env bash
# CI test of packaging: `cmake --install` into a temporary prefix, then builds examples/installed
# against it with find_package(gemmc) and with pkg-config (shared and static), and runs each.
# Usage: scripts/test-install.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"
cmake --install "$build" --prefix "$prefix" > "$tmp/install.log"
for f in include/gemmc/gemmc.h include/gemmc/matmul.h include/gemmc/cache.h include/gemmc/tune.h include/gemmc/aot.h \
         bin/gemmc bin/gemmc-opt bin/gemmc-tune; do
  [[ -e "$prefix/$f" ]] || { echo "test-install: $f was not installed" >&2; exit 1; }
done
libdir=$(dirname "$(find "$prefix" -name libgemmc.so -print -quit)")
for f in "$libdir/libgemmc.a" "$libdir/libgemmc.so" "$libdir/pkgconfig/gemmc.pc" "$libdir/cmake/gemmc/gemmcConfig.cmake"; do
  [[ -e "$f" ]] || { echo "test-install: $f was not installed" >&2; exit 1; }
done
"$prefix/bin/gemmc" --version
"$prefix/bin/gemmc-opt" --version
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$root/examples/installed" -B "$tmp/cmake" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" > "$tmp/configure.log" ||
  { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/cmake" > "$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }
echo "find_package(gemmc), shared:"; "$tmp/cmake/installed_example"
echo "find_package(gemmc), static:"; "$tmp/cmake/installed_example_static"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
pkg-config --exists gemmc
mkdir -p "$tmp/pc"
make -s -f "$root/examples/installed/Makefile" OUT="$tmp/pc" > "$tmp/make.log" 2>&1 || { cat "$tmp/make.log"; exit 1; }
echo "pkg-config, shared:"; "$tmp/pc/example_pc"
echo "pkg-config, static:"; "$tmp/pc/example_pc_static"
# Nothing of the source or build tree is needed at run time.
if ldd "$tmp/pc/example_pc" | grep -q "$build"; then echo "test-install: the example uses the build tree" >&2; exit 1; fi
echo "test-install: ok"

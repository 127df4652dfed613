#!/usr/bin/env bash
# Builds the bundle that travels to the GPU machine: libgemmc.so (LLVM linked in statically) and
# every tool, example, benchmark and GPU test beside it, packed into .carry/gemmc-device.tar.gz.
# The GPU machine has no LLVM, flex or bison; it needs only this archive and glibc.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-device"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGEMMC_STATIC_LLVM=ON -DGEMMC_WERROR=ON >/dev/null
cmake --build "$build"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin"
# The programs ask for the library by its soname (libgemmc.so.0): copy that one file.
cp -L "$build/libgemmc.so.0" "$stage/bin/"
for f in "$build"/gemmc "$build"/gemmc-opt "$build"/gemmc-tune "$build"/example-* "$build"/bench-* "$build"/test_*; do
  [ -x "$f" ] && [ -f "$f" ] && cp "$f" "$stage/bin/"
done
strip --strip-unneeded "$stage"/bin/* 2>/dev/null || true
# Shared libraries libgemmc.so needs that the GPU machine may lack (found through $ORIGIN).
for lib in libzstd.so.1; do
  path=$(ldd "$build/libgemmc.so" | awk -v l="$lib" '$1 == l {print $3}')
  [ -n "$path" ] && cp -L "$path" "$stage/bin/"
done
mkdir -p "$root/.carry"
tar -C "$stage" -czf "$root/.carry/gemmc-device.tar.gz" bin
ls -la "$root/.carry/gemmc-device.tar.gz"

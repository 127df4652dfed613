#!/usr/bin/env bash
# Installs what building and testing gemmc needs on Debian 12; does nothing when it is all there.
set -euo pipefail

# lld-19: ld.lld-19 links AMDGPU objects into loadable code objects (.hsaco); llvm-19 brings
# llvm-objdump and llvm-readelf, which the AMD tests and scripts/amd-side-by-side.sh read them with.
# clang-19 + libclang-rt-19-dev: libFuzzer and the sanitizer runtimes for scripts/fuzz.sh.
packages=(build-essential gcc g++ cmake ninja-build flex bison llvm-19 llvm-19-dev llvm-19-tools lld-19
          libzstd-dev zlib1g-dev python3 clang-19 libclang-rt-19-dev)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"

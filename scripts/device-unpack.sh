#!/usr/bin/env bash
# On the GPU machine: unpacks .carry/gemmc-device.tar.gz into /tmp/gemmc and checks the driver.
# Usage: source scripts/device-unpack.sh   (then $GEMMC_BIN holds the programs)
# No `set -e`: this file is sourced, and the caller's error handling must stay its own.
mkdir -p /tmp/gemmc
tar -C /tmp/gemmc -xzf .carry/gemmc-device.tar.gz || { echo "device-unpack: cannot unpack .carry/gemmc-device.tar.gz" >&2; return 1; }
export GEMMC_BIN=/tmp/gemmc/bin
export PATH="$GEMMC_BIN:/usr/local/cuda/bin:$PATH"
export LD_LIBRARY_PATH="$GEMMC_BIN:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true

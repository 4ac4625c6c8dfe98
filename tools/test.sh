#!/usr/bin/env bash
# README command 2 (and CI's): install what is missing, build the CUDA-enabled configuration
# (kernels compile even without a GPU) and the CPU-only one, and run the whole suite on each with
# ctest. GPU tests show as skipped where no device is present. Ends with ctest's summary.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)
for config in cuda cpu; do
  echo "=== rbmc: building and testing the '$config' configuration ==="
  bash tools/build.sh "$config"
  ctest --test-dir "build/$config" -j "$jobs" --output-on-failure --timeout 600
done

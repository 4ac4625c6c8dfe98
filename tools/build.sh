#!/usr/bin/env bash
# Configures and builds one configuration into build/<name>:
#   tools/build.sh cuda   CUDA backend when nvcc is found (else CPU-only, said by CMake)
#   tools/build.sh cpu    CPU-only, even where nvcc is present
# Extra arguments go to CMake (for example -DCMAKE_CUDA_ARCHITECTURES=80).
set -euo pipefail
cd "$(dirname "$0")/.."

config=${1:-cuda}
shift || true
case "$config" in
  cuda) cuda=AUTO ;;
  cpu) cuda=OFF ;;
  *) echo "usage: tools/build.sh [cuda|cpu] [cmake arguments]" >&2; exit 2 ;;
esac
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B "build/$config" -DCMAKE_BUILD_TYPE=Release -DRBMC_CUDA="$cuda" "$@" >/dev/null
cmake --build "build/$config" -j "$jobs"

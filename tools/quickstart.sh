#!/usr/bin/env bash
# README command 1: install what is missing, build, and run the default scenario (on the GPU when
# one is present, else on all CPU cores). Prints the summary and the results file's path.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/setup.sh
bash tools/build.sh cuda
mkdir -p results
./build/cuda/rbmc run configs/tumbling_box.toml -o results/tumbling_box.h5 --overwrite "$@"
echo "results: $(pwd)/results/tumbling_box.h5"

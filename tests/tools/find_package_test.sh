#!/usr/bin/env bash
# cmake --install puts rbmc and its core in a prefix; a project outside uses the core through
# find_package(rbmc) and integrates a body with it.
#   find_package_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -x "$work/prefix/bin/rbmc"
test -f "$work/prefix/include/rbmc/sample/run_sample.hpp"
"$work/prefix/bin/rbmc" --version | head -1
cmake -S "$source_dir/tests/tools/find_package" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/uses_rbmc"

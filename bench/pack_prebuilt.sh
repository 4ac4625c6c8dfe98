#!/usr/bin/env bash
# Builds here what bench/run_gpu_benchmarks.sh runs on a lent GPU machine, and packs it with the
# shared libraries it loads, so that a device call spends its minutes measuring rather than
# building (a build there took 300 s of a 15-minute lease; unpacking this takes seconds):
#   here:   bash bench/pack_prebuilt.sh        (.prebuilt/carry.tar.xz, about 30 MB)
#   device: run(command="PREBUILT=1 bash bench/run_gpu_benchmarks.sh", carry=[".prebuilt"])
# The build (BUILD_DIR, default build/prebuilt): CUDA for sm_90, the benchmarks, without MPI or
# Python (serial HDF5: no MPI libraries to carry); 15–20 minutes on 2 cores the first time.
# The test binary names this checkout's path for its data: the device side links it there
# (run_gpu_benchmarks.sh does). EXTRA: more files to pack beside rbmc (a baseline binary, say).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build/prebuilt}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DRBMC_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DRBMC_BUILD_BENCH=ON \
  -DRBMC_MPI=OFF -DRBMC_PYTHON=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target rbmc rbmc_cuda_tests rbmc_kernel_bench rbmc_statistics_kernel_bench
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/tests" "$stage/bench" "$stage/lib"
cp "$build/rbmc" "$stage/"
cp "$build/tests/rbmc_cuda_tests" "$stage/tests/"
cp "$build/bench/rbmc_kernel_bench" "$build/bench/rbmc_statistics_kernel_bench" "$stage/bench/"
for e in ${EXTRA:-}; do cp "$e" "$stage/"; done
pwd >"$stage/source_dir"
# Every library the binaries load, less the C and C++ runtimes and the driver any CUDA machine has.
for b in "$stage/rbmc" "$stage/tests/rbmc_cuda_tests" "$stage"/bench/*; do ldd "$b" | awk '/=> \//{print $3}'; done | sort -u |
  grep -v -E "/(libc|libm|libpthread|libdl|librt|libgcc_s|libstdc\+\+|ld-linux|libcuda)\.so" |
  while read -r l; do cp -L "$l" "$stage/lib/"; done
mkdir -p .prebuilt
exclude=$(git rev-parse --git-path info/exclude)
grep -qx '/.prebuilt/' "$exclude" 2>/dev/null || echo '/.prebuilt/' >>"$exclude"
tar cJf .prebuilt/carry.tar.xz -C "$stage" .
echo "packed $(du -h .prebuilt/carry.tar.xz | cut -f1) into .prebuilt/carry.tar.xz from $build ($(git rev-parse --short HEAD 2>/dev/null || echo 'commit unknown'))"

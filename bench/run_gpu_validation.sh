#!/usr/bin/env bash
# rbmc validate on every example config on a lent GPU (the `device` tool), in one call: unpack the
# carried Debian packages, build with CUDA (or reuse build/gpu), then CPU double against CUDA
# double and against CUDA float, N samples each; print the verdict table; logs to $OUT.
#   here:   bash bench/fetch_device_packages.sh
#   device: run(command="bash bench/run_gpu_validation.sh", carry=[".debs"])
# STAGE=build builds and runs the test suite only; STAGE=validate only validates (build/gpu kept
# on the machine between calls); default: both.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-bench/logs/validate-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
exec > >(tee -a "$out/validation.log") 2>&1
n=${N:-20000}
stage=${STAGE:-all}
source bench/device_env.sh
echo "== machine: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown) =="
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
echo "$(nproc) CPU cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"

if [ "$stage" != validate ]; then
  echo "== build (CUDA, sm_90) =="
  cmake -S . -B build/gpu -DCMAKE_BUILD_TYPE=Release -DRBMC_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    "${hdf5_root[@]}" >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
  cmake --build build/gpu -j "$(nproc)" >"$out/build.log" 2>&1 || { grep -m20 -A5 error "$out/build.log"; exit 1; }
  echo "== test suite on the GPU machine =="
  (cd build/gpu && ctest --output-on-failure -j 8 --timeout 900) >"$out/ctest.log" 2>&1
  grep -E "tests passed|Failed|\*\*\*|FAILED" "$out/ctest.log" | head -30
  grep -B2 -A12 "Failure" "$out/ctest.log" | grep -v "^\[ " | cut -c1-400 | head -40
fi

if [ "$stage" != build ]; then
  echo "== rbmc validate, N = $n: CPU double against CUDA double and CUDA float =="
  printf '| config | cpu double (s) | cuda double (s) | verdict | cuda float (s) | verdict, float |\n| --- | --- | --- | --- | --- | --- |\n' >"$out/table.md"
  for c in configs/*.toml; do
    name=$(basename "$c" .toml)
    samples=$n
    [ "$name" = spin_sweep ] && samples=$(( (n / 18) * 18 ))  # a grid: 18 points x replicates
    row="| $name |"
    for precision in double float; do
      build/gpu/rbmc validate "$c" --samples "$samples" --precision $precision --no-progress >"$out/$name-$precision.txt" 2>&1
      code=$?
      times=$(sed -n 's/.*reference cpu double (\([0-9.]*\) s), candidate cuda [a-z]* (\([0-9.]*\) s).*/\1 | \2/p' "$out/$name-$precision.txt")
      verdict=$(tail -1 "$out/$name-$precision.txt")
      [ "$code" -ne 0 ] && [ "$code" -ne 6 ] && verdict="error $code"
      why=$(grep -m1 -E "^  (reason|note) " "$out/$name-$precision.txt" | cut -c16-170)
      if [ "$precision" = double ]; then row="$row $times | $verdict ${why:+($why)} |"
      else row="$row $(echo "$times" | cut -d'|' -f2) | $verdict ${why:+($why)} |"; fi
    done
    echo "$row" >>"$out/table.md"
  done
  cat "$out/table.md"
  # The device tool brings back at most 8 files: the reports travel as one archive.
  (cd "$out" && tar czf reports.tgz ./*-double.txt ./*-float.txt && rm -f ./*-double.txt ./*-float.txt)
fi

#!/usr/bin/env bash
# Everything that needs a GPU, in one call on a lent machine (the `device` tool), so that it fits a
# short lease: unpack the carried Debian packages, build with CUDA and the benchmarks, run the GPU
# tests, the compiler's resource report, the kernel-only throughput, end-to-end `rbmc run`, the
# JAX and PyTorch peers on the same GPU, and a profiler pass; print the tables; write logs to $OUT.
#   here:   bash bench/fetch_device_packages.sh
#   device: run(command="bash bench/run_gpu_benchmarks.sh", carry=[".debs"])
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-bench/logs/gpu-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
exec > >(tee "$out/summary.log") 2>&1
n=${N:-1000000}
steps=${STEPS:-10000}

source bench/device_env.sh
echo "== machine =="
date -u +%Y-%m-%dT%H:%M:%SZ
git rev-parse --short HEAD 2>/dev/null || echo "commit unknown"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$out/gpu.csv"
grep -m1 'model name' /proc/cpuinfo
nvcc --version | tail -1

echo "== build (CUDA, sm_90, benchmarks, ptxas resource report) =="
cmake -S . -B build/gpu -DCMAKE_BUILD_TYPE=Release -DRBMC_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DRBMC_BUILD_BENCH=ON "${hdf5_root[@]}" >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build build/gpu -j "$(nproc)" >"$out/build.log" 2>&1 || { grep -m20 -A5 error "$out/build.log"; exit 1; }
# Each kernel's registers, occupancy, frame and spills, from the compiler's report the build keeps.
python3 tests/tools/ptxas_report.py build/gpu/ptxas kernels/ptxas_budget.txt | tee "$out/ptxas.txt"

echo "== GPU tests (CUDA against CPU, sample by sample) =="
(cd build/gpu && ctest --output-on-failure -j 8) >"$out/ctest.log" 2>&1
tail -15 "$out/ctest.log"

echo "== kernel-only throughput: N = $n, $steps steps =="
build/gpu/bench/rbmc_kernel_bench "$n" "$steps" 5 | tee "$out/kernel.md"

echo "== end to end: rbmc run, N = $n, $steps steps, final states and statistics =="
duration=$(python3 -c "print($steps / 1000)")
sed "s/^duration = .*/duration = $duration/" bench/scenarios/free_body.toml >"$out/e2e.toml"
printf '[output]\ninterval = %s\ntrajectories = "none"\n' "$(python3 -c "print($steps / 10000)")" >>"$out/e2e.toml"
for precision in double float; do
  /usr/bin/time -f "%e s wall, %M KiB peak" build/gpu/rbmc run "$out/e2e.toml" --samples "$n" --backend cuda \
    --precision $precision -o "$out/e2e-$precision.h5" --overwrite --no-progress 2>&1 | tee "$out/e2e-$precision.txt"
  rm -f "$out/e2e-$precision.h5"
done
# (b) trajectories of 1 % of the samples
printf 'trajectories = { every = 100 }\n' >>"$out/e2e.toml"
sed -i 's/^trajectories = "none"$//' "$out/e2e.toml"
build/gpu/rbmc run "$out/e2e.toml" --samples "$n" --backend cuda -o "$out/e2e-traj.h5" --overwrite --no-progress \
  | tee "$out/e2e-trajectories.txt"
rm -f "$out/e2e-traj.h5"

echo "== CPU backend on this machine, same run, for the ratio =="
build/gpu/rbmc run "$out/e2e.toml" --samples $((n / 100)) --backend cpu -o "$out/cpu.h5" --overwrite --no-progress \
  | tee "$out/cpu.txt"
rm -f "$out/cpu.h5"

echo "== pipeline stages (rbmc run --timings): issue 12's runs =="
# The disk's write speed, the floor of a run whose file is large.
dd if=/dev/zero of="$out/dd.bin" bs=16M count=128 oflag=direct 2>&1 | tail -1 | tee "$out/disk.txt"
rm -f "$out/dd.bin"
stage_run() {  # name, scenario, options...
  local name=$1 scenario=$2
  shift 2
  /usr/bin/time -f "%e s wall, %M KiB peak" build/gpu/rbmc run "$scenario" --backend cuda -o "$out/stage.h5" --overwrite \
    --no-progress --timings "$@" 2>&1 | tee "$out/stages-$name.txt"
  ls -l "$out/stage.h5" | awk '{print "file bytes", $5}' | tee -a "$out/stages-$name.txt"
  rm -f "$out/stage.h5"
}
stage_run tumbling_box configs/tumbling_box.toml --samples 1000000
# The same with exact quantiles (every value to the host, sorted there), the cost the issue asks
# to see beside the sketch's; and the sketched run on a fixed batch, to see what the batch size does.
{ cat configs/tumbling_box.toml; echo "quantile_memory_mb = 16384"; } >"$out/tumbling_exact.toml"  # [output] is last
stage_run tumbling_box_exact "$out/tumbling_exact.toml" --samples 1000000
stage_run tumbling_box_batch_131072 configs/tumbling_box.toml --samples 1000000 --batch-size 131072
stage_run tossed_box configs/tossed_box.toml --samples 1000000
sed "s/^duration = .*/duration = 1.0/" bench/scenarios/free_body.toml >"$out/free1000.toml"
stage_run free_body_1e7 "$out/free1000.toml" --samples 10000000
build/gpu/bench/rbmc_kernel_bench 10000000 1000 1 | tee "$out/kernel-1e7.md"

echo "== peers on the same GPU (N = $n, 1000 steps) =="
PYTHONUNBUFFERED=1 timeout 300 python3 bench/peers/jax_rk4.py --n "$n" --steps 1000 2>&1 | tail -2 | tee "$out/jax.txt"
PYTHONUNBUFFERED=1 timeout 300 python3 bench/peers/jax_rk4.py --n "$n" --steps 1000 --float32 2>&1 | tail -2 | tee -a "$out/jax.txt"
PYTHONUNBUFFERED=1 timeout 300 python3 bench/peers/torch_rk4.py --n "$n" --steps 1000 2>&1 | tail -2 | tee "$out/torch.txt"
PYTHONUNBUFFERED=1 timeout 300 python3 bench/peers/torch_rk4.py --n "$n" --steps 1000 --float32 2>&1 | tail -2 | tee -a "$out/torch.txt"
build/gpu/bench/rbmc_kernel_bench "$n" 1000 5 | tee "$out/kernel-1000.md"

echo "== profiler: floating-point instructions, occupancy, what limits the kernel =="
if command -v ncu >/dev/null; then
  timeout 300 ncu --target-processes all -k regex:run_batch_kernel -c 2 \
    --metrics sm__sass_thread_inst_executed_op_dfma_pred_on.sum,sm__sass_thread_inst_executed_op_dmul_pred_on.sum,sm__sass_thread_inst_executed_op_dadd_pred_on.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    build/gpu/bench/rbmc_kernel_bench 262144 1000 1 >"$out/ncu.txt" 2>&1
  grep -E "run_batch_kernel|inst_executed|warps_active|registers|occupancy|duration|throughput" "$out/ncu.txt" | head -60
else
  echo "ncu not found"
fi
echo "logs in $out"

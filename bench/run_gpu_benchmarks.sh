#!/usr/bin/env bash
# Everything that needs a GPU, in one call on a lent machine (the `device` tool), sized for its
# lease (15 minutes of device time, the start included; 8 files back): unpack the carried Debian
# packages, build with CUDA and the benchmarks, then, most valuable first, each step under its own
# time limit and all under one deadline:
#   the CUDA driver's start alone (bench/cuda_start.py); the compiler's resource report; the test
#   suite (CUDA against the CPU, sample by sample); the kernel-only table of issue 13; issue 12's
#   end-to-end runs with their stages (`--timings`); the integrate stage of every example config;
#   the CPU backend on this machine's cores, one thread against all; the JAX peer on the same GPU.
#   Prints the tables; $OUT gets summary.log and logs.tgz (every log).
#   here:   bash bench/fetch_device_packages.sh
#   device: run(command="bash bench/run_gpu_benchmarks.sh", carry=[".debs"], timeout_s=595)
# DEADLINE (s, default 540) ends the optional steps early enough to pack the logs; NCU=1 adds a
# profiler pass, TORCH=1 the PyTorch peer; BUILD_DIR (default build/gpu). A dry run on a machine
# without a GPU: PREBUILT=1 TESTS=0 BUILD_DIR=<a built tree> (without PREBUILT=1 the script
# configures BUILD_DIR with CUDA and builds it, whatever it held). The build there took 300 s on
# 2026-11-26, half the call: to check a fix afterwards, build here and carry the binaries with the
# shared libraries `ldd` names (about 24 MB as .tar.xz, under LD_LIBRARY_PATH there): 43 s of
# device time then.
# KERNEL=0 and PEERS=0 leave out the kernel table and the JAX peer (a check of the pipeline alone).
# PREBUILT=1 takes such binaries without building, and runs the GPU tests from the test binary, not
# ctest: from .prebuilt/carry.tar.xz, which bench/pack_prebuilt.sh makes here (carry .prebuilt
# instead of .debs), or from BUILD_DIR (rbmc, tests/rbmc_cuda_tests and bench/ as the build lays
# them out, their libraries on LD_LIBRARY_PATH).
set -uo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
deadline=${DEADLINE:-540}
out=${OUT:-bench/logs/gpu-$(date -u +%Y%m%dT%H%M%SZ)}
logs=$(mktemp -d)
mkdir -p "$out"
exec > >(tee "$out/summary.log") 2>&1
pack() { (cd "$logs" && tar czf "$out/logs.tgz" .); echo "logs: logs.tgz ($(ls "$logs" | wc -l) files), $((SECONDS - started)) s"; }
trap pack EXIT
n=${N:-1000000}
build=${BUILD_DIR:-build/gpu}
if [ "${PREBUILT:-0}" = 1 ] && [ -z "${BUILD_DIR:-}" ] && [ -f .prebuilt/carry.tar.xz ]; then
  build=/tmp/rbmc-prebuilt
  mkdir -p $build && tar xJf .prebuilt/carry.tar.xz -C $build
  export LD_LIBRARY_PATH=$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  # The test binary reads its data where the packed build's checkout was: this one, linked there.
  source_dir=$(cat $build/source_dir)
  [ -e "$source_dir" ] || { mkdir -p "$(dirname "$source_dir")" && ln -s "$PWD" "$source_dir"; }
fi
steps=${STEPS:-1000}
# time_left SECONDS: true when a step of about that length still ends before the deadline.
time_left() {
  local left=$((deadline - (SECONDS - started)))
  if [ "$left" -lt "$1" ]; then echo "-- skipped: $left s left before the deadline, the step needs about $1"; return 1; fi
}
# step LIMIT NAME COMMAND...: run under `timeout`, its output to $logs/NAME.txt and here.
step() {
  local limit=$1 name=$2
  shift 2
  time_left "$((limit / 3))" || return 0
  local left=$((deadline - (SECONDS - started)))
  [ "$limit" -gt "$left" ] && limit=$left
  timeout "$limit" "$@" 2>&1 | tee "$logs/$name.txt"
  local code=${PIPESTATUS[0]}
  [ "$code" -eq 124 ] && echo "-- $name: stopped at its limit of $limit s"
  return 0
}

source bench/device_env.sh
echo "== machine =="
date -u +%Y-%m-%dT%H:%M:%SZ
git rev-parse --short HEAD 2>/dev/null || echo "commit unknown"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$logs/gpu.csv"
echo "$(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
nvcc --version | tail -1
nvidia-smi --query-gpu=persistence_mode --format=csv,noheader | sed 's/^/persistence mode: /'
# The floor of every GPU run's `setup` stage (twice: the first may load the driver's files).
for i in 1 2; do python3 bench/cuda_start.py; done | tee "$logs/cuda_start.txt"

if [ "${PREBUILT:-0}" = 1 ]; then
  echo "== prebuilt binaries in $build =="
  ls -l $build/rbmc $build/bench/ 2>&1 | head -20
else
  echo "== build (CUDA, sm_90, benchmarks, ptxas resource report) =="
  cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release -DRBMC_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DRBMC_BUILD_BENCH=ON "${hdf5_root[@]}" >"$logs/configure.log" 2>&1 || { tail -30 "$logs/configure.log"; exit 1; }
  cmake --build $build -j "$(nproc)" >"$logs/build.log" 2>&1 || { grep -m20 -A5 error "$logs/build.log"; exit 1; }
  echo "built in $((SECONDS - started)) s"
  # Each kernel's registers, occupancy, frame and spills, from the compiler's report the build keeps.
  python3 tests/tools/ptxas_report.py $build/ptxas kernels/ptxas_budget.txt | tee "$logs/ptxas.txt"
  # Where each kernel's local loads and stores lie (in its loop, in what the loop calls, once a
  # sample), where the machine's CUDA has cuobjdump; into the logs only.
  if command -v cuobjdump >/dev/null 2>&1; then
    for object in $build/CMakeFiles/rbmc_kernels.dir/kernels/run_batch*.cu.o; do
      python3 tests/tools/sass_local_memory.py "$object" --routines
    done >"$logs/sass_local_memory.txt" 2>&1 || true
  fi
fi

echo "== test suite (CUDA against CPU, sample by sample) =="
if [ "${TESTS:-1}" = 1 ] && [ "${PREBUILT:-0}" = 1 ]; then
  # The GPU tests alone: the rest need no GPU and ran where the binaries were built.
  timeout 150 $build/tests/rbmc_cuda_tests --gtest_filter='*Gpu*:*Cuda*' >"$logs/ctest.log" 2>&1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|tests ran" "$logs/ctest.log" | head -40
elif [ "${TESTS:-1}" = 1 ]; then
  (cd $build && timeout 120 ctest --output-on-failure -j "$(nproc)" --timeout 120) >"$logs/ctest.log" 2>&1
fi
if [ -f "$logs/ctest.log" ]; then
  grep -E "tests passed|tests failed|Failed|\*\*\*Skipped|Not Run|Timeout" "$logs/ctest.log" | head -40
  grep -B2 -A12 "Failure" "$logs/ctest.log" | grep -v "^\[ " | cut -c1-300 | head -40
fi

echo "== kernel-only throughput (issue 13's table): N = $n, $steps steps, median of 3 =="
[ "${KERNEL:-1}" = 1 ] && step 120 kernel $build/bench/rbmc_kernel_bench "$n" "$steps" 3
echo "== the statistics stage kernel by kernel: N = $n, 151 x 12 columns (the default scenario's), median of 3 =="
step 90 statistics_kernels $build/bench/rbmc_statistics_kernel_bench "$n" 1812 3

dd if=/dev/zero of="$logs/dd.bin" bs=16M count=128 oflag=direct 2>&1 | tail -1 | tee "$logs/disk.txt"
rm -f "$logs/dd.bin"
stage_run() {  # limit, name, scenario, options...: one `rbmc run --timings` on $backend (default cuda), its file's size
  local limit=$1 name=$2 scenario=$3
  shift 3
  step "$limit" "stages-$name" /usr/bin/time -f "%e s wall, %M KiB peak, %U s user, %S s system" $build/rbmc run "$scenario" \
    -o "$logs/stage.h5" --overwrite --no-progress --no-journal --timings --backend "${backend:-cuda}" "$@"
  [ -f "$logs/stage.h5" ] && ls -l "$logs/stage.h5" | awk '{print "file bytes", $5}' | tee -a "$logs/stages-$name.txt"
  rm -f "$logs/stage.h5"
}
echo "== issue 12: the default scenario, N = 10^6, sketched quantiles, then exact (sorted on the device) =="
stage_run 60 tumbling_box configs/tumbling_box.toml --samples 1000000
stage_run 60 tumbling_box_one_batch configs/tumbling_box.toml --samples 1000000 --batch-size 1048576
{ cat configs/tumbling_box.toml; echo "quantile_memory_mb = 16384"; } >"$logs/tumbling_exact.toml"  # [output] is last
stage_run 60 tumbling_box_exact "$logs/tumbling_exact.toml" --samples 1000000
echo "== issue 12: free body, final states, N = 10^7 x 1,000 steps =="
sed "s/^duration = .*/duration = 1.0/" bench/scenarios/free_body.toml >"$logs/free1000.toml"
stage_run 60 free_body_1e7 "$logs/free1000.toml" --samples 10000000
stage_run 60 free_body_1e7_float "$logs/free1000.toml" --samples 10000000 --precision float
# The batches before 2¹⁷ became the largest (eighteenth session): 10 of 2²⁰ instead of 77 of 2¹⁷.
stage_run 60 free_body_1e7_batches_2e20 "$logs/free1000.toml" --samples 10000000 --batch-size 1048576

echo "== issue 12: memory over N (host: peak RSS; device: the most nvidia-smi saw, every 50 ms) =="
# With batches of at most 2¹⁷ both should stay flat from N = 8 × 2¹⁷ ≈ 10⁶ on.
memory_run() {  # name, scenario, samples
  local name=$1 scenario=$2 samples=$3
  time_left 30 || return 0
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 50 >"$logs/smi-$name.txt" 2>/dev/null &
  local smi=$!
  stage_run 60 "memory-$name" "$scenario" --samples "$samples"
  kill $smi 2>/dev/null; wait $smi 2>/dev/null
  echo "device MiB peak $(sort -n "$logs/smi-$name.txt" | tail -1)" | tee -a "$logs/stages-memory-$name.txt"
}
memory_run tumbling_1e6 configs/tumbling_box.toml 1000000
memory_run tumbling_4e6 configs/tumbling_box.toml 4000000
memory_run free_body_1e6 "$logs/free1000.toml" 1000000
memory_run free_body_4e6 "$logs/free1000.toml" 4000000

echo "== issue 13: the integrate stage of every example config, N = 2^18, no [output] =="
for c in configs/*.toml; do
  name=$(basename "$c" .toml)
  awk '/^\[output/{skip=1;next} /^\[/{skip=0} !skip' "$c" >"$logs/bare-$name.toml"
  samples=262144
  [ "$name" = spin_sweep ] && samples=262134  # a grid of 18 points: a multiple of 18
  stage_run 45 "bare-$name" "$logs/bare-$name.toml" --samples $samples
done

echo "== issue 12: tossed_box, N = 10^6, every trajectory kept: deflated, then stored as they are =="
stage_run 120 tossed_box configs/tossed_box.toml --samples 1000000
{ cat configs/tossed_box.toml; echo 'compression = "none"'; } >"$logs/tossed_stored.toml"  # [output] is last
stage_run 120 tossed_box_uncompressed "$logs/tossed_stored.toml" --samples 1000000

echo "== the CPU backend on this machine: the default scenario, N = 10^5, 1 and all threads =="
backend=cpu stage_run 60 cpu_tumbling_box_all_threads configs/tumbling_box.toml --samples 100000
backend=cpu stage_run 30 cpu_physical_pendulum_all_threads configs/physical_pendulum.toml --samples 20000
backend=cpu stage_run 60 cpu_tumbling_box_1_thread configs/tumbling_box.toml --samples 20000 --threads 1
echo "== issue 13: the CPU backend's scaling, one thread against all, integrate stage (bare configs) =="
# 16 cores: 67-80 % for tumbling_box, 89 % for the pivot on 2026-11-28 (goal >= 90 %); a run of
# 16 x more samples gained 7 %, so a batch's tail is not what is lost.
for t in 1 "$(nproc)"; do
  backend=cpu stage_run 30 "cpu_scaling_tumbling_box_t$t" "$logs/bare-tumbling_box.toml" --samples 128000 --threads "$t"
  backend=cpu stage_run 30 "cpu_scaling_physical_pendulum_t$t" "$logs/bare-physical_pendulum.toml" --samples 16000 --threads "$t"
done
# What the loss is: the machine or rbmc's threads. nproc one-thread processes at once, each with a
# lone one-thread run's work: if each takes longer than the lone run by what the threads lose,
# the cores' shared clock or caches take it (no rbmc thread shares anything with another
# process), not the driver's batches. Then the same scaling with the AVX2 lanes: a frequency
# licence of AVX-512 lowers the all-core clock more than AVX2's.
concurrent_one_thread() {  # name, scenario, samples
  local name=$1 scenario=$2 samples=$3
  time_left 40 || return 0
  backend=cpu stage_run 30 "cpu_lone_$name" "$scenario" --samples "$samples" --threads 1
  local i pids=()
  for i in $(seq "$(nproc)"); do
    timeout 60 $build/rbmc run "$scenario" -o "$logs/concurrent-$i.h5" --overwrite --no-progress --no-journal \
      --timings --backend cpu --samples "$samples" --threads 1 >"$logs/concurrent-$name-$i.txt" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}"  # these alone: a bare `wait` waits for the tee of this script's output too, forever
  rm -f "$logs"/concurrent-*.h5
  echo "$(nproc) at once, integrate stage each (s):" \
    $(grep -h '^  integrate' "$logs"/concurrent-$name-*.txt | awk '{print $2}' | sort -n | tr '\n' ' ') |
    tee "$logs/stages-cpu_concurrent_$name.txt"
}
concurrent_one_thread tumbling_box "$logs/bare-tumbling_box.toml" 16000
concurrent_one_thread physical_pendulum "$logs/bare-physical_pendulum.toml" 2000
for t in 1 "$(nproc)"; do
  RBMC_CPU_SIMD=avx2 backend=cpu stage_run 30 "cpu_scaling_avx2_tumbling_box_t$t" "$logs/bare-tumbling_box.toml" \
    --samples 64000 --threads "$t"
done

echo "== JAX on the same GPU: N = $n, 1,000 steps =="
if [ "${PEERS:-1}" = 1 ]; then
  step 60 jax env PYTHONUNBUFFERED=1 python3 bench/peers/jax_rk4.py --n "$n" --steps 1000
  step 45 jax_float env PYTHONUNBUFFERED=1 python3 bench/peers/jax_rk4.py --n "$n" --steps 1000 --float32
fi
if [ "${TORCH:-0}" = 1 ]; then
  step 60 torch env PYTHONUNBUFFERED=1 python3 bench/peers/torch_rk4.py --n "$n" --steps 1000
fi

if [ "${NCU:-0}" = 1 ] && command -v ncu >/dev/null; then
  echo "== profiler: occupancy, what limits the kernel, and its local-memory spill requests =="
  # The first ten launches: the double free body's kernel (warm-up, run), its float one, both again
  # for the box in its principal axes (Euler's equations by the diagonal), and the double one
  # compiled for three blocks an SM (kernel_bench_variants.cu), which spills to gain warps.
  step 150 ncu ncu --clock-control none -k regex:run_batch_kernel -c 10 --section MemoryWorkloadAnalysis \
    --metrics sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    $build/bench/rbmc_kernel_bench 262144 1000 1
fi

echo "== summary: the CUDA start, the kernel table, then each run's throughput and stages =="
cat "$logs/cuda_start.txt" 2>/dev/null
cat "$logs/kernel.txt" 2>/dev/null
for f in $(ls "$logs"/stages-*.txt 2>/dev/null); do
  echo "-- $(basename "$f" .txt)"
  grep -E "samples |integration |throughput|backend|^  (setup|sample|transfer|integrate|statistics|gather|compress|write|idle|wall) |s wall|file bytes|device MiB|error" "$f"
done
exit 0

#!/usr/bin/env bash
# CPU benchmarks in one call: installs what is missing (with the optional peers), builds, runs the
# micro-benchmarks against Boost.Odeint and MuJoCo in the same binary, whole runs of `rbmc run`
# over N and steps, the scaling over cores and the peak memory over N, and prints the tables
# bench/RESULTS.md quotes. Logs go to $LOG_DIR (default bench/logs/cpu-<date>).
#   bash bench/run_cpu_benchmarks.sh [--quick]
set -euo pipefail
cd "$(dirname "$0")/.."
quick=${1:-}
bash tools/setup.sh --bench
build=build/bench-cpu
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DRBMC_CUDA=OFF -DRBMC_BUILD_TESTS=OFF -DRBMC_BUILD_BENCH=ON >/dev/null
cmake --build "$build" -j "$(nproc)" --target rbmc rbmc_bench rbmc_stats_bench rbmc_io_bench >/dev/null
log=${LOG_DIR:-bench/logs/cpu-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$log"
rbmc=$build/rbmc
repetitions=5
[ "$quick" = "--quick" ] && repetitions=3
cores=$(nproc)

{
  echo "date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit:  $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (modified)')"
  echo "cpu:     $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $cores cores"
  echo "compiler: $(c++ --version | head -1); flags: CMake Release (-O3 -DNDEBUG)"
} | tee "$log/machine.txt"

echo "== micro-benchmarks, one core (median of $repetitions) =="
"$build/bench/rbmc_bench" --benchmark_repetitions=$repetitions --benchmark_report_aggregates_only=true \
  --benchmark_out="$log/micro.json" --benchmark_out_format=json 2>/dev/null | grep -E "median|Benchmark|^-" | tee "$log/micro.txt"
echo "== issue 13's one-core goals: each lane row against Boost.Odeint's loop in the same run =="
python3 bench/goal_ratios.py "$log/micro.json" | tee "$log/goals.md"

echo "== the statistics' costs per value, one core (median of $repetitions) =="
"$build/bench/rbmc_stats_bench" --benchmark_repetitions=$repetitions --benchmark_report_aggregates_only=true \
  --benchmark_out="$log/stats.json" --benchmark_out_format=json 2>/dev/null | grep -E "median|Benchmark|^-" | tee "$log/stats.txt"

echo "== trajectory chunks deflated, one core, against libdeflate's own stream (median of $repetitions) =="
"$build/bench/rbmc_io_bench" --benchmark_repetitions=$repetitions --benchmark_report_aggregates_only=true \
  --benchmark_out="$log/io.json" --benchmark_out_format=json 2>/dev/null | grep -E "median|Benchmark|^-" | tee "$log/io.txt"

# Median wall time (s) over $repetitions runs of `rbmc run SCENARIO OPTIONS...`.
median_wall() {
  local scenario=$1
  shift
  local times=()
  for _ in $(seq "$repetitions"); do
    local start end
    start=$(date +%s.%N)
    "$rbmc" run "$scenario" -o "$log/run.h5" --overwrite --no-progress --backend cpu "$@" >/dev/null ||
      { echo "rbmc run $scenario $* failed" >&2; exit 1; }
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc -l)")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

echo "== pipeline stages on all $cores cores (rbmc run --timings): the default scenario, and tossed_box =="
"$rbmc" run configs/tumbling_box.toml --samples 32768 -o "$log/run.h5" --overwrite --no-progress --backend cpu --timings |
  tee "$log/stages-tumbling_box.txt"
"$rbmc" run configs/tossed_box.toml --samples 16384 -o "$log/run.h5" --overwrite --no-progress --backend cpu --timings |
  tee "$log/stages-tossed_box.txt"
# The default scenario keeping two quantities' statistics ([output] statistics): what the choice saves.
subset=$(mktemp --suffix=.toml)
sed 's/^trajectories = { limit = 20 }.*/&\nstatistics = ["attitude_angle", "angular_velocity"]/' configs/tumbling_box.toml >"$subset"
"$rbmc" run "$subset" --samples 32768 -o "$log/run.h5" --overwrite --no-progress --backend cpu --timings |
  tee "$log/stages-tumbling_box-two-quantities.txt"
rm -f "$subset"

echo "== whole runs, rbmc run, all $cores cores (median of $repetitions) =="
echo "| N | steps | wall (s) | body-steps/s |" | tee "$log/runs.md"
echo "| --- | --- | --- | --- |" | tee -a "$log/runs.md"
for n in 10000 100000; do
  for steps in 100 1000; do
    duration=$(printf '%.6f' "$(echo "$steps / 1000" | bc -l)")
    tmp=$(mktemp --suffix=.toml)
    sed "s/^duration = .*/duration = $duration/" bench/scenarios/free_body.toml >"$tmp"
    t=$(median_wall "$tmp" --samples "$n")
    rm -f "$tmp"
    printf '| %d | %d | %.3f | %.3g |\n' "$n" "$steps" "$t" "$(echo "$n * $steps / $t" | bc -l)" | tee -a "$log/runs.md"
  done
done

# Median over $repetitions runs of `rbmc run SCENARIO --timings OPTIONS...` of the wall time and of
# the integrate stage's (s), printed as "WALL INTEGRATE".
median_wall_and_integrate() {
  local scenario=$1
  shift
  local walls=() integrates=()
  for _ in $(seq "$repetitions"); do
    local start end out
    start=$(date +%s.%N)
    out=$("$rbmc" run "$scenario" -o "$log/run.h5" --overwrite --no-progress --backend cpu --timings "$@") ||
      { echo "rbmc run $scenario $* failed" >&2; exit 1; }
    end=$(date +%s.%N)
    walls+=("$(echo "$end - $start" | bc -l)")
    integrates+=("$(echo "$out" | awk '$1 == "integrate" {print $2}')")
  done
  local median='{a[NR]=$1} END {print a[int((NR+1)/2)]}'
  echo "$(printf '%s\n' "${walls[@]}" | sort -g | awk "$median") $(printf '%s\n' "${integrates[@]}" | sort -g | awk "$median")"
}

# The whole run's efficiency counts its stages that do not divide over threads (setup, the writer's
# thread, which shares the cores once every thread integrates); the integrate stage's is the lanes'
# own, which issue 13's scaling goal is about.
echo "== scaling over cores: N = 100000, 1000 steps (median of $repetitions) =="
echo "| threads | wall (s) | body-steps/s | efficiency | integrate stage (s) | its efficiency |" | tee "$log/scaling.md"
echo "| --- | --- | --- | --- | --- | --- |" | tee -a "$log/scaling.md"
base=""
for threads in $(seq 1 "$cores"); do
  read -r t integrate < <(median_wall_and_integrate bench/scenarios/free_body.toml --samples 100000 --threads "$threads")
  [ -z "$base" ] && base=$t && base_integrate=$integrate
  printf '| %d | %.3f | %.3g | %.0f %% | %.3f | %.0f %% |\n' "$threads" "$t" "$(echo "100000 * 1000 / $t" | bc -l)" \
    "$(echo "100 * $base / ($t * $threads)" | bc -l)" "$integrate" \
    "$(echo "100 * $base_integrate / ($integrate * $threads)" | bc -l)" | tee -a "$log/scaling.md"
done

echo "== peak memory over N: 10 steps, final states only =="
echo "| N | peak resident memory (MiB) | file (MiB) |" | tee "$log/memory.md"
echo "| --- | --- | --- |" | tee -a "$log/memory.md"
tmp=$(mktemp --suffix=.toml)
sed "s/^duration = .*/duration = 0.01/" bench/scenarios/free_body.toml >"$tmp"
sizes="10000 100000 1000000 10000000"
[ "$quick" = "--quick" ] && sizes="10000 100000 1000000"
for n in $sizes; do
  /usr/bin/time -f "%M" -o "$log/mem.txt" "$rbmc" run "$tmp" -o "$log/mem.h5" --overwrite --no-progress --backend cpu \
    --samples "$n" >/dev/null
  printf '| %d | %.0f | %.0f |\n' "$n" "$(echo "$(cat "$log/mem.txt") / 1024" | bc -l)" \
    "$(echo "$(stat -c %s "$log/mem.h5") / 1048576" | bc -l)" | tee -a "$log/memory.md"
  rm -f "$log/mem.h5"
done
rm -f "$tmp" "$log/run.h5" "$log/mem.txt"
echo "logs in $log"

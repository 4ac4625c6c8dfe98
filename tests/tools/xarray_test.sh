#!/usr/bin/env bash
# A results file opened with xarray (tests/tools/xarray_test.py): a fresh run's, and a resumed
# run's (whose copy re-attaches the dimension scales).
#   xarray_test.sh RBMC_EXE SOURCE_DIR
set -euo pipefail
rbmc=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cat >s.toml <<'TOML'
[run]
samples = 400
duration = 1.0
step = 0.01
[body]
mass = 2.0
inertia = [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.25]]
[initial]
angular_velocity = [0.1, 3.0, 0.1]
[dispersions]
body.mass = { distribution = "normal", sigma = 0.02 }
initial.angular_velocity = { distribution = "normal", sigma = 0.05 }
[output]
interval = 0.1
trajectories = { every = 10 }
TOML
"$rbmc" run s.toml -o a.h5 --backend cpu --no-progress >/dev/null
/usr/bin/python3 "$source_dir/tests/tools/xarray_test.py" a.h5 400 11 40
# Interrupted once it has journalled a batch or more, then resumed. The interrupted run takes the
# one-sample path on one thread (about 1.5 s, the same bits): the SIMD lanes on two cores finish
# its 200,000 samples in 0.4 s, before the half second this test once slept.
RBMC_CPU_SIMD=off "$rbmc" run s.toml -o b.h5 --samples 200000 --backend cpu --threads 1 --no-progress \
  --batch-size 5000 >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1200); do
  [ -f b.h5.journal ] && [ "$(stat -c %s b.h5.journal)" -gt 4096 ] && break
  sleep 0.05
done
kill -INT $pid
wait $pid || true
[ -e b.h5.partial ] || { echo "the run ended before the interrupt" >&2; exit 1; }
"$rbmc" run s.toml -o b.h5 --samples 200000 --backend cpu --no-progress --batch-size 5000 --resume >/dev/null
/usr/bin/python3 "$source_dir/tests/tools/xarray_test.py" b.h5 200000 11 20000

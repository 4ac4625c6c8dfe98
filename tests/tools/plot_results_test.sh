#!/usr/bin/env bash
# tools/plot_results.py on small files: with statistics and trajectories it draws all three
# pictures; without [output], the histograms alone. Each picture must be a PNG of some size.
#   plot_results_test.sh RBMC_EXE SOURCE_DIR
set -euo pipefail
rbmc=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cat >with_output.toml <<'TOML'
[run]
samples = 300
duration = 1.0
step = 0.01
[body]
mass = 2.0
inertia = [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.25]]
[initial]
angular_velocity = [0.1, 3.0, 0.1]
[dispersions]
initial.angular_velocity = { distribution = "normal", sigma = 0.1 }
[output]
interval = 0.1
trajectories = { limit = 5 }
TOML
head -n 11 with_output.toml >final_only.toml
"$rbmc" run with_output.toml -o a.h5 --backend cpu >/dev/null
"$rbmc" run final_only.toml -o b.h5 --backend cpu >/dev/null
is_png() {
  [ -f "$1" ] || { echo "missing $1" >&2; return 1; }
  [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || { echo "$1 is not a PNG" >&2; return 1; }
  [ "$(stat -c %s "$1")" -gt 10000 ] || { echo "$1 is too small to hold a plot" >&2; return 1; }
}
"$source_dir/tools/plot_results.py" a.h5 -o a >a.out
! grep -q "samples still running" a.out || { echo "a note of stopped samples where none stopped" >&2; exit 1; }
is_png a_bands.png
is_png a_histograms.png
is_png a_trajectories.png
"$source_dir/tools/plot_results.py" b.h5 -o b >/dev/null 2>b.err
is_png b_histograms.png
[ ! -e b_bands.png ] && [ ! -e b_trajectories.png ] || { echo "pictures without their data" >&2; exit 1; }
grep -q "no /statistics" b.err
[ ! -e a_events.png ] && [ ! -e a_sweep.png ] || { echo "event or sweep pictures without events or a grid" >&2; exit 1; }
# Events (the tossed box lands) and a sweep (a grid over the spin): their own pictures.
"$rbmc" run "$source_dir/configs/tossed_box.toml" --samples 300 -o c.h5 --backend cpu >/dev/null
"$source_dir/tools/plot_results.py" c.h5 -o c >c.out
# Its samples stop as they land: the bands at the later times are over the few still falling.
grep -q "c_bands.png (the bands are over the samples still running: all 300 up to .* s, none after .* s)" c.out ||
  { echo "no note that the bands lose the samples that landed:" >&2; cat c.out >&2; exit 1; }
is_png c_events.png
is_png c_histograms.png
"$rbmc" run "$source_dir/configs/spin_sweep.toml" -o d.h5 --backend cpu >/dev/null
"$source_dir/tools/plot_results.py" d.h5 -o d >/dev/null
is_png d_sweep.png
# Samples not integrated (a spring's stiffness drawn negative, rejected: invalid_load) have no
# final state (NaN at time 0): the histograms leave them out, and say so.
printf '[[loads]]\ntype = "spring"\nanchor = [0.0, 0.0, 1.0]\nstiffness = 50.0\n[dispersions]\nloads.0.stiffness = { distribution = "normal", sigma = 60.0 }\n[design]\ninvalid_bodies = "reject"\n' |
  cat <(head -n 9 final_only.toml) - >rejected.toml
"$rbmc" run rejected.toml -o r.h5 --backend cpu >/dev/null
"$source_dir/tools/plot_results.py" r.h5 -o r >r.out 2>/dev/null
grep -q "r_histograms.png (the final states are over the .* samples integrated: .* invalid_body or invalid_load left out)" r.out ||
  { echo "no note of the samples not integrated:" >&2; cat r.out >&2; exit 1; }
is_png r_histograms.png
# A file that keeps only some final datasets: the histograms of what it has.
printf '[output]\nsamples = ["final/position", "status"]\n' | cat final_only.toml - >few.toml
"$rbmc" run few.toml -o e.h5 --backend cpu >/dev/null
"$source_dir/tools/plot_results.py" e.h5 -o e >/dev/null 2>/dev/null
is_png e_histograms.png
# A file that keeps some quantities' statistics ([output] statistics): the bands of those.
printf 'statistics = ["attitude_angle", "angular_velocity"]\n' | cat with_output.toml - >some.toml
"$rbmc" run some.toml -o g.h5 --backend cpu >/dev/null
"$source_dir/tools/plot_results.py" g.h5 -o g >/dev/null
is_png g_bands.png
# An interrupted run's partial file: pictures of its samples done only (the rows not run would
# read as zeros), named apart from the finished file's, and no bands (it holds no statistics yet).
sed -e 's/^samples = 300/samples = 400000/' -e 's/^step = 0.01/step = 0.001/' with_output.toml >long.toml
RBMC_CPU_SIMD=off "$rbmc" run long.toml -o p.h5 --backend cpu --threads 1 --batch-size 2048 --no-progress 2>/dev/null &
pid=$!
for _ in $(seq 1200); do
  [ -f p.h5.journal ] && [ "$(stat -c %s p.h5.journal)" -gt 4096 ] && break
  sleep 0.05
done
kill -INT $pid
wait $pid || true
[ -f p.h5.partial ] || { echo "the long run left no partial file" >&2; exit 1; }
"$source_dir/tools/plot_results.py" p.h5.partial >/dev/null 2>p.err
is_png p_partial_histograms.png
[ ! -e p_partial_bands.png ] || { echo "bands of a partial file" >&2; exit 1; }
grep -q "partial file holds no /statistics" p.err
/usr/bin/python3 - "$source_dir/tools" <<'PY'
import sys
import h5py
sys.path.insert(0, sys.argv[1])
import plot_results
with h5py.File("p.h5.partial", "r") as f:
    n = plot_results.rows_done(f)
    assert 0 < n < 400000 and n == int(f["resume"].attrs["rows_done"]), n
    assert (f["samples/status"][:n] != 255).all() and (f["samples/status"][n:] == 255).all()
    assert "INCOMPLETE, %d of 400000 samples done" % n in plot_results.title_of(f)
# The statuses' names are the file's own (docs/output-format.md's table), not a list of the
# script's that once named codes 2, 3 and 4 after other statuses.
with h5py.File("r.h5", "r") as f:
    integrated = plot_results.integrated_rows(f, 300)
    status = f["samples/status"][:]
    assert (integrated == (status != 8)).all() and 0 < integrated.sum() < 300, (integrated.sum(), status)
with h5py.File("c.h5", "r") as f:
    assert plot_results.status_names(f["samples/status"]) == {
        0: "ok", 1: "non_finite_state", 2: "invalid_body", 3: "max_steps_reached", 4: "step_size_underflow",
        5: "terminal_event", 6: "euler_singularity", 7: "inaccurate", 8: "invalid_load", 255: "not_run"}, \
        plot_results.status_names(f["samples/status"])
PY
# `-o` naming a picture or a directory: out.png means out_histograms.png, ... (not
# out.png_histograms.png), a directory (made where it is not there) gets the results file's own
# names.
"$source_dir/tools/plot_results.py" b.h5 -o out.PNG >/dev/null 2>/dev/null
is_png out_histograms.png
[ ! -e out.PNG_histograms.png ] || { echo "-o out.PNG kept its extension" >&2; exit 1; }
mkdir pictures
"$source_dir/tools/plot_results.py" b.h5 -o pictures >/dev/null 2>/dev/null
is_png pictures/b_histograms.png
"$source_dir/tools/plot_results.py" b.h5 -o fresh/ >/dev/null 2>/dev/null
is_png fresh/b_histograms.png
"$source_dir/tools/plot_results.py" b.h5 -o new/dir/run >/dev/null 2>/dev/null
is_png new/dir/run_histograms.png
# A file that is not HDF5: a clear error and exit code 2.
echo junk >junk.h5
if "$source_dir/tools/plot_results.py" junk.h5 2>/dev/null; then echo "accepted junk" >&2; exit 1; fi
echo "plot_results: all pictures drawn"

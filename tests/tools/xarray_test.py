#!/usr/bin/python3
"""A results file as xarray sees it (Debian's python3-xarray and python3-h5netcdf): every group
has named dimensions, and its coordinates are the global sample index, the output times, the
component labels and the quantile probabilities.

    xarray_test.py FILE.h5 N_SAMPLES N_TIMES N_KEPT
Exit 77 (skipped) when xarray or h5netcdf is missing.
"""
import sys
import warnings

try:
    import numpy as np
    import xarray as xr
    import h5netcdf  # noqa: F401  (the engine)
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

warnings.simplefilter("ignore")
path, n, n_times, n_kept = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])


def group(name):
    return xr.open_dataset(path, engine="h5netcdf", group=name)


def check(condition, what):
    if not condition:
        print("FAIL:", what)
        sys.exit(1)


for name in ["samples", "samples/body", "samples/initial", "samples/final", "samples/params"]:
    ds = group(name)
    check(not any(d.startswith("phony_dim") for d in ds.dims), f"{name} has phony dimensions {dict(ds.sizes)}")
    check(ds.sizes["sample"] == n, f"{name}: sample is {ds.sizes.get('sample')}, not {n}")
    check((ds["sample"].values == np.arange(n)).all(), f"{name}: the sample coordinate is not the global index")

final = group("samples/final")
check(final["position"].dims == ("sample", "xyz"), f"position dims {final['position'].dims}")
check(final["orientation"].dims == ("sample", "wxyz"), f"orientation dims {final['orientation'].dims}")
check(list(final["xyz"].values) == ["x", "y", "z"], f"xyz labels {final['xyz'].values}")
check(list(final["wxyz"].values) == ["w", "x", "y", "z"], f"wxyz labels {final['wxyz'].values}")
check(final["position"].attrs.get("units") == "m", "position has no units")
check(float(final["position"].sel(sample=n - 1, xyz="z")) == float(final["position"].values[n - 1, 2]), "sel by label")
body = group("samples/body")
check(body["inertia"].dims == ("sample", "row", "column"), f"inertia dims {body['inertia'].dims}")

samples = group("samples")
check(samples["status"].attrs.get("flag_meanings", "").startswith("ok "), "status has no flag meanings")

stats = group("statistics/angular_velocity")
check(stats["quantiles"].dims == ("time", "quantile", "xyz"), f"quantiles dims {stats['quantiles'].dims}")
check(stats.sizes["time"] == n_times, f"time is {stats.sizes['time']}")
check(np.allclose(stats["quantile"].values, [0.01, 0.05, 0.5, 0.95, 0.99]), "quantile probabilities")
for v in ["mean", "sd", "min", "max", "quantiles"]:
    check(stats[v].attrs.get("units") == "rad/s", f"statistics {v} has no units")
    check(bool(stats[v].attrs.get("description")), f"statistics {v} has no description")
median = stats["quantiles"].sel(quantile=0.5, xyz="y")
check(median.dims == ("time",) and np.isfinite(median.values).all(), "the median by coordinates")
energy = group("statistics/kinetic_energy")
check(energy["mean"].dims == ("time",), f"kinetic_energy mean dims {energy['mean'].dims}")

traj = group("trajectories")
check(traj["angular_velocity"].dims == ("sample", "time", "xyz"), f"trajectory dims {traj['angular_velocity'].dims}")
check(traj.sizes["sample"] == n_kept, f"kept {traj.sizes['sample']}")
check((traj["sample"].values == traj["sample_index"].values).all(), "the trajectories' sample coordinate")
check(np.isclose(float(traj["time"].values[-1]), float(stats["time"].values[-1])), "trajectory time")

# pandas, as docs/output-format.md shows it: one row per sample, a column per component.
frame = final["position"].to_pandas()
check(frame.shape == (n, 3) and list(frame.columns) == ["x", "y", "z"], f"pandas frame {frame.shape}")
print("ok")

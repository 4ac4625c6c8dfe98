#!/usr/bin/python3
# Debian's interpreter on purpose: h5py, numpy and matplotlib come from Debian packages
# (python3-h5py, python3-numpy, python3-matplotlib; tools/setup.sh installs them), and a
# python3 earlier on PATH (a virtual environment, pyenv) may not have them.
"""Pictures of an rbmc results file.

    tools/plot_results.py RESULTS.h5 [-o PREFIX] [--trajectories N]

writes, as far as the file has what they need:

  PREFIX_bands.png         percentile bands over time (1-99 %, 5-95 %, median, mean) of the
                           attitude angle from the nominal sample, the angular velocity, the
                           velocity and the kinetic energy, from /statistics
  PREFIX_histograms.png    histograms of the final angular velocity, velocity and time
  PREFIX_trajectories.png  a few retained trajectories' angular velocity, from /trajectories

PREFIX defaults to the results file's name without .h5. The layout read is docs/output-format.md.
"""

import argparse
import os
import sys

import h5py
import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

COMPONENTS = "xyz"
COLOURS = ["tab:blue", "tab:orange", "tab:green"]


def title_of(f):
    name = f.attrs.get("scenario_name", "rbmc")
    return "%s: %d samples, %s, %s" % (name, int(f.attrs.get("n_samples", 0)), f.attrs.get("backend", "?"),
                                      f.attrs.get("precision", "?"))


def band_panel(ax, t, group, component, colour, label):
    """Percentile bands of one component of a /statistics group."""
    q = group["quantiles"][()]            # (T, 5) or (T, 5, dim)
    mean = group["mean"][()]
    if q.ndim == 3:
        q = q[:, :, component]
        mean = mean[:, component]
    ax.fill_between(t, q[:, 0], q[:, 4], color=colour, alpha=0.15, linewidth=0, label=label + " 1-99 %")
    ax.fill_between(t, q[:, 1], q[:, 3], color=colour, alpha=0.3, linewidth=0, label=label + " 5-95 %")
    ax.plot(t, q[:, 2], color=colour, linewidth=1.5, label=label + " median")
    ax.plot(t, mean, color=colour, linewidth=0.8, linestyle="--", label=label + " mean")


def plot_bands(f, path):
    s = f["statistics"]
    t = s["time"][()]
    fig, axes = plt.subplots(2, 2, figsize=(12, 8), sharex=True)
    band_panel(axes[0, 0], t, s["attitude_angle"], 0, "tab:purple", "angle")
    axes[0, 0].set_ylabel("attitude angle from nominal (rad)")
    for c in range(3):
        band_panel(axes[0, 1], t, s["angular_velocity"], c, COLOURS[c], "w" + COMPONENTS[c])
        band_panel(axes[1, 0], t, s["velocity"], c, COLOURS[c], "v" + COMPONENTS[c])
    axes[0, 1].set_ylabel("angular velocity, body frame (rad/s)")
    axes[1, 0].set_ylabel("velocity, world frame (m/s)")
    band_panel(axes[1, 1], t, s["kinetic_energy"], 0, "tab:red", "T")
    axes[1, 1].set_ylabel("kinetic energy (J)")
    for ax in axes.flat:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6, ncol=2)
    for ax in axes[1]:
        ax.set_xlabel("time (s)")
    method = s.attrs.get("quantile_method", "")
    fig.suptitle(title_of(f) + "\nquantiles: " + str(method).split(":")[0])
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_histograms(f, path):
    final = f["samples/final"]
    w = final["angular_velocity"][()]
    v = final["velocity"][()]
    t = final["time"][()]
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    for c in range(3):
        axes[0].hist(w[:, c][np.isfinite(w[:, c])], bins=60, alpha=0.5, color=COLOURS[c], label="w" + COMPONENTS[c])
        axes[1].hist(v[:, c][np.isfinite(v[:, c])], bins=60, alpha=0.5, color=COLOURS[c], label="v" + COMPONENTS[c])
    axes[0].set_xlabel("final angular velocity, body frame (rad/s)")
    axes[1].set_xlabel("final velocity, world frame (m/s)")
    axes[2].hist(t[np.isfinite(t)], bins=60, color="tab:gray")
    axes[2].set_xlabel("final time (s): when each sample stopped")
    for ax in axes:
        ax.set_ylabel("samples")
        ax.grid(alpha=0.3)
    axes[0].legend()
    axes[1].legend()
    fig.suptitle(title_of(f))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_trajectories(f, path, count):
    g = f["trajectories"]
    t = g["time"][()]
    n = min(count, g["angular_velocity"].shape[0])
    w = g["angular_velocity"][:n]        # (n, T, 3): reads only the rows drawn
    index = g["sample_index"][:n]
    fig, axes = plt.subplots(3, 1, figsize=(12, 8), sharex=True)
    for c in range(3):
        for r in range(n):
            axes[c].plot(t, w[r, :, c], linewidth=0.8, label="sample %d" % index[r] if c == 0 else None)
        axes[c].set_ylabel("w%s (rad/s)" % COMPONENTS[c])
        axes[c].grid(alpha=0.3)
    axes[0].legend(fontsize=7, ncol=5)
    axes[2].set_xlabel("time (s)")
    fig.suptitle(title_of(f) + "\n%d retained trajectories" % n)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", help="an rbmc results file (.h5)")
    parser.add_argument("-o", "--prefix", help="output path prefix (default: the results file without .h5)")
    parser.add_argument("--trajectories", type=int, default=8, help="retained trajectories to draw (default 8)")
    args = parser.parse_args(argv)
    prefix = args.prefix or os.path.splitext(args.results)[0]
    try:
        f = h5py.File(args.results, "r")
    except OSError as e:
        print("plot_results: cannot read %s: %s" % (args.results, e), file=sys.stderr)
        return 2
    written = []
    with f:
        if "statistics" in f:
            plot_bands(f, prefix + "_bands.png")
            written.append(prefix + "_bands.png")
        else:
            print("plot_results: no /statistics (the scenario has no [output]): no bands", file=sys.stderr)
        plot_histograms(f, prefix + "_histograms.png")
        written.append(prefix + "_histograms.png")
        if "trajectories/sample_index" in f and f["trajectories/sample_index"].shape[0] > 0:
            plot_trajectories(f, prefix + "_trajectories.png", args.trajectories)
            written.append(prefix + "_trajectories.png")
        else:
            print("plot_results: no retained trajectories: none drawn", file=sys.stderr)
    for w in written:
        print("wrote", w)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

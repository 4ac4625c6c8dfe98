#!/usr/bin/python3
# Debian's interpreter on purpose: h5py, numpy and matplotlib come from Debian packages
# (python3-h5py, python3-numpy, python3-matplotlib; tools/setup.sh installs them), and a
# python3 earlier on PATH (a virtual environment, pyenv) may not have them.
"""Pictures of an rbmc results file.

    tools/plot_results.py RESULTS.h5 [-o PREFIX] [--trajectories N]

writes, as far as the file has what they need:

  PREFIX_bands.png         percentile bands over time (1-99 %, 5-95 %, median, mean) of every
                           statistic the file keeps (attitude angle, position, velocity, angular
                           velocity and the energies, or those [output] statistics names), one
                           panel per component, from /statistics; where samples stop early
                           (a terminal event), the bands at the later times are over the samples
                           still running, which the title and the line printed say
  PREFIX_histograms.png    histograms of the final position, velocity and angular velocity (one
                           panel and its own bins per component), the final time and the statuses
  PREFIX_trajectories.png  a few retained trajectories' position and angular velocity
  PREFIX_events.png        each event: how many samples it occurred in, and when (first time)
  PREFIX_sweep.png         a grid design: the final angular rate and speed against each swept input

PREFIX defaults to the results file's name without .h5 (an interrupted run's OUT.partial: OUT
without .h5, then _partial). A partial file's pictures are of its samples done only, and say so.
The layout read is docs/output-format.md.
"""

import argparse
import os
import sys

import h5py
import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.patches as mpatches  # noqa: E402
import matplotlib.lines as mlines  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

# One colour per component, the same in every picture; labels as a physicist writes them.
COMPONENT_COLOURS = {"x": "tab:blue", "y": "tab:orange", "z": "tab:green"}
SYMBOLS = {"position": "p", "velocity": "v", "angular_velocity": r"\omega"}
TITLES = {"position": "position, world frame", "velocity": "velocity, world frame",
          "angular_velocity": "angular velocity, body frame"}


def component_label(quantity, c, units):
    return r"$%s_%s$ (%s)" % (SYMBOLS[quantity], c, units)


def status_names(status):
    """Each status code's name, as the file declares them: /samples/status is an HDF5 enum
    (docs/output-format.md). A list here once named codes 2, 3 and 4 after other statuses."""
    return {code: name for name, code in (h5py.check_enum_dtype(status.dtype) or {}).items()}


def integrated_rows(f, n):
    """Which of the first n rows were integrated: not those flagged invalid_body or invalid_load,
    whose "final" state is their initial one at time 0 (a spike at 0 in every histogram)."""
    status = f["samples/status"][:n]
    skipped = [code for code, name in status_names(f["samples/status"]).items()
               if name in ("invalid_body", "invalid_load")]
    return ~np.isin(status, skipped)


def rows_done(f):
    """The rows that hold results: every row of a complete file, the first /resume rows_done of an
    interrupted run's partial file (the rows after them were never run and read as fill values)."""
    return int(f["resume"].attrs["rows_done"]) if "resume" in f else int(f["samples/status"].shape[0])


def title_of(f):
    name = f.attrs.get("scenario_name", "rbmc")
    n = int(f.attrs.get("n_samples", 0))
    samples = "%d samples" % n if "resume" not in f else "INCOMPLETE, %d of %d samples done" % (rows_done(f), n)
    return "%s: %s, %s, %s" % (name, samples, f.attrs.get("backend", "?"), f.attrs.get("precision", "?"))


def units_of(obj, default="?"):
    u = obj.attrs.get("units", default)
    return u.decode() if isinstance(u, bytes) else str(u)


def band_panel(ax, t, group, component, colour):
    """Percentile bands of one component of a /statistics group."""
    q = group["quantiles"][()]            # (T, 5) or (T, 5, dim)
    mean = group["mean"][()]
    if q.ndim == 3:
        q = q[:, :, component]
        mean = mean[:, component]
    ax.fill_between(t, q[:, 0], q[:, 4], color=colour, alpha=0.15, linewidth=0)
    ax.fill_between(t, q[:, 1], q[:, 3], color=colour, alpha=0.35, linewidth=0)
    ax.plot(t, q[:, 2], color=colour, linewidth=1.5)
    ax.plot(t, mean, color="black", linewidth=0.8, linestyle="--")


def band_legend(fig):
    """One legend for every panel, below them: what the shades and lines are."""
    handles = [mpatches.Patch(color="gray", alpha=0.15, label="1-99 %"),
               mpatches.Patch(color="gray", alpha=0.35, label="5-95 %"),
               mlines.Line2D([], [], color="gray", linewidth=1.5, label="median"),
               mlines.Line2D([], [], color="black", linewidth=0.8, linestyle="--", label="mean")]
    fig.legend(handles=handles, loc="lower center", ncol=4, frameon=False)


def running_note(t, count):
    """What the bands are over where samples stopped early (terminal events, step limits): only the
    samples still running at each time, a population that changes along the axis. None where every
    time holds as many samples as the first."""
    if count.size == 0 or count.min() == count.max():
        return None
    # The first times' samples while none has stopped (up to the first time that differs), the
    # last time any runs, and where none does.
    same = int(np.argmax(count != count[0])) - 1
    parts = ["all %d up to %g s" % (count[0], t[same]) if same > 0 else "%d at %g s" % (count[0], t[0])]
    last = int(np.nonzero(count > 0)[0][-1])  # one runs somewhere: the counts differ
    if last > same:
        parts.append("%d at %g s" % (count[last], t[last]))
    if last < len(t) - 1:
        parts.append("none after %g s" % t[last])
    return "the bands are over the samples still running: " + ", ".join(parts)


def plot_bands(f, path):
    """The bands of the quantities /statistics keeps ([output] statistics may keep only some): a
    row of three panels per vector quantity, and one row of the scalars kept, over the whole time
    axis. Returns running_note's note, which the title also carries."""
    s = f["statistics"]
    t = s["time"][()]
    vectors = [name for name in ("position", "velocity", "angular_velocity") if name in s]
    scalars = [(name, colour, label) for name, colour, label in
               [("attitude_angle", "tab:purple", "angle from the nominal attitude (rad)"),
                ("kinetic_energy", "tab:red", "kinetic energy (J)"),
                ("potential_energy", "tab:brown", "potential energy (J)")] if name in s]
    n_rows = len(vectors) + (1 if scalars else 0)
    fig, axes = plt.subplots(n_rows, 3, figsize=(14, 3 * n_rows), sharex=True, squeeze=False)
    for r, name in enumerate(vectors):
        units = units_of(s[name])
        for c, comp in enumerate("xyz"):
            band_panel(axes[r, c], t, s[name], c, COMPONENT_COLOURS[comp])
            axes[r, c].set_ylabel(component_label(name, comp, units))
        axes[r, 1].set_title(TITLES[name], fontsize=10)
    for c in range(3):
        if c < len(scalars):
            name, colour, label = scalars[c]
            band_panel(axes[n_rows - 1, c], t, s[name], 0, colour)
            axes[n_rows - 1, c].set_ylabel(label)
        elif scalars:
            axes[n_rows - 1, c].axis("off")  # a scalar the file does not keep
        axes[n_rows - 1, c].set_xlabel("time (s)")
    for ax in axes.flat:
        ax.grid(alpha=0.3)
        if len(t) > 1:
            ax.set_xlim(t[0], t[-1])  # the times after every sample stopped stay on the axis, empty
    method = s.attrs.get("quantile_method", "")
    method = method.decode() if isinstance(method, bytes) else str(method)
    first = (vectors + [name for name, _, _ in scalars])[0]
    note = running_note(t, s[first]["count"][()])
    fig.suptitle(title_of(f) + "\nquantiles: " + method.split(":")[0] + ("" if note is None else "; " + note))
    band_legend(fig)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return note


def finite(x):
    return x[np.isfinite(x)]


def plot_histograms(f, path):
    """The final states' histograms over the samples integrated, and every sample's status. Returns
    a note of the samples left out, or None."""
    final = f["samples/final"]
    n = rows_done(f)
    status = f["samples/status"][:n]
    integrated = integrated_rows(f, n)
    left_out = int(np.sum(~integrated))
    kept = [name for name in ("position", "velocity", "angular_velocity") if name in final]
    fig, axes = plt.subplots(len(kept) + 1, 3, figsize=(14, 3.2 * (len(kept) + 1)), squeeze=False)
    for r, name in enumerate(kept):
        data = final[name][:n][integrated]
        units = units_of(final[name])
        for c, comp in enumerate("xyz"):
            ax = axes[r, c]
            values = finite(data[:, c])
            # Each component its own bins: their scales may differ by orders of magnitude.
            ax.hist(values, bins=60, color=COMPONENT_COLOURS[comp], alpha=0.8)
            ax.set_xlabel("final " + component_label(name, comp, units))
            ax.set_ylabel("samples")
            ax.grid(alpha=0.3)
    last = axes[len(kept)]
    if "time" in final:
        last[0].hist(finite(final["time"][:n][integrated]), bins=60, color="tab:gray")
        last[0].set_xlabel("final time (s): when each sample stopped")
        last[0].set_ylabel("samples")
    else:
        last[0].axis("off")
    codes, counts = np.unique(status, return_counts=True)
    declared = status_names(f["samples/status"])
    names = [declared.get(int(c), str(c)) for c in codes]
    last[1].barh(names, counts, color="tab:gray")
    last[1].set_xlabel("samples")
    last[1].set_title("status", fontsize=10)
    if "stopping_event" in final and "samples/events" in f:
        events = sorted(f["samples/events"].keys(), key=lambda e: int(f["samples/events"][e].attrs.get("index", 0)))
        stop = final["stopping_event"][:n]
        labels = ["none"] + events
        values = [int(np.sum(stop < 0))] + [int(np.sum(stop == i)) for i in range(len(events))]
        last[2].barh(labels, values, color="tab:olive")
        last[2].set_xlabel("samples")
        last[2].set_title("stopped by", fontsize=10)
    else:
        last[2].axis("off")
    for ax in last:
        ax.grid(alpha=0.3)
    note = None
    if left_out:
        note = "the final states are over the %d samples integrated: %d invalid_body or invalid_load left out" % (
            n - left_out, left_out)
    fig.suptitle(title_of(f) + ("" if note is None else "\n" + note))
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return note


def plot_trajectories(f, path, count):
    g = f["trajectories"]
    t = g["time"][()]
    n = min(count, g["angular_velocity"].shape[0])
    index = g["sample_index"][:n]
    parts = [("position", g["position"][:n]), ("angular_velocity", g["angular_velocity"][:n])]  # (n, T, 3)
    fig, axes = plt.subplots(3, 2, figsize=(14, 9), sharex=True)
    colours = plt.cm.viridis(np.linspace(0, 0.9, max(n, 1)))
    for col, (name, data) in enumerate(parts):
        units = units_of(g[name])
        for c, comp in enumerate("xyz"):
            ax = axes[c, col]
            for r in range(n):
                ax.plot(t, data[r, :, c], linewidth=0.8, color=colours[r], label="sample %d" % index[r])
            ax.set_ylabel(component_label(name, comp, units))
            ax.grid(alpha=0.3)
        axes[0, col].set_title(TITLES[name], fontsize=10)
        axes[2, col].set_xlabel("time (s)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center right", fontsize=8, frameon=False)
    fig.suptitle(title_of(f) + "\n%d of the retained trajectories" % n)
    fig.tight_layout(rect=(0, 0, 0.88, 1))
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_events(f, path):
    group = f["samples/events"]
    events = sorted(group.keys(), key=lambda e: int(group[e].attrs.get("index", 0)))
    n = rows_done(f)
    status = f["samples/status"][:n]
    ran = np.sum(status != 255)
    fig, axes = plt.subplots(1, 2, figsize=(14, 4))
    occurred = [np.sum(group[e]["count"][:n] > 0) for e in events]
    axes[0].barh(events, [100.0 * o / max(ran, 1) for o in occurred], color="tab:olive")
    for i, o in enumerate(occurred):
        axes[0].text(100.0 * o / max(ran, 1), i, " %d" % o, va="center", fontsize=8)
    axes[0].set_xlabel("samples in which the event occurred (%)")
    axes[0].set_xlim(0, 110)
    colours = plt.cm.tab10(np.arange(len(events)) % 10)
    for i, e in enumerate(events):
        times = finite(group[e]["time"][:n])
        if times.size:
            terminal = group[e].attrs.get("terminal", "false")
            terminal = terminal.decode() if isinstance(terminal, bytes) else str(terminal)
            axes[1].hist(times, bins=50, alpha=0.6, color=colours[i],
                         label="%s%s" % (e, " (terminal)" if terminal == "true" else ""))
    axes[1].set_xlabel("time of the first occurrence (s)")
    axes[1].set_ylabel("samples")
    if events:
        axes[1].legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, fontsize=8)
    for ax in axes:
        ax.grid(alpha=0.3)
    fig.suptitle(title_of(f) + "\nevents")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_sweep(f, path):
    """The final angular rate and speed against each swept input: median and 5-95 % per value."""
    grid = f["samples/grid"]
    final = f["samples/final"]
    n = rows_done(f)
    # The responses that vary (a free spin's speed stays 0: no panel for it).
    responses = [(name, label) for name, label in
                 (("angular_velocity", r"final $|\omega|$ (rad/s)"), ("velocity", r"final $|v|$ (m/s)"))
                 if name in final and np.nanmax(np.ptp(final[name][:n], axis=0)) > 0]
    if not responses:
        responses = [("angular_velocity", r"final $|\omega|$ (rad/s)")]
    axes_names = sorted(grid.keys(), key=lambda k: k)
    axes_names = [a for a in axes_names if not grid[a].attrs.get("CLASS")]  # not the coordinates
    fig, axes = plt.subplots(len(responses), len(axes_names), figsize=(5 * len(axes_names), 3.5 * len(responses)),
                             squeeze=False)
    for col, name in enumerate(axes_names):
        x = grid[name][:n]
        if x.ndim == 2:  # a vector input: its component that varies most
            k = int(np.argmax(np.ptp(x, axis=0)))
            x = x[:, k]
            xlabel = "%s.%s (%s)" % (name, "xyz"[k], units_of(grid[name]))
        else:
            xlabel = "%s (%s)" % (name, units_of(grid[name]))
        values = np.unique(x)
        for row, (response, label) in enumerate(responses):
            y = np.linalg.norm(final[response][:n], axis=1)
            ax = axes[row, col]
            ax.plot(x, y, ".", color="tab:gray", alpha=0.3, markersize=3)
            stats = [np.nanpercentile(y[x == v], [5, 50, 95]) for v in values]
            stats = np.array(stats)
            ax.fill_between(values, stats[:, 0], stats[:, 2], color="tab:blue", alpha=0.25, linewidth=0)
            ax.plot(values, stats[:, 1], "o-", color="tab:blue", markersize=3)
            ax.set_xlabel(xlabel)
            ax.set_ylabel(label)
            ax.grid(alpha=0.3)
    handles = [mlines.Line2D([], [], color="tab:gray", marker=".", linestyle="", label="samples"),
               mlines.Line2D([], [], color="tab:blue", marker="o", label="median per grid value"),
               mpatches.Patch(color="tab:blue", alpha=0.25, label="5-95 %")]
    fig.legend(handles=handles, loc="lower center", ncol=3, frameon=False)
    fig.suptitle(title_of(f) + "\nsweep")
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(path, dpi=90)
    plt.close(fig)


def picture_prefix(given, own_name):
    """The pictures' path prefix: `-o` as given, but `-o out.png` means out_bands.png, ..., not
    out.png_bands.png, and `-o some/dir/` puts the results file's own names in that directory
    (made if it is not there)."""
    if not given:
        return own_name
    if given.endswith(os.sep) or os.path.isdir(given):
        return os.path.join(given, os.path.basename(own_name))
    stem, ext = os.path.splitext(given)
    return stem if ext.lower() == ".png" else given


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", help="an rbmc results file (.h5)")
    parser.add_argument("-o", "--prefix",
                        help="output path prefix: PREFIX_bands.png, ... (default: the results file without .h5; "
                             "a directory, or a path ending in /: the results file's name in it; "
                             "a trailing .png is dropped)")
    parser.add_argument("--trajectories", type=int, default=8, help="retained trajectories to draw (default 8)")
    args = parser.parse_args(argv)
    base = args.results[: -len(".partial")] if args.results.endswith(".partial") else args.results
    own_name = os.path.splitext(base)[0] + ("_partial" if base != args.results else "")
    prefix = picture_prefix(args.prefix, own_name)
    try:
        f = h5py.File(args.results, "r")
    except OSError as e:
        print("plot_results: cannot read %s: %s" % (args.results, e), file=sys.stderr)
        return 2
    if os.path.dirname(prefix):
        os.makedirs(os.path.dirname(prefix), exist_ok=True)
    written = []
    with f:
        if "statistics" in f:
            note = plot_bands(f, prefix + "_bands.png")
            written.append(prefix + "_bands.png" + ("" if note is None else " (%s)" % note))
        elif "resume" in f:
            print("plot_results: an interrupted run's partial file holds no /statistics until --resume completes "
                  "the run: no bands; the other pictures are of its %d samples done" % rows_done(f), file=sys.stderr)
        else:
            print("plot_results: no /statistics (the scenario asks for none: no [output] interval or times, "
                  "or statistics = false): no bands", file=sys.stderr)
        note = plot_histograms(f, prefix + "_histograms.png")
        written.append(prefix + "_histograms.png" + ("" if note is None else " (%s)" % note))
        if "trajectories/sample_index" in f and f["trajectories/sample_index"].shape[0] > 0:
            plot_trajectories(f, prefix + "_trajectories.png", args.trajectories)
            written.append(prefix + "_trajectories.png")
        else:
            print("plot_results: no retained trajectories: none drawn", file=sys.stderr)
        if "samples/events" in f and len(f["samples/events"].keys()) > 0:
            plot_events(f, prefix + "_events.png")
            written.append(prefix + "_events.png")
        if "samples/grid" in f:
            plot_sweep(f, prefix + "_sweep.png")
            written.append(prefix + "_sweep.png")
    for w in written:
        print("wrote", w)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

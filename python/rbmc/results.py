"""A results file as xarray Datasets: ``rbmc.open(path)`` and what ``rbmc.run`` returns.

The file's groups carry HDF5 dimension scales, so each opens in xarray (engine h5netcdf) with named
dimensions and coordinates: ``sample`` (the global index), ``time``, ``xyz``/``wxyz``,
``row``/``column`` and ``quantile`` (docs/output-format.md). This class merges the per-sample groups
into one Dataset and keeps the statistics per quantity.
"""
import json

import h5py
import numpy as np
import xarray as xr

from . import _rbmc
from .errors import OutputError


def _decoded(value):
    """An HDF5 attribute's value as plain Python: str for strings, numbers for scalars."""
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, np.ndarray) and value.dtype.kind in "SO":
        return [v.decode() if isinstance(v, bytes) else v for v in value.tolist()]
    if isinstance(value, np.generic):
        return value.item()
    return value


class _Statistics(dict):
    """The statistics' Datasets by quantity; a quantity the file does not hold is a KeyError that
    says why (an interrupted run's partial file holds none yet, ``[output] statistics`` keeps some)."""

    def __init__(self, datasets, why_none):
        super().__init__(datasets)
        self._why_none = why_none

    def __missing__(self, quantity):
        raise KeyError(f"{quantity!r}: {self._why_none}")


class Results:
    """One results file.

    ``samples``: one Dataset over ``sample`` with every per-sample dataset, named by its place
    under /samples with dots: ``status``, ``final.position``, ``body.mass``, ``params.body.mass``,
    ``events.landing.time``, ``diagnostics.energy_drift``.
    ``statistics``: a dict from quantity (``"angular_velocity"``, ``"kinetic_energy"``, ...) to a
    Dataset over ``time`` of ``mean``, ``sd``, ``min``, ``max``, ``quantiles`` and ``count``.
    ``trajectories``: a Dataset over (``sample``, ``time``) of the kept samples, or None.
    ``summary``: for a file ``rbmc.run`` just wrote, what the run reports (counts, timings).

    An interrupted run's partial file (``OUT.partial``, ``complete`` False) holds ``rows_done``
    samples: ``samples`` and ``to_dataframe()`` cover those only (the rows after them are not run),
    and it holds no statistics until ``--resume`` completes the run.

    Datasets load lazily; ``close()`` (or ``with rbmc.open(...) as r:``) releases the file.
    """

    def __init__(self, path, summary=None):
        self.path = str(path)
        self.summary = summary
        self._open = []
        self._samples = self._statistics = self._trajectories = None
        with h5py.File(self.path, "r") as f:
            self.attrs = {k: _decoded(v) for k, v in f.attrs.items()}
            if "rbmc_version" not in self.attrs:  # as rbmc info and compare refuse it
                raise OutputError(f"{self.path} is not an rbmc results file: an HDF5 file without the "
                                  "rbmc_version attribute that rbmc run writes at every results file's root")
            self._sample_groups = []
            if "samples" in f:
                f["samples"].visit(lambda name: self._sample_groups.append(name)
                                   if isinstance(f["samples"][name], h5py.Group) else None)
            # The events' names by their index (the scenario's order), which final/stopping_event counts in.
            events = f["samples/events"] if "samples/events" in f else {}
            self._event_names = {int(g.attrs["index"]): name for name, g in events.items()
                                 if isinstance(g, h5py.Group) and "index" in g.attrs}
            self._quantities = sorted(k for k, v in f["statistics"].items()
                                      if isinstance(v, h5py.Group)) if "statistics" in f else []
            # A partial file's rows done: a prefix of its rows (the rest read status 255, not run).
            self.rows_done = (int(f["resume"].attrs["rows_done"]) if "resume" in f
                              else int(self.attrs.get("n_samples", 0)))
            self._has_trajectories = "trajectories" in f and any(
                isinstance(v, h5py.Dataset) and v.ndim == 3 for v in f["trajectories"].values())
            # Seconds per stage of the run, and the process's wall (attributes of /timings besides its
            # units and description).
            self.timings = ({k: float(v) for k, v in f["timings"].attrs.items() if k not in ("units", "description")}
                            if "timings" in f else {})

    # ---- the file's groups as Datasets ----
    def group(self, name):
        """Any group of the file as xarray opens it, e.g. ``"samples/final"``."""
        ds = xr.open_dataset(self.path, engine="h5netcdf", group=name)
        self._open.append(ds)
        return ds

    @property
    def samples(self):
        if self._samples is None:
            parts = [self._prefixed(self.group("samples"), "")]
            for name in self._sample_groups:
                ds = self.group("samples/" + name)
                if "sample" in ds.dims:
                    parts.append(self._prefixed(ds, name.replace("/", ".") + "."))
            self._samples = xr.merge(parts, combine_attrs="drop_conflicts")
            if not self.complete:  # the rows not run would read as zeros
                self._samples = self._samples.isel(sample=slice(0, self.rows_done))
        return self._samples

    @property
    def statistics(self):
        if self._statistics is None:
            if not self.complete:
                why = (f"{self.path} is an interrupted run's partial file: its statistics are written when "
                       "the run completes (rbmc.run(..., resume=True), or rbmc run ... --resume)")
            else:
                why = (f"{self.path} holds the statistics of {', '.join(self._quantities)} "
                       "([output] statistics chooses which)"
                       if self._quantities else f"{self.path} keeps no statistics (no [output] interval or times, "
                       "or [output] statistics = false)")
            self._statistics = _Statistics({q: self.group("statistics/" + q) for q in self._quantities}, why)
        return self._statistics

    @property
    def trajectories(self):
        if self._trajectories is None and self._has_trajectories:
            self._trajectories = self.group("trajectories")
        return self._trajectories

    @staticmethod
    def _prefixed(ds, prefix):
        # Only data variables are renamed: the coordinates (sample, xyz, ...) are shared. A
        # per-sample `time` (final.time, an event's time) is data over `sample`.
        data = list(ds.data_vars)
        return ds[data].rename({v: prefix + v for v in data})

    # ---- convenience ----
    @property
    def scenario(self):
        """The scenario's TOML text, as the run read it."""
        return self.attrs.get("scenario")

    @property
    def complete(self):
        return bool(self.attrs.get("complete", True))

    def info(self):
        """``rbmc info --json`` of the file, as a dict."""
        return json.loads(_rbmc.info(self.path))

    def to_dataframe(self, variables=None):
        """The per-sample datasets as a pandas DataFrame indexed by ``sample``: one column per
        component (``final.position.x``, ``body.inertia.xy``), ``status`` as a categorical of
        names, and ``final.stopping_event`` as one of the terminal events' names (``"none"`` for a
        sample no event stopped); ``variables`` picks some."""
        import pandas as pd

        ds = self.samples if variables is None else self.samples[list(variables)]
        columns = {}
        for name, da in ds.data_vars.items():
            values = np.asarray(da.values)
            rest = [d for d in da.dims if d != "sample"]
            if name == "status":  # codes as their names (255: a partial file's row not run)
                names = list(_rbmc.status_names)
                columns[name] = pd.Categorical.from_codes(
                    [int(c) if c < len(names) else len(names) for c in values], names + ["not_run"])
            elif name == "final.stopping_event" and self._event_names:  # -1: none
                names = [self._event_names.get(i, f"event {i}") for i in range(max(self._event_names) + 1)]
                columns[name] = pd.Categorical.from_codes(
                    [int(i) if 0 <= i < len(names) else len(names) for i in values], names + ["none"])
            elif not rest:
                columns[name] = values
            elif rest == ["row", "column"]:
                labels = "xyz"
                for r in range(values.shape[1]):
                    for c in range(values.shape[2]):
                        columns[f"{name}.{labels[r]}{labels[c]}"] = values[:, r, c]
            else:
                labels = [str(v) for v in ds[rest[0]].values]
                for j, label in enumerate(labels):
                    columns[f"{name}.{label}"] = values[:, j]
        return pd.DataFrame(columns, index=pd.Index(ds["sample"].values, name="sample"))

    def close(self):
        for ds in self._open:
            ds.close()
        self._open.clear()
        self._samples = self._statistics = self._trajectories = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        n = self.attrs.get("n_samples", "?")
        if not self.complete:
            return (f"<rbmc.Results {self.path!r}: INCOMPLETE, an interrupted run's partial file: "
                    f"{self.rows_done} of {n} samples done>")
        return f"<rbmc.Results {self.path!r}: {n} samples, statistics of {len(self._quantities)} quantities>"


def open(path):  # noqa: A001 (rbmc.open, as the issue names it)
    """Opens a results file (rbmc run's or rbmc.run's) as a :class:`Results`. Raises
    :class:`rbmc.OutputError` for an HDF5 file rbmc did not write."""
    return Results(path)

"""rbmc's commands as functions: run, check, compare, validate (the same C++ as the program)."""
import json
import math
import numbers
import os
from dataclasses import dataclass, field

from . import _rbmc
from .errors import UsageError
from .results import Results

_DEFAULTS = _rbmc.compare_defaults  # margin, rank_margin, alpha, sensitivity_samples: the C++ defaults


def _scenario(scenario):
    if isinstance(scenario, dict):
        return scenario
    if isinstance(scenario, (str, os.PathLike)):
        return os.fspath(scenario)
    raise TypeError(f"scenario: give a TOML file's path (str or os.PathLike) or a dict, not {type(scenario).__name__}")


def _optional_path(path):
    return None if path is None else os.fspath(path)


def _whole_number(name, value, least):
    """``value`` as an int when it is a whole number of at least ``least`` (None passes): a negative
    or fractional one otherwise reached the C++ as a TypeError listing every argument's type."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
        raise UsageError(f"{name}: {value!r} is not a whole number of at least {least}")
    return int(value)


def _non_negative(name, value):
    """``value`` as a float when it is a finite number of at least 0 (None passes)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value < 0:
        raise UsageError(f"{name}: {value!r} is not a finite number of at least 0")
    return float(value)


def run(scenario, *, output=None, samples=None, seed=None, backend="auto", precision="double", threads=0,
        batch_size=0, overwrite=False, resume=False, journal=True, space_check=True, progress=True, only=None,
        shard=None):
    """Runs a scenario and returns its results file opened (:class:`rbmc.Results`, whose
    ``summary`` holds what ``rbmc run`` prints: counts by status, wall time, stage timings).

    scenario
        A TOML file's path, or a dict of the same tables and keys, e.g.
        ``{"run": {"samples": 100, "duration": 1.0, "step": 0.01}, "body": {"mass": 1.0, ...}}``.
        Lists of tables (``loads``, ``events``) are lists of dicts; NumPy arrays and numbers are
        taken as lists and numbers; a dotted key (``"body.mass"``) is a path of nested tables. A dict is checked by the same parser as a file, and an error
        (:class:`rbmc.ScenarioError`) names its key path where a file's names the line.
    output
        The results file; default ``<scenario name>.h5`` in the current directory (a dict without
        ``scenario.name`` is named ``scenario``).
    samples, seed
        Override ``run.samples`` and ``run.seed`` (recorded in the file as overrides).
    backend
        ``"auto"`` (CUDA when a GPU is present, else the CPU), ``"cpu"`` or ``"cuda"``.
    precision
        ``"double"`` or ``"float"``: the integration's arithmetic.
    threads
        CPU threads, 0 for every core. ``batch_size``: samples per batch, 0 for the backend's choice.
    overwrite, resume, journal, space_check, progress, only, shard
        As ``rbmc run``'s ``--overwrite``, ``--resume``, ``--no-journal`` (journal=False),
        ``--no-space-check`` (space_check=False: a run whose file and journal cannot fit in the free
        space where it goes is otherwise refused with :class:`rbmc.OutputError`),
        ``--no-progress`` (progress=False), ``--only`` ("17,42,1000-1010" or a list of indices) and
        ``--shard`` ("i/n" or a pair (i, n)).

    Ctrl-C stops the run within a batch and raises :class:`rbmc.Interrupted` (a KeyboardInterrupt);
    the finished batches are kept, and the same call with ``resume=True`` completes the run.
    """
    if shard is not None and not isinstance(shard, str):
        shard = "{}/{}".format(*shard)
    summary = _rbmc.run(_scenario(scenario), _optional_path(output), _whole_number("samples", samples, 1),
                        _whole_number("seed", seed, 0), backend, precision, _whole_number("threads", threads, 0),
                        _whole_number("batch_size", batch_size, 0), overwrite, resume, journal, space_check, progress,
                        only, shard)
    return Results(summary["output"], summary)


def check(scenario, preview=10000):
    """Parses and validates a scenario (path or dict) without running it, as ``rbmc check`` does:
    a dict of its name, sample count, seed, integrator, duration, steps, design, the dispersed
    key paths and the design's inputs, ``events`` (each event's name, in the scenario's order,
    and how the run detects it, as ``rbmc check`` prints it), the TOML text a run would store,
    the bytes the run writes at least before its file is in place (``bytes_per_sample`` of the
    file's per-sample datasets, ``journal_bytes``, and their sum with any trajectories stored
    uncompressed, ``disk_bytes``, which ``rbmc.run`` checks against the free space), and
    ``validity``: of the first ``preview`` samples, drawn as the run draws them, how many the
    validity policy redrew and how many it leaves not integrated (``previewed``, ``redrawn``,
    ``invalid_body``, ``invalid_load``, ``policy``). Raises :class:`rbmc.ScenarioError` naming
    the file and line, or the dict's key path."""
    return _rbmc.check(_scenario(scenario), _whole_number("preview", preview, 1))


@dataclass
class Verdict:
    """``rbmc compare``'s verdict as data. ``passed`` (also the object's truth value), ``verdict``
    ("PASS" or "FAIL"), ``report``: every figure of ``rbmc compare --json`` (per-component
    differences, equivalence tests, tolerances, reasons, notes), ``text``: the printed report."""

    passed: bool
    verdict: str
    report: dict = field(repr=False)
    text: str = field(repr=False)

    def __bool__(self):
        return self.passed

    @classmethod
    def _of(cls, report_json, text):
        report = json.loads(report_json)
        return cls(bool(report["pass"]), report["verdict"], report, text)


def _compare_options(statistical, rtol, atol, margin, rank_margin, alpha, sensitivity_samples):
    pick = lambda value, key: _DEFAULTS[key] if value is None else value  # noqa: E731
    return _rbmc.compare_options(statistical, _non_negative("rtol", rtol), _non_negative("atol", atol),
                                 pick(margin, "margin"), pick(rank_margin, "rank_margin"), pick(alpha, "alpha"),
                                 pick(_whole_number("sensitivity_samples", sensitivity_samples, 0),
                                      "sensitivity_samples"))


def compare(a, b, *, statistical=False, rtol=None, atol=None, margin=None, rank_margin=None, alpha=None,
            sensitivity_samples=None):
    """Compares results file ``b`` against ``a`` as ``rbmc compare`` does (docs/compare.md): sample
    by sample against a tolerance derived from the two runs (or ``rtol``/``atol``), and as
    distributions by equivalence tests (``margin`` in standard deviations, ``rank_margin`` in
    probability, each test at level ``alpha``). ``statistical=True`` judges only the distributions.
    Returns a :class:`Verdict`; a FAIL is data, not an exception."""
    options = _compare_options(statistical, rtol, atol, margin, rank_margin, alpha, sensitivity_samples)
    return Verdict._of(*_rbmc.compare(os.fspath(a), os.fspath(b), options))


@dataclass
class Validation(Verdict):
    """``rbmc validate``'s outcome: the :class:`Verdict` of the candidate against the reference (the
    CPU in double), with each run's label, wall time and, when ``keep`` was given, file."""

    reference: str = ""
    candidate: str = ""
    reference_seconds: float = 0.0
    candidate_seconds: float = 0.0
    reference_file: str = None
    candidate_file: str = None


def validate(scenario, *, samples=None, seed=None, backend="cuda", precision="double", threads=0, keep=None,
             progress=True, statistical=False, rtol=None, atol=None, margin=None, rank_margin=None, alpha=None,
             sensitivity_samples=None):
    """Runs a scenario (path or dict) on the CPU in double and on a candidate (``backend`` "cuda",
    or "cpu" with ``precision="float"``), then compares them: a :class:`Validation`. ``keep``: a
    directory to keep both files in. Raises :class:`rbmc.NotBuiltWithCuda` or :class:`rbmc.CudaError`
    before any work when the candidate is CUDA and there is none."""
    options = _compare_options(statistical, rtol, atol, margin, rank_margin, alpha, sensitivity_samples)
    v = _rbmc.validate(_scenario(scenario), _whole_number("samples", samples, 1), _whole_number("seed", seed, 0),
                       backend, precision, _whole_number("threads", threads, 0), "" if keep is None else os.fspath(keep),
                       progress, options)
    verdict = Verdict._of(v["comparison_json"], v["text"])
    return Validation(verdict.passed, verdict.verdict, verdict.report, verdict.text, v["reference"], v["candidate"],
                      v["reference_seconds"], v["candidate_seconds"], v["reference_file"], v["candidate_file"])


def build_info():
    """This build: rbmc's ``version``, whether it has ``cuda``, whether a usable GPU is present
    (``cuda_device``), and the ``hdf5`` library's version."""
    return dict(_rbmc.build())

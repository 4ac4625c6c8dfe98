"""Fixtures of the Python module's tests (run by ctest with PYTHONPATH=<build>/python, or by
pytest after `pip install .`). RBMC_EXE names the command-line program built beside the module."""
import os
import shutil

import numpy as np
import pytest

import rbmc

# A free body with dispersed mass and spin: 13 states, RK4 at a 0.01 s step.
BOX_TOML = """\
[scenario]
name = "py_box"
[run]
samples = 64
seed = 7
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
trajectories = { every = 1 }
"""


def box_dict():
    """BOX_TOML as a dict, in the forms users write: NumPy values, a dotted key, nested tables."""
    return {
        "scenario": {"name": "py_box"},
        "run": {"samples": 64, "seed": 7, "duration": 1.0, "step": 0.01},
        "body": {"mass": np.float64(2.0), "inertia": np.diag([0.1, 0.2, 0.25])},
        "initial": {"angular_velocity": np.array([0.1, 3.0, 0.1])},
        "dispersions": {
            "body.mass": {"distribution": "normal", "sigma": 0.02},
            "initial": {"angular_velocity": {"distribution": "normal", "sigma": 0.05}},
        },
        "output": {"interval": 0.1, "trajectories": {"every": 1}},
    }


@pytest.fixture
def box_toml(tmp_path):
    path = tmp_path / "py_box.toml"
    path.write_text(BOX_TOML)
    return path


@pytest.fixture
def rbmc_exe():
    exe = os.environ.get("RBMC_EXE") or shutil.which("rbmc")
    if not exe:
        pytest.skip("no rbmc program (set RBMC_EXE)")
    return exe


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # default outputs land in the test's own directory


def run_quietly(scenario, **kwargs):
    kwargs.setdefault("backend", "cpu")
    kwargs.setdefault("progress", False)
    kwargs.setdefault("threads", 2)
    return rbmc.run(scenario, **kwargs)


def pytest_sessionfinish(session, exitstatus):
    """Exit 77 (ctest's SKIP_RETURN_CODE) when every test that ran was skipped, so that a file of
    GPU-only tests shows as skipped, never as passed."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or exitstatus != 0:
        return
    ran = sum(len(reporter.stats.get(k, [])) for k in ("passed", "failed", "error"))
    if ran == 0 and reporter.stats.get("skipped"):
        session.exitstatus = 77

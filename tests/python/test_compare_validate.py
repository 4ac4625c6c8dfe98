"""rbmc.compare and rbmc.validate: the command line's verdicts, as data."""
import json
import subprocess

import pytest

import rbmc
from conftest import box_dict, run_quietly


@pytest.fixture
def pair(tmp_path):
    a = run_quietly(box_dict(), output=tmp_path / "a.h5", samples=400)
    b = run_quietly(box_dict(), output=tmp_path / "b.h5", samples=400, threads=1, batch_size=37)
    return a.path, b.path


def test_the_same_samples_pass(pair):
    v = rbmc.compare(*pair)
    assert v.passed and bool(v) and v.verdict == "PASS"
    assert v.report["per_sample_pass"] and v.report["n_common"] == 400
    assert "PASS" in v.text


def test_the_verdict_is_the_command_lines(pair, tmp_path, rbmc_exe):
    other = run_quietly(box_dict(), output=tmp_path / "c.h5", samples=400, seed=8).path
    for a, b, statistical in [(*pair, False), (pair[0], other, False), (pair[0], other, True)]:
        v = rbmc.compare(a, b, statistical=statistical)
        cli = subprocess.run([rbmc_exe, "compare", a, b, "--json"] + (["--statistical"] if statistical else []),
                             capture_output=True, text=True)
        assert cli.returncode == (0 if v.passed else 6), cli.stderr
        assert json.loads(cli.stdout) == v.report


# At 400 samples the equivalence tests' bounds on a median's difference are about 0.3 sd, so the
# default margin of 0.25 sd cannot show agreement ("too few samples") and 0.5 sd can.
def test_other_samples_fail_sample_by_sample_and_pass_as_distributions(pair, tmp_path):
    other = run_quietly(box_dict(), output=tmp_path / "c.h5", samples=400, seed=8).path
    v = rbmc.compare(pair[0], other)
    assert not v.passed and not v and v.verdict == "FAIL" and v.report["input_mismatches"] > 0
    assert rbmc.compare(pair[0], other, statistical=True, margin=0.5).passed


def test_another_distribution_fails(pair, tmp_path):
    d = box_dict()
    d["initial"]["angular_velocity"] = [0.1, 3.3, 0.1]  # 6 standard deviations of the spin's spread away
    shifted = run_quietly(d, output=tmp_path / "s.h5", samples=400, seed=8).path
    v = rbmc.compare(pair[0], shifted, statistical=True, margin=0.5)
    assert not v.passed and any("angular_velocity" in r for r in v.report["reasons"])


def test_options_reach_the_comparison(pair):
    v = rbmc.compare(*pair, rtol=1e-3, atol=1e-6, margin=0.5, alpha=0.01, sensitivity_samples=0)
    assert v.passed and v.report["margins"] == {"margin_sd": 0.5, "rank_margin": 0.05, "alpha": 0.01}
    assert (v.report["tolerance"]["rtol"], v.report["tolerance"]["atol"], v.report["tolerance"]["given"]) == (1e-3, 1e-6, True)
    assert rbmc.compare(*pair).report["tolerance"]["given"] is False


def test_validate_float_against_double(tmp_path):
    v = rbmc.validate(box_dict(), samples=200, backend="cpu", precision="float", keep=tmp_path / "kept",
                      progress=False)
    assert v.passed and (v.reference, v.candidate) == ("cpu double", "cpu float")
    assert v.reference_file.endswith("py_box-cpu-double.h5") and v.candidate_file.endswith("py_box-cpu-float.h5")
    assert rbmc.open(v.candidate_file).attrs["precision"] == "float"
    with pytest.raises(rbmc.UsageError, match="reference itself"):
        rbmc.validate(box_dict(), samples=10, backend="cpu", precision="double")

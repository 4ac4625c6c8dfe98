"""A scenario given as a dict: the same samples as its TOML file, and the parser's errors with the
dict's key path in place of the file and line."""
import h5py
import numpy as np
import pytest

import rbmc
from conftest import box_dict, run_quietly


def sample_datasets(path):
    out = {}
    with h5py.File(path, "r") as f:
        f["samples"].visititems(lambda name, obj: out.__setitem__(name, obj[()])
                                if isinstance(obj, h5py.Dataset) else None)
    return out


def test_a_dict_runs_the_samples_its_toml_file_runs(box_toml, tmp_path):
    from_file = run_quietly(box_toml, output=tmp_path / "file.h5")
    from_dict = run_quietly(box_dict(), output=tmp_path / "dict.h5")
    a, b = sample_datasets(from_file.path), sample_datasets(from_dict.path)
    assert sorted(a) == sorted(b) and "params/body.mass" in a
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)  # bit for bit
    # The dict's TOML text is what the file keeps, and it reads back as the same scenario.
    assert "[run]" in from_dict.scenario and "samples = 64" in from_dict.scenario
    assert rbmc.check(box_dict())["text"] == from_dict.scenario


def test_check_reports_what_a_run_would_do(box_toml, tmp_path):
    c = rbmc.check(box_dict())
    assert (c["name"], c["samples"], c["seed"], c["integrator"], c["steps"]) == ("py_box", 64, 7, "rk4", 100)
    assert sorted(c["dispersed"]) == ["body.mass", "initial.angular_velocity"]
    assert rbmc.check(box_toml)["dispersed"] == c["dispersed"]
    # What its run writes at least: the per-sample datasets a run's file holds, row by row, and
    # the journal's copy of each sample's 25 outputs and status, and of its kept trajectory (every
    # sample's: 11 output times of the 13-value state, and its row).
    with h5py.File(run_quietly(box_dict(), output=tmp_path / "box.h5").path, "r") as f:
        rows = []
        f["samples"].visititems(lambda name, obj: rows.append(obj.dtype.itemsize * int(np.prod(obj.shape[1:])))
                                if isinstance(obj, h5py.Dataset) and obj.shape[:1] == (64,)
                                and not name.endswith("sample") else None)
    assert c["bytes_per_sample"] == sum(rows)
    assert c["journal_bytes"] == 64 * (25 * 8 + 1) + 64 * (11 * 13 * 8 + 4)
    assert c["disk_bytes"] == 64 * c["bytes_per_sample"] + c["journal_bytes"]
    # The events as the run detects them, in the scenario's order (none here).
    assert c["events"] == {}
    d = box_dict()
    d["initial"]["attitude"] = [0.0, 0.0, 0.0, 1.0]  # half a turn about z: the reference, resolved
    d["events"] = [{"name": "turned", "type": "attitude_angle", "angle": 1.5},
                   {"name": "landing", "type": "cylinder_crossing", "radius": 0.033, "height": 0.115,
                    "axis": "z", "value": 0.0, "direction": "falling", "terminal": True}]
    events = rbmc.check(d)["events"]
    assert list(events) == ["turned", "landing"]
    assert events["landing"] == ("cylinder_crossing: radius 0.033 m, height 0.115 m along body z, about "
                                 "[0, 0, 0] m, its lowest point's world z falling through 0 m; terminal")
    assert events["turned"] == "attitude_angle: the rotation from [0, 0, 0, 1] above 1.5 rad"
    # Without [scenario] name, a dict is called "scenario" (a file: its stem).
    d = box_dict()
    del d["scenario"]
    assert rbmc.check(d)["name"] == "scenario"


def test_check_previews_the_validity_of_the_draws(tmp_path):
    # A spring whose stiffness is drawn negative in some samples: the preview counts what the run
    # redraws, or under "reject" flags (status invalid_load), sample for sample.
    d = box_dict()
    d["run"]["samples"] = 400
    d["loads"] = [{"type": "spring", "anchor": [0.0, 0.0, 1.0], "stiffness": 50.0}]
    d["dispersions"]["loads.0.stiffness"] = {"distribution": "normal", "sigma": 60.0}
    c = rbmc.check(d)["validity"]
    assert c["previewed"] == 400 and c["policy"] == "redraw" and c["invalid_load"] == 0
    d["design"] = {"invalid_bodies": "reject"}
    r = rbmc.check(d, preview=400)["validity"]
    assert r["policy"] == "reject" and r["redrawn"] == 0 and r["invalid_body"] == 0
    run = run_quietly(d, output=tmp_path / "reject.h5")
    assert run.summary["statuses"]["invalid_load"] == r["invalid_load"] == c["redrawn"] > 0
    # The samples flagged were not integrated: no final state (NaN), so that a mean over the data
    # frame is over the samples integrated, not pulled toward their initial states (z = 0).
    df = run.to_dataframe(["status", "final.position"])
    flagged = df["status"] == "invalid_load"
    assert df.loc[flagged, "final.position.z"].isna().all()
    assert df.loc[~flagged, "final.position.z"].notna().all()
    ok = df.loc[~flagged, "final.position.z"]
    assert df["final.position.z"].mean() == pytest.approx(ok.mean(), rel=1e-15)
    assert rbmc.check(d, preview=10)["validity"]["previewed"] == 10
    with pytest.raises(rbmc.UsageError):
        rbmc.check(d, preview=0)


@pytest.mark.parametrize("edit, key_path, words", [
    (lambda d: d["body"].update(mass=-1.0), "body.mass", "positive"),
    (lambda d: d["run"].update(sample=10), "run.sample", "unknown key"),
    (lambda d: d["run"].update(samples=2.5), "run.samples", "integer"),
    (lambda d: d["initial"].update(angular_velocity=[1.0, 2.0]), "initial.angular_velocity", "3"),
    (lambda d: d.update(loads=[{"type": "point_force", "force": [1, 0, 0], "point": [0, 0, 0]}]), "loads[0].frame",
     "required"),
    (lambda d: d["body"].update(mass=None), "body.mass", "None"),
    (lambda d: d["body"].update(mass={1, 2}), "body.mass", "set"),
    (lambda d: d["run"].update({3: 4}), "run", "keys are str"),
    (lambda d: d["run"].update(samples=2**70), "run.samples", "64 bits"),
])
def test_dict_errors_name_the_key_path(edit, key_path, words):
    d = box_dict()
    edit(d)
    with pytest.raises(rbmc.ScenarioError) as e:
        rbmc.check(d)
    assert (e.value.file, e.value.line, e.value.key_path) == ("scenario dict", 0, key_path)
    assert str(e.value).startswith(f"scenario dict: key '{key_path}': ")
    assert words in str(e.value)
    with pytest.raises(rbmc.ScenarioError):  # the same error from run, before any file is made
        run_quietly(d, output="never.h5")


def test_file_errors_name_the_file_line_and_key(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[run]\nsamples = 10\nduration = 1.0\nstep = 0.1\n[body]\nmass = 1.0\n"
                    "inertia = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]\ncolour = 'red'\n")
    with pytest.raises(rbmc.ScenarioError) as e:
        rbmc.check(path)
    assert (e.value.file, e.value.line, e.value.key_path) == (str(path), 8, "body.colour")
    assert isinstance(e.value, ValueError) and isinstance(e.value, rbmc.Error)


def test_a_scenario_of_another_type_is_a_type_error():
    with pytest.raises(TypeError, match="path .* or a dict"):
        rbmc.check(42)


def test_the_stored_text_holds_every_value_exactly():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11
    d = box_dict()
    d["run"].update(duration=0.1 + 0.2, step=1 / 300)
    d["body"]["mass"] = 2 / 3
    back = tomllib.loads(rbmc.check(d)["text"])
    assert (back["run"]["duration"], back["run"]["step"], back["body"]["mass"]) == (0.1 + 0.2, 1 / 300, 2 / 3)
    assert back["initial"]["angular_velocity"] == [0.1, 3.0, 0.1]


def test_dotted_keys_are_nested_tables_as_in_toml():
    d = box_dict()
    d["run.samples"] = d["run"].pop("samples")          # beside the [run] table: merged into it
    d["body.mass"] = d["body"].pop("mass")
    d["dispersions"] = {"body": {"mass": {"distribution": "normal", "sigma": 0.02}},
                        "initial.angular_velocity": {"distribution": "normal", "sigma": 0.05}}
    assert rbmc.check(d)["text"] == rbmc.check(box_dict())["text"]
    for key, words in [("run.samples", "given twice"), ("body..mass", "empty part"), ("run.seed.x", "is a value")]:
        bad = box_dict()
        bad[key] = 1
        with pytest.raises(rbmc.ScenarioError, match=words) as e:
            rbmc.check(bad)
        assert e.value.key_path == key

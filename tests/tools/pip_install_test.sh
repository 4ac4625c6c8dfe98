#!/usr/bin/env bash
# `pip install .` into a fresh virtual environment (with the system's packages: numpy, h5py,
# xarray), offline as on a Debian machine, then `import rbmc` from outside the source tree and a
# small run. RBMC_BUILD_DIR makes setup.py build the module in this test's own build directory,
# where it is already built, instead of configuring a new one.
#   pip_install_test.sh SOURCE_DIR BUILD_DIR PYTHON
set -euo pipefail
source_dir=$1
build_dir=$2
python=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -m venv --system-site-packages "$work/env"
RBMC_BUILD_DIR=$build_dir "$work/env/bin/pip" install --quiet --no-build-isolation --no-deps --no-index "$source_dir"
cd "$work"
"$work/env/bin/python" - "$work/env" <<'PY'
import sys
import rbmc

env = sys.argv[1]
assert rbmc.__file__.startswith(env), f"rbmc imported from {rbmc.__file__}, not the environment {env}"
assert rbmc._rbmc.__file__.startswith(env)
scenario = {"run": {"samples": 20, "duration": 0.5, "step": 0.01},
            "body": {"mass": 1.0, "inertia": [[1, 0, 0], [0, 2, 0], [0, 0, 3]]},
            "initial": {"angular_velocity": [0.1, 1.0, 0.0]},
            "dispersions": {"body.mass": {"distribution": "uniform", "min": 0.9, "max": 1.1}}}
r = rbmc.run(scenario, output="pip.h5", backend="cpu", progress=False)
assert r.summary["statuses"] == {"ok": 20}, r.summary
assert r.samples.sizes["sample"] == 20 and float(r.samples["body.mass"].min()) >= 0.9
assert rbmc.compare("pip.h5", "pip.h5").passed
print("ok", rbmc.__version__, rbmc.__file__)
PY

"""rbmc: GPU-batched Monte Carlo simulation of rigid-body dynamics, from Python.

    import rbmc
    r = rbmc.run("configs/tumbling_box.toml", samples=1000, output="box.h5")
    r.samples["final.angular_velocity"]          # xarray, over (sample, xyz)
    r.statistics["kinetic_energy"]["quantiles"]   # over (time, quantile)
    rbmc.compare("a.h5", "b.h5").passed

Functions: run, check, open, compare, validate, build_info. The module is built from the same C++
as the ``rbmc`` program (docs/python.md).
"""
from .api import Validation, Verdict, build_info, check, compare, run, validate
from .errors import (CudaError, Error, Interrupted, NotBuiltWithCuda, OutputError, ScenarioError, UsageError)
from .results import Results, open  # noqa: A004

__version__ = build_info()["version"]
__all__ = ["run", "check", "open", "compare", "validate", "build_info", "Results", "Verdict", "Validation", "Error",
           "ScenarioError", "UsageError", "OutputError", "CudaError", "NotBuiltWithCuda", "Interrupted"]

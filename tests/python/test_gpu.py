"""rbmc.validate on CUDA: on a GPU, the CUDA build's samples against the CPU's; without one, the
error that says so before any work. ctest shows this file as skipped when every case skips."""
import pytest

import rbmc
from conftest import box_dict

BUILD = rbmc.build_info()


@pytest.mark.skipif(not BUILD["cuda_device"], reason="no CUDA device (or a build without CUDA)")
@pytest.mark.parametrize("precision", ["double", "float"])
def test_cuda_agrees_with_the_cpu(precision):
    v = rbmc.validate(box_dict(), samples=2000, backend="cuda", precision=precision, progress=False)
    assert v.passed, v.text
    assert v.candidate == "cuda " + precision and v.report["n_common"] == 2000


@pytest.mark.skipif(BUILD["cuda_device"], reason="a CUDA device is present")
def test_cuda_without_a_gpu_says_so_before_any_work(tmp_path):
    expected = rbmc.CudaError if BUILD["cuda"] else rbmc.NotBuiltWithCuda
    with pytest.raises(expected):
        rbmc.validate(box_dict(), samples=10, keep=tmp_path / "kept")
    assert not (tmp_path / "kept").exists()  # no reference run was made
    with pytest.raises(expected):
        rbmc.run(box_dict(), backend="cuda", output=tmp_path / "x.h5")
    assert not (tmp_path / "x.h5").exists()

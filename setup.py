"""Builds rbmc's Python module with CMake for `pip install .` (pyproject.toml).

The compiled part, rbmc._rbmc, is the CMake target rbmc_python. Environment:
  RBMC_CMAKE_ARGS  more arguments for CMake's configuration, e.g. "-DRBMC_CUDA=OFF"
  RBMC_BUILD_DIR   an existing build directory of this source tree to build the target in (the
                   test suite's pip test reuses its own build); default: a fresh one under build/
"""
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


def cmake_project_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(rbmc VERSION ([0-9.]+)", text).group(1)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        target = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve()
        build_dir = os.environ.get("RBMC_BUILD_DIR")
        if not build_dir:
            build_dir = str(ROOT / "build" / "pip")
            subprocess.check_call(["cmake", "-S", str(ROOT), "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                                   "-DRBMC_PYTHON=ON", "-DRBMC_BUILD_TESTS=OFF", f"-DPython3_EXECUTABLE={sys.executable}",
                                   *shlex.split(os.environ.get("RBMC_CMAKE_ARGS", ""))])
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "rbmc_python", "--parallel",
                               str(os.cpu_count() or 2)])
        built = sorted((pathlib.Path(build_dir) / "python" / "rbmc").glob("_rbmc*.so"))
        if not built:
            raise RuntimeError(f"CMake built no rbmc/_rbmc*.so in {build_dir}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[0], target)


(ROOT / "build").mkdir(exist_ok=True)  # egg_info writes there, not into the sources
setup(
    version=cmake_project_version(),
    packages=["rbmc"],
    package_dir={"": "python"},
    ext_modules=[CMakeExtension("rbmc._rbmc")],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": "build/setuptools"}, "egg_info": {"egg_base": "build"}},
    zip_safe=False,
)

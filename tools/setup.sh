#!/usr/bin/env bash
# Installs what rbmc needs from Debian 12 packages, only those missing; with --bench, the
# benchmarks' optional peers too. The CUDA toolkit is not
# a Debian package here: it is used when nvcc is on PATH or in /usr/local/cuda (see CMakeLists.txt).
set -euo pipefail

packages=(
  cmake g++ make                 # build
  openmpi-bin libopenmpi-dev libhdf5-openmpi-dev  # mpirun -n R rbmc run, one file written by every rank (optional: detected by CMake)
  libeigen3-dev                  # fixed-size linear algebra, host and device
  libhdf5-dev hdf5-tools         # results files (and h5dump to look at them)
  libdeflate-dev zlib1g-dev      # trajectory chunks deflated on every core
  libhwy-dev                     # Highway's vqsort: the quantile sketches' sort (optional: detected by CMake)
  libtomlplusplus-dev            # scenario files
  libcli11-dev                   # command line
  librandom123-dev               # counter-based Philox streams
  libboost-dev                   # Boost.Random's Sobol direction numbers (header-only)
  googletest libgtest-dev        # tests
  libbenchmark-dev               # bench/
  python3-h5py python3-numpy python3-matplotlib   # tools/plot_results.py
  python3-xarray python3-h5netcdf python3-pandas  # the xarray test (tests/tools/xarray_test.py)
  pybind11-dev python3-dev                        # import rbmc (python/; optional: detected by CMake)
  python3-pytest python3-venv python3-pip python3-setuptools python3-wheel  # its tests, pip install .
)

# --bench: also the benchmarks' optional peers (MuJoCo; Boost.Odeint comes with libboost-dev).
if [ "${1:-}" = "--bench" ]; then
  packages+=(bc time libmujoco-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "rbmc setup: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "rbmc setup: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

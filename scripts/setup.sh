#!/usr/bin/env bash
# Installs what building cmrs needs and is missing (Debian/Ubuntu): CMake,
# a C compiler, HDF5's C library, zlib, GNU time (tests/io/test_sizes), METIS and
# Open MPI (optional), and Python 3 with numpy, scipy and
# pytest for the Python tests. The CUDA toolkit (nvcc, cuBLAS,
# cuSPARSE) must already be installed; it cannot come from apt here.
set -euo pipefail
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v cc >/dev/null || need+=(gcc)
command -v ninja >/dev/null || need+=(ninja-build)
[ -f /usr/include/hdf5/serial/hdf5.h ] || [ -f /usr/include/hdf5.h ] || need+=(libhdf5-dev)
[ -f /usr/include/zlib.h ] || need+=(zlib1g-dev)
# GNU time: the tests that read the max RSS of cmrs (tests/cli/test_cli_lazy_libs.sh,
# tests/io/test_sizes).
[ -x /usr/bin/time ] || need+=(time)
# METIS (optional: the `metis` row partitioner of --parts, docs/DISTRIBUTED.md,
# and `--order metis` of gen and convert, docs/CASES.md; without it the build
# says so and the tests cover the other methods and orders only).
[ -f /usr/include/metis.h ] || need+=(libmetis-dev)
# Open MPI (optional: `mpirun -np N cmrs solve`, a part per rank; without it
# the build has no MPI and tests/dist/test_dist_mpi.sh reports skipped).
dpkg -s libopenmpi-dev >/dev/null 2>&1 || need+=(libopenmpi-dev openmpi-bin)
# The hostile-input suite (tests/hostile) measures memory with GNU time.
[ -x /usr/bin/time ] || need+=(time)
# Python tests (tests/python): apt's interpreter with numpy, scipy, pytest,
# and pip + venv (ensurepip) for the test that pip-installs the package into
# fresh venvs (its build backend, scikit-build-core, comes from PyPI there).
/usr/bin/python3 -c 'import numpy, scipy, pytest, pip, ensurepip' 2>/dev/null ||
  need+=(python3-numpy python3-scipy python3-pytest python3-pip python3-venv)
# mpi4py for the Python module under mpirun (tests/python/test_mpi_rows.sh).
/usr/bin/python3 -c 'import mpi4py' 2>/dev/null || need+=(python3-mpi4py)
if [ ${#need[@]} -gt 0 ]; then
  sudo_=""; [ "$(id -u)" -ne 0 ] && sudo_="sudo"
  echo "setup: installing ${need[*]}"
  $sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq "${need[@]}" >/dev/null
fi
# OpenFOAM (Debian's v1912: binaries, libraries, tutorials) and h5py for the
# OpenFOAM plugin's tests (foam/tests). Its headers are not packaged: the
# build takes them from FOAM_SRC, else ../shared/third_party/openfoam-v1912
# beside the checkout (foam/README.md). Optional: where apt cannot install
# them the foam tests report skipped. CMRS_NO_FOAM=1 skips this step.
if [ -z "${CMRS_NO_FOAM:-}" ]; then
  foam=()
  { command -v icoFoam >/dev/null &&
    [ -d /usr/share/doc/openfoam-examples/examples ]; } ||
    foam+=(openfoam libopenfoam openfoam-examples)
  /usr/bin/python3 -c 'import h5py' 2>/dev/null || foam+=(python3-h5py)
  if [ ${#foam[@]} -gt 0 ]; then
    sudo_=""; [ "$(id -u)" -ne 0 ] && sudo_="sudo"
    echo "setup: installing ${foam[*]} (the OpenFOAM plugin's tests)"
    { $sudo_ apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq \
        "${foam[@]}" >/dev/null; } ||
      echo "setup: could not install ${foam[*]}: the foam tests will be skipped" >&2
  fi
fi
if ! command -v nvcc >/dev/null; then
  for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
    [ -x "$d/nvcc" ] && export PATH="$d:$PATH" && break
  done
fi
command -v nvcc >/dev/null || { echo "setup: nvcc not found: install the CUDA toolkit" >&2; exit 1; }
# Optional: matplotlib for scripts/plot.py (its test skips without it).
if ! python3 -c 'import matplotlib' 2>/dev/null; then
  python3 -m pip install --quiet matplotlib >/dev/null 2>&1 ||
    echo "setup: matplotlib not installed: the plot test will be skipped" >&2
fi

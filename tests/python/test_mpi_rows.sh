#!/usr/bin/env bash
# The Python module under mpirun -np 2 with a matrix of rows
# (mpi_rows_check.py). Skipped (77) without mpirun, mpi4py, or a library
# built without MPI. Environment: CMRS_LIBRARY, PYTHONPATH (CMake sets them).
set -u
py=${1:?usage: test_mpi_rows.sh PYTHON}
lib=${CMRS_LIBRARY:?CMRS_LIBRARY}
command -v mpirun >/dev/null || { echo "no mpirun: skipped"; exit 77; }
"$py" -c 'import mpi4py' 2>/dev/null || { echo "no mpi4py: skipped"; exit 77; }
ldd "$lib" | grep -q libmpi || { echo "libcmrs built without MPI: skipped"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
out=$(timeout 120 mpirun -np 2 "$py" "$(dirname "$0")/mpi_rows_check.py" 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "mpirun exited $rc"; exit 1; }
# (the ranks' lines may share one: count the reports, not the lines)
[ "$(grep -o 'rank [0-9]*: [0-9]* passed, 0 failed' <<<"$out" | wc -l)" -eq 2 ] ||
  { echo "not every rank passed"; exit 1; }

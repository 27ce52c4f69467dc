#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later (see foam/README.md)
# The exporter: pitzDaily's pressure system written at iteration 3 by
# solver cmrsExport (OpenFOAM's PCG solves, to 1e-12) and by solver cmrs
# (export at iterations 2 and 4); `cmrs solve` re-reads each file and
# reaches the solution OpenFOAM's solver returned (x_foam).
. "$(dirname "$0")/foam_env.sh"
python3 -c "import h5py" 2>/dev/null || { echo "SKIP: needs h5py"; exit 77; }
cmrs=${CMRS_BIN:?CMRS_BIN: the cmrs binary}
src=$FOAM_TUTORIALS/incompressible/simpleFoam/pitzDaily
c=$work/pcg
copy_case "$src" "$c"
set_entry "$c" controlDict endTime 4
set_entry "$c" fvSolution solvers/p "{solver cmrsExport; exportSolver PCG;
  preconditioner DIC; tolerance 1e-12; relTol 0; exportTimes (3);}"
simpleFoam -case "$c" >"$c/log" 2>&1 || { tail -20 "$c/log"; exit 1; }
f=$c/cmrsExport/p_3.h5
ls "$c/cmrsExport"
[ "$(ls "$c/cmrsExport")" = "p_3.h5" ] || { echo "FAIL: not only p_3.h5"; exit 1; }
"$cmrs" solve "$f" --device cpu --precond amg --rtol 1e-12 -o "$work/x.h5"
python3 "$FOAM_TESTS/check_export.py" "$f" "$work/x.h5" 1e-8

c=$work/cmrs
copy_case "$src" "$c"
set_entry "$c" controlDict endTime 4
set_entry "$c" fvSolution solvers/p "{solver cmrs; preconditioner amg;
  tolerance 1e-12; relTol 0; exportEvery 2; exportDir systems;}"
simpleFoam -case "$c" >"$c/log" 2>&1 || { tail -20 "$c/log"; exit 1; }
[ "$(ls "$c/systems" | tr '\n' ' ')" = "p_2.h5 p_4.h5 " ] ||
  { echo "FAIL: exported $(ls "$c/systems")"; exit 1; }
grep "cmrs: exported" "$c/log"
"$cmrs" solve "$c/systems/p_4.h5" --device cpu --rtol 1e-12 -o "$work/y.h5"
python3 "$FOAM_TESTS/check_export.py" "$c/systems/p_4.h5" "$work/y.h5" 1e-8
echo "PASS"

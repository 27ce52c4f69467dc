#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later (see foam/README.md)
# icoFoam's cavity, 20 time steps, p solved by OpenFOAM's PCG (DIC and
# diagonal) and by cmrs (jacobi and amg) to tolerance 1e-10: the fields at
# the end agree, and cmrs+jacobi needs about the iterations of
# diagonal-preconditioned PCG (the same preconditioner); the CSR pattern is
# built once for the 40 p solves.
. "$(dirname "$0")/foam_env.sh"
src=$FOAM_TUTORIALS/incompressible/icoFoam/cavity/cavity
tol=1e-10
run() {  # run NAME SOLVER PRECONDITIONER
  local c=$work/$1
  copy_case "$src" "$c"
  set_entry "$c" controlDict endTime 0.1
  set_entry "$c" controlDict writeInterval 20
  set_entry "$c" controlDict writePrecision 16
  for f in p pFinal; do
    set_entry "$c" fvSolution solvers/$f \
      "{solver $2; preconditioner $3; tolerance $tol; relTol 0;}"
  done
  local t0=$(date +%s%N)
  icoFoam -case "$c" >"$c/log" 2>&1 || { tail -20 "$c/log"; exit 1; }
  printf '%-12s p iterations %5d  %5.2f s\n' "$1" "$(p_iterations "$c/log")" \
    "$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN {print (b - a) / 1e9}')"
}
run dic PCG DIC
run diagonal PCG diagonal
run jacobi cmrs jacobi
run amg cmrs amg
grep -q "cmrs: libcmrs .* solving on" "$work/jacobi/log"
# The pattern is built once; the other 39 solves update values only.
[ "$(grep -c "cmrs: p: CSR pattern built" "$work/jacobi/log")" = 1 ] ||
  { echo "FAIL: the CSR pattern was built more than once"; exit 1; }
for c in jacobi amg; do
  for f in p U; do
    python3 "$FOAM_TESTS/fields.py" "$work/dic" "$work/$c" 0.1 $f 1e-6
  done
done
# Comparable iteration counts: cmrs+jacobi within 25% of diagonal PCG.
a=$(p_iterations "$work/diagonal/log"); b=$(p_iterations "$work/jacobi/log")
awk -v a="$a" -v b="$b" 'BEGIN {r = b / a; printf "iterations jacobi/diagonal: %.3f\n", r;
  exit !(r > 0.75 && r < 1.25)}'
echo "PASS"

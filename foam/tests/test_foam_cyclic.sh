#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later (see foam/README.md)
# A case with a cyclic pair (cases/cyclicCavity: two cavities side by side,
# periodic in x, one lid moving), 20 icoFoam steps: cmrs folds the cyclic
# coupling into its CSR matrix (and checks it against OpenFOAM's A*x at
# setup) and reaches PCG's fields; U is solved by cmrs too (BiCGStab: the
# asymmetric path, its cyclic coupling included). The same case with a
# cyclicAMI pair instead, which is not folded, stops with a FatalError
# naming it.
. "$(dirname "$0")/foam_env.sh"
cavity=$FOAM_TUTORIALS/incompressible/icoFoam/cavity/cavity
mine=$FOAM_TESTS/cases/cyclicCavity
run() {  # run NAME P-SOLVER U-SOLVER [ami]
  local c=$work/$1
  cp -r "$cavity" "$c"
  chmod -R u+w "$c"
  cp "$mine/blockMeshDict" "$c/system/"
  cp "$mine/U" "$mine/p" "$c/0/"
  if [ "${4:-}" = ami ]; then
    sed -i 's/type cyclic;/type cyclicAMI;/' "$c/0/U" "$c/0/p"
    sed -i -e 's/type cyclic; neighbourPatch right;/type cyclicAMI; neighbourPatch right; transform translational; separationVector (0.2 0 0);/' \
      -e 's/type cyclic; neighbourPatch left;/type cyclicAMI; neighbourPatch left; transform translational; separationVector (-0.2 0 0);/' \
      "$c/system/blockMeshDict"
  fi
  foamDictionary -case "$c" -entry libs -add '("libcmrsFoam.so")' \
    "$c/system/controlDict" >/dev/null
  blockMesh -case "$c" >"$c/log.blockMesh" 2>&1
  grep -q "left.*cyclic\|cyclic" "$c/constant/polyMesh/boundary"
  set_entry "$c" controlDict endTime 0.1
  set_entry "$c" controlDict writeInterval 20
  set_entry "$c" controlDict writePrecision 16
  for f in p pFinal; do set_entry "$c" fvSolution solvers/$f "$2"; done
  set_entry "$c" fvSolution solvers/U "$3"
  if [ "${4:-}" = ami ]; then
    ! icoFoam -case "$c" >"$c/log" 2>&1 || { echo "FAIL: cyclicAMI accepted"; exit 1; }
    grep "cannot fold .*cyclicAMI" "$c/log" || { tail -20 "$c/log"; exit 1; }
    return
  fi
  icoFoam -case "$c" >"$c/log" 2>&1 || { tail -20 "$c/log"; exit 1; }
  echo "$1: p iterations $(p_iterations "$c/log")"
}
run pcg "{solver PCG; preconditioner DIC; tolerance 1e-10; relTol 0;}" \
  "{solver PBiCGStab; preconditioner DILU; tolerance 1e-12; relTol 0;}"
run cmrs "{solver cmrs; preconditioner amg; tolerance 1e-10; relTol 0;}" \
  "{solver cmrs; preconditioner jacobi; tolerance 1e-12; relTol 0;}"
grep -m2 "cmrsBiCGStab:  Solving for Ux\|cmrsCG:  Solving for p" "$work/cmrs/log"
for f in p U; do
  python3 "$FOAM_TESTS/fields.py" "$work/pcg" "$work/cmrs" 0.1 $f 1e-6
done
run ami "{solver cmrs; preconditioner amg; tolerance 1e-10; relTol 0;}" \
  "{solver cmrs; preconditioner jacobi; tolerance 1e-12; relTol 0;}" ami
echo "PASS"

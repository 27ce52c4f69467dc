#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later (see foam/README.md)
# Bad entries of the cmrs solver's dictionary stop OpenFOAM with a
# FatalIOError naming the entry (and the case does not run on).
. "$(dirname "$0")/foam_env.sh"
src=$FOAM_TUTORIALS/incompressible/icoFoam/cavity/cavity
copy_case "$src" "$work/base"
set_entry "$work/base" controlDict endTime 0.01
n=0
expect() {  # expect P-DICTIONARY WORDS...: icoFoam fails, the log says them
  local c=$work/case$((n += 1)) dict=$1; shift
  cp -r "$work/base" "$c"
  for f in p pFinal; do set_entry "$c" fvSolution solvers/$f "$dict"; done
  if icoFoam -case "$c" >"$c/log" 2>&1; then
    echo "FAIL: icoFoam accepted $dict"; exit 1
  fi
  for w in "$@"; do
    grep -q -- "$w" "$c/log" || { echo "FAIL: no '$w' in:"; tail -20 "$c/log"; exit 1; }
  done
  echo "ok: $dict -> $(grep -m1 "cmrs:" "$c/log")"
}
expect "{solver cmrs; preconditioner DIC; tolerance 1e-6; relTol 0;}" \
  "FOAM FATAL IO ERROR" "entry 'preconditioner'" "DIC"
expect "{solver cmrs; preconditioner amg; tolerance abc; relTol 0;}" \
  "FOAM FATAL IO ERROR" "entry 'tolerance'" "abc"
expect "{solver cmrs; preconditioner amg; tolerance -1; relTol 0;}" \
  "FOAM FATAL IO ERROR" "entry 'tolerance'"
expect "{solver cmrs; preconditioner amg; tolerance 1e-6; relTol 2;}" \
  "FOAM FATAL IO ERROR" "entry 'relTol'"
expect "{solver cmrs; preconditioner amg; tolerance 1e-6; maxIter -5;}" \
  "FOAM FATAL IO ERROR" "entry 'maxIter'"
# (a non-integer maxIter is refused by fvMatrix itself, which reads it
# first: its message names the entry as fvSolution.solvers.p.maxIter)
expect "{solver cmrs; preconditioner amg; tolerance 1e-6; maxIter 2.5;}" \
  "FOAM FATAL IO ERROR" "solvers.p.maxIter"
expect "{solver cmrs; tolerance 1e-6; export maybe;}" \
  "FOAM FATAL IO ERROR" "entry 'export'"
echo "PASS"

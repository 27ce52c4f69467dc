#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later (see foam/README.md)
# foam/demo.sh [OUTDIR]: cmrs inside OpenFOAM. Installs Debian's OpenFOAM
# (v1912) when missing, builds cmrs with the plugin, then runs
#   cavity (icoFoam, 100 steps) and pitzDaily (simpleFoam, 20 iterations)
#   with OpenFOAM's PCG/GAMG and with cmrs for p, every p solve to
#   tolerance 1e-8 (relTol 0), and compares the final p and U and the time
#   spent in the p solves (OpenFOAM's profiling: lduMatrix::solver.p);
#   pitzDaily again with the tutorial's own settings (GAMG, tolerance 1e-6,
#   relTol 0.1, run until its residualControl stops it) against cmrs+amg
#   with the same tolerances (each compared at its own last iteration);
#   pitzDaily's pressure system exported at that run's iteration 200 and
#   run through `cmrs solve` and `cmrs compare` (jacobi and amg).
# Output: OUTDIR (default out/foam-demo) holds the cases, their logs and
# summary.txt. Needs root (or sudo) for apt-get when OpenFOAM is missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$root/out/foam-demo}" && cd "${1:-$root/out/foam-demo}" && pwd)
build=${BUILD_DIR:-$root/build}
tutorials=/usr/share/doc/openfoam-examples/examples/incompressible

if ! command -v icoFoam >/dev/null || [ ! -d "$tutorials" ]; then
  sudo_=""; [ "$(id -u)" -ne 0 ] && sudo_="sudo"
  echo "demo: installing OpenFOAM (apt: openfoam libopenfoam openfoam-examples)"
  $sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq openfoam \
    libopenfoam openfoam-examples >/dev/null
fi
bash "$root/scripts/setup.sh"
BUILD_DIR=$build bash "$root/scripts/build.sh" >/dev/null
lib=$build/foam/libcmrsFoam.so
[ -f "$lib" ] || { echo "demo: $lib was not built: OpenFOAM's source tree" \
  "was not found (set FOAM_SRC or -DCMRS_FOAM_SRC, see foam/README.md)" >&2; exit 1; }
set +eu
. /usr/share/openfoam/etc/bashrc >/dev/null 2>&1
set -eu
export LD_LIBRARY_PATH="$build/foam${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# run NAME APP TUTORIAL ENDTIME P-DICT [converge]: one case in $out/NAME,
# written at the end only; simpleFoam runs ENDTIME iterations, or with
# converge until the tutorial's residualControl stops it.
run() {
  local c=$out/$1
  rm -rf "$c"; cp -r "$3" "$c"; chmod -R u+w "$c"
  local cd_="foamDictionary -case $c"
  $cd_ -entry libs -add '("libcmrsFoam.so")' "$c/system/controlDict" >/dev/null
  $cd_ -entry profiling -add '{active true; cpuInfo false; memInfo false; sysInfo false;}' \
    "$c/system/controlDict" >/dev/null
  $cd_ -entry endTime -set "$4" "$c/system/controlDict" >/dev/null
  $cd_ -entry writeControl -set runTime "$c/system/controlDict" >/dev/null
  $cd_ -entry writeInterval -set "$4" "$c/system/controlDict" >/dev/null
  $cd_ -entry writePrecision -set 16 "$c/system/controlDict" >/dev/null
  if [ "$2" = simpleFoam ] && [ "${6:-}" != converge ]; then
    $cd_ -entry SIMPLE/residualControl -remove "$c/system/fvSolution" >/dev/null
  fi
  for f in p pFinal; do
    grep -q "^ *$f\b" "$c/system/fvSolution" || continue
    $cd_ -entry solvers/$f -set "$5" "$c/system/fvSolution" >/dev/null
  done
  blockMesh -case "$c" >"$c/log.blockMesh" 2>&1
  "$2" -case "$c" >"$c/log" 2>&1
}

# report NAME REFERENCE: one line of summary.txt, at each case's last time.
latest() { ls "$1" | grep -E '^[0-9.e+-]+$' | sort -g | tail -1; }
report() {
  local c=$out/$1 t=$(latest "$out/$1") tr=$(latest "$out/$2")
  local its=$(grep "Solving for p," "$c/log" | sed 's/.*No Iterations //' |
              awk '{s += $1} END {print s + 0}')
  local tp=$(awk '/description +"lduMatrix::solver.p"/ {f = 1}
                  f && /totalTime/ {printf "%.3f", $2; exit}' \
             "$c/$t/uniform/profiling")
  local te=$(grep "^ExecutionTime" "$c/log" | tail -1 | awk '{printf "%.3f", $3}')
  local dp=- du=-
  if [ "$1" != "$2" ]; then
    dp=$(python3 "$root/foam/tests/fields.py" "$out/$2" "$c" "$tr" p 1 "$t" | awk '{print $(NF-2)}')
    du=$(python3 "$root/foam/tests/fields.py" "$out/$2" "$c" "$tr" U 1 "$t" | awk '{print $(NF-2)}')
  fi
  printf '%-24s %5s %7s %10s %10s %11s %11s\n' "$1" "$t" "$its" "$tp" "$te" "$dp" "$du" |
    tee -a "$out/summary.txt"
}

tight="tolerance 1e-8; relTol 0;"
{
  echo "# $(date -u +%F) $(hostname): OpenFOAM $(dpkg-query -W -f='${Version}' openfoam 2>/dev/null || echo '?'), libcmrs on $(
    nvidia-smi -L 2>/dev/null | head -1 || echo 'the CPU back end (no GPU)')"
  echo "# p iterations summed over the run; time in the p solves (profiling) and total (s);"
  echo "# p, U: max|a - ref| / max|ref| at the end against the first run of each block"
  printf '%-24s %5s %7s %10s %10s %11s %11s\n' run time "p its" "p solve s" "total s" "p diff" "U diff"
} | tee "$out/summary.txt"
cav=$tutorials/icoFoam/cavity/cavity
run cavity-PCG-DIC icoFoam "$cav" 0.5 "{solver PCG; preconditioner DIC; $tight}"
run cavity-GAMG icoFoam "$cav" 0.5 "{solver GAMG; smoother GaussSeidel; $tight}"
run cavity-cmrs-amg icoFoam "$cav" 0.5 "{solver cmrs; preconditioner amg; $tight}"
run cavity-cmrs-jacobi icoFoam "$cav" 0.5 "{solver cmrs; preconditioner jacobi; $tight}"
for r in cavity-PCG-DIC cavity-GAMG cavity-cmrs-amg cavity-cmrs-jacobi; do
  report $r cavity-PCG-DIC
done
pd=$tutorials/simpleFoam/pitzDaily
run pitzDaily-GAMG simpleFoam "$pd" 20 "{solver GAMG; smoother GaussSeidel; $tight}"
run pitzDaily-PCG-DIC simpleFoam "$pd" 20 "{solver PCG; preconditioner DIC; $tight}"
run pitzDaily-cmrs-amg simpleFoam "$pd" 20 "{solver cmrs; preconditioner amg; $tight}"
for r in pitzDaily-GAMG pitzDaily-PCG-DIC pitzDaily-cmrs-amg; do
  report $r pitzDaily-GAMG
done
echo "# pitzDaily with the tutorial's p settings (tolerance 1e-6, relTol 0.1), to its residualControl; GAMG exports p at 200" |
  tee -a "$out/summary.txt"
run pitzDaily-tutorial-GAMG simpleFoam "$pd" 2000 "{solver cmrsExport; exportSolver GAMG;
  smoother GaussSeidel; tolerance 1e-6; relTol 0.1; exportTimes (200);}" converge
run pitzDaily-tutorial-cmrs simpleFoam "$pd" 2000 "{solver cmrs; preconditioner amg;
  tolerance 1e-6; relTol 0.1;}" converge
for r in pitzDaily-tutorial-GAMG pitzDaily-tutorial-cmrs; do
  report $r pitzDaily-tutorial-GAMG
done

sys=$out/pitzDaily-tutorial-GAMG/cmrsExport/p_200.h5
echo "# exported: $sys" | tee -a "$out/summary.txt"
"$build/cmrs" solve "$sys" --precond amg -o "$out/p_200.result.h5" | tee -a "$out/summary.txt"
"$build/cmrs" compare "$sys" --preconds jacobi,amg | tee -a "$out/summary.txt"
echo "demo: done; $out/summary.txt"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later (see foam/README.md)
# foam/export-cases.sh [OUTDIR]: the inputs of issue 31's GPU goal, made on a
# machine with OpenFOAM (Debian's v1912) and the plugin built (build/foam).
# For pitzDaily (simpleFoam tutorial, 12225 cells) and pitzDaily refined by
# SCALE in x and y (every block's cell count times SCALE, rounded: 9.05 gives
# 1001516 cells):
#   A. iterations 1..N-2 with the tutorial's settings (p: GAMG, tolerance
#      1e-6, relTol 0.1), residualControl off, written (binary) at N-2;
#   B. restart, iterations N-1 and N with p by cmrsExport + GAMG (the
#      tutorial's smoother GaussSeidel) to tolerance 1e-8, relTol 0, written
#      at both; p exported at N (GAMG's solve there is a warm one: the
#      agglomeration was made at N-1, as in a running case);
#   C. (PCG=1) restart from B's N-1, iteration N with cmrsExport + PCG/DIC,
#      same tolerances: the same system (checked: A, b, x0 identical);
#   the exports compressed (foam/pack_export.py: shuffle + gzip 6, x_foam
#   left out over 100000 rows) and checked with `cmrs info` and
#   `cmrs solve --device cpu` (amg and jacobi).
# The p-solve time is OpenFOAM's profiling (controlDict: profiling): the
# totalTime of the inner "lduMatrix::solver.p" (the GAMG/PCG object's life:
# its construction, which makes GAMG's coarse matrices, and its solve; the
# outer one is cmrsExport's, which adds the export), at time N minus at N-1.
# Output: OUTDIR (default out/foam-export): the cases with their logs,
# files/*.h5 (compressed) and summary.txt.
# The two solves are timed REPEATS more times (retime, below; 0: none).
# Environment: SCALE (9.05), N_SMALL (50), N_LARGE (50), PCG (1), REPEATS (3),
# XFOAM_MAX_ROWS (100000), BUILD_DIR (build), CASES ("pitzDaily pitzDaily-1M").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$root/out/foam-export}" && cd "${1:-$root/out/foam-export}" && pwd)
build=${BUILD_DIR:-$root/build}
scale=${SCALE:-9.05}
n_small=${N_SMALL:-50}
n_large=${N_LARGE:-50}
pcg=${PCG:-1}
cases=${CASES:-pitzDaily pitzDaily-1M}
tutorial=/usr/share/doc/openfoam-examples/examples/incompressible/simpleFoam/pitzDaily
[ -f "$build/foam/libcmrsFoam.so" ] || { echo "export-cases: $build/foam/libcmrsFoam.so" \
  "is missing (build cmrs with OpenFOAM's source tree, foam/README.md)" >&2; exit 1; }
python3 -c 'import h5py, scipy' 2>/dev/null || { echo "export-cases: needs" \
  "Python's h5py and scipy (apt-get install python3-h5py python3-scipy)" >&2; exit 1; }
set +eu
. /usr/share/openfoam/etc/bashrc >/dev/null 2>&1
set -eu
command -v simpleFoam >/dev/null || { echo "export-cases: OpenFOAM is not installed" \
  "(apt-get install openfoam libopenfoam openfoam-examples)" >&2; exit 1; }
export LD_LIBRARY_PATH="$build/foam${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

set_() { foamDictionary -case "$1" -entry "$3" -set "$4" "$1/system/$2" >/dev/null; }

# profiled TIMEDIR: calls and totalTime of lduMatrix::solver.p, the inner one
# where cmrsExport's holds GAMG's/PCG's.
profiled() {
  awk '/^ *trigger[0-9]+$/ {id = ""; par = ""; d = ""}
       $1 == "id" {id = $2 + 0} $1 == "parentId" {par = $2 + 0}
       $1 == "description" {d = $2}
       $1 == "calls" {calls[id] = $2 + 0}
       $1 == "totalTime" {tt[id] = $2 + 0; desc[id] = d; parent[id] = par}
       END {p = "\"lduMatrix::solver.p\";"; best = -1
            for (i in desc) if (desc[i] == p && (best < 0 || desc[parent[i]] == p)) best = i
            if (best >= 0) printf "%d %.6f\n", calls[best], tt[best]}' "$1/uniform/profiling"
}

# solve_time CASE T: seconds of the inner p solver at time T alone.
solve_time() {
  local prev=$(ls "$1" | grep -E '^[0-9]+$' | sort -n | awk -v t="$2" '$1 < t' | tail -1)
  local b=$(profiled "$1/$2") a=0
  [ -f "$1/$prev/uniform/profiling" ] && a=$(profiled "$1/$prev" | awk '{print $2}')
  echo "$b" | awk -v a="${a:-0}" '{printf "%.3f", $2 - a}'
}

# p_line CASE T: GAMG's/PCG's "Solving for p" line of iteration T.
p_line() {
  awk -v t="$2" '$1 == "Time" && $2 == "=" {on = ($3 == t)}
                 on && /Solving for p,/' "$1/log.simpleFoam"
}

# make_case NAME SCALE N: phases A and B (and C) of one case, in $out/NAME.
make_case() {
  local c=$out/$1 s=$2 n=$3
  rm -rf "$c"; cp -r "$tutorial" "$c"; chmod -R u+w "$c"
  if [ "$s" != 1 ]; then
    # the line after each "hex (...)" is its cell counts (nx ny 1)
    awk -v s="$s" 'prev ~ /^ *hex / && match($0, /\( *[0-9]+ +[0-9]+ +1 *\)/) {
        split(substr($0, RSTART + 1, RLENGTH - 2), a, " ")
        $0 = substr($0, 1, RSTART - 1) "(" int(a[1] * s + 0.5) " " int(a[2] * s + 0.5) " 1)" \
             substr($0, RSTART + RLENGTH)}
      {print; prev = $0}' "$tutorial/system/blockMeshDict" >"$c/system/blockMeshDict"
  fi
  foamDictionary -case "$c" -entry libs -add '("libcmrsFoam.so")' "$c/system/controlDict" >/dev/null
  foamDictionary -case "$c" -entry profiling -add \
    '{active true; cpuInfo false; memInfo false; sysInfo false;}' "$c/system/controlDict" >/dev/null
  foamDictionary -case "$c" -entry functions -remove "$c/system/controlDict" >/dev/null
  foamDictionary -case "$c" -entry SIMPLE/residualControl -remove "$c/system/fvSolution" >/dev/null
  set_ "$c" controlDict writeFormat binary
  set_ "$c" controlDict writePrecision 17
  set_ "$c" controlDict writeControl timeStep
  blockMesh -case "$c" >"$c/log.blockMesh" 2>&1
  checkMesh -case "$c" >"$c/log.checkMesh" 2>&1 || true
  # A: to N-2, tutorial settings, written at the end
  set_ "$c" controlDict endTime $((n - 2))
  set_ "$c" controlDict writeInterval $((n - 2))
  local t0=$(date +%s)
  simpleFoam -case "$c" >"$c/log.simpleFoam.A" 2>&1
  # B: N-1 and N, p to 1e-8 by GAMG, exported at N (A's profiling moved
  # aside: B's own starts from zero)
  mv "$c/$((n - 2))/uniform/profiling" "$c/profiling.A"
  set_ "$c" controlDict startFrom latestTime
  set_ "$c" controlDict endTime "$n"
  set_ "$c" controlDict writeInterval 1
  set_ "$c" fvSolution solvers/p "{solver cmrsExport; exportSolver GAMG; smoother GaussSeidel;
    tolerance 1e-8; relTol 0; maxIter 100000; exportTimes ($n); exportDir \"$c/export-GAMG\";}"
  simpleFoam -case "$c" >"$c/log.simpleFoam" 2>&1
  local t1=$(date +%s)
  echo "$1: cells $(awk '/^ *cells:/ {print $2}' "$c/log.checkMesh"), iterations" \
    "1-$((n - 2)) (tutorial p settings) + $((n - 1))-$n (p by GAMG to 1e-8): $((t1 - t0)) s" |
    tee -a "$out/summary.txt"
  echo "  GAMG at $((n - 1)) (first solve, agglomeration included): $(p_line "$c" $((n - 1)) |
    sed 's/.*No Iterations/iterations/'), $(solve_time "$c" $((n - 1))) s" | tee -a "$out/summary.txt"
  echo "  GAMG at $n (exported):  $(p_line "$c" "$n" | sed 's/.*Solving for p, //'), p solve" \
    "$(solve_time "$c" "$n") s" | tee -a "$out/summary.txt"
  if [ "$pcg" = 1 ]; then
    # C: the same system (from B's N-1) by PCG/DIC
    local d=$out/$1-PCG
    rerun "$c" "$d" $((n - 1)) "{solver cmrsExport; exportSolver PCG; preconditioner DIC;
      tolerance 1e-8; relTol 0; maxIter 100000; exportTimes ($n); exportDir \"$c/export-PCG\";}"
    echo "  PCG/DIC at $n (same system): $(p_line "$d" "$n" | sed 's/.*Solving for p, //')," \
      "p solve $(solve_time "$d" "$n") s" | tee -a "$out/summary.txt"
    python3 - "$c/export-GAMG/p_$n.h5" "$c/export-PCG/p_$n.h5" <<'EOF' | tee -a "$out/summary.txt"
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
same = all(np.array_equal(a[k][()], b[k][()]) for k in
           ("A/data", "A/indices", "A/indptr", "b", "x0"))
d = np.abs(a["x_foam"][()] - b["x_foam"][()]).max() / np.abs(a["x_foam"][()]).max()
print("  GAMG's and PCG's exports: A, b, x0 %s; x_foam differ by %.2e (max rel.)"
      % ("identical" if same else "DIFFER", d))
EOF
  fi
  mkdir -p "$out/files"
  local f=$c/export-GAMG/p_$n.h5 g=$out/files/$1-p_$n.h5
  python3 "$root/foam/pack_export.py" "$f" "$g" "${XFOAM_MAX_ROWS:-100000}" |
    tee -a "$out/summary.txt"
  echo "  $g: $(stat -c %s "$f") bytes -> $(stat -c %s "$g")" | tee -a "$out/summary.txt"
  "$build/cmrs" info "$g" | grep -iE 'rows|nonzero' | sed 's/^/    /' | tee -a "$out/summary.txt"
  for pc in amg jacobi; do
    "$build/cmrs" solve "$g" --device cpu --precond $pc 2>&1 |
      grep -E '^ *(result|residual|time) ' | sed "s/^ */    $pc: /" | tee -a "$out/summary.txt"
  done
}

# rerun CASE DIR T DICT: simpleFoam again in DIR, a scratch copy of CASE
# from time T (its profiling dropped), with DICT as p's solver.
rerun() {
  local c=$1 d=$2 t=$3
  rm -rf "$d"; mkdir -p "$d"; cp -r "$c/constant" "$c/system" "$c/$t" "$d/"
  rm -f "$d/$t/uniform/profiling"
  set_ "$d" fvSolution solvers/p "$4"
  simpleFoam -case "$d" >"$d/log.simpleFoam" 2>&1
}

# timed CASE T: "S s (N its)" of the p solve at T.
timed() {
  echo "$(solve_time "$1" "$2") s ($(p_line "$1" "$2" | sed 's/.*No Iterations //') its)"
}

# retime NAME N: REPEATS more timings of the exported solve (the machine may
# be shared): B again from N-2 with plain GAMG (no export), C again from B's
# N-1 with PCG; each run in a scratch copy; the minimum is what to quote.
retime() {
  local c=$out/$1 n=$2 d=$out/$1-retime r g p gs="" ps=""
  for r in $(seq "${REPEATS:-3}"); do
    rerun "$c" "$d" $((n - 2)) "{solver GAMG; smoother GaussSeidel; tolerance 1e-8;
      relTol 0; maxIter 100000;}"
    g=$(timed "$d" "$n")
    if [ "$pcg" = 1 ]; then
      rerun "$c" "$d" $((n - 1)) "{solver PCG; preconditioner DIC; tolerance 1e-8;
        relTol 0; maxIter 100000;}"
      p=$(timed "$d" "$n")
    fi
    echo "  retime $r: GAMG $g, PCG/DIC ${p:--}; load average $(cut -d' ' -f1-3 /proc/loadavg)" |
      tee -a "$out/summary.txt"
  done
  rm -rf "$d"
}

echo "# $(date -u '+%F %T') $(hostname): OpenFOAM $(dpkg-query -W -f='${Version}' openfoam 2>/dev/null || echo '?')," \
  "SCALE $scale, N $n_small/$n_large" | tee "$out/summary.txt"
for name in $cases; do
  case $name in
    pitzDaily) make_case "$name" 1 "$n_small"; retime "$name" "$n_small" ;;
    *) make_case "$name" "$scale" "$n_large"; retime "$name" "$n_large" ;;
  esac
done
echo "export-cases: done; $out/summary.txt"

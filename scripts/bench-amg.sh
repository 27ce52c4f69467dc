#!/usr/bin/env bash
# AMG and Chebyshev against Jacobi-PCG on the GPU (issue 12's cases): one
# `cmrs compare` per case with --preconds jacobi,chebyshev,amg (setup and
# solve per row, JSON), then `cmrs solve --precond amg` for the hierarchy
# and the V-cycle time per level, and AMG variants on the 0.5M vessel.
# Usage: scripts/bench-amg.sh BUILD OUTDIR [CASES...]
#   CASES: v500k v5m v50m p200 contrast variants (default v500k v5m p200
#   variants; variants: AMG options on the 0.5M vessel)
set -uo pipefail
build=${1:?usage: bench-amg.sh BUILD OUTDIR [CASES]}
out=${2:?usage: bench-amg.sh BUILD OUTDIR [CASES]}
shift 2
cases=${*:-v500k v5m p200 variants}
cmrs=$build/cmrs
data=${DATA:-/tmp/amg-data}
mkdir -p "$out" "$data"

gen() { # name -> file (generated once)
  local f=$data/$1.h5
  [ -f "$f" ] && { echo "$f"; return; }
  case $1 in
    v500k) $cmrs gen vessel --cells 500000 -o "$f" ;;
    v5m) $cmrs gen vessel --cells 5000000 -o "$f" ;;
    v50m) $cmrs gen vessel --cells 50000000 -o "$f" ;;
    p200) $cmrs gen poisson3d --n 200 -o "$f" ;;
    contrast) $cmrs gen poisson3d --n 128 --contrast 4 -o "$f" ;;
  esac >/dev/null
  echo "$f"
}

for c in ${cases/variants/}; do
  f=$(gen "$c")
  echo "== $c: compare jacobi, chebyshev, amg"
  $cmrs compare "$f" --formats cmrs --preconds jacobi,chebyshev,amg \
    --repeat 3 --json "$out/compare_$c.json" | tee "$out/compare_$c.txt"
  echo "== $c: amg hierarchy"
  $cmrs solve "$f" --precond amg --json "$out/solve_amg_$c.json" \
    | tee "$out/solve_amg_$c.txt"
done
[[ " $cases " == *" variants "* ]] || exit 0
f=$(gen v500k)
for v in "--amg-agg pairwise --amg-prolong plain --amg-theta 0.08" \
         "--amg-agg handshake" "--amg-theta 0.04" "--amg-smoother chebyshev" \
         "--amg-sweeps 2" "--amg-format csr-scalar" "--amg-format sell"; do
  echo "== v500k amg $v"
  $cmrs solve "$f" --precond amg $v | tail -n +2
done 2>&1 | tee "$out/variants_v500k.txt"

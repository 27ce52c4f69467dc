#!/usr/bin/env bash
# The parameter study of docs/BENCHMARKS.md on a GPU machine: cmrs sweep over
# height x precision x format on the benchmark cases, convergence histories
# of cmrs and cusparse, and the plots (scripts/plot.py).
# Usage: scripts/sweep-set.sh OUTDIR   (cases: scripts/bench-cases.sh)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: sweep-set.sh OUTDIR}
mkdir -p "$out"
. scripts/bench-cases.sh
gen_cases $spmv_cases || exit 2
files=()
for c in $spmv_cases; do files+=("$cases/$c.h5"); done
$cmrs sweep "${files[@]}" \
  --formats cmrs,cmrs-mod,cusparse,csr-scalar,csr-vector --height auto,1-16 \
  --precision double,single --repeat 50 -q --csv "$out/sweep.csv" --json "$out/sweep.json"
echo "sweep rc=$?"
for f in cmrs cusparse; do
  $cmrs solve "$cases/vessel_0.5M.h5" --spmv $f --device gpu -q --json "$out/solve_vessel_0.5M_$f.json"
done
python3 scripts/plot.py -o "$out/plots" "$out/sweep.csv" "$out"/solve_vessel_0.5M_*.json
ls "$out/plots"

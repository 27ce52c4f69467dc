#!/usr/bin/env bash
# Every registry format on the SpMV benchmark set (double): cmrs bench with
# the default --formats (all), CSVs into OUTDIR. Usage: bench-formats.sh OUTDIR
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench-formats.sh OUTDIR}
mkdir -p "$out"
. scripts/bench-cases.sh
gen_cases $spmv_cases || exit 2
for c in $spmv_cases; do
  echo "== $c"
  $cmrs bench "$cases/$c.h5" --repeat 100 --csv "$out/bench_${c}_double.csv" | tail -n 11
done

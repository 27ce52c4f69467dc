#!/usr/bin/env bash
# Every registry format on the SpMV benchmark set (double): cmrs bench with
# the default --formats (all), CSVs into OUTDIR. Usage: bench-formats.sh OUTDIR
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench-formats.sh OUTDIR}
cmrs=${CMRS:-build-gpu/cmrs}
cases=${CASES_DIR:-/tmp/cmrs-cases}
mkdir -p "$out" "$cases"
gen() { local name=$1; shift; [ -f "$cases/$name.h5" ] || $cmrs gen "$@" -o "$cases/$name.h5" >/dev/null; }
gen vessel_0.5M vessel --cells 500000
gen vessel_5M vessel --cells 5000000
gen poisson7_200 poisson3d --n 200 --stencil 7
gen poisson27_128 poisson3d --n 128 --stencil 27
gen poisson7_200_random poisson3d --n 200 --stencil 7 --order random
for c in vessel_0.5M vessel_5M poisson7_200 poisson27_128 poisson7_200_random; do
  echo "== $c"
  $cmrs bench "$cases/$c.h5" --repeat 100 --csv "$out/bench_${c}_double.csv" | tail -n 11
done

#!/usr/bin/env bash
# The benchmark set of docs/BENCHMARKS.md, on a GPU machine:
#   SpMV (cmrs bench, double and single): vessel 0.5M / 5M / 50M cells,
#   7-point Poisson 200^3 (natural and random order), 27-point 128^3;
#   time-to-solution (cmrs compare, double, rtol 1e-8): vessel 0.5M, 5M,
#   Poisson 200^3.
# Usage: scripts/bench-set.sh OUTDIR [quick|full]   (quick: smaller cases)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench-set.sh OUTDIR [quick|full]}
mode=${2:-full}
mkdir -p "$out"
gen_log="$out/gen.log"
. scripts/bench-cases.sh

if [ "$mode" = quick ]; then
  set_spmv="vessel_0.5M poisson7_100"
  set_solve="vessel_0.5M poisson7_100"
else
  set_spmv="vessel_0.5M vessel_5M vessel_50M poisson7_200 poisson27_128 poisson7_200_random"
  set_solve="vessel_0.5M vessel_5M poisson7_200"
fi
gen_cases $set_spmv || exit 2
cat "$gen_log"

for c in $set_spmv; do
  for p in double single; do
    echo "== bench $c $p"
    $cmrs bench "$cases/$c.h5" --precision $p --repeat 100 \
      --json "$out/bench_${c}_$p.json" --csv "$out/bench_${c}_$p.csv" 2>&1 | tee "$out/bench_${c}_$p.txt"
  done
done
for c in $set_solve; do
  echo "== compare $c"
  $cmrs compare "$cases/$c.h5" --device gpu --rtol 1e-8 --repeat 3 \
    --json "$out/compare_$c.json" --csv "$out/compare_$c.csv" 2>&1 | tee "$out/compare_$c.txt"
done

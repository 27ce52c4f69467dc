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
cmrs=${CMRS:-build-gpu/cmrs}
cases=${CASES_DIR:-/tmp/cmrs-cases}
mkdir -p "$out" "$cases"

gen() { # gen NAME args...
  local name=$1; shift
  [ -f "$cases/$name.h5" ] || $cmrs gen "$@" -o "$cases/$name.h5" | tee -a "$out/gen.log"
}
if [ "$mode" = quick ]; then
  gen vessel_0.5M vessel --cells 500000
  gen poisson7_100 poisson3d --n 100 --stencil 7
  set_spmv="vessel_0.5M poisson7_100"
  set_solve="vessel_0.5M poisson7_100"
else
  gen vessel_0.5M vessel --cells 500000
  gen vessel_5M vessel --cells 5000000
  gen vessel_50M vessel --cells 50000000
  gen poisson7_200 poisson3d --n 200 --stencil 7
  gen poisson7_200_random poisson3d --n 200 --stencil 7 --order random
  gen poisson27_128 poisson3d --n 128 --stencil 27
  set_spmv="vessel_0.5M vessel_5M vessel_50M poisson7_200 poisson27_128 poisson7_200_random"
  set_solve="vessel_0.5M vessel_5M poisson7_200"
fi

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

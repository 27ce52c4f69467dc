#!/usr/bin/env bash
# Two builds of cmrs on the same cases in one call, alternating case by
# case (the only fair way to compare them: same card, same run): `cmrs
# bench` in both precisions and `cmrs compare` (Jacobi and AMG), then the
# before/after table (scripts/bench-ab-table.py). Used for refactors that
# must not change the figures (issue 28: docs/BENCHMARKS.md "The redesign").
# Usage: scripts/bench-ab.sh OUTDIR CMRS_BEFORE CMRS_AFTER [CASE...]
#   (cases of scripts/bench-cases.sh; default vessel_0.5M vessel_5M
#    poisson7_200 poisson27_128; compare runs on the first three)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench-ab.sh OUTDIR CMRS_BEFORE CMRS_AFTER [CASE...]}
before=${2:?usage}; after=${3:?usage}; shift 3
cs=${*:-vessel_0.5M vessel_5M poisson7_200 poisson27_128}
cmrs=$after; cases=${CASES_DIR:-/tmp/cmrs-cases}
. scripts/bench-cases.sh
gen_cases $cs || exit 2
mkdir -p "$out"
bin_of() { [ "$1" = before ] && echo "$before" || echo "$after"; }
for c in $cs; do for p in double single; do for v in before after; do
  timeout 100 "$(bin_of $v)" bench "$cases/$c.h5" --precision $p --repeat 50 \
    --json "$out/bench_${c}_${p}_$v.json" > "$out/bench_${c}_${p}_$v.txt" 2>&1 ||
    echo "bench $c $p $v: exit $?"
done; done; done
for c in $(echo $cs | cut -d' ' -f1-3); do for v in before after; do
  timeout 100 "$(bin_of $v)" compare "$cases/$c.h5" --device gpu --rtol 1e-8 --repeat 3 \
    --preconds jacobi,amg --json "$out/compare_${c}_$v.json" > "$out/compare_${c}_$v.txt" 2>&1 ||
    echo "compare $c $v: exit $?"
done; done
python3 scripts/bench-ab-table.py "$out" | tee "$out/table.md"

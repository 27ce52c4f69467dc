#!/usr/bin/env bash
# The engines benchmark (docs/BENCHMARKS.md "Engines"), on the GPU machine:
#   1. `cmrs compare` of formats x engines (cublas, graph, fused) on the
#      four cases of issue 6, double, Jacobi-PCG, rtol 1e-8: time per
#      iteration over the byte floor;
#   2. CuPy's Jacobi-PCG on the same files, where CuPy is installed;
#   3. where one fused iteration's time goes: ncu kernel durations against
#      the measured time per iteration (the rest is launch gaps).
# Usage: scripts/bench-engines.sh OUTDIR   (env: CMRS, ENGINE_CASES,
#        FORMATS, ENGINES, REPEAT, NCU_CASES)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench-engines.sh OUTDIR}
mkdir -p "$out"
. scripts/bench-cases.sh
list=${ENGINE_CASES:-"vessel_0.5M vessel_5M poisson7_200 poisson27_128"}
gen_log="$out/gen.log" gen_cases $list || exit 1

for c in $list; do
  echo "== compare $c"
  timeout 400 "$cmrs" compare "$cases/$c.h5" --device gpu \
    --formats "${FORMATS:-cmrs,cusparse}" \
    --engines "${ENGINES:-cublas,graph,fused}" --repeat "${REPEAT:-5}" \
    --json "$out/engines_$c.json" --csv "$out/engines_$c.csv" \
    | tee "$out/engines_$c.txt"
done

if python3 -c "import cupy, h5py" 2>/dev/null; then
  for c in $list; do
    echo "== cupy $c"
    timeout 300 python3 scripts/cupy-pcg.py "$cases/$c.h5" \
      --json "$out/cupy_$c.json" && cat "$out/cupy_$c.json"
  done
else
  echo "== cupy: not installed, skipped"
fi

# ncu: 60 kernels from the middle of a fused solve (skipping setup and the
# first blocks); gpu__time_duration per kernel, caches left warm as in the
# solve (--cache-control none).
if command -v ncu >/dev/null; then
  for c in ${NCU_CASES:-vessel_0.5M vessel_5M}; do
    for fmt in cmrs cusparse; do
      echo "== ncu $c $fmt"
      timeout 300 ncu --clock-control none --cache-control none --csv \
        --metrics gpu__time_duration.sum --launch-skip 2000 \
        --launch-count 60 "$cmrs" solve "$cases/$c.h5" --spmv "$fmt" \
        --engine fused --device gpu -q --maxiter 1000 \
        >"$out/ncu_${c}_$fmt.csv" 2>"$out/ncu_${c}_$fmt.err"
      python3 scripts/ncu-breakdown.py "$out/ncu_${c}_$fmt.csv" \
        | tee "$out/ncu_${c}_$fmt.txt"
    done
  done
fi

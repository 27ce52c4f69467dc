#!/usr/bin/env bash
# One device call (see docs/BENCHMARKS.md): the GPU check with the full
# benchmark set, the height study, all packed into $OUT (the device tool
# returns at most 8 files). Usage: scripts/device-run.sh [quick|full]
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-full}
res=/tmp/cmrs-results
rm -rf "$res"; mkdir -p "$res"
timeout 480 bash scripts/gpu-check.sh "$res" "$mode" 2>&1 | tee "$res/gpu-check.txt" | tail -120
if [ -n "${HEIGHTS:-}" ]; then
  C=build-gpu/cmrs
  timeout 100 env VARIANTS="$HEIGHTS" bash scripts/bench-heights.sh "$res/heights" double \
    /tmp/cmrs-cases/vessel_5M.h5 /tmp/cmrs-cases/poisson7_200.h5
fi
tar czf "${OUT:-/tmp}/results.tgz" -C /tmp cmrs-results
cp "$res/ctest.log" "${OUT:-/tmp}/" 2>/dev/null

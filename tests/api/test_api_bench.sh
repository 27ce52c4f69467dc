#!/usr/bin/env bash
# scripts/bench-api.sh on the CPU back end with small sizes (it runs on the
# GPU machine for the recorded figures): it must run to the end and write
# a JSON object and a CSV row per size, and the time-loop outputs.
# Usage: test_api_bench.sh CMRS_BINARY (its folder is the build tree).
set -uo pipefail
build=$(dirname "$1")
src=${CMRS_SOURCE_DIR:?}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
BENCH_DEVICE=cpu BENCH_CELLS="2000 4000" BENCH_REPS=3 BENCH_LOOP_N=20 \
  BENCH_LOOP_STEPS=4 bash "$src/scripts/bench-api.sh" "$build" "$out" \
  > "$out/log" 2>&1 || { cat "$out/log"; echo "FAIL: bench-api.sh"; exit 1; }
fail=0
for c in 2000 4000; do
  grep -q '"setup_s": [0-9]' "$out/api_$c.json" &&
    grep -q '"spmv_s": [0-9]' "$out/api_$c.json" &&
    grep -q '"update_device_s": -1' "$out/api_$c.json" ||
    { echo "FAIL: api_$c.json"; cat "$out/api_$c.json"; fail=1; }
  grep -q "^$c," "$out/api.csv" || { echo "FAIL: no CSV row for $c"; fail=1; }
done
grep -q "upd_d/sp" "$out/log" || { echo "FAIL: no table"; fail=1; }
grep -q "per step" "$out/time_loop.txt" &&
  grep -q "per step" "$out/time_loop_recreate.txt" ||
  { echo "FAIL: time_loop outputs"; fail=1; }
[ $fail = 0 ] && echo "bench-api.sh on the CPU: ok"
exit $fail

#!/usr/bin/env bash
# scripts/bench-loop.sh on the CPU back end with a small vessel and 3
# steps (it runs on the GPU machine for the recorded figures): every
# configuration must write its JSON (per-step arrays of 3, converged) and
# a table row.
# Usage: test_api_loop_bench.sh CMRS_BINARY (its folder is the build tree).
set -uo pipefail
build=$(dirname "$1")
src=${CMRS_SOURCE_DIR:?}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
CASES_DIR="$out/cases" BENCH_DEVICE=cpu BENCH_CELLS=3000 BENCH_LOOP_STEPS=3 \
  bash "$src/scripts/bench-loop.sh" "$out" "$build" > "$out/log" 2>&1 ||
  { cat "$out/log"; echo "FAIL: bench-loop.sh"; exit 1; }
fail=0
for config in jacobi amg-full amg-frozen; do
  j="$out/loop_3000_${config}_host.json"
  grep -q '"iterations": \[[0-9]*, [0-9]*, [0-9]*\]' "$j" &&
    grep -q '"all_converged": true' "$j" &&
    grep -q '"update_s_median": [0-9]' "$j" ||
    { echo "FAIL: $j"; cat "$j"; fail=1; }
  grep -q "^3000 *$config *host" "$out/log" ||
    { echo "FAIL: no table row for $config"; fail=1; }
done
cat "$out/log"
# A bad option value is refused with the usage.
msg=$("$build/bench/time_loop_bench" x --amg-update partial 2>&1)
[ $? = 2 ] && grep -q usage <<<"$msg" ||
  { echo "FAIL: bad --amg-update accepted: $msg"; fail=1; }
[ $fail = 0 ] && echo "bench-loop.sh on the CPU: ok"
exit $fail

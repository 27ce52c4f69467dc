#!/usr/bin/env bash
# scripts/bench-wide.sh (issue 29's wider set) with DRY=1 on a small case:
# the case made and readable, the bench (double, single) and compare lines
# listed with their flags, --kernel-choice passed through; then
# scripts/bench-wide-table.py on made-up JSON in the bench/compare layouts
# (not measurements): cmrs's rank among the formats that ran, the fastest,
# the Jacobi-PCG cells, "-" where a file is missing, exit 2 on an empty
# folder. Skipped (77) without python3.
set -u
cmrs=$1
. "$(dirname "$0")/../cli_harness.sh"
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }
src=${CMRS_SOURCE_DIR:?}

expect 0 env CMRS="$cmrs" CASES_DIR="$tmp/cases" WIDE_CASES=poisson7_50 \
  KERNEL_CHOICE=measure DRY=1 bash "$src/scripts/bench-wide.sh" "$tmp/res"
cp "$tmp/out" "$tmp/script.out"
expect 0 "$cmrs" info "$tmp/cases/poisson7_50.h5"
has out "^nonzeros *860000\$" "the case"
for p in double single; do
  grep -q "^dry: $cmrs bench .*poisson7_50.h5 --precision $p --repeat 50 --json $tmp/res/bench_poisson7_50_$p.json\$" \
    "$tmp/script.out" && ok || bad "no bench line for $p"
done
grep -q "^dry: $cmrs compare .*poisson7_50.h5 --device gpu --preconds jacobi --formats cmrs,cusparse --rtol 1e-8 --repeat 3 --kernel-choice measure --json $tmp/res/compare_poisson7_50.json\$" \
  "$tmp/script.out" && ok || bad "no compare line"

t=$tmp/table
mkdir -p "$t"
cat >"$t/bench_p_double.json" <<'JSON'
{"formats": [
 {"name": "cusparse", "status": "ok", "time_s": {"median": 3e-5}, "eta_plus": 0.5},
 {"name": "cmrs", "status": "ok", "time_s": {"median": 2e-5}, "eta_plus": 0.75},
 {"name": "cmrs-mod", "status": "ok", "time_s": {"median": 1e-5}, "eta_plus": 0.9},
 {"name": "hyb", "status": "error", "time_s": {"median": 1e-9}}]}
JSON
cat >"$t/compare_p.json" <<'JSON'
{"results": [{"format": "cmrs", "time_per_iteration_s": 4e-5},
             {"format": "cusparse", "time_per_iteration_s": 5e-5}]}
JSON
expect 0 python3 "$src/scripts/bench-wide-table.py" "$t"
has out "^| p | double | 20.0 | 2 of 3 | 0.750 | 1.50 | cmrs-mod (2.000) | 0.040 / 0.050 |\$" \
  "the double row"
has out "^| p | single | - | - | - | - | - |  |\$" "a missing single file"
mkdir -p "$tmp/empty"
expect 2 python3 "$src/scripts/bench-wide-table.py" "$tmp/empty"
finish

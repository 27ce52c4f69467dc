#!/usr/bin/env bash
# scripts/bench-order.sh (the renumbering study, issue 29) with DRY=1 on a
# small case: the random case, its natural reference and the rcm, bfs (and,
# where built, metis) copies are made and readable with the case's size,
# the GPU commands are listed with their flags for each order, runs.tsv
# names every run. scripts/bench-order-table.py on made-up JSON in the
# bench/compare layouts: one row per run, "-" where a file or format is
# missing, exit 2 without runs.tsv. Skipped (77) without python3.
set -u
cmrs=$1
. "$(dirname "$0")/../cli_harness.sh"
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }
src=${CMRS_SOURCE_DIR:?}

expect 0 env CMRS="$cmrs" CASES_DIR="$tmp/cases" ORDER_CASES=poisson7_50_random \
  DRY=1 bash "$src/scripts/bench-order.sh" "$tmp/res"
orders="random random-off rcm bfs metis natural"
if grep -q "built without METIS: the metis order is skipped" "$tmp/out"; then
  orders="random random-off rcm bfs natural"
fi
files="poisson7_50_random poisson7_50"
for o in $orders; do
  case $o in rcm|bfs|metis) files="$files poisson7_50_random_$o" ;; esac
done
cp "$tmp/out" "$tmp/script.out"
for f in $files; do
  expect 0 "$cmrs" info "$tmp/cases/$f.h5"
  has out "^nonzeros *860000\$" "$f.h5"
done
n=0
for o in $orders; do
  n=$((n + 1))
  grep -q "^dry: $cmrs bench .* --precision double --repeat 50 --formats cmrs,cusparse .*--json $tmp/res/bench_poisson7_50_random_$o.json\$" \
    "$tmp/script.out" && ok || bad "no bench line for $o"
  grep -q "^dry: $cmrs compare .* --device gpu --preconds jacobi --formats cmrs,cusparse --rtol 1e-8 .*--json $tmp/res/compare_poisson7_50_random_$o.json\$" \
    "$tmp/script.out" && ok || bad "no compare line for $o"
  grep -q "^poisson7_50_random	$o	bench_poisson7_50_random_$o.json	compare_poisson7_50_random_$o.json\$" \
    "$tmp/res/runs.tsv" && ok || bad "runs.tsv: no $o"
done
[ "$(wc -l <"$tmp/res/runs.tsv")" -eq $n ] && ok || bad "runs.tsv: not $n runs"
grep -q "^dry: .*poisson7_50_random.h5 .*--reorder off --json .*random-off.json\$" \
  "$tmp/script.out" && ok || bad "random-off: no --reorder off"

# The table on made-up numbers (not measurements): one complete run, one
# whose compare file is missing and whose cuSPARSE failed.
t=$tmp/table
mkdir -p "$t"
printf 'p_random\trcm\tb1.json\tc1.json\np_random\tmetis\tb2.json\tnone.json\n' >"$t/runs.tsv"
cat >"$t/b1.json" <<'EOF'
{"formats": [
 {"name": "cmrs", "status": "ok", "params": {"reorder": -1},
  "time_s": {"median": 1.25e-4}, "eta_plus": 0.8125},
 {"name": "cusparse", "status": "ok", "params": {"reorder": 0},
  "time_s": {"median": 2.5e-4}, "eta_plus": 0.5}]}
EOF
cat >"$t/b2.json" <<'EOF'
{"formats": [
 {"name": "cmrs", "status": "ok", "params": {"reorder": 1},
  "time_s": {"median": 2e-5}, "eta_plus": null},
 {"name": "cusparse", "status": "failed", "params": {"reorder": 0},
  "time_s": null, "eta_plus": null}]}
EOF
cat >"$t/c1.json" <<'EOF'
{"results": [
 {"format": "cmrs", "time_per_iteration_s": 0.0005, "iterations": 321,
  "converged_reason": "CONVERGED_RTOL"},
 {"format": "cusparse", "time_per_iteration_s": 0.00075, "iterations": 320,
  "converged_reason": "CONVERGED_RTOL"}]}
EOF
expect 0 python3 "$src/scripts/bench-order-table.py" "$t"
has out "^| case | order | cmrs SpMV (us) | eta+ | cmrs reorder | cuSPARSE SpMV (us) | PCG ms/it (cmrs) | PCG ms/it (cuSPARSE) | iterations |\$" "header"
has out "^| p_random | rcm | 125.0 | 0.812 | no | 250.0 | 0.500 | 0.750 | 321 |\$" "complete row"
has out "^| p_random | metis | 20.0 | - | yes | - | - | - | - |\$" "row with gaps"
[ "$(wc -l <"$tmp/out")" -eq 4 ] && ok || bad "table: not 4 lines"
expect 2 python3 "$src/scripts/bench-order-table.py" "$tmp/nowhere"
has err "no $tmp/nowhere/runs.tsv" "no runs.tsv"
finish

#!/usr/bin/env bash
# scripts/plot.py on committed synthetic inputs (tests/measure/data: made-up
# numbers in the sweep CSV layout, and two solve --json reports): all four
# PNGs are written; bad inputs exit 2. Skipped (77) without python3 or
# matplotlib (pip install matplotlib).
set -u
src=${CMRS_SOURCE_DIR:?}
python3 -c 'import matplotlib' 2>/dev/null || { echo "skip: no matplotlib"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }
data=$src/tests/measure/data
plot() { python3 "$src/scripts/plot.py" "$@" >"$tmp/out" 2>"$tmp/err"; }

if plot -o "$tmp" "$data/sweep_synthetic.csv" "$data"/solve_synthetic_*.json; then
    ok
else
    bad "plot.py: $(cat "$tmp/err")"
fi
for png in speedup_vs_mu time_vs_height eta_per_format convergence; do
    if [ -s "$tmp/$png.png" ] && [ "$(head -c 4 "$tmp/$png.png" | tail -c 3)" = "PNG" ]; then
        ok
    else
        bad "$png.png not written"
    fi
done

# expect_fail SUBSTRING ARGS...: exit 2 and the message.
expect_fail() {
    local text=$1
    shift
    plot "$@"
    local rc=$?
    [ $rc -eq 2 ] && grep -qF -- "$text" "$tmp/err" && ok || bad "plot.py $*: exit $rc: $(cat "$tmp/err")"
}
echo '{"x": 1}' >"$tmp/other.json"
echo 'a,b' >"$tmp/other.csv"
printf '[{"format": "cmrs", "mu": "abc"}]' >"$tmp/badnum.json"
expect_fail "cannot open" -o "$tmp" "$tmp/none.csv"
expect_fail "neither a sweep array nor a solve report" -o "$tmp" "$tmp/other.json"
expect_fail "not a cmrs sweep CSV" -o "$tmp" "$tmp/other.csv"
expect_fail "bad number" -o "$tmp" "$tmp/badnum.json"
expect_fail "unknown input type" -o "$tmp" "$data/../CMakeLists.txt"
touch "$tmp/afile"
expect_fail "cannot create the output folder" -o "$tmp/afile/sub" "$data/sweep_synthetic.csv"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]

#!/usr/bin/env bash
# cmrs sweep through the real binary: usage errors exit 2 naming the
# option, before any file is read or GPU looked for; without a GPU, exit 4
# and no output left behind; with one, a small sweep writes one CSV row and
# one JSON row per configuration.
set -u
cmrs=$1
. "$(dirname "$0")/../cli_harness.sh"

f=$tmp/never-read.mtx
cmrs_refuses 2 "sweep: missing FILE" sweep
cmrs_refuses 2 "--height: 0 is out of range" sweep "$f" --height 0-4
cmrs_refuses 2 "--height: empty range 9-3" sweep "$f" --height 9-3
cmrs_refuses 2 "--height: 'x' is not an integer" sweep "$f" --height 1,x
cmrs_refuses 2 "--block-size: 100 is not a multiple of 32" sweep "$f" --block-size 64,100,128
cmrs_refuses 2 "--block-size: 2048 is out of range" sweep "$f" --block-size 2048
cmrs_refuses 2 "--modulo: 6 is not one of 2, 4, 8, 16, 32" sweep "$f" --modulo 2,6
cmrs_refuses 2 "--sorted: 'maybe' is not one of off|on" sweep "$f" --sorted on,maybe
cmrs_refuses 2 "--precision: 'half' is not one of double|single" sweep "$f" --precision double,half
cmrs_refuses 2 "--mode: 'fast' is not one of spmv|solve" sweep "$f" --mode fast
cmrs_refuses 2 "unknown format 'nope'" sweep "$f" --formats cmrs,nope
cmrs_refuses 2 "--repeat: 5 is too few" sweep "$f" --repeat 5
cmrs_refuses 2 "sweeps run on the GPU only" sweep "$f" --device cpu
cmrs_refuses 2 "cannot both be '-'" sweep "$f" --csv - --json -
cmrs_refuses 2 "unknown option" sweep "$f" --no-such-option
cmrs_refuses 2 "cannot open" sweep "$f" --height 1-16

if "$cmrs" sweep --help >"$tmp/out" 2>&1 && grep -q "usage: cmrs sweep" "$tmp/out"; then
    ok
else
    bad "cmrs sweep --help"
fi

m=$tmp/small.mtx
printf '%%%%MatrixMarket matrix coordinate real general\n4 4 7\n1 1 4\n1 2 -1\n2 2 4\n3 2 -1\n3 3 4\n4 4 4\n4 1 -1\n' >"$m"
"$cmrs" sweep "$m" "$m" --formats cmrs,cusparse --height 1-3 --repeat 10 \
    --csv "$tmp/s.csv" --json "$tmp/s.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
if grep -qF "cmrs sweep needs a GPU (none found)" "$tmp/err"; then
    [ $rc -eq 4 ] && ok || bad "no GPU: exit $rc"
    [ -z "$(ls -A "$tmp" | grep -v -e small.mtx -e out -e err)" ] && ok || bad "output left: $(ls "$tmp")"
elif [ $rc -eq 0 ]; then
    # 2 files x (3 cmrs heights + 1 cusparse) = 8 rows.
    [ "$(wc -l <"$tmp/s.csv")" -eq 9 ] && ok || bad "CSV rows: $(cat "$tmp/s.csv")"
    [ "$(grep -c '"format":' "$tmp/s.json")" -eq 8 ] && ok || bad "JSON rows"
    [ ! -e "$tmp/s.csv.partial" ] && ok || bad ".partial left"
else
    bad "sweep on a 4x4 matrix: exit $rc: $(cat "$tmp/err")"
fi

finish

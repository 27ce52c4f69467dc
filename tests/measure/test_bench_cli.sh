#!/usr/bin/env bash
# cmrs bench through the real binary: usage errors exit 2 with a message
# naming the option, before any GPU is looked for; without a GPU, exit 4
# with "cmrs bench needs a GPU (none found)"; --json/--csv safety.
set -u
cmrs=$1
. "$(dirname "$0")/../cli_harness.sh"

f=$tmp/m.mtx # never read: every case fails before reading
cmrs_refuses 2 "missing FILE" bench
cmrs_refuses 2 "one FILE expected" bench "$f" "$f"
cmrs_refuses 2 "unknown format 'nope'" bench "$f" --formats cusparse,nope
cmrs_refuses 2 "--formats: empty name" bench "$f" --formats cusparse,,cmrs
cmrs_refuses 2 "--height: 0 is out of range" bench "$f" --height 0
cmrs_refuses 2 "--height: 17 is out of range" bench "$f" --height 17
cmrs_refuses 2 "--height: 'abc' is not an integer" bench "$f" --height abc
cmrs_refuses 2 "--precision: 'half' is not one of double|single" bench "$f" --precision half
cmrs_refuses 2 "--block-size: 100 is not a multiple of 32" bench "$f" --block-size 100
cmrs_refuses 2 "--block-size: 2048 is out of range" bench "$f" --block-size 2048
cmrs_refuses 2 "--modulo: '3' is not one of" bench "$f" --modulo 3
cmrs_refuses 2 "--sorted: 'maybe' is not one of off|on" bench "$f" --sorted maybe
cmrs_refuses 2 "--cusparse-alg: 3 is out of range" bench "$f" --cusparse-alg 3
cmrs_refuses 2 "--repeat: 10 is out of range" bench "$f" --repeat 10
cmrs_refuses 2 "--warmup: 1 is out of range" bench "$f" --warmup 1
cmrs_refuses 2 "cannot both be '-'" bench "$f" --json - --csv -
cmrs_refuses 2 "unknown option" bench "$f" --no-such-option
cmrs_refuses 2 "cmrs bench --help" bench "$f" --height

# --help: usage on stdout, exit 0, every format listed.
if "$cmrs" bench --help >"$tmp/out" 2>&1 && grep -q "usage: cmrs bench" "$tmp/out" \
    && grep -q "csr-vector" "$tmp/out"; then
    ok
else
    bad "cmrs bench --help"
fi

# Valid options and file: without a GPU, exit 4 with the message and no
# report left behind; with one, a real run of cuSPARSE on a 4x4 matrix.
m=$tmp/small.mtx
printf '%%%%MatrixMarket matrix coordinate real general\n4 4 7\n1 1 4\n1 2 -1\n2 2 4\n3 2 -1\n3 3 4\n4 4 4\n4 1 -1\n' >"$m"
"$cmrs" bench "$m" --formats cusparse,csr-vector --precision single \
    --repeat 50 --warmup 5 --json "$tmp/r.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
if grep -qF "cmrs bench needs a GPU (none found)" "$tmp/err"; then
    [ $rc -eq 4 ] && ok || bad "no GPU: exit $rc"
    [ ! -e "$tmp/r.json" ] && ok || bad "report left behind"
elif [ $rc -eq 0 ] && grep -q '"copy_bandwidth_bytes_per_s"' "$tmp/r.json" \
    && grep -q '"name": "csr-vector"' "$tmp/r.json" && grep -q "^cusparse " "$tmp/out" \
    && grep -q '"init_s": ' "$tmp/r.json" && grep -q '"convert_GBps": null' "$tmp/r.json" \
    && grep -q "^one-time initialisation (CUDA context, libraries, kernels): " "$tmp/out"; then
    ok; ok
else
    bad "bench on a 4x4 matrix: exit $rc: $(cat "$tmp/err")"
fi
[ -z "$(ls -A "$tmp" | grep '\.tmp\.')" ] && ok || bad "temporary file left"

finish

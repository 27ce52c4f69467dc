#!/usr/bin/env bash
# cmrs bench through the real binary: usage errors exit 2 with a message
# naming the option, before any GPU is looked for; without a GPU, exit 4
# with "cmrs bench needs a GPU (none found)"; --json/--csv safety.
set -u
cmrs=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0

# expect CODE SUBSTRING ARGS...: exit status and a stderr substring.
expect() {
    local want=$1 text=$2
    shift 2
    "$cmrs" "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    if [ "$got" -ne "$want" ] || ! grep -qF -- "$text" "$tmp/err"; then
        echo "FAIL: cmrs $*: exit $got (want $want), stderr: $(cat "$tmp/err")"
        failed=$((failed + 1))
    else
        passed=$((passed + 1))
    fi
}

f=$tmp/m.mtx # never read: every case fails before reading
expect 2 "missing FILE" bench
expect 2 "one FILE expected" bench "$f" "$f"
expect 2 "unknown format 'nope'" bench "$f" --formats cusparse,nope
expect 2 "--formats: empty name" bench "$f" --formats cusparse,,cmrs
expect 2 "--height: 0 is out of range" bench "$f" --height 0
expect 2 "--height: 17 is out of range" bench "$f" --height 17
expect 2 "--height: 'abc' is not an integer" bench "$f" --height abc
expect 2 "--precision: 'half' is not one of double|single" bench "$f" --precision half
expect 2 "--block-size: 100 is not a multiple of 32" bench "$f" --block-size 100
expect 2 "--block-size: 2048 is out of range" bench "$f" --block-size 2048
expect 2 "--modulo: '3' is not one of" bench "$f" --modulo 3
expect 2 "--sorted: 'maybe' is not one of off|on" bench "$f" --sorted maybe
expect 2 "--cusparse-alg: 3 is out of range" bench "$f" --cusparse-alg 3
expect 2 "--repeat: 10 is out of range" bench "$f" --repeat 10
expect 2 "--warmup: 1 is out of range" bench "$f" --warmup 1
expect 2 "cannot both be '-'" bench "$f" --json - --csv -
expect 2 "unknown option" bench "$f" --no-such-option
expect 2 "cmrs bench --help" bench "$f" --height

# --help: usage on stdout, exit 0, every format listed.
if "$cmrs" bench --help >"$tmp/out" 2>&1 && grep -q "usage: cmrs bench" "$tmp/out" \
    && grep -q "csr-vector" "$tmp/out"; then
    passed=$((passed + 1))
else
    echo "FAIL: cmrs bench --help"; failed=$((failed + 1))
fi

# Valid options and file: without a GPU, exit 4 with the message and no
# report left behind; with one, a real run of cuSPARSE on a 4x4 matrix.
m=$tmp/small.mtx
printf '%%%%MatrixMarket matrix coordinate real general\n4 4 7\n1 1 4\n1 2 -1\n2 2 4\n3 2 -1\n3 3 4\n4 4 4\n4 1 -1\n' >"$m"
"$cmrs" bench "$m" --formats cusparse,csr-vector --precision single \
    --repeat 50 --warmup 5 --json "$tmp/r.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
if grep -qF "cmrs bench needs a GPU (none found)" "$tmp/err"; then
    [ $rc -eq 4 ] && passed=$((passed + 1)) || { echo "FAIL: no GPU: exit $rc"; failed=$((failed + 1)); }
    [ ! -e "$tmp/r.json" ] && passed=$((passed + 1)) || { echo "FAIL: report left behind"; failed=$((failed + 1)); }
elif [ $rc -eq 0 ] && grep -q '"copy_bandwidth_bytes_per_s"' "$tmp/r.json" \
    && grep -q '"name": "csr-vector"' "$tmp/r.json" && grep -q "^cusparse " "$tmp/out" \
    && grep -q '"init_s": ' "$tmp/r.json" && grep -q '"convert_GBps": null' "$tmp/r.json" \
    && grep -q "^one-time initialisation (CUDA context, libraries, kernels): " "$tmp/out"; then
    passed=$((passed + 2))
else
    echo "FAIL: bench on a 4x4 matrix: exit $rc: $(cat "$tmp/err")"; failed=$((failed + 1))
fi
[ -z "$(ls -A "$tmp" | grep '\.tmp\.')" ] && passed=$((passed + 1)) || { echo "FAIL: temporary file left"; failed=$((failed + 1)); }

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]

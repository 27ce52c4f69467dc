#!/usr/bin/env bash
# The committed small cases (cases/data/, made by `cmrs gen`, see
# cases/data/README.md) solve on the CPU back end to the requested
# tolerance, checked on the TRUE residual of the JSON report; CG on the SPD
# cases, BiCGStab on the nonsymmetric one.
set -u
cmrs=$1
data=$CMRS_SOURCE_DIR/cases/data
device=${DEVICE:-cpu}
pass=0; fail=0
check() { # check FILE SOLVER
  local out
  out=$("$cmrs" solve "$data/$1" --solver "$2" --device "$device" --rtol 1e-8 -q --json -)
  local rc=$?
  local res=$(printf '%s\n' "$out" | sed -n 's/.*"residual_true": \([^,]*\),*/\1/p')
  local its=$(printf '%s\n' "$out" | sed -n 's/.*"iterations": \([0-9]*\),*/\1/p')
  if [ $rc -eq 0 ] && [ -n "$res" ] && awk -v r="$res" 'BEGIN{exit !(r <= 1e-8 && r > 0)}' &&
     [ "${its:-0}" -gt 0 ]; then
    pass=$((pass+1))
  else
    fail=$((fail+1)); echo "FAIL: $1 ($2, $device): rc=$rc true residual '$res' iterations '$its'" >&2
  fi
}
check vessel_3k.h5 cg
check poisson27_10_contrast3.h5 cg
check convdiff_12.h5 bicgstab
# An HDF5 result cannot go to stdout; nothing named '-' appears.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && "$cmrs" convert "$data/vessel_3k.h5" -o - 2>/dev/null); rc=$?
if [ $rc -eq 2 ] && [ ! -e "$tmp/-" ]; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: convert -o - rc=$rc" >&2; fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]

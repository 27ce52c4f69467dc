#!/usr/bin/env bash
# cmrs gen from the command line: exit codes and one-line messages for bad
# options (no output file left behind), the summary line, and files that
# cmrs info reads back with the generated sizes.
set -u
cmrs=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*" >&2; }
expect() { # expect CODE args... (args go to cmrs gen)
  local want=$1; shift
  "$cmrs" gen "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  if [ "$got" -eq "$want" ]; then ok; else
    bad "gen $* -> exit $got, want $want: $(head -c 300 "$tmp/err")"; fi
}
expect_usage() { # expect_usage MESSAGE-PART args...: exit 2, one line naming it
  local part=$1; shift
  expect 2 "$@"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] && ok || bad "gen $*: not one line: $(cat "$tmp/err")"
  grep -q -- "$part" "$tmp/err" && ok || bad "gen $*: message lacks '$part': $(cat "$tmp/err")"
  [ ! -e "$tmp/x.h5" ] && ok || { bad "gen $*: left $tmp/x.h5"; rm -f "$tmp/x.h5"; }
}

expect 0 --help
grep -q "usage: cmrs gen" "$tmp/out" && ok || bad "help text"
o="-o $tmp/x.h5"
expect_usage "which kind" $o
expect_usage "'blob' is not one of" blob $o
expect_usage "--cells N is required" vessel $o
expect_usage "-o FILE is required" vessel --cells 5000
expect_usage "--cells: 0 is out of range" vessel --cells 0 $o
expect_usage "--cells: -7 is out of range" vessel --cells -7 $o
expect_usage "--cells: 2000000000 is out of range" vessel --cells 2000000000 $o
expect_usage "not an integer" vessel --cells 99999999999999999999999 $o
expect_usage "not an integer" vessel --cells 1e5 $o
expect_usage "--n N is required" poisson3d $o
expect_usage "--n: 0 is out of range" poisson3d --n 0 $o
expect_usage "--n: 100000 is out of range" poisson3d --n 100000 $o
expect_usage "--stencil: 9 is not 7 or 27" poisson3d --n 4 --stencil 9 $o
expect_usage "--contrast: -1 is out of range" poisson3d --n 4 --contrast -1 $o
expect_usage "--contrast: 'nan' is not a finite" poisson3d --n 4 --contrast nan $o
expect_usage "--peclet: 'abc' is not a finite" convdiff --n 4 --peclet abc $o
expect_usage "--order: 'sideways' is not one of" vessel --cells 5000 --order sideways $o
expect_usage "--seed: -1 is out of range" poisson3d --n 4 --seed -1 $o
expect_usage "--stencil does not apply to vessel" vessel --cells 5000 --stencil 7 $o
expect_usage "--cells does not apply to convdiff" convdiff --n 4 --cells 5000 $o
expect_usage "--peclet does not apply to poisson3d" poisson3d --n 4 --peclet 3 $o
expect_usage "unexpected argument 'extra'" poisson3d --n 4 extra $o
expect_usage "unknown option" poisson3d --n 4 --frobnicate $o
expect_usage "missing value near '--n'" poisson3d $o --n

# An output in a missing directory: usage (2) before any work, one line.
expect 2 poisson3d --n 4 -o "$tmp/no/such/dir/x.h5"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && ok || bad "unwritable output: one line"

# Success: the summary line, and a file cmrs info reads with these sizes.
check_file() { # check_file FILE ROWS NNZ
  "$cmrs" info "$1" >"$tmp/info" 2>&1 && ok || bad "info $1: $(head -c 300 "$tmp/info")"
  grep -Eq "^rows +$2\$" "$tmp/info" && grep -Eq "^nonzeros +$3\$" "$tmp/info" \
    && ok || bad "info $1: want $2 rows, $3 nonzeros: $(head -5 "$tmp/info")"
  grep -q "right-hand side *in the file" "$tmp/info" && ok || bad "info $1: no b"
}
expect 0 poisson3d --n 4 -o "$tmp/p.h5"
grep -Eq "^poisson3d: 64 rows, 352 nnz, mu 5.500, order natural; generated in [0-9.]+ s, written in [0-9.]+ s -> $tmp/p.h5\$" \
  "$tmp/out" && ok || bad "summary line: $(cat "$tmp/out")"
check_file "$tmp/p.h5" 64 352
expect 0 poisson3d --n 4 --stencil 27 --contrast 3 --order random --seed 9 -o "$tmp/p27.h5"
check_file "$tmp/p27.h5" 64 1000
expect 0 convdiff --n 5 --peclet 200 --order rcm -o "$tmp/c.h5"
check_file "$tmp/c.h5" 125 725
expect 0 vessel --cells 3000 -o "$tmp/v.h5"
rows=$(sed -E 's/^vessel: ([0-9]+) rows, ([0-9]+) nnz.*/\1/' "$tmp/out")
nnz=$(sed -E 's/^vessel: ([0-9]+) rows, ([0-9]+) nnz.*/\2/' "$tmp/out")
[ "$rows" -ge 2700 ] && [ "$rows" -le 3300 ] && ok || bad "vessel rows '$rows'"
check_file "$tmp/v.h5" "$rows" "$nnz"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

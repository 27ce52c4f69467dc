#!/usr/bin/env bash
# cmrs info / cmrs convert from the command line: exit codes, exactly one
# line on stderr for an error, and no output (nor temporary) file left
# behind by a failing convert.
set -u
cmrs=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
checks=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# expect CODE CMD...: run, compare the exit code; stdout/stderr kept.
expect() {
    local want=$1
    shift
    checks=$((checks + 1))
    "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    [ "$got" -eq "$want" ] || fail "'$*' exited $got, expected $want: $(cat "$tmp/err")"
}

# expect_error CODE SUBSTRING CMD...: one stderr line holding SUBSTRING.
expect_error() {
    local want=$1 text=$2
    shift 2
    expect "$want" "$@"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "'$*': stderr is not one line: $(cat "$tmp/err")"
    grep -qF -- "$text" "$tmp/err" || fail "'$*': stderr lacks '$text': $(cat "$tmp/err")"
}

# Only the given files may exist in the work folder (no output, no temp).
expect_files() {
    checks=$((checks + 1))
    local have
    have=$(cd "$tmp/w" && ls -A | sort | tr '\n' ' ')
    [ "$have" = "$* " ] || fail "files in work dir: '$have', expected '$* '"
}

mkdir "$tmp/w"
cd "$tmp/w" || exit 1
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 4\n2 1 -1\n2 2 4\n3 2 -1\n3 3 4\n' >a.mtx
printf '%%%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n' >b.mtx
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 4\n' >trunc.mtx
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 1\n1 9 4\n' >range.mtx
printf 'not a matrix\n' >text.txt
printf '%%%%MatrixMarket matrix array real general\n2 1\n1\n2\n' >c.mtx

# info: text and JSON.
expect 0 "$cmrs" info a.mtx
grep -q 'nonzeros  *7' "$tmp/out" || fail "info: no 'nonzeros 7' line"
grep -q 'suggested strip height' "$tmp/out" || fail "info: no model"
grep -q 'structure yes, values yes' "$tmp/out" || fail "info: symmetry"
expect 0 "$cmrs" info --json a.mtx
grep -q '"nnz": 7' "$tmp/out" || fail "info --json: no nnz"
grep -q '"rhs_in_file": false' "$tmp/out" || fail "info --json: rhs"
grep -q '"suggested_height"' "$tmp/out" || fail "info --json: model"
expect 0 "$cmrs" info --help
grep -q 'usage: cmrs info' "$tmp/out" || fail "info --help"

# convert, then info on the result.
expect 0 "$cmrs" convert a.mtx --rhs b.mtx -o sys.h5
[ ! -s "$tmp/err" ] || fail "convert with --rhs printed to stderr: $(cat "$tmp/err")"
expect 0 "$cmrs" info sys.h5 --json
grep -q '"layout": "native"' "$tmp/out" || fail "converted file is not native"
grep -q '"rhs_in_file": true' "$tmp/out" || fail "converted file lost b"
expect 0 "$cmrs" convert a.mtx -o nob.h5
grep -q 'note: a.mtx has no right-hand side: using b = A\*1' "$tmp/err" || fail "no b = A*1 note"
rm -f nob.h5
expect_files a.mtx b.mtx c.mtx range.mtx sys.h5 text.txt trunc.mtx

# Errors: exit 2 (bad input or usage), one line, nothing written.
expect_error 2 "trunc.mtx: truncated" "$cmrs" convert trunc.mtx -o out.h5
expect_error 2 "range.mtx: line 3: column index 9 out of range" "$cmrs" convert range.mtx -o out.h5
expect_error 2 "missing.mtx: cannot open" "$cmrs" convert missing.mtx -o out.h5
expect_error 2 "text.txt: not HDF5 or Matrix Market" "$cmrs" convert text.txt -o out.h5
expect_error 2 "c.mtx: right-hand side has 2 entries but the matrix has 3 rows" "$cmrs" convert a.mtx --rhs c.mtx -o out.h5
expect_error 2 "output file is required" "$cmrs" convert a.mtx
expect_error 2 "expected one INPUT" "$cmrs" convert -o out.h5
expect_error 2 "it is the input file" "$cmrs" convert sys.h5 -o sys.h5
expect_error 2 "it is the input file" "$cmrs" convert sys.h5 -o ./sys.h5
expect_error 2 "unknown option" "$cmrs" convert --bogus a.mtx -o out.h5
expect_error 2 "no group /M" "$cmrs" convert sys.h5 --matrix M -o out.h5
expect_error 2 "missing dataset /nope" "$cmrs" info sys.h5 --rhs nope
expect_error 2 "missing.h5: cannot open" "$cmrs" info missing.h5
expect_error 2 "missing value near '--matrix'" "$cmrs" info a.mtx --matrix
expect_error 2 "option -o needs a value" "$cmrs" convert a.mtx -o
expect_error 2 "expected one input" "$cmrs" info a.mtx b.mtx
expect_error 2 "-o no/such/dir.h5: the directory no/such does not exist" "$cmrs" convert a.mtx -o no/such/dir.h5
expect_files a.mtx b.mtx c.mtx range.mtx sys.h5 text.txt trunc.mtx

echo "$((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]

# The checks the CLI test scripts share (sourced, not run): a temporary
# folder $tmp removed on exit, pass/fail counters, and
#   expect CODE cmd...     exit code; stdout in $tmp/out, stderr in $tmp/err
#   cmrs_refuses CODE TEXT ARGS...   `$cmrs ARGS` exits CODE with TEXT (a
#                          fixed string) on stderr ($cmrs: set before sourcing)
#   has FILE TEXT WHAT     $tmp/FILE contains TEXT
#   one_line_err WHAT      stderr is exactly one line
#   finish                 prints "N passed, M failed", fails if any failed
#   skip_without_gpu CMRS FILE   exit 77 where `cmrs solve FILE --device
#                          gpu` finds no GPU (any other failure is the test's)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*" >&2; }
expect() {
  local want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  if [ "$got" -eq "$want" ]; then ok; else
    bad "$* -> exit $got, want $want: $(head -c 300 "$tmp/err")"; fi
}
cmrs_refuses() {
  local want=$1 text=$2; shift 2
  "$cmrs" "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  if [ "$got" -eq "$want" ] && grep -qF -- "$text" "$tmp/err"; then ok; else
    bad "cmrs $*: exit $got (want $want), stderr: $(head -c 300 "$tmp/err")"; fi
}
has() { grep -q -- "$2" "$tmp/$1" && ok || bad "$3: no '$2' in $1: $(head -c 300 "$tmp/$1")"; }
one_line_err() { [ "$(wc -l <"$tmp/err")" -eq 1 ] && ok || bad "$1: stderr not one line"; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; }
skip_without_gpu() {
  local e
  e=$("$1" solve "$2" --device gpu -q 2>&1 >/dev/null)
  case "$e" in *"no CUDA GPU found"*) echo "no GPU: skipped"; exit 77 ;; esac
}

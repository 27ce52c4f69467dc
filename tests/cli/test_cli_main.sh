#!/usr/bin/env bash
# Top-level CLI: help, version, unknown commands, exit codes, every
# subcommand answers --help.
set -u
cmrs=$1
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*" >&2; }
expect() { # expect CODE cmd...
  local want=$1; shift
  "$@" >/tmp/cli_out.$$ 2>/tmp/cli_err.$$; local got=$?
  if [ "$got" -eq "$want" ]; then ok; else bad "$* -> exit $got, want $want: $(head -c 300 /tmp/cli_err.$$)"; fi
}
expect 0 "$cmrs" --help
grep -q "commands:" /tmp/cli_out.$$ && ok || bad "--help lists commands"
expect 0 "$cmrs" --version
grep -Eq "^cmrs [0-9]+\.[0-9]+\.[0-9]+" /tmp/cli_out.$$ && ok || bad "--version format"
expect 2 "$cmrs"
expect 2 "$cmrs" frobnicate
[ "$(wc -l </tmp/cli_err.$$)" -eq 1 ] && ok || bad "unknown command: one line"
for c in solve compare bench info convert gen; do
  expect 0 "$cmrs" "$c" --help
  grep -qi "usage" /tmp/cli_out.$$ && ok || bad "$c --help prints usage"
  expect 2 "$cmrs" "$c" --no-such-option
  [ "$(wc -l </tmp/cli_err.$$)" -eq 1 ] && ok || bad "$c bad option: one line"
done
for c in solve compare bench info; do
  expect 2 "$cmrs" "$c" /nonexistent/file.h5
  grep -q "nonexistent/file.h5" /tmp/cli_err.$$ && ok || bad "$c missing file named in message"
done
# --reorder (cmrs's locality reordering): a bad value is one usage line
# naming the option and its choices, before any file is read.
for c in solve bench; do
  expect 2 "$cmrs" "$c" /nonexistent/file.h5 --reorder maybe
  grep -q -- "--reorder: 'maybe' is not one of off|on|auto" /tmp/cli_err.$$ &&
    [ "$(wc -l </tmp/cli_err.$$)" -eq 1 ] && ok || bad "$c --reorder maybe"
  expect 2 "$cmrs" "$c" /nonexistent/file.h5 --one-width half
  grep -q -- "--one-width: 'half' is not one of off|on|auto" /tmp/cli_err.$$ &&
    [ "$(wc -l </tmp/cli_err.$$)" -eq 1 ] && ok || bad "$c --one-width half"
done
rm -f /tmp/cli_out.$$ /tmp/cli_err.$$
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

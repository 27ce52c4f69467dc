#!/usr/bin/env bash
# Runs the examples and checks what they print and return.
#   test_examples.sh host|gpu MINIMAL TIME_LOOP
#   test_examples.sh installed BUILD_DIR EXAMPLES_SOURCE_DIR
# host: both examples on the CPU back end, small sizes; gpu: the time loop
# on GPU 0, exit 77 when the library reports no GPU; installed: the
# examples built on their own against `cmake --install` of BUILD_DIR
# (find_package(cmrs), as a user outside this tree builds them), then run.
set -uo pipefail
mode=$1 minimal=$2 time_loop=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# run NAME CMD...: runs CMD, keeping stdout+stderr in $tmp/NAME; its status in $rc.
run() {
  local name=$1; shift
  "$@" >"$tmp/$name" 2>&1; rc=$?
  echo "== $name (exit $rc): $*"; cat "$tmp/$name"
}

# expect NAME REGEX: the output of run NAME matches the extended regex.
expect() { grep -Eq -- "$2" "$tmp/$1" || fail "$1: no line matching '$2'"; }

# The per-step lines: one per step, each with its iteration count.
check_steps() {
  local n
  n=$(grep -Ec '^step +[0-9]+ .* [0-9]+ iterations  residual [0-9.e+-]+  CONVERGED' "$tmp/$1")
  [ "$n" -eq "$2" ] || fail "$1: $n converged step lines, expected $2"
}

# Every "fresh solver" line of $1 reports the reused solver's iteration count
# (Jacobi: the update must do exactly what a new setup does).
check_fresh_iterations() {
  local bad
  bad=$(grep -E '^check: step' "$tmp/$1" |
        awk '{ if ($6 != $9 + 0 || $NF != "ok") print }')
  [ -z "$bad" ] || fail "$1: fresh solver differs: $bad"
  grep -q '^check: step' "$tmp/$1" || fail "$1: no fresh-solver check ran"
}

# The final heat and max u of two runs agree to 1e-9 (relative).
check_same_final() {
  local a b
  a=$(grep '^final:' "$tmp/$1") b=$(grep '^final:' "$tmp/$2")
  awk -v a="$a" -v b="$b" 'BEGIN {
    split(a, x, " "); split(b, y, " ");
    for (i = 3; i <= 6; i += 3) {  # "final: heat H  max u M"
      d = x[i] - y[i]; if (d < 0) d = -d;
      if (d > 1e-9 * (x[i] < 0 ? -x[i] : x[i])) exit 1 }
  }' || fail "final state differs: '$a' vs '$b'"
}

host() {
  run minimal "$minimal" cpu
  [ "$rc" -eq 0 ] || fail "minimal exited $rc"
  expect minimal 'on cpu: CONVERGED_[A-Z]+ after [0-9]+ iterations, relative residual .*max error'

  local args=(--device cpu --n 24 --steps 6 --every 2 --check)
  run reuse "$time_loop" "${args[@]}"
  [ "$rc" -eq 0 ] || fail "time_loop exited $rc"
  check_steps reuse 6
  expect reuse '^setup once: '
  expect reuse '^per step \(mean of 6\): update .* iterations$'
  expect reuse '^checks: passed'
  check_fresh_iterations reuse
  [ "$(grep -c '^check: step' "$tmp/reuse")" -eq 3 ] || fail "reuse: expected 3 fresh checks (steps 2, 4, 6)"

  run recreate "$time_loop" "${args[@]}" --recreate
  [ "$rc" -eq 0 ] || fail "time_loop --recreate exited $rc"
  check_steps recreate 6
  expect recreate '^per step \(mean of 6\): new matrix \+ setup'
  check_same_final reuse recreate

  # AMG keeps its aggregates on update: the fresh solver's answer differs,
  # within the bound --check applies.
  run amg "$time_loop" --device cpu --n 24 --steps 4 --every 2 --check --precond amg
  [ "$rc" -eq 0 ] || fail "time_loop --precond amg exited $rc"
  expect amg '^checks: passed'

  # Values never change within the run: same answer, no fresh checks.
  run constant "$time_loop" --device cpu --n 24 --steps 6 --every 100 --check
  [ "$rc" -eq 0 ] || fail "time_loop --every 100 exited $rc"
  grep -q '^check: step' "$tmp/constant" && fail "constant: a fresh check ran without new values"

  # Errors: a usage error exits 2 naming the option; a library error
  # exits 1 with the call, the status and the library's message.
  run usage "$time_loop" --steps
  [ "$rc" -eq 2 ] || fail "time_loop --steps (no value) exited $rc, expected 2"
  expect usage 'missing value: --steps'
  run badopt "$time_loop" --device cpu --n 8 --steps 1 --precond nosuch
  [ "$rc" -eq 1 ] || fail "time_loop --precond nosuch exited $rc, expected 1"
  expect badopt '^time_loop: set_option precond: ERROR_USAGE: .+'
}

gpu() {
  run gpu "$time_loop" --device gpu --n 128 --steps 10 --every 3 --check
  if grep -q 'ERROR_NODEVICE' "$tmp/gpu"; then
    echo "skipped: no GPU"; exit 77
  fi
  [ "$rc" -eq 0 ] || fail "time_loop on the GPU exited $rc"
  check_steps gpu 10
  expect gpu '^checks: passed'
  check_fresh_iterations gpu
  run gpu_recreate "$time_loop" --device gpu --n 128 --steps 10 --every 3 --recreate
  [ "$rc" -eq 0 ] || fail "time_loop --recreate on the GPU exited $rc"
  check_steps gpu_recreate 10
}

installed() {
  local build=$minimal source=$time_loop gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  run install cmake --install "$build" --prefix "$tmp/prefix"
  [ "$rc" -eq 0 ] || { fail "cmake --install exited $rc"; return; }
  run configure cmake -S "$source" -B "$tmp/examples" "${gen[@]}" \
      -DCMAKE_PREFIX_PATH="$tmp/prefix"
  [ "$rc" -eq 0 ] || { fail "configuring the examples alone exited $rc"; return; }
  run build cmake --build "$tmp/examples"
  [ "$rc" -eq 0 ] || { fail "building the examples alone exited $rc"; return; }
  run ldd ldd "$tmp/examples/minimal"
  expect ldd "$tmp/prefix/.*libcmrs\.so"
  run minimal "$tmp/examples/minimal" cpu
  [ "$rc" -eq 0 ] || fail "installed minimal exited $rc"
  run loop "$tmp/examples/time_loop" --device cpu --n 12 --steps 2 --every 1 --check
  [ "$rc" -eq 0 ] || fail "installed time_loop exited $rc"
  expect loop '^checks: passed'
}

"$mode"
[ "$failures" -eq 0 ] && echo "test_examples $mode: all checks passed" ||
  echo "test_examples $mode: $failures check(s) failed"
exit $((failures > 0))

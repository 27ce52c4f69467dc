# The hostile-input harness (sourced by test_hostile.sh; tests/hostile/README.md).
# Every case runs the cmrs binary ($cmrs) in the work folder $w, which holds
# the inputs, and asserts:
#   1. the exit code (one code, or alternatives written 2/4);
#   2. stderr is exactly one line (of at most 4096 bytes), starting
#      "cmrs: error: " and holding each -m TEXT; stdout is empty (the command
#      stopped before any work);
#   3. no file left behind: a recursive listing of $w (dot files included,
#      so *.tmp.* names too) is the same before and after;
#   4. every input byte-identical: md5 of every file in $w before and after;
#   and no crash: a timeout (60 s), or death by a signal outside the signal
#   cases, is a failure whatever CODE says.
# A failed case restores $w from a pristine copy, so it cannot spoil the next.
#
#   family NAME                 start a group of cases (counted per family)
#   hostile [opts] CODE -- ARGS the case: cmrs ARGS, run in $w; opts:
#       -m TEXT    stderr holds TEXT (fixed string; repeatable)
#       -e VAR=VAL environment of the command (repeatable)
#       -M         oversized declaration: max RSS minus that of
#                  `cmrs --version` must be < 100 MB; the time is printed
#       -s SIG     signal case: run in the background, send SIG after 0.5 s
#                  (stderr may then be empty; still at most one line)
#   accepted ARGS               a control the docs accept: exit 0, nothing
#                               left behind, inputs unchanged
#   hostile_finish              per-family counts, "N passed, M failed"
# HOSTILE_VERBOSE=1 prints every case's exit code and message.
# Address-space guard (KB): loading cmrs maps ~1.2 GB; the guard keeps an
# unfixed binary that believes a huge declaration from eating the machine.
cmrs_limit_kb=${CMRS_HOSTILE_VMEM_KB:-3000000}
case_timeout=60
hpass=0; hfail=0; hfamily=""; families=(); declare -A fam_n fam_fail
hl_tmp=$(mktemp -d)
trap 'rm -rf "$hl_tmp"' EXIT
w=$hl_tmp/w; pristine=$hl_tmp/pristine
mkdir -p "$w"

family() {
  hfamily=$1
  [ -n "${fam_n[$1]:-}" ] || { families+=("$1"); fam_n[$1]=0; fam_fail[$1]=0; }
}
# pristine_save: call once the inputs are made.
pristine_save() { rm -rf "$pristine"; cp -a "$w" "$pristine"; hl_snap=$(snapshot); }
snapshot() {
  (cd "$w" && find . -mindepth 1 -printf '%y %p\n' | LC_ALL=C sort &&
     find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r md5sum)
}
# run_cmrs MEASURE ENV... -- ARGS: cmrs in $w under the address-space guard
# and a timeout; out, err, rc (and with MEASURE = 1, rss: "KB seconds") in
# $hl_tmp.
run_cmrs() {
  local measure=$1; shift
  local envs=() pre=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  [ "$measure" -eq 1 ] && pre=(/usr/bin/time -f '%M %e' -o "$hl_tmp/rss")
  (cd "$w" && ulimit -v "$cmrs_limit_kb" &&
     exec timeout -k 5 "$case_timeout" "${pre[@]}" env "${envs[@]}" "$cmrs" "$@") \
    >"$hl_tmp/out" 2>"$hl_tmp/err"
  echo $? >"$hl_tmp/rc"
}
# run_signal SIG ENV... -- ARGS: in the background (job control on, so the
# signal is not ignored as in a non-interactive shell), SIG after 0.5 s.
run_signal() {
  local sig=$1; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  (set -m; cd "$w" && ulimit -v "$cmrs_limit_kb" || exit 1
   env "${envs[@]}" "$cmrs" "$@" >"$hl_tmp/out" 2>"$hl_tmp/err" &
   local pid=$!
   (sleep "$case_timeout"; kill -9 "$pid" 2>/dev/null) >/dev/null 2>&1 &
   local dog=$!
   sleep 0.5; kill -s "$sig" "$pid" 2>/dev/null
   wait "$pid"; echo $? >"$hl_tmp/rc"
   kill -- -"$dog" 2>/dev/null; wait "$dog" 2>/dev/null) 2>/dev/null
}
hl_bad() {
  hfail=$((hfail+1)); fam_fail[$hfamily]=$((fam_fail[$hfamily]+1))
  echo "FAIL [$hfamily] cmrs $hl_args: $*" >&2
}
hostile() {
  local texts=() envs=() big=0 sig="" want
  while [ $# -gt 0 ]; do
    case $1 in
      -m) texts+=("$2"); shift 2 ;;
      -e) envs+=("$2"); shift 2 ;;
      -M) big=1; shift ;;
      -s) sig=$2; shift 2 ;;
      --) shift; break ;;
      *) want=$1; shift ;;
    esac
  done
  hl_args="$*"
  fam_n[$hfamily]=$((fam_n[$hfamily]+1))
  local before=$hl_snap after rc why=()
  rm -f "$hl_tmp/rss"
  if [ -n "$sig" ]; then run_signal "$sig" "${envs[@]}" -- "$@"
  else run_cmrs "$big" "${envs[@]}" -- "$@"; fi
  rc=$(cat "$hl_tmp/rc")
  after=$(snapshot)
  # 1. exit code; no crash, no hang
  [[ "/$want/" == *"/$rc/"* ]] || why+=("exit $rc, want $want")
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then why+=("timed out after ${case_timeout} s")
  elif [ "$rc" -ge 128 ] && [ -z "$sig" ]; then why+=("crashed: signal $((rc - 128))"); fi
  # 2. one line on stderr, nothing on stdout
  local lines; lines=$(wc -l <"$hl_tmp/err")
  if [ -n "$sig" ]; then
    [ "$lines" -le 1 ] || why+=("stderr has $lines lines")
    [ "$lines" -eq 0 ] || grep -q '^cmrs: ' "$hl_tmp/err" || why+=("stderr is not a cmrs line")
  else
    [ "$lines" -eq 1 ] || why+=("stderr has $lines lines")
    [ "$(head -1 "$hl_tmp/err" | wc -c)" -le 4096 ] || why+=("message longer than 4096 bytes")
    head -1 "$hl_tmp/err" | grep -q '^cmrs: error: ' || why+=("stderr does not start 'cmrs: error: '")
    local t; for t in "${texts[@]}"; do
      grep -qiF -- "$t" "$hl_tmp/err" || why+=("message lacks '$t'")
    done
    [ -s "$hl_tmp/out" ] && why+=("stdout not empty: $(head -c 120 "$hl_tmp/out" | tr '\n' ' ')")
  fi
  # 3. and 4. nothing left behind, inputs unchanged
  if [ "$before" != "$after" ]; then
    why+=("work folder changed: $(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | head -4 | tr '\n' ' ')")
  fi
  # oversized: relative memory, time printed (never asserted)
  if [ "$big" -eq 1 ] && [ ! -s "$hl_tmp/rss" ]; then why+=("no RSS measured")
  elif [ "$big" -eq 1 ]; then
    local rss secs; read -r rss secs < <(tail -1 "$hl_tmp/rss")
    echo "  oversized: cmrs $hl_args: ${secs} s, max RSS ${rss} KB (cmrs --version: ${base_rss} KB)"
    [ "$((rss - base_rss))" -lt 102400 ] 2>/dev/null ||
      why+=("max RSS ${rss} KB is not < 100 MB above cmrs --version's ${base_rss} KB")
  fi
  [ -n "${HOSTILE_VERBOSE:-}" ] &&
    echo "  [$hfamily] $rc cmrs $hl_args: $(head -c 200 "$hl_tmp/err" | tr '\n' '|')"
  if [ ${#why[@]} -eq 0 ]; then hpass=$((hpass+1)); else
    local IFS=';'; hl_bad "${why[*]} | stderr: $(head -c 300 "$hl_tmp/err" | tr '\n' '|')"
    restore
  fi
}
# restore: $w as it was made (after a failed case), and its snapshot.
restore() { rm -rf "$w"; cp -a "$pristine" "$w"; hl_snap=$(snapshot); }
accepted() {
  hl_args="$*"
  local before=$hl_snap after rc why=()
  run_cmrs 0 -- "$@"; rc=$(cat "$hl_tmp/rc")
  after=$(snapshot)
  [ "$rc" -eq 0 ] || why+=("exit $rc, want 0 (accepted by docs/FORMAT.md)")
  [ "$before" = "$after" ] || why+=("work folder changed")
  if [ ${#why[@]} -eq 0 ]; then hpass=$((hpass+1)); else
    hfail=$((hfail+1)); restore
    echo "FAIL [accepted] cmrs $hl_args: ${why[*]} | stderr: $(head -c 300 "$hl_tmp/err" | tr '\n' '|')" >&2
  fi
}
hostile_finish() {
  local f total=0
  echo "hostile cases per family:"
  for f in "${families[@]}"; do
    printf '  %-12s %3d cases, %d failed\n' "$f" "${fam_n[$f]}" "${fam_fail[$f]}"
    total=$((total + fam_n[$f]))
  done
  echo "  total        $total hostile cases"
  echo "$hpass passed, $hfail failed"
  [ "$hfail" -eq 0 ]
}
# the RSS of `cmrs --version`: what loading the binary costs
base_rss=$( (ulimit -v "$cmrs_limit_kb"; /usr/bin/time -f '%M' "$cmrs" --version 2>&1 >/dev/null) | tail -1)

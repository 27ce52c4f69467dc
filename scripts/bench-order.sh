#!/usr/bin/env bash
# The renumbering study of issue 29 ("a better renumbering for poorly
# numbered matrices"), on a GPU machine. For each randomly numbered case,
# its renumbered copies (`cmrs convert --order rcm|bfs|metis`, made once
# into $CASES_DIR next to the case), then on each of
#   random      the case as given: the cmrs format's own locality
#               reordering applies where its rule says so (--reorder auto:
#               poorly numbered, 750K rows and more; docs/CMRS.md)
#   random-off  the same with --reorder off
#   rcm, bfs, metis   the renumbered copies (metis only where $cmrs was
#               built with METIS; the script says when it is skipped)
#   natural     the case's generated order (NAME for NAME_random), for
#               reference
# it runs
#   cmrs bench FILE --precision double --repeat 50 --formats cmrs,cusparse
#   cmrs compare FILE --device gpu --preconds jacobi --formats cmrs,cusparse
#                --rtol 1e-8
# with --json into OUTDIR, and lists the runs in OUTDIR/runs.tsv (case,
# order, bench JSON, compare JSON). scripts/bench-order-table.py OUTDIR
# prints the table.
#
# Usage: scripts/bench-order.sh OUTDIR
#   ORDER_CASES="a_random b_random"  the cases (default below; each must be
#                a NAME_random of scripts/bench-cases.sh with its NAME)
#   DRY=1        make the cases and the renumbered copies only, and print
#                the GPU commands instead of running them
#   CMRS, CASES_DIR  the binary and the cases' folder (bench-cases.sh)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench-order.sh OUTDIR}
mkdir -p "$out"
gen_log="$out/gen.log"
. scripts/bench-cases.sh

study_cases=${ORDER_CASES:-poisson7_200_random fem_3M_random fem_0.4M_random vessel_5M_random}
runs="$out/runs.tsv"

# Whether $cmrs can make the metis order: 0 yes, 1 built without METIS
# (said on stdout), 2 the probe failed otherwise.
metis_available() {
  local probe="$out/metis-probe.h5" err
  err=$($cmrs gen poisson3d --n 3 --order metis -q -o "$probe" 2>&1)
  local rc=$?
  rm -f "$probe"
  [ $rc -eq 0 ] && return 0
  case $err in
    *"built without METIS"*)
      echo "bench-order: $cmrs was built without METIS: the metis order is skipped"
      return 1 ;;
  esac
  echo "bench-order: cannot run $cmrs: $err" >&2
  return 2
}

# renumber CASE ORDER: $cases/CASE_ORDER.h5, the case renumbered (once).
renumber() {
  local file="$cases/${1}_$2.h5"
  [ -f "$file" ] ||
    $cmrs convert "$cases/$1.h5" --order "$2" -o "$file" >>"$gen_log"
}

# measure CASE ORDER FILE [ARGS...]: bench and compare of FILE (ARGS go to
# both), their JSON and text in OUTDIR, a line in runs.tsv.
measure() {
  local c=$1 order=$2 file=$3 name="${1}_$2"
  shift 3
  [ -f "$file" ] || { echo "bench-order: no $file" >&2; exit 2; }
  echo "== $c $order: $file $*"
  gpu_json "$out/bench_$name" $cmrs bench "$file" --precision double \
    --repeat 50 --formats cmrs,cusparse "$@"
  # --renumber off: the solver would renumber a poorly numbered system
  # itself (the default), and the study measures the format's orders
  gpu_json "$out/compare_$name" $cmrs compare "$file" --device gpu \
    --preconds jacobi --formats cmrs,cusparse --rtol 1e-8 --renumber off "$@"
  printf '%s\t%s\t%s\t%s\n' "$c" "$order" "bench_$name.json" \
    "compare_$name.json" >>"$runs"
}

metis_available
case $? in
  0) orders="rcm bfs metis" ;;
  1) orders="rcm bfs" ;;
  *) exit 2 ;;
esac
for study in $study_cases; do
  case $study in
    *_random) ;;
    *) echo "bench-order: $study is not a NAME_random case" >&2; exit 2 ;;
  esac
  gen_cases "$study" "${study%_random}" || exit 2
  for o in $orders; do renumber "$study" "$o" || exit 2; done
done
cat "$gen_log"

: >"$runs"
for study in $study_cases; do
  measure "$study" random "$cases/$study.h5"
  measure "$study" random-off "$cases/$study.h5" --reorder off
  for o in $orders; do measure "$study" "$o" "$cases/${study}_$o.h5"; done
  measure "$study" natural "$cases/${study%_random}.h5"
done
echo "bench-order: runs listed in $runs; table: scripts/bench-order-table.py $out"

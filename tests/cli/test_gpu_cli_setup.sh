#!/usr/bin/env bash
# The GPU setup without host scans (issue 26): A's diagonal is found on the
# device during the conversion (spmv/diag_tap.cu) and cuBLAS is loaded in a
# helper thread beside it (solver/backend/gpu/backend_gpu_libs.c). What must not change:
#   - a matrix Jacobi cannot scale (no diagonal entry, a zero or negative
#     one) fails with exit 2 and the same error line on the GPU as on the
#     CPU, naming the row, for every path of the diagonal (cmrs in CSR order and
#     reordered, double and single, cusparse, a format without it);
#   - cuBLAS that cannot be loaded (CMRS_CUDA_LIBDIR an empty folder) is
#     exit 4 with "cannot load cuBLAS", profiled (--json) or not, and with
#     cuSPARSE loading in the main thread meanwhile (--spmv cusparse);
#   - a profiled solve reports a libraries phase.
# Skipped (77) only where no GPU is found.
set -u
cmrs=$1
. "$(dirname "$0")/../cli_harness.sh"
case=$CMRS_SOURCE_DIR/cases/data/vessel_3k.h5
skip_without_gpu "$cmrs" "$case"

# bad_mtx NAME ENTRY: a 5x5 SPD tridiagonal with row 3's diagonal entry
# replaced by ENTRY (a Matrix Market line, or "" for none) and row 1's by
# a good one; 17 rows so that the strips (16) are not full.
bad_mtx() {
  local f=$tmp/$1.mtx n=17 lines=""
  for i in $(seq 1 $n); do
    if [ "$i" -eq 4 ]; then [ -n "$2" ] && lines+="$2"$'\n'
    else lines+="$i $i 4"$'\n'; fi
    [ "$i" -lt $n ] && lines+="$((i + 1)) $i -1"$'\n'
  done
  local count; count=$(printf '%s' "$lines" | grep -c .)
  { echo "%%MatrixMarket matrix coordinate real symmetric"
    echo "$n $n $count"; printf '%s' "$lines"; } >"$f"
}
bad_mtx missing ""
bad_mtx negative "4 4 -2.5"
bad_mtx zero "4 4 0"
for m in missing negative zero; do
  expect 2 "$cmrs" solve "$tmp/$m.mtx" --device cpu
  grep "cmrs: error" "$tmp/err" >"$tmp/err_cpu"
  has err_cpu "row 3" "$m: cpu names the row"
  for args in "--spmv cmrs" "--spmv cmrs --precision single" \
              "--spmv cusparse" "--spmv cusparse --precision single" \
              "--spmv csr-scalar"; do
    # shellcheck disable=SC2086
    expect 2 "$cmrs" solve "$tmp/$m.mtx" --device gpu $args
    grep "cmrs: error" "$tmp/err" >"$tmp/err_gpu"
    cmp -s "$tmp/err_gpu" "$tmp/err_cpu" && ok ||
      bad "$m $args: gpu '$(cat "$tmp/err")' vs cpu '$(cat "$tmp/err_cpu")'"
  done
  # Reordered (the rule needs many rows: forced through the variant).
  CMRS_CMRS_VARIANT=reorder expect 2 "$cmrs" solve "$tmp/$m.mtx" --device gpu
  grep "cmrs: error" "$tmp/err" >"$tmp/err_gpu"
  cmp -s "$tmp/err_gpu" "$tmp/err_cpu" && ok || bad "$m reordered: $(cat "$tmp/err")"
done
# --precond none takes a matrix Jacobi refuses (converged or not: not 2).
"$cmrs" solve "$tmp/negative.mtx" --device gpu --precond none \
  --solver bicgstab -q >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -le 1 ] && ok || bad "precond none: exit $rc: $(cat "$tmp/err")"

# cuBLAS not loadable: the helper thread's error, raised at the join.
# With cusparse the main thread's own failure (cuSPARSE) comes first, and
# the back end's destruction must still wait for the thread.
mkdir "$tmp/empty"
for args in "" "--json $tmp/r.json" "--spmv cusparse"; do
  want="cannot load cuBLAS"
  [ "$args" = "--spmv cusparse" ] && want="cannot load cuSPARSE"
  # shellcheck disable=SC2086
  CMRS_CUDA_LIBDIR=$tmp/empty expect 4 "$cmrs" solve "$case" --device gpu \
    -o "$tmp/x.h5" $args
  one_line_err "no libraries $args"
  has err "$want" "no libraries $args"
  [ ! -e "$tmp/x.h5" ] && ok || bad "no libraries $args: output left"
done

# A profiled solve: the libraries phase is reported (the wait at the join).
expect 0 "$cmrs" solve "$case" --device gpu --json "$tmp/p.json" -q
has p.json '"libraries_s"' "profile: libraries phase"
finish

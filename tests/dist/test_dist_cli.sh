#!/usr/bin/env bash
# `cmrs solve --parts N --partition M` and `--gpus N` through the binary:
# iterations within 2 of the single-part solve (CG + Jacobi), the partition
# in the summary and the JSON, one-line errors with their exit codes.
set -u
cmrs=$1
src=${CMRS_SOURCE_DIR:?}
. "$(dirname "$0")/../cli_harness.sh"
gpu_count() { nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true; }
iters() { sed -n 's/.*after \([0-9]*\) iterations.*/\1/p' "$tmp/out"; }

vessel=$src/cases/data/vessel_3k.h5
expect 0 "$cmrs" solve "$vessel" --device cpu
single=$(iters)
methods="block rcm"
"$cmrs" solve "$vessel" --parts 2 --partition metis >/dev/null 2>&1 && methods="$methods metis"
for m in $methods; do
  for p in 1 2 3 4 7; do
    expect 0 "$cmrs" solve "$vessel" --parts "$p" --partition "$m"
    has out "partition  $p parts by $m: edge cut" "summary P=$p $m"
    it=$(iters); d=$(( ${it:-99999} - ${single:-0} ))
    [ "${d#-}" -le 2 ] && ok || bad "P=$p $m: $it iterations, single part $single"
  done
done
# One part is the single-part solve: no edge cut.
expect 0 "$cmrs" solve "$vessel" --parts 1
has out "edge cut 0, halo 0 values (most in one part 0, from at most 0" "one part cuts nothing"

# JSON: the partition object.
expect 0 "$cmrs" solve "$vessel" --parts 3 --partition rcm --json "$tmp/r.json"
if command -v python3 >/dev/null; then
  python3 -c "
import json; d = json.load(open('$tmp/r.json'))['partition']
assert d['parts'] == 3 and d['method'] == 'rcm' and d['edge_cut'] > 0
assert d['halo'] >= d['edge_cut'] // 3 and 1.0 <= d['imbalance'] < 1.1
assert 0 < d['max_halo'] <= d['halo'] and 1 <= d['max_neighbours'] <= 2" \
    && ok || bad "JSON partition object"
fi

# Errors: one line each, documented exit codes.
expect 2 "$cmrs" solve "$vessel" --parts 0
has err "\-\-parts" "--parts 0 names the option"; one_line_err "--parts 0"
expect 2 "$cmrs" solve "$vessel" --parts 3000
has err "rows = 2988" "more parts than rows"; one_line_err "--parts 3000"
expect 2 "$cmrs" solve "$vessel" --parts 2 --partition scotch
has err "known: block, rcm, metis" "unknown method"; one_line_err "--partition"
# amg on parts: the hierarchy over all rows (default) takes the one back
# end's iterations (+-1); one per part (--amg-parts block) more.
expect 0 "$cmrs" solve "$vessel" --device cpu --precond amg
amg1=$(iters)
for m in block rcm; do
  expect 0 "$cmrs" solve "$vessel" --parts 3 --partition $m --precond amg
  has out "cg + amg" "amg on parts"; has out "CONVERGED_RTOL" "amg on parts converges"
  it=$(iters); d=$(( ${it:-99999} - ${amg1:-0} ))
  [ "${d#-}" -le 1 ] && ok || bad "amg global P=3 $m: $it iterations, one back end $amg1"
done
expect 0 "$cmrs" solve "$vessel" --parts 2 --precond amg --amg-parts block
has out "CONVERGED_RTOL" "amg block converges"
it=$(iters); [ "${it:-0}" -gt $(( ${amg1:-99999} + 1 )) ] && ok || bad "amg block: $it iterations, one back end $amg1"
# level 1 on the parts too: the one back end's iterations (+-1)
expect 0 "$cmrs" solve "$vessel" --device cpu --precond amg --amg-coarse 20
amg20=$(iters)
expect 0 "$cmrs" solve "$vessel" --parts 3 --precond amg --amg-coarse 20 --amg-parts-levels 2 --json "$tmp/l.json"
it=$(iters); d=$(( ${it:-99999} - ${amg20:-0} ))
[ "${d#-}" -le 1 ] && ok || bad "amg levels 0-1 P=3: $it iterations, one back end $amg20"
has out "on the parts: levels 0-1" "amg levels 0-1: the report says so"
python3 -c "import json,sys; sys.exit(json.load(open(sys.argv[1]))['preconditioner_info']['parts_levels'] != 2)" "$tmp/l.json" \
  && ok || bad "amg levels 0-1 P=3: parts_levels is not 2 in the JSON"
expect 2 "$cmrs" solve "$vessel" --parts 2 --precond amg --amg-parts-levels 3
has err "auto|1|2" "--amg-parts-levels names the choices"; one_line_err "--amg-parts-levels"
expect 2 "$cmrs" solve "$vessel" --parts 2 --precond amg --amg-parts halves
has err "global|block" "--amg-parts names the choices"; one_line_err "--amg-parts"
expect 2 "$cmrs" solve "$vessel" --parts 2 --precision single
one_line_err "--parts single"
expect 2 "$cmrs" solve "$vessel" --parts 2 --precision mixed --precond amg
has err "runs on the GPU" "--parts mixed says where it runs"; one_line_err "--parts mixed"
# Two GPUs where there are fewer (CI: none; the 1-GPU machine: one).
if [ "$(gpu_count)" -lt 2 ]; then
  expect 4 "$cmrs" solve "$vessel" --gpus 2
  has err "GPU" "--gpus 2 says what is missing"; one_line_err "--gpus 2"
fi
expect 2 "$cmrs" solve "$vessel" --gpus 2 --parts 2 --device cpu
one_line_err "--gpus with --parts"
expect 2 "$cmrs" solve "$vessel" --gpus zero
case " $methods " in
  *" metis "*) ;;
  *) expect 2 "$cmrs" solve "$vessel" --parts 2 --partition metis
     has err "no METIS" "metis not built"; one_line_err "metis" ;;
esac
# cmrs compare over parts (it times one SpMV and the copy bandwidth).
expect 0 "$cmrs" compare "$vessel" --parts 3 --device cpu
has out "cpu x3 parts" "compare names the parts"
expect 2 "$cmrs" sweep "$vessel" --parts 2
has err "not swept" "sweep refuses --parts"; one_line_err "sweep --parts"
expect 2 "$cmrs" sweep "$vessel" --gpus 2
has err "not swept" "sweep refuses --gpus"; one_line_err "sweep --gpus"
# BiCGStab on the nonsymmetric committed case, 4 parts.
expect 0 "$cmrs" solve "$src/cases/data/convdiff_12.h5" --solver bicgstab --parts 4

finish

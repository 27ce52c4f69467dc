#!/usr/bin/env bash
# `mpirun -np 2 cmrs solve FILE` on a machine with two GPUs: a part per
# rank, each on its own GPU (the NCCL exchange, NCCL's id sent over MPI),
# against one GPU and against one process driving both (--gpus 2):
#   - CG + Jacobi (the fused loop per rank, the all-reduces between the
#     ranks' GPUs) and CG on the reference loop (--engine cublas): the
#     iterations of --gpus 2 (the same partition, the same sums) and of
#     one GPU within 2, the same true residual;
#   - single precision, amg (over all rows, on the reference loop by
#     default and between the fused kernels; a hierarchy per rank), BiCGStab;
#   - rank 0 alone reports and writes x (x equal to --gpus 2's; with
#     z's halo beside the r'z sum, the default, bit for bit p's halo's);
#   - -np 3 and -np 4 where the machine has the GPUs;
#   - --gpus 2 under mpirun and --parts 3 under -np 2 refused on every
#     rank, none hangs.
# Skipped (77) without mpirun, MPI in cmrs, two GPUs or NCCL.
set -u
cmrs=$1
src=${CMRS_SOURCE_DIR:?}
. "$(dirname "$0")/../cli_harness.sh"
MPI_TIMEOUT=180 # its solves of 40k rows start NCCL on two GPUs
. "$(dirname "$0")/mpi_harness.sh" # skips; mpi NP ARGS
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$gpus" -ge 2 ] || { echo "$gpus GPU(s): two needed, skipped"; exit 77; }
export NCCL_NVLS_ENABLE=0 # NVLink multicast off (../shared/GPU.md)
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d[sys.argv[2]])" "$1" "$2"; }

vessel=$tmp/vessel.h5
"$cmrs" gen vessel --cells 40000 -o "$vessel" >/dev/null || { bad "gen"; finish; exit; }
"$cmrs" solve "$vessel" --gpus 2 -q >"$tmp/out" 2>"$tmp/err"
if grep -q "NCCL" "$tmp/err"; then echo "no NCCL: skipped"; exit 77; fi

# its within 2 of the reference json's, true residual <= 1e-7 (rtol 1e-8)
close() { # what, reference json, mpirun json
  local a b t
  a=$(field "$2" iterations); b=$(field "$3" iterations)
  t=$(field "$3" residual_true)
  [ $((a - b)) -le 2 ] && [ $((b - a)) -le 2 ] && ok || bad "$1: $b iterations under mpirun, $a in the reference"
  python3 -c "import sys; sys.exit(0 if float('$t') <= 1e-7 else 1)" && ok || bad "$1: true residual $t"
}
for eng in auto cublas; do
  expect 0 "$cmrs" solve "$vessel" --engine $eng --json "$tmp/g1.json"
  expect 0 "$cmrs" solve "$vessel" --gpus 2 --engine $eng --json "$tmp/g2.json"
  expect 0 mpi 2 solve "$vessel" --engine $eng --json "$tmp/m.json"
  has out "x2 parts (nccl exchange)" "engine $eng: the NCCL exchange between ranks"
  [ "$(grep -c 'result ' "$tmp/out")" -eq 1 ] && ok || bad "engine $eng: one report, not one per rank"
  close "engine $eng vs one GPU" "$tmp/g1.json" "$tmp/m.json"
  close "engine $eng vs --gpus 2" "$tmp/g2.json" "$tmp/m.json"
  [ "$(field "$tmp/m.json" engine)" = "$(field "$tmp/g2.json" engine)" ] && ok || bad "engine $eng: $(field "$tmp/m.json" engine) under mpirun"
done
[ "$(field "$tmp/g2.json" engine)" = reference ] && ok || bad "--engine cublas ran $(field "$tmp/g2.json" engine)"
expect 0 mpi 2 solve "$vessel" --json "$tmp/m.json"
[ "$(field "$tmp/m.json" engine)" = fused ] && ok || bad "mpirun's default engine: $(field "$tmp/m.json" engine)"
# each rank read only its rows (block, HDF5): as one GPU; rcm reads all
rows_by_rank() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['partition']['rows_by_rank'])" "$1"; }
[ "$(rows_by_rank "$tmp/m.json")" = 1 ] && ok || bad "mpirun block: not read by rows"
expect 0 mpi 2 solve "$vessel" --partition rcm --json "$tmp/r.json"
[ "$(rows_by_rank "$tmp/r.json")" = 0 ] && ok || bad "mpirun rcm: read by rows"
close "rcm (whole file) vs one GPU" "$tmp/g1.json" "$tmp/r.json"

# x: rank 0 writes it, equal to --gpus 2's within rounding
expect 0 "$cmrs" solve "$vessel" --gpus 2 -o "$tmp/g2.h5"
expect 0 mpi 2 solve "$vessel" -o "$tmp/m.h5"
if python3 -c "import h5py" 2>/dev/null; then
  python3 -c "
import h5py, numpy as np, sys
a = h5py.File('$tmp/g2.h5')['x'][:]; b = h5py.File('$tmp/m.h5')['x'][:]
sys.exit(0 if np.linalg.norm(a - b) <= 1e-6 * np.linalg.norm(a) else 1)" && ok || bad "x under mpirun differs from --gpus 2's"
fi
# z's halo beside the r'z sum (the default) against p's halo before every
# SpMV: the same x bit for bit between the ranks' GPUs too
CMRS_DIST_MERGED_HALO=0 expect 0 mpi 2 solve "$vessel" -o "$tmp/m0.h5"
same_x() { # two files' x, bit for bit
  if python3 -c "import h5py" 2>/dev/null; then
    python3 -c "
import h5py, numpy as np, sys
a = h5py.File('$1')['x'][:]; b = h5py.File('$2')['x'][:]
sys.exit(0 if a.tobytes() == b.tobytes() else 1)"
  elif command -v h5dump >/dev/null; then
    cmp -s <(h5dump -d x "$1" | tail -n +3) <(h5dump -d x "$2" | tail -n +3)
  else echo "neither h5py nor h5dump to read x" >&2; return 2; fi
}
same_x "$tmp/m.h5" "$tmp/m0.h5" && ok || bad "mpirun: x with z's halo beside the sum differs from p's halo's"

# single precision, amg, BiCGStab: converged, close to --gpus 2
expect 0 "$cmrs" solve "$vessel" --gpus 2 --precision single --rtol 1e-5 --json "$tmp/g2.json"
expect 0 mpi 2 solve "$vessel" --precision single --rtol 1e-5 --json "$tmp/m.json"
a=$(field "$tmp/g2.json" iterations); b=$(field "$tmp/m.json" iterations)
[ $((a - b)) -le 2 ] && [ $((b - a)) -le 2 ] && ok || bad "single: $b iterations under mpirun, $a on --gpus 2"
expect 0 "$cmrs" solve "$vessel" --gpus 2 --precond amg --json "$tmp/g2.json"
expect 0 mpi 2 solve "$vessel" --precond amg --json "$tmp/m.json"
close "amg vs --gpus 2" "$tmp/g2.json" "$tmp/m.json"
# amg on the reference loop by default; between the fused kernels asked
for j in g2 m; do
  [ "$(field "$tmp/$j.json" engine)" = reference ] && ok || bad "amg ($j): engine $(field "$tmp/$j.json" engine)"
done
expect 0 mpi 2 solve "$vessel" --precond amg --engine fused --json "$tmp/c.json"
[ "$(field "$tmp/c.json" engine)" = fused ] && ok || bad "amg --engine fused: $(field "$tmp/c.json" engine)"
close "amg fused loop vs reference" "$tmp/m.json" "$tmp/c.json"
lv="--precond amg --amg-coarse 50 --amg-parts-levels 2"
expect 0 "$cmrs" solve "$vessel" --gpus 2 $lv --json "$tmp/g2.json"
expect 0 mpi 2 solve "$vessel" $lv --json "$tmp/m.json"
close "amg levels 0-1 vs --gpus 2" "$tmp/g2.json" "$tmp/m.json"
for j in g2 m; do
  python3 -c "import json,sys; sys.exit(json.load(open(sys.argv[1]))['preconditioner_info']['parts_levels'] != 2)" "$tmp/$j.json" \
    && ok || bad "amg levels 0-1 ($j): parts_levels is not 2 in the JSON"
done
expect 0 "$cmrs" solve "$vessel" --gpus 2 --precond amg --amg-parts block --json "$tmp/g2.json"
expect 0 mpi 2 solve "$vessel" --precond amg --amg-parts block --json "$tmp/m.json"
close "amg block vs --gpus 2" "$tmp/g2.json" "$tmp/m.json"
convdiff=$src/cases/data/convdiff_12.h5
expect 0 "$cmrs" solve "$convdiff" --solver bicgstab --gpus 2 --json "$tmp/g2.json"
expect 0 mpi 2 solve "$convdiff" --solver bicgstab --json "$tmp/m.json"
close "bicgstab vs --gpus 2" "$tmp/g2.json" "$tmp/m.json"

# 3 and 4 ranks where the machine has the GPUs: the fused loop over
# interior parts with two neighbours, vs one GPU and --gpus N
for n in 3 4; do
  [ "$gpus" -ge $n ] || continue
  expect 0 "$cmrs" solve "$vessel" --json "$tmp/g1.json"
  expect 0 "$cmrs" solve "$vessel" --gpus $n --json "$tmp/g2.json"
  expect 0 mpi $n solve "$vessel" --json "$tmp/m.json"
  has out "x$n parts (nccl exchange)" "-np $n: the NCCL exchange"
  close "-np $n vs one GPU" "$tmp/g1.json" "$tmp/m.json"
  close "-np $n vs --gpus $n" "$tmp/g2.json" "$tmp/m.json"
done

# refusals on every rank, in time
expect 2 mpi 2 solve "$vessel" --gpus 2
has err "each rank takes one GPU" "--gpus 2 under mpirun"
expect 2 mpi 2 solve "$vessel" --parts 3
has err "one part per rank" "--parts 3 under -np 2"
finish

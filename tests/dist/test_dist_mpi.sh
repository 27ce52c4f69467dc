#!/usr/bin/env bash
# `mpirun -np N cmrs solve FILE`: a part per rank on the CPU back end, the
# MPI exchange. The same sums in the same order as --parts N in one
# process, so the same iterations and bit for bit the same x (checked
# through the JSON's residuals, printed with 17 digits, and -o's x);
# rank 0 alone reports and writes; errors end every rank, none hangs; with
# --partition block on an HDF5 file each rank reads only its rows.
# Skipped (77) without mpirun or where cmrs was built without MPI.
set -u
cmrs=$1
src=${CMRS_SOURCE_DIR:?}
. "$(dirname "$0")/../cli_harness.sh"
. "$(dirname "$0")/mpi_harness.sh" # skips; mpi NP ARGS
# The ranks on the CPU back end, also where GPUs are (there a rank would
# take one: test_gpu_dist_mpi.sh).
mpi_cpu() { mpi "$@" --device cpu; }
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(repr(d[sys.argv[2]]))" "$1" "$2"; }

vessel=$src/cases/data/vessel_3k.h5
convdiff=$src/cases/data/convdiff_12.h5
same() { # what, one-process json, mpirun json
  for k in iterations residual_true residual_recursive; do
    a=$(field "$2" $k); b=$(field "$3" $k)
    [ "$a" = "$b" ] && ok || bad "$1: $k $b under mpirun, $a on parts"
  done
}
for np in 2 3 4; do
  for m in block rcm; do
    expect 0 "$cmrs" solve "$vessel" --parts $np --partition $m --json "$tmp/p.json"
    expect 0 mpi_cpu $np solve "$vessel" --partition $m --json "$tmp/m.json"
    has out "cpu x$np parts (mpi exchange)" "np=$np $m: the MPI exchange"
    [ "$(grep -c 'result ' "$tmp/out")" -eq 1 ] && ok || bad "np=$np: one report, not one per rank"
    same "np=$np $m" "$tmp/p.json" "$tmp/m.json"
  done
done
# x itself, bit for bit (rank 0 writes -o alone).
expect 0 "$cmrs" solve "$vessel" --parts 3 --partition rcm -o "$tmp/p.h5"
expect 0 mpi_cpu 3 solve "$vessel" --partition rcm -o "$tmp/m.h5"
if python3 -c "import h5py" 2>/dev/null; then
  python3 -c "
import h5py, numpy as np, sys
a = h5py.File('$tmp/p.h5')['x'][:]; b = h5py.File('$tmp/m.h5')['x'][:]
sys.exit(0 if np.array_equal(a, b) else 1)" && ok || bad "x under mpirun differs"
fi
# Each rank reads only its rows where it can (--partition block, the
# default, and an HDF5 CSR file): the JSON and the summary say so, the
# partition's measures (computed by the ranks together) and x bit for bit
# equal those of --parts on the whole file (the loop above: iterations
# and residuals); rcm and a Matrix Market file read the whole file.
part() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['partition'][sys.argv[2]])" "$1" "$2"; }
expect 0 "$cmrs" solve "$vessel" --parts 3 -o "$tmp/p.h5" --json "$tmp/p.json"
expect 0 mpi_cpu 3 solve "$vessel" -o "$tmp/m.h5" --json "$tmp/m.json"
has out "each rank read its rows" "np=3 block: read by rows"
[ "$(part "$tmp/m.json" rows_by_rank)" = 1 ] && ok || bad "np=3 block: rows_by_rank $(part "$tmp/m.json" rows_by_rank)"
for k in edge_cut halo max_halo max_neighbours imbalance; do
  [ "$(part "$tmp/m.json" $k)" = "$(part "$tmp/p.json" $k)" ] && ok || bad "rows: $k $(part "$tmp/m.json" $k), whole $(part "$tmp/p.json" $k)"
done
[ "$(field "$tmp/m.json" nnz)" = "$(field "$tmp/p.json" nnz)" ] && ok || bad "rows: nnz $(field "$tmp/m.json" nnz) in the report"
if python3 -c "import h5py" 2>/dev/null; then
  python3 -c "
import h5py, numpy as np, sys
a = h5py.File('$tmp/p.h5')['x'][:]; b = h5py.File('$tmp/m.h5')['x'][:]
sys.exit(0 if np.array_equal(a, b) else 1)" && ok || bad "x read by rows differs"
fi
# Rows read by rows of a randomly numbered matrix (foreign entries in every
# row, not only at the blocks' edges), each rank's halo scan and edge cut
# split into 3 chunks of a few rows (CMRS_PARALLEL_GRAIN=1): the same
# measures and x as one process on the whole file.
expect 0 "$cmrs" convert "$vessel" --order random --seed 7 -o "$tmp/rand.h5"
expect 0 "$cmrs" solve "$tmp/rand.h5" --parts 3 -o "$tmp/p.h5" --json "$tmp/p.json"
CMRS_HOST_THREADS=3 CMRS_PARALLEL_GRAIN=1 expect 0 mpi_cpu 3 solve "$tmp/rand.h5" -o "$tmp/m.h5" --json "$tmp/m.json"
[ "$(part "$tmp/m.json" rows_by_rank)" = 1 ] && ok || bad "random np=3: not read by rows"
for k in edge_cut halo max_halo max_neighbours imbalance; do
  [ "$(part "$tmp/m.json" $k)" = "$(part "$tmp/p.json" $k)" ] && ok || bad "random rows in chunks: $k $(part "$tmp/m.json" $k), whole $(part "$tmp/p.json" $k)"
done
same "random rows in chunks" "$tmp/p.json" "$tmp/m.json"
expect 0 mpi_cpu 3 solve "$vessel" --partition rcm --json "$tmp/m.json"
[ "$(part "$tmp/m.json" rows_by_rank)" = 0 ] && ok || bad "rcm read by rows"
{ echo "%%MatrixMarket matrix coordinate real symmetric"; echo "60 60 119"
  for i in $(seq 1 60); do echo "$i $i 2.5"; done
  for i in $(seq 2 60); do echo "$i $((i - 1)) -1"; done; } > "$tmp/t.mtx"
expect 0 "$cmrs" solve "$tmp/t.mtx" --parts 2 --json "$tmp/p.json"
expect 0 mpi_cpu 2 solve "$tmp/t.mtx" --json "$tmp/m.json"
[ "$(part "$tmp/m.json" rows_by_rank)" = 0 ] && ok || bad "Matrix Market read by rows"
same "Matrix Market np=2" "$tmp/p.json" "$tmp/m.json"

# amg (over all rows: each rank reads the whole file) and BiCGStab.
expect 0 "$cmrs" solve "$vessel" --parts 2 --precond amg --json "$tmp/p.json"
expect 0 mpi_cpu 2 solve "$vessel" --precond amg --json "$tmp/m.json"
same "amg np=2" "$tmp/p.json" "$tmp/m.json"
[ "$(part "$tmp/m.json" rows_by_rank)" = 0 ] && ok || bad "amg over all rows reads the whole file"
expect 0 "$cmrs" solve "$vessel" --parts 2 --precond amg --amg-parts block --json "$tmp/p.json"
expect 0 mpi_cpu 2 solve "$vessel" --precond amg --amg-parts block --json "$tmp/m.json"
same "amg block np=2" "$tmp/p.json" "$tmp/m.json"
# amg over all rows on 3 ranks by rcm: the coarse sums add 3 shares in
# MPI's order, which the standard leaves open: iterations within 1 of
# --parts 3, the true residual within 1e-12 of its.
expect 0 "$cmrs" solve "$vessel" --parts 3 --partition rcm --precond amg --json "$tmp/p.json"
expect 0 mpi_cpu 3 solve "$vessel" --partition rcm --precond amg --json "$tmp/m.json"
a=$(field "$tmp/p.json" iterations); b=$(field "$tmp/m.json" iterations)
[ $((a - b)) -le 1 ] && [ $((b - a)) -le 1 ] && ok || bad "amg np=3 rcm: $b iterations under mpirun, $a on parts"
python3 -c "import sys; sys.exit(0 if abs($(field "$tmp/p.json" residual_true) - $(field "$tmp/m.json" residual_true)) <= 1e-12 else 1)" \
  && ok || bad "amg np=3 rcm: true residual differs from --parts 3's"
# level 1 on the ranks too (--amg-parts-levels 2; --amg-coarse 20 for a
# third level): bit for bit --parts 2's, and the report says so.
lv="--precond amg --amg-coarse 20 --amg-parts-levels 2"
expect 0 "$cmrs" solve "$vessel" --parts 2 $lv --json "$tmp/p.json"
expect 0 mpi_cpu 2 solve "$vessel" $lv --json "$tmp/m.json"
same "amg levels 0-1 np=2" "$tmp/p.json" "$tmp/m.json"
python3 -c "import json,sys; sys.exit(json.load(open(sys.argv[1]))['preconditioner_info']['parts_levels'] != 2)" "$tmp/m.json" \
  && ok || bad "amg levels 0-1 np=2: parts_levels is not 2 in the JSON"
expect 0 "$cmrs" solve "$convdiff" --solver bicgstab --parts 2 --json "$tmp/p.json"
expect 0 mpi_cpu 2 solve "$convdiff" --solver bicgstab --json "$tmp/m.json"
same "bicgstab np=2" "$tmp/p.json" "$tmp/m.json"

# Errors: their exit code on every rank; none hangs (timeout: 124).
expect 2 mpi_cpu 2 solve "$vessel" --parts 3
has err "one part per rank" "--parts 3 under -np 2"
expect 2 mpi 2 bench "$vessel"
has err "only 'cmrs solve'" "bench under mpirun"
# Rank 0 alone fails (it alone writes -o) while rank 1 goes on into the
# solve's first all-reduce: rank 0's MPI_Abort must end it.
expect 2 mpi_cpu 2 solve "$vessel" -o "$tmp/no/such/dir/x.h5"
has err "no/such/dir" "rank 0's output error"
finish

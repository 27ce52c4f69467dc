#!/usr/bin/env bash
# The library over an MPI communicator other than the world
# (dist_comm_check.c: two halves of mpirun -np 4 solving two systems at
# once, each against its simulated-parts solve bit for bit). Skipped (77)
# without mpirun or where cmrs was built without MPI.
set -u
cmrs=$1
. "$(dirname "$0")/../cli_harness.sh"
check=$(dirname "$cmrs")/tests/dist/dist_comm_check
[ -x "$check" ] || { echo "no $check: skipped"; exit 77; }
. "$(dirname "$0")/mpi_harness.sh" # skips without mpirun or MPI
expect 0 timeout 120 mpirun -np 4 "$check"
[ "$(grep -c ' passed, 0 failed$' "$tmp/out")" -eq 4 ] && ok ||
  bad "not every rank passed: $(cat "$tmp/out" "$tmp/err" | head -c 600)"
has out "rank 0 (vessel)" "the first half solved the vessel"
has out "rank 3 (poisson)" "the second half solved the Poisson case"
finish

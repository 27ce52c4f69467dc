#!/usr/bin/env bash
# The wider benchmark set of issue 29 (docs/BENCHMARKS.md "Matrices we had
# not tuned for"), on a GPU machine: unstructured P1 tetrahedral Laplacians
# of 0.4M and 3.4M rows in the mesh's (refinement) numbering and in random
# numbering, the quadratic (P2) and the anisotropic (100:1) variant of the
# 0.4M mesh, all on the raw Delaunay mesh (fem_*), and the mesher-quality
# mesh's 0.4M and 3.2M rows, mesh and random numbering (fem_q_*)
# (scripts/gen-fem.py through scripts/bench-cases.sh: numpy, scipy,
# h5py). For each case
#   cmrs bench CASE --precision double|single --repeat 50   (every format)
#   cmrs compare CASE --device gpu --preconds jacobi --formats cmrs,cusparse
#                --rtol 1e-8 --repeat 3
# with --json into OUTDIR (bench_CASE_PREC.json, compare_CASE.json);
# scripts/bench-wide-table.py OUTDIR prints the table (cmrs's rank among
# the formats, eta+, against cuSPARSE, the fastest; Jacobi-PCG per
# iteration).
#
# Usage: scripts/bench-wide.sh OUTDIR
#   WIDE_CASES="a b"  the cases (default below; any of bench-cases.sh)
#   KERNEL_CHOICE=measure  adds --kernel-choice measure to compare
#   RENUMBER=off|on  adds --renumber to compare (default: the solver's,
#                auto, which renumbers the random cases of 1M rows and
#                more; the format's own reordering then sees B)
#   DRY=1        make the cases only, and print the GPU commands
#   CMRS, CASES_DIR  the binary and the cases' folder (bench-cases.sh)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench-wide.sh OUTDIR}
mkdir -p "$out"
gen_log="$out/gen.log"
. scripts/bench-cases.sh

wide_cases=${WIDE_CASES:-fem_0.4M fem_0.4M_random fem_3M fem_3M_random fem_p2_0.4M fem_aniso_0.4M
fem_q_0.4M fem_q_0.4M_random fem_q_3M fem_q_3M_random}
choice=()
[ -n "${KERNEL_CHOICE:-}" ] && choice=(--kernel-choice "$KERNEL_CHOICE")

gen_cases $wide_cases || exit 2
for c in $wide_cases; do
  f="$cases/$c.h5"
  for p in double single; do
    echo "== bench $c $p"
    gpu_json "$out/bench_${c}_$p" $cmrs bench "$f" --precision $p \
      --repeat 50
  done
  echo "== compare $c"
  gpu_json "$out/compare_$c" $cmrs compare "$f" --device gpu \
    --preconds jacobi --formats cmrs,cusparse --rtol 1e-8 --repeat 3 \
    ${RENUMBER:+--renumber "$RENUMBER"} "${choice[@]}"
done

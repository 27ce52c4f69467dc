#!/usr/bin/env bash
# Several GPUs (issue 30): strong and weak scaling of Jacobi-PCG with
# `cmrs solve --gpus N` against one GPU, on generated vessels.
# Usage: scripts/bench-gpus.sh BUILD OUTDIR [CASES...]
#   CASES: v5m v50m (strong scaling), v25m (one GPU's share of v50m: weak
#   scaling), default "v5m v25m v50m". Per case, one JSON per run:
#     g1_fused   one GPU, the default engine (fused kernels)
#     g1_cublas  one GPU, the host loop
#     gN_block, gN_rcm   N = 2 .. $GPUS GPUs, block / rcm partition (the
#                default engine: the fused kernels per GPU, NCCL
#                all-reduces on the devices)
#     gN_block_loop      the same on the host loop (--engine cublas)
#     gN_mpi     a process per GPU: mpirun --bind-to none -np N (block)
#     g1_amg, gN_amg, gN_mpi_amg, gN_perpart_amg   with PRECONDS
#                containing amg: one GPU; N GPUs with the hierarchy over
#                all rows (--gpus N, mpirun); a hierarchy per GPU
#   then bench-gpus-table.py prints the table (per-iteration times, the
#   speed-ups against both one-GPU rows, the partition's halo). The files
#   are bench-cases.sh's (vessel_5M, _25M, _50M in $CASES_DIR).
set -uo pipefail
build=${1:?usage: bench-gpus.sh BUILD OUTDIR [CASES]}
out=${2:?usage: bench-gpus.sh BUILD OUTDIR [CASES]}
shift 2
list=${*:-v5m v25m v50m}
cmrs=$build/cmrs
gpus=${GPUS:-$(nvidia-smi -L | grep -c '^GPU')}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 # NVLink multicast off (../shared/GPU.md)
. "$(dirname "$0")/bench-cases.sh" # gen_case, $cases

# v5m v25m v50m: the benchmark set's vessels (bench-cases.sh).
file_of() {
  local name
  case $1 in v5m) name=vessel_5M ;; v25m) name=vessel_25M ;; v50m) name=vessel_50M ;;
    *) echo "bench-gpus: unknown case $1" >&2; return 2 ;; esac
  gen_case "$name" && echo "$cases/$name.h5"
}

# MAXITER (default: none) caps the large cases' solves: the time per
# iteration is steady long before the vessel's thousands of iterations.
run() { # case tag args...
  local c=$1 tag=$2; shift 2
  local cap=()
  [ "$c" != v5m ] && [ -n "${MAXITER:-}" ] && cap=(--maxiter "$MAXITER")
  echo "== $c $tag: ${LAUNCH:-} $* ${cap[*]}"
  local f; f=$(file_of "$c") || return
  timeout 300 ${LAUNCH:-} $cmrs solve "$f" "$@" "${cap[@]}" \
    --json "$out/${c}_$tag.json" | grep -E "result|partition|setup:|time" | head -6
}
# A process per GPU: every rank on all cores (mpirun's default binds each
# to one core, which its launches then share with NCCL's threads: 3x
# slower per iteration, docs/DISTRIBUTED.md).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run_mpi() { # case tag ranks args...
  local c=$1 tag=$2 n=$3; shift 3
  command -v mpirun > /dev/null || { echo "== $c $tag: no mpirun"; return; }
  LAUNCH="mpirun --bind-to none -np $n" run "$c" "$tag" "$@"
}

# PRECONDS: jacobi (the runs above) and/or amg (one GPU's hierarchy
# against the split one on N GPUs and one per GPU).
for c in $list; do
  for pc in ${PRECONDS:-jacobi}; do
    if [ "$pc" = amg ]; then
      run "$c" g1_amg --precond amg
      for ((n = 2; n <= gpus; ++n)); do
        run "$c" "g${n}_amg" --gpus "$n" --precond amg
        run_mpi "$c" "g${n}_mpi_amg" "$n" --precond amg
        run "$c" "g${n}_perpart_amg" --gpus "$n" --precond amg --amg-parts block
      done
      continue
    fi
    run "$c" g1_fused
    run "$c" g1_cublas --engine cublas
    for ((n = 2; n <= gpus; ++n)); do
      run "$c" "g${n}_block" --gpus "$n" --partition block
      run "$c" "g${n}_rcm" --gpus "$n" --partition rcm
      run "$c" "g${n}_block_loop" --gpus "$n" --partition block --engine cublas
      run_mpi "$c" "g${n}_mpi" "$n" --partition block
    done
  done
done
python3 "$(dirname "$0")/bench-gpus-table.py" "$out" | tee "$out/table.md"

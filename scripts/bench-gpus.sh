#!/usr/bin/env bash
# Several GPUs (issue 30): strong and weak scaling of Jacobi-PCG with
# `cmrs solve --gpus N` against one GPU, on generated vessels.
# Usage: scripts/bench-gpus.sh BUILD OUTDIR [CASES...]
#   CASES: v5m v50m (strong scaling), v25m (one GPU's share of v50m: weak
#   scaling), default "v5m v25m v50m". Per case, one JSON per run:
#     g1_fused   one GPU, the default engine (fused kernels)
#     g1_cublas  one GPU, the host loop (the loop the parts run)
#     gN_block, gN_rcm   N = 2 .. $GPUS GPUs, block / rcm partition
#     g1_amg, gN_block_amg   with PRECONDS containing amg
#   then bench-gpus-table.py prints the table (per-iteration times, the
#   speed-ups against both one-GPU rows, the partition's halo).
set -uo pipefail
build=${1:?usage: bench-gpus.sh BUILD OUTDIR [CASES]}
out=${2:?usage: bench-gpus.sh BUILD OUTDIR [CASES]}
shift 2
cases=${*:-v5m v25m v50m}
cmrs=$build/cmrs
data=${DATA:-/tmp/gpus-data}
gpus=${GPUS:-$(nvidia-smi -L | grep -c '^GPU')}
mkdir -p "$out" "$data"
export NCCL_NVLS_ENABLE=0 # NVLink multicast off (../shared/GPU.md)

gen() { # name -> file (generated once)
  local f=$data/$1.h5
  [ -f "$f" ] && { echo "$f"; return; }
  case $1 in
    v5m) $cmrs gen vessel --cells 5000000 -o "$f" ;;
    v25m) $cmrs gen vessel --cells 25000000 -o "$f" ;;
    v50m) $cmrs gen vessel --cells 50000000 -o "$f" ;;
  esac >/dev/null
  echo "$f"
}

# MAXITER (default: none) caps the large cases' solves: the time per
# iteration is steady long before the vessel's thousands of iterations.
run() { # case tag args...
  local c=$1 tag=$2; shift 2
  local cap=()
  [ "$c" != v5m ] && [ -n "${MAXITER:-}" ] && cap=(--maxiter "$MAXITER")
  echo "== $c $tag: $* ${cap[*]}"
  timeout 300 $cmrs solve "$(gen "$c")" "$@" "${cap[@]}" \
    --json "$out/${c}_$tag.json" | grep -E "result|partition|setup:|time" | head -6
}

# PRECONDS: jacobi (the runs above) and/or amg (one GPU's hierarchy
# against one per GPU: g1_amg, gN_block_amg).
for c in $cases; do
  for pc in ${PRECONDS:-jacobi}; do
    if [ "$pc" = amg ]; then
      run "$c" g1_amg --precond amg
      for ((n = 2; n <= gpus; ++n)); do
        run "$c" "g${n}_block_amg" --gpus "$n" --precond amg
      done
      continue
    fi
    run "$c" g1_fused
    run "$c" g1_cublas --engine cublas
    for ((n = 2; n <= gpus; ++n)); do
      run "$c" "g${n}_block" --gpus "$n" --partition block
      run "$c" "g${n}_rcm" --gpus "$n" --partition rcm
    done
  done
done
python3 "$(dirname "$0")/bench-gpus-table.py" "$out" | tee "$out/table.md"

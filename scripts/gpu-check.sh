#!/usr/bin/env bash
# The whole GPU check in one go (run on the device machine):
#   1. build for Hopper, 2. every test incl. GPU ones, 3. compute-sanitizer
#   memcheck + racecheck on a small solve, 4. benchmarks into $1 (JSON/CSV),
#   5. a short summary last.
# Usage: scripts/gpu-check.sh OUTDIR [quick|full|none]
#   (env SAN_FORMATS: the formats the sanitizer runs, default all)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: gpu-check.sh OUTDIR [quick|full]}
mode=${2:-quick}
mkdir -p "$out"
export PATH="/usr/local/cuda/bin:$PATH"
log() { echo "== $*"; }
summary=()

log build
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES=90 >"$out/configure.log" 2>&1 &&
  cmake --build build-gpu -j 16 >"$out/build.log" 2>&1
rc=$?; summary+=("build: rc=$rc"); [ $rc -eq 0 ] || { tail -40 "$out/build.log"; exit 1; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"

log tests
ctest --test-dir build-gpu --output-on-failure -j 4 >"$out/ctest.log" 2>&1
rc=$?; summary+=("ctest: rc=$rc $(grep -E 'tests passed|tests failed' "$out/ctest.log")")
grep -E "Passed|Failed|Skipped|Not Run|\*\*\*" "$out/ctest.log" | tail -40

cmrs=build-gpu/cmrs
log sanitizer
$cmrs gen poisson3d --n 24 -o /tmp/san.h5 >/dev/null
$cmrs gen vessel --cells 20000 -o /tmp/san_v.h5 >/dev/null
# racecheck skips cusparse: it reports hazards inside cuSPARSE's own
# csrmv kernel (closed source; see docs/BENCHMARKS.md), not in our code.
for tool in memcheck racecheck; do
  fmts=${SAN_FORMATS:-"cmrs cmrs-mod cusparse csr-scalar csr-vector hyb ellr sell argcsr csrb"}
  [ $tool = racecheck ] && fmts=${fmts//cusparse/}
  for fmt in $fmts; do
    compute-sanitizer --tool $tool --error-exitcode 9 \
      $cmrs solve /tmp/san_v.h5 --spmv $fmt --device gpu -q \
      >"$out/san_${tool}_${fmt}.log" 2>&1
    rc=$?; summary+=("sanitizer $tool $fmt: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/san_${tool}_${fmt}.log" | tail -1)")
  done
  # The cmrs kernels the default does not pick on this small case.
  for var in tile tile4 seg rows,l2normal; do
    log="$out/san_${tool}_cmrs_${var//,/_}.log"
    CMRS_CMRS_VARIANT=$var compute-sanitizer --tool $tool --error-exitcode 9 \
      $cmrs solve /tmp/san_v.h5 --spmv cmrs --device gpu -q >"$log" 2>&1
    rc=$?; summary+=("sanitizer $tool cmrs $var: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)")
  done
  # Every engine with both solvers (the loop above ran the default engine).
  for eng in cublas graph fused; do
    for sol in cg bicgstab; do
      log="$out/san_${tool}_${eng}_${sol}.log"
      compute-sanitizer --tool $tool --error-exitcode 9 \
        $cmrs solve /tmp/san_v.h5 --engine $eng --solver $sol --device gpu -q \
        >"$log" 2>&1
      rc=$?; summary+=("sanitizer $tool $eng $sol: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)")
    done
  done
  # The preconditioners (AMG with its default, handshake aggregation on the
  # GPU, Chebyshev) and, under memcheck, the public API's GPU test (host
  # and device arrays; too long for racecheck).
  for pc in "amg" "amg --amg-agg handshake" "chebyshev"; do
    tag=${pc// /_}
    log="$out/san_${tool}_pc_${tag//--/}.log"
    compute-sanitizer --tool $tool --error-exitcode 9 \
      $cmrs solve /tmp/san_v.h5 --precond $pc --device gpu -q >"$log" 2>&1
    rc=$?; summary+=("sanitizer $tool precond $pc: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)")
  done
  if [ $tool = memcheck ] && [ -x build-gpu/tests/api/test_gpu_api ]; then
    log="$out/san_${tool}_test_gpu_api.log"
    compute-sanitizer --tool $tool --error-exitcode 9 build-gpu/tests/api/test_gpu_api >"$log" 2>&1
    rc=$?; summary+=("sanitizer $tool test_gpu_api: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)")
  fi
done

log bench
if [ "$mode" != none ] && [ -x scripts/bench-set.sh ]; then
  bash scripts/bench-set.sh "$out" "$mode" 2>&1 | tail -60
fi

log summary
printf '%s\n' "${summary[@]}"

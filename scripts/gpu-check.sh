#!/usr/bin/env bash
# The whole GPU check in one go (run on the device machine):
#   1. build for Hopper, 2. every test incl. GPU ones, 3. compute-sanitizer
#   memcheck + racecheck on a small solve, 4. benchmarks into $1 (JSON/CSV),
#   5. a short summary last.
# Usage: scripts/gpu-check.sh OUTDIR [quick|full|none]
#   (env SAN_FORMATS: the formats the sanitizer runs, default all;
#    SAN_SCOPE=new: the default format, no kernel variants or engines;
#    SAN_VARIANTS: the cmrs kernel variants run in either scope, default
#    "tile tile4 seg rows,l2normal rows1,b8" with SAN_SCOPE=all, none with new)
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
# -LE network: the device machine is offline (test_python_install needs PyPI
# and is a host test, run by CI).
ctest --test-dir build-gpu --output-on-failure -j 4 -LE network >"$out/ctest.log" 2>&1
rc=$?; summary+=("ctest: rc=$rc $(grep -E 'tests passed|tests failed' "$out/ctest.log")")
grep -E "Passed|Failed|Skipped|Not Run|\*\*\*" "$out/ctest.log" | tail -40

cmrs=build-gpu/cmrs
log sanitizer
$cmrs gen poisson3d --n 24 -o /tmp/san.h5 >/dev/null
$cmrs gen vessel --cells 20000 -o /tmp/san_v.h5 >/dev/null
# san TOOL NAME CMD...: one compute-sanitizer run, its log and summary line.
san() {
  local tool=$1 name=$2; shift 2
  local log="$out/san_${tool}_${name}.log"
  compute-sanitizer --tool $tool --error-exitcode 9 "$@" >"$log" 2>&1
  local rc=$?
  summary+=("sanitizer $tool $name: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)")
}
# SAN_SCOPE=all (default): every format, the cmrs kernels the small case
# does not pick, every engine and solver; SAN_SCOPE=new: the default
# format only, without those loops (for a session that changed no SpMV
# kernel or engine). Both: the preconditioners and the API's GPU tests.
scope=${SAN_SCOPE:-all}
# racecheck skips cusparse: it reports hazards inside cuSPARSE's own
# csrmv kernel (closed source; see docs/BENCHMARKS.md), not in our code.
for tool in memcheck racecheck; do
  fmts=${SAN_FORMATS:-"cmrs cmrs-mod cusparse csr-scalar csr-vector hyb ellr sell argcsr csrb"}
  [ $scope = new ] && fmts=cmrs
  [ $tool = racecheck ] && fmts=${fmts//cusparse/}
  for fmt in $fmts; do
    san $tool $fmt $cmrs solve /tmp/san_v.h5 --spmv $fmt --device gpu -q
  done
  vars=${SAN_VARIANTS:-}
  [ $scope = all ] && vars=${SAN_VARIANTS:-"tile tile4 seg rows,l2normal rows1,b8"}
  for var in $vars; do
    CMRS_CMRS_VARIANT=$var san $tool cmrs_${var//,/_} \
      $cmrs solve /tmp/san_v.h5 --spmv cmrs --device gpu -q
  done
  if [ $scope = all ]; then
    for eng in cublas graph fused; do
      for sol in cg bicgstab; do
        san $tool ${eng}_${sol} $cmrs solve /tmp/san_v.h5 --engine $eng \
          --solver $sol --device gpu -q
      done
    done
  fi
  # The preconditioners: AMG (its default, and handshake aggregation on
  # the GPU), Chebyshev.
  san $tool pc_amg $cmrs solve /tmp/san_v.h5 --precond amg --device gpu -q
  san $tool pc_amg_handshake $cmrs solve /tmp/san_v.h5 --precond amg \
    --amg-agg handshake --device gpu -q
  san $tool pc_chebyshev $cmrs solve /tmp/san_v.h5 --precond chebyshev \
    --device gpu -q
  # Under memcheck (too long for racecheck): the API's GPU tests (host and
  # device arrays, device-values updates) and the AMG setup kernels' test.
  if [ $tool = memcheck ]; then
    for t in api/test_gpu_api api/test_gpu_api_update api/test_gpu_upload \
             api/test_gpu_api_amg_resetup solver/amg/test_gpu_amg_sa \
             solver/amg/test_gpu_amg_handshake solver/amg/test_gpu_amg_dense; do
      # a test that is not there is a stale path here: say so, never skip
      if [ -x build-gpu/tests/$t ]; then san $tool ${t##*/} build-gpu/tests/$t
      else summary+=("sanitizer $tool ${t##*/}: MISSING build-gpu/tests/$t"); fi
    done
  fi
done

log bench
if [ "$mode" != none ] && [ -x scripts/bench-set.sh ]; then
  bash scripts/bench-set.sh "$out" "$mode" 2>&1 | tail -60
fi

log summary
printf '%s\n' "${summary[@]}"

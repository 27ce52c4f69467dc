#!/usr/bin/env bash
# Issue 12, SA setup on the GPU: builds only what it needs in build-gpu,
# prints the CMRS_AMG_PROFILE step split of `cmrs solve --precond amg` on
# the 5M vessel and Poisson 200^3, then `cmrs compare` greedy against
# handshake (setup + solve), then the AMG/preconditioner GPU tests.
# Run from the repository root on a GPU machine; OUT (optional) collects
# the logs. Usage: scripts/bench-sa-setup.sh [build-dir]
set -u -o pipefail
B=${1:-build-gpu}
OUT=${OUT:-/tmp}
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null || exit 1
cmake --build "$B" -j"$(nproc)" --target cmrs test_amg_dense test_amg_golden \
      test_amg_host test_gpu_amg_dense test_gpu_amg_handshake test_gpu_amg_sa \
      test_gpu_amg_spgemm test_gpu_precond test_precond \
      >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cmrs=$B/cmrs
. scripts/bench-cases.sh
gen_cases vessel_5M poisson7_200 || exit 1
for f in vessel_5M poisson7_200; do
    echo "== solve $f (profile)"
    CMRS_AMG_PROFILE=1 "$B/cmrs" solve "$cases/$f.h5" --precond amg 2>&1 |
        tee "$OUT/prof_$f.txt" | grep -v "^ *[0-9] " | grep -v "level [1-9]"
done
for f in vessel_5M poisson7_200; do
    for agg in greedy handshake; do
        echo "== compare $f $agg"
        "$B/cmrs" compare "$cases/$f.h5" --formats cmrs --preconds $([ $agg = greedy ] && echo jacobi,)amg \
            --amg-agg $agg --repeat 3 2>&1 | tee -a "$OUT/compare.txt" | tail -4
    done
done
timeout 120 ctest --test-dir "$B" -R 'amg|precond' 2>&1 | tail -14
command -v compute-sanitizer >/dev/null && timeout 90 compute-sanitizer --tool memcheck "$B/tests/solver/amg/test_gpu_amg_sa" 2>&1 | tail -3

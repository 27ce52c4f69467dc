#!/usr/bin/env bash
# The public API's host tests, and the distributed back end's (its AMG
# frees per-part state on error paths), under AddressSanitizer +
# UndefinedBehaviorSanitizer (CI runs this after scripts/test.sh). A second build directory
# (${ASAN_BUILD_DIR:-build-asan}) compiles the library's C code with both
# sanitizers (the CUDA files' host code is not instrumented) and builds
# only the API tests and the cmrs binary they compare against. Any report
# fails the run: UBSan halts on the first error, ASan on any error or leak.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"
build=${ASAN_BUILD_DIR:-build-asan}
san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
[ -f "$build/CMakeCache.txt" ] && gen=()
cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Debug \
      -DCMAKE_CUDA_ARCHITECTURES="${CMRS_CUDA_ARCH:-90}" \
      -DCMAKE_C_FLAGS="$san -O1" \
      -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
      -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
tests=(test_api_errors test_api_solver_errors test_api_solve test_api_reuse
       test_api_threads test_dist_backend)
cmake --build "$build" -j "$(nproc)" --target cmrs "${tests[@]}"
# protect_shadow_gap=0: the CUDA runtime maps memory where ASan's shadow
# gap would be (needed on a GPU machine; harmless without one).
export ASAN_OPTIONS="protect_shadow_gap=0:detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
regex="^($(IFS='|'; echo "${tests[*]}"))\$"
ctest --test-dir "$build" --output-on-failure -R "$regex"

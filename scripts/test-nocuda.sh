#!/usr/bin/env bash
# The build without CUDA (-DCMRS_CUDA=OFF, README "Building by hand"): the
# library, cmrs, the Python package's library and every host test, built in
# ${NOCUDA_BUILD_DIR:-build-nocuda} and tested (CI runs this after
# scripts/test.sh). It must not need the toolkit, and this machine has one,
# so: no folder with an nvcc stays on PATH, and the C compiler finds an #error
# first for each CUDA header (the toolkit's are often in /usr/local/include
# too), so an include of one anywhere fails the build. Then nothing built
# may link CUDA: no CUDA library needed, no CUDA symbol undefined.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${NOCUDA_BUILD_DIR:-build-nocuda}
PATH=$(tr ':' '\n' <<<"$PATH" | while read -r d; do [ -x "$d/nvcc" ] || echo "$d"; done |
       paste -sd: -)
export PATH
unset CUDACXX CUDA_PATH CUDA_HOME
mkdir -p "$build/cuda-poison"
poison=$(cd "$build/cuda-poison" && pwd)
for h in cuda.h cuda_runtime.h cuda_runtime_api.h driver_types.h \
         cublas_v2.h cusparse.h cusolverDn.h cusolver_common.h nccl.h; do
  printf '#error "%s: a CUDA header in the build without CUDA"\n' "$h" \
    >"$poison/$h"
done
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
[ -f "$build/CMakeCache.txt" ] && gen=()
cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DCMRS_CUDA=OFF -DCMAKE_C_FLAGS="-I$poison" "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
# -LE network: the pip install test (PyPI) is scripts/test.sh's.
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" -LE network

cuda='cuda|cublas|cusparse|cusolver|nccl|nvJitLink'
fail=0
for f in "$build/libcmrs.so" "$build/cmrs"; do
  if ldd "$f" | grep -iE "$cuda"; then
    echo "test-nocuda: $f needs a CUDA library" >&2; fail=1
  fi
  if nm -D --undefined-only "$f" | grep -E " ($cuda)[A-Z_a-z]"; then
    echo "test-nocuda: $f calls CUDA" >&2; fail=1
  fi
done
[ $fail -eq 0 ] && echo "test-nocuda: nothing of CUDA in $build"
exit $fail

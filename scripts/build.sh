#!/usr/bin/env bash
# Configures and builds cmrs into ${BUILD_DIR:-build}. Extra arguments go to
# cmake's configure step (e.g. -DCMAKE_CUDA_ARCHITECTURES=90).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"
build=${BUILD_DIR:-build}
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
[ -f "$build/CMakeCache.txt" ] && gen=()
cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"

#!/usr/bin/env bash
# The test command: set up, build, run every test (GPU tests are skipped,
# exit 77, where no GPU is present).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh "$@"
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"

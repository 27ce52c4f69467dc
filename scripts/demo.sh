#!/usr/bin/env bash
# The main job, as a newcomer meets it: install what is missing, build,
# generate an aorta-like vessel pressure system, and compare time-to-solution
# of CMRS against cuSPARSE CSR on it. Without a GPU, cmrs says so and solves
# on its CPU reference back end.
set -euo pipefail
cd "$(dirname "$0")/.."
cells=${CELLS:-500000}
bash scripts/setup.sh
bash scripts/build.sh >/dev/null
mkdir -p out
./build/cmrs gen vessel --cells "$cells" -o out/vessel.h5
./build/cmrs info out/vessel.h5 | head -n 12
./build/cmrs compare out/vessel.h5 --device auto --json out/compare.json

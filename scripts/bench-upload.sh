#!/usr/bin/env bash
# Issue 26 (uploads at the transfer floor), on a GPU machine from the
# repository root: builds cmrs and bench/upload_bw in BUILD (default
# build-gpu), runs upload_bw (pageable / pinned / staged at 2, 8, 32 MiB
# chunks / staged over 1, 2, 4, 8 threads / registered, 1 MiB .. 1 GiB),
# then `cmrs solve --json` on the generated 5M-cell vessel with each
# CMRS_UPLOAD path and staged with CMRS_UPLOAD_THREADS=1 (3 runs each, Jacobi
# and the default format), and prints the setup profiles side by side.
# Everything lands in OUTDIR (upload_bw.json/.txt, solve_<path>_<k>.json).
# Usage: scripts/bench-upload.sh OUTDIR [BUILD]
set -u -o pipefail
out=${1:?usage: bench-upload.sh OUTDIR [BUILD]}
B=${2:-build-gpu}
mkdir -p "$out"
# An existing build directory keeps its generator and settings.
if [ ! -f "$B/CMakeCache.txt" ]; then
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_ARCHITECTURES=90 >"$out/configure.log" 2>&1 || exit 1
fi
cmake --build "$B" -j"$(nproc)" --target cmrs upload_bw \
      >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
echo "== upload_bw"
"$B/bench/upload_bw" "$out/upload_bw.json" | tee "$out/upload_bw.txt" || exit 1
cmrs=$B/cmrs
. scripts/bench-cases.sh
gen_cases vessel_5M || exit 1
# staged: CMRS_UPLOAD_THREADS' default; staged-t1: the single-thread path.
for run in staged staged-t1 registered pageable; do
    mode=${run%-t1}
    threads=
    [ "$run" = staged-t1 ] && threads=1
    for k in 1 2 3; do
        echo "== CMRS_UPLOAD=$mode${threads:+ CMRS_UPLOAD_THREADS=$threads} solve vessel_5M ($k)"
        env CMRS_UPLOAD="$mode" ${threads:+CMRS_UPLOAD_THREADS=$threads} \
            "$cmrs" solve "$cases/vessel_5M.h5" --device gpu \
            --json "$out/solve_${run}_$k.json" --verbose -q ||
            echo "solve failed (rc=$?)"
    done
done
command -v python3 >/dev/null || exit 0
python3 - "$out" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
keys = ["host_staging_s", "transfer_s", "conversion_s", "precond_s",
        "libraries_s", "allocation_s", "other_s", "total_s"]
print("%-18s %s %8s %8s %9s %4s" % ("run", " ".join("%13s" % k for k in keys),
      "MB", "pin GB/s", "floor_s", "its"))
for f in sorted(glob.glob(os.path.join(out, "solve_*.json"))):
    r = json.load(open(f))
    p = r.get("setup_profile", {})
    print("%-18s %s %8.1f %8.2f %9.4f %4d" % (
        os.path.basename(f)[6:-5], " ".join("%13.4f" % p.get(k, 0) for k in keys),
        1e-6 * p.get("transfer_bytes", 0), p.get("h2d_pinned_gbs") or 0,
        p.get("transfer_floor_s") or 0, r.get("iterations", -1)))
PY

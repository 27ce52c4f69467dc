#!/usr/bin/env bash
# The library API's benchmark (issue 13, docs/BENCHMARKS.md "Library
# API"): on generated vessels (0.5M and 5M cells), double,
# Jacobi-PCG with the default engine, bench/bench_api measures setup, a
# solve with the setup reused, a step that re-creates the solver, updates
# from host and device values and one SpMV (medians of REPS, wall times
# around calls that return synchronised); then the time-loop example with
# setup reuse and with --recreate.
# Writes OUTDIR/api_<cells>.json, OUTDIR/api.csv, OUTDIR/time_loop*.txt and
# prints a table with the ratios the issue's goals name.
# Usage: scripts/bench-api.sh BUILD OUTDIR
#   env: BENCH_DEVICE (gpu | cpu), BENCH_CELLS ("500000 5000000"),
#        BENCH_REPS (10), BENCH_LOOP_N (708), BENCH_LOOP_STEPS (20)
set -uo pipefail
build=${1:?usage: bench-api.sh BUILD OUTDIR}
out=${2:?usage: bench-api.sh BUILD OUTDIR}
device=${BENCH_DEVICE:-gpu}
cells=${BENCH_CELLS:-"500000 5000000"}
reps=${BENCH_REPS:-10}
loop_n=${BENCH_LOOP_N:-708}
steps=${BENCH_LOOP_STEPS:-20}
mkdir -p "$out"
cmrs=$build/cmrs
. "$(dirname "$0")/bench-cases.sh"

# "key": value of a one-line JSON object.
field() { sed -n "s/.*\"$2\": \([^,}]*\).*/\1/p" "$1"; }

csv="$out/api.csv"
echo "cells,rows,nnz,iterations,setup_s,solve_reuse_s,solve_inner_s,step_recreate_s,update_host_s,update_device_s,solve_after_update_device_s,spmv_s" > "$csv"
for c in $cells; do
  gen "vessel_$c" vessel --cells "$c" ||
    { echo "bench-api: cmrs gen vessel --cells $c failed" >&2; exit 1; }
  j="$out/api_$c.json"
  "$build/bench/bench_api" "$cases/vessel_$c.h5" --device "$device" \
    --reps "$reps" > "$j" ||
    { echo "bench-api: bench_api failed on $c cells" >&2; exit 1; }
  row=$c
  for k in rows nnz iterations setup_s solve_reuse_s solve_inner_s \
           step_recreate_s update_host_s update_device_s \
           solve_after_update_device_s spmv_s; do
    row="$row,$(field "$j" $k)"
  done
  echo "$row" >> "$csv"
done

# The ratios: setup's share of a re-created step; what a reused-setup step
# costs beyond the solve (b up, x back, the true residual); updates in
# SpMVs ("-": not measured, no device values on the CPU back end).
echo "device $device, double, jacobi, default engine, medians of $reps"
awk -F, -v steps="$steps" 'NR == 1 { next }
  function us(s) { return s < 0 ? "-" : sprintf("%.1f", s * 1e6) }
  function ratio(a, b) { return a < 0 || b <= 0 ? "-" : sprintf("%.2f", a / b) }
  BEGIN { printf "%-8s %9s %5s %10s %10s %10s %7s %7s %9s %10s %10s %9s %8s %8s\n",
    "cells", "rows", "its", "setup_us", "step_us", "recr_us", "setup%", "reuse+%",
    "spmv_us", "upd_h_us", "upd_d_us", "solve+u_d", "upd_h/sp", "upd_d/sp" }
  { printf "%-8s %9d %5d %10s %10s %10s %7.2f %7.2f %9s %10s %10s %9s %8s %8s\n",
    $1, $2, $4, us($5), us($6), us($8), 100 * $5 / $8, 100 * ($6 - $7) / $6,
    us($12), us($9), us($10), us($11), ratio($9, $12), ratio($10, $12) }' "$csv"
echo "setup%: setup / re-created step; reuse+%: (reused step - solve) / reused step"

# The time-loop example, setup reused and re-created each step.
loop="$build/examples/time_loop"
"$loop" --device "$device" --n "$loop_n" --steps "$steps" --every 5 \
  > "$out/time_loop.txt" || { echo "bench-api: time_loop failed" >&2; exit 1; }
"$loop" --device "$device" --n "$loop_n" --steps "$steps" --every 5 \
  --recreate > "$out/time_loop_recreate.txt" ||
  { echo "bench-api: time_loop --recreate failed" >&2; exit 1; }
echo "== time_loop (setup reused)"; tail -3 "$out/time_loop.txt"
echo "== time_loop --recreate"; tail -3 "$out/time_loop_recreate.txt"

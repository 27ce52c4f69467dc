#!/usr/bin/env bash
# The time-loop benchmark (issue 26): on generated vessels (0.5M and 5M
# cells), bench/time_loop_bench sets up once, then runs STEPS steps of
# drifted values (bench/loop_drift.h, 5%), a values-only update and a solve,
# for Jacobi, AMG with amg-update full and AMG frozen, from host and from
# device values. Writes OUTDIR/loop_<cells>_<config>_<values>.json (per-step
# arrays and medians) and prints a table of the medians.
# Usage: scripts/bench-loop.sh OUTDIR [BUILD]      (BUILD: ./build)
#   env: BENCH_DEVICE (gpu | cpu: host values only), BENCH_CELLS
#        ("500000 5000000"), BENCH_LOOP_STEPS (20), BENCH_LOOP_DRIFT (0.05)
set -uo pipefail
out=${1:?usage: bench-loop.sh OUTDIR [BUILD]}
build=${2:-build}
device=${BENCH_DEVICE:-gpu}
cells=${BENCH_CELLS:-"500000 5000000"}
steps=${BENCH_LOOP_STEPS:-20}
drift=${BENCH_LOOP_DRIFT:-0.05}
mkdir -p "$out"
cmrs=$build/cmrs
bench=$build/bench/time_loop_bench
[ -x "$bench" ] || { echo "bench-loop: no $bench (build first)" >&2; exit 1; }
. "$(dirname "$0")/bench-cases.sh"

values="host device"
[ "$device" = cpu ] && values=host

# "key": value of a one-line JSON object.
field() { sed -n "s/.*\"$2\": \([^,}]*\).*/\1/p" "$1"; }

printf '%-9s %-13s %-6s %8s %6s %10s %10s %10s %7s %7s %9s %-5s %9s %6s\n' cells \
  config values setup_s base_it update_ms solve_ms step_ms it_med it_max \
  true_max converged base_phase_ms step/base
fail=0
for c in $cells; do
  gen "vessel_$c" vessel --cells "$c" ||
    { echo "bench-loop: cmrs gen vessel --cells $c failed" >&2; exit 1; }
  for config in jacobi amg-full amg-frozen; do
    case $config in
      jacobi) args=(--precond jacobi) ;;
      amg-full) args=(--precond amg --amg-update full) ;;
      amg-frozen) args=(--precond amg --amg-update frozen) ;;
    esac
    for v in $values; do
      j="$out/loop_${c}_${config}_$v.json"
      if ! "$bench" "$cases/vessel_$c.h5" --device "$device" "${args[@]}" \
           --values "$v" --steps "$steps" --drift "$drift" --out "$j"; then
        echo "bench-loop: time_loop_bench failed: $c $config $v" >&2
        fail=1
        continue
      fi
      its=$(sed -n 's/.*"iterations": \[\([^]]*\)\].*/\1/p' "$j" | tr -d ' ')
      itmax=$(echo "$its" | tr ',' '\n' | sort -n | tail -1)
      awk -v c="$c" -v cf="$config" -v v="$v" -v s="$(field "$j" setup_s)" \
          -v b="$(field "$j" base_iterations)" \
          -v u="$(field "$j" update_s_median)" \
          -v so="$(field "$j" solve_s_median)" \
          -v st="$(field "$j" step_s_median)" \
          -v im="$(field "$j" iterations_median)" -v ix="$itmax" \
          -v tr="$(field "$j" true_rel_residual_max)" \
          -v ok="$(field "$j" all_converged)" \
          -v bp="$(field "$j" base_solve_phase_s)" 'BEGIN {
        printf "%-9s %-13s %-6s %8.3f %6d %10.3f %10.3f %10.3f %7g %7d %9.2e %-5s %9.3f %6.2f\n",
               c, cf, v, s, b, 1e3 * u, 1e3 * so, 1e3 * st, im, ix, tr, ok,
               1e3 * bp, (bp > 0 ? st / bp : 0) }'
    done
  done
done
exit $fail

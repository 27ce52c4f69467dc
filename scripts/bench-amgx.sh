#!/usr/bin/env bash
# Issue 26's anchor: NVIDIA AmgX beside cmrs on the same systems, same
# machine, same call. For each case: the system with b = 1 for both
# (scripts/h5-to-amgx.py: AmgX's binary matrix, and a cmrs HDF5 file with
# the same A and b = 1); `cmrs compare --formats cmrs --preconds jacobi,amg
# --repeat 3 --json` (setup + median solve); then AmgX's `amgx_capi -mode
# dDDI -r 3` with each of five PCG + aggregation-AMG configs (selector
# SIZE_2 / SIZE_4 / SIZE_8 with one block-Jacobi sweep at 0.8 before and
# after; SIZE_8 with block Jacobi at 0.5 and with L1 Jacobi; dense LU on
# the coarsest level; rtol 1e-8 relative to the initial residual,
# L2), its own setup and solve timers (they exclude its matrix upload, and
# cmrs's setup includes its own). With AMGX_INCLUDE set (AmgX's include
# folder), bench/amgx_timed.c is built against the library beside
# AMGX_CAPI and run with each config too: AmgX's upload of A from
# page-locked host arrays, setup and solve by the wall clock, so that its
# setup counts what cmrs's counts. Prints one table; everything in OUTDIR.
# Usage: [AMGX_INCLUDE=DIR] scripts/bench-amgx.sh OUTDIR BUILD AMGX_CAPI [CASES...]
#   (CASES default: vessel_0.5M vessel_5M fem_q_3M)
set -u -o pipefail
out=${1:?usage: bench-amgx.sh OUTDIR BUILD AMGX_CAPI [CASES...]}
B=${2:?build folder}
amgx=${3:?amgx_capi}
shift 3
list=${*:-vessel_0.5M vessel_5M fem_q_3M}
cmrs=$B/cmrs
here=$(dirname "$0")
[ -x "$cmrs" ] || { echo "bench-amgx: no $cmrs (build first)" >&2; exit 1; }
[ -x "$amgx" ] || { echo "bench-amgx: no $amgx" >&2; exit 1; }
mkdir -p "$out"
. "$here/bench-cases.sh"

# AmgX's upload timed too: the driver built against AmgX's library.
timed=
rm -f "$out"/amgxt_*.txt # a run without the driver reads no old figures
if [ -n "${AMGX_INCLUDE:-}" ]; then
  so=$(find "$(dirname "$amgx")/.." -maxdepth 2 -name libamgxsh.so | head -1)
  [ -n "$so" ] || { echo "bench-amgx: no libamgxsh.so near $amgx" >&2; exit 1; }
  command -v nvcc >/dev/null || { echo "bench-amgx: no nvcc on PATH" >&2; exit 1; }
  lib=$(dirname "$so") cuda=$(dirname "$(command -v nvcc)")/..
  timed=$out/amgx_timed
  cc -O2 -std=c11 -I "$AMGX_INCLUDE" -I "$cuda/include" "$here/../bench/amgx_timed.c" \
    -o "$timed" -L "$lib" -lamgxsh -L "$cuda/lib64" -lcudart \
    -Wl,-rpath,"$lib" -Wl,-rpath,"$cuda/lib64" ||
    { echo "bench-amgx: cannot build amgx_timed against $lib" >&2; exit 1; }
fi

# Configs: NAME SELECTOR SMOOTHER RELAXATION. With block Jacobi at 0.8 PCG
# does not reach 1e-8 in 2000 iterations on the FEM matrices (their D^-1 A
# reaches 2.4, next to 2 / 0.8 = 2.5, where the sweep no longer damps):
# the last two are AmgX's smoothers that suit them.
configs="SIZE_2:SIZE_2:BLOCK_JACOBI:0.8 SIZE_4:SIZE_4:BLOCK_JACOBI:0.8
SIZE_8:SIZE_8:BLOCK_JACOBI:0.8 S8_BJ05:SIZE_8:BLOCK_JACOBI:0.5
S8_L1:SIZE_8:JACOBI_L1:1.0"
names=
for cfg in $configs; do
  IFS=: read -r name sel smoother relax <<<"$cfg"
  names="$names $name"
  cat >"$out/amgx_$name.json" <<JSON
{ "config_version": 2,
  "solver": { "solver": "PCG", "scope": "main", "max_iters": 2000,
    "convergence": "RELATIVE_INI_CORE", "tolerance": 1e-8, "norm": "L2",
    "monitor_residual": 1, "obtain_timings": 1, "print_solve_stats": 0,
    "preconditioner": { "solver": "AMG", "scope": "amg",
      "algorithm": "AGGREGATION", "selector": "$sel", "cycle": "V",
      "smoother": { "scope": "jacobi", "solver": "$smoother",
                    "relaxation_factor": $relax },
      "presweeps": 1, "postsweeps": 1, "max_iters": 1, "max_levels": 50,
      "coarse_solver": "DENSE_LU_SOLVER", "print_grid_stats": 1 } } }
JSON
done

fail=0
for c in $list; do
  gen_case "$c" || { echo "bench-amgx: cannot make $c" >&2; fail=1; continue; }
  sys="$cases/${c}_b1.h5" mat="$cases/$c.amgx"
  [ -f "$mat" ] && [ -f "$sys" ] ||
    python3 "$here/h5-to-amgx.py" "$cases/$c.h5" "$mat" "$sys" || { fail=1; continue; }
  $cmrs compare "$sys" --formats cmrs --preconds jacobi,amg --device gpu \
    --repeat 3 -q --json "$out/cmrs_$c.json" >"$out/cmrs_$c.txt" 2>&1 || fail=1
  for name in $names; do
    "$amgx" -mode dDDI -m "$mat" -c "$out/amgx_$name.json" -r 3 \
      >"$out/amgx_${c}_$name.txt" 2>&1 || fail=1
    [ -z "$timed" ] || "$timed" "$mat" "$out/amgx_$name.json" 3 \
      >"$out/amgxt_${c}_$name.txt" 2>&1 || fail=1
  done
done

python3 - "$out" "$names" $list <<'PY'
import json, re, statistics, sys
out, names, cases = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
def amgx(path):
    """Median setup and solve over the repeats, the iterations (its
    solve time over its time per iteration), whether it failed."""
    try:
        t = open(path).read()
    except OSError:
        return None
    setup = [float(v) for v in re.findall(r"setup: ([0-9.eE+-]+) s", t)]
    solve = [float(v) for v in re.findall(r"\n\s*solve: ([0-9.eE+-]+) s", t)]
    per = [float(v) for v in re.findall(r"solve\(per iteration\): ([0-9.eE+-]+) s", t)]
    bad = "Did Not Converge" in t or "Diverged" in t or "Failed" in t
    if not setup or not solve:
        return None
    return (statistics.median(setup), statistics.median(solve),
            round(solve[-1] / per[-1]) if per and per[-1] > 0 else -1, bad)
def timed(path, repeats=3):
    """amgx_timed's medians: upload, setup, solve, iterations; failed
    (a repeat not converged, an error, or fewer than `repeats` records)."""
    try:
        t = open(path).read()
    except OSError:
        return None
    f = lambda k: [float(v) for v in re.findall(k + r": ([0-9.eE+-]+) s", t)]
    up, setup, solve = f("upload"), f("setup"), f("solve")
    its = [int(v) for v in re.findall(r"iterations: (-?[0-9]+)", t)]
    if not (up and setup and solve and its):
        return None
    bad = ("status: failed" in t or "amgx_timed:" in t or
           min(len(up), len(setup), len(solve), len(its)) < repeats)
    return (statistics.median(up), statistics.median(setup),
            statistics.median(solve), round(statistics.median(its)), bad)
def best_of(results, total):
    ok = {s: v for s, v in results.items() if v and not v[-1]}
    return min(ok.items(), key=lambda kv: total(kv[1])) if ok else None
rows = []
print("%-12s %-26s %-30s %-26s %-11s %s" % ("case", "cmrs AMG setup+solve (its)",
      "AmgX best setup+solve (its)", "AmgX configs (total s)", "AmgX / cmrs",
      "with AmgX's upload: up+setup+solve (its), AmgX / cmrs"))
for c in cases:
    try:
        d = json.load(open(f"{out}/cmrs_{c}.json"))
        r = [x for x in d["results"] if x["preconditioner"] == "amg"][0]
        ours = (r["setup_s"], r["solve_s"], r["iterations"])
    except Exception:
        ours = None
    ax = {s: amgx(f"{out}/amgx_{c}_{s}.txt") for s in names}
    best = best_of(ax, lambda v: v[0] + v[1])
    cfgs = " ".join("%s %s" % (s, "%.3f" % (v[0] + v[1]) if v and not v[3]
                    else "fail") for s, v in ax.items())
    o = "%.4f+%.4f=%.4f (%d)" % (ours[0], ours[1], ours[0] + ours[1], ours[2]) if ours else "-"
    a = "%.4f+%.4f=%.4f (%d) %s" % (best[1][0], best[1][1], best[1][0] + best[1][1],
                                    best[1][2], best[0]) if best else "-"
    ratio = "%.2fx" % ((best[1][0] + best[1][1]) / (ours[0] + ours[1])) if ours and best else "-"
    at = {s: timed(f"{out}/amgxt_{c}_{s}.txt") for s in names}
    bt = best_of(at, lambda v: v[0] + v[1] + v[2])
    w = "-"
    if bt:
        v = bt[1]
        w = "%.4f+%.4f+%.4f=%.4f (%d) %s" % (v[0], v[1], v[2], v[0] + v[1] + v[2], v[3], bt[0])
        if ours:
            w += ", %.2fx" % ((v[0] + v[1] + v[2]) / (ours[0] + ours[1]))
    print("%-12s %-26s %-30s %-26s %-11s %s" % (c, o, a, cfgs, ratio, w))
    rows.append({"case": c, "cmrs": ours, "amgx": ax, "best": best and best[0],
                 "amgx_timed": at, "best_timed": bt and bt[0]})
json.dump(rows, open(f"{out}/amgx_table.json", "w"), indent=1)
PY
exit $fail

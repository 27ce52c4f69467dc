#!/usr/bin/env bash
# Issue 26's end-to-end figures, on a GPU machine from the repository root:
# for each case, one `cmrs compare --formats cmrs --preconds jacobi,amg
# --json` (setup by phase and solve per row, the transfer floor measured in
# the same process), then cold `cmrs solve --precond jacobi|amg --json
# --verbose` runs: the wall time of plain runs under /usr/bin/time against
# file read + setup + solve of the --json run that follows each. Prints one table; everything lands in OUTDIR.
# Usage: scripts/bench-setup.sh OUTDIR [BUILD] [CASES...]
#   (BUILD default build-gpu; CASES default: vessel_0.5M vessel_5M fem_3M;
#    env COLD_RUNS (3))
set -u -o pipefail
out=${1:?usage: bench-setup.sh OUTDIR [BUILD] [CASES...]}
B=${2:-build-gpu}
shift $(( $# >= 2 ? 2 : 1 ))
list=${*:-vessel_0.5M vessel_5M fem_3M}
runs=${COLD_RUNS:-3}
cmrs=$B/cmrs
[ -x "$cmrs" ] || { echo "bench-setup: no $cmrs (build first)" >&2; exit 1; }
mkdir -p "$out"
. "$(dirname "$0")/bench-cases.sh"
fail=0
for c in $list; do
  t0=$(date +%s.%N)
  gen_case "$c" || { echo "bench-setup: cannot make $c" >&2; fail=1; continue; }
  awk -v a="$t0" -v b="$(date +%s.%N)" -v c="$c" 'BEGIN { printf "gen %s: %.1f s\n", c, b - a }' >>"$out/gen_times.txt"
  f="$cases/$c.h5"
  $cmrs compare "$f" --formats cmrs --preconds jacobi,amg --device ${BENCH_DEVICE:-gpu} -q \
    --json "$out/compare_$c.json" >"$out/compare_$c.txt" 2>&1 || fail=1
  for pc in jacobi amg; do
    # Plain runs for the wall time (--json would add the V-cycle profile
    # after the solve), each followed by one with --json for the parts.
    for k in $(seq 1 "$runs"); do
      /usr/bin/time -f "%e %M" -o "$out/time_${c}_${pc}_$k.txt" \
        $cmrs solve "$f" --precond $pc --device ${BENCH_DEVICE:-gpu} -q \
        >"$out/solve_${c}_${pc}_$k.txt" 2>&1 || fail=1
      $cmrs solve "$f" --precond $pc --device ${BENCH_DEVICE:-gpu} -q \
        --verbose --json "$out/solve_${c}_${pc}_$k.json" \
        >>"$out/solve_${c}_${pc}_$k.txt" 2>&1 || fail=1
    done
  done
done
python3 - "$out" $list <<'PY'
import glob, json, sys
out, cases = sys.argv[1], sys.argv[2:]
def load(p):
    try:
        return json.load(open(p))
    except Exception:
        return None
print("%-12s %-7s %8s %8s %8s %8s %8s %8s %8s %8s %5s" % ("case", "pc",
      "setup", "staging", "transfer", "conv", "precond", "libs", "floor",
      "solve", "its"))
for c in cases:
    d = load(f"{out}/compare_{c}.json")
    for r in (d or {}).get("results", []):
        p = r.get("setup_profile") or {}
        print("%-12s %-7s %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %5d"
              % (c, r["preconditioner"], r["setup_s"],
                 p.get("host_staging_s", 0), p.get("transfer_s", 0),
                 p.get("conversion_s", 0), p.get("precond_s", 0),
                 p.get("libraries_s", 0), p.get("transfer_floor_s") or 0,
                 r["solve_s"], r["iterations"]))
print("\ncold `cmrs solve -q` (wall: /usr/bin/time; read, setup, solve: the --json run after it)")
print("%-12s %-7s %8s %8s %8s %8s %8s" % ("case", "pc", "wall", "read",
      "setup", "solve", "rest"))
for c in cases:
    for pc in ("jacobi", "amg"):
        for t in sorted(glob.glob(f"{out}/time_{c}_{pc}_*.txt")):
            k = t.rsplit("_", 1)[1][:-4]
            j = load(f"{out}/solve_{c}_{pc}_{k}.json") or {}
            try:
                wall = float(open(t).read().split()[0])
            except Exception:
                continue
            rd = j.get("time_read", 0) or 0
            su = j.get("time_setup", 0) or 0
            so = j.get("time_solve", 0) or 0
            print("%-12s %-7s %8.3f %8.3f %8.3f %8.3f %8.3f" % (c, pc, wall,
                  rd, su, so, wall - rd - su - so))
PY
exit $fail

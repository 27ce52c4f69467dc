#!/usr/bin/env bash
# scripts/gen-fem.py, the unstructured FEM cases of the benchmark set, on
# a small mesh: a symmetric matrix with a positive diagonal and uneven rows
# that CG solves (P1, P2, anisotropic); the random order the same matrix
# renumbered; the smoothed mesh (the default) free of the raw Delaunay
# mesh's slivers, and of its own few once they are perturbed; bad options
# refused. Needs python3 with numpy and scipy (scripts/setup.sh): fails,
# not skips, without them. The first of python3 (PATH) and /usr/bin/python3
# that has them (the GPU machine's system python has none, its PATH one
# does; CI's apt packages go to the system one).
set -u
cmrs=$1
. "$(dirname "$0")/../cli_harness.sh"
py=/usr/bin/python3; [ -x "$py" ] || py=python3
for c in python3 /usr/bin/python3; do
  if "$c" -c 'import numpy, scipy' 2>/dev/null; then py=$c; break; fi
done
gen="$CMRS_SOURCE_DIR/scripts/gen-fem.py"
expect 0 "$py" "$gen" "$tmp/m.mtx" --points 2500 --refine 1
has out "rows" "gen-fem summary"
# The smoothed mesh: its worst 1% of tetrahedra above 15 degrees (the raw
# Delaunay mesh's below 5), none below 5 degrees once its slivers are
# perturbed (the default); with --slivers keep a few (at most 0.1%).
pct() { sed -n 's/.*, 1% below \([0-9.]*\),.*/\1/p' "$tmp/out"; }
few() { sed -n 's/.*, \([0-9]*\) of \([0-9]*\) below 5 deg.*/\1 \2/p' "$tmp/out"; }
awk -v q="$(pct)" 'BEGIN { exit !(q + 0 >= 15) }' && ok || bad "odt: 1% quantile $(pct) deg"
set -- $(few)
[ "${1:-9999}" -eq 0 ] && [ "${2:-0}" -gt 10000 ] && ok || bad "odt: $1 of $2 below 5 deg"
expect 0 "$py" "$gen" "$tmp/k.mtx" --points 2500 --refine 1 --slivers keep
set -- $(few)
[ "${1:-0}" -ge 1 ] && [ "${1:-9999}" -le $(( ${2:-0} / 1000 )) ] && ok ||
  bad "odt, slivers kept: $1 of $2 below 5 deg"
expect 0 "$cmrs" info "$tmp/m.mtx"
has out "symmetric            structure yes, values yes" "symmetric values"
has out "present and positive in every row" "positive diagonal"
rows=$(awk '$1 == "rows" {print $2}' "$tmp/out")
min=$(awk '$1 == "row" && $2 == "length" {print $8}' "$tmp/out" | tr -d ,)
max=$(awk '$1 == "row" && $2 == "length" {print $10}' "$tmp/out")
[ "${rows:-0}" -gt 10000 ] && ok || bad "rows: $rows"
[ "${min:-0}" -ge 4 ] && [ "${max:-0}" -ge 20 ] && ok || bad "row lengths $min-$max: not a tetrahedral mesh's"
expect 0 "$cmrs" solve "$tmp/m.mtx" --device cpu -q --json "$tmp/m.json"
grep -q '"converged": true' "$tmp/m.json" && ok || bad "mesh order: not converged"
expect 0 "$py" "$gen" "$tmp/r.mtx" --points 2500 --refine 1 --order random
expect 0 "$cmrs" info "$tmp/r.mtx"
has out "rows                 $rows" "random order: same rows"
expect 0 "$cmrs" solve "$tmp/r.mtx" --device cpu -q --precond amg --json "$tmp/r.json"
grep -q '"converged": true' "$tmp/r.json" && ok || bad "random order, amg: not converged"
# The raw Delaunay mesh (the fem_* cases): its slivers reported, and AMG
# needing more iterations than on the smoothed mesh of about as many rows.
expect 0 "$py" "$gen" "$tmp/d.mtx" --mesh delaunay --points 1500 --refine 1
has out "delaunay mesh of" "delaunay summary"
awk -v q="$(pct)" 'BEGIN { exit !(q + 0 < 5) }' && ok || bad "delaunay: 1% quantile $(pct) deg"
expect 0 "$cmrs" solve "$tmp/d.mtx" --device cpu -q --precond amg --json "$tmp/d.json"
expect 0 "$cmrs" solve "$tmp/m.mtx" --device cpu -q --precond amg --json "$tmp/ma.json"
its() { sed -n 's/.*"iterations": \([0-9]*\).*/\1/p' "$1" | head -1; }
[ "$(its "$tmp/ma.json")" -lt "$(its "$tmp/d.json")" ] && ok ||
  bad "amg: $(its "$tmp/ma.json") iterations on the smoothed mesh, $(its "$tmp/d.json") on the raw one"
# Quadratic tetrahedra: the same rows' worth of nodes from fewer points,
# longer rows; SPD, CG converges. (The element matrices themselves: the
# energy of x^2, exact in P2, matched 4 int x^2 to 1e-16 when written.)
expect 0 "$py" "$gen" "$tmp/p2.mtx" --points 1500 --refine 0 --element p2
has out "P2 tetrahedra" "p2 summary"
expect 0 "$cmrs" info "$tmp/p2.mtx"
has out "symmetric            structure yes, values yes" "p2 symmetric values"
has out "present and positive in every row" "p2 positive diagonal"
max=$(awk '$1 == "row" && $2 == "length" {print $10}' "$tmp/out")
[ "${max:-0}" -ge 60 ] && ok || bad "p2 longest row $max: not quadratic tetrahedra's"
expect 0 "$cmrs" solve "$tmp/p2.mtx" --device cpu -q --json "$tmp/p2.json"
grep -q '"converged": true' "$tmp/p2.json" && ok || bad "p2: not converged"
# Anisotropic diffusion (100 along the trunk): CG + AMG converges.
expect 0 "$py" "$gen" "$tmp/a.mtx" --points 1500 --refine 1 --aniso 100
expect 0 "$cmrs" solve "$tmp/a.mtx" --device cpu -q --precond amg --json "$tmp/a.json"
grep -q '"converged": true' "$tmp/a.json" && ok || bad "aniso 100, amg: not converged"
expect 2 "$py" "$gen" "$tmp/x.mtx" --aniso 0
expect 2 "$py" "$gen" "$tmp/x.mtx" --element p3
expect 2 "$py" "$gen" "$tmp/x.mtx" --mesh gmsh
expect 2 "$py" "$gen" "$tmp/x.mtx" --slivers drop
expect 2 "$py" "$gen" "$tmp/x.txt"
expect 2 "$py" "$gen" "$tmp/x.mtx" --refine 9
[ ! -e "$tmp/x.mtx" ] && [ ! -e "$tmp/x.txt" ] && ok || bad "refused run left a file"
finish

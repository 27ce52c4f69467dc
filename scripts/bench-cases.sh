# Sourced by the benchmark scripts: the benchmark cases of docs/BENCHMARKS.md
# and how `cmrs gen` makes them, generated once into $cases (reused when the
# file is there). $cmrs: the binary, set by the script that sources this, or
# $CMRS, or build-gpu/cmrs; `gen_log` (optional) collects the generator's
# summary lines.
cmrs=${cmrs:-${CMRS:-build-gpu/cmrs}}
cases=${CASES_DIR:-/tmp/cmrs-cases}
mkdir -p "$cases"

# The SpMV set of docs/BENCHMARKS.md that bench-formats.sh and sweep-set.sh
# measure.
spmv_cases="vessel_0.5M vessel_5M poisson7_200 poisson27_128 poisson7_200_random"

gen() { # gen NAME kind args...
  local name=$1; shift
  [ -f "$cases/$name.h5" ] ||
    $cmrs gen "$@" -o "$cases/$name.h5" >>"${gen_log:-/dev/null}"
}

gen_fem() { # gen_fem NAME args... (scripts/gen-fem.py)
  local name=$1; shift
  [ -f "$cases/$name.h5" ] ||
    python3 "$(dirname "${BASH_SOURCE[0]}")/gen-fem.py" "$cases/$name.h5" "$@" \
      >>"${gen_log:-/dev/null}"
}

# gen_case NAME: the one definition of each benchmark case.
gen_case() {
  case $1 in
    vessel_0.5M) gen "$1" vessel --cells 500000 ;;
    vessel_5M) gen "$1" vessel --cells 5000000 ;;
    vessel_5M_random) gen "$1" vessel --cells 5000000 --order random ;;
    vessel_25M) gen "$1" vessel --cells 25000000 ;; # a GPU's share of 50M
    vessel_50M) gen "$1" vessel --cells 50000000 ;;
    poisson7_100) gen "$1" poisson3d --n 100 --stencil 7 ;;
    poisson7_200) gen "$1" poisson3d --n 200 --stencil 7 ;;
    poisson7_200_random) gen "$1" poisson3d --n 200 --stencil 7 --order random ;;
    poisson7_100_random) gen "$1" poisson3d --n 100 --stencil 7 --order random ;;
    poisson7_80_random) gen "$1" poisson3d --n 80 --stencil 7 --order random ;;
    poisson7_50) gen "$1" poisson3d --n 50 --stencil 7 ;;
    poisson7_50_random) gen "$1" poisson3d --n 50 --stencil 7 --order random ;;
    poisson27_128_random) gen "$1" poisson3d --n 128 --stencil 27 --order random ;;
    poisson27_128) gen "$1" poisson3d --n 128 --stencil 27 ;;
    # Unstructured P1 FEM Laplacians (scripts/gen-fem.py: numpy, scipy, h5py).
    # fem_q_*: a mesh as a good mesher leaves it (surface and inner points,
    # smoothed, the last slivers perturbed away: no tetrahedron under 5
    # degrees).
    fem_q_0.4M) gen_fem "$1" --points 52000 --refine 1 ;;
    fem_q_0.4M_random) gen_fem "$1" --points 52000 --refine 1 --order random ;;
    fem_q_3M) gen_fem "$1" --points 52000 --refine 2 ;;
    fem_q_3M_random) gen_fem "$1" --points 52000 --refine 2 --order random ;;
    fem_q_25K) gen_fem "$1" --points 3300 --refine 1 ;;
    # fem_odt_*: the same smoothed mesh with the few slivers smoothing
    # leaves (72 of 296K tetrahedra under 5 degrees; measured 2026-11-28).
    fem_odt_0.4M) gen_fem "$1" --points 52000 --refine 1 --slivers keep ;;
    fem_odt_3M) gen_fem "$1" --points 52000 --refine 2 --slivers keep ;;
    fem_odt_3M_random) gen_fem "$1" --points 52000 --refine 2 --slivers keep --order random ;;
    fem_odt_25K) gen_fem "$1" --points 3300 --refine 1 --slivers keep ;;
    # fem_*: a jittered grid's raw Delaunay tetrahedra, slivers kept (1.2%
    # of them under 5 degrees; diagonal entries 4860x apart): a hard
    # matrix for AMG, the wider set of issue 29.
    fem_0.4M) gen_fem "$1" --mesh delaunay --points 32000 --refine 1 ;;
    fem_0.4M_random) gen_fem "$1" --mesh delaunay --points 32000 --refine 1 --order random ;;
    fem_3M) gen_fem "$1" --mesh delaunay --points 32000 --refine 2 ;;
    fem_3M_random) gen_fem "$1" --mesh delaunay --points 32000 --refine 2 --order random ;;
    # A small one (25K rows) for trying the scripts on a machine without a GPU.
    fem_25K) gen_fem "$1" --mesh delaunay --points 2000 --refine 1 ;;
    fem_25K_random) gen_fem "$1" --mesh delaunay --points 2000 --refine 1 --order random ;;
    # The same mesh's nodes with quadratic tetrahedra (29 entries a row
    # on average, up to 110), and P1 with anisotropic diffusion (100 along z).
    fem_p2_0.4M) gen_fem "$1" --mesh delaunay --points 32000 --refine 0 --element p2 ;;
    fem_aniso_0.4M) gen_fem "$1" --mesh delaunay --points 32000 --refine 1 --aniso 100 ;;
    *) echo "bench-cases: unknown case $1" >&2; return 2 ;;
  esac
}

# gpu_run CMD...: runs CMD, or with DRY=1 prints it ("dry: CMD"): the
# study scripts' way to be tried without a GPU.
gpu_run() {
  if [ "${DRY:-0}" = 1 ]; then echo "dry: $*"; else "$@"; fi
}

# gpu_json STEM CMD...: gpu_run CMD --json STEM.json, its output also in
# STEM.txt (--json last: the study scripts' tests look for it there).
gpu_json() {
  local stem=$1
  shift
  gpu_run "$@" --json "$stem.json" 2>&1 | tee "$stem.txt"
}

gen_cases() { local c; for c in "$@"; do gen_case "$c" || return; done; }

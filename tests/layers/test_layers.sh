#!/usr/bin/env bash
# The library's layers (docs/ARCHITECTURE.md): each folder is a CMake
# OBJECT library whose include path is build/layers/NAME, a folder of links
# to the folders it may use (cmrs_layer in CMakeLists.txt):
#   base < io < spmv < solver < dist < api < app,  cases on base and io.
# So an include from a lower layer to a higher one fails the build. This
# test checks that the build really refuses one (a planted include compiled
# with a layer's include path), that nothing goes around the views (no
# "../" include in the library), and that no folder of the library holds
# more than 25 source files directly.
set -u
src=${CMRS_SOURCE_DIR:?}
layers=${1:?usage: test_layers.sh BUILD/layers}
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*"; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# compiles LAYER FILE: does FILE compile with LAYER's include path?
# (compiles LAYER FILE -I DIR: DIR searched first)
compiles() {
  local layer=$1 file=$2; shift 2
  # shellcheck disable=SC2086 (a list of -I flags)
  "${CC:-cc}" -std=c11 -fsyntax-only "$@" -I "$layers/$layer" -I "$src/include" \
     ${CMRS_SYSTEM_INCLUDES:-} "$file" 2>/dev/null
}
printf '#include "base/status.h"\nint f(void);\n' >"$tmp/down.c"
printf '#include "spmv/spmv.h"\nint f(void);\n' >"$tmp/up.c"
printf '#include "solver/solver.h"\nint f(void);\n' >"$tmp/up2.c"
for layer in base io spmv solver dist cases api; do
  [ -d "$layers/$layer" ] || { bad "no include view $layers/$layer"; continue; }
  if compiles "$layer" "$tmp/down.c"; then ok; else bad "$layer cannot include base/status.h"; fi
done
for layer in base io cases; do
  if compiles "$layer" "$tmp/up.c"; then bad "$layer compiled an include of spmv/"; else ok; fi
done
for layer in base io spmv cases; do
  if compiles "$layer" "$tmp/up2.c"; then bad "$layer compiled an include of solver/"; else ok; fi
done
if compiles solver "$tmp/up.c"; then ok; else bad "solver cannot include spmv/spmv.h"; fi

# No CUDA header above the GPU code (issue 28 item 4: base/device.h's opaque
# stream): the headers the API, dist and the solver use compile with every
# CUDA header an #error (a build with CUDA would not notice one otherwise).
mkdir -p "$tmp/nocuda"
for h in cuda.h cuda_runtime.h cuda_runtime_api.h cublas_v2.h cusparse.h; do
  printf '#error "%s"\n' "$h" >"$tmp/nocuda/$h"
done
printf '#include "api/api_internal.h"\n#include "dist/dist.h"\nint f(void);\n' \
  >"$tmp/host.c"
if compiles api "$tmp/host.c" -I "$tmp/nocuda"; then ok
else bad "api/ or dist/ headers include a CUDA header"; fi

# No include climbs out of its folder: a "../" would bypass the views.
climbs=$(cd "$src" && grep -rnE '#include "\.\./' base io spmv solver dist cases api app \
           --include='*.c' --include='*.cu' --include='*.h' --include='*.cuh')
if [ -z "$climbs" ]; then ok; else bad "relative includes that bypass the layers:"; echo "$climbs"; fi

# Folders small enough to show their design.
for d in $(cd "$src" && find base io spmv solver dist cases api app -type d); do
  n=$(find "$src/$d" -maxdepth 1 -type f \( -name '*.c' -o -name '*.cu' -o -name '*.h' \
        -o -name '*.cuh' \) | wc -l)
  if [ "$n" -le 25 ]; then ok; else bad "$d holds $n source files (at most 25)"; fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]

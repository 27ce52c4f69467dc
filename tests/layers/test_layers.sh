#!/usr/bin/env bash
# The library's layers (docs/ARCHITECTURE.md): a folder includes only its
# own headers and those of the folders below it, so no lower layer
# depends on a higher one:
#   io < spmv < solver < dist < api < app,  cases on io only.
# Checked on the relative includes ("../X/...") of every .c/.cu/.h/.cuh,
# first on a planted violation (the check must be able to fail), then on
# the tree. Until the layers are CMake libraries of their own (issue 28),
# this test is what stops a backward edge.
set -u
src=${CMRS_SOURCE_DIR:?}
allowed() { # allowed FOLDER: the folders it may include
  case $1 in
    io) echo "io" ;;
    spmv) echo "io spmv" ;;
    cases) echo "io cases" ;;
    solver) echo "io spmv solver" ;;
    dist) echo "io spmv solver dist" ;;
    api) echo "io spmv solver dist cases api include" ;;
    app) echo "io spmv solver dist cases api app include" ;;
  esac
}
# check ROOT: prints each forbidden include, returns 1 if any
check() {
  local root=$1 bad=0 folder f dep
  for folder in io spmv cases solver dist api app; do
    [ -d "$root/$folder" ] || continue
    local ok=" $(allowed $folder) "
    while IFS=: read -r f dep; do
      [ -n "$f" ] || continue
      case "$ok" in *" $dep "*) ;; *)
        echo "layering: $folder/${f##*/} includes $dep/"; bad=1 ;;
      esac
    done < <(grep -oE '#include "(\.\./)+[a-z_]+/' \
               "$root/$folder"/*.c "$root/$folder"/*.cu "$root/$folder"/*.h \
               "$root/$folder"/*.cuh 2>/dev/null |
             sed -E 's|^([^:]+):#include "(\.\./)+([a-z_]+)/$|\1:\3|')
  done
  return $bad
}
pass=0 fail=0
plant=$(mktemp -d); trap 'rm -rf "$plant"' EXIT
mkdir -p "$plant/io" "$plant/spmv"
printf '#include "../spmv/spmv.h"\n' >"$plant/io/bad.c"
printf '#include "../io/csr.h"\n' >"$plant/spmv/good.c"
out=$(check "$plant")
if [ $? -ne 0 ] && [ "$out" = "layering: io/bad.c includes spmv/" ]; then
  pass=$((pass+1))
else
  fail=$((fail+1)); echo "FAIL: the planted io -> spmv include was not caught: '$out'"
fi
if check "$src"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: backward includes above"; fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]

#!/usr/bin/env bash
# libcmrs.so exports exactly the CMRS_API functions of include/cmrs.h:
# every one of them, and no other defined dynamic symbol (the internals
# are compiled with -fvisibility=hidden). Usage: check_symbols.sh LIB HEADER
set -euo pipefail
lib=$1 header=$2
command -v nm >/dev/null || { echo "nm not found: skipped"; exit 77; }
want=$(grep -A1 'CMRS_API' "$header" | tr '\n' ' ' |
       grep -oE 'cmrs_[a-z0-9_]+\(' | tr -d '(' | sort -u)
have=$(nm -D --defined-only "$lib" | awk '{print $3}' |
       grep -vxE '_init|_fini|_edata|_end|__bss_start' | sort -u)
extra=$(comm -13 <(echo "$want") <(echo "$have"))
missing=$(comm -23 <(echo "$want") <(echo "$have"))
[ -z "$extra" ] || { echo "FAIL: exported but not in the API:"; echo "$extra"; }
[ -z "$missing" ] || { echo "FAIL: API functions not exported:"; echo "$missing"; }
soname=$(readelf -d "$lib" | grep -oE 'libcmrs\.so\.[0-9]+' || true)
[ -n "$soname" ] || echo "FAIL: no SONAME libcmrs.so.MAJOR"
[ -z "$extra$missing" ] && [ -n "$soname" ] || exit 1
echo "ok: $(echo "$want" | wc -l) API functions exported, nothing else ($soname)"

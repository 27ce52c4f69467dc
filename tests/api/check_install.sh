#!/usr/bin/env bash
# cmake --install into a temporary prefix, then the consumer project
# (tests/api/consumer) built against it with find_package(cmrs) -- shared
# and static -- and with pkg-config, each program run on the CPU.
# Usage: check_install.sh BUILD_DIR CONSUMER_SOURCE_DIR
set -euo pipefail
build=$1 consumer=$2
command -v cmake >/dev/null || { echo "no cmake: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
for f in bin/cmrs include/cmrs.h lib/libcmrs.a lib/libcmrs.so lib/cmake/cmrs/cmrsConfig.cmake \
         lib/cmake/cmrs/cmrsConfigVersion.cmake lib/pkgconfig/cmrs.pc; do
  [ -e "$tmp/prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
"$tmp/prefix/bin/cmrs" --version >/dev/null ||
  { echo "FAIL: the installed cmrs does not run"; exit 1; }
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$consumer" -B "$tmp/consumer" "${gen[@]}" \
      -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
"$tmp/consumer/consumer_shared"
"$tmp/consumer/consumer_static"
ldd "$tmp/consumer/consumer_shared" > "$tmp/ldd.txt" # (no pipe: grep -q + pipefail)
grep -q "$tmp/prefix/lib/libcmrs.so" "$tmp/ldd.txt" ||
  { echo "FAIL: consumer_shared does not use the installed libcmrs.so"; exit 1; }
if ! command -v pkg-config >/dev/null; then
  echo "no pkg-config: that part skipped"; exit 77
fi
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
cc -std=c11 "$consumer/main.c" -o "$tmp/pc_consumer" \
   $(pkg-config --cflags --libs cmrs) -Wl,-rpath,"$tmp/prefix/lib"
"$tmp/pc_consumer"
# Static: the archive by name, then what pkg-config --static adds.
static_deps=$(pkg-config --static --libs cmrs | sed 's/-lcmrs\b//')
cc -std=c11 "$consumer/main.c" -o "$tmp/pc_consumer_static" \
   $(pkg-config --cflags cmrs) "$tmp/prefix/lib/libcmrs.a" $static_deps
"$tmp/pc_consumer_static"
echo "ok: installed package used through find_package and pkg-config (shared and static)"

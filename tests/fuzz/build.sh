#!/usr/bin/env bash
# Builds the libFuzzer targets fuzz_mm and fuzz_h5 (clang, ASan + UBSan) and
# their seed corpora into ${FUZZ_DIR:-build-fuzz}. No CUDA: only the io
# sources and the CPU helpers they use are compiled in. See docs/FUZZING.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${FUZZ_DIR:-build-fuzz}
mkdir -p "$out/corpus-mm" "$out/corpus-h5"
cc=${CC:-clang}
hdf5_cflags=$(pkg-config --cflags hdf5 2>/dev/null || echo -I/usr/include/hdf5/serial)
hdf5_libdir=$(pkg-config --libs-only-L hdf5 2>/dev/null | sed 's/^ *-L//; s/ *$//')
[ -n "$hdf5_libdir" ] || hdf5_libdir=/usr/lib/x86_64-linux-gnu/hdf5/serial
common=(-std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -fno-omit-frame-pointer
        -Wall -Wextra -I. -Itests $hdf5_cflags)
libs=(-L"$hdf5_libdir" -Wl,-rpath,"$hdf5_libdir" -lhdf5_hl -lhdf5 -lm)
if [ -f /usr/include/zlib.h ]; then
  common+=(-DCMRS_HAVE_ZLIB=1)
  libs+=(-lz)
fi
san=(-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
sources=(base/*.c io/*.c spmv/ref.c spmv/model.c)
for t in mm h5; do
  "$cc" "${common[@]}" "${san[@]}" "${sources[@]}" "tests/fuzz/fuzz_$t.c" \
    -o "$out/fuzz_$t" "${libs[@]}"
done
"$cc" "${common[@]}" tests/fuzz/seeds.c -o "$out/seeds" "${libs[@]}"
"$out/seeds" "$out/corpus-h5"

# Matrix Market seeds: one small file per header variant.
mm=$out/corpus-mm
printf '%%%%MatrixMarket matrix coordinate real general\n%% c\n3 3 4\n1 1 4\n3 1 -2.5e0\n2 2 5\n1 1 0.5\n' >"$mm/general.mtx"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 2\n2 1 -1\n2 2 2\n3 3 2\n' >"$mm/symmetric.mtx"
printf '%%%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 1\n3 1 -2\n' >"$mm/skew.mtx"
printf '%%%%MatrixMarket matrix coordinate pattern general\n2 2 3\n1 1\n1 2\n2 2\n' >"$mm/pattern.mtx"
printf '%%%%MatrixMarket matrix array real general\n3 1\n1.5\n-2\n3e1\n' >"$mm/array.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n4 1 2\n4 1 2\n1 1 1\n' >"$mm/vector.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n0 0 0\n' >"$mm/empty.mtx"
echo "built $out/fuzz_mm and $out/fuzz_h5; corpora in $out/corpus-mm, $out/corpus-h5"

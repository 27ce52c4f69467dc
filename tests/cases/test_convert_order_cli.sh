#!/usr/bin/env bash
# cmrs convert --order from the command line: the summary names the order,
# the input is left as it was; each refusal (an unknown order, --seed
# without --order random, a non-square input, metis in a build without
# METIS) exits 2 with one stderr line and leaves no output behind; `cmrs gen
# --order bfs|metis` alike. (That the file is the library's P A P^T:
# test_convert_order.)
set -u
cmrs=$1
. "$(dirname "$0")/../cli_harness.sh"

"$cmrs" gen poisson3d --n 6 --order random -o "$tmp/in.h5" >/dev/null ||
  { echo "FAIL: gen"; exit 1; }
cp "$tmp/in.h5" "$tmp/in.copy"
printf '%%%%MatrixMarket matrix coordinate real general\n2 3 2\n1 1 4\n2 3 1\n' \
  >"$tmp/wide.mtx"
metis_built=1
"$cmrs" convert "$tmp/in.h5" --order metis -o "$tmp/m.h5" >/dev/null 2>"$tmp/err" ||
  { grep -q "built without METIS" "$tmp/err" && metis_built=0; }
rm -f "$tmp/m.h5"

# refused CODE TEXT args...: convert exits CODE, one stderr line with
# TEXT, no out.h5, the input unchanged.
refused() {
  local want=$1 text=$2; shift 2
  cmrs_refuses "$want" "$text" convert "$@" -o "$tmp/out.h5"
  one_line_err "convert $*"
  [ ! -e "$tmp/out.h5" ] && ok || { bad "convert $*: left out.h5"; rm -f "$tmp/out.h5"; }
  cmp -s "$tmp/in.h5" "$tmp/in.copy" && ok || bad "convert $*: input changed"
}
refused 2 "--order: 'sideways' is not one of natural|random|rcm|bfs|metis" \
  "$tmp/in.h5" --order sideways
refused 2 "--seed applies to --order random only" "$tmp/in.h5" --order rcm --seed 3
refused 2 "--seed: -1 is out of range" "$tmp/in.h5" --order random --seed -1
refused 2 "not square" "$tmp/wide.mtx" --order rcm
if [ $metis_built = 0 ]; then
  refused 2 "METIS order: cmrs was built without METIS" "$tmp/in.h5" --order metis
fi

for order in natural random rcm bfs metis; do
  [ $order = metis ] && [ $metis_built = 0 ] && continue
  expect 0 "$cmrs" convert "$tmp/in.h5" --order $order -o "$tmp/$order.h5"
  want="order $order"; [ $order = natural ] && want="nonzeros (from native layout)\$"
  has out "$want" "convert --order $order summary"
  expect 0 "$cmrs" info "$tmp/$order.h5"
  has out "^nonzeros *1296\$" "convert --order $order: info"
  cmp -s "$tmp/in.h5" "$tmp/in.copy" && ok || bad "convert --order $order: input changed"
done
expect 0 "$cmrs" convert --help
has out "--order O" "convert --help"

expect 0 "$cmrs" gen poisson3d --n 4 --order bfs -o "$tmp/g.h5"
has out "order bfs;" "gen --order bfs summary"
if [ $metis_built = 1 ]; then
  expect 0 "$cmrs" gen poisson3d --n 4 --order metis -o "$tmp/gm.h5"
  has out "order metis;" "gen --order metis summary"
else
  cmrs_refuses 2 "METIS order: cmrs was built without METIS" gen poisson3d \
    --n 4 --order metis -o "$tmp/gm.h5"
  [ ! -e "$tmp/gm.h5" ] && ok || bad "gen --order metis: left a file"
fi
finish

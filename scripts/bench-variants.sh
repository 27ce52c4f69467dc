#!/usr/bin/env bash
# Kernel study of the cmrs format: `cmrs bench --formats cmrs` once per
# CMRS_CMRS_VARIANT (docs/CMRS.md) on each case and precision, then every
# format once for reference; one CSV with the variant in front, and a table
# of eta+ per case (best variant marked) printed last.
# Usage: scripts/bench-variants.sh OUTDIR "case ..." ["double single"]
#   env VARIANTS: space-separated variant strings ("" = the default; '+' for
#   ',' inside one variant), HEIGHTS: heights to try (default: the format's
#   default only), BLOCKS: block sizes to try (default: the format's),
#   REPEAT (default 50), FORMATS for the reference run
#   (default: every format).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench-variants.sh OUTDIR "cases" [precisions]}
set_cases=${2:?cases}
precs=${3:-double}
repeat=${REPEAT:-50}
mkdir -p "$out"
gen_log="$out/gen.log"
. scripts/bench-cases.sh
gen_cases $set_cases || exit 2
csv="$out/variants.csv"
: >"$csv"

# bench_rows LABEL args...: one `cmrs bench` run, its CSV rows labelled.
bench_rows() {
  local label=$1; shift
  "$cmrs" bench "$@" --repeat "$repeat" --csv - 2>>"$out/bench.err" |
    awk -v l="$label" -v hdr="$([ -s "$csv" ] && echo 1)" \
      'NR==1 && hdr!="1" {print "case,variant," $0} NR>1 {print l "," $0}' >>"$csv"
}

for c in $set_cases; do
  for p in $precs; do
    for v in ${VARIANTS:-default}; do
      var=${v//+/,}; [ "$var" = default ] && var=""
      for h in ${HEIGHTS:-0}; do
        for b in ${BLOCKS:-0}; do
          hopt=(); [ "$h" != 0 ] && hopt=(--height "$h")
          [ "$b" != 0 ] && hopt+=(--block-size "$b")
          lab=$v; [ "$b" != 0 ] && lab="$v/b$b"
          CMRS_CMRS_VARIANT=$var bench_rows "$c,$lab" "$cases/$c.h5" \
            --formats cmrs --precision "$p" "${hopt[@]}"
        done
      done
    done
    fmts=${FORMATS:-}
    if [ -n "$fmts" ]; then
      bench_rows "$c,all" "$cases/$c.h5" --formats "$fmts" --precision "$p"
    else
      bench_rows "$c,all" "$cases/$c.h5" --precision "$p"
    fi
  done
done

python3 - "$csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("%-20s %-7s %-18s %-12s %3s %9s %6s %8s" % ("case", "prec", "variant", "format", "h",
      "time_us", "eta+", "setup_s"))
for r in rows:
    try: t = 1e6 * float(r["time_median_s"])
    except (ValueError, KeyError): t = float("nan")
    print("%-20s %-7s %-18s %-12s %3s %9.2f %6s %8s" % (r["case"], r.get("precision", ""),
          r["variant"], r["format"], r.get("height", ""), t, r.get("eta_plus", "")[:5],
          r.get("setup_s", "")[:8]))
PY

#!/usr/bin/env bash
# Strip height x kernel variant study for the cmrs format (until `cmrs sweep`
# exists): cmrs bench at h = 1..16 for each variant on the given cases.
# Usage: scripts/bench-heights.sh OUTDIR precision case.h5...
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1; prec=$2; shift 2
cmrs=${CMRS:-build-gpu/cmrs}
mkdir -p "$out"
csv="$out/heights_$prec.csv"
: >"$csv"
for f in "$@"; do
  name=$(basename "$f" .h5)
  for variant in ${VARIANTS:-seg seg1 reg reg-sorted}; do
    sorted=off; v=${variant//+/,}
    [ "$variant" = reg-sorted ] && { sorted=on; v=reg; }
    for h in $(seq 1 16); do
      CMRS_CMRS_VARIANT=$v $cmrs bench "$f" --formats cmrs --height "$h" \
        --sorted $sorted --precision "$prec" --repeat 50 --csv - 2>/dev/null |
        awk -v c="$name" -v v="$variant" -v hdr="$([ -s "$csv" ] && echo 1)" \
          'NR==1 && hdr!="1" {print "case,variant," $0} NR>1 {print c "," v "," $0}' >>"$csv"
    done
  done
done
python3 - "$csv" <<'PY'
import csv, sys, collections
rows = list(csv.DictReader(open(sys.argv[1])))
best = collections.defaultdict(lambda: (1e30, None))
for r in rows:
    try: t = 1e6 * float(r["time_median_s"])
    except ValueError: continue
    k = (r["case"], r["variant"])
    if t < best[k][0]: best[k] = (t, r["height"], r["eta_plus"])
for k, v in sorted(best.items()): print(k, "best time_us %.2f at h=%s eta+=%s" % (v[0], v[1], v[2]))
PY

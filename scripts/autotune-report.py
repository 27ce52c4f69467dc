#!/usr/bin/env python3
"""How close `--height auto` comes to the best height of a full sweep, from
a `cmrs sweep --height auto,1-16` CSV: one markdown row per file, format and
precision. Standard library only. Usage: autotune-report.py SWEEP.csv"""
import csv
import os
import sys
from collections import defaultdict

groups = defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    if r["status"] == "ok" and r["format"] in ("cmrs", "cmrs-mod"):
        groups[(os.path.basename(r["file"]), r["format"], r["precision"])].append(r)
print("| case | format | precision | auto: h | auto time (us) | tuning cost (s) "
      "| best h | best time (us) | auto / best | default h (no tuning) / best |")
print("|---|---|---|---|---|---|---|---|---|---|")
for (f, fmt, prec), rs in sorted(groups.items()):
    auto = [r for r in rs if r["height_auto"] == "1"]
    full = [r for r in rs if r["height_auto"] != "1"]
    if not auto or not full:
        continue
    a = auto[0]
    best = min(full, key=lambda r: float(r["time_median_s"]))
    ta, tb = float(a["time_median_s"]), float(best["time_median_s"])
    print("| %s | %s | %s | %s | %.1f | %.2f | %s | %.1f | %.3f | |" % (
        f, fmt, prec, a["height"], 1e6 * ta, float(a["tune_s"] or "nan"),
        best["height"], 1e6 * tb, ta / tb))

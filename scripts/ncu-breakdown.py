#!/usr/bin/env python3
"""Sums an `ncu --csv --metrics gpu__time_duration.sum` capture by kernel:
the mean duration of each kernel name and the sum over the names, i.e. the
kernel time of one iteration when every kernel runs once per iteration (as
in the fused engine). Used by scripts/bench-engines.sh.

usage: ncu-breakdown.py NCU.csv
"""
import csv
import io
import sys
from collections import defaultdict


def rows(path):
    text = open(path, errors="replace").read()
    start = text.find('"ID"')
    if start < 0:
        sys.exit(f"{path}: no ncu CSV table found")
    return csv.DictReader(io.StringIO(text[start:]))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    times = defaultdict(list)
    for r in rows(sys.argv[1]):
        if r.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(r["Metric Value"].replace(",", ""))
        scale = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0,
                 "ms": 1e3, "msecond": 1e3}
        times[r["Kernel Name"].split("(")[0]].append(
            value * scale.get(r["Metric Unit"], 1.0))
    total = 0.0
    for name, v in sorted(times.items(), key=lambda kv: -sum(kv[1])):
        mean = sum(v) / len(v)
        total += mean
        print(f"{mean:10.2f} us  x{len(v):3d}  {name[:80]}")
    print(f"{total:10.2f} us  kernel time of one iteration (sum of means)")


if __name__ == "__main__":
    main()

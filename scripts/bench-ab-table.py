#!/usr/bin/env python3
"""The before/after tables of scripts/bench-ab.sh from its JSON files
(bench_<case>_<precision>_<before|after>.json, compare_<case>_<...>.json).
Standard library only. Usage: scripts/bench-ab-table.py OUTDIR"""
import glob
import json
import os
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def bench_table(d):
    print("| case | precision | cmrs before / after (us) | eta+ before / after"
          " | cusparse before / after (us) | fastest before / after |")
    print("|---|---|---|---|---|---|")
    for path in sorted(glob.glob(os.path.join(d, "bench_*_before.json"))):
        case, prec = os.path.basename(path)[6:-len("_before.json")].rsplit("_", 1)
        r = {}
        for v in ("before", "after"):
            fmts = load(path.replace("_before.json", "_%s.json" % v))["formats"]
            ok = {f["name"]: f for f in fmts if f["status"] == "ok"}
            best = min(ok.values(), key=lambda f: f["time_s"]["median"])
            r[v] = (ok["cmrs"]["time_s"]["median"] * 1e6, ok["cmrs"]["eta_plus"],
                    ok["cusparse"]["time_s"]["median"] * 1e6, best["name"])
        b, a = r["before"], r["after"]
        print("| %s | %s | %.1f / %.1f (%+.1f%%) | %.3f / %.3f | %.1f / %.1f | %s / %s |"
              % (case, prec, b[0], a[0], (a[0] / b[0] - 1) * 100, b[1], a[1],
                 b[2], a[2], b[3], a[3]))


def compare_table(d):
    print("\n| case | preconditioner | before: setup + solve s (its) |"
          " after: setup + solve s (its) | ms/it before / after |")
    print("|---|---|---|---|---|")
    for path in sorted(glob.glob(os.path.join(d, "compare_*_before.json"))):
        case = os.path.basename(path)[8:-len("_before.json")]
        rows = {}
        for v in ("before", "after"):
            for x in load(path.replace("_before.json", "_%s.json" % v))["results"]:
                if x["format"] == "cmrs":
                    rows.setdefault((x["preconditioner"], x["engine"]), {})[v] = x
        for (pc, engine), vv in rows.items():
            if len(vv) < 2:
                continue
            b, a = vv["before"], vv["after"]
            print("| %s | %s (%s) | %.4f + %.4f (%d) | %.4f + %.4f (%d) | %.4f / %.4f |"
                  % (case, pc, engine, b["setup_s"], b["solve_s"], b["iterations"],
                     a["setup_s"], a["solve_s"], a["iterations"],
                     b["time_per_iteration_s"] * 1e3, a["time_per_iteration_s"] * 1e3))


if __name__ == "__main__":
    bench_table(sys.argv[1])
    compare_table(sys.argv[1])

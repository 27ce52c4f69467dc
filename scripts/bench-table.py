#!/usr/bin/env python3
"""Markdown tables for docs/BENCHMARKS.md from the CSV files that
scripts/bench-set.sh writes (bench_<case>_<precision>.csv and
compare_<case>.csv). Standard library only.
Usage: scripts/bench-table.py RESULTS_DIR"""
import csv
import glob
import math
import os
import sys


def bench_rows(d):
    for path in sorted(glob.glob(os.path.join(d, "bench_*.csv"))):
        case = os.path.basename(path)[len("bench_"):-len(".csv")]
        case, prec = case.rsplit("_", 1)
        for r in csv.DictReader(open(path)):
            yield case, prec, r


def params(r):
    f = r["format"]
    if f.startswith("cmrs"):
        p = "h=%s b=%s" % (r["height"], r["block_size"])
        return p + (" mod=%s" % r["modulo"] if f == "cmrs-mod" else "")
    if f == "cusparse":
        return "alg%s" % r["cusparse_alg"]
    return "b=%s" % r["block_size"]


def spmv_table(d):
    print("| case | rows | nnz/row | precision | format | params | time (us) "
          "| GFLOPS | eta+ | eta- | padding | vs cuSPARSE |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for case, prec, r in bench_rows(d):
        if r["status"] != "ok":
            print("| %s | | | %s | %s | | %s |" % (case, prec, r["format"],
                                                   r["status"]))
            continue
        print("| %s | %s | %.2f | %s | %s | %s | %.1f | %.0f | %.3f | %.3f "
              "| %.3f | %.2fx |" % (
                  case, r["rows"], float(r["mu"]), prec, r["format"],
                  params(r), 1e6 * float(r["time_median_s"]),
                  float(r["gflops"]), float(r["eta_plus"]),
                  float(r["eta_minus"]), float(r["padding"]),
                  float(r["speedup_vs_cusparse"] or "nan")))


def geomean_table(d):
    speed = {}
    for case, prec, r in bench_rows(d):
        if r["status"] == "ok" and r["speedup_vs_cusparse"]:
            speed.setdefault((prec, r["format"]), []).append(
                math.log(float(r["speedup_vs_cusparse"])))
    print("| precision | format | geometric-mean speedup over cuSPARSE |")
    print("|---|---|---|")
    for (prec, f), v in sorted(speed.items()):
        print("| %s | %s | %.2fx (%d cases) |" % (prec, f,
                                                   math.exp(sum(v) / len(v)),
                                                   len(v)))


def compare_table(d):
    print("| case | format | height | setup (s) | iterations | solve (s) "
          "| ms/iteration | SpMV share | x floor | true rel. residual "
          "| speedup vs cuSPARSE |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for path in sorted(glob.glob(os.path.join(d, "compare_*.csv"))):
        case = os.path.basename(path)[len("compare_"):-len(".csv")]
        for r in csv.DictReader(open(path)):
            f = lambda k: float(r[k])
            print("| %s | %s | %s | %.3f | %s | %.3f | %.3f | %.0f%% | %.2f "
                  "| %.2e | %.2fx |" % (
                      case, r["format"], r["height"] if r["height"] != "0"
                      else "-", f("setup_s"), r["iterations"], f("solve_s"),
                      1e3 * f("time_per_iteration_s"), 100 * f("spmv_share"),
                      f("time_per_iteration_over_floor"),
                      f("true_relative_residual"), f("speedup_vs_cusparse")))


if __name__ == "__main__":
    d = sys.argv[1]
    spmv_table(d)
    print()
    geomean_table(d)
    print()
    compare_table(d)

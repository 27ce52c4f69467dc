#!/usr/bin/env python3
"""The table of the wider benchmark set (scripts/bench-wide.sh, issue 29):
one markdown row per case and precision from RESULTS_DIR's
bench_CASE_PREC.json and compare_CASE.json. Standard library only.

Columns: the cmrs format's SpMV median time (us), its rank among the
formats that ran, its eta+, cuSPARSE's time over cmrs's, the fastest
format and cmrs's time over the fastest's; in the double row, Jacobi-PCG
ms per iteration with the cmrs and the cuSPARSE SpMV (cmrs compare). A
missing file or format gives "-".

Usage: scripts/bench-wide-table.py RESULTS_DIR"""
import glob
import os
import re
import sys

from bench_json import by_key, cell, fail, load, print_header, solve

TOOL = "bench-wide-table"

HEADER = ("| case | precision | cmrs SpMV (us) | rank | eta+ | cuSPARSE / cmrs "
          "| fastest (cmrs / it) | PCG ms/it cmrs / cuSPARSE |")


def spmv_cells(bench):
    """us, rank, eta+, cuSPARSE/cmrs, fastest of the cmrs format."""
    ok = [f for f in (bench or {}).get("formats", [])
          if f.get("status") == "ok"]
    ok.sort(key=lambda f: f["time_s"]["median"])
    cm = by_key(ok, "name", "cmrs")
    if cm is None:
        return ["-"] * 5
    t = cm["time_s"]["median"]
    cs = by_key(ok, "name", "cusparse")
    fastest = "%s (%.3f)" % (ok[0]["name"], t / ok[0]["time_s"]["median"])
    return [cell(1e6 * t, "%.1f"), "%d of %d" % (ok.index(cm) + 1, len(ok)),
            cell(cm.get("eta_plus"), "%.3f"),
            cell(cs["time_s"]["median"] / t if cs else None, "%.2f"), fastest]


def pcg_cell(compare):
    return "%s / %s" % (cell(solve(compare, "cmrs")[0], "%.3f"),
                        cell(solve(compare, "cusparse")[0], "%.3f"))


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        fail(TOOL, "usage: bench-wide-table.py RESULTS_DIR")
    d = sys.argv[1]
    cases = sorted({re.sub(r"_(double|single)\.json$", "",
                           os.path.basename(p)[len("bench_"):])
                    for p in glob.glob(os.path.join(d, "bench_*.json"))})
    if not cases:
        fail(TOOL, "no bench_*.json in " + d)
    print_header(HEADER)
    for c in cases:
        for p in ("double", "single"):
            cells = spmv_cells(load(os.path.join(
                d, "bench_%s_%s.json" % (c, p)), TOOL))
            pcg = (pcg_cell(load(os.path.join(d, "compare_%s.json" % c), TOOL))
                   if p == "double" else "")
            print("| %s | %s | %s | %s |" % (c, p, " | ".join(cells), pcg))


if __name__ == "__main__":
    main()

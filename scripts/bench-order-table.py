#!/usr/bin/env python3
"""The table of the renumbering study (scripts/bench-order.sh, issue 29):
one markdown row per case and order from the JSON files listed in
RESULTS_DIR/runs.tsv (case, order, bench JSON, compare JSON). Standard
library only.

Columns: the cmrs format's SpMV median time (us), its eta+ and whether it
stored its own locality reordering (`cmrs reorder`: yes/no); cuSPARSE's
SpMV median time (us); Jacobi-PCG (cmrs compare, rtol 1e-8) ms per
iteration with the cmrs and with the cuSPARSE SpMV, and the iterations of
the cmrs solve ("(not converged)" after them when it did not). A file that
is missing or a format that failed gives "-" in its columns.

Usage: scripts/bench-order-table.py RESULTS_DIR"""
import csv
import os
import sys

from bench_json import by_key, cell, fail, load, print_header, solve

TOOL = "bench-order-table"

HEADER = ("| case | order | cmrs SpMV (us) | eta+ | cmrs reorder "
          "| cuSPARSE SpMV (us) | PCG ms/it (cmrs) | PCG ms/it (cuSPARSE) "
          "| iterations |")


def spmv(bench, fmt):
    """(median us, eta+, reordered) of one format's bench entry; None
    fields where it did not run."""
    f = by_key((bench or {}).get("formats", []), "name", fmt)
    if not f or f.get("status") != "ok":
        return None, None, None
    reorder = f.get("params", {}).get("reorder", 0)
    return (1e6 * f["time_s"]["median"], f.get("eta_plus"),
            {1: "yes", -1: "no"}.get(reorder))


def row(d, case, order, bench_name, compare_name):
    bench = load(os.path.join(d, bench_name), TOOL)
    compare = load(os.path.join(d, compare_name), TOOL)
    cmrs_us, eta, reordered = spmv(bench, "cmrs")
    cusparse_us = spmv(bench, "cusparse")[0]
    cmrs_ms, iters, converged = solve(compare, "cmrs")
    cusparse_ms = solve(compare, "cusparse")[0]
    if iters is not None and not converged:
        iters = "%s (not converged)" % iters
    return "| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        case, order, cell(cmrs_us, "%.1f"), cell(eta, "%.3f"),
        reordered or "-", cell(cusparse_us, "%.1f"), cell(cmrs_ms, "%.3f"),
        cell(cusparse_ms, "%.3f"), cell(iters, "%s"))


def main(argv):
    if len(argv) != 2:
        fail(TOOL, "usage: bench-order-table.py RESULTS_DIR")
    d = argv[1]
    runs = os.path.join(d, "runs.tsv")
    if not os.path.exists(runs):
        fail(TOOL, "no %s (run scripts/bench-order.sh %s)" % (runs, d))
    print_header(HEADER)
    with open(runs) as f:
        for fields in csv.reader(f, delimiter="\t"):
            if len(fields) != 4:
                fail(TOOL, "%s: not 4 fields: %r" % (runs, fields))
            print(row(d, *fields))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

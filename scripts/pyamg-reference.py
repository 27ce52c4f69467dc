#!/usr/bin/env python3
"""pyamg's iteration counts and complexities on a cmrs system file (issue 12,
goal 4): a one-off CPU reference, not a dependency of cmrs.

    python3 scripts/pyamg-reference.py vessel.h5 [--rtol 1e-8] [--json out.json]
        [--only TEXT]

Runs CG preconditioned by pyamg's smoothed aggregation (its defaults, and
with 2+2 Jacobi sweeps, cmrs's default until 2026-11-28; pass --amg-sweeps 2
to cmrs for the same cycle) and by pairwise aggregation (pyamg.aggregation.
pairwise_solver, the AGMG/AmgX-like plain aggregation) on the native HDF5
layout (/A/data, /A/indices, /A/indptr, /b; b = A*1 when absent), and prints
one line per method: iterations, operator and grid complexity, levels,
setup and solve seconds. Needs numpy, scipy, h5py and pyamg (pip)."""
import argparse
import json
import time

import h5py
import numpy as np
import pyamg
import scipy.sparse as sp


def read_system(path):
    with h5py.File(path, "r") as f:
        g = f["A"]
        n = int(g.attrs["shape"][0])
        A = sp.csr_matrix((g["data"][...], g["indices"][...], g["indptr"][...]),
                          shape=(n, n))
        b = f["b"][...] if "b" in f else A @ np.ones(n)
    return A, b


def jacobi_sweeps(k):
    return ("jacobi", {"iterations": k, "omega": 4.0 / 3.0})


def builders():
    yield "sa (pyamg defaults)", lambda A: pyamg.smoothed_aggregation_solver(A)
    yield "sa, 2+2 jacobi", lambda A: pyamg.smoothed_aggregation_solver(
        A, presmoother=jacobi_sweeps(2), postsmoother=jacobi_sweeps(2))
    yield "pairwise 8, plain, 2+2 jacobi", lambda A: \
        pyamg.aggregation.pairwise_solver(
            A, aggregate=[("pairwise", {"theta": 0.25, "matchings": 3})],
            presmoother=jacobi_sweeps(2), postsmoother=jacobi_sweeps(2),
            max_coarse=1000)


def run(A, b, name, build, rtol):
    t0 = time.perf_counter()
    ml = build(A)
    t1 = time.perf_counter()
    res = []
    x = ml.solve(b, tol=rtol, accel="cg", maxiter=2000, residuals=res)
    t2 = time.perf_counter()
    true_rel = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
    return {"method": name, "iterations": len(res) - 1,
            "operator_complexity": ml.operator_complexity(),
            "grid_complexity": ml.grid_complexity(),
            "levels": len(ml.levels),
            "rows_per_level": [int(l.A.shape[0]) for l in ml.levels],
            "nnz_per_level": [int(l.A.nnz) for l in ml.levels],
            "true_relative_residual": float(true_rel),
            "setup_s": t1 - t0, "solve_s": t2 - t1}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--rtol", type=float, default=1e-8)
    ap.add_argument("--json")
    ap.add_argument("--only", help="run only the methods whose name "
                    "contains this text (e.g. 'defaults')")
    args = ap.parse_args()
    A, b = read_system(args.file)
    rows = []
    for name, build in builders():
        if args.only and args.only not in name:
            continue
        r = run(A, b, name, build, args.rtol)
        rows.append(r)
        print(f"{args.file}: {name:32s} its {r['iterations']:4d}  op.cx "
              f"{r['operator_complexity']:.2f}  grid.cx "
              f"{r['grid_complexity']:.2f}  levels {r['levels']}  setup "
              f"{r['setup_s']:.2f} s  solve {r['solve_s']:.2f} s  true rel "
              f"{r['true_relative_residual']:.1e}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"file": args.file, "rows": A.shape[0], "nnz": A.nnz,
                       "pyamg": pyamg.__version__, "rtol": args.rtol,
                       "results": rows}, f, indent=1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""CuPy's Jacobi-PCG on a cmrs HDF5 system: the outside reference of the
engines benchmark (docs/BENCHMARKS.md "Engines"). Not a dependency of cmrs:
it runs where CuPy, h5py and SciPy happen to be installed (the GPU machine).

Solves A x = b with cupyx.scipy.sparse.linalg.cg (cuSPARSE SpMV + cuBLAS,
host-synchronised), M = diag(A)^-1, to rtol (default 1e-8), as `cmrs
compare` does; reports the median solve time of --repeat solves after one
warm-up, the iterations and the true relative residual, as JSON.

usage: cupy-pcg.py FILE.h5 [--rtol R] [--repeat N] [--json OUT]
"""
import argparse
import json
import sys
import time

import cupy as cp
import cupyx.scipy.sparse as csp
import cupyx.scipy.sparse.linalg as cla
import h5py
import numpy as np


def load(path):
    with h5py.File(path, "r") as f:
        g = f["A"]
        indptr = g["indptr"][:]
        n = len(indptr) - 1
        A = csp.csr_matrix((cp.asarray(g["data"][:], dtype=cp.float64),
                            cp.asarray(g["indices"][:], dtype=cp.int32),
                            cp.asarray(indptr, dtype=cp.int32)), shape=(n, n))
        if "b" in f:
            b = cp.asarray(f["b"][:], dtype=cp.float64)
        else:  # cmrs's rule: b = A * 1
            b = A @ cp.ones(n, dtype=cp.float64)
    return A, b


def solve(A, b, rtol, maxiter):
    dinv = 1.0 / A.diagonal()
    M = cla.LinearOperator(A.shape, matvec=lambda r: dinv * r,
                           dtype=cp.float64)
    its = [0]

    def count(_xk):
        its[0] += 1

    cp.cuda.runtime.deviceSynchronize()
    t0 = time.perf_counter()
    # CuPy >= 13 names the tolerance rtol; older versions call it tol.
    try:
        x, info = cla.cg(A, b, rtol=rtol, atol=0.0, maxiter=maxiter, M=M,
                         callback=count)
    except TypeError:
        x, info = cla.cg(A, b, tol=rtol, atol=0.0, maxiter=maxiter, M=M,
                         callback=count)
    cp.cuda.runtime.deviceSynchronize()
    return x, info, its[0], time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--rtol", type=float, default=1e-8)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--maxiter", type=int, default=100000)
    ap.add_argument("--json", default="-")
    a = ap.parse_args()
    A, b = load(a.file)
    solve(A, b, a.rtol, a.maxiter)  # warm-up: kernels compiled, buffers
    times = []
    for _ in range(a.repeat):
        x, info, its, t = solve(A, b, a.rtol, a.maxiter)
        times.append(t)
    true_rel = float(cp.linalg.norm(b - A @ x) / cp.linalg.norm(b))
    out = {"input_file": a.file, "rows": A.shape[0], "nnz": int(A.nnz),
           "cupy": cp.__version__, "device":
           cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
           "solver": "cupyx cg + jacobi", "rtol": a.rtol, "info": int(info),
           "iterations": its, "solve_s": float(np.median(times)),
           "time_per_iteration_s": float(np.median(times)) / max(its, 1),
           "true_relative_residual": true_rel}
    text = json.dumps(out, indent=1)
    if a.json == "-":
        print(text)
    else:
        with open(a.json, "w") as f:
            f.write(text + "\n")
    return 0 if info == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

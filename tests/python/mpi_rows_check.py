"""Run by test_mpi_rows.sh under `mpirun -np 2`: the Python module with a
matrix of rows (Solver(A_rows, comm=..., row0=...)): each rank passes only
its rows of a 1-D Laplacian of 1200 rows (an uneven split, 500 + 700),
solves with its rows of b, takes new values (a matrix and a value array of
its rows), and is checked against the whole matrix solved in one process:
iterations within 2, x within 1e-6 of its scale, true residual below
1e-7. Also refused: row0 without comm, a negative row0, rows that do not
tile the matrix (every rank alike). Each rank prints "rank R: N passed, M
failed"; the exit status is 1 on a failure, 77 without mpi4py."""
import sys

import numpy as np
import scipy.sparse as sp

try:
    from mpi4py import MPI
except ImportError:
    print("no mpi4py: skipped")
    sys.exit(77)

import cmrs

N = 1200
comm = MPI.COMM_WORLD
rank = comm.rank
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"rank {rank}: FAIL {what}", flush=True)


def lap(shift):
    """1-D Laplacian, symmetric, its diagonal raised by shift."""
    i = np.arange(N)
    main = 2.0 + shift + 1e-3 * (i % 5)
    off = -1.0 - 1e-3 * (i[:-1] % 3) * (shift > 0)
    return sp.diags([off, main, off], [-1, 0, 1], format="csr")


def close(x, ref):
    return np.max(np.abs(x - ref)) <= 1e-6 * np.max(np.abs(ref))


cuts = [0, 500, N] if comm.size == 2 else \
    list(np.linspace(0, N, comm.size + 1).astype(int))
r0, r1 = int(cuts[rank]), int(cuts[rank + 1])
b = 1.0 + (np.arange(N) % 7)
A, A2 = lap(0.0), lap(0.5)
xw, iw = cmrs.solve(A, b, device="cpu")
xw2, iw2 = cmrs.solve(A2, b, device="cpu")

with cmrs.Solver(A[r0:r1], device="cpu", comm=comm, row0=r0) as s:
    x = s.solve(b[r0:r1])
    check(x.shape == (r1 - r0,) and close(x, xw[r0:r1]) and
          abs(s.info.iterations - iw.iterations) <= 2 and
          s.info.true_relative_residual < 1e-7,
          f"rows solve: {s.info.iterations} iterations (whole "
          f"{iw.iterations}), true residual {s.info.true_relative_residual}")
    s.update_values(A2[r0:r1])  # a matrix of the rank's rows
    x2 = s.solve(b[r0:r1])
    check(close(x2, xw2[r0:r1]) and
          abs(s.info.iterations - iw2.iterations) <= 2 and
          not close(x2, x), "rows after new values (matrix)")
    s.update_values(A[r0:r1].data)  # the rank's value array: back again
    x3 = s.solve(b[r0:r1])
    check(close(x3, xw[r0:r1]), "rows after new values (array)")
    check(s.shape == (r1 - r0, N), f"shape {s.shape}")

try:
    cmrs.Solver(A[r0:r1], device="cpu", row0=r0)
    check(False, "row0 without comm accepted")
except cmrs.UsageError as e:
    check("needs comm" in str(e), f"row0 without comm: {e}")
try:
    cmrs.Solver(A[r0:r1], device="cpu", comm=comm, row0=-1)
    check(False, "row0 -1 accepted")
except cmrs.UsageError as e:
    check("row0" in str(e), f"row0 -1: {e}")
try:  # every rank claims its rows from 0: they do not tile
    cmrs.Solver(A[0:r1 - r0], device="cpu", comm=comm, row0=0)
    check(False, "rows that do not tile accepted")
except cmrs.UsageError as e:
    check("do not tile" in str(e), f"not tiling: {e}")

print(f"rank {rank}: {passed} passed, {failed} failed", flush=True)
sys.exit(1 if failed else 0)

"""cmrs: sparse linear solves (PCG, BiCGStab) on the GPU or the CPU through
libcmrs, with SciPy CSR matrices and NumPy arrays.

    import cmrs, numpy as np, scipy.sparse as sp
    A = sp.diags([-1, 2, -1], [-1, 0, 1], shape=(100, 100), format="csr")
    x, info = cmrs.solve(A, np.ones(100), rtol=1e-10)
    print(info.iterations, info.reason, info.true_relative_residual)

For a time loop, cmrs.Solver(A, **options) sets up once; then .solve(b)
every step and .update_values(data) when the values change.

SciPy style: x, info = cmrs.cg(A, b, rtol=1e-8, M="amg") (and
cmrs.bicgstab), scipy.sparse.linalg's signature and info convention;
cmrs.amg(A).aspreconditioner() is one AMG V-cycle as a LinearOperator for
SciPy's or pyamg's solvers. CuPy arrays and cupyx.scipy.sparse matrices
are taken too: vectors stay on the GPU.

The library (libcmrs.so) is found through CMRS_LIBRARY, else the copy
bundled by pip install, else the loader's path; see cmrs._lib.
"""
from ._lib import LibraryNotFoundError
from .errors import (CmrsError, UsageError, InputError, LimitError,
                     NoMemoryError, FileError, GPUError, NoDeviceError,
                     InternalError)
from .solver import Context, Solver, SolveInfo, solve, version
from .linalg import cg, bicgstab, amg, jacobi, Preconditioner

__version__ = "0.2.0"
__all__ = ["solve", "Solver", "Context", "SolveInfo", "version",
           "cg", "bicgstab", "amg", "jacobi", "Preconditioner",
           "CmrsError", "UsageError", "InputError", "LimitError",
           "NoMemoryError", "FileError", "GPUError", "NoDeviceError",
           "InternalError", "LibraryNotFoundError"]

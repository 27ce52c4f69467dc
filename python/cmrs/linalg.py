"""SciPy-style entry points: cmrs.cg and cmrs.bicgstab with the signature
and the (x, info) return of scipy.sparse.linalg's, and cmrs.amg(A) /
cmrs.jacobi(A): the library's preconditioners as objects whose
.aspreconditioner() is a LinearOperator for SciPy's, CuPy's and pyamg's
Krylov methods.

    x, info = cmrs.cg(A, b, rtol=1e-8, M="amg")        # as scipy's cg
    M = cmrs.amg(A).aspreconditioner()                  # one V-cycle
    x, info = scipy.sparse.linalg.cg(A, b, M=M)
"""
import numbers

import numpy as np
import scipy.sparse.linalg

from . import _arrays
from .errors import UsageError
from .solver import Solver

_PRECONDS = ("none", "jacobi", "chebyshev", "amg")
_M_ACCEPTS = ("M must be None (no preconditioner, as SciPy), 'jacobi', "
              "'amg', 'chebyshev', 'none' or a cmrs preconditioner "
              "(cmrs.amg(A), cmrs.jacobi(A)); ")
# SciPy's info for the ways a solve ends (0: converged; > 0: the iteration
# count when maxiter was reached; < 0: breakdown or illegal input).
INFO_BREAKDOWN = -10   # as scipy's bicgstab on rho breakdown
INFO_NANORINF = -11    # a NaN or Inf appeared in the iteration
MAXITER_LIMIT = 10_000_000  # the library's bound on maxiter


class Preconditioner:
    """A preconditioner of the library set up for A: cmrs.amg(A, **options),
    cmrs.jacobi(A), or Preconditioner(A, kind, device="auto", **options)
    with kind "amg", "jacobi", "chebyshev" or "none".

    options: the preconditioner's options of cmrs.Solver (amg_levels,
    amg_agg, amg_sweeps, amg_smoother, amg_coarse, amg_theta, cheb_degree,
    precision, spmv, ...; see help(cmrs.Solver)).

    apply(r) / M(r): z = M^-1 r, one application (amg: one V-cycle:
    symmetric positive definite for an SPD A, fit for CG), NumPy or CuPy.
    aspreconditioner(): a LinearOperator applying it, for
    scipy.sparse.linalg's solvers, pyamg's krylov module or (for CuPy
    input) cupyx.scipy.sparse.linalg's.
    As M of cmrs.cg / cmrs.bicgstab the library applies it inside its own
    iterations: those solves need A to be the matrix it was set up for;
    each (method, rtol, atol, maxiter) sets up one solver of that kind
    once, kept here for the next calls.
    """

    def __init__(self, A, kind="amg", device="auto", **options):
        kind = str(kind).strip().lower()
        if kind not in _PRECONDS:
            raise UsageError(f"preconditioner {kind!r}: one of "
                             f"{', '.join(_PRECONDS)}")
        options.pop("precond", None)
        self.kind, self.options = kind, options
        self._cupy = _arrays.is_cupy(A)
        self._canon = _arrays.canonical(A)
        self._solver = Solver(A, device=device, precond=kind, **options)
        self.context = self._solver.context
        self.shape = self._solver.shape
        self.dtype = self._solver.dtype
        self._solvers = {}

    def apply(self, r, out=None):
        """z = M^-1 r (Solver.apply_precond)."""
        return self._solver.apply_precond(r, out)

    __call__ = apply

    def _matvec(self, r):
        shape = r.shape
        xp = _arrays.cupy() if _arrays.is_cupy(r) else np
        return self.apply(xp.ravel(r)).reshape(shape)

    def aspreconditioner(self):
        """A LinearOperator z = M^-1 r (scipy.sparse.linalg's; cupyx's
        when A was a CuPy matrix), for SciPy's, CuPy's and pyamg's
        Krylov solvers (the M argument)."""
        if self._cupy:
            from cupyx.scipy.sparse.linalg import LinearOperator
        else:
            LinearOperator = scipy.sparse.linalg.LinearOperator
        return LinearOperator(self.shape, matvec=self._matvec,
                              rmatvec=self._matvec, dtype=self.dtype)

    def _same_matrix(self, A):
        c = _arrays.canonical(A)
        mine = self._canon
        return c.shape == mine.shape and c.nnz == mine.nnz and \
            np.array_equal(c.indptr, mine.indptr) and \
            np.array_equal(c.indices[:c.nnz], mine.indices[:mine.nnz]) and \
            np.array_equal(c.data[:c.nnz], mine.data[:mine.nnz])

    def solver_for(self, A, method, rtol, atol, maxiter):
        """The Solver that runs cmrs.cg/bicgstab with this preconditioner
        (set up on the first call for these options, then reused)."""
        if not self._same_matrix(A):
            raise UsageError(
                "M is a cmrs preconditioner set up for another matrix: the "
                "library applies it inside its own iterations, with A; "
                "make one for this A (cmrs.amg(A)) or pass M='amg'")
        key = (method, rtol, atol, maxiter)
        if key not in self._solvers:
            self._solvers[key] = Solver(
                self._canon_matrix(), device=self.context, precond=self.kind,
                solver=method, rtol=rtol, atol=atol, maxiter=maxiter,
                history=True, **self.options)
        return self._solvers[key]

    def _canon_matrix(self):
        c = self._canon
        return scipy.sparse.csr_matrix((c.data[:c.nnz], c.indices[:c.nnz],
                                        c.indptr), shape=c.shape)

    def close(self):
        for s in self._solvers.values():
            s.close()
        self._solver.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return (f"<cmrs.Preconditioner {self.kind} {self.shape[0]}x"
                f"{self.shape[1]} on {self.context!r}>")


def amg(A, device="auto", **options):
    """The library's AMG (smoothed aggregation, docs/AMG.md) set up for A:
    a Preconditioner whose apply / aspreconditioner() is one V-cycle.
    options: amg_agg ("mis2"), amg_prolong ("smoothed"), amg_theta (0.02),
    amg_smoother ("jacobi"), amg_sweeps ("auto"), amg_coarse (1000),
    amg_levels (20), amg_format ("auto"), precision ("double"), ...
    (help(cmrs.Solver) lists all)."""
    return Preconditioner(A, "amg", device=device, **options)


def jacobi(A, device="auto", **options):
    """Jacobi (z = r / diag(A)) set up for A, as a Preconditioner."""
    return Preconditioner(A, "jacobi", device=device, **options)


def _number(value, what):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise UsageError(f"{what} must be a number, not {value!r}")
    return float(value)


def _krylov(method, A, b, x0, rtol, atol, maxiter, M, callback, tol,
            device, options):
    if tol is not None:  # SciPy < 1.12 spelled rtol "tol"
        rtol = tol
    rtol = _number(rtol, "rtol")
    atol = 0.0 if atol is None or (isinstance(atol, str) and
                                   atol == "legacy") \
        else _number(atol, "atol")
    n = A.shape[0]
    if maxiter is None:
        maxiter = min(10 * n, MAXITER_LIMIT)  # SciPy's default
    for fixed in ("solver", "rtol", "atol", "maxiter", "history"):
        if fixed in options:
            raise UsageError(f"cmrs.{method}: option {fixed!r} is set by "
                             "the signature")
    if isinstance(M, Preconditioner):
        s = M.solver_for(A, method, rtol, atol, int(maxiter))
        owned = False
    else:
        if M is None:
            kind = "none"  # SciPy: M=None is no preconditioner
        elif isinstance(M, str) and M.strip().lower() in _PRECONDS:
            kind = M.strip().lower()
        else:
            raise UsageError(_M_ACCEPTS + f"not {type(M).__name__}: the "
                             "library's iterations cannot call a Python "
                             "operator (to use M with cmrs's AMG elsewhere, "
                             "see cmrs.amg(A).aspreconditioner())")
        if _arrays.is_cupy(b) and device == "auto":
            device = "gpu"  # CuPy vectors: the device path only
        s = Solver(A, device=device, solver=method, precond=kind, rtol=rtol,
                   atol=atol, maxiter=int(maxiter), history=True, **options)
        owned = True
    try:
        x = s.solve(b, x0)
        info = s.info
    finally:
        if owned:
            s.close()
    if callback is not None:
        for r in info.history[1:]:
            callback(float(r))
    if info.converged:
        code = 0
    elif info.reason == "DIVERGED_MAXITS":
        code = int(info.iterations)
    elif info.reason == "DIVERGED_BREAKDOWN":
        code = INFO_BREAKDOWN
    else:
        code = INFO_NANORINF
    return x, code


_DOC = """{summary}

    {name}(A, b, x0=None, *, rtol=1e-5, atol=0.0, maxiter=None, M=None,
    callback=None, device="auto", **options) -> (x, info)

    scipy.sparse.linalg.{name}'s signature (SciPy >= 1.12; tol= is taken
    as rtol's older name) and return, run by libcmrs:
    A: any SciPy sparse matrix or dense array (canonicalised in a copy when
    needed), or a cupyx.scipy.sparse matrix. b, x0: NumPy arrays, or CuPy
    arrays: then x is a CuPy array and b, x never leave the GPU.
    rtol, atol: stop when ||r|| <= max(rtol * ||b||, atol), r the
    recursive residual, as SciPy (rtol default 1e-5, atol 0.0; atol=None
    or "legacy" is 0.0). maxiter: default 10 * rows, as SciPy.
    M: None (no preconditioner, as SciPy), "jacobi", "amg", "chebyshev",
    "none" (names case-insensitive), or a cmrs preconditioner
    (cmrs.amg(A), cmrs.jacobi(A)), which the library applies inside its
    own iterations. Any other M (a LinearOperator, a matrix) raises
    UsageError: the iterations run in the library (on the GPU in CUDA
    graphs) and cannot call a Python operator.
    callback: DIFFERENT FROM SCIPY: called after the solve, once per
    iteration k = 1 .. iterations, with the relative residual
    ||r_k|| / ||b|| (float), not with x_k: the iterations run inside the
    library, on the GPU in CUDA graphs, where x_k is not available
    without a copy per iteration. Counting the calls counts iterations, as
    with SciPy.
    info: 0 converged; > 0 the iteration count when maxiter was reached
    without converging; -10 breakdown; -11 a NaN or Inf in the iteration
    (SciPy's convention: < 0 breakdown or illegal input). Bad input (NaN
    or Inf in A, b or x0; wrong shapes) raises cmrs.CmrsError instead.
    device, options: as cmrs.Solver's (spmv, precision, engine, amg_*,
    ...); solver, rtol, atol, maxiter and history are set by this call.
    Each call sets up a solver (conversion, upload, preconditioner); for
    many solves with one matrix use cmrs.Solver, or keep the M object
    (cmrs.amg(A)): its solver is set up once per (rtol, atol, maxiter).
    cmrs.solve gives the full report (SolveInfo).
    """


def cg(A, b, x0=None, *, rtol=1e-5, atol=0.0, maxiter=None, M=None,
       callback=None, tol=None, device="auto", **options):
    return _krylov("cg", A, b, x0, rtol, atol, maxiter, M, callback, tol,
                   device, options)


def bicgstab(A, b, x0=None, *, rtol=1e-5, atol=0.0, maxiter=None, M=None,
             callback=None, tol=None, device="auto", **options):
    return _krylov("bicgstab", A, b, x0, rtol, atol, maxiter, M, callback,
                   tol, device, options)


cg.__doc__ = _DOC.format(
    name="cg", summary="Conjugate gradients for A x = b (A symmetric "
    "positive definite), as scipy.sparse.linalg.cg.")
bicgstab.__doc__ = _DOC.format(
    name="bicgstab", summary="BiCGStab for A x = b (A nonsymmetric), as "
    "scipy.sparse.linalg.bicgstab.")

__all__ = ["cg", "bicgstab", "amg", "jacobi", "Preconditioner",
           "INFO_BREAKDOWN", "INFO_NANORINF"]

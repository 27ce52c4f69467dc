"""Context, Solver and solve(): NumPy/SciPy arrays over the C API.

Arrays go to the library by pointer, without a copy when they already have
a type it takes (C-contiguous int32/int64 indices, float32/float64 values):
the library copies what it keeps. A copy is made here only to convert.
"""
import ctypes
import dataclasses
import weakref

import numpy as np
import scipy.sparse

from . import _lib
from .errors import UsageError, InputError, check

_VALUE_TYPES = {np.dtype(np.float64): _lib.VALUE_FLOAT64,
                np.dtype(np.float32): _lib.VALUE_FLOAT32}
_INDEX_TYPES = {np.dtype(np.int32): _lib.INDEX_INT32,
                np.dtype(np.int64): _lib.INDEX_INT64}


def version():
    """The version of the loaded libcmrs, "MAJOR.MINOR.PATCH"."""
    return _lib.text(_lib.lib().cmrs_version())


def _device_index(device):
    """"auto", "cpu", "gpu" (GPU 0), "gpu:N" or an int N >= 0 -> C's int."""
    if isinstance(device, (int, np.integer)) and not isinstance(device, bool):
        if device >= 0:
            return int(device)
    elif device == "auto":
        return _lib.DEVICE_AUTO
    elif device == "cpu":
        return _lib.DEVICE_CPU
    elif device == "gpu":
        return 0
    elif isinstance(device, str) and device.startswith("gpu:") \
            and device[4:].isdigit():
        return int(device[4:])
    raise UsageError(f"device must be 'auto', 'cpu', 'gpu', 'gpu:N' or a GPU "
                     f"index >= 0, not {device!r}")


class _Owner:
    """An object owning one library handle, freed by close(), at the end of
    a with block, or when garbage-collected (self._finalizer)."""

    _kind = "object"

    @property
    def handle(self):
        if not self._finalizer.alive:
            raise UsageError(f"the {self._kind} was closed")
        return self._handle

    def close(self):
        """Frees the handle now; idempotent."""
        self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Context(_Owner):
    """A device and the library handles bound to it (cmrs_context).

    Every Solver has one; pass the same Context as device= to several
    solvers to share the device's set-up. A context and its solvers may be
    used by one thread at a time (one context per thread).
    """

    _kind = "context"

    def __init__(self, device="auto"):
        L = _lib.lib()
        handle = ctypes.c_void_p()
        check(L.cmrs_context_create(_device_index(device),
                                    ctypes.byref(handle)), None,
              "cmrs_context_create")
        self._handle = handle
        self._solvers = weakref.WeakSet()
        self._finalizer = weakref.finalize(self, L.cmrs_context_destroy,
                                           handle)

    @property
    def device(self):
        """"cpu", or "gpu:N" for GPU N."""
        index = _lib.lib().cmrs_context_device(self.handle)
        return "cpu" if index == _lib.DEVICE_CPU else f"gpu:{index}"

    @property
    def device_name(self):
        """"cpu" or the GPU's name."""
        return _lib.text(_lib.lib().cmrs_context_device_name(self.handle))

    def close(self):
        """Frees the context, closing its solvers first (the library needs
        its objects destroyed before their context). Idempotent."""
        for solver in list(self._solvers):
            solver.close()
        super().close()

    def __repr__(self):
        state = self.device if self._finalizer.alive else "closed"
        return f"<cmrs.Context {state}>"


@dataclasses.dataclass(frozen=True)
class SolveInfo:
    """What the last setup, update and solve did (cmrs_solve_info)."""

    iterations: int
    reason: str            # "CONVERGED_RTOL", "DIVERGED_MAXITS", ...
    converged: bool
    residual: float        # final recursive residual ||r||2
    relative_residual: float
    true_residual: float   # ||b - A x||2 recomputed in double
    true_relative_residual: float
    t_setup: float         # seconds of the last setup, update, solve
    t_update: float
    t_solve: float
    method: str
    precond: str
    engine: str
    format: str
    height: int
    precision: str
    device: str

    @classmethod
    def from_c(cls, c):
        strings = {f: _lib.text(getattr(c, f)) for f in (
            "method", "precond", "engine", "format", "precision", "device")}
        return cls(iterations=c.iterations,
                   reason=_lib.text(_lib.lib().cmrs_reason_name(c.reason)),
                   converged=bool(c.converged), residual=c.residual,
                   relative_residual=c.relative_residual,
                   true_residual=c.true_residual,
                   true_relative_residual=c.true_relative_residual,
                   t_setup=c.t_setup, t_update=c.t_update, t_solve=c.t_solve,
                   height=c.height, **strings)


def _pointer(array):
    return ctypes.c_void_p(array.ctypes.data)


def _values(data, what):
    """data as a C-contiguous float64/float32 array (copied only to convert)
    and its cmrs_value_type."""
    data = np.asarray(data)
    if data.dtype not in _VALUE_TYPES:
        if data.dtype.kind not in "biuf":
            raise UsageError(f"{what} must hold real numbers, not {data.dtype}")
        data = data.astype(np.float64)
    data = np.ascontiguousarray(data)
    return data, _VALUE_TYPES[data.dtype]


def _indices(indptr, indices):
    """Both index arrays of one cmrs_index_type (the C API takes one):
    converted to int64 only when they differ or are of another type."""
    if indptr.dtype != indices.dtype or indptr.dtype not in _INDEX_TYPES:
        indptr, indices = indptr.astype(np.int64), indices.astype(np.int64)
    return (np.ascontiguousarray(indptr), np.ascontiguousarray(indices),
            _INDEX_TYPES[indptr.dtype])


def _as_csr(A):
    """A as CSR: a csr_matrix or csr_array as it is, anything else through
    scipy.sparse.csr_matrix (a converted copy)."""
    if not (scipy.sparse.issparse(A) and A.format == "csr"):
        A = scipy.sparse.csr_matrix(A)
    if A.ndim != 2:
        raise UsageError(f"A must be 2-D, not of shape {A.shape}")
    return A


class _Matrix(_Owner):
    """A cmrs_matrix made from a CSR matrix's arrays."""

    _kind = "matrix"

    def __init__(self, ctx, A):
        A = _as_csr(A)
        rows, cols = A.shape
        indptr, indices, index_type = _indices(A.indptr, A.indices)
        data, value_type = _values(A.data, "A.data")
        nnz = self._nnz(indptr, indices, data, rows)
        L = _lib.lib()
        self._handle = ctypes.c_void_p()
        check(L.cmrs_matrix_create_csr(
            ctx.handle, rows, cols, nnz, _pointer(indptr), _pointer(indices),
            index_type, _pointer(data), value_type,
            ctypes.byref(self._handle)), ctx.handle, "cmrs_matrix_create_csr")
        self._finalizer = weakref.finalize(self, L.cmrs_matrix_destroy,
                                           self._handle)
        self.shape, self.nnz = (rows, cols), nnz

    @staticmethod
    def _nnz(indptr, indices, data, rows):
        """indptr[rows], after the checks the library cannot make: it reads
        rows + 1 entries of indptr and nnz of indices and data."""
        if indptr.shape != (rows + 1,):
            raise InputError(f"A.indptr has {indptr.size} entries, "
                             f"A has {rows} rows (rows + 1 needed)")
        nnz = int(indptr[-1])
        if not 0 <= nnz <= min(indices.size, data.size):
            raise InputError(f"A.indptr[-1] = {nnz} but A.indices has "
                             f"{indices.size} and A.data {data.size} entries")
        return nnz


def _option_text(value):
    """An option value as the CLI would take it: True -> "on", 1e-6 ->
    "1e-06"."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _destroy_solver(handle, context):
    # context is an argument only to keep it alive until the solver is gone.
    del context
    _lib.lib().cmrs_solver_destroy(handle)


class Solver(_Owner):
    """A solver set up once for A, then solved any number of times.

    Solver(A, device="auto", **options): A is converted as in solve(); the
    options are the CLI's long options with "_" for "-" (solver="cg",
    precond="jacobi", rtol=1e-8, maxiter=1000, spmv="cmrs", engine="fused",
    precision="single", history=True, amg_levels=4, ...). device is "auto",
    "cpu", "gpu", "gpu:N" or a Context to share. Setup (conversion, upload,
    preconditioner) happens here; solve() only iterates.

    Freed by close(), at the end of a with block, or when garbage-collected.
    """

    _kind = "solver"

    def __init__(self, A, device="auto", **options):
        self.context = device if isinstance(device, Context) \
            else Context(device)
        L = _lib.lib()
        self._handle = ctypes.c_void_p()
        check(L.cmrs_solver_create(self.context.handle,
                                   ctypes.byref(self._handle)),
              self.context.handle, "cmrs_solver_create")
        self._finalizer = weakref.finalize(self, _destroy_solver,
                                           self._handle, self.context)
        self.context._solvers.add(self)
        self.options = {k.replace("_", "-"): _option_text(v)
                        for k, v in options.items() if v is not None}
        for name, value in self.options.items():
            self._call("cmrs_solver_set_option", name.encode(), value.encode())
        self.setup(A)

    def _call(self, name, *args):
        """Calls cmrs_<name>(solver, *args), raising on failure."""
        ctx = self.context.handle
        check(getattr(_lib.lib(), name)(self.handle, *args), ctx, name)

    def setup(self, A):
        """(Re)does the setup for A (a new pattern); the constructor calls
        it. The library keeps its own copy of A."""
        with _Matrix(self.context, A) as M:
            self._call("cmrs_solver_setup", M.handle)
        self.shape, self.nnz = M.shape, M.nnz

    def update_values(self, data):
        """New values for the same pattern: nnz numbers in the CSR order of
        the matrix set up, or a CSR matrix whose pattern is that one (only
        its data is used; pattern checked by shape and nnz)."""
        if scipy.sparse.issparse(data):
            A = _as_csr(data)
            if A.shape != self.shape or A.nnz != self.nnz:
                raise UsageError(f"update_values: a {A.shape} matrix with "
                                 f"{A.nnz} nonzeros for a {self.shape} one "
                                 f"with {self.nnz}")
            data = A.data[:A.nnz]
        data, value_type = _values(data, "values")
        if data.shape != (self.nnz,):
            raise UsageError(f"update_values: {data.size} values of shape "
                             f"{data.shape} for {self.nnz} nonzeros")
        self._call("cmrs_solver_update_values", _pointer(data), value_type,
                   _lib.MEMORY_HOST)

    def _vector(self, v, what, dtype=None):
        """v as a C-contiguous float array of length rows (dtype: convert to
        it, copying only if needed)."""
        v = np.asarray(v) if dtype is None else np.asarray(v, dtype=dtype)
        if v.shape != (self.shape[0],):
            raise UsageError(f"{what} has shape {v.shape}; the matrix has "
                             f"{self.shape[0]} rows")
        return _values(v, what)[0]

    def solve(self, b, x0=None):
        """x with A x = b, starting from x0 (zeros when None; x0 is not
        modified). x is float32 when b is float32, else float64. Read
        .info for iterations, reason and residuals: not converging is not
        an exception."""
        b = self._vector(b, "b")
        x = np.zeros(self.shape[0], dtype=b.dtype) if x0 is None \
            else np.array(self._vector(x0, "x0", b.dtype), copy=True)
        self._call("cmrs_solver_solve_ex", _pointer(b), _pointer(x),
                   _VALUE_TYPES[b.dtype], _lib.MEMORY_HOST)
        return x

    @property
    def info(self):
        """SolveInfo of the last setup, update and solve."""
        c = _lib.SolveInfo()
        self._call("cmrs_solver_get_info", ctypes.byref(c))
        return SolveInfo.from_c(c)

    @property
    def history(self):
        """Relative residual per iteration of the last solve (iterations + 1
        values) when the solver was made with history=True, else None."""
        if self.options.get("history") != "on":
            return None
        count = ctypes.c_int64()
        self._call("cmrs_solver_history", None, 0, ctypes.byref(count))
        h = np.empty(count.value, dtype=np.float64)
        self._call("cmrs_solver_history",
                   h.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
                   h.size, ctypes.byref(count))
        return h

    def __repr__(self):
        state = "closed" if not self._finalizer.alive else \
            f"{self.shape[0]}x{self.shape[1]}, {self.nnz} nonzeros"
        return f"<cmrs.Solver {state} on {self.context!r}>"


def solve(A, b, x0=None, device="auto", **options):
    """Solves A x = b once; returns (x, info).

    A: a scipy.sparse CSR matrix or array, passed without a copy when its
    indices are int32/int64 and its data float32/float64; any other sparse
    format or a dense array is converted to CSR first (a copy). b, x0:
    1-D NumPy arrays of length rows. device and options: as for Solver
    (rtol=1e-6, precond="amg", solver="bicgstab", precision="single", ...).
    Raises CmrsError (a subclass per status) with the library's message on
    bad input; a solve that does not converge returns info.converged False.
    """
    with Solver(A, device=device, **options) as s:
        x = s.solve(b, x0)
        return x, s.info

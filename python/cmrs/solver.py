"""Context, Solver and solve(): NumPy/SciPy arrays over the C API.

Arrays go to the library by pointer, without a copy when they already have
a type it takes (C-contiguous int32/int64 indices, float32/float64 values):
the library copies what it keeps. A copy is made here only to convert.
"""
import ctypes
import dataclasses
import warnings
import weakref

import numpy as np
import scipy.sparse

from . import _arrays, _lib, _options
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
        self.requested = device  # "auto" may fall back to the CPU
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
    # relative residual ||r_k|| / ||b|| of every iteration (entry 0: the
    # start), float64, iterations + 1 values, with history=True; else None
    history: object = dataclasses.field(default=None, compare=False,
                                        repr=False)

    @classmethod
    def from_c(cls, c, history=None):
        strings = {f: _lib.text(getattr(c, f)) for f in (
            "method", "precond", "engine", "format", "precision", "device")}
        return cls(iterations=c.iterations,
                   reason=_lib.text(_lib.lib().cmrs_reason_name(c.reason)),
                   converged=bool(c.converged), residual=c.residual,
                   relative_residual=c.relative_residual,
                   true_residual=c.true_residual,
                   true_relative_residual=c.true_relative_residual,
                   t_setup=c.t_setup, t_update=c.t_update, t_solve=c.t_solve,
                   height=c.height, history=history, **strings)


def _pointer(array):
    """The address of a NumPy or CuPy array's first element."""
    if _arrays.is_cupy(array):
        return ctypes.c_void_p(array.data.ptr)
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


class _Matrix(_Owner):
    """A cmrs_matrix made from a Canonical CSR's arrays (_arrays.py); with
    row0, this rank's rows row0 .. row0 + rows - 1 of a cols x cols matrix
    (cmrs_matrix_create_csr_rows)."""

    _kind = "matrix"

    def __init__(self, ctx, canon, row0=None):
        rows, cols = canon.shape
        indptr, indices, index_type = _indices(canon.indptr, canon.indices)
        data, value_type = _values(canon.data, "A.data")
        nnz = self._nnz(indptr, indices, data, rows)
        L = _lib.lib()
        self._handle = ctypes.c_void_p()
        if row0 is None:
            check(L.cmrs_matrix_create_csr(
                ctx.handle, rows, cols, nnz, _pointer(indptr),
                _pointer(indices), index_type, _pointer(data), value_type,
                ctypes.byref(self._handle)), ctx.handle,
                "cmrs_matrix_create_csr")
        else:
            check(L.cmrs_matrix_create_csr_rows(
                ctx.handle, cols, row0, rows, nnz, _pointer(indptr),
                _pointer(indices), index_type, _pointer(data), value_type,
                ctypes.byref(self._handle)), ctx.handle,
                "cmrs_matrix_create_csr_rows")
        self._finalizer = weakref.finalize(self, L.cmrs_matrix_destroy,
                                           self._handle)
        self.shape, self.nnz = (rows, cols), nnz
        self.indptr, self.indices = indptr, indices

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


def _row0_of(row0, comm):
    """row0 as an int (None: the whole matrix); UsageError without comm
    (a matrix of rows is a part of a solve over ranks)."""
    if row0 is None:
        return None
    if comm is None:
        raise UsageError("row0: A as this rank's rows needs comm (an MPI "
                         "communicator)", "cmrs_matrix_create_csr_rows")
    if isinstance(row0, bool) or not isinstance(row0, (int, np.integer)) \
            or row0 < 0:
        raise UsageError(f"row0: a row index >= 0, not {row0!r}",
                         "cmrs_matrix_create_csr_rows")
    return int(row0)


def _destroy_solver(handle, context):
    # context is an argument only to keep it alive until the solver is gone.
    del context
    _lib.lib().cmrs_solver_destroy(handle)


def _wait_for_cupy():
    """The library waits for the legacy default stream only: work queued
    on CuPy's current stream (when it is another) is waited for here."""
    _arrays.cupy().cuda.get_current_stream().synchronize()


class Solver(_Owner):
    """A solver set up once for A, then solved any number of times.

    Solver(A, device="auto", **options)

    A: any SciPy sparse matrix or array (CSR passed by pointer when it is
    canonical; unsorted indices, duplicates (added, as SciPy does) and other
    formats are canonicalised in a copy, the caller's matrix is never
    modified), a dense 2-D array, or a cupyx.scipy.sparse matrix / CuPy
    array (copied to the host once: the C API creates matrices from host
    arrays; the solves then stay on the device).
    device: "auto" (GPU 0, else the CPU back end), "cpu", "gpu", "gpu:N",
    an int N, or a Context to share.
    comm: an MPI communicator with py2f() (mpi4py's), MPI initialised: one
    part of A per rank of it, each on a GPU of its node (a GPU device) or
    on the CPU back end (device="cpu"); every rank passes the whole A and
    b and gets the whole x, unless row0 is given.
    row0: with comm, A is this rank's rows only: rows row0 .. row0 +
    A.shape[0] - 1 of the A.shape[1] x A.shape[1] matrix (global column
    indices); the ranks' rows must tile the matrix in rank order. b, x0, x
    and update_values' values are then this rank's rows (no rank holds
    the whole matrix: a CFD code's own partition, docs/DISTRIBUTED.md
    "Each rank its rows"). Double precision only.
    Setup (conversion, upload, preconditioner) happens here; solve() only
    iterates. Freed by close(), at the end of a with block, or when
    garbage-collected.

    Options (keywords; "_" or "-", case-insensitive, words too: "AMG"),
    with the library's defaults; an unknown name raises UsageError listing
    these:
{options}
    """

    _kind = "solver"

    def __init__(self, A, device="auto", comm=None, row0=None, **options):
        self._row0 = _row0_of(row0, comm)
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
        self.options = self._set_options(options)
        if comm is not None:
            self._set_comm(comm)
        self.setup(A)

    def _set_comm(self, comm):
        """The parts over comm's ranks (its Fortran handle, which the
        library takes whatever the MPI)."""
        try:
            handle = int(comm.py2f())
        except (AttributeError, TypeError):
            raise UsageError("comm: an MPI communicator with py2f() "
                             "(mpi4py's), not %s" % type(comm).__name__,
                             "cmrs_solver_set_mpi_comm") from None
        self._call("cmrs_solver_set_mpi_comm", ctypes.c_int64(handle))

    def _set_options(self, options):
        texts = {}
        for name, value in options.items():
            if value is not None:
                texts[_options.key(name)] = _options.text(name, value)
        engine = texts.get("engine")
        if engine in ("graph", "fused") and self.context.device == "cpu" \
                and self.context.requested == "auto":
            # as `cmrs solve --device auto --engine fused` without a GPU
            warnings.warn(f"cmrs: engine '{engine}' needs a GPU and "
                          "device='auto' found none: the CPU back end runs "
                          "its reference loop", RuntimeWarning, stacklevel=4)
            del texts["engine"]
        for name, value in texts.items():
            try:
                self._call("cmrs_solver_set_option", name.encode(),
                           value.encode())
            except UsageError as e:
                if "unknown option" not in e.message:
                    raise
                raise UsageError(f"{e.message}; the options are: "
                                 f"{_options.names()}", e.call) from None
        return texts

    def _call(self, name, *args):
        """Calls cmrs_<name>(solver, *args), raising on failure."""
        ctx = self.context.handle
        check(getattr(_lib.lib(), name)(self.handle, *args), ctx, name)

    def setup(self, A):
        """(Re)does the setup for A (a new pattern); the constructor calls
        it. The library keeps its own copy of A."""
        canon = _arrays.canonical(A)
        with _Matrix(self.context, canon, self._row0) as M:
            self._call("cmrs_solver_setup", M.handle)
        self.shape, self.nnz = M.shape, M.nnz
        # the pattern set up, for update_values' check (copies: the
        # caller may change its arrays)
        self._pattern = (np.array(M.indptr, copy=True),
                         np.array(M.indices[:M.nnz], copy=True))
        self._pattern_d = None  # its CuPy copies, made on a device update
        self._inv = canon.inv if canon.from_csr else None
        self._inv_d = None
        self._nnz_in = canon.nnz_in
        self.precision = self.info.precision
        self.dtype = np.dtype(np.float32 if self.precision == "single"
                              else np.float64)

    def _check_pattern(self, shape, indptr, indices, xp):
        """InputError unless (shape, indptr, indices) is the pattern set
        up (xp: numpy, or cupy with device arrays)."""
        if tuple(shape) != tuple(self.shape):
            raise InputError(f"update_values: a {shape[0]}x{shape[1]} "
                             f"matrix for the {self.shape[0]}x"
                             f"{self.shape[1]} one set up")
        if xp is np:
            ip, ix = self._pattern
        else:
            if self._pattern_d is None:
                self._pattern_d = (xp.asarray(self._pattern[0]),
                                   xp.asarray(self._pattern[1]))
            ip, ix = self._pattern_d
        nnz = int(indptr[-1])
        if nnz != self.nnz or not (bool(xp.array_equal(indptr, ip)) and
                                   bool(xp.array_equal(indices[:nnz], ix))):
            raise InputError(
                f"update_values: the matrix's pattern (indptr and indices, "
                f"sorted and merged) is not the one set up ({nnz} nonzeros "
                f"for {self.nnz}, or the same count in other places): new "
                f"values need the same pattern; call setup(A) for a new one")

    def update_values(self, data):
        """New values for the pattern set up, from host or device memory.

        data: a matrix (SciPy sparse of any format, dense 2-D, or
        cupyx.scipy.sparse) whose pattern, after canonicalisation, must be
        the one set up (indptr and indices compared: InputError otherwise;
        only its values are used); or a 1-D array of values (NumPy or
        CuPy): nnz values in the order of the CSR matrix given to setup
        (when that CSR was canonicalised here, its own entry order is
        mapped, duplicates added; values in the canonical order are taken
        too). CuPy values go to the library by device pointer
        (CMRS_MEMORY_DEVICE, converted on the device to the solver's
        precision when needed).
        """
        if _arrays.is_cupy(data):
            return self._update_device(data)
        if scipy.sparse.issparse(data) or np.ndim(data) == 2:
            canon = _arrays.canonical(data)
            self._check_pattern(canon.shape, canon.indptr, canon.indices, np)
            values = canon.data[:canon.nnz]
        else:
            values = np.asarray(data)
            if self._inv is not None and values.shape == (self._nnz_in,):
                values = _values(values, "values")[0]
                values = np.bincount(self._inv, weights=values,
                                     minlength=self.nnz).astype(values.dtype)
        values, value_type = _values(values, "values")
        if values.shape != (self.nnz,):
            raise UsageError(f"update_values: {values.size} values of shape "
                             f"{values.shape} for {self.nnz} nonzeros")
        self._call("cmrs_solver_update_values", _pointer(values), value_type,
                   _lib.MEMORY_HOST)

    def _need_gpu(self, what):
        if self.context.device == "cpu":
            raise UsageError(f"{what}: CuPy arrays need a GPU context; this "
                             f"solver runs on the CPU back end (device="
                             f"{self.context.requested!r})")

    def _update_device(self, data):
        cp = _arrays.cupy()
        self._need_gpu("update_values")
        if hasattr(data, "format"):  # cupyx.scipy.sparse
            A = data if data.format == "csr" else data.tocsr()
            nnz = int(A.indptr[-1])
            if not _arrays.sorted_rows(cp, A.indptr, A.indices, nnz):
                A = A.copy()  # the caller's is left alone
                A.has_canonical_format = False
                A.sum_duplicates()
            self._check_pattern(A.shape, A.indptr, A.indices, cp)
            values = A.data[:self.nnz]
        else:
            values = data
            if values.ndim != 1:
                raise UsageError(f"update_values: values of shape "
                                 f"{values.shape} (1-D expected)")
            if self._inv is not None and values.shape == (self._nnz_in,):
                import cupyx
                if self._inv_d is None:
                    self._inv_d = cp.asarray(self._inv)
                out = cp.zeros(self.nnz, dtype=cp.float64)
                cupyx.scatter_add(out, self._inv_d, values.astype(cp.float64))
                values = out
        values = cp.ascontiguousarray(values, dtype=self.dtype)
        if values.shape != (self.nnz,):
            raise UsageError(f"update_values: {values.size} values of shape "
                             f"{values.shape} for {self.nnz} nonzeros")
        _wait_for_cupy()
        self._call("cmrs_solver_update_values", _pointer(values),
                   _VALUE_TYPES[self.dtype], _lib.MEMORY_DEVICE)

    def _vector(self, v, what, dtype=None):
        """v as a C-contiguous float array of length rows (dtype: convert to
        it, copying only if needed)."""
        v = np.asarray(v) if dtype is None else np.asarray(v, dtype=dtype)
        if v.shape != (self.shape[0],):
            raise UsageError(f"{what} has shape {v.shape}; the matrix has "
                             f"{self.shape[0]} rows")
        return _values(v, what)[0]

    def _out(self, out, dtype, xp):
        """out checked as a buffer the library may write x into."""
        if xp is np and not isinstance(out, np.ndarray) or \
                xp is not np and not _arrays.is_cupy(out):
            raise UsageError("out must be an array of the same kind as b "
                             "(NumPy for NumPy b, CuPy for CuPy b)")
        if out.shape != (self.shape[0],) or out.dtype != dtype or \
                not out.flags.c_contiguous:
            raise UsageError(f"out must be a C-contiguous {dtype} array of "
                             f"shape ({self.shape[0]},), not {out.dtype} "
                             f"{out.shape}")
        return out

    def solve(self, b, x0=None, out=None):
        """x with A x = b, starting from x0 (zeros when None; x0 is not
        modified). Read .info for iterations, reason and residuals: not
        converging is not an exception.

        NumPy b: x is float32 when b is float32 (the library iterates in
        double from it, or in float with precision="single", and rounds x;
        info.true_residual is that of the float32 x returned), else
        float64. CuPy b (a GPU solver): b and x stay on the device (the
        library's device-array path, no host copy of a vector); x is of
        the solver's precision (float64, float32 for precision="single").
        out: an array of that kind, dtype and length to write x into
        (returned); x0, when given, is copied into it first.
        b, x0 with a NaN or Inf raise InputError naming the entry.
        """
        if _arrays.is_cupy(b):
            return self._solve_device(b, x0, out)
        b = self._vector(b, "b")
        _arrays.check_finite(b, "b")
        if out is not None:
            x = self._out(out, b.dtype, np)
            x[...] = 0 if x0 is None else self._vector(x0, "x0", b.dtype)
        elif x0 is None:
            x = np.zeros(self.shape[0], dtype=b.dtype)
        else:
            x = np.array(self._vector(x0, "x0", b.dtype), copy=True)
        _arrays.check_finite(x, "x0")
        self._call("cmrs_solver_solve_ex", _pointer(b), _pointer(x),
                   _VALUE_TYPES[b.dtype], _lib.MEMORY_HOST)
        return x

    def _solve_device(self, b, x0, out):
        cp = _arrays.cupy()
        self._need_gpu("solve")
        n = self.shape[0]
        if b.shape != (n,):
            raise UsageError(f"b has shape {b.shape}; the matrix has {n} "
                             f"rows")
        b = cp.ascontiguousarray(b, dtype=self.dtype)  # as is when it fits
        _arrays.check_finite(b, "b")
        if x0 is not None:
            x0 = cp.asarray(x0)
            if x0.shape != (n,):
                raise UsageError(f"x0 has shape {x0.shape}; the matrix has "
                                 f"{n} rows")
        if out is not None:
            x = self._out(out, self.dtype, cp)
            if x0 is None:
                x.fill(0)
            else:
                x[...] = x0
        else:
            x = cp.zeros(n, dtype=self.dtype) if x0 is None else \
                cp.array(x0, dtype=self.dtype, copy=True, order="C")
        _arrays.check_finite(x, "x0")
        _wait_for_cupy()
        self._call("cmrs_solver_solve_ex", _pointer(b), _pointer(x),
                   _VALUE_TYPES[self.dtype], _lib.MEMORY_DEVICE)
        return x

    def apply_precond(self, r, out=None):
        """z = M^-1 r: one application of the preconditioner set up (option
        precond; amg: one V-cycle), with no Krylov iteration
        (cmrs_solver_apply_precond). NumPy r: z of r's float type; CuPy r
        (GPU): applied on the device, z of the solver's precision. out:
        the array to write z into (returned)."""
        if _arrays.is_cupy(r):
            cp = _arrays.cupy()
            self._need_gpu("apply_precond")
            r = cp.ascontiguousarray(r, dtype=self.dtype)
            if r.shape != (self.shape[0],):
                raise UsageError(f"r has shape {r.shape}; the matrix has "
                                 f"{self.shape[0]} rows")
            z = cp.empty_like(r) if out is None else \
                self._out(out, self.dtype, cp)
            _wait_for_cupy()
            where, vtype = _lib.MEMORY_DEVICE, _VALUE_TYPES[self.dtype]
        else:
            r = self._vector(r, "r")
            z = np.empty_like(r) if out is None else \
                self._out(out, r.dtype, np)
            where, vtype = _lib.MEMORY_HOST, _VALUE_TYPES[r.dtype]
        self._call("cmrs_solver_apply_precond", _pointer(r), _pointer(z),
                   vtype, where)
        return z

    @property
    def info(self):
        """SolveInfo of the last setup, update and solve (with .history
        when the solver was made with history=True)."""
        c = _lib.SolveInfo()
        self._call("cmrs_solver_get_info", ctypes.byref(c))
        history = self.history if c.reason != 0 else None
        return SolveInfo.from_c(c, history)

    @property
    def history(self):
        """Relative residual ||r_k|| / ||b|| per iteration of the last
        solve (iterations + 1 values, entry 0 the start) when the solver
        was made with history=True, else None."""
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


def solve(A, b, x0=None, device="auto", comm=None, row0=None, **options):
    """Solves A x = b once; returns (x, info).

    A: as for Solver (any SciPy sparse format or dense array, canonicalised
    in a copy when needed; CuPy/cupyx input copied to the host once for the
    setup). b, x0: 1-D NumPy arrays of length rows, or CuPy arrays (then x
    is a CuPy array and the vectors never leave the device). device, comm,
    row0 and options: as for Solver. info is a SolveInfo (info.history with
    history=True). Raises CmrsError (a subclass per status) with the
    library's message on bad input (InputError for NaN/Inf in A, b or
    x0); a solve that does not converge returns info.converged False.

    Options, with the library's defaults:
{options}
    """
    with Solver(A, device=device, comm=comm, row0=row0, **options) as s:
        x = s.solve(b, x0)
        return x, s.info


Solver.__doc__ = Solver.__doc__.replace("{options}", _options.table())
solve.__doc__ = solve.__doc__.replace("{options}", _options.table())

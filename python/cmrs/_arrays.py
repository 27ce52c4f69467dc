"""Input arrays: SciPy/NumPy and CuPy matrices as the canonical CSR the
library takes (sorted column indices, no duplicates), vectors checked.

The caller's matrix is never modified: a matrix that needs sorting or
merging is canonicalised in a copy, as SciPy's sum_duplicates does
(duplicates added), and the map from the caller's entries to the
canonical ones is kept so that values given later in the caller's order
(Solver.update_values) land in the right places.
"""
import numpy as np
import scipy.sparse

from .errors import InputError, UsageError


def is_cupy(x):
    """Whether x is a CuPy array or a cupyx.scipy.sparse matrix (without
    importing CuPy when it is not)."""
    return type(x).__module__.split(".")[0] in ("cupy", "cupyx")


def cupy():
    import cupy as cp  # only reached with CuPy input
    return cp


class Canonical:
    """A matrix as canonical CSR arrays on the host.

    shape, indptr, indices, data: what the library gets (data float32 or
    float64, indices int32 or int64, one type for both index arrays).
    inv: None when the caller's CSR entries are already in canonical
    order; else, for each of the caller's nnz_in entries, its position in
    data (np.bincount(inv, weights=v) maps values in the caller's order).
    from_csr: the input was a CSR matrix (its entry order is the caller's).
    """

    def __init__(self, shape, indptr, indices, data, inv, nnz_in, from_csr):
        self.shape, self.indptr, self.indices, self.data = \
            shape, indptr, indices, data
        self.inv, self.nnz_in, self.from_csr = inv, nnz_in, from_csr

    @property
    def nnz(self):
        return int(self.indptr[-1])


def _values(data, what):
    data = np.asarray(data)
    if data.dtype not in (np.float32, np.float64):
        if data.dtype.kind not in "biuf":
            raise UsageError(f"{what} must hold real numbers, not "
                             f"{data.dtype}")
        data = data.astype(np.float64)
    return data


def _index_pair(indptr, indices):
    if indptr.dtype != indices.dtype or \
            indptr.dtype not in (np.int32, np.int64):
        indptr, indices = indptr.astype(np.int64), indices.astype(np.int64)
    return indptr, indices


def sorted_rows(xp, indptr, indices, nnz):
    """Whether column indices increase strictly within every row (xp:
    numpy or cupy; a bool)."""
    if nnz < 2:
        return True
    ok = xp.diff(indices[:nnz]) > 0
    starts = indptr[1:-1]
    starts = starts[(starts > 0) & (starts < nnz)]
    ok[starts - 1] = True  # the step from one row's last entry to the next
    return bool(ok.all())


def _well_formed(indptr, indices, rows, cols):
    """Only a well-formed CSR is canonicalised here; anything else goes to
    the library as it is, which names the bad row."""
    if indptr.shape != (rows + 1,) or indptr[0] != 0:
        return False
    nnz = int(indptr[-1])
    if nnz > indices.size or np.any(np.diff(indptr) < 0):
        return False
    return nnz == 0 or (indices[:nnz].min() >= 0 and
                        indices[:nnz].max() < cols)


def _merge(rows, cols, indptr, indices, data, nnz):
    """Sorted, duplicates added: (indptr, indices, data, inv)."""
    row = np.repeat(np.arange(rows, dtype=np.int64), np.diff(indptr))
    keys = row * cols + indices[:nnz].astype(np.int64)
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    first = np.empty(nnz, dtype=bool)
    first[:1] = True
    first[1:] = sk[1:] != sk[:-1]
    pos = np.cumsum(first) - 1
    inv = np.empty(nnz, dtype=np.int64)
    inv[order] = pos
    m = int(pos[-1]) + 1 if nnz else 0
    merged = np.bincount(inv, weights=data[:nnz].astype(np.float64),
                         minlength=m).astype(data.dtype)
    ukeys = sk[first]
    counts = np.bincount(ukeys // cols, minlength=rows)
    new_indptr = np.zeros(rows + 1, dtype=indptr.dtype)
    np.cumsum(counts, out=new_indptr[1:])
    new_indices = (ukeys % cols).astype(indices.dtype)
    return new_indptr, new_indices, merged, inv


def canonical(A):
    """A (SciPy sparse of any format, a dense 2-D array, or their CuPy
    kinds: copied to the host once) as a Canonical CSR."""
    if is_cupy(A):  # matrix creation takes host arrays only
        A = A.get()
    from_csr = scipy.sparse.issparse(A) and A.format == "csr"
    if not scipy.sparse.issparse(A):
        dense = np.asarray(A)
        if dense.ndim != 2:
            raise UsageError(f"A must be 2-D, not of shape {dense.shape}")
        A = scipy.sparse.csr_matrix(dense)
    elif not from_csr:
        A = A.tocsr()  # a new matrix; sorted and merged below if needed
    if A.ndim != 2:
        raise UsageError(f"A must be 2-D, not of shape {A.shape}")
    rows, cols = A.shape
    indptr, indices = _index_pair(np.asarray(A.indptr),
                                  np.asarray(A.indices))
    data = _values(A.data, "A.data")
    if not _well_formed(indptr, indices, rows, cols):
        return Canonical((rows, cols), indptr, indices, data, None,
                         indices.size, from_csr)
    nnz = int(indptr[-1])
    inv = None
    if not sorted_rows(np, indptr, indices, nnz):
        indptr, indices, data, inv = _merge(rows, cols, indptr, indices,
                                            data, nnz)
    return Canonical((rows, cols), indptr, indices, data, inv, nnz,
                     from_csr)


def check_finite(v, what):
    """InputError naming the first NaN/Inf of v (NumPy or CuPy: then one
    reduction on the device and a scalar back)."""
    xp = cupy() if is_cupy(v) else np
    if bool(xp.isfinite(v).all()):
        return
    bad = int(xp.flatnonzero(~xp.isfinite(v))[0])
    raise InputError(f"{what}[{bad}] = {float(v[bad])}: {what} must be "
                     f"finite (NaN or Inf in {what})")

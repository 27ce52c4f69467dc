"""CuPy in, CuPy out (issue 27), on a GPU: cupyx.scipy.sparse matrices and
CuPy vectors through the library's device-array path, with no host copy of
a vector. Skipped without CuPy or without a GPU (marker gpu)."""
import contextlib
import inspect

import numpy as np
import pytest
import scipy.sparse.linalg as spla

import cmrs
from conftest import check_close, moved_entry, poisson2d, poisson2d_condition

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def cp():
    cupy = pytest.importorskip("cupy")
    pytest.importorskip("cupyx.scipy.sparse")
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("CuPy sees no GPU")
    except cupy.cuda.runtime.CUDARuntimeError as e:
        pytest.skip(f"CuPy sees no GPU: {e}")
    try:
        cmrs.Context("gpu").close()
    except cmrs.NoDeviceError as e:
        pytest.skip(f"no GPU for libcmrs: {e}")
    return cupy


def device_csr(cp, A):
    import cupyx.scipy.sparse
    return cupyx.scipy.sparse.csr_matrix(A)


@contextlib.contextmanager
def no_vector_to_host(cp, monkeypatch):
    """Within the block, copying a CuPy array of more than one element to
    the host raises (ndarray.get and cupy.asnumpy); scalars (a flag, a
    count) may still come back. Where this CuPy's ndarray cannot be
    patched (an extension type), cupy.asnumpy alone is guarded."""
    original_get = cp.ndarray.get
    original_asnumpy = cp.asnumpy

    def get(self, *args, **kwargs):
        if self.size > 1:
            raise AssertionError(f"host copy of a {self.shape} CuPy array")
        return original_get(self, *args, **kwargs)

    def asnumpy(a, *args, **kwargs):
        if getattr(a, "size", 0) > 1:
            raise AssertionError(f"cupy.asnumpy of a {a.shape} array")
        return original_asnumpy(a, *args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(cp, "asnumpy", asnumpy)
        try:
            m.setattr(cp.ndarray, "get", get)
        except (TypeError, AttributeError):
            pass
        yield


@pytest.mark.parametrize("precision,dtype,rtol", [
    ("double", np.float64, 1e-10), ("single", np.float32, 1e-4)])
def test_cupy_in_cupy_out(cp, precision, dtype, rtol, rng):
    A = poisson2d(30)
    b = rng.standard_normal(A.shape[0])
    Ad, bd = device_csr(cp, A), cp.asarray(b, dtype=dtype)
    x, info = cmrs.solve(Ad, bd, device="gpu", precision=precision,
                         rtol=rtol)
    assert isinstance(x, cp.ndarray) and x.dtype == dtype
    assert info.converged and info.precision == precision
    ref = spla.spsolve(A.tocsc(), bd.get().astype(np.float64))
    check_close(x.get().astype(np.float64), ref, info,
                poisson2d_condition(30))


def test_cg_and_bicgstab_on_cupy_return_cupy(cp, rng):
    A = poisson2d(24)
    Ad = device_csr(cp, A)
    bd = cp.asarray(rng.standard_normal(A.shape[0]))
    for method in (cmrs.cg, cmrs.bicgstab):
        for M in (None, "jacobi", "amg"):
            x, info = method(Ad, bd, rtol=1e-8, M=M)
            assert isinstance(x, cp.ndarray) and info == 0, (method, M)
            r = float(cp.linalg.norm(bd - Ad @ x))
            assert r <= 1e-8 * float(cp.linalg.norm(bd)) * 1.05, (method, M)


def test_no_host_copy_of_a_vector(cp, monkeypatch, rng):
    A = poisson2d(32)
    n = A.shape[0]
    b = rng.standard_normal(n)
    with cmrs.Solver(device_csr(cp, A), device="gpu", rtol=1e-10) as s:
        # the matrix went to the host once, for the setup (the C API takes
        # host arrays); from here on the vectors must stay on the device
        bd = cp.asarray(b)
        out = cp.empty(n, dtype=cp.float64)
        values = cp.asarray(2.0 * A.data)
        with no_vector_to_host(cp, monkeypatch):
            x = s.solve(bd, out=out)
            info1 = s.info
            # the library wrote x into the caller's buffer: same memory
            assert x is out and x.data.ptr == out.data.ptr
            x2 = s.solve(bd, x0=x)  # x0 on the device
            z = s.apply_precond(bd)
            s.update_values(values)  # device values: CMRS_MEMORY_DEVICE
            x3 = s.solve(bd)
            info = s.info
        assert isinstance(x2, cp.ndarray) and isinstance(z, cp.ndarray)
        assert info1.converged and info.converged
        ref = spla.spsolve(A.tocsc(), b)
        check_close(out.get(), ref, info1, poisson2d_condition(32))
        check_close(x3.get(), ref / 2.0, info, poisson2d_condition(32))
        assert np.array_equal(bd.get(), b)  # b left alone
        # jacobi: z = r / diag(A)
        assert np.allclose(z.get(), b / A.diagonal(), rtol=1e-15, atol=0)


def test_amg_precondition_cupyx_cg(cp, rng):
    import cupyx.scipy.sparse.linalg as cla
    A = poisson2d(40)
    Ad = device_csr(cp, A)
    bd = cp.asarray(rng.standard_normal(A.shape[0]))
    tol = "rtol" if "rtol" in inspect.signature(cla.cg).parameters \
        else "tol"
    plain, pre = [], []
    _, i0 = cla.cg(Ad, bd, **{tol: 1e-8}, atol=0.0,
                   callback=lambda xk: plain.append(1))
    with cmrs.amg(Ad) as M:
        op = M.aspreconditioner()
        assert isinstance(op, cla.LinearOperator)
        x, i1 = cla.cg(Ad, bd, **{tol: 1e-8}, atol=0.0, M=op,
                       callback=lambda xk: pre.append(1))
    assert i0 == 0 and i1 == 0
    assert len(pre) * 5 < len(plain), (len(pre), len(plain))
    r = float(cp.linalg.norm(bd - Ad @ x))
    assert r <= 1e-8 * float(cp.linalg.norm(bd)) * 1.05


def test_device_update_checks_the_pattern(cp, rng):
    A = poisson2d(8)
    B = moved_entry(A)
    with cmrs.Solver(device_csr(cp, A), device="gpu") as s:
        with pytest.raises(cmrs.InputError, match="pattern"):
            s.update_values(device_csr(cp, B))
        s.update_values(device_csr(cp, 3.0 * A))  # same pattern
        x = s.solve(cp.ones(A.shape[0]))
        assert s.info.converged


def test_nonfinite_cupy_b_raises(cp):
    A = poisson2d(6)
    bd = cp.ones(A.shape[0])
    bd[4] = cp.nan
    with pytest.raises(cmrs.InputError, match=r"b\[4\]"):
        cmrs.cg(device_csr(cp, A), bd)


def test_cupy_vectors_on_a_cpu_solver_are_refused(cp):
    A = poisson2d(4)
    with cmrs.Solver(A, device="cpu") as s:
        with pytest.raises(cmrs.UsageError, match="GPU"):
            s.solve(cp.ones(A.shape[0]))

"""The same solves on a GPU. Without one every test here is skipped with
the library's reason, and ctest reports the run as skipped (exit 77)."""
import numpy as np
import pytest
import scipy.sparse.linalg as spla

import cmrs
from conftest import poisson2d

pytestmark = pytest.mark.gpu


def gpu_missing():
    """None when GPU 0 can be used, else why not (the library's message)."""
    try:
        cmrs.Context("gpu").close()
        return None
    except cmrs.NoDeviceError as e:
        return str(e)


@pytest.fixture(scope="module", autouse=True)
def need_gpu():
    reason = gpu_missing()
    if reason:
        pytest.skip(f"no GPU: {reason}")


@pytest.mark.parametrize("spmv", ["cmrs", "cusparse"])
@pytest.mark.parametrize("precision,tol", [("double", 1e-8), ("single", 1e-4)])
def test_poisson_matches_spsolve(spmv, precision, tol, rng):
    A = poisson2d(40)
    b = rng.standard_normal(A.shape[0])
    rtol = 1e-10 if precision == "double" else 1e-5
    x, info = cmrs.solve(A, b, device="gpu", spmv=spmv, precision=precision,
                         rtol=rtol)
    assert info.converged and info.device != "cpu"
    assert info.precision == precision
    ref = spla.spsolve(A.tocsc(), b)
    assert np.linalg.norm(x - ref) <= tol * np.linalg.norm(ref)


@pytest.mark.parametrize("precond", ["jacobi", "amg"])
def test_update_values_on_the_gpu(precond, rng):
    A = poisson2d(24)
    B = A.copy()
    B.data = 3.0 * B.data
    b = rng.standard_normal(A.shape[0])
    with cmrs.Solver(A, device="gpu", precond=precond, rtol=1e-10) as s:
        s.solve(b)
        s.update_values(B.data)
        x = s.solve(b)
    ref = spla.spsolve(B.tocsc(), b)
    assert np.linalg.norm(x - ref) <= 1e-8 * np.linalg.norm(ref)


def test_gpu_and_cpu_agree(rng):
    A = poisson2d(30)
    b = rng.standard_normal(A.shape[0])
    x_gpu, i_gpu = cmrs.solve(A, b, device="gpu", rtol=1e-10)
    x_cpu, i_cpu = cmrs.solve(A, b, device="cpu", rtol=1e-10)
    assert abs(i_gpu.iterations - i_cpu.iterations) <= 2
    assert np.linalg.norm(x_gpu - x_cpu) <= 1e-8 * np.linalg.norm(x_cpu)

"""The same solves on a GPU. Without one every test here is skipped with
the library's reason, and ctest reports the run as skipped (exit 77)."""
import pytest
import scipy.sparse.linalg as spla

import cmrs
from conftest import check_close, poisson2d, poisson2d_condition

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
@pytest.mark.parametrize("precision,rtol,reached", [("double", 1e-10, 1e-9),
                                                    ("single", 1e-4, 1e-3)])
def test_poisson_matches_spsolve(spmv, precision, rtol, reached, rng):
    A = poisson2d(40)
    b = rng.standard_normal(A.shape[0])
    x, info = cmrs.solve(A, b, device="gpu", spmv=spmv, precision=precision,
                         rtol=rtol)
    assert info.converged and info.device != "cpu"
    assert info.precision == precision
    # single: the true residual of a float32 iteration may sit above rtol
    assert info.true_relative_residual <= reached
    check_close(x, spla.spsolve(A.tocsc(), b), info, poisson2d_condition(40))


@pytest.mark.parametrize("precond", ["jacobi", "amg"])
def test_update_values_on_the_gpu(precond, rng):
    A = poisson2d(24)
    b = rng.standard_normal(A.shape[0])
    with cmrs.Solver(A, device="gpu", precond=precond, rtol=1e-10) as s:
        s.solve(b)
        s.update_values(3.0 * A.data)
        x, info = s.solve(b), s.info
    assert info.converged and info.true_relative_residual <= 1e-9
    check_close(x, spla.spsolve((3.0 * A).tocsc(), b), info,
                poisson2d_condition(24))


def test_gpu_and_cpu_agree(rng):
    A = poisson2d(30)
    b = rng.standard_normal(A.shape[0])
    x_gpu, i_gpu = cmrs.solve(A, b, device="gpu", rtol=1e-10)
    x_cpu, i_cpu = cmrs.solve(A, b, device="cpu", rtol=1e-10)
    assert i_gpu.converged and i_cpu.converged
    # the same algorithm; only the order of floating-point sums differs
    assert abs(i_gpu.iterations - i_cpu.iterations) <= 2
    ref = spla.spsolve(A.tocsc(), b)
    check_close(x_gpu, ref, i_gpu, poisson2d_condition(30))
    check_close(x_cpu, ref, i_cpu, poisson2d_condition(30))

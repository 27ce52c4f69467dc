"""cmrs.solve on the CPU back end against SciPy's direct solver."""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import cmrs
from conftest import check_close, poisson2d, poisson2d_condition


def test_version_is_the_headers():
    assert cmrs.version() == "0.2.0"


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_poisson_matches_spsolve(index_dtype, dtype, rng):
    A = poisson2d(20, dtype, index_dtype)
    assert A.indices.dtype == index_dtype and A.data.dtype == dtype
    b = rng.standard_normal(A.shape[0])
    ref = spla.spsolve(A.astype(np.float64).tocsc(), b)
    x, info = cmrs.solve(A, b, device="cpu", rtol=1e-10)
    assert info.converged and info.reason.startswith("CONVERGED")
    assert info.iterations > 1
    assert info.true_relative_residual <= 1e-9
    # float32 data holds this matrix exactly (small integers)
    check_close(x, ref, info, poisson2d_condition(20))


def test_info_describes_the_solve(rng):
    A = poisson2d(12)
    b = rng.standard_normal(A.shape[0])
    x, info = cmrs.solve(A, b, device="cpu", solver="bicgstab",
                         precond="jacobi", rtol=1e-9)
    assert isinstance(info, cmrs.SolveInfo)
    assert (info.method, info.precond, info.device) == \
        ("bicgstab", "jacobi", "cpu")
    assert info.precision == "double"
    assert info.iterations > 0 and info.t_solve >= 0 and info.t_setup >= 0
    r = np.linalg.norm(b - A @ x)
    assert info.true_residual == pytest.approx(r, rel=1e-6, abs=1e-14)
    assert info.true_relative_residual == pytest.approx(
        r / np.linalg.norm(b), rel=1e-6, abs=1e-14)


def test_not_converging_is_not_an_exception(rng):
    A = poisson2d(20)
    x, info = cmrs.solve(A, rng.standard_normal(A.shape[0]), device="cpu",
                         maxiter=3, rtol=1e-12)
    assert not info.converged
    assert info.reason == "DIVERGED_MAXITS" and info.iterations == 3
    assert x.shape == (A.shape[0],)


def test_x0_is_the_start_and_is_left_alone(rng):
    A = poisson2d(16)
    b = rng.standard_normal(A.shape[0])
    exact = spla.spsolve(A.tocsc(), b)
    x0 = exact.copy()
    x, info = cmrs.solve(A, b, x0=x0, device="cpu", rtol=1e-8)
    assert info.iterations == 0  # already converged at the start
    assert np.array_equal(x0, exact)
    assert np.array_equal(x, x0)


def test_other_formats_are_converted(rng):
    A = poisson2d(10)
    b = rng.standard_normal(A.shape[0])
    ref, _ = cmrs.solve(A, b, device="cpu", rtol=1e-10)
    for other in (A.tocoo(), A.tocsc(), sp.csr_array(A), A.toarray()):
        x, _ = cmrs.solve(other, b, device="cpu", rtol=1e-10)
        assert np.array_equal(x, ref), type(other)


def test_float32_b_gives_float32_x(rng):
    A = poisson2d(10)
    b = rng.standard_normal(A.shape[0]).astype(np.float32)
    x, info = cmrs.solve(A, b, device="cpu", rtol=1e-6)
    assert x.dtype == np.float32 and info.converged
    ref = spla.spsolve(A.tocsc(), b.astype(np.float64))
    # x in float32 carries its rounding: about kappa * 6e-8 more
    check_close(x, ref, info, poisson2d_condition(10))


def test_auto_device_solves(rng):
    A = poisson2d(8)
    b = rng.standard_normal(A.shape[0])
    x, info = cmrs.solve(A, b, rtol=1e-10)
    assert info.converged and info.device
    check_close(x, spla.spsolve(A.tocsc(), b), info, poisson2d_condition(8))


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_arrays_of_a_taken_type_are_not_copied(index_dtype, dtype):
    from cmrs import solver  # the conversion helpers behind solve()
    A = poisson2d(4, dtype, index_dtype)
    indptr, indices, _ = solver._indices(A.indptr, A.indices)
    data, _ = solver._values(A.data, "A.data")
    assert indptr is A.indptr and indices is A.indices and data is A.data
    mixed, _, _ = solver._indices(A.indptr.astype(np.int32),
                                  A.indices.astype(np.int64))
    assert mixed.dtype == np.int64  # one index type for both: converted


def test_amg_over_parts_takes_one_back_ends_iterations(rng):
    """amg over simulated parts: the hierarchy over all rows (amg_parts
    "global", the default) iterates as one back end does; one per part
    ("block") takes more."""
    A = poisson2d(70)
    b = rng.standard_normal(A.shape[0])
    kw = dict(device="cpu", precond="amg", rtol=1e-10)
    x1, one = cmrs.solve(A, b, **kw)
    xg, glob = cmrs.solve(A, b, parts=3, **kw)
    xb, block = cmrs.solve(A, b, parts=3, amg_parts="block", **kw)
    assert abs(glob.iterations - one.iterations) <= 1
    assert block.iterations > one.iterations + 1
    kappa = poisson2d_condition(70)
    check_close(xg, x1, glob, kappa)
    check_close(xb, x1, block, kappa)


def test_amg_level1_over_parts(rng):
    """amg_parts_levels=2: level 1 on the simulated parts too (a third
    level with amg_coarse=20), one back end's iterations (+-1)."""
    A = poisson2d(70)
    b = rng.standard_normal(A.shape[0])
    kw = dict(device="cpu", precond="amg", rtol=1e-10, amg_coarse=20)
    x1, one = cmrs.solve(A, b, **kw)
    x2, two = cmrs.solve(A, b, parts=3, amg_parts_levels=2, **kw)
    assert abs(two.iterations - one.iterations) <= 1
    check_close(x2, x1, two, poisson2d_condition(70))
    with pytest.raises(ValueError):
        cmrs.solve(A, b, parts=3, amg_parts_levels=3, **kw)

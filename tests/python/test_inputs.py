"""Issue 27, items 8-14: option values of any number type, any SciPy input
canonicalised in a copy, NaN/Inf refused, float32 residuals of what is
returned, the history returned, the engine's fall-back without a GPU, and
update_values' pattern check. Each test failed before its fix."""
import fractions
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import cmrs
from conftest import check_close, moved_entry, poisson2d, poisson2d_condition


class Numpy2Float(float):
    """What np.float64 is under NumPy 2: a float whose repr is
    'np.float64(1e-06)' (the installed NumPy may be 1.x)."""

    def __repr__(self):
        return f"np.float64({float(self)!r})"


# ---- 8: numbers of any type as option values ------------------------------

@pytest.mark.parametrize("rtol", [Numpy2Float(1e-6), np.float64(1e-6),
                                  np.float32(1e-6), fractions.Fraction(1, 10**6),
                                  *np.logspace(-8, -4, 3)])
def test_tolerance_of_any_real_type(rtol, rng):
    A = poisson2d(12)
    b = rng.standard_normal(A.shape[0])
    x, info = cmrs.solve(A, b, device="cpu", rtol=rtol)
    assert info.converged and info.relative_residual <= float(rtol)
    x_ref, info_ref = cmrs.solve(A, b, device="cpu", rtol=float(rtol))
    assert info.iterations == info_ref.iterations


def test_integer_and_bool_options_of_numpy_types(rng):
    A = poisson2d(8)
    b = rng.standard_normal(A.shape[0])
    x, info = cmrs.solve(A, b, device="cpu", maxiter=np.int64(3),
                         history=np.bool_(True), atol=np.float64(0),
                         cheb_degree=np.int32(4), precond="Chebyshev")
    assert info.iterations == 3 and info.history.shape == (4,)
    assert info.precond == "chebyshev"


def test_option_text_conversions():
    from cmrs import _options
    assert _options.text("rtol", Numpy2Float(1e-6)) == "1e-06"
    assert _options.text("rtol", np.float32(0.5)) == "0.5"
    assert _options.text("maxiter", np.int64(7)) == "7"
    assert _options.text("history", np.bool_(False)) == "off"
    assert _options.text("precond", " AMG ") == "amg"
    with pytest.raises(cmrs.UsageError, match="rtol"):
        _options.text("rtol", [1e-6])


# ---- 9: any SciPy input, canonicalised in a copy --------------------------

def scrambled(n, rng):
    """poisson2d(n) symmetrically permuted: A[perm][:, perm] has unsorted
    column indices (SciPy keeps the row order of the gather)."""
    A = poisson2d(n)
    perm = rng.permutation(A.shape[0])
    P = A[perm][:, perm]
    return P


def test_unsorted_csr_is_solved_and_left_alone(rng):
    P = scrambled(10, rng)
    from cmrs import _arrays
    assert not _arrays.sorted_rows(np, P.indptr, P.indices, P.nnz)
    before = (P.indptr.copy(), P.indices.copy(), P.data.copy())
    b = rng.standard_normal(P.shape[0])
    x, info = cmrs.solve(P, b, device="cpu", rtol=1e-10)
    assert info.converged
    check_close(x, spla.spsolve(P.tocsc(), b), info, poisson2d_condition(10))
    assert all(np.array_equal(a, c) for a, c in
               zip(before, (P.indptr, P.indices, P.data)))


def test_duplicates_are_added_as_scipy_does(rng):
    A = poisson2d(6)
    coo = A.tocoo()
    # every entry split in two halves, stored as a CSR with duplicates
    rows = np.concatenate([coo.row, coo.row])
    cols = np.concatenate([coo.col, coo.col])
    vals = np.concatenate([coo.data / 2, coo.data / 2])
    # rows grouped, each entry twice (halves): duplicates, unsorted
    srt = np.argsort(rows, kind="stable")
    D = sp.csr_matrix((vals[srt], cols[srt],
                       np.r_[0, np.cumsum(np.bincount(rows, minlength=36))]),
                      shape=A.shape)
    assert D.nnz == 2 * A.nnz
    b = rng.standard_normal(36)
    data_before = D.data.copy()
    x, info = cmrs.solve(D, b, device="cpu", rtol=1e-12)
    x_ref, _ = cmrs.solve(A, b, device="cpu", rtol=1e-12)
    assert np.allclose(x, x_ref, rtol=1e-9, atol=1e-12)
    assert np.array_equal(D.data, data_before) and D.nnz == 2 * A.nnz
    from cmrs import _arrays
    c = _arrays.canonical(D)
    ref = D.copy()
    ref.sum_duplicates()
    assert np.array_equal(c.indptr, ref.indptr)
    assert np.array_equal(c.indices, ref.indices)
    assert np.allclose(c.data, ref.data, rtol=1e-15)


@pytest.mark.parametrize("fmt", ["bsr", "coo", "csc", "lil", "dok", "dia",
                                 "dense", "csr_array"])
def test_every_format_and_dense_input(fmt, rng):
    A = poisson2d(8)
    b = rng.standard_normal(A.shape[0])
    ref, _ = cmrs.solve(A, b, device="cpu", rtol=1e-10)
    other = {"dense": lambda: A.toarray(),
             "csr_array": lambda: sp.csr_array(A[::-1][:, ::-1])[::-1][:, ::-1],
             }.get(fmt, lambda: A.asformat(fmt))()
    x, info = cmrs.solve(other, b, device="cpu", rtol=1e-10)
    assert info.converged
    assert np.allclose(x, ref, rtol=1e-9, atol=1e-12), fmt


# ---- 10: NaN or Inf in b, x0 or A is an InputError ------------------------

@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nonfinite_b_and_x0_raise(bad):
    A = poisson2d(4)
    b = np.ones(16)
    b[3] = bad
    with pytest.raises(cmrs.InputError, match=r"b\[3\]"):
        cmrs.solve(A, b, device="cpu")
    x0 = np.zeros(16)
    x0[5] = bad
    with pytest.raises(cmrs.InputError, match=r"x0\[5\]"):
        cmrs.solve(A, np.ones(16), x0=x0, device="cpu")
    with pytest.raises(cmrs.InputError, match=r"b\[3\]"):
        cmrs.cg(A, b)
    with pytest.raises(cmrs.InputError, match=r"b\[3\]"):
        cmrs.solve(A, b.astype(np.float32), device="cpu")


def test_nonfinite_matrix_value_raises_naming_it():
    A = poisson2d(4)
    A.data[A.indptr[2]] = np.inf
    with pytest.raises(cmrs.InputError, match="row 2"):
        cmrs.solve(A, np.ones(16), device="cpu")


# ---- 11: float32: the residual of the x returned --------------------------

def test_float32_info_is_the_residual_of_the_float32_x(rng):
    A = poisson2d(30)
    b = rng.standard_normal(A.shape[0]).astype(np.float32)
    x, info = cmrs.solve(A, b, device="cpu", rtol=1e-10)
    assert x.dtype == np.float32 and info.converged
    b64, x64 = b.astype(np.float64), x.astype(np.float64)
    r = np.linalg.norm(b64 - A @ x64)
    assert info.true_residual == pytest.approx(r, rel=1e-9)
    assert info.true_relative_residual == pytest.approx(
        r / np.linalg.norm(b64), rel=1e-9)
    # the float32 rounding of x is what limits it, far above rtol
    assert info.true_relative_residual > 1e-8 > info.relative_residual


# ---- 12: history=True is returned ----------------------------------------

def test_history_comes_back_with_solve_and_cg(rng):
    A = poisson2d(10)
    b = rng.standard_normal(A.shape[0])
    x, info = cmrs.solve(A, b, device="cpu", history=True, rtol=1e-8)
    assert isinstance(info.history, np.ndarray)
    assert info.history.shape == (info.iterations + 1,)
    assert info.history[0] == pytest.approx(1.0)
    assert info.history[-1] == pytest.approx(info.relative_residual)
    x, info = cmrs.solve(A, b, device="cpu")
    assert info.history is None


# ---- 13: engine fused/graph with device="auto" and no GPU -----------------

def no_gpu():
    try:
        cmrs.Context("gpu").close()
        return False
    except cmrs.NoDeviceError:
        return True


@pytest.mark.parametrize("engine", ["fused", "graph", "FUSED"])
def test_gpu_engine_falls_back_with_a_warning_without_gpu(engine, rng):
    A = poisson2d(8)
    b = rng.standard_normal(A.shape[0])
    if not no_gpu():  # on a GPU machine the engine simply runs
        x, info = cmrs.solve(A, b, engine=engine)
        assert info.engine == engine.lower()
        return
    with pytest.warns(RuntimeWarning, match="needs a GPU"):
        x, info = cmrs.solve(A, b, engine=engine, rtol=1e-10)
    assert info.converged and info.device == "cpu"
    assert info.engine == "reference"


def test_gpu_engine_on_an_explicit_cpu_is_still_an_error():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: an error
        with pytest.raises(cmrs.UsageError, match="GPU only"):
            cmrs.solve(poisson2d(4), np.ones(16), device="cpu",
                       engine="fused")


def test_explicit_gpu_without_one_is_an_error():
    if not no_gpu():
        return  # a GPU is present: nothing to refuse (no skip: --fail-on-skip)
    with pytest.raises(cmrs.NoDeviceError):
        cmrs.solve(poisson2d(4), np.ones(16), device="gpu", engine="fused")


# ---- 14: update_values checks the pattern ---------------------------------

def test_update_values_refuses_another_pattern_with_the_same_nnz(rng):
    A = poisson2d(6)
    B = moved_entry(A)
    with cmrs.Solver(A, device="cpu") as s:
        with pytest.raises(cmrs.InputError, match="pattern"):
            s.update_values(B)
        with pytest.raises(cmrs.InputError, match="6x7|36x36"):
            s.update_values(sp.random(36, 37, density=0.1, format="csr"))
        s.update_values(2 * A)  # the same pattern: fine
        s.update_values((2 * A).tocoo())  # any format, same pattern
        x = s.solve(np.ones(36))
        assert s.info.converged


def test_update_values_in_the_order_of_an_unsorted_csr(rng):
    P = scrambled(8, rng)
    b = rng.standard_normal(P.shape[0])
    with cmrs.Solver(P, device="cpu", rtol=1e-10) as s:
        s.update_values(3.0 * P.data)  # the caller's entry order
        x = s.solve(b)
        check_close(x, spla.spsolve((3.0 * P).tocsc(), b), s.info,
                    poisson2d_condition(8))
        s.update_values(3.0 * P)  # the unsorted matrix itself
        assert np.array_equal(s.solve(b), x)

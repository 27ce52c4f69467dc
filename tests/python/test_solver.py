"""cmrs.Solver: setup once, solve many, update values, history, lifetime."""
import concurrent.futures
import gc
import weakref

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import cmrs
from conftest import check_close, poisson2d, poisson2d_condition


def test_reuse_with_several_right_hand_sides(rng):
    A = poisson2d(16)
    with cmrs.Solver(A, device="cpu", rtol=1e-10) as s:
        for _ in range(3):
            b = rng.standard_normal(A.shape[0])
            x = s.solve(b)
            assert s.info.converged
            check_close(x, spla.spsolve(A.tocsc(), b), s.info,
                        poisson2d_condition(16))


def test_same_b_twice_gives_the_same_answer(rng):
    A = poisson2d(12)
    b = rng.standard_normal(A.shape[0])
    with cmrs.Solver(A, device="cpu") as s:
        x1, it1 = s.solve(b), s.info.iterations
        x2, it2 = s.solve(b), s.info.iterations
    assert it1 == it2 and np.array_equal(x1, x2)


@pytest.mark.parametrize("precond", ["jacobi", "none", "chebyshev", "amg"])
def test_update_values_equals_a_fresh_solver(precond, rng):
    A = poisson2d(16)
    B = (A + sp.diags(1.0 + rng.random(A.shape[0]))).tocsr()  # SPD still
    B.sort_indices()
    assert np.array_equal(B.indptr, A.indptr)  # same pattern: A has a diagonal
    assert np.array_equal(B.indices, A.indices)
    b = rng.standard_normal(A.shape[0])
    with cmrs.Solver(A, device="cpu", precond=precond, rtol=1e-10) as s:
        s.solve(b)
        s.update_values(B.data)
        x_updated, info_updated = s.solve(b), s.info
    x_fresh, info_fresh = cmrs.solve(B, b, device="cpu", precond=precond,
                                     rtol=1e-10)
    assert info_updated.converged and info_fresh.converged
    if precond != "amg":  # AMG keeps its aggregates: close, not equal
        assert info_updated.iterations == info_fresh.iterations
        assert np.array_equal(x_updated, x_fresh)
    # kappa(B) <= kappa(A): the added diagonal is positive and <= 2
    check_close(x_updated, spla.spsolve(B.tocsc(), b), info_updated,
                poisson2d_condition(16))


def test_update_values_from_a_matrix_and_float32(rng):
    A = poisson2d(10)
    B = A.copy()
    B.data = 2.0 * B.data
    b = rng.standard_normal(A.shape[0])
    ref = spla.spsolve(B.tocsc(), b)
    with cmrs.Solver(A, device="cpu", rtol=1e-10) as s:
        s.update_values(B)
        check_close(s.solve(b), ref, s.info, poisson2d_condition(10))
        s.update_values(B.data.astype(np.float32))  # exact: small integers
        check_close(s.solve(b), ref, s.info, poisson2d_condition(10))


def test_update_values_with_a_nan_changes_nothing(rng):
    A = poisson2d(8)
    b = rng.standard_normal(A.shape[0])
    with cmrs.Solver(A, device="cpu", rtol=1e-10) as s:
        before = s.solve(b)
        bad = 2.0 * A.data
        bad[5] = np.nan
        with pytest.raises(cmrs.InputError) as excinfo:
            s.update_values(bad)
        assert excinfo.value.call == "cmrs_solver_update_values"
        assert "value 5" in str(excinfo.value)
        assert str(excinfo.value).count("cmrs_solver_update_values") == 1
        assert np.array_equal(s.solve(b), before)


def test_update_values_of_the_wrong_length_raises(rng):
    A = poisson2d(6)
    with cmrs.Solver(A, device="cpu") as s:
        with pytest.raises(cmrs.UsageError, match="nonzeros"):
            s.update_values(np.ones(A.nnz - 1))


def test_history_when_asked(rng):
    A = poisson2d(12)
    b = rng.standard_normal(A.shape[0])
    with cmrs.Solver(A, device="cpu", history=True, rtol=1e-8) as s:
        s.solve(b)
        h, info = s.history, s.info
    assert h.shape == (info.iterations + 1,)
    assert h[0] == pytest.approx(1.0)  # x0 = 0: r0 = b
    assert h[-1] == pytest.approx(info.relative_residual, rel=1e-12)
    assert h[-1] <= 1e-8 < h[-2]
    with cmrs.Solver(A, device="cpu") as s:
        s.solve(b)
        assert s.history is None


def test_close_is_idempotent_and_final(rng):
    A = poisson2d(6)
    s = cmrs.Solver(A, device="cpu")
    s.close()
    s.close()
    with pytest.raises(cmrs.UsageError, match="closed"):
        s.solve(np.ones(A.shape[0]))


def test_solvers_sharing_a_context(rng):
    A = poisson2d(8)
    b = rng.standard_normal(A.shape[0])
    with cmrs.Context("cpu") as ctx:
        assert ctx.device == "cpu" and ctx.device_name == "cpu"
        s1 = cmrs.Solver(A, device=ctx, rtol=1e-10)
        s2 = cmrs.Solver(2 * A, device=ctx, rtol=1e-10)
        assert np.allclose(s1.solve(b), 2 * s2.solve(b), rtol=1e-8)
    with pytest.raises(cmrs.UsageError, match="closed"):
        s1.solve(b)  # closing the context closed its solvers first


def test_garbage_collection_frees_solver_then_context(rng):
    A = poisson2d(6)
    s = cmrs.Solver(A, device="cpu")
    ctx = weakref.ref(s.context)
    solver_done, context_done = s._finalizer, s.context._finalizer
    del s
    gc.collect()
    assert not solver_done.alive and not context_done.alive
    assert ctx() is None


def test_a_dropped_context_lives_while_its_solver_does(rng):
    A = poisson2d(6)
    ctx = cmrs.Context("cpu")
    s = cmrs.Solver(A, device=ctx)
    context_done = ctx._finalizer
    del ctx
    gc.collect()
    assert context_done.alive  # the solver keeps it
    s.solve(np.ones(A.shape[0]))
    assert s.info.converged
    del s
    gc.collect()
    assert not context_done.alive


def test_one_context_per_thread_solves_concurrently(rng):
    # ctypes releases the GIL in each call: the library really runs in
    # parallel here, under its rule of one context per thread
    A = poisson2d(24)
    rhs = [rng.standard_normal(A.shape[0]) for _ in range(4)]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(
            lambda b: cmrs.solve(A, b, device="cpu", rtol=1e-10), rhs))
    for b, (x, info) in zip(rhs, results):
        assert info.converged
        check_close(x, spla.spsolve(A.tocsc(), b), info,
                    poisson2d_condition(24))

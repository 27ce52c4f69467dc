"""cmrs.cg / cmrs.bicgstab as drop-in replacements of scipy.sparse.linalg's,
cmrs.amg(A).aspreconditioner() inside SciPy's cg, options' help and
names (issue 27)."""
import inspect

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import cmrs
from conftest import poisson2d

# the keyword of the relative tolerance in the installed SciPy (rtol from
# 1.12 on, tol before): the script below uses SciPy's own spelling
TOL = "rtol" if "rtol" in inspect.signature(spla.cg).parameters else "tol"


def convection_diffusion(n, peclet=0.3):
    """A nonsymmetric, diagonally dominant n^2 system (upwind), CSR."""
    A = poisson2d(n).astype(np.float64).tolil()
    for i in range(n * n - 1):
        A[i, i + 1] -= peclet
        A[i, i] += peclet
    return A.tocsr()


def script(cg, bicgstab):
    """A SciPy user's script, run with SciPy's functions or cmrs's."""
    rng = np.random.default_rng(3)
    A = poisson2d(20).astype(np.float64)
    b = rng.standard_normal(A.shape[0])
    out = {}
    calls = []
    out["cg"] = cg(A, b, **{TOL: 1e-8}, atol=0.0,
                   callback=lambda xk: calls.append(1))
    out["cg calls"] = len(calls)
    out["cg x0"] = cg(A, b, x0=np.ones_like(b), **{TOL: 1e-8}, atol=0.0)
    out["cg maxiter"] = cg(A, b, **{TOL: 1e-12}, atol=0.0, maxiter=7)
    out["cg atol"] = cg(A, b, **{TOL: 0.0}, atol=1e-3)
    N = convection_diffusion(12)
    c = rng.standard_normal(N.shape[0])
    out["bicgstab"] = bicgstab(N, c, **{TOL: 1e-9}, atol=0.0)
    out["bicgstab maxiter"] = bicgstab(N, c, **{TOL: 1e-14}, atol=0.0,
                                       maxiter=3)
    return out, A, b, N, c


def test_a_scipy_script_runs_unchanged_with_cmrs():
    ref, A, b, N, c = script(spla.cg, spla.bicgstab)
    got, *_ = script(cmrs.cg, cmrs.bicgstab)
    for key in ("cg", "cg x0", "cg maxiter", "cg atol", "bicgstab",
                "bicgstab maxiter"):
        (x_ref, info_ref), (x, info) = ref[key], got[key]
        assert info == info_ref, (key, info, info_ref)
        assert x.dtype == x_ref.dtype and x.shape == x_ref.shape
        if info == 0:  # both converged: both solve the system that well
            M = N if key.startswith("bicgstab") else A
            rhs = c if key.startswith("bicgstab") else b
            for y in (x, x_ref):
                assert np.linalg.norm(rhs - M @ y) <= max(
                    1e-8 * np.linalg.norm(rhs), 1e-3) * 1.01, key
    assert ref["cg maxiter"][1] == got["cg maxiter"][1] == 7
    # the same iterations: the callback is called once per iteration
    assert got["cg calls"] == ref["cg calls"]
    x_ref, x = ref["cg"][0], got["cg"][0]
    assert np.linalg.norm(x - x_ref) <= 1e-6 * np.linalg.norm(x_ref)


def test_the_stopping_test_is_scipys():
    # ||r|| <= max(rtol ||b||, atol): with atol above rtol ||b|| the solve
    # stops at atol, and the iterations match SciPy's
    A = poisson2d(16)
    b = np.ones(A.shape[0])
    for rtol, atol in [(1e-8, 0.0), (1e-8, 1e-2), (1e-2, 1e-8)]:
        calls_ref, calls = [], []
        _, i_ref = spla.cg(A, b, **{TOL: rtol}, atol=atol,
                           callback=lambda xk: calls_ref.append(1))
        x, i = cmrs.cg(A, b, rtol=rtol, atol=atol,
                       callback=lambda r: calls.append(r))
        assert i == i_ref == 0
        assert len(calls) == len(calls_ref), (rtol, atol)
        r = np.linalg.norm(b - A @ x)
        assert r <= max(rtol * np.linalg.norm(b), atol) * 1.01


def test_callback_gets_the_relative_residual_per_iteration():
    A = poisson2d(10)
    b = np.ones(A.shape[0])
    seen = []
    x, info = cmrs.cg(A, b, rtol=1e-8, callback=seen.append)
    assert info == 0 and all(isinstance(r, float) for r in seen)
    # The same device as cmrs.cg's ("auto"): the GPU's sums round
    # differently from the CPU's in the last bits.
    full_x, full = cmrs.solve(A, b, precond="none", rtol=1e-8,
                              maxiter=1000, history=True)
    assert len(seen) == len(full.history) - 1
    assert np.allclose(seen, full.history[1:], rtol=1e-9, atol=0)
    assert seen[-1] <= 1e-8 < seen[-2]


@pytest.mark.parametrize("M", ["jacobi", "Jacobi", "AMG", "amg", "none",
                               "chebyshev", None])
def test_M_by_name(M):
    A = poisson2d(12)
    b = np.ones(A.shape[0])
    x, info = cmrs.cg(A, b, rtol=1e-10, M=M)
    assert info == 0
    assert np.linalg.norm(b - A @ x) <= 1e-10 * np.linalg.norm(b) * 1.01


def test_M_as_a_linear_operator_is_refused_saying_what_M_takes():
    A = poisson2d(6)
    M = spla.LinearOperator(A.shape, matvec=lambda v: v)
    with pytest.raises(cmrs.UsageError, match="M must be None.*'jacobi'.*"
                       "'amg'.*cmrs.amg"):
        cmrs.cg(A, np.ones(36), M=M)
    with pytest.raises(cmrs.UsageError, match="M must be"):
        cmrs.cg(A, np.ones(36), M="ilu")


def test_info_codes_breakdown_and_maxiter():
    A = poisson2d(8)
    b = np.ones(A.shape[0])
    assert cmrs.cg(A, b, rtol=1e-14, maxiter=4)[1] == 4
    # CG on a negative definite matrix breaks down at once (p'Ap < 0)
    x, info = cmrs.cg(-A, b, rtol=1e-10)
    assert info == cmrs.linalg.INFO_BREAKDOWN < 0


def test_amg_preconditions_scipys_cg():
    A = poisson2d(40)
    b = np.random.default_rng(5).standard_normal(A.shape[0])
    plain, pre = [], []
    x0, i0 = spla.cg(A, b, **{TOL: 1e-8}, atol=0.0,
                     callback=lambda xk: plain.append(1))
    with cmrs.amg(A, device="cpu") as M:
        op = M.aspreconditioner()
        assert isinstance(op, spla.LinearOperator) and op.shape == A.shape
        x1, i1 = spla.cg(A, b, **{TOL: 1e-8}, atol=0.0, M=op,
                         callback=lambda xk: pre.append(1))
        assert i0 == i1 == 0
        assert len(pre) * 5 < len(plain), (len(pre), len(plain))
        assert np.linalg.norm(b - A @ x1) <= 1e-8 * np.linalg.norm(b) * 1.01
        # the same preconditioner inside cmrs.cg: the library's AMG-PCG
        lib = []
        x2, i2 = cmrs.cg(A, b, rtol=1e-8, M=M, callback=lib.append)
        assert i2 == 0 and abs(len(lib) - len(pre)) <= 1


def test_the_v_cycle_is_a_symmetric_positive_operator(rng):
    A = poisson2d(24)
    n = A.shape[0]
    with cmrs.amg(A, device="cpu", amg_coarse=50) as M:
        R = rng.standard_normal((n, 6))
        Z = np.column_stack([M(R[:, j]) for j in range(6)])
        G = R.T @ Z  # r_i' M r_j
        assert np.allclose(G, G.T, rtol=1e-10, atol=1e-12 * np.abs(G).max())
        assert np.all(np.linalg.eigvalsh((G + G.T) / 2) > 0)
        # linear, and the LinearOperator is the same map (also on (n, 1))
        op = M.aspreconditioner()
        assert np.allclose(op.matvec(R[:, 0] + 2 * R[:, 1]),
                           Z[:, 0] + 2 * Z[:, 1], rtol=1e-10, atol=1e-14)
        assert op.matvec(R[:, :1]).shape == (n, 1)


def test_jacobi_object_is_d_inverse(rng):
    A = poisson2d(6)
    r = rng.standard_normal(36)
    with cmrs.jacobi(A, device="cpu") as M:
        assert np.array_equal(M(r), r / A.diagonal())
        assert M(r.astype(np.float32)).dtype == np.float32


def test_M_object_for_another_matrix_is_refused():
    A = poisson2d(6)
    with cmrs.amg(A, device="cpu") as M:
        with pytest.raises(cmrs.UsageError, match="another matrix"):
            cmrs.cg(2 * A, np.ones(36), M=M)
        x, info = cmrs.cg(A.copy(), np.ones(36), M=M)  # equal: fine
        assert info == 0


def test_help_lists_every_option_with_its_default():
    from cmrs import _options
    for doc in (cmrs.Solver.__doc__, cmrs.solve.__doc__):
        for name, (default, _) in _options.OPTIONS.items():
            assert name in doc and str(default) in doc, name
    for doc in (cmrs.cg.__doc__, cmrs.bicgstab.__doc__):
        for word in ("rtol=1e-5", "atol=0.0", "maxiter", "callback",
                     "DIFFERENT FROM SCIPY", '"amg"'):
            assert word in doc, word


def test_every_documented_option_is_one_the_library_knows():
    from cmrs import _options
    with cmrs.Context("cpu") as ctx:
        for name in _options.OPTIONS:
            with pytest.raises(cmrs.CmrsError) as excinfo:
                cmrs.Solver(poisson2d(3), device=ctx, **{name: "?bad?"})
            assert "unknown option" not in str(excinfo.value), name


def test_enum_values_and_names_are_case_insensitive(rng):
    A = poisson2d(8)
    b = rng.standard_normal(A.shape[0])
    x, info = cmrs.solve(A, b, device="cpu", Solver="BiCGStab",
                         PRECOND="Jacobi", History="ON")
    assert (info.method, info.precond) == ("bicgstab", "jacobi")
    assert info.history is not None

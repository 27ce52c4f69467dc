"""pytest set-up for the cmrs Python package.

The package is imported from the source tree (python/) unless PYTHONPATH
already provides one; the library from CMRS_LIBRARY (ctest sets both).

Two options keep skips honest under ctest, which only sees the exit code:
  --fail-on-skip        a skipped test fails the run (host run: nothing may
                        be skipped there)
  --all-skipped-exit N  exit N when tests ran and all were skipped (GPU run:
                        77, which ctest reports as skipped, not passed)
"""
import os
import sys

import numpy as np
import pytest
import scipy.sparse as sp

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "python"))


def pytest_addoption(parser):
    parser.addoption("--fail-on-skip", action="store_true")
    parser.addoption("--all-skipped-exit", type=int, default=None)


class SkipPolicy:
    """Counts outcomes and applies the two options at the end."""

    def __init__(self, config):
        self.config = config
        self.passed = self.skipped = 0

    def pytest_runtest_logreport(self, report):
        self.skipped += report.skipped
        self.passed += report.passed and report.when == "call"

    def pytest_sessionfinish(self, session, exitstatus):
        if exitstatus != 0 or not self.skipped:
            return
        if self.config.getoption("--fail-on-skip"):
            print(f"\nconftest: {self.skipped} test(s) skipped where none may "
                  "be (--fail-on-skip)", file=sys.stderr)
            session.exitstatus = 1
        code = self.config.getoption("--all-skipped-exit")
        if code is not None and not self.passed:
            session.exitstatus = code


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a GPU (skipped without)")
    config.pluginmanager.register(SkipPolicy(config), "cmrs-skip-policy")


def poisson2d(n, dtype=np.float64, index_dtype=np.int32):
    """The 5-point Laplacian on an n x n grid (SPD, n^2 rows), CSR."""
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    I = sp.identity(n)
    A = (sp.kron(T, I) + sp.kron(I, T)).tocsr().astype(dtype)
    A.sort_indices()
    A.indptr = A.indptr.astype(index_dtype)
    A.indices = A.indices.astype(index_dtype)
    return A


def moved_entry(A):
    """A with the (0, 1) entry moved to (0, 5): the same shape and nnz, another
    pattern (what update_values must refuse)."""
    B = A.tolil()
    B[0, 1] = 0
    B = B.tocsr()
    B.eliminate_zeros()
    B = B.tolil()
    B[0, 5] = -1.0
    B = B.tocsr()
    assert B.nnz == A.nnz and B.shape == A.shape
    return B


def poisson2d_condition(n):
    """The 2-norm condition number of poisson2d(n) (eigenvalues
    4 sin^2(j pi / 2(n+1)) + 4 sin^2(k pi / 2(n+1)))."""
    t = np.pi / (2 * (n + 1))
    return (np.sin(n * t) / np.sin(t)) ** 2


def check_close(x, ref, info, kappa):
    """x is as close to ref as its residual allows: relative error <= kappa
    times the true relative residual (plus ref's own rounding). A bound,
    not a tuned tolerance: it holds for any solver, precision, device."""
    err = np.linalg.norm(x - ref) / np.linalg.norm(ref)
    assert err <= kappa * info.true_relative_residual * (1 + 1e-6) + 1e-12, \
        (err, kappa, info)


@pytest.fixture
def rng():
    return np.random.default_rng(13)

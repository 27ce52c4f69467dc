"""Bad input raises CmrsError carrying the library's message, never
crashes; checks the library cannot make (lengths) are made here."""
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import cmrs
from conftest import poisson2d


def check_library_error(excinfo, cls, call, *words):
    e = excinfo.value
    assert isinstance(e, cmrs.CmrsError) and isinstance(e, cls)
    assert e.call == call and e.status == cls.status
    assert e.message and e.message in str(e)
    for word in words:
        assert word in e.message, (word, e.message)


def test_non_square_matrix():
    A = sp.random(5, 4, density=0.5, format="csr", random_state=1)
    with pytest.raises(cmrs.InputError) as excinfo:
        cmrs.solve(A, np.ones(5), device="cpu")
    check_library_error(excinfo, cmrs.InputError, "cmrs_solver_setup",
                        "5 x 4", "square")


def test_wrong_b_length():
    # the C API takes a pointer: the length is checked here, not there
    A = poisson2d(4)
    with pytest.raises(cmrs.UsageError, match="16 rows"):
        cmrs.solve(A, np.ones(15), device="cpu")


def test_nan_in_data_names_the_row():
    A = poisson2d(4)
    A.data[A.indptr[7] + 1] = np.nan
    with pytest.raises(cmrs.InputError) as excinfo:
        cmrs.solve(A, np.ones(16), device="cpu")
    check_library_error(excinfo, cmrs.InputError, "cmrs_matrix_create_csr",
                        "row 7")


def test_out_of_range_indices_name_the_row():
    # a CSR that is not well formed is not canonicalised here: the
    # library's check names the row (unsorted rows are sorted instead:
    # test_inputs.py)
    A = poisson2d(4)
    A.indices = A.indices.copy()
    A.indices[A.indptr[5]] = 99
    with pytest.raises(cmrs.InputError) as excinfo:
        cmrs.solve(A, np.ones(16), device="cpu")
    check_library_error(excinfo, cmrs.InputError, "cmrs_matrix_create_csr",
                        "row 5")


def test_unknown_option_is_named():
    with pytest.raises(cmrs.UsageError) as excinfo:
        cmrs.solve(poisson2d(4), np.ones(16), device="cpu", no_such_thing=1)
    check_library_error(excinfo, cmrs.UsageError, "cmrs_solver_set_option",
                        "no-such-thing", "the options are: solver, precond",
                        "amg_levels")


@pytest.mark.parametrize("name,value", [("rtol", "abc"), ("solver", "gmres"),
                                        ("maxiter", -5)])
def test_bad_option_value_is_named(name, value):
    with pytest.raises(cmrs.UsageError) as excinfo:
        cmrs.solve(poisson2d(4), np.ones(16), device="cpu", **{name: value})
    check_library_error(excinfo, cmrs.UsageError, "cmrs_solver_set_option",
                        name)


def test_bad_device_string():
    with pytest.raises(cmrs.UsageError, match="device"):
        cmrs.Context("tpu")


def test_complex_data_is_refused():
    A = poisson2d(4).astype(np.complex128)
    with pytest.raises(cmrs.UsageError, match="real"):
        cmrs.solve(A, np.ones(16), device="cpu")


def test_inconsistent_csr_arrays_are_caught_before_the_library():
    A = poisson2d(4)
    A.indptr = A.indptr.copy()
    A.indptr[-1] = A.nnz + 10  # would make the library read past the ends
    with pytest.raises(cmrs.InputError, match="indptr"):
        cmrs.solve(A, np.ones(16), device="cpu")


def test_missing_library_names_what_was_tried(tmp_path):
    missing = str(tmp_path / "libcmrs.so")
    code = ("import cmrs\ntry:\n    cmrs.version()\n"
            "except ImportError as e:\n    print(e)\n")
    package_dir = os.path.dirname(os.path.dirname(cmrs.__file__))
    env = {**os.environ, "CMRS_LIBRARY": missing, "PYTHONPATH": package_dir}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, env=env, check=True)
    assert "CMRS_LIBRARY" in out.stdout and missing in out.stdout, out


def test_single_precision_on_the_cpu_is_refused_at_setup():
    with pytest.raises(cmrs.UsageError) as excinfo:
        cmrs.Solver(poisson2d(4), device="cpu", precision="single")
    check_library_error(excinfo, cmrs.UsageError, "cmrs_solver_setup",
                        "single")


def test_mixed_values_is_an_option_the_cpu_refuses_at_setup():
    """mixed='values' is known to the library (a misspelling is not), and
    the CPU back end refuses mixed precision at setup, naming why."""
    with pytest.raises(cmrs.UsageError) as excinfo:
        cmrs.solve(poisson2d(4), np.ones(16), device="cpu", mixed="value")
    check_library_error(excinfo, cmrs.UsageError, "cmrs_solver_set_option",
                        "values")
    with pytest.raises(cmrs.UsageError) as excinfo:
        cmrs.Solver(poisson2d(4), device="cpu", mixed="values")
    check_library_error(excinfo, cmrs.UsageError, "cmrs_solver_setup",
                        "mixed precision runs on the GPU")


def test_a_library_of_another_version_is_refused():
    class Fake:  # stands in for a loaded libcmrs 0.3.1
        @staticmethod
        def cmrs_version():
            return b"0.3.1"
    with pytest.raises(cmrs.LibraryNotFoundError, match="0.3.1.*0.2"):
        cmrs._lib.check_version(Fake(), "CMRS_LIBRARY (x.so)")


def test_comm_must_be_an_mpi_communicator():
    with pytest.raises(cmrs.UsageError, match="py2f"):
        cmrs.Solver(poisson2d(4), device="cpu", comm=object())


class _FakeComm:
    """Has mpi4py's py2f(), but MPI was never initialised here."""

    def py2f(self):
        return 0


def test_comm_without_mpi_initialised_is_a_usage_error():
    # setup refuses it: MPI not initialised, or a build without MPI
    with pytest.raises(cmrs.UsageError, match="MPI"):
        cmrs.solve(poisson2d(4), np.ones(16), device="cpu", comm=_FakeComm())


def test_row0_needs_comm_and_a_row_index():
    # a matrix of rows (row0) is one rank's part: refused before anything
    # is made without a communicator, or with a row0 that is no row
    A = poisson2d(4)
    with pytest.raises(cmrs.UsageError, match="needs comm"):
        cmrs.Solver(A[:8], device="cpu", row0=0)
    for bad in (-1, 1.5, True, "0"):
        with pytest.raises(cmrs.UsageError, match="row0"):
            cmrs.solve(A[:8], np.ones(8), device="cpu", comm=_FakeComm(),
                       row0=bad)

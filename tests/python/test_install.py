"""`pip install ./python` gives a package that carries its own libcmrs.so.

Each test installs into a fresh virtual environment (numpy and scipy come
from this interpreter's site-packages) with pip's default build isolation,
so scikit-build-core comes from PyPI. The installed package is then run
from another directory with CMRS_LIBRARY and PYTHONPATH unset: it must load
cmrs/libcmrs.so from its own site-packages, solve, declare the license, and
be removed whole by `pip uninstall`.

- test_pip_install_with_a_prebuilt_library: the fast path
  (CMRS_PREBUILT_LIBRARY=$CMRS_LIBRARY: the library ctest built goes in).
- test_sdist_holds_the_sources_and_installs: the sdist (built through
  python/, i.e. the root's) has the C sources and installs.
- test_pip_install_builds_the_library: the real one-command install from a
  clean copy of the tree (CMake builds libcmrs.so), after which the copy is
  deleted. Minutes on 2 cores without ccache; ccache is used if present.
"""
import os
import shutil
import subprocess
import sys
import tarfile

import numpy
import pytest
import scipy

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# Whatever sets these for the tests must not reach the installed package.
UNSET = ("CMRS_LIBRARY", "CMRS_PREBUILT_LIBRARY", "PYTHONPATH",
         "SKBUILD_BUILD_DIR", "PIP_NO_BUILD_ISOLATION", "LD_LIBRARY_PATH")

CHECK = r"""
import importlib.metadata as md, os, sys
import numpy as np, scipy.sparse as sp
import cmrs, cmrs._lib
origin, path = cmrs._lib.location()
A = sp.diags([-1, 2, -1], [-1, 0, 1], shape=(200, 200), format="csr")
x, info = cmrs.solve(A, np.ones(200), rtol=1e-10, device="cpu")
assert info.converged and np.linalg.norm(A @ x - 1) < 1e-8 * np.sqrt(200)
meta = md.metadata("cmrs")
print(repr({"file": cmrs.__file__, "origin": origin, "path": path,
            "version": cmrs.version(), "dist_version": meta["Version"],
            "license": meta["License-Expression"] or meta["License"],
            "license_files": meta.get_all("License-File") or [],
            "dist_files": [str(f) for f in md.files("cmrs")]}))
"""


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in UNSET}
    env.update(extra)
    return env


def make_venv(where):
    """A fresh venv (pip included) that sees this interpreter's numpy and
    scipy through a .pth file; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    python = str(where / "bin" / "python")
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()"
         "['purelib'])"], capture_output=True, text=True, check=True
    ).stdout.strip()
    with open(os.path.join(purelib, "numpy-scipy-of-the-tests.pth"), "w",
              encoding="utf-8") as f:
        for module in (numpy, scipy):
            f.write(os.path.dirname(os.path.dirname(module.__file__)) + "\n")
    return python


def pip(python, *args, env, timeout=600):
    out = subprocess.run([python, "-m", "pip", *args], capture_output=True,
                         text=True, env=env, timeout=timeout)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    return out.stdout + out.stderr


def check_installed(python, elsewhere):
    """Runs CHECK in the venv from `elsewhere`; asserts what holds for every
    install; returns the bundled library's path."""
    os.makedirs(elsewhere, exist_ok=True)
    out = subprocess.run([python, "-c", CHECK], capture_output=True,
                         text=True, env=clean_env(), cwd=elsewhere)
    assert out.returncode == 0, out.stdout + out.stderr
    got = eval(out.stdout.strip().splitlines()[-1])  # our own repr
    package = os.path.dirname(got["file"])
    venv = os.path.dirname(os.path.dirname(python))
    assert package.startswith(venv + os.sep), got
    assert "site-packages" in package, got
    assert got["origin"] == "bundled with the package", got
    assert got["path"] == os.path.join(package, "libcmrs.so"), got
    assert got["version"] == got["dist_version"], got
    assert got["license"] == "BSD-3-Clause", got
    assert "LICENSE" in got["license_files"], got
    assert "cmrs/libcmrs.so" in got["dist_files"], got
    assert any(f.endswith("licenses/LICENSE") for f in got["dist_files"]), got
    # Every library it links is found without LD_LIBRARY_PATH.
    if shutil.which("ldd"):
        ldd = subprocess.run(["ldd", got["path"]], capture_output=True,
                             text=True, env=clean_env(), check=True).stdout
        assert "not found" not in ldd, ldd
    return got["path"]


def uninstall_removes_it(python, library):
    pip(python, "uninstall", "--yes", "cmrs", env=clean_env())
    assert not os.path.exists(library)
    assert not os.path.exists(os.path.dirname(library))


def test_pip_install_with_a_prebuilt_library(tmp_path):
    python = make_venv(tmp_path / "venv")
    prebuilt = os.path.abspath(os.environ["CMRS_LIBRARY"])
    pip(python, "install", os.path.join(ROOT, "python"),
        env=clean_env(CMRS_PREBUILT_LIBRARY=prebuilt))
    library = check_installed(python, tmp_path / "elsewhere")
    with open(prebuilt, "rb") as a, open(library, "rb") as b:
        assert a.read() == b.read()  # the file itself, not a link to it
    uninstall_removes_it(python, library)


def test_sdist_holds_the_sources_and_installs(tmp_path):
    python = make_venv(tmp_path / "venv")
    pip(python, "install", "scikit-build-core>=0.11", env=clean_env())
    # python/'s backend gives the root's sdist.
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import _root_backend"
            " as b; print(b.build_sdist(sys.argv[2]))")
    out = subprocess.run([python, "-c", code, os.path.join(ROOT, "python"),
                          str(tmp_path / "sdist")], capture_output=True,
                         text=True, env=clean_env(), cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    sdist = tmp_path / "sdist" / out.stdout.strip().splitlines()[-1]
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for needed in ("pyproject.toml", "CMakeLists.txt", "LICENSE",
                   "include/cmrs.h", "api/CMakeLists.txt",
                   "python/pyproject.toml", "python/cmrs/_lib.py",
                   "python/README.md", "PKG-INFO"):
        assert needed in names, needed
    assert not any(n.startswith("build/") for n in names)
    pip(python, "install", str(sdist), env=clean_env(
        CMRS_PREBUILT_LIBRARY=os.path.abspath(os.environ["CMRS_LIBRARY"])))
    check_installed(python, tmp_path / "elsewhere")


def copy_of_the_tree(to):
    """The sources alone: no build directory, no git metadata."""
    def ignore(directory, names):
        where = os.path.relpath(directory, ROOT)
        return [n for n in names if n == "__pycache__"
                or n.endswith(".egg-info")
                or (where == "." and (n.startswith((".", "build"))
                                      or n == "out"))
                or (where == "python" and n in ("build", "dist"))]
    shutil.copytree(ROOT, to, ignore=ignore, symlinks=True)
    return to


def test_pip_install_builds_the_library(tmp_path):
    """The one command, without CMRS_PREBUILT_LIBRARY: CMake compiles
    libcmrs.so and pip puts it in the package."""
    src = copy_of_the_tree(tmp_path / "src")
    python = make_venv(tmp_path / "venv")
    env = clean_env()
    if shutil.which("ccache"):
        # Paths relative to the copy, and its build directory inside it, so
        # that the cache hits from one run (one tmp_path) to the next.
        env.update(CMAKE_C_COMPILER_LAUNCHER="ccache",
                   CMAKE_CUDA_COMPILER_LAUNCHER="ccache",
                   CCACHE_BASEDIR=str(src),
                   SKBUILD_BUILD_DIR=str(src / "build"))
    out = pip(python, "install", "--verbose", str(src / "python"), env=env,
              timeout=1200)
    assert "Linking CUDA shared library libcmrs.so" in out  # CMake built it
    shutil.rmtree(src)  # nothing of the tree it was built from remains
    library = check_installed(python, tmp_path / "elsewhere")
    if shutil.which("readelf"):
        dynamic = subprocess.run(["readelf", "-d", library],
                                 capture_output=True, text=True,
                                 check=True).stdout
        assert str(tmp_path) not in dynamic, dynamic  # no build-tree RUNPATH
    uninstall_removes_it(python, library)

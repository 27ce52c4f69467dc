"""PEP 517 backend of python/pyproject.toml: scikit-build-core's hooks, run
in the repository root, so that `pip install ./python` (and an sdist or
wheel built from python/) is the root's package: one definition of the
metadata, and an sdist that holds the C sources CMake builds.

Each hook gets absolute paths, then runs with the root as the working
directory (scikit-build-core reads ./pyproject.toml); the front end runs
hooks in a process of their own, and the directory is restored anyway."""
import functools
import os

import scikit_build_core.build as _backend

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _at_root(hook):
    @functools.wraps(hook)
    def run(*args, **kwargs):
        # The string arguments are the directories (config_settings is a
        # dict); made absolute before leaving the front end's directory.
        args = [os.path.abspath(a) if isinstance(a, str) else a for a in args]
        kwargs = {k: os.path.abspath(v) if isinstance(v, str) else v
                  for k, v in kwargs.items()}
        cwd = os.getcwd()
        os.chdir(ROOT)
        try:
            return hook(*args, **kwargs)
        finally:
            os.chdir(cwd)
    return run


for _name in ("build_wheel", "build_sdist", "build_editable",
              "prepare_metadata_for_build_wheel",
              "prepare_metadata_for_build_editable",
              "get_requires_for_build_wheel", "get_requires_for_build_sdist",
              "get_requires_for_build_editable"):
    if hasattr(_backend, _name):
        globals()[_name] = _at_root(getattr(_backend, _name))

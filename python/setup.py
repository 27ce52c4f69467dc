"""Only what pyproject.toml cannot say: the installed package records where
libcmrs.so was when it was installed (cmrs/_install.py), so that it loads
without CMRS_LIBRARY afterwards. The path is the CMRS_LIBRARY of the pip
command, else the repository's default build directory (../build)."""
import os

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def library_at_install():
    """The library's absolute path, or None when there is none to record."""
    env = os.environ.get("CMRS_LIBRARY")
    if env:
        return os.path.abspath(env)
    built = os.path.normpath(os.path.join(HERE, os.pardir, "build",
                                          "libcmrs.so"))
    return built if os.path.exists(built) else None


class BuildPyRecordingLibrary(build_py):
    """build_py that writes the recorded path into the built copy only (the
    source tree keeps LIBRARY = None)."""

    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "cmrs", "_install.py")
        with open(target, "w", encoding="utf-8") as f:
            f.write("# Written by setup.py at install time.\n")
            f.write(f"LIBRARY = {library_at_install()!r}\n")


setup(cmdclass={"build_py": BuildPyRecordingLibrary})

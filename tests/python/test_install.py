"""`pip install ./python` works: into a temporary --target, then imported
from there in a fresh interpreter that finds the library through the path
recorded at install (CMRS_LIBRARY unset)."""
import os
import shutil
import subprocess
import sys

import cmrs

SOURCE = os.path.join(os.path.dirname(__file__), "..", "..", "python")


def test_pip_install_into_a_target_and_import(tmp_path):
    src = tmp_path / "src"  # a copy: pip builds in place, leaving build/
    shutil.copytree(SOURCE, src, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__"))
    target = tmp_path / "site"
    library = os.path.abspath(os.environ["CMRS_LIBRARY"])
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet",
                    "--no-deps", "--no-index", "--no-build-isolation",
                    "--target", str(target), str(src)],
                   check=True, env={**os.environ, "CMRS_LIBRARY": library})
    env = {k: v for k, v in os.environ.items()
           if k not in ("CMRS_LIBRARY", "PYTHONPATH")}
    env["PYTHONPATH"] = str(target)
    code = ("import cmrs, cmrs._install as i\n"
            "print(cmrs.__file__)\nprint(i.LIBRARY)\nprint(cmrs.version())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, env=env, cwd=tmp_path, check=True)
    where, recorded, version = out.stdout.split()
    assert where.startswith(str(target))
    assert recorded == library
    assert version == cmrs.version()

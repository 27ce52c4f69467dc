# SPDX-License-Identifier: GPL-3.0-or-later (see foam/README.md)
"""check_export.py SYSTEM.h5 RESULT.h5 TOL: the solution cmrs wrote
(RESULT's /x, from `cmrs solve SYSTEM.h5 -o RESULT.h5`) against the one
OpenFOAM returned (SYSTEM's /x_foam); prints the attributes and the
relative difference, exits 1 above TOL (or when SYSTEM lacks one)."""
import sys

import h5py
import numpy as np


def main():
    system, result, tol = sys.argv[1], sys.argv[2], float(sys.argv[3])
    with h5py.File(system, "r") as f:
        attrs = {k: (v.decode() if isinstance(v, bytes) else v)
                 for k, v in f.attrs.items()}
        for k in ("case", "field", "time", "time_name", "foam_solver",
                  "foam_sign"):
            if k not in attrs:
                sys.exit(f"{system}: no attribute {k}")
        x_foam = f["x_foam"][:]
        n = f["A"].attrs["shape"][0]
    with h5py.File(result, "r") as f:
        x = f["x"][:]
    rel = float(np.max(np.abs(x - x_foam)) / max(np.max(np.abs(x_foam)),
                                                 1e-300))
    print(f"{system}: {n} rows, field {attrs['field']}, time "
          f"{attrs['time_name']}, solver {attrs['foam_solver']}, sign "
          f"{attrs['foam_sign']}: max|x - x_foam|/max|x_foam| = {rel:.3e}")
    sys.exit(0 if rel <= tol else 1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A native cmrs HDF5 system to AmgX's binary matrix format, for
scripts/bench-amgx.sh: OUT.amgx holds A only (AmgX then solves with b = 1),
OUT_b1.h5 holds the same A with b = 1, so that both solvers get one system.

Usage: h5-to-amgx.py IN.h5 OUT.amgx OUT_b1.h5   (numpy, h5py)

AmgX's binary layout (src/readers.cu, ReadNVAMGBinary): the line
"%%NVAMGBinary\\n", nine uint32 flags (matrix, rhs, solution, format 0 =
CSR real, external diagonal, block x, block y, rows, nonzeros), then the
int32 row offsets, the int32 column indices and the float64 values."""
import sys

import h5py
import numpy as np


def main(src, amgx, b1):
    with h5py.File(src, "r") as f:
        indptr = f["A/indptr"][...]
        indices = f["A/indices"][...]
        data = f["A/data"][...]
        shape = tuple(int(v) for v in f["A"].attrs["shape"])
    rows, nnz = shape[0], len(data)
    if shape[0] != shape[1] or nnz >= 2**31:
        sys.exit(f"h5-to-amgx: {src}: {shape}, {nnz} nonzeros: AmgX takes "
                 "a square matrix with int32 offsets")
    with open(amgx, "wb") as o:
        o.write(b"%%NVAMGBinary\n")
        np.array([1, 0, 0, 0, 0, 1, 1, rows, nnz], dtype=np.uint32).tofile(o)
        indptr.astype(np.int32).tofile(o)
        indices.astype(np.int32).tofile(o)
        data.astype(np.float64).tofile(o)
    with h5py.File(b1, "w") as g:
        a = g.create_group("A")
        a["indptr"], a["indices"], a["data"] = indptr, indices, data
        a.attrs["shape"] = np.array(shape, dtype=np.int64)
        g["b"] = np.ones(rows)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])

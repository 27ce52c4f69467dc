#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later (see foam/README.md)
"""pack_export.py SRC DST [MAXROWS]: an exported system, compressed.

Copies the exporter's file SRC to DST with every dataset in chunks of 2^20
values, shuffled and gzip-compressed (level 6, as `h5repack -f SHUF -f
GZIP=6`), the root attributes kept, plus foam_rel_residual_l2 =
||b - A x_foam||_2 / ||b||_2 (the accuracy of OpenFOAM's solution in cmrs's
--rtol measure). /x_foam is left out of systems of more than MAXROWS rows
(default 100000; the attribute `note` says so): a 1M-cell pressure system's
A, b and x0 take about 44 MB compressed (A's values alone 30 MB: random
mantissas) and x_foam 5.5 MB more. Prints that residual.
"""
import os
import sys

import h5py
import numpy as np
import scipy.sparse as sp

src_name, dst = sys.argv[1], sys.argv[2]
maxrows = int(sys.argv[3]) if len(sys.argv) > 3 else 100000
opts = dict(compression="gzip", compression_opts=6, shuffle=True)


def chunked(n):
    return dict(opts, chunks=(min(n, 1 << 20),))   # 1M-value chunks


with h5py.File(src_name, "r") as src:
    a = src["A"]
    A = sp.csr_matrix((a["data"][()], a["indices"][()], a["indptr"][()]),
                      shape=tuple(a.attrs["shape"]))
    b, x = src["b"][()], src["x_foam"][()]
    rel = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
    keep = x.size <= maxrows
    with h5py.File(dst + ".tmp", "w") as out:
        for k, v in src.attrs.items():
            out.attrs[k] = v
        out.attrs["foam_rel_residual_l2"] = rel
        if not keep:
            out.attrs["note"] = ("x_foam left out (file size); "
                                 "foam_rel_residual_l2 is its ||b - A x||/||b||")
        g = out.create_group("A")
        g.attrs["shape"] = a.attrs["shape"]
        for k in ("data", "indices", "indptr"):
            g.create_dataset(k, data=a[k][()], **chunked(a[k].size))
        for k in ("b", "x0") + (("x_foam",) if keep else ()):
            out.create_dataset(k, data=src[k][()], **chunked(src[k].size))
os.replace(dst + ".tmp", dst)
print("  x_foam: ||b - A x||_2 / ||b||_2 = %.3e%s"
      % (rel, "" if keep else " (x_foam not kept in the packed file)"))

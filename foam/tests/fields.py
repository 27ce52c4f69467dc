# SPDX-License-Identifier: GPL-3.0-or-later (see foam/README.md)
"""fields.py CASE_A CASE_B TIME FIELD TOL [TIME_B]: compares an OpenFOAM
field (ASCII, internalField, scalar or vector) of two cases at one time (or
A's at TIME with B's at TIME_B); prints the relative difference
max|a - b| / max|a| and exits 1 when it exceeds TOL."""
import re
import sys

import numpy as np


def read_field(path):
    text = open(path).read()
    m = re.search(r"internalField\s+nonuniform\s+List<(\w+)>\s*(\d+)\s*\(",
                  text)
    if not m:
        u = re.search(r"internalField\s+uniform\s+([^;]+);", text)
        if not u:
            sys.exit(f"{path}: no internalField")
        return np.array([float(v) for v in u.group(1).strip("() ").split()])
    body = text[m.end():]
    n = int(m.group(2))
    nums = re.findall(r"[-+0-9.eE]+", body[:body.index("\n)")])
    return np.array([float(v) for v in nums]).reshape(n, -1)


def main():
    a_case, b_case, time, field, tol = sys.argv[1:6]
    time_b = sys.argv[6] if len(sys.argv) > 6 else time
    a = read_field(f"{a_case}/{time}/{field}")
    b = read_field(f"{b_case}/{time_b}/{field}")
    if a.shape != b.shape:
        sys.exit(f"{field}: shapes differ: {a.shape} and {b.shape}")
    rel = float(np.max(np.abs(a - b)) / max(np.max(np.abs(a)), 1e-300))
    print(f"{field} at {time}: max|a-b|/max|a| = {rel:.3e} (limit {tol})")
    sys.exit(0 if rel <= float(tol) else 1)


if __name__ == "__main__":
    main()

"""The solver options: names, defaults and meanings (the library's, which are
the command line's long options; include/cmrs.h, docs/API.md), and their
conversion to the text cmrs_solver_set_option takes.

Names are case-insensitive and take "_" for "-" (amg_levels); word values
are case-insensitive ("AMG", "Jacobi"); numbers may be any real number type
(float, int, numpy scalars, fractions.Fraction, decimal.Decimal); booleans
(also numpy.bool_) give "on"/"off".
"""
import decimal
import numbers

import numpy as np

from .errors import UsageError

# name: (default as the library applies it, what it does)
OPTIONS = {
    "solver": ("cg", "cg | bicgstab: the Krylov method (cg: SPD A)"),
    "precond": ("jacobi", "jacobi | none | chebyshev | amg"),
    "rtol": (1e-8, "stop when ||r|| <= rtol ||b||, in [0, 1]"),
    "atol": (0.0, "... or when ||r|| <= atol"),
    "maxiter": ("10 rows, at most 100000", "iteration limit, 1 .. 10^7"),
    "history": (False, "keep the relative residual of every iteration "
                       "(info.history)"),
    "precision": ("double", "double | single | mixed (single, mixed: GPU "
                            "only; mixed: a double loop with single "
                            "precision inside)"),
    "mixed": ("auto", "auto | refine | precond | values: what precision='mixed' "
                      "does (auto: the amg or chebyshev preconditioner in "
                      "single, jacobi and none in double)"),
    "engine": ("auto", "auto | cublas | graph | fused (graph, fused: GPU "
                       "only; with device='auto' and no GPU they fall back "
                       "to the CPU loop with a warning)"),
    "spmv": ("cmrs", "the GPU's SpMV format (cmrs, cmrs-mod, cusparse, "
                     "csr-scalar, csr-vector, hyb, ellr, sell, argcsr, "
                     "csrb)"),
    "height": ("by rule", "CMRS strip height 1 .. 16, or auto (a timed "
                          "search at setup, GPU)"),
    "tune_budget": (1.0, "seconds for height='auto' and "
                         "kernel_choice='measure'"),
    "kernel_choice": ("rule", "rule | measure: cmrs's layout and kernel by "
                              "its rules, or timed among its variants at "
                              "setup (GPU)"),
    "block_size": ("the format's", "threads per block of the SpMV kernel"),
    "modulo": ("the format's", "cmrs-mod buffer size 2 | 4 | 8 | 16 | 32"),
    "reorder": ("auto", "on | off | auto: cmrs stores P A P^T "
                        "(breadth-first order)"),
    "one_width": ("auto", "on | off | auto: cmrs strips of one width"),
    "renumber": ("auto", "on | off | auto: solve P A P^T (breadth-first "
                         "order), b and x permuted once per solve; auto: "
                         "poorly numbered systems of 1M rows and more on "
                         "a GPU"),
    "check_every": ("32; amg 2, chebyshev 8", "graph/fused: iterations per CUDA graph, 1 .. 4096"),
    "cheb_degree": (3, "chebyshev: polynomial degree 1 .. 64"),
    "cheb_ratio": (30.0, "chebyshev: interval [lmax / ratio, lmax]"),
    "amg_agg": ("mis2", "amg aggregation: mis2 | greedy | pairwise | "
                        "handshake"),
    "amg_agg_size": (8, "pairwise, handshake: 2 | 4 | 8 | 16 rows per "
                        "aggregate"),
    "amg_prolong": ("smoothed", "smoothed | plain aggregation"),
    "amg_theta": (0.02, "strength threshold in [0, 1)"),
    "amg_smoother": ("jacobi", "jacobi | chebyshev"),
    "amg_sweeps": ("auto", "pre- and post-smoothing steps 1 .. 16; auto: 1 "
                           "with jacobi, chebyshev's degree 2"),
    "amg_coarse": (1000, "coarsest level rows (inverted densely), "
                         "1 .. 4096"),
    "amg_levels": (20, "at most this many levels, 1 .. 32"),
    "amg_format": ("auto", "GPU format of the coarse levels (auto = cmrs)"),
    "amg_update": ("full", "values-only updates: full (re-setup on the "
                           "aggregates) | frozen (fine level only)"),
    "amg_parts": ("global", "amg over parts/gpus: global (one hierarchy "
                            "over all rows) | block (one per part)"),
    "amg_parts_levels": ("auto", "global amg over parts/gpus: levels on the "
                                 "parts, auto (2 on gpus where level 1 is "
                                 "large) | 1 | 2"),
    "parts": ("off", "solve over N simulated parts on the CPU back end"),
    "partition": ("block", "block | rcm | metis: how parts cuts the rows"),
    "gpus": (1, "GPUs, a part of the rows on each (more than 1: NCCL)"),
    "mpi": ("off", "on: a part per MPI rank, on a GPU each under a GPU "
                   "context (the caller runs MPI_Init)"),
}


def table(indent="    "):
    """The options as text for docstrings: name=default  meaning."""
    width = max(len(n) for n in OPTIONS) + 1
    return "\n".join(f"{indent}{name:<{width}} {default!s:<9} {meaning}"
                     for name, (default, meaning) in OPTIONS.items())


def names():
    return ", ".join(OPTIONS)


def key(name):
    """The library's name of an option given as a Python keyword."""
    return str(name).strip().lower().replace("_", "-")


def text(name, value):
    """An option value as the library parses it: True -> "on", 1e-6 ->
    "1e-06", np.float64(1e-6) -> "1e-06", "AMG" -> "amg"."""
    if isinstance(value, (bool, np.bool_)):
        return "on" if value else "off"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, (numbers.Real, decimal.Decimal)):
        return repr(float(value))  # repr of a Python float: exact, short
    if isinstance(value, str):
        return value.strip().lower()
    raise UsageError(f"option {name}: a number, a word or a bool, not "
                     f"{type(value).__name__} {value!r}")

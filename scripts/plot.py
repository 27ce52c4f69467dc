#!/usr/bin/env python3
"""Plots of cmrs sweep results and solve histories (PNG).

usage: python3 scripts/plot.py [-o DIR] FILE...

FILE is any mix of
  - `cmrs sweep --csv` output (.csv) or `--json` output (.json, an array);
  - `cmrs solve --json` reports (.json object with residual_history);
  - `cmrs solve -o` results (.h5, /history/residual; needs h5py).
Writes into DIR (default .) whichever plots the inputs allow:
  speedup_vs_mu.png     SpMV speedup over cuSPARSE CSR vs mean row length,
                        best configuration per matrix and format
  time_vs_height.png    SpMV time vs strip height, per format and precision
  eta_per_format.png    eta+ (fraction of copy bandwidth) per format
  convergence.png       relative residual vs iteration, one curve per solve
Needs matplotlib (`pip install matplotlib`); h5py only for .h5 inputs.
Exit status: 0 done, 2 bad usage or an unreadable input, 3 missing module.
"""
import argparse
import csv
import json
import math
import os
import sys

NUMERIC = ("height", "block_size", "modulo", "sorted", "rows", "nnz", "mu",
           "sigma", "time_median_s", "time_min_s", "time_max_s", "gflops",
           "eta_plus", "eta_minus", "iterations", "true_rel_residual",
           "speedup_vs_cusparse", "model_accel")


def fail(code, msg):
    print(f"plot.py: error: {msg}", file=sys.stderr)
    sys.exit(code)


def number(v):
    """CSV text or JSON value to float; empty/None -> NaN."""
    if v is None or v == "":
        return math.nan
    return float(v)


def normalise(row, where):
    try:
        for k in NUMERIC:
            row[k] = number(row.get(k))
    except (TypeError, ValueError) as e:
        fail(2, f"{where}: bad number in a sweep row: {e}")
    return row


def read_csv(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    if "format" not in (reader.fieldnames or []):
        fail(2, f"{path}: not a cmrs sweep CSV (no 'format' column)")
    return [normalise(r, path) for r in rows], []


def read_json(path):
    with open(path) as f:
        try:
            data = json.load(f)
        except json.JSONDecodeError as e:
            fail(2, f"{path}: not valid JSON: {e}")
    if isinstance(data, list):
        return [normalise(dict(r), path) for r in data], []
    if isinstance(data, dict) and "residual_history" in data:
        label = f"{data.get('format', '?')} ({data.get('precision', '')})"
        return [], [(label, [number(v) for v in data["residual_history"]])]
    fail(2, f"{path}: neither a sweep array nor a solve report")


def read_h5(path):
    try:
        import h5py
    except ImportError:
        fail(3, f"{path}: reading .h5 results needs h5py (pip install h5py); "
                "or pass the solve's --json report instead")
    with h5py.File(path, "r") as f:
        if "history/residual" not in f:
            fail(2, f"{path}: /history/residual: not found (not a solve "
                    "result?)")
        fmt = f.attrs.get("format", b"?")
        fmt = fmt.decode() if isinstance(fmt, bytes) else str(fmt)
        return [], [(fmt, list(f["history/residual"][()]))]


def read_inputs(paths):
    rows, histories = [], []
    for p in paths:
        if not os.path.isfile(p):
            fail(2, f"{p}: cannot open: no such file")
        ext = os.path.splitext(p)[1].lower()
        reader = {".csv": read_csv, ".json": read_json, ".h5": read_h5}.get(ext)
        if reader is None:
            fail(2, f"{p}: unknown input type (expected .csv, .json or .h5)")
        r, h = reader(p)
        rows += r
        histories += h
    return rows, histories


def ok_spmv(rows):
    return [r for r in rows if r.get("status") == "ok"
            and r.get("mode", "spmv") == "spmv"
            and math.isfinite(r["time_median_s"])]


def best_by(rows, key, value, better=max):
    """Per key(row): the row with the best value(row)."""
    best = {}
    for r in rows:
        k = key(r)
        v = value(r)
        if not math.isfinite(v):
            continue
        if k not in best or better(v, value(best[k])) == v:
            best[k] = r
    return best


def decorate(ax, title, xlabel, ylabel):
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        # Outside the axes: never hides data.
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")


def finish(fig, ax, title, xlabel, ylabel, path):
    decorate(ax, title, xlabel, ylabel)
    save(fig, path)


def plot_speedup(plt, rows, out):
    rows = [r for r in ok_spmv(rows) if r["format"] != "cusparse"
            and math.isfinite(r["speedup_vs_cusparse"])]
    best = best_by(rows, lambda r: (r["file"], r["format"], r["precision"]),
                   lambda r: r["speedup_vs_cusparse"])
    if not best:
        return
    fig, ax = plt.subplots(figsize=(9, 4.5))
    series = sorted({(k[1], k[2]) for k in best})
    for fmt, prec in series:
        pts = sorted((r["mu"], r["speedup_vs_cusparse"])
                     for k, r in best.items() if (k[1], k[2]) == (fmt, prec))
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o",
                label=f"{fmt} ({prec})")
    ax.axhline(1.0, color="gray", lw=1, ls="--")
    finish(fig, ax, "SpMV speedup over cuSPARSE CSR (best configuration "
           "per matrix)", "mean row length mu (nonzeros per row)",
           "speedup (cuSPARSE time / time)", os.path.join(out, "speedup_vs_mu.png"))


def plot_height(plt, rows, out):
    rows = [r for r in ok_spmv(rows) if r["height"] > 0]
    best = best_by(rows, lambda r: (r["precision"], r["file"], r["format"],
                                    int(r["height"])),
                   lambda r: r["time_median_s"], better=min)
    if not best:
        return
    precs = sorted({k[0] for k in best})
    fig, axes = plt.subplots(1, len(precs), figsize=(6.5 * len(precs), 4.5),
                             squeeze=False)
    for ax, prec in zip(axes[0], precs):
        for series in sorted({k[:3] for k in best if k[0] == prec}):
            pts = sorted((k[3], r["time_median_s"] * 1e6)
                         for k, r in best.items() if k[:3] == series)
            ax.semilogy([p[0] for p in pts], [p[1] for p in pts], "o-",
                        label=f"{os.path.basename(series[1])}: {series[2]}")
        ax.set_xticks(range(1, 17))
        decorate(ax, f"SpMV time vs strip height, {prec} precision",
                 "strip height h (rows per strip)",
                 "time per SpMV (microseconds, log scale)")
    save(fig, os.path.join(out, "time_vs_height.png"))


def plot_eta(plt, rows, out):
    best = best_by(ok_spmv(rows), lambda r: (r["file"], r["format"],
                                             r["precision"]),
                   lambda r: r["eta_plus"])
    if not best:
        return
    files = sorted({k[0] for k in best})
    bars = sorted({(k[1], k[2]) for k in best})
    width = 0.8 / len(bars)
    fig, ax = plt.subplots(figsize=(max(8, 1.5 * len(files) + 5), 4.5))
    for i, (fmt, prec) in enumerate(bars):
        ys = [best[(f, fmt, prec)]["eta_plus"] if (f, fmt, prec) in best
              else 0 for f in files]
        ax.bar([x + i * width for x in range(len(files))], ys, width,
               label=f"{fmt} ({prec})")
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(files))])
    ax.set_xticklabels([os.path.basename(f) for f in files], rotation=20,
                       ha="right", fontsize="small")
    finish(fig, ax, "eta+ per format (best configuration)", "matrix",
           "eta+ (achieved / copy bandwidth, 1 = copy speed)",
           os.path.join(out, "eta_per_format.png"))


def plot_convergence(plt, histories, out):
    if not histories:
        return
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for i, (label, h) in enumerate(histories):
        # Different dashes: curves of equal iterations lie on each other.
        ax.semilogy(range(len(h)), h, ["-", "--", ":", "-."][i % 4],
                    label=label)
    finish(fig, ax, "Convergence history", "iteration",
           "relative residual ||r|| / ||b|| (log scale)",
           os.path.join(out, "convergence.png"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+", metavar="FILE")
    ap.add_argument("-o", "--out", default=".", help="output folder")
    a = ap.parse_args()
    try:
        os.makedirs(a.out, exist_ok=True)
    except OSError as e:
        fail(2, f"{a.out}: cannot create the output folder: {e.strerror}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail(3, "matplotlib is not installed (pip install matplotlib)")
    rows, histories = read_inputs(a.files)
    if not rows and not histories:
        fail(2, "no rows or histories in the inputs: nothing to plot")
    plot_speedup(plt, rows, a.out)
    plot_height(plt, rows, a.out)
    plot_eta(plt, rows, a.out)
    plot_convergence(plt, histories, a.out)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Summarise a window of a CUDA trace written by bench/trace/cuda_trace.c.

usage: scripts/trace-summary.py TRACE.csv --start KERNEL[#K] [--end CALL]
                                [--length-ms MS] [--top N] [--json OUT]

The window starts at the API call that launched the K-th kernel (default
the first) whose name contains KERNEL, and ends at the first runtime call
after it whose name contains CALL (--end), or MS later (--length-ms), or at
the trace's end. Printed: the window's length; how long the GPU was busy
(the union of kernels, copies and memsets) and idle; device work by name;
the host threads' time inside CUDA calls (driver calls nested in a
runtime call of the same thread counted once); the GPU's idle time by the
call the busiest host thread was in meanwhile ("(host code)": none, the
thread computing or waiting on something else); the longest idle gaps.
--json writes the same figures for scripts. Exit 2 on a bad trace or
window (one line on stderr)."""
import argparse
import bisect
import collections
import csv
import json
import os
import sys

DEVICE = ("kern", "copy", "set")


def die(msg):
    print("trace-summary: " + msg, file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        die("cannot read %s: %s" % (path, e.strerror))
    need = {"kind", "name", "start", "end", "stream", "thread", "corr", "bytes"}
    if not rows or not need <= set(rows[0]):
        die("%s: not a cuda_trace CSV (columns %s)" % (path, ",".join(sorted(need))))
    for r in rows:
        try:
            if any(r[k] is None for k in need):
                raise ValueError
            r["s"], r["e"] = int(r["start"]), int(r["end"])
            r["bytes"] = int(r["bytes"] or 0)
            if r["e"] < r["s"]:
                raise ValueError
        except (ValueError, TypeError):
            die("%s: bad or cut line %r" % (path, r))
    rows.sort(key=lambda r: r["s"])
    return rows


def window(rows, start, end, length_ms):
    pat, occ = start, 1
    if "#" in start:
        pat, k = start.rsplit("#", 1)
        if not k.isdigit() or int(k) < 1:
            die("--start %s: the occurrence after # must be 1 or more" % start)
        occ = int(k)
    hits = [r for r in rows if r["kind"] == "kern" and pat in r["name"]]
    if len(hits) < occ:
        die("--start: %d kernel(s) match %r, asked for number %d" % (len(hits), pat, occ))
    k0 = hits[occ - 1]
    launches = {r["corr"]: r for r in rows if r["kind"] == "rt"}
    t0 = min(k0["s"], launches[k0["corr"]]["s"]) if k0["corr"] in launches else k0["s"]
    if length_ms is not None:
        return t0, t0 + int(length_ms * 1e6)
    t1 = max(r["e"] for r in rows)
    if end:
        after = [r["s"] for r in rows if r["kind"] == "rt" and r["s"] > t0 and end in r["name"]]
        if not after:
            die("--end: no runtime call matching %r after the start" % end)
        t1 = after[0]
    return t0, max(t1, t0 + 1)


def busy_and_gaps(rows, t0, t1):
    iv = sorted((max(r["s"], t0), min(r["e"], t1)) for r in rows
                if r["kind"] in DEVICE and r["e"] > t0 and r["s"] < t1)
    busy, gaps, last, cur = 0, [], t0, None
    for a, b in iv:
        if a > last:
            gaps.append((a - last, last, a))
        if cur is None or a > cur[1]:
            if cur:
                busy += cur[1] - cur[0]
            cur = [a, b]
        else:
            cur[1] = max(cur[1], b)
        last = max(last, b)
    if cur:
        busy += cur[1] - cur[0]
    if t1 > last:
        gaps.append((t1 - last, last, t1))
    return busy, gaps


def host_calls(rows, t0, t1):
    """Runtime calls, and driver calls not inside a runtime call of the
    same thread, that overlap the window."""
    rt = [r for r in rows if r["kind"] == "rt" and r["e"] > t0 and r["s"] < t1]
    # a thread's runtime calls do not overlap: the one starting last at or
    # before r is the only one that can hold it
    starts = collections.defaultdict(list)
    for r in rt:
        starts[r["thread"]].append((r["s"], r["e"]))
    for v in starts.values():
        v.sort()
    def nested(r):
        v = starts.get(r["thread"])
        if not v:
            return False
        k = bisect.bisect_right(v, (r["s"], float("inf"))) - 1
        return k >= 0 and v[k][0] <= r["s"] and r["e"] <= v[k][1]
    drv = [r for r in rows if r["kind"] == "drv" and r["e"] > t0 and r["s"] < t1 and not nested(r)]
    return rt + drv


def summary(rows, t0, t1, top):
    clip = lambda a, b: max(0, min(b, t1) - max(a, t0))
    busy, gaps = busy_and_gaps(rows, t0, t1)
    work = collections.defaultdict(lambda: [0, 0, 0])
    for r in rows:
        if r["kind"] in DEVICE and r["e"] > t0 and r["s"] < t1:
            w = work["%s:%s" % (r["kind"], r["name"][:90])]
            w[0] += clip(r["s"], r["e"])
            w[1] += 1
            w[2] += r["bytes"]
    calls = host_calls(rows, t0, t1)
    per_thread = collections.Counter()
    for r in calls:
        per_thread[r["thread"]] += clip(r["s"], r["e"])
    main = per_thread.most_common(1)[0][0] if per_thread else None
    mine = sorted((r for r in calls if r["thread"] == main), key=lambda r: r["s"])
    # gaps and the thread's calls both in time order, the calls not
    # overlapping: one sweep (a call may span several gaps)
    ends = [r["e"] for r in mine]
    def overlapping(a, b):
        k = bisect.bisect_right(ends, a)
        while k < len(mine) and mine[k]["s"] < b:
            yield mine[k]
            k += 1
    idle_by = collections.Counter()
    for g, a, b in gaps:
        covered = 0
        for r in overlapping(a, b):
            o = min(r["e"], b) - max(r["s"], a)
            idle_by[r["name"]] += o
            covered += o
        idle_by["(host code)"] += max(0, g - covered)
    longest = []
    for g, a, b in sorted(gaps, reverse=True)[:top]:
        inside = collections.Counter(r["name"] for r in overlapping(a, b))
        longest.append({"ms": g / 1e6, "at_ms": (a - t0) / 1e6,
                        "calls": dict(inside.most_common(6))})
    ms = lambda ns: ns / 1e6
    return {
        "window_ms": ms(t1 - t0), "busy_ms": ms(busy), "idle_ms": ms(t1 - t0 - busy),
        "gaps": len(gaps),
        "device_work": [{"name": k, "ms": ms(v[0]), "count": v[1], "bytes": v[2]}
                        for k, v in sorted(work.items(), key=lambda x: -x[1][0])[:top]],
        "threads": [{"thread": t, "ms_in_calls": ms(v)} for t, v in per_thread.most_common()],
        "main_thread": main,
        "idle_by_call": [{"call": k, "ms": ms(v)} for k, v in idle_by.most_common(top)],
        "longest_gaps": longest,
    }


def show(s):
    print("window %.3f ms: GPU busy %.3f ms (%.0f%%), idle %.3f ms in %d gaps"
          % (s["window_ms"], s["busy_ms"], 100 * s["busy_ms"] / s["window_ms"],
             s["idle_ms"], s["gaps"]))
    print("\ndevice work (ms, count, MB)")
    for w in s["device_work"]:
        print("%9.3f %6d %9.1f  %s" % (w["ms"], w["count"], w["bytes"] / 1e6, w["name"]))
    print("\nhost threads: time inside CUDA calls (ms)")
    for t in s["threads"]:
        print("  %s %9.3f" % (t["thread"], t["ms_in_calls"]))
    print("\nGPU idle, by the call thread %s was in (ms)" % s["main_thread"])
    for c in s["idle_by_call"]:
        print("%9.3f  %s" % (c["ms"], c["call"]))
    print("\nlongest idle gaps")
    for g in s["longest_gaps"]:
        calls = ", ".join("%sx%d" % (k, n) if n > 1 else k for k, n in g["calls"].items())
        print("%7.3f ms at +%8.3f: %s" % (g["ms"], g["at_ms"], calls or "(host code)"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--start", required=True, help="KERNEL[#K]: the K-th kernel whose name contains KERNEL")
    ap.add_argument("--end", help="the first runtime call after the start whose name contains this")
    ap.add_argument("--length-ms", type=float, help="the window's length instead of --end")
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--json", help="write the figures here too")
    a = ap.parse_args()
    if a.top < 1:
        die("--top must be 1 or more")
    if a.length_ms is not None and a.length_ms <= 0:
        die("--length-ms must be positive")
    if a.length_ms is not None and a.end:
        die("--end and --length-ms: give one")
    rows = load(a.trace)
    t0, t1 = window(rows, a.start, a.end, a.length_ms)
    s = summary(rows, t0, t1, a.top)
    show(s)
    if a.json:
        with open(a.json + ".tmp", "w") as f:
            json.dump(s, f, indent=1)
        os.replace(a.json + ".tmp", a.json)


if __name__ == "__main__":
    main()

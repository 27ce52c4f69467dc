#!/usr/bin/env python3
"""The table of scripts/bench-gpus.sh from its JSON files: per case and
run, iterations, time per iteration, speed-up against one GPU's fused
engine and its host loop, and the partition's halo (values per SpMV)."""
import glob
import json
import os
import sys


def main(out):
    rows = {}
    for f in sorted(glob.glob(os.path.join(out, "*_g*.json"))):
        case, tag = os.path.basename(f)[:-5].split("_", 1)
        with open(f) as fh:
            rows.setdefault(case, {})[tag] = json.load(fh)
    print("| case | run | device | iterations | ms/iteration | vs 1 GPU fused "
          "| vs 1 GPU host loop | setup s | solve s | halo values "
          "| true residual |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for case, runs in rows.items():
        fused = runs.get("g1_fused", {}).get("time_per_iteration")
        loop = runs.get("g1_cublas", {}).get("time_per_iteration")
        amg1 = runs.get("g1_amg", {}).get("time_solve")
        for tag, d in sorted(runs.items()):
            t = d["time_per_iteration"]
            part = d.get("partition", {})
            amg = tag.endswith("amg")
            print("| %s | %s | %s | %d | %.3f | %s | %s | %.3f | %.3f%s | %s "
                  "| %.2e |" % (
                      case, tag, d["device"], d["iterations"], 1e3 * t,
                      "%.2fx" % (fused / t) if fused and not amg else "-",
                      "%.2fx" % (loop / t) if loop and not amg else "-",
                      d["time_setup"], d["time_solve"],
                      " (%.2fx)" % (amg1 / d["time_solve"])
                      if amg and amg1 and d["time_solve"] else "",
                      part.get("halo", "-"), d["residual_true"]))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")

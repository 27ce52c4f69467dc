"""What the benchmark table scripts (bench-order-table.py,
bench-wide-table.py) share: reading the JSON of `cmrs bench` and
`cmrs compare`, and printing a cell. Standard library only."""
import json
import os
import sys


def fail(tool, message):
    """Exit 2 with one line on stderr, named after the tool."""
    print("%s: %s" % (tool, message), file=sys.stderr)
    sys.exit(2)


def load(path, tool):
    """The JSON object at path, or None when the file is missing; exit 2
    when it is not JSON."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        try:
            return json.load(f)
        except ValueError as e:
            fail(tool, "%s: not JSON (%s)" % (path, e))


def by_key(items, key, name):
    """The first item whose `key` is `name`, or None."""
    return next((i for i in items if i.get(key) == name), None)


def solve(compare, fmt):
    """(ms per iteration, iterations, converged) of one format's row of a
    compare report; Nones where it did not run."""
    r = by_key((compare or {}).get("results", []), "format", fmt)
    if not r or r.get("time_per_iteration_s") is None:
        return None, None, None
    return (1e3 * r["time_per_iteration_s"], r.get("iterations"),
            str(r.get("converged_reason", "")).startswith("CONVERGED"))


def print_header(header):
    """A markdown table's header line and its separator, one column per
    cell of header."""
    print(header)
    print("|" + "---|" * (header.count("|") - 1))


def cell(value, fmt):
    """value printed with fmt, "-" for None."""
    return "-" if value is None else fmt % value

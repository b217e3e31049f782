#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""How each four-corners peak moves with the length of its point.

The reviews' points last minutes; calibrate and fit time each peak over a
few simulated seconds after the review's state.  This runs
`nvmimic calibrate --duration-s L` for each length L and prints, per row,
the model's peak IOPS at every length, its change from the shortest to the
longest, and whether the two longest agree within 2 % (the point is
steady by then).  docs/sim.md ("Point length") has its output with the
commit it ran on.

usage: bench/point_length.py [--nvmimic build/nvmimic]
           [--reviews profiles/reviews/four-corners.tsv]
           [--lengths 2,30,120,300] [--profile-dir DIR] [--json]
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import calib_table  # noqa: E402  (bench/calib_table.py, beside this file)


def peaks(nvmimic, reviews, length, profile_dir=None):
    """{(drive, workload): (review_iops, model_iops)} at one length."""
    rows, err = calib_table.run(nvmimic, reviews, length, profile_dir)
    if rows is None:
        sys.exit("point_length: nvmimic calibrate --duration-s %s gave no "
                 "table: %s" % (length, err))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nvmimic", default=os.path.join(ROOT, "build",
                                                      "nvmimic"))
    ap.add_argument("--reviews", default=os.path.join(
        ROOT, "profiles", "reviews", "four-corners.tsv"))
    ap.add_argument("--lengths", default="2,30,120,300")
    ap.add_argument("--profile-dir", default=None,
                    help="where the profiles are (default: nvmimic's own)")
    ap.add_argument("--json", action="store_true",
                    help="also print the figures as one JSON line")
    a = ap.parse_args()
    try:
        lengths = [float(x) for x in a.lengths.split(",")]
    except ValueError:
        sys.exit("point_length: --lengths %r is not a list of seconds"
                 % a.lengths)
    if len(lengths) < 2 or lengths != sorted(lengths) or lengths[0] <= 0:
        sys.exit("point_length: --lengths needs two or more increasing "
                 "positive lengths, got %r" % a.lengths)
    runs, cpu = [], []
    for length in lengths:
        c0 = os.times()
        runs.append(peaks(a.nvmimic, a.reviews, length, a.profile_dir))
        c1 = os.times()
        cpu.append(c1.children_user - c0.children_user)
    keys = list(runs[0])
    head = ["drive", "workload", "review"] + \
        ["%g s" % x for x in lengths] + \
        ["%g s vs %g s" % (lengths[-1], lengths[0]),
         "%g s vs %g s" % (lengths[-1], lengths[-2]), "steady"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    table = []
    for k in keys:
        vals = [r[k][1] if k in r else float("nan") for r in runs]
        total = (vals[-1] / vals[0] - 1) * 100
        last = (vals[-1] / vals[-2] - 1) * 100
        steady = abs(last) <= 2.0
        table.append({"drive": k[0], "workload": k[1],
                      "review_iops": runs[0][k][0],
                      "model_iops": dict(zip(["%g" % x for x in lengths],
                                             vals)),
                      "change_pct": round(total, 1),
                      "last_change_pct": round(last, 1),
                      "steady": steady})
        print("| %s | %s | %s | %s | %+.1f %% | %+.1f %% | %s |" % (
            k[0], k[1], runs[0][k][0],
            " | ".join("%.0f" % v for v in vals), total, last,
            "yes" if steady else "**no**"))
    print()
    print("CPU seconds per calibrate run: " +
          ", ".join("%g s: %.0f" % (x, c) for x, c in zip(lengths, cpu)))
    if a.json:
        print(json.dumps({"lengths_s": lengths, "cpu_s": cpu,
                          "rows": table}))


if __name__ == "__main__":
    main()

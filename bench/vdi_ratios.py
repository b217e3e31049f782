#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The VDI calibration figures' ratios to each other, model against review.

The five figures of profiles/reviews/vdi-calibration.tsv are peaks of three
replayed traces on two drives.  What each trace does per I/O (its transfer
sizes, its footprint) is not public: the job files assume it
(harness/workloads).  An error in such an assumption scales every drive's
peak of that trace alike, so the ratio of the two drives' peaks of one
trace does not depend on it; the ratio of two traces on one drive does
unless both traces are off alike.  This prints both kinds of ratio, the
model's against the review's, from bench/vdi_five.sh's lines.

usage: sh bench/vdi_five.sh [SECTION KEY VALUE]... | python3 bench/vdi_ratios.py
  (vdi_five.sh runs it itself after its five lines)
"""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vdi_budget import review  # noqa: E402  (the calibration table's IOPS)


def model(lines):
    """{(drive, workload): model peak IOPS} from vdi_five.sh's lines."""
    out = {}
    for line in lines:
        cells = line.split()
        if len(cells) > 2 and "/" in cells[0] and cells[2] == "IOPS":
            drive, work = cells[0].split("/", 1)
            out[(drive, work)] = float(cells[1])
    return out


def ratios(rev, mod):
    """[(what, review ratio, model ratio)]: across drives, then within."""
    have = [k for k in rev if k in mod]
    drives = sorted({d for d, _ in have})
    works = sorted({w for _, w in have})
    out = []
    for w in works:
        ds = [d for d in drives if (d, w) in mod]
        for a, b in zip(ds, ds[1:]):
            out.append(("%s: %s / %s" % (w, b, a), rev[(b, w)] / rev[(a, w)],
                        mod[(b, w)] / mod[(a, w)]))
    for d in drives:
        ws = [w for w in works if (d, w) in mod]
        for a, b in zip(ws, ws[1:]):
            out.append(("%s: %s / %s" % (d, b, a), rev[(d, b)] / rev[(d, a)],
                        mod[(d, b)] / mod[(d, a)]))
    return out


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # quiet under `| head`
    rev = review()
    mod = model(sys.stdin.read().splitlines())
    rs = ratios(rev, mod)
    if not rs:
        sys.exit("vdi_ratios: no two figures of one trace or one drive in "
                 "the input")
    print("%-58s %7s %7s   %s" % ("ratio of peak IOPS", "review", "model",
                                  "model/review"))
    for what, r, m in rs:
        print("%-58s %7.3f %7.3f   %+6.1f%%" % (what, r, m, 100 * (m / r - 1)))


if __name__ == "__main__":
    main()

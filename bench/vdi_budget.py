#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What the two logins of one drive say together (docs/vdi.md).

Each VDI login of profiles/reviews/vdi-calibration.tsv moves bytes both
ways: its IOPS times the job file's read share and mean read size, and
its write share and mean write size (harness/workloads/vdi-*.fio).  If a
drive at its peak spends one budget on both, W / Wmax + R / Rmax = 1, and
a drive's initial and Monday logins give its two capacities.  The same
for the model's peaks (build/bench/vdi-probe, as bench/vdi_five.sh runs
them).  A reading of the figures, not a mechanism.

usage: bench/vdi_budget.py [--probe build/bench/vdi-probe] [--no-model]
"""
import argparse
import os
import re
import subprocess
import sys

import probe_line

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOGINS = ("vdi-initial-login", "vdi-monday-login")


def size_bytes(text):
    m = re.fullmatch(r"(\d+)([kKmM]?)", text)
    if not m:
        sys.exit(f"vdi_budget: block size {text!r} not understood")
    return int(m.group(1)) * {"": 1, "k": 1024, "m": 1 << 20}[
        m.group(2).lower()]


def mean_size(split):
    """Mean of one bssplit list: SIZE/PCT:...; a missing PCT shares the rest."""
    items = [p.split("/") for p in split.split(":") if p]
    given = sum(float(p[1]) for p in items if len(p) == 2 and p[1])
    blank = [p for p in items if len(p) < 2 or not p[1]]
    each = (100.0 - given) / len(blank) if blank else 0.0
    return sum(size_bytes(p[0]) * (float(p[1]) if len(p) == 2 and p[1]
                                   else each) for p in items) / 100.0


def job(name):
    """(read share, mean read bytes, mean write bytes) of a job file."""
    path = os.path.join(ROOT, "harness", "workloads", name + ".fio")
    opts = {}
    for line in open(path):
        line = line.strip()
        if line and not line.startswith((";", "#", "[")) and "=" in line:
            k, v = line.split("=", 1)
            opts[k.strip()] = v.strip()
    reads = float(opts["rwmixread"]) / 100.0
    split = opts["bssplit"].split(",")
    return reads, mean_size(split[0]), mean_size(split[-1])


def review():
    """{(drive, workload): IOPS} from the calibration table."""
    rows = {}
    path = os.path.join(ROOT, "profiles", "reviews", "vdi-calibration.tsv")
    for line in open(path):
        cells = line.rstrip("\n").split("\t")
        if line.startswith("#") or cells[0] == "drive":
            continue
        rows[(cells[0], cells[1])] = float(cells[2].lstrip("~"))
    return rows


def model(probe, drive, work):
    """(read MB/s, write MB/s) of the model's peak."""
    out = subprocess.run([probe, drive, work], capture_output=True,
                         text=True, cwd=ROOT, check=False).stdout
    try:
        f = probe_line.parse(out)
    except ValueError:
        sys.exit(f"vdi_budget: no peak from {probe} {drive} {work}")
    _, rbytes, _ = job(work)
    return float(f["read_iops"]) * rbytes / 1e6, float(f["write_mbps"])


def capacities(pairs):
    """Wmax, Rmax from two (R, W) points on W/Wmax + R/Rmax = 1."""
    (r1, w1), (r2, w2) = pairs
    det = w1 * r2 - w2 * r1
    if abs(det) < 1e-12:
        return None
    x = (r2 - r1) / det
    y = (w1 - w2) / det
    if x <= 0 or y <= 0:
        return None
    return 1 / x, 1 / y


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--probe", default="build/bench/vdi-probe")
    ap.add_argument("--no-model", action="store_true")
    a = ap.parse_args()
    rev = review()
    drives = sorted({d for d, w in rev if w in LOGINS and
                     all((d, x) in rev for x in LOGINS)})
    print("| drive | login | review R / W, MB/s | model R / W, MB/s |")
    print("|---|---|---|---|")
    table = []
    for d in drives:
        pr, pm = [], []
        for w in LOGINS:
            share, rb, wb = job(w)
            iops = rev[(d, w)]
            pr.append((iops * share * rb / 1e6, iops * (1 - share) * wb / 1e6))
            pm.append(None if a.no_model else model(a.probe, d, w))
            cell = "-" if pm[-1] is None else "%.0f / %.0f" % pm[-1]
            print("| %s | %s | %.0f / %.0f | %s |" % (d, w, *pr[-1], cell))
        table.append((d, capacities(pr),
                      None if a.no_model else capacities(pm)))
    print()
    print("| drive | Wmax, review | Rmax, review | Wmax, model | Rmax, model |")
    print("|---|---|---|---|---|")
    for d, cr, cm in table:
        fr = "%.0f MB/s | %.0f MB/s" % cr if cr else "- | -"
        fm = "%.0f MB/s | %.0f MB/s" % cm if cm else "- | -"
        print("| %s | %s | %s |" % (d, fr, fm))


if __name__ == "__main__":
    main()

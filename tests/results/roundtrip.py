#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A run's results read by the one reader and written by the one writer are
the files the run wrote, byte for byte.

    roundtrip.py REWRITE DIR...

REWRITE is tests/results/rewrite (build/tests/results/results-rewrite).  For
each DIR (a directory nvmimic sim --out, qtest --out or run --out wrote):
DIR/results.json read and written again into a temporary directory gives
the same results.json, and the same results.csv and apps.csv where DIR has
them.  One line per file; exit status 1 naming the first line that differs.
"""
import os
import shutil
import subprocess
import sys
import tempfile


def first_difference(a, b):
    la, lb = a.split(b"\n"), b.split(b"\n")
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return "line %d: %r, written back %r" % (i + 1, x[:200], y[:200])
    return "%d lines, written back %d" % (len(la), len(lb))


def check(rewrite, d):
    bad = 0
    tmp = tempfile.mkdtemp(prefix="nvmimic-roundtrip.")
    try:
        p = subprocess.run([rewrite, d, tmp], capture_output=True, text=True)
        if p.returncode:
            print("roundtrip: FAIL %s: rewrite: %s" % (d, p.stderr.strip()))
            return 1
        for name in ("results.json", "results.csv", "apps.csv"):
            src = os.path.join(d, name)
            if name != "results.json" and not os.path.exists(src):
                continue
            with open(src, "rb") as f:
                a = f.read()
            with open(os.path.join(tmp, name), "rb") as f:
                b = f.read()
            if a != b:
                print("roundtrip: FAIL %s: %s" % (src, first_difference(a, b)))
                bad += 1
            else:
                print("roundtrip: ok %s (%d bytes)" % (src, len(a)))
    finally:
        shutil.rmtree(tmp)
    return bad


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    bad = sum(check(argv[0], d) for d in argv[1:])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""profiles/README.md's audit of unsourced values lists every one of today's profiles.

usage: check_honest_count.py SOURCE_ROOT

bench/honest_count.py takes about 30 minutes, so this does not rerun it.  It checks
what can go stale without a rerun: the generated table between the honest:begin and
honest:end markers names exactly the values bench/honest_count.py would perturb in
today's profiles/ (file, section, key and shipped value: a value added, removed,
re-marked or changed since the table was made fails here), each row's "moves" agrees
with its figure and the threshold the table states, and the closing count is the rows'.
It also checks the perturbations the script makes of a switch, a count, a power of two
and a fraction.
"""
import importlib.util
import os
import re
import sys


def fail(msg):
    print("check_honest_count: " + msg)
    sys.exit(1)


def main():
    if len(sys.argv) != 2:
        fail("usage: check_honest_count.py SOURCE_ROOT")
    root = sys.argv[1]
    spec = importlib.util.spec_from_file_location(
        "honest_count", os.path.join(root, "bench", "honest_count.py"))
    hc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hc)

    checks = [("true", [("flipped", "false")]),
              ("4", [("/2", "2"), ("x2", "8")]),
              ("5", [("x0.75", "4"), ("x1.25", "6")]),
              ("2", [("/2", "1"), ("x2", "4")]),
              ("3", [("-1", "2"), ("+1", "4")]),
              ("1536", [("x0.75", "1152"), ("x1.25", "1920")]),
              ("0.5", [("x0.75", "0.375"), ("x1.25", "0.625")]),
              ("0", [])]
    for val, want in checks:
        got = hc.perturbations(val)
        if got != want:
            fail("perturbations(%r) = %r, expected %r" % (val, got, want))

    prof = os.path.join(root, "profiles")
    _, cands = hc.candidates(prof)
    want = {(os.path.relpath(c[0], prof), c[1], c[2], c[3]) for c in cands}
    readme = os.path.join(prof, "README.md")
    with open(readme) as f:
        s = f.read()
    if hc.BEGIN not in s or hc.END not in s:
        fail("%s: no generated audit (markers %s ... %s)" % (readme, hc.BEGIN, hc.END))
    block = s[s.index(hc.BEGIN) + len(hc.BEGIN):s.index(hc.END)]
    m = re.search(r"Moves: a change of ([0-9.]+) % or more", block)
    if not m:
        fail("%s: the audit does not state its threshold" % readme)
    thr = float(m.group(1))
    rows = re.findall(r"^\| `([^`]+)` \| `\[([^\]]+)\] ([^`]+)` \| ([^ |]+) \| "
                      r"([+-][0-9.]+) % \| [^\n]* \| (yes|no) \|$", block, re.M)
    have = set()
    for f, sec, key, val, change, moves in rows:
        k = (f, sec, key, val)
        if k in have:
            fail("%s: the audit lists %s [%s] %s twice" % (readme, f, sec, key))
        have.add(k)
        if (abs(float(change)) >= thr) != (moves == "yes"):
            fail("%s: %s [%s] %s: change %s %% and moves=%s disagree with the %g %% "
                 "threshold" % (readme, f, sec, key, change, moves, thr))
    for k in sorted(want - have):
        fail("%s: the audit lacks %s [%s] %s = %s (rerun bench/honest_count.py --write)"
             % ((readme,) + k))
    for k in sorted(have - want):
        fail("%s: the audit lists %s [%s] %s = %s, which today's profiles do not have "
             "unsourced (rerun bench/honest_count.py --write)" % ((readme,) + k))
    m = re.search(r"^([0-9]+) of ([0-9]+) unsourced values move", block, re.M)
    moved = sum(1 for r in rows if r[5] == "yes")
    if not m or int(m.group(1)) != moved or int(m.group(2)) != len(rows):
        fail("%s: the audit's count line is not its rows' (%d of %d)" %
             (readme, moved, len(rows)))
    print("check_honest_count: ok: %d unsourced values, %d move a peak by %g %% or more"
          % (len(rows), moved, thr))


if __name__ == "__main__":
    main()

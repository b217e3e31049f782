#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check_point_length.py NVMIMIC ROOT [PROFILE_DIR]: the four-corners
peaks that calibrate and fit measure over SHORT_S simulated seconds are
steady: none moves by more than BOUND_PCT when the point lasts twice as
long.

The reviews' points last minutes; calibrate, fit and the calibration test
time each peak over SHORT_S (docs/sim.md, "Point length").  That shorter
point stands for the reviews' only where doubling it changes nothing that
matters: issue 28's bound, 5 %, for every one of the 20 rows.  A change
that leaves a transient in the first SHORT_S (a cache still filling, GC
still fading over a scattered span) fails here.  PROFILE_DIR (default
ROOT/profiles) lets the same check run on a copy of the profiles.
"""
import json
import os
import subprocess
import sys

SHORT_S = 30
LONG_S = 2 * SHORT_S
BOUND_PCT = 5.0

nvmimic, root = sys.argv[1:3]
profiles = sys.argv[3] if len(sys.argv) > 3 else os.path.join(root,
                                                              "profiles")
cmd = [sys.executable, os.path.join(root, "bench", "point_length.py"),
       "--nvmimic", nvmimic, "--lengths", "%d,%d" % (SHORT_S, LONG_S),
       "--json",
       "--reviews", os.path.join(root, "profiles", "reviews",
                                 "four-corners.tsv"),
       "--profile-dir", profiles]
p = subprocess.run(cmd, capture_output=True, text=True, timeout=1500)
if p.returncode != 0:
    sys.exit("check_point_length: FAIL %s exited with %d: %s"
             % (" ".join(cmd[1:3]), p.returncode, p.stderr.strip()[-400:]))
res = json.loads(p.stdout.strip().splitlines()[-1])
bad = []
seen = set()
worst = 0.0
for r in res["rows"]:
    key = (r["drive"], r["workload"])
    seen.add(key)
    moved = abs(r["change_pct"])
    worst = max(worst, moved)
    if moved > BOUND_PCT:
        bad.append("%s %s moves %+.1f %% from %d s to %d s (bound %g %%)"
                   % (key + (r["change_pct"], SHORT_S, LONG_S, BOUND_PCT)))
if len(seen) < 20:
    bad.append("only %d rows calibrated, expected the 20 four-corners rows"
               % len(seen))
for b in bad:
    print("check_point_length: FAIL " + b)
if bad:
    sys.exit(1)
print("check_point_length: all %d rows within %g %% between %d s and %d s "
      "(largest move %.2f %%)" % (len(seen), BOUND_PCT, SHORT_S, LONG_S,
                                  worst))

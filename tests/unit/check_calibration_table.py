#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check_calibration_table.py NVMIMIC ROOT: profiles/README.md's generated
part (the calibration table against the reviews' four-corners.tsv, the
key reference and the mixed-workload sweep, between their markers) and the
sweep's charts (profiles/mix/*.svg) are what `nvmimic calibrate` writes
from today's model and profiles.

A change that moves any fitted figure, a key's bounds or the model's memory
bound fails here until the table is regenerated with the command below, so
the README's residuals, its count of rows within bounds and every figure
in it are today's code's, and the change's diff shows what moved.
"""
import difflib
import os
import shutil
import subprocess
import sys
import tempfile

nvmimic, root = sys.argv[1:3]
readme = os.path.join(root, "profiles", "README.md")
cmd = [nvmimic, "calibrate", "--reviews",
       os.path.join(root, "profiles", "reviews", "four-corners.tsv"),
       "--profile-dir", os.path.join(root, "profiles")]
with tempfile.TemporaryDirectory() as d:
    copy = os.path.join(d, "README.md")
    shutil.copyfile(readme, copy)
    p = subprocess.run(cmd + ["--write", copy], capture_output=True,
                       text=True, timeout=900)
    # 3: some rows are outside the bounds (the table says which)
    if p.returncode not in (0, 3):
        sys.exit(f"check_calibration_table: FAIL nvmimic calibrate exited "
                 f"with {p.returncode}: {p.stderr.strip()}")
    want = open(copy).read().splitlines()
    mix_have = os.path.join(root, "profiles", "mix")
    mix_want = os.path.join(d, "mix")
    svgs = sorted(os.listdir(mix_want)) if os.path.isdir(mix_want) else []
    old = sorted(f for f in os.listdir(mix_have) if f.endswith(".svg")) \
        if os.path.isdir(mix_have) else []
    if not svgs:
        sys.exit("check_calibration_table: FAIL nvmimic calibrate --write "
                 "drew no chart of the mixed-workload sweep")
    stale = [f for f in svgs if f not in old or
             open(os.path.join(mix_want, f), "rb").read() !=
             open(os.path.join(mix_have, f), "rb").read()]
    stale += [f for f in old if f not in svgs]
have = open(readme).read().splitlines()
if stale:
    sys.exit("check_calibration_table: FAIL profiles/mix/ is not today's "
             "(" + ", ".join(stale[:5]) + (" ..." if len(stale) > 5 else "")
             + "); regenerate it: build/nvmimic calibrate --reviews "
             "profiles/reviews/four-corners.tsv --write profiles/README.md")
if want != have:
    diff = list(difflib.unified_diff(have, want, "profiles/README.md",
                                     "nvmimic calibrate", lineterm="", n=0))
    print("\n".join(diff[:40]))
    sys.exit("check_calibration_table: FAIL profiles/README.md's generated "
             "part is not today's (" + str(sum(1 for l in diff if
             l.startswith("+") and not l.startswith("+++"))) +
             " lines differ); regenerate it: build/nvmimic calibrate "
             "--reviews profiles/reviews/four-corners.tsv --write "
             "profiles/README.md")
print("check_calibration_table: OK: profiles/README.md's calibration table, "
      "key reference and mixed-workload sweep, and its %d charts, are "
      "nvmimic calibrate's output" % len(svgs))

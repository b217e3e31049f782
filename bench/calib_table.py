# SPDX-License-Identifier: GPL-2.0-or-later
"""Run `nvmimic calibrate` and read its review-vs-model table.

One reader for the scripts that need the model's four-corners peaks
(bench/honest_count.py, bench/point_length.py): calibrate prints a Markdown
table whose rows are | drive | workload | threads | review IOPS | model IOPS
| ...; the review's cell may carry a "~" (a reconstructed figure), the
model's is a number.
"""
import subprocess


def parse(text):
    """{(drive, workload): (review cell, model IOPS)} of a calibrate table."""
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 5:
            continue
        try:
            model = float(cells[4])
        except ValueError:
            continue            # the header, its rule, prose
        rows[(cells[0], cells[1])] = (cells[3], model)
    return rows


def run(nvmimic, reviews, duration, profile_dir=None):
    """Calibrate; (rows, None), or (None, why) where it gave no table.

    calibrate exits 3 when a row is outside its bounds: the table is still
    whole, so that is not a failure here.  why is the last line calibrate
    printed (a refused profile value names itself there).
    """
    cmd = [nvmimic, "calibrate", "--reviews", reviews,
           "--duration-s", str(duration)]
    if profile_dir:
        cmd += ["--profile-dir", profile_dir]
    p = subprocess.run(cmd, capture_output=True, text=True, check=False)
    rows = parse(p.stdout) if p.returncode in (0, 3) else {}
    if not rows:
        return None, (p.stderr.strip() or p.stdout.strip() or
                      "no output (exit %d)" % p.returncode).splitlines()[-1]
    return rows, None

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""docs/fuzzing.md's table of fuzzing runs, from BUILD/fuzz/stats.tsv.

  fuzz-table.py STATS.tsv [--commit REV] [--write FILE]

One row per run that stats.tsv holds (scripts/fuzz-stats.sh writes them),
then a total of CPU time per target family: the libFuzzer targets on the
model (profile, model, heap), QEMU's generic-fuzz (qemu-baseline,
qemu-profile) and nvmimic-fuzz (qemu-nvmimic).  --commit keeps the runs of
one commit (a prefix of the hash; "-dirty" runs never match).  A row whose
wall time is not its end minus its start, or whose CPU time is not user +
sys, is refused: the table's times must add up.  --write replaces what
lies between <!-- fuzz-table:begin --> and <!-- fuzz-table:end --> in FILE
(the markers are added at its end if missing); else the table is printed.
"""
import argparse
import csv
import datetime
import sys

FAMILIES = [
    ("libFuzzer on the model", ("profile", "model", "heap")),
    ("QEMU generic-fuzz", ("qemu-baseline", "qemu-profile")),
    ("nvmimic-fuzz (QEMU)", ("qemu-nvmimic",)),
]
BEGIN, END = "<!-- fuzz-table:begin -->", "<!-- fuzz-table:end -->"


def utc(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")


def hms(seconds):
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def rows_of(path, commit):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    out = []
    for i, r in enumerate(rows, start=2):
        if commit and not (r["commit"].startswith(commit) and
                           not r["commit"].endswith("-dirty")):
            continue
        wall = (utc(r["end"]) - utc(r["start"])).total_seconds()
        if int(r["wall_s"]) != wall:
            sys.exit(f"{path}:{i}: wall_s {r['wall_s']} is not end - start "
                     f"({wall:.0f} s)")
        if abs(float(r["cpu_s"]) - float(r["user_s"]) -
               float(r["sys_s"])) > 0.15:
            sys.exit(f"{path}:{i}: cpu_s {r['cpu_s']} is not user_s + sys_s")
        out.append(r)
    return out


def table(rows):
    lines = [
        "| start - end (UTC) | target | wall | CPU (user + sys) | executions "
        "| cov | crashes | commit | nice, load |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        s, e = utc(r["start"]), utc(r["end"])
        lines.append(
            f"| {s:%Y-%m-%d %H:%M:%S} - {e:%H:%M:%S} | `{r['target']}` "
            f"| {int(r['wall_s']):,} s | {float(r['cpu_s']):,.0f} s "
            f"({float(r['user_s']):,.0f} + {float(r['sys_s']):,.0f}) "
            f"| {int(r['execs']):,} | {r['cov']} | {r['crashes']} "
            f"| {r['commit']} | {r['nice']}, {r['load1']} |")
    lines += ["", "| family | runs | CPU time | crashes |", "|---|---|---|---|"]
    for name, targets in FAMILIES:
        fam = [r for r in rows if r["target"] in targets]
        cpu = sum(float(r["cpu_s"]) for r in fam)
        crashes = sum(int(r["crashes"]) for r in fam)
        lines.append(f"| {name} | {len(fam)} | {hms(cpu)} ({cpu:,.0f} s) "
                     f"| {crashes} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("stats")
    ap.add_argument("--commit")
    ap.add_argument("--write")
    a = ap.parse_args()
    rows = rows_of(a.stats, a.commit)
    if not rows:
        sys.exit(f"{a.stats}: no run" + (f" of commit {a.commit}"
                                         if a.commit else ""))
    t = table(rows)
    if not a.write:
        print(t)
        return
    try:
        with open(a.write) as f:
            doc = f.read()
    except FileNotFoundError:
        doc = ""
    block = f"{BEGIN}\n{t}\n{END}"
    if BEGIN in doc and END in doc:
        doc = doc[:doc.index(BEGIN)] + block + doc[doc.index(END) + len(END):]
    else:
        doc = doc.rstrip("\n") + ("\n\n" if doc else "") + block + "\n"
    with open(a.write, "w") as f:
        f.write(doc)


if __name__ == "__main__":
    main()

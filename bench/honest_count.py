#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Which unsourced profile values move a fitted four-corners row (issue 28, item 5).

Every value in profiles/ whose comment calls it "unverified", "derived through the model"
or "free" (and that `nvmimic fit` does not move: the [fit] sections) is set, one at a time, in a copy of profiles/, to 0.75x and
1.25x its shipped value (an integer count changes by at least 1, a power of two is halved
and doubled; a switch is flipped), and
`nvmimic calibrate` reruns the four-corners peaks of every drive that uses the file.  The
value "moves" a fitted row when some peak of those drives changes by at least --moves-pct
(default 5: half the 10 % the rows are held to) against the shipped model at the same seed
and point length.  A value the profile loader refuses is reported as refused.

usage: bench/honest_count.py [--nvmimic build/nvmimic] [--duration-s 30] [--only SUBSTR]
                             [--moves-pct 5] [--tsv OUT.tsv] [--write profiles/README.md]
Prints a Markdown table, most sensitive first; --tsv also writes one row per run, --write
puts the table into FILE between its "honest:begin" and "honest:end" markers.  About 30
minutes on two cores at 30 s points (180 values, 427 calibrations of one or two drives).
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calib_table  # noqa: E402  (bench/calib_table.py, beside this file)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP_SECTIONS = {"identity", "parts", "fit"}


def parse_ini(path):
    """(section, key, value, comment, line index) of every key, its comment the
    contiguous comment lines above it."""
    out = []
    section = None
    comment = []
    with open(path) as f:
        lines = f.read().split("\n")
    for i, raw in enumerate(lines):
        line = raw.strip()
        if line.startswith("#"):
            comment.append(line[1:].strip())
            continue
        if not line:
            comment = []
            continue
        m = re.match(r"^\[([^\]]+)\]$", line)
        if m:
            section = m.group(1)
            comment = []
            continue
        m = re.match(r"^([A-Za-z0-9_.-]+)\s*=\s*(.*)$", line)
        if m:
            out.append((section, m.group(1), m.group(2).strip(), " ".join(comment), i))
        comment = []
    return out


def candidates(prof_dir):
    """Unsourced values that the fit does not move, with the drives that use them."""
    drives = sorted(f[:-4] for f in os.listdir(prof_dir) if f.endswith(".ini"))
    users = {}
    for d in drives:
        keys = parse_ini(os.path.join(prof_dir, d + ".ini"))
        users[os.path.join(prof_dir, d + ".ini")] = [d]
        for sec, key, val, _, _ in keys:
            if sec == "parts":
                kind = "nand" if key == "nand" else "controller"
                p = os.path.join(prof_dir, "parts", kind, val + ".ini")
                users.setdefault(p, []).append(d)
    out = []
    for path in sorted(users):
        keys = parse_ini(path)
        fitted = {tuple(k.split(".", 1)) for sec, k, _, _, _ in keys if sec == "fit"}
        for sec, key, val, com, idx in keys:
            low = com.lower()
            if sec in SKIP_SECTIONS or sec is None or (sec, key) in fitted:
                continue
            # unsourced: marked unverified, derived through the model from an outside
            # figure, or a free switch; "derived" alone is arithmetic on sourced facts
            if not ("unverified" in low or "through the model" in low or "free" in low):
                continue
            if val in ("true", "false") or re.match(r"^-?[0-9]+(\.[0-9]+)?$", val):
                out.append((path, sec, key, val, idx, users[path]))
    return drives, out


def perturbations(val):
    if val in ("true", "false"):
        return [("flipped", "false" if val == "true" else "true")]
    if "." in val:
        v = float(val)
        if v == 0:
            return []
        return [("x0.75", "%g" % (v * 0.75)), ("x1.25", "%g" % (v * 1.25))]
    v = int(val)
    if v == 0:
        return []
    if v >= 2 and v & (v - 1) == 0:
        # a power of two (planes, page and chunk sizes, payloads): its neighbours
        return [("/2", str(v // 2)), ("x2", str(v * 2))]
    lo = int(round(v * 0.75))
    hi = int(round(v * 1.25))
    lo = min(lo, v - 1)
    hi = max(hi, v + 1)
    return [("x0.75" if v >= 4 else "-1", str(lo)), ("x1.25" if v >= 4 else "+1", str(hi))]


def run_calibrate(nvmimic, prof_dir, reviews, duration):
    rows, err = calib_table.run(nvmimic, reviews, duration, prof_dir)
    if rows is None:
        return None, err
    return {k: v[1] for k, v in rows.items()}, None


def reviews_for(src, drives, dst):
    with open(src) as f, open(dst, "w") as o:
        header = False
        for line in f:
            if line.startswith("#"):
                continue
            if not header:
                o.write(line)
                header = True
                continue
            if line.split("\t")[0] in drives:
                o.write(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nvmimic", default=os.path.join(ROOT, "build", "nvmimic"))
    ap.add_argument("--profiles", default=os.path.join(ROOT, "profiles"))
    ap.add_argument("--reviews", default=os.path.join(ROOT, "profiles", "reviews",
                                                      "four-corners.tsv"))
    ap.add_argument("--duration-s", type=float, default=30)
    ap.add_argument("--moves-pct", type=float, default=5.0)
    ap.add_argument("--only", default="", help="only files whose path contains this")
    ap.add_argument("--tsv")
    ap.add_argument("--write", help="put the table into this file between its markers")
    ap.add_argument("--from-tsv", help="no simulation: the table of an earlier run's --tsv "
                    "(the values of today's profiles; one the run lacks shows no change)")
    a = ap.parse_args()

    if a.from_tsv:
        results = from_tsv(a.profiles, a.from_tsv, a.only)
    else:
        results = measure(a)
    results.sort(key=lambda r: (-abs(r[4][0]), r[0], r[2]))
    text = table(results, a.duration_s, a.moves_pct)
    print(text, end="")
    if a.write:
        write_block(a.write, text)


def measure(a):
    """Each candidate's largest change, calibrating in a copy of profiles/."""
    tmp = tempfile.mkdtemp(prefix="honest-count-")
    try:
        copy = os.path.join(tmp, "profiles")
        shutil.copytree(a.profiles, copy)
        drives, cands = candidates(copy)
        cands = [c for c in cands if a.only in os.path.relpath(c[0], copy)]
        rev_all = os.path.join(tmp, "all.tsv")
        reviews_for(a.reviews, drives, rev_all)
        base, err = run_calibrate(a.nvmimic, copy, rev_all, a.duration_s)
        if base is None:
            sys.exit("honest_count: the shipped profiles do not calibrate: " + err)
        tsv = open(a.tsv, "w") if a.tsv else None
        if tsv:
            tsv.write("file\tsection\tkey\tshipped\trun\tvalue\tmax_pct\trow\tnote\n")
        results = []
        for n, (path, sec, key, val, idx, used) in enumerate(cands):
            rel = os.path.relpath(path, copy)
            with open(path) as f:
                orig = f.read()
            lines = orig.split("\n")
            rev = os.path.join(tmp, "some.tsv")
            reviews_for(a.reviews, used, rev)
            worst = (0.0, "", "", "")
            notes = []
            for label, new in perturbations(val):
                lines2 = list(lines)
                lines2[idx] = "%s = %s" % (key, new)
                with open(path, "w") as f:
                    f.write("\n".join(lines2))
                peaks, err = run_calibrate(a.nvmimic, copy, rev, a.duration_s)
                with open(path, "w") as f:
                    f.write(orig)
                if peaks is None:
                    err = err.replace(copy + os.sep, "profiles" + os.sep)
                    notes.append("%s %s refused: %s" % (label, new, err))
                    if tsv:
                        tsv.write("\t".join([rel, sec, key, val, label, new, "", "", err]) + "\n")
                    continue
                for row, iops in peaks.items():
                    d = 100.0 * (iops / base[row] - 1) if base.get(row) else 0.0
                    if abs(d) > abs(worst[0]):
                        worst = (d, "%s %s" % row, label, new)
                    if tsv:
                        tsv.write("\t".join([rel, sec, key, val, label, new, "%+.1f" % d,
                                             "%s %s" % row, ""]) + "\n")
            results.append((rel, sec, key, val, worst, notes, used))
            print("honest_count: %d/%d %s [%s] %s: %+.1f %% %s" %
                  (n + 1, len(cands), rel, sec, key, worst[0], worst[1]),
                  file=sys.stderr, flush=True)
        if tsv:
            tsv.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return results


def from_tsv(prof_dir, path, only=""):
    """The results of an earlier run, from its --tsv, for today's values."""
    runs = {}
    with open(path) as f:
        next(f)
        for line in f:
            rel, sec, key, val, label, new, pct, row, note = line.rstrip("\n").split("\t")
            runs.setdefault((rel, sec, key, val), []).append((label, new, pct, row, note))
    _, cands = candidates(prof_dir)
    results = []
    for path_, sec, key, val, _, used in cands:
        rel = os.path.relpath(path_, prof_dir)
        if only not in rel:
            continue
        worst = (0.0, "", "", "")
        notes = []
        for label, new, pct, row, note in runs.get((rel, sec, key, val), []):
            if note:
                note = re.sub(r"/\S*honest-count-[^/]+/profiles/", "profiles/", note)
                notes.append("%s %s refused: %s" % (label, new, note))
            elif abs(float(pct)) > abs(worst[0]):
                worst = (float(pct), row, label, new)
        results.append((rel, sec, key, val, worst, notes, used))
    return results


def table(results, duration, moves_pct):
    out = ["Unsourced values against the four-corners peaks (`bench/honest_count.py "
           "--duration-s %g --write profiles/README.md`): each value set to 0.75x and 1.25x "
           "(a count by at least 1, a power of two halved and doubled, a switch flipped) in "
           "a copy of `profiles/`, and the largest change of a four-corners peak of the "
           "drives that use it, against the shipped model at the same seed.  Moves: a "
           "change of %g %% or more." % (duration, moves_pct), "",
           "| file | value | shipped | largest change | where | moves |",
           "|---|---|---|---|---|---|"]
    for rel, sec, key, val, worst, notes, used in results:
        d, row, label, new = worst
        where = "%s (%s = %s)" % (row, label, new) if row else "-"
        if notes:
            where += "; " + "; ".join(notes)
        out.append("| `%s` | `[%s] %s` | %s | %+.1f %% | %s | %s |" %
                   (rel, sec, key, val, d, where.replace("|", "/"),
                    "yes" if abs(d) >= moves_pct else "no"))
    moved = sum(1 for r in results if abs(r[4][0]) >= moves_pct)
    out += ["", "%d of %d unsourced values move a peak by %g %% or more." %
            (moved, len(results), moves_pct)]
    return "\n".join(out) + "\n"


BEGIN = "<!-- honest:begin (generated by bench/honest_count.py) -->"
END = "<!-- honest:end -->"


def write_block(path, text):
    with open(path) as f:
        s = f.read()
    if BEGIN not in s or END not in s:
        sys.exit("honest_count: %s: no %s ... %s markers" % (path, BEGIN, END))
    a = s.index(BEGIN) + len(BEGIN)
    b = s.index(END)
    with open(path, "w") as f:
        f.write(s[:a] + "\n" + text + s[b:])


if __name__ == "__main__":
    main()

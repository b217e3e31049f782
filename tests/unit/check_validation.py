#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check_validation.py NVMIMIC ROOT [self-test]: the validation figures
(profiles/reviews/validation.tsv) and nvmimic validate's table.

- The file has every column, and every row a value each column takes
  (nvmimic validate's own parser agrees: it exits 0 on the file and 1, with
  one line naming the column, on a row that lacks one).
- No row echoes: its value is not a profile or part value of its drive
  (a -mbps key, or the SLC cache size), no comment that derives a value
  names its source and its value, it is not a saturated rate of a workload
  class whose four-corners row is set by its own free parameter (a drive
  family with as many free parameters as fitted rows), and no two rows
  quote one figure for two drives.
- profiles/README.md's validation table is what nvmimic validate writes
  today; each row's error is (model - published) / published, the median
  it prints is the median of its rows' |error|, and there are at least the
  15 figures issue 28 asks for.
- Each row's `run` command (nvmimic sim) gives the model figure the table
  shows.

self-test: the echo checks flag a row of each kind, and validate refuses a
row without its unit.
"""
import configparser
import csv
import glob
import importlib.util
import io
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from urllib.parse import urlparse

COLUMNS = ["drive", "unit", "kind", "figure", "metric", "value", "state",
           "op", "bs", "qd", "pattern", "span_gb", "from_gb", "to_gb",
           "seconds", "measured", "source"]


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def read_rows(text):
    lines = [l for l in text.splitlines() if l and not l.startswith("#")]
    rows = list(csv.reader(io.StringIO("\n".join(lines)), delimiter="\t",
                           quoting=csv.QUOTE_NONE))
    check(rows and rows[0] == COLUMNS,
          "validation.tsv: the header is %r, not %r"
          % (rows[0] if rows else None, COLUMNS))
    out = []
    for i, r in enumerate(rows[1:], 2):
        check(len(r) == len(COLUMNS), "data line %d: %d columns, %d wanted"
              % (i, len(r), len(COLUMNS)))
        row = dict(zip(COLUMNS, r))
        for c in COLUMNS:
            check(row[c].strip(), "data line %d: column %s is empty" % (i, c))
        check(row["kind"] in ("measured", "spec"), "line %d: kind" % i)
        check(row["state"] in ("empty", "review"), "line %d: state" % i)
        check(urlparse(row["source"]).scheme in ("http", "https")
              and urlparse(row["source"]).hostname,
              "line %d: source is not a URL" % i)
        row["value"] = float(row["value"])
        row["bs"] = int(row["bs"])
        row["qd"] = int(row["qd"])
        out.append(row)
    return out


def ini(path):
    cp = configparser.ConfigParser(interpolation=None, strict=False,
                                   comment_prefixes=("#",),
                                   inline_comment_prefixes=None)
    cp.optionxform = str
    cp.read(path)
    return cp


_honest_count = None


def comment_blocks(path):
    """Each key ("[section] key") with the comment lines just above it, as
    one text, as bench/honest_count.py reads a profile."""
    global _honest_count
    if _honest_count is None:
        spec = importlib.util.spec_from_file_location(
            "honest_count", os.path.join(os.path.dirname(os.path.abspath(
                __file__)), "..", "..", "bench", "honest_count.py"))
        _honest_count = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_honest_count)
    return [("[%s] %s" % (sec, key), com)
            for sec, key, _, com, _ in _honest_count.parse_ini(path)]


class Profiles:
    def __init__(self, pdir):
        self.pdir = pdir
        self.files, self.parts = {}, {}
        for p in glob.glob(os.path.join(pdir, "*.ini")):
            name = os.path.basename(p)[:-4]
            cp = ini(p)
            parts = [os.path.join(pdir, "parts", kind, cp["parts"][kind] +
                                  ".ini")
                     for kind in ("nand", "controller")
                     if cp.has_section("parts") and kind in cp["parts"]]
            self.files[name] = [p] + parts
            self.parts[name] = parts
        self.four = {}
        tsv = os.path.join(pdir, "reviews", "four-corners.tsv")
        lines = [l for l in open(tsv) if l.strip() and not l.startswith("#")]
        for r in list(csv.DictReader(io.StringIO("".join(lines)),
                                     delimiter="\t"))[0:]:
            self.four.setdefault(r["drive"], []).append(r)

    def values(self, drive):
        """(key, value text) of the drive's profile and parts."""
        out = []
        for f in self.files[drive]:
            cp = ini(f)
            for sec in cp.sections():
                for k, v in cp[sec].items():
                    out.append((k, v.strip()))
        return out

    def slc_gb(self, drive):
        cp = ini(self.files[drive][0])
        c = cp["cache"]
        return (float(c["slc-static-bytes"]) +
                float(c["slc-dynamic-max-bytes"])) / 1e9

    def family(self, drive):
        """The drives that share a part with @drive, transitively."""
        fam, todo = {drive}, [drive]
        while todo:
            d = todo.pop()
            for o in self.files:
                if o not in fam and set(self.parts[o]) & set(self.parts[d]):
                    fam.add(o)
                    todo.append(o)
        return fam

    def free_params(self, drives):
        free = set()
        for d in drives:
            for f in self.parts[d]:
                for line in open(f):
                    m = re.match(r"\s*((controller|nand)\.[a-z0-9-]+)\s*=\s*"
                                 r"[0-9.]+\.\.[0-9.]+", line)
                    if m:
                        free.add((f, m.group(1)))
        return free


def num_in(text, value):
    v = ("%g" % value).replace(".", r"\.")
    return re.search(r"(?<![0-9.])" + v + r"(?![0-9])", text) is not None


def echoes(rows, prof):
    """One line per row that echoes a profile value, a fitted row or
    another drive's row."""
    bad = []
    for i, r in enumerate(rows):
        d, what = r["drive"], "%s %r" % (r["drive"], r["figure"])
        if d not in prof.files:
            bad.append("%s: no profile %s" % (what, d))
            continue
        # a value set from the figure
        if r["metric"] in ("mbps", "write_mbps"):
            for k, v in prof.values(d):
                try:
                    x = float(v)
                except ValueError:
                    continue
                if k.endswith("-mbps") and abs(x - r["value"]) <= \
                        0.005 * r["value"]:
                    bad.append("%s: reads back %s = %s" % (what, k, v))
        if r["metric"] == "slc_gb" and \
                abs(prof.slc_gb(d) - r["value"]) <= 0.05 * r["value"]:
            bad.append("%s: reads back the profile's SLC cache size" % what)
        # a value derived from the figure: a comment that names the
        # source's host and the figure's value
        host = urlparse(r["source"]).hostname.removeprefix("www.")
        for f in prof.files[d]:
            for key, text in comment_blocks(f):
                if host in text and num_in(text, r["value"]):
                    bad.append("%s: %s derives %s from it" %
                               (what, os.path.basename(f), key))
        # a saturated rate of a workload whose fitted row has its own free
        # parameter
        fam = prof.family(d)
        nrows = sum(len(prof.four.get(x, [])) for x in fam)
        if nrows and len(prof.free_params(fam)) >= nrows:
            for c in prof.four.get(d, []):
                seq = c["pattern"] == "sequential"
                same = (c["rw"] == r["op"] and
                        (r["pattern"] == "seq") == seq and
                        ((r["bs"] >= 65536) if seq else (r["bs"] <= 16384)))
                if same and r["qd"] >= min(16, int(c["stated_threads"])):
                    bad.append("%s: the saturated %s that %s's free "
                               "parameters set one each"
                               % (what, c["workload"], d))
    seen = {}
    for r in rows:
        key = (r["metric"], r["value"], r["op"], r["bs"], r["qd"],
               r["pattern"], r["from_gb"], r["to_gb"], r["source"])
        if key in seen:
            bad.append("%s %r: duplicates %s's row"
                       % (r["drive"], r["figure"], seen[key]))
        seen.setdefault(key, r["drive"])
    return bad


def run(argv, timeout=900):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    check(p.returncode >= 0, "%s died on signal %d" % (argv[:3], -p.returncode))
    return p


def table(text):
    """The rows of validate's markdown table and its summary line."""
    rows, summary = [], None
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith("| drive") \
                and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            rows.append(cells)
        m = re.match(r"(\d+) figures \((\d+) measured, (\d+) spec-sheet\); "
                     r"median absolute error ([0-9.]+) %, largest ([0-9.]+) "
                     r"%; over the measured ones ([0-9.]+) %\.", line)
        if m:
            summary = m
    return rows, summary


def cliff_rate(out, lo, hi):
    gb, secs, prev = 0.0, 0.0, 0.0
    for line in out.splitlines():
        f = line.split()
        if len(f) == 5 and f[4] == "fill":
            at, mbps = float(f[0]), float(f[1])
            if lo + 1e-9 < at <= hi + 1e-9:
                gb += at - prev
                secs += (at - prev) * 1e3 / mbps
            prev = at
    return gb * 1e3 / secs


def main(nvmimic, root):
    pdir = os.path.join(root, "profiles")
    tsv = os.path.join(pdir, "reviews", "validation.tsv")
    readme = os.path.join(pdir, "README.md")
    rows = read_rows(open(tsv).read())
    prof = Profiles(pdir)
    bad = echoes(rows, prof)
    check(not bad, "rows that echo:\n  " + "\n  ".join(bad))
    print("ok: %d rows, every column; none echoes a profile value, a fitted "
          "row or another drive's row" % len(rows))

    with tempfile.TemporaryDirectory() as d:
        copy = os.path.join(d, "README.md")
        shutil.copyfile(readme, copy)
        p = run([nvmimic, "validate", "--figures", tsv, "--profile-dir", pdir,
                 "--write", copy])
        check(p.returncode == 0, "validate exited %d: %s"
              % (p.returncode, p.stderr[-400:]))
        check(open(copy).read() == open(readme).read(),
              "profiles/README.md's validation table is not today's; "
              "regenerate it: build/nvmimic validate --figures "
              "profiles/reviews/validation.tsv --write profiles/README.md")
    trows, summary = table(p.stdout)
    check(summary, "no summary line in validate's output")
    check(len(trows) == len(rows) == int(summary.group(1)),
          "%d table rows, %d figures, summary says %s"
          % (len(trows), len(rows), summary.group(1)))
    check(len(rows) >= 15, "%d figures, issue 28 asks for at least 15"
          % len(rows))
    errs, errs_meas = [], []
    cliff_out = {}
    for r, t in zip(rows, trows):
        pub = float(t[4].split()[0])
        model = float(t[5])
        err = float(t[6].split()[0])
        check(pub == r["value"], "%s: published %s, file %s"
              % (t[1], pub, r["value"]))
        want = 100 * (model - pub) / pub
        check(abs(err - want) <= 0.05 + 50 / pub,
              "%s: error %.1f %%, (model - published) / published is %.2f %%"
              % (t[1], err, want))
        errs.append(abs(err))
        if r["kind"] == "measured":
            errs_meas.append(abs(err))
        cmd = t[7].strip("`").split()
        check(cmd[0] == "nvmimic", "%s: run column %r" % (t[1], t[7]))
        argv = [nvmimic] + cmd[1:] + ["--profile-dir", pdir]
        if "slc-cliff" in cmd:
            key = " ".join(cmd)
            if key not in cliff_out:
                q = run(argv)
                check(q.returncode == 0, "%s exited %d" % (key, q.returncode))
                cliff_out[key] = q.stdout
            check(r["metric"] == "write_mbps", "slc_gb rows: not checked here")
            hi = math.inf if r["to_gb"] == "end" else float(r["to_gb"])
            got = cliff_rate(cliff_out[key], float(r["from_gb"]), hi)
            check(abs(got - model) <= 0.005 * model + 0.5,
                  "%s: the run gives %.1f MB/s, the table %.0f"
                  % (t[1], got, model))
        else:
            q = run(argv)
            check(q.returncode == 0, "%s exited %d: %s"
                  % (" ".join(cmd), q.returncode, q.stderr))
            m = re.search(r"iops ([0-9.]+) mbps ([0-9.]+) lat_us ([0-9.]+)",
                          q.stdout)
            check(m, "%s printed no figures" % " ".join(cmd))
            got = float(m.group({"iops": 1, "mbps": 2, "lat_us": 3}[
                r["metric"]]))
            check(abs(got - model) <= 0.5 + 1e-6 * model,
                  "%s: the run gives %.1f, the table %.0f"
                  % (t[1], got, model))
    med = statistics.median(errs)
    check(abs(med - float(summary.group(4))) <= 0.051,
          "the table's median is %s %%, its rows' is %.2f %%"
          % (summary.group(4), med))
    check(abs(statistics.median(errs_meas) - float(summary.group(6)))
          <= 0.051, "the measured rows' median is not the printed one")
    check(abs(max(errs) - float(summary.group(5))) <= 0.051,
          "the largest error is not the printed one")
    print("ok: profiles/README.md's table is validate's; %d figures, median "
          "|error| %.1f %% is its rows' median; each row's sim command "
          "gives its model figure" % (len(rows), med))


def self_test(nvmimic, root):
    pdir = os.path.join(root, "profiles")
    tsv = os.path.join(pdir, "reviews", "validation.tsv")
    text = open(tsv).read()
    prof = Profiles(pdir)
    rows = read_rows(text)
    check(not echoes(rows, prof), "the shipped rows echo")
    base = dict(rows[0])
    cases = {
        "a value set from it (write-path-mbps)":
            dict(base, drive="crucial-p5-1tb", metric="mbps", value=3000.0,
                 op="write", pattern="seq", bs=131072, qd=32,
                 figure="echo", source="https://example.org/a"),
        "a fitted row (670p 4K random read at QD256)":
            dict(base, drive="intel-670p-2tb", metric="iops", value=310000.0,
                 op="read", pattern="rand", bs=4096, qd=256, figure="echo",
                 source="https://example.org/b"),
        "a derived value (the E13T's write cost)":
            dict(base, drive="crucial-p2-2tb", metric="mbps", value=276.0,
                 op="write", pattern="rand", bs=4096, qd=32, figure="echo",
                 source="http://shxiaobear.com/x"),
        "the SLC cache size": dict(base, drive="crucial-p5-1tb",
                                   metric="slc_gb", value=100.0,
                                   figure="echo",
                                   source="https://example.org/c"),
    }
    for name, row in cases.items():
        check(echoes([row], prof), "not flagged: " + name)
        print("ok: flags " + name)
    dup = [dict(base, drive="crucial-p5-1tb"), dict(base,
                                                    drive="crucial-p5-2tb")]
    check(any("duplicates" in b for b in echoes(dup, prof)),
          "not flagged: one figure for two drives")
    print("ok: flags one figure quoted for two drives")
    # validate refuses a row without its unit, naming the column
    lines = text.splitlines(keepends=True)
    i = next(k for k, l in enumerate(lines)
             if l.strip() and not l.startswith("#") and
             not l.startswith("drive\t"))
    cells = lines[i].rstrip("\n").split("\t")
    cells[1] = ""
    lines[i] = "\t".join(cells) + "\n"
    with tempfile.TemporaryDirectory() as d:
        bad = os.path.join(d, "v.tsv")
        open(bad, "w").write("".join(lines))
        p = run([nvmimic, "validate", "--figures", bad, "--profile-dir",
                 pdir])
        err = p.stderr.strip().splitlines()
        check(p.returncode == 1 and len(err) == 1 and "column unit" in err[0]
              and p.stdout == "", "validate on a row without its unit: "
              "exit %d, %r" % (p.returncode, p.stderr))
        print("ok: validate refuses it: " + err[0])


if __name__ == "__main__":
    try:
        if len(sys.argv) > 3 and sys.argv[3] == "self-test":
            self_test(sys.argv[1], sys.argv[2])
        else:
            main(sys.argv[1], sys.argv[2])
    except Fail as e:
        sys.exit("check_validation: FAIL " + str(e))

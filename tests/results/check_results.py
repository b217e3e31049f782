#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""results.json and results.csv: one schema, one reader, one writer.

    check_results.py NVMIMIC REWRITE WORKDIR CHECK

CHECK is one of
  sim-schema   nvmimic sim's JSON (four corners and VDI, every profile, and
               sim --out) validates against docs/results.schema.json
  fixpoint     writing what the reader read gives the same bytes the second
               time (results.json, results.csv, apps.csv), for the report's
               fixtures; results.csv has run's columns
  report-csv   nvmimic report leaves results.csv byte-identical, the suite
               column included, for a guest run and a model run
"""
import csv
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..")
FIXTURES = [os.path.join(SRC, "tests", "report", f) for f in
            ("fixture-guest.json", "fixture-apps.json",
             "fixture-apps-only.json")]
COLUMNS = ["profile", "workload", "threads", "point", "target_pct",
           "target_iops", "iops", "mbps", "lat_us", "p50_us", "p99_us",
           "p999_us", "host_iops", "host_lat_us", "host_p99_us",
           "host_limited", "shortfall_pct", "sim_lat_us", "suite"]
fails = 0


def check(ok, msg):
    global fails
    if not ok:
        print("FAIL " + msg)
        fails += 1


def run(*argv):
    return subprocess.run(argv, capture_output=True, text=True)


def validate(*paths):
    p = run("/usr/bin/python3", os.path.join(HERE, "validate.py"), *paths)
    sys.stdout.write(p.stdout)
    check(p.returncode == 0, "schema: %s" % " ".join(paths))


def read(path):
    with open(path, "rb") as f:
        return f.read()


def t_sim_schema(nvmimic, rewrite, work):
    names = [line.split()[0] for line in
             run(nvmimic, "profiles").stdout.splitlines()]
    check(len(names) >= 5, "profiles: %s" % names)
    for name in names:
        for suite in ("four-corners", "vdi"):
            p = run(nvmimic, "sim", "--profile", name, "--suite", suite,
                    "--duration-s", "0.05", "--format", "json")
            check(p.returncode == 0, "sim %s %s: %s" % (name, suite,
                                                          p.stderr))
            d = os.path.join(work, "%s-%s" % (name, suite))
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "results.json"), "w") as f:
                f.write(p.stdout)
            doc = json.loads(p.stdout)
            check(doc["schema_version"] == 1 and doc["suite"] == suite,
                  "sim %s %s: schema_version / suite" % (name, suite))
    out = os.path.join(work, "out")
    p = run(nvmimic, "sim", "--profile", names[0], "--suite", "four-corners",
            "--duration-s", "0.05", "--out", out)
    check(p.returncode == 0, "sim --out: %s" % p.stderr)
    validate(work)
    # the schema can fail: a point without its IOPS, a string for a count
    bad = os.path.join(work, "bad")
    os.makedirs(bad)
    doc = json.loads(read(os.path.join(out, "results.json")))
    del doc["workloads"][0]["curve"][3]["iops"]
    doc["workloads"][1]["threads"] = "64"
    with open(os.path.join(bad, "results.json"), "w") as f:
        json.dump(doc, f)
    p = run("/usr/bin/python3", os.path.join(HERE, "validate.py"), bad)
    check(p.returncode == 1 and "workloads/0/curve/3" in p.stdout and
          "workloads/1/threads" in p.stdout,
          "a broken file validated: %s" % p.stdout)


def t_fixpoint(nvmimic, rewrite, work):
    for fx in FIXTURES:
        base = os.path.splitext(os.path.basename(fx))[0]
        src, a, b = (os.path.join(work, base, x) for x in ("in", "a", "b"))
        os.makedirs(src, exist_ok=True)
        shutil.copy(fx, os.path.join(src, "results.json"))
        for i, o in ((src, a), (a, b)):
            p = run(rewrite, i, o)
            check(p.returncode == 0, "rewrite %s: %s" % (i, p.stderr))
        for name in ("results.json", "results.csv", "apps.csv"):
            check(read(os.path.join(a, name)) == read(os.path.join(b, name)),
                  "%s: %s changes when written a second time" % (base, name))
        with open(os.path.join(a, "results.csv"), newline="") as f:
            rows = list(csv.reader(f))
        check(rows[0] == COLUMNS, "%s: columns %s" % (base, rows[0]))
        doc = json.loads(read(os.path.join(a, "results.json")))
        check(doc["schema_version"] == 1, "%s: schema_version" % base)
        npts = sum(len(w["curve"]) + (w["peak"] is not None)
                   for w in doc["workloads"])
        check(len(rows) - 1 == npts, "%s: %d rows for %d points"
              % (base, len(rows) - 1, npts))
        print("ok %s: read and written twice, the same bytes" % base)


def t_report_csv(nvmimic, rewrite, work):
    # a guest run as run writes it (the writer's output of a fixture with
    # suites), and a model run (sim --out)
    guest = os.path.join(work, "guest")
    src = os.path.join(work, "in")
    os.makedirs(src, exist_ok=True)
    shutil.copy(FIXTURES[1], os.path.join(src, "results.json"))
    check(run(rewrite, src, guest).returncode == 0, "rewrite")
    model = os.path.join(work, "model")
    p = run(nvmimic, "sim", "--profile", "crucial-p5-2tb", "--suite",
            "four-corners", "--duration-s", "0.05", "--out", model)
    check(p.returncode == 0, "sim --out: %s" % p.stderr)
    for d in (guest, model):
        before = read(os.path.join(d, "results.csv"))
        p = run(nvmimic, "report", d)
        check(p.returncode == 0, "report %s: %s" % (d, p.stderr))
        after = read(os.path.join(d, "results.csv"))
        check(before == after, "report %s changed results.csv:\n%s\n%s"
              % (d, before[:300], after[:300]))
        rows = list(csv.reader(after.decode().splitlines()))
        check(rows[0] == COLUMNS, "%s: columns %s" % (d, rows[0]))
        suites = {r[-1] for r in rows[1:]}
        check(suites and "" not in suites, "%s: suite column %s" % (d, suites))
        print("ok report %s: results.csv unchanged, suites %s"
              % (os.path.basename(d), sorted(suites)))


CHECKS = {"sim-schema": t_sim_schema, "fixpoint": t_fixpoint,
          "report-csv": t_report_csv}

if __name__ == "__main__":
    nvmimic, rewrite, work, what = sys.argv[1:5]
    work = os.path.join(work, what)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    CHECKS[what](nvmimic, rewrite, work)
    sys.exit(1 if fails else 0)

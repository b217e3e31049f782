#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""results.json and results.csv: one schema, one reader, one writer.

    check_results.py NVMIMIC REWRITE WORKDIR CHECK

CHECK is one of
  sim-schema   nvmimic sim's JSON (four corners and VDI, every profile, and
               sim --out) validates against docs/results.schema.json
  roundtrip    what sim writes, read and written again, is the same bytes
               (roundtrip.py); the report's hand-made fixtures keep every
               member, and written a second time give the same bytes;
               members the reader does not know are written back where
               they were; results.csv has run's columns
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


def pairs(text):
    """JSON with every object as its list of (member, value), in order."""
    return json.loads(text, object_pairs_hook=list)


def rounded_equal(a, b):
    """The writer rounds IOPS to 0.1 and the rest to 0.01 or finer."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= 0.05 + 1e-9 * abs(a)
    return a == b


def kept(a, b, where, out):
    """Every member of @a is in @b with its value (in the writer's order:
    a hand-made file has its own)."""
    if isinstance(a, list) and a and all(isinstance(m, tuple) for m in a):
        bd = dict(b) if isinstance(b, list) else {}
        for k, v in a:
            if k not in bd:
                out.append("%s/%s: dropped" % (where, k))
            else:
                kept(v, bd[k], "%s/%s" % (where, k), out)
    elif isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            out.append("%s: %r became %r" % (where, a, b))
            return
        for i, (x, y) in enumerate(zip(a, b)):
            kept(x, y, "%s/%d" % (where, i), out)
    elif not rounded_equal(a, b):
        out.append("%s: %r became %r" % (where, a, b))


def rewrite_dir(rewrite, src, dst):
    p = run(rewrite, src, dst)
    check(p.returncode == 0, "rewrite %s: %s" % (src, p.stderr))


def roundtrip(rewrite, d):
    p = run("/usr/bin/python3", os.path.join(HERE, "roundtrip.py"), rewrite, d)
    sys.stdout.write(p.stdout)
    check(p.returncode == 0, "%s does not read and write back as it was" % d)


def with_unknown_members(text):
    """Members a later writer might add, at the top (first, between two,
    last), in a workload, its points, its model curve, a FIG, an app, a
    step, a device and a device class."""
    doc = json.loads(text, object_pairs_hook=list)

    def add(obj, pos, k, v):
        obj.insert(len(obj) if pos is None else pos, (k, v))

    def get(obj, k):
        return dict(obj)[k]

    add(doc, 0, "x_first", [["a", 1.5], {"b": None}])
    add(doc, 3, "x_between", "text")
    add(doc, None, "x_last", True)
    for w in get(doc, "workloads"):
        add(w, 1, "x_workload", 3)
        pk = get(w, "peak")
        add(pk, 0, "x_peak", {"n": 1})
        for pt in get(w, "curve")[1:2]:
            add(pt, None, "x_point", [])
        if "sim" in dict(w):
            add(get(get(w, "sim"), "peak"), None, "x_sim", 2.25)
        if "read" in dict(pk):
            add(get(pk, "read"), 2, "x_fig", -1)
    for a in get(doc, "apps") if "apps" in dict(doc) else []:
        add(a, 2, "x_app", "y")
        for st in get(a, "steps") if "steps" in dict(a) else []:
            add(st, None, "x_step", 0)
        dev = get(a, "device")
        if dev:
            add(dev, 1, "x_device", 1)
            for _, c in get(dev, "classes"):
                add(c, 0, "x_class", 1)
    return json.dumps(doc_to_json(doc), indent=1)


def doc_to_json(x):
    """pairs() back into something json.dumps writes in the same order."""
    if isinstance(x, list) and x and all(isinstance(m, tuple) for m in x):
        return {k: doc_to_json(v) for k, v in x}
    if isinstance(x, list):
        return [doc_to_json(v) for v in x]
    return x


def t_roundtrip(nvmimic, rewrite, work):
    # what the commands write reads back and writes as it was, byte for
    # byte: sim --out (four corners), sim --format json (VDI: the same
    # text, printed with a newline); run's and qtest's files are checked
    # where their tests run them (tests/harness/run_quick.sh,
    # run_suites.sh, tests/qtest/check_qtest.py)
    out = os.path.join(work, "sim-fc")
    p = run(nvmimic, "sim", "--profile", "crucial-p2-500g", "--suite",
            "four-corners", "--duration-s", "0.05", "--out", out)
    check(p.returncode == 0, "sim --out: %s" % p.stderr)
    roundtrip(rewrite, out)
    vdi = os.path.join(work, "sim-vdi")
    os.makedirs(vdi)
    p = run(nvmimic, "sim", "--profile", "crucial-p2-500g", "--suite", "vdi",
            "--duration-s", "0.05", "--format", "json")
    check(p.returncode == 0 and p.stdout.endswith("}\n"),
          "sim --format json: %s" % p.stderr)
    with open(os.path.join(vdi, "results.json"), "w") as f:
        f.write(p.stdout[:-1])
    roundtrip(rewrite, vdi)

    # hand-made files (the report's fixtures): every member is kept, its
    # value as the writer rounds it; written again, the
    # same bytes; results.csv has run's columns and a row per point
    for fx in FIXTURES:
        base = os.path.splitext(os.path.basename(fx))[0]
        src, a, b = (os.path.join(work, base, x) for x in ("in", "a", "b"))
        os.makedirs(src, exist_ok=True)
        shutil.copy(fx, os.path.join(src, "results.json"))
        rewrite_dir(rewrite, src, a)
        lost = []
        kept(pairs(read(fx)), pairs(read(os.path.join(a, "results.json"))),
             "", lost)
        check(not lost, "%s: read and written, %d members lost or changed:"
              "\n  %s" % (base, len(lost), "\n  ".join(lost[:10])))
        bad = fails
        rewrite_dir(rewrite, a, b)
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
        if fails == bad:
            print("ok %s: read and written, every member kept; again, the "
                  "same bytes" % base)

    # members this reader does not know (a later writer's) are kept where
    # they were: a model run and a guest run with applications
    for name, src in (("sim-fc", out), ("sim-vdi", vdi),
                      ("fixture-apps", os.path.join(work, "fixture-apps",
                                                    "a"))):
        d = os.path.join(work, "unknown-" + name)
        os.makedirs(d)
        text = with_unknown_members(read(os.path.join(src, "results.json")))
        with open(os.path.join(d, "results.json"), "w") as f:
            f.write(text)
        back = os.path.join(work, "unknown-" + name + "-back")
        rewrite_dir(rewrite, d, back)
        got = pairs(read(os.path.join(back, "results.json")))
        bad = fails
        check(got == pairs(text), "%s: members the reader does not know "
              "were not written back as they were" % name)
        n = text.count('"x_')
        check(n >= 8 and read(os.path.join(back, "results.json"))
              .decode().count('"x_') == n, "%s: %d unknown members" % (name, n))
        if fails == bad:
            print("ok %s: %d members the reader does not know, written "
                  "back where they were" % (name, n))


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


CHECKS = {"sim-schema": t_sim_schema, "roundtrip": t_roundtrip,
          "report-csv": t_report_csv}

if __name__ == "__main__":
    nvmimic, rewrite, work, what = sys.argv[1:5]
    work = os.path.join(work, what)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    CHECKS[what](nvmimic, rewrite, work)
    sys.exit(1 if fails else 0)

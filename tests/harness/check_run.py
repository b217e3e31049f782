#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check_run.py DIR: check an `nvmimic run` results directory.

Checks results.json against its schema (README: "results.json of nvmimic run"),
results.csv against it, and, for simtime points that are not host-limited:
  - the guest's latency is at least the device's (the guest adds its own
    submission/completion path) and exceeds it by little (< 60 us: fio,
    libaio and the nvme driver cost ~13 us of guest CPU per I/O, plus the
    guest's own queueing at higher rates on one vCPU);
  - the guest's and the device's IOPS agree within 2 % (same window);
  - the device's mean latency agrees with `nvmimic sim`'s curve at the same
    IOPS within 10 % (the model is the same code; the guest's Poisson
    arrivals come through one vCPU and fio's jobs, not the model's exact
    per-thread process, and a 0.5 s point has only ~2-20 K I/Os).
Exit status 0 when all hold, 1 otherwise (one line per failure)."""
import csv
import json
import math
import sys

FIG = ("iops", "mbps", "lat_us", "p50_us", "p99_us", "p999_us")
HOST = ("host_iops", "host_lat_us", "host_p50_us", "host_p99_us",
        "host_p999_us", "host_interval_s")
fails = []


def fail(msg):
    fails.append(msg)
    print("check_run: FAIL " + msg)


def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def check_fig(where, o):
    for k in FIG:
        if not num(o.get(k)) or o[k] < 0:
            fail(f"{where}: {k} is {o.get(k)!r}, not a number >= 0")


def check_point(where, pt, curve):
    check_fig(where, pt)
    if curve:
        if not isinstance(pt.get("target_pct"), int):
            fail(f"{where}: target_pct missing")
        if not num(pt.get("target_iops")):
            fail(f"{where}: target_iops missing")
    for k in HOST:
        if not num(pt.get(k)):
            fail(f"{where}: {k} is {pt.get(k)!r}")
    if not isinstance(pt.get("host_limited"), bool):
        fail(f"{where}: host_limited is not a boolean")
    elif pt.get("host_limited_by") not in ((None,) if not pt["host_limited"]
                                           else ("rate", "guest-latency")):
        fail(f"{where}: host_limited {pt['host_limited']} but host_limited_by {pt.get('host_limited_by')!r}")
    if not num(pt.get("shortfall_pct")) or not 0 <= pt["shortfall_pct"] <= 100:
        fail(f"{where}: shortfall_pct is {pt.get('shortfall_pct')!r}")
    if not (pt.get("sim_lat_us") is None or num(pt["sim_lat_us"])):
        fail(f"{where}: sim_lat_us is {pt.get('sim_lat_us')!r}")


def main():
    d = sys.argv[1]
    want_points = int(sys.argv[2]) if len(sys.argv) > 2 else None
    r = json.load(open(f"{d}/results.json"))
    for k, t in (("profile", str), ("mode", str), ("run_mode", str),
                 ("suite", str), ("seed", int), ("threads_mode", str),
                 ("complete", bool), ("workloads", list), ("accel", str)):
        if not isinstance(r.get(k), t):
            fail(f"results.json: {k} is {r.get(k)!r}")
    if r.get("mode") != "guest":
        fail(f"mode is {r.get('mode')!r}, not 'guest'")
    if r.get("run_mode") not in ("simtime", "realtime"):
        fail(f"run_mode is {r.get('run_mode')!r}")
    if r.get("complete") is not True or r.get("error") is not None:
        fail(f"run not complete: {r.get('error')!r}")
    if not num(r.get("duration_s")):
        fail("duration_s missing")
    nrows = 0
    for w in r["workloads"]:
        name = w.get("name")
        for k in ("threads", "block_bytes"):
            if not isinstance(w.get(k), int) or w[k] <= 0:
                fail(f"{name}: {k} is {w.get(k)!r}")
        check_point(f"{name} peak", w["peak"], False)
        nrows += 1
        if want_points is not None and len(w["curve"]) != want_points:
            fail(f"{name}: {len(w['curve'])} curve points, expected {want_points}")
        for pt in w["curve"]:
            check_point(f"{name} {pt.get('target_pct')} %", pt, True)
            nrows += 1
        sim = w.get("sim")
        if not isinstance(sim, dict) or not isinstance(sim.get("curve"), list):
            fail(f"{name}: no sim curve")
        else:
            check_fig(f"{name} sim peak", sim["peak"])
            if len(sim["curve"]) != 12:
                fail(f"{name}: sim curve has {len(sim['curve'])} points")
        rv = w.get("review")
        if rv is not None and not num(rv.get("iops")):
            fail(f"{name}: review without iops")

        if r["run_mode"] != "simtime":
            continue
        for pt in [w["peak"]] + w["curve"]:
            where = f"{name} {pt.get('target_pct', 'peak')}"
            if pt["host_limited"]:
                continue
            if pt["lat_us"] < pt["host_lat_us"]:
                fail(f"{where}: guest latency {pt['lat_us']} us below the device's {pt['host_lat_us']} us")
            if pt["lat_us"] - pt["host_lat_us"] > 60:
                fail(f"{where}: guest latency {pt['lat_us']} us exceeds the device's {pt['host_lat_us']} us by > 60 us")
            if abs(pt["iops"] - pt["host_iops"]) > 0.02 * pt["iops"]:
                fail(f"{where}: guest {pt['iops']} IOPS vs device {pt['host_iops']}")
            if pt["sim_lat_us"] is not None:
                err = abs(pt["host_lat_us"] - pt["sim_lat_us"]) / pt["sim_lat_us"]
                if err > 0.10:
                    fail(f"{where}: device latency {pt['host_lat_us']} us vs the model's {pt['sim_lat_us']} us ({err:.0%})")
                else:
                    print(f"check_run: {where}: guest {pt['lat_us']:.1f} us, device {pt['host_lat_us']:.1f} us, model {pt['sim_lat_us']:.1f} us")
    rows = list(csv.DictReader(open(f"{d}/results.csv")))
    if len(rows) != nrows:
        fail(f"results.csv has {len(rows)} rows, results.json {nrows} points")
    for row in rows:
        if row["host_limited"] not in ("true", "false"):
            fail(f"results.csv: host_limited is {row['host_limited']!r}")
    if fails:
        sys.exit(1)
    print(f"check_run: {d}: {nrows} points OK")


main()

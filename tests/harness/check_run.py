#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check_run.py DIR [POINTS] [--max-limited N]: check an `nvmimic run`
results directory.

Checks results.json against its schema (README: "results.json of nvmimic run"),
results.csv against it, and, for simtime points that are not host-limited:
  - at the closed-loop peak: the guest's IOPS and latency agree with the
    model's peak (5 %, 10 %); the device's latency is not above the guest's
    (the device may hold fewer of the outstanding I/Os while the guest
    handles completions); guest and device IOPS agree within 2 %;
  - above 100 %, where the drive saturates: the same, against the model's
    point of the same target; at 100 % between that and the model's peak;
  - at the fixed-rate points below:
  - the guest's latency is at least the device's (the guest adds its own
    submission/completion path) and exceeds it by little (< 60 us: the load
    generator, io_uring and the nvme driver cost a few us of guest CPU per
    I/O, plus the guest's own queueing at higher rates on one vCPU);
  - the guest's and the device's IOPS agree within 2 % (same window);
  - the device's mean latency agrees with the model's at the same point
    within 10 % (sim_lat_us: the model replaying the guest's schedule, same
    arrivals; they differ by the few us each submission leaves the guest
    later than the model's).
A host-limited simtime point must show why: "rate", a guest short of its
target (shortfall_pct > 0); "guest-latency", a guest latency above the
device's by more than 50 us and half the device's (harness/run/run-int.h,
GUEST_US, GUEST_FRAC).  Its guest and device IOPS still agree within 2 %
and its device latency with the model's replay (sim_lat_us) within 10 %:
both count the same window of the same commands.  At most N simtime
points may be host-limited (--max-limited, default 0), so a run whose
points were all host-limited does not pass on its flags alone.
Exit status 0 when all hold, 1 otherwise (one line per failure)."""
import csv
import json
import math
import os
import subprocess
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


def schema(d):
    """docs/results.schema.json, through tests/results/validate.py."""
    here = os.path.dirname(os.path.abspath(__file__))
    p = subprocess.run(["/usr/bin/python3",
                        os.path.join(here, "..", "results", "validate.py"), d],
                       capture_output=True, text=True)
    print(p.stdout, end="")
    if p.returncode:
        fail(f"{d}/results.json does not validate against the schema")


def check_limited(where, pt):
    """A host-limited point: its reason holds, and what does not depend on
    the guest keeping up still does."""
    by = pt["host_limited_by"]
    if by == "rate" and not pt["shortfall_pct"] > 0:
        fail(f"{where}: host-limited by rate with no shortfall")
    if by == "guest-latency" and not (
            pt["lat_us"] - pt["host_lat_us"] > max(50.0, 0.5 * pt["host_lat_us"])):
        fail(f"{where}: host-limited by guest latency, but the guest's "
             f"{pt['lat_us']} us is not that far above the device's {pt['host_lat_us']} us")
    if abs(pt["iops"] - pt["host_iops"]) > 0.02 * pt["iops"]:
        fail(f"{where}: guest {pt['iops']} IOPS vs device {pt['host_iops']}")
    if pt.get("sim_lat_us") is not None:
        err = abs(pt["host_lat_us"] - pt["sim_lat_us"]) / pt["sim_lat_us"]
        if err > 0.10:
            fail(f"{where}: device latency {pt['host_lat_us']} us vs the model's "
                 f"{pt['sim_lat_us']} us ({err:.0%})")
    print(f"check_run: {where}: host-limited ({by}): guest {pt['iops']:.0f} IOPS "
          f"{pt['lat_us']:.1f} us, device {pt['host_lat_us']:.1f} us, "
          f"shortfall {pt['shortfall_pct']:.1f} %")


def main():
    args = sys.argv[1:]
    max_limited = 0
    if "--max-limited" in args:
        i = args.index("--max-limited")
        max_limited = int(args[i + 1])
        del args[i:i + 2]
    d = args[0]
    schema(d)
    want_points = int(args[1]) if len(args) > 1 else None
    limited = []
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
        peak = w["peak"]
        if peak["host_limited"]:
            limited.append(f"{name} peak")
            check_limited(f"{name} peak", peak)
        elif isinstance(sim, dict):
            # The closed-loop peak: the guest keeps `threads` I/Os outstanding,
            # but while it handles a completion that I/O is not at the device,
            # so the device may see fewer outstanding and, by Little's law, a
            # lower latency at the same IOPS.  The guest's figure is the one
            # that compares with the model's closed loop.
            sp = sim["peak"]
            if abs(peak["iops"] - sp["iops"]) > 0.05 * sp["iops"]:
                fail(f"{name} peak: guest {peak['iops']} IOPS vs the model's {sp['iops']}")
            if abs(peak["lat_us"] - sp["lat_us"]) > 0.10 * sp["lat_us"]:
                fail(f"{name} peak: guest latency {peak['lat_us']} us vs the model's {sp['lat_us']} us")
            if peak["host_lat_us"] > peak["lat_us"]:
                fail(f"{name} peak: device latency {peak['host_lat_us']} us above the guest's {peak['lat_us']} us")
            if abs(peak["iops"] - peak["host_iops"]) > 0.02 * peak["iops"]:
                fail(f"{name} peak: guest {peak['iops']} IOPS vs device {peak['host_iops']}")
            print(f"check_run: {name} peak: guest {peak['iops']:.0f} IOPS {peak['lat_us']:.1f} us, "
                  f"model {sp['iops']:.0f} IOPS {sp['lat_us']:.1f} us, device {peak['host_lat_us']:.1f} us")
        sim_at = {c["target_pct"]: c for c in sim["curve"]} if isinstance(sim, dict) else {}
        for pt in w["curve"]:
            where = f"{name} {pt.get('target_pct')}"
            if pt["host_limited"]:
                limited.append(where)
                check_limited(where, pt)
                continue
            sc = sim_at.get(pt["target_pct"])
            if pt["target_pct"] >= 100 and sc is not None:
                # Above the peak the rate cannot be met: the drive is
                # saturated with all `threads` I/Os outstanding, a closed loop
                # again, and the peak's reasoning applies.  At exactly 100 %
                # the queue of an open loop grows for as long as the point
                # runs: its latency lies between the model's value for the
                # same point and the saturated (peak) one.
                lo = hi = sc["lat_us"]
                if pt["target_pct"] == 100 and isinstance(sim, dict):
                    lo, hi = min(lo, sim["peak"]["lat_us"]), max(hi, sim["peak"]["lat_us"])
                if not 0.9 * lo <= pt["lat_us"] <= 1.1 * hi:
                    fail(f"{where}: guest latency {pt['lat_us']} us outside the model's "
                         f"{lo:.1f}..{hi:.1f} us (10 % either side)")
                if pt["host_lat_us"] > pt["lat_us"]:
                    fail(f"{where}: device latency {pt['host_lat_us']} us above the guest's {pt['lat_us']} us")
                print(f"check_run: {where}: guest {pt['lat_us']:.1f} us, model {sc['lat_us']:.1f} us, "
                      f"device {pt['host_lat_us']:.1f} us (saturated)")
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
    if len(limited) > max_limited:
        fail(f"{len(limited)} simtime points host-limited ({', '.join(limited)}), "
             f"at most {max_limited} may be: their figures are the guest's, "
             f"not the drive's")
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

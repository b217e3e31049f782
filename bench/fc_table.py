#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""fc_table.py DIR...: docs/run.md's table of simtime four-corners guest runs.

One row per run (`nvmimic run --suite four-corners --mode simtime ...`):
its points and how many were host-limited; the worst difference between
the device's mean latency and the model's replay of the guest's schedule
(sim_lat_us) over the points that were not host-limited, and the worst
below the 100 % point; with --device-trace, the worst difference at any
point (host-limited ones too) between the device and the model fed the
drive's own trace (trace_lat_us); the worst difference between a
workload's peak in the guest and the model's own peak over the same point
length (`nvmimic sim`'s, in results.json); each workload's peak in the
guest against the review's.  Exit status 1 when a run is incomplete or
lacks the model's replay or peak.
"""
import json
import sys


def row(path):
    with open(f"{path}/results.json") as f:
        r = json.load(f)
    if not r.get("complete"):
        sys.exit(f"fc_table: {path}: the run is not complete")
    n = limited = 0
    worst = (0.0, "-")
    below = 0.0
    traced = None
    peaks = []
    vs_model = (0.0, "-")
    for w in r["workloads"]:
        if w.get("suite") not in (None, "four-corners"):
            continue
        for pt in [w["peak"]] + w["curve"]:
            n += 1
            if pt.get("trace_lat_us") is not None and pt["host_lat_us"]:
                d = abs(pt["host_lat_us"] / pt["trace_lat_us"] - 1) * 100
                traced = max(traced or 0.0, d)
            if pt["host_limited"]:
                limited += 1
                continue
            if pt["sim_lat_us"] is None or pt["host_lat_us"] is None:
                sys.exit(f"fc_table: {path}: {w['name']} has a point "
                         "without the model's replay")
            d = abs(pt["host_lat_us"] / pt["sim_lat_us"] - 1) * 100
            where = f"{w['name']} {pt.get('target_pct') or 'peak'}" + \
                (" %" if pt.get("target_pct") else "")
            if d > worst[0]:
                worst = (d, where)
            if pt.get("target_pct", 0) < 100 and d > below:
                below = d
        sim_peak = ((w.get("sim") or {}).get("peak") or {}).get("iops")
        if not sim_peak:
            sys.exit(f"fc_table: {path}: {w['name']} has no model peak")
        d = (w["peak"]["iops"] / sim_peak - 1) * 100
        if abs(d) >= abs(vs_model[0]):
            vs_model = (d, w["name"])
        rev = (w.get("review") or {}).get("iops")
        short = w["name"].replace("-random", "").replace("-seq", "")
        peaks.append(f"{short} {(w['peak']['iops'] / rev - 1) * 100:+.1f} %"
                     if rev else f"{short} -")
    return (f"| {r['profile']} | {n} ({limited} host-limited) | "
            f"{worst[0]:.1f} % ({worst[1]}); below 100 %: {below:.1f} % | "
            f"{'-' if traced is None else f'{traced:.2f} %'} | "
            f"{vs_model[0]:+.1f} % ({vs_model[1]}) | "
            f"{', '.join(peaks)} |")


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: fc_table.py DIR...")
    print("| run | points | device vs model, worst (non-host-limited) | "
          "device vs model fed the drive's trace, worst | "
          "peak, guest vs model, worst | peaks, guest vs review |")
    print("|---|---|---|---|---|---|")
    for d in sys.argv[1:]:
        print(row(d))


if __name__ == "__main__":
    main()

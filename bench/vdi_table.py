#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""vdi_table.py DIR...: docs/vdi.md's table of simtime VDI guest runs.

One row per VDI workload of each run (`nvmimic run --suite vdi --mode
simtime ...`): the seconds per point; the guest's peak against the model's
own (`nvmimic sim`'s, over the same point length) and whether it was
host-limited; then at the peak and at each point the device's mean latency
against the model's replay of the guest's schedule (sim_lat_us), as
"device / model us (difference)"; with --device-trace, the worst
difference over the workload's points between the device and the model
fed the drive's own trace (trace_lat_us).  Exit status 1 when a run is
incomplete or a point has no replay.
"""
import json
import sys


def rows(path):
    with open(f"{path}/results.json") as f:
        r = json.load(f)
    if not r.get("complete"):
        sys.exit(f"vdi_table: {path}: the run is not complete")
    out = []
    for w in r["workloads"]:
        if w.get("suite") != "vdi":
            continue
        sim_peak = w["sim"]["peak"]["iops"]
        cells = []
        traced = None
        for pt in [w["peak"]] + w["curve"]:
            if pt.get("trace_lat_us") is not None and pt["host_lat_us"]:
                d = abs(pt["host_lat_us"] / pt["trace_lat_us"] - 1) * 100
                traced = max(traced or 0.0, d)
            if pt["sim_lat_us"] is None or pt["host_lat_us"] is None:
                sys.exit(f"vdi_table: {path}: {w['name']} has a point "
                         "without the model's replay")
            name = f"{pt['target_pct']} %" if pt.get("target_pct") else "peak"
            lim = " (host-limited)" if pt["host_limited"] else ""
            cells.append(f"{name}: {pt['host_lat_us']:,.0f} / "
                         f"{pt['sim_lat_us']:,.0f} "
                         f"({(pt['host_lat_us'] / pt['sim_lat_us'] - 1) * 100:+.0f} %)"
                         f"{lim}")
        peak = w["peak"]
        out.append(f"| {r['profile']} | {w['name']} | {r['duration_s']:g} | "
                   f"{peak['iops']:,.0f} / {sim_peak:,.0f} "
                   f"({(peak['iops'] / sim_peak - 1) * 100:+.1f} %)"
                   f"{', host-limited' if peak['host_limited'] else ''} | "
                   f"{'; '.join(cells)} | "
                   f"{'-' if traced is None else f'{traced:.2f} %'} |")
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: vdi_table.py DIR...")
    print("| drive | workload | s per point | peak IOPS, guest / model | "
          "device / model replay, mean latency | "
          "device vs model fed the drive's trace, worst |")
    print("|---|---|---|---|---|---|")
    for d in sys.argv[1:]:
        print("\n".join(rows(d)))


if __name__ == "__main__":
    main()

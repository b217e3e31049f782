#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Make a guest-mode results.json fixture from `nvmimic sim --format json`.

    build/nvmimic sim --profile crucial-p5-2tb --suite four-corners \
        --format json --duration-s 0.3 | tests/report/make-fixture.py \
        > tests/report/fixture-guest.json

The guest figures are made up but shaped like a TCG simtime run: the guest
sees the device's latency plus a fixed virtualization overhead, and the 4K
random read cannot be driven past 70 % of the drive's peak (host-limited).
Some optional keys are left out on purpose so the renderer's fallbacks are
exercised: 64k-seq-write has no review latency and one point without host
figures; the run is partial (complete: false, the last workload stops at 80 %).
"""
import copy
import json
import sys

REVIEW = {  # profiles/reviews/four-corners.tsv, crucial-p5-2tb
    "4k-random-read": (375545, 340.2),
    "4k-random-write": (167959, 71.9),
    "64k-seq-read": (35989, 444.0),
    "64k-seq-write": (11345, None),
}
OVERHEAD_US = {"4k-random-read": 38.0, "4k-random-write": 31.0,
               "64k-seq-read": 55.0, "64k-seq-write": 60.0}


def guestify(pt, wl, pct, limit_iops):
    sim = dict(pt)
    g = dict(pt)
    host_iops = pt["iops"]
    if limit_iops and pt.get("target_iops", pt["iops"]) > limit_iops:
        host_iops = limit_iops * (1 - 0.002 * pct)
    g["host_iops"] = round(host_iops, 1)
    g["iops"] = round(host_iops * 0.998, 1)
    g["mbps"] = round(g["iops"] * wl["block_bytes"] / 1e6, 2)
    # device latency: the model's, a little lower when the guest is the
    # bottleneck (fewer requests queue in the drive)
    dev = pt["lat_us"] * (min(1.0, host_iops / pt["iops"]) ** 0.5)
    g["host_lat_us"] = round(dev, 2)
    g["host_p99_us"] = round(pt["p99_us"] * dev / pt["lat_us"], 2)
    ov = OVERHEAD_US[wl["name"]]
    for k in ("lat_us", "p50_us"):
        g[k] = round(pt[k] * dev / pt["lat_us"] + ov, 2)
    for k in ("p99_us", "p999_us"):
        g[k] = round(pt[k] * dev / pt["lat_us"] + 2.5 * ov, 2)
    target = pt.get("target_iops")
    if target:
        short = max(0.0, 100.0 * (target - g["iops"]) / target)
        g["shortfall_pct"] = round(short, 1)
        g["host_limited"] = short > 5.0 and host_iops < pt["iops"] * 0.97
    else:
        g["shortfall_pct"] = 0.0
        g["host_limited"] = bool(limit_iops)
    return g, sim


def main():
    sim = json.load(sys.stdin)
    out = copy.deepcopy(sim)
    out["mode"] = "guest"
    out["run_mode"] = "simtime"
    out["complete"] = False
    out["date"] = "2025-01-01T12:00:00Z"
    for wl in out["workloads"]:
        name = wl["name"]
        limit = 0.7 * wl["peak"]["iops"] if name == "4k-random-read" else 0
        wl["sim"] = {"peak": dict(wl["peak"]),
                     "curve": [dict(p) for p in wl["curve"]]}
        wl["peak"], _ = guestify(wl["peak"], wl, 100, limit)
        wl["curve"] = [guestify(p, wl, p["target_pct"], limit)[0]
                       for p in wl["curve"]]
        iops, lat = REVIEW[name]
        wl["review"] = {"iops": iops, "lat_us": lat}
        wl["loadgen"] = "nvmimic-load"
        if name == "64k-seq-write":
            wl["curve"] = wl["curve"][:8]
            for k in ("host_lat_us", "host_p99_us", "host_iops"):
                del wl["curve"][2][k]
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""DiskSpd job definitions equivalent to the reviews' four corners.

Each workload first runs unthrottled (the peak, "100 %"), then at 10 % .. 120 %
of that peak in 10 % steps.  DiskSpd's rate limit is -g<bytes per millisecond>
per thread, so for a point at P % of a peak of R IOPS with block size B and T
threads:

    g = round(P / 100 * R * B / T / 1000)      bytes per ms per thread

Outstanding I/Os = threads (-t) x per-thread queue (-o).  DiskSpd spaces a
throttled thread's I/Os evenly, not exponentially as vdbench does.

usage:
  diskspd_jobs.py --peaks-from SIM_JSON | --peak NAME=IOPS ... [--threads stated|implied]
                  [--span-bytes N] [--duration-s S] [--warmup-s S] [--target PATH]
                  [--json OUT.json] [--cmd OUT.cmd]

SIM_JSON is `nvmimic sim --suite four-corners --format json` (the model's
peaks).  In the guest, agent.ps1 measures the peak itself and applies the same
formula (see README.md); this script writes the same jobs for inspection and
for a run that uses the model's peaks (job.ini: peak_source=model).
"""
import argparse
import json
import sys

# name, block bytes, random, write %, (threads, per-thread queue) stated / implied
CORNERS = [
    ("4k-random-read", 4096, True, 0, (8, 16), (8, 16)),      # 128 / 128
    ("4k-random-write", 4096, True, 100, (8, 8), (8, 16)),    # 64 / 128
    ("64k-seq-read", 65536, False, 0, (4, 4), (4, 4)),        # 16 / 16
    ("64k-seq-write", 65536, False, 100, (4, 2), (4, 4)),     # 8 / 16
]
PCTS = list(range(10, 121, 10))


def g_per_thread(pct, peak_iops, block, threads):
    """DiskSpd -g value (bytes per ms per thread) for pct % of peak_iops."""
    return max(1, round(pct / 100.0 * peak_iops * block / threads / 1000.0))


def base_args(block, random, write_pct, threads, queue, span, dur, warm):
    a = [f"-b{block // 1024}K", "-r" if random else "-si", f"-w{write_pct}",
         f"-t{threads}", f"-o{queue}", f"-d{dur}", f"-W{warm}", "-Sh", "-L",
         "-Rxml"]
    if write_pct:
        a.append("-Zr")          # random write buffers, as fio's default
    if span:
        a.insert(0, f"-c{span}")
    return a


def jobs(peaks, mode, span, dur, warm, target):
    out = []
    for name, block, random, wpct, stated, implied in CORNERS:
        t, q = stated if mode == "stated" else implied
        base = base_args(block, random, wpct, t, q, span, dur, warm)
        w = {"name": name, "block_bytes": block, "random": random,
             "write_pct": wpct, "threads": t, "queue_per_thread": q,
             "outstanding": t * q, "args": base, "target": target,
             "peak_cmd": ["diskspd.exe"] + base + [target], "points": []}
        peak = peaks.get(name)
        if peak is not None:
            w["peak_iops"] = peak
            for p in PCTS:
                g = g_per_thread(p, peak, block, t)
                w["points"].append({
                    "target_pct": p, "target_iops": round(p / 100.0 * peak, 1),
                    "g_bytes_per_ms": g,
                    "cmd": ["diskspd.exe"] + base + [f"-g{g}", target]})
        out.append(w)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peaks-from")
    ap.add_argument("--peak", action="append", default=[])
    ap.add_argument("--threads", choices=["stated", "implied"], default="stated")
    ap.add_argument("--span-bytes", type=int, default=0)
    ap.add_argument("--duration-s", type=int, default=30)
    ap.add_argument("--warmup-s", type=int, default=5)
    ap.add_argument("--target", default=r"D:\nvmimic\span.dat")
    ap.add_argument("--json")
    ap.add_argument("--cmd")
    a = ap.parse_args()
    peaks = {}
    if a.peaks_from:
        try:
            with open(a.peaks_from) as f:
                sim = json.load(f)
            for w in sim["workloads"]:
                peaks[w["name"]] = float(w["peak"]["iops"])
        except (OSError, ValueError, KeyError, TypeError) as e:
            sys.exit(f"diskspd_jobs: {a.peaks_from}: not nvmimic sim JSON ({e})")
    for p in a.peak:
        name, _, v = p.partition("=")
        try:
            peaks[name] = float(v)
        except ValueError:
            sys.exit(f"diskspd_jobs: --peak {p}: want NAME=IOPS")
    known = {c[0] for c in CORNERS}
    for n in peaks:
        if n not in known:
            sys.exit(f"diskspd_jobs: unknown workload '{n}' ({', '.join(sorted(known))})")
        if peaks[n] <= 0:
            sys.exit(f"diskspd_jobs: peak of {n} must be > 0")
    js = jobs(peaks, a.threads, a.span_bytes, a.duration_s, a.warmup_s, a.target)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"threads_mode": a.threads, "workloads": js}, f, indent=1)
    text = ["@echo off", "rem nvmimic: DiskSpd four corners "
            f"({a.threads} outstanding counts); results in %RESULTS%"]
    for w in js:
        text.append(f"rem {w['name']}: {w['outstanding']} outstanding "
                    f"({w['threads']} threads x {w['queue_per_thread']})")
        text.append(" ".join(w["peak_cmd"]) + f" > %RESULTS%\\{w['name']}-peak.xml")
        for p in w["points"]:
            text.append(" ".join(p["cmd"]) +
                        f" > %RESULTS%\\{w['name']}-{p['target_pct']:03d}.xml")
    body = "\r\n".join(text) + "\r\n"
    if a.cmd:
        with open(a.cmd, "w", newline="") as f:
            f.write(body)
    if not a.json and not a.cmd:
        sys.stdout.write(body.replace("\r\n", "\n"))


if __name__ == "__main__":
    main()

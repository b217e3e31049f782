#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Large sequential results (fio JSON of seq-write.fio / seq-read.fio) in GB/s.

usage: seq-report.py FIO_JSON...   -> JSON on stdout

One entry per fio job: direction, queue depth, block size, bytes, seconds,
GB/s (10^9 bytes/s, as disk speed tests and the reviews quote it), MiB/s and
mean completion latency; then write_GBps / read_GBps per queue depth and the
best of each.  Exits 1 if a job reported an error or moved no data.
"""
import json
import sys


def size(s):
    s = str(s).strip().lower()
    mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    if s and s[-1] == "b":
        s = s[:-1]
    return int(float(s[:-1]) * mult[s[-1]]) if s and s[-1] in mult else int(s)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    results, bad = [], []
    for path in sys.argv[1:]:
        doc = json.load(open(path))
        glob = doc.get("global options", {})
        for job in doc["jobs"]:
            opts = dict(glob, **job.get("job options", {}))
            rw = opts.get("rw", "")
            d = "write" if "write" in rw else "read"
            io = job[d]
            secs = io["runtime"] / 1000.0
            if job.get("error") or io["io_bytes"] == 0 or secs <= 0:
                bad.append("%s: job %s error %s, %d bytes" % (path, job["jobname"],
                                                              job.get("error"), io["io_bytes"]))
                continue
            results.append({
                "file": path, "job": job["jobname"], "direction": d,
                "qd": int(opts.get("iodepth", 1)), "bs": size(opts.get("bs", "4k")),
                "bytes": io["io_bytes"], "seconds": round(secs, 3),
                "GBps": round(io["io_bytes"] / secs / 1e9, 4),
                "MiBps": round(io["io_bytes"] / secs / 2**20, 1),
                "lat_avg_ms": round(io["lat_ns"]["mean"] / 1e6, 3),
            })
    report = {"workload": "seq", "results": results}
    for d in ("write", "read"):
        per_qd = {str(r["qd"]): r["GBps"] for r in results if r["direction"] == d}
        report[d + "_GBps"] = per_qd
        report[d + "_GBps_best"] = max(per_qd.values()) if per_qd else None
    if bad:
        report["errors"] = bad
    json.dump(report, sys.stdout, indent=1)
    print()
    for b in bad:
        print("seq-report: " + b, file=sys.stderr)
    sys.exit(1 if bad or not results else 0)


if __name__ == "__main__":
    main()

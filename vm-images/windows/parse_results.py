#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Parse what the Windows guest brings back into JSON.

  parse_results.py diskspd FILE.xml...   DiskSpd -Rxml output, one object per file
  parse_results.py hammerdb FILE.log     hammerdbcli output of a TPC-C run
  parse_results.py dir RESULTS_DIR       everything in a results directory
                                         (*.xml DiskSpd, hammerdb*.log): the
                                         recipe's windows-results.json

windows-results.json is not nvmimic's results.json: its own format, described
in docs/windows-results.md (schema docs/windows-results.schema.json).

DiskSpd (XML written by its XmlResultParser): per <TimeSpan>, the I/O counts
and bytes summed over <Thread>/<Target>, divided by <TestTimeSeconds>; latency
from <Latency> (Average*Milliseconds, and the <Bucket> percentiles 50, 99,
99.9).  The figures are named and in the units of nvmimic's FIG (iops, mbps
in 10^6 B/s, lat_us, p50_us, p99_us, p999_us), plus read/write splits.

HammerDB: the "TEST RESULT : System achieved N NOPM from M ... TPM" line
(4.x; 3.x's "System achieved M ... TPM at N NOPM" too) and, with
mssqls_timeprofile, the per-procedure summary ("PROC: NEWORD" then
"CALLS: .. MIN: ..ms AVG: ..ms MAX: ..ms" and "P99: ..ms P95: ..ms P50: ..ms").
The figure that tells drives apart is the average transaction latency, so the
call-weighted mean of the procedures' AVG is reported as avg_txn_ms.
"""
import json
import os
import re
import sys
import xml.etree.ElementTree as ET


class ParseError(Exception):
    pass


def _num(el, path, default=None):
    t = el.findtext(path)
    if t is None:
        if default is None:
            raise ParseError(f"no <{path}>")
        return default
    try:
        return float(t)
    except ValueError:
        raise ParseError(f"<{path}> is not a number: {t!r}")


def diskspd(path):
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        raise ParseError(f"{path}: not DiskSpd XML ({e})")
    if root.tag != "Results":
        raise ParseError(f"{path}: root is <{root.tag}>, not DiskSpd's <Results>")
    spans = root.findall("TimeSpan")
    if not spans:
        raise ParseError(f"{path}: no <TimeSpan>")
    out = []
    for i, ts in enumerate(spans):
        err = ts.findtext("Error")
        if err:
            raise ParseError(f"{path}: timespan {i}: {err.strip()}")
        try:
            secs = _num(ts, "TestTimeSeconds")
            if secs <= 0:
                raise ParseError("TestTimeSeconds <= 0")
            rb = rc = wb = wc = 0
            targets = ts.findall("Thread/Target")
            if not targets:
                raise ParseError("no <Thread>/<Target> results")
            for t in targets:
                rb += _num(t, "ReadBytes")
                rc += _num(t, "ReadCount")
                wb += _num(t, "WriteBytes")
                wc += _num(t, "WriteCount")
            r = {"test_s": secs, "threads": int(_num(ts, "ThreadCount", 0)),
                 "ios": int(rc + wc), "read_ios": int(rc), "write_ios": int(wc),
                 "iops": round((rc + wc) / secs, 1),
                 "read_iops": round(rc / secs, 1), "write_iops": round(wc / secs, 1),
                 "mbps": round((rb + wb) / secs / 1e6, 2)}
            lat = ts.find("Latency")
            if lat is None:
                raise ParseError("no <Latency> (run DiskSpd with -L)")
            r["lat_us"] = round(_num(lat, "AverageTotalMilliseconds") * 1000, 2)
            if rc:
                r["read_lat_us"] = round(_num(lat, "AverageReadMilliseconds") * 1000, 2)
            if wc:
                r["write_lat_us"] = round(_num(lat, "AverageWriteMilliseconds") * 1000, 2)
            pct = {}
            for b in lat.findall("Bucket"):
                p = b.findtext("Percentile")
                tot = b.findtext("TotalMilliseconds")
                if p is not None and tot is not None:
                    pct[p.strip()] = float(tot) * 1000
            for key, name in (("50", "p50_us"), ("99", "p99_us"), ("99.9", "p999_us")):
                if key not in pct:
                    raise ParseError(f"no latency percentile {key}")
                r[name] = round(pct[key], 2)
            if "100" in pct:
                r["max_us"] = round(pct["100"], 2)
        except ParseError as e:
            raise ParseError(f"{path}: timespan {i}: {e}")
        prof = root.find("Profile/TimeSpans/TimeSpan/Targets/Target")
        if prof is not None:
            for k, name in (("BlockSize", "block_bytes"), ("WriteRatio", "write_pct"),
                            ("RequestCount", "queue_per_thread")):
                v = prof.findtext(k)
                if v is not None and v.strip().isdigit():
                    r[name] = int(v)
            thr = prof.find("Throughput")
            if thr is not None and (thr.text or "").strip().isdigit() and int(thr.text):
                # -g: bytes per ms per thread, or with DiskSpd >= 2.1 -g<n>i, IOPS
                key = "g_iops" if thr.get("unit") == "IOPS" else "g_bytes_per_ms"
                r[key] = int(thr.text)
            if prof.find("Random") is not None:
                r["random"] = True
        r["file"] = os.path.basename(path)
        out.append(r)
    return out[0] if len(out) == 1 else out


TEST_RESULT = [
    # 4.x: System achieved 12345 NOPM from 28456 SQL Server TPM
    re.compile(r"TEST RESULT\s*:\s*System achieved\s+(?P<nopm>\d+)\s+NOPM from\s+"
               r"(?P<tpm>\d+)\s+(?P<db>.*?)\s*TPM"),
    # 3.x: System achieved 28456 SQL Server TPM at 12345 NOPM
    re.compile(r"TEST RESULT\s*:\s*System achieved\s+(?P<tpm>\d+)\s+(?P<db>.*?)\s*TPM at\s+"
               r"(?P<nopm>\d+)\s+NOPM"),
]
PROC = re.compile(r">>>>>\s*PROC:\s*(\w+)")
CALLS = re.compile(r"CALLS:\s*(\d+)\s+MIN:\s*([\d.]+)ms\s+AVG:\s*([\d.]+)ms\s+MAX:\s*([\d.]+)ms")
PCTL = re.compile(r"P99:\s*([\d.]+)ms\s+P95:\s*([\d.]+)ms\s+P50:\s*([\d.]+)ms")


def hammerdb(path):
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise ParseError(f"{path}: {e}")
    res = None
    procs = {}
    cur = None
    for ln in lines:
        for rx in TEST_RESULT:
            m = rx.search(ln)
            if m:
                res = {"nopm": int(m["nopm"]), "tpm": int(m["tpm"]),
                       "tpm_counter": m["db"].strip()}
        m = PROC.search(ln)
        if m:
            cur = m[1]
            procs.setdefault(cur, {})
            continue
        m = CALLS.search(ln)
        if m and cur:
            procs[cur].update(calls=int(m[1]), min_ms=float(m[2]), avg_ms=float(m[3]),
                              max_ms=float(m[4]))
            continue
        m = PCTL.search(ln)
        if m and cur:
            procs[cur].update(p99_ms=float(m[1]), p95_ms=float(m[2]), p50_ms=float(m[3]))
    if res is None:
        raise ParseError(f"{path}: no 'TEST RESULT : System achieved ... NOPM' line "
                         "(did the timed run finish?)")
    procs = {k: v for k, v in procs.items() if "calls" in v}
    res["procedures"] = procs
    calls = sum(v["calls"] for v in procs.values())
    if calls:
        res["avg_txn_ms"] = round(sum(v["calls"] * v["avg_ms"] for v in procs.values()) / calls, 3)
        res["txn_calls"] = calls
    res["file"] = os.path.basename(path)
    return res


FORMAT = "nvmimic-windows-results"
FORMAT_VERSION = 1


def results_dir(d):
    out = {"format": FORMAT, "format_version": FORMAT_VERSION,
           "diskspd": {}, "hammerdb": None}
    try:
        names = sorted(os.listdir(d))
    except OSError as e:
        raise ParseError(f"{d}: {e}")
    for n in names:
        p = os.path.join(d, n)
        if n.lower().endswith(".xml"):
            out["diskspd"][n[:-4]] = diskspd(p)
        elif n.lower().startswith("hammerdb") and n.lower().endswith(".log"):
            out["hammerdb"] = hammerdb(p)
    if not out["diskspd"] and out["hammerdb"] is None:
        raise ParseError(f"{d}: no DiskSpd *.xml and no hammerdb*.log")
    return out


def main(argv):
    if len(argv) < 3 or argv[1] not in ("diskspd", "hammerdb", "dir"):
        sys.stderr.write(__doc__)
        return 2
    try:
        if argv[1] == "diskspd":
            r = [diskspd(p) for p in argv[2:]]
            r = r[0] if len(r) == 1 else r
        elif argv[1] == "hammerdb":
            r = hammerdb(argv[2])
        else:
            r = results_dir(argv[2])
    except ParseError as e:
        print(f"parse_results: {e}", file=sys.stderr)
        return 1
    json.dump(r, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Turn a tpcc.sh sample (pgbench per-transaction logs) into a JSON report.

usage: tpcc-report.py OUTDIR   (reads OUTDIR/params.json, OUTDIR/tx.*,
                                OUTDIR/pgbench.txt, OUTDIR/new-orders-committed)

pgbench logs one line per transaction, "client_id transaction_no time
script_no time_epoch time_us [retries]", where time (us) includes the
script's \\sleep commands.  The keying time is fixed per script and the think
time is a deterministic function of (client_id, n), n = the client's count of
completed transactions (see new_order.sql), so both are recomputed here and
subtracted: what is left is the transaction's response time as the terminal
sees it (the SQL call, plus pgbench's scheduling overhead, tens of us).
pgbench's own per-command averages (-r) are reported alongside as a check.
"""
import glob
import json
import math
import os
import re
import sys


def think_us(client, n, mean_us):
    """The think time new_order.sql & co. draw (MINSTD, keyed by client, n)."""
    x = ((client + 1) * 1000003 + n * 7919 + 17) % 2147483647
    x = (x * 48271) % 2147483647
    x = (x * 48271) % 2147483647
    return int(min(-math.log((x + 1) / 2147483648.0), 10.0) * mean_us)


def pct(sorted_vals, p):
    """Nearest-rank percentile."""
    if not sorted_vals:
        return None
    k = max(0, math.ceil(p / 100.0 * len(sorted_vals)) - 1)
    return sorted_vals[k]


def stats(lat_us):
    v = sorted(lat_us)
    if not v:
        return {"count": 0, "avg_ms": None, "p95_ms": None, "p99_ms": None,
                "max_ms": None}
    return {"count": len(v),
            "avg_ms": round(sum(v) / len(v) / 1000.0, 3),
            "p95_ms": round(pct(v, 95) / 1000.0, 3),
            "p99_ms": round(pct(v, 99) / 1000.0, 3),
            "max_ms": round(v[-1] / 1000.0, 3)}


def pgbench_commands(path, scripts):
    """Each script's command lines from pgbench -r output, in order:
    {name: [(command, average ms), ...]}."""
    out = {}
    if not os.path.exists(path):
        return out
    cur = None
    for line in open(path, errors="replace"):
        m = re.match(r"SQL script (\d+): .*/(\w+)\.sql", line)
        if m:
            cur = int(m.group(1)) - 1
            continue
        m = re.match(r"\s+([\d.]+)\s+(?:\d+\s+)*(.*)$", line)
        if m and cur is not None and 0 <= cur < len(scripts):
            out.setdefault(scripts[cur]["name"], []).append(
                (m.group(2), float(m.group(1))))
    return out


def pgbench_figures(path, scripts):
    """From pgbench -r: each script's SELECT (ms); its \\set and \\if lines
    together (pgbench's own bookkeeping, and its wake-up after the
    SELECT's result); how late pgbench woke from its keying \\sleep, the
    sleep's mean less its fixed length; and its think \\sleep's mean (ms).
    A loaded host wakes pgbench late; the lateness is inside the logged
    transaction time and so inside the derived response times."""
    select, sets, late, think = {}, {}, {}, {}
    cmds_of = pgbench_commands(path, scripts)
    for s in scripts:
        name = s["name"]
        cmds = cmds_of.get(name)
        if not cmds:
            continue
        for cmd, ms in cmds:
            if cmd.startswith("SELECT "):
                select[name] = ms
            elif cmd.startswith("\\sleep :key_"):
                late[name] = round(ms - s["key_us"] / 1000.0, 3)
            elif cmd.startswith("\\sleep :think "):
                think[name] = ms
        sets[name] = round(sum(ms for cmd, ms in cmds
                               if re.match(r"\\(set|if|else|endif)", cmd)), 3)
    return select, sets, late, think


def pgbench_sample_s(path):
    """A sample of so many transactions per user (-t) has no set length:
    pgbench's count of processed transactions over its rate (tps, without
    the connections' set-up) gives it."""
    n = tps = None
    if os.path.exists(path):
        for line in open(path, errors="replace"):
            m = re.match(r"number of transactions actually processed: (\d+)", line)
            if m:
                n = int(m.group(1))
            m = re.match(r"tps = ([\d.]+) \(without initial", line)
            if m:
                tps = float(m.group(1))
    return n / tps if n and tps else None


def think_fit(pairs):
    """Least-squares slope, and its standard error, of the logged time less
    the keying sleep on the recomputed think time, within each transaction
    type (each type's means removed, as its SQL differs): 1 when the
    recomputation draws the think time pgbench slept, 0 when it draws
    another transaction's.  pairs: {name: [(think_us, logged_less_key_us)]}."""
    sxx = sxy = 0.0
    resid = []
    for v in pairs.values():
        if len(v) < 2:
            continue
        mx = sum(x for x, _ in v) / len(v)
        my = sum(y for _, y in v) / len(v)
        sxx += sum((x - mx) ** 2 for x, _ in v)
        sxy += sum((x - mx) * (y - my) for x, y in v)
        resid.append((v, mx, my))
    if sxx <= 0:
        return None
    b = sxy / sxx
    n = sum(len(v) for v, _, _ in resid)
    sse = sum((y - my - b * (x - mx)) ** 2 for v, mx, my in resid for x, y in v)
    dof = n - len(resid) - 1
    se = math.sqrt(sse / dof / sxx) if dof > 0 else None
    return {"slope": round(b, 4), "se": round(se, 4) if se is not None else None,
            "transactions": n}


def guest_disk(d):
    """The sample's I/O on the database disk, from the guest kernel's
    /sys/block/DEV/stat at its start and end (tpcc.sh snap): counts, bytes
    and mean latency per class as the guest's block layer sees it."""
    try:
        a = open(os.path.join(d, "start-disk")).read().split()
        b = open(os.path.join(d, "end-disk")).read().split()
    except OSError:
        return None
    if len(a) < 12 or a[0] != b[0]:
        return None
    dev, a, b = a[0], [int(x) for x in a[1:]], [int(x) for x in b[1:]]
    delta = [y - x for x, y in zip(a, b)]

    def cls(ios, sectors, ticks):
        n = delta[ios]
        return {"count": n,
                "bytes": delta[sectors] * 512 if sectors is not None else 0,
                "mean_us": round(delta[ticks] * 1000.0 / n, 1) if n else None}
    # fields of Documentation/block/stat.rst: reads, merges, sectors, ms;
    # writes ...; in flight, io ms, queue ms; discards ...; flushes, ms
    out = {"device": dev, "read": cls(0, 2, 3), "write": cls(4, 6, 7)}
    if len(delta) >= 15:
        out["discard"] = cls(11, 13, 14)
    if len(delta) >= 17:
        out["flush"] = cls(15, None, 16)
    return out


def pg_buffers(d):
    """PostgreSQL's shared buffer reads over the sample: blocks it asked the
    kernel for (page cache or disk) and blocks found in shared_buffers."""
    try:
        a = [float(x) for x in open(os.path.join(d, "start-pg")).read().split()]
        b = [float(x) for x in open(os.path.join(d, "end-pg")).read().split()]
    except (OSError, ValueError):
        return None
    if len(a) < 3 or len(b) < 3:
        return None
    read, hit, t = (y - x for x, y in zip(a, b))
    return {"blks_read": int(read), "blks_hit": int(hit),
            "hit_ratio": round(hit / (hit + read), 4) if hit + read else None,
            "read_time_ms": round(t, 1)}


def main():
    d = sys.argv[1]
    params = json.load(open(os.path.join(d, "params.json")))
    scripts = params["scripts"]
    # per type, each transaction's (recomputed think time, logged time less
    # the keying sleep), us
    pairs = {s["name"]: [] for s in scripts}
    failures = retries = 0
    files = sorted(glob.glob(os.path.join(d, "tx.*")))
    if not files:
        sys.exit("tpcc-report: no pgbench transaction logs (tx.*) in " + d)
    for f in files:
        done = {}                       # client -> completed transactions
        for line in open(f):
            p = line.split()
            if len(p) < 6:
                continue
            client, script = int(p[0]), int(p[3])
            tries = int(p[6]) + 1 if len(p) > 6 else 1
            retries += tries - 1
            if not p[2].isdigit():      # "failed", "serialization", "deadlock"
                failures += 1
                continue
            s = scripts[script]
            n = done.get(client, 0)
            done[client] = n + 1
            pairs[s["name"]].append((think_us(client, n, s["think_us"]),
                                     int(p[2]) - s["key_us"] * tries))
    # pgbench never wakes early: a logged time shorter than the sleeps
    # recomputed for it means the recomputation is wrong
    short = sum(y < x for v in pairs.values() for x, y in v)
    lat = {name: [max(0, y - x) for x, y in v] for name, v in pairs.items()}
    total = sum(len(v) for v in lat.values())
    sample_s = params["sample_s"]
    if params.get("transactions_per_user"):
        sample_s = pgbench_sample_s(os.path.join(d, "pgbench.txt"))
        if not sample_s:
            sys.exit("tpcc-report: no transaction count and tps in "
                     + os.path.join(d, "pgbench.txt"))
    minutes = sample_s / 60.0
    select_ms, set_ms, late_ms, think_ms = pgbench_figures(
        os.path.join(d, "pgbench.txt"), scripts)
    # the think sleep's lateness: pgbench's mean think sleep (-r) less the
    # mean of the think times recomputed for the logged transactions (the
    # same transactions when the sample is a count, -t)
    think_late_ms = {}
    for name, v in pairs.items():
        if name in think_ms and v:
            think_late_ms[name] = round(
                think_ms[name] - sum(x for x, _ in v) / len(v) / 1000.0, 3)
    report = {
        "workload": "tpcc",
        "warehouses": params["warehouses"],
        "users": params["users"],
        "think_factor": params["think_factor"],
        "precondition_s": params["precondition_s"],
        "sample_s": round(sample_s, 2),
        "transactions_per_user": params.get("transactions_per_user"),
        "seed": params.get("seed"),
        "tpmC": round(len(lat["new_order"]) / minutes, 2),
        "tpm_total": round(total / minutes, 2),
        "failures": failures,
        "retries": retries,
        "transactions": {},
        "overall": stats([x for v in lat.values() for x in v]),
        "shorter_than_sleeps": short,
        "pgbench_select_avg_ms": select_ms,
        "pgbench_set_avg_ms": set_ms,
        "pgbench_keying_late_ms": late_ms,
        "pgbench_think_late_ms": think_late_ms,
        "think_fit": think_fit(pairs),
    }
    for s in scripts:
        st = stats(lat[s["name"]])
        st["share"] = round(len(lat[s["name"]]) / total, 4) if total else 0.0
        st["weight"] = s["weight"] / 100.0
        report["transactions"][s["name"]] = st
    committed = os.path.join(d, "new-orders-committed")
    if os.path.exists(committed):
        c = int(open(committed).read())
        report["new_orders_committed"] = c
        no = len(lat["new_order"])
        report["new_order_rollback_share"] = round(1 - c / no, 4) if no else None
    disk = guest_disk(d)
    if disk:
        report["guest_disk"] = disk
    pg = pg_buffers(d)
    if pg:
        report["pg_buffers"] = pg
    for name in ("sample-start", "sample-end"):
        p = os.path.join(d, name)
        if os.path.exists(p):
            report[name.replace("-", "_")] = float(open(p).read())
    json.dump(report, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()

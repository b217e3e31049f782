#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check_suites.py DIR NVMIMIC: results of `nvmimic run --suite all`
(run_suites.sh); NVMIMIC reads the VDI job files for it.

Every suite ran and is complete; VDI points agree with the device's own
statistics over the same window and with the model's peak; the sequential
steps' GB/s agree with the bytes the device moved over its active span; the
render step swapped through the drive and checked its result; the TPC-C
sample ran on the loaded database, has all five transactions, the device's
statistics over the sample and the guest's own view of the disk; apps.csv
and the report carry each suite.
"""
import csv
import json
import os
import subprocess
import sys

d, nvmimic = sys.argv[1:3]
r = json.load(open(f"{d}/results.json"))
bad = []


def check(cond, what):
    if not cond:
        bad.append(what)


def margin(tag, what, value, bound, ok):
    """One line per bounded figure, passing or not: how near its bound."""
    print(f"check_suites: {'ok  ' if ok else 'FAIL'} {tag}: {what} "
          f"{value:.3f} (bound {bound})")
    check(ok, f"{tag}: {what} {value:.3f} outside {bound}")


def job(jobfile):
    """harness/workloads/JOBFILE's mix as nvmimic reads it (nvmimic jobfile
    show --json)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "..", "harness", "workloads", jobfile)
    p = subprocess.run([nvmimic, "jobfile", "show", path, "--json"],
                       capture_output=True, text=True, timeout=60)
    if p.returncode:
        sys.exit(f"check_suites: FAIL nvmimic jobfile show {jobfile}: "
                 f"{p.stderr.strip()}")
    return json.loads(p.stdout)


def think_s(jobfile):
    """Seconds of fio's thinktime in harness/workloads/JOBFILE (0: none)."""
    return job(jobfile)["thinktime_ns"] / 1e9


def duty(jobfile):
    """The share of a burst cycle a job issues I/O (1: no bursts)."""
    j = job(jobfile)
    think, on = j["thinktime_ns"], j["thinktime_iotime_ns"]
    return on / (on + think) if think > 0 and on > 0 else 1.0


# docs/results.schema.json (tests/results/validate.py)
p = subprocess.run(["/usr/bin/python3", os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "results",
    "validate.py"), d], capture_output=True, text=True)
print(p.stdout, end="")
check(p.returncode == 0, "results.json does not validate against the schema")

check(r["complete"] is True and r["error"] is None,
      f"complete {r['complete']}, error {r['error']}")
check(r["suites"] == ["vdi", "sql", "render", "seq"], f"suites {r['suites']}")

# VDI: the peak + curve driver on the three job files
vdi = [w for w in r["workloads"] if w["suite"] == "vdi"]
check([w["name"] for w in vdi] ==
      ["vdi-boot", "vdi-initial-login", "vdi-monday-login"],
      f"vdi workloads {[w['name'] for w in vdi]}")


def sim_vdi_seeds(count):
    """nvmimic sim's VDI peaks over the run's window for seeds seed..
    seed+count-1, each {workload: its results}."""
    out = []
    for k in range(count):
        p = subprocess.run([nvmimic, "sim", "--profile", r["profile"],
                            "--suite", "vdi", "--duration-s",
                            str(r["sim_duration_s"]), "--seed",
                            str(r["seed"] + k), "--format", "json"],
                           capture_output=True, text=True, timeout=300)
        if p.returncode:
            sys.exit(f"check_suites: FAIL nvmimic sim --suite vdi --seed "
                     f"{r['seed'] + k}: {p.stderr.strip()}")
        out.append({w["name"]: w for w in json.loads(p.stdout)["workloads"]})
    return out


seeds = sim_vdi_seeds(16) if vdi else []

for w in vdi:
    n = w["name"]
    check(w["mix"]["jobfile"] == n + ".fio" and 0 < w["mix"]["read_pct"] < 100,
          f"{n}: mix {w['mix']}")
    # the reviews' counts (harness/workloads/vdi-*.fio)
    want = {"vdi-boot": 32, "vdi-initial-login": 30, "vdi-monday-login": 16}
    check(w["threads"] == w["mix"]["outstanding"] == want[n],
          f"{n}: outstanding")
    pts = [w["peak"]] + w["curve"]
    check([p.get("target_pct") for p in w["curve"]] == [50, 100],
          f"{n}: curve points {[p.get('target_pct') for p in w['curve']]}")
    # the closed-loop peak against the model's over the same window from
    # the same state (the review state, set before each workload).  The
    # guest's I/O stream is not the model's own generator's, so its window
    # is one more draw of the drive's process: a P2 2 TB's
    # vdi-monday-login peak over 0.5 s was 5,164-6,066 IOPS for model seeds
    # 1-6, and 5,088 and 5,975 IOPS in two guest runs.  The bound is 4
    # standard deviations of that draw, from the model's own seeds; a wrong
    # rate split, mix or outstanding count lies further off.  That holds
    # only where the guest's draws spread as the model's do: over 0.5 s
    # (2026-12-04, nvmimic run --suite vdi --quick, seeds 1-4) the P2 2 TB's
    # vdi-initial-login peak in a guest was 5,730-6,742 IOPS (sd ~500)
    # against the model's 5,800 +- 198 over 16 seeds (6,742 failed the
    # bound); over 1.5 s, 5,819-6,299 (mean 6,020, sd ~220) against
    # 5,891 +- 200.  run_suites.sh runs 1.5 s points.
    sim = w["sim"]["peak"]
    for what, k in (("IOPS", "iops"), ("latency", "lat_us")):
        vals = [s[n]["peak"][k] for s in seeds]
        mean = sum(vals) / len(vals)
        sd = (sum((v - mean) ** 2 for v in vals) / (len(vals) - 1)) ** 0.5
        tol = max(0.03, 4 * sd / mean * (1 + 1 / len(vals)) ** 0.5)
        gp = w["peak"][k] / max(mean, 1e-9)
        margin(n, f"guest peak {what} / model peak {what} (mean of "
               f"{len(vals)} seeds, cv {sd / mean:.3f})", gp,
               f"1 +- {tol:.3f}", abs(gp - 1) <= tol)
    # the run's own model figure is seed 1 of the same draw
    check(abs(sim["iops"] - seeds[0][n]["peak"]["iops"]) <= 1e-6 *
          sim["iops"] + 0.5,
          f"{n}: results' model peak {sim['iops']} is not nvmimic sim's "
          f"seed {r['seed']} ({seeds[0][n]['peak']['iops']})")
    for p in pts:
        tag = f"{n} {p.get('target_pct', 'peak')}"
        check(p["iops"] > 0 and p["host_iops"] > 0, f"{tag}: no I/O")
        # the device's window is the guest's own: two in-band marks the
        # guest sent around fio's measured time, so both count the same
        # commands (within 2 %, as check_run.py holds four-corners points)
        gd = p["host_iops"] / max(p["iops"], 1e-9)
        margin(tag, "device IOPS / guest IOPS", gd, "1 +- 0.02",
               abs(gd - 1) <= 0.02)
        # the guest sees the device's latency plus its own path: never
        # less, and more by what the load generator, io_uring and the nvme
        # driver cost on one vCPU (a few us; 60 us, or 5 % at the ms
        # latencies of a saturated drive, as check_run.py allows)
        gap = p["lat_us"] - p["host_lat_us"]
        bound = max(60.0, 0.05 * p["host_lat_us"])
        margin(tag, "guest latency - device latency (us)", gap,
               f"0..{bound:.0f}", 0 <= gap <= bound)
        # a rate the guest did not offer is the host's fault; a drive with
        # its queue full (85 % of the outstanding count, the host-limited
        # test's bound) that does not keep up with its own peak is the
        # drive (GC and folding debt the peak left behind).  A mix with
        # bursts queues only while it issues: busy over its issuing time,
        # as nvmimic run judges it (a P2 2 TB's vdi-monday-login at 100 %:
        # 2,474 IOPS for 2,845 at 15.5 ms, 58 % of the count over the
        # whole time, 97 % while issuing)
        busy = (p["host_iops"] * p["host_lat_us"] / 1e6 / w["threads"] /
                duty(w["mix"]["jobfile"]))
        if p.get("target_pct") and not p["host_limited"] and busy < 0.85:
            tr = p["iops"] / max(p["target_iops"], 1e-9)
            margin(tag, f"guest IOPS / target (busy {busy:.2f})", tr,
                   ">= 0.85", tr >= 0.85)
        # nor more than was offered: Poisson arrivals over the window,
        # 4 standard deviations of their count
        if p.get("target_pct"):
            n_arr = p["target_iops"] * (p["host_interval_s"] or 0)
            hi = 1 + max(0.02, 4 / max(n_arr, 1) ** 0.5)
            tr = p["iops"] / max(p["target_iops"], 1e-9)
            margin(tag, "guest IOPS / target", tr, f"<= {hi:.3f}", tr <= hi)

apps = {a["suite"]: a for a in r["apps"]}
check(sorted(apps) == ["render", "seq", "sql"], f"apps {sorted(apps)}")
for a in apps.values():
    check(a["complete"] is True and a["error"] is None,
          f"{a['suite']}: {a['error']}")

# seq: 1 MiB write then read at QD 8 and 32
seq = apps.get("seq", {"steps": []})
check([s["name"] for s in seq["steps"]] ==
      ["seq-write-qd8", "seq-read-qd8", "seq-write-qd32", "seq-read-qd32"],
      f"seq steps {[s['name'] for s in seq['steps']]}")
for s in seq["steps"]:
    n = s["name"]
    dev = (s["device"] or {}).get("classes", {}).get(s["rw"])
    if not dev:
        check(False, f"{n}: no device {s['rw']} statistics")
        continue
    # Linux splits each 1 MiB I/O at the drive's MDTS: count bytes, not
    # commands.  The window is around the whole step: the device moved
    # every byte fio did, over its active span.
    moved = dev["mbps"] * 1e6 * s["device"]["active_s"]
    check(abs(moved / s["bytes"] - 1) < 0.001,
          f"{n}: the device moved {moved / 1e6:.1f} of {s['bytes'] / 1e6:.1f} MB")
    # fio's bytes over its run time, the device's over its active span
    # (0.2 % apart on a P2 2 TB)
    margin(n, "device GB/s / guest GB/s", dev["mbps"] / 1e3 / s["gbps"],
           "1 +- 0.03", abs(dev["mbps"] / 1e3 / s["gbps"] - 1) <= 0.03)
    # a 1 MiB I/O completes with the last of its MDTS-sized commands: the
    # guest's latency is at least the device's mean and, at 8 or 32
    # outstanding, above it by the spread of its pieces (6.5-7.5 % on a
    # P2 2 TB, four 256 KiB commands), not by more than 15 %
    lr = s["lat_us"] / max(dev["lat_us"], 1e-9)
    margin(n, "guest latency / device latency", lr, "0.98..1.15",
           0.98 <= lr <= 1.15)

# render: swap through the drive, result checked by the program
ren = apps.get("render", {})
res = ren.get("result") or {}
check(res.get("check", {}).get("ok") is True, f"render check {res.get('check')}")
check(res.get("array_bytes", 0) > res.get("ram_bytes", 1),
      "render: the array fits in RAM")
check((ren.get("swap") or {}).get("pswpout", 0) > 0, "render: nothing swapped out")
cls = ((ren.get("device") or {}).get("classes")) or {}
check(cls.get("write", {}).get("count", 0) > 0 and
      cls.get("read", {}).get("count", 0) > 0,
      f"render: device classes {sorted(cls)}")
check(all(res.get(k, 0) > 0 for k in ("load_s", "unpack_s", "repack_s")),
      f"render phases {res}")

# sql: TPC-C sample, all five transactions, device over the sample
sql = apps.get("sql", {})
tp = sql.get("result") or {}
check(tp.get("tpmC", 0) > 0 and tp.get("overall", {}).get("count", 0) >= 20,
      f"sql: tpmC {tp.get('tpmC')}, {tp.get('overall', {}).get('count')} tx")
tx = tp.get("transactions", {})
check(sorted(tx) == ["delivery", "new_order", "order_status", "payment",
                     "stock_level"], f"sql transactions {sorted(tx)}")
check(tx.get("new_order", {}).get("count", 0) > 0 and
      tx.get("payment", {}).get("count", 0) > 0, "sql: no new orders or payments")
dev = sql.get("device") or {}
check(dev.get("classes", {}).get("write", {}).get("count", 0) > 0,
      f"sql: no device writes over the sample: {dev}")
# on the loaded database (make sqldb-quick), on the NVMe drive; the guest's
# kernel saw the sample's writes on it, each at least the device's time
sp = sql.get("params", {})
check((sp.get("database_image") or "").endswith("/tpcc-w1.img") and
      sp.get("topology") == "nvme", f"sql: params {sp}")
gd = tp.get("guest_disk") or {}
check(gd.get("device") == "nvme0n1" and gd.get("write", {}).get("count", 0) > 0,
      f"sql: the guest's view of the disk {gd}")
gw = (sql.get("latency_gap") or {}).get("write") or {}
check(gw.get("guest_us") is not None and gw.get("device_us") is not None and
      gw["guest_us"] >= 0.9 * gw["device_us"], f"sql: write latency {gw}")
# the device's window is the sample (pgbench -T), not the load before it
sample = sql.get("params", {}).get("sample_s", 0)
check(0.9 * sample <= dev.get("interval_s", 0) <= 1.5 * sample + 5,
      f"sql: device interval {dev.get('interval_s')} s for a {sample} s sample")

# apps.csv, the report
rows = list(csv.DictReader(open(f"{d}/apps.csv")))
check({x["suite"] for x in rows} == {"sql", "render", "seq"},
      f"apps.csv suites {sorted({x['suite'] for x in rows})}")
check(any(x["metric"] == "result.tpmC" for x in rows), "apps.csv has no tpmC")
html = open(f"{d}/report.html").read()
for s in ("vdi-boot", "Sequential", "Render", "TPC-C"):
    check(s in html, f"report.html has no '{s}'")

if bad:
    for b in bad:
        print("check_suites: FAIL", b)
    sys.exit(1)
print(f"check_suites: OK: vdi-boot peak {vdi[0]['peak']['iops']:.0f} IOPS "
      f"(model {vdi[0]['sim']['peak']['iops']:.0f}); seq "
      + ", ".join(f"{s['name']} {s['gbps']} GB/s" for s in seq["steps"])
      + f"; render {res.get('total_s')} s; sql {tp.get('tpmC')} tpmC, "
      f"avg {tp.get('overall', {}).get('avg_ms')} ms")

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run_quick.sh NVMIMIC REWRITE: `nvmimic run --quick` of one workload
# (64k-seq-read on crucial-p2-2tb, peak + 4 points) in simulated time;
# check_run.py checks results.json against its schema, guest vs device vs
# model; REWRITE (tests/results/rewrite.c) reads it with the one reader and
# writes it with the one writer: the same bytes (tests/results/roundtrip.py).
#
# The drive is chosen so the guest is not the limit: its 64K read peak
# (~15 K IOPS) is well below what one simulated vCPU can issue.  The P5 2 TB's
# (~36 K IOPS) sits at that edge, where whether a point is host-limited
# changes from run to run, which makes no test.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
nvmimic=$1
rewrite=$2
out=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-runq.XXXXXX")
trap 'rm -rf "$out"' EXIT
"$nvmimic" run --profile crucial-p2-2tb --suite four-corners --mode simtime \
    --quick --workloads 64k-seq-read --points 10,50,100,120 --out "$out/r" \
    --device-trace "$out/drive.trace" \
    --fault '{"kind": "media-error", "error": "write-fault", "slba": 1000, "nlb": 8, "at-mark": 1}' ||
    { echo "run_quick: FAIL nvmimic run exited with $?"; exit 1; }
python3 "$here/check_run.py" "$out/r" 4
# run drew the report at its end, as sim --out and qtest --out do
grep -q 'guest (nvmimic-load in the VM)' "$out/r/report.html" ||
    { echo "run_quick: FAIL run wrote no report.html naming its load generator"; exit 1; }
python3 "$here/../results/roundtrip.py" "$rewrite" "$out/r" ||
    { echo "run_quick: FAIL results.json read and written back is not what run wrote"; exit 1; }
# nvmimic report re-renders from results.json and keeps results.csv as run
# wrote it, byte for byte (its suite column included)
cp "$out/r/results.csv" "$out/run.csv"
"$nvmimic" report "$out/r" >/dev/null || { echo "run_quick: FAIL nvmimic report"; exit 1; }
cmp -s "$out/run.csv" "$out/r/results.csv" ||
    { echo "run_quick: FAIL nvmimic report changed results.csv:"; diff "$out/run.csv" "$out/r/results.csv"; exit 1; }
head -1 "$out/r/results.csv" | grep -q ',sim_lat_us,suite$' ||
    { echo "run_quick: FAIL results.csv lacks the suite column"; exit 1; }
# The drive's own peak: 16 outstanding 64 KiB reads are not host-limited in
# simtime on this drive, and reach the model's peak within 3 %.
python3 - "$out/r/results.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["workloads"][0]
pk, sim = w["peak"], w["sim"]["peak"]
assert not pk["host_limited"], "64k-seq-read peak marked host-limited"
err = abs(pk["iops"] - sim["iops"]) / sim["iops"]
assert err < 0.03, f"guest peak {pk['iops']} vs model {sim['iops']}"
# 120 % of the peak saturates at the peak and is the drive's, not the host's
p120 = [p for p in w["curve"] if p["target_pct"] == 120][0]
assert p120["iops"] < 1.03 * pk["iops"] and p120["shortfall_pct"] > 10, p120
assert not p120["host_limited"], "a saturated drive point marked host-limited"
print(f"run_quick: peak {pk['iops']:.0f} IOPS (model {sim['iops']:.0f}), "
      f"guest {pk['lat_us']} us, device {pk['host_lat_us']} us")
PY
# --fault: a write fault (harmless to a read workload) queued for mark 1,
# applied at that mark's instant, in results.json, faults.json and the trace
python3 - "$out/r" "$out/drive.trace" <<'PY'
import json, os, sys
r = json.load(open(os.path.join(sys.argv[1], "results.json")))
marks = json.load(open(os.path.join(sys.argv[1], "guest", "marks.json")))
t1 = [m["time-ns"] for m in marks["marks"] if m["mark"] == 1][0]
f = r["faults"]
assert len(f) == 1 and f[0]["suite"] == "four-corners", f
ev = f[0]["applied"]
assert [e["kind"] for e in ev] == ["media-error"] and f[0]["queued"] == [], f
assert ev[0]["time-ns"] == t1 and ev[0]["at-mark"] == 1, (ev, t1)
assert f[0]["requested"][0]["slba"] == 1000, f
with open(os.path.join(sys.argv[1], "guest", "faults.json")) as g:
    assert json.load(g)["applied"][0]["time-ns"] == t1
notes = [l for l in open(sys.argv[2]) if "fault kind=media-error" in l]
assert len(notes) == 1 and notes[0].startswith("# at-ns="), notes
print("run_quick: --fault applied at mark 1 (%d ns): %s" % (t1, ev[0]["detail"]))
PY
# The drive's trace of the run (--device-trace), replayed on the model
# from the run's state mark: the model fed the drive's own commands at
# their times gives the drive's latency (the same model; jitter draws
# aside, reads of a drive at rest do not diverge).
from=$(python3 - "$out/r/guest/marks.json" "$out/drive.trace" <<'PY'
import json, sys
marks = json.load(open(sys.argv[1]))["marks"]
start = [l for l in open(sys.argv[2]) if "start-ns=" in l][0]
print(min(m["time-ns"] for m in marks) - int(start.split("start-ns=")[1].split()[0]))
PY
) || { echo "run_quick: FAIL no state mark or trace header"; exit 1; }
"$nvmimic" sim --profile crucial-p2-2tb --trace "$out/drive.trace" \
    --trace-state review-read --trace-from-ns "$from" --format json >"$out/replay.json" ||
    { echo "run_quick: FAIL sim --trace of the drive's trace"; exit 1; }
python3 - "$out/replay.json" "$out/r/results.json" <<'PY'
import json, sys
rp = json.load(open(sys.argv[1]))
w = json.load(open(sys.argv[2]))["workloads"][0]
rd = [c for c in rp["classes"] if c["class"] == "read"][0]
n_guest = sum(round(p["iops"] * p["host_interval_s"]) for p in [w["peak"]] + w["curve"])
assert rd["count"] >= n_guest, f"trace has {rd['count']} reads, the windows {n_guest}"
err = abs(rd["lat_us"] / rd["captured"]["lat_us"] - 1)
assert err < 0.02, f"replayed {rd['lat_us']} us against the drive's {rd['captured']['lat_us']} us"
print(f"run_quick: device trace of {rp['commands']} commands; replayed reads "
      f"{rd['lat_us']} us, the drive's {rd['captured']['lat_us']} us")
PY
# run itself replays the drive's trace (--device-trace) and gives every
# point the model's latency over the same window: the drive's own, to the
# rounding of the JSON (the same model on the same commands)
python3 - "$out/r/results.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["workloads"][0]
for p in [w["peak"]] + w["curve"]:
    where = f"{w['name']} {p.get('target_pct') or 'peak'}"
    assert p["trace_lat_us"] is not None, f"{where}: no trace_lat_us"
    err = abs(p["host_lat_us"] / p["trace_lat_us"] - 1)
    assert err < 0.001, f"{where}: device {p['host_lat_us']} us, model fed its trace {p['trace_lat_us']} us"
print("run_quick: every point's device latency equals the model fed the drive's trace")
PY

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run_quick.sh NVMIMIC: `nvmimic run --quick` of one workload (64k-seq-read on
# crucial-p2-2tb, peak + 4 points) in simulated time; check_run.py checks
# results.json against its schema, guest vs device vs model.
#
# The drive is chosen so the guest is not the limit: its 64K read peak
# (~15 K IOPS) is well below what one simulated vCPU can issue.  The P5 2 TB's
# (~36 K IOPS) sits at that edge, where whether a point is host-limited
# changes from run to run, which makes no test.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
nvmimic=$1
out=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-runq.XXXXXX")
trap 'rm -rf "$out"' EXIT
"$nvmimic" run --profile crucial-p2-2tb --suite four-corners --mode simtime \
    --quick --workloads 64k-seq-read --points 10,50,100,120 --out "$out/r" ||
    { echo "run_quick: FAIL nvmimic run exited with $?"; exit 1; }
python3 "$here/check_run.py" "$out/r" 4
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

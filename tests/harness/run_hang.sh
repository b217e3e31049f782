#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run_hang.sh NVMIMIC AGENT: a guest that hangs after its first workload is
# killed after the points' timeouts; the run names the workload that failed,
# exits 1 and keeps the workload it gathered in a valid results.json
# ("complete": false).  Then Ctrl-C (SIGINT) during a point leaves a valid partial
# results.json and exit status 130.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
nvmimic=$1 agent=$2
out=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-runh.XXXXXX")
trap 'rm -rf "$out"' EXIT
fail() { echo "run_hang: FAIL $*"; exit 1; }

# The agent, hung (not crashed) when its third command arrives (the first
# sets the block layer up, each workload's curve is one command): the
# 64K read curve completes, the 64K write curve never starts.
sed 's/^        out=\$RESULTS\/\$id.json$/        n=$((n + 1)); [ "$n" -ge 3 ] \&\& sleep 100000; out=$RESULTS\/$id.json/' \
    "$agent" >"$out/hang-agent.sh"
grep -q 'n=\$((n + 1))' "$out/hang-agent.sh" || fail "could not make the hanging agent"
set +e
NVMIMIC_AGENT=$out/hang-agent.sh "$nvmimic" run --profile crucial-p5-2tb \
    --suite four-corners --quick --workloads 64k-seq-read,64k-seq-write \
    --points 10,20 --point-timeout-s 20 --out "$out/h" >"$out/h.out" \
    2>"$out/h.err"
rc=$?
set -e
cat "$out/h.err"
[ "$rc" = 1 ] || fail "hung guest: exit $rc, not 1"
grep -q '64k-seq-write curve failed: the guest did not finish within 60 s' "$out/h.err" ||
    fail "the failing workload is not named"
python3 - "$out/h/results.json" <<'PY' || fail "partial results.json after the hang"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["complete"] is False and r["failed_point"] == "64k-seq-write curve", r["failed_point"]
rd, wr = r["workloads"]
assert rd["peak"]["iops"] > 0 and len(rd["curve"]) == 2, rd
assert wr["peak"] is None and wr["curve"] == [], wr
PY
pgrep -f "$out/h" >/dev/null && fail "QEMU of the hung guest still runs"

# Ctrl-C while the peak runs (it takes some wall seconds).
"$nvmimic" run --profile crucial-p5-2tb --suite four-corners --quick \
    --workloads 64k-seq-read --points 10 --run-s 2 --out "$out/i" >"$out/i.out" 2>"$out/i.err" &
pid=$!
for _ in $(seq 1200); do
    grep -aq 'running job' "$out/i/guest/console.log" 2>/dev/null && break
    sleep 0.1
done
sleep 8         # into the peak point (2 s at ~36 K IOPS: ~25 s wall)
kill -INT "$pid"
set +e
wait "$pid"
rc=$?
set -e
[ "$rc" = 130 ] || fail "interrupted run: exit $rc, not 130 ($(cat "$out/i.err"))"
python3 - "$out/i/results.json" <<'PY' || fail "partial results.json after Ctrl-C"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["complete"] is False and "interrupted" in r["error"], r["error"]
PY
pgrep -f "$out/i" >/dev/null && fail "QEMU of the interrupted run still runs"
/usr/bin/python3 "$here/../results/validate.py" "$out/h" "$out/i" || fail "results.json does not validate against docs/results.schema.json"
echo "run_hang: OK"

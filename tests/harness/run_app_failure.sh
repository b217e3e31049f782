#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run_app_failure.sh NVMIMIC AGENT: an application workload that fails in the
# guest (the agent made to fail its second command: seq's first read) is
# reported with the command's status, the tail of its log and the figures
# gathered so far (the first step), and the guest still hands back its logs.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
nvmimic=$1 agent=$2
out=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-appf.XXXXXX")
trap 'rm -rf "$out"' EXIT
fail() { echo "run_app_failure: FAIL $*"; exit 1; }

sed 's/^            NVMIMIC_MARK_FD=3 NVMIMIC_MARK_ID=\$id /            [ -n "$n_sh" ] \&\& args="echo the disk caught fire >\&2; exit 7"; n_sh=1; &/' \
    "$agent" >"$out/fail-agent.sh"
grep -q 'n_sh=1' "$out/fail-agent.sh" || fail "could not make the failing agent"
set +e
NVMIMIC_AGENT=$out/fail-agent.sh "$nvmimic" run --profile crucial-p2-2tb \
    --suite seq --quick --seq-mib 64 --out "$out/f" >"$out/f.out" 2>"$out/f.err"
rc=$?
set -e
cat "$out/f.err"
[ "$rc" = 1 ] || fail "exit status $rc, want 1"
grep -q 'seq-read-qd8 exited with status 7 in the guest: the disk caught fire' "$out/f.err" ||
    fail "the error does not name the command, its status and its last log line"
python3 - "$out/f/results.json" <<'PY' || fail "results.json"
import json, sys
r = json.load(open(sys.argv[1]))
a = r["apps"][0]
assert r["complete"] is False and r["failed_point"] == "seq", r["failed_point"]
assert a["complete"] is False and "status 7" in a["error"], a["error"]
assert "the disk caught fire" in a["log_tail"], a["log_tail"]
# the step before the failure is kept
assert [s["name"] for s in a["steps"]] == ["seq-write-qd8"], a["steps"]
assert a["steps"][0]["gbps"] > 0 and a["steps"][0]["device"]["classes"]["write"]["count"] > 0
PY
# the guest powered off by itself and handed back its logs
[ -s "$out/f/guest/console.log" ] && [ -s "$out/f/guest/seq-read-qd8.log" ] &&
    [ -s "$out/f/guest/seq-write-qd8.json" ] || fail "the guest's logs are missing"
/usr/bin/python3 "$here/../results/validate.py" "$out/f" || fail "results.json does not validate against docs/results.schema.json"
echo "run_app_failure: OK"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# workloads/seq on the host: both job files pass fio --parse-only at QD 8 and
# 32; a real 64 MiB write+read on a temp file gives fio JSON that seq-report.py
# turns into plausible GB/s; a failed job makes the parser exit 1.
# Usage: test-seq.sh SOURCE_ROOT
set -eu
SEQ=$1/workloads/seq
fail() { echo "FAIL: $*" >&2; exit 1; }
T=$(mktemp -d /tmp/nvmimic-seq.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
sh -n "$SEQ/run.sh" || fail "run.sh syntax"
export SEQ_DEV=$T/file SEQ_SIZE=64m SEQ_DIRECT=0
for SEQ_QD in 8 32; do
    export SEQ_QD
    for rw in write read; do
        fio --parse-only "$SEQ/seq-$rw.fio" || fail "fio --parse-only seq-$rw.fio (QD $SEQ_QD)"
    done
done
export SEQ_QD=8
for rw in write read; do
    fio "$SEQ/seq-$rw.fio" --output-format=json --output="$T/$rw.json" >/dev/null ||
        fail "fio seq-$rw.fio"
done
python3 "$SEQ/seq-report.py" "$T/write.json" "$T/read.json" >"$T/report.json" ||
    fail "seq-report.py"
cat "$T/report.json"
python3 - "$T/report.json" <<'EOPY' || fail "report figures"
import json, sys
r = json.load(open(sys.argv[1]))
assert [x["direction"] for x in r["results"]] == ["write", "read"], r["results"]
for x in r["results"]:
    assert x["bytes"] == 64 << 20 and x["bs"] == 1 << 20 and x["qd"] == 8, x
    assert 0.01 < x["GBps"] < 100, x
    assert abs(x["GBps"] - x["bytes"] / x["seconds"] / 1e9) < 0.05 * x["GBps"] + 0.01, x
assert r["write_GBps"]["8"] > 0 and r["read_GBps_best"] == r["read_GBps"]["8"]
EOPY
echo "# a failed fio job must make the parser fail"
python3 - "$T/write.json" "$T/bad.json" <<'EOPY'
import json, sys
d = json.load(open(sys.argv[1])); d["jobs"][0]["error"] = 5
json.dump(d, open(sys.argv[2], "w"))
EOPY
if python3 "$SEQ/seq-report.py" "$T/bad.json" >/dev/null 2>&1; then
    fail "seq-report.py accepted a job with an error"
fi
echo "PASS: seq"

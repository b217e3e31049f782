#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# workloads/render on the host at small scale: the statically linked program
# (as the guest gets it) loads, unpacks and repacks 4 M points (128 MB array)
# with 2 threads; every point must be in its bucket exactly once and each
# phase timed.  --corrupt must make the check fail.  The guest job's syntax.
# Usage: test-render.sh RENDER_BINARY SOURCE_ROOT
set -eu
BIN=$1; ROOT=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
T=$(mktemp -d /tmp/nvmimic-render.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
file "$BIN" | grep -q "statically linked" || fail "$BIN is not statically linked"
sh -n "$ROOT/workloads/render/run.sh" || fail "run.sh syntax"

"$BIN" --points 4000000 --threads 2 --file "$T/points.bin" >"$T/r.json" || fail "render failed"
cat "$T/r.json"
python3 - "$T/r.json" <<'EOPY' || fail "render JSON"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["check"] == {"bad": 0, "missing": 0, "ok": True}, r["check"]
assert r["points"] == 4000000 and r["threads"] == 2
assert r["array_bytes"] == 32 * r["points"] and r["packed_bytes"] == 8 * r["points"]
for k in ("load_s", "unpack_s", "repack_s"):
    assert 0 < r[k] < 60, (k, r[k])
assert abs(r["total_s"] - (r["load_s"] + r["unpack_s"] + r["repack_s"])) < 0.01
EOPY
[ "$(stat -c %s "$T/points.bin")" = 32000000 ] || fail "packed file size"

echo "# reusing the packed file, one thread"
"$BIN" --points 4000000 --threads 1 --file "$T/points.bin" --no-generate >"$T/r1.json" ||
    fail "render --no-generate"
grep -q '"ok": true' "$T/r1.json" || fail "one-thread check"

echo "# --corrupt must be caught"
if "$BIN" --points 100000 --file "$T/points.bin" --corrupt >"$T/c.json" 2>&1; then
    fail "a damaged bucket array passed the check"
fi
grep -q '"ok": false' "$T/c.json" || fail "corrupt run did not report ok: false"
echo "# a file too short for --no-generate is an error"
if "$BIN" --points 9000000 --file "$T/points.bin" --no-generate >/dev/null 2>&1; then
    fail "a short packed file was accepted"
fi
echo "PASS: render"

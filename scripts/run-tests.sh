#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run every meson test suite, then print meson's summaries, one line per
# suite ("suite device  95 of  95 tests ran: 95 passed, 0 failed, 0 skipped,
# 812 s": the count the build defines, from its introspection, beside the
# count that ran), one plain "N passed, N failed, N skipped" line (skipped
# tests are not passes), and any defined test that did not run (a failure).
#
# Two lanes at once, one core each: the guests (suites vm and libvirt: TCG
# guests, one at a time, a core each) and everything that runs on the host
# (unit, calibration, device, harness, recipes, workloads, fuzz).  The host
# tests run while the guests boot and work, instead of after them.  Each
# lane has its own log (meson-logs/guests.*, host.*); testlog.json is both.
set -u
B=${1:-build}
GUEST_SUITES="vm libvirt"

# one build first: the lanes must not both start ninja
ninja -C "$B" >/dev/null || { echo "run-tests: the build failed" >&2; exit 1; }

suite_args() {  # suite_args --suite|--no-suite: the guest suites
    for s in $GUEST_SUITES; do printf ' %s %s' "$1" "$s"; done
}
t0=$(date +%s)
# shellcheck disable=SC2046
meson test -C "$B" --no-rebuild --print-errorlogs --num-processes 1 \
    --logbase guests $(suite_args --suite) >"$B/meson-logs/guests.out" 2>&1 &
guests=$!
# shellcheck disable=SC2046
meson test -C "$B" --no-rebuild --print-errorlogs --num-processes 1 \
    --logbase host $(suite_args --no-suite) >"$B/meson-logs/host.out" 2>&1
rc_host=$?
t_host=$(($(date +%s) - t0))
wait "$guests"
rc_guests=$?
t_all=$(($(date +%s) - t0))
cat "$B/meson-logs/host.out" "$B/meson-logs/guests.out"
cat "$B/meson-logs/host.json" "$B/meson-logs/guests.json" \
    >"$B/meson-logs/testlog.json" 2>/dev/null
echo "run-tests: host lane $t_host s, guest lane to the end $t_all s (wall)"
rc=0
[ "$rc_host" = 0 ] && [ "$rc_guests" = 0 ] || rc=1
/usr/bin/python3 - "$B/meson-logs/testlog.json" \
    "$B/meson-info/intro-tests.json" <<'PY' || rc=1
import collections, json, sys
counts = {"passed": 0, "failed": 0, "skipped": 0}
# per suite: ran, passed, failed, skipped, seconds
suites = collections.defaultdict(lambda: [0, 0, 0, 0, 0.0])
failed = []
ran = set()
try:
    with open(sys.argv[1]) as f:
        for line in f:
            t = json.loads(line)
            r = t.get("result", "")
            suite = t["name"].split(" / ")[0].split(":")[-1]
            ran.add(t["name"].split(" / ", 1)[-1])
            s = suites[suite]
            s[0] += 1
            s[4] += t.get("duration", 0)
            if r == "OK" or r == "EXPECTEDFAIL":
                counts["passed"] += 1
                s[1] += 1
            elif r == "SKIP":
                counts["skipped"] += 1
                s[3] += 1
            else:
                counts["failed"] += 1
                s[2] += 1
                failed.append(t)
except OSError as e:
    print(f"run-tests: no test log ({e})")
# what the build defines, so that a suite or a test that did not run shows
defined = collections.Counter()
not_run = []
try:
    with open(sys.argv[2]) as f:
        for t in json.load(f):
            suite = t["suite"][0].split(":")[-1] if t["suite"] else "-"
            defined[suite] += 1
            if t["name"] not in ran:
                not_run.append(f"{suite} / {t['name']}")
except OSError as e:
    print(f"run-tests: no test list ({e})")
for s in defined:
    suites[s]
for s, (n, ok, bad, skip, d) in sorted(suites.items(),
                                       key=lambda kv: -kv[1][4]):
    print(f"run-tests: suite {s:12} {n:3} of {defined[s]:3} tests ran: "
          f"{ok} passed, {bad} failed, {skip} skipped, {d:6.0f} s")
print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
for n in not_run:
    print(f"run-tests: DID NOT RUN {n}")
# Last, so that a CI page showing only the tail still names what failed
# and why: each failed test and the end of its output.
for t in failed:
    print(f"run-tests: FAILED {t['name']} (exit {t.get('returncode')}, "
          f"{t.get('duration', 0):.0f} s); its last lines:")
    out = [l for l in (t.get("stdout") or "").splitlines() if l.strip()]
    for l in out[-10:]:
        print(f"  | {l[:200]}")
sys.exit(1 if not_run else 0)
PY
if [ "$rc" = 0 ] && grep -q '"result": "SKIP"' "$B/meson-logs/testlog.json" 2>/dev/null; then
    echo "run-tests: some tests were skipped; a skipped test is not a pass" >&2
    rc=1
fi
exit $rc

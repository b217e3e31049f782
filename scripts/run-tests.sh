#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run every meson test suite, then print meson's summary and one plain
# "N passed, N failed, N skipped" line (skipped tests are not passes).
set -u
B=${1:-build}
meson test -C "$B" --print-errorlogs --num-processes 2
rc=$?
/usr/bin/python3 - "$B/meson-logs/testlog.json" <<'PY'
import json, sys
counts = {"passed": 0, "failed": 0, "skipped": 0}
try:
    with open(sys.argv[1]) as f:
        for line in f:
            r = json.loads(line).get("result", "")
            if r == "OK" or r == "EXPECTEDFAIL":
                counts["passed"] += 1
            elif r == "SKIP":
                counts["skipped"] += 1
            else:
                counts["failed"] += 1
except OSError as e:
    print(f"run-tests: no test log ({e})")
print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
PY
if [ "$rc" = 0 ] && grep -q '"result": "SKIP"' "$B/meson-logs/testlog.json" 2>/dev/null; then
    echo "run-tests: some tests were skipped; a skipped test is not a pass" >&2
    rc=1
fi
exit $rc

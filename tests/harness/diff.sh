#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# diff.sh NVMIMIC FIXTURE_DIR: nvmimic diff, the regression gate, on fixture
# results.json files: identical runs exit 0 with no table; a run whose
# figures moved exits 1 and prints each moved figure with base, new and
# delta; --tolerance lets small moves pass; a figure or point missing from
# one run, or a run that stopped short, is a change; bad input exits 2 with
# a one-line error.
set -eu
nvmimic=$1 fx=$2
out=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-diff.XXXXXX")
trap 'rm -rf "$out"' EXIT
fail() { echo "diff: FAIL $*"; exit 1; }

# gate BASE NEW [OPTS...]: run the gate, leave its output in $out/o, return rc
gate() {
    set +e
    "$nvmimic" diff "$@" >"$out/o" 2>"$out/e"
    rc=$?
    set -e
    return 0
}

# 1. identical runs (a directory and a file path both work)
mkdir -p "$out/base"
cp "$fx/fixture-apps.json" "$out/base/results.json"
gate "$out/base" "$fx/fixture-apps.json"
[ "$rc" = 0 ] || fail "identical runs: exit $rc, want 0: $(cat "$out/o" "$out/e")"
grep -q 'figures compared: 0 changed, 0 beyond' "$out/o" || fail "identical runs: $(cat "$out/o")"
grep -q 'workload.*point.*figure' "$out/o" && fail "identical runs print a table"

# 2. a changed run: one guest latency, one device p99, one app figure
python3 - "$fx/fixture-apps.json" "$out/new.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
w = r["workloads"][0]
w["curve"][0]["lat_us"] = round(w["curve"][0]["lat_us"] * 1.02, 2)
w["peak"]["host_lat_us"] += 1.0
for a in r["apps"]:
    if a["suite"] == "sql":
        a["result"]["overall"]["p99_ms"] = 21.0
json.dump(r, open(sys.argv[2], "w"), indent=1)
PY
gate "$fx/fixture-apps.json" "$out/new.json"
[ "$rc" = 1 ] || fail "changed run: exit $rc, want 1"
grep -Eq '^vdi-boot +10 % +lat_us +180.4 +184.01 +\+3.61 +\+2.001 % +\*' "$out/o" ||
    fail "the guest latency's row is missing or wrong: $(cat "$out/o")"
grep -Eq '^vdi-boot +peak +host_lat_us +1510.7 +1511.7 +\+1 ' "$out/o" ||
    fail "the device latency's row is missing: $(cat "$out/o")"
grep -Eq '^app sql +result.overall +p99_ms +20.37 +21 ' "$out/o" ||
    fail "the app figure's row is missing: $(cat "$out/o")"
grep -q '3 changed, 3 beyond the tolerance (0 %)' "$out/o" || fail "summary: $(cat "$out/o")"

# 3. within a tolerance of 5 % the same change passes, but is still shown
gate "$fx/fixture-apps.json" "$out/new.json" --tolerance 5
[ "$rc" = 0 ] || fail "--tolerance 5: exit $rc, want 0: $(cat "$out/o")"
grep -q '3 changed, 0 beyond the tolerance (5 %)' "$out/o" || fail "tolerance summary: $(cat "$out/o")"
gate "$fx/fixture-apps.json" "$out/new.json" --tolerance 1
[ "$rc" = 1 ] || fail "--tolerance 1: exit $rc, want 1 (a 2 % move)"

# 4. a point missing from the new run, and a run that stopped short
python3 - "$fx/fixture-apps.json" "$out/short.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["workloads"][0]["curve"].pop()
r["complete"] = False
r["error"] = "the guest did not finish"
json.dump(r, open(sys.argv[2], "w"))
PY
gate "$fx/fixture-apps.json" "$out/short.json" --tolerance 50
[ "$rc" = 1 ] || fail "missing point: exit $rc, want 1"
grep -q 'the new run is incomplete: the guest did not finish' "$out/o" || fail "incomplete not said"
grep -Eq '^run +- +complete +true +false +changed' "$out/o" || fail "complete row: $(cat "$out/o")"
grep -Eq '^vdi-boot +110 % +\(the point\) +measured +- +changed' "$out/o" || fail "missing point not shown: $(cat "$out/o")"

# 5. --all prints unchanged figures too
gate "$fx/fixture-apps.json" "$fx/fixture-apps.json" --all
[ "$rc" = 0 ] && grep -Eq '^vdi-boot +peak +iops +41234.5 +41234.5' "$out/o" || fail "--all: $(cat "$out/o")"

# 6. bad input: exit 2, one line naming what is wrong
gate "$fx/fixture-apps.json"
[ "$rc" = 2 ] && grep -q 'needs two runs' "$out/e" || fail "one run: exit $rc $(cat "$out/e")"
gate "$fx/fixture-apps.json" "$out/none.json"
[ "$rc" = 2 ] && grep -q "none.json" "$out/e" && [ "$(wc -l <"$out/e")" = 1 ] ||
    fail "missing file: exit $rc $(cat "$out/e")"
echo '{"x": 1}' >"$out/bad.json"
gate "$fx/fixture-apps.json" "$out/bad.json"
[ "$rc" = 2 ] && grep -q 'not a results file' "$out/e" || fail "not a results file: exit $rc $(cat "$out/e")"
gate "$fx/fixture-apps.json" "$fx/fixture-apps.json" --tolerance -3
[ "$rc" = 2 ] && grep -q "tolerance '-3'" "$out/e" || fail "bad tolerance: exit $rc $(cat "$out/e")"
echo "diff: OK"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run_deterministic.sh NVMIMIC: in simulated time a run is a pure function of
# its inputs.  The same quick run (two workloads, the peak and two points
# each) twice: once on a quiet host, once with both cores loaded by busy
# loops (nice 19, so the machine's other users still get their share).
# Every figure must be the same bit for bit: results.json but the wall
# times, the JSON the guest wrote (nvmimic-load's, a job per point),
# and every statistics snapshot of the drive's in-band marks; and nvmimic
# diff must say that nothing moved.  KEEP=1 keeps the runs (and says where).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
nvmimic=$1
out=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-det.XXXXXX")
hogs=
cleanup() {
    for p in $hogs; do kill "$p" 2>/dev/null || true; done
    rm -rf "$out"
}
keep() {
    for p in $hogs; do kill "$p" 2>/dev/null || true; done
    echo "run_deterministic: kept $out"
}
if [ -n "${KEEP:-}" ]; then trap keep EXIT; else trap cleanup EXIT; fi
fail() { echo "run_deterministic: FAIL $*"; exit 1; }

run() {
    "$nvmimic" run --profile crucial-p2-500g --suite four-corners --mode simtime \
        --quick --workloads 4k-random-write,64k-seq-read --points 20,60 --seed 7 \
        --out "$out/$1" >"$out/$1.out" 2>&1 ||
        fail "run $1 exited with $?: $(tail -n 5 "$out/$1.out")"
}

t0=$(date +%s)
run quiet
t1=$(date +%s)
# The host tests run beside this one (scripts/run-tests.sh's two lanes); the
# one that times the host itself (tests/workloads/test-tpcc.sh) holds this
# lock shared while it runs, so the hogs wait for it and it for them.
if [ -n "${NVMIMIC_HOST_LOAD_LOCK:-}" ]; then
    exec 9>"$NVMIMIC_HOST_LOAD_LOCK"
    flock -x 9
fi
for _ in 1 2; do
    nice -n 19 sh -c 'while :; do :; done' &
    hogs="$hogs $!"
done
run loaded
t2=$(date +%s)
for p in $hogs; do kill "$p" 2>/dev/null || true; done
hogs=
[ -z "${NVMIMIC_HOST_LOAD_LOCK:-}" ] || exec 9>&-
echo "run_deterministic: quiet run $((t1 - t0)) s wall, loaded run $((t2 - t1)) s wall"

set +e
"$nvmimic" diff "$out/quiet" "$out/loaded" >"$out/diff.txt"
rc=$?
set -e
cat "$out/diff.txt"
[ "$rc" = 0 ] || fail "nvmimic diff: exit $rc, figures moved under load"
/usr/bin/python3 "$here/../results/validate.py" "$out/quiet" "$out/loaded" ||
    fail "results.json does not validate against docs/results.schema.json"

python3 - "$out/quiet" "$out/loaded" <<'PY' || fail "the runs differ"
import glob, json, os, sys

a, b = sys.argv[1], sys.argv[2]
# the host's own figures: how long things took in wall time, when it ran
HOST = {"wall_s", "started"}


def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in HOST}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


def load(path):
    with open(path) as f:
        return json.load(f)


bad = []
ra, rb = strip(load(f"{a}/results.json")), strip(load(f"{b}/results.json"))
if ra != rb:
    bad.append("results.json")
assert ra["complete"], "the run did not complete"
points = sum(1 + len(w["curve"]) for w in ra["workloads"])
# the guest's files: the load generator's JSON of each workload (a job per
# point, in fio's layout), the set-up's, the drive's marks
names = sorted(os.path.basename(p) for p in glob.glob(f"{a}/guest/*.json"))
assert "marks.json" in names, names
fio = [n for n in names if n != "marks.json"]
jobs = 0
for w in ra["workloads"]:
    assert f"{w['name']}.json" in fio, (w["name"], fio)
    jobs += len(load(f"{a}/guest/{w['name']}.json")["jobs"])
assert jobs == points, f"{jobs} jobs in the load generator's JSON for {points} points"
for n in names:
    x, y = load(f"{a}/guest/{n}"), load(f"{b}/guest/{n}")
    if x != y:
        bad.append(f"guest/{n}")
marks = load(f"{a}/guest/marks.json")["marks"]
assert len(marks) >= 2 * points, f"{len(marks)} marks for {points} points"
late = sum(c["late"] for m in marks for c in m["stats"]["classes"])
assert late == 0, f"{late} completions posted after their deadline"
if bad:
    print("differ:", ", ".join(bad))
    sys.exit(1)
print(f"run_deterministic: {points} points, {len(fio)} JSON outputs, "
      f"{len(marks)} marks: identical bit for bit under load")
PY
echo "run_deterministic: OK"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ci_gate.sh GATE_SH: the CI recipe's script (docs/ci/gate.sh, what the
# Dockerfile and the pipelines run) on this host, the tree already built
# (GATE_BUILD=0, GATE_BUILD_DIR from meson): a guest-kernel change (the
# candidate boots with nvme.io_queue_depth=8, half the 16 I/Os the 64K read
# keeps outstanding) is gated against the baseline (the stock command
# line): exit 1, the table of the figures that moved with their deltas,
# DIR/diff.txt, and report.html with the baseline's curves beside.
#
# The change must move the drive's figures for certain.  Threaded
# interrupts (nvme.use_threaded_interrupts=1) moved one figure by 0.01
# IOPS, then none once the drive's state no longer depended on when the
# guest set it (f3f3f46, 06500bd): on this quick 64K read they cost
# nothing a result keeps.
set -eu
gate=$1
out=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-gate.XXXXXX")
trap 'rm -rf "$out"' EXIT
fail() { echo "ci_gate: FAIL $*"; exit 1; }

set +e
GATE_BUILD=0 GATE_OUT=$out GATE_WORKLOADS=64k-seq-read GATE_POINTS=50 \
    GATE_RUN_ARGS="--quick --run-s 0.3" \
    GATE_NEW_APPEND=nvme.io_queue_depth=8 \
    sh "$gate" >"$out/gate.log" 2>&1
rc=$?
set -e
cat "$out/gate.log"
[ "$rc" = 1 ] || fail "gate.sh exited $rc, want 1 (a moved figure)"
grep -q '^gate: FAIL: exit 1' "$out/gate.log" || fail "no FAIL line"
grep -q 'input guest_append: null -> "nvme.io_queue_depth=8"' "$out/gate.log" ||
    fail "the diff does not name the change"
# a row of the table with its delta (which figures move is the change's
# business)
grep -Eq '^64k-seq-read +(peak|50 %) +[a-z0-9_]+ +[0-9.]+ +[0-9.]+ +[-+][0-9.]+ +[-+][0-9.]+ % +\*$' \
    "$out/gate.log" || fail "no figure row with its delta in the table"
# the parameter reached the driver (the guest's /init passes module
# parameters): 8 of the 16 reads wait in the guest, so the drive's own
# latency at the peak falls by about half, far more than any shift of the
# guest's instruction stream moves it
awk '$1 == "64k-seq-read" && $2 == "peak" && $3 == "host_lat_us" {
        if ($7 + 0 < -30) ok = 1 }
     END { exit !ok }' "$out/gate.log" ||
    fail "nvme.io_queue_depth=8 did not cut the drive's latency at the peak"
[ -s "$out/new/diff.txt" ] || fail "no diff.txt beside the run"
grep -q 'Since the baseline' "$out/new/report.html" &&
    grep -q "title 'baseline guest'" "$out/new/report.html" 2>/dev/null ||
    grep -q 'Since the baseline' "$out/new/report.html" || fail "the report has no baseline section"
[ -s "$out/new/64k-seq-read.svg" ] && grep -q 'baseline guest' "$out/new/64k-seq-read.svg" ||
    fail "the chart does not draw the baseline's curve"
echo "ci_gate: OK"

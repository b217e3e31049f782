#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make demo: after deps and the build, show nvmimic end to end on the default
# profile.  Each step prints its own result line.
set -eu
B=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROFILE=${NVMIMIC_DEMO_PROFILE:-crucial-p5-2tb}
QEMU=$B/qemu/qemu-system-x86_64
GUEST=$B/guest
start=$(date +%s)

echo "== 1/3 a Linux guest runs fio on QEMU's stock nvme device (TCG, real time)"
"$ROOT/tests/vm/smoke.sh" "$QEMU" "$GUEST" | tail -n 1

echo
echo "== 2/3 the same guest sees a $PROFILE (simulated time: -icount shift=0,sleep=off)"
"$ROOT/tests/vm/profile.sh" "$QEMU" "$GUEST" "$ROOT/profiles" "$PROFILE" | tail -n 1

echo
echo "== 3/3 the drive model alone: the reviews' four corners, quick run"
"$B/nvmimic" sim --profile "$PROFILE" --suite four-corners --quick --format table

echo
echo "demo: done in $(( $(date +%s) - start )) s"

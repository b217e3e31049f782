#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make demo: after deps and the build, reproduce the reviews' four-corners
# curves of the default profile inside a VM in simulated time (quick points),
# print the table (guest vs device vs model vs review) and the report's path.
set -eu
B=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROFILE=${NVMIMIC_DEMO_PROFILE:-crucial-p5-2tb}
OUT=${NVMIMIC_DEMO_OUT:-$ROOT/out/demo-$PROFILE-$(date +%Y%m%d-%H%M%S)}
start=$(date +%s)

echo "== nvmimic run: $PROFILE, four corners, in a guest, simulated time (-icount, 4e9 guest instructions per second), quick"
"$B/nvmimic" run --profile "$PROFILE" --suite four-corners --mode simtime --quick \
    --qemu "$B/qemu/qemu-system-x86_64" --guest-dir "$B/guest" --out "$OUT"

if "$B/nvmimic" report --help >/dev/null 2>&1; then
    echo
    echo "== nvmimic report: charts and report.html"
    "$B/nvmimic" report "$OUT"
    echo "report: $OUT/report.html"
fi
echo
echo "demo: done in $(( $(date +%s) - start )) s"

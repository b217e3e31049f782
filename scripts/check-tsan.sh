#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check-tsan: the real-time device tests (tests/device/
# test_realtime_nvme.py, the timing thread posting completions to a TCG
# guest) against a QEMU built with ThreadSanitizer.
#
#   build/qemu-tsan/  QEMU with the device, built by
#                     QEMU_VARIANT=tsan scripts/qemu-build.sh (gcc,
#                     --enable-tsan; the Makefile runs it first)
#   build/            our ordinary meson build, for the nvmimic CLI and
#                     tests/device/tinyguest.elf (not instrumented)
#
# TSan does not halt: every QEMU the tests start writes its reports to
# build/qemu-tsan/tsan-logs/tsan.PID (QEMU's tests/tsan/suppressions.tsan
# applied), and scripts/tsan-reports.py then prints them deduplicated,
# nvmimic's first.  It fails when a test fails or a report's top frames are
# in hw/nvme/ (ours, or QEMU's nvme that our patches change); reports in
# QEMU's core or glib (which Debian does not build with TSan, so its
# GMutex, GCond and GSource locking are invisible to it) are listed only.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
QEMU=$B/qemu-tsan/qemu-system-x86_64
LOGS=$B/qemu-tsan/tsan-logs

die() { echo "check-tsan: $*" >&2; exit 1; }
[ -x "$QEMU" ] || die "$QEMU is missing: run 'QEMU_VARIANT=tsan sh scripts/qemu-build.sh' (make check-tsan does)"
[ -e "$B/build.ninja" ] || meson setup "$B" "$ROOT" >/dev/null ||
    die "meson setup of $B failed"
ninja -C "$B" nvmimic tests/device/tinyguest.elf >/dev/null ||
    die "building the nvmimic CLI and the tiny guest failed"

# The tests that run QEMU under -icount are left out: there the vCPU
# thread's ThreadSanitizer shadow call stack overflows (65536 frames, then
# SEGV in the runtime; apparently the frames TCG's siglongjmp out of cpu_loop_exit
# leaves on it), in QEMU's TCG, not ours; the timing thread never starts
# under -icount anyway (test_icount_nvme.py and the device suite check that).
T=$ROOT/tests/device/test_realtime_nvme.py
tests=$(sed -n 's/^    def \(test_[a-z0-9_]*\)(.*/RealtimeNvme.\1/p' "$T" | grep -v icount)
[ -n "$tests" ] || die "no tests found in $T"

rm -rf "$LOGS"
mkdir -p "$LOGS"
rc=0
NVMIMIC_QEMU=$QEMU NVMIMIC_CLI=$B/nvmimic \
NVMIMIC_TINYGUEST=$B/tests/device/tinyguest.elf PYTHONDONTWRITEBYTECODE=1 \
TSAN_OPTIONS="suppressions=$B/qemu-src/tests/tsan/suppressions.tsan halt_on_error=0 exitcode=0 detect_deadlocks=0 history_size=7 log_path=$LOGS/tsan" \
    python3 "$T" -v $tests || rc=1
[ $rc = 0 ] || echo "check-tsan: a real-time device test failed under ThreadSanitizer" >&2

set -- "$LOGS"/tsan.*
if [ -e "$1" ]; then
    python3 "$ROOT/scripts/tsan-reports.py" "$@" >"$LOGS/summary.txt" || rc=1
    head -n 1 "$LOGS/summary.txt"
    grep '^=== ' "$LOGS/summary.txt" || true
    echo "check-tsan: the reports in full: $LOGS/summary.txt"
else
    echo "check-tsan: no ThreadSanitizer reports"
fi
exit $rc

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check-sanitizers: the device qtest suite and the model's unit tests
# under AddressSanitizer + UndefinedBehaviorSanitizer, and the timing
# thread's unit test under ThreadSanitizer.
#
#   build/qemu-asan/  QEMU with the device, built by
#                     QEMU_VARIANT=asan scripts/qemu-build.sh (the Makefile
#                     runs it first)
#   build/asan/       a second meson build of nvmimic with
#                     b_sanitize=address,undefined, whose tests run that QEMU
#   build/tsan/       a third, b_sanitize=thread, of which only
#                     tests/unit/test-rt is built and run
#
# Any sanitizer report fails the test that triggered it: the runtimes halt
# on the first error (QEMU then dies under the test, which names it), and
# nvmeqtest also fails a test whose QEMU printed a report.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
QEMU=$B/qemu-asan/qemu-system-x86_64
SAN=$B/asan

die() { echo "check-sanitizers: $*" >&2; exit 1; }
[ -x "$QEMU" ] || die "$QEMU is missing: run 'QEMU_VARIANT=asan sh scripts/qemu-build.sh' (make check-sanitizers does)"

if [ ! -e "$SAN/build.ninja" ]; then
    meson setup "$SAN" "$ROOT" -Db_sanitize=address,undefined \
        -Db_lundef=false -Dqemu="$QEMU" >/dev/null ||
        die "meson setup of $SAN failed"
else
    meson configure "$SAN" -Dqemu="$QEMU" >/dev/null
fi
ninja -C "$SAN" || die "the sanitizer build of nvmimic failed"

# halt_on_error: a report is a failure, not a line in a log.  QEMU does not
# free everything when it exits (and the qtests kill it), so leaks are
# checked in the unit tests only.
asan=halt_on_error=1:abort_on_error=1:print_summary=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_summary=1:print_stacktrace=1
# A test expected to fail (should_fail) passes on an abort too, so the logs
# are searched for reports as well.
marks='ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error: '
rc=0
for suite in unit device; do
    leaks=0
    [ $suite = unit ] && leaks=1
    ASAN_OPTIONS=$asan:detect_leaks=$leaks meson test -C "$SAN" \
        --print-errorlogs --num-processes 2 --timeout-multiplier 3 \
        --suite $suite || rc=1
    if grep -E "$marks" "$SAN/meson-logs/testlog.txt" >/dev/null; then
        echo "check-sanitizers: suite $suite: sanitizer reports in" \
             "$SAN/meson-logs/testlog.txt:" >&2
        grep -E "$marks" "$SAN/meson-logs/testlog.txt" | head -n 20 >&2
        rc=1
    fi
done

# ThreadSanitizer on the timing thread's code: hw/nvmimic-rt.c as it is, in
# tests/unit/test-rt.c on the pthread versions of QEMU's primitives
# (tests/unit/rt-shim/).  A TSan build of the whole QEMU is possible
# (configure --enable-tsan; gcc has the fiber interface its coroutines
# need) but is a third full QEMU build; docs/realtime.md says why it is
# not run here.
TSAN=$B/tsan
if [ ! -e "$TSAN/build.ninja" ]; then
    meson setup "$TSAN" "$ROOT" -Db_sanitize=thread -Db_lundef=false \
        >/dev/null || die "meson setup of $TSAN failed"
fi
ninja -C "$TSAN" tests/unit/test-rt || die "the ThreadSanitizer build of test-rt failed"
if TSAN_OPTIONS=halt_on_error=1:exitcode=66 "$TSAN/tests/unit/test-rt" \
        >"$TSAN/test-rt.log" 2>&1; then
    echo "check-sanitizers: the timing thread clean under ThreadSanitizer"
else
    echo "check-sanitizers: test-rt under ThreadSanitizer failed" \
         "($TSAN/test-rt.log):" >&2
    grep -E 'WARNING: ThreadSanitizer|^not ok|ERROR' "$TSAN/test-rt.log" |
        head -n 20 >&2
    rc=1
fi
[ $rc = 0 ] && echo "check-sanitizers: suites unit and device clean under ASan+UBSan"
exit $rc

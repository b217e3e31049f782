#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run the libFuzzer targets on the drive model (tests/fuzz/) for a time budget.
#
#   sh scripts/fuzz.sh [--check] BUILD SECONDS
#
# Builds BUILD/fuzz with clang (ASan + UBSan + libFuzzer) if needed, writes
# the seed corpus from profiles/ into BUILD/fuzz/seeds/, replays the committed
# reproducers of fixed crashes (tests/fuzz/regressions/), then runs each target
# for SECONDS at normal priority (FUZZ_NICE=N lowers it: libFuzzer's -timeout
# is wall-clock, so a starved input reads as a hang).  The corpus grows in
# BUILD/fuzz/corpus/<target>/.  A crash, hang, leak or broken invariant saves
# its reproducer as BUILD/fuzz/crashes/<target>-<kind>-<sha1>, prints it and
# fails (exit 1).  One summary line per run goes to stdout and to
# BUILD/fuzz/stats.tsv (scripts/fuzz-stats.sh: its columns; /usr/bin/time
# measures each run's CPU time); scripts/fuzz-table.py turns it into
# docs/fuzzing.md's table.
#
# FUZZ_TARGETS (default "profile model heap") picks targets; QEMU's
# generic-fuzz target (scripts/qemu-fuzz.sh) joins them when
# BUILD/qemu-fuzz/qemu-fuzz-x86_64 exists (make qemu-fuzz), never with --check.
set -u
exec 2>&1    # one ordered stream for logs and meson

CHECK=0
if [ "${1:-}" = --check ]; then CHECK=1; shift; fi
[ $# = 2 ] || { echo "usage: fuzz.sh [--check] BUILD SECONDS" >&2; exit 2; }
BUILD=$1
SECS=$2
case $SECS in ''|*[!0-9]*) echo "fuzz.sh: SECONDS '$SECS' is not a whole number" >&2; exit 2;; esac
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$BUILD"
BUILD=$(cd "$BUILD" && pwd)
FUZZ=$BUILD/fuzz
TARGETS=${FUZZ_TARGETS:-profile model heap}
if [ -z "${FUZZ_TARGETS:-}" ] && [ "$CHECK" = 0 ] &&
   [ -x "$BUILD/qemu-fuzz/qemu-fuzz-x86_64" ]; then
    TARGETS="$TARGETS qemu"
fi
CC_FUZZ=${CC_FUZZ:-clang-14}

die() { echo "fuzz.sh: $*" >&2; exit 1; }

command -v "$CC_FUZZ" >/dev/null 2>&1 ||
    die "$CC_FUZZ not found (make deps installs clang-14 and libclang-rt-14-dev)"

# ---- build (a separate meson build folder; the gcc build is untouched) ----
if [ ! -f "$FUZZ/build.ninja" ]; then
    rm -rf "$FUZZ/meson-private"
    CC=$CC_FUZZ meson setup "$FUZZ" "$ROOT" -Dfuzzing=true \
        -Db_sanitize=address,undefined -Db_lundef=false \
        -Dbuildtype=debugoptimized >"$BUILD/fuzz-setup.log" 2>&1 ||
        { cat "$BUILD/fuzz-setup.log" >&2; die "meson setup of $FUZZ failed"; }
fi
ninja -C "$FUZZ" >"$BUILD/fuzz-build.log" 2>&1 ||
    { tail -n 40 "$BUILD/fuzz-build.log" >&2; die "building the fuzz targets failed"; }

# ---- seeds, generated from profiles/ every run ----
rm -rf "$FUZZ/seeds/profile" "$FUZZ/seeds/model" "$FUZZ/seeds/heap"
mkdir -p "$FUZZ/seeds/profile" "$FUZZ/seeds/model" "$FUZZ/seeds/heap" \
    "$FUZZ/crashes"
cp "$ROOT"/profiles/*.ini "$FUZZ/seeds/profile/"
# Model programs (see fuzz-model.c): profile index, seed, start time, then
# stats, a fill, 4K reads, a burst of 64K writes, idle, APST, wear, a flush.
i=0
for p in "$ROOT"/profiles/*.ini; do
    printf "\\$(printf %o $i)\\000\\001\\000\\015\\006\\100\\000\\002\\000\\001\\000\\001\\045\\065\\001\\001\\000\\001\\001\\000\\016\\377\\013\\001\\002\\004\\006\\010\\012\\014\\016\\020\\015\\010\\200\\017\\015\\011\\003\\001\\000\\000\\377\\000\\015" \
        >"$FUZZ/seeds/model/$(basename "$p" .ini)"
    i=$((i + 1))
done

# Heap programs (see fuzz-heap.c): pushes with 1-byte keys, ties, a pop,
# a top update, a filter.
printf '\001\040\005\040\005\050\005\040\003\004\046\010\047\001\040\011\004' \
    >"$FUZZ/seeds/heap/mixed"

if [ -x /usr/bin/llvm-symbolizer-14 ]; then
    export ASAN_SYMBOLIZER_PATH=/usr/bin/llvm-symbolizer-14
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export NVMIMIC_PROFILE_DIR="$ROOT/profiles"
NICE=${FUZZ_NICE:-0}
. "$ROOT/scripts/fuzz-stats.sh"

failed=0

# Print a reproducer and how to replay it.
show_crash() {  # target binary file log
    echo "fuzz.sh: $1: reproducer saved: $3" >&2
    echo "fuzz.sh: replay with: $2 $3" >&2
    if [ "$1" = profile ]; then
        head -c 4000 "$3" >&2; echo >&2
    else
        od -An -tx1 "$3" | head -n 20 >&2
    fi
    echo "fuzz.sh: --- what libFuzzer said (tail of $4) ---" >&2
    grep -v '^#[0-9]' "$4" | tail -n 40 >&2
}

run_target() {  # name
    t=$1
    bin=$FUZZ/tests/fuzz/fuzz-$t
    [ -x "$bin" ] || die "$bin was not built"
    case $t in
        profile) maxlen=20000 ;;
        *) maxlen=4096 ;;
    esac
    # Reproducers of crashes already fixed must stay fixed.
    regs=$(ls "$ROOT/tests/fuzz/regressions/$t"/* 2>/dev/null || true)
    if [ -n "$regs" ]; then
        log=$FUZZ/regressions-$t.log
        # shellcheck disable=SC2086
        if ! "$bin" -runs=1 $regs >"$log" 2>&1; then
            echo "fuzz.sh: $t: a committed reproducer crashes again" >&2
            tail -n 40 "$log" >&2
            failed=1
            return
        fi
        echo "fuzz.sh: $t: $(echo "$regs" | wc -w) committed reproducers replayed clean"
    fi
    mkdir -p "$FUZZ/corpus/$t"
    # libFuzzer keeps every input it replaced: merge a big corpus down to
    # the inputs that still add coverage before starting again.
    if [ "$(ls "$FUZZ/corpus/$t" | wc -l)" -gt 2000 ]; then
        rm -rf "$FUZZ/corpus/$t.merged"
        mkdir -p "$FUZZ/corpus/$t.merged"
        if nice -n "$NICE" "$bin" -merge=1 -timeout=25 -rss_limit_mb=2048 \
            -malloc_limit_mb=64 "$FUZZ/corpus/$t.merged" "$FUZZ/corpus/$t" \
            >"$FUZZ/merge-$t.log" 2>&1; then
            rm -rf "$FUZZ/corpus/$t"
            mv "$FUZZ/corpus/$t.merged" "$FUZZ/corpus/$t"
        fi
    fi
    log=$FUZZ/fuzz-$t.log
    # the code this run fuzzes: the tree the build above compiled
    FUZZ_COMMIT=$(fuzz_commit)
    before=$(ls "$FUZZ/crashes" | sort)
    start=$(date +%s)
    load=$(cut -d' ' -f1 /proc/loadavg)
    timef=$FUZZ/time-$t
    : >"$timef"
    # -report_slow_units: on a loaded 2-core host a 12 ms input can stall
    # for 10 s; hangs are caught by -timeout instead.
    /usr/bin/time -a -o "$timef" -f '%e %U %S' \
        nice -n "$NICE" "$bin" -max_total_time="$SECS" -timeout=25 \
        -rss_limit_mb=2048 -malloc_limit_mb=64 -max_len=$maxlen \
        -print_final_stats=1 -report_slow_units=100000 \
        -artifact_prefix="$FUZZ/crashes/$t-" \
        "$FUZZ/corpus/$t" "$FUZZ/seeds/$t" >"$log" 2>&1
    rc=$?
    end=$(date +%s)
    secs=$(( end - start ))
    read -r execs cov ft <<EOF
$(fuzz_log_figures "$log")
EOF
    corp=$(ls "$FUZZ/corpus/$t" | wc -l)
    new=$(fuzz_new_files "$before" "$FUZZ/crashes")
    ncrash=$(echo "$new" | grep -c . || true)
    cpu=$(fuzz_cpu_s "$timef")
    echo "fuzz-$t: ${secs} s, CPU ${cpu} s, ${execs:-?} execs, cov ${cov:-?}, ft ${ft:-?}, corpus $corp, crashes $ncrash"
    fuzz_stats_row "$FUZZ/stats.tsv" "$start" "$end" "$t" "$timef" \
        "${execs:-0}" "${cov:-0}" "${ft:-0}" "$corp" "$ncrash" "$load"
    if [ "$rc" != 0 ] || [ "$ncrash" != 0 ]; then
        failed=1
        if [ "$ncrash" = 0 ]; then
            echo "fuzz.sh: $t exited $rc without a reproducer" >&2
            tail -n 40 "$log" >&2
        fi
        for f in $new; do
            show_crash "$t" "$bin" "$FUZZ/crashes/$f" "$log"
        done
    fi
}

for t in $TARGETS; do
    case $t in
        profile|model|heap) run_target "$t" ;;
        qemu)
            if [ "$CHECK" = 1 ]; then
                echo "fuzz.sh: the QEMU generic-fuzz target is not part of make check" >&2
            else
                sh "$ROOT/scripts/qemu-fuzz.sh" "$BUILD" "$SECS" || failed=1
            fi
            ;;
        *) die "unknown target '$t' (profile, model, heap, qemu)" ;;
    esac
done
exit $failed

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# QEMU's fuzz targets on the nvme controller (never part of make check: they
# need their own QEMU build): generic-fuzz with and without a profile, and
# nvmimic's own nvmimic-fuzz (hw/nvmimic-fuzz.c: QMP state changes, marks
# and traces interleaved with guest commands).
#
#   sh scripts/qemu-fuzz.sh BUILD SECONDS
#
# Needs BUILD/qemu-fuzz/qemu-fuzz-x86_64: clang-14, --enable-fuzzing, ASan and
# UBSan, x86_64-softmmu only (make qemu-fuzz, i.e. QEMU_VARIANT=fuzz
# scripts/qemu-build.sh).  Runs three configurations for SECONDS each, on a
# null-co drive, at normal priority (FUZZ_NICE=N lowers it):
#   baseline   generic-fuzz, -device nvme (upstream's controller, no profile=)
#   profile    generic-fuzz, -device nvme,profile=$FUZZ_PROFILE (default
#              crucial-p2-500g)
#   nvmimic    nvmimic-fuzz on the profile configuration
# seeded by scripts/qemu-fuzz-seeds.py (queue setup, held completions and
# clock steps, CC.EN reset and Delete SQ while held, Set/Get Features 0x0c,
# DSM, the SMART log, marks) and scripts/nvmimic-fuzz-seeds.py.  A crash is
# replayed alone against both generic-fuzz configurations: if it crashes
# the baseline too it is upstream's, otherwise ours.  Reproducers:
# BUILD/fuzz/crashes/qemu-<config>-*.  Each run's line goes to
# BUILD/fuzz/stats.tsv (scripts/fuzz-stats.sh), its CPU time measured with
# /usr/bin/time.
set -u
exec 2>&1

[ $# = 2 ] || { echo "usage: qemu-fuzz.sh BUILD SECONDS" >&2; exit 2; }
BUILD=$(cd "$1" && pwd)
SECS=$2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
QF=$BUILD/qemu-fuzz/qemu-fuzz-x86_64
FUZZ=$BUILD/fuzz
PROFILE=${FUZZ_PROFILE:-crucial-p2-500g}
CONFIGS=${QEMU_FUZZ_CONFIGS:-baseline profile nvmimic}
NICE=${FUZZ_NICE:-0}
. "$ROOT/scripts/fuzz-stats.sh"

die() { echo "qemu-fuzz: $*" >&2; exit 1; }
[ -x "$QF" ] || die "$QF not built (make qemu-fuzz)"
# the code fuzzed is what the binary was built from (qemu-build.sh's stamp),
# not whatever the tree holds when a run ends
FUZZ_COMMIT=$(cat "$BUILD/qemu-fuzz/nvmimic-commit" 2>/dev/null ||
              echo "$(fuzz_commit)?")

[ -x "$BUILD/nvmimic" ] || die "$BUILD/nvmimic not built (make nvmimic)"
cap=$("$BUILD/nvmimic" profile show "$PROFILE" --profile-dir "$ROOT/profiles" \
      --key identity.capacity-bytes) || die "no capacity of profile $PROFILE"
DRIVE="-drive if=none,id=d0,driver=null-co,size=$cap,read-zeroes=on"
BIOS="-L /usr/share/qemu -L /usr/share/seabios"
# QEMU's own DMA bounce buffer (4 KiB) unless QEMU_FUZZ_BOUNCE=BYTES sets
# another.  Until qemu/patches/0014, a request cancelled while it waited for
# the bounce buffer hung QEMU (upstream's dma_aio_cancel), which generic-fuzz
# hit within minutes, so these runs used 256 MiB; the first runs with the
# default after the patch (2026-12-06, docs/fuzzing.md) found nothing.
BOUNCE=${QEMU_FUZZ_BOUNCE:-}
[ -z "$BOUNCE" ] || BIOS="$BIOS -global nvme.x-max-bounce-buffer-size=$BOUNCE"

args_for() {
    case $1 in
        baseline) echo "$BIOS -M q35 -nodefaults $DRIVE -device nvme,serial=fuzz,drive=d0" ;;
        profile|nvmimic) echo "$BIOS -M q35 -nodefaults $DRIVE -device nvme,id=nvm0,serial=fuzz,drive=d0,profile=$ROOT/profiles/$PROFILE.ini" ;;
    esac
}

target_for() {
    case $1 in
        nvmimic) echo nvmimic-fuzz ;;
        *) echo generic-fuzz ;;
    esac
}

export QEMU_FUZZ_OBJECTS=nvme
# QEMU frees little at exit; leaks are not what this run looks for.  Appended,
# not defaulted: make fuzz exports detect_leaks=1 for the model's targets, and
# with it the first corpus input stopped both configurations on a 16-byte
# g_realloc QEMU keeps (the later of two settings wins).
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if [ -x /usr/bin/llvm-symbolizer-14 ]; then
    export ASAN_SYMBOLIZER_PATH=/usr/bin/llvm-symbolizer-14
fi

mkdir -p "$FUZZ/crashes" "$FUZZ/seeds"
rm -rf "$FUZZ/seeds/qemu" "$FUZZ/seeds/nvmimic"
# Seeds address the controller's register region: generic-fuzz numbers the
# matched regions; the first is BAR0's registers.
python3 "$ROOT/scripts/qemu-fuzz-seeds.py" "$FUZZ/seeds/qemu" 0 ||
    die "could not write the seeds"
python3 "$ROOT/scripts/nvmimic-fuzz-seeds.py" "$FUZZ/seeds/nvmimic" ||
    die "could not write the nvmimic-fuzz seeds"

# libFuzzer's -timeout cannot fire inside QEMU (QEMU takes SIGALRM through
# its signalfd), so a watchdog does its job: a run whose CPU time stands still
# for STALL_S seconds is stuck (a hang), one past its time budget spins.  It
# gets SIGABRT, on which libFuzzer saves the input it was running.
STALL_S=${QEMU_FUZZ_STALL_S:-60}
# libFuzzer's own -timeout is wall-clock and is noticed only when QEMU's main
# loop reads the SIGALRM from its signalfd: on a loaded host an input of 20 s
# of CPU (upstream's Write Zeroes fallback, a memset per chunk on null-co,
# which has no write-zeroes call) read as a 127 s "timeout".  It stays as a
# last resort; hangs are the watchdog's (CPU time standing still).
TIMEOUT_S=${QEMU_FUZZ_TIMEOUT:-300}

cpu_ticks() {  # utime + stime of a process, in clock ticks
    awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null
}

# Run one configuration for up to $1 seconds; sets rc and hung.  Its CPU
# time is appended to $timef.
run_once() {
    QEMU_FUZZ_ARGS=$args /usr/bin/time -a -o "$timef" -f '%e %U %S' \
        nice -n "$NICE" "$QF" --fuzz-target="$target" \
        -max_total_time="$1" -timeout="$TIMEOUT_S" -rss_limit_mb=6144 -detect_leaks=0 \
        -max_len=8192 -print_final_stats=1 -report_slow_units=100000 \
        -artifact_prefix="$FUZZ/crashes/qemu-$c-" \
        "$corpus" "$seeds" >>"$log" 2>&1 &
    tpid=$!
    # the watchdog watches the fuzzer itself, /usr/bin/time's child
    pid=
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        pid=$(pgrep -P "$tpid" | head -n 1)
        [ -n "$pid" ] && break
        sleep 1
    done
    [ -n "$pid" ] || pid=$tpid
    hung=0
    last=-1
    still=0
    t0=$(date +%s)
    while kill -0 "$pid" 2>/dev/null; do
        sleep 5
        now=$(cpu_ticks "$pid")
        [ -n "$now" ] || break
        if [ "$now" = "$last" ]; then still=$((still + 5)); else still=0; fi
        last=$now
        if [ "$still" -ge "$STALL_S" ] ||
           [ $(( $(date +%s) - t0 )) -gt $(( $1 + 120 )) ]; then
            echo "qemu-fuzz: $c: no progress for ${still} s: a hang; SIGABRT saves its input" >>"$log"
            hung=1
            kill -ABRT "$pid" 2>/dev/null
            sleep 10
            kill -KILL "$pid" 2>/dev/null
            break
        fi
    done
    wait "$tpid"
    rc=$?
}

failed=0
for c in $CONFIGS; do
    args=$(args_for "$c")
    [ -n "$args" ] || die "unknown configuration '$c' (baseline, profile, nvmimic)"
    target=$(target_for "$c")
    corpus=$FUZZ/corpus/qemu-$c
    case $c in nvmimic) seeds=$FUZZ/seeds/nvmimic ;; *) seeds=$FUZZ/seeds/qemu ;; esac
    log=$FUZZ/fuzz-qemu-$c.log
    timef=$FUZZ/time-qemu-$c
    mkdir -p "$corpus"
    : >"$log"
    : >"$timef"
    before=$(ls "$FUZZ/crashes")
    start=$(date +%s)
    load=$(cut -d' ' -f1 /proc/loadavg)
    # After a hang or a crash, start again for the rest of the budget (each
    # reproducer is kept), at most 20 times.
    runs=0
    while [ "$runs" -lt 20 ]; do
        runs=$((runs + 1))
        left=$(( SECS - ($(date +%s) - start) ))
        [ "$left" -gt 10 ] || break
        run_once "$left"
        if [ "$hung" = 1 ]; then
            for f in $(ls "$FUZZ/crashes"); do
                case $f in qemu-$c-crash-*)
                    echo "$before" | grep -qx "$f" ||
                        mv "$FUZZ/crashes/$f" "$FUZZ/crashes/qemu-$c-hang-${f#qemu-$c-crash-}" ;;
                esac
            done
        elif [ "$rc" != 0 ]; then
            [ "$(ls "$FUZZ/crashes" | wc -l)" -gt "$(echo "$before" | grep -c .)" ] ||
                break   # no reproducer: reported below, not retried
        else
            break       # the budget is spent
        fi
    done
    end=$(date +%s)
    secs=$(( end - start ))
    read -r execs_total cov ft <<EOF
$(fuzz_log_figures "$log")
EOF
    new=$(fuzz_new_files "$before" "$FUZZ/crashes")
    ncrash=$(echo "$new" | grep -c . || true)
    echo "qemu-fuzz-$c: ${secs} s, CPU $(fuzz_cpu_s "$timef") s, $execs_total execs, cov ${cov:-?}, ft ${ft:-?}, corpus $(ls "$corpus" | wc -l), crashes and hangs $ncrash"
    fuzz_stats_row "$FUZZ/stats.tsv" "$start" "$end" "qemu-$c" "$timef" \
        "$execs_total" "${cov:-0}" "${ft:-0}" "$(ls "$corpus" | wc -l)" \
        "$ncrash" "$load"
    if [ "$rc" != 0 ] && [ "$ncrash" = 0 ]; then
        echo "qemu-fuzz: $c exited $rc without a reproducer:"
        tail -n 30 "$log"
        failed=1
    fi
    for f in $new; do
        failed=1
        echo "qemu-fuzz: $c: reproducer $FUZZ/crashes/$f"
        grep -A 14 -E "ERROR: libFuzzer|ERROR: AddressSanitizer|runtime error" "$log" |
            grep -E '(ERROR|runtime error|    #[0-9]+ .* in [a-z_]+ )' |
            sed 's/ (\/.*//' | head -n 16
        # Replay alone, in both generic-fuzz configurations (an
        # nvmimic-fuzz input in its own): whose is it?
        case $c in nvmimic) replay="nvmimic" ;; *) replay="baseline profile" ;; esac
        for r in $replay; do
            QEMU_FUZZ_ARGS=$(args_for $r) timeout -s ABRT 120 "$QF" \
                --fuzz-target="$(target_for $r)" -runs=1 "$FUZZ/crashes/$f" \
                >"$log.replay-$r" 2>&1
            echo "qemu-fuzz:   replayed alone with $r: exit $?"
        done
        echo "qemu-fuzz:   (crashes with baseline: upstream QEMU's; only with profile: nvmimic's;"
        echo "qemu-fuzz:    neither: it needs the state earlier inputs left, compare its stack)"
        echo "qemu-fuzz:   replay: QEMU_FUZZ_OBJECTS=nvme QEMU_FUZZ_ARGS='$args' $QF --fuzz-target=$target $FUZZ/crashes/$f"
    done
done
exit $failed

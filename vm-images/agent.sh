# SPDX-License-Identifier: GPL-2.0-or-later
#
# agent.sh: the guest half of `nvmimic run`.  The harness ships it as the
# job's run.sh (vm-images/guest-init and the database guest's
# /sbin/nvmimic-dbinit run it with sh, cwd /job, $RESULTS=/results).  It
# talks to the host over the second serial port (/dev/ttyS1), one line per
# message.
#
# Commands come from the job's plan (/job/plan, the host's whole plan for
# the suite, written before the guest booted) and, after it, from the
# serial port.  With a plan no host input reaches the guest while it
# measures: where each point starts and what it measures follow from the
# plan alone, so in simulated time a run is a pure function of its inputs.
#
#   guest -> host   HELLO                      ready (the plan starts now)
#   command         RUN ID MARK WINDOW FIO-ARGS...
#                   run fio with FIO-ARGS (JSON output into $RESULTS/ID.json)
#   command         SH ID MARK WINDOW COMMAND...
#                   the same for a shell command (sh -c), which may write
#                   its JSON result to $RESULTS/ID.json
#   command         MARK ID MARK FLAGS
#                   an in-band mark by itself (FLAGS 1: reset the drive's
#                   statistics), e.g. where the host queued a state
#                   (nvmimic-set-state at-mark) for the drive to take
#   command         QUIT                       leave: the init writes
#                                              /results and powers off
#   guest -> host   MARK ID start|stop         progress: a window opened
#   guest -> host   RESULT ID RC               the exit status, followed by
#                   $RESULTS/ID.json line by line when RC is 0, else the
#                   last 20 lines of its log ($RESULTS/ID.log), and
#                   END ID
#   guest -> host   ERROR MESSAGE              a command could not be run
#
# In-band marks: the drive's vendor-specific admin command C0h (CDW12 the
# mark's number, CDW13 bit 0 reset the statistics after the snapshot; see
# query-nvmimic-marks), sent with nvme-cli at an exact point of the guest's
# timeline.  A RUN or SH command with MARK N > 0 sends mark N (reset) where
# its window opens and mark N+1 (snapshot) where it closes; WINDOW says
# where that is:
#   START_US:STOP_US  START_US after the command's first I/O reached the
#                     drive (fio's own start-up takes tens of ms of guest
#                     CPU, in which no I/O happens), STOP_US after that
#                     (STOP_US 0: when the command has ended)
#   whole             around the whole command
#   cmd               the command marks itself: $NVMIMIC_MARK_CMD start,
#                     $NVMIMIC_MARK_CMD stop
#   -                 no window (MARK is 0)
#
# Rates from the guest's own figures: a word @RATE:ID:DD:PCT:JOBS:FRAC@ in
# FIO-ARGS becomes max(1, IOPS * PCT / 100 / JOBS * FRAC) (%.0f), where
# IOPS is fio's "iops" of section DD (read, write or mixed) in
# $RESULTS/ID.json: the 10..120 % points of a curve follow from the peak
# the guest just measured, in the same arithmetic as the host's record.
#
# After a command fails, the rest of the plan is skipped up to its QUIT.
tty=${NVMIMIC_CTL_TTY:-/dev/ttyS1}
ctrl=${NVMIMIC_CTRL:-/dev/nvme0}
stat=/sys/block/${NVMIMIC_DISK:-nvme0n1}/stat

# mark N FLAGS: the in-band mark; its own process, as nvme-cli is
mark() {
    nvme admin-passthru "$ctrl" --opcode=0xc0 --cdw12="$1" --cdw13="$2" \
        >/dev/null 2>"${RESULTS:-/tmp}/mark.err"
}

# sh run.sh mark start|stop: $NVMIMIC_MARK_CMD for a command that marks
# its own window (NVMIMIC_MARK_N is its start mark)
if [ "${1:-}" = mark ]; then
    case ${2:-} in
    start) mark "$NVMIMIC_MARK_N" 1 ;;
    stop) mark $((NVMIMIC_MARK_N + 1)) 0 ;;
    *) echo "agent: mark start|stop, not '${2:-}'" >&2; exit 2 ;;
    esac
    exit
fi

[ -c "$tty" ] || { echo "agent: no control port $tty" >&2; exit 2; }
stty -F "$tty" raw -echo 2>/dev/null || echo "agent: stty on $tty failed" >&2
exec 3<>"$tty"
say() { printf '%s\n' "$*" >&3; }
# busybox has usleep; a Debian userland has a sleep that takes fractions.
if command -v usleep >/dev/null 2>&1; then
    us_sleep() { usleep "$1"; }
else
    us_sleep() { sleep "$(awk -v u="$1" 'BEGIN { printf "%.6f", u / 1e6 }')"; }
fi

# window_mark N FLAGS WHAT: a window's mark, or an ERROR line
window_mark() {
    mark "$1" "$2" || say "ERROR mark $1 ($id $3) failed: $(head -n 1 "$RESULTS/mark.err")"
    say "MARK $id $3"
}

# rate ID DD PCT JOBS FRAC: see "Rates" above
rate() {
    awk -v dd="\"$2\" : {" -v pct="$3" -v jobs="$4" -v frac="$5" '
        index($0, dd) { sec = 1 }
        sec && $1 == "\"iops\"" {
            v = $3; sub(/,$/, "", v)
            v = v * pct / 100; v = v / jobs; v = v * frac
            if (v < 1) v = 1
            printf "%.0f", v; found = 1; exit
        }
        END { if (!found) exit 1 }' "$RESULTS/$1.json"
}

# expand ARGS: the words with their @RATE:...@ replaced
expand() {
    out=
    for w in $1; do
        while :; do
            case $w in
            *@RATE:*@*) ;;
            *) break ;;
            esac
            pre=${w%%@RATE:*} spec=${w#*@RATE:} post=${spec#*@} spec=${spec%%@*}
            set -f; IFS=:; set -- $spec; unset IFS; set +f
            v=$(rate "$1" "$2" "$3" "$4" "$5") || {
                say "ERROR no $2 IOPS in $RESULTS/$1.json for @RATE:$spec@"; return 1; }
            w=$pre$v$post
        done
        out="$out${out:+ }$w"
    done
    printf '%s\n' "$out"
}

if [ -f "${NVMIMIC_PLAN:-$PWD/plan}" ]; then
    exec 4<"${NVMIMIC_PLAN:-$PWD/plan}"
else
    exec 4<&3
fi
failed=
say HELLO
while :; do
    if ! read -r cmd id mk window args <&4; then
        # the plan is done: go on with the control port
        [ "$(readlink /proc/self/fd/4)" = "$(readlink /proc/self/fd/3)" ] && break
        exec 4<&3
        continue
    fi
    case $cmd in
    RUN|SH)
        [ -n "$failed" ] && continue
        out=$RESULTS/$id.json
        rm -f "$out"
        case $args in
        *@RATE:*) args=$(expand "$args") || { failed=1; continue; } ;;
        esac
        start_us=0 stop_us=0
        case $window in
        *:*) start_us=${window%:*} stop_us=${window#*:} ;;
        esac
        [ "$window" = whole ] && window_mark "$mk" 1 start
        read -r stat0 <"$stat"
        if [ "$cmd" = RUN ]; then
            # shellcheck disable=SC2086 # the host quotes nothing: args are words
            fio $args --output-format=json --output="$out" >"$RESULTS/$id.log" 2>&1 &
        else
            NVMIMIC_MARK_FD=3 NVMIMIC_MARK_ID=$id NVMIMIC_MARK_N=$mk NVMIMIC_MARK_CMD="sh $PWD/run.sh mark" sh -c "$args" >"$RESULTS/$id.log" 2>&1 &
        fi
        pid=$!
        if [ "$start_us" -gt 0 ]; then
            # Wait for the first I/O (the disk's counters move), at most 30 s.
            n=0
            while read -r s <"$stat" && [ "$s" = "$stat0" ] && [ $n -lt 30000 ] &&
                kill -0 "$pid" 2>/dev/null; do
                us_sleep 1000
                n=$((n + 1))
            done
            us_sleep "$start_us"
            window_mark "$mk" 1 start
            if [ "$stop_us" -gt 0 ]; then
                us_sleep "$stop_us"
                window_mark $((mk + 1)) 0 stop
            fi
        fi
        wait "$pid"
        rc=$?
        if [ "$window" = whole ] || { [ "$start_us" -gt 0 ] && [ "$stop_us" -eq 0 ]; }; then
            window_mark $((mk + 1)) 0 stop
        fi
        say "RESULT $id $rc"
        if [ "$rc" -eq 0 ]; then
            [ -f "$out" ] && cat "$out" >&3
        else
            tail -n 20 "$RESULTS/$id.log" >&3
            failed=1
        fi
        say "END $id"
        ;;
    MARK)
        [ -n "$failed" ] && continue
        mark "$mk" "$window" || say "ERROR mark $mk ($id) failed: $(head -n 1 "$RESULTS/mark.err")"
        ;;
    QUIT)
        say BYE
        exit 0
        ;;
    '')
        ;;
    *)
        say "ERROR unknown command '$cmd'"
        ;;
    esac
done
echo "agent: control port closed" >&2
exit 1

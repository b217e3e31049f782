# SPDX-License-Identifier: GPL-2.0-or-later
#
# agent.sh: the guest half of `nvmimic run`'s control channel.  The harness
# ships it as the job's run.sh (vm-images/guest-init and the database guest's
# /sbin/nvmimic-dbinit run it with sh, cwd /job, $RESULTS=/results).  It talks
# to the host over the second serial port (/dev/ttyS1, a QEMU socket
# chardev), one line per message:
#
#   guest -> host   HELLO                      ready for commands
#   host -> guest   RUN ID START_US STOP_US FIO-ARGS...
#                   run fio with FIO-ARGS (JSON output into $RESULTS/ID.json)
#                   in the background; START_US after its first I/O reached
#                   the drive (fio's own start-up takes tens of ms of guest
#                   CPU, in which no I/O happens) print "MARK ID start",
#                   STOP_US after that "MARK ID stop" (0 0: no marks;
#                   STOP_US 0: "stop" when fio has ended)
#   host -> guest   SH ID START_US STOP_US COMMAND...
#                   the same for a shell command (sh -c), which may write
#                   its JSON result to $RESULTS/ID.json; it may also send its
#                   own marks: NVMIMIC_MARK_FD and NVMIMIC_MARK_ID are in its
#                   environment (printf 'MARK %s start\n' "$NVMIMIC_MARK_ID"
#                   >&"$NVMIMIC_MARK_FD")
#   guest -> host   RESULT ID RC               the exit status, followed by
#                   $RESULTS/ID.json line by line when RC is 0, else the
#                   last 20 lines of its log ($RESULTS/ID.log), and
#                   END ID
#   host -> guest   QUIT                       leave: the init writes
#                                              /results and powers off
#
# Host and guest agree on the timing of each point through the marks: the
# host resets the device statistics at "start" and reads them at "stop", so
# both lie inside fio's measured interval (after its ramp time).
tty=${NVMIMIC_CTL_TTY:-/dev/ttyS1}
[ -c "$tty" ] || { echo "agent: no control port $tty" >&2; exit 2; }
stty -F "$tty" raw -echo 2>/dev/null || echo "agent: stty on $tty failed" >&2
exec 3<>"$tty"
stat=/sys/block/${NVMIMIC_DISK:-nvme0n1}/stat
say() { printf '%s\n' "$*" >&3; }
# busybox has usleep; a Debian userland has a sleep that takes fractions.
if command -v usleep >/dev/null 2>&1; then
    us_sleep() { usleep "$1"; }
else
    us_sleep() { sleep "$(awk -v u="$1" 'BEGIN { printf "%.6f", u / 1e6 }')"; }
fi

say HELLO
while read -r cmd id start_us stop_us args <&3; do
    case $cmd in
    RUN|SH)
        out=$RESULTS/$id.json
        rm -f "$out"
        read -r stat0 <"$stat"
        if [ "$cmd" = RUN ]; then
            # shellcheck disable=SC2086 # the host quotes nothing: args are words
            fio $args --output-format=json --output="$out" >"$RESULTS/$id.log" 2>&1 &
        else
            NVMIMIC_MARK_FD=3 NVMIMIC_MARK_ID=$id sh -c "$args" >"$RESULTS/$id.log" 2>&1 &
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
            say "MARK $id start"
            if [ "$stop_us" -gt 0 ]; then
                us_sleep "$stop_us"
                say "MARK $id stop"
            fi
        fi
        wait "$pid"
        rc=$?
        [ "$start_us" -gt 0 ] && [ "$stop_us" -eq 0 ] && say "MARK $id stop"
        say "RESULT $id $rc"
        if [ "$rc" -eq 0 ]; then
            [ -f "$out" ] && cat "$out" >&3
        else
            tail -n 20 "$RESULTS/$id.log" >&3
        fi
        say "END $id"
        ;;
    QUIT)
        say BYE
        exit 0
        ;;
    *)
        say "ERROR unknown command '$cmd'"
        ;;
    esac
done
echo "agent: control port closed" >&2
exit 1

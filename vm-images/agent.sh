# SPDX-License-Identifier: GPL-2.0-or-later
#
# agent.sh: the guest half of `nvmimic run`'s control channel.  The harness
# ships it as the job's run.sh (vm-images/guest-init runs it with sh, cwd /job,
# $RESULTS=/results).  It talks to the host over the second serial port
# (/dev/ttyS1, a QEMU socket chardev), one line per message:
#
#   guest -> host   HELLO                      ready for commands
#   host -> guest   RUN ID START_US STOP_US FIO-ARGS...
#                   run fio with FIO-ARGS (JSON output) in the background;
#                   START_US after its first I/O reached the drive (fio's
#                   own start-up takes tens of ms of guest CPU, in which no
#                   I/O happens) print "MARK ID start", STOP_US
#                   after that "MARK ID stop" (0 0: no marks); then
#   guest -> host   RESULT ID RC              fio's exit status, followed by
#                   fio's JSON output, line by line, and
#                   END ID
#   host -> guest   QUIT                      leave: /init writes /results
#                                             (fio logs) and powers off
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

say HELLO
while read -r cmd id start_us stop_us args <&3; do
    case $cmd in
    RUN)
        out=$RESULTS/$id.json
        read -r stat0 <"$stat"
        # shellcheck disable=SC2086 # the host quotes nothing: args are words
        fio $args --output-format=json --output="$out" >"$RESULTS/$id.log" 2>&1 &
        pid=$!
        if [ "$start_us" -gt 0 ]; then
            # Wait for the first I/O (the disk's counters move), at most 30 s.
            n=0
            while read -r s <"$stat" && [ "$s" = "$stat0" ] && [ $n -lt 30000 ] &&
                kill -0 "$pid" 2>/dev/null; do
                usleep 1000
                n=$((n + 1))
            done
            usleep "$start_us"
            say "MARK $id start"
            usleep "$stop_us"
            say "MARK $id stop"
        fi
        wait "$pid"
        rc=$?
        say "RESULT $id $rc"
        [ -f "$out" ] && cat "$out" >&3
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

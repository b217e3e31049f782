#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run-guest.sh: boot nvmimic's initramfs guest (vm-images/build-guest.sh) on one job
# and collect its results.
#
# usage: run-guest.sh [OPTIONS] QEMU GUEST_DIR JOB_DIR RESULTS_DIR TIMEOUT_S [QEMU_ARGS...]
#
#   QEMU         the qemu-system-x86_64 binary
#   GUEST_DIR    holds vmlinuz and initramfs.cpio.gz
#   JOB_DIR      holds run.sh (run by the guest's sh, cwd = the job dir, results go to
#                $RESULTS) or job.fio (run as fio --output-format=json, into fio.json)
#   RESULTS_DIR  created if needed (best new or empty); receives what the guest wrote (rc, job.log,
#                dmesg.txt, boot-to-job-s, fio.json, anything run.sh put in
#                $RESULTS) plus console.log and qemu.log from the host
#   TIMEOUT_S    the whole run, boot to power-off; on expiry QEMU is killed and the
#                last step the guest's /init announced is reported
#   QEMU_ARGS    passed to QEMU last, e.g. the drive under test:
#                -drive file=disk.raw,if=none,id=nvm,format=raw -device nvme,drive=nvm,serial=nvm0
#
# options:
#   --icount          simulated time: -icount shift=0,sleep=off (implies TCG); the
#                     guest's clock starts at 2025-01-01 00:00 UTC and follows virtual
#                     time (-rtc clock=vm), not the host's date; the kernel skips its
#                     EDD probe (edd=off), which reads every disk through the BIOS
#   --icount-shift N  simulated time with -icount shift=N: each guest instruction
#                     lasts 2^N ns (N from -3, QEMU patched by qemu/patches/0003, to
#                     10); --icount is --icount-shift 0
#   --fw-job          also hand the job over through fw_cfg (opt/nvmimic/job.tar): the
#                     initramfs guest then reads it from there and touches no virtio
#                     disk until the job has run (their I/O completes at host speed)
#   --accel A         auto (default: KVM if a probe guest boots under it, else TCG), kvm, tcg
#   --mem SIZE        guest memory (default 512M)
#   --smp N           virtual CPUs (default 1)
#   --append ARGS     extra kernel command line
#   --results-size S  size of the results disk (default 256M, sparse)
#   --verbose         copy the guest console to stdout as it runs
#   --device-stats ID after the guest powers off, save query-nvmimic-stats of the
#                     nvmimic device ID in RESULTS_DIR/device-stats.json (QEMU runs
#                     with -no-shutdown and a QMP socket; vm-images/qmp-stats.py);
#                     ID1,ID2,...: several devices (or nvmimic block filter
#                     nodes), {ID: stats, ...}
#   --device-state J  with --device-stats: before the guest starts, apply
#                     nvmimic-set-state with the arguments J, a JSON object such as
#                     '{"fill-pct": 100}' (QEMU starts paused with -S until then)
#
# run-guest.sh --probe-kvm QEMU GUEST_DIR: only the KVM probe below; prints "kvm: ok"
# (exit 0) or "kvm: REASON" (exit 1).  nvmimic doctor runs it.
#
# Exit status: 0 the job ran and exited 0; 1 the job ran and failed (its status is in
# RESULTS_DIR/rc); 2 the guest did not deliver results (timeout, crash, QEMU error).
#
# Channel: two virtio-blk disks, told apart in the guest by serial number: a read-only
# raw image that is a tar of JOB_DIR, and a sparse raw results image the guest writes a
# tar onto.  Chosen over 9p/virtfs because it needs no optional QEMU feature (virtfs
# needs libattr/libcap-ng at QEMU build time and 9p modules in the guest), no
# filesystem in the guest, and survives anything short of the guest never reaching
# its last step; plain files in, plain files out.
#
# The QEMU line is nvmimic's own (nvmimic qemu-line, the builder nvmimic run uses);
# the guest options above are its options.
#
# Environment: NVMIMIC (the nvmimic binary; default: beside QEMU, else on PATH);
# NVMIMIC_ACCEL overrides --accel; NVMIMIC_KVM_PROBE_S (default 10) bounds
# the KVM probe.  The probe result is cached in GUEST_DIR/.accel-probe for this host
# boot and this QEMU binary, so a test run probes at most once.
set -eu

me=run-guest
die() { echo "$me: $*" >&2; exit 2; }

icount=0 icount_shift=0 fwjob=0 accel=${NVMIMIC_ACCEL:-auto} mem=512M smp=1 append_extra= results_size=256M verbose=0
stats_dev= stats_state= probe_only=0
while [ $# -gt 0 ]; do
    case $1 in
        --icount) icount=1; shift ;;
        --icount-shift) icount=1; icount_shift=${2:?--icount-shift needs a value}; shift 2 ;;
        --fw-job) fwjob=1; shift ;;
        --accel) accel=${2:?--accel needs a value}; shift 2 ;;
        --accel=*) accel=${1#*=}; shift ;;
        --mem) mem=${2:?}; shift 2 ;;
        --smp) smp=${2:?}; shift 2 ;;
        --append) append_extra=${2?}; shift 2 ;;
        --results-size) results_size=${2:?}; shift 2 ;;
        --verbose) verbose=1; shift ;;
        --device-stats) stats_dev=${2:?--device-stats needs a device id}; shift 2 ;;
        --device-state) stats_state=${2:?--device-state needs a JSON object}; shift 2 ;;
        --probe-kvm) probe_only=1; shift ;;
        --) shift; break ;;
        -*) die "unknown option $1" ;;
        *) break ;;
    esac
done
if [ "$probe_only" = 1 ]; then
    [ $# -eq 2 ] || die "usage: run-guest.sh --probe-kvm QEMU GUEST_DIR"
    set -- "$1" "$2" . . 0
fi
[ $# -ge 5 ] || die "usage: run-guest.sh [--icount] [--accel auto|kvm|tcg] QEMU GUEST_DIR JOB_DIR RESULTS_DIR TIMEOUT_S [QEMU_ARGS...]"
qemu=$1 guest=$2 job=$3 results=$4 timeout_s=$5
shift 5
case $timeout_s in ''|*[!0-9]*) die "TIMEOUT_S must be a whole number of seconds, not '$timeout_s'" ;; esac
[ -x "$qemu" ] || die "QEMU binary '$qemu' not found or not executable (build it with 'make')"
[ -f "$guest/vmlinuz" ] && [ -f "$guest/initramfs.cpio.gz" ] ||
    die "no guest in '$guest' (vmlinuz, initramfs.cpio.gz): build it with vm-images/build-guest.sh"
[ "$probe_only" = 1 ] || [ -d "$job" ] || die "job directory '$job' not found"
[ "$probe_only" = 1 ] || [ -f "$job/run.sh" ] || [ -f "$job/job.fio" ] || die "job directory '$job' has neither run.sh nor job.fio"
case $accel in auto|kvm|tcg) ;; *) die "--accel must be auto, kvm or tcg, not '$accel'" ;; esac
# nvmimic, for the QEMU line: $NVMIMIC, else beside the QEMU binary (the build
# tree's build/qemu/, or an installation's libexec/nvmimic/), else on PATH
nvmimic=${NVMIMIC:-}
if [ "$probe_only" = 0 ] && [ -z "$nvmimic" ]; then
    qdir=$(dirname "$qemu")
    for c in "$qdir/../nvmimic" "$qdir/../../bin/nvmimic" "$(command -v nvmimic || true)"; do
        if [ -n "$c" ] && [ -x "$c" ] && [ -f "$c" ]; then nvmimic=$c; break; fi
    done
    [ -n "$nvmimic" ] || die "nvmimic not found beside '$qemu' or on PATH (set NVMIMIC; build it with 'make')"
fi

guest=$(cd "$guest" && pwd)
if [ "$probe_only" = 0 ]; then
    mkdir -p "$results"
    results=$(cd "$results" && pwd)
    console=$results/console.log
    # Nothing from an earlier run may pass for this run's results.
    (cd "$results" && rm -f console.log qemu.log accel wall-s rc job.log dmesg.txt boot-to-job-s fio.json \
        device-stats.json)
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-guest.XXXXXX")
qpid= spid=
cleanup() {
    [ -n "$qpid" ] && kill "$qpid" 2>/dev/null
    [ -n "$spid" ] && kill "$spid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

firmware=(-L /usr/share/qemu -L /usr/share/seabios)

# --- accelerator ----------------------------------------------------------------------
# kvm_probe: succeed when a KVM guest gets through a whole kernel boot (it panics for
# want of a root filesystem, and -no-reboot turns that into QEMU exiting) within
# NVMIMIC_KVM_PROBE_S seconds.  Sets kvm_reason otherwise.
kvm_reason=
kvm_probe() {
    if [ ! -e /dev/kvm ]; then kvm_reason="no /dev/kvm"; return 1; fi
    if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then kvm_reason="no read/write access to /dev/kvm"; return 1; fi
    local cache=$guest/.accel-probe key line
    key="$(cat /proc/sys/kernel/random/boot_id 2>/dev/null) $(stat -c '%n %Y' "$(readlink -f "$qemu")" "$guest/vmlinuz" | tr '\n' ' ')"
    if [ -f "$cache" ] && [ "$(head -n 1 "$cache")" = "$key" ]; then
        line=$(sed -n 2p "$cache")
        [ "$line" = ok ] && return 0
        kvm_reason="$line (cached probe)"
        return 1
    fi
    local t=${NVMIMIC_KVM_PROBE_S:-10} log=$work/kvm-probe.log
    timeout -k 2 "$t" "$qemu" "${firmware[@]}" -machine q35,accel=kvm -cpu host -m 256M \
        -nodefaults -no-user-config -nographic -no-reboot -monitor none \
        -serial "file:$log" -kernel "$guest/vmlinuz" \
        -append "console=ttyS0 panic=-1 loglevel=4" </dev/null >"$work/kvm-probe.err" 2>&1
    local rc=$?
    if grep -aq 'Kernel panic' "$log" 2>/dev/null; then
        line=ok
    elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        if [ -s "$log" ]; then line="a test guest did not finish booting within ${t}s"
        else line="a test guest printed nothing within ${t}s"; fi
    else
        line="test guest failed: $(grep -av '^$' "$work/kvm-probe.err" | head -n 1)"
        [ "$line" != "test guest failed: " ] || line="test guest exited with status $rc before booting"
    fi
    printf '%s\n%s\n' "$key" "$line" >"$cache" 2>/dev/null || true
    [ "$line" = ok ] && return 0
    kvm_reason=$line
    return 1
}

if [ "$probe_only" = 1 ]; then
    if kvm_probe; then echo "kvm: ok"; exit 0; fi
    echo "kvm: $kvm_reason"
    exit 1
fi
if [ "$icount" = 1 ]; then
    [ "$accel" != kvm ] || die "--icount needs TCG, not KVM"
    accel=tcg
elif [ "$accel" = auto ]; then
    if kvm_probe; then accel=kvm
    else echo "nvmimic: KVM not usable ($kvm_reason); using TCG" >&2; accel=tcg; fi
fi
case $icount_shift in
    -[1-3]|[0-9]|10) ;;
    *) die "--icount-shift $icount_shift: from -3 to 10" ;;
esac
echo "$accel$([ "$icount" = 1 ] && echo ' icount')" >"$results/accel"

# --- the channel ------------------------------------------------------------------------
tar -cf "$work/job.tar" -C "$job" . || die "cannot archive the job directory '$job'"
truncate -s "$results_size" "$work/results.img" || die "cannot create the results disk"

# --- boot -------------------------------------------------------------------------------
# The machine, the guest and its job channel come from nvmimic's one QEMU
# command-line builder (harness/qemu/cmdline.c, as nvmimic run boots its
# guests): nvmimic qemu-line prints it, each argument ended by a NUL.  In
# simulated time it also has the kernel skip its EDD probe, which reads every
# BIOS disk through SeaBIOS at host speed before the guest's clock starts.
line_args=(--qemu "$qemu" --guest "$guest" --console "$console" \
    --job-tar "$work/job.tar" --results-img "$work/results.img" \
    --accel "$accel" --mem "$mem" --smp "$smp" --append "$append_extra")
[ "$icount" = 1 ] && line_args+=(--icount-shift "$icount_shift")
[ "$fwjob" = 1 ] && line_args+=(--fw-job)
"$nvmimic" qemu-line "${line_args[@]}" >"$work/line" 2>"$work/line.err" ||
    die "nvmimic qemu-line failed: $(head -n 1 "$work/line.err")"
mapfile -d '' -t qline <"$work/line"
stats_args=()
if [ -n "$stats_dev" ]; then
    stats_args=(-no-shutdown -qmp "unix:$work/qmp.sock,server=on,wait=off")
    [ -z "$stats_state" ] || stats_args+=(-S)
elif [ -n "$stats_state" ]; then
    die "--device-state needs --device-stats ID"
fi
start=$(date +%s.%N)
timeout -k 5 "$timeout_s" "${qline[@]}" "${stats_args[@]}" "$@" \
    </dev/null >"$results/qemu.log" 2>&1 &
qpid=$!
if [ -n "$stats_dev" ]; then
    "$(dirname "$0")/qmp-stats.py" "$work/qmp.sock" "$stats_dev" \
        "$results/device-stats.json" "$timeout_s" ${stats_state:+"$stats_state"} \
        2>"$work/qmp-stats.err" &
    spid=$!
fi
if [ "$verbose" = 1 ]; then
    while [ ! -e "$console" ] && kill -0 "$qpid" 2>/dev/null; do sleep 0.1; done
    [ -e "$console" ] && tail -n +1 -f --pid="$qpid" "$console" &
fi
set +e
wait "$qpid"
qrc=$?
if [ -n "$spid" ]; then
    wait "$spid" || echo "$me: device statistics not collected: $(head -n 1 "$work/qmp-stats.err")" >&2
    spid=
fi
set -e
qpid=
wall=$(echo "$start $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }')
[ "$verbose" = 1 ] && wait

last_step() {
    local s
    s=$(tr -d '\r' <"$console" 2>/dev/null | grep -a '^nvmimic-step: ' | tail -n 1)
    echo "${s#nvmimic-step: }"
}
step=$(last_step)
[ -n "$step" ] || step="kernel boot (before /init announced any step)"

if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
    die "guest did not finish within ${timeout_s}s; it hung in step: $step (console log: $console)"
fi
if [ "$qrc" -ne 0 ]; then
    qerr=$(grep -av '^$' "$results/qemu.log" | head -n 1)
    [ -s "$console" ] || die "QEMU failed to start (status $qrc): $qerr"
    die "QEMU exited with status $qrc: $qerr (last step: $step; see $results/qemu.log)"
fi
if ! tr -d '\r' <"$console" | grep -aqx 'nvmimic-done'; then
    die "guest powered off without delivering results; last step: $step (console log: $console)"
fi
tar -xf "$work/results.img" -C "$results" --no-same-owner --no-same-permissions 2>"$work/tar.err" ||
    die "cannot unpack the results disk: $(head -n 1 "$work/tar.err")"
[ -f "$results/rc" ] || die "results came back without rc (console log: $console)"
rc=$(cat "$results/rc")
echo "$wall" >"$results/wall-s"
echo "$me: guest ran the job in ${wall}s wall (boot-to-job $(cat "$results/boot-to-job-s" 2>/dev/null || echo '?')s guest time, $(cat "$results/accel")), job status $rc"
[ "$rc" = 0 ] && exit 0
echo "$me: the job failed with status $rc (log: $results/job.log)" >&2
exit 1

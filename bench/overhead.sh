#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# overhead.sh: what the profiled device costs a guest, against QEMU's stock
# nvme.  One guest boots with both controllers on null-co, QEMU's stock nvme
# and nvme with bench/profiles/zero-latency.ini (a 4K read completes ~1.5 us
# after it arrives), and runs the same fio job on each in turn, REPS times;
# the IOPS ratio (profiled / stock, medians) is the emulation's overhead.
#
# usage: bench/overhead.sh [--mode realtime|simtime] [--seconds S] [--reps N]
#            [--qemu PATH] [--guest-dir DIR]
#   realtime: TCG in real time (KVM is not used: the ratio is TCG's);
#   simtime:  TCG with -icount shift=-2, 4 x 10^9 guest instructions per
#             second (qemu/patches/0003).
# The job: 4K random reads, libaio, iodepth 32, one job, S seconds
# (default 5) after a 1 s ramp.  Prints a table and one JSON line.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
mode=realtime secs=5 reps=3
qemu=${NVMIMIC_QEMU:-$root/build/qemu/qemu-system-x86_64}
guest=${NVMIMIC_GUEST_DIR:-$root/build/guest}
while [ $# -gt 0 ]; do
    case $1 in
        --mode) mode=$2; shift 2 ;;
        --seconds) secs=$2; shift 2 ;;
        --reps) reps=$2; shift 2 ;;
        --qemu) qemu=$2; shift 2 ;;
        --guest-dir) guest=$2; shift 2 ;;
        *) echo "overhead: unknown option $1 (see the header)" >&2; exit 2 ;;
    esac
done
case $mode in
    realtime) accel="--accel tcg" ;;
    simtime) accel="--icount-shift -2" ;;
    *) echo "overhead: --mode realtime or simtime, not '$mode'" >&2; exit 2 ;;
esac
work=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-overhead.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/job"
cat >"$work/job/run.sh" <<EOF
# the two controllers, by serial number
for d in /sys/block/nvme*; do
    s=\$(cat \$d/device/serial 2>/dev/null | tr -d ' ')
    [ "\$s" = stock ] && stock=\${d##*/}
    [ "\$s" = profiled ] && profiled=\${d##*/}
done
[ -n "\$stock" ] && [ -n "\$profiled" ] || { echo "devices not found"; exit 1; }
i=0
while [ \$i -lt $reps ]; do
    for dev in stock profiled; do
        eval name=\\\$\$dev
        fio --name=\$dev --filename=/dev/\$name --direct=1 --ioengine=libaio \\
            --rw=randread --bs=4k --iodepth=32 --numjobs=1 --size=10g \\
            --norandommap=1 --randrepeat=0 --time_based=1 --ramp_time=1 \\
            --runtime=$secs --output-format=json \\
            --output=\$RESULTS/\$dev-\$i.json || exit 1
    done
    i=\$((i + 1))
done
EOF
# shellcheck disable=SC2086 # $accel is two words
bash "$root/vm-images/run-guest.sh" $accel --mem 1G "$qemu" "$guest" \
    "$work/job" "$work/res" $((600 + reps * secs * 60)) \
    -drive if=none,id=a,driver=null-co,size=2000398934016,read-zeroes=on \
    -device nvme,drive=a,serial=stock,addr=0x10 \
    -drive if=none,id=b,driver=null-co,size=2000398934016,read-zeroes=on \
    -device "nvme,drive=b,serial=profiled,addr=0x11,profile=$here/profiles/zero-latency.ini" \
    >"$work/run.log" 2>&1 || {
        echo "overhead: the guest run failed:" >&2
        tail -n 5 "$work/run.log" >&2
        exit 1
    }
python3 - "$work/res" "$reps" "$mode" "$secs" <<'PY'
import json, statistics, sys
res, reps, mode, secs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
iops = {d: [json.load(open(f"{res}/{d}-{i}.json"))["jobs"][0]["read"]["iops"]
            for i in range(reps)] for d in ("stock", "profiled")}
med = {d: statistics.median(v) for d, v in iops.items()}
ratio = med["profiled"] / med["stock"]
print(f"{mode}, 4K random reads, libaio, iodepth 32, {secs} s x {reps}:")
for d in ("stock", "profiled"):
    print(f"  {d:9s} median {med[d]:9.0f} IOPS  ({', '.join('%.0f' % x for x in iops[d])})")
print(f"  ratio profiled / stock: {ratio:.3f}")
print(json.dumps({"mode": mode, "seconds": float(secs), "reps": reps,
                  "stock_iops": iops["stock"], "profiled_iops": iops["profiled"],
                  "ratio": round(ratio, 4)}))
PY

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# profile.sh QEMU GUEST_DIR PROFILE_DIR PROFILE...: a Linux guest sees each
# profiled drive.
#
# Boots the guest once in simulated time (-icount shift=0,sleep=off) with one
# -device nvme,profile=PROFILE per profile, each on a null-co drive of its
# capacity, and runs nvme-cli (id-ctrl, smart-log, get-feature 0x0c) and fio
# (QD1 4K random reads, then 8 MiB of writes and another smart-log) on each,
# one after the other.  The guest files each drive's results under its model
# number.  check_profile.py then compares what the guest saw with each profile
# and with that device's own statistics (query-nvmimic-stats at power-off).
# One boot for every drive: the checks are per drive, the boot is shared.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fail() { echo "profile: FAIL $*" >&2; exit 1; }

[ $# -ge 4 ] || fail "usage: profile.sh QEMU GUEST_DIR PROFILE_DIR PROFILE..."
qemu=$1 guest=$2 pdir=$3
shift 3
[ -x "$qemu" ] || fail "QEMU binary $qemu is missing: build it first ('make')"
[ -f "$guest/vmlinuz" ] || fail "guest $guest is missing: build it first ('make')"
python=${PYTHON:-/usr/bin/python3}

work=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-profile.XXXXXX")
if [ -n "${NVMIMIC_PROFILE_KEEP:-}" ]; then
    echo "profile: work files kept in $work"
else
    trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/job"

cat >"$work/job/run.sh" <<'EOF2'
set -e
for c in /sys/class/nvme/nvme*; do
    n=${c##*/}
    model=$(sed 's/ *$//' "$c/model")
    out="$RESULTS/$model"
    mkdir -p "$out"
    nvme id-ctrl /dev/$n -o json >"$out/id-ctrl.json"
    nvme smart-log /dev/$n -o json >"$out/smart-before.json"
    nvme get-feature /dev/$n -f 0x0c -b >"$out/apst.bin"
    nvme get-feature /dev/$n -f 0x0c >"$out/apst.txt"
    d=$c/device
    for f in vendor device subsystem_vendor subsystem_device; do
        echo "$f $(cat $d/$f)"
    done >"$out/pci-ids.txt"
    cat /sys/block/${n}n1/size /sys/block/${n}n1/queue/logical_block_size >"$out/size.txt"
    fio --output-format=json --output="$out/randread.json" \
        --name=qd1 --filename=/dev/${n}n1 --direct=1 --ioengine=libaio \
        --rw=randread --bs=4k --iodepth=1 --number_ios=2000 --size=1g
    fio --output-format=json --output="$out/write.json" \
        --name=w --filename=/dev/${n}n1 --direct=1 --ioengine=libaio \
        --rw=write --bs=128k --iodepth=4 --size=8m
    nvme smart-log /dev/$n -o json >"$out/smart-after.json"
done
EOF2

devices=() ids=() i=0
for profile in "$@"; do
    ini=$pdir/$profile.ini
    [ -f "$ini" ] || fail "profile $ini not found"
    capacity=$("$python" "$here/check_profile.py" --capacity "$ini")
    devices+=(-blockdev "driver=null-co,node-name=nvmdisk$i,size=$capacity,read-zeroes=on"
              -device "nvme,id=nvm$i,drive=nvmdisk$i,profile=$ini")
    ids+=("nvm$i")
    i=$((i + 1))
done
idlist=$(IFS=,; echo "${ids[*]}")

# As the reviews test TLC drives: filled completely, so reads hit mapped data.
"$root/vm-images/run-guest.sh" --icount --device-stats "$idlist" \
    --device-state '{"fill-pct": 100}' \
    "$qemu" "$guest" "$work/job" "$work/results" $((240 + 120 * $#)) \
    "${devices[@]}" ||
    fail "the guest run failed (console: $work/results/console.log)"

rc=0 i=0
for profile in "$@"; do
    "$python" "$here/check_profile.py" "$pdir/$profile.ini" "$work/results" \
        "nvm$i" || rc=1
    i=$((i + 1))
done
exit $rc

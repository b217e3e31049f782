#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# profile.sh QEMU GUEST_DIR PROFILE_DIR PROFILE: a Linux guest sees the profiled drive.
#
# Boots the guest in simulated time (-icount shift=0,sleep=off) with
# -device nvme,profile=PROFILE on a null-co drive of the profile's capacity, and
# runs nvme-cli (id-ctrl, smart-log, get-feature 0x0c) and fio (QD1 4K random
# reads, then 8 MiB of writes and another smart-log).  check_profile.py then
# compares what the guest saw with the profile and with the device's own
# statistics (query-nvmimic-stats at power-off).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fail() { echo "profile: FAIL $*" >&2; exit 1; }

[ $# -eq 4 ] || fail "usage: profile.sh QEMU GUEST_DIR PROFILE_DIR PROFILE"
qemu=$1 guest=$2 pdir=$3 profile=$4
ini=$pdir/$profile.ini
[ -x "$qemu" ] || fail "QEMU binary $qemu is missing: build it first ('make')"
[ -f "$guest/vmlinuz" ] || fail "guest $guest is missing: build it first ('make')"
[ -f "$ini" ] || fail "profile $ini not found"
python=${PYTHON:-/usr/bin/python3}

work=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-profile.XXXXXX")
if [ -n "${NVMIMIC_PROFILE_KEEP:-}" ]; then
    echo "profile: work files kept in $work"
else
    trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/job"
capacity=$("$python" "$here/check_profile.py" --capacity "$ini")

cat >"$work/job/run.sh" <<'EOF2'
set -e
nvme id-ctrl /dev/nvme0 -o json >"$RESULTS/id-ctrl.json"
nvme smart-log /dev/nvme0 -o json >"$RESULTS/smart-before.json"
nvme get-feature /dev/nvme0 -f 0x0c -b >"$RESULTS/apst.bin"
nvme get-feature /dev/nvme0 -f 0x0c >"$RESULTS/apst.txt"
d=/sys/class/nvme/nvme0/device
for f in vendor device subsystem_vendor subsystem_device; do
    echo "$f $(cat $d/$f)"
done >"$RESULTS/pci-ids.txt"
cat /sys/block/nvme0n1/size /sys/block/nvme0n1/queue/logical_block_size >"$RESULTS/size.txt"
fio --output-format=json --output="$RESULTS/randread.json" \
    --name=qd1 --filename=/dev/nvme0n1 --direct=1 --ioengine=libaio \
    --rw=randread --bs=4k --iodepth=1 --number_ios=2000 --size=1g
fio --output-format=json --output="$RESULTS/write.json" \
    --name=w --filename=/dev/nvme0n1 --direct=1 --ioengine=libaio \
    --rw=write --bs=128k --iodepth=4 --size=8m
nvme smart-log /dev/nvme0 -o json >"$RESULTS/smart-after.json"
EOF2

# As the reviews test TLC drives: filled completely, so reads hit mapped data.
"$root/vm-images/run-guest.sh" --icount --device-stats nvm0 --device-state '{"fill-pct": 100}' \
    "$qemu" "$guest" "$work/job" "$work/results" 300 \
    -blockdev "driver=null-co,node-name=nvmdisk,size=$capacity,read-zeroes=on" \
    -device "nvme,id=nvm0,drive=nvmdisk,profile=$ini" ||
    fail "the guest run failed (console: $work/results/console.log)"

"$python" "$here/check_profile.py" "$ini" "$work/results"

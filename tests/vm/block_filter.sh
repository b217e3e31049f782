#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# block_filter.sh QEMU GUEST_DIR PROFILE_DIR PROFILE: the nvmimic block filter
# times other frontends as the NVMe controller is timed.
#
# 1. Without a guest: a raw file with 64 MiB of data at 1 GiB, opened under the
#    filter and under -device nvme with profile-map-allocated=on: both models
#    hold exactly that data (fill-pct); a file larger than the drive and a
#    missing profile= are refused with one line.
# 2. One guest in simulated time (-icount shift=0,sleep=off) with two disks
#    timed by PROFILE through the filter: scsi-hd on an LSI SAS1068
#    (mptsas1068, the reviews' "LSI Logic SAS") and virtio-blk.  fio QD1 4K
#    random reads and fsync'd writes on each; check_block_filter.py checks that
#    each node's statistics count the guest's I/O and that the guest saw the
#    device's latency plus its own small part.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fail() { echo "block_filter: FAIL $*" >&2; exit 1; }

[ $# -eq 4 ] || fail "usage: block_filter.sh QEMU GUEST_DIR PROFILE_DIR PROFILE"
qemu=$1 guest=$2 pdir=$3 profile=$4
ini=$pdir/$profile.ini
[ -x "$qemu" ] || fail "QEMU binary $qemu is missing: build it first ('make')"
[ -f "$guest/vmlinuz" ] || fail "guest $guest is missing: build it first ('make')"
[ -f "$ini" ] || fail "profile $ini not found"
python=${PYTHON:-/usr/bin/python3}
capacity=$("$python" "$here/check_profile.py" --capacity "$ini")

work=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-filter.XXXXXX")
trap 'rm -rf "$work"' EXIT

# --- 1. mapping state from the image, bad options ---------------------------------
truncate -s "$capacity" "$work/img.raw"
dd if=/dev/urandom of="$work/img.raw" bs=1M seek=1024 count=64 conv=notrunc status=none
qmp_once() {        # qmp_once QMP_COMMAND_JSON QEMU_ARGS...: print the answer
    local cmd=$1
    shift
    printf '{"execute":"qmp_capabilities"}\n%s\n{"execute":"quit"}\n' "$cmd" |
        timeout 60 "$qemu" -machine q35 -S -display none -nodefaults \
            -L /usr/share/qemu -L /usr/share/seabios -qmp stdio "$@" 2>&1 |
        tr -d '\r' | grep -v '"QMP"\|^{"return": {}}$\|"event"' || true
}
want=$("$python" -c "print(64 * 2**20 / $capacity * 100)")
for how in filter nvme; do
    if [ "$how" = filter ]; then
        args=(-blockdev "driver=file,node-name=f,filename=$work/img.raw"
              -blockdev "driver=nvmimic,node-name=timed,file=f,profile=$ini,profile-map-allocated=on")
        id=timed
    else
        args=(-blockdev "driver=file,node-name=f,filename=$work/img.raw"
              -device "nvme,id=nvm0,drive=f,profile=$ini,profile-map-allocated=on")
        id=nvm0
    fi
    out=$(qmp_once "{\"execute\":\"query-nvmimic-stats\",\"arguments\":{\"id\":\"$id\"}}" "${args[@]}")
    got=$(echo "$out" | "$python" -c 'import json,sys; print(json.loads(sys.stdin.readline())["return"]["fill-pct"])') ||
        fail "$how: query-nvmimic-stats: $out"
    "$python" -c "import sys; sys.exit(abs($got - $want) > 1e-9 * $want)" ||
        fail "$how: fill-pct $got after mapping 64 MiB, want $want"
    echo "ok: $how with profile-map-allocated=on holds the image's 64 MiB ($got % of the drive)"
done
truncate -s $((capacity + 1048576)) "$work/big.raw"
out=$(qmp_once '{"execute":"query-status"}' \
    -blockdev "driver=file,node-name=f,filename=$work/big.raw" \
    -blockdev "driver=nvmimic,node-name=timed,file=f,profile=$ini")
echo "$out" | grep -q "more than profile $profile's capacity" ||
    fail "a file larger than the drive was not refused: $out"
out=$(qmp_once '{"execute":"query-status"}' \
    -blockdev "driver=file,node-name=f,filename=$work/img.raw" \
    -blockdev "driver=nvmimic,node-name=timed,file=f")
echo "$out" | grep -q "Parameter 'profile' is missing" || fail "no profile= was not refused: $out"
echo "ok: a file larger than the drive and a filter without profile= are refused"

# --- 2. a guest on the SAS and the virtio disk --------------------------------------
mkdir -p "$work/job"
cat >"$work/job/run.sh" <<'EOF2'
set -e
vd=
for d in /sys/block/vd*; do
    [ "$(cat "$d/serial" 2>/dev/null)" = nvmimic-virt ] && vd=/dev/${d##*/}
done
[ -b /dev/sda ] || { echo "no SCSI disk /dev/sda"; exit 1; }
[ -n "$vd" ] || { echo "no virtio disk with serial nvmimic-virt"; exit 1; }
for t in sas:/dev/sda virtio:$vd; do
    name=${t%%:*} dev=${t#*:}
    fio --output-format=json --output="$RESULTS/$name-read.json" \
        --name=qd1 --filename="$dev" --direct=1 --ioengine=libaio \
        --rw=randread --bs=4k --iodepth=1 --number_ios=1000 --size=1g
    fio --output-format=json --output="$RESULTS/$name-write.json" \
        --name=w --filename="$dev" --direct=1 --ioengine=libaio \
        --rw=randwrite --bs=4k --iodepth=1 --number_ios=200 --fsync=10 \
        --offset=2g --size=1g
done
EOF2

# The drive filled, as the reviews test TLC drives: reads reach NAND.
"$root/vm-images/run-guest.sh" --icount --device-stats sasdisk,virtdisk \
    --device-state '{"fill-pct": 100}' \
    "$qemu" "$guest" "$work/job" "$work/results" 400 \
    -blockdev "driver=null-co,node-name=b1,size=$capacity,read-zeroes=on" \
    -blockdev "driver=nvmimic,node-name=sasdisk,file=b1,profile=$ini" \
    -device mptsas1068,id=sas0 \
    -device scsi-hd,bus=sas0.0,drive=sasdisk,wwn=0x3000000000000001 \
    -blockdev "driver=null-co,node-name=b2,size=$capacity,read-zeroes=on" \
    -blockdev "driver=nvmimic,node-name=virtdisk,file=b2,profile=$ini" \
    -device virtio-blk-pci,drive=virtdisk,serial=nvmimic-virt,ioeventfd=off ||
    fail "the guest run failed (console: $work/results/console.log; $(tail -n 3 "$work/results/job.log" 2>/dev/null))"

"$python" "$here/check_block_filter.py" "$ini" "$work/results"

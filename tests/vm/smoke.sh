#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# smoke.sh QEMU GUEST_DIR: the guest runs fio against QEMU's stock nvme device on a
# sparse raw file, and what comes back is checked on the host.
#
#   1. QD1 4K random reads for a few seconds (time-based) on /dev/nvme0n1;
#   2. a 64 MiB sequential write with crc32c verify (do_verify, verify_fatal);
#   3. on the host: both fio JSONs came back, the job exited 0, read IOPS and mean
#      latency are plausible, no fio errors, 64 MiB written and verified, and every
#      written block of the raw file carries fio's verify header for its offset.
# The last line of output is the summary `make demo` shows.
#
# Environment: PYTHON (default /usr/bin/python3) runs the checker;
# NVMIMIC_SMOKE_KEEP=DIR keeps the work files (console log etc.) in DIR;
# NVMIMIC_SMOKE_TIMEOUT (default 300) bounds the guest run, in seconds.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fail() { echo "smoke: FAIL $*" >&2; exit 1; }

[ $# -eq 2 ] || fail "usage: smoke.sh QEMU GUEST_DIR"
qemu=$1 guest=$2
[ -x "$qemu" ] || fail "QEMU binary $qemu is missing: build it first ('make')"
[ -f "$guest/vmlinuz" ] && [ -f "$guest/initramfs.cpio.gz" ] ||
    fail "guest $guest is missing: build it first ('make', or vm-images/build-guest.sh $guest)"

verify_bytes=$((64 << 20)) block_bytes=$((128 << 10))
python=${PYTHON:-/usr/bin/python3}        # the system one: stdlib json is all it needs

if [ -n "${NVMIMIC_SMOKE_KEEP:-}" ]; then
    work=$NVMIMIC_SMOKE_KEEP
    rm -rf "$work"; mkdir -p "$work"
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-smoke.XXXXXX")
    trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/job"
truncate -s 1G "$work/disk.raw"

cat >"$work/job/randread.fio" <<'EOF'
; QD1 4 KiB random reads, time-based: the latency-bound corner.
[global]
filename=/dev/nvme0n1
direct=1
ioengine=libaio
time_based=1
runtime=5

[randread-qd1-4k]
rw=randread
bs=4k
iodepth=1
EOF
cat >"$work/job/verify.fio" <<EOF
; Write $verify_bytes bytes with a crc32c header per block, read them back, verify.
[global]
filename=/dev/nvme0n1
direct=1
ioengine=libaio

[write-verify]
rw=write
bs=$block_bytes
iodepth=4
size=$verify_bytes
verify=crc32c
do_verify=1
verify_fatal=1
EOF
cat >"$work/job/run.sh" <<'EOF'
set -e
nvme list >"$RESULTS/nvme-list.txt"
nvme id-ctrl /dev/nvme0 >"$RESULTS/id-ctrl.txt"
fio randread.fio --output-format=json --output="$RESULTS/randread.json"
fio verify.fio --output-format=json --output="$RESULTS/verify.json"
EOF

echo "smoke: booting the guest ($qemu, stock nvme on a 1 GiB sparse raw file)"
rc=0
"$root/vm-images/run-guest.sh" "$qemu" "$guest" "$work/job" "$work/results" \
    "${NVMIMIC_SMOKE_TIMEOUT:-300}" \
    -drive "file=$work/disk.raw,if=none,id=nvm,format=raw" \
    -device nvme,drive=nvm,serial=nvmimic-smoke || rc=$?
if [ "$rc" -ne 0 ]; then
    echo "smoke: --- last 30 console lines ($work/results/console.log) ---" >&2
    tail -n 30 "$work/results/console.log" >&2 2>/dev/null || true
    [ -n "${NVMIMIC_SMOKE_KEEP:-}" ] || trap - EXIT
    fail "the guest run failed (status $rc); work files kept in $work"
fi
grep -q 'nvme0n1' "$work/results/nvme-list.txt" ||
    fail "nvme list in the guest did not show nvme0n1"

# The checker must reject bad results, or its passing means nothing: feed it a copy
# whose verify job reports an error and half the bytes.
mkdir -p "$work/bad"
cp "$work/results/rc" "$work/results/randread.json" "$work/bad/"
"$python" - "$work/results/verify.json" "$work/bad/verify.json" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["jobs"][0]["error"] = 84
doc["jobs"][0]["read"]["io_bytes"] //= 2
json.dump(doc, open(sys.argv[2], "w"))
EOF
if "$python" "$here/check_smoke.py" "$work/bad" "$work/disk.raw" "$verify_bytes" "$block_bytes" >/dev/null; then
    fail "the result checker accepted a verify job with errors"
fi

echo "smoke: boot-to-job $(cat "$work/results/boot-to-job-s") s, whole run $(cat "$work/results/wall-s") s ($(cat "$work/results/accel"))"
"$python" "$here/check_smoke.py" "$work/results" "$work/disk.raw" "$verify_bytes" "$block_bytes" ||
    { [ -n "${NVMIMIC_SMOKE_KEEP:-}" ] || trap - EXIT; fail "results did not pass (kept in $work)"; }

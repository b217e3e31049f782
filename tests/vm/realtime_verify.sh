#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# realtime_verify.sh QEMU GUEST_DIR [DEVICE_OPTS]: data the guest wrote
# survives, in real
# time with the timing thread posting the completions (TCG, no icount), a
# controller reset and a hot-unplug under load.  The profiled drive sits on
# a raw file behind a PCIe root port; in the guest:
#   1. fio writes 4K blocks at random with crc32c checksums, 16 outstanding,
#      while the job resets the controller three times
#      (/sys/class/nvme/nvme0/reset_controller), then reads them all back
#      and checks them (verify_fatal): every write the guest was told had
#      completed is there;
#   2. fio writes 4K blocks of a fixed pattern elsewhere, 16 outstanding,
#      while the host unplugs the controller (QMP device_del, the guest
#      ejects it through ACPI) with completions held, and plugs it back
#      (device_add); fio's latency log names the offset of every write that
#      completed without error, and the host reads each of those blocks
#      from the drive's raw file: every one must hold the pattern.
#      (fio's own verify_state_save/verify_state_load cannot be used here:
#      it also verifies writes that failed at the unplug and never reached
#      the device, and failed the same way with timing-thread=off.)
# The device statistics after the re-plug must show the timing thread
# (query-nvmimic-stats "realtime") and no early completion.
# DEVICE_OPTS (",K=V,...") go on the controller's -device and its
# device_add: ",timing-doorbells=on" runs it all with the doorbells queued
# without the BQL and replayed by the thread, whose statistics must then
# show them.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fail() { echo "realtime_verify: FAIL $*" >&2; exit 1; }

[ $# -eq 2 ] || [ $# -eq 3 ] || fail "usage: realtime_verify.sh QEMU GUEST_DIR [DEVICE_OPTS]"
qemu=$1 guest=$2 devopts=${3:-}
[ -x "$qemu" ] || fail "QEMU binary $qemu is missing: build it first ('make')"
[ -f "$guest/vmlinuz" ] || fail "guest $guest is missing: build it first ('make')"
profile=crucial-p5-2tb
cap=$(sed -n 's/^capacity-bytes *= *\([0-9]*\).*/\1/p' "$root/profiles/$profile.ini")

work=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-rtverify.XXXXXX")
gpid=
cleanup() {
    [ -n "$gpid" ] && kill "$gpid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/job"
truncate -s "$cap" "$work/drive.raw"

cat >"$work/job/run.sh" <<'EOF'
say() { echo "nvmimic-test: $*"; }
common="--direct=1 --ioengine=libaio --rw=randwrite --bs=4k --iodepth=16 \
        --verify=crc32c --verify_fatal=1 --randrepeat=1"
dev=/dev/nvme0n1
fio --name=reset $common --filename=$dev --offset=0 --size=48m \
    --output=$RESULTS/fio-reset.txt &
fpid=$!
for i in 1 2 3; do
    sleep 2
    echo 1 >/sys/class/nvme/nvme0/reset_controller && say "reset $i"
done
wait $fpid; rc=$?
say "reset-verify rc=$rc"
grep -E "err=|verify" $RESULTS/fio-reset.txt | head -n 5

# the writes go on until the controller goes away (1 GiB: a pass is not
# done by then, or fio would reopen the device and write on to the re-plugged
# one); the latency log has a line, with its offset, for each write that
# completed without error
fio --name=unplug --direct=1 --ioengine=libaio --rw=randwrite --bs=4k \
    --iodepth=16 --randrepeat=1 --filename=$dev --offset=1g --size=1g \
    --time_based=1 --runtime=600 --buffer_pattern=0x6e766d69 \
    --write_lat_log=$RESULTS/unplug --log_offset=1 \
    --output=$RESULTS/fio-unplug.txt &
fpid=$!
sleep 2
say "unplug-now"
wait $fpid; say "unplug-write rc=$?"
# the re-plugged controller's namespace, once its controller is live: it
# may come back as nvme1 while the kernel still holds the old nvme0's
# instance (seen once on a loaded host: the new device served the
# kernel's reads, and /dev/nvme0n1 never came back)
n=0 newdev=
while [ -z "$newdev" ] && [ $n -lt 600 ]; do
    for d in /dev/nvme*n1; do
        [ -b "$d" ] &&
            [ "$(cat /sys/block/${d#/dev/}/device/state 2>/dev/null)" = live ] &&
            newdev=$d
    done
    [ -n "$newdev" ] || { sleep 0.1; n=$((n + 1)); }
done
[ -n "$newdev" ] && say "replugged as $newdev" || say "no device after the re-plug"
sync
say "unplug-done"
# the host reads the re-plugged device's statistics once it sees that line:
# the guest must still be running then (ending at once, it raced the host's
# query, which then found QEMU gone)
sleep 10
EOF

bash "$root/vm-images/run-guest.sh" --accel tcg "$qemu" "$guest" "$work/job" \
    "$work/results" 900 \
    -qmp "unix:$work/qmp.sock,server=on,wait=off" \
    -device pcie-root-port,id=rp0,bus=pcie.0,addr=0x11,chassis=1 \
    -blockdev "driver=file,filename=$work/drive.raw,node-name=nvmdisk,discard=unmap,detect-zeroes=unmap" \
    -device "nvme,id=nvm0,drive=nvmdisk,bus=rp0,profile=$profile$devopts" \
    >"$work/run.log" 2>&1 &
gpid=$!

python3 - "$work" "$profile" "$root/vm-images" "$devopts" <<'PY' || { cat "$work/run.log"; fail "the host side failed"; }
import os, sys, time

work, profile = sys.argv[1], sys.argv[2]
# ",k=v,..." as device_add's typed arguments
extra = {}
for kv in filter(None, sys.argv[4].split(",")):
    k, v = kv.split("=", 1)
    extra[k] = {"on": True, "off": False}.get(v, int(v) if v.isdigit() else v)
doorbells = extra.get("timing-doorbells") is True
sys.path.insert(0, sys.argv[3])
import nvmimic_qmp  # noqa: E402  (nvmimic's one Python QMP client)

console = os.path.join(work, "results", "console.log")


def wait_for(pred, what, secs):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.2)
    sys.exit(f"realtime_verify: timed out waiting for {what}")


def console_has(text):
    try:
        return text in open(console, errors="replace").read()
    except OSError:
        return False


wait_for(lambda: os.path.exists(os.path.join(work, "qmp.sock")), "QMP", 60)
q = nvmimic_qmp.QMP.connect(os.path.join(work, "qmp.sock"), timeout_s=60)


def qmp(cmd, **args):
    return q.execute(cmd, **args)


wait_for(lambda: console_has("nvmimic-test: unplug-now"), "the guest's "
         "unplug cue", 600)
st = qmp("query-nvmimic-stats", id="nvm0")
print("before the unplug: read/write posted",
      [(c["class"], c["posted"], c["early"]) for c in st["classes"]
       if c["posted"]], "realtime" in st)
if doorbells:
    writes = st["realtime"].get("doorbell-writes", 0)
    assert writes > 1000, f"timing-doorbells=on, but {writes} doorbell writes replayed"
    print("doorbell writes replayed before the unplug:", writes)
qmp("device_del", id="nvm0")
q.wait_event("DEVICE_DELETED", timeout_s=120)
qmp("device_add", driver="nvme", id="nvm0", drive="nvmdisk", bus="rp0",
    profile=profile, **extra)
st = qmp("query-nvmimic-stats", id="nvm0")
assert "realtime" in st, "the re-plugged device has no timing thread"
wait_for(lambda: console_has("nvmimic-test: unplug-done"), "the guest's "
         "end", 600)
st = qmp("query-nvmimic-stats", id="nvm0")
early = sum(c["early"] for c in st["classes"])
assert early == 0, f"{early} completions posted before their deadline"
if doorbells:
    assert "doorbell-writes" in st["realtime"], "the re-plugged device does not take the doorbells"
print("after the re-plug:", [(c["class"], c["posted"]) for c in st["classes"]
                             if c["posted"]])
PY
wait "$gpid" || { cat "$work/run.log"; fail "the guest run failed"; }
gpid=
log=$work/results/console.log
tr -d '\r' <"$log" | grep -a '^nvmimic-test:' || true
grep -aq 'nvmimic-test: reset 3' "$log" || fail "the guest did not reset the controller three times"
grep -aq 'nvmimic-test: reset-verify rc=0' "$log" ||
    fail "fio's verify across resets failed: $(tr -d '\r' <"$log" | grep -a 'err=\|verify' | head -n 3)"
grep -aq 'nvmimic-test: replugged' "$log" || fail "the guest never saw the controller come back"
python3 - "$work/drive.raw" "$work/results" <<'PY' || fail "a write completed before the unplug is not on the drive"
import glob, sys

raw, results = sys.argv[1], sys.argv[2]
logs = glob.glob(results + "/unplug_lat.*.log")
if not logs:
    sys.exit("realtime_verify: fio wrote no latency log")
want = bytes.fromhex("6e766d69") * 1024
offsets = set()
for path in logs:
    for ln in open(path):
        f = [x.strip() for x in ln.split(",")]
        if len(f) >= 5 and f[2] == "1":
            offsets.add(int(f[4]))
if len(offsets) < 100:
    sys.exit(f"realtime_verify: only {len(offsets)} writes completed")
bad = []
with open(raw, "rb") as d:
    for off in sorted(offsets):
        if off < 1 << 30 or off >= 2 << 30 or off % 4096:
            bad.append(f"offset {off} outside the job's region")
            continue
        d.seek(off)
        if d.read(4096) != want:
            bad.append(f"offset {off}")
if bad:
    sys.exit(f"realtime_verify: {len(bad)} of {len(offsets)} completed "
             f"writes missing: {', '.join(bad[:5])}")
print(f"realtime_verify: all {len(offsets)} writes completed before the "
      f"unplug are on the drive")
PY
echo "realtime_verify: ok: data verified across 3 resets and an unplug under load"

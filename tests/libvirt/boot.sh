#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# nvmimic libvirt-xml against Debian's libvirtd on this host: the generated
# domain validates against libvirt's schema, defines, starts (TCG), boots the
# initramfs guest, whose job reads Identify Controller and does 256 reads;
# meanwhile the test reads the device's statistics and sets its wear through
# libvirt's QMP passthrough (virsh qemu-monitor-command), and the guest sees
# that wear in its SMART log before it powers off.  Then undefine.
#
# usage: boot.sh NVMIMIC GUEST_DIR PROFILE_DIR PROFILE
set -u
nvmimic=$1 guest=$2 profdir=$3 profile=$4
here=$(cd "$(dirname "$0")" && pwd)
. "$here/libvirtd.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
t0=$(date +%s)

[ -x "$nvmimic" ] || fail "nvmimic '$nvmimic' not built (ninja -C build)"
[ -f "$guest/vmlinuz" ] || fail "no guest in '$guest': build it with vm-images/build-guest.sh (make)"
show() { "$nvmimic" profile show "$profile" --profile-dir "$profdir" --key "$1"; }
cap=$(show identity.capacity-bytes) && model=$(show identity.model-number) ||
    fail "cannot read capacity/model of $profile from $profdir"

dom=nvmimic-test-$$
work=$(mktemp -d /tmp/nvmimic-lv.XXXXXX)
chmod 755 "$work"          # QEMU runs as libvirt-qemu
defined=0
cleanup() {
    if [ "$defined" = 1 ]; then
        virsh -q -c "$LV_URI" destroy "$dom" >/dev/null 2>&1
        virsh -q -c "$LV_URI" undefine "$dom" >/dev/null 2>&1
    fi
    lv_down
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

lv_up
echo "libvirt: $(libvirtd --version | head -n 1), $(virsh --version) virsh"

# --- the job and its disks (vm-images/README.md: the job channel) ------------------
mkdir "$work/job"
cat >"$work/job/run.sh" <<'JOB'
set -u
nvme id-ctrl /dev/nvme0 >"$RESULTS/id-ctrl.txt" || exit 10
fio --name=r --filename=/dev/nvme0n1 --rw=randread --bs=4k --direct=1 \
    --ioengine=psync --size=64m --number_ios=256 --output="$RESULTS/fio.txt" || exit 11
echo "job: 256 reads done; waiting for the host to set wear-pct over QMP"
i=0
while [ "$i" -lt 900 ]; do
    nvme smart-log /dev/nvme0 >"$RESULTS/smart-log.txt" 2>&1
    grep -Eq '^percentage_used[[:space:]]*:[[:space:]]*42%' "$RESULTS/smart-log.txt" && exit 0
    usleep 200000
    i=$((i + 1))
done
exit 12
JOB
tar -cf "$work/job.tar" -C "$work/job" . || fail "cannot archive the job"
truncate -s 64M "$work/results.img"
truncate -s "$cap" "$work/nvme.raw"
chmod 666 "$work/nvme.raw"   # named only on the QEMU command line: libvirt does not chown it

"$nvmimic" libvirt-xml --profile "$profile" --disk "$work/nvme.raw" --name "$dom" \
    --guest-dir "$guest" --job-disk "$work/job.tar" --results-disk "$work/results.img" \
    --serial-log "$work/console.log" --memory 512 >"$work/domain.xml" ||
    fail "nvmimic libvirt-xml failed"
virt-xml-validate "$work/domain.xml" domain >"$work/validate.log" 2>&1 ||
    fail "domain XML does not validate: $(tail -n 3 "$work/validate.log")"
echo "ok: domain XML validates against libvirt's domain schema"

t1=$(date +%s)
virsh -q -c "$LV_URI" define "$work/domain.xml" >"$work/define.log" 2>&1 ||
    fail "virsh define: $(cat "$work/define.log")"
defined=1
t2=$(date +%s)
virsh -q -c "$LV_URI" start "$dom" >"$work/start.log" 2>&1 ||
    fail "virsh start: $(cat "$work/start.log"); QEMU log: $(tail -n 3 /var/log/libvirt/qemu/"$dom".log 2>/dev/null)"
t3=$(date +%s)
# (define includes libvirt probing a new or rebuilt QEMU binary's capabilities, cached after)
echo "ok: defined ($((t2 - t1)) s) and started ($((t3 - t2)) s) $dom"

qmp() { virsh -q -c "$LV_URI" qemu-monitor-command "$dom" "$1" 2>&1; }
reads() {
    python3 -c 'import json, sys
r = json.load(sys.stdin)["return"]
print(next(c["count"] for c in r["classes"] if c["class"] == "read"), r["model-number"])'
}

# The guest's 256 reads show up in the device's statistics, read through libvirt.
deadline=$(($(date +%s) + 150))
n=0 stats=
while [ "$(date +%s)" -lt "$deadline" ]; do
    state=$(virsh -q -c "$LV_URI" domstate "$dom" 2>/dev/null)
    [ "$state" = running ] || fail "domain is '$state' before the job's reads were seen; console: $(tail -n 3 "$work/console.log")"
    stats=$(qmp '{"execute":"query-nvmimic-stats","arguments":{"id":"nvm0"}}')
    out=$(echo "$stats" | reads 2>/dev/null) || fail "query-nvmimic-stats through libvirt: $stats"
    n=${out%% *}
    [ "$n" -ge 256 ] && break
    sleep 1
done
[ "$n" -ge 256 ] || fail "device saw $n reads after 150 s; console: $(tail -n 3 "$work/console.log")"
[ "${out#* }" = "$model" ] || fail "query-nvmimic-stats model-number '${out#* }', profile says '$model'"
echo "ok: query-nvmimic-stats through virsh qemu-monitor-command: $n reads, model ${out#* }"

r=$(qmp '{"execute":"nvmimic-set-state","arguments":{"id":"nvm0","wear-pct":42}}')
echo "$r" | grep -q '"return":{}' || fail "nvmimic-set-state through libvirt: $r"
echo "ok: nvmimic-set-state wear-pct=42 through libvirt"

deadline=$(($(date +%s) + 90))
while [ "$(date +%s)" -lt "$deadline" ]; do
    state=$(virsh -q -c "$LV_URI" domstate "$dom" 2>/dev/null)
    [ "$state" = "shut off" ] && break
    sleep 1
done
[ "$state" = "shut off" ] || fail "guest still '$state' 90 s after the QMP calls; console: $(tail -n 3 "$work/console.log")"
grep -aqx 'nvmimic-done' <(tr -d '\r' <"$work/console.log") ||
    fail "guest powered off without delivering results; console: $(tail -n 5 "$work/console.log")"
mkdir "$work/results"
tar -xf "$work/results.img" -C "$work/results" || fail "cannot unpack the results disk"
rc=$(cat "$work/results/rc" 2>/dev/null)
[ "$rc" = 0 ] || fail "guest job status '$rc' (10: id-ctrl, 11: fio, 12: wear never seen); log: $(tail -n 5 "$work/results/job.log")"
mn=$(sed -n 's/^mn *: *//p' "$work/results/id-ctrl.txt" | sed 's/ *$//')
[ "$mn" = "$model" ] || fail "guest's Identify Controller MN '$mn', profile says '$model'"
echo "ok: guest's nvme id-ctrl: mn '$mn'; its SMART log showed the wear set over QMP"

virsh -q -c "$LV_URI" undefine "$dom" >"$work/undef.log" 2>&1 || fail "virsh undefine: $(cat "$work/undef.log")"
defined=0
virsh -q -c "$LV_URI" dominfo "$dom" >/dev/null 2>&1 && fail "domain $dom still defined after undefine"
echo "ok: undefined $dom; whole test $(($(date +%s) - t0)) s"

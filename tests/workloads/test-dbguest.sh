#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm-images/dbguest offline: script syntax and the files build.sh puts into the
# debootstrap tree (no debootstrap here: it needs the mirror and minutes).
# Usage: test-dbguest.sh SOURCE_ROOT
set -eu
D=$1/vm-images/dbguest
fail() { echo "FAIL: $*" >&2; exit 1; }
T=$(mktemp -d /tmp/nvmimic-dbguest.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
sh -n "$D/build.sh" || fail "build.sh syntax"
sh -n "$D/dbinit" || fail "dbinit syntax"
sh -n "$D/build-db.sh" || fail "build-db.sh syntax"
sh "$D/build.sh" --files-only "$T/root" || fail "build.sh --files-only"
[ -x "$T/root/sbin/nvmimic-dbinit" ] || fail "init not installed executable"
grep -Eq '^LABEL=nvmimic-db[[:space:]]+/[[:space:]]+ext4' "$T/root/etc/fstab" || fail "fstab root line"
for m in virtio_pci virtio_blk ext4; do
    grep -qx "$m" "$T/root/etc/initramfs-tools/modules" || fail "initrd module $m"
done
for f in tpcc/tpcc.sh tpcc/functions.sql tpcc/tpcc-report.py seq/seq-write.fio; do
    [ -f "$T/root/opt/nvmimic/workloads/$f" ] || fail "workload file $f not in the tree"
done
# The channel is the initramfs guest's: same serials and console lines.
for s in nvmimic-job nvmimic-results 'nvmimic-rc: ' nvmimic-done 'nvmimic-step: '; do
    grep -q "$s" "$D/dbinit" || fail "dbinit lacks '$s'"
    grep -q "$s" "$1/vm-images/guest-init" || fail "guest-init lacks '$s' (protocol changed?)"
done
echo "PASS: dbguest"

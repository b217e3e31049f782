#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# build.sh OUTDIR: nvmimic's database guest, Debian 12 bookworm made with
# debootstrap from Debian's archive (the mirror of
# /etc/apt/sources.list.d/debian.sources), with PostgreSQL 15, fio, nvme-cli,
# sysstat, python3 and Debian's kernel + initramfs-tools initrd.  Writes
#   OUTDIR/rootfs/           the debootstrap tree (cached: reused when present)
#   OUTDIR/dbguest.img       raw ext4 boot disk, label nvmimic-db, built with
#                            mkfs.ext4 -d (no mount, no qemu-img)
#   OUTDIR/vmlinuz, OUTDIR/initramfs.cpio.gz  the guest's own kernel and initrd
#                            (names as run-guest.sh expects a GUEST_DIR to have)
# Boot it with vm-images/run-guest.sh (see vm-images/dbguest/README.md).
#
# build.sh --files-only DIR writes only what build.sh puts into the tree (init,
# fstab, workloads) under DIR: offline, for tests.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
die() { echo "dbguest: $*" >&2; exit 1; }
IMG_SIZE=${IMG_SIZE:-3G}
PKGS="postgresql-15,postgresql-client-15,fio,nvme-cli,sysstat,python3,e2fsprogs,kmod,udev,linux-image-amd64,initramfs-tools,procps,iproute2"

# The files build.sh adds to the tree.
put_files() {
    t=$1
    mkdir -p "$t/sbin" "$t/etc" "$t/opt/nvmimic/workloads"
    install -m 755 "$HERE/dbinit" "$t/sbin/nvmimic-dbinit"
    cat >"$t/etc/fstab" <<'EOT'
# nvmimic database guest: / is the virtio boot disk; the database filesystem
# (/srv/db on the drive under test) is made and mounted by /sbin/nvmimic-dbinit.
LABEL=nvmimic-db  /  ext4  rw,noatime,errors=remount-ro  0  1
EOT
    echo nvmimic-db >"$t/etc/hostname"
    # The initrd must find the root disk: virtio_blk and ext4 are modules.
    mkdir -p "$t/etc/initramfs-tools"
    printf 'virtio_pci\nvirtio_blk\next4\n' >"$t/etc/initramfs-tools/modules"
    rm -rf "$t/opt/nvmimic/workloads/tpcc" "$t/opt/nvmimic/workloads/seq"
    cp -r "$ROOT/workloads/tpcc" "$ROOT/workloads/seq" "$t/opt/nvmimic/workloads/"
}

if [ "${1:-}" = --files-only ]; then
    [ -n "${2:-}" ] || die "usage: build.sh --files-only DIR"
    mkdir -p "$2"; put_files "$2"; exit 0
fi
[ $# -eq 1 ] || die "usage: build.sh OUTDIR"
[ "$(id -u)" = 0 ] || die "must run as root (debootstrap, chroot)"
command -v debootstrap >/dev/null || die "debootstrap missing (make deps)"
OUT=$1; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
RFS=$OUT/rootfs

# Up to date: the image is newer than everything build.sh puts into it.
if [ -f "$RFS/.nvmimic-debootstrap-done" ] && [ -f "$OUT/dbguest.img" ] &&
    [ -f "$OUT/vmlinuz" ] && [ -f "$OUT/initramfs.cpio.gz" ] &&
    [ -z "$(find "$HERE" "$ROOT/workloads/tpcc" "$ROOT/workloads/seq" -newer "$OUT/dbguest.img" -print -quit)" ]; then
    echo "dbguest: $OUT/dbguest.img is up to date"
    exit 0
fi

# A tree made with another package list is made again.
if [ "$(cat "$RFS/.nvmimic-debootstrap-done" 2>/dev/null)" != "$PKGS" ]; then
    MIRROR=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
    [ -n "$MIRROR" ] || die "no mirror URI in /etc/apt/sources.list.d/debian.sources"
    rm -rf "$RFS"
    echo "dbguest: debootstrap bookworm from $MIRROR (minutes)"
    debootstrap --variant=minbase --include="$PKGS" bookworm "$RFS" "$MIRROR" ||
        die "debootstrap failed (log: $RFS/debootstrap/debootstrap.log)"
    echo "$PKGS" >"$RFS/.nvmimic-debootstrap-done"
fi
put_files "$RFS"
# Debian's postgresql-15 package creates a cluster in /var/lib/postgresql; the
# guest makes its own on the drive under test, so drop that one.
chroot "$RFS" sh -c 'pg_dropcluster 15 main --stop 2>/dev/null || true'
chroot "$RFS" update-initramfs -u -k all >/dev/null || die "update-initramfs failed"
cp -L "$RFS/vmlinuz" "$OUT/vmlinuz" && cp -L "$RFS/initrd.img" "$OUT/initramfs.cpio.gz" ||
    die "no kernel/initrd in the tree"
rm -f "$OUT/dbguest.img"
mkfs.ext4 -q -L nvmimic-db -d "$RFS" "$OUT/dbguest.img" "$IMG_SIZE" || die "mkfs.ext4 -d failed"
echo "dbguest: $OUT/dbguest.img ($IMG_SIZE), kernel $(basename "$(readlink "$RFS/vmlinuz")")"

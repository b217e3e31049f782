#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# build-guest.sh OUTDIR: build nvmimic's minimal Linux guest from Debian packages.
#
# Output:
#   OUTDIR/vmlinuz             Debian's kernel (linux-image-amd64's current dependency)
#   OUTDIR/initramfs.cpio.gz   busybox + fio + nvme-cli + their libraries, the modules for
#                              nvme and virtio-blk (and ext4, loaded on demand), vm-images/guest-init as /init, and
#                              nvmimic-load (vm-images/nvmimic-load.c, compiled here)
#   OUTDIR/kernel-version      the kernel release, e.g. 6.1.0-57-amd64
#   OUTDIR/cache/              the kernel .deb (reused when offline)
#
# The kernel is downloaded with `apt-get download` and unpacked with dpkg-deb, never
# installed.  busybox-static, fio and nvme-cli are taken from the host's installed
# packages.  Rerunning with unchanged inputs does nothing; changed inputs (a kernel
# update, a new fio, an edit to this script or to guest-init) rebuild.
set -eu

me=build-guest
die() { echo "$me: $*" >&2; exit 1; }
say() { echo "$me: $*"; }

[ $# -eq 1 ] || die "usage: build-guest.sh OUTDIR"
OUT=$1
HERE=$(cd "$(dirname "$0")" && pwd)
INIT=$HERE/guest-init
LOADGEN=$HERE/nvmimic-load.c

for tool in apt-get apt-cache dpkg-deb dpkg-query ldd cpio gzip busybox cc; do
    command -v "$tool" >/dev/null 2>&1 || die "'$tool' not found (run 'make deps')"
done
for pkg in busybox-static fio nvme-cli liburing-dev; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' ||
        die "Debian package '$pkg' is not installed (run 'make deps')"
done
BUSYBOX=$(command -v busybox)
FIO=$(command -v fio) || die "fio not found in PATH"
NVME=$(command -v nvme) || die "nvme (nvme-cli) not found in PATH"

mkdir -p "$OUT/cache"
OUT=$(cd "$OUT" && pwd)
CACHE=$OUT/cache

# --- 1. The kernel package: resolve and fetch (cached) --------------------------------
KPKG=$(apt-cache depends linux-image-amd64 2>/dev/null |
       awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
[ -n "$KPKG" ] || die "cannot resolve linux-image-amd64's kernel package from apt-cache (run 'apt-get update' or 'make deps')"

KDEB=$(ls "$CACHE"/"$KPKG"_*.deb 2>/dev/null | tail -n 1 || true)
KVER_PKG=$(apt-cache policy "$KPKG" 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')
if [ -n "$KDEB" ] && [ -n "$KVER_PKG" ] &&
   [ "$(dpkg-deb -f "$KDEB" Version)" != "$KVER_PKG" ]; then
    KDEB=                                   # same ABI name, newer upload: refetch
fi
if [ -z "$KDEB" ]; then
    say "downloading $KPKG"
    tmpd=$(mktemp -d "$CACHE/dl.XXXXXX")
    if ! (cd "$tmpd" && apt-get -q -o APT::Sandbox::User=root download "$KPKG" \
            >"$tmpd/log" 2>&1); then
        rm -rf "$tmpd"
        die "cannot download Debian package $KPKG with apt-get (no mirror reachable? try 'apt-get update')"
    fi
    # Keep one kernel in the cache: the one just fetched.
    rm -f "$CACHE"/linux-image-*.deb
    mv "$tmpd"/*.deb "$CACHE"/
    rm -rf "$tmpd"
    KDEB=$(ls "$CACHE"/"$KPKG"_*.deb | tail -n 1)
fi

# --- 2. Up to date? ------------------------------------------------------------------
stamp=$( {
    echo "kernel $(basename "$KDEB")"
    dpkg-query -W -f='${Package} ${Version}\n' busybox-static fio nvme-cli libc6 liburing-dev
    cat "$0" "$INIT" "$LOADGEN" "$HERE/../harness/sim/burst.h" \
        "$HERE/../backends/rng.h"
} | cksum)
if [ -f "$OUT/.stamp" ] && [ "$(cat "$OUT/.stamp")" = "$stamp" ] &&
   [ -f "$OUT/vmlinuz" ] && [ -f "$OUT/initramfs.cpio.gz" ]; then
    say "up to date ($OUT, kernel $(cat "$OUT/kernel-version"))"
    exit 0
fi

# --- 3. Stage the initramfs root -----------------------------------------------------
STAGE=$(mktemp -d "$CACHE/stage.XXXXXX")
trap 'rm -rf "$STAGE" "$STAGE.kernel"' EXIT
trap 'exit 130' INT TERM
cd "$STAGE"

# The kernel tree is unpacked afresh on each rebuild (seconds) rather than cached
# (400 MB unpacked); the .deb itself stays in the cache.
say "unpacking $(basename "$KDEB")"
KTREE=$STAGE.kernel
mkdir -p "$KTREE"
dpkg-deb -x "$KDEB" "$KTREE"
KVER=$(ls "$KTREE/lib/modules" | head -n 1)
[ -n "$KVER" ] || die "$(basename "$KDEB") has no /lib/modules tree"
KMOD=$KTREE/lib/modules/$KVER
[ -f "$KTREE/boot/vmlinuz-$KVER" ] || die "$(basename "$KDEB") has no boot/vmlinuz-$KVER"
# Compressed modules (newer Debian kernels): busybox insmod cannot read them.
find "$KMOD" \( -name '*.ko.xz' -o -name '*.ko.zst' \) | while read -r f; do
    case $f in
        *.xz)  busybox xz -dc "$f" >"${f%.xz}" ;;
        *.zst) zstd -q -d -c "$f" >"${f%.zst}" ;;
    esac
    rm -f "$f"
done
# The .deb carries no modules.dep (its postinst runs depmod): make one.
busybox depmod -b "$KTREE" "$KVER"

# Merged-/usr layout, like the host, so ldd's paths can be copied as they are.
mkdir -p usr/bin usr/sbin usr/lib/x86_64-linux-gnu usr/lib64 \
         dev proc sys tmp run job results etc root mnt
ln -s usr/bin bin
ln -s usr/sbin sbin
ln -s usr/lib lib
ln -s usr/lib64 lib64
chmod 1777 tmp

# busybox (static) and a link for each applet.
cp "$BUSYBOX" usr/bin/busybox
for applet in $("$BUSYBOX" --list-full); do
    [ -e "$applet" ] || [ -L "$applet" ] || ln -s /usr/bin/busybox "$applet"
done

# fio and nvme-cli with every library ldd names, and the dynamic loader.
copy_file() {                               # copy_file HOSTPATH: same path in the stage
    dst=$STAGE$1
    mkdir -p "$(dirname "$dst")"
    [ -e "$dst" ] || cp -L "$1" "$dst"
}
rm -f usr/bin/fio usr/sbin/nvme
copy_file "$FIO"
copy_file "$NVME"
# nvmimic run's load generator for the four corners (liburing linked in)
cc -O2 -std=gnu11 -Wall -I"$HERE/../harness/sim" -I"$HERE/../backends" \
    -o usr/bin/nvmimic-load "$LOADGEN" -Wl,-Bstatic -luring -Wl,-Bdynamic -lm ||
    die "cannot compile $LOADGEN (needs liburing-dev: run 'make deps')"
for bin in "$FIO" "$NVME" usr/bin/nvmimic-load; do
    ldd "$bin" >"$STAGE/.ldd" 2>&1 || die "ldd $bin failed: $(head -n 1 "$STAGE/.ldd")"
    if grep -q 'not found' "$STAGE/.ldd"; then
        die "$bin: missing library: $(grep 'not found' "$STAGE/.ldd" | head -n 1)"
    fi
    awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' "$STAGE/.ldd" |
        while read -r lib; do copy_file "$lib"; done
done
rm -f "$STAGE/.ldd"
# Some libraries (librados → ceph/) live outside the default search path.
printf '%s\n' /usr/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu/ceph >etc/ld.so.conf

# Kernel modules: nvme, virtio-blk (the job/results channel) and qemu_fw_cfg (the
# job in simulated time, see guest-init), the LSI SAS1068 HBA's driver and SCSI
# disks (the reviews' database topology, timed by the nvmimic block filter) plus
# everything modules.dep says they need, in load order.  The crypto helpers are
# optional soft providers for crc-t10dif / crc64-rocksoft (spares the kernel a
# modprobe call).
WANT="crct10dif_generic crc64_rocksoft_generic nvme virtio_pci virtio_blk qemu_fw_cfg mptsas sd_mod"
# Shipped but not loaded at boot (a job runs modprobe): ext4 and the crc32c
# its checksums ask the crypto API for (the crash-consistency test,
# tests/vm/crash_consistency.py).
ONDEMAND="ext4 crc32c_generic"
DEP=$KMOD/modules.dep
modpath() {                                 # modpath NAME: relative path from modules.dep
    awk -F: -v n="$1" '
        { p = $1; b = p; sub(/.*\//, "", b); sub(/\.ko$/, "", b); gsub(/-/, "_", b) }
        b == n { print p; exit }' "$DEP"
}
ORDER=$STAGE/.order
: >"$ORDER"
add_mod() {                                 # add_mod RELPATH: deps first, no repeats
    grep -qxF "$1" "$ORDER" && return 0
    deps=$(awk -F: -v p="$1" '$1 == p { print $2; exit }' "$DEP")
    for d in $deps; do add_mod "$d"; done
    grep -qxF "$1" "$ORDER" || echo "$1" >>"$ORDER"
}
LOADED=$STAGE/.loaded
for m in $WANT - $ONDEMAND; do
    if [ "$m" = - ]; then
        cp "$ORDER" "$LOADED"               # what /init loads: WANT's
        continue
    fi
    name=$(echo "$m" | tr - _)
    rel=$(modpath "$name")
    if [ -z "$rel" ]; then
        if grep -q "/$m\.ko\$\|/$(echo "$m" | tr _ -)\.ko\$" "$KMOD/modules.builtin"; then
            continue                        # built into this kernel
        fi
        case $m in
            *_generic) continue ;;          # optional
            *) die "kernel $KVER has no module '$m' (neither modules.dep nor modules.builtin)" ;;
        esac
    fi
    add_mod "$rel"
done
GMOD=lib/modules/$KVER
mkdir -p "$GMOD"
while read -r rel; do
    mkdir -p "$GMOD/$(dirname "$rel")"
    cp "$KMOD/$rel" "$GMOD/$rel"
done <"$ORDER"
cp "$LOADED" "$GMOD/nvmimic.load"           # the order /init loads them in
# A modules.dep restricted to what is shipped, so modprobe works in the guest too.
awk -F: 'NR == FNR { have[$1] = 1; next } ($1 in have)' "$ORDER" "$DEP" >"$GMOD/modules.dep"
cp "$KMOD/modules.builtin" "$GMOD/"
rm -f "$ORDER" "$LOADED"

cp "$INIT" init
chmod 755 init
echo "$KVER" >etc/nvmimic-kernel

# --- 4. Pack -------------------------------------------------------------------------
find . -mindepth 1 | LC_ALL=C sort |
    cpio -o -H newc -R 0:0 --reproducible --quiet | gzip -6 -n >"$OUT/initramfs.cpio.gz.tmp"
mv "$OUT/initramfs.cpio.gz.tmp" "$OUT/initramfs.cpio.gz"
cp "$KTREE/boot/vmlinuz-$KVER" "$OUT/vmlinuz"
echo "$KVER" >"$OUT/kernel-version"
echo "$stamp" >"$OUT/.stamp"
say "built $OUT (kernel $KVER, initramfs $(du -h "$OUT/initramfs.cpio.gz" | cut -f1))"

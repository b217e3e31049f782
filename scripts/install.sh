#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# meson install script (make install): what meson does not build itself.
#
# install.sh QEMU GUEST_DIR DBGUEST_DIR DATADIR LIBEXECDIR
#   QEMU         build/qemu/qemu-system-x86_64 (make qemu)
#   GUEST_DIR    build/guest: vmlinuz, initramfs.cpio.gz (make guest)
#   DBGUEST_DIR  build/dbguest: the database guest (make dbguest)
#   DATADIR, LIBEXECDIR  share/nvmimic, libexec/nvmimic, relative to PREFIX
#
# Each goes where the installed nvmimic looks for it (harness/cli/paths.c);
# what was not built is said, with how to build it or point at one.
set -eu
qemu=$1 guest=$2 dbguest=$3 datadir=$4 libexecdir=$5
dest=${MESON_INSTALL_DESTDIR_PREFIX:?run by meson install}
data="$dest/$datadir" libexec="$dest/$libexecdir"

mkdir -p "$data" "$libexec"
if [ -x "$qemu" ]; then
    install -m 755 "$qemu" "$libexec/qemu-system-x86_64"
    echo "nvmimic install: QEMU with the nvmimic device in $libexec"
else
    echo "nvmimic install: no QEMU built ($qemu): build it with 'make qemu'" \
         "and install again, or point NVMIMIC_QEMU (or run --qemu) at one"
fi
if [ -f "$guest/vmlinuz" ] && [ -f "$guest/initramfs.cpio.gz" ]; then
    mkdir -p "$data/guest"
    install -m 644 "$guest/vmlinuz" "$guest/initramfs.cpio.gz" "$data/guest/"
    echo "nvmimic install: the initramfs guest in $data/guest"
else
    echo "nvmimic install: no guest built ($guest): 'make guest' and install" \
         "again, or $data/vm-images/build-guest.sh DIR and NVMIMIC_GUEST_DIR=DIR"
fi
if [ -f "$dbguest/dbguest.img" ]; then
    echo "nvmimic install: the database guest ($dbguest, 3 GB) is not copied;" \
         "point NVMIMIC_DBGUEST_DIR at it, or build one into $data/dbguest" \
         "with $data/vm-images/dbguest/build.sh $data/dbguest"
fi
# the scripts the guest runner starts must stay executable
chmod 755 "$data/vm-images/run-guest.sh" "$data/vm-images/build-guest.sh" \
          "$data/vm-images/dbguest/build.sh" 2>/dev/null || true

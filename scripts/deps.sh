#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install everything nvmimic needs from Debian's packages.  Idempotent; run as root.
#
# Adds, by reusing the mirror URIs already configured in
# /etc/apt/sources.list.d/debian.sources (no host name is written here):
#   - bookworm-backports binaries (meson >= 1.5, python3-pycotap), low priority;
#   - trixie source packages only (the pinned QEMU source), plus a pin that keeps
#     any trixie binary from ever being chosen.
set -eu

die() { echo "make deps: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (it installs Debian packages with apt-get)"
[ -r /etc/debian_version ] && command -v apt-get >/dev/null 2>&1 ||
    die "needs a Debian-like system with apt-get (Debian 12 bookworm is what nvmimic is built on)"
SRC=/etc/apt/sources.list.d/debian.sources
[ -r "$SRC" ] || die "$SRC not found: it gives the mirror URIs to reuse for backports and trixie"

# First URI of the stanza whose Suites line names $1 (deb822 format).
uri_for_suite() {
    awk -v want="$1" '
        /^[[:space:]]*$/ { if (hit && uri != "") { print uri; exit } hit = 0; uri = ""; next }
        /^URIs:/   { uri = $2 }
        /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == want) hit = 1 }
        END        { if (hit && uri != "") print uri }
    ' "$SRC" | head -n 1
}

MAIN_URI=$(uri_for_suite bookworm)
SEC_URI=$(uri_for_suite bookworm-security)
[ -n "$MAIN_URI" ] || die "no stanza with suite 'bookworm' in $SRC"
[ -n "$SEC_URI" ] || die "no stanza with suite 'bookworm-security' in $SRC"

OURS=/etc/apt/sources.list.d/nvmimic.sources
NEW=$(mktemp)
cat >"$NEW" <<EOS
# Written by nvmimic's scripts/deps.sh from the URIs in $SRC.
Types: deb
URIs: $MAIN_URI
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: $MAIN_URI
Suites: trixie trixie-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: $SEC_URI
Suites: trixie-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
PIN=/etc/apt/preferences.d/nvmimic
NEWPIN=$(mktemp)
cat >"$NEWPIN" <<'EOS'
# Written by nvmimic's scripts/deps.sh: only sources come from trixie, never binaries;
# backports only when asked for by name (-t bookworm-backports).
Package: *
Pin: release n=trixie
Pin-Priority: -1

Package: *
Pin: release n=trixie-updates
Pin-Priority: -1

Package: *
Pin: release n=trixie-security
Pin-Priority: -1

Package: *
Pin: release n=bookworm-backports
Pin-Priority: 100
EOS

changed=0
if ! cmp -s "$NEW" "$OURS" 2>/dev/null; then cp "$NEW" "$OURS"; changed=1; fi
if ! cmp -s "$NEWPIN" "$PIN" 2>/dev/null; then cp "$NEWPIN" "$PIN"; changed=1; fi
rm -f "$NEW" "$NEWPIN"

export DEBIAN_FRONTEND=noninteractive
STAMP=/var/lib/apt/lists/.nvmimic-updated
if [ "$changed" = 1 ] || [ ! -e "$STAMP" ] ||
   [ -n "$(find "$STAMP" -mmin +720 2>/dev/null)" ]; then
    apt-get update -qq || die "apt-get update failed"
    touch "$STAMP"
fi

# Build: our code, QEMU's x86_64-softmmu, the pinned source package.
BUILD_PKGS="build-essential pkg-config ninja-build dpkg-dev flex bison
    libglib2.0-dev libpixman-1-dev libfdt-dev zlib1g-dev python3-venv
    python3-setuptools cpio gzip xz-utils file libvirt-dev"
# Fuzzing (make fuzz, suite fuzz of make check): clang with libFuzzer and the
# sanitizer runtimes, llvm-symbolizer for readable stack traces.
BUILD_PKGS="$BUILD_PKGS clang-14 libclang-rt-14-dev llvm-14 time"
# Guest image (kernel is unpacked, not installed) and run time.
# liburing-dev: vm-images/nvmimic-load (the guest's load generator) links it.
# fio: the guests' load; the build also lists its options (scripts/fio-options.py)
# for nvmimic sim to refuse a job file's key fio would refuse.
GUEST_PKGS="busybox-static fio nvme-cli liburing-dev seabios qemu-system-data ipxe-qemu"
# libvirt (tests/libvirt, nvmimic libvirt-xml) and the Ubuntu / Windows guest
# recipes in vm-images/ (NoCloud seed, FAT results disk, XML/YAML checks).
GUEST_PKGS="$GUEST_PKGS libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients libxml2-utils"
GUEST_PKGS="$GUEST_PKGS cloud-image-utils genisoimage mtools dosfstools python3-yaml"
# Application workloads (workloads/, vm-images/dbguest): PostgreSQL 15 + pgbench, debootstrap;
# qemu-img (qemu-utils) makes the throwaway overlay over the loaded database.
GUEST_PKGS="$GUEST_PKGS postgresql debootstrap qemu-utils"
# Device tests: strace (a FUA write's fdatasync on a raw file), qemu-io of
# qemu-utils above (reading images back after kill -9).
GUEST_PKGS="$GUEST_PKGS strace"
# Reports and charts.
REPORT_PKGS="gnuplot-nox libjson-glib-dev chromium"
# The results schema test (docs/results.schema.json, tests/results).
REPORT_PKGS="$REPORT_PKGS python3-jsonschema"
BACKPORTS_PKGS="meson python3-pycotap"

missing=""
for p in $BUILD_PKGS $GUEST_PKGS $REPORT_PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "make deps: installing$missing"
    apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
        die "apt-get install failed for:$missing"
fi

need_bp=0
for p in $BACKPORTS_PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need_bp=1
done
mv=$(dpkg-query -W -f='${Version}' meson 2>/dev/null || true)
if [ -n "$mv" ] && dpkg --compare-versions "$mv" lt 1.5; then need_bp=1; fi
if [ "$need_bp" = 1 ]; then
    echo "make deps: installing from bookworm-backports: $BACKPORTS_PKGS"
    apt-get install -y -qq --no-install-recommends -t bookworm-backports $BACKPORTS_PKGS >/dev/null ||
        die "apt-get install -t bookworm-backports failed for: $BACKPORTS_PKGS"
fi
mv=$(dpkg-query -W -f='${Version}' meson)
dpkg --compare-versions "$mv" ge 1.5 || die "meson $mv is older than 1.5, which QEMU 10.0 needs"
echo "make deps: ok (meson $mv)"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Fetch nvme-cli's own test suite (tests/ of Debian's nvme-cli source package,
# pinned) for the conformance test (tests/vm/conformance.sh), the way
# scripts/qemu-build.sh fetches QEMU's source: apt-get source from the trixie
# deb-src entry scripts/deps.sh adds (apt checks the files against the
# archive's signed index), unpacked once into
#   build/nvme-cli-dl/     the .dsc, .orig and .debian files
#   build/nvme-cli-tests/  tests/ of the unpacked source
# Only the Python suite is used: it runs in the database guest against
# Debian 12's nvme-cli (see tests/vm/conformance/expected.tsv for what that
# older CLI lacks).
set -eu

PKG_VERSION=2.13-2

die() { echo "nvme-cli-tests: $*" >&2; exit 1; }

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DL=$ROOT/build/nvme-cli-dl
OUT=$ROOT/build/nvme-cli-tests
[ -f "$OUT/.nvmimic-$PKG_VERSION" ] && exit 0

command -v apt-get >/dev/null || die "apt-get not found; run 'make deps' on Debian"
apt-cache showsrc nvme-cli 2>/dev/null | grep -qx "Version: $PKG_VERSION" ||
    die "pinned source nvme-cli $PKG_VERSION is no longer served by the configured trixie deb-src suites (run 'make deps'; if it still fails, the pin in scripts/nvme-cli-tests.sh needs moving)"
rm -rf "$DL" "$OUT"
mkdir -p "$DL"
echo "nvme-cli-tests: fetching Debian source nvme-cli $PKG_VERSION"
(cd "$DL" && apt-get source -qq --download-only "nvme-cli=$PKG_VERSION" 2>&1 |
    grep -v 'Download is performed unsandboxed' || true)
dsc=$(ls "$DL"/nvme-cli_*.dsc 2>/dev/null | head -n 1)
[ -n "$dsc" ] || die "apt-get source nvme-cli=$PKG_VERSION downloaded nothing"
(cd "$DL" && dpkg-source -x "$dsc" src >"$DL/unpack.log" 2>&1) ||
    die "dpkg-source could not verify or unpack $dsc (log: $DL/unpack.log)"
[ -f "$DL/src/tests/nvme_test.py" ] || die "$dsc has no tests/nvme_test.py"
cp -r "$DL/src/tests" "$OUT"
rm -rf "$DL/src"
touch "$OUT/.nvmimic-$PKG_VERSION"
echo "nvme-cli-tests: $OUT ($(ls "$OUT"/nvme_*_test.py | wc -l) tests)"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Print a unified diff of FILES (paths inside the QEMU tree) between the
# pristine Debian source (unpacked afresh from build/qemu-dl/) and
# build/qemu-src/, for writing or refreshing a patch in qemu/patches/:
#
#   scripts/qemu-diff.sh hw/nvme/ctrl.c hw/nvme/ns.c > /tmp/body.diff
#
# The patch file is a short header (Subject:, why, ---) followed by the diff.
# Patches in qemu/patches/ that touch the same files must then be refreshed
# together, since the applied series is what build/qemu-src holds.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || { echo "usage: qemu-diff.sh FILE..." >&2; exit 2; }
dsc=$(ls "$ROOT"/build/qemu-dl/qemu_*.dsc 2>/dev/null | head -n 1)
[ -n "$dsc" ] || { echo "qemu-diff: no source in build/qemu-dl; run 'make qemu' first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$ROOT/build/qemu-dl" && dpkg-source -x "$dsc" "$tmp/a" >/dev/null 2>&1)
mkdir -p "$tmp/b"
for f in "$@"; do
    mkdir -p "$tmp/b/$(dirname "$f")"
    cp "$ROOT/build/qemu-src/$f" "$tmp/b/$f"
done
cd "$tmp"
for f in "$@"; do
    diff -u --label "a/$f" --label "b/$f" "a/$f" "b/$f" || true
done

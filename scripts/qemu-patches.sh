#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qemu/patches/ as a git repository and back (qemu/patches/README.md):
#
#   scripts/qemu-patches.sh checkout DIR
#       DIR becomes a git repository of the pinned Debian QEMU source, as
#       dpkg-source unpacks it from build/qemu-dl/ (make qemu fetches it),
#       committed and tagged nvmimic-base, with qemu/patches/*.patch applied
#       on top by git am, one commit each.  Edit, commit, rebase there.
#   scripts/qemu-patches.sh export DIR
#       replaces qemu/patches/*.patch with git format-patch of DIR's commits
#       since nvmimic-base.
#
# The files come out the same for the same commits: no commit hash in the
# "From" lines (--zero-commit), no signature, 12-digit blob ids.
set -eu

die() { echo "qemu-patches: $*" >&2; exit 1; }

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PATCHES=$ROOT/qemu/patches
[ $# = 2 ] || die "usage: qemu-patches.sh checkout|export DIR"
cmd=$1
dir=$2

case $cmd in
checkout)
    [ ! -e "$dir" ] || die "$dir exists; give a new directory"
    dsc=$(ls "$ROOT"/build/qemu-dl/qemu_*.dsc 2>/dev/null | head -n 1)
    [ -n "$dsc" ] || die "no source in build/qemu-dl; run 'make qemu' first"
    dir_abs=$(mkdir -p "$(dirname "$dir")" && cd "$(dirname "$dir")" && pwd)/$(basename "$dir")
    (cd "$ROOT/build/qemu-dl" && dpkg-source -x "$dsc" "$dir_abs" >/dev/null 2>&1) ||
        die "dpkg-source could not unpack $dsc"
    cd "$dir_abs"
    git init -q
    git config user.name "nvmimic developers"
    git config user.email "nvmimic@example.org"
    # Everything dpkg-source unpacked, also what QEMU's .gitignore names.
    git add -f -A .
    GIT_AUTHOR_DATE=2025-01-01T00:00:00Z GIT_COMMITTER_DATE=2025-01-01T00:00:00Z \
        git commit -q -m "$(basename "$dsc" .dsc), as dpkg-source -x unpacks it"
    git tag nvmimic-base
    for p in $(ls "$PATCHES"/*.patch 2>/dev/null | sort); do
        git am -q --committer-date-is-author-date "$p" ||
            die "git am $(basename "$p") failed; see 'git -C $dir am --show-current-patch'"
    done
    echo "qemu-patches: $dir: nvmimic-base + $(git rev-list --count nvmimic-base..HEAD) patches"
    ;;
export)
    git -C "$dir" rev-parse -q --verify nvmimic-base >/dev/null ||
        die "$dir has no nvmimic-base tag; make it with 'qemu-patches.sh checkout'"
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    git -C "$dir" format-patch -q --no-signature --zero-commit --abbrev=12 \
        -o "$tmp" nvmimic-base..HEAD
    [ -n "$(ls "$tmp")" ] || die "no commits after nvmimic-base in $dir"
    rm -f "$PATCHES"/*.patch
    cp "$tmp"/*.patch "$PATCHES"/
    ls "$PATCHES"/*.patch | sed "s|^$ROOT/||"
    ;;
*) die "unknown command '$cmd' (checkout or export)" ;;
esac

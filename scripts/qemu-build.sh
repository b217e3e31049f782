#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Fetch the pinned Debian QEMU source, overlay nvmimic's hw/ and backends/,
# apply qemu/patches/, configure for x86_64-softmmu and build
# build/qemu/qemu-system-x86_64.  Every step is skipped when already done, so
# touching one file under hw/ recompiles only that file.
#
# Layout under build/:
#   qemu-dl/     the downloaded .dsc/.orig/.debian files (apt checks them
#                against the signed .dsc)
#   qemu-src/    the unpacked source with Debian's patches and ours
#   qemu/        QEMU's build directory
#   qemu-VARIANT/  the build directory of a variant (below)
#
# QEMU_VARIANT picks a second build of the same source tree, with its own
# build directory and extra configure options:
#   (unset)  build/qemu/        the build everything else uses
#   asan     build/qemu-asan/   AddressSanitizer + UndefinedBehaviorSanitizer
#                               (make check-sanitizers)
#   fuzz     build/qemu-fuzz/   clang-14, libFuzzer, ASan + UBSan: the
#                               qemu-fuzz-x86_64 of make qemu-fuzz / make fuzz
#   tsan     build/qemu-tsan/   ThreadSanitizer, with gcc (make check-tsan)
# A variant is one more case below: its directory, its configure options
# (CONFIGURE_EXTRA, e.g. --cc=clang) and the ninja target (TARGET).
set -eu

QEMU_PKG_VERSION=1:10.0.13+ds-0+deb13u1
QEMU_DIR_NAME=qemu-10.0.13+ds

die() { echo "qemu-build: $*" >&2; exit 1; }

ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$ROOT/build
DL=$B/qemu-dl
SRC=$B/qemu-src

VARIANT=${QEMU_VARIANT:-}
CONFIGURE_EXTRA=
TARGET=qemu-system-x86_64
case $VARIANT in
    '') OBJ=$B/qemu ;;
    asan)
        OBJ=$B/qemu-asan
        CONFIGURE_EXTRA="--enable-asan --enable-ubsan"
        ;;
    tsan)
        OBJ=$B/qemu-tsan
        CONFIGURE_EXTRA="--enable-tsan"
        ;;
    fuzz)
        OBJ=$B/qemu-fuzz
        CONFIGURE_EXTRA="--cc=clang-14 --cxx=clang++-14 --enable-fuzzing
            --enable-asan --enable-ubsan"
        TARGET=qemu-fuzz-x86_64
        ;;
    *) die "unknown QEMU_VARIANT '$VARIANT' (known: asan, tsan, fuzz; unset for the plain build)" ;;
esac
OBJ_NAME=build/${OBJ#"$B"/}
mkdir -p "$B"

# Steps 1-3 change the shared source tree: one variant at a time.
exec 9>"$B/.qemu-src.lock"
flock 9

# 1. Source: fetch and unpack once.
if [ ! -e "$SRC/.nvmimic-unpacked" ]; then
    command -v apt-get >/dev/null || die "apt-get not found; run 'make deps' on Debian"
    apt-cache showsrc qemu 2>/dev/null | grep -qx "Version: $QEMU_PKG_VERSION" ||
        die "pinned source qemu $QEMU_PKG_VERSION is no longer served by the configured trixie deb-src suites (run 'make deps'; if it still fails, the pin in scripts/qemu-build.sh needs moving)"
    rm -rf "$DL" "$SRC"
    mkdir -p "$DL"
    echo "qemu-build: fetching Debian source qemu $QEMU_PKG_VERSION"
    (cd "$DL" && apt-get source -qq --download-only "qemu=$QEMU_PKG_VERSION" 2>&1 |
        grep -v 'Download is performed unsandboxed' || true)
    dsc=$(ls "$DL"/qemu_*.dsc 2>/dev/null | head -n 1)
    [ -n "$dsc" ] || die "apt-get source qemu=$QEMU_PKG_VERSION downloaded nothing"
    # apt has checked the files' hashes against the archive's signed Sources
    # index; dpkg-source checks them against the .dsc (the uploader's own
    # signature can only be checked with debian-keyring, which we do not
    # install, so its "no public key" notice goes to the log).
    echo "qemu-build: unpacking with Debian's patches"
    (cd "$DL" && dpkg-source -x "$dsc" "$SRC" >"$DL/unpack.log" 2>&1) || {
        tail -n 5 "$DL/unpack.log" >&2
        die "dpkg-source could not verify or unpack $dsc (log: build/qemu-dl/unpack.log)"
    }
    touch "$SRC/.nvmimic-unpacked"
fi

# 2. Our patch series.  The applied copy is kept, so a changed series is
#    reverted and re-applied; files no patch touches keep their mtimes, and
#    so does a patched file that comes out as it was (a patch added at the
#    end then rebuilds what it changes, not what the whole series touches).
APPLIED=$SRC/.nvmimic-patches
new_sum=$(cat "$ROOT"/qemu/patches/*.patch 2>/dev/null | sha256sum | cut -d' ' -f1)
old_sum=$(cat "$APPLIED"/*.patch 2>/dev/null | sha256sum | cut -d' ' -f1)
if [ "$new_sum" != "$old_sum" ]; then
    keep=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-patched.XXXXXX")
    if [ -d "$APPLIED" ]; then
        for f in $(sed -n 's|^+++ b/||p' "$APPLIED"/*.patch 2>/dev/null | sort -u); do
            if [ -f "$SRC/$f" ]; then
                mkdir -p "$keep/$(dirname "$f")"
                cp -p "$SRC/$f" "$keep/$f"
            fi
        done
        for p in $(ls "$APPLIED"/*.patch 2>/dev/null | sort -r); do
            patch -s -R -p1 -d "$SRC" <"$p" || die "could not revert $(basename "$p")"
        done
    fi
    rm -rf "$APPLIED"
    mkdir -p "$APPLIED"
    for p in $(ls "$ROOT"/qemu/patches/*.patch 2>/dev/null | sort); do
        patch -s -p1 --no-backup-if-mismatch -d "$SRC" <"$p" ||
            die "qemu/patches/$(basename "$p") does not apply to $QEMU_DIR_NAME"
        cp "$p" "$APPLIED/"
    done
    (cd "$keep" && find . -type f) | while read -r f; do
        if cmp -s "$keep/$f" "$SRC/$f"; then touch -r "$keep/$f" "$SRC/$f"; fi
    done
    rm -rf "$keep"
fi

# 3. Overlay: each of our files is linked into hw/nvme/nvmimic/, a real
#    directory (so "../" means the same to meson, the compiler and the
#    kernel), and edits are seen directly: ninja rebuilds only what changed.
OV=$SRC/hw/nvme/nvmimic
[ -L "$OV" ] && rm -f "$OV"
mkdir -p "$OV"
find "$OV" -maxdepth 1 -type l ! -exec test -e {} \; -delete
for f in "$ROOT"/hw/*.c "$ROOT"/hw/*.h "$ROOT"/hw/meson.build \
         "$ROOT"/hw/trace-events \
         "$ROOT"/backends/*.c "$ROOT"/backends/*.h; do
    if [ -e "$f" ]; then ln -sfn "$f" "$OV/$(basename "$f")"; fi
done
ln -sfn "$ROOT/hw/qapi/nvmimic.json" "$SRC/qapi/nvmimic.json"
flock -u 9

# 4. Configure once (again if the options change).
CONFIGURE_ARGS="--target-list=x86_64-softmmu --python=/usr/bin/python3
    --disable-download --disable-install-blobs --disable-docs --disable-tools
    --disable-user --disable-guest-agent --disable-werror --disable-virtfs
    --enable-fdt=system --disable-rust $CONFIGURE_EXTRA"
args_now=$(echo $CONFIGURE_ARGS)
if [ ! -e "$OBJ/build.ninja" ] || [ "$(cat "$OBJ/.nvmimic-configure" 2>/dev/null)" != "$args_now" ]; then
    rm -rf "$OBJ"
    mkdir -p "$OBJ"
    echo "qemu-build: configuring ($args_now)"
    (cd "$OBJ" && "$SRC/configure" $CONFIGURE_ARGS >configure.log 2>&1) || {
        tail -n 20 "$OBJ/configure.log" >&2
        die "configure failed; full log in $OBJ_NAME/configure.log"
    }
    echo "$args_now" >"$OBJ/.nvmimic-configure"
fi

# 5. Build.
echo "qemu-build: building $TARGET${VARIANT:+ (variant $VARIANT)}"
ninja -C "$OBJ" "$TARGET" ||
    die "build failed; see the errors above (tree: build/qemu-src, objects: $OBJ_NAME)"
# The nvmimic commit the binary was built from ("-dirty" when tracked files
# differed), for what reads it later (qemu-fuzz.sh's stats rows): the same
# rule the fuzzing rows use (scripts/fuzz-stats.sh).
. "$ROOT/scripts/fuzz-stats.sh"
fuzz_commit >"$OBJ/nvmimic-commit"
echo "qemu-build: ok: $OBJ_NAME/$TARGET"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bql-holders.sh: who holds the BQL when the timing thread waits for it.
# The timing thread posts a completion under the BQL; at 1,000-2,000 IOPS
# its wait for the lock is most of its lateness's 99th percentile
# (docs/realtime.md).  This applies bench/diag/bql-holders.patch to QEMU's
# tree (build/qemu-src), builds build/qemu, runs bench/lateness.sh (timing
# thread only) with NVM_DIAG_BQL=1, reverts the patch and builds again, and
# sums up per rate:
#   - the timing thread's waits over 5 us, by the place the holder took the
#     BQL (file:line; for a vCPU's MMIO access, the MemoryRegion);
#   - every BQL hold over 8 us, by place: count and mean;
#   - the NVMe I/O submission in the doorbell write: QEMU's command (the
#     block layer call included) and nvmimic's part, and the block layer's
#     read call alone, wall and CPU time.
# Each hold and wait is one line on QEMU's stderr, so the figures include
# the cost of writing them (a few us per line on this host).
#
# usage: bench/bql-holders.sh [--rates R,R,...] [--seconds S]
#            [--device-opts ,K=V...]
# Defaults: 1000,2000 IOPS, 5 s, ',timing-fifo=on,timing-poll-us=100000'.
# Needs build/qemu (make qemu) and the guest (make guest); takes a few
# minutes (two incremental QEMU builds and the guests).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
rates=1000,2000 secs=5 devopts=,timing-fifo=on,timing-poll-us=100000
while [ $# -gt 0 ]; do
    case $1 in
        --rates) rates=$2; shift 2 ;;
        --seconds) secs=$2; shift 2 ;;
        --device-opts) devopts=$2; shift 2 ;;
        *) echo "bql-holders: unknown option $1 (see the header)" >&2; exit 2 ;;
    esac
done
src=$root/build/qemu-src
obj=$root/build/qemu
patchf=$here/diag/bql-holders.patch
[ -d "$src" ] && [ -f "$obj/build.ninja" ] ||
    { echo "bql-holders: no QEMU build in build/qemu (make qemu first)" >&2; exit 2; }
(cd "$src" && patch -p1 -N --dry-run -s <"$patchf" >/dev/null) ||
    { echo "bql-holders: $patchf does not apply to build/qemu-src (already applied?)" >&2; exit 2; }
keep=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-bql.XXXXXX")
build() {
    ninja -C "$obj" qemu-system-x86_64 >"$keep/build.log" 2>&1 ||
        { tail -20 "$keep/build.log" >&2; return 1; }
}
restore() {
    (cd "$src" && patch -p1 -R -s <"$patchf") && build ||
        echo "bql-holders: could not revert the patch; run: cd build/qemu-src && patch -p1 -R < bench/diag/bql-holders.patch" >&2
    rm -rf "$keep"
}
(cd "$src" && patch -p1 -s <"$patchf")
trap restore EXIT
build
NVM_DIAG_BQL=1 sh "$here/lateness.sh" --paths on --rates "$rates" \
    --seconds "$secs" --device-opts "$devopts" --keep "$keep" |
    sed -n '/^ *rate/,/^{/p' | sed '$d'
for r in $(echo "$rates" | tr , ' '); do
    log=$keep/res-$r-on/qemu.log
    [ -f "$log" ] || { echo "bql-holders: no QEMU log for $r IOPS" >&2; continue; }
    echo
    echo "$r IOPS: the timing thread's waits over 5 us, by where the holder took the BQL"
    awk '$1 == "NVMWAIT" { k = $5 " " $7; n[k]++; w[k] += $2; t++ }
         END { for (k in n) printf "  %6d  mean %6.1f us  %s\n", n[k], w[k] / n[k], k
               if (!t) print "  none" }' "$log" | sort -k1,1nr | head -8
    echo "$r IOPS: BQL holds over 8 us, by where it was taken (count, mean)"
    awk '$1 == "NVMHOLD" { k = $4 " " $6; n[k]++; w[k] += $2 }
         END { for (k in n) printf "  %6d  mean %7.1f us  %s\n", n[k], w[k] / n[k], k }' \
        "$log" | sort -k1,1nr | head -8
    echo "$r IOPS: I/O submission in the doorbell write (mean us)"
    awk '$1 == "NVMSUB" { n++; c += $3; v += $6 }
         $1 == "NVMBLK" { b++; bw += $3; bc += $6 }
         END { if (n) printf "  %d commands: QEMU command %.1f, nvmimic %.1f\n", n, c / n, v / n
               if (b) printf "  %d reads: the block layer call %.1f wall, %.1f CPU\n", b, bw / b, bc / b }' "$log"
done

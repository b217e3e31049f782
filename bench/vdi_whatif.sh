#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vdi_whatif.sh [sizes-x1.6|sizes-x2|sizes-dell-pvs] [sync] [e13t-fifo]: bench/vdi_five.sh on
# copies of harness/workloads/ and profiles/ with docs/vdi.md's what-ifs
# ("What the five figures say about each other"); nothing shipped changes.
#   sizes-x1.6  the two login job files' transfers larger: every 4 KiB one
#               8 KiB, every other size 1.5 times (reads and writes average
#               1.55-1.62 times the files' sizes)
#   sizes-x2    every login transfer size doubled
#   sizes-dell-pvs  both login files' reads 16k/55:32k/45 (23.2 KiB) and
#               writes 4k/75:8k/25 (5 KiB): the mean sizes of the login storm
#               Dell measured on Citrix PVS write-cache volumes (BP1018,
#               Table 7: reads 23 KB, writes 5 KB); the files' mixes kept
#   sync        sync=1 in the three job files: every write FUA (write-through)
#   e13t-fifo   die-queue-fifo = true in the Phison E13T's part file alone
#               (the P2s' die operations in arrival order)
# Environment: as bench/vdi_five.sh (DUR, SEED).
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r harness/workloads "$tmp/workloads"
cp -r profiles "$tmp/profiles"
initial=$tmp/workloads/vdi-initial-login.fio
monday=$tmp/workloads/vdi-monday-login.fio
for arg in "$@"; do
    case $arg in
    sizes-x1.6)
        small=8k/60:12k/20:24k/10:48k/5:96k/5
        large=8k/45:12k/15:24k/15:48k/10:96k/15 ;;
    sizes-x2)
        small=8k/60:16k/20:32k/10:64k/5:128k/5
        large=8k/45:16k/15:32k/15:64k/10:128k/15 ;;
    sizes-dell-pvs)
        sed -i 's#^bssplit=.*#bssplit=16k/55:32k/45,4k/75:8k/25#' "$initial" "$monday"
        continue ;;
    sync)
        for f in "$tmp"/workloads/vdi-*.fio; do echo sync=1 >>"$f"; done
        continue ;;
    e13t-fifo)
        e13t=$tmp/profiles/parts/controller/phison-e13t.ini
        grep -q '^die-queue-fifo' "$e13t" && {
            echo "vdi_whatif: $e13t already sets die-queue-fifo" >&2; exit 2; }
        sed -i 's/^\[controller\]$/[controller]\ndie-queue-fifo = true/' "$e13t"
        continue ;;
    *)
        echo "vdi_whatif: unknown what-if '$arg' (sizes-x1.6, sizes-x2, sizes-dell-pvs, sync, e13t-fifo)" >&2
        exit 2 ;;
    esac
    # the initial login reads small and writes large, the Monday login the reverse
    sed -i "s#^bssplit=.*#bssplit=$small,$large#" "$initial"
    sed -i "s#^bssplit=.*#bssplit=$large,$small#" "$monday"
done
NVMIMIC_WORKLOAD_DIR=$tmp/workloads NVMIMIC_PROFILE_DIR=$tmp/profiles \
    sh bench/vdi_five.sh

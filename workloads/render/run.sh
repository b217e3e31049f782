#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Job for nvmimic's initramfs guest (vm-images/run-guest.sh, e.g. --mem 256M):
# swap on the emulated drive, then the render program (render.c, built static
# and copied into the job directory as ./render).  The packed points live on
# the same drive, after the swap area, so loading them reads the drive too.
#
# Optional ./render.conf (sourced): SWAP_MB (default 2048), RAM_FACTOR (1.5),
# THREADS (default: guest CPUs), DEV (/dev/nvme0n1).
# Results: $RESULTS/render.json, $RESULTS/swap.txt (swap and vmstat counters).
set -eu
SWAP_MB=2048; RAM_FACTOR=1.5; THREADS=""; DEV=/dev/nvme0n1
[ -f ./render.conf ] && . ./render.conf
RESULTS=${RESULTS:-/results}
[ -b "$DEV" ] || { echo "render: $DEV is not a block device" >&2; exit 2; }
[ -x ./render ] || { echo "render: ./render missing from the job" >&2; exit 2; }

mkswap "$DEV" $((SWAP_MB * 1024))
swapon "$DEV"
grep -E '^(MemTotal|SwapTotal)' /proc/meminfo
grep -E '^(pswpin|pswpout)' /proc/vmstat >"$RESULTS/swap-before.txt"
set -- --file "$DEV" --offset $((SWAP_MB * 1048576)) --ram-factor "$RAM_FACTOR" --drop-caches
[ -n "$THREADS" ] && set -- "$@" --threads "$THREADS"
rc=0
./render "$@" >"$RESULTS/render.json" || rc=$?
cat "$RESULTS/render.json"
{ cat /proc/swaps; grep -E '^(pswpin|pswpout)' /proc/vmstat; } >"$RESULTS/swap.txt"
swapoff "$DEV" || true
exit "$rc"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Job for nvmimic's initramfs guest (vm-images/run-guest.sh, e.g. --mem 384M):
# swap on the emulated drive, then the render program (render.c, built static
# and copied into the job directory as ./render).  The packed points live on
# the same drive, after the swap area, so loading them reads the drive too.
#
# Optional ./render.conf (sourced): SWAP_MB (default 2048), RAM_FACTOR (1.5),
# THREADS (default: guest CPUs), DEV (/dev/nvme0n1).
# Results: $RESULTS/render.json, $RESULTS/swap.txt (swap and vmstat counters),
# $RESULTS/render-job.json: {"result": render.json, "swap": {"pswpin": pages,
# "pswpout": pages}} (pages swapped in and out during the run).
set -eu
SWAP_MB=2048; RAM_FACTOR=1.5; THREADS=""; DEV=/dev/nvme0n1
[ -f ./render.conf ] && . ./render.conf
RESULTS=${RESULTS:-/results}
[ -b "$DEV" ] || { echo "render: $DEV is not a block device" >&2; exit 2; }
[ -x ./render ] || { echo "render: ./render missing from the job" >&2; exit 2; }

# The working array is RAM_FACTOR x the RAM available now.  Linux refuses to
# open an active swap device for writing (ETXTBSY), so the packed file is
# written first, and read back once swap is on.
points=$(awk -v f="$RAM_FACTOR" '/^MemAvailable:/ { printf "%d", $2 * 1024 * f / 32 }' /proc/meminfo)
set -- --file "$DEV" --offset $((SWAP_MB * 1048576)) --points "$points"
./render "$@" --generate-only
mkswap "$DEV" $((SWAP_MB * 1024))
swapon "$DEV"
grep -E '^(MemTotal|MemAvailable|SwapTotal)' /proc/meminfo
grep -E '^(pswpin|pswpout)' /proc/vmstat >"$RESULTS/swap-before.txt"
set -- "$@" --no-generate --drop-caches
[ -n "$THREADS" ] && set -- "$@" --threads "$THREADS"
rc=0
./render "$@" >"$RESULTS/render.json" || rc=$?
cat "$RESULTS/render.json"
{ cat /proc/swaps; grep -E '^(pswpin|pswpout)' /proc/vmstat; } >"$RESULTS/swap.txt"
if [ "$rc" -eq 0 ]; then
    swap=$(grep -E '^(pswpin|pswpout)' /proc/vmstat | awk '
        NR == FNR { before[$1] = $2; next }
        { printf "%s\"%s\": %d", sep, $1, $2 - before[$1]; sep = ", " }
    ' "$RESULTS/swap-before.txt" -)
    printf '{"result": %s, "swap": {%s}}\n' "$(cat "$RESULTS/render.json")" "$swap" \
        >"$RESULTS/render-job.json"
fi
swapoff "$DEV" || true
exit "$rc"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vdi_five.sh [SECTION KEY VALUE]...: the five VDI calibration peaks of
# profiles/reviews/vdi-calibration.tsv through build/bench/vdi-probe, with
# the given profile values replaced (a what-if: nothing is written), each
# against the review's figure.  One line per peak: the model's IOPS and mean
# latency with their errors, the read and write split, the dies' share.
# Environment: DUR (simulated s per peak, default 30, as `nvmimic sim`),
# SEED (default 1), NVMIMIC_WORKLOAD_DIR (job files, default
# harness/workloads).  docs/vdi.md has what it was used for.
set -eu
cd "$(dirname "$0")/.."
probe=build/bench/vdi-probe
[ -x "$probe" ] || { echo "vdi_five: $probe is missing: run 'ninja -C build'" >&2; exit 2; }
tsv=profiles/reviews/vdi-calibration.tsv
grep -v '^#' "$tsv" | tail -n +2 | while IFS="$(printf '\t')" read -r drive work iops lat _; do
    lat=${lat#\~}
    out=$(nice -n 19 "$probe" "$drive" "$work" "${DUR:-30}" "$@" 2>&1 | head -n 1)
    echo "$out" | awk -v ri="$iops" -v rl="$lat" -v k="$drive/$work" '
        /IOPS/ { iops = $4; lat = $6; r = $0; sub(/.*\(R /, "", r); sub(/\).*/, "", r)
                 printf "%-36s %7.0f IOPS %+6.1f%%  %7.1f us %+6.1f%%  [R/W: %s] dies %s\n",
                        k, iops, 100 * (iops / ri - 1), lat, 100 * (lat / rl - 1), r, $NF; next }
        { print k ": " $0; exit 1 }'
done

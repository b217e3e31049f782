#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vdi_five.sh [SECTION KEY VALUE]...: the five VDI calibration peaks of
# profiles/reviews/vdi-calibration.tsv through build/bench/vdi-probe, with
# the given profile values replaced (a what-if: nothing is written), each
# against the review's figure.  One line per peak: the model's IOPS and mean
# latency with their errors, the read and write split, the dies' share; then
# the figures' ratios to each other, the model's against the review's
# (bench/vdi_ratios.py: the ratios the traces' unknown sizes cancel from).
# Environment: DUR (simulated s per peak, default 30, as `nvmimic sim`),
# SEED (default 1), NVMIMIC_WORKLOAD_DIR (job files, default
# harness/workloads).  docs/vdi.md has what it was used for.
set -eu
cd "$(dirname "$0")/.."
probe=build/bench/vdi-probe
[ -x "$probe" ] || { echo "vdi_five: $probe is missing: run 'ninja -C build'" >&2; exit 2; }
tsv=profiles/reviews/vdi-calibration.tsv
lines=$(mktemp)
trap 'rm -f "$lines"' EXIT
grep -v '^#' "$tsv" | tail -n +2 | while IFS="$(printf '\t')" read -r drive work iops lat _; do
    lat=${lat#\~}
    out=$(nice -n 19 "$probe" "$drive" "$work" "${DUR:-30}" "$@" 2>&1) || true
    f=$(echo "$out" | python3 bench/probe_line.py iops lat_us read_iops read_lat_us \
        write_iops write_lat_us write_mbps dies) || exit 1
    echo "$f" | awk -F '\t' -v ri="$iops" -v rl="$lat" -v k="$drive/$work" '
        { printf "%-36s %7.0f IOPS %+6.1f%%  %7.1f us %+6.1f%%  [R/W: %.0f IOPS %.1f us, W %.0f IOPS %.1f us, %.1f MB/s W] dies %.2f\n",
                 k, $1, 100 * ($1 / ri - 1), $2, 100 * ($2 / rl - 1), $3, $4, $5, $6, $7, $8 }'
done >"$lines" || { cat "$lines"; exit 1; }
cat "$lines"
python3 bench/vdi_ratios.py <"$lines"

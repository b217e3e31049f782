#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vdi_routes.sh: every what-if docs/vdi.md tried on the five VDI calibration
# figures, rerun on today's model, one line each: the five IOPS / latency
# errors against profiles/reviews/vdi-calibration.tsv and how many of the
# five are within issue 28's bounds (IOPS 15 %, latency 20 %).  Each route is
# bench/vdi_five.sh with profile values replaced or bench/vdi_whatif.sh with
# copied job files; nothing shipped changes.  Environment: as vdi_five.sh
# (DUR, SEED).  docs/vdi.md, "Every route to the five, on one model", has
# the table and what each route would add.
set -eu
cd "$(dirname "$0")/.."
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# route NAME SCRIPT [ARGS...]: one line for the route
route() {
    name=$1
    shift
    sh "$@" >"$out" 2>&1 || { cat "$out" >&2; exit 1; }
    # vdi_five.sh's peak lines: KEY IOPS "IOPS" ERR% LAT "us" ERR% ...
    grep '^crucial-[^ ]*/vdi-' "$out" | awk -v name="$name" '
        { i = $4 + 0; l = $7 + 0
          e = e sprintf(" %+.1f/%+.1f", i, l)
          if (i < 0) i = -i
          if (l < 0) l = -l
          if (i <= 15 && l <= 20) n++ }
        END { printf "%-42s%s  within: %d of %d\n", name, e, n, NR }'
}

echo "route: IOPS/latency error, %: P2 500 GB boot, initial, Monday; P5 1 TB initial, Monday"
route "shipped" bench/vdi_five.sh
route "login sizes x1.6" bench/vdi_whatif.sh sizes-x1.6
route "login sizes x1.6, E13T in arrival order" bench/vdi_whatif.sh sizes-x1.6 e13t-fifo
route "E13T in arrival order" bench/vdi_whatif.sh e13t-fifo
route "login sizes of Dell's PVS login storm" bench/vdi_whatif.sh sizes-dell-pvs
route "every write FUA (sync=1)" bench/vdi_whatif.sh sync
route "both controllers in arrival order" bench/vdi_five.sh controller die-queue-fifo true
route "span 10 %" bench/vdi_five.sh review span-pct 10
route "both in arrival order, span 10 %" bench/vdi_five.sh controller die-queue-fifo true \
    review span-pct 10
route "resume costs 300 us" bench/vdi_five.sh nand resume-us 300
route "no program suspend" bench/vdi_five.sh nand program-suspend false
route "map checkpoint every 8 MiB" bench/vdi_five.sh map checkpoint-bytes 8388608

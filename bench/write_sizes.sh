#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# write_sizes.sh [SECTION KEY VALUE]...: what one filled drive's writes
# drain at, by size and order, on the state of the VDI peaks (the span in
# its random-write steady state), through build/bench/vdi-probe.  Four
# write-only jobs, each closed-loop at 30 outstanding as the initial login:
# 4 KiB random, the initial login's write sizes (random, then 80 % random as
# its job file), 64 KiB random, and 64 KiB sequential at 8 outstanding (the
# four-corners row).  One line per drive and job: IOPS, MB/s, the dies'
# share, write amplification and the writes' wait for the core.  The given
# profile values are replaced (a what-if: nothing is written).
# Environment: DRIVES (default "crucial-p2-500g crucial-p5-1tb"), DUR
# (simulated s, default 30), SEED (default 1).  docs/vdi.md, "One write
# rate or two", has what it was used for.
set -eu
cd "$(dirname "$0")/.."
probe=build/bench/vdi-probe
[ -x "$probe" ] || { echo "write_sizes: $probe is missing: run 'ninja -C build'" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sizes='4k/45:8k/15:16k/15:32k/10:64k/15'

# job NAME BODY: a workload directory whose vdi-boot.fio is the job BODY
# (vdi-probe reads all three job files; the logins are copied unchanged)
job() {
    mkdir "$tmp/$1"
    cp harness/workloads/vdi-initial-login.fio harness/workloads/vdi-monday-login.fio "$tmp/$1/"
    printf '[global]\nioengine=libaio\ndirect=1\nfilename=/dev/nvme0n1\n\n[vdi-boot]\n%s\n' \
        "$2" >"$tmp/$1/vdi-boot.fio"
}
job 4k-random "rw=randwrite
bs=4k
iodepth=15
numjobs=2"
job login-sizes-random "rw=randwrite
bssplit=$sizes
iodepth=15
numjobs=2"
job login-sizes-80pct "rw=randwrite
percentage_random=80
bssplit=$sizes
iodepth=15
numjobs=2"
job 64k-random "rw=randwrite
bs=64k
iodepth=15
numjobs=2"
job 64k-sequential "rw=write
bs=64k
iodepth=8
numjobs=1"

printf '%-16s %-19s %8s %8s %5s %5s %10s\n' drive job IOPS MB/s dies WA core-wait
for d in ${DRIVES:-crucial-p2-500g crucial-p5-1tb}; do
    for j in 4k-random login-sizes-random login-sizes-80pct 64k-random 64k-sequential; do
        NVMIMIC_WORKLOAD_DIR="$tmp/$j" nice -n 19 "$probe" "$d" vdi-boot "${DUR:-30}" "$@" \
            >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; exit 1; }
        f=$(python3 bench/probe_line.py iops write_mbps dies wa write_core_wait_us <"$tmp/out")
        echo "$f" | awk -F '\t' -v d="$d" -v j="$j" '
            { printf "%-16s %-19s %8.0f %8.1f %5.2f %5.2f %7.1f us\n", d, j, $1, $2, $3, $4, $5 }'
    done
done

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The guest's load generator (vm-images/nvmimic-load.c) on the host, on a
# file in the build tree (O_DIRECT, io_uring): compiled as build-guest.sh
# compiles it, then
#  - a single-operation curve and a --mix curve after --precondition both
#    finish (the precondition once waited forever for a completion after
#    the span's last one: every erased-drive run, the 670p's, hung there);
#  - the JSON has a job per phase, I/Os in each, the mix's "mixed" section
#    with its mean block size, and late_ns for the open-loop point;
#  - the mix with --sync (its writes RWF_DSYNC, FUA on a drive) finishes
#    with I/Os in each phase, and --sync without --mix is refused.
# usage: loadgen_host.sh SRCDIR WORKDIR
set -eu
src=$1
work=$2/loadgen-host
rm -rf "$work"
mkdir -p "$work"
cc -O2 -std=gnu11 -Wall -I"$src/harness/sim" -I"$src/backends" -o "$work/nvmimic-load" \
    "$src/vm-images/nvmimic-load.c" -luring -lm
img=$work/drive.img
truncate -s 64M "$img"
fail() { echo "loadgen_host: FAIL $*"; exit 1; }

timeout 60 "$work/nvmimic-load" --dev "$img" --rw randread --bs 4096 \
    --threads 4 --span 33554432 --precondition --seeds 1,2 \
    --ramp-ms 20 --run-ms 100 --points 50 --output "$work/single.json" ||
    fail "the single-operation curve after --precondition did not finish"
timeout 60 "$work/nvmimic-load" --dev "$img" \
    --mix 20,75,80,2,4,20000000,80000000 \
    --bssplit 4096/50:65536/50,4096/100 --span 33554432 --precondition \
    --seeds 3,4 --ramp-ms 20 --run-ms 400 --points 50 \
    --output "$work/mix.json" ||
    fail "the --mix curve after --precondition did not finish"
timeout 60 "$work/nvmimic-load" --dev "$img" \
    --mix 20,75,80,2,4,0,0 --bssplit 4096/100,4096/100 --sync \
    --span 33554432 --seeds 5,6 --ramp-ms 20 --run-ms 200 --points 50 \
    --output "$work/sync.json" ||
    fail "the --mix curve with --sync did not finish"
set +e
err=$("$work/nvmimic-load" --dev "$img" --rw randwrite --bs 4096 \
    --threads 1 --span 33554432 --run-ms 10 --sync 2>&1 >/dev/null)
rc=$?
set -e
[ "$rc" = 2 ] && [ "$err" = "nvmimic-load: --sync is for --mix (the job \
file's writes); a single-operation curve has no sync writes" ] ||
    fail "--sync without --mix: exit $rc, said '$err'"

python3 - "$work/single.json" "$work/mix.json" "$work/sync.json" <<'PY'
import json
import sys

single = json.load(open(sys.argv[1]))["jobs"]
mix = json.load(open(sys.argv[2]))["jobs"]
sync = json.load(open(sys.argv[3]))["jobs"]
assert len(sync) == 2, len(sync)
for j in sync:
    assert j["mixed"]["total_ios"] > 0, j
assert len(single) == 2 and len(mix) == 2, (len(single), len(mix))
for j in single:
    assert j["read"]["total_ios"] > 0, j
for j in mix:
    m = j["mixed"]
    assert m["total_ios"] > 0, j
    # 20 % reads of 4 or 64 KiB (34 KiB mean), 80 % writes of 4 KiB: a
    # mean of 10,240 B an I/O with a standard deviation of 18,432 B, so
    # the mean of n I/Os is 10,240 B give or take 4.5 standard errors
    # (a false failure once in 10^5 runs); 4 KiB alone (the split
    # ignored) or 64 KiB reads only would fall outside for n >= 200.
    n = m["total_ios"]
    mean = m["io_bytes"] / n
    tol = 4.5 * 18432 / n ** 0.5
    assert n >= 200, ("too few I/Os to judge the block split", n)
    assert abs(mean - 10240) < tol, (mean, 10240, tol, n)
assert mix[1]["late_ns"]["mean"] >= 0 and mix[1]["target_pct"] == 50
print("loadgen_host: ok (%d and %d I/Os at the mix's peak and 50 %%; "
      "%d and %d with --sync)"
      % (mix[0]["mixed"]["total_ios"], mix[1]["mixed"]["total_ios"],
         sync[0]["mixed"]["total_ios"], sync[1]["mixed"]["total_ios"]))
PY

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bad_input.sh NVMIMIC: `nvmimic run` refuses an unknown suite, profile, mode
# or workload, with exit status 2 and the list of valid ones, a TPC-C scale
# too big for the drive and out-of-range suite options, and a missing QEMU
# binary, guest or database guest with one line naming it; nothing boots.
set -u
nvmimic=$1
fails=0
expect() {  # expect RC PATTERN ARGS...
    local want=$1 pat=$2 out rc
    shift 2
    out=$("$nvmimic" run "$@" 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" != "$want" ] || ! grep -q -- "$pat" <<<"$out"; then
        echo "bad_input: FAIL 'nvmimic run $*': exit $rc (want $want), said: $out"
        fails=$((fails + 1))
    fi
}
expect 2 "unknown suite 'nope' (valid: four-corners, vdi, sql, render, seq, all, or a comma-separated list)" \
    --profile crucial-p5-2tb --suite nope
expect 2 "unknown suite 'sq'" --profile crucial-p5-2tb --suite vdi,sq
expect 2 "unknown workload 'x' (vdi-boot, vdi-initial-login, vdi-monday-login)" \
    --profile crucial-p5-2tb --suite vdi --workloads x --qemu /bin/true
expect 2 "4k-random-read, 4k-random-write, 64k-seq-read, 64k-seq-write, vdi-boot" \
    --profile crucial-p5-2tb --suite four-corners,vdi --workloads x --qemu /bin/true
# 500 GB hold 2,252 warehouses at the reviews' 222 MB each
expect 2 "--sql-warehouses 3000: the TPC-C database needs about 666 GB (222 MB a warehouse, the reviews' 333 GB for 1,500) but crucial-p2-500g holds 500 GB; use at most 2252 warehouses" \
    --profile crucial-p2-500g --suite all --sql-warehouses 3000 --qemu /bin/true
expect 2 "--sql-warehouses '0' must be a whole number in 1..1000000" --profile crucial-p5-2tb --suite sql --sql-warehouses 0
expect 2 "--sql-sample-s '-5' must be a whole number" --profile crucial-p5-2tb --suite sql --sql-sample-s -5
expect 2 "--sql-think-factor 'x' must be a number in (0, 100]" --profile crucial-p5-2tb --suite sql --sql-think-factor x
expect 2 "--render-mem-mib 64: the guest needs at least 128 MiB" --profile crucial-p5-2tb --suite render --render-mem-mib 64
expect 2 "--seq-mib 600000: more than half of crucial-p2-500g" --profile crucial-p2-500g --suite seq --seq-mib 600000 --qemu /bin/true
# an option for a suite the run does not include (it used to be ignored)
expect 2 "--sql-users is for --suite sql, which this run (--suite four-corners) does not include" --profile crucial-p2-500g --suite four-corners --sql-users 5 --qemu /bin/true
expect 2 "--points is for --suite four-corners or vdi, which this run (--suite sql,seq) does not include" --profile crucial-p2-500g --suite sql,seq --points 50 --qemu /bin/true
expect 2 "--render-ram-factor is for --suite render, which this run (--suite vdi) does not include" --profile crucial-p2-500g --suite vdi --render-ram-factor 1.5 --qemu /bin/true
expect 2 "--sqldb-dir is for --suite sql, which this run (--suite seq) does not include" --profile crucial-p2-500g --suite seq --sqldb-dir /tmp --qemu /bin/true
expect 2 "--device-trace /nonexistent-dir/t.trace: no directory /nonexistent-dir" --profile crucial-p2-500g --suite four-corners --device-trace /nonexistent-dir/t.trace --qemu /bin/true
expect 2 "--device-trace: one suite at a time (each suite has its own drive)" --profile crucial-p2-500g --suite vdi,seq --device-trace /tmp/t.trace --qemu /bin/true
expect 2 "--device-trace: an empty value" --profile crucial-p2-500g --suite four-corners --device-trace= --qemu /bin/true
expect 2 "--fault: not JSON" --profile crucial-p2-500g --suite seq --fault '{kind' --qemu /bin/true
expect 2 "--fault: fault 2 has no \"kind\"" --profile crucial-p2-500g --suite seq --fault '[{"kind": "hang"}, {"delay-ns": 5}]' --qemu /bin/true
expect 2 "--fault: fault 1: leave out \"id\"" --profile crucial-p2-500g --suite seq --fault '{"kind": "hang", "id": "x"}' --qemu /bin/true
expect 2 "--fault: fault 1: a power cut with \"machine\": true ends the run's QEMU" --profile crucial-p2-500g --suite seq --fault '{"kind": "power-cut", "machine": true}' --qemu /bin/true
expect 2 "--fault: a JSON object or an array of them" --profile crucial-p2-500g --suite seq --fault '7' --qemu /bin/true
expect 2 "--fio-opts: only the vdi suite's points run fio (the four corners run nvmimic-load)" --profile crucial-p2-500g --suite four-corners --fio-opts=--hipri --qemu /bin/true
expect 2 "valid profiles: crucial-p2-2tb, crucial-p2-500g, crucial-p5-1tb, crucial-p5-2tb, intel-670p-2tb" \
    --profile no-such-drive --suite four-corners
expect 2 "--mode 'fast' is not one of simtime, realtime" --profile crucial-p5-2tb --suite four-corners --mode fast
expect 2 "unknown workload 'x' (4k-random-read, 4k-random-write, 64k-seq-read, 64k-seq-write)" \
    --profile crucial-p5-2tb --suite four-corners --workloads x --qemu /bin/true
expect 2 "needs --suite" --profile crucial-p5-2tb
expect 2 "--points" --profile crucial-p5-2tb --suite four-corners --points 0
expect 2 "unknown option '--bogus'" --bogus 1
expect 1 "QEMU '/nonexistent/qemu' not found" --profile crucial-p5-2tb --suite four-corners --qemu /nonexistent/qemu
expect 1 "no guest in '/nonexistent'" --profile crucial-p5-2tb --suite four-corners --guest-dir /nonexistent
# the database guest is looked for when its suite starts: the run fails
# without booting anything and says what to build
t=$(mktemp -d)
expect 1 "no database guest: /nonexistent/dbguest.img is missing (build it with 'make dbguest'" \
    --profile crucial-p5-2tb --suite sql --dbguest-dir /nonexistent --qemu /bin/true --out "$t/r"
grep -q '"error" : "no database guest' "$t/r/results.json" ||
    { echo "bad_input: FAIL the sql app's error is not in results.json"; fails=$((fails + 1)); }
/usr/bin/python3 "$(dirname "$0")/../results/validate.py" "$t/r" ||
    { echo "bad_input: FAIL the failed run's results.json does not validate"; fails=$((fails + 1)); }
# sql: an unknown topology, a guest too small for PostgreSQL, a missing
# loaded database (named with the make target that builds it)
expect 2 "--sql-topology 'scsi' is not one of nvme, sas, virtio" \
    --profile crucial-p5-2tb --suite sql --sql-topology scsi --qemu /bin/true
expect 2 "--sql-mem-mib 200: too small for PostgreSQL with 20 users" \
    --profile crucial-p5-2tb --suite sql --sql-mem-mib 200 --qemu /bin/true
expect 2 "--sql-preset 'big' is not one of quick, mid, review" \
    --profile crucial-p5-2tb --suite sql --sql-preset big --qemu /bin/true
mkdir -p "$t/g"
: >"$t/g/dbguest.img"
expect 1 "no loaded database for W=20: $t/none/tpcc-w20.img is missing (build it with 'make sqldb SQL_W=20'" \
    --profile crucial-p5-2tb --suite sql --dbguest-dir "$t/g" --sqldb-dir "$t/none" \
    --qemu /bin/true --out "$t/r2"
/usr/bin/python3 "$(dirname "$0")/../results/validate.py" "$t/r2" ||
    { echo "bad_input: FAIL the sql run's results.json does not validate"; fails=$((fails + 1)); }
rm -rf "$t"
[ "$fails" = 0 ] && echo "bad_input: OK"
exit $((fails > 0))

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# conformance.sh QEMU DBGUEST_DIR PROFILE_DIR SUITE_DIR EXPECTED [RESULTS_JSON]
#
# nvme-cli's own test suite (SUITE_DIR: tests/ of Debian's nvme-cli source,
# fetched by scripts/nvme-cli-tests.sh) in one boot of the database guest,
# against six controllers at once: stock -device nvme (the baseline) and one
# per profile, each on a sparse raw file of its capacity (discard=unmap,
# detect-zeroes=unmap: the suite writes a few blocks).  The guest side is
# tests/vm/conformance/run_suite.py; the result of every test on every
# controller must be the one EXPECTED (tests/vm/conformance/expected.tsv)
# records, and where a test passes on stock but not on a profile the file
# must say why (what the real drive does).  RESULTS_JSON, if given, receives
# the guest's results (to write a new EXPECTED from).
set -eu
qemu=$1 dbguest=$2 profiles=$3 suite=$4 expected=$5 keep=${6:-}
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "conformance: FAIL $*"; exit 1; }
[ -x "$qemu" ] || fail "no QEMU at $qemu (make qemu)"
[ -f "$dbguest/dbguest.img" ] || fail "no database guest in $dbguest (make dbguest)"
[ -f "$suite/nvme_test.py" ] || fail "no nvme-cli test suite in $suite (make nvme-cli-tests)"

t=$(mktemp -d "${TMPDIR:-/var/tmp}/nvmimic-conf.XXXXXX")
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/job"
cp -r "$suite" "$t/job/tests"
cp "$here/conformance/run_suite.py" "$t/job/"
cat >"$t/job/run.sh" <<'EOS'
python3 run_suite.py "$RESULTS/conformance.json"
EOS

# stock first: it becomes /dev/nvme0; serials name the controllers
args=()
truncate -s 1G "$t/stock.raw"
args+=(-drive "file=$t/stock.raw,if=none,id=d0,format=raw,discard=unmap,detect-zeroes=unmap"
       -device "nvme,drive=d0,serial=stock")
i=1
for ini in "$profiles"/*.ini; do
    name=$(basename "$ini" .ini)
    cap=$(sed -n 's/^capacity-bytes *= *\([0-9]*\)$/\1/p' "$ini")
    [ -n "$cap" ] || fail "$ini: no capacity-bytes"
    truncate -s "$cap" "$t/$name.raw"
    args+=(-drive "file=$t/$name.raw,if=none,id=d$i,format=raw,discard=unmap,detect-zeroes=unmap"
           -device "nvme,drive=d$i,serial=$name,profile=$name")
    i=$((i + 1))
done

start=$(date +%s)
set +e
NVMIMIC_PROFILE_DIR=$profiles "$here/../../vm-images/run-guest.sh" --mem 1G \
    --append "root=LABEL=nvmimic-db rw init=/sbin/nvmimic-dbinit nvmimic.dbdev=none" \
    "$qemu" "$dbguest" "$t/job" "$t/results" 1500 \
    -drive "file=$dbguest/dbguest.img,if=virtio,format=raw,snapshot=on" "${args[@]}"
rc=$?
set -e
echo "conformance: guest run took $(( $(date +%s) - start )) s (exit $rc)"
[ -f "$t/results/conformance.json" ] ||
    { tail -n 30 "$t/results/console.log" 2>/dev/null; fail "the guest wrote no results"; }
[ -z "$keep" ] || cp "$t/results/conformance.json" "$keep"
used=$(du -sk "$t" | cut -f1)
echo "conformance: host space of the six sparse drives and the job: $used KiB"
python3 "$here/conformance/check.py" "$t/results/conformance.json" "$expected"

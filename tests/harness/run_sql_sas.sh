#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run_sql_sas.sh NVMIMIC: `nvmimic run --suite sql --quick --sql-topology sas`,
# the reviews' topology: the loaded database (make sqldb-quick) on scsi-hd
# behind an mptsas1068, timed by the profile through the nvmimic block filter.
# check_sql_sas.py checks that the sample completed, that the filter's
# statistics counted the database's reads, writes and flushes over it, and
# that the guest saw the device's latency plus its own part.  Needs the QEMU
# build and the database guest (make dbguest, make sqldb-quick).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
nvmimic=$1
out=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-sqlsas.XXXXXX")
trap 'rm -rf "$out"' EXIT
"$nvmimic" run --profile crucial-p2-2tb --suite sql --quick --sql-topology sas \
    --sql-precondition-s 0 --sql-sample-s 20 --out "$out/r" ||
    { echo "run_sql_sas: FAIL nvmimic run exited with $?"; exit 1; }
python3 "$here/check_sql_sas.py" "$out/r/results.json"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run_suites.sh NVMIMIC REWRITE: `nvmimic run --suite all --quick` at small
# scale on crucial-p2-2tb (VDI peaks of 2.6-35 K IOPS: below what one
# simulated vCPU issues), then `nvmimic report`; check_suites.py checks
# every suite's figures against the device's own and the report's
# sections; REWRITE (tests/results/rewrite.c) reads results.json with the
# one reader and writes it with the one writer: the same bytes, every
# application suite's figures included (tests/results/roundtrip.py).
# VDI points last 1.5 s, not --quick's 0.5 s: over 0.5 s this QLC drive's
# peak in a guest spread 2-2.5 times as widely as over the model's own
# seeds, so one guest run could not be held to their spread
# (check_suites.py says more).
# Needs the QEMU build, the guest and the database guest (make dbguest).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
nvmimic=$1
rewrite=$2
out=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-suites.XXXXXX")
trap 'rm -rf "$out"' EXIT
"$nvmimic" run --profile crucial-p2-2tb --suite all --quick --run-s 1.5 --points 50,100 \
    --seq-mib 256 --sql-precondition-s 0 --sql-sample-s 20 --out "$out/r" ||
    { echo "run_suites: FAIL nvmimic run exited with $?"; exit 1; }
"$nvmimic" report "$out/r" >/dev/null ||
    { echo "run_suites: FAIL nvmimic report exited with $?"; exit 1; }
python3 "$here/../results/roundtrip.py" "$rewrite" "$out/r" ||
    { echo "run_suites: FAIL results.json read and written back is not what run wrote"; exit 1; }
python3 "$here/check_suites.py" "$out/r" "$nvmimic"

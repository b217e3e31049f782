#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# collect-results.sh RESULTS_IMG OUT_DIR: copy what the Windows guest wrote to its results
# disk (MBR, FAT32 at 1 MiB, label NVMRESULTS) into OUT_DIR with mtools -- no mounting,
# no root -- and parse it into OUT_DIR/windows-results.json (parse_results.py; its own
# format, docs/windows-results.md: not nvmimic's results.json).
set -eu
me=collect-results
die() { echo "$me: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: collect-results.sh RESULTS_IMG OUT_DIR"
img=$1 dst=$2
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$img" ] || die "results disk '$img' not found"
command -v mcopy >/dev/null || die "mcopy not found: install mtools (make deps)"
export MTOOLS_SKIP_CHECK=1
label=$(mlabel -s -i "$img@@1M" :: 2>/dev/null | sed 's/^ *Volume label is *//; s/ *$//')
[ "$label" = NVMRESULTS ] || die "'$img' has no FAT volume NVMRESULTS at 1 MiB (label '$label')"
mkdir -p "$dst"
mcopy -s -n -o -i "$img@@1M" '::/*' "$dst/" 2>"$dst/.mcopy.err" ||
    die "nothing to copy from '$img' (did the guest finish?): $(head -n 1 "$dst/.mcopy.err")"
rm -f "$dst/.mcopy.err"
[ -f "$dst/rc" ] || die "results came back without rc (the agent did not finish)"
rc=$(tr -d '\r\n ' <"$dst/rc")
"$here/parse_results.py" dir "$dst" >"$dst/windows-results.json" ||
    die "cannot parse the results in $dst"
echo "$me: guest job status $rc; $(ls "$dst" | wc -l) files; parsed into $dst/windows-results.json"
[ "$rc" = 0 ] || { echo "$me: the guest reported: $(cat "$dst/error.txt" 2>/dev/null)" >&2; exit 1; }

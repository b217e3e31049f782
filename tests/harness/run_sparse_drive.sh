#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run_sparse_drive.sh NVMIMIC: the sparse backing file `nvmimic run` makes for
# the render suite is opened with discard=unmap,detect-zeroes=unmap, so that a
# guest's Format, Write Zeroes or Deallocate punches holes instead of filling
# the host's disk (tests/device/test_caps_nvme.py checks what those options
# do).  QEMU here is a stand-in that records its arguments and exits.
set -eu
nvmimic=$1
out=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-runsp.XXXXXX")
trap 'rm -rf "$out"' EXIT
fail() { echo "run_sparse_drive: FAIL $*"; exit 1; }

cat >"$out/qemu" <<EOS
#!/bin/sh
printf '%s\n' "\$@" >>"$out/args"
exit 1
EOS
chmod +x "$out/qemu"
NVMIMIC_ACCEL=tcg "$nvmimic" run --profile crucial-p2-500g --suite render \
    --quick --qemu "$out/qemu" --out "$out/r" >"$out/run.out" 2>&1 || true
[ -f "$out/args" ] || { cat "$out/run.out"; fail "QEMU was never started"; }
drive=$(grep -A1 -x -- -blockdev "$out/args" | grep 'node-name=nvmdisk' | head -n 1)
[ -n "$drive" ] || { cat "$out/args"; fail "no -blockdev for the drive"; }
case $drive in
    *driver=raw*discard=unmap*detect-zeroes=unmap*file.driver=file*) ;;
    *) fail "the drive's backing is opened as '$drive'" ;;
esac
echo "PASS: run's sparse drive: $drive"

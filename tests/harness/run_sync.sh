#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run_sync.sh NVMIMIC WORKLOADS: a VDI job file with sync=1 (every write
# FUA, as nvmimic sim's mix issues the model's) is run in the guest by
# nvmimic-load --sync; the same file without it by nvmimic-load without.
# QEMU here is a stand-in that keeps the job it was given (the tar on the
# nvmimic-job drive) and exits, so nothing boots: the guest's command line
# is read from the job's plan.
set -eu
nvmimic=$1 workloads=$2
out=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-runsync.XXXXXX")
trap 'rm -rf "$out"' EXIT
fail() { echo "run_sync: FAIL $*"; exit 1; }

cat >"$out/qemu" <<EOS2
#!/bin/sh
for a in "\$@"; do
    case \$a in
        file=*,id=nvmimic-job,*) f=\${a#file=}; cp "\${f%%,if=*}" "$out/job.tar" ;;
    esac
done
exit 1
EOS2
chmod +x "$out/qemu"
mkdir "$out/guest"
: >"$out/guest/vmlinuz"
: >"$out/guest/initramfs.cpio.gz"

# The guest's nvmimic-load line for vdi-monday-login.fio with EXTRA
# appended to the job file, into $out/NAME/line
load_line() {   # load_line NAME EXTRA
    local d=$out/$1
    mkdir -p "$d/wl"
    cp "$workloads"/vdi-*.fio "$d/wl/"
    printf '%s\n' "$2" >>"$d/wl/vdi-monday-login.fio"
    rm -f "$out/job.tar"
    NVMIMIC_ACCEL=tcg NVMIMIC_WORKLOAD_DIR=$d/wl "$nvmimic" run \
        --profile crucial-p2-500g --suite vdi --workloads vdi-monday-login \
        --quick --points 50 --qemu "$out/qemu" --guest-dir "$out/guest" \
        --out "$d/r" >"$d/run.out" 2>&1 || true
    [ -f "$out/job.tar" ] ||
        { cat "$d/run.out"; fail "$1: QEMU was never started with a job"; }
    mkdir "$d/job"
    tar -xf "$out/job.tar" -C "$d/job"
    grep -o 'nvmimic-load --dev [^"]*' "$d/job/plan" | head -n 1 |
        sed 's/ --output $//' >"$d/line"
}

load_line sync 'sync=1'
load_line plain 'sync=0'
sync=$(cat "$out/sync/line")
plain=$(cat "$out/plain/line")
case $sync in
    *' --mix '*' --sync '*) ;;
    *) fail "sync=1: the load generator was run as '$sync'" ;;
esac
case $plain in
    *' --mix '*) ;;
    *) fail "sync=0: no --mix in '$plain'" ;;
esac
case $plain in
    *--sync*) fail "sync=0: the load generator was run as '$plain'" ;;
esac
echo "PASS: run gives the load generator --sync for sync=1: $sync"

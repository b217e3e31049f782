#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# nvmimic run --connect against Debian's libvirtd on this host: one workload
# (64k-seq-read, peak + 10 % + 100 %, --quick, simtime) as a libvirt domain,
# QMP through virDomainQemuMonitorCommand; results.json has run's schema
# (tests/harness/check_run.py), "connect", and the device's columns; the
# domain is gone afterwards.  Then bad input: an unknown URI scheme, an
# unreachable URI, a host without the named QEMU, a missing guest image --
# one line each naming what is missing, nonzero status.
#
# usage: run_connect.sh NVMIMIC
set -u
nvmimic=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/libvirtd.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
t0=$(date +%s)
work=$(mktemp -d /tmp/nvmimic-lvrun.XXXXXX)
cleanup() { lv_down; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
lv_up

"$nvmimic" run --profile crucial-p5-2tb --suite four-corners --quick \
    --workloads 64k-seq-read --points 10,100 --connect "$LV_URI" \
    --out "$work/r" >"$work/run.log" 2>&1 ||
    fail "nvmimic run --connect exited with $?: $(tail -n 3 "$work/run.log")"
python3 "$here/../harness/check_run.py" "$work/r" 2 || fail "results.json (above)"
python3 - "$work/r/results.json" "$LV_URI" <<'PY' || fail "results.json of run --connect"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["connect"] == sys.argv[2], d["connect"]
assert d["complete"] is True and d["error"] is None, (d["complete"], d["error"])
assert d["accel"] == "tcg icount", d["accel"]
w = d["workloads"][0]
for p in [w["peak"]] + w["curve"]:
    for k in ("host_iops", "host_lat_us", "host_p99_us", "host_interval_s"):
        assert isinstance(p[k], (int, float)) and p[k] > 0, (k, p[k])
print(f"ok: results.json: connect {d['connect']}, device {w['peak']['host_iops']:.0f} "
      f"IOPS at the peak, {d['wall_s']:.0f} s wall")
PY
[ -s "$work/r/guest/console.log" ] && [ -f "$work/r/guest/64k-seq-read-peak.json" ] ||
    fail "the guest's console log and fio output are not in $work/r/guest"
left=$(virsh -q -c "$LV_URI" list --all --name | grep '^nvmimic-run-')
[ -z "$left" ] || fail "domains left defined after the run: $left"
echo "ok: run --connect $LV_URI, domain destroyed and undefined ($(($(date +%s) - t0)) s)"

# bad input: one line, naming what is missing and where
bad() {     # bad EXPECTED_STATUS PATTERN ARGS...
    local want=$1 pat=$2 rc n
    shift 2
    "$nvmimic" run --profile crucial-p5-2tb --suite four-corners --quick \
        --workloads 64k-seq-read --points 10 --out "$work/bad" "$@" \
        >"$work/bad.out" 2>"$work/bad.err"
    rc=$?
    n=$(grep -c 'nvmimic run: ' "$work/bad.err")
    [ "$rc" = "$want" ] || fail "$* exited $rc, not $want: $(cat "$work/bad.err")"
    [ "$n" = 1 ] || fail "$*: $n error lines, not 1: $(cat "$work/bad.err")"
    grep -q -- "$pat" "$work/bad.err" || fail "$*: no '$pat' in: $(cat "$work/bad.err")"
    echo "ok: $* -> $(grep 'nvmimic run: ' "$work/bad.err")"
}
bad 2 "unknown URI scheme 'xen'" --connect xen:///system
bad 2 "not a libvirt URI" --connect localhost
bad 3 "cannot reach libvirt at qemu+unix:///system?socket=/nonexistent/sock" \
    --connect 'qemu+unix:///system?socket=/nonexistent/sock'
bad 3 "host $LV_URI has no usable QEMU at /nonexistent/qemu-system-x86_64" \
    --connect "$LV_URI" --qemu /nonexistent/qemu-system-x86_64
bad 1 "no guest in '/nonexistent/guest'" --connect "$LV_URI" --guest-dir /nonexistent/guest
echo "ok: whole test $(($(date +%s) - t0)) s"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# nvmimic matrix against Debian's libvirtd on this host, as two "hosts": two
# URIs to the same daemon.  2 profiles x 1 suite, one workload, --quick:
#   1. qemu:///system + qemu+unix:///system, --pool of the test's own: both
#      cells ok (at the same time, their volumes in the one pool), one
#      compare report, matrix.json says where each ran, the pool is empty
#      afterwards;
#   2. an unreachable URI + qemu:///system, --retries 0: the cell sent to the
#      unreachable one fails (its error names the URI), the other completes
#      and the report is made from it; exit status 1;
# then bad input (unknown scheme, empty lists): one line, status 2.  No
# domain, pool of a run's own or volume is left.
#
# usage: matrix.sh NVMIMIC
set -u
nvmimic=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/libvirtd.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
t0=$(date +%s)
work=$(mktemp -d /tmp/nvmimic-lvmx.XXXXXX)
POOL=nvmimic-test-mx-$$
cleanup() {
    virsh -q -c qemu:///system pool-destroy "$POOL" >/dev/null 2>&1
    rm -rf "/var/lib/libvirt/$POOL"
    lv_down
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# bad input first: no daemon needed
bad() {     # bad PATTERN ARGS...
    local pat=$1 rc n
    shift
    "$nvmimic" matrix "$@" >"$work/bad.out" 2>"$work/bad.err"
    rc=$?
    n=$(wc -l <"$work/bad.err")
    [ "$rc" = 2 ] || fail "matrix $* exited $rc, not 2: $(cat "$work/bad.err")"
    [ "$n" = 1 ] || fail "matrix $*: $n lines on stderr, not 1: $(cat "$work/bad.err")"
    grep -q -- "$pat" "$work/bad.err" || fail "matrix $*: no '$pat' in: $(cat "$work/bad.err")"
    [ ! -e "$work/bad" ] || fail "matrix $*: created its output directory"
    echo "ok: matrix $* -> $(cat "$work/bad.err")"
}
P="--profiles crucial-p5-2tb,crucial-p2-2tb --suites four-corners --out $work/bad"
bad "unknown URI scheme 'vbox'" $P --connect qemu:///system,vbox:///session
bad "--connect: empty list" $P --connect ''
bad "--profiles ',': empty element" --profiles , --suites four-corners --connect qemu:///system
bad "--suites: empty list" --profiles crucial-p5-2tb --suites '' --connect qemu:///system
bad "unknown suite 'nope'" --profiles crucial-p5-2tb --suites nope --connect qemu:///system
bad "profile no-such-drive" --profiles no-such-drive --suites four-corners --connect qemu:///system

lv_up
RUN=(--profiles crucial-p5-2tb,crucial-p2-2tb --suites four-corners --quick
     --workloads 64k-seq-read --points 100)
check() {   # check DIR WANT_OK WANT_FAILED URI_OF_FAILED
    python3 - "$@" <<'PY'
import json, os, sys
d, want_ok, want_failed, bad_uri = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
m = json.load(open(os.path.join(d, "matrix.json")))
assert m["complete"] is True, m["complete"]
cells = m["cells"]
assert len(cells) == 2, len(cells)
ok = [c for c in cells if c["status"] == "ok"]
failed = [c for c in cells if c["status"] == "failed"]
assert (len(ok), len(failed)) == (want_ok, want_failed), [(c["profile"], c["status"], c["error"]) for c in cells]
assert {c["profile"] for c in cells} == {"crucial-p5-2tb", "crucial-p2-2tb"}
for c in cells:
    assert c["suite"] == "four-corners" and c["attempts"] >= 1, c
    assert c["host"] in [h["uri"] for h in m["hosts"]], c
for c in ok:
    r = json.load(open(os.path.join(c["out"], "results.json")))
    assert r["complete"] and r["connect"] == c["host"], (r["complete"], r["connect"], c["host"])
    assert r["profile"] == c["profile"] and c["error"] is None, c
for c in failed:
    assert c["host"] == bad_uri and bad_uri in c["error"], c
    assert c["attempts"] == 1, c
assert m["compare"] and os.path.isfile(m["compare"]), m["compare"]
html = open(m["compare"]).read()
for c in ok:
    assert c["profile"] in html, c["profile"] + " not in compare.html"
print("ok: matrix.json: " + "; ".join(f"{c['profile']} {c['status']} on {c['host']}"
      f" ({c['attempts']} attempt(s))" for c in cells))
PY
}

# 1. two connections to the same daemon, the files in one (transient) pool
U1=qemu:///system U2="qemu+unix:///system?socket=/var/run/libvirt/libvirt-sock"
virsh -q -c "$U1" pool-create-as "$POOL" dir --target "/var/lib/libvirt/$POOL" \
    --build >/dev/null || fail "cannot create the test's storage pool $POOL"
t1=$(date +%s)
"$nvmimic" matrix "${RUN[@]}" --connect "$U1,$U2" --pool "$POOL" --out "$work/m1" \
    >"$work/m1.log" 2>&1 ||
    fail "matrix over two connections exited $?: $(tail -n 5 "$work/m1.log")"
check "$work/m1" 2 0 - || fail "matrix over two connections (above)"
grep -q "/var/lib/libvirt/$POOL/nvmimic-run-" "$work"/m1/*/domain.xml ||
    fail "the runs' domain.xml name no volume of pool $POOL"
left=$(virsh -q -c "$U1" vol-list "$POOL" 2>&1)
[ -z "$left" ] || fail "volumes left in pool $POOL: $left"
python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
hosts = sorted(c["host"] for c in m["cells"])
assert hosts == sorted(sys.argv[2:]), hosts
' "$work/m1/matrix.json" "$U1" "$U2" || fail "the two cells did not run one per connection"
echo "ok: two connections, one cell each, one compare report ($(($(date +%s) - t1)) s)"

# 2. one unreachable URI: its cell fails (no retries), the other completes
BAD="qemu+unix:///system?socket=/nonexistent/libvirt-sock"
t1=$(date +%s)
"$nvmimic" matrix "${RUN[@]}" --connect "$BAD,$U1" --retries 0 --out "$work/m2" \
    >"$work/m2.log" 2>"$work/m2.err"
rc=$?
[ "$rc" = 1 ] || fail "matrix with an unreachable host exited $rc, not 1: $(tail -n 5 "$work/m2.log" "$work/m2.err")"
check "$work/m2" 1 1 "$BAD" || fail "matrix with an unreachable host (above)"
line=$(grep -F "crucial-p5-2tb x four-corners failed after 1 attempt(s): " "$work/m2.err")
[ "$(grep -c . "$work/m2.err")" = 1 ] && echo "$line" | grep -qF "cannot reach libvirt at $BAD" ||
    fail "no one-line report of the failed cell: $(cat "$work/m2.err")"
echo "ok: unreachable host: its cell failed, the other ran ($(($(date +%s) - t1)) s)"
left=$(virsh -q -c "$LV_URI" list --all --name | grep '^nvmimic-run-')
[ -z "$left" ] || fail "domains left defined: $left"
left=$(virsh -q -c "$LV_URI" pool-list --all --name | grep '^nvmimic-run-')
[ -z "$left" ] || fail "storage pools left: $left"
echo "ok: whole test $(($(date +%s) - t0)) s"

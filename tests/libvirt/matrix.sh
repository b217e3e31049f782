#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# nvmimic matrix against Debian's libvirtd on this host, as two "hosts": two
# URIs to the same daemon.  2 profiles x 1 suite, one workload, --quick:
#   1. qemu:///system + qemu+unix:///system, --pool of the test's own,
#      --per-host 2: the two cells start at the same time, one per URI, their
#      volumes in the one pool.  A watcher destroys one of their domains from
#      outside (virsh destroy, 25 s after it started, mid-run): that
#      run exits 3, its URI leaves the rotation, and the cell is retried on
#      the other URI (alongside the other cell there).  Both cells ok, one
#      compare report, matrix.json has the lost host's error, the retried
#      cell's 2 attempts and both hosts tried; exit status 0, the pool is
#      empty afterwards;
#   2. an unreachable URI + qemu:///system, --retries 0, suite render (an
#      application suite, not four-corners): the cell sent to the
#      unreachable one fails (its error names the URI), the other runs the
#      render suite to the end through libvirt (its files in the job, the
#      drive a sparse volume, its results back: what run_connect.sh checked
#      of a render run before, on this one boot) and the report is made
#      from it; exit status 1;
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
watcher=
cleanup() {
    [ -n "$watcher" ] && kill "$watcher" 2>/dev/null && wait "$watcher" 2>/dev/null
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
bad "--connect: an empty value" $P --connect ''
bad "--profiles ',': empty element" --profiles , --suites four-corners --connect qemu:///system
bad "--suites: an empty value" --profiles crucial-p5-2tb --suites '' --connect qemu:///system
bad "unknown suite 'nope' (valid: four-corners, vdi, sql, render, seq, all" --profiles crucial-p5-2tb --suites nope --connect qemu:///system
bad "profile no-such-drive" --profiles no-such-drive --suites four-corners --connect qemu:///system
# a run option for a suite no cell runs; one for some cells goes to those only
bad "--sql-users is for --suite sql, which --suites four-corners,seq does not include" --profiles crucial-p5-2tb --suites four-corners,seq --sql-users 5 --connect qemu:///system

lv_up
RUN=(--profiles crucial-p5-2tb,crucial-p2-2tb --suites four-corners --quick
     --workloads 64k-seq-read --points 100)
check() {   # check DIR WANT_OK WANT_FAILED URI_OF_FAILED SUITE
    python3 - "$@" <<'PY'
import json, os, sys
d, want_ok, want_failed, bad_uri, suite = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
m = json.load(open(os.path.join(d, "matrix.json")))
assert m["complete"] is True, m["complete"]
cells = m["cells"]
assert len(cells) == 2, len(cells)
ok = [c for c in cells if c["status"] == "ok"]
failed = [c for c in cells if c["status"] == "failed"]
assert (len(ok), len(failed)) == (want_ok, want_failed), [(c["profile"], c["status"], c["error"]) for c in cells]
assert {c["profile"] for c in cells} == {"crucial-p5-2tb", "crucial-p2-2tb"}
for c in cells:
    assert c["suite"] == suite and c["attempts"] >= 1, c
    assert c["host"] in [h["uri"] for h in m["hosts"]], c
for c in ok:
    r = json.load(open(os.path.join(c["out"], "results.json")))
    assert r["complete"] and r["connect"] == c["host"], (r["complete"], r["connect"], c["host"])
    assert r["profile"] == c["profile"] and c["error"] is None, c
    assert r["suites"] == [suite], r["suites"]
    if suite == "render":
        (a,) = r["apps"]
        assert a["suite"] == "render" and a["complete"], a
        assert a["result"]["check"]["ok"] is True and a["swap"]["pswpout"] > 0, a
        assert a["device"]["classes"]["write"]["count"] > 0, a["device"]
        x = open(os.path.join(c["out"], "domain.xml")).read()
        assert "drive.raw" in x and "/var/lib/libvirt/nvmimic/" in x, "the drive is not a volume"
        assert os.path.getsize(os.path.join(c["out"], "guest", "render-job.json")) > 0
        print(f"ok: render through libvirt: {a['result']['total_s']} s, "
              f"{a['swap']['pswpout']} pages swapped out, results disk back")
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

# 1. two connections to the same daemon, the files in one (transient) pool;
# one run's domain destroyed from outside, its cell retried on the other URI
U1=qemu:///system U2="qemu+unix:///system?socket=/var/run/libvirt/libvirt-sock"
virsh -q -c "$U1" pool-create-as "$POOL" dir --target "/var/lib/libvirt/$POOL" \
    --build >/dev/null || fail "cannot create the test's storage pool $POOL"
# destroy_one DIR: once, the running domain of a cell of the matrix in DIR
# (named in its DIR/*/domain.xml, its disks in $POOL), 25 s after it is
# seen running; writes "DOMAIN CELLDIR" to $work/destroyed.  Nothing else
# is touched.
destroy_one() {
    trap - EXIT INT TERM
    local dir=$1 x name cell
    for _ in $(seq 900); do
        for x in "$dir"/*/domain.xml; do
            [ -f "$x" ] || continue
            cell=${x%/domain.xml}
            name=$(sed -n 's|^ *<name>\(nvmimic-run-[^<]*\)</name>.*|\1|p' "$x" | head -n 1)
            [ -n "$name" ] || continue
            virsh -q -c "$U1" list --name 2>/dev/null | grep -qxF "$name" || continue
            virsh -q -c "$U1" dumpxml "$name" 2>/dev/null |
                grep -qF "/var/lib/libvirt/$POOL/" || continue
            # A four-corners workload is one command in the guest (its whole
            # curve), so results.json gets its peak only at the end: take
            # the domain some time after it started instead, past its boot
            # (~15 s) and into the curve (the cell's run takes ~60 s and
            # more here).
            sleep 25
            if virsh -q -c "$U1" destroy "$name" >"$work/destroy.out" 2>&1; then
                echo "$name $cell" >"$work/destroyed"
                return 0
            fi
        done
        sleep 1
    done
}
destroy_one "$work/m1" 8>&- &
watcher=$!
t1=$(date +%s)
"$nvmimic" matrix "${RUN[@]}" --connect "$U1,$U2" --per-host 2 --pool "$POOL" \
    --out "$work/m1" >"$work/m1.log" 2>&1
rc=$?
kill "$watcher" 2>/dev/null
wait "$watcher" 2>/dev/null
watcher=
[ -s "$work/destroyed" ] ||
    fail "the watcher destroyed no domain of the matrix (matrix exited $rc; last virsh destroy: $(cat "$work/destroy.out" 2>/dev/null)): $(tail -n 5 "$work/m1.log")"
read -r dom cell <"$work/destroyed"
echo "ok: destroyed $dom (cell ${cell##*/}) from outside"
[ "$rc" = 0 ] || fail "matrix over two connections, one domain destroyed, exited $rc: $(tail -n 8 "$work/m1.log")"
check "$work/m1" 2 0 - four-corners || fail "matrix over two connections (above)"
grep -q "/var/lib/libvirt/$POOL/nvmimic-run-" "$work"/m1/*/domain.xml ||
    fail "the runs' domain.xml name no volume of pool $POOL"
left=$(virsh -q -c "$U1" vol-list "$POOL" 2>&1)
[ -z "$left" ] || fail "volumes left in pool $POOL: $left"
python3 - "$work/m1" "$cell" "$U1" "$U2" <<'PY' || fail "the retry after the destroyed domain (above; log: $(cat "$work/m1.log"))"
import json, os, re, sys
d, cell, u1, u2 = sys.argv[1:]
m = json.load(open(os.path.join(d, "matrix.json")))
log = open(os.path.join(d, "..", "m1.log")).read()
(lost,) = [c for c in m["cells"] if c["out"] == cell]
(other,) = [c for c in m["cells"] if c["out"] != cell]
# the cells started one per URI (--per-host 2 puts the second on the idle
# one); the lost one's URI left the rotation, the retry went to the other
first = u1 if other["host"] == u2 else u2
assert other["attempts"] == 1 and other["hosts_tried"] == [other["host"]], other
assert lost["attempts"] == 2, lost
assert lost["hosts_tried"] == [u1, u2], lost           # in --connect order
assert lost["host"] == other["host"] != first, (lost, other)
assert lost["status"] == "ok" and lost["error"] is None, lost
assert lost["log"].endswith("-2.log") and os.path.isfile(lost["log"]), lost["log"]
log1 = lost["log"][:-len("-2.log")] + "-1.log"
assert os.path.isfile(log1), log1
hosts = {h["uri"]: h["error"] for h in m["hosts"]}
assert hosts[other["host"]] is None, hosts
err = hosts[first]
assert err and re.search(r"destroyed from outside nvmimic|host dropped", err), err
assert err in open(log1).read(), (err, log1)
p = lost["profile"]
for line in (f"matrix: {p} x four-corners on {first} (attempt 1)",
             f"matrix: host {first} out of the rotation: {err}",
             f"matrix: {p} x four-corners will be retried on another host",
             f"matrix: {p} x four-corners on {lost['host']} (attempt 2)",
             f"matrix: {p} x four-corners ok on {lost['host']}",
             "matrix: 2 ok, 0 failed"):
    assert line in log, "no line: " + line
r = json.load(open(os.path.join(cell, "results.json")))
assert r["complete"] and r["error"] is None and r["connect"] == lost["host"], r
print(f"ok: {p}: attempt 1 on {first} lost ({err}); attempt 2 ok on {lost['host']}")
PY
echo "ok: two connections, one domain destroyed, its cell retried, one compare report ($(($(date +%s) - t1)) s)"

# 2. one unreachable URI: its cell fails (no retries), the other completes;
# an application suite this time (matrix takes any suite run takes)
BAD="qemu+unix:///system?socket=/nonexistent/libvirt-sock"
t1=$(date +%s)
"$nvmimic" matrix --profiles crucial-p5-2tb,crucial-p2-2tb --suites render --quick \
    --connect "$BAD,$U1" --retries 0 --out "$work/m2" \
    >"$work/m2.log" 2>"$work/m2.err"
rc=$?
[ "$rc" = 1 ] || fail "matrix with an unreachable host exited $rc, not 1: $(tail -n 5 "$work/m2.log" "$work/m2.err")"
check "$work/m2" 1 1 "$BAD" render || fail "matrix with an unreachable host (above)"
line=$(grep -F "crucial-p5-2tb x render failed after 1 attempt(s): " "$work/m2.err")
[ "$(grep -c . "$work/m2.err")" = 1 ] && echo "$line" | grep -qF "cannot reach libvirt at $BAD" ||
    fail "no one-line report of the failed cell: $(cat "$work/m2.err")"
echo "ok: unreachable host: its cell failed, the other ran the render suite ($(($(date +%s) - t1)) s)"
# this test's runs only (another test's may be running): the destroyed one,
# and those named in the cells' domain.xml (a run's own pool has its name)
ours=$( { echo "$dom"; sed -n 's|^ *<name>\(nvmimic-run-[^<]*\)</name>.*|\1|p' \
          "$work"/m[12]/*/domain.xml; } | sort -u)
[ "$(echo "$ours" | wc -l)" -ge 4 ] || fail "fewer than 4 runs' domains named: $ours"
left=$(virsh -q -c "$LV_URI" list --all --name | grep -xF "$ours")
[ -z "$left" ] || fail "domains left defined: $left"
left=$(virsh -q -c "$LV_URI" pool-list --all --name | grep -xF "$ours")
[ -z "$left" ] || fail "storage pools left: $left"
/usr/bin/python3 "$(dirname "$0")/../results/validate.py" "$work" ||
    fail "a cell's results.json does not validate against docs/results.schema.json"
echo "ok: whole test $(($(date +%s) - t0)) s"

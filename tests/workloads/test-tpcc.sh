#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# workloads/tpcc on the host: a throwaway PostgreSQL 15 cluster in a temp dir
# (unix socket only), the too-big-scale refusal, W=1 loaded, a 20 s mix with
# 10 users and keying/think times x 0.01, then the consistency conditions and
# the JSON report's figures.  Usage: test-tpcc.sh SOURCE_ROOT
set -eu
ROOT=$1
TPCC=$ROOT/workloads/tpcc/tpcc.sh
PGBIN=/usr/lib/postgresql/15/bin
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$PGBIN/initdb" ] || fail "PostgreSQL 15 is not installed ($PGBIN/initdb; make deps installs postgresql)"
command -v pgbench >/dev/null || fail "pgbench not found (postgresql-client)"

T=$(mktemp -d /tmp/nvmimic-tpcc.XXXXXX)
chmod 755 "$T"
if [ "$(id -u)" = 0 ]; then
    chown postgres "$T"
    as_pg() { su postgres -s /bin/sh -c "$*"; }
else
    as_pg() { sh -c "$*"; }
fi
cleanup() {
    as_pg "$PGBIN/pg_ctl -D $T/data -m immediate stop" >/dev/null 2>&1 || true
    rm -rf "$T"
}
trap cleanup EXIT INT TERM

as_pg "$PGBIN/initdb -D $T/data --auth=trust -U postgres -E UTF8" >"$T/initdb.log" 2>&1 ||
    { cat "$T/initdb.log"; fail "initdb"; }
as_pg "$PGBIN/pg_ctl -D $T/data -l $T/server.log -w -o \"-k $T -c listen_addresses='' -c max_connections=40\" start" >/dev/null ||
    { cat "$T/server.log"; fail "starting PostgreSQL"; }
export PGHOST=$T PGUSER=postgres PGDATABASE=postgres

echo "# refusal: 1500 warehouses (~333 GB) on a 250 GB drive"
rc=0
sh "$TPCC" -w 1500 --capacity 250000000000 load 2>"$T/refusal.txt" || rc=$?
cat "$T/refusal.txt"
[ "$rc" = 3 ] || fail "expected exit status 3 for a scale that does not fit, got $rc"
grep -q "1500 warehouses need about 333 GB" "$T/refusal.txt" || fail "refusal message"
[ "$(psql -XtAc "SELECT count(*) FROM pg_tables WHERE tablename = 'warehouse'")" = 0 ] ||
    fail "something was created before the refusal"
echo "# refusal: a missing device"
sh "$TPCC" -w 1 --device "$T/nonexistent" load 2>/dev/null && fail "a missing --device was accepted"

echo "# load W=1 and run 20 s, 10 users, think factor 0.01"
start=$(date +%s)
sh "$TPCC" -w 1 --capacity 500000000000 load || fail "load"
load_s=$(($(date +%s) - start))
[ "$load_s" -lt 60 ] || fail "W=1 took $load_s s to load"
sh "$TPCC" -w 1 -u 10 -P 2 -S 20 -k 0.01 -j 2 -o "$T/out" run || fail "run"
sh "$TPCC" check || fail "consistency conditions"

python3 - "$T/out/report.json" <<'EOPY' || fail "report checks"
import json, math, sys
r = json.load(open(sys.argv[1]))
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)
tx = r["transactions"]
total = r["overall"]["count"]
need(total >= 400, "at least 400 transactions in 20 s (got %d)" % total)
for name, w in (("new_order", .45), ("payment", .43), ("order_status", .04),
                ("delivery", .04), ("stock_level", .04)):
    t = tx[name]
    sd = math.sqrt(w * (1 - w) / max(total, 1))
    need(abs(t["share"] - w) <= 4 * sd + 0.005,
         "%s share %.3f vs %.2f" % (name, t["share"], w))
    need(t["count"] > 0, name + " ran")
    # the mean of a few dozen heavy-tailed samples may exceed their p95
    # (Delivery's did in a CI run on a loaded host: about 37 of 932
    # transactions, the slowest of all 210 ms), so it is only bounded
    need(0 < t["avg_ms"] <= t["max_ms"], name + " 0 < avg <= max")
    need(0 < t["p95_ms"] <= t["p99_ms"] <= t["max_ms"],
         name + " p95 <= p99 <= max")
    need(t["max_ms"] < 5000, name + " latency plausible")
    # The think-time reconstruction: with it wrong the derived latency would be
    # off by the 20-180 ms keying times or the 50-120 ms think means.  What
    # is left after the sleeps is, by pgbench's own per-command averages (-r),
    # the SELECT, the \set lines and how late pgbench woke from its two
    # sleeps: a CI run on a loaded host had new_order's derived mean at
    # 84.10 ms against the SELECT's 55.93 (bounded at 10 ms then).  The keying
    # sleep has a fixed length, so its lateness is measured; the think sleep's
    # is taken as the same (the same wake-up of the same thread).
    pg = r["pgbench_select_avg_ms"].get(name)
    sets = r["pgbench_set_avg_ms"].get(name, 0.0)
    late = r["pgbench_keying_late_ms"].get(name)
    need(pg is not None and late is not None and
         pg - 1 <= t["avg_ms"] <= pg + sets + 2 * max(late, 0) + 5,
         "%s: derived avg %.2f ms vs pgbench's SELECT %.2f ms, \\set lines "
         "%.2f ms, keying sleep %.2f ms late"
         % (name, t["avg_ms"], pg or -1, sets, late if late is not None else -1))
need(abs(r["tpmC"] - tx["new_order"]["count"] * 3) < 0.01, "tpmC = New-Orders/min")
need(r["tpm_total"] > r["tpmC"], "tpm_total > tpmC")
need(r["failures"] == 0, "no failed transactions")
# pgbench never wakes early, so a logged transaction shorter than the sleeps
# recomputed for it is a wrong recomputation (about half of them would be)
need(r["shorter_than_sleeps"] == 0,
     "%d transactions shorter than their recomputed sleeps" % r["shorter_than_sleeps"])
rb = r["new_order_rollback_share"]
need(rb is not None and 0 <= rb <= 0.05, "New-Order rollback share %r in 0..5 %%" % rb)
for k in ("p95_ms", "p99_ms", "avg_ms"):
    need(r["overall"][k] is not None, "overall " + k)
for b in bad:
    print("not ok:", b)
print(json.dumps({k: r[k] for k in ("tpmC", "tpm_total")}), json.dumps(r["overall"]))
sys.exit(1 if bad else 0)
EOPY
echo "PASS: tpcc (load ${load_s} s)"

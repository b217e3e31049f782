#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# workloads/tpcc on the host: a throwaway PostgreSQL 15 cluster in a temp dir
# (unix socket only), the too-big-scale refusal, W=1 loaded, a mix of 60
# transactions for each of 10 users with keying/think times x 0.01, then the
# consistency conditions and the JSON report's figures.  A count, not a
# length: a CI host loaded enough to wake pgbench 170 ms late from its sleeps
# ran 224 transactions in 20 s where an idle one runs ~900, so the count,
# the shares' statistics and what is compared with pgbench's own -r figures
# must not depend on the host's speed.  Usage: test-tpcc.sh SOURCE_ROOT
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
echo "# refusal: seeds pgbench would not take as given"
for s in -1 1e3 08 1000000000; do
    rc=0
    sh "$TPCC" --seed "$s" run 2>"$T/seed.txt" || rc=$?
    [ "$rc" = 2 ] && grep -q "seed must be a whole number below 10^9 (--seed $s)" "$T/seed.txt" ||
        fail "--seed $s: exit $rc, $(cat "$T/seed.txt")"
done

echo "# load W=1 and run 60 transactions per user, 10 users, think factor 0.01"
start=$(date +%s)
sh "$TPCC" -w 1 --capacity 500000000000 load || fail "load"
load_s=$(($(date +%s) - start))
# how long it took is printed, not bounded: a loaded host takes 46 s here
# The run's timing checks (the think-time slope) need a host that is not
# hogged on purpose: tests/harness/run_deterministic.sh, in the guest lane
# beside this one, busy-loops both cores for about a minute.  Held shared here,
# exclusive there, the lock keeps the two apart (a run that overlapped it
# logged 322 ms a transaction against 5 ms, slope 2.56 +- 0.34).
if [ -n "${NVMIMIC_HOST_LOAD_LOCK:-}" ]; then
    exec 9>"$NVMIMIC_HOST_LOAD_LOCK"
    flock -s 9
fi
sh "$TPCC" -w 1 -u 10 -P 2 -t 60 -k 0.01 -j 2 --seed 7 -o "$T/out" run || fail "run"
[ -z "${NVMIMIC_HOST_LOAD_LOCK:-}" ] || exec 9>&-
[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seed"])' "$T/out/params.json")" = 7 ] ||
    fail "params.json does not hold the seed"
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
need(r["failures"] == 0, "no failed transactions")
need(total == 600, "600 transactions, 60 per user (got %d)" % total)
need(r["transactions_per_user"] == 60 and r["sample_s"] > 0,
     "the sample's length %r measured for 60 per user" % r["sample_s"])
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
    # no transaction outlasts the sample (a unit slip would, 1000-fold)
    need(t["max_ms"] <= r["sample_s"] * 1000,
         "%s: max %.1f ms in a %.1f s sample" % (name, t["max_ms"], r["sample_s"]))
    # The sleeps' recomputation.  What is left of the logged time after the
    # recomputed sleeps is, by pgbench's own per-command averages (-r) over
    # the same transactions, the SELECT, the \set lines and how late pgbench
    # woke from the two sleeps (a loaded host: 170 ms each in a CI run).
    # The keying sleep is fixed, the think sleep's recomputed mean is taken
    # from pgbench's: neither may be early, and together they must account
    # for the derived mean.  A wrong script mapping or time field breaks
    # the sum; a think time drawn too long makes its lateness negative.
    pg = r["pgbench_select_avg_ms"].get(name)
    sets = r["pgbench_set_avg_ms"].get(name, 0.0)
    late = r["pgbench_keying_late_ms"].get(name)
    tlate = r["pgbench_think_late_ms"].get(name)
    if None in (pg, late, tlate):
        need(False, "%s: pgbench's -r figures (SELECT %r, keying lateness %r, "
             "think lateness %r)" % (name, pg, late, tlate))
        continue
    need(late >= -1 and tlate >= -1,
         "%s: a sleep woke early by pgbench's -r: keying %.2f ms, think %.2f ms"
         % (name, late, tlate))
    expect = pg + sets + late + tlate
    need(pg - 1 <= t["avg_ms"] <= expect + 2 + 0.02 * expect,
         "%s: derived avg %.2f ms vs pgbench's SELECT %.2f ms + \\set lines "
         "%.2f ms + keying sleep %.2f ms late + think sleep %.2f ms late"
         % (name, t["avg_ms"], pg, sets, late, tlate))
# The think time the report draws is the one pgbench slept: within each
# type, the logged time less the keying sleep rises one for one with it
# (slope 0 for a draw belonging to another transaction).  Its standard
# error grows with the host's noise, and the bound with it.
fit = r["think_fit"]
need(fit is not None and fit["se"] is not None and
     abs(fit["slope"] - 1) <= max(0.15, 4 * fit["se"]),
     "think time explains the logged time one for one: %r" % fit)
tpmc = tx["new_order"]["count"] * 60 / r["sample_s"]
need(abs(r["tpmC"] - tpmc) <= 0.001 * tpmc + 0.01,
     "tpmC %.2f = New-Orders/min %.2f" % (r["tpmC"], tpmc))
need(r["tpm_total"] > r["tpmC"], "tpm_total > tpmC")
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
print(json.dumps({k: r[k] for k in ("tpmC", "tpm_total", "sample_s", "think_fit")}),
      json.dumps(r["overall"]))
for name in tx:
    print("%s: derived %.2f ms, SELECT %.2f, sets %.2f, keying late %.2f, think late %.2f"
          % (name, tx[name]["avg_ms"], r["pgbench_select_avg_ms"].get(name, -1),
             r["pgbench_set_avg_ms"].get(name, -1), r["pgbench_keying_late_ms"].get(name, -1),
             r["pgbench_think_late_ms"].get(name, -1)))
sys.exit(1 if bad else 0)
EOPY
echo "PASS: tpcc (load ${load_s} s)"

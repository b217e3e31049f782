#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# TPC-C-like OLTP workload on PostgreSQL, driven by pgbench.  See
# workloads/README.md.  Connects with the usual libpq environment (PGHOST,
# PGPORT, PGUSER, PGDATABASE); the database must exist.
#
#   tpcc.sh [options] load     refuse if too big for the drive, then create+load
#   tpcc.sh [options] run      precondition, then sample; report in OUTDIR
#   tpcc.sh [options] check    TPC-C consistency conditions 1-4
#   tpcc.sh [options] all      load, run, check
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
usage() {
    cat <<'EOU'
usage: tpcc.sh [options] load|run|check|all
  --preset NAME     quick (default: W=2, 20 users, 60 s + 60 s, think factor 0.1)
                    review (W=1500, 15000 users, 9000 s + 1800 s, factor 1)
  -w, --warehouses N      warehouses (W)
  -u, --users N           virtual users = pgbench clients (default 10 per W)
  -P, --precondition SEC  seconds of load before the sample (not reported)
  -S, --sample SEC        seconds of the measured sample
  -t, --transactions N    instead, a sample of N transactions per user, however
                          long the host takes (its length is then measured)
  -k, --think-factor F    keying and think times x F (1 = the specification's)
  -j, --jobs N            pgbench threads and parallel loaders (default: CPUs)
  --seed N                pgbench's random seed: N for the precondition, N+1 for
                          the sample (default: pgbench's, from the clock)
  -o, --out DIR           results directory (default ./tpcc-results)
  --capacity BYTES        refuse to load if the database will not fit
  --device PATH           as --capacity, with the size of this disk or file
EOU
}
die() { echo "tpcc: $*" >&2; exit 2; }

W=2; USERS=""; PRE=60; SAMPLE=60; TX=""; FACTOR=0.1; OUT=./tpcc-results
JOBS=$(nproc 2>/dev/null || echo 2); CAP=""; CMD=""; SEED=""
preset() {
    case "$1" in
    quick)  W=2; USERS=""; PRE=60; SAMPLE=60; FACTOR=0.1 ;;
    review) W=1500; USERS=15000; PRE=9000; SAMPLE=1800; FACTOR=1 ;;
    *) die "unknown preset '$1' (quick, review)" ;;
    esac
}
while [ $# -gt 0 ]; do
    case "$1" in
    --preset) preset "$2"; shift ;;
    -w|--warehouses) W=$2; shift ;;
    -u|--users) USERS=$2; shift ;;
    -P|--precondition) PRE=$2; shift ;;
    -S|--sample) SAMPLE=$2; TX=""; shift ;;
    -t|--transactions) TX=$2; shift ;;
    -k|--think-factor) FACTOR=$2; shift ;;
    -j|--jobs) JOBS=$2; shift ;;
    --seed) SEED=$2; shift ;;
    -o|--out) OUT=$2; shift ;;
    --capacity) CAP=$2; shift ;;
    --device)
        if [ -b "$2" ]; then CAP=$(blockdev --getsize64 "$2")
        else CAP=$(stat -L -c %s "$2") || die "cannot size $2"; fi
        shift ;;
    -h|--help) usage; exit 0 ;;
    load|run|check|all) CMD=$1 ;;
    *) usage >&2; exit 2 ;;
    esac
    shift
done
[ -n "$CMD" ] || { usage >&2; exit 2; }
isint() { case "$1" in ''|*[!0-9]*) return 1 ;; esac; }
isint "$W" && [ "$W" -ge 1 ] || die "warehouses must be a positive integer"
[ -n "$USERS" ] || USERS=$((10 * W))
isint "$USERS" && [ "$USERS" -ge 1 ] || die "users must be a positive integer"
isint "$PRE" && isint "$SAMPLE" && [ "$SAMPLE" -ge 1 ] || die "durations are whole seconds"
isint "$JOBS" && [ "$JOBS" -ge 1 ] || die "jobs must be a positive integer"
# no leading zero: the shell would read the seed as octal
case "$SEED" in 0?*) SEED=x$SEED ;; esac
[ -z "$SEED" ] || { isint "$SEED" && [ ${#SEED} -le 9 ]; } ||
    die "the seed must be a whole number below 10^9 (--seed ${SEED#x})"
[ -z "$TX" ] || { isint "$TX" && [ "$TX" -ge 1 ]; } ||
    die "transactions per user must be a positive integer (-t $TX)"
[ "$JOBS" -le "$USERS" ] || JOBS=$USERS

PSQL="psql -X -q -v ON_ERROR_STOP=1"
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"

# Size estimate: the reviews' TPC-C database at scale 1,500 is "about 333 GB"
# (the reviews' SQL Server OLTP test, docs/apps.md), i.e. 222 MB per warehouse.  The
# same data in PostgreSQL right after loading is ~114 MB per warehouse and grows
# with every New-Order, so the reviews' ratio is the conservative estimate.
BYTES_PER_W=222000000
fits() {
    [ -n "$CAP" ] || return 0
    isint "$CAP" || die "capacity must be bytes"
    need=$((W * BYTES_PER_W))
    if [ "$need" -gt "$CAP" ]; then
        echo "tpcc: $W warehouses need about $((need / 1000000000)) GB ($((BYTES_PER_W / 1000000)) MB per warehouse, the reviews' 333 GB for 1,500), but the drive holds $((CAP / 1000000000)) GB; not loading. Use at most $((CAP / BYTES_PER_W)) warehouses." >&2
        exit 3
    fi
}

do_load() {
    fits
    t0=$(date +%s)
    $PSQL -f "$HERE/schema.sql" -f "$HERE/load.sql" -f "$HERE/functions.sql" \
        -c 'CALL tpcc_load_items()' || die "creating the schema or loading ITEM failed"
    $PSQL -tAc "SELECT count(*) FROM item" | grep -qx 100000 || die "loading ITEM failed"
    # Warehouses in JOBS parallel psql sessions.
    j=0
    while [ "$j" -lt "$JOBS" ]; do
        w=$((j + 1)); sql=""
        while [ "$w" -le "$W" ]; do sql="${sql}CALL tpcc_load_warehouse($w);"; w=$((w + JOBS)); done
        [ -n "$sql" ] && $PSQL -c "$sql" &
        j=$((j + 1))
    done
    wait
    [ "$($PSQL -tAc 'SELECT count(*) FROM warehouse')" = "$W" ] || die "loading warehouses failed"
    $PSQL -f "$HERE/indexes.sql" -c 'VACUUM (FREEZE, ANALYZE)'
    echo "tpcc: loaded $W warehouses in $(($(date +%s) - t0)) s," \
         "$($PSQL -tAc 'SELECT pg_size_pretty(pg_database_size(current_database()))')"
}

# Under nvmimic run's guest agent (vm-images/agent.sh): the drive's in-band
# marks where the sample starts and ends, so the device's statistics cover the
# same stretch of the guest's timeline; and a progress line for the host.
mark() {
    [ -n "${NVMIMIC_MARK_FD:-}" ] || return 0
    if [ -n "${NVMIMIC_MARK_CMD:-}" ] && ! $NVMIMIC_MARK_CMD "$1"; then
        echo "tpcc: the drive's in-band mark ($1) failed" >&2
    fi
    printf 'MARK %s %s\n' "$NVMIMIC_MARK_ID" "$1" >&"$NVMIMIC_MARK_FD"
}

# The database disk's I/O counters as the guest's kernel keeps them
# (/sys/block/DEV/stat) and PostgreSQL's buffer counters, into $OUT/NAME-*:
# the guest's view of the sample, beside the device's.
snap() {
    dk=$(readlink -f "${DBDEV:-}" 2>/dev/null || true)
    dk=${dk##*/}
    if [ -n "$dk" ] && [ -r "/sys/block/$dk/stat" ]; then
        { echo "$dk"; cat "/sys/block/$dk/stat"; } >"$OUT/$1-disk"
    fi
    $PSQL -tA -F ' ' -c "SELECT blks_read, blks_hit, blk_read_time
        FROM pg_stat_database WHERE datname = current_database()" >"$OUT/$1-pg" 2>/dev/null || true
}

# Keying times and mean think times of clause 5.2.5.7, seconds.
us() { awk -v s="$1" -v f="$FACTOR" 'BEGIN { printf "%d", s * f * 1000000 }'; }
do_run() {
    nw=$($PSQL -tAc 'SELECT count(*) FROM warehouse') || die "no TPC-C database here (run load first)"
    [ "$nw" -ge 1 ] || die "no warehouses loaded"
    mkdir -p "$OUT"; rm -f "$OUT"/tx.* "$OUT"/start-* "$OUT"/end-*
    set -- -D nw="$nw" -D n=0 -D c_id_c=259 -D c_last_c=223 \
        -D key_no="$(us 18)" -D think_no="$(us 12)" \
        -D key_p="$(us 3)" -D think_p="$(us 12)" \
        -D key_os="$(us 2)" -D think_os="$(us 10)" \
        -D key_d="$(us 2)" -D think_d="$(us 5)" \
        -D key_sl="$(us 2)" -D think_sl="$(us 5)" \
        -f "$HERE/new_order.sql@45" -f "$HERE/payment.sql@43" \
        -f "$HERE/order_status.sql@4" -f "$HERE/delivery.sql@4" \
        -f "$HERE/stock_level.sql@4" \
        -n -M prepared -c "$USERS" -j "$JOBS" --max-tries=10
    sample_json=$SAMPLE                 # a count's length is measured
    [ -z "$TX" ] || sample_json=null
    cat >"$OUT/params.json" <<EOJ
{"warehouses": $nw, "users": $USERS, "precondition_s": $PRE, "sample_s": $sample_json,
 "transactions_per_user": ${TX:-null}, "seed": ${SEED:-null},
 "think_factor": $FACTOR, "jobs": $JOBS,
 "scripts": [
  {"name": "new_order", "weight": 45, "key_us": $(us 18), "think_us": $(us 12)},
  {"name": "payment", "weight": 43, "key_us": $(us 3), "think_us": $(us 12)},
  {"name": "order_status", "weight": 4, "key_us": $(us 2), "think_us": $(us 10)},
  {"name": "delivery", "weight": 4, "key_us": $(us 2), "think_us": $(us 5)},
  {"name": "stock_level", "weight": 4, "key_us": $(us 2), "think_us": $(us 5)}]}
EOJ
    if [ "$PRE" -gt 0 ]; then
        echo "tpcc: preconditioning $PRE s with $USERS users on $nw warehouses"
        pgbench "$@" ${SEED:+--random-seed="$SEED"} -T "$PRE" >"$OUT/precondition.txt" 2>&1 ||
            { cat "$OUT/precondition.txt" >&2; die "pgbench failed while preconditioning"; }
    fi
    orders0=$($PSQL -tAc 'SELECT sum(d_next_o_id) FROM district')
    # the sample draws its own numbers, not the precondition's again
    [ -z "$SEED" ] || set -- "$@" --random-seed="$((SEED + 1))"
    if [ -n "$TX" ]; then
        echo "tpcc: sampling $TX transactions per user"
        set -- "$@" -t "$TX"
    else
        echo "tpcc: sampling $SAMPLE s"
        set -- "$@" -T "$SAMPLE"
    fi
    date +%s.%N >"$OUT/sample-start"
    snap start
    mark start
    pgbench "$@" -r --log --log-prefix="$OUT/tx" >"$OUT/pgbench.txt" 2>&1 ||
        { cat "$OUT/pgbench.txt" >&2; die "pgbench failed in the sample"; }
    mark stop
    snap end
    date +%s.%N >"$OUT/sample-end"
    orders1=$($PSQL -tAc 'SELECT sum(d_next_o_id) FROM district')
    echo "$((orders1 - orders0))" >"$OUT/new-orders-committed"
    python3 "$HERE/tpcc-report.py" "$OUT" >"$OUT/report.json"
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); o=r["overall"]
print("tpcc: tpmC %.1f, %d transactions, avg %.2f ms, p95 %.2f ms, p99 %.2f ms" % (r["tpmC"], o["count"], o["avg_ms"], o["p95_ms"], o["p99_ms"]))' "$OUT/report.json"
}

do_check() {
    bad=$($PSQL -tA -F ' ' -f "$HERE/check.sql" | awk '$2 != 0 { printf " %s(%s)", $1, $2 }')
    if [ -n "$bad" ]; then
        echo "tpcc: consistency conditions violated (condition(count)):$bad" >&2
        return 1
    fi
    echo "tpcc: consistency conditions 1-4 hold"
}

case "$CMD" in
load) do_load ;;
run) do_run ;;
check) do_check ;;
all) do_load; do_run; do_check ;;
esac

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# build-db.sh DBGUEST_DIR OUTDIR W: a loaded TPC-C database of W warehouses
# (workloads/tpcc), once, as a read-only disk image that every run of
# `nvmimic run --suite sql` puts under a throwaway qcow2 overlay.  Writes
#   OUTDIR/tpcc-wW.img   raw ext4 (label nvmimic-pg), sparse: /pgdata is a
#                        PostgreSQL 15 cluster, shut down cleanly, owned by the
#                        database guest's postgres user
#   OUTDIR/tpcc-wW.json  what is in it: W, sizes, PostgreSQL version, seconds
# Loads with the host's PostgreSQL 15 (Debian's, the same package as in the
# guest): minutes, where loading under TCG takes hours.  Loading settings
# (fsync off, ...) apply to the load only; the image's postgresql.conf is
# initdb's, and the guest adds the run's settings at start.  Root: the
# cluster runs as postgres, the tree is then given to the guest's uid/gid
# (DBGUEST_DIR/rootfs/etc/passwd, from `make dbguest`).  Nothing is done when
# the image is newer than the workload's SQL and this script.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TPCC=$ROOT/workloads/tpcc
PGBIN=/usr/lib/postgresql/15/bin
die() { echo "sqldb: $*" >&2; exit 1; }

[ $# -eq 3 ] || die "usage: build-db.sh DBGUEST_DIR OUTDIR W"
GDIR=$1 OUT=$2 W=$3
case $W in ''|*[!0-9]*|0*) die "W must be a whole number of warehouses >= 1, not '$W'" ;; esac
[ "$(id -u)" = 0 ] || die "must run as root (the cluster runs as postgres)"
[ -x "$PGBIN/initdb" ] || die "PostgreSQL 15 is not installed ($PGBIN; make deps)"
command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 missing (e2fsprogs)"
PW=$GDIR/rootfs/etc/passwd
[ -r "$PW" ] || die "no database guest tree in $GDIR/rootfs (make dbguest)"
GUID=$(awk -F: '$1 == "postgres" { print $3 ":" $4 }' "$PW")
[ -n "$GUID" ] || die "the database guest has no postgres user ($PW)"
id postgres >/dev/null 2>&1 || die "the host has no postgres user (make deps installs postgresql)"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
IMG=$OUT/tpcc-w$W.img
META=$OUT/tpcc-w$W.json
if [ -f "$IMG" ] && [ -f "$META" ] &&
    [ -z "$(find "$TPCC"/*.sql "$HERE/build-db.sh" -newer "$IMG" -print -quit)" ]; then
    echo "sqldb: $IMG is up to date"
    exit 0
fi

T=$OUT/tpcc-w$W.build
PGD=$T/root/pgdata
pg() { runuser -u postgres -- "$@"; }
stop_pg() { pg "$PGBIN/pg_ctl" -D "$PGD" -m fast -w stop >/dev/null 2>&1 || true; }
rm -rf "$T"
mkdir -p "$T/root"
chown postgres "$T" "$T/root"
trap 'stop_pg; rm -rf "$T"' EXIT INT TERM

t0=$(date +%s)
echo "sqldb: loading W=$W with the host's PostgreSQL 15 into $T (minutes)"
pg "$PGBIN/initdb" -D "$PGD" --auth=trust -U postgres -E UTF8 --locale=C \
    >"$T/initdb.log" 2>&1 || { tail -n 5 "$T/initdb.log" >&2; die "initdb failed"; }
# Loading only: nothing here needs to survive a crash (a failed load is
# rebuilt), and the clean shutdown below writes everything out.
pg "$PGBIN/pg_ctl" -D "$PGD" -l "$T/server.log" -w -t 300 -o "-k $T \
    -c listen_addresses='' -c max_connections=20 -c fsync=off \
    -c synchronous_commit=off -c full_page_writes=off -c wal_level=minimal \
    -c max_wal_senders=0 -c checkpoint_timeout=1h -c max_wal_size=4GB \
    -c shared_buffers=256MB -c maintenance_work_mem=256MB -c autovacuum=off" \
    start >/dev/null || { tail -n 5 "$T/server.log" >&2; die "PostgreSQL did not start"; }
jobs=$(nproc 2>/dev/null || echo 2)
PGHOST=$T PGUSER=postgres PGDATABASE=postgres \
    pg sh "$TPCC/tpcc.sh" -w "$W" -j "$jobs" load >"$T/load.log" 2>&1 ||
    { tail -n 5 "$T/load.log" >&2; die "loading failed (log above)"; }
db_bytes=$(pg psql -XtA -h "$T" -U postgres -d postgres -c \
    'SELECT pg_database_size(current_database())')
stop_pg
# The load's WAL is of no use to the runs: after the clean shutdown only the
# segment of the last checkpoint is needed; the others are segments recycled
# for reuse (PostgreSQL makes new ones as it needs them).
redo=$("$PGBIN/pg_controldata" "$PGD" | awk -F': *' '/REDO WAL file/ { print $2 }')
[ -n "$redo" ] || die "pg_controldata gave no REDO WAL file"
for f in "$PGD"/pg_wal/[0-9A-F]*; do
    [ "$(basename "$f")" = "$redo" ] || rm -f "$f"
done
sync
load_s=$(($(date +%s) - t0))

# The guest's postgres owns the cluster (uids differ between host and guest).
chown -R "$GUID" "$PGD"
used_kib=$(du -sk "$PGD" | cut -f1)
# Room for the WAL and growth of a run (minutes, checkpoints every minute): the
# filesystem is compact, so the drive's mapped LBAs are mostly the database.
fs_mib=$(( (used_kib * 6 / 5) / 1024 + 768 ))
# Inodes for the cluster's files twice over (a database has few, large
# files; a default ratio would zero megabytes of inode tables for nothing).
inodes=$(( $(find "$T/root" | wc -l) * 2 + 1024 ))
rm -f "$IMG.tmp"
mkfs.ext4 -q -F -L nvmimic-pg -N "$inodes" -E lazy_itable_init=0,lazy_journal_init=0,root_owner="$GUID" \
    -d "$T/root" "$IMG.tmp" "${fs_mib}M" >/dev/null || die "mkfs.ext4 -d failed"
alloc=$(( $(stat -c %b "$IMG.tmp") * $(stat -c %B "$IMG.tmp") ))
cat >"$META.tmp" <<EOJ
{"warehouses": $W, "database_bytes": $db_bytes, "pgdata_bytes": $((used_kib * 1024)),
 "image_bytes": $((fs_mib * 1048576)), "image_allocated_bytes": $alloc,
 "postgresql": "$("$PGBIN/postgres" --version | sed 's/"//g')", "load_s": $load_s,
 "built": "$(date -u +%Y-%m-%dT%H:%M:%SZ)"}
EOJ
chmod 444 "$IMG.tmp"
mv -f "$META.tmp" "$META"
mv -f "$IMG.tmp" "$IMG"
echo "sqldb: $IMG: W=$W, database $((db_bytes / 1000000)) MB, image $fs_mib MiB ($((alloc / 1000000)) MB allocated), $load_s s"

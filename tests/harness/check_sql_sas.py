#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check a quick sql run on the sas topology (tests/harness/run_sql_sas.sh).

usage: check_sql_sas.py RESULTS_JSON

The sample completed with transactions; the block filter's statistics
(the database disk behind the mptsas1068) counted reads, writes and
flushes over it; the guest's mean read and flush latency on the disk is
the device's plus a small part of its own, never less.
"""
import json
import sys

# the guest's own part of a read or flush: sd, the mptsas driver and the
# HBA's emulation, in guest instructions
GAP_MAX_US = 100.0


def main():
    with open(sys.argv[1]) as f:
        r = json.load(f)
    fails = []
    apps = {a['suite']: a for a in r.get('apps', [])}
    sql = apps.get('sql', {})
    if not sql.get('complete'):
        fails.append(f"sql did not complete: {sql.get('error')}")
    params = sql.get('params', {})
    if params.get('topology') != 'sas':
        fails.append(f"topology {params.get('topology')}, not sas")
    tp = sql.get('result') or {}
    if not tp.get('tpmC', 0) > 0:
        fails.append(f"tpmC {tp.get('tpmC')}")
    dev = (sql.get('device') or {}).get('classes') or {}
    for cls in ('read', 'write', 'flush'):
        if not dev.get(cls, {}).get('count', 0) > 0:
            fails.append(f"the filter counted no {cls}s over the sample: "
                         f"{dev.get(cls)}")
    gap = sql.get('latency_gap') or {}
    for cls in ('read', 'flush'):
        g = gap.get(cls) or {}
        if not (g.get('guest_us', 0) >= g.get('device_us', 1) and
                g['guest_us'] - g['device_us'] <= GAP_MAX_US):
            fails.append(f"{cls}: the guest saw {g.get('guest_us')} us, the "
                         f"device {g.get('device_us')} us")
    for m in fails:
        print("run_sql_sas: FAIL " + m)
    if fails:
        sys.exit(1)
    print(f"run_sql_sas: OK: {tp['tpmC']} tpmC; device "
          f"{dev['read']['count']:.0f} reads of {dev['read']['lat_us']} us, "
          f"guest {gap['read']['guest_us']} us")


if __name__ == '__main__':
    main()

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check a quick sql run on the sas topology (tests/harness/run_sql_sas.sh).

usage: check_sql_sas.py RESULTS_JSON

The sample completed with transactions; the block filter's statistics
(the database disk behind the mptsas1068) counted reads, writes and
flushes over it; the guest's mean read and flush latency on the disk is
the device's plus a small part of its own, never less, to within what the
two figures can resolve (slack_us()).
"""
import json
import sys

# the guest's own part of a read or flush: sd, the mptsas driver and the
# HBA's emulation, in guest instructions
GAP_MAX_US = 100.0


def slack_us(guest, dev):
    """How far apart the guest's and the device's mean may lie for reasons
    of measurement alone, in us.  guest: the guest's class (count, mean_us)
    from /sys/block/DEV/stat, dev: the filter's (count, lat_us, max_us).

    - The guest's counters are whole milliseconds, each of the sample's two
      snapshots truncated: its total is known to 1 ms, its mean to
      1000 / count us, and tpcc-report.py rounds that to 0.1 us.  A flush
      takes the guest a few us of its own, less than this resolution over
      a 20 s sample's ~200 flushes.
    - The filter's window opens and closes where the host reads the guest's
      MARK lines (harness/run/apps.c, plan_sql), a little after the guest's
      snapshots: the two means are over sets of requests that differ by at
      least |count difference| requests, each moving a mean by at most the
      device's longest over the smaller count.
    """
    ng, nd = guest['count'], dev['count']
    return (1000.0 / ng + 0.05 +
            abs(ng - nd) * dev.get('max_us', 0) / min(ng, nd))


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
    gdisk = tp.get('guest_disk') or {}
    slacks = {}
    for cls in ('read', 'flush'):
        g = gap.get(cls) or {}
        gc = gdisk.get(cls) or {}
        if not (g.get('guest_us') is not None and
                g.get('device_us') is not None and
                gc.get('count', 0) > 0 and dev.get(cls, {}).get('count', 0) > 0):
            fails.append(f"{cls}: no guest or device mean: {g}, the guest's "
                         f"disk {gc}")
            continue
        slack = slacks[cls] = slack_us(gc, dev[cls])
        d = g['guest_us'] - g['device_us']
        if not -slack <= d <= GAP_MAX_US + slack:
            fails.append(f"{cls}: the guest saw {g['guest_us']} us over "
                         f"{gc['count']}, the device {g['device_us']} us over "
                         f"{dev[cls]['count']:.0f}: {d:+.2f} us, outside "
                         f"-{slack:.2f}..+{GAP_MAX_US + slack:.2f}")
    for m in fails:
        print("run_sql_sas: FAIL " + m)
    if fails:
        sys.exit(1)
    print(f"run_sql_sas: OK: {tp['tpmC']} tpmC; "
          + "; ".join(f"{c}: device {dev[c]['count']:.0f} of "
                      f"{dev[c]['lat_us']} us, guest "
                      f"{gdisk[c]['count']} of {gap[c]['guest_us']} us "
                      f"(slack {slacks[c]:.2f} us)"
                      for c in ('read', 'flush')))


if __name__ == '__main__':
    main()

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check a guest's I/O on disks timed by the nvmimic block filter
(tests/vm/block_filter.sh).

usage: check_block_filter.py PROFILE_INI RESULTS_DIR

For the SAS disk (scsi-hd on mptsas1068) and the virtio disk: the filter
node's statistics count the guest's fio reads, writes and flushes; reads
took the model's NAND time; the guest saw the device's latency plus its own
part (its CPU's, under -icount shift=0), never less than the device's
median (the device's mean includes its reads at boot); completions were on
time.  Prints one line per disk; "block_filter: FAIL ..." lines and exit 1
otherwise.
"""
import json
import os
import sys

from check_profile import load_profile, num

# The guest's own part of a QD1 4K read: the SCSI or virtio driver, libaio,
# fio, and the HBA's emulation, in guest instructions (1 ns each).
GUEST_OVERHEAD_MAX_US = 100.0
LATE_MAX_FRACTION = 0.01
READS, WRITES = 1000, 200


def cls(stats, name):
    for c in stats['classes']:
        if c['class'] == name:
            return c
    return {'count': 0, 'mean-us': 0, 'posted': 0, 'late': 0}


def fio_job(path):
    with open(path) as f:
        return json.load(f)['jobs'][0]


def main():
    ini, results = sys.argv[1:3]
    prof = load_profile(ini)        # its parts merged, as nvmimic does
    mode = prof['nand']['cell-mode']
    read_us = num(prof, 'nand', 'read-us-' + mode)
    failures = []
    with open(os.path.join(results, 'device-stats.json')) as f:
        stats = json.load(f)
    for disk, node in (('sas', 'sasdisk'), ('virtio', 'virtdisk')):
        st = stats[node]
        rd, wr, fl = cls(st, 'read'), cls(st, 'write'), cls(st, 'flush')
        fr = fio_job(os.path.join(results, disk + '-read.json'))['read']
        fw = fio_job(os.path.join(results, disk + '-write.json'))
        # fio's --fsync=10 over 200 writes: the fsyncs it counted itself
        fsyncs = fw.get('sync', {}).get('total_ios', 0)
        guest_us = fr['lat_ns']['mean'] / 1000.0
        # The device's figures cover the whole run: its few reads at boot
        # (partition tables; the first one wakes the drive and takes tens
        # of ms) move the mean by tens of us, so the guest's mean is
        # compared with the device's median, that of fio's 1000 reads.
        dev_us = rd['p50-us']
        fails = []
        if fr['total_ios'] != READS:
            fails.append(f"fio read {fr['total_ios']} times, not {READS}")
        # the guest's own reads at boot (partition table) come on top
        if not READS <= rd['count'] <= READS + 200:
            fails.append(f"the device counted {rd['count']} reads for "
                         f"fio's {READS}")
        if wr['count'] < WRITES:
            fails.append(f"the device counted {wr['count']} writes for "
                         f"fio's {WRITES}")
        if not fsyncs or fl['count'] < fsyncs:
            fails.append(f"the device counted {fl['count']} flushes for "
                         f"fio's {fsyncs} fsyncs")
        if rd['mean-us'] < read_us:
            fails.append(f"device read mean {rd['mean-us']:.1f} us is below "
                         f"the NAND read time {read_us} us")
        if guest_us < dev_us:
            fails.append(f"the guest saw {guest_us:.1f} us, less than the "
                         f"device's median {dev_us:.1f} us: not timed")
        if guest_us - dev_us > GUEST_OVERHEAD_MAX_US:
            fails.append(f"the guest saw {guest_us:.1f} us, "
                         f"{guest_us - dev_us:.1f} us above the "
                         f"device's median {dev_us:.1f} us")
        for c in (rd, wr, fl):
            if c['posted'] and c['late'] > LATE_MAX_FRACTION * c['posted']:
                fails.append(f"{c['late']} of {c['posted']} {c['class']} "
                             f"completions late")
        failures += [f"{disk}: {m}" for m in fails]
        print(f"block_filter: {disk}: {rd['count']} reads of "
              f"{rd['mean-us']:.1f} us on the device (median {dev_us:.1f} "
              f"us), {guest_us:.1f} us in the guest; {wr['count']} writes, "
              f"{fl['count']} flushes for fio's {fsyncs} fsyncs")
    for m in failures:
        print("block_filter: FAIL " + m)
    if failures:
        sys.exit(1)
    print("block_filter: OK")


if __name__ == '__main__':
    main()

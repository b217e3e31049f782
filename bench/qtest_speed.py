#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""How fast the qtest path is here: protocol round trips, and simulated 4 KiB
reads per host second through nvmeqtest's batched path (stock nvme, null-co).

    python3 bench/qtest_speed.py [--seconds S] [--json]
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'tests', 'device'))
from nvmeqtest import Machine, NvmeController, REG_CSTS  # noqa: E402

ARGS = ['-drive', 'if=none,id=d,driver=null-co,size=%d' % (64 << 30),
        '-device', 'nvme,drive=d,serial=bench,addr=04.0']


def per_call_us(fn, n):
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n * 1e6


def iops(ctrl, qd, seconds):
    """Submit qd reads as one batch, wait for all, repeat; I/Os per host s."""
    cmds = [ctrl.read_cmd(8 * i, 8) for i in range(qd)]
    rt0 = ctrl.qt.round_trips
    done = 0
    t = time.perf_counter()
    while time.perf_counter() - t < seconds:
        for c in ctrl.submit_and_time(cmds):
            if not c.ok:
                raise RuntimeError('read failed: %r' % c)
        done += qd
    dt = time.perf_counter() - t
    return done / dt, (ctrl.qt.round_trips - rt0) / (done / qd)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--seconds', type=float, default=3.0)
    ap.add_argument('--json', action='store_true')
    opts = ap.parse_args()
    res = {'engine': 'qtest-python', 'device': 'stock nvme, null-co'}
    with Machine(ARGS) as m:
        ctrl = NvmeController(m).enable()
        ctrl.create_io_queue_pair(1, 1024)
        qt = m.qtest
        csts = ctrl.bar0 + REG_CSTS
        buf = ctrl.alloc.alloc(4096)
        res['readl_us'] = per_call_us(lambda: qt.readl(csts), 2000)
        res['clock_step_1ns_us'] = per_call_us(lambda: qt.clock_step(1), 2000)
        page = bytes(range(256)) * 16
        res['write_4k_us'] = per_call_us(lambda: qt.memwrite(buf, page), 1000)
        res['read_4k_us'] = per_call_us(lambda: qt.memread(buf, 4096), 1000)
        for qd in (1, 32, 128):
            rate, rts = iops(ctrl, qd, opts.seconds)
            res['qd%d_ios_per_host_s' % qd] = rate
            res['qd%d_round_trips_per_batch' % qd] = rts
    if opts.json:
        print(json.dumps(res, indent=1, sort_keys=True))
        return
    print('qtest round trip: readl %.1f us, clock_step %.1f us, '
          '4 KiB b64write %.1f us, 4 KiB b64read %.1f us'
          % (res['readl_us'], res['clock_step_1ns_us'], res['write_4k_us'],
             res['read_4k_us']))
    for qd in (1, 32, 128):
        print('QD%-3d 4K reads: %8.0f simulated I/Os per host second '
              '(%.1f round trips per batch of %d)'
              % (qd, res['qd%d_ios_per_host_s' % qd],
                 res['qd%d_round_trips_per_batch' % qd], qd))


if __name__ == '__main__':
    main()

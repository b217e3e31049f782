#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Collect an nvmimic device's statistics when the guest powers off.

usage: qmp-stats.py SOCKET DEVICE_ID OUT_JSON TIMEOUT_S [STATE_JSON]

QEMU runs with -no-shutdown and -qmp unix:SOCKET,server=on,wait=off.  This
connects, waits for the guest's SHUTDOWN event, writes the answer of
query-nvmimic-stats for DEVICE_ID to OUT_JSON, and quits QEMU.  It always
sends quit, so a failure here cannot leave QEMU paused forever.

With STATE_JSON (the arguments of nvmimic-set-state, without "id"), QEMU is
expected to start paused (-S): the state is set first, then the guest runs.

DEVICE_ID may name several devices, comma-separated (one guest boot for
several drives): each gets the state, and OUT_JSON holds {ID: stats, ...}.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nvmimic_qmp import QMP, QemuError  # noqa: E402


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__.strip().splitlines()[2])
    path, dev, out = sys.argv[1:4]
    timeout_s = float(sys.argv[4])
    state = json.loads(sys.argv[5]) if len(sys.argv) == 6 else None
    deadline = time.monotonic() + timeout_s
    try:
        qmp = QMP.connect(path, timeout_s)
    except QemuError as e:
        sys.exit(f"qmp-stats: {e}")
    try:
        devs = dev.split(',')
        if state is not None:
            for d in devs:
                qmp.execute('nvmimic-set-state', id=d, **state)
            qmp.execute('cont')
        qmp.wait_event('SHUTDOWN', max(1.0, deadline - time.monotonic()))
        stats = {d: qmp.execute('query-nvmimic-stats', id=d) for d in devs}
        with open(out, 'w') as o:
            json.dump(stats[dev] if len(devs) == 1 else stats, o, indent=1)
    except QemuError as e:
        sys.exit(f"qmp-stats: {e}")
    finally:
        try:
            qmp.execute('quit')
        except (OSError, QemuError):
            pass


if __name__ == '__main__':
    main()

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
import socket
import sys
import time


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__.strip().splitlines()[2])
    path, dev, out = sys.argv[1:4]
    timeout_s = float(sys.argv[4])
    state = json.loads(sys.argv[5]) if len(sys.argv) == 6 else None
    deadline = time.monotonic() + timeout_s
    sock = socket.socket(socket.AF_UNIX)
    while True:
        try:
            sock.connect(path)
            break
        except OSError:
            if time.monotonic() > deadline:
                sys.exit(f"qmp-stats: cannot connect to {path}")
            time.sleep(0.05)
    f = sock.makefile('rwb', buffering=0)

    def recv():
        line = f.readline()
        if not line:
            raise EOFError("QEMU closed the QMP connection")
        return json.loads(line)

    def execute(cmd, **args):
        msg = {'execute': cmd}
        if args:
            msg['arguments'] = args
        f.write(json.dumps(msg).encode() + b'\n')
        while True:
            r = recv()
            if 'return' in r or 'error' in r:
                return r

    try:
        recv()                                  # greeting
        execute('qmp_capabilities')
        devs = dev.split(',')
        if state is not None:
            for d in devs:
                r = execute('nvmimic-set-state', id=d, **state)
                if 'error' in r:
                    sys.exit(f"qmp-stats: nvmimic-set-state {d}: {r['error']['desc']}")
            execute('cont')
        while True:
            ev = recv()
            if ev.get('event') == 'SHUTDOWN':
                break
        stats = {}
        for d in devs:
            r = execute('query-nvmimic-stats', id=d)
            if 'error' in r:
                sys.exit(f"qmp-stats: query-nvmimic-stats {d}: {r['error']['desc']}")
            stats[d] = r['return']
        with open(out, 'w') as o:
            json.dump(stats[dev] if len(devs) == 1 else stats, o, indent=1)
    finally:
        try:
            execute('quit')
        except (OSError, EOFError):
            pass


if __name__ == '__main__':
    main()

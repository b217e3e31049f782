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
        if state is not None:
            r = execute('nvmimic-set-state', id=dev, **state)
            if 'error' in r:
                sys.exit(f"qmp-stats: nvmimic-set-state {dev}: {r['error']['desc']}")
            execute('cont')
        while True:
            ev = recv()
            if ev.get('event') == 'SHUTDOWN':
                break
        r = execute('query-nvmimic-stats', id=dev)
        if 'error' in r:
            sys.exit(f"qmp-stats: query-nvmimic-stats {dev}: {r['error']['desc']}")
        with open(out, 'w') as o:
            json.dump(r['return'], o, indent=1)
    finally:
        try:
            execute('quit')
        except (OSError, EOFError):
            pass


if __name__ == '__main__':
    main()

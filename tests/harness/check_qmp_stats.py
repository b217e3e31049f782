#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check_qmp_stats.py: vm-images/qmp-stats.py (run-guest.sh --device-stats)
on nvmimic's Python QMP client, against a QMP server played here.

The server sends the greeting, answers each command, sets an event aside
before the SHUTDOWN the script waits for, and records what it was sent:
capabilities first, the state for each device, cont, then (after
SHUTDOWN) the statistics of each device, and quit even after a failure.
Prints one line per case; "check_qmp_stats: FAIL ..." and exit 1 otherwise.
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, '..', '..', 'vm-images', 'qmp-stats.py')
bad = []


def serve(path, fail_cmd, got):
    """One QMP session on @path: every command appended to @got; the
    command @fail_cmd gets an error."""
    lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    lsock.bind(path)
    lsock.listen(1)
    lsock.settimeout(30)
    conn, _ = lsock.accept()
    f = conn.makefile('rwb', buffering=0)

    def send(obj):
        f.write(json.dumps(obj).encode() + b'\n')

    send({'QMP': {'version': {}, 'capabilities': []}})
    for line in f:
        msg = json.loads(line)
        cmd = msg['execute']
        got.append((cmd, msg.get('arguments', {})))
        if cmd == fail_cmd:
            send({'error': {'class': 'GenericError', 'desc': 'no such id'}})
        elif cmd == 'query-nvmimic-stats':
            send({'return': {'id': msg['arguments']['id'], 'reads': 7}})
        else:
            send({'return': {}})
        if cmd == 'cont':
            # an event the script must pass over, then the power-off
            send({'event': 'RESUME', 'data': {}})
            send({'event': 'SHUTDOWN', 'data': {'guest': True}})
        if cmd == 'quit':
            break
    conn.close()
    lsock.close()


def case(name, devs, fail_cmd, want_rc, want_cmds, want_out):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'qmp.sock')
        out = os.path.join(tmp, 'stats.json')
        got = []
        t = threading.Thread(target=serve, args=(path, fail_cmd, got))
        t.start()
        p = subprocess.run([sys.executable, SCRIPT, path, devs, out, '30',
                            '{"fill-pct": 100}'], capture_output=True,
                           text=True, timeout=60)
        t.join(30)
        data = None
        if os.path.exists(out):
            with open(out) as f:
                data = json.load(f)
        ok = (p.returncode == want_rc and [c for c, _ in got] == want_cmds
              and data == want_out)
        print(f"check_qmp_stats: {'ok  ' if ok else 'FAIL'} {name}: exit "
              f"{p.returncode} {p.stderr.strip()!r}, sent {got}, "
              f"wrote {data}")
        if not ok:
            bad.append(name)
        return got


got = case('two devices', 'nvm0,nvm1', None, 0,
           ['qmp_capabilities', 'nvmimic-set-state', 'nvmimic-set-state',
            'cont', 'query-nvmimic-stats', 'query-nvmimic-stats', 'quit'],
           {'nvm0': {'id': 'nvm0', 'reads': 7},
            'nvm1': {'id': 'nvm1', 'reads': 7}})
if got[1][1] != {'id': 'nvm0', 'fill-pct': 100}:
    print(f"check_qmp_stats: FAIL the state's arguments: {got[1][1]}")
    bad.append('state arguments')
case('one device', 'nvm0', None, 0,
     ['qmp_capabilities', 'nvmimic-set-state', 'cont',
      'query-nvmimic-stats', 'quit'], {'id': 'nvm0', 'reads': 7})
# QEMU refuses the state: the script says so, and still quits QEMU
case('a refused state', 'nvm0', 'nvmimic-set-state', 1,
     ['qmp_capabilities', 'nvmimic-set-state', 'quit'], None)
sys.exit(1 if bad else 0)

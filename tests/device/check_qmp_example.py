#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qmp_example.py, the QMP session README shows, still runs and says what
README says it does: the set-state exchange answered with an empty return,
then query-nvmimic-stats counting exactly the 1,024 reads the example made
(32 batches of 32) on a drive the set-state filled.

    python3 tests/device/check_qmp_example.py
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def exchanges(text):
    """[(request, answer)] from the example's '-> ' and '<- ' lines."""
    out, req, ans = [], None, None
    for line in text.splitlines():
        if line.startswith('-> '):
            req = json.loads(line[3:])
        elif line.startswith('<- '):
            ans = [line[3:]]
        elif ans is not None and line.startswith('   '):
            ans.append(line[3:])
        else:
            raise SystemExit('check_qmp_example: unexpected line %r' % line)
        if ans is not None and req is not None:
            try:
                out.append((req, json.loads('\n'.join(ans))))
                req, ans = None, None
            except json.JSONDecodeError:
                pass                        # the answer goes on
    if req is not None or ans is not None:
        raise SystemExit('check_qmp_example: an exchange is cut short')
    return out


def main():
    r = subprocess.run([sys.executable, os.path.join(HERE, 'qmp_example.py')],
                       capture_output=True, text=True, timeout=100)
    if r.returncode:
        raise SystemExit('check_qmp_example: qmp_example.py exited %d:\n%s'
                         % (r.returncode, r.stderr))
    ex = exchanges(r.stdout)
    names = [q['execute'] for q, _ in ex]
    if names != ['nvmimic-set-state', 'query-nvmimic-stats']:
        raise SystemExit('check_qmp_example: exchanges %r' % names)
    if ex[0][1] != {'return': {}}:
        raise SystemExit('check_qmp_example: set-state answered %r' % ex[0][1])
    st = ex[1][1]['return']
    reads = [c for c in st['classes'] if c['class'] == 'read']
    if len(reads) != 1 or reads[0]['count'] != 1024:
        raise SystemExit('check_qmp_example: read class %r, not 1024 reads'
                         % reads)
    if not 99.0 <= st['fill-pct'] <= 100.0:
        raise SystemExit('check_qmp_example: fill-pct %r after fill-pct 100'
                         % st['fill-pct'])
    print('qmp_example: %d exchanges, %d reads counted, fill %.1f %%'
          % (len(ex), reads[0]['count'], st['fill-pct']))


if __name__ == '__main__':
    main()

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The distinct ThreadSanitizer reports in QEMU's log files (make check-tsan).

    tsan-reports.py LOG...

Each report ("WARNING: ThreadSanitizer: ..." up to its "SUMMARY:" line) is
keyed by its kind and the top frames of each stack it shows (the two
accesses of a race, or the stack of a lock/signal warning), so the same
race seen in many QEMU processes is one entry.  A report is nvmimic's when
one of those top frames is in hw/nvme/nvmimic/ (hw/ and backends/ of this
repository, as scripts/qemu-build.sh links them into QEMU's tree) or in
QEMU's hw/nvme/ that qemu/patches/ changes; otherwise QEMU's or glib's.

Prints one paragraph per distinct report, nvmimic's first, with how many
times it was seen and the first full report; exits 1 when any is nvmimic's,
else 0.
"""

import re
import sys

TOP = 4                  # frames of each stack that make the key
START = re.compile(r'WARNING: ThreadSanitizer: (.*?)(?: \(pid=\d+\))?$')
FRAME = re.compile(r'^\s*#(\d+) (\S+) (\S+)')
OURS = ('hw/nvme/nvmimic/', 'hw/nvme/ctrl.c', 'hw/nvme/ns.c')


def reports(text):
    cur = None
    for ln in text.splitlines():
        m = START.search(ln)
        if m:
            cur = [ln]
            continue
        if cur is not None:
            cur.append(ln)
            if ln.startswith('SUMMARY: ThreadSanitizer'):
                yield cur
                cur = None


def key_of(lines):
    kind = START.search(lines[0]).group(1)
    stacks, stack = [], None
    for ln in lines[1:]:
        m = FRAME.match(ln)
        if m:
            if m.group(1) == '0':
                stack = []
                stacks.append(stack)
            if stack is not None and len(stack) < TOP:
                stack.append((m.group(2), re.sub(r':\d+(:\d+)?$', '',
                                                 m.group(3))))
    # the stack a race report shows under "Location is" or "Thread T1
    # created at" is context, not the race: the first two stacks are the
    # two accesses (or the one stack of a single-stack warning)
    # (in either order: which access TSan saw first varies)
    return kind, tuple(sorted(tuple(s) for s in stacks[:2]))


def is_ours(key):
    return any(any(o in f[1] for o in OURS) for s in key[1] for f in s)


def main(paths):
    seen = {}
    for p in paths:
        with open(p, errors='replace') as f:
            for r in reports(f.read()):
                k = key_of(r)
                if k not in seen:
                    seen[k] = [0, '\n'.join(r), p]
                seen[k][0] += 1
    ours = [k for k in seen if is_ours(k)]
    theirs = [k for k in seen if not is_ours(k)]
    print('%d distinct ThreadSanitizer reports (%d seen in %d logs): %d in '
          "nvmimic's code, %d in QEMU's or glib's"
          % (len(seen), sum(v[0] for v in seen.values()), len(paths),
             len(ours), len(theirs)))
    for label, keys in (("nvmimic's", ours), ("QEMU's or glib's", theirs)):
        for k in sorted(keys, key=lambda k: -seen[k][0]):
            n, text, p = seen[k]
            print('\n=== %s: %s, seen %d times; top frames: %s'
                  % (label, k[0], n,
                     ' | '.join(', '.join(f[0] for f in s) for s in k[1])))
            print('first in %s:\n%s' % (p, text))
    return 1 if ours else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

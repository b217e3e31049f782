#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check.py RESULTS.json EXPECTED.tsv: every test's result on every
controller must be the expected one, and a test that passes on stock but not
on a profile must say why in EXPECTED's last column.

EXPECTED.tsv: '#' lines are comments; a header line 'test<TAB>stock<TAB>
<profile>...<TAB>why', then one line per test module with pass, fail, error
or skip per controller (controllers are named by the serial the host gave
them: 'stock' or the profile name)."""

import json
import sys


def main():
    results = json.load(open(sys.argv[1]))
    rows = [line.rstrip('\n').split('\t') for line in open(sys.argv[2])
            if line.strip() and not line.startswith('#')]
    head, rows = rows[0], rows[1:]
    ctrls = head[1:-1]
    problems = []
    if sorted(results) != sorted(ctrls):
        problems.append('controllers: the guest saw %s, EXPECTED has %s'
                        % (sorted(results), sorted(ctrls)))
    seen = set()
    for row in rows:
        if len(row) != len(head):
            problems.append('EXPECTED line for %s has %d columns, not %d'
                            % (row[0], len(row), len(head)))
            continue
        test, want, why = row[0], dict(zip(ctrls, row[1:-1])), row[-1]
        seen.add(test)
        for c in ctrls:
            got = results.get(c, {}).get('tests', {}).get(test)
            if got is None:
                problems.append('%s on %s: no result' % (test, c))
                continue
            if got['result'] != want[c]:
                problems.append('%s on %s: %s, expected %s (%s)'
                                % (test, c, got['result'], want[c],
                                   got['detail']))
            if (c != 'stock' and want['stock'] == 'pass' and
                    want[c] != 'pass' and not why.strip()):
                problems.append('%s: passes on stock, %s on %s, and '
                                'EXPECTED does not say why'
                                % (test, want[c], c))
    for c, r in results.items():
        for test in r['tests']:
            if test not in seen:
                problems.append('%s on %s: %s, not in EXPECTED'
                                % (test, c, r['tests'][test]['result']))
    for c in ctrls:
        r = results.get(c, {})
        tally = {}
        for t in r.get('tests', {}).values():
            tally[t['result']] = tally.get(t['result'], 0) + 1
        print('conformance: %-16s %-22s %5.0f s  %s'
              % (c, r.get('model', '?'), r.get('seconds', 0),
                 ', '.join('%d %s' % (n, k) for k, n in sorted(tally.items()))))
    for p in problems:
        print('conformance: FAIL ' + p)
    if problems:
        sys.exit(1)
    print('conformance: PASS %d tests x %d controllers as expected'
          % (len(rows), len(ctrls)))


if __name__ == '__main__':
    main()

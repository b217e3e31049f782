#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The four corners through the device (nvmimic qtest) against the model alone
(nvmimic sim), for every profile: the largest difference of any peak's IOPS
and of any point's mean latency, and what the qtest engine cost.

usage: bench/qtest_vs_sim.py [--nvmimic PATH] [--duration-s S] [--suite SUITE]
                             [PROFILE...]
Prints a Markdown table (docs/qtest.md) and one JSON line per
profile on stderr.  Default: every profile, four-corners, 1 s points.
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))


def run(nvmimic, *args):
    p = subprocess.run([nvmimic] + list(args), capture_output=True, text=True)
    if p.returncode:
        sys.exit('qtest_vs_sim: nvmimic %s failed: %s'
                 % (' '.join(args), p.stderr.strip().splitlines()[-1:]))
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--nvmimic', default=os.path.join(ROOT, 'build',
                                                      'nvmimic'))
    ap.add_argument('--duration-s', default='1')
    ap.add_argument('--suite', default='four-corners')
    ap.add_argument('profiles', nargs='*')
    o = ap.parse_args()
    profiles = o.profiles or sorted(
        f[:-4] for f in os.listdir(os.path.join(ROOT, 'profiles'))
        if f.endswith('.ini'))
    print('| profile | points | worst peak IOPS difference | worst latency '
          'difference | I/Os through the device | host s | I/Os per host s |')
    print('|---|---|---|---|---|---|---|')
    for prof in profiles:
        args = ['--profile', prof, '--suite', o.suite, '--duration-s',
                o.duration_s, '--format', 'json']
        t = time.monotonic()
        dev = run(o.nvmimic, 'qtest', *args)
        wall = time.monotonic() - t
        sim = {w['name']: w for w in run(o.nvmimic, 'sim', *args)['workloads']}
        peak = lat = 0.0
        n = 0
        for w in dev['workloads']:
            s = sim[w['name']]
            peak = max(peak, abs(w['peak']['iops'] / s['peak']['iops'] - 1))
            for dp, sp in zip([w['peak']] + w['curve'],
                              [s['peak']] + s['curve']):
                lat = max(lat, abs(dp['lat_us'] / sp['lat_us'] - 1))
                n += 1
        sp = dev['speed']
        print('| %s | %d | %.4f %% | %.4f %% | %d | %.1f | %.0f |'
              % (prof, n, 100 * peak, 100 * lat, sp['ios'], sp['host_s'],
                 sp['ios_per_host_s']))
        print(json.dumps({'profile': prof, 'suite': o.suite,
                          'duration_s': float(o.duration_s), 'points': n,
                          'worst_peak_pct': 100 * peak,
                          'worst_lat_pct': 100 * lat, 'speed': sp,
                          'wall_s': round(wall, 1)}), file=sys.stderr)
        sys.stdout.flush()


if __name__ == '__main__':
    main()

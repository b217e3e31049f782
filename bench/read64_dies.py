#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""read64_dies.py [--reviews TSV] [--profiles DIR] [--drives A,B]
[--path-mbps MB/s]: what die time per page the reviews' 64K sequential
reads imply (issue 28 item 2).

A back-of-the-envelope queue, not the drive model: 16 reads outstanding
(the reviews' count), each 64 KiB = four 16 KiB page reads on four dies,
then the read path (one server at --path-mbps; default 3400, the P5's
rated sequential read; 0: none), the read done when it leaves the path.
A die serves its pages one at a time, first come first served, with no
other limit (no channel, no core).  The four pages go to four dies drawn
at random ("random": data placed wherever a die was free), to the next
four of a stripe after the previous read's ("sequential": one stream over
the fill's layout), or all to one die drawn at random ("one die": the
write path's program unit, a TLC unit of 192 KiB on one die, read by
streams at unrelated places).  The die time of a page is the time a die spends per 4K
read in the review's own 4K random-read row (dies / IOPS; the P5s' rows
are die-bound) plus an extra X us, found by bisection so that the queue
gives the review's 64K IOPS.

For each drive it prints the 4K row's die time, the X each layout needs
and the queue's latency there against the review's; then, for each
layout, one X for all drives (their mean) and each drive's IOPS with it;
what the model's own NAND part gives a page read if the die is held
until the page is off its channel (tR + page / channel rate); and each
layout's IOPS with that page time, nothing fitted.  The closing
notes of issue 28 (2026-12-06) say what it was used for.  Deterministic
(seed 1); about a minute.
"""
import argparse
import configparser
import heapq
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QD = 16
PAGES = 4


def queue(dies, page_us, layout, path_us, sim_us=1e6, seed=1):
    """IOPS and mean latency (us) of the closed loop: each read's pages
    queue at their dies in the order reads are issued, then the read
    queues at the path in the order its last page finished."""
    rnd = random.Random(seed)
    free = [0.0] * dies
    path_free = 0.0
    nxt = 0
    t0 = [0.0] * QD
    # (time, kind, reader): kind 0 = issue a read, 1 = its pages are done
    ev = [(0.0, 0, j) for j in range(QD)]
    heapq.heapify(ev)
    done = 0
    lat = 0.0
    while ev:
        t, kind, j = heapq.heappop(ev)
        if kind == 1:
            path_free = max(t, path_free) + path_us
            done += 1
            lat += path_free - t0[j]
            heapq.heappush(ev, (path_free, 0, j))
            continue
        if t > sim_us:
            break
        t0[j] = t
        if layout == 'random':
            which = rnd.sample(range(dies), PAGES)
        elif layout == 'one die':
            which = [rnd.randrange(dies)] * PAGES
        else:
            which = [(nxt + k) % dies for k in range(PAGES)]
            nxt = (nxt + PAGES) % dies
        end = t
        for d in which:
            start = max(t, free[d])
            free[d] = start + page_us
            end = max(end, free[d])
        heapq.heappush(ev, (end, 1, j))
    return done / sim_us * 1e6, lat / done


def solve(dies, base_us, want_iops, layout, path_us):
    """The extra us per page that gives @want_iops, or None."""
    lo, hi = -base_us * 0.5, 1000.0
    if queue(dies, base_us + hi, layout, path_us)[0] > want_iops:
        return None
    if queue(dies, base_us + lo, layout, path_us)[0] < want_iops:
        return None
    for _ in range(30):
        mid = (lo + hi) / 2
        if queue(dies, base_us + mid, layout, path_us)[0] > want_iops:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def ini(path):
    cp = configparser.ConfigParser(inline_comment_prefixes=None,
                                   strict=False, interpolation=None)
    if not cp.read(path):
        sys.exit('read64_dies: %s: no such file' % path)
    return cp


def profile_dies(pdir, drive):
    """channels x dies-per-channel of the drive's profile, and the die
    time of a native page read held until its page is off the channel
    (its NAND part's tR + page / channel rate), us."""
    path = os.path.join(pdir, drive + '.ini')
    cp = ini(path)
    try:
        dies = (int(cp['nand']['channels']) *
                int(cp['nand']['dies-per-channel']))
        part = ini(os.path.join(pdir, 'parts', 'nand',
                                cp['parts']['nand'] + '.ini'))['nand']
        tr = float(part.get('read-us-tlc') or part['read-us-qlc'])
        page_us = tr + float(part['page-bytes']) / float(part['channel-mbps'])
    except (KeyError, ValueError) as e:
        sys.exit('read64_dies: %s or its NAND part: %s missing or not a '
                 'number' % (path, e))
    return dies, page_us


def reviews(tsv):
    """{drive: {workload: (iops, lat_us or None)}} from four-corners.tsv."""
    rows = {}
    head = None
    with open(tsv) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith('#'):
                continue
            c = line.rstrip('\n').split('\t')
            if head is None:
                head = c
                continue
            r = dict(zip(head, c))
            try:
                iops = float(r['peak_iops'].lstrip('~'))
                lat = (None if r['lat_us'] in ('-', '')
                       else float(r['lat_us']))
            except (KeyError, ValueError):
                sys.exit('read64_dies: %s:%d: peak_iops or lat_us is not a '
                         'number' % (tsv, n))
            rows.setdefault(r['drive'], {})[r['workload']] = (iops, lat)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--reviews', default=os.path.join(
        ROOT, 'profiles', 'reviews', 'four-corners.tsv'))
    ap.add_argument('--profiles', default=os.path.join(ROOT, 'profiles'))
    ap.add_argument('--drives', default='crucial-p5-1tb,crucial-p5-2tb')
    ap.add_argument('--path-mbps', type=float, default=3400)
    a = ap.parse_args()
    if a.path_mbps < 0:
        sys.exit('read64_dies: --path-mbps %g: not a rate' % a.path_mbps)
    path_us = 65536 / a.path_mbps if a.path_mbps else 0.0
    rev = reviews(a.reviews)
    drives = a.drives.split(',')
    base = {}
    print('%-16s %5s %10s %10s %9s %9s %9s %16s' % (
        'drive', 'dies', '4K us/die', '64K IOPS', 'X random', 'X seq',
        'X 1 die', 'lat random/rev'))
    xs = {'random': [], 'sequential': [], 'one die': []}
    model_page = {}
    for d in drives:
        if d not in rev or '4k-random-read' not in rev[d] or \
                '64k-seq-read' not in rev[d]:
            sys.exit('read64_dies: %s has no 4K and 64K read rows in %s'
                     % (d, a.reviews))
        dies, model_page[d] = profile_dies(a.profiles, d)
        b = dies / rev[d]['4k-random-read'][0] * 1e6
        want, want_lat = rev[d]['64k-seq-read']
        xr = solve(dies, b, want, 'random', path_us)
        xst = solve(dies, b, want, 'sequential', path_us)
        x1 = solve(dies, b, want, 'one die', path_us)
        base[d] = (dies, b)
        lat = (queue(dies, b + xr, 'random', path_us)[1] if xr is not None
               else None)
        print('%-16s %5d %10.1f %10.0f %9s %9s %9s %16s' % (
            d, dies, b, want,
            '%.1f' % xr if xr is not None else '-',
            '%.1f' % xst if xst is not None else '-',
            '%.1f' % x1 if x1 is not None else '-',
            '%.0f / %s' % (lat, '%.0f' % want_lat if want_lat else '-')
            if lat else '-'))
        for lay, x in (('random', xr), ('sequential', xst), ('one die', x1)):
            if x is not None:
                xs[lay].append(x)
    print('\nthe die time per page these give (4K row + X) against the '
          "model's NAND part held through its data-out:")
    for d in drives:
        dies, b = base[d]
        print('  %-16s model %.1f us; random %s, sequential %s, one die %s' % (
            d, model_page[d], *[
                '%.1f' % (b + xs[lay][drives.index(d)])
                if len(xs[lay]) == len(drives) else '-'
                for lay in ('random', 'sequential', 'one die')]))
    for lay in ('random', 'sequential', 'one die'):
        if len(xs[lay]) != len(drives):
            continue
        x = sum(xs[lay]) / len(xs[lay])
        print('\none X for all, %.1f us (%s, path %s):'
              % (x, lay, '%g MB/s' % a.path_mbps if a.path_mbps else 'none'))
        for d in drives:
            dies, b = base[d]
            iops, lat = queue(dies, b + x, lay, path_us)
            want, want_lat = rev[d]['64k-seq-read']
            print('  %-16s %8.0f IOPS (%+.1f %%), %.0f us (review %s)' % (
                d, iops, 100 * (iops / want - 1), lat,
                '%.0f' % want_lat if want_lat else '-'))
    print("\nwith the model's page time, nothing fitted (path %s):"
          % ('%g MB/s' % a.path_mbps if a.path_mbps else 'none'))
    for lay in ('random', 'sequential', 'one die'):
        for d in drives:
            dies, b = base[d]
            iops, lat = queue(dies, model_page[d], lay, path_us)
            want, want_lat = rev[d]['64k-seq-read']
            print('  %-10s %-16s %8.0f IOPS (%+.1f %%), %.0f us (review %s)'
                  % (lay, d, iops, 100 * (iops / want - 1), lat,
                     '%.0f' % want_lat if want_lat else '-'))
    return 0


if __name__ == '__main__':
    sys.exit(main())

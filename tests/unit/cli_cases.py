#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The nvmimic CLI's basic cases: what each prints, not only its exit status.

    cli_cases.py NVMIMIC PROFILE_DIR CASE

CASE is one of:
  lists-profiles     `nvmimic profiles` names every profiles/*.ini, once
  four-corners-json  `sim --format json`: the four workloads, each point
                     consistent in itself (MB/s = IOPS x block, Little's law
                     at the peak, p50 <= p99 <= p99.9, the offered load met
                     below saturation)
  slc-cliff          `sim --suite slc-cliff`: a point per --step-gb over the
                     whole drive, then --after-gb after the idle time; the
                     native rate after the SLC cache is below the SLC rate
  mix-json           `sim --suite mix --format json`: both size mixes, a point
                     per --mix-outstanding count and read share, reads and writes
                     adding up to the point's IOPS in the share it names
  unknown-profile    refused: exit 1, one line naming the profile
  unknown-suite      refused: exit 2 (usage), one line naming the suite
  bad-seed           refused: exit 2 (usage), one line naming the value
  mix-bad-outstanding  refused: exit 2, one line naming the count out of order
  outstanding-not-mix  refused: exit 2, one line: --mix-outstanding is for mix
  empty-value        refused: exit 2, one line: an option given "" (compare
                     --out '' used to fail as ': Invalid argument')
  suite-options      an option the chosen suite does not read refused: exit
                     2, one line naming the suites that read it
  numbers            numbers a run cannot mean (durations under 1 ms, spans
                     past the drive, GB that overflow, a guest --mem QEMU's
                     -m cannot take) refused; 010 decimal
  tables             malformed reviews, VDI and validation tables refused
                     with file:line and column; a missing report --reviews
                     too
  self-test          the refusal cases fail on a program that dies on a
                     signal, exits with another status or says nothing

A refusal is checked for its exact exit status: a program killed by a
signal (SIGSEGV, SIGABRT) fails the case, as meson's should_fail would not.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def run(argv, timeout=300):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    check(p.returncode >= 0, '%s died on signal %d; stderr: %s'
          % (' '.join(argv), -p.returncode, p.stderr.strip()[-300:]))
    return p


def ok(argv):
    p = run(argv)
    check(p.returncode == 0, '%s exited %d: %s'
          % (' '.join(argv), p.returncode, p.stderr.strip()))
    return p


def refused(argv, status, needle):
    """@argv must exit @status with one line on stderr naming @needle and
    nothing on stdout."""
    p = run(argv)
    check(p.returncode == status, '%s exited %d, not %d; stderr: %r'
          % (' '.join(argv), p.returncode, status, p.stderr))
    lines = p.stderr.strip('\n').split('\n')
    check(len(lines) == 1 and lines[0].startswith('nvmimic ')
          and needle in lines[0],
          'stderr is not one "nvmimic ..." line naming %r: %r'
          % (needle, p.stderr))
    check(p.stdout == '', 'a refusal printed on stdout: %r' % p.stdout)
    print('ok: exit %d, %s' % (status, lines[0]))


def near(a, b, rel):
    return abs(a - b) <= rel * max(abs(a), abs(b))


def t_lists_profiles(nvmimic, pdir):
    want = sorted(os.path.basename(p)[:-4]
                  for p in glob.glob(os.path.join(pdir, '*.ini')))
    check(want, 'no profile in %s' % pdir)
    out = ok([nvmimic, 'profiles']).stdout.splitlines()
    names = [line.split()[0] for line in out if line.strip()]
    check(names == want, 'profiles listed %r, the folder has %r'
          % (names, want))
    print('ok: %d profiles listed, one line each' % len(names))


def t_four_corners_json(nvmimic, pdir):
    doc = json.loads(ok([nvmimic, 'sim', '--profile', 'crucial-p2-500g',
                         '--suite', 'four-corners', '--duration-s', '0.2',
                         '--format', 'json']).stdout)
    check(doc['profile'] == 'crucial-p2-500g' and doc['mode'] == 'sim',
          'profile %r, mode %r' % (doc['profile'], doc['mode']))
    blocks = {w['name']: w['block_bytes'] for w in doc['workloads']}
    check(blocks == {'4k-random-read': 4096, '4k-random-write': 4096,
                     '64k-seq-read': 65536, '64k-seq-write': 65536},
          'workloads %r' % blocks)
    for w in doc['workloads']:
        name = w['name']
        pts = [('peak', w['peak'])] + [('%d %%' % p['target_pct'], p)
                                       for p in w['curve']]
        for what, p in pts:
            where = '%s %s' % (name, what)
            check(p['iops'] > 0 and p['lat_us'] > 0, where + ': empty')
            check(near(p['mbps'], p['iops'] * w['block_bytes'] / 1e6, 0.01),
                  '%s: %.2f MB/s is not %.0f IOPS x %d B'
                  % (where, p['mbps'], p['iops'], w['block_bytes']))
            check(p['p50_us'] <= p['p99_us'] <= p['p999_us'],
                  '%s: percentiles out of order' % where)
        # the peak runs `threads` commands outstanding: Little's law
        inflight = w['peak']['iops'] * w['peak']['lat_us'] / 1e6
        check(near(inflight, w['threads'], 0.03),
              '%s peak: %.0f IOPS x %.1f us = %.1f outstanding, not %d'
              % (name, w['peak']['iops'], w['peak']['lat_us'], inflight,
                 w['threads']))
        pcts = [p['target_pct'] for p in w['curve']]
        check(pcts == list(range(10, 10 * len(pcts) + 1, 10)),
              '%s: curve at %r %%' % (name, pcts))
        # the targets are percentages of the peak this run measured (not
        # of the review's, nor of another workload's)
        for p in w['curve']:
            want = w['peak']['iops'] * p['target_pct'] / 100
            check(near(p['target_iops'], want, 1e-3),
                  '%s %d %%: target %.1f IOPS, not %d %% of its peak %.1f'
                  % (name, p['target_pct'], p['target_iops'],
                     p['target_pct'], w['peak']['iops']))
        for p in w['curve']:
            # open-loop (Poisson) load well below the peak is served as
            # offered, within 4 standard deviations of its arrival count
            n = p['target_iops'] * doc['duration_s']
            if p['target_pct'] <= 50:
                check(near(p['iops'], p['target_iops'],
                           max(0.01, 4 / n ** 0.5)),
                      '%s %d %%: %.0f IOPS for %.0f offered (%.0f arrivals)'
                      % (name, p['target_pct'], p['iops'],
                         p['target_iops'], n))
        print('ok: %s, %d points, peak %.0f IOPS at %d outstanding'
              % (name, len(pts), w['peak']['iops'], w['threads']))


def t_slc_cliff(nvmimic, pdir):
    step, after = 50, 100
    doc = json.loads(ok([nvmimic, 'sim', '--profile', 'crucial-p5-1tb',
                         '--suite', 'slc-cliff', '--step-gb', str(step),
                         '--idle-s', '60', '--after-gb', str(after),
                         '--format', 'json']).stdout)
    cap_gb = None
    with open(os.path.join(pdir, 'crucial-p5-1tb.ini')) as f:
        for line in f:
            m = re.match(r'capacity-bytes\s*=\s*(\d+)', line)
            if m:
                cap_gb = int(m.group(1)) / 1e9
    check(cap_gb, 'no capacity-bytes in crucial-p5-1tb.ini')
    fill = [p for p in doc['points'] if not p['after_idle']]
    later = [p for p in doc['points'] if p['after_idle']]
    gb = [p['gb_written'] for p in fill]
    check(gb == [step * (i + 1) for i in range(len(gb))]
          and cap_gb - step < gb[-1] <= cap_gb + 0.01,
          'fill points at %r GB for a %.0f GB drive' % (gb, cap_gb))
    # after the idle time, a point per step from the end of the drive
    at = [p['gb_written'] for p in later]
    check(len(at) == after // step
          and all(abs(a - (cap_gb + step * (i + 1))) < 0.1
                  for i, a in enumerate(at)),
          'after-idle points at %r GB after a %.1f GB fill' % (at, cap_gb))
    for p in doc['points']:
        check(p['mbps'] > 0 and p['slc_used_gb'] >= 0, 'point %r' % p)
    check(fill[0]['mbps'] > fill[-1]['mbps'],
          'the first fill point (%.0f MB/s, into SLC) is not faster than '
          'the last (%.0f MB/s)' % (fill[0]['mbps'], fill[-1]['mbps']))
    print('ok: %d fill points to %.0f GB, %d after idle; %.0f MB/s into SLC,'
          ' %.0f MB/s at the end' % (len(fill), gb[-1], len(later),
                                     fill[0]['mbps'], fill[-1]['mbps']))


def t_mix_json(nvmimic, pdir):
    doc = json.loads(ok([nvmimic, 'sim', '--profile', 'crucial-p2-500g',
                         '--suite', 'mix', '--duration-s', '0.2',
                         '--mix-outstanding', '1,32', '--format', 'json']).stdout)
    check(doc['suite'] == 'mix' and doc['profile'] == 'crucial-p2-500g'
          and doc['duration_s'] == 0.2, 'header %r' % {
              k: v for k, v in doc.items() if k != 'sizes'})
    check([s['name'] for s in doc['sizes']] == ['4k', 'vdi'],
          'size mixes %r' % [s['name'] for s in doc['sizes']])
    for s in doc['sizes']:
        got = [(p['outstanding'], p['read_pct']) for p in s['points']]
        want = [(q, 10 * i) for q in (1, 32) for i in range(11)]
        check(got == want, '%s: points %r' % (s['name'], got))
        for p in s['points']:
            where = '%s %d outstanding %d %% reads' % (
                s['name'], p['outstanding'], p['read_pct'])
            check(p['iops'] > 0, where + ': empty')
            check(near(p['read_iops'] + p['write_iops'], p['iops'], 1e-3),
                  '%s: %.1f + %.1f is not %.1f IOPS' % (
                      where, p['read_iops'], p['write_iops'], p['iops']))
            share = 100 * p['read_iops'] / p['iops']
            check(abs(share - p['read_pct']) <= 5,
                  '%s: %.1f %% of the I/Os were reads' % (where, share))
        if s['name'] == '4k':
            check(all(near(p['mbps'], p['iops'] * 4096 / 1e6, 0.01)
                      for p in s['points']), '4k: MB/s is not IOPS x 4 KiB')
    print('ok: %d points per size mix, reads + writes = IOPS at the '
          'named shares' % len(doc['sizes'][0]['points']))


REFUSALS = {
    'unknown-profile': (['sim', '--profile', 'no-such-drive', '--suite',
                         'four-corners'], 1, 'no-such-drive'),
    'unknown-suite': (['sim', '--profile', 'crucial-p2-500g', '--suite',
                       'nope'], 2, "'nope'"),
    'bad-seed': (['sim', '--profile', 'crucial-p2-500g', '--suite',
                  'four-corners', '--seed', 'x'], 2, "'x'"),
    'mix-bad-outstanding': (['sim', '--profile', 'crucial-p2-500g',
                             '--suite', 'mix', '--mix-outstanding', '4,2'],
                            2, "--mix-outstanding: '2' does not follow 4"),
    'empty-value': (['compare', '.', '--out', ''], 2,
                    '--out: an empty value'),
    'outstanding-not-mix': (['sim', '--profile', 'crucial-p2-500g',
                             '--suite', 'four-corners', '--mix-outstanding',
                             '4'], 2, '--mix-outstanding is for --suite mix'),
}


def t_suite_options(nvmimic, pdir):
    """An option the chosen suite does not read is refused, naming the
    suites that do (they used to be ignored: --step-gb with four-corners
    ran four-corners as if it were not there)."""
    sim = [nvmimic, 'sim', '--profile', 'crucial-p2-500g']
    for args, needle in (
            (['--suite', 'four-corners', '--step-gb', '5'],
             '--step-gb is not read by --suite four-corners (it is for '
             'slc-cliff)'),
            (['--suite', 'vdi', '--block-size', '4096'],
             '--block-size is not read by --suite vdi (it is for '
             'slc-cliff, point)'),
            (['--suite', 'slc-cliff', '--quick'],
             '--quick is not read by --suite slc-cliff'),
            (['--suite', 'point', '--seed', '2'],
             '--seed is not read by --suite point'),
            (['--suite', 'point', '--state', 'review', '--span-gb', '3'],
             '--span-gb is for --state empty'),
            (['--suite', 'mix', '--threads', 'implied'],
             '--threads is not read by --suite mix (it is for '
             'four-corners)'),
            (['--trace', '/nonexistent', '--outstanding', '4'],
             '--outstanding is not read by --trace')):
        refused(sim + args, 2, needle)
    # the options a suite does read still run it
    out = ok(sim + ['--suite', 'point', '--state', 'review', '--op', 'write',
                    '--duration-s', '0.01']).stdout
    check("the review's state" in out, 'point --state review: %r' % out)


def t_numbers(nvmimic, pdir):
    """Numbers outside what a run can mean are refused with one line (they
    used to give inf IOPS, wrap to 0 in a cast, or run for ever), and a
    leading zero is decimal, not octal."""
    sim = [nvmimic, 'sim', '--profile', 'crucial-p2-500g']
    point = sim + ['--suite', 'point', '--duration-s', '0.01']
    cliff = sim + ['--suite', 'slc-cliff']
    for args, needle in (
            (point[:-1] + ['1e-9'], "--duration-s '1e-9' must be a number "
             "in [0.001, 3600]"),
            (point[:-1] + ['0x1p-1074'], "--duration-s '0x1p-1074'"),
            (point + ['--span-gb', '1e-12'], "--span-gb '1e-12'"),
            (point + ['--span-gb', '1e300'], "--span-gb '1e300'"),
            (point + ['--span-gb', '600'],
             "--span-gb 600 is more than crucial-p2-500g's 500 GB"),
            (cliff + ['--step-gb', '1e300'], "--step-gb '1e300'"),
            (cliff + ['--after-gb', '1.8e10'], "--after-gb '1.8e10'"),
            (cliff + ['--idle-s', '1e300'], "--idle-s '1e300'"),
            ([nvmimic, 'calibrate', '--reviews', '/dev/null',
              '--duration-s', '1e-300'], "--duration-s '1e-300'"),
            ([nvmimic, 'doctor', '--no-kvm-probe', '--seconds', '1e-300'],
             "--seconds '1e-300'")):
        refused(args, 2, needle)
    # qemu-line passed any --mem on to QEMU's -m, to fail there in QEMU's words
    line = [nvmimic, 'qemu-line', '--qemu', 'q', '--guest', 'g', '--console',
            'c', '--job-tar', 'j', '--results-img', 'r', '--mem']
    for mem in ('abc', '8M', '2T', '0x10', '1e3', '512MB', '1.G'):
        refused(line + [mem], 2, "--mem %s: a size such as 512M or 2G" % mem)
    for mem in ('512', '512M', '1.5G', '1048576'):
        out = ok(line + [mem, '--format', 'shell']).stdout
        check("'-m' '%s' " % mem in out, '--mem %s: %r' % (mem, out))
    out = ok(point + ['--outstanding', '010']).stdout
    check('10 outstanding' in out, '--outstanding 010: %r' % out)
    out = ok(point + ['--outstanding', '0x10']).stdout
    check('16 outstanding' in out, '--outstanding 0x10: %r' % out)
    print('ok: 010 is ten outstanding, 0x10 sixteen; --mem sizes checked')


def t_tables(nvmimic, pdir):
    """A reviews table or validation file that is not one is refused with
    one line naming the file, the line and the column; so is a missing
    --reviews given to report (it used to be ignored)."""
    four = os.path.join(pdir, 'reviews', 'four-corners.tsv')
    head = [l for l in open(four) if not l.startswith('#')][0]
    row = ('crucial-p2-500g\t4k-random-read\t4096\trandom\tread\t128\t'
           '%s\t934\t%s\t561.3\t%s\t\n')
    with tempfile.TemporaryDirectory() as d:
        cases = (('extra columns', row.rstrip('\n') % ('228048', '560.4', 'y')
                  + '\textra\n', ':2: 13 columns, the header has 12'),
                 ('junk latency', row % ('228048', 'junk', 'y'),
                  ':2: column lat_us: "junk"'),
                 ('NaN IOPS', row % ('NaN', '560.4', 'y'),
                  ':2: column peak_iops: "NaN"'),
                 ('consistent maybe', row % ('228048', '560.4', 'maybe'),
                  ':2: column consistent: "maybe"'),
                 ('no rows', '', ': no rows after the header'))
        for name, body, needle in cases:
            f = os.path.join(d, name.replace(' ', '-') + '.tsv')
            with open(f, 'w') as fh:
                fh.write(head + body)
            refused([nvmimic, 'calibrate', '--reviews', f,
                     '--duration-s', '0.01'], 1, f + needle)
        # a value is quoted, bytes escaped (terminal escapes went out raw)
        f = os.path.join(d, 'escape.tsv')
        with open(f, 'w') as fh:
            fh.write(head + row % ('\x1b[31m1', '560.4', 'y'))
        refused([nvmimic, 'calibrate', '--reviews', f, '--duration-s',
                 '0.01'], 1, f + ':2: column peak_iops: "\\x1b[31m1"')
        vhead = [l for l in open(os.path.join(pdir, 'reviews',
                                              'validation.tsv'))
                 if not l.startswith('#')][0]
        f = os.path.join(d, 'v.tsv')
        with open(f, 'w') as fh:
            fh.write(vhead)
        refused([nvmimic, 'validate', '--figures', f], 1,
                'no figures after the header line')
        # not a regular file: /dev/zero was read until memory ran out
        refused([nvmimic, 'calibrate', '--reviews', '/dev/zero',
                 '--duration-s', '0.01'], 1, '/dev/zero: not a regular file')
        refused([nvmimic, 'validate', '--figures', '/dev/zero'], 1,
                '/dev/zero: not a regular file')
        refused([nvmimic, 'fit', '--reviews', '/dev/zero', '--no-loo',
                 '--no-cross', '--max-evals', '1'], 1,
                '/dev/zero: not a regular file')
        refused([nvmimic, 'report', d, '--reviews', '/dev/zero'], 2,
                '/dev/zero: not a regular file')
        refused([nvmimic, 'report', d, '--reviews',
                 os.path.join(d, 'none.tsv')], 2,
                '--reviews Failed to open file')
        # the VDI figures beside a reviews table (fit --with-vdi): a hex
        # or underflowing number was read as one (0x10: 16 IOPS)
        vdi = open(os.path.join(pdir, 'reviews',
                                'vdi-calibration.tsv')).read()
        four_copy = os.path.join(d, 'four-corners.tsv')
        with open(four_copy, 'w') as fh:
            fh.write(open(four).read())
        for old, new, needle in (('\t51084\t', '\t0x10\t',
                                  ":8: peak_iops '0x10'"),
                                 ('\t673.6\t', '\t1e-400\t',
                                  ":8: lat_us '1e-400'")):
            with open(os.path.join(d, 'vdi-calibration.tsv'), 'w') as fh:
                fh.write(vdi.replace(old, new))
            refused([nvmimic, 'fit', '--reviews', four_copy, '--with-vdi',
                     '--no-loo', '--no-cross', '--max-evals', '1'], 1,
                    needle + ' is not a positive number')


def t_self_test(nvmimic, pdir):
    """Stand-ins for nvmimic that crash, exit otherwise, or say nothing."""
    fakes = {
        'segfault': 'import os, signal; os.kill(os.getpid(), signal.SIGSEGV)',
        'abort': 'import os; os.abort()',
        'exit 3': 'import sys; sys.stderr.write("nvmimic sim: no-such-drive '
                  "'nope' 'x'\\n\"); sys.exit(3)",
        'silent': 'import sys; sys.exit(1)',
    }
    with tempfile.TemporaryDirectory() as d:
        for what, code in fakes.items():
            fake = os.path.join(d, 'fake')
            with open(fake, 'w') as f:
                f.write('#!%s\n%s\n' % (sys.executable, code))
            os.chmod(fake, 0o755)
            for case, (args, status, needle) in REFUSALS.items():
                try:
                    refused([fake] + args, status, needle)
                except Fail as e:
                    print('ok: %s fails %s: %s' % (what, case, e))
                    continue
                raise Fail('a program that does "%s" passed %s'
                           % (what, case))


CASES = {'lists-profiles': t_lists_profiles,
         'four-corners-json': t_four_corners_json,
         'slc-cliff': t_slc_cliff, 'mix-json': t_mix_json,
         'numbers': t_numbers, 'tables': t_tables,
         'suite-options': t_suite_options,
         'self-test': t_self_test}


def main():
    nvmimic, pdir, case = sys.argv[1:4]
    try:
        if case in REFUSALS:
            args, status, needle = REFUSALS[case]
            refused([nvmimic] + args, status, needle)
        else:
            CASES[case](nvmimic, pdir)
    except Fail as e:
        print('FAIL %s: %s' % (case, e))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())

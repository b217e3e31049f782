# SPDX-License-Identifier: GPL-2.0-or-later
"""nvmimic qtest: the suites through the emulated device against nvmimic sim.

usage: check_qtest.py NVMIMIC [unittest args]

Each test runs `nvmimic qtest` (QEMU under qtest, no guest) and `nvmimic sim`
with the same profile, seed and short points, and compares them point by
point within the bounds of issue 13: peak IOPS within 2 %, every point's mean
latency within 5 %.  The device and the model should in fact agree exactly:
the load generator submits each I/O at the virtual time nvmimic sim submits
it to the model, and the device runs the same model.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

NVMIMIC = None
DURATION_S = '0.05'


def run(*args, ok=True, timeout=900):
    p = subprocess.run([NVMIMIC] + list(args), capture_output=True,
                       text=True, timeout=timeout)
    if ok and p.returncode != 0:
        raise AssertionError('nvmimic %s failed (%d): %s'
                             % (' '.join(args), p.returncode, p.stderr[-2000:]))
    return p


def rel(a, b):
    return abs(a - b) / b if b else abs(a)


class Qtest(unittest.TestCase):
    def compare(self, dev, sim, suite):
        self.assertEqual(dev['mode'], 'qtest')
        self.assertEqual(dev['suite'], suite)
        self.assertEqual(dev['engine'], 'qtest')
        self.assertGreater(dev['speed']['ios'], 0)
        sims = {w['name']: w for w in sim['workloads']}
        self.assertTrue(dev['workloads'])
        worst_peak = worst_lat = 0.0
        for dw in dev['workloads']:
            sw = sims[dw['name']]
            name = dw['name']
            e = rel(dw['peak']['iops'], sw['peak']['iops'])
            worst_peak = max(worst_peak, e)
            self.assertLessEqual(e, 0.02, '%s peak: device %.1f, model %.1f '
                                 'IOPS' % (name, dw['peak']['iops'],
                                           sw['peak']['iops']))
            self.assertGreater(dw['peak']['device_ios'], 0, name)
            self.assertEqual(dw['peak']['late'], 0, name)
            self.assertEqual(len(dw['curve']), len(sw['curve']), name)
            for dp, sp in zip([dw['peak']] + dw['curve'],
                              [sw['peak']] + sw['curve']):
                e = rel(dp['lat_us'], sp['lat_us'])
                worst_lat = max(worst_lat, e)
                self.assertLessEqual(e, 0.05, '%s %s %%: device %.2f us, '
                                     'model %.2f us' % (
                                         name, dp.get('target_pct', 'peak'),
                                         dp['lat_us'], sp['lat_us']))
                self.assertEqual(dp['late'], 0)
        print('%s %s: worst peak IOPS difference %.4f %%, worst latency '
              'difference %.4f %%; %d I/Os through the device, %.0f per '
              'host second' % (dev['profile'], suite, 100 * worst_peak,
                               100 * worst_lat, dev['speed']['ios'],
                               dev['speed']['ios_per_host_s']))

    def test_four_corners_through_the_device_match_sim_point_by_point(self):
        # TLC: filled by nvmimic-set-state; P5 2 TB's 4K random read peak
        # (375 K IOPS) is the fastest of the reviews
        args = ['--profile', 'crucial-p5-2tb', '--suite', 'four-corners',
                '--duration-s', DURATION_S, '--format', 'json']
        dev = json.loads(run('qtest', *args).stdout)
        sim = json.loads(run('sim', *args).stdout)
        self.compare(dev, sim, 'four-corners')

    def test_qlc_span_written_through_the_device_then_curves_match_sim(self):
        # QLC: secure erase, then the 1 % span (20 GB) written through the
        # device's queues before each workload, as the model writes it
        args = ['--profile', 'intel-670p-2tb', '--suite', 'four-corners',
                '--duration-s', DURATION_S, '--format', 'json']
        dev = json.loads(run('qtest', *args, '--workloads',
                             '4k-random-write,64k-seq-write').stdout)
        sim = json.loads(run('sim', *args).stdout)
        self.compare(dev, sim, 'four-corners')

    def test_vdi_mixes_through_the_device_match_sim(self):
        # mixed block sizes and directions, bursts (each point lasts whole
        # burst cycles: ~1 s here); the slowest drive keeps it short
        args = ['--profile', 'crucial-p2-2tb', '--suite', 'vdi',
                '--duration-s', DURATION_S, '--format', 'json']
        dev = json.loads(run('qtest', *args).stdout)
        sim = json.loads(run('sim', *args).stdout)
        self.compare(dev, sim, 'vdi')

    def test_device_whose_timing_differs_from_the_model_stops_the_run(self):
        # the device's model seeded differently: its completions come at
        # other times than the load generator expects, and the first one
        # that does must stop the run with a message naming it
        p = run('qtest', '--profile', 'crucial-p2-500g', '--workloads',
                '4k-random-read', '--duration-s', '0.01', '--device-seed',
                '2', '--format', 'json', ok=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stdout, '')
        msg = p.stderr.strip().splitlines()[-1]
        self.assertIn('4k-random-read', msg)
        self.assertRegex(msg, 'completion queue|statistics|before its time')

    def test_results_dir_is_drawn_by_report(self):
        out = tempfile.mkdtemp(prefix='nvmimic-qtest-')
        try:
            run('qtest', '--profile', 'crucial-p2-2tb', '--workloads',
                '64k-seq-write', '--duration-s', '0.02', '--out', out)
            with open(os.path.join(out, 'results.json')) as f:
                d = json.load(f)
            self.assertEqual(d['mode'], 'qtest')
            self.assertEqual([w['name'] for w in d['workloads']],
                             ['64k-seq-write'])
            for f in ('report.html', 'results.csv', '64k-seq-write.png',
                      '64k-seq-write.svg'):
                self.assertTrue(os.path.getsize(os.path.join(out, f)) > 0, f)
            with open(os.path.join(out, 'report.html')) as f:
                self.assertIn('qtest', f.read())
            # the results schema (docs/results.schema.json), mode qtest
            here = os.path.dirname(os.path.abspath(__file__))
            v = subprocess.run(['/usr/bin/python3', os.path.join(
                here, '..', 'results', 'validate.py'), out],
                capture_output=True, text=True)
            self.assertEqual(v.returncode, 0, v.stdout)
            # read by the one reader, written by the one writer: the same
            # bytes, the engine's own members included
            v = subprocess.run(['/usr/bin/python3', os.path.join(
                here, '..', 'results', 'roundtrip.py'),
                os.environ['NVMIMIC_RESULTS_REWRITE'], out],
                capture_output=True, text=True)
            self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
        finally:
            shutil.rmtree(out)

    def test_run_mode_qtest_is_qtest_with_run_s_as_duration(self):
        # run --mode qtest hands the options it was given to nvmimic qtest
        # through run's option table (--run-s as --duration-s): the same
        # workloads and figures as qtest itself
        tmp = tempfile.mkdtemp(prefix='nvmimic-qtest-')
        try:
            common = ['--profile', 'crucial-p2-2tb', '--workloads',
                      '64k-seq-write', '--seed', '3']
            run('run', '--mode', 'qtest', *common, '--run-s', '0.02',
                '--out', os.path.join(tmp, 'run'))
            run('qtest', *common, '--duration-s', '0.02', '--out',
                os.path.join(tmp, 'qtest'))
            got = []
            for d in ('run', 'qtest'):
                with open(os.path.join(tmp, d, 'results.json')) as f:
                    got.append(json.load(f))
            for d in got:
                self.assertEqual(d['mode'], 'qtest')
                for w in d['workloads']:
                    for p in [w['peak']] + w['curve']:
                        p.pop('host_s')         # the host's wall time
            self.assertEqual(got[0]['workloads'], got[1]['workloads'])
            self.assertEqual([w['name'] for w in got[0]['workloads']],
                             ['64k-seq-write'])
            # an option only a guest has is refused, naming it
            p = run('run', '--mode', 'qtest', *common, '--sql-users', '3',
                    ok=False)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn('--sql-users does not apply to --mode qtest',
                          p.stderr)
        finally:
            shutil.rmtree(tmp)

    def test_bad_input_is_a_one_line_error(self):
        for args, want in [
                (['--suite', 'four-corners'], '--profile'),
                (['--profile', 'no-such-drive'], 'no-such-drive'),
                (['--profile', 'crucial-p2-500g', '--suite', 'slc'],
                 "--suite 'slc' is not one of four-corners, vdi"),
                (['--profile', 'crucial-p2-500g', '--workloads', 'nope'],
                 "unknown workload 'nope'"),
                (['--profile', 'crucial-p2-500g', '--duration-s', '-1'],
                 '--duration-s'),
                (['--profile', 'crucial-p2-500g', '--qemu', '/nonexistent'],
                 '/nonexistent'),
                (['--profile', 'crucial-p2-500g', 'extra'], "'extra'")]:
            p = run('qtest', *args, ok=False)
            self.assertIn(p.returncode, (1, 2), args)
            lines = p.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, (args, p.stderr))
            self.assertIn(want, lines[0], args)


if __name__ == '__main__':
    NVMIMIC = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)

# SPDX-License-Identifier: GPL-2.0-or-later
"""nvmimic sim --suite vdi, sim --trace and trace2iolog from the command line:
JSON shape, the iolog that fio replays, and one-line errors for bad input.

usage: check_cli.py NVMIMIC
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

NVMIMIC = None

TRACE = """# nvmimic trace 1
# profile=crucial-p5-2tb lba-bytes=512 capacity-bytes=2000398934016 start-ns=0
# submit_ns op slba nlb complete_ns
0 read 2048 8 90000
1500 write 4096 16 30000
200000 flush 0 0 210000
300000 discard 8 8 305000
400000 write-zeroes 16 8 410000
500000 read 0 8 580000
"""

NUM = ['iops', 'mbps', 'lat_us', 'p50_us', 'p99_us', 'p999_us']


def run(*args, ok=True):
    p = subprocess.run([NVMIMIC] + list(args), capture_output=True,
                       text=True, timeout=150)
    if ok and p.returncode != 0:
        raise AssertionError('%s failed (%d): %s' % (args, p.returncode,
                                                     p.stderr))
    return p


class Cli(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix='nvmimic-vdi-')
        self.trace = os.path.join(self.dir, 't.trace')
        with open(self.trace, 'w') as f:
            f.write(TRACE)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_sim_vdi_json_has_the_four_corners_shape_per_workload(self):
        d = json.loads(run('sim', '--profile', 'crucial-p2-2tb', '--suite',
                           'vdi', '--duration-s', '0.3', '--format',
                           'json').stdout)
        self.assertEqual(d['suite'], 'vdi')
        self.assertEqual(d['mode'], 'sim')
        self.assertEqual(d['profile'], 'crucial-p2-2tb')
        self.assertEqual([w['name'] for w in d['workloads']],
                         ['vdi-boot', 'vdi-initial-login',
                          'vdi-monday-login'])
        # the reviews' outstanding counts (harness/workloads/vdi-*.fio)
        want = {'vdi-boot': 32, 'vdi-initial-login': 30,
                'vdi-monday-login': 16}
        for w in d['workloads']:
            self.assertEqual(w['threads'], want[w['name']])
            self.assertTrue(w['job_file'].endswith(w['name'] + '.fio'))
            for k in NUM:
                self.assertGreater(w['peak'][k], 0, (w['name'], k))
                self.assertIn(k, w['peak']['read'])
                self.assertIn(k, w['peak']['write'])
            self.assertEqual([c['target_pct'] for c in w['curve']],
                             list(range(10, 130, 10)))
            for c in w['curve']:
                for k in NUM + ['target_iops']:
                    self.assertIn(k, c)
        self.assertEqual(d['workloads'][0]['mix']['read_pct'], 84)

    def test_sim_vdi_table_names_each_workload_and_its_source(self):
        out = run('sim', '--profile', 'crucial-p5-1tb', '--suite', 'vdi',
                  '--duration-s', '0.2').stdout
        for name, n in (('vdi-boot', 32), ('vdi-initial-login', 30),
                        ('vdi-monday-login', 16)):
            self.assertIn('\n%s (%d outstanding' % (name, n), out)
            self.assertIn('%s.fio)' % name, out)
        self.assertEqual(out.count(' 120 % '), 3)

    def test_sim_trace_reports_model_and_captured_latency_per_class(self):
        d = json.loads(run('sim', '--profile', 'intel-670p-2tb', '--trace',
                           self.trace, '--format', 'json').stdout)
        self.assertEqual(d['suite'], 'trace')
        self.assertEqual(d['commands'], 6)
        classes = {c['class']: c for c in d['classes']}
        self.assertEqual(sorted(classes), ['discard', 'flush', 'read',
                                           'write', 'write-zeroes'])
        self.assertEqual(classes['read']['count'], 2)
        self.assertAlmostEqual(classes['read']['captured']['lat_us'], 85.0)
        self.assertAlmostEqual(classes['write']['captured']['max_us'], 28.5)
        self.assertGreater(classes['read']['lat_us'], 0)
        out = run('sim', '--profile', 'intel-670p-2tb', '--trace',
                  self.trace).stdout
        self.assertIn('6 commands', out)
        self.assertIn('write-zeroes', out)
        # --trace-out: the trace back, line for line, with the model's
        # completion times; --trace-state erased changes them
        outs = {}
        for state in ('review', 'erased'):
            log = os.path.join(self.dir, state + '.out')
            run('sim', '--profile', 'intel-670p-2tb', '--trace', self.trace,
                '--trace-state', state, '--trace-out', log)
            with open(log) as f:
                lines = [ln.split() for ln in f if not ln.startswith('#')]
            self.assertEqual(len(lines), 6)
            self.assertTrue(all(int(x[4]) >= int(x[0]) for x in lines), lines)
            self.assertEqual([x[1] for x in lines],
                             [ln.split()[1] for ln in TRACE.splitlines()
                              if ln and not ln.startswith('#')])
            outs[state] = lines
        self.assertNotEqual(outs['review'], outs['erased'])

    def test_trace2iolog_output_replays_in_fio(self):
        job = os.path.join(self.dir, 'replay.fio')
        log = os.path.join(self.dir, 'replay.iolog')
        data = os.path.join(self.dir, 'disk')
        p = run('trace2iolog', self.trace, '--job', job, '--iolog-path', log,
                '--device', data)
        self.assertIn('1 discard(s) left out', p.stderr)
        lines = p.stdout.splitlines()
        self.assertEqual(lines[0], 'fio version 3 iolog')
        self.assertEqual(lines[3], '1 %s read 1048576 4096' % data)
        self.assertEqual(lines[5], '201 %s sync 0 0' % data)
        self.assertEqual(lines[6], '401 %s write 8192 4096' % data)
        self.assertEqual(len(lines), 9)
        with open(log, 'w') as f:
            f.write(p.stdout)
        with open(job) as f:
            text = f.read()
        self.assertIn('read_iolog=%s\n' % log, text)
        self.assertIn('iodepth=2\n', text)
        with open(data, 'wb') as f:
            f.truncate(4 << 20)
        r = subprocess.run(['fio', '--output-format=json', job],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        res = json.loads(r.stdout[r.stdout.index('{'):])['jobs'][0]
        self.assertEqual(res['read']['total_ios'], 2)
        self.assertEqual(res['write']['total_ios'], 2)

    def test_trace2iolog_writes_fua_writes_as_plain_writes(self):
        fua = os.path.join(self.dir, 'fua.trace')
        with open(fua, 'w') as f:
            f.write(TRACE.replace('1500 write ', '1500 write-fua ')
                    .replace('400000 write-zeroes ',
                             '400000 write-zeroes-fua '))
        plain = run('trace2iolog', self.trace)
        p = run('trace2iolog', fua)
        self.assertEqual(p.stdout, plain.stdout)
        self.assertIn('2 FUA write(s) replay as plain writes', p.stderr)
        self.assertNotIn('FUA', plain.stderr)

    def test_bad_input_is_one_clear_line(self):
        cases = [
            (['sim', '--profile', 'crucial-p5-2tb', '--trace',
              os.path.join(self.dir, 'missing')], 'missing'),
            (['sim', '--profile', 'crucial-p5-2tb', '--suite', 'vdi',
              '--trace', self.trace], 'not both'),
            (['sim', '--profile', 'crucial-p5-2tb', '--suite', 'vdii'],
             "--suite 'vdii' is not one of"),
            (['sim', '--profile', 'crucial-p5-2tb', '--suite', 'vdi',
              '--trace-out', os.path.join(self.dir, 'x')], 'are for --trace'),
            (['sim', '--profile', 'crucial-p5-2tb', '--trace', self.trace,
              '--trace-out', os.path.join(self.dir, 'no', 'x')],
             '--trace-out'),
            (['sim', '--profile', 'crucial-p5-2tb', '--suite', 'vdi',
              '--trace-wear-pct', '1'], 'are for --trace'),
            (['sim', '--profile', 'crucial-p5-2tb', '--trace', self.trace,
              '--trace-wear-pct', '300'], '--trace-wear-pct'),
            (['trace2iolog'], 'needs a TRACE'),
            (['trace2iolog', self.trace, '--device', 'nvme0n1'],
             "--device 'nvme0n1' must be an absolute path"),
            # it used to blame --device for a blank in --iolog-path
            (['trace2iolog', self.trace, '--iolog-path', 'a b'],
             "--iolog-path 'a b' must not contain blanks"),
        ]
        bad = os.path.join(self.dir, 'bad.trace')
        with open(bad, 'w') as f:
            f.write('# nvmimic trace 1\n# lba-bytes=512\n0 read 0 8\n'
                    '5 write 99999999999999 8\n')
        cases.append((['sim', '--profile', 'crucial-p2-500g', '--trace',
                       bad], 'trace line 4: write'))
        # a NUL byte used to end the file there, silently
        nul = os.path.join(self.dir, 'nul.trace')
        with open(nul, 'wb') as f:
            f.write(b'# nvmimic trace 1\n# lba-bytes=512\n1000 read 0 8\0junk\n')
        cases.append((['sim', '--profile', 'crucial-p2-500g', '--trace', nul],
                      '%s: a NUL byte at offset 47' % nul))
        # job files: not a regular file (read until memory ran out), a
        # NUL byte, and a value quoted at 40 characters, bytes escaped
        # (a 1 MB value was echoed whole, terminal escapes raw)
        cases.append((['jobfile', 'show', '/dev/zero'],
                      '/dev/zero: not a regular file'))
        jobs = {'nul': b'[job]\nbs=4k\0garbage\n',
                'raw': b'[job]\nrw=rand\xff\x1b[31mread\n',
                'long': b'[job]\nrw=' + b'x' * 1000000 + b'\n'}
        for name, body in jobs.items():
            with open(os.path.join(self.dir, name + '.fio'), 'wb') as f:
                f.write(body)
        cases.append((['jobfile', 'show', os.path.join(self.dir, 'nul.fio')],
                      'a NUL byte at offset 11'))
        cases.append((['jobfile', 'show', os.path.join(self.dir, 'raw.fio')],
                      ':2: rw=rand\\xff\\x1b[31mread: not one of'))
        cases.append((['jobfile', 'show', os.path.join(self.dir, 'long.fio')],
                      ':2: rw=' + 'x' * 40 + '...: not one of'))
        # a trace with no command to replay printed an empty table, status 0
        empty = os.path.join(self.dir, 'empty.trace')
        with open(empty, 'w') as f:
            f.write('# nvmimic trace 1\n# lba-bytes=512\n')
        cases.append((['sim', '--profile', 'crucial-p2-500g', '--trace',
                       empty], '%s: no command to replay' % empty))
        cases.append((['sim', '--profile', 'crucial-p5-2tb', '--trace',
                       self.trace, '--trace-from-ns', '500001'],
                      '%s: no command to replay at or after '
                      '--trace-from-ns' % self.trace))
        # an unknown command name: the file, the line, the names there are
        unknown = os.path.join(self.dir, 'unknown.trace')
        with open(unknown, 'w') as f:
            f.write('# nvmimic trace 1\n# lba-bytes=512\n0 write-fua 0 8\n'
                    '5 read-fua 0 8\n')
        for cmd in (['sim', '--profile', 'crucial-p2-500g', '--trace'],
                    ['trace2iolog']):
            cases.append((cmd + [unknown], "%s:4: unknown op 'read-fua' "
                          "(read, write, write-fua, flush, discard, "
                          "write-zeroes, write-zeroes-fua)" % unknown))
        for args, want in cases:
            p = run(*args, ok=False)
            self.assertNotEqual(p.returncode, 0, args)
            self.assertIn(want, p.stderr, args)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1,
                             p.stderr)
        wd = os.path.join(self.dir, 'wl')
        os.mkdir(wd)
        for n in ('vdi-boot', 'vdi-initial-login', 'vdi-monday-login'):
            with open(os.path.join(wd, n + '.fio'), 'w') as f:
                f.write('[%s]\nrw=randrw\nbssplit=4k/60:8k/60\n' % n)
        p = subprocess.run([NVMIMIC, 'sim', '--profile', 'crucial-p5-2tb',
                            '--suite', 'vdi', '--quick'],
                           capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, NVMIMIC_WORKLOAD_DIR=wd))
        self.assertEqual(p.returncode, 1)
        self.assertIn('vdi-boot.fio:3: bssplit=4k/60:8k/60', p.stderr)


if __name__ == '__main__':
    NVMIMIC = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)

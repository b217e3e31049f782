#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qtest checks of I/O trace capture at the device (QMP nvmimic-trace-start
and nvmimic-trace-stop): every timed command is one line with its virtual
submission time, op, LBA, length and scheduled completion; bad paths and
misuse are clear QMP errors; the file is complete when the device goes away.

Run one:  python3 tests/device/test_trace_nvme.py TraceNvme.test_NAME
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nvmeqtest import QemuError, SC_SUCCESS  # noqa: E402
from test_profile_nvme import (  # noqa: E402
    ProfileTest, Profile, MAIN_PROFILE, WZ_PROFILE, DEV_ID, null_drive,
    profile_device)

FUA = 1 << 30                   # CDW12 bit 30 of a Write


def read_trace(path, comments=None):
    """(header dict, [(submit_ns, op, slba, nlb, complete_ns)]); comment
    lines after the header go to the list comments, if given."""
    with open(path) as f:
        lines = f.read().splitlines()
    assert lines[0] == '# nvmimic trace 1', lines[:1]
    hdr = dict(kv.split('=', 1) for kv in lines[1][2:].split())
    assert lines[2] == '# submit_ns op slba nlb complete_ns', lines[2]
    rows = []
    for ln in lines[3:]:
        if ln.startswith('#'):
            if comments is not None:
                comments.append(ln)
            continue
        f = ln.split()
        rows.append((int(f[0]), f[1], int(f[2]), int(f[3]), int(f[4])))
    return hdr, rows


def read_trace_out(path):
    """nvmimic sim --trace-out's file: (header line, [(submit_ns, op,
    complete_ns)]), in the trace's clock."""
    with open(path) as f:
        lines = f.read().splitlines()
    assert lines[0] == '# nvmimic trace 1', lines[:1]
    rows = []
    for ln in lines[1:]:
        if ln.startswith('#'):
            continue
        f = ln.split()
        rows.append((int(f[0]), f[1], int(f[4])))
    return lines[1], rows


class TraceNvme(ProfileTest):

    def setUp(self):
        super().setUp()
        self.dir = tempfile.mkdtemp(prefix='nvmimic-trace-')

    def tearDown(self):
        super().tearDown()
        shutil.rmtree(self.dir)

    def trace(self, cmd, **kw):
        return self.machine.qmp.execute(cmd, id=DEV_ID, **kw)

    def test_trace_records_each_command_with_its_virtual_times(self):
        ctrl, p = self.start_profile(WZ_PROFILE)
        lb = p.lba_bytes
        self.set_state(**{'fill-pct': 100.0, 'reset-stats': True})
        path = os.path.join(self.dir, 'io.trace')
        self.assertEqual(self.trace('nvmimic-trace-start', path=path), {})
        cmds = [
            ('read', ctrl.read_cmd(4096, 8), [(4096, 8)]),
            ('write', ctrl.write_cmd(81920, b'\xa5' * (16 * lb)),
             [(81920, 16)]),
            ('flush', ctrl.flush_cmd(), [(0, 0)]),
            ('write-zeroes', ctrl.write_zeroes_cmd(1 << 20, 64),
             [(1 << 20, 64)]),
            ('discard', ctrl.deallocate_cmd([(16384, 256), (1 << 24, 8)]),
             [(16384, 256), (1 << 24, 8)]),
            ('read', ctrl.read_cmd(p.capacity // lb - 8, 8),
             [(p.capacity // lb - 8, 8)]),
        ]
        done = []
        for name, c, ranges in cmds:
            r = ctrl.execute(c)
            self.assertStatus(r, SC_SUCCESS, name)
            done.append(r)
        # a command that fails at once is untimed and not recorded
        bad = ctrl.execute(ctrl.read_cmd(p.capacity // lb, 8))
        self.assertNotEqual(bad.status, SC_SUCCESS)
        info = self.trace('nvmimic-trace-stop')
        self.assertEqual(info, {'path': path, 'commands': 7, 'dropped': 0})

        hdr, rows = read_trace(path)
        print('header %r' % hdr)
        for r in rows:
            print(r)
        self.assertEqual(hdr['profile'], WZ_PROFILE)
        self.assertEqual(int(hdr['lba-bytes']), lb)
        self.assertEqual(int(hdr['capacity-bytes']), p.capacity)
        start = int(hdr['start-ns'])
        want = []
        for (name, _, ranges), r in zip(cmds, done):
            for slba, nlb in ranges:
                want.append((r.submit_ns - start, name, slba, nlb))
        self.assertEqual([row[:4] for row in rows], want)
        # the scheduled completion is when the controller posted it
        i = 0
        for (name, _, ranges), r in zip(cmds, done):
            ends = [rows[i + k][4] for k in range(len(ranges))]
            i += len(ranges)
            self.assertEqual(max(ends), r.complete_ns - start, name)
            self.assertTrue(all(e > r.submit_ns - start for e in ends))

    def test_fua_writes_wait_for_their_program_and_replay_as_fua(self):
        """FUA writes (CDW12 bit 30) on a drive with a volatile write cache
        are traced as write-fua, complete after their program where the
        plain writes between them (200 us after the one before, less
        than the link's L1 idle time) complete from the
        buffer, and the model fed the trace (nvmimic sim --trace
        --trace-state erased, the drive's state set where the trace
        starts) gives every command the drive's completion to the ns.
        Replayed as plain writes, the FUA ones would complete from the
        buffer there."""
        ctrl, p = self.start_profile(MAIN_PROFILE)
        lb = p.lba_bytes
        per = 4096 // lb
        tprog_us = p.float('nand', 'program-us-slc')
        self.assertTrue(p.bool('identity', 'volatile-write-cache'))
        self.set_state(**{'secure-erase': True, 'reset-stats': True})
        path = os.path.join(self.dir, 'fua.trace')
        self.trace('nvmimic-trace-start', path=path)
        sent = []               # (name, completion)
        for i in range(40):
            fua = i % 2 == 1
            c = ctrl.write_cmd((i * 7919 % 100000) * per,
                               bytes([0x41 + i % 26]) * 4096)
            if fua:
                c.cdw[2] |= FUA
            r = ctrl.execute(c)
            self.assertStatus(r, SC_SUCCESS, 'write')
            sent.append(('write-fua' if fua else 'write', r))
            ctrl.qt.clock_step(200000)
        info = self.trace('nvmimic-trace-stop')
        self.assertEqual(info['commands'], len(sent))
        hdr, rows = read_trace(path)
        start = int(hdr['start-ns'])
        self.assertEqual([(row[1], row[0], row[4]) for row in rows],
                         [(name, r.submit_ns - start, r.complete_ns - start)
                          for name, r in sent])
        lat = {}
        for name, r in sent:
            lat.setdefault(name, []).append(r.latency_ns / 1000)
        mean = {k: sum(v) / len(v) for k, v in lat.items()}
        print('4 KiB writes 200 us apart: plain %.1f us, FUA %.1f us (SLC '
              'program %.0f us)' % (mean['write'], mean['write-fua'],
                                    tprog_us))
        self.assertLess(mean['write'], tprog_us / 4)
        self.assertGreater(mean['write-fua'], tprog_us)

        cli = os.environ.get('NVMIMIC_CLI')
        self.assertTrue(cli, 'NVMIMIC_CLI is not set: the replay needs '
                        'build/nvmimic')
        out = os.path.join(self.dir, 'fua.model')
        r = subprocess.run([cli, 'sim', '--profile', MAIN_PROFILE, '--trace',
                            path, '--trace-state', 'erased', '--trace-out',
                            out], capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        _, model = read_trace_out(out)
        self.assertEqual(model, [(row[0], row[1], row[4]) for row in rows],
                         'the model fed the trace parts from the drive')

    def test_bad_path_and_misuse_are_clear_qmp_errors(self):
        p = Profile(MAIN_PROFILE)
        self.start(null_drive(p.capacity) + profile_device(MAIN_PROFILE)
                   + ['-drive', 'if=none,id=d2,driver=null-co,size=%d'
                      % (1 << 30),
                      '-device', 'nvme,id=plain,drive=d2,serial=P,addr=05.0'])
        qmp = self.machine.qmp
        missing = os.path.join(self.dir, 'no', 'such', 'dir', 't.trace')
        cases = [
            (dict(id=DEV_ID, path=missing),
             ["%s: trace: Could not create '%s'" % (DEV_ID, missing),
              'No such file or directory']),
            (dict(id=DEV_ID, path=self.dir),
             ["Could not create '%s'" % self.dir, 'Is a directory']),
            (dict(id=DEV_ID, path=''), ['trace path is empty']),
            (dict(id='plain', path=os.path.join(self.dir, 'x')),
             ['this nvme device has no profile']),
            (dict(id='nosuchdev', path=os.path.join(self.dir, 'x')),
             ['no nvme device']),
        ]
        for args, want in cases:
            with self.assertRaises(QemuError) as cm:
                qmp.execute('nvmimic-trace-start', **args)
            print(cm.exception)
            for w in want:
                self.assertIn(w, str(cm.exception))
        self.assertFalse(os.path.exists(os.path.join(self.dir, 'x')))
        with self.assertRaises(QemuError) as cm:
            qmp.execute('nvmimic-trace-stop', id=DEV_ID)
        self.assertIn('no trace is running', str(cm.exception))

        path = os.path.join(self.dir, 'a.trace')
        qmp.execute('nvmimic-trace-start', id=DEV_ID, path=path)
        with self.assertRaises(QemuError) as cm:
            qmp.execute('nvmimic-trace-start', id=DEV_ID,
                        path=os.path.join(self.dir, 'b.trace'))
        self.assertIn('already running (to %s)' % path, str(cm.exception))
        self.assertEqual(qmp.execute('nvmimic-trace-stop', id=DEV_ID),
                         {'path': path, 'commands': 0, 'dropped': 0})
        self.assertEqual(read_trace(path)[1], [])

    def test_trace_is_flushed_when_the_device_goes_away(self):
        ctrl, p = self.start_profile()
        path = os.path.join(self.dir, 'exit.trace')
        self.trace('nvmimic-trace-start', path=path)
        for i in range(100):
            self.assertStatus(ctrl.execute(ctrl.read_cmd(8 * i, 8)),
                              SC_SUCCESS, 'read')
        # QEMU quits with the trace running: the buffered lines are kept
        self.machine.qmp.execute('quit')
        self.machine.proc.wait(timeout=30)
        self.machine.stop()
        hdr, rows = read_trace(path)
        self.assertEqual(len(rows), 100)
        self.assertEqual([r[2] for r in rows], [8 * i for i in range(100)])

    def reads(self, ctrl, n, first=0):
        """n 4 KiB reads, 128 at a time."""
        for i in range(first, first + n, 128):
            done = ctrl.submit_and_time([ctrl.read_cmd(8 * k, 8)
                                         for k in range(i, min(i + 128,
                                                               first + n))])
            self.assertTrue(all(c.ok for c in done))

    def deallocates(self, ctrl, n, first=0):
        """n one-block ranges in deallocates of 256 ranges: a trace line
        each, for few qtest round trips."""
        for i in range(first, first + n, 256):
            cmd = ctrl.deallocate_cmd([(8 * k, 1) for k in
                                       range(i, min(i + 256, first + n))])
            self.assertStatus(ctrl.execute(cmd), SC_SUCCESS, 'deallocate')

    def test_trace_is_written_off_the_submission_path(self):
        """Recording a command appends to memory only: the file stays
        empty while less than the flush threshold (64 KiB) is recorded,
        and the main loop writes it out past that, before the stop."""
        ctrl, p = self.start_profile()
        path = os.path.join(self.dir, 'buffered.trace')
        self.trace('nvmimic-trace-start', path=path)
        self.reads(ctrl, 64)
        self.deallocates(ctrl, 512)
        self.assertEqual(os.path.getsize(path), 0,
                         'the trace file was written while recording')
        self.deallocates(ctrl, 2560, 512)     # ~80 KiB of lines
        written = os.path.getsize(path)
        print('after 3136 commands: %d bytes written before the stop'
              % written)
        self.assertGreaterEqual(written, 64 * 1024)
        info = self.trace('nvmimic-trace-stop')
        self.assertEqual((info['commands'], info['dropped']), (3136, 0))
        self.assertEqual(len(read_trace(path)[1]), 3136)
        self.assertGreater(os.path.getsize(path), written)

    def test_trace_stops_recording_at_max_bytes_and_says_so(self):
        ctrl, p = self.start_profile()
        path = os.path.join(self.dir, 'small.trace')
        with self.assertRaises(QemuError) as cm:
            self.trace('nvmimic-trace-start', path=path,
                       **{'max-bytes': 4095})
        self.assertIn('max-bytes 4095 is less than 4096', str(cm.exception))
        self.trace('nvmimic-trace-start', path=path, **{'max-bytes': 4096})
        self.reads(ctrl, 400)
        info = self.trace('nvmimic-trace-stop')
        comments = []
        hdr, rows = read_trace(path, comments)
        print('max-bytes 4096: %r; last line %r' % (info, comments))
        self.assertEqual(info['commands'], len(rows))
        self.assertEqual(info['commands'] + info['dropped'], 400)
        self.assertGreater(info['dropped'], 0)
        with open(path, 'rb') as f:
            data = f.read()
        last = data.rstrip(b'\n').rsplit(b'\n', 1)[1]
        self.assertLessEqual(len(data) - len(last) - 1, 4096)
        self.assertEqual(comments, ['# max-bytes=4096 reached: %d later '
                                    'commands not recorded' % info['dropped']])
        self.assertEqual([r[2] for r in rows],
                         [8 * i for i in range(len(rows))])
        self.assertIn('trace %s reached max-bytes 4096' % path,
                      self.machine.stderr())
        # The harness reads a truncated trace like any other.
        cli = os.environ.get('NVMIMIC_CLI')
        if cli:
            r = subprocess.run([cli, 'trace2iolog', path],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.count(' read '), len(rows))

    def test_trace_file_is_opened_as_qemu_opens_files(self):
        """/dev/fdset/N (a descriptor passed with add-fd) works; a path is
        neither followed through a symbolic link nor opened on a FIFO."""
        ctrl, p = self.start_profile()
        qmp = self.machine.qmp
        target = os.path.join(self.dir, 'precious')
        with open(target, 'w') as f:
            f.write('keep me\n')
        link = os.path.join(self.dir, 'link.trace')
        os.symlink(target, link)
        fifo = os.path.join(self.dir, 'fifo.trace')
        os.mkfifo(fifo)
        # a FIFO without a reader fails to open at once (O_NONBLOCK), one
        # with a reader is not a regular file: either way, QMP answers
        for path, want in ((link, ['Too many levels of symbolic links']),
                           (fifo, ['No such device or address',
                                   'not a regular file'])):
            with self.assertRaises(QemuError) as cm:
                qmp.execute('nvmimic-trace-start', id=DEV_ID, path=path)
            print(cm.exception)
            self.assertIn(path, str(cm.exception))
            self.assertTrue(any(w in str(cm.exception) for w in want))
        with open(target) as f:
            self.assertEqual(f.read(), 'keep me\n')

        passed = os.path.join(self.dir, 'passed.trace')
        fd = os.open(passed, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            r = qmp.execute('add-fd', fd=fd, **{'fdset-id': 7})
        finally:
            os.close(fd)
        self.assertEqual(r['fdset-id'], 7)
        qmp.execute('nvmimic-trace-start', id=DEV_ID, path='/dev/fdset/7')
        self.reads(ctrl, 10)
        info = qmp.execute('nvmimic-trace-stop', id=DEV_ID)
        self.assertEqual(info, {'path': '/dev/fdset/7', 'commands': 10,
                                'dropped': 0})
        self.assertEqual(len(read_trace(passed)[1]), 10)

    def test_trace_events_follow_each_command(self):
        """Per-command tracing is QEMU's own (trace-events: -trace
        'nvmimic_*'): submission with its deadline, the model's command,
        the completion held, and its posting with its lateness."""
        p = Profile(MAIN_PROFILE)
        self.start(null_drive(p.capacity) + profile_device(MAIN_PROFILE)
                   + ['-trace', 'nvmimic_*'])
        ctrl = self.ctrl
        ctrl.enable()
        ctrl.create_io_queue_pair(1, 16)
        ctrl.identify_namespace(1)
        done = [ctrl.execute(ctrl.read_cmd(8 * i, 8)) for i in range(3)]
        self.assertTrue(all(c.ok for c in done))
        log = [ln for ln in self.machine.stderr().splitlines()
               if 'nvmimic_' in ln]
        for ln in log:
            print(ln)
        for i, c in enumerate(done):
            want = {
                'nvmimic_submit': 'cid %d sqid 1 read at %d ns: completes at '
                                  '%d ns' % (c.cid, c.submit_ns, c.complete_ns),
                'nvmimic_model_cmd': 'read slba %d nlb 8 at %d ns: completes '
                                     'at %d ns' % (8 * i, c.submit_ns,
                                                   c.complete_ns),
                'nvmimic_hold': 'cid %d sqid 1 data done, completion held '
                                'until %d ns' % (c.cid, c.complete_ns),
                'nvmimic_post': 'cid %d sqid 1 posted, 0 ns after its '
                                'deadline' % c.cid,
            }
            for event, text in want.items():
                self.assertTrue(any(event in ln and text in ln for ln in log),
                                '%s "%s" not in the trace' % (event, text))


if __name__ == '__main__':
    unittest.main(verbosity=2)

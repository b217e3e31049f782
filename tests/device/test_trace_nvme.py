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
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nvmeqtest import QemuError, SC_SUCCESS  # noqa: E402
from test_profile_nvme import (  # noqa: E402
    ProfileTest, Profile, MAIN_PROFILE, WZ_PROFILE, DEV_ID, null_drive,
    profile_device)


def read_trace(path):
    """(header dict, [(submit_ns, op, slba, nlb, complete_ns)])"""
    with open(path) as f:
        lines = f.read().splitlines()
    assert lines[0] == '# nvmimic trace 1', lines[:1]
    hdr = dict(kv.split('=', 1) for kv in lines[1][2:].split())
    assert lines[2] == '# submit_ns op slba nlb complete_ns', lines[2]
    rows = []
    for ln in lines[3:]:
        f = ln.split()
        rows.append((int(f[0]), f[1], int(f[2]), int(f[3]), int(f[4])))
    return hdr, rows


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
        self.assertEqual(info, {'path': path, 'commands': 7})

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
                         {'path': path, 'commands': 0})
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


if __name__ == '__main__':
    unittest.main(verbosity=2)

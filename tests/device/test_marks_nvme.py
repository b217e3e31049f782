#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qtest checks of the in-band marks of an nvmimic drive.

The guest sends the vendor-specific admin command C0h (CDW12 the mark's
number, CDW13 bit 0: reset the statistics after the snapshot); the drive
snapshots its statistics at that virtual instant, applies any state the host
queued for that mark (nvmimic-set-state at-mark), and the host reads the
snapshots back with query-nvmimic-marks, in pages.  Expected values come from the
commands the test itself sends and the virtual clock, never from constants.

Run one:  python3 tests/device/test_marks_nvme.py MarksNvme.test_NAME
"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nvmeqtest import (  # noqa: E402
    Cmd, QemuError, SC_SUCCESS, SC_INVALID_FIELD, SC_INVALID_OPCODE)
from test_profile_nvme import (  # noqa: E402
    ProfileTest, DEV_ID, MAIN_PROFILE, RAW_PROFILE, raw_drive)

ADM_MARK = 0xc0
MARK_RESET = 1
MARKS_PAGE = 128        # the most marks one answer holds (NVMIMIC_MARKS_PAGE)


class MarksNvme(ProfileTest):

    def mark(self, ctrl, n, flags=0):
        return ctrl.admin_cmd(Cmd(ADM_MARK, cdw12=n, cdw13=flags))

    def marks_page(self, **kw):
        return self.machine.qmp.execute('query-nvmimic-marks', id=DEV_ID,
                                        **kw)

    def marks(self, **kw):
        """Every mark (of the number kw['mark'] if given), page by page."""
        got = self.marks_page(**kw)
        while 'next' in got:
            page = self.marks_page(start=got['next'], **kw)
            self.assertGreater(page['marks'][0]['seq'], got['marks'][-1]['seq'])
            got['marks'] += page['marks']
            if 'next' in page:
                got['next'] = page['next']
            else:
                del got['next']
        return got

    def test_mark_snapshots_the_window_at_the_guests_virtual_instants(self):
        ctrl, _ = self.start_profile()
        ctrl.qt.clock_step(1000000)
        t0 = ctrl.qt.now_ns
        self.assertStatus(self.mark(ctrl, 7, MARK_RESET), SC_SUCCESS, 'mark 7')
        reads = [ctrl.read_cmd(64 * i, 8) for i in range(16)]
        for c in ctrl.submit_and_time(reads):
            self.assertStatus(c, SC_SUCCESS, 'read')
        ctrl.qt.clock_step(5000)
        t1 = ctrl.qt.now_ns
        self.assertStatus(self.mark(ctrl, 8), SC_SUCCESS, 'mark 8')
        got = self.marks()
        self.assertEqual([m['mark'] for m in got['marks']], [7, 8])
        self.assertEqual((got['dropped'], got['pending']), (0, []))
        m7, m8 = got['marks']
        self.assertEqual((m7['time-ns'], m8['time-ns']), (t0, t1))
        self.assertEqual((m7['reset'], m8['reset']), (True, False))
        self.assertNotIn('state-applied', m7)
        # mark 8's snapshot is exactly the window from mark 7's reset
        self.assertEqual(m8['stats']['interval-ns'], t1 - t0)
        self.assertEqual(self.cls(m8['stats'], 'read')['count'], len(reads))
        # the live statistics were not reset by mark 8
        self.assertEqual(self.cls(self.stats(), 'read')['count'], len(reads))
        # one number only
        self.assertEqual([m['mark'] for m in self.marks(mark=8)['marks']], [8])

    def test_reserved_flag_bits_are_refused_and_take_no_snapshot(self):
        ctrl, _ = self.start_profile()
        for flags in (2, 0x80000000):
            c = self.mark(ctrl, 3, flags)
            self.assertStatus(c, SC_INVALID_FIELD, 'CDW13 0x%x' % flags)
            self.assertTrue(c.dnr, 'Do Not Retry')
        self.assertEqual(self.marks()['marks'], [])
        self.assertStatus(self.mark(ctrl, 0xffffffff), SC_SUCCESS,
                          'the largest mark number')

    def test_queued_state_is_applied_at_its_mark_not_before(self):
        ctrl, p = self.start_profile()
        self.set_state(**{'secure-erase': True})
        self.set_state(**{'fill-pct': 50, 'reset-stats': True, 'at-mark': 4})
        self.assertEqual(self.marks()['pending'], [4])
        self.assertEqual(self.stats()['fill-pct'], 0, 'applied before its mark')
        self.assertStatus(self.mark(ctrl, 3), SC_SUCCESS, 'mark 3')
        self.assertEqual(self.stats()['fill-pct'], 0, 'applied at mark 3')
        ctrl.execute(ctrl.read_cmd(0, 8))
        self.assertStatus(self.mark(ctrl, 4), SC_SUCCESS, 'mark 4')
        m = self.marks(mark=4)['marks'][0]
        self.assertEqual((m['state-applied'], m['reset']), (True, True))
        self.assertNotIn('state-error', m)
        # the snapshot is from before the state: one read, an empty drive
        self.assertEqual(self.cls(m['stats'], 'read')['count'], 1)
        self.assertEqual(m['stats']['fill-pct'], 0)
        st = self.stats()
        self.assertAlmostEqual(st['fill-pct'], 50, places=3)
        self.assertEqual(self.cls(st, 'read')['count'], 0, 'not reset')
        self.assertEqual(self.marks()['pending'], [])

    def test_queued_state_is_checked_when_queued_and_refused_whole(self):
        self.start_profile()
        for bad in ({'fill-pct': 101}, {'wear-pct': -1},
                    {'secure-erase': True, 'slc-used-bytes': 4096}):
            with self.assertRaises(QemuError, msg=repr(bad)):
                self.set_state(**dict(bad, **{'at-mark': 1}))
        self.assertEqual(self.marks()['pending'], [])

    def test_state_that_no_longer_fits_at_its_mark_is_reported(self):
        ctrl, p = self.start_profile()
        self.set_state(**{'fill-pct': 100})
        # fits now (the drive is full), not once the drive is erased below
        self.set_state(**{'slc-used-bytes': 1 << 20, 'at-mark': 9})
        self.set_state(**{'secure-erase': True})
        self.assertStatus(self.mark(ctrl, 9), SC_SUCCESS, 'mark 9')
        m = self.marks(mark=9)['marks'][0]
        self.assertFalse(m['state-applied'])
        self.assertIn('slc', m['state-error'].lower())
        self.assertEqual(self.stats()['slc-used-bytes'], 0)

    def test_marks_and_pending_states_are_bounded(self):
        ctrl, _ = self.start_profile()
        for i in range(1024):
            self.set_state(**{'reset-stats': True, 'at-mark': 100000 + i})
        with self.assertRaises(QemuError):
            self.set_state(**{'reset-stats': True, 'at-mark': 1})
        for i in range(4096 + 3):
            self.assertStatus(self.mark(ctrl, i), SC_SUCCESS, 'mark %d' % i)
        got = self.marks()
        self.assertEqual(len(got['marks']), 4096)
        self.assertEqual(got['dropped'], 3)
        self.assertEqual(got['marks'][0]['mark'], 3)
        self.assertEqual([m['seq'] for m in got['marks']],
                         list(range(3, 4096 + 3)))
        # one answer holds at most a page: ~1.5 KB a mark, 6.1 MB for all
        page = self.marks_page()
        size = len(json.dumps(page))
        print('first page: %d marks, %d bytes of JSON' % (len(page['marks']),
                                                         size))
        self.assertEqual(len(page['marks']), MARKS_PAGE)
        self.assertLess(size, MARKS_PAGE * 4096)

    def test_marks_are_answered_in_pages_from_a_start(self):
        ctrl, _ = self.start_profile()
        n = 2 * MARKS_PAGE + 44
        for i in range(n):
            self.assertStatus(self.mark(ctrl, 1 + i % 3), SC_SUCCESS,
                              'mark %d' % i)
        pages, start = [], 0
        while start is not None:
            page = self.marks_page(start=start) if start else \
                self.marks_page()
            pages.append(page)
            start = page.get('next')
        self.assertEqual([len(p['marks']) for p in pages],
                         [MARKS_PAGE, MARKS_PAGE, 44])
        self.assertEqual([p.get('next') for p in pages],
                         [MARKS_PAGE, 2 * MARKS_PAGE, None])
        seqs = [m['seq'] for p in pages for m in p['marks']]
        self.assertEqual(seqs, list(range(n)))
        self.assertEqual([m['mark'] for p in pages for m in p['marks']],
                         [1 + i % 3 for i in range(n)])
        # a smaller page from anywhere; next is the following mark
        page = self.marks_page(start=5, count=10)
        self.assertEqual([m['seq'] for m in page['marks']], list(range(5, 15)))
        self.assertEqual(page['next'], 15)
        # with a number: the pages hold those marks, next the next of them
        page = self.marks_page(mark=2, count=4)
        self.assertEqual([m['seq'] for m in page['marks']], [1, 4, 7, 10])
        self.assertEqual(page['next'], 13)
        self.assertEqual(len(self.marks(mark=2)['marks']), (n + 1) // 3)
        # past the last mark: nothing, and no next
        page = self.marks_page(start=n)
        self.assertEqual((page['marks'], 'next' in page), ([], False))
        for bad in (0, MARKS_PAGE + 1):
            with self.assertRaises(QemuError) as e:
                self.marks_page(count=bad)
            self.assertIn('count %d is not 1 to %d' % (bad, MARKS_PAGE),
                          str(e.exception))

    def test_raw_file_completion_is_posted_at_its_deadline_never_late(self):
        # Virtual time stands still at a deadline whose host I/O (here the
        # raw file's writes and fdatasync) has not finished: the completion
        # lands at the model's time, whatever the host's speed.
        import tempfile
        p_raw = RAW_PROFILE
        f = tempfile.NamedTemporaryFile(prefix='nvmimic-', suffix='.raw')
        self.addCleanup(f.close)
        from test_profile_nvme import Profile
        p = Profile(p_raw)
        f.truncate(p.capacity)
        f.flush()
        ctrl, _ = self.start_profile(p_raw, drive=raw_drive(f.name))
        self.set_state(**{'reset-stats': True})
        for rep in range(4):
            writes = [ctrl.write_cmd(4096 * (16 * rep + i), bytes([rep]) * 65536)
                      for i in range(16)]
            for c in ctrl.submit_and_time(writes):
                self.assertStatus(c, SC_SUCCESS, 'write')
            self.assertStatus(ctrl.execute(ctrl.flush_cmd()), SC_SUCCESS,
                              'flush')
        for k in self.stats()['classes']:
            self.assertEqual(k['posted'], k['count'], k['class'])
            self.assertEqual(k['late'], 0, '%s: %d late' % (k['class'],
                                                             k['late']))

    def test_mark_on_a_drive_without_profile_is_an_invalid_opcode(self):
        ctrl = self.start(['-drive', 'if=none,id=d,driver=null-co,size=%d'
                           % (1 << 30), '-device',
                           'nvme,id=%s,drive=d,addr=04.0,serial=x' % DEV_ID])
        ctrl.enable()
        c = self.mark(ctrl, 1)
        self.assertStatus(c, SC_INVALID_OPCODE, "mark without a profile")


if __name__ == '__main__':
    unittest.main()

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The profiled controller in real time, where a timing thread posts held
completions (hw/nvmimic-rt.c): what qtest and -icount cannot show, since
under both the thread is never used.  tinyguest/ runs under TCG without
-icount; the device's trace events say, on QEMU_CLOCK_VIRTUAL, when each
command was taken with its deadline (nvmimic_submit) and how far after its
deadline each completion was posted (nvmimic_post, read from the clock
just before the CQE is written).

- No completion is posted before its deadline, and completions are posted
  in deadline order; the device's own count of early posts is 0.  The
  negative control, x-timing-early-ns (the thread posts that long before
  each deadline), shows the same check failing.
- A reset (CC.EN cleared) and an ACPI eject (the device goes away, its
  thread stops) while completions are held post nothing afterwards; under
  make check-sanitizers that also checks the thread's lifetime.
- The thread's options are checked at realize, and it is absent with
  timing-thread=off and under -icount.
- The nvmimic block filter takes the same options on -blockdev (QAPI's
  BlockdevOptionsNvmimic, qemu/patches/0004) as on -drive: they reach its
  thread, and a bad value is refused with the same one line on both.

Run one:  python3 tests/device/test_realtime_nvme.py RealtimeNvme.test_NAME
"""

import os
import re
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nvmeqtest import QemuError  # noqa: E402
from test_profile_nvme import (  # noqa: E402
    ASAN_SWAPCONTEXT_NOTICE, DEV_ID, MAIN_PROFILE)
from test_icount_nvme import TinyGuest, TinyGuestCase, guest_ios  # noqa: E402

TRACE = ['-trace', 'nvmimic_submit', '-trace', 'nvmimic_post', '-trace',
         'nvmimic_hold']
SUBMIT_RE = re.compile(r'nvmimic_submit cid (\d+) sqid (\d+) (\S+) at (-?\d+)'
                       r' ns: completes at (-?\d+) ns')
HOLD_RE = re.compile(r'nvmimic_hold cid (\d+) sqid (\d+) ')
POST_RE = re.compile(r'nvmimic_post cid (\d+) sqid (\d+) posted, (-?\d+) ns '
                     r'after its deadline')


def posts_from_trace(text):
    """[(cid, sqid, deadline_ns, late_ns, held)] of the I/O queues'
    completions, in the order they were posted; deadline_ns from the
    command's latest nvmimic_submit, held: its data was done before its
    deadline and the completion waited for it (nvmimic_hold)."""
    deadline, held = {}, set()
    out = []
    for ln in text.splitlines():
        m = SUBMIT_RE.search(ln)
        if m:
            key = (int(m.group(1)), int(m.group(2)))
            deadline[key] = int(m.group(5))
            held.discard(key)
            continue
        m = HOLD_RE.search(ln)
        if m:
            held.add((int(m.group(1)), int(m.group(2))))
            continue
        m = POST_RE.search(ln)
        if m and int(m.group(2)):
            key = (int(m.group(1)), int(m.group(2)))
            out.append(key + (deadline.get(key), int(m.group(3)),
                              key in held))
    return out


def timing_violations(posts):
    """What is wrong with @posts: completions posted before their deadline,
    or held completions posted out of deadline order.  (A completion whose
    data came after its deadline is posted when the data comes, late, in
    the host's order.)  [] when nothing is."""
    bad = []
    last = None
    for cid, sqid, dl, late, held in posts:
        if dl is None:
            bad.append('cid %d: posted, never submitted' % cid)
            continue
        if late < 0:
            bad.append('cid %d: posted %d ns before its deadline'
                       % (cid, -late))
        if not held:
            continue
        if last is not None and dl < last[1]:
            bad.append('cid %d (deadline %d) posted after cid %d (deadline '
                       '%d)' % (cid, dl, last[0], last[1]))
        last = (cid, dl)
    return bad


FILTER_NODE = 'timed'
FILTER_CHILD_BYTES = 1 << 30


def blockdev_filter_args(opts):
    """A null-co node under an nvmimic block filter node (FILTER_NODE)
    with the timing options @opts, on -blockdev; no frontend uses it."""
    return ['-blockdev', 'driver=null-co,node-name=timed-child,size=%d'
            % FILTER_CHILD_BYTES,
            '-blockdev', 'driver=nvmimic,node-name=%s,file=timed-child,'
            'profile=%s%s' % (FILTER_NODE, MAIN_PROFILE, opts)]


def drive_filter_args(opts):
    """The same filter on -drive (QemuOpts rather than QAPI)."""
    return ['-drive', 'if=none,id=%s,driver=nvmimic,file.driver=null-co,'
            'file.size=%d,profile=%s%s' % (FILTER_NODE, FILTER_CHILD_BYTES,
                                           MAIN_PROFILE, opts)]


def refusal(extra_args=(), device_opts=''):
    """The stderr of a QEMU that must not start (QemuError if it does),
    less ASan's once-per-process notice about swapcontext (QEMU's
    coroutines), which is not ours."""
    g = TinyGuest('mode=qd1', device_opts=device_opts, icount=False,
                  extra_args=extra_args)
    try:
        try:
            g.start()
            g.qmp.execute('query-status')
        except QemuError:
            pass
        else:
            raise QemuError('QEMU started with %r' % (list(extra_args)
                                                      or device_opts))
        deadline = time.monotonic() + 30
        while g.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        err = g.read(g.err_path)
    finally:
        g.stop()
    return '\n'.join(ln for ln in err.splitlines()
                     if ln.strip() and not ASAN_SWAPCONTEXT_NOTICE.search(ln))


class RealtimeNvme(TinyGuestCase):

    def boot(self, append, device_opts='', icount=False, **kw):
        return super().boot(append, device_opts=device_opts, icount=icount,
                            **kw)

    def stats(self):
        return self.guest.qmp.execute('query-nvmimic-stats', id=DEV_ID)

    def read_class(self, st):
        return next(c for c in st['classes'] if c['class'] == 'read')

    def run_qd(self, n, device_opts='', guest_opts=''):
        """tinyguest mode=qd: @n reads, 8 outstanding.  Returns the guest's
        io lines, the posts the trace shows and the statistics."""
        g = self.boot('mode=qd n=%d depth=8%s' % (n, guest_opts),
                      device_opts, extra_args=TRACE)
        ios = guest_ios(g.run())
        st = self.stats()
        return ios, posts_from_trace(g.read(g.err_path)), st

    def test_no_completion_is_posted_before_its_deadline(self):
        n = 600
        ios, posts, st = self.run_qd(n)
        self.assertEqual(len(ios), n, 'the guest saw every completion')
        self.assertEqual([s for _, s, _, _ in ios], [0] * n,
                         'every read succeeded')
        self.assertIn('realtime', st, 'the timing thread posted')
        self.assertGreater(st['realtime']['runs'], 0)
        rd = self.read_class(st)
        self.assertEqual(rd['posted'], n)
        self.assertEqual(len(posts), n, 'one trace line per completion')
        self.assertGreater(len([p for p in posts if p[4]]), 0,
                           'some completions were held for their deadline')
        self.assertEqual(timing_violations(posts), [])
        self.assertEqual(rd['early'], 0, 'the device counted early posts')

    def test_negative_control_an_early_thread_is_caught(self):
        """x-timing-early-ns=1000000000 makes the thread take every
        deadline as a second earlier: it posts each completion as soon as
        its data is done.  The check above must see it, or it could not
        fail.  The reads go in rounds of 8 with 600 M TSC ticks of idling
        between them (some 290 ms on the 2.1 GHz development host): APST
        takes the P5 to PS3 after 100 ms idle, so each round waits for its
        2.5 ms exit latency and every read's deadline lies milliseconds
        after its data is done, even on a host so loaded that the data of
        a read without that wait comes after its 25-90 us deadline.
        Under ASan on a loaded 2-core host fewer are early (8 and 16 of 40
        with a polling thread, 16 of 40 without, in make check-sanitizers):
        there the data itself can come after the deadline.  So the control
        asks for a tenth of the reads in the trace and in the device's own
        count: without the option the thread posts none early (the test
        above), so any early post here is the check seeing the fault.
        timing-poll-us=0 keeps the thread this control was written for,
        which sleeps rather than polls (a polling thread takes each read
        before its data is done and leaves the post to the main loop)."""
        n = 40
        ios, posts, st = self.run_qd(n, ',x-timing-early-ns=1000000000'
                                     ',timing-poll-us=0', ' idle=600000000')
        self.assertEqual(len(ios), n)
        bad = timing_violations(posts)
        early = [b for b in bad if 'before its deadline' in b]
        self.assertGreaterEqual(len(early), n // 10,
                                'early posts found: %d of %d' %
                                (len(early), n))
        self.assertGreaterEqual(self.read_class(st)['early'], n // 10)

    def test_reset_with_completions_held_posts_nothing_after_it(self):
        """reset_with_completions_held() with the default options."""
        self.reset_with_completions_held('')

    def reset_with_completions_held(self, device_opts):
        """Eight reads held for their deadlines, then CC.EN cleared at once:
        none is posted after the reset (20 M TSC ticks watched, some ms),
        and the controller works again after it is enabled.  A host loaded
        by others can stop the vCPU past all eight deadlines before it
        clears CC.EN (seen once, at load 16 on 2 cores): nothing was held
        then, so the guest boots again, three times at most.  The eight
        reads get a latency fault of 5 ms (docs/faults.md): their model
        deadlines (25-90 us) passed before the reset in most boots on a
        quiet host once the thread polled (timing-poll-us) and posted on
        time, where the sleeping thread's late wake-up had held them."""
        for attempt in range(3):
            g = self.boot('mode=reset depth=8 n=32', device_opts)
            g.qmp.execute('nvmimic-fault', id=DEV_ID, kind='latency',
                          **{'class': 'read', 'delay-us': 5000, 'count': 8})
            lines = g.run()
            rc = [ln.split() for ln in lines if ln.startswith('reset-cq')]
            self.assertEqual(len(rc), 1, lines)
            before, after = int(rc[0][1]), int(rc[0][2])
            self.assertEqual(after, before, 'a completion was posted after '
                             'the reset')
            if before < 8:
                break
            self.tearDown()
        self.assertLess(before, 8, 'the reads were held at the reset (in '
                        'none of 3 boots)')
        ios = guest_ios(lines)
        self.assertEqual([s for _, s, _, _ in ios], [0] * 32,
                         'reads after the reset succeeded')
        st = self.stats()
        self.assertIn('realtime', st)
        self.assertEqual(self.read_class(st)['early'], 0)

    def test_fifo_thread_rests_before_the_kernel_throttles_it(self):
        """timing-fifo=on with polling that never ends (timing-poll-us at
        its 100 ms maximum) keeps the thread busy for the whole run.  Under
        the kernel's real-time throttling (sched_rt_runtime_us of each
        sched_rt_period_us) it must go back to normal priority before its
        runtime is spent, once per period it would have been throttled in:
        realtime.fifo-rests counts those periods.  Where throttling is off,
        or SCHED_FIFO was refused (its warning), it never rests.  Every read
        completes, none early."""
        n = 30000
        t0 = time.monotonic()
        ios, posts, st = self.run_qd(
            n, ',timing-fifo=on,timing-poll-us=100000')
        wall = time.monotonic() - t0
        self.assertEqual(len(ios), n)
        self.assertEqual([s for _, s, _, _ in ios], [0] * n)
        self.assertEqual(timing_violations(posts), [])
        self.assertEqual(self.read_class(st)['early'], 0)
        with open('/proc/sys/kernel/sched_rt_runtime_us') as f:
            runtime_us = int(f.read())
        with open('/proc/sys/kernel/sched_rt_period_us') as f:
            period_s = int(f.read()) / 1e6
        refused = 'SCHED_FIFO refused' in self.guest.read(self.guest.err_path)
        rests = st['realtime']['fifo-rests']
        if runtime_us < 0 or refused:
            self.assertEqual(rests, 0, 'throttling off (%d) or FIFO refused '
                             '(%s): no rest needed' % (runtime_us, refused))
        else:
            # the thread's busy time: polling and spinning (the boot and a
            # sanitizer's slow start are not in it)
            busy_s = (st['realtime']['poll-ms'] +
                      st['realtime']['spin-ms']) / 1e3
            why = 'rested in %d periods of %.1f s busy, %.1f s wall' % (
                rests, busy_s, wall)
            self.assertGreaterEqual(busy_s, 2 * period_s,
                                    'the reads must keep it busy for two '
                                    'periods: ' + why)
            # a period it was busy through rests; the first and the last
            # may be cut short, and its own periods start at its first
            # deadline, not the kernel's
            self.assertGreaterEqual(rests, max(1, int(busy_s / period_s) - 2),
                                    why)
            self.assertLessEqual(rests, int(wall / period_s) + 1, why)

    def test_eject_with_completions_held_posts_nothing_and_stops_the_thread(
            self):
        """eject_with_completions_held() with the default options."""
        self.eject_with_completions_held('')

    def eject_with_completions_held(self, device_opts):
        """Eight reads held, then the guest ejects the controller (ACPI PCI
        hotplug, machine pc): the device is unrealized while its thread may
        be sleeping, spinning or waiting for the BQL.  Nothing is written to
        the CQ afterwards, QEMU carries on, and the device is gone."""
        g = self.boot('mode=eject depth=8', device_opts, machine='pc')
        lines = g.run()
        ec = [ln.split() for ln in lines if ln.startswith('eject-cq')]
        self.assertEqual(len(ec), 1, lines)
        self.assertEqual(int(ec[0][2]), int(ec[0][1]),
                         'a completion was posted after the eject')
        deadline = time.monotonic() + 10
        while not any(e['event'] == 'DEVICE_DELETED'
                      for e in g.qmp.events):
            self.assertLess(time.monotonic(), deadline, 'no DEVICE_DELETED')
            g.qmp.execute('query-status')
            time.sleep(0.01)
        with self.assertRaises(QemuError) as cm:
            self.stats()
        self.assertIn('no nvme device', str(cm.exception))
        time.sleep(0.2)         # the thread, if still there, would act now
        self.assertEqual(g.qmp.execute('query-status')['status'], 'running')

    def test_doorbells_queued_without_the_bql_post_nothing_early(self):
        """timing-doorbells=on: the vCPUs queue their doorbell writes
        without the BQL and the thread replays them (nvmimic-doorbell.c).
        Every read completes, in deadline order, none early, and the
        statistics show the writes replayed: a tail and a head doorbell per
        read at most, and at least one per read (the tail).  The trace shows
        each write queued by a vCPU without the BQL (qemu/patches/0011)."""
        n = 600
        g = self.boot('mode=qd n=%d depth=8' % n, ',timing-doorbells=on',
                      extra_args=TRACE + ['-trace', 'nvmimic_doorbell_queue'])
        ios = guest_ios(g.run())
        st = self.stats()
        err = g.read(g.err_path)
        posts = posts_from_trace(err)
        queued = re.findall(r'nvmimic_doorbell_queue doorbell \S+ = \d+ '
                            r'queued, BQL held (\d)', err)
        self.assertEqual(len(ios), n, 'the guest saw every completion')
        self.assertEqual([s for _, s, _, _ in ios], [0] * n,
                         'every read succeeded')
        rt = st['realtime']
        self.assertEqual(timing_violations(posts), [])
        self.assertEqual(self.read_class(st)['early'], 0)
        self.assertEqual(len(posts), n)
        self.assertGreaterEqual(rt['doorbell-writes'], n)
        self.assertLessEqual(rt['doorbell-writes'], 2 * n + 64)
        self.assertGreater(rt['doorbell-replays'], 0)
        self.assertLessEqual(rt['doorbell-replays'], rt['doorbell-writes'])
        self.assertGreaterEqual(rt['doorbell-guard-us'], 2)
        self.assertEqual(len(queued), rt['doorbell-writes'])
        self.assertEqual(queued.count('1'), 0, 'writes queued with the BQL')

    def test_doorbells_reset_with_completions_held_posts_nothing_after_it(
            self):
        """The reset test with the doorbells queued: CC.EN cleared replays
        what is queued first, then the reset forgets the rest."""
        self.reset_with_completions_held(',timing-doorbells=on')
        self.assertGreater(self.stats()['realtime']['doorbell-writes'], 0)

    def test_doorbells_eject_with_completions_held_posts_nothing(self):
        """The eject test with the doorbells queued: the region is taken
        out while a vCPU may be writing to it."""
        self.eject_with_completions_held(',timing-doorbells=on')

    def test_doorbells_without_the_thread_are_the_trapped_path(self):
        """timing-doorbells=on with timing-thread=off: nothing to replay
        them, so the option is inert and the statistics have no thread."""
        g = self.boot('mode=qd1 wait=poll n=8',
                      ',timing-thread=off,timing-doorbells=on')
        self.assertEqual(len(guest_ios(g.run())), 8)
        st = self.stats()
        self.assertNotIn('realtime', st)
        self.assertEqual(self.read_class(st)['posted'], 8)

    def test_timing_thread_off_and_icount_post_from_the_timer(self):
        for opts, icount in ((',timing-thread=off', False), ('', True)):
            with self.subTest(opts=opts, icount=icount):
                g = self.boot('mode=qd1 wait=poll n=8', opts, icount=icount)
                self.assertEqual(len(guest_ios(g.run())), 8)
                st = self.stats()
                self.assertNotIn('realtime', st)
                self.assertEqual(self.read_class(st)['posted'], 8)
                self.tearDown()

    def test_icount_is_the_same_bit_for_bit_with_the_thread_on_or_off(self):
        """Under -icount the thread is never started: 64 reads at QD8 give
        the same guest output (TSC values included) and the same submits
        and posts in the trace, deadlines and lateness to the ns, with
        timing-thread on (the default) and off, and with timing-doorbells=on
        (inert without the thread).  (When a transfer's data comes,
        nvmimic_hold, is the host's, in any run.)"""
        runs = []
        for opts in ('', ',timing-thread=off', ',timing-doorbells=on'):
            g = self.boot('mode=qd n=64 depth=8', opts, icount=True,
                          extra_args=TRACE)
            lines = g.run()
            trace = [ln[ln.index('nvmimic_'):]
                     for ln in g.read(g.err_path).splitlines()
                     if 'nvmimic_submit' in ln or 'nvmimic_post' in ln]
            st = self.stats()
            self.assertNotIn('realtime', st)
            runs.append((lines, trace))
            self.tearDown()
        self.assertEqual(len(guest_ios(runs[0][0])), 64)
        self.assertEqual(len(runs[0][1]), 128, 'a submit and a post each')
        for other in runs[1:]:
            self.assertEqual(runs[0][0], other[0], 'guest output differs')
            self.assertEqual(runs[0][1], other[1], 'device trace differs')

    def test_bad_timing_options_are_refused_with_one_clear_line(self):
        cases = [(',timing-cpu=100000', 'timing-cpu=100000 is not a host '
                  'CPU'),
                 (',timing-spin-us=20000', 'timing-spin-us=20000 is more '
                  'than'),
                 (',timing-poll-us=200000', 'timing-poll-us=200000 is more '
                  'than')]
        for opts, want in cases:
            with self.subTest(opts=opts):
                g = TinyGuest('mode=qd1', device_opts=opts, icount=False)
                try:
                    with self.assertRaises(QemuError):
                        g.start()
                        g.qmp.execute('query-status')
                    deadline = time.monotonic() + 30
                    while g.proc.poll() is None and \
                            time.monotonic() < deadline:
                        time.sleep(0.05)
                    err = g.read(g.err_path)
                finally:
                    g.stop()
                self.assertIn(want, err)
                # under ASan QEMU also prints its once-per-process notice
                # about swapcontext (QEMU's coroutines), which is not ours
                self.assertEqual(len([ln for ln in err.splitlines()
                                      if ln.strip() and not
                                      ASAN_SWAPCONTEXT_NOTICE.search(ln)]),
                                 1, err)

    def filter_stats(self, opts):
        """query-nvmimic-stats of a block filter on -blockdev with the
        timing options @opts, in real time (TCG without -icount; the
        machine is made, the guest never runs), and the host CPUs the
        filter's timing thread may run on (None: no such thread; the
        NVMe controller has none, timing-thread=off)."""
        g = self.boot('mode=qd1', ',timing-thread=off',
                      extra_args=['-name', 'debug-threads=on']
                      + blockdev_filter_args(opts))
        st = g.qmp.execute('query-nvmimic-stats', id=FILTER_NODE)
        # the thread names itself once it runs: give it a moment
        deadline = time.monotonic() + (10 if 'realtime' in st else 0)
        while True:
            tids = []
            task_dir = '/proc/%d/task' % g.proc.pid
            for tid in os.listdir(task_dir):
                try:
                    with open(os.path.join(task_dir, tid, 'comm')) as f:
                        if f.read().strip() == 'nvmimic-timing':
                            tids.append(int(tid))
                except OSError:
                    pass            # a thread that just ended
            if tids or time.monotonic() >= deadline:
                break
            time.sleep(0.05)
        self.assertLessEqual(len(tids), 1, 'one timing thread')
        cpus = os.sched_getaffinity(tids[0]) if tids else None
        self.tearDown()
        return st, cpus

    def test_blockdev_filter_takes_the_timing_options(self):
        """-blockdev driver=nvmimic,... with each timing option: the thread
        starts with its spin window at timing-spin-us (default 200) and
        keeps it until it has timed 32 wake-ups, none here, so
        realtime.spin-us is the option's value; timing-cpu pins it;
        timing-thread=off leaves no thread and no realtime figures.
        (Without the options in QAPI's BlockdevOptionsNvmimic, -blockdev
        refuses each as an unexpected parameter.)"""
        st, cpus = self.filter_stats('')
        self.assertIn('realtime', st, 'the filter has a timing thread')
        self.assertEqual(st['realtime']['spin-us'], 200, 'the default')
        self.assertEqual(cpus, os.sched_getaffinity(0), 'not pinned')
        cpu = max(os.sched_getaffinity(0))
        st, cpus = self.filter_stats(
            ',timing-spin-us=37,timing-poll-us=0,timing-cpu=%d,'
            'timing-fifo=off' % cpu)
        self.assertIn('realtime', st)
        self.assertEqual(st['realtime']['spin-us'], 37)
        self.assertEqual(st['realtime']['poll-ms'], 0)
        self.assertEqual(cpus, {cpu}, 'timing-cpu pinned the thread')
        st, cpus = self.filter_stats(',timing-thread=off,timing-poll-us=2000')
        self.assertEqual(st['id'], FILTER_NODE)
        self.assertNotIn('realtime', st, 'timing-thread=off: no thread')
        self.assertIsNone(cpus, 'timing-thread=off: no thread')

    def test_blockdev_add_takes_the_timing_options_typed(self):
        """blockdev-add gives the options as JSON numbers and booleans,
        not the strings of the command line; the filter takes them, and
        refuses a bad one with the same line as -blockdev."""
        g = self.boot('mode=qd1', ',timing-thread=off')
        g.qmp.execute('blockdev-add', driver='null-co',
                      **{'node-name': 'qmp-child', 'size': FILTER_CHILD_BYTES})
        opts = {'timing-thread': True, 'timing-cpu': -1,
                'timing-spin-us': 41, 'timing-poll-us': 0,
                'timing-fifo': False}
        g.qmp.execute('blockdev-add', driver='nvmimic', file='qmp-child',
                      profile=MAIN_PROFILE, **{'node-name': 'qmp-timed'},
                      **opts)
        st = g.qmp.execute('query-nvmimic-stats', id='qmp-timed')
        self.assertIn('realtime', st)
        self.assertEqual(st['realtime']['spin-us'], 41)
        for key, bad, want in (
                ('timing-poll-us', 200000, 'nvmimic: timing-poll-us=200000 '
                 'is more than 100000'),
                ('timing-cpu', -2, 'nvmimic: timing-cpu=-2 is not a host '
                 'CPU')):
            with self.subTest(key=key):
                with self.assertRaises(QemuError) as cm:
                    g.qmp.execute('blockdev-add', driver='nvmimic',
                                  file={'driver': 'null-co',
                                        'size': FILTER_CHILD_BYTES},
                                  profile=MAIN_PROFILE,
                                  **{'node-name': 'qmp-bad', key: bad})
                self.assertIn(want, str(cm.exception))
        st = g.qmp.execute('query-nvmimic-stats', id='qmp-timed')
        self.assertEqual(st['realtime']['spin-us'], 41)

    def test_blockdev_filter_refuses_bad_timing_options_as_drive_does(self):
        """Each bad value: one line on -blockdev, naming the option and
        its value, and the same words as on -drive."""
        cases = [(',timing-poll-us=200000', 'nvmimic: timing-poll-us=200000 '
                  'is more than 100000'),
                 (',timing-poll-us=-1', 'nvmimic: timing-poll-us='
                  '18446744073709551615 is more than 100000'),
                 (',timing-spin-us=20000', 'nvmimic: timing-spin-us=20000 '
                  'is more than 10000'),
                 (',timing-cpu=100000', 'nvmimic: timing-cpu=100000 is not '
                  'a host CPU'),
                 (',timing-cpu=-2', 'nvmimic: timing-cpu=-2 is not a host '
                  'CPU'),
                 (',timing-cpu=5000000000', 'nvmimic: timing-cpu=5000000000 '
                  'is not a host CPU')]
        for opts, want in cases:
            with self.subTest(opts=opts):
                err = refusal(blockdev_filter_args(opts))
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertIn('-blockdev', err)
                self.assertIn(want, err)
                on_drive = refusal(drive_filter_args(opts))
                self.assertEqual(len(on_drive.splitlines()), 1, on_drive)
                self.assertEqual(err[err.index('nvmimic: '):],
                                 on_drive[on_drive.index('nvmimic: '):])


if __name__ == '__main__':
    unittest.main()

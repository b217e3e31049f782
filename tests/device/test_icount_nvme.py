#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The device's -icount paths, seen by a guest (tests/device/tinyguest/).

QEMU refuses -icount with the qtest accelerator, so these tests boot a tiny
freestanding guest under TCG with -icount shift=0,sleep=off: it drives the
controller with a few hundred instructions per command and reports, in
TSC ticks (QEMU_CLOCK_VIRTUAL nanoseconds under icount), when it rang each
doorbell and when it saw each completion.  The device's trace
(nvmimic-trace-start) gives, in the same time base, when it took each
command and when the model scheduled its completion.  The tests check:

- the SQ is processed inside the doorbell write (the command is taken at
  the doorbell's virtual time, so no warp can come in between);
- a completion is seen at its scheduled time, whether the guest halts
  until the MSI-X interrupt (icount then warps virtual time to the next
  deadline) or polls; posting goes straight from the timer, not through a
  bottom half that would let virtual time jump to the next guest tick;
  none is late, and none is counted late;
- a completion whose data the host has not finished in time (null-co with
  latency-ns in host time) is still posted at its scheduled time: virtual
  time stands still at the deadline until the data is there (the vCPU
  runs the block layer's completions itself), so the guest's timeline does
  not depend on the host's speed;
- an I/O CQ on the controller's own BAR0 cannot reset it from the
  synchronous posting path under icount (as test_reentrancy_nvme checks
  for the timer path under qtest).

Run one:  python3 tests/device/test_icount_nvme.py IcountNvme.test_NAME
The guest is $NVMIMIC_TINYGUEST (meson sets it), else
build/tests/device/tinyguest.elf.
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nvmeqtest import (  # noqa: E402
    QMP, QemuError, _LineSocket, FIRMWARE_ARGS, REPO_ROOT, qemu_binary,
    sanitizer_report)
from test_profile_nvme import Profile, MAIN_PROFILE, DEV_ID  # noqa: E402
from test_trace_nvme import read_trace  # noqa: E402

TINYGUEST = os.environ.get('NVMIMIC_TINYGUEST') or os.path.join(
    REPO_ROOT, 'build', 'tests', 'device', 'tinyguest.elf')
BOOT_TIMEOUT_S = 120

# Doorbell write to the device taking the command: the MMIO write itself.
# It comes at least one instruction after the RDTSC, and inside the MMIO
# write the vCPU's own clock is exact; a command taken later, in a bottom
# half, sees the clock as the vCPU last published it (at the RDTSC, which
# ends a translation block under icount: 0 ns), or jumped.
SUBMIT_MIN_NS = 1
SUBMIT_SLACK_NS = 100
# Completion posted to the guest seeing it: the interrupt or the poll loop
# and the reads of the CQE, a few hundred instructions at most.
SEEN_SLACK_NS = 2000


class TinyGuest:
    """QEMU with -icount running tinyguest.elf; QMP on a socket."""

    def __init__(self, append, drive_opts='', device_opts='',
                 profile=MAIN_PROFILE, icount=True, machine='q35',
                 extra_args=()):
        self.append = append
        self.icount = icount
        self.machine = machine
        self.extra_args = list(extra_args)
        self.profile = Profile(profile)
        self.drive_opts = drive_opts
        self.device_opts = device_opts
        self.proc = None
        self.qmp = None
        self.dir = tempfile.mkdtemp(prefix='nvmimic-icount-')
        self.out_path = os.path.join(self.dir, 'guest.out')
        self.err_path = os.path.join(self.dir, 'qemu.stderr')
        self.trace_path = os.path.join(self.dir, 'io.trace')

    def start(self):
        if not os.path.exists(TINYGUEST):
            raise QemuError('tiny guest %s is missing (build it: ninja -C '
                            'build)' % TINYGUEST)
        qmp_path = os.path.join(self.dir, 'qmp.sock')
        self.cmdline = (
            [qemu_binary(), '-machine', self.machine, '-accel', 'tcg']
            + (['-icount', 'shift=0,sleep=off'] if self.icount else [])
            + ['-m', '64M', '-display', 'none',
             '-nodefaults', '-no-shutdown', '-S',
             '-qmp', 'unix:%s,server=on,wait=off' % qmp_path,
             '-kernel', TINYGUEST, '-append', self.append,
             '-chardev', 'file,id=dbg,path=' + self.out_path,
             '-device', 'isa-debugcon,iobase=0xe9,chardev=dbg',
             '-drive', 'if=none,id=d,driver=null-co,size=%d%s'
             % (self.profile.capacity, self.drive_opts),
             '-device', 'nvme,id=%s,drive=d,addr=04.0,profile=%s%s'
             % (DEV_ID, self.profile.name, self.device_opts)]
            + FIRMWARE_ARGS + self.extra_args)
        with open(self.err_path, 'wb') as err:
            self.proc = subprocess.Popen(self.cmdline, stdin=subprocess.DEVNULL,
                                         stdout=err, stderr=err)
        deadline = time.monotonic() + 30
        while True:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(qmp_path)
                break
            except OSError:
                s.close()
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise QemuError('QMP never came up' + self.diagnose())
            time.sleep(0.01)
        self.qmp = QMP(_LineSocket(s, 'QMP', lambda _: self.diagnose()))
        return self

    def diagnose(self):
        rc = self.proc.poll() if self.proc else None
        return ('\n  QEMU %s; command line: %s\n  QEMU stderr:\n%s'
                '\n  guest output:\n%s'
                % ('still running' if rc is None else 'exit status %d' % rc,
                   ' '.join(self.cmdline), self.read(self.err_path),
                   self.read(self.out_path)))

    @staticmethod
    def read(path):
        try:
            with open(path, errors='replace') as f:
                return f.read()
        except OSError:
            return ''

    def run(self):
        """Let the guest run until it says done; returns its lines."""
        self.qmp.execute('cont')
        deadline = time.monotonic() + BOOT_TIMEOUT_S
        while True:
            lines = self.read(self.out_path).splitlines()
            if 'done' in lines:
                return lines
            bad = [ln for ln in lines if ln.startswith('FAIL')]
            if bad:
                raise QemuError('guest: %s' % bad[0] + self.diagnose())
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise QemuError('the guest did not finish within %d s'
                                % BOOT_TIMEOUT_S + self.diagnose())
            time.sleep(0.05)

    def stop(self):
        if self.qmp:
            self.qmp.ls.close()
            self.qmp = None
        text = ''
        if self.proc:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait(timeout=10)
            text = self.read(self.err_path)
            self.proc = None
        shutil.rmtree(self.dir, ignore_errors=True)
        return text


def guest_ios(lines):
    """[(index, status, t_doorbell, t_seen)] from the guest's io lines."""
    out = []
    for ln in lines:
        f = ln.split()
        if f[0] == 'io':
            out.append((int(f[1]), int(f[3], 16), int(f[4], 16),
                        int(f[5], 16)))
    return out


class TinyGuestCase(unittest.TestCase):
    """A test that boots at most one TinyGuest (self.boot()); tearDown
    stops it and fails the test on a sanitizer report or a QEMU that died
    before the end.  Shared with test_realtime_nvme.py."""

    guest = None

    def boot(self, append, **kw):
        self.guest = TinyGuest(append, **kw).start()
        return self.guest

    def tearDown(self):
        if self.guest:
            alive = self.guest.proc and self.guest.proc.poll() is None
            text = self.guest.stop()
            self.guest = None
            report = sanitizer_report(text)
            if report:
                self.fail('QEMU printed a sanitizer report:\n' + report)
            if not alive:
                self.fail('QEMU was no longer running at the end of the test:'
                          '\n' + text)


class IcountNvme(TinyGuestCase):
    def stats_class(self, name):
        st = self.guest.qmp.execute('query-nvmimic-stats', id=DEV_ID)
        for c in st['classes']:
            if c['class'] == name:
                return c
        self.fail('no class %r in %r' % (name, st))

    def traced_run(self, append, n, **kw):
        """Boot, trace, run the guest's n commands; return the pairs of
        (guest io line, trace row) and the read class statistics."""
        g = self.boot(append, **kw)
        g.qmp.execute('nvmimic-set-state', id=DEV_ID,
                      **{'fill-pct': 100.0, 'reset-stats': True})
        g.qmp.execute('nvmimic-trace-start', id=DEV_ID, path=g.trace_path)
        lines = g.run()
        rd = self.stats_class('read')
        info = g.qmp.execute('nvmimic-trace-stop', id=DEV_ID)
        hdr, rows = read_trace(g.trace_path)
        ios = guest_ios(lines)
        self.assertEqual(len(ios), n, lines)
        # The firmware (SeaBIOS) may read the drive before the tiny guest
        # starts: the guest's commands are the last n.
        start = int(hdr['start-ns'])
        self.assertGreaterEqual(info['commands'], n)
        self.assertEqual(len(rows), info['commands'])
        rows = rows[-n:]
        self.assertGreaterEqual(start + rows[0][0], ios[0][2])
        pairs = []
        for io, row in zip(ios, rows):
            self.assertEqual(io[1], 0, 'command %d failed: %r' % (io[0], io))
            self.assertEqual(row[1], 'read')
            pairs.append((io, (start + row[0], start + row[4])))
        return pairs, rd

    def check_on_time(self, pairs, rd, what):
        """Each command is taken in its doorbell write, and each completion
        is seen when it was scheduled: never late, whatever the host's
        speed (a deadline whose data the host has not finished holds
        virtual time until it has), and the device counts none late."""
        n = len(pairs)
        seen_late = []
        worst_submit = 0
        for io, (submit, complete) in pairs:
            i, _, t_db, t_seen = io
            self.assertGreaterEqual(
                submit - t_db, SUBMIT_MIN_NS,
                '%s: command %d rung at %d ns was taken at %d ns: not in the '
                'doorbell write' % (what, i, t_db, submit))
            self.assertLessEqual(
                submit - t_db, SUBMIT_SLACK_NS,
                '%s: command %d rung at %d ns was taken at %d ns: not in the '
                'doorbell write' % (what, i, t_db, submit))
            self.assertGreaterEqual(
                t_seen, complete, '%s: command %d seen at %d ns, before its '
                'scheduled completion %d ns' % (what, i, t_seen, complete))
            worst_submit = max(worst_submit, submit - t_db)
            seen_late.append(t_seen - complete)
        on_time = [d for d in seen_late if d <= SEEN_SLACK_NS]
        by_lateness = sorted(seen_late, reverse=True)
        print('%s: %d commands, doorbell to submission <= %d ns; %d seen '
              'within %d ns of their scheduled completion (worst %d ns); '
              'device: %d late, worst %.1f us; guest lateness, worst first: '
              '%s' % (what, n, worst_submit, len(on_time), SEEN_SLACK_NS,
                      max(on_time, default=-1), rd['late'],
                      rd['late-max-us'], by_lateness[:max(rd['late'], 3)]))
        self.assertEqual((rd['count'], rd['posted']), (n, n))
        self.assertLessEqual(n - len(on_time), rd['late'],
                             '%s: the guest saw completions later than '
                             'scheduled that the device did not count late'
                             % what)
        if rd['late']:
            late = by_lateness[:rd['late']]
            self.assertLessEqual(abs(rd['late-max-us'] * 1000 - late[0]),
                                 SEEN_SLACK_NS, what + ': worst lateness')
            self.assertLessEqual(
                abs(rd['late-mean-us'] * 1000 * len(late) - sum(late)),
                SEEN_SLACK_NS * len(late), what + ': total lateness')
        # Exactness is the rule, on any host under any load.
        self.assertEqual(rd['late'], 0, what + ': counted late')
        self.assertEqual(len(on_time), n, '%s: only %d of %d on time'
                         % (what, len(on_time), n))

    def test_halted_guest_sees_each_completion_when_scheduled(self):
        n = 32
        pairs, rd = self.traced_run('mode=qd1 wait=irq n=%d' % n, n)
        self.check_on_time(pairs, rd, 'QD1 reads, guest in HLT')
        lat = [io[3] - io[2] for io, _ in pairs]
        print('guest-measured latency: min %d max %d ns' % (min(lat), max(lat)))

    def test_halted_guest_with_ioeventfd_on_sees_each_completion_when_scheduled(
            self):
        """ioeventfd=on: doorbells still reach the MMIO handler (no
        profile has Doorbell Buffer Config, which QEMU's nvme needs before
        it takes doorbells through ioeventfds), so the times stay exact."""
        n = 16
        pairs, rd = self.traced_run('mode=qd1 wait=irq n=%d' % n, n,
                                    device_opts=',ioeventfd=on')
        self.check_on_time(pairs, rd, 'QD1 reads, ioeventfd=on')

    def test_polling_guest_sees_each_completion_when_scheduled(self):
        n = 64
        pairs, rd = self.traced_run('mode=qd1 wait=poll n=%d' % n, n)
        self.check_on_time(pairs, rd, 'QD1 reads, guest polling')

    def test_late_data_holds_virtual_time_until_it_is_there(self):
        """null-co completes each read 2 ms of host time after it starts,
        long after its deadline in virtual time (icount warps the halted
        guest straight to it).  Virtual time stands still at the deadline
        until the data is there: the guest sees each completion when it was
        scheduled, as if the host had been fast, and the device counts none
        late.  (Before, it was posted when the data came, up to 2 ms of
        virtual time late, at a point that depended on the host.)"""
        n = 8
        pairs, rd = self.traced_run('mode=qd1 wait=irq n=%d' % n, n,
                                    drive_opts=',latency-ns=%d' % (2 * 10**6))
        self.check_on_time(pairs, rd, 'QD1 reads, data 2 ms late (host)')

    def test_cq_on_the_controller_registers_cannot_reset_it(self):
        """The CQ on BAR0 (see test_reentrancy_nvme); the data is 20 ms
        late (host time), so the completion is posted from the block
        layer's callback, which the vCPU runs itself while virtual time
        waits at the deadline: the synchronous path taken under icount."""
        g = self.boot('mode=cqbar', drive_opts=',latency-ns=20000000')
        g.qmp.execute('nvmimic-set-state', id=DEV_ID,
                      **{'fill-pct': 100.0, 'reset-stats': True})
        lines = g.run()
        regs = [ln.split() for ln in lines if ln.startswith('regs ')]
        self.assertEqual(len(regs), 1, lines)
        cc, csts = int(regs[0][1], 16), int(regs[0][2], 16)
        self.assertEqual(cc & 1, 1, 'CC.EN cleared by the device\'s own '
                         'completion (CC 0x%x CSTS 0x%x)' % (cc, csts))
        self.assertEqual(csts & 3, 2, 'CSTS 0x%x: expected Controller '
                         'Fatal Status alone' % csts)
        rd = self.stats_class('read')
        self.assertGreaterEqual(rd['posted'], 1)
        self.assertEqual(rd['late'], 0, 'posted after its deadline')


if __name__ == '__main__':
    unittest.main()

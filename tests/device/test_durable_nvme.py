#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qtest checks that what the drive acknowledged as durable is durable.

A write with Force Unit Access (FUA), and every write completed before a
Flush that completed, must survive the end of the QEMU process.  What a
kill -9 can show depends on the backing file:

- qcow2 keeps the L2 entry of a newly allocated cluster in QEMU's memory
  until the block layer flushes, so a write into a new cluster that was
  not flushed is gone after kill -9: that is the control, the loss the
  drive is allowed.  A FUA write there survives only if the device
  flushed before it completed.
- On a raw file a completed pwrite sits in the host's page cache, which a
  kill -9 does not touch: no write, flushed or not, is ever lost that
  way.  What the raw test can honestly show is the order of system calls:
  an fdatasync of the file between a FUA write's pwrite and the next
  command the host sends after seeing its completion (strace), and none
  after a plain write (the control).  Losing the host's page cache needs
  a host crash; the drive-level power cut (docs/faults.md) shows the loss
  of a drive's volatile cache on any file.

Each test checks itself with a control that loses data, so it can fail.
Images are read back with qemu-io (Debian's qemu-utils), independent of
the device under test.

Run one:  python3 tests/device/test_durable_nvme.py DurableNvme.test_NAME
"""

import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nvmeqtest import (  # noqa: E402
    Machine, NvmeController, Cmd, PAGE, SC_SUCCESS, IO_FLUSH)
from test_profile_nvme import (  # noqa: E402
    ProfileTest, Profile, RAW_PROFILE, DEV_ID, profile_device, null_drive,
    _replace_key)

FUA = 1 << 30                   # CDW12 bit 30 (Read/Write/Write Zeroes)
IO_COPY = 0x19
COPY_FUA = 1 << 30              # Copy: CDW12 bit 30 too
QCOW2_CLUSTER = 64 * 1024       # QEMU's default cluster size
SEEDS = list(range(1, 101))     # the kills at random instants


def qemu_io(img, fmt, cmds):
    """Run qemu-io read-only on @img with @cmds ('read -P 0xNN OFF LEN');
    return one bool per command: did it read back as it asked."""
    if not shutil.which('qemu-io'):
        raise AssertionError('qemu-io not found: install qemu-utils '
                             '(make deps)')
    args = ['qemu-io', '-r', '-f', fmt, img]
    for c in cmds:
        args += ['-c', c]
    out = subprocess.run(args, capture_output=True, text=True, timeout=120)
    # 1: some pattern did not match (reported on stdout, parsed below)
    if out.returncode not in (0, 1) or out.stderr.strip():
        raise AssertionError('qemu-io %s failed (%d): %s%s'
                             % (img, out.returncode, out.stdout[-500:],
                                out.stderr[-500:]))
    ok, failed = [], False
    for line in out.stdout.splitlines():
        if line.startswith('Pattern verification failed'):
            failed = True
        elif re.match(r'read \d+/\d+ bytes at offset \d+', line):
            ok.append(not failed)
            failed = False
    if len(ok) != len(cmds):
        raise AssertionError('qemu-io answered %d of %d reads:\n%s'
                             % (len(ok), len(cmds), out.stdout[-2000:]))
    return ok


def make_qcow2(path, size):
    """An empty qcow2 image of @size bytes, made by the QEMU under test."""
    open(path, 'wb').close()
    with Machine([], machine='none') as m:
        m.qmp.execute('blockdev-add', driver='file', filename=path,
                      **{'node-name': 'proto'})
        m.qmp.execute('blockdev-create', **{'job-id': 'mk'},
                      options={'driver': 'qcow2', 'file': 'proto',
                               'size': size})
        deadline = time.monotonic() + 60
        while True:
            jobs = {j['id']: j for j in m.qmp.execute('query-jobs')}
            if jobs['mk']['status'] == 'concluded':
                break
            if time.monotonic() > deadline:
                raise AssertionError('blockdev-create: %r' % jobs)
            time.sleep(0.05)
        if 'error' in jobs['mk']:
            raise AssertionError('blockdev-create: %s' % jobs['mk']['error'])
        m.qmp.execute('job-dismiss', id='mk')
        m.qmp.execute('blockdev-del', **{'node-name': 'proto'})


class DurableNvme(ProfileTest):

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.TemporaryDirectory(prefix='nvmimic-durable-')
        self.addCleanup(self.tmp.cleanup)

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def kill(self):
        """SIGKILL QEMU: nothing it holds in memory reaches the file."""
        self.machine.kill()
        self.machine.stop()
        self.machine = None

    def qcow2_drive(self, img, node=None):
        if node:
            return ['-blockdev', 'driver=file,node-name=%s-file,filename=%s'
                    % (node, img),
                    '-blockdev', 'driver=qcow2,node-name=%s,file=%s-file'
                    % (node, node)]
        return ['-drive', 'if=none,id=d,format=qcow2,file=' + img]

    def fua(self, cmd, bit=FUA):
        cmd.cdw[2] |= bit
        return cmd

    def copy_cmd(self, ctrl, dst, src, nlb, fua):
        """Copy, source range format 0, one range of @nlb blocks."""
        buf = ctrl.alloc.alloc(PAGE)
        rng = bytearray(32)
        rng[8:16] = src.to_bytes(8, 'little')
        rng[16:18] = (nlb - 1).to_bytes(2, 'little')
        return Cmd(IO_COPY, nsid=1, cdw10=dst & 0xffffffff, cdw11=dst >> 32,
                   cdw12=(COPY_FUA if fua else 0), prp1=buf,
                   data=bytes(rng), buf=buf, buf_len=32)

    # ---- 1. one of each, and its control -----------------------------------
    def test_fua_write_survives_kill_9_on_qcow2_and_a_plain_one_is_lost(self):
        """A profiled drive with a volatile write cache on a qcow2 image.
        Each case writes into a cluster of its own that qcow2 has not
        allocated yet (Write Zeroes: a whole cluster of data flushed
        first, which qcow2 then marks zero in its metadata): with
        FUA the data must be there after kill -9; without it, and without
        a Flush, it must be gone (the control: the cache the drive reports
        is really volatile here, so the FUA cases prove something)."""
        p = Profile(RAW_PROFILE)
        self.assertTrue(p.bool('identity', 'volatile-write-cache'))
        lb = p.lba_bytes
        per = QCOW2_CLUSTER // lb
        img = self.path('drive.qcow2')
        make_qcow2(img, p.capacity)
        ctrl = self.start(self.qcow2_drive(img) + profile_device(RAW_PROFILE))
        ctrl.enable()
        ctrl.create_io_queue_pair(1, 16)
        # Data made durable first (write + flush) for the Write Zeroes cases:
        # a Flush covers every write completed before it.
        for k in range(2):
            self.assertStatus(ctrl.execute(ctrl.write_cmd(
                (32 + k) * per, bytes([0x41]) * QCOW2_CLUSTER)), SC_SUCCESS,
                'write')
        self.assertStatus(ctrl.execute(ctrl.flush_cmd()), SC_SUCCESS, 'flush')
        # The FUA cases first: the flush that makes one durable makes every
        # write before it durable too, the plain ones among them.
        cases = []              # (name, slba, what it must or must not hold)
        for k, fua in enumerate((True, False)):
            data = bytes([0x31 + k]) * PAGE
            slba = (16 + k) * per
            c = ctrl.write_cmd(slba, data)
            cases.append(('write', slba, data, fua, c))
            # a whole cluster: qcow2 then marks it zero in its L2 table
            # (a part of one it would zero in place, which a kill -9 keeps)
            c = ctrl.write_zeroes_cmd((32 + k) * per, per)
            cases.append(('write zeroes', (32 + k) * per,
                          bytes(QCOW2_CLUSTER), fua, c))
        cases.sort(key=lambda case: not case[3])
        for name, _, _, fua, c in cases:
            if fua:
                self.fua(c)
            self.assertStatus(ctrl.execute(c), SC_SUCCESS, name)
        cases = [('%s%s' % (name, ' FUA' if fua else ''), slba, data, fua)
                 for name, slba, data, fua, _ in cases]
        self.kill()
        cmds = ['read -P 0x%02x %d %d' % (data[0], slba * lb, len(data))
                for _, slba, data, _ in cases]
        got = qemu_io(img, 'qcow2', cmds)
        for (name, _, _, fua), kept in zip(cases, got):
            print('%-17s %s after kill -9' % (name, 'kept' if kept
                                              else 'LOST'))
        for (name, _, _, fua), kept in zip(cases, got):
            if fua:
                self.assertTrue(kept, '%s lost by kill -9' % name)
            else:
                self.assertFalse(kept, 'control: %s without FUA or Flush '
                                 'survived kill -9, so the FUA cases show '
                                 'nothing' % name)

    def test_fua_copy_survives_kill_9_on_qcow2_and_a_plain_one_is_lost(self):
        """Copy (upstream's device: the profiles have no Copy) from data
        made durable into a new cluster, with and without FUA."""
        img = self.path('copy.qcow2')
        make_qcow2(img, 1 << 30)
        # an nvme-ns device: the namespace of drive= on the controller has
        # the Copy limits (MSSRL, MCL) 0, so it refuses every Copy
        ctrl = self.start(self.qcow2_drive(img)
                          + ['-device', 'nvme,id=%s,serial=durable,addr=04.0'
                             % DEV_ID, '-device', 'nvme-ns,drive=d,nsid=1'])
        ctrl.enable()
        ctrl.create_io_queue_pair(1, 16)
        lb = ctrl._lba_bytes(1)
        per = QCOW2_CLUSTER // lb
        src = 4 * per
        data = bytes([0x5c]) * PAGE
        self.assertStatus(ctrl.execute(ctrl.write_cmd(src, data)),
                          SC_SUCCESS, 'write')
        self.assertStatus(ctrl.execute(ctrl.flush_cmd()), SC_SUCCESS, 'flush')
        dst = {True: 8 * per, False: 12 * per}
        for fua in (True, False):
            self.assertStatus(ctrl.execute(self.copy_cmd(
                ctrl, dst[fua], src, PAGE // lb, fua)), SC_SUCCESS, 'copy')
        self.kill()
        got = qemu_io(img, 'qcow2', ['read -P 0x5c %d %d' % (dst[f] * lb, PAGE)
                                     for f in (True, False)])
        print('copy FUA %s, plain copy %s after kill -9'
              % tuple('kept' if g else 'LOST' for g in got))
        self.assertTrue(got[0], 'Copy with FUA lost by kill -9')
        self.assertFalse(got[1], 'control: a Copy without FUA or Flush '
                         'survived kill -9')

    # ---- 2. at random instants ----------------------------------------------
    def run_and_kill(self, img, seed):
        """One run: random writes (some FUA) and flushes on one queue, the
        host polling and stepping virtual time at random, then SIGKILL at a
        random point with commands in flight.  Returns the writes with
        what the host knew of them when QEMU died."""
        rng = random.Random(seed)
        p = Profile(RAW_PROFILE)
        lb = p.lba_bytes
        per = QCOW2_CLUSTER // lb
        ctrl = self.start(self.qcow2_drive(img) + profile_device(RAW_PROFILE))
        ctrl.enable()
        ctrl.create_io_queue_pair(1, 32)
        slots = rng.sample(range(1, 1 << 14), 64)
        writes = []             # dicts: slba, nlb, pat, fua, acked, durable
        by_cid = {}
        n_ops = rng.randint(4, 48)
        kill_after = rng.randint(1, n_ops)

        def handle(done):
            for c in done:
                op = by_cid.pop(c.cid)
                self.assertStatus(c, SC_SUCCESS, 'seed %d: %s' % (seed, op))
                if op['kind'] == 'flush':
                    for w in op['covers']:
                        w['durable'] = True
                else:
                    op['acked'] = True
                    op['durable'] = op['durable'] or op['fua']

        for i in range(n_ops):
            q = ctrl.queues[1]
            if q.free_slots() == 0:
                handle(ctrl.poll())
                if q.free_slots() == 0:
                    ctrl.qt.clock_step()
                    handle(ctrl.poll())
                    continue
            if rng.random() < 0.2 and writes:
                # a Flush covers the writes completed before it is sent
                op = {'kind': 'flush',
                      'covers': [w for w in writes if w['acked']]}
                cmd = ctrl.flush_cmd()
            else:
                nlb = rng.choice((1, 8, 16, per))
                slba = slots[len(writes)] * per
                op = {'kind': 'write', 'slba': slba, 'nlb': nlb,
                      'pat': 1 + len(writes) % 250,
                      'fua': rng.random() < 0.5, 'acked': False,
                      'durable': False}
                cmd = ctrl.write_cmd(slba, bytes([op['pat']]) * (nlb * lb))
                if op['fua']:
                    self.fua(cmd)
                writes.append(op)
            ctrl.submit([cmd])
            by_cid[cmd.cid] = op
            r = rng.random()
            if r < 0.4:
                handle(ctrl.poll())
            elif r < 0.8:
                ctrl.qt.clock_step()
                handle(ctrl.poll())
            if i + 1 == kill_after:
                break
        # Host time still runs: the data of commands in flight is on its way
        time.sleep(rng.random() * 0.003)
        handle(ctrl.poll())
        self.kill()
        return writes, lb

    def test_no_acknowledged_fua_or_flushed_write_is_lost_in_100_kills(self):
        """100 runs (seeds 1-100), each killed at a random point: every
        write the host saw complete with FUA, and every write it saw
        complete before a Flush it saw complete, reads back after the
        kill; every other write reads back whole or not at all (each
        lies in one qcow2 cluster of its own).  Over the 100 runs some
        unflushed writes must have been lost (the control)."""
        p = Profile(RAW_PROFILE)
        template = self.path('template.qcow2')
        make_qcow2(template, p.capacity)
        img = self.path('run.qcow2')
        counts = {'durable': 0, 'volatile kept': 0, 'volatile lost': 0,
                  'in flight': 0}
        t0 = time.monotonic()
        for seed in SEEDS:
            shutil.copyfile(template, img)
            writes, lb = self.run_and_kill(img, seed)
            if not writes:
                continue
            cmds = []
            for w in writes:
                where = '%d %d' % (w['slba'] * lb, w['nlb'] * lb)
                cmds += ['read -P 0x%02x %s' % (w['pat'], where),
                         'read -P 0x00 %s' % where]
            got = qemu_io(img, 'qcow2', cmds)
            for k, w in enumerate(writes):
                kept, zero = got[2 * k], got[2 * k + 1]
                what = ('seed %d: write %d (LBA %d, %d blocks, %s)'
                        % (seed, k, w['slba'], w['nlb'],
                           'FUA' if w['fua'] else 'plain'))
                if w['durable']:
                    counts['durable'] += 1
                    self.assertTrue(kept, what + ' was acknowledged as '
                                    'durable and is lost')
                    continue
                self.assertTrue(kept or zero, what + ' is torn')
                if not w['acked']:
                    counts['in flight'] += 1
                elif kept:
                    counts['volatile kept'] += 1
                else:
                    counts['volatile lost'] += 1
        print('%d kills in %.0f s: %s' % (len(SEEDS), time.monotonic() - t0,
                                         counts))
        self.assertGreater(counts['durable'], 100)
        self.assertGreater(counts['volatile lost'], 0,
                           'control: no unflushed write was ever lost')

    # ---- 3. a raw file: the fdatasync between a FUA write and its completion
    def strace_qemu(self, log):
        """A QEMU that runs under strace, logging writes and syncs."""
        strace = shutil.which('strace')
        self.assertIsNotNone(strace, 'strace not found: install strace '
                             '(make deps)')
        wrapper = self.path('qemu-strace.sh')
        with open(wrapper, 'w') as f:
            f.write('#!/bin/sh\nexec %s -f -qq -o %s -e trace=pwrite64,'
                    'pwritev,pwritev2,fdatasync,fsync %s "$@"\n'
                    % (strace, log, self.qemu_path()))
        os.chmod(wrapper, 0o755)
        return wrapper

    def qemu_path(self):
        from nvmeqtest import qemu_binary
        return qemu_binary()

    def test_fua_write_on_a_raw_file_is_synced_before_it_completes(self):
        """On a raw file kill -9 loses nothing (the host's page cache keeps
        every pwrite), so the test watches the system calls instead: QEMU
        must fdatasync the file after a FUA write's pwrite and before the
        host's next command, which it sends only once it has seen the FUA
        write complete.  The control: a plain write is followed by no
        sync before the next command."""
        p = Profile(RAW_PROFILE)
        lb = p.lba_bytes
        img = self.path('drive.raw')
        with open(img, 'wb') as f:
            f.truncate(p.capacity)
        log = self.path('strace.log')
        self.machine = Machine(['-drive', 'if=none,id=d,format=raw,'
                                'discard=unmap,file=' + img]
                               + profile_device(RAW_PROFILE),
                               qemu=self.strace_qemu(log))
        self.machine.start()
        ctrl = self.ctrl = NvmeController(self.machine)
        ctrl.enable()
        ctrl.create_io_queue_pair(1, 16)
        order = [('fua', 1 << 20, True), ('plain', 2 << 20, False),
                 ('next', 3 << 20, False)]
        for name, slba, fua in order:
            c = ctrl.write_cmd(slba, bytes([0x77]) * PAGE)
            if fua:
                self.fua(c)
            self.assertStatus(ctrl.execute(c), SC_SUCCESS, name)
        self.kill()
        # strace's lines are in the order the events happened; a call that
        # blocks shows as "<unfinished ...>", then "<... NAME resumed>".
        events = []             # ((call, offset), 'start' | 'end')
        blocked = {}            # pid: the call it is blocked in
        with open(log) as f:
            for line in f:
                m = re.match(r'(\d+)\s+(<\.\.\. )?(\w+)', line)
                if not m:
                    continue
                pid, resumed, name = m.groups()
                if name.startswith('pwrite'):
                    name = 'pwrite'
                if resumed:
                    events.append((blocked.pop(pid, (name, None)), 'end'))
                    continue
                off = None
                if name == 'pwrite':
                    # pwrite64(fd, buf, len, OFFSET), pwritev(fd, iov, n,
                    # OFFSET): the last argument
                    a = re.search(r', (\d+)(?:\)| <unfinished)', line)
                    off = int(a.group(1)) if a else None
                if '<unfinished' in line:
                    blocked[pid] = (name, off)
                    events.append(((name, off), 'start'))
                else:
                    events += [((name, off), 'start'), ((name, off), 'end')]

        def index(what, edge):
            for i, e in enumerate(events):
                if e == (what, edge):
                    return i
            self.fail('strace shows no %s of %r:\n%s'
                      % (edge, what, open(log).read()[-3000:]))
        syncs = [i for i, (w, e) in enumerate(events)
                 if w[0] in ('fdatasync', 'fsync') and e == 'end']
        fua_done = index(('pwrite', (1 << 20) * lb), 'end')
        plain_start = index(('pwrite', (2 << 20) * lb), 'start')
        plain_done = index(('pwrite', (2 << 20) * lb), 'end')
        next_start = index(('pwrite', (3 << 20) * lb), 'start')
        after_fua = [i for i in syncs if fua_done < i < plain_start]
        after_plain = [i for i in syncs if plain_done < i < next_start]
        print('syncs after the FUA write: %d; after the plain write: %d'
              % (len(after_fua), len(after_plain)))
        self.assertTrue(after_fua, 'no fdatasync between the FUA write and '
                        'the next command')
        self.assertFalse(after_plain, 'control: a plain write was synced '
                         'too, so the FUA case shows nothing')

    # ---- 4. the block filter ----------------------------------------------
    def filter_machine(self, img, write_cache):
        """Upstream's nvme device (no profile) over an nvmimic block filter
        node over qcow2: the filter times, the device only carries the
        commands.  With write-cache=off the device's BlockBackend writes
        through, so every write reaches the filter with BDRV_REQ_FUA."""
        ctrl = self.start(
            self.qcow2_drive(img, node='q')
            + ['-blockdev', 'driver=nvmimic,node-name=timed,file=q,'
               'profile=' + RAW_PROFILE,
               '-device', 'nvme,id=%s,drive=timed,serial=filter,addr=04.0,'
               'write-cache=%s' % (DEV_ID, 'on' if write_cache else 'off')])
        ctrl.enable()
        ctrl.create_io_queue_pair(1, 16)
        return ctrl

    def filter_classes(self):
        st = self.machine.qmp.execute('query-nvmimic-stats', id='timed')
        return {c['class']: c for c in st['classes']}

    def test_filter_times_a_fua_write_as_fua_and_its_child_keeps_it(self):
        """Writes that reach the filter with BDRV_REQ_FUA are timed as the
        drive times FUA (each completes after its program: slower than the
        SLC program time), reach the qcow2 child as FUA (the block layer
        flushes the child, so they survive kill -9), and are not split
        into a write and a whole-cache flush of the filter (no flush is
        counted).  The control: the same writes without FUA on the same
        drive complete from the buffer, faster than a program, and are
        lost."""
        p = Profile(RAW_PROFILE)
        lb = p.lba_bytes
        per = QCOW2_CLUSTER // lb
        tprog_us = p.float('nand', 'program-us-slc')
        seen = {}
        for fua in (True, False):
            img = self.path('filter-%s.qcow2' % fua)
            make_qcow2(img, p.capacity)
            ctrl = self.filter_machine(img, write_cache=not fua)
            for k in range(4):
                self.assertStatus(ctrl.execute(ctrl.write_cmd(
                    (8 + k) * per, bytes([0x61 + k]) * PAGE)), SC_SUCCESS,
                    'write')
            cls = self.filter_classes()
            self.kill()
            kept = qemu_io(img, 'qcow2', ['read -P 0x%02x %d %d'
                                          % (0x61 + k, (8 + k) * per * lb,
                                             PAGE) for k in range(4)])
            seen[fua] = (cls['write'], cls['flush']['count'], kept)
            print('%s: 4 writes, mean %.1f us (SLC program %.0f us), '
                  '%d flushes, kept after kill -9: %s'
                  % ('FUA' if fua else 'plain', cls['write']['mean-us'],
                     tprog_us, cls['flush']['count'], kept))
        w, flushes, kept = seen[True]
        self.assertEqual(w['count'], 4)
        self.assertGreater(w['p50-us'], tprog_us, 'FUA writes were not '
                           'timed as FUA')
        self.assertEqual(flushes, 0, 'a FUA write became a flush of the '
                         'filter')
        self.assertEqual(kept, [True] * 4, 'FUA writes lost by kill -9')
        w, flushes, kept = seen[False]
        self.assertLess(w['p50-us'], tprog_us, 'control: plain writes')
        self.assertEqual(kept, [False] * 4, 'control: plain writes '
                         'survived kill -9 on qcow2')

    def test_filter_flush_reaches_the_child_and_survives_kill_9(self):
        """A guest Flush through the filter flushes the qcow2 child: the
        write before it survives kill -9, the write after it (the control)
        does not."""
        p = Profile(RAW_PROFILE)
        lb = p.lba_bytes
        per = QCOW2_CLUSTER // lb
        img = self.path('filter-flush.qcow2')
        make_qcow2(img, p.capacity)
        ctrl = self.filter_machine(img, write_cache=True)
        for k, then_flush in enumerate((True, False)):
            self.assertStatus(ctrl.execute(ctrl.write_cmd(
                (8 + k) * per, bytes([0x71 + k]) * PAGE)), SC_SUCCESS,
                'write')
            if then_flush:
                self.assertStatus(ctrl.execute(ctrl.flush_cmd()),
                                  SC_SUCCESS, 'flush')
        self.assertEqual(self.filter_classes()['flush']['count'], 1)
        self.kill()
        kept = qemu_io(img, 'qcow2', ['read -P 0x%02x %d %d'
                                      % (0x71 + k, (8 + k) * per * lb, PAGE)
                                      for k in range(2)])
        print('flushed write %s, later write %s after kill -9'
              % tuple('kept' if k else 'LOST' for k in kept))
        self.assertTrue(kept[0], 'a flushed write was lost: the filter\'s '
                        'flush did not reach the child')
        self.assertFalse(kept[1], 'control: an unflushed write survived')

    def test_fua_on_a_drive_without_write_cache_is_timed_as_a_plain_write(self):
        """A drive that reports no volatile write cache keeps whatever it
        acknowledged (its buffer survives power loss), so FUA costs it
        nothing: a FUA write through the profiled controller, and every
        write through the filter under a write-through BlockBackend
        (which sets FUA on each), complete from the buffer, faster than
        an SLC program; the same profile with its cache completes them
        after the program."""
        p = Profile(RAW_PROFILE)
        tprog_us = p.float('nand', 'program-us-slc')
        with open(p.path) as f:
            text = f.read()
        for vwc in (False, True):
            prof = self.path('vwc-%s.ini' % vwc)
            with open(prof, 'w') as f:
                f.write(_replace_key(text, 'volatile-write-cache',
                                     str(vwc).lower()))
            # the profiled controller, FUA bit set by the host
            ctrl = self.start(null_drive(p.capacity) + profile_device(prof))
            ctrl.enable()
            ctrl.create_io_queue_pair(1, 16)
            dev_us = [ctrl.latency_ns(self.fua(ctrl.write_cmd(
                (1 << 20) * (k + 1), bytes(PAGE)))) / 1000 for k in range(4)]
            self.kill()
            # the filter under a write-through BlockBackend
            ctrl = self.start(
                ['-blockdev', 'driver=null-co,node-name=z,size=%d'
                 % p.capacity,
                 '-blockdev', 'driver=nvmimic,node-name=timed,file=z,'
                 'profile=' + prof,
                 '-device', 'nvme,id=%s,drive=timed,serial=filter,'
                 'addr=04.0,write-cache=off' % DEV_ID])
            ctrl.enable()
            ctrl.create_io_queue_pair(1, 16)
            for k in range(4):
                self.assertStatus(ctrl.execute(ctrl.write_cmd(
                    (1 << 20) * (k + 1), bytes(PAGE))), SC_SUCCESS, 'write')
            filt_us = self.filter_classes()['write']['max-us']
            self.kill()
            print('volatile-write-cache=%s: FUA writes %s us on the '
                  'controller, at most %.1f us through the filter (SLC '
                  'program %.0f us)' % (vwc, ['%.1f' % x for x in dev_us],
                                        filt_us, tprog_us))
            if vwc:
                self.assertGreater(min(dev_us), tprog_us)
                self.assertGreater(filt_us, tprog_us)
            else:
                self.assertLess(max(dev_us), tprog_us)
                self.assertLess(filt_us, tprog_us)


if __name__ == '__main__':
    unittest.main()

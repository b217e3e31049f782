#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qtest checks of the device as host attack surface and as a keeper of
data: what profile= reads and says, the write cache a drive without one
must not have, and the command and lifecycle paths the other tests do not
take (SGL deallocate, device_del with completions held, ioeventfd).

Run one:  python3 tests/device/test_hardening_nvme.py HardeningNvme.test_NAME
"""

import os
import struct
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nvmeqtest import (  # noqa: E402
    Machine, NvmeController, Cmd, QemuError, PAGE, SC_SUCCESS,
    SC_INVALID_FIELD, SC_INVALID_OPCODE, ADM_GET_FEATURES, ADM_SET_FEATURES,
    ADM_DBBUF_CONFIG, IO_DSM, IO_FLUSH, IO_READ, IO_WRITE)
import test_profile_nvme  # noqa: E402
from test_profile_nvme import (  # noqa: E402
    ProfileTest, Profile, RAW_PROFILE, DEV_ID, null_drive, raw_drive,
    profile_device)
from test_trace_nvme import read_trace  # noqa: E402

FID_VWC = 0x06
# above the qtest machine's 128 MiB of RAM, below the PCI hole: unassigned,
# so QEMU maps a transfer there through its one 4 KiB bounce buffer
NOT_RAM = 0x40000000


def striped_qcow2(path, size, clusters):
    """A qcow2 image of virtual @size whose first @clusters 64 KiB clusters
    hold data in every other 2 KiB subcluster (extended L2): 16 extents a
    cluster, with no host data behind them but one shared cluster.  Written
    here, metadata only, so that an image of 65,536 extents is a few
    hundred KB (qemu-img check finds it consistent)."""
    cl = 1 << 16
    l2_entries = cl // 16                   # extended L2: 16 B an entry
    l1_size = -(-size // (cl * l2_entries))
    n_l2 = -(-clusters // l2_entries)
    refcount_table, refcount_block, l1 = cl, 2 * cl, 3 * cl
    l2 = 4 * cl
    data = (4 + n_l2) * cl
    assert l1_size * 8 <= cl and data // cl < cl // 2
    copied = 1 << 63
    img = bytearray(data + cl)
    struct.pack_into('>4sIQIIQIIQQIIQQQQII', img, 0, b'QFI\xfb', 3, 0, 0,
                     16, size, 0, l1_size, l1, refcount_table, 1, 0, 0,
                     1 << 4, 0, 0, 4, 104)    # incompatible: extended L2
    struct.pack_into('>II', img, 104, 0, 0)  # end of header extensions
    struct.pack_into('>Q', img, refcount_table, refcount_block)
    for c in range(data // cl):
        struct.pack_into('>H', img, refcount_block + 2 * c, 1)
    struct.pack_into('>H', img, refcount_block + 2 * (data // cl),
                     max(clusters, 1))
    for i in range(n_l2):
        struct.pack_into('>Q', img, l1 + 8 * i, (l2 + i * cl) | copied)
    for c in range(clusters):
        # the shared cluster (refcount > 1): no COPIED flag; allocation
        # bits 0, 2, 4 ... 30 (subclusters of 2 KiB), no zero bits
        struct.pack_into('>QQ', img, l2 + 16 * c,
                         data | (copied if clusters == 1 else 0), 0x55555555)
    with open(path, 'wb') as f:
        f.write(img)


class HardeningNvme(ProfileTest):

    # QEMU must exit at once, with one line naming the problem
    refused = test_profile_nvme.ProfileNvme.refused

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.TemporaryDirectory(prefix='nvmimic-hard-')
        self.addCleanup(self.tmp.cleanup)

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    # ---- profile= is any file QEMU can read ----------------------------------
    def test_profile_error_names_the_file_not_its_content(self):
        secret = 'hunter2-the-secret-first-line'
        path = self.path('secret.conf')
        with open(path, 'w') as f:
            f.write(secret + '\nuser=root\n')
        cases = [(path, [secret, 'hunter2'])]
        if os.access('/etc/passwd', os.R_OK):
            with open('/etc/passwd') as f:
                first = f.readline().strip()
            cases.append(('/etc/passwd', [first, first.split(':')[0] + ':']))
        for p, leaks in cases:
            with self.subTest(profile=p):
                line = self.refused(null_drive(1 << 40) + profile_device(p),
                                    p, 'not a profile', 'line 1')
                print(line)
                for leak in leaks:
                    self.assertNotIn(leak, line)

    def test_profile_that_is_not_a_small_regular_file_is_refused(self):
        big = self.path('huge.ini')
        with open(big, 'wb') as f:
            f.truncate(2 << 30)               # sparse: nothing to read fast
        fifo = self.path('fifo.ini')
        os.mkfifo(fifo)                       # no writer: reading would hang
        cases = [('/dev/zero', 'not a regular file'),
                 (fifo, 'not a regular file'),
                 (self.tmp.name, 'not a regular file'),
                 (big, 'larger than 1048576 bytes')]
        for p, why in cases:
            with self.subTest(profile=p):
                t0 = time.monotonic()
                line = self.refused(null_drive(1 << 40) + profile_device(p),
                                    p, why)
                print('%.2f s: %s' % (time.monotonic() - t0, line))

    # ---- a drive without a volatile write cache ------------------------------
    def writeback(self, drive_id='d'):
        for b in self.machine.qmp.execute('query-block'):
            if b['device'] == drive_id:
                return b['inserted']['cache']['writeback']
        self.fail('query-block has no drive %r' % drive_id)

    def vwc_feature(self, ctrl, set_value=None):
        if set_value is None:
            return ctrl.admin_cmd(Cmd(ADM_GET_FEATURES, cdw10=FID_VWC))
        return ctrl.admin_cmd(Cmd(ADM_SET_FEATURES, cdw10=FID_VWC,
                                  cdw11=set_value))

    def test_drive_without_volatile_write_cache_writes_through(self):
        """VWC = 0 tells the guest nothing it writes waits in a cache, so
        it never flushes: the block backend must write through (query-block
        cache.writeback false; the block layer then flushes after each
        write), and Get/Set Features Volatile Write Cache must fail as on
        a drive without one, so the guest cannot turn a cache on."""
        p = Profile(RAW_PROFILE)
        for vwc in (True, False):
            with self.subTest(vwc=vwc):
                prof = self.derived_profile(
                    'vwc-%s' % str(vwc).lower(),
                    **{'volatile-write-cache': str(vwc).lower()})
                ctrl = self.start(null_drive(p.capacity)
                                  + profile_device(prof))
                ctrl.enable()
                self.assertEqual(ctrl.identify_controller()['vwc'] & 1,
                                 int(vwc))
                self.assertEqual(self.writeback(), vwc)
                get = self.vwc_feature(ctrl)
                put = self.vwc_feature(ctrl, 1)
                if vwc:
                    self.assertStatus(get, SC_SUCCESS, 'Get Features VWC')
                    self.assertEqual(get.result & 1, 1)
                    self.assertStatus(put, SC_SUCCESS, 'Set Features VWC')
                else:
                    self.assertStatus(get, SC_INVALID_FIELD,
                                      'Get Features VWC without a cache')
                    self.assertStatus(put, SC_INVALID_FIELD,
                                      'Set Features VWC without a cache')
                    self.assertFalse(self.writeback(),
                                     'the guest turned a write cache on')
                self.machine.stop()
                self.machine = None

    def test_write_cache_on_contradicting_the_profile_is_refused(self):
        p = Profile(RAW_PROFILE)
        prof = self.derived_profile('no-vwc',
                                    **{'volatile-write-cache': 'false'})
        line = self.refused(null_drive(p.capacity)
                            + profile_device(prof, ',write-cache=on'),
                            'no-vwc', 'write-cache=on')
        print(line)

    def make_qcow2(self, path, size):
        """An empty qcow2 image, made by QEMU itself (blockdev-create)."""
        open(path, 'wb').close()
        with Machine([], machine='none') as m:
            m.qmp.execute('blockdev-add', driver='file', filename=path,
                          **{'node-name': 'proto'})
            m.qmp.execute('blockdev-create', **{'job-id': 'mk'},
                          options={'driver': 'qcow2', 'file': 'proto',
                                   'size': size})
            deadline = time.monotonic() + 30
            while True:
                jobs = {j['id']: j for j in m.qmp.execute('query-jobs')}
                if jobs['mk']['status'] == 'concluded':
                    break
                self.assertLess(time.monotonic(), deadline, jobs)
                time.sleep(0.05)
            self.assertNotIn('error', jobs['mk'])
            m.qmp.execute('job-dismiss', id='mk')
            m.qmp.execute('blockdev-del', **{'node-name': 'proto'})

    def write_then_kill(self, img, prof, writes, flush_after=0):
        """Write (slba, data) pairs in order, a Flush after the first
        flush_after of them; then SIGKILL QEMU (no flush at exit)."""
        ctrl = self.start(['-drive', 'if=none,id=d,format=qcow2,file=' + img]
                          + profile_device(prof))
        ctrl.enable()
        ctrl.create_io_queue_pair(1, 16)
        for i, (slba, data) in enumerate(writes):
            self.assertStatus(ctrl.execute(ctrl.write_cmd(slba, data)),
                              SC_SUCCESS, 'write at LBA %d' % slba)
            if i + 1 == flush_after:
                self.assertStatus(ctrl.execute(ctrl.flush_cmd()),
                                  SC_SUCCESS, 'flush')
        wb = self.writeback()
        self.machine.kill()
        self.machine.stop()
        self.machine = None
        return wb

    def read_back(self, img, prof, slba, size):
        ctrl = self.start(['-drive', 'if=none,id=d,format=qcow2,file=' + img]
                          + profile_device(prof))
        ctrl.enable()
        ctrl.create_io_queue_pair(1, 16)
        r = ctrl.read_cmd(slba, size // ctrl._lba_bytes(1))
        self.assertStatus(ctrl.execute(r), SC_SUCCESS, 'read back')
        data = ctrl.read_data(r)
        self.machine.stop()
        self.machine = None
        return data

    def test_write_to_a_drive_without_write_cache_survives_kill_9(self):
        """What a write-through backend keeps that a write-back one may not.

        SIGKILL leaves the host's page cache alone, so on a raw file every
        completed write survives it either way: a kill -9 cannot tell the
        two apart there.  What it loses is what QEMU itself holds: qcow2
        keeps the L2 entry that makes a newly allocated cluster reachable
        in its metadata cache until a flush.  So on a qcow2 image, a write
        the drive completed is still there after kill -9 only if the block
        layer flushed after it.  A drive without a volatile write cache
        must therefore keep every completed write (here: no guest flush at
        all); a drive with one keeps what the guest flushed.  The same
        flush also syncs the host file (fdatasync), which is what makes it
        survive a host crash too; that part a test cannot show without
        crashing the host."""
        p = Profile(RAW_PROFILE)
        a = (bytes(range(256)) * 16)[:PAGE]
        b = bytes([0x5a]) * PAGE
        # LBAs in clusters of their own, far apart: each write allocates.
        slba_a, slba_b = 1 << 21, 1 << 23
        for vwc in (False, True):
            with self.subTest(vwc=vwc):
                prof = self.derived_profile(
                    'kill-vwc-%s' % str(vwc).lower(),
                    **{'volatile-write-cache': str(vwc).lower()})
                img = self.path('drive-%s.qcow2' % vwc)
                self.make_qcow2(img, p.capacity)
                # With a cache the guest flushes after A, not after B.
                wb = self.write_then_kill(img, prof, [(slba_a, a),
                                                      (slba_b, b)],
                                          flush_after=1 if vwc else 0)
                got_a = self.read_back(img, prof, slba_a, PAGE)
                got_b = self.read_back(img, prof, slba_b, PAGE)
                print('vwc=%s: A %s, B %s after kill -9'
                      % (vwc, 'kept' if got_a == a else 'LOST',
                         'kept' if got_b == b else 'lost'))
                self.assertEqual(got_a, a, 'write A (%s) lost by kill -9'
                                 % ('flushed' if vwc else 'no cache'))
                if not vwc:
                    self.assertEqual(got_b, b, 'write B lost by kill -9 on '
                                     'a drive without a write cache')
                self.assertEqual(wb, vwc, 'query-block cache.writeback')

    # ---- commands ----------------------------------------------------------
    def test_sgl_deallocate_is_timed_with_its_ranges(self):
        """Dataset Management (deallocate) whose range list comes by SGL:
        the command's SGL1 is a Last Segment descriptor pointing at two Data
        Block descriptors of one range each, on pages of their own.  The
        model must be given those two ranges (the device trace shows what
        it was given).  The device used to read the list from PRP1, which
        for this command is the address of the descriptors: it timed
        nothing."""
        ctrl, p = self.start_profile(RAW_PROFILE)
        trace = self.path('dsm.trace')
        self.machine.qmp.execute('nvmimic-trace-start', id=DEV_ID,
                                 path=trace)
        ranges = [(1 << 20, 64), (3 << 20, 128)]
        bufs = []
        for slba, nlb in ranges:
            buf = ctrl.alloc.alloc(PAGE)
            ctrl.qt.memwrite(buf, struct.pack('<IIQ', 0, nlb, slba))
            bufs.append(buf)
        # Data Block descriptors (type 0): address, length, 3 reserved, type
        seg = ctrl.alloc.alloc(PAGE)
        ctrl.qt.memwrite(seg, b''.join(struct.pack('<QI3xB', b, 16, 0x00)
                                       for b in bufs))
        # SGL1 in the SQE: Last Segment descriptor (type 3) for that list
        prp1, prp2 = struct.unpack('<QQ', struct.pack('<QI3xB', seg, 32,
                                                      0x30))
        cmd = Cmd(IO_DSM, nsid=1, cdw10=len(ranges) - 1, cdw11=1 << 2,
                  prp1=prp1, prp2=prp2, psdt=1)
        self.assertStatus(ctrl.execute(cmd), SC_SUCCESS, 'SGL deallocate')
        info = self.machine.qmp.execute('nvmimic-trace-stop', id=DEV_ID)
        _, rows = read_trace(trace)
        got = [(r[2], r[3]) for r in rows if r[1] == 'discard']
        print('trace: %s' % rows)
        self.assertEqual(got, ranges)
        self.assertEqual(info['commands'], len(ranges))
        self.assertEqual(self.cls(self.stats(), 'discard')['count'],
                         len(ranges))

    # ---- QMP ---------------------------------------------------------------
    def test_qmp_commands_are_marked_unstable(self):
        """nvmimic's QMP commands are not QEMU's stable interface: QAPI
        feature "unstable", so -compat unstable-input=reject refuses them;
        their names stay as the harness uses them."""
        names = ['query-nvmimic-stats', 'nvmimic-set-state',
                 'nvmimic-trace-start', 'nvmimic-trace-stop']
        p = Profile(RAW_PROFILE)
        self.start(null_drive(p.capacity) + profile_device(RAW_PROFILE))
        schema = {e['name']: e for e in
                  self.machine.qmp.execute('query-qmp-schema')
                  if e['meta-type'] == 'command'}
        for name in names:
            self.assertIn('unstable', schema[name].get('features', []), name)
        self.assertEqual(self.stats()['profile'], RAW_PROFILE)
        self.machine.stop()
        self.machine = None

        self.start(null_drive(p.capacity) + profile_device(RAW_PROFILE)
                   + ['-compat', 'unstable-input=reject'])
        with self.assertRaises(QemuError) as cm:
            self.stats()
        print(cm.exception)
        self.assertIn('Unstable command query-nvmimic-stats disabled',
                      str(cm.exception))

    def test_qmp_id_longer_than_any_path_is_refused_without_a_search(self):
        """Every nvmimic QMP command refuses an id longer than 255 bytes
        (device ids, QOM paths and node names are far shorter) before it
        looks for it: a 100 KB partial QOM path was searched for through
        the whole tree, holding the main loop 11 s.  The error is one short
        line; an id of 255 bytes is still looked up.  (QEMU's own parsing
        of a 100 KB QMP argument takes ~2 s here, for any command: that
        one is tried once.)"""
        p = Profile(RAW_PROFILE)
        self.start(null_drive(p.capacity) + profile_device(RAW_PROFILE))
        qmp = self.machine.qmp
        calls = [('query-nvmimic-stats', {}), ('query-nvmimic-marks', {}),
                 ('nvmimic-set-state', {'reset-stats': True}),
                 ('nvmimic-trace-start', {'path': '/dev/null'}),
                 ('nvmimic-trace-stop', {})]
        for name, args in calls:
            with self.subTest(name):
                with self.assertRaises(QemuError) as cm:
                    qmp.execute(name, id='x' * (100000 if name == calls[0][0]
                                                else 256), **args)
                msg = str(cm.exception)
                # (a failure shows the start of the error, not all of it)
                self.assertTrue('id is longer than 255 bytes' in msg
                                and 'x' * 64 not in msg, msg[:200])
                with self.assertRaises(QemuError) as cm:
                    qmp.execute(name, id='y' * 255, **args)
                self.assertIn('y' * 255 + ': no nvme device', str(cm.exception))
        self.assertEqual(self.stats()['profile'], RAW_PROFILE)

    def test_map_allocated_reads_an_image_and_refuses_one_of_too_many_extents(
            self):
        """profile-map-allocated=on loads the image's allocated blocks into
        the model, up to 65,536 extents: an image of 2 M extents took 27 s
        and 158 MB to start.  One with more is refused by name and bound
        at device_add, and QEMU carries on; one just below loads, its
        allocated span the drive's fill."""
        p = Profile(RAW_PROFILE)
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        below, above = 65536 // 16, 65536 // 16 + 1     # 16 extents each
        for name, n in (('below', below), ('above', above)):
            striped_qcow2(os.path.join(tmp.name, name + '.qcow2'),
                          p.capacity, n)
        drives = []
        for name in ('below', 'above'):
            drives += ['-blockdev', 'driver=qcow2,node-name=%s,file.driver='
                       'file,file.filename=%s'
                       % (name, os.path.join(tmp.name, name + '.qcow2'))]
        self.machine = Machine(drives, machine='pc')
        self.machine.start()
        qmp = self.machine.qmp
        args = dict(driver='nvme', id=DEV_ID, addr='04.0',
                    profile=RAW_PROFILE, **{'profile-map-allocated': True})
        t = time.monotonic()
        with self.assertRaises(QemuError) as cm:
            qmp.execute('device_add', drive='above', **args)
        print('%d extents: %s (%.1f s)' % (16 * above, cm.exception,
                                           time.monotonic() - t))
        self.assertIn("'above' has more than 65536 allocated extents in its "
                      "first ", str(cm.exception))
        t = time.monotonic()
        qmp.execute('device_add', drive='below', **args)
        st = self.stats()
        print('%d extents loaded in %.1f s: fill %.6f %%'
              % (16 * below, time.monotonic() - t, st['fill-pct']))
        want = 100.0 * below * 65536 / p.capacity
        self.assertAlmostEqual(st['fill-pct'], want, delta=want * 1e-3)
        self.assertEqual(qmp.execute('query-status')['status'], 'running')

    def test_admin_commands_answered_here_check_flags_as_ctrl_c(self):
        """The admin commands nvmimic answers itself (its log pages, Get
        Features HMB and APST) refuse SGLs and fused commands with the
        status ctrl.c gives its own (Identify): Invalid Field, with DNR
        for an SGL, without for a fused command."""
        ctrl, _ = self.start_profile(RAW_PROFILE)
        buf = ctrl.alloc.alloc(PAGE)
        numd = PAGE // 4 - 1
        cmds = {
            'identify (ctrl.c)': lambda **kw: Cmd(
                0x06, cdw10=1, prp1=buf, **kw),
            'firmware slot log': lambda **kw: Cmd(
                0x02, nsid=0xffffffff, cdw10=0x03 | numd << 16, prp1=buf,
                **kw),
            'get features hmb': lambda **kw: Cmd(
                ADM_GET_FEATURES, cdw10=0x0d, prp1=buf, **kw),
            'get features apst': lambda **kw: Cmd(
                ADM_GET_FEATURES, cdw10=0x0c, prp1=buf, **kw),
        }
        for name, make in cmds.items():
            with self.subTest(name):
                self.assertTrue(ctrl.admin_cmd(make()).ok, name)
                for kw, dnr in (({'psdt': 1}, True), ({'fuse': 1}, False),
                                ({'fuse': 2}, False)):
                    c = ctrl.admin_cmd(make(**kw))
                    self.assertEqual((c.status, c.dnr),
                                     (SC_INVALID_FIELD, dnr),
                                     '%s %r: %r' % (name, kw, c))

    # ---- lifecycle ---------------------------------------------------------
    submit_held_writes = test_profile_nvme.ProfileNvme.submit_held_writes

    def test_device_add_that_fails_after_the_profile_loaded(self):
        """A hot-plugged controller whose realize fails after profile=
        was loaded (max_ioqpairs=0 is refused by the controller's own
        checks, which come after the profile's): one error naming the
        property, QEMU carries on, and the same id then plugs in with its
        profile.  The failed device's nvmimic state goes with it
        (instance_finalize; make check-sanitizers: no leak)."""
        p = Profile(RAW_PROFILE)
        self.machine = Machine(null_drive(p.capacity), machine='pc')
        self.machine.start()
        qmp = self.machine.qmp
        args = dict(driver='nvme', id=DEV_ID, drive='d', addr='04.0',
                    profile=RAW_PROFILE)
        for _ in range(3):
            with self.assertRaises(QemuError) as cm:
                qmp.execute('device_add', max_ioqpairs=0, **args)
            self.assertIn('max_ioqpairs', str(cm.exception))
            with self.assertRaises(QemuError) as cm:
                self.stats()
            self.assertIn('no nvme device', str(cm.exception))
        qmp.execute('device_add', **args)
        self.assertEqual(self.stats()['profile'], RAW_PROFILE)
        self.assertEqual(qmp.execute('query-status')['status'], 'running')

    def test_device_del_with_completions_held_posts_nothing_later(self):
        """Hot-unplug while the model holds completions (q35 has no hotplug
        on its root bus: machine pc, ACPI eject done as the guest would).
        The device goes (DEVICE_DELETED) with its timer and held requests:
        nothing is written to guest memory afterwards, the data is in the
        file, the trace file is complete, and QEMU carries on (under ASan
        in make check-sanitizers: no use after free)."""
        p = Profile(RAW_PROFILE)
        img = self.path('unplug.raw')
        with open(img, 'wb') as f:
            f.truncate(p.capacity)
        self.machine = Machine(['-drive', 'if=none,id=d,format=raw,file='
                                + img] + profile_device(RAW_PROFILE),
                               machine='pc')
        self.machine.start()
        ctrl = self.ctrl = NvmeController(self.machine)
        ctrl.enable()
        ctrl.create_io_queue_pair(1, 64)
        ctrl.identify_namespace(1)
        trace = self.path('unplug.trace')
        qmp = self.machine.qmp
        qmp.execute('nvmimic-trace-start', id=DEV_ID, path=trace)
        writes = self.submit_held_writes(ctrl, p.lba_bytes, n=16)
        cq = ctrl.queues[1].cq_addr
        before = ctrl.qt.memread(cq, 64 * 16)

        qmp.execute('device_del', id=DEV_ID)
        slot = int(profile_device(RAW_PROFILE)[1].split('addr=')[1]
                   .split('.')[0], 16)
        # ACPI PCI hotplug (PIIX4, at 0xae00): select the root bus, eject
        ctrl.qt.outl(0xae10, 0)
        ctrl.qt.outl(0xae08, 1 << slot)
        deadline = time.monotonic() + 30
        while not any(e['event'] == 'DEVICE_DELETED' for e in qmp.events):
            self.assertLess(time.monotonic(), deadline, 'no DEVICE_DELETED')
            qmp.execute('query-status')
            time.sleep(0.01)

        ctrl.qt.clock_step(500 * 10**6)       # far past every deadline
        self.assertEqual(ctrl.qt.memread(cq, 64 * 16), before,
                         'a completion was posted after the device went')
        with self.assertRaises(QemuError) as cm:
            self.stats()
        self.assertIn('no nvme device', str(cm.exception))
        self.assertEqual(qmp.execute('query-status')['status'], 'running')
        with open(img, 'rb') as f:
            for w in writes:
                f.seek(w.cdw[0] * p.lba_bytes)
                self.assertEqual(f.read(len(w.data)), w.data,
                                 'write at LBA %d lost' % w.cdw[0])
        _, rows = read_trace(trace)
        self.assertEqual([r[2] for r in rows], [w.cdw[0] for w in writes])

    def test_queue_deleted_while_the_timer_waits_for_its_data(self):
        """Under qtest the timer finishes a command's data transfer at its
        deadline by running the main loop's bottom halves (aio_poll), and
        those include the admin queue's.  Here a read and a Delete I/O SQ
        of its queue are rung, and the clock stepped, in one qtest read
        (no main loop iteration in between): the timer waits for the read,
        the Delete SQ frees the read's request meanwhile.  The timer must
        not touch it afterwards (under ASan: no use after free), and the
        controller goes on."""
        ctrl, p = self.start_profile(RAW_PROFILE, io_entries=16)
        q, adm = ctrl.queues[1], ctrl.admin
        read = ctrl.read_cmd(0, 8)
        delete = Cmd(0x00, cdw10=1)           # Delete I/O SQ 1
        rd_sqe = ctrl._prepare(q, [read])[0]
        del_sqe = ctrl._prepare(adm, [delete])[0]
        ctrl.qt.memwrite(q.sq_addr + q.sq_tail * 64, rd_sqe)
        ctrl.qt.memwrite(adm.sq_addr + adm.sq_tail * 64, del_sqe)
        q.sq_tail = (q.sq_tail + 1) % q.entries
        adm.sq_tail = (adm.sq_tail + 1) % adm.entries
        lines = ['writel 0x%x 0x%x' % (q.db_sq, q.sq_tail),
                 'writel 0x%x 0x%x' % (adm.db_sq, adm.sq_tail),
                 'clock_step %d' % (10 * 10**6)]
        ctrl.qt.ls.send(''.join(ln + '\n' for ln in lines).encode())
        for ln in lines:
            resp = ctrl.qt.ls.readline(ctrl.qt.timeout_s)
            while resp.startswith('IRQ '):
                resp = ctrl.qt.ls.readline(ctrl.qt.timeout_s)
            self.assertTrue(resp.startswith('OK'), '%s -> %s' % (ln, resp))
        ctrl.qt.now_ns = int(resp.split()[1])
        done = ctrl.wait([delete.cid], qid=0)
        self.assertStatus(done[delete.cid], SC_SUCCESS, 'Delete I/O SQ')
        self.assertTrue(self.machine.alive())
        # the queue pair again: the controller serves I/O
        ctrl.admin_cmd(Cmd(0x04, cdw10=1))    # Delete I/O CQ 1
        del ctrl.queues[1]
        ctrl.create_io_queue_pair(1, 16)
        self.assertStatus(ctrl.execute(ctrl.read_cmd(8, 8)), SC_SUCCESS,
                          'read after the queue came back')

    # ---- transfers QEMU cannot map at once, and data that keeps the timer --

    def split_transfer(self, ctrl, opcode, data=b''):
        """A 16-block read or write at LBA 0 with PRP1 at a RAM page + 4
        (4 blocks less 4 bytes there, @data written there first) and a PRP
        list of two unassigned pages (the other 4,100 bytes)."""
        self.assertEqual(ctrl.lba_bytes[1], 512)
        buf = ctrl.alloc.alloc(PAGE)
        lst = ctrl.alloc.alloc(PAGE)
        if data:
            ctrl.qt.memwrite(buf + 4, data)
        ctrl.qt.memwrite(lst, struct.pack('<2Q', NOT_RAM, NOT_RAM + PAGE))
        return ctrl.execute(Cmd(opcode, nsid=1, cdw12=15, prp1=buf + 4,
                                prp2=lst), timeout_s=60)

    def check_unassigned_read_then_reset(self, ctrl):
        """4,100 of the read's 8,192 bytes in unassigned space: the first
        mapping stops with the bounce buffer full, 508 bytes short of a
        block, and the read goes in two parts.  It used to wait for ever
        for the bounce buffer its own first part had leaked
        (system/dma-helpers.c cut the mapping to the wrong length and
        dropped a mapping without unmapping it), and the reset that
        cancelled it never returned (qemu/patches/0014)."""
        self.assertStatus(self.split_transfer(ctrl, IO_READ), SC_SUCCESS,
                          'read partly into unassigned space')
        ctrl.disable()
        ctrl.enable()
        ctrl.create_io_queue_pair(1, 16)
        self.assertStatus(ctrl.execute(ctrl.read_cmd(0, 8)), SC_SUCCESS,
                          'read after the reset')
        self.assertTrue(self.machine.alive())

    def test_unassigned_read_completes_and_a_reset_returns_stock_device(self):
        ctrl = self.start(null_drive(Profile(RAW_PROFILE).capacity) +
                          ['-device', 'nvme,id=%s,drive=d,addr=04.0,'
                           'serial=S' % DEV_ID])
        ctrl.enable()
        ctrl.create_io_queue_pair(1, 16)
        ctrl.identify_namespace(1)
        self.check_unassigned_read_then_reset(ctrl)

    def test_unassigned_read_completes_and_a_reset_returns_profiled_device(
            self):
        ctrl, _ = self.start_profile(RAW_PROFILE, io_entries=16)
        self.check_unassigned_read_then_reset(ctrl)

    def test_write_mapped_in_two_parts_lands_where_it_belongs(self):
        """A 16-block write from 4,092 bytes of RAM then 4,100 bytes of
        unassigned space: the first mapping stops with the bounce buffer
        full, 508 bytes short of a block, so the write goes in two parts
        (it used to leak the bounce buffer there and wait for ever).  The
        RAM's bytes must land at the image's first 4,092 bytes, the rest
        of the 16 blocks hold what the unassigned space gave (one value),
        and the blocks after them are untouched: the part cut off is
        written with the second part, at its own offset."""
        p = Profile(RAW_PROFILE)
        img = self.path('d.raw')
        before = bytes((i * 7 + i // 512) & 0xff for i in range(32 * 512))
        with open(img, 'wb') as f:
            f.write(before)
            f.truncate(p.capacity)
        ctrl, _ = self.start_profile(RAW_PROFILE, drive=raw_drive(img),
                                     io_entries=16)
        data = bytes((i * 13 + 5) & 0xff for i in range(4092))
        self.assertStatus(self.split_transfer(ctrl, IO_WRITE, data),
                          SC_SUCCESS, 'write in two parts')
        self.assertStatus(ctrl.execute(Cmd(IO_FLUSH, nsid=1)), SC_SUCCESS,
                          'flush')
        with open(img, 'rb') as f:
            after = f.read(32 * 512)
        self.assertEqual(after[:4092], data)
        self.assertEqual(len(set(after[4092:8192])), 1, after[4092:8192])
        self.assertEqual(after[8192:], before[8192:])

    def test_timer_stops_waiting_for_data_that_does_not_come(self):
        """Under qtest the timer waits at a read's deadline, virtual time
        standing still, until the host has done its transfer.  A transfer
        that takes long (here the backend's throttle holds the read for 8 s
        of host time: 4 KiB at 512 B/s before it) must not freeze the main
        loop, QMP and qtest with it: after 5 s the timer gives up, with a
        warning, and posts the read when its data is in.  It used to wait
        as long as the transfer took, for ever if it never ended (a DMA
        waiting for a bounce buffer nothing would free, above)."""
        p = Profile(RAW_PROFILE)
        ctrl, _ = self.start_profile(
            RAW_PROFILE, io_entries=16,
            drive=['-drive', 'if=none,id=d,driver=null-co,size=%d,'
                   'throttling.bps-total=512' % p.capacity])
        self.assertStatus(ctrl.execute(ctrl.read_cmd(0, 8)), SC_SUCCESS,
                          '4 KiB read: the throttle lets it through')
        slow = ctrl.read_cmd(64, 1)
        ctrl.submit([slow])
        ctrl.qt.clock_step(10**6)   # past its deadline
        self.assertEqual(ctrl.poll(1), [], 'the throttled read is still held')
        self.assertTrue(self.machine.qmp.execute('query-status')['running'])
        with open(self.machine.stderr_path) as f:
            self.assertIn('nvmimic: a data transfer was not done 5000 ms',
                          f.read())
        # the throttle runs on host time: the read's data comes 3 s later
        got, give_up = [], time.monotonic() + 60
        while not got and time.monotonic() < give_up:
            time.sleep(0.2)
            got = ctrl.poll(1)
        self.assertEqual([c.cid for c in got], [slow.cid], 'the read, late')
        self.assertStatus(got[0], SC_SUCCESS, 'the read, late')

    def test_ioeventfd_on_keeps_doorbells_in_the_mmio_handler(self):
        """QEMU's nvme takes doorbells through ioeventfds only once the
        host has set up shadow doorbells (Doorbell Buffer Config).  None of
        the drives has that command, so with a profile ioeventfd=on changes
        nothing: the command is refused as the drive refuses it, the
        doorbell stays in the MMIO handler (where, under icount, the SQ is
        processed at the doorbell's virtual time) and completions keep
        their exact times.  The stock device with the same options is
        checked first: there the doorbells do go through the eventfd."""
        def doorbell_traces():
            return [ln for ln in self.machine.stderr().splitlines()
                    if 'pci_nvme_mmio_doorbell_sq' in ln and 'sqid 1 ' in ln]

        p = Profile(RAW_PROFILE)
        for profile in (False, True):
            with self.subTest(profile=profile):
                args = (null_drive(p.capacity)
                        + ['-trace', 'pci_nvme_mmio_doorbell_sq'])
                if profile:
                    args += profile_device(RAW_PROFILE, ',ioeventfd=on')
                else:
                    args += ['-device', 'nvme,id=plain,drive=d,serial=S,'
                             'addr=04.0,ioeventfd=on']
                ctrl = self.start(args)
                ctrl.enable()
                ctrl.create_io_queue_pair(1, 64)
                ctrl.identify_namespace(1)
                c = ctrl.admin_cmd(Cmd(ADM_DBBUF_CONFIG,
                                       prp1=ctrl.alloc.alloc(PAGE),
                                       prp2=ctrl.alloc.alloc(PAGE)))
                if profile:
                    self.assertStatus(c, SC_INVALID_OPCODE,
                                      'Doorbell Buffer Config')
                else:
                    self.assertStatus(c, SC_SUCCESS, 'Doorbell Buffer Config')
                    ctrl.dbbuf = (c.cmd.prp1, c.cmd.prp2)
                before = len(doorbell_traces())
                if profile:
                    self.set_state(**{'fill-pct': 100.0,
                                      'reset-stats': True})
                done = ctrl.submit_and_time([ctrl.read_cmd(8 * i, 8)
                                             for i in range(32)])
                self.assertTrue(all(d.ok for d in done))
                rung = len(doorbell_traces()) - before
                print('profile=%s: %d SQ doorbells through the MMIO handler'
                      % (profile, rung))
                if profile:
                    self.assertEqual(rung, 1)
                    rd = self.cls(self.stats(), 'read')
                    lat = [d.latency_ns for d in done]
                    self.assertEqual((rd['count'], rd['late']), (32, 0))
                    self.assertAlmostEqual(sum(lat) / 32 / 1000.0,
                                           rd['mean-us'], delta=0.01)
                    self.assertAlmostEqual(max(lat) / 1000.0, rd['max-us'],
                                           delta=0.01)
                else:
                    self.assertEqual(rung, 0, 'the stock device did not '
                                     'take the doorbell by eventfd: the '
                                     'test cannot tell the two apart')
                self.machine.stop()
                self.machine = None


if __name__ == '__main__':
    unittest.main(verbosity=2)

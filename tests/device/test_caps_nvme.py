#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qtest checks that a profiled controller shows the guest the drive, not QEMU.

Identify reports the capability fields of the profile (as far as nvmimic
implements them), commands and log pages the drive lacks are answered as the
drive answers them, Write Uncorrectable works as on the drive, the model
follows the LBA format the guest selects, and a Format / Write Zeroes /
Deallocate on a sparse backing opened with discard=unmap,detect-zeroes=unmap
allocates no host space.  Expected values come from profiles/*.ini.

Run one:  python3 tests/device/test_caps_nvme.py CapsNvme.test_NAME
"""

import os
import struct
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nvmeqtest import (  # noqa: E402
    Cmd, ADM_GET_LOG_PAGE, SC_SUCCESS, SC_INVALID_OPCODE, PAGE)
from test_profile_nvme import (  # noqa: E402
    ProfileTest, Profile, profile_names, null_drive, profile_device,
    _replace_key)

# What nvmimic implements of OACS, ONCS, LPA, OAES, SANICAP
# (hw/nvmimic-int.h NVMIMIC_*_IMPL).
OACS_IMPL = 0x0017                       # Security, Format, FW, Self-test
ONCS_IMPL = 0x01df                       # all but Reservations
LPA_IMPL = 0x0f                          # all but the persistent event log
OAES_IMPL = 0x0300                       # namespace attribute, FW activation
SANICAP_IMPL = 0                         # QEMU 10.0 has no Sanitize
ADM_SANITIZE, LID_SANITIZE = 0x84, 0x81

ADM_NS_MGMT, ADM_FW_COMMIT, ADM_FW_DOWNLOAD = 0x0d, 0x10, 0x11
ADM_SELF_TEST, ADM_NS_ATTACH, ADM_DIRECTIVE_SEND = 0x14, 0x15, 0x19
ADM_DBBUF, ADM_FORMAT = 0x7c, 0x80
ADM_SECURITY_SEND, ADM_SECURITY_RECV = 0x81, 0x82
IO_WRITE_UNCOR, IO_COMPARE, IO_WRITE_ZEROES = 0x04, 0x05, 0x08
IO_VERIFY, IO_COPY = 0x0c, 0x19
SC_INVALID_LOG_PAGE = 0x109
SC_UNRECOVERED_READ = 0x281
SC_COMPARE_FAILURE = 0x285
SC_INVALID_FIELD = 0x002
SC_INTERNAL_ERROR = 0x006
SC_INVALID_FW_SLOT, SC_INVALID_FW_IMAGE = 0x106, 0x107
LID_FW_SLOT, LID_TELEMETRY_CTRL, LID_PERSISTENT_EVENT = 3, 8, 0x0d
LID_CHANGED_NS, LID_EFFECTS, LID_SELF_TEST, LID_TELEMETRY = 4, 5, 6, 7

# A drive with Write Zeroes, Write Uncorrectable and a 4 KiB LBA format.
P2 = 'crucial-p2-500g'
# A drive without Write Zeroes.
P5 = 'crucial-p5-1tb'


def raw_sparse_drive(path):
    """The drive options nvmimic run uses for its sparse backings."""
    return ['-blockdev', 'driver=raw,node-name=d,discard=unmap,'
            'detect-zeroes=unmap,file.driver=file,file.filename=%s' % path]


def allocated_bytes(path):
    return os.stat(path).st_blocks * 512


class CapsNvme(ProfileTest):

    def rw(self, opcode, slba, nlb, nsid=1):
        return Cmd(opcode, nsid=nsid, cdw10=slba & 0xffffffff,
                   cdw11=slba >> 32, cdw12=nlb - 1)

    def read(self, slba, nlb=1):
        return self.ctrl.execute(self.ctrl.read_cmd(slba, nlb))

    def log_page_status(self, lid, size=512):
        buf, p1, p2 = self.ctrl.buffer(size)
        return self.ctrl.admin_cmd(Cmd(ADM_GET_LOG_PAGE, nsid=0xffffffff,
                                       cdw10=lid | ((size // 4 - 1) << 16),
                                       prp1=p1, prp2=p2)).status

    def format(self, lbaf):
        c = self.ctrl.admin_cmd(Cmd(ADM_FORMAT, nsid=1, cdw10=lbaf),
                                timeout_s=120)
        self.assertStatus(c, SC_SUCCESS, 'Format NVM to LBA format %d' % lbaf)
        self.ctrl.lba_bytes.clear()
        return self.ctrl.identify_namespace(1)

    # ---- Identify ------------------------------------------------------------
    def test_identify_reports_the_drive_capabilities_of_every_profile(self):
        for name in profile_names():
            with self.subTest(profile=name):
                p = Profile(name)
                ctrl = self.start(null_drive(p.capacity)
                                  + profile_device(name))
                ctrl.enable()
                raw = ctrl.identify_controller()['raw']
                got = {
                    'ieee-oui': raw[73] | raw[74] << 8 | raw[75] << 16,
                    'oaes': struct.unpack_from('<I', raw, 92)[0],
                    'oacs': struct.unpack_from('<H', raw, 256)[0],
                    'frmw': raw[260], 'lpa': raw[261],
                    'tnvmcap-bytes': int.from_bytes(raw[280:296], 'little'),
                    'unvmcap-bytes': int.from_bytes(raw[296:312], 'little'),
                    'sanicap': struct.unpack_from('<I', raw, 328)[0],
                    'namespaces': struct.unpack_from('<I', raw, 516)[0],
                    'oncs': struct.unpack_from('<H', raw, 520)[0],
                    'awun': struct.unpack_from('<H', raw, 526)[0],
                    'awupf': struct.unpack_from('<H', raw, 528)[0],
                }
                mask = {'oacs': OACS_IMPL, 'oncs': ONCS_IMPL, 'lpa': LPA_IMPL,
                        'oaes': OAES_IMPL, 'sanicap': SANICAP_IMPL}
                for key, v in got.items():
                    want = p.int('identity', key) & mask.get(key, ~0)
                    print('%s %-14s 0x%x' % (name, key, v))
                    self.assertEqual(v, want, '%s: %s' % (name, key))
                # the P2's TNVMCAP is its capacity; QEMU reports 0
                if name.startswith('crucial-p2'):
                    self.assertEqual(got['tnvmcap-bytes'], p.capacity)
                # the LBA formats, and the current one
                ns = ctrl.identify_namespace(1)['raw']
                formats = [f.split(':') for f in
                           p.str('identity', 'lba-formats').split(',')]
                self.assertEqual(ns[25] + 1, len(formats), name + ': NLBAF')
                for i, f in enumerate(formats):
                    ms, ds, rp = struct.unpack_from('<HBB', ns, 128 + 4 * i)
                    self.assertEqual((ms, 1 << ds, rp),
                                     (0, int(f[0]), int(f[1]) if len(f) > 1
                                      else 0), '%s: LBA format %d' % (name, i))
                self.assertEqual(1 << ns[128 + 4 * (ns[26] & 0xf) + 2],
                                 p.lba_bytes, name + ': current format')
                self.machine.stop()
                self.machine = None

    def test_capabilities_nvmimic_lacks_are_not_reported_whatever_the_profile(
            self):
        """A profile claiming every OACS, ONCS, LPA, OAES and SANICAP bit:
        Identify reports only what nvmimic implements (no Sanitize, no
        asynchronous events it never sends), and Sanitize is an invalid
        opcode, its log an invalid log page."""
        p = Profile(P5)
        with open(p.path) as f:
            text = f.read()
        for k, v in (('oacs', '0xffff'), ('oncs', '0xffff'), ('lpa', '0xff'),
                     ('oaes', '0xffffffff'), ('sanicap', '0xe0000007')):
            text = _replace_key(text, k, v)
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        path = os.path.join(tmp.name, 'claims-all.ini')
        with open(path, 'w') as f:
            f.write(text)
        ctrl = self.start(null_drive(p.capacity) + profile_device(path))
        ctrl.enable()
        raw = ctrl.identify_controller()['raw']
        got = {'oacs': struct.unpack_from('<H', raw, 256)[0],
               'oncs': struct.unpack_from('<H', raw, 520)[0],
               'lpa': raw[261],
               'oaes': struct.unpack_from('<I', raw, 92)[0],
               'sanicap': struct.unpack_from('<I', raw, 328)[0]}
        print('Identify of a profile claiming everything: %s'
              % ', '.join('%s 0x%x' % kv for kv in got.items()))
        self.assertEqual(got, {'oacs': OACS_IMPL, 'oncs': ONCS_IMPL,
                               'lpa': LPA_IMPL, 'oaes': OAES_IMPL,
                               'sanicap': SANICAP_IMPL})
        self.assertStatus(ctrl.admin_cmd(Cmd(ADM_SANITIZE, cdw10=1)),
                          SC_INVALID_OPCODE, 'sanitize')
        self.assertEqual(self.log_page_status(LID_SANITIZE),
                         SC_INVALID_LOG_PAGE, 'sanitize status log')

    # ---- commands the drive lacks ----------------------------------------
    def test_commands_the_drive_lacks_are_invalid_opcodes(self):
        ctrl, p = self.start_profile(P5)
        oncs = p.int('identity', 'oncs')
        self.assertFalse(oncs & (1 << 3), 'the P5 has no Write Zeroes')
        for what, cmd in [('write zeroes', self.rw(IO_WRITE_ZEROES, 0, 8)),
                          ('verify', self.rw(IO_VERIFY, 0, 8)),
                          ('copy', Cmd(IO_COPY, nsid=1))]:
            c = ctrl.execute(cmd)
            self.assertStatus(c, SC_INVALID_OPCODE, what)
            self.assertTrue(c.dnr, what)
        for what, opc in [('namespace management', ADM_NS_MGMT),
                          ('namespace attachment', ADM_NS_ATTACH),
                          ('directive send', ADM_DIRECTIVE_SEND),
                          ('doorbell buffer config', ADM_DBBUF)]:
            self.assertStatus(ctrl.admin_cmd(Cmd(opc)), SC_INVALID_OPCODE,
                              what)
        # what it has still executes: compare on the P5 (the P2 has none);
        # null-co data is undefined, so success or Compare Failure
        buf, p1, p2 = ctrl.buffer(p.lba_bytes)
        c = ctrl.execute(Cmd(IO_COMPARE, nsid=1, prp1=p1, prp2=p2))
        self.assertIn(c.status, (SC_SUCCESS, SC_COMPARE_FAILURE), 'compare')
        self.machine.stop()
        self.machine = None
        ctrl, p = self.start_profile(P2)
        self.assertStatus(ctrl.execute(self.rw(IO_COMPARE, 0, 1)),
                          SC_INVALID_OPCODE, 'compare on the P2')
        self.assertStatus(ctrl.execute(self.rw(IO_WRITE_ZEROES, 0, 8)),
                          SC_SUCCESS, 'write zeroes on the P2')

    def test_log_pages_the_drive_lacks_are_invalid_log_page(self):
        for name in (P2, P5):
            with self.subTest(profile=name):
                ctrl, p = self.start_profile(name)
                lpa = p.int('identity', 'lpa')
                for lid in (1, 2, 3):
                    self.assertEqual(self.log_page_status(lid), SC_SUCCESS,
                                     '%s: mandatory log page %d' % (name, lid))
                self.assertEqual(self.log_page_status(LID_EFFECTS),
                                 SC_SUCCESS if lpa & 2 else
                                 SC_INVALID_LOG_PAGE, name + ': effects log')
                # no namespace attribute notices (OAES bit 8): no such log
                self.assertFalse(p.int('identity', 'oaes') & (1 << 8))
                for lid in (LID_CHANGED_NS, LID_PERSISTENT_EVENT, 0xc0, 0xff):
                    self.assertEqual(self.log_page_status(lid),
                                     SC_INVALID_LOG_PAGE,
                                     '%s: log page 0x%02x' % (name, lid))
                self.machine.stop()
                self.machine = None

    # ---- firmware, self-test, security, telemetry -----------------------
    def log_page(self, lid, size):
        return self.ctrl.get_log_page(lid, size)

    def test_firmware_self_test_security_and_telemetry_answer_as_the_drive(self):
        ctrl, p = self.start_profile(P2)          # FRMW 0x12: one slot
        fw = p.str('identity', 'firmware')
        slots = (p.int('identity', 'frmw') >> 1) & 7
        # the firmware slot log names the drive's firmware, not QEMU's "1.0"
        log = self.log_page(LID_FW_SLOT, 512)
        self.assertEqual(log[0] & 7, 1, 'AFI: running from slot 1')
        self.assertEqual(log[8:16].decode().rstrip(), fw)
        # an image is taken, but (unsigned) never committed; slot 1 can be
        # activated, a slot beyond the drive's is invalid
        buf, p1, p2 = ctrl.buffer(4096)
        ctrl.qt.memset(buf, 4096, 0xa5)
        self.assertStatus(ctrl.admin_cmd(Cmd(ADM_FW_DOWNLOAD, cdw10=1023,
                                             prp1=p1, prp2=p2)),
                          SC_SUCCESS, 'firmware download of 4 KiB')
        self.assertStatus(ctrl.admin_cmd(Cmd(ADM_FW_COMMIT,
                                             cdw10=1 | (1 << 3))),
                          SC_INVALID_FW_IMAGE, 'commit of the image to slot 1')
        self.assertStatus(ctrl.admin_cmd(Cmd(ADM_FW_COMMIT,
                                             cdw10=1 | (2 << 3))),
                          SC_SUCCESS, 'activate slot 1')
        self.assertStatus(ctrl.admin_cmd(Cmd(ADM_FW_COMMIT,
                                             cdw10=(slots + 1) | (2 << 3))),
                          SC_INVALID_FW_SLOT, 'activate slot %d' % (slots + 1))
        # self-tests pass at once and are logged, newest first
        log = self.log_page(LID_SELF_TEST, 564)
        self.assertEqual((log[0], log[4]), (0, 0x0f), 'no self-test yet')
        for stc in (1, 2):
            self.assertStatus(ctrl.admin_cmd(Cmd(ADM_SELF_TEST, nsid=0xffffffff,
                                                 cdw10=stc)),
                              SC_SUCCESS, 'self-test %d' % stc)
        self.assertStatus(ctrl.admin_cmd(Cmd(ADM_SELF_TEST, cdw10=3)),
                          SC_INVALID_FIELD, 'self-test code 3')
        log = self.log_page(LID_SELF_TEST, 564)
        self.assertEqual([log[4], log[32], log[60]], [0x20, 0x10, 0x0f])
        # security: protocol 0 only
        buf, p1, p2 = ctrl.buffer(512)
        self.assertStatus(ctrl.admin_cmd(Cmd(ADM_SECURITY_RECV, cdw11=512,
                                             prp1=p1, prp2=p2)),
                          SC_SUCCESS, 'security receive, protocol list')
        self.assertEqual(ctrl.qt.memread(buf, 9), bytes(7) + b'\x01\x00')
        self.assertStatus(ctrl.admin_cmd(Cmd(ADM_SECURITY_RECV,
                                             cdw10=(1 << 24) | (1 << 8),
                                             cdw11=512, prp1=p1, prp2=p2)),
                          SC_INVALID_FIELD, 'security receive, TCG')
        self.assertStatus(ctrl.admin_cmd(Cmd(ADM_SECURITY_SEND,
                                             cdw10=(1 << 24) | (1 << 8),
                                             cdw11=512, prp1=p1, prp2=p2)),
                          SC_INVALID_FIELD, 'security send, TCG')
        # telemetry: the headers, no data areas
        for lid in (LID_TELEMETRY, LID_TELEMETRY_CTRL):
            log = self.log_page(lid, 512)
            self.assertEqual(log[0], lid)
            self.assertEqual(log[5] | log[6] << 8 | log[7] << 16,
                             p.int('identity', 'ieee-oui'))
            self.assertEqual(log[8:14], bytes(6), 'no data areas')

    # ---- Write Uncorrectable ---------------------------------------------
    def test_write_uncorrectable_fails_reads_until_the_blocks_are_written(self):
        ctrl, p = self.start_profile(P2)
        lb = p.lba_bytes
        self.assertTrue(p.int('identity', 'oncs') & (1 << 1))
        self.assertStatus(ctrl.execute(self.rw(IO_WRITE_UNCOR, 100, 100)),
                          SC_SUCCESS, 'write uncorrectable 100..199')
        self.assertStatus(ctrl.execute(self.rw(IO_WRITE_UNCOR, 200, 10)),
                          SC_SUCCESS, 'write uncorrectable 200..209')
        for slba, nlb, want in [(99, 1, SC_SUCCESS),
                                (92, 8, SC_SUCCESS),
                                (96, 8, SC_UNRECOVERED_READ),
                                (100, 1, SC_UNRECOVERED_READ),
                                (209, 1, SC_UNRECOVERED_READ),
                                (210, 8, SC_SUCCESS)]:
            c = self.read(slba, nlb)
            self.assertStatus(c, want, 'read %d+%d' % (slba, nlb))
        # written, zeroed or deallocated blocks read again; the rest not
        self.assertStatus(ctrl.execute(ctrl.write_cmd(150, b'\x5a' * lb)),
                          SC_SUCCESS, 'write 150')
        self.assertStatus(ctrl.execute(ctrl.write_zeroes_cmd(120, 2)),
                          SC_SUCCESS, 'write zeroes 120..121')
        self.assertStatus(ctrl.execute(ctrl.deallocate_cmd([(205, 5)])),
                          SC_SUCCESS, 'deallocate 205..209')
        for slba, want in [(150, SC_SUCCESS), (120, SC_SUCCESS),
                           (121, SC_SUCCESS), (205, SC_SUCCESS),
                           (209, SC_SUCCESS), (149, SC_UNRECOVERED_READ),
                           (151, SC_UNRECOVERED_READ),
                           (122, SC_UNRECOVERED_READ),
                           (204, SC_UNRECOVERED_READ)]:
            self.assertStatus(self.read(slba), want, 'read %d' % slba)
        # out of range and a Format
        self.assertEqual(ctrl.execute(self.rw(IO_WRITE_UNCOR,
                                              p.capacity // lb, 1)).status,
                         0x080, 'write uncorrectable past the end')
        self.format(0)
        self.assertStatus(self.read(100, 8), SC_SUCCESS, 'read after format')

    def test_write_uncorrectable_ranges_are_bounded_and_merge(self):
        ctrl, p = self.start_profile(P2, io_entries=1024)
        limit = 4096                  # NVMIMIC_UNCOR_RANGES_MAX
        # 4096 disjoint one-block ranges (every other block) are kept
        for first in range(0, 2 * limit, 2 * 512):
            done = ctrl.submit_and_time([self.rw(IO_WRITE_UNCOR, lba, 1)
                                         for lba in range(first,
                                                          first + 2 * 512, 2)])
            self.assertEqual({c.status for c in done}, {SC_SUCCESS})
        # one more disjoint range is refused, and changes nothing
        c = ctrl.execute(self.rw(IO_WRITE_UNCOR, 3 * limit, 1))
        self.assertStatus(c, SC_INTERNAL_ERROR, 'range %d' % (limit + 1))
        self.assertStatus(self.read(3 * limit), SC_SUCCESS, 'refused range')
        # a range that merges with its neighbours still fits: 0..2 becomes one
        self.assertStatus(ctrl.execute(self.rw(IO_WRITE_UNCOR, 1, 1)),
                          SC_SUCCESS, 'block 1, between marked 0 and 2')
        self.assertStatus(ctrl.execute(self.rw(IO_WRITE_UNCOR,
                                               3 * limit, 1)),
                          SC_SUCCESS, 'a new range once two merged')
        for lba, want in [(0, SC_UNRECOVERED_READ), (1, SC_UNRECOVERED_READ),
                          (2, SC_UNRECOVERED_READ), (3, SC_SUCCESS),
                          (2 * limit - 2, SC_UNRECOVERED_READ),
                          (2 * limit - 1, SC_SUCCESS),
                          (3 * limit, SC_UNRECOVERED_READ)]:
            self.assertStatus(self.read(lba), want, 'read %d' % lba)

    # ---- the LBA format the guest selects -----------------------------------
    def read_4k_latency(self, formatted):
        """QD1 4 KiB reads at the same byte offsets on a fresh drive; with
        `formatted` the guest first formats it to 4 KiB LBAs."""
        ctrl, p = self.start_profile(P2)
        self.set_state(**{'secure-erase': True})
        if formatted:
            ns = self.format(1)
            self.assertEqual(ns['lba_bytes'], 4096)
            self.assertEqual(ns['nsze'] * 4096, p.capacity)
        self.set_state(**{'fill-pct': 100.0})
        lb = ctrl._lba_bytes(1)
        # wakes the drive from the power state the idle Format let it reach
        ctrl.latency_ns(ctrl.read_cmd(0, 4096 // lb))
        self.set_state(**{'reset-stats': True})
        offsets = [4096 * k for k in (1, 977, 123457, 9999991)]
        lat = [ctrl.latency_ns(ctrl.read_cmd(off // lb, 4096 // lb))
               for off in offsets]
        k = self.cls(self.stats(), 'read')
        self.machine.stop()
        self.machine = None
        return lat, k

    def test_model_charges_the_lba_size_the_guest_formatted(self):
        lat512, k512 = self.read_4k_latency(False)
        lat4k, k4k = self.read_4k_latency(True)
        print('4 KiB reads, 512-byte format: %s ns, %d bytes' %
              (lat512, k512['bytes']))
        print('4 KiB reads, 4 KiB format:    %s ns, %d bytes' %
              (lat4k, k4k['bytes']))
        # one 4 KiB LBA is charged as 4 KiB: same bytes, same deadlines as
        # eight 512-byte LBAs at the same offset
        self.assertEqual(k4k['bytes'], 4 * 4096)
        self.assertEqual(k512['bytes'], 4 * 4096)
        self.assertEqual(lat4k, lat512)
        self.assertEqual((k4k['posted'], k4k['late']), (4, 0))

    # ---- sparse backings stay sparse ----------------------------------------
    def test_format_write_zeroes_and_deallocate_keep_a_sparse_file_sparse(self):
        p = Profile(P2)
        lb = p.lba_bytes
        with tempfile.TemporaryDirectory(prefix='nvmimic-sparse-',
                                         dir=os.environ.get('TMPDIR',
                                                            '/var/tmp')) as d:
            path = os.path.join(d, 'drive.raw')
            with open(path, 'wb') as f:
                f.truncate(p.capacity)
            ctrl = self.start(raw_sparse_drive(path) + profile_device(P2))
            ctrl.enable()
            ctrl.create_io_queue_pair(1, 64)
            empty = allocated_bytes(path)
            data = bytes(range(256)) * (65536 // 256)
            spots = [0, 1 << 20, 1 << 28, p.capacity // lb - 128]
            for slba in spots:
                self.assertStatus(ctrl.execute(ctrl.write_cmd(slba, data)),
                                  SC_SUCCESS, 'write at %d' % slba)
            ctrl.execute(ctrl.flush_cmd())
            written = allocated_bytes(path)
            # zeroes written as data, write zeroes and deallocate: no space
            self.assertStatus(ctrl.execute(ctrl.write_cmd(spots[0],
                                                          bytes(65536))),
                              SC_SUCCESS, 'write of zeroes')
            self.assertStatus(ctrl.execute(ctrl.write_zeroes_cmd(spots[1],
                                                                 128)),
                              SC_SUCCESS, 'write zeroes')
            self.assertStatus(ctrl.execute(ctrl.deallocate_cmd([(spots[2],
                                                                 128)])),
                              SC_SUCCESS, 'deallocate')
            ctrl.execute(ctrl.flush_cmd())
            cleared = allocated_bytes(path)
            ns = self.format(0)
            formatted = allocated_bytes(path)
            print('allocated: empty %d, after 4 x 64 KiB writes %d, after '
                  'zeroes/write zeroes/deallocate of 3 %d, after Format of '
                  'the %d-byte namespace %d' % (empty, written, cleared,
                                                ns['nsze'] * lb, formatted))
            self.assertGreaterEqual(written - empty, 4 * 65536)
            self.assertLessEqual(cleared, written - 3 * 65536)
            self.assertLessEqual(formatted, empty + PAGE)
            self.assertEqual(os.stat(path).st_size, p.capacity)


if __name__ == '__main__':
    unittest.main()

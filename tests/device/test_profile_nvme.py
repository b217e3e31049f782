#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qtest checks of the NVMe controller running an nvmimic drive profile.

Expected values come from the profiles themselves (profiles/*.ini, parsed
here with configparser), never from constants in this file.  Profiles are
looked up in $NVMIMIC_PROFILE_DIR, else in profiles/ of this checkout; QEMU
is given the same directory.

Run one:  python3 tests/device/test_profile_nvme.py ProfileNvme.test_NAME
"""

import configparser
import glob
import math
import os
import random
import struct
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_stock_nvme as stock  # noqa: E402
from nvmeqtest import (  # noqa: E402
    Machine, NvmeController, Cmd, QemuError, PAGE, REG_CC, REG_CSTS, REG_VS,
    ADM_GET_FEATURES, ADM_SET_FEATURES, IO_READ, IO_WRITE, SC_SUCCESS,
    SC_INVALID_FIELD, CQE_SIZE, REPO_ROOT, FIRMWARE_ARGS, qemu_binary)

PROFILE_DIR = (os.environ.get('NVMIMIC_PROFILE_DIR')
               or os.path.join(REPO_ROOT, 'profiles'))
os.environ['NVMIMIC_PROFILE_DIR'] = PROFILE_DIR

MAIN_PROFILE = 'crucial-p5-2tb'      # timing, QMP
RAW_PROFILE = 'crucial-p2-500g'      # data on a sparse raw file
DEV_ID = 'nvm0'
FID_APST = 0x0c


# --------------------------------------------------------------------------
# Profiles, read the way GKeyFile reads them.

class Profile:
    """One profiles/<name>.ini: sections of raw string values."""

    def __init__(self, name):
        self.name = name
        self.path = os.path.join(PROFILE_DIR, name + '.ini')
        cp = configparser.ConfigParser(interpolation=None,
                                       comment_prefixes=('#',),
                                       inline_comment_prefixes=None,
                                       delimiters=('=',), strict=True,
                                       default_section='nvmimic-no-default')
        cp.optionxform = str          # GKeyFile keys are case-sensitive
        with open(self.path) as f:    # a missing profile fails the test
            cp.read_file(f)
        self.cp = cp

    def str(self, section, key):
        return self.cp.get(section, key).strip()

    def int(self, section, key):
        return int(self.str(section, key), 0)

    def float(self, section, key):
        return float(self.str(section, key))

    def bool(self, section, key):
        v = self.str(section, key)
        if v not in ('true', 'false'):
            raise ValueError('%s: [%s] %s = %r is not a GKeyFile boolean'
                             % (self.path, section, key, v))
        return v == 'true'

    @property
    def capacity(self):
        return self.int('identity', 'capacity-bytes')

    @property
    def lba_bytes(self):
        return self.int('identity', 'lba-bytes')

    def power_states(self):
        out = []
        for i in range(self.int('power', 'states')):
            s = 'power-state-%d' % i
            out.append({
                'mp_w': self.float(s, 'max-power-w'),
                'enlat_us': self.int(s, 'entry-latency-us'),
                'exlat_us': self.int(s, 'exit-latency-us'),
                'nops': self.bool(s, 'non-operational'),
                'idle_ms': self.int(s, 'idle-before-entry-ms'),
            })
        return out


def profile_names():
    return sorted(os.path.basename(p)[:-4]
                  for p in glob.glob(os.path.join(PROFILE_DIR, '*.ini')))


def null_drive(size):
    return ['-drive', 'if=none,id=d,driver=null-co,size=%d' % size]


def raw_drive(path):
    return ['-drive', 'if=none,id=d,format=raw,file=%s' % path]


def profile_device(profile, extra=''):
    return ['-device', 'nvme,id=%s,drive=d,addr=04.0,profile=%s%s'
            % (DEV_ID, profile, extra)]


def percentile(values, q):
    """Nearest-rank percentile."""
    s = sorted(values)
    return s[max(0, math.ceil(q * len(s)) - 1)]


class ProfileTest(stock.DeviceTest):
    """A QEMU per test; helpers for the nvmimic QMP commands."""

    def start_profile(self, profile=MAIN_PROFILE, drive=None, extra='',
                      io_entries=256, **ctrl_kw):
        p = Profile(profile)
        drive = drive or null_drive(p.capacity)
        ctrl = self.start(drive + profile_device(profile, extra), **ctrl_kw)
        ctrl.enable()
        ctrl.create_io_queue_pair(1, io_entries)
        ctrl.identify_namespace(1)
        return ctrl, p

    def stats(self):
        return self.machine.qmp.execute('query-nvmimic-stats', id=DEV_ID)

    def cls(self, st, name):
        for c in st['classes']:
            if c['class'] == name:
                return c
        self.fail('query-nvmimic-stats has no class %r: %r' % (name, st))

    def set_state(self, **kw):
        return self.machine.qmp.execute('nvmimic-set-state', id=DEV_ID, **kw)

    def assertAlive(self):
        self.assertEqual(self.ctrl.reg32(REG_CSTS) & 3, 1, 'CSTS not RDY')
        self.ctrl.identify_controller()
        if 1 in self.ctrl.queues:
            self.assertStatus(self.ctrl.execute(self.ctrl.read_cmd(0, 8)),
                              SC_SUCCESS, 'read')
        self.assertEqual(self.machine.qmp.execute('query-status')['status'],
                         'running')


# --------------------------------------------------------------------------

class ProfileNvme(ProfileTest):

    # ---- 1. identity ---------------------------------------------------------
    def check_identity(self, name):
        p = Profile(name)
        cap = p.capacity
        # A null-co drive larger than the profile: the namespace still
        # presents exactly the profile's capacity.
        ctrl = self.start(null_drive(cap + (1 << 30)) + profile_device(name))
        ctrl.enable()
        what = 'profile %s: ' % name
        idc = ctrl.identify_controller()
        raw = idc['raw']
        self.assertEqual(idc['mn'], p.str('identity', 'model-number'),
                         what + 'MN')
        self.assertEqual(idc['fr'], p.str('identity', 'firmware'), what + 'FR')
        self.assertEqual(idc['sn'], p.str('identity', 'serial'), what + 'SN')
        self.assertEqual(idc['vid'], p.int('identity', 'pci-vendor-id'),
                         what + 'VID')
        self.assertEqual(idc['ssvid'],
                         p.int('identity', 'pci-subsystem-vendor-id'),
                         what + 'SSVID')
        major, minor = (int(x) for x in
                        p.str('identity', 'nvme-version').split('.'))
        self.assertEqual(idc['ver'], (major << 16) | (minor << 8),
                         what + 'VER')
        self.assertEqual(ctrl.reg32(REG_VS), (major << 16) | (minor << 8),
                         what + 'VS register')
        self.assertEqual(1 << idc['mdts'], p.int('identity', 'mdts-pages'),
                         what + 'MDTS (CAP.MPSMIN is 4 KiB)')
        self.assertEqual(ctrl.cap >> 48 & 0xf, 0, what + 'CAP.MPSMIN')
        self.assertEqual(idc['vwc'] & 1,
                         int(p.bool('identity', 'volatile-write-cache')),
                         what + 'VWC')
        wctemp, cctemp = struct.unpack_from('<HH', raw, 266)
        self.assertEqual(wctemp, p.int('identity', 'temp-warn-c') + 273,
                         what + 'WCTEMP')
        self.assertEqual(cctemp, p.int('identity', 'temp-crit-c') + 273,
                         what + 'CCTEMP')

        states = p.power_states()
        self.assertEqual(idc['npss'], len(states) - 1, what + 'NPSS')
        self.assertEqual(raw[265] & 1, int(any(s['nops'] for s in states)),
                         what + 'APSTA')
        for i, s in enumerate(states):
            d = raw[2048 + 32 * i:2048 + 32 * (i + 1)]
            mp, flags = struct.unpack_from('<HxB', d, 0)
            enlat, exlat = struct.unpack_from('<II', d, 4)
            w = 'profile %s PSD%d: ' % (name, i)
            scale = 0.0001 if flags & 1 else 0.01
            self.assertNotEqual(mp, 0, w + 'MP is zero')
            self.assertLessEqual(abs(mp * scale - s['mp_w']), scale / 2 + 1e-9,
                                 w + 'MP %d x %g W != %g W'
                                 % (mp, scale, s['mp_w']))
            self.assertEqual(bool(flags & 2), s['nops'], w + 'NOPS')
            self.assertEqual(flags & ~3, 0, w + 'reserved flag bits')
            self.assertEqual((enlat, exlat), (s['enlat_us'], s['exlat_us']),
                             w + 'ENLAT/EXLAT')
        for i in range(len(states), 32):
            self.assertEqual(raw[2048 + 32 * i:2048 + 32 * (i + 1)],
                             bytes(32), what + 'PSD%d beyond NPSS' % i)

        # PCI configuration space.
        id0 = ctrl.pci_cfg_read(0x00)
        sub = ctrl.pci_cfg_read(0x2c)
        self.assertEqual(id0 & 0xffff, p.int('identity', 'pci-vendor-id'))
        self.assertEqual(id0 >> 16, p.int('identity', 'pci-device-id'))
        self.assertEqual(sub & 0xffff,
                         p.int('identity', 'pci-subsystem-vendor-id'))
        self.assertEqual(sub >> 16, p.int('identity', 'pci-subsystem-id'))

        ns = ctrl.identify_namespace(1)
        self.assertEqual(ns['lba_bytes'], p.lba_bytes, what + 'LBA size')
        self.assertEqual(ns['nsze'] * ns['lba_bytes'], cap, what + 'NSZE')
        self.assertEqual(ns['ncap'], ns['nsze'], what + 'NCAP')
        # The temperature sensor reads the profile's idle temperature.
        smart = ctrl.get_log_page(0x02, 512)
        self.assertEqual(struct.unpack_from('<H', smart, 1)[0],
                         p.int('identity', 'temp-idle-c') + 273,
                         what + 'SMART composite temperature')
        self.machine.stop()
        self.machine = None

    def test_identity_and_pci_ids_come_from_every_profile(self):
        names = profile_names()
        self.assertGreaterEqual(len(names), 1, 'no profiles in ' + PROFILE_DIR)
        self.assertIn(MAIN_PROFILE, names)
        for name in names:
            self.check_identity(name)

    def test_command_line_serial_overrides_profile_serial(self):
        p = Profile(MAIN_PROFILE)
        ctrl = self.start(null_drive(p.capacity)
                          + profile_device(MAIN_PROFILE,
                                           ',serial=CMDLINE-SN-7'))
        ctrl.enable()
        idc = ctrl.identify_controller()
        self.assertEqual(idc['sn'], 'CMDLINE-SN-7')
        self.assertNotEqual(p.str('identity', 'serial'), 'CMDLINE-SN-7')
        self.assertEqual(idc['mn'], p.str('identity', 'model-number'))

    # ---- 2. refusal at start-up -------------------------------------------------
    def refused(self, args, *needles):
        """QEMU must exit at once with status 1 and one line naming it."""
        cmd = ([qemu_binary(), '-machine', 'q35', '-accel', 'qtest',
                '-display', 'none', '-nodefaults', '-monitor', 'none']
               + FIRMWARE_ARGS + args)
        try:
            r = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=20)
        except subprocess.TimeoutExpired:
            self.fail('QEMU did not refuse to start: %s' % ' '.join(cmd))
        err = (r.stdout + r.stderr).decode('utf-8', 'replace')
        lines = [ln for ln in err.splitlines() if ln.strip()]
        self.assertEqual(r.returncode, 1, 'exit status %d (a crash is '
                         'negative), stderr:\n%s' % (r.returncode, err))
        self.assertEqual(len(lines), 1, 'not one line:\n%s' % err)
        for n in needles:
            self.assertIn(n, lines[0])
        return lines[0]

    def test_drive_smaller_than_profile_capacity_is_refused(self):
        p = Profile(MAIN_PROFILE)
        line = self.refused(null_drive(p.capacity // 2)
                            + profile_device(MAIN_PROFILE),
                            str(p.capacity // 2), str(p.capacity),
                            MAIN_PROFILE)
        print(line)

    def test_unknown_profile_name_is_refused(self):
        line = self.refused(null_drive(1 << 40)
                            + profile_device('no-such-drive-42'),
                            'no-such-drive-42', 'no such profile')
        print(line)

    def test_malformed_profile_file_is_refused_naming_the_key(self):
        with open(Profile(MAIN_PROFILE).path) as f:
            text = f.read()
        cases = [
            # (description, edit, words the message must contain)
            ('pcie-lanes not a number',
             lambda t: _replace_key(t, 'pcie-lanes', 'four'),
             ['pcie-lanes', 'four']),
            ('missing model-number',
             lambda t: _replace_key(t, 'model-number', None),
             ['model-number', 'missing']),
            ('unknown key',
             lambda t: t.replace('[nand]', '[nand]\nbogus-knob = 3', 1),
             ['bogus-knob', 'unknown']),
            ('not a key file', lambda t: 'this is = \n[not closed\n', []),
        ]
        with tempfile.TemporaryDirectory(prefix='nvmimic-prof-') as d:
            for desc, edit, words in cases:
                path = os.path.join(d, 'broken.ini')
                with open(path, 'w') as f:
                    f.write(edit(text))
                with self.subTest(desc):
                    line = self.refused(null_drive(1 << 42)
                                        + profile_device(path),
                                        path, *words)
                    print(line)

    def test_profile_without_drive_is_refused(self):
        self.refused(['-device', 'nvme,id=%s,serial=x,addr=04.0,profile=%s'
                      % (DEV_ID, MAIN_PROFILE)], 'profile', 'drive')

    # ---- 3. timing in virtual time ------------------------------------------------
    def test_qd1_read_completes_exactly_when_the_model_scheduled_it(self):
        ctrl, p = self.start_profile()
        lb = p.lba_bytes
        # A full drive, so the read goes to NAND.
        self.set_state(**{'fill-pct': 100.0, 'reset-stats': True})
        slba = random.Random(1).randrange(p.capacity // lb // 8) * 8
        lat = ctrl.latency_ns(ctrl.read_cmd(slba, 4096 // lb))
        st = self.stats()
        rd = self.cls(st, 'read')
        print('QD1 4K read: measured %d ns, scheduled mean %.3f us'
              % (lat, rd['mean-us']))
        self.assertEqual(rd['count'], 1)
        self.assertEqual(rd['bytes'], 4096)
        self.assertGreater(lat, 0)
        self.assertLessEqual(abs(lat / 1000.0 - rd['mean-us']), 0.1,
                             'measured %d ns, model scheduled %.3f us'
                             % (lat, rd['mean-us']))
        self.assertEqual((rd['posted'], rd['late']), (1, 0))

    def test_burst_of_128_random_reads_matches_the_model_statistics(self):
        ctrl, p = self.start_profile()
        lb = p.lba_bytes
        self.set_state(**{'fill-pct': 100.0, 'reset-stats': True})
        rng = random.Random(2)
        nblk = p.capacity // lb
        cmds = [ctrl.read_cmd(rng.randrange(nblk // 8) * 8, 4096 // lb)
                for _ in range(128)]
        done = ctrl.submit_and_time(cmds)
        lat = [c.latency_ns for c in done]
        self.assertTrue(all(c.ok for c in done), done)
        self.assertTrue(all(c.complete_ns >= c.submit_ns for c in done))
        rd = self.cls(self.stats(), 'read')
        mean_us = sum(lat) / len(lat) / 1000.0
        p99_us = percentile(lat, 0.99) / 1000.0
        order = [c.cid for c in sorted(done, key=lambda c: c.complete_ns)]
        print('128 x 4K random read: measured mean %.3f us p99 %.3f us max '
              '%.3f; device mean %.3f p99 %.3f max %.3f; %s'
              % (mean_us, p99_us, max(lat) / 1000.0, rd['mean-us'],
                 rd['p99-us'], rd['max-us'],
                 'completed out of order' if order != sorted(order)
                 else 'in order'))
        self.assertEqual(rd['count'], 128)
        self.assertEqual(rd['bytes'], 128 * 4096)
        self.assertLessEqual(abs(mean_us - rd['mean-us']),
                             0.005 * rd['mean-us'])
        self.assertLessEqual(abs(max(lat) / 1000.0 - rd['max-us']), 0.01)
        # The device's percentiles come from a histogram with 8 buckets per
        # power of two: they are within one bucket (12.5 %) of the truth.
        self.assertLessEqual(abs(p99_us - rd['p99-us']), 0.125 * p99_us)
        self.assertEqual((rd['posted'], rd['late']), (128, 0))
        # Several NAND dies at once: the burst cannot be served serially.
        self.assertLess(max(c.complete_ns for c in done) - done[0].submit_ns,
                        sum(lat))

    def test_writes_flush_write_zeroes_and_deallocate_are_timed(self):
        ctrl, p = self.start_profile()
        lb = p.lba_bytes
        self.set_state(**{'reset-stats': True})
        cases = [
            ('write', lambda: ctrl.write_cmd(4096, bytes(range(256)) * 16)),
            ('flush', lambda: ctrl.flush_cmd()),
            ('write-zeroes', lambda: ctrl.write_zeroes_cmd(8192, 64)),
            ('discard', lambda: ctrl.deallocate_cmd([(16384, 256)])),
        ]
        measured = {}
        for name, make in cases:
            c = ctrl.execute(make())
            self.assertStatus(c, SC_SUCCESS, name)
            measured[name] = c.latency_ns
        st = self.stats()
        for name, _ in cases:
            k = self.cls(st, name)
            print('%-12s measured %8d ns, scheduled %.3f us, count %d'
                  % (name, measured[name], k['mean-us'], k['count']))
            self.assertEqual(k['count'], 1, name)
            self.assertGreater(measured[name], 0, name)
            self.assertLessEqual(abs(measured[name] / 1000.0 - k['mean-us']),
                                 0.1, name)
            self.assertEqual((k['posted'], k['late']), (1, 0), name)
        self.assertEqual(self.cls(st, 'write')['bytes'], 4096)
        self.assertEqual(self.cls(st, 'write-zeroes')['bytes'], 64 * lb)
        self.assertEqual(self.cls(st, 'discard')['bytes'], 256 * lb)
        self.assertEqual(self.cls(st, 'read')['count'], 0)

    def test_multi_range_deallocate_completes_with_its_slowest_range(self):
        ctrl, p = self.start_profile()
        lb = p.lba_bytes
        self.set_state(**{'fill-pct': 50.0, 'reset-stats': True})
        ranges = [(16384, 256), (1 << 20, 8), (1 << 24, 2048), (4096, 1)]
        c = ctrl.execute(ctrl.deallocate_cmd(ranges))
        self.assertStatus(c, SC_SUCCESS, 'deallocate')
        k = self.cls(self.stats(), 'discard')
        print('deallocate of %d ranges: measured %d ns; device max %.3f us, '
              'count %d' % (len(ranges), c.latency_ns, k['max-us'],
                            k['count']))
        self.assertGreater(c.latency_ns, 0)
        self.assertLessEqual(abs(c.latency_ns / 1000.0 - k['max-us']), 0.01)
        self.assertEqual(k['bytes'], sum(n for _, n in ranges) * lb)
        self.assertEqual((k['posted'], k['late']), (1, 0))

    def test_admin_commands_are_untimed(self):
        ctrl, p = self.start_profile()
        self.set_state(**{'reset-stats': True})
        c = ctrl.execute(Cmd(0x06, cdw10=1, prp1=ctrl.alloc.alloc(PAGE)),
                         qid=0)
        self.assertStatus(c, SC_SUCCESS, 'identify')
        self.assertLess(c.latency_ns, 1000, 'Identify took %d ns' % c.latency_ns)
        st = self.stats()
        self.assertEqual(sum(k['count'] for k in st['classes']), 0)


def _replace_key(text, key, value):
    out = []
    for line in text.splitlines():
        if line.split('=', 1)[0].strip() == key and not line.startswith('#'):
            if value is None:
                continue
            line = '%s = %s' % (key, value)
        out.append(line)
    return '\n'.join(out) + '\n'


if __name__ == '__main__':
    unittest.main(verbosity=2)

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qtest checks of QEMU's stock -device nvme, through nvmeqtest.

Run one:  python3 tests/device/test_stock_nvme.py StockNvme.test_NAME
QEMU is $NVMIMIC_QEMU or build/qemu/qemu-system-x86_64.  QEMU's stderr is
printed when a test fails.
"""

import os
import struct
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nvmeqtest import (  # noqa: E402
    Machine, NvmeController, Cmd, PAGE, REG_AQA, REG_ASQ, REG_ACQ, REG_CC,
    REG_CSTS, ADM_ASYNC_EVENT, IO_READ, IO_WRITE, SC_SUCCESS,
    SC_INVALID_OPCODE, SC_DATA_TRANSFER_ERROR, SC_LBA_OUT_OF_RANGE,
    SC_AER_LIMIT_EXCEEDED, CQE_SIZE, sanitizer_report)

SERIAL = 'NVMIMIC-SN-0042'
NULL_SIZE = 1 << 30


def null_drive(size=NULL_SIZE):
    return ['-drive', 'if=none,id=d,driver=null-co,size=%d' % size]


def nvme_device(extra=''):
    return ['-device', 'nvme,drive=d,serial=%s,addr=04.0%s' % (SERIAL, extra)]


class DeviceTest(unittest.TestCase):
    """Starts QEMU per test, kills it in tearDown, shows its stderr on failure."""

    machine = None
    qemu_stderr = ''

    def start(self, args, **ctrl_kw):
        self.machine = Machine(args)
        self.machine.start()
        self.ctrl = NvmeController(self.machine, **ctrl_kw)
        return self.ctrl

    def tearDown(self):
        if self.machine is not None and self.machine.proc is not None:
            alive = self.machine.alive()
            self.qemu_stderr = self.machine.stop()
            self.machine = None
            report = sanitizer_report(self.qemu_stderr)
            if report:
                self.fail('QEMU printed a sanitizer report:\n' + report)
            if not alive:
                self.fail('QEMU was no longer running at the end of the test')

    def run(self, result=None):
        result = result or self.defaultTestResult()
        bad = len(result.failures) + len(result.errors)
        super().run(result)
        if len(result.failures) + len(result.errors) > bad:
            sys.stderr.write('--- QEMU stderr (%s) ---\n%s--- end ---\n'
                             % (self.id(), self.qemu_stderr or '(empty)\n'))
        return result

    def assertStatus(self, completion, status, what):
        self.assertEqual(completion.status, status,
                         '%s: status 0x%03x, expected 0x%03x (%r)'
                         % (what, completion.status, status, completion))

    def assertAlive(self):
        """The controller still answers admin and I/O commands."""
        self.assertEqual(self.ctrl.reg32(REG_CSTS) & 3, 1, 'CSTS not RDY')
        self.assertEqual(self.ctrl.identify_controller()['sn'], SERIAL)
        if 1 in self.ctrl.queues:
            self.assertStatus(self.ctrl.execute(self.ctrl.read_cmd(0, 8)),
                              SC_SUCCESS, 'read after bad input')
        self.assertEqual(self.machine.qmp.execute('query-status')['status'],
                         'running')


class StockNvme(DeviceTest):

    # ---- bring-up and identity -------------------------------------------
    def test_controller_comes_up_and_identify_reports_command_line_serial(self):
        ctrl = self.start(null_drive() + nvme_device())
        self.assertEqual(ctrl.devfn, 4 << 3)
        ctrl.enable()
        self.assertEqual(ctrl.reg32(REG_CSTS) & 3, 1)
        idc = ctrl.identify_controller()
        self.assertEqual(idc['sn'], SERIAL)
        # Stock hw/nvme has no model property: its fixed model string.
        self.assertEqual(idc['mn'], 'QEMU NVMe Ctrl')
        self.assertEqual((idc['sqes'], idc['cqes']), (0x66, 0x44))
        ns = ctrl.identify_namespace(1)
        self.assertEqual(ns['nsze'] * ns['lba_bytes'], NULL_SIZE)

    def test_features_and_smart_log_answer(self):
        ctrl = self.start(null_drive() + nvme_device()).enable()
        # Number of Queues: the result reports what the controller allocates.
        c = ctrl.set_features(0x07, (3 << 16) | 3)
        self.assertStatus(c, SC_SUCCESS, 'Set Features Number of Queues')
        c = ctrl.get_features(0x07)
        self.assertStatus(c, SC_SUCCESS, 'Get Features Number of Queues')
        self.assertGreaterEqual(c.result & 0xffff, 3)
        smart = ctrl.get_log_page(0x02, 512)
        temp_k = struct.unpack_from('<H', smart, 1)[0]
        self.assertTrue(250 < temp_k < 400, 'SMART temperature %d K' % temp_k)

    # ---- data path ---------------------------------------------------------
    def test_written_pattern_reads_back_and_lands_in_host_file(self):
        with tempfile.NamedTemporaryFile(prefix='nvmeqtest-', suffix='.raw') as f:
            f.truncate(16 << 20)
            f.flush()
            ctrl = self.start(['-drive', 'if=none,id=d,format=raw,file=%s'
                               % f.name] + nvme_device()).enable()
            ctrl.create_io_queue_pair(1, 64)
            lb = ctrl.identify_namespace(1)['lba_bytes']
            # One page (PRP1), two pages (PRP2), 64 KiB (PRP list), and a
            # buffer that starts mid-page (PRP1 offset).
            cases = [(8, PAGE, 0), (100, 2 * PAGE, 0), (1000, 16 * PAGE, 0),
                     (5000, 3 * PAGE, 512)]
            writes = []
            for i, (slba, size, offset) in enumerate(cases):
                data = bytes((i * 37 + k * 7 + (k >> 9)) & 0xff
                             for k in range(size))
                buf = ctrl.alloc.alloc(size + PAGE) + offset
                writes.append(ctrl.write_cmd(slba, data, buf=buf))
            done = ctrl.submit_and_time(writes)
            for c in done:
                self.assertStatus(c, SC_SUCCESS, 'write')
            self.assertStatus(ctrl.execute(ctrl.flush_cmd()), SC_SUCCESS,
                              'flush')
            reads = [ctrl.read_cmd(slba, size // lb) for slba, size, _ in cases]
            for c in ctrl.submit_and_time(reads):
                self.assertStatus(c, SC_SUCCESS, 'read')
            for w, r, (slba, size, _) in zip(writes, reads, cases):
                self.assertEqual(ctrl.read_data(r), w.data,
                                 'read back at LBA %d differs' % slba)
                f.seek(slba * lb)
                self.assertEqual(f.read(size), w.data,
                                 'host file at offset %d differs' % (slba * lb))
            # Nothing was written next to the patterns.
            f.seek(8 * lb + PAGE)
            self.assertEqual(f.read(lb), bytes(lb))

    def test_write_zeroes_and_deallocate_complete(self):
        with tempfile.NamedTemporaryFile(prefix='nvmeqtest-', suffix='.raw') as f:
            f.truncate(16 << 20)
            f.flush()
            ctrl = self.start(['-drive', 'if=none,id=d,format=raw,file=%s'
                               % f.name] + nvme_device()).enable()
            ctrl.create_io_queue_pair(1, 64)
            lb = ctrl.identify_namespace(1)['lba_bytes']
            self.assertStatus(ctrl.execute(ctrl.write_cmd(64, b'\xa5' * 8 * lb)),
                              SC_SUCCESS, 'write')
            self.assertStatus(ctrl.execute(ctrl.write_zeroes_cmd(64, 4)),
                              SC_SUCCESS, 'write zeroes')
            r = ctrl.read_cmd(64, 8)
            self.assertStatus(ctrl.execute(r), SC_SUCCESS, 'read')
            self.assertEqual(ctrl.read_data(r), bytes(4 * lb) + b'\xa5' * 4 * lb)
            self.assertStatus(ctrl.execute(ctrl.deallocate_cmd([(64, 8), (200, 16)])),
                              SC_SUCCESS, 'deallocate')

    # ---- virtual time -----------------------------------------------------
    def test_null_read_completion_time_is_measured_consistently(self):
        ctrl = self.start(null_drive() + nvme_device()).enable()
        ctrl.create_io_queue_pair(1, 256)
        qd1 = [ctrl.latency_ns(ctrl.read_cmd(8 * i, 8)) for i in range(16)]
        cmds = [ctrl.read_cmd(8 * i, 8) for i in range(128)]
        burst = []
        for _ in range(20):
            burst += ctrl.submit_and_time(cmds)
        burst_lat = [c.latency_ns for c in burst]
        print('stock nvme + null-co, 4K read: QD1 latency %s ns; 20 bursts of 128: '
              'min %d max %d ns (virtual time)'
              % (sorted(set(qd1)), min(burst_lat), max(burst_lat)))
        self.assertTrue(all(c.ok for c in burst))
        # Stock nvme on null-co has no timing: it posts every completion
        # from its bottom half before the harness steps the clock, so each
        # one, alone or among 128, is measured at exactly 0 ns of virtual
        # time (a completion seen only after a clock step, or a step taken
        # too early, would show here as a nonzero latency)
        self.assertEqual(set(qd1), {0}, 'QD1 latencies: %s' % sorted(set(qd1)))
        self.assertEqual(set(burst_lat), {0},
                         'burst latencies: %s' % sorted(set(burst_lat)))
        # Virtual time only moves when the harness steps it: submission times
        # are monotonic, and a stepped clock is seen by the next submission.
        before = ctrl.qt.now_ns
        ctrl.qt.clock_step(1000000)
        c = ctrl.execute(ctrl.read_cmd(0, 8))
        self.assertEqual(c.submit_ns, before + 1000000)
        self.assertEqual(c.latency_ns, qd1[0])

    def test_io_queue_wraps_and_phase_flips_without_losing_completions(self):
        ctrl = self.start(null_drive() + nvme_device()).enable()
        q = ctrl.create_io_queue_pair(1, 16)
        seen = 0
        for batch in (7, 15, 9, 15, 1, 12):      # wraps the 16-entry rings
            done = ctrl.submit_and_time([ctrl.read_cmd(8 * i, 8)
                                         for i in range(batch)])
            self.assertEqual(len(done), batch)
            self.assertTrue(all(c.ok and c.sqid == 1 for c in done), done)
            self.assertEqual(len({c.cid for c in done}), batch)
            seen += batch
            self.assertEqual(done[-1].sqhd, seen % 16)
        self.assertEqual((q.sq_tail, q.cq_head), (seen % 16, seen % 16))
        self.assertEqual(q.phase, 1 - (seen // 16) % 2)
        self.assertEqual(q.outstanding, {})

    # ---- Windows stornvme behaviour (issue 4 item 5) ---------------------------
    def test_admin_queue_registers_read_back_while_enabled(self):
        ctrl = self.start(null_drive() + nvme_device()).enable(admin_entries=32)
        self.assertEqual(ctrl.reg32(REG_CC) & 1, 1)
        self.assertEqual(ctrl.reg32(REG_CSTS) & 1, 1)
        self.assertEqual(ctrl.reg32(REG_AQA), (31 << 16) | 31)
        self.assertEqual(ctrl.reg64(REG_ASQ), ctrl.admin.sq_addr)
        self.assertEqual(ctrl.reg64(REG_ACQ), ctrl.admin.cq_addr)
        # Drivers also read the 64-bit registers as two dwords.
        self.assertEqual(ctrl.reg32(REG_ASQ), ctrl.admin.sq_addr & 0xffffffff)
        self.assertEqual(ctrl.reg32(REG_ASQ + 4), ctrl.admin.sq_addr >> 32)
        self.assertEqual(ctrl.reg32(REG_ACQ), ctrl.admin.cq_addr & 0xffffffff)
        self.assertEqual(ctrl.reg32(REG_ACQ + 4), ctrl.admin.cq_addr >> 32)
        # Still true after the controller has done work.
        ctrl.create_io_queue_pair(1, 16)
        self.assertEqual(ctrl.reg32(REG_AQA), (31 << 16) | 31)
        self.assertEqual(ctrl.reg64(REG_ASQ), ctrl.admin.sq_addr)
        self.assertEqual(ctrl.reg64(REG_ACQ), ctrl.admin.cq_addr)

    def unclaimed_admin_completions(self):
        """Admin completions nobody waited for: polled now or seen earlier."""
        self.ctrl.poll(qid=0)
        return self.ctrl.take(qid=0)

    def _submit_aers(self, n):
        cmds = [Cmd(ADM_ASYNC_EVENT) for _ in range(n)]
        self.ctrl.submit(cmds, qid=0)
        return cmds

    def test_async_event_requests_are_held_not_failed(self):
        ctrl = self.start(null_drive() + nvme_device()).enable()
        aerl = ctrl.identify_controller()['aerl']
        aers = self._submit_aers(aerl + 1)
        ctrl.qt.clock_step(1000000000)          # 1 s of virtual time
        early = self.unclaimed_admin_completions()
        self.assertEqual(early, [], 'AERs completed with no event: %r' % early)
        # The admin queue keeps working around the held AERs.
        self.assertEqual(ctrl.identify_controller()['sn'], SERIAL)
        ctrl.create_io_queue_pair(1, 16)
        ctrl.qt.clock_step(1000000000)
        self.assertEqual(self.unclaimed_admin_completions(), [])
        self.assertEqual(set(ctrl.admin.outstanding),
                         {c.cid for c in aers})
        # One more than AERL+1 is refused with AER Limit Exceeded.
        extra = ctrl.admin_cmd(Cmd(ADM_ASYNC_EVENT))
        self.assertStatus(extra, SC_AER_LIMIT_EXCEEDED, 'AER beyond AERL+1')

    def test_held_async_event_request_completes_on_temperature_event(self):
        ctrl = self.start(null_drive() + nvme_device()).enable()
        self.assertStatus(ctrl.set_features(0x0b, 0xff), SC_SUCCESS,
                          'Set Features Async Event Configuration')
        aer = self._submit_aers(1)[0]
        ctrl.qt.clock_step(1000000000)
        self.assertEqual(self.unclaimed_admin_completions(), [])
        # Over-temperature threshold below the composite temperature.
        c = ctrl.set_features(0x04, 200)
        self.assertStatus(c, SC_SUCCESS, 'Set Features Temperature Threshold')
        done = ctrl.wait([aer.cid], qid=0)
        ev = done[aer.cid]
        self.assertStatus(ev, SC_SUCCESS, 'AER')
        self.assertEqual(ev.result & 0x7, 1, 'event type: SMART / health')
        self.assertEqual((ev.result >> 8) & 0xff, 1, 'info: temperature')
        self.assertEqual((ev.result >> 16) & 0xff, 0x02, 'log page: SMART')

    def test_held_async_event_requests_are_dropped_cleanly_at_reset(self):
        ctrl = self.start(null_drive() + nvme_device()).enable()
        ctrl.create_io_queue_pair(1, 16)
        aerl = ctrl.identify_controller()['aerl']
        self._submit_aers(aerl + 1)
        ctrl.qt.clock_step(100000000)
        admin_cq = ctrl.admin.cq_addr
        cq_before = ctrl.qt.memread(admin_cq, ctrl.admin.entries * CQE_SIZE)
        ctrl.disable()                           # CC.EN=0: controller reset
        self.assertEqual(ctrl.reg32(REG_CSTS) & 3, 0)
        ctrl.qt.clock_step(1000000000)
        self.assertEqual(ctrl.qt.memread(admin_cq, len(cq_before)), cq_before,
                         'completions posted during reset')
        self.assertEqual(self.machine.qmp.execute('query-status')['status'],
                         'running')
        # The controller comes back and holds AERs again.
        ctrl.enable()
        ctrl.create_io_queue_pair(1, 16)
        aers = self._submit_aers(aerl + 1)
        ctrl.qt.clock_step(1000000000)
        self.assertEqual(self.unclaimed_admin_completions(), [])
        self.assertEqual(len(ctrl.admin.outstanding), len(aers))
        self.assertAlive()

    # ---- bad guest input ----------------------------------------------------
    def test_read_past_namespace_end_returns_lba_out_of_range(self):
        ctrl = self.start(null_drive() + nvme_device()).enable()
        ctrl.create_io_queue_pair(1, 16)
        nsze = ctrl.identify_namespace(1)['nsze']
        for slba, nlb in ((nsze - 1, 2), (nsze, 1), (1 << 62, 8)):
            c = ctrl.execute(ctrl.read_cmd(slba, nlb))
            self.assertStatus(c, SC_LBA_OUT_OF_RANGE,
                              'read of %d blocks at LBA %d' % (nlb, slba))
        self.assertStatus(ctrl.execute(ctrl.read_cmd(nsze - 1, 1)), SC_SUCCESS,
                          'read of the last block')
        self.assertAlive()

    def test_invalid_opcode_returns_invalid_opcode(self):
        ctrl = self.start(null_drive() + nvme_device()).enable()
        ctrl.create_io_queue_pair(1, 16)
        self.assertStatus(ctrl.execute(Cmd(0x7f, nsid=1)), SC_INVALID_OPCODE,
                          'I/O opcode 0x7f')
        self.assertStatus(ctrl.admin_cmd(Cmd(0x3f)), SC_INVALID_OPCODE,
                          'admin opcode 0x3f')
        self.assertAlive()

    def test_prp_outside_guest_ram_returns_data_transfer_error(self):
        ctrl = self.start(null_drive() + nvme_device()).enable()
        ctrl.create_io_queue_pair(1, 16)
        buf = ctrl.alloc.alloc(16 * PAGE)
        # A PRP list pointer into unassigned physical address space.
        for op in (IO_READ, IO_WRITE):
            c = ctrl.execute(Cmd(op, nsid=1, prp1=buf, prp2=0x3f00000000,
                                 cdw12=8 * 4 - 1))
            self.assertStatus(c, SC_DATA_TRANSFER_ERROR,
                              'opcode %d, PRP list outside RAM' % op)
        # A data pointer into the controller's own registers (MMIO).
        for op in (IO_READ, IO_WRITE):
            c = ctrl.execute(Cmd(op, nsid=1, prp1=ctrl.bar0, cdw12=7))
            self.assertStatus(c, SC_DATA_TRANSFER_ERROR,
                              'opcode %d, PRP1 in the controller BAR' % op)
        # A data pointer past the end of RAM: upstream QEMU maps it without
        # complaint (DMA to unassigned space is dropped) and reports success;
        # a real drive would see an Unsupported Request.  Check it completes
        # and harms nothing.
        for op in (IO_READ, IO_WRITE):
            c = ctrl.execute(Cmd(op, nsid=1, prp1=0x3f00000000, cdw12=7))
            self.assertIn(c.status, (SC_SUCCESS, SC_DATA_TRANSFER_ERROR), repr(c))
        self.assertAlive()


if __name__ == '__main__':
    unittest.main(verbosity=2)

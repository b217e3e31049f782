#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qtest checks that DMA the guest aims at the controller's own registers
cannot re-enter the controller (the CVE-2021-3929 class).

A guest may put an I/O completion queue, or an MSI-X message address, on
the controller's BAR0: Create I/O CQ only checks page alignment.  A CQE
written to BAR0 + 0x10 then lands on INTMC and CC (its dword 1, 0 for a
read, clears CC.EN), and an MSI-X message of data 0 sent to BAR0 + 0x14
does the same.  Clearing CC.EN resets the controller, which frees its
queues and requests; done from inside the posting of a completion, the
posting code then walks freed memory.

Upstream posts completions from a bottom half made with
qemu_bh_new_guarded(), so QEMU's memory core refuses such a write
(MEMTX_ACCESS_ERROR) and the controller reports Controller Fatal Status.
With profile= the completions the drive model holds are posted from a
timer instead; these tests check that they are refused in the same way:
the controller stays enabled and reports CSTS.CFS (for a CQE), and QEMU (built with
AddressSanitizer: make check-sanitizers) sees no use-after-free.  The
stock controller is checked first, as the reference.

Run one:  python3 tests/device/test_reentrancy_nvme.py ReentrancyNvme.test_NAME
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_stock_nvme as stock  # noqa: E402
from nvmeqtest import REG_CC, REG_CSTS, SC_SUCCESS  # noqa: E402
from test_profile_nvme import (  # noqa: E402
    ProfileTest, Profile, MAIN_PROFILE, null_drive, profile_device)

CSTS_RDY, CSTS_CFS = 0x1, 0x2
PCI_CAP_ID_MSIX = 0x11


class ReentrancyNvme(ProfileTest):

    def start_ctrl(self, profile):
        if profile:
            p = Profile(MAIN_PROFILE)
            args = null_drive(p.capacity) + profile_device(MAIN_PROFILE)
        else:
            args = stock.null_drive() + stock.nvme_device()
        ctrl = self.start(args)
        ctrl.enable()
        ctrl.identify_namespace(1)
        return ctrl

    def let_device_work(self, ctrl):
        """Let the device take the commands off the SQ and finish their
        block I/O (bottom halves: each qtest round trip runs the main loop),
        then move virtual time past every deadline the model can give."""
        for _ in range(20):
            ctrl.reg32(REG_CSTS)
        ctrl.qt.clock_step(100 * 10**6)
        for _ in range(20):
            ctrl.reg32(REG_CSTS)

    def check_not_reset(self, ctrl, what, csts_expected):
        cc = ctrl.reg32(REG_CC)
        csts = ctrl.reg32(REG_CSTS)
        self.assertTrue(self.machine.alive(), what + ': QEMU died')
        self.assertEqual(cc & 1, 1, '%s: CC.EN was cleared by the device\'s '
                         'own DMA (CC 0x%x, CSTS 0x%x)' % (what, cc, csts))
        self.assertEqual(csts & (CSTS_RDY | CSTS_CFS), csts_expected,
                         '%s: CSTS 0x%x, expected 0x%x' % (what, csts,
                                                           csts_expected))
        # A reset recovers the controller; it serves I/O again.
        ctrl.enable()
        self.assertEqual(ctrl.reg32(REG_CSTS) & (CSTS_RDY | CSTS_CFS),
                         CSTS_RDY)
        ctrl.create_io_queue_pair(1, 16)
        c = ctrl.execute(ctrl.read_cmd(0, 8))
        self.assertStatus(c, SC_SUCCESS, what + ': read after the reset')

    # ---- a completion queue on BAR0 -------------------------------------------
    def cq_on_bar0(self, profile):
        ctrl = self.start_ctrl(profile)
        # Entry 0 covers CAP, VS and INTMS; entry 1 covers INTMC, CC,
        # a reserved dword and CSTS.
        ctrl.create_io_queue_pair(2, 4, cq_addr=ctrl.bar0)
        ctrl.submit([ctrl.read_cmd(0, 8), ctrl.read_cmd(8, 8)], qid=2)
        self.let_device_work(ctrl)
        # The CQE write is refused: upstream then sets CSTS to Controller
        # Fatal Status alone (RDY drops too) and stops posting.
        self.check_not_reset(ctrl, 'CQ on BAR0', CSTS_CFS)

    def test_cqe_aimed_at_the_controller_registers_is_refused_stock(self):
        self.cq_on_bar0(profile=False)

    def test_held_cqe_aimed_at_the_controller_registers_is_refused(self):
        self.cq_on_bar0(profile=True)

    # ---- an MSI-X message on CC -------------------------------------------------
    def msix_cap(self, ctrl):
        ptr = (ctrl.pci_cfg_read(0x34) & 0xff)
        while ptr:
            v = ctrl.pci_cfg_read(ptr)
            if v & 0xff == PCI_CAP_ID_MSIX:
                return ptr
            ptr = (v >> 8) & 0xfc
        self.fail('the controller has no MSI-X capability')

    def msix_on_cc(self, profile):
        ctrl = self.start_ctrl(profile)
        cap = self.msix_cap(ctrl)
        table = ctrl.pci_cfg_read(cap + 4)
        self.assertEqual(table & 7, 0, 'MSI-X table not in BAR0')
        entry = ctrl.bar0 + (table & ~7) + 16 * 1
        # MSI-X vector 1's message is "write 0 to CC"; I/O CQ 1 raises it.
        # Vector 0 (the admin queue's) is masked.
        ctrl.qt.writel(entry + 0, (ctrl.bar0 + REG_CC) & 0xffffffff)
        ctrl.qt.writel(entry + 4, (ctrl.bar0 + REG_CC) >> 32)
        ctrl.qt.writel(entry + 8, 0)
        ctrl.qt.writel(entry + 12, 0)
        ctrl.qt.writel(ctrl.bar0 + (table & ~7) + 12, 1)
        ctl = ctrl.pci_cfg_read(cap)
        ctrl.pci_cfg_write(cap, (ctl & 0x3fffffff) | (1 << 31))
        ctrl.create_io_queue_pair(1, 16, iv=1)
        ctrl.submit([ctrl.read_cmd(0, 8)], qid=1)
        self.let_device_work(ctrl)
        self.assertEqual(len(ctrl.poll(1)), 1, 'the read did not complete')
        # The message is refused (an interrupt is not a DMA the controller
        # checks: no CFS).
        self.check_not_reset(ctrl, 'MSI-X message on CC', CSTS_RDY)

    def test_interrupt_aimed_at_cc_is_refused_stock(self):
        self.msix_on_cc(profile=False)

    def test_held_completion_interrupt_aimed_at_cc_is_refused(self):
        self.msix_on_cc(profile=True)


if __name__ == '__main__':
    unittest.main()

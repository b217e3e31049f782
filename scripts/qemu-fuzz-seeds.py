#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Seed inputs for QEMU's generic-fuzz target on the nvme controller.

generic-fuzz reads its input as operations separated by b"FUZZ": MMIO
writes into the matched memory regions, DMA patterns (what the device reads
from guest RAM: submission queue entries, PRP data), and clock steps to the
next timer deadline.  Left to itself the fuzzer rarely gets past the
controller's enable sequence, so these seeds walk the paths that matter for
nvmimic: the admin queues and an I/O queue pair set up, commands held by the
model until their deadlines, then

  io          reads and writes, completions posted by the timer (clock steps)
  reset-held  CC.EN cleared while completions are held
  delete-sq   Delete I/O SQ while its completions are held
  apst        Set Features / Get Features 0x0c (APST) with a table
  dsm         Dataset Management (deallocate) with a range list
  smart       Get Log Page 0x02 (SMART / health)
  marks       nvmimic's vendor mark (admin C0h) around I/O, one resetting
              the statistics (QMP state changes at marks are nvmimic-fuzz's)

usage: qemu-fuzz-seeds.py OUTDIR [MMIO_REGION_INDEX]
"""
import os
import struct
import sys

SEP = b"FUZZ"
OP_WRITE, OP_ADD_DMA_PATTERN, OP_CLEAR_DMA_PATTERNS, OP_CLOCK_STEP = 3, 7, 8, 9
LONG, QUAD = 2, 3

CC, AQA, ASQ, ACQ = 0x14, 0x24, 0x28, 0x30
ASQ_ADDR, ACQ_ADDR = 0x100000, 0x101000
IOCQ_ADDR, IOSQ_ADDR, DATA_ADDR = 0x102000, 0x103000, 0x110000
QSIZE = 32


class Seed:
    def __init__(self, region):
        self.region = region
        self.ops = []
        self.admin_tail = 0

    def write(self, off, value, size=LONG):
        # struct { u8 size; u8 base; u32 offset; u64 value; } (padded)
        self.ops.append(bytes([OP_WRITE]) +
                        struct.pack("<BBxxIQ", size, self.region, off, value))

    def patterns(self, *datas):
        """The next DMA reads get these bytes, in turn."""
        self.ops.append(bytes([OP_CLEAR_DMA_PATTERNS]))
        for d in datas:
            self.ops.append(bytes([OP_ADD_DMA_PATTERN, 0, 0]) + d)

    def step(self, n=1):
        for _ in range(n):
            self.ops.append(bytes([OP_CLOCK_STEP]))

    def admin(self, sqe, *data):
        self.patterns(sqe, *data)
        self.admin_tail = (self.admin_tail + 1) % QSIZE
        self.write(0x1000, self.admin_tail)

    def io(self, sqe, count, *data):
        self.patterns(sqe, *data)
        self.write(0x1008, count)       # SQ 1 tail doorbell (DSTRD 0)

    def bytes(self):
        out = SEP.join(self.ops)
        assert out.count(SEP) == len(self.ops) - 1, "an operand holds FUZZ"
        return out


def sqe(opcode, cid=1, nsid=0, prp1=0, prp2=0, cdw10=0, cdw11=0, cdw12=0,
        cdw13=0, cdw14=0, cdw15=0):
    return struct.pack("<BBHIQQQQ6I", opcode, 0, cid, nsid, 0, 0, prp1, prp2,
                       cdw10, cdw11, cdw12, cdw13, cdw14, cdw15)


def enabled(region):
    """Admin queues, CC.EN, then one I/O CQ and SQ (qid 1)."""
    s = Seed(region)
    s.write(AQA, (QSIZE - 1) << 16 | (QSIZE - 1))
    s.write(ASQ, ASQ_ADDR, QUAD)
    s.write(ACQ, ACQ_ADDR, QUAD)
    s.write(CC, 0x00460001)             # IOCQES 4, IOSQES 6, EN
    s.step()
    s.admin(sqe(0x05, cid=1, prp1=IOCQ_ADDR, cdw10=(QSIZE - 1) << 16 | 1,
                cdw11=1))               # Create I/O CQ 1, contiguous
    s.admin(sqe(0x01, cid=2, prp1=IOSQ_ADDR, cdw10=(QSIZE - 1) << 16 | 1,
                cdw11=1 << 16 | 1))     # Create I/O SQ 1 on CQ 1
    return s


def reads_and_writes(s, n=8):
    s.io(sqe(0x02, cid=3, nsid=1, prp1=DATA_ADDR, cdw10=4096, cdw12=7), n)
    # the data is read later, from the block layer: it gets the SQE's bytes
    s.io(sqe(0x01, cid=4, nsid=1, prp1=DATA_ADDR, cdw10=8192, cdw12=7),
         2 * n)


def seeds(region):
    out = {}

    s = enabled(region)
    reads_and_writes(s)
    s.io(sqe(0x00, cid=5, nsid=1), 20)          # flush
    s.step(12)
    out["io"] = s

    s = enabled(region)
    reads_and_writes(s)
    s.write(CC, 0x00460000)                     # reset, completions held
    s.step(4)
    s.write(CC, 0x00460001)
    s.step(2)
    out["reset-held"] = s

    s = enabled(region)
    reads_and_writes(s)
    s.admin(sqe(0x00, cid=6, cdw10=1))          # Delete I/O SQ 1
    s.step(6)
    s.admin(sqe(0x04, cid=7, cdw10=1))          # Delete I/O CQ 1
    s.step(2)
    out["delete-sq"] = s

    s = enabled(region)
    table = b"".join(struct.pack("<Q", (100 + 50 * i) << 8 | (3 + i % 2) << 3)
                     for i in range(32))
    s.admin(sqe(0x09, cid=8, prp1=DATA_ADDR, cdw10=0x0c, cdw11=1), table)
    s.admin(sqe(0x0a, cid=9, prp1=DATA_ADDR, cdw10=0x0c))
    s.step(3)
    reads_and_writes(s, 2)
    s.step(6)
    out["apst"] = s

    s = enabled(region)
    ranges = b"".join(struct.pack("<IIQ", 0, 64 << i, 4096 * i)
                      for i in range(4))
    s.io(sqe(0x09, cid=10, nsid=1, prp1=DATA_ADDR, cdw10=3, cdw11=4), 3,
         ranges)
    s.io(sqe(0x08, cid=11, nsid=1, cdw10=1 << 20, cdw12=255), 5)
    s.step(8)
    out["dsm"] = s

    s = enabled(region)
    reads_and_writes(s, 2)
    s.admin(sqe(0x02, cid=12, nsid=0xffffffff, prp1=DATA_ADDR,
                cdw10=127 << 16 | 0x02))        # SMART log, 512 bytes
    s.step(6)
    out["smart"] = s

    s = enabled(region)
    s.admin(sqe(0xc0, cid=13, cdw12=1))         # mark 1
    reads_and_writes(s, 2)
    s.step(4)
    s.admin(sqe(0xc0, cid=14, cdw12=2, cdw13=1))    # mark 2, reset stats
    s.admin(sqe(0xc0, cid=15, cdw12=3, cdw13=6))    # reserved flags
    s.step(2)
    out["marks"] = s
    return out


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip().splitlines()[-1])
    outdir = sys.argv[1]
    region = int(sys.argv[2]) if len(sys.argv) == 3 else 0
    os.makedirs(outdir, exist_ok=True)
    for name, s in seeds(region).items():
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(s.bytes())


if __name__ == "__main__":
    main()

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Seed inputs for nvmimic-fuzz (hw/nvmimic-fuzz.c), QEMU's fuzzing build.

An input is a program: an opcode byte (taken modulo 14), then its operands.
These seeds walk the paths nvmimic adds to the controller, so that the
fuzzer starts from them:

  io        FUA writes, reads, a flush, completions on clock steps
  marks     states queued for marks, the marks, their snapshots
  trace     a device trace started and stopped around I/O
  states    nvmimic-set-state at and beyond its bounds
  raw       nvmimic's QMP commands with odd argument objects
  reset     CC.EN cleared and Delete SQ while completions are held
  faults    media errors, latency, a stall at a mark, a power cut after a
            delay, the fault list, a clear

usage: nvmimic-fuzz-seeds.py OUTDIR
"""
import json
import os
import struct
import sys

(ENABLE, ADMIN, IO, _IO2, MMIO, MEM, STEP, DRAIN, MARK, STATE, QUERY, TRACE,
 RAW, FAULT) = range(14)


def cmd(kind, opc, cdw=(0, 0, 0, 0, 0, 0), page=0, nsid=None, cid=1):
    out = bytes([kind, opc, page])
    out += bytes([0x80]) + struct.pack("<I", nsid) if nsid is not None \
        else bytes([0])
    out += struct.pack("<6IHB", *cdw, cid, 0)
    return out


def rw(opc, slba, nlb, fua=False, page=0, cid=1):
    return cmd(IO, opc, (slba & 0xffffffff, slba >> 32,
                         (nlb - 1) | (1 << 30 if fua else 0), 0, 0, 0),
               page=page, cid=cid)


def step(ns=0):
    return bytes([STEP]) + struct.pack("<I", ns)


def mem(off, data):
    return bytes([MEM]) + struct.pack("<HB", off, len(data)) + data


def mark(n, flags=0, cid=7):
    return bytes([MARK, n, flags]) + struct.pack("<H", cid)


def state(which, how=0, *vals, at=None):
    out = bytes([STATE, which, how | (0x80 if at is not None else 0)])
    for v in vals:
        out += v
    if at is not None:
        out += bytes([at])
    return out


def fault(kind, when=0, *vals):
    """kind: 0 power-cut, 1 media-error, 2 latency, 3 stall, 4 hang, 5 clear,
    plus 8 * the command class (read, write, flush, discard, write-zeroes,
    all); when: 1 at a mark, 2 after a delay, 128 then query the faults;
    the other bits pick each kind's operands (hw/nvmimic-fuzz.c fault())."""
    return bytes([FAULT, kind, when]) + b"".join(vals)


def raw(idx, obj):
    js = json.dumps(obj).encode()
    return bytes([RAW, idx]) + struct.pack("<H", len(js)) + js


SEEDS = {
    "io": bytes([ENABLE]) + mem(0, b"\xa5" * 200) +
    rw(0x01, 0, 8, fua=True) + rw(0x01, 4096, 1) + step() + step() +
    bytes([DRAIN]) + rw(0x02, 0, 8) + cmd(IO, 0x00, nsid=1) +
    step() + step() + bytes([DRAIN, QUERY, 1]),
    "marks": bytes([ENABLE]) +
    state(0x41, 0, bytes([50]), at=1) + mark(1) + bytes([QUERY, 0, 1]) +
    rw(0x02, 123456, 1) + step() + mark(2, flags=1) + bytes([DRAIN]) +
    bytes([QUERY, 0, 2]),
    "trace": bytes([ENABLE, TRACE, 1]) + struct.pack("<I", 1 << 20) +
    rw(0x01, 100, 16) + rw(0x02, 100, 16) + step() + step() +
    bytes([TRACE, 0, DRAIN]),
    "states": state(0x01, 0x01, bytes([2])) + state(0x02, 0x02,
                                                    struct.pack("<Q", 1 << 63)) +
    state(0x14, 0x08, bytes([200]), struct.pack("<Q", 2 ** 64 - 1)) +
    state(0x28, 0x14, struct.pack("<Q", 12345)) + state(0xc0) +
    bytes([ENABLE]) + rw(0x01, 0, 32) + step(),
    "raw": raw(0, {"id": "nvm0", "fill-pct": "half"}) +
    raw(2, {"id": "nvm0", "mark": -1}) +
    raw(3, {"id": "nvm0", "path": ""}) +
    raw(0, {"id": "x" * 300, "wear-pct": 1e308}) +
    raw(5, {"id": "nvm0"}),
    "reset": bytes([ENABLE]) + rw(0x01, 0, 64) + rw(0x02, 64, 64) +
    bytes([MMIO]) + struct.pack("<HI", 0x14, 0) + step() +
    bytes([ENABLE]) + rw(0x02, 0, 8) +
    cmd(ADMIN, 0x00, (1, 0, 0, 0, 0, 0)) + step() + step() + bytes([DRAIN]),
    "faults": bytes([ENABLE]) +
    fault(1, 0, struct.pack("<IH", 0, 8)) + rw(0x02, 0, 1) + step() +
    fault(2 + 8 * 1, 0, struct.pack("<I", 500)) + rw(0x01, 64, 8) + step() +
    fault(3, 1 | 8, bytes([3]), struct.pack("<I", 1000)) + mark(3) +
    rw(0x02, 64, 8) + step() + step() +
    fault(0, 2 | 8 | 128, struct.pack("<I", 1000)) + rw(0x01, 128, 8) +
    step() + step() + bytes([DRAIN]) + fault(5, 128) + bytes([ENABLE]) +
    rw(0x02, 128, 8) + step(),
}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    os.makedirs(sys.argv[1], exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(sys.argv[1], name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()

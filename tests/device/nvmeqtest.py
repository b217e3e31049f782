# SPDX-License-Identifier: GPL-2.0-or-later
"""nvmeqtest: drive QEMU's NVMe controller from Python through qtest.

Three layers, stdlib only:

  Machine         starts QEMU (-accel qtest, q35) with caller-supplied args,
                  owns its qtest and QMP connections and its captured stderr.
  QTest / QMP     the two text protocols (memory, port I/O, virtual clock;
                  QMP: vm-images/nvmimic_qmp.py, nvmimic's Python client).
  NvmeController  a minimal polled NVMe host driver: PCI setup, controller
                  enable/reset, admin commands, I/O queue pairs, PRPs, and
                  submit_and_time(), which returns each command's submission
                  and completion time on QEMU_CLOCK_VIRTUAL.

A timing test is a few lines:

    args = null_drive_args(2 << 40) + nvme_device_args(profile='NAME')
    with Machine(args) as m:
        ctrl = NvmeController.open(m)                 # admin + I/O queue 1
        lat_ns = ctrl.latency_ns(ctrl.read_cmd(slba=0, nlb=8))   # QD1 4 KiB
        burst = ctrl.submit_and_time([ctrl.read_cmd(8 * i, 8)
                                      for i in range(128)])
        worst_ns = max(c.latency_ns for c in burst)

Completion times are exact when the device posts CQEs from
QEMU_CLOCK_VIRTUAL timers: the harness steps the clock from one timer
deadline to the next and polls the CQ after each step.  Work the device does
in host time (bottom halves, block I/O) is given settle_polls unchanged CQ
reads before time is stepped.
"""

import base64
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import json

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
# nvmimic's QMP client and the line-by-line socket under it, shared with the
# guest tools
sys.path.insert(0, os.path.join(REPO_ROOT, 'vm-images'))
from nvmimic_qmp import (  # noqa: E402
    DEFAULT_TIMEOUT_S, QMP, QemuError, LineSocket as _LineSocket)
DEFAULT_QEMU = os.path.join(REPO_ROOT, 'build', 'qemu', 'qemu-system-x86_64')
DEFAULT_CLI = os.path.join(REPO_ROOT, 'build', 'nvmimic')
FIRMWARE_ARGS = ['-L', '/usr/share/qemu', '-L', '/usr/share/seabios']

# q35 guest RAM (QEMU's default 128 MiB unless -m is given); buffers and queues
# live from 1 MiB upward, far below the end of RAM.
GUEST_ALLOC_BASE = 0x100000
GUEST_ALLOC_END = 0x7000000
PAGE = 4096


class NvmeError(Exception):
    """The controller misbehaved (not a command status: those are returned)."""


# What ASan, UBSan and LeakSanitizer print when they find something (a QEMU
# built without them never prints these).
SANITIZER_MARKS = ('ERROR: AddressSanitizer', 'ERROR: LeakSanitizer',
                   'runtime error: ')


def sanitizer_report(text):
    """The first sanitizer report in QEMU's output, or None."""
    for mark in SANITIZER_MARKS:
        i = text.find(mark)
        if i >= 0:
            start = text.rfind('\n', 0, i) + 1
            return text[start:start + 4000]
    return None


def qemu_binary():
    """The QEMU under test: $NVMIMIC_QEMU, else build/qemu/ of this checkout."""
    return os.environ.get('NVMIMIC_QEMU', DEFAULT_QEMU)


def cli_binary():
    """The nvmimic command: $NVMIMIC_CLI, else build/nvmimic of this checkout."""
    return os.environ.get('NVMIMIC_CLI', DEFAULT_CLI)


def profile_show(name, profile_dir=None):
    """Drive profile NAME as nvmimic reads it (nvmimic profile show --json):
    its parts merged, every value as written with the file that sets it."""
    args = [cli_binary(), 'profile', 'show', name, '--json']
    if profile_dir:
        args += ['--profile-dir', profile_dir]
    p = subprocess.run(args, capture_output=True, text=True, timeout=60)
    if p.returncode:
        raise QemuError('nvmimic profile show %s: %s'
                        % (name, p.stderr.strip()))
    return json.loads(p.stdout)


# --------------------------------------------------------------------------
# qtest text protocol.

class QTest:
    """qtest protocol client.  Addresses are guest-physical."""

    def __init__(self, lsock, timeout_s=DEFAULT_TIMEOUT_S):
        self.ls = lsock
        self.timeout_s = timeout_s
        self.irq_events = []          # ('raise'|'lower', line) as they arrive
        self.round_trips = 0
        self.now_ns = self._clock_query()

    def cmd(self, line):
        """Send one command, return the text after 'OK' (raise on FAIL/ERR)."""
        self.ls.send(line.encode() + b'\n')
        self.round_trips += 1
        while True:
            resp = self.ls.readline(self.timeout_s)
            if resp.startswith('IRQ '):
                kind, num = resp.split()[1:3]
                self.irq_events.append((kind, int(num)))
                continue
            if resp == 'OK' or resp.startswith('OK '):
                return resp[3:]
            raise QemuError('qtest: %r -> %r' % (line[:80], resp))

    def _raw_cmd(self, line):
        """Like cmd() but returns the full status line (for clock_set)."""
        self.ls.send(line.encode() + b'\n')
        self.round_trips += 1
        while True:
            resp = self.ls.readline(self.timeout_s)
            if resp.startswith('IRQ '):
                kind, num = resp.split()[1:3]
                self.irq_events.append((kind, int(num)))
                continue
            return resp

    # port and MMIO accessors
    def outb(self, port, v): self.cmd('outb 0x%x 0x%x' % (port, v))
    def outw(self, port, v): self.cmd('outw 0x%x 0x%x' % (port, v))
    def outl(self, port, v): self.cmd('outl 0x%x 0x%x' % (port, v))
    def inb(self, port): return int(self.cmd('inb 0x%x' % port), 16)
    def inw(self, port): return int(self.cmd('inw 0x%x' % port), 16)
    def inl(self, port): return int(self.cmd('inl 0x%x' % port), 16)
    def writeb(self, a, v): self.cmd('writeb 0x%x 0x%x' % (a, v))
    def writew(self, a, v): self.cmd('writew 0x%x 0x%x' % (a, v))
    def writel(self, a, v): self.cmd('writel 0x%x 0x%x' % (a, v))
    def writeq(self, a, v): self.cmd('writeq 0x%x 0x%x' % (a, v))
    def readb(self, a): return int(self.cmd('readb 0x%x' % a), 16)
    def readw(self, a): return int(self.cmd('readw 0x%x' % a), 16)
    def readl(self, a): return int(self.cmd('readl 0x%x' % a), 16)
    def readq(self, a): return int(self.cmd('readq 0x%x' % a), 16)

    def memread(self, addr, size):
        if size == 0:
            return b''
        return base64.b64decode(self.cmd('b64read 0x%x 0x%x' % (addr, size)))

    def memwrite(self, addr, data):
        if not data:
            return
        self.cmd('b64write 0x%x 0x%x %s'
                 % (addr, len(data), base64.b64encode(data).decode()))

    def memset(self, addr, size, byte=0):
        self.cmd('memset 0x%x 0x%x 0x%x' % (addr, size, byte))

    # virtual clock (QEMU_CLOCK_VIRTUAL; only qtest advances it)
    def _clock_query(self):
        # clock_set to a time in the past changes nothing and reports "now".
        resp = self._raw_cmd('clock_set 0')
        return int(resp.split()[1])

    def clock_step(self, ns=None):
        """Advance by ns, or to the next timer deadline when ns is None.

        Returns the new virtual time, or None when ns is None and no virtual
        timer is pending."""
        if ns is None:
            resp = self._raw_cmd('clock_step')
            if resp.startswith('FAIL cannot advance clock'):
                return None
            if resp.startswith('FAIL could not advance time'):
                # The next deadline is now: a timer due but not yet run.
                return self.now_ns
        else:
            if ns <= 0:
                return self.now_ns
            resp = self._raw_cmd('clock_step %d' % ns)
        if not resp.startswith('OK '):
            raise QemuError('qtest: clock_step -> %r' % resp)
        self.now_ns = int(resp.split()[1])
        return self.now_ns

    def clock_set(self, ns):
        resp = self._raw_cmd('clock_set %d' % ns)
        self.now_ns = int(resp.split()[1])
        return self.now_ns

    def irq_intercept_in(self, qom_path):
        self.cmd('irq_intercept_in %s' % qom_path)


# --------------------------------------------------------------------------
# The QEMU process.

def _descendants(pid):
    """Every process under @pid (children first found, then theirs)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            tasks = os.listdir('/proc/%d/task' % p)
        except OSError:
            continue
        for t in tasks:
            try:
                with open('/proc/%d/task/%s/children' % (p, t)) as f:
                    kids = [int(k) for k in f.read().split()]
            except OSError:
                continue
            out += kids
            todo += kids
    return out


class Machine:
    """A q35 QEMU under qtest.  Use as a context manager, or start()/stop()."""

    def __init__(self, args, qemu=None, timeout_s=DEFAULT_TIMEOUT_S,
                 machine='q35'):
        self.args = list(args)
        self.qemu = qemu or qemu_binary()
        self.timeout_s = timeout_s
        self.machine = machine
        self.proc = None
        self.qtest = None
        self.qmp = None
        self.tmpdir = None
        self.stderr_path = None

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, *exc):
        text = self.stop()
        report = sanitizer_report(text)
        if report and exc_type is None:
            raise QemuError('QEMU printed a sanitizer report:\n' + report)

    def start(self):
        if not os.access(self.qemu, os.X_OK):
            raise QemuError('QEMU binary not found or not executable: %s '
                            '(build it, or set NVMIMIC_QEMU)' % self.qemu)
        self.tmpdir = tempfile.mkdtemp(prefix='nvmeqtest-')
        qtest_path = os.path.join(self.tmpdir, 'qtest.sock')
        qmp_path = os.path.join(self.tmpdir, 'qmp.sock')
        self.stderr_path = os.path.join(self.tmpdir, 'qemu.stderr')

        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(qtest_path)
        listener.listen(1)
        cmdline = ([self.qemu, '-machine', self.machine, '-accel', 'qtest',
                    '-qtest', 'unix:' + qtest_path,
                    '-qmp', 'unix:%s,server=on,wait=off' % qmp_path,
                    '-display', 'none', '-nodefaults',
                    '-qtest-log', '/dev/null']
                   + FIRMWARE_ARGS + self.args)
        self.cmdline = cmdline
        with open(self.stderr_path, 'wb') as err:
            self.proc = subprocess.Popen(cmdline, stdin=subprocess.DEVNULL,
                                         stdout=err, stderr=err)
        try:
            try:
                conn = self._accept(listener)
            finally:
                listener.close()
            self.qtest = QTest(_LineSocket(conn, 'qtest', self._diagnose),
                               self.timeout_s)
            self.qmp = QMP(_LineSocket(self._connect(qmp_path), 'QMP',
                                       self._diagnose), self.timeout_s)
        except QemuError:
            self.stop()
            raise
        except OSError as e:
            msg = 'QEMU start-up failed (%s)' % e + self._diagnose(True)
            self.stop()
            raise QemuError(msg) from None
        return self

    def _accept(self, listener):
        deadline = time.monotonic() + self.timeout_s
        listener.settimeout(0.1)
        while True:
            try:
                conn, _ = listener.accept()
                return conn
            except socket.timeout:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise QemuError('QEMU did not connect to qtest'
                                + self._diagnose(True))

    def _connect(self, path):
        deadline = time.monotonic() + self.timeout_s
        while True:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(path)
                return s
            except OSError:
                s.close()
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise QemuError('QMP socket never came up'
                                + self._diagnose(True))
            time.sleep(0.01)

    def stderr(self):
        """What QEMU wrote to stdout/stderr so far."""
        try:
            with open(self.stderr_path, 'r', errors='replace') as f:
                return f.read()
        except (OSError, TypeError):
            return ''

    def _diagnose(self, wait_exit):
        rc = self.proc.poll() if self.proc else None
        if rc is None and wait_exit and self.proc:
            try:
                rc = self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                rc = None
        state = 'still running' if rc is None else 'exit status %d' % rc
        return '\n  QEMU %s; command line: %s\n  QEMU stderr:\n%s' % (
            state, ' '.join(self.cmdline), self.stderr() or '  (empty)')

    def kill(self):
        """SIGKILL QEMU and every process under the one started (a wrapper
        such as strace -f would otherwise leave its QEMU running, detached,
        when only the wrapper is killed); idempotent."""
        if not self.proc or self.proc.poll() is not None:
            return
        tree = _descendants(self.proc.pid)
        for pid in [self.proc.pid] + tree:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def stop(self):
        """Kill QEMU and return its stderr; idempotent."""
        for conn in (self.qtest and self.qtest.ls, self.qmp and self.qmp.ls):
            if conn:
                conn.close()
        self.qtest = self.qmp = None
        text = ''
        if self.proc:
            self.kill()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            text = self.stderr()
            self.last_exit = self.proc.returncode
            self.proc = None
        if self.tmpdir:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            self.tmpdir = None
        return text

    def alive(self):
        return self.proc is not None and self.proc.poll() is None


def null_drive_args(size_bytes, drive_id='d'):
    """-drive for a null-co backend: no data, any capacity, no host I/O."""
    return ['-drive', 'if=none,id=%s,driver=null-co,size=%d'
            % (drive_id, size_bytes)]


def raw_drive_args(path, drive_id='d'):
    return ['-drive', 'if=none,id=%s,format=raw,file=%s' % (drive_id, path)]


def nvme_device_args(drive_id='d', serial='nvmeqtest', addr='04.0',
                     device='nvme', **props):
    """-device for an NVMe controller; props become ',key=value' as given
    (QEMU spells some with '-': pass those as **{'use-intel-id': 'on'})."""
    opts = ''.join(',%s=%s' % (k, v) for k, v in props.items())
    return ['-device', '%s,drive=%s,serial=%s,addr=%s%s'
            % (device, drive_id, serial, addr, opts)]


# --------------------------------------------------------------------------
# Guest memory allocator.

class GuestAlloc:
    """Bump allocator over guest RAM; mark()/release() free in LIFO order."""

    def __init__(self, base=GUEST_ALLOC_BASE, end=GUEST_ALLOC_END):
        self.base = base
        self.end = end
        self.top = base

    def alloc(self, size, align=PAGE):
        addr = (self.top + align - 1) & ~(align - 1)
        if addr + size > self.end:
            raise NvmeError('guest allocator exhausted (%d bytes asked)' % size)
        self.top = addr + size
        return addr

    def mark(self):
        return self.top

    def release(self, mark):
        self.top = mark


# --------------------------------------------------------------------------
# NVMe definitions.

REG_CAP, REG_VS, REG_INTMS, REG_INTMC = 0x00, 0x08, 0x0c, 0x10
REG_CC, REG_CSTS, REG_AQA, REG_ASQ, REG_ACQ = 0x14, 0x1c, 0x24, 0x28, 0x30

ADM_DELETE_SQ, ADM_CREATE_SQ, ADM_GET_LOG_PAGE = 0x00, 0x01, 0x02
ADM_DELETE_CQ, ADM_CREATE_CQ, ADM_IDENTIFY = 0x04, 0x05, 0x06
ADM_ABORT, ADM_SET_FEATURES, ADM_GET_FEATURES = 0x08, 0x09, 0x0a
ADM_ASYNC_EVENT, ADM_DBBUF_CONFIG = 0x0c, 0x7c

IO_FLUSH, IO_WRITE, IO_READ = 0x00, 0x01, 0x02
IO_WRITE_ZEROES, IO_DSM = 0x08, 0x09

# Status: (SCT << 8) | SC, without the DNR/More bits.
SC_SUCCESS = 0x000
SC_INVALID_OPCODE = 0x001
SC_INVALID_FIELD = 0x002
SC_DATA_TRANSFER_ERROR = 0x004
SC_ABORT_SQ_DELETED = 0x008
SC_INVALID_NSID = 0x00b
SC_LBA_OUT_OF_RANGE = 0x080
SC_AER_LIMIT_EXCEEDED = 0x105

SQE_SIZE, CQE_SIZE = 64, 16


class Cmd:
    """One submission queue entry, plus the host buffer it transfers."""

    def __init__(self, opcode, nsid=0, cdw10=0, cdw11=0, cdw12=0, cdw13=0,
                 cdw14=0, cdw15=0, prp1=0, prp2=0, data=None, buf=0,
                 buf_len=0, psdt=0, fuse=0):
        self.opcode = opcode
        # PRP or SGL for Data Transfer (CDW0 bits 15:14): 0 PRPs, 1 SGL
        # (prp1/prp2 then hold the first SGL descriptor)
        self.psdt = psdt
        # Fused Operation (CDW0 bits 9:8): 1 first, 2 second command
        self.fuse = fuse
        self.nsid = nsid
        self.cdw = [cdw10, cdw11, cdw12, cdw13, cdw14, cdw15]
        self.prp1, self.prp2 = prp1, prp2
        self.data = data          # bytes copied into buf before submission
        self.buf, self.buf_len = buf, buf_len
        self.cid = None

    def encode(self, cid):
        self.cid = cid
        return struct.pack('<IIQQQQ6I',
                           self.opcode | (self.fuse << 8) |
                           (self.psdt << 14) | (cid << 16),
                           self.nsid,
                           0, 0, self.prp1, self.prp2, *self.cdw)

    def __repr__(self):
        return 'Cmd(op=0x%02x cid=%s nsid=%d cdw10=0x%x)' % (
            self.opcode, self.cid, self.nsid, self.cdw[0])


class Completion:
    """A completion queue entry and, when timed, its virtual times (ns)."""

    def __init__(self, raw, submit_ns=None, complete_ns=None):
        dw0, _, dw2, dw3 = struct.unpack('<4I', raw)
        self.result = dw0
        self.sqhd = dw2 & 0xffff
        self.sqid = dw2 >> 16
        self.cid = dw3 & 0xffff
        sf = dw3 >> 17
        self.status = sf & 0x7ff          # (SCT << 8) | SC
        self.more = bool(sf & 0x2000)
        self.dnr = bool(sf & 0x4000)
        self.submit_ns = submit_ns
        self.complete_ns = complete_ns

    @property
    def ok(self):
        return self.status == SC_SUCCESS

    @property
    def latency_ns(self):
        return self.complete_ns - self.submit_ns

    def __repr__(self):
        return ('Completion(cid=%d sqid=%d status=0x%03x dnr=%d result=0x%x '
                'submit=%s complete=%s)' % (self.cid, self.sqid, self.status,
                                            self.dnr, self.result,
                                            self.submit_ns, self.complete_ns))


class _Queue:
    def __init__(self, qid, entries, sq_addr, cq_addr, db_sq, db_cq):
        self.qid = qid
        self.entries = entries
        self.sq_addr, self.cq_addr = sq_addr, cq_addr
        self.db_sq, self.db_cq = db_sq, db_cq
        self.sq_tail = 0
        self.cq_head = 0
        self.phase = 1
        self.next_cid = 0
        self.outstanding = {}     # cid -> Cmd
        self.completed = {}       # cid -> Completion not yet claimed by wait()

    def alloc_cid(self):
        for _ in range(0x10000):
            cid = self.next_cid
            self.next_cid = (self.next_cid + 1) & 0xffff
            if cid not in self.outstanding and cid not in self.completed:
                return cid
        raise NvmeError('queue %d: no free command id' % self.qid)

    def free_slots(self):
        # One slot stays empty: a full SQ has tail + 1 == head.
        return self.entries - 1 - len(self.outstanding)


def _pstr(raw):
    return raw.decode('ascii', 'replace').rstrip(' \0')


class NvmeController:
    """A polled NVMe host driver for one controller, over qtest.

    Interrupts are never used: completion queues are polled, I/O CQs are
    created with interrupts disabled.  All times are QEMU_CLOCK_VIRTUAL ns.
    """

    PCI_CLASS_NVME = 0x010802

    def __init__(self, machine, devfn=None, bar0=0xfe000000, alloc=None,
                 timeout_s=DEFAULT_TIMEOUT_S, settle_polls=4,
                 max_virtual_ns=60 * 10**9):
        self.m = machine
        self.qt = machine.qtest
        self.timeout_s = timeout_s
        # Unchanged CQ reads before virtual time is stepped, so host-side
        # work (bottom halves, block I/O) finishes at the current virtual
        # time.  Every qtest round trip makes QEMU's main loop iterate at
        # least once; stock hw/nvme on null-co needs a chain of three bottom
        # halves (SQ, block completion, CQ) and was seen to need up to two
        # empty reads under host load, hence 4.  A device that posts CQEs from
        # its virtual-clock timer callbacks needs fewer: lower it for speed.
        self.settle_polls = settle_polls
        # wait() gives up when this much virtual time passes without the
        # awaited completions (periodic machine timers keep deadlines coming).
        self.max_virtual_ns = max_virtual_ns
        self.alloc = alloc or GuestAlloc()
        self.devfn = self._find(devfn)
        self.bar0 = bar0
        self._pci_setup()
        self.cap = self.qt.readq(bar0 + REG_CAP)
        self.mqes = (self.cap & 0xffff) + 1
        self.dstrd = (self.cap >> 32) & 0xf
        self.to_ms = ((self.cap >> 24) & 0xff) * 500
        self.queues = {}
        self.admin = None
        self.nsze = {}
        self.lba_bytes = {}
        self.dbbuf = None         # (shadow doorbells, event indexes)

    @classmethod
    def open(cls, machine, io_queues=1, io_entries=256, **kw):
        """Enabled controller with io_queues polled queue pairs (qid 1..n)
        and namespace 1 identified: ready for read_cmd()/submit_and_time()."""
        ctrl = cls(machine, **kw).enable()
        for qid in range(1, io_queues + 1):
            ctrl.create_io_queue_pair(qid, io_entries)
        ctrl.identify_namespace(1)
        return ctrl

    # ---- PCI ------------------------------------------------------------
    def pci_cfg_read(self, offset, devfn=None):
        devfn = self.devfn if devfn is None else devfn
        self.qt.outl(0xcf8, 0x80000000 | (devfn << 8) | (offset & 0xfc))
        return self.qt.inl(0xcfc)

    def pci_cfg_write(self, offset, value, devfn=None):
        devfn = self.devfn if devfn is None else devfn
        self.qt.outl(0xcf8, 0x80000000 | (devfn << 8) | (offset & 0xfc))
        self.qt.outl(0xcfc, value)

    def _find(self, devfn):
        candidates = [devfn] if devfn is not None else range(256)
        for d in candidates:
            if self.pci_cfg_read(0, d) & 0xffff == 0xffff:
                continue
            if self.pci_cfg_read(8, d) >> 8 == self.PCI_CLASS_NVME:
                return d
        raise NvmeError('no NVMe controller on PCI bus 0')

    def _pci_setup(self):
        self.pci_cfg_write(0x10, self.bar0 & 0xffffffff)
        self.pci_cfg_write(0x14, self.bar0 >> 32)
        bar = self.pci_cfg_read(0x10) & ~0xf
        if bar != self.bar0 & 0xffffffff:
            raise NvmeError('BAR0 did not take 0x%x (reads 0x%x)'
                            % (self.bar0, bar))
        cmd = self.pci_cfg_read(0x04) & 0xffff
        self.pci_cfg_write(0x04, cmd | 0x0006)    # memory space, bus master

    # ---- registers -----------------------------------------------------
    def reg32(self, off):
        return self.qt.readl(self.bar0 + off)

    def reg64(self, off):
        return self.qt.readq(self.bar0 + off)

    def set_reg32(self, off, v):
        self.qt.writel(self.bar0 + off, v)

    def set_reg64(self, off, v):
        self.qt.writeq(self.bar0 + off, v)

    def _doorbell(self, qid, cq):
        return self.bar0 + 0x1000 + (2 * qid + (1 if cq else 0)) * (4 << self.dstrd)

    def _shadow(self, qid, cq, value):
        """With shadow doorbells, the controller reads this copy."""
        if self.dbbuf:
            off = (2 * qid + (1 if cq else 0)) * (4 << self.dstrd)
            self.qt.memwrite(self.dbbuf[0] + off, struct.pack('<I', value))

    def enable_shadow_doorbells(self):
        """Doorbell Buffer Config (NVMe 1.3): the controller reads each
        doorbell from a page of guest memory; the MMIO doorbell write only
        tells it to look (QEMU's nvme takes it through an ioeventfd when
        ioeventfd=on).  The driver still rings every doorbell."""
        dbs = self.alloc.alloc(PAGE)
        eis = self.alloc.alloc(PAGE)
        self.qt.memset(dbs, PAGE, 0)
        self.qt.memset(eis, PAGE, 0)
        for q in self.queues.values():
            off = 2 * q.qid * (4 << self.dstrd)
            self.qt.memwrite(dbs + off, struct.pack('<I', q.sq_tail))
            self.qt.memwrite(dbs + off + (4 << self.dstrd),
                             struct.pack('<I', q.cq_head))
        self._check(self.admin_cmd(Cmd(ADM_DBBUF_CONFIG, prp1=dbs,
                                       prp2=eis)), 'Doorbell Buffer Config')
        self.dbbuf = (dbs, eis)

    def _wait_rdy(self, want):
        deadline = time.monotonic() + self.timeout_s
        while True:
            csts = self.reg32(REG_CSTS)
            if csts & 2:
                raise NvmeError('CSTS.CFS set (0x%x)' % csts)
            if csts & 1 == want:
                return csts
            if time.monotonic() > deadline:
                raise NvmeError('CSTS.RDY never became %d (CSTS 0x%x)'
                                % (want, csts))
            self.qt.clock_step(1000000)

    def disable(self):
        """CC.EN=0 (controller reset); waits for CSTS.RDY=0."""
        self.set_reg32(REG_CC, self.reg32(REG_CC) & ~1)
        self._wait_rdy(0)
        self.queues = {}
        self.admin = None
        self.dbbuf = None

    def enable(self, admin_entries=64):
        """Reset if needed, set up the admin queue pair, CC.EN=1."""
        if self.reg32(REG_CC) & 1:
            self.disable()
        sq = self.alloc.alloc(admin_entries * SQE_SIZE)
        cq = self.alloc.alloc(admin_entries * CQE_SIZE)
        self.qt.memset(cq, admin_entries * CQE_SIZE, 0)
        self.aqa = ((admin_entries - 1) << 16) | (admin_entries - 1)
        self.set_reg32(REG_AQA, self.aqa)
        self.set_reg64(REG_ASQ, sq)
        self.set_reg64(REG_ACQ, cq)
        # CSS=NVM, MPS=4 KiB, AMS=RR, IOSQES=6, IOCQES=4
        self.set_reg32(REG_CC, (6 << 16) | (4 << 20) | 1)
        self._wait_rdy(1)
        self.admin = _Queue(0, admin_entries, sq, cq,
                            self._doorbell(0, False), self._doorbell(0, True))
        self.queues = {0: self.admin}
        return self

    # ---- submission and completion ----------------------------------------
    def _prepare(self, q, cmds):
        """Allocate cids, copy write data; return the encoded SQEs."""
        if len(cmds) > q.free_slots():
            raise NvmeError('queue %d: %d commands, %d free slots'
                            % (q.qid, len(cmds), q.free_slots()))
        blobs = []
        for c in cmds:
            if c.data is not None:
                self.qt.memwrite(c.buf, c.data)
            cid = q.alloc_cid()
            q.outstanding[cid] = c
            blobs.append(c.encode(cid))
        return blobs

    def submit(self, cmds, qid=1):
        """Write the SQEs with one memory write (two on wrap), ring once."""
        q = self.queues[qid]
        blobs = self._prepare(q, cmds)
        i = 0
        while i < len(blobs):
            n = min(len(blobs) - i, q.entries - q.sq_tail)
            self.qt.memwrite(q.sq_addr + q.sq_tail * SQE_SIZE,
                             b''.join(blobs[i:i + n]))
            q.sq_tail = (q.sq_tail + n) % q.entries
            i += n
        submit_ns = self.qt.now_ns
        self._shadow(q.qid, False, q.sq_tail)
        self.qt.writel(q.db_sq, q.sq_tail)
        return submit_ns

    def poll(self, qid=1, max_entries=None):
        """Read the CQ once (one slice, two on wrap); return new entries.

        Consumed entries are acknowledged with one CQ head doorbell write and
        kept in the queue's completed map until wait() or take() claims them."""
        q = self.queues[qid]
        want = len(q.outstanding) if max_entries is None else max_entries
        want = min(want, q.entries)
        if want == 0:
            return []
        found = []
        while want > 0:
            n = min(want, q.entries - q.cq_head)
            raw = self.qt.memread(q.cq_addr + q.cq_head * CQE_SIZE,
                                  n * CQE_SIZE)
            got = 0
            for k in range(n):
                e = raw[k * CQE_SIZE:(k + 1) * CQE_SIZE]
                if (e[14] & 1) != q.phase:
                    break
                found.append(Completion(e, complete_ns=self.qt.now_ns))
                got += 1
            q.cq_head += got
            want -= got
            if q.cq_head == q.entries:
                q.cq_head = 0
                q.phase ^= 1
            if got < n:
                break
        if found:
            self._shadow(qid, True, q.cq_head)
            self.qt.writel(q.db_cq, q.cq_head)
            for c in found:
                cmd = q.outstanding.pop(c.cid, None)
                if cmd is None:
                    raise NvmeError('queue %d: completion for unknown cid %d'
                                    % (qid, c.cid))
                c.cmd = cmd
                q.completed[c.cid] = c
        return found

    def wait(self, cids, qid=1, step=True, timeout_s=None,
             max_virtual_ns=None):
        """Poll until every cid in cids has completed; return {cid: Completion}.

        After settle_polls unchanged polls, virtual time is stepped to the
        next timer deadline (when step is True), so each Completion's
        complete_ns is the first virtual time at which its CQE was seen.
        Gives up after timeout_s of host time or max_virtual_ns of virtual
        time (default self.max_virtual_ns) from the call."""
        q = self.queues[qid]
        vlimit = self.qt.now_ns + (max_virtual_ns or self.max_virtual_ns)
        pending = set(cids)
        done = {}
        for cid in cids:
            if cid in q.completed:
                done[cid] = q.completed.pop(cid)
                pending.discard(cid)
        deadline = time.monotonic() + (timeout_s or self.timeout_s)
        idle = 0
        while pending:
            new = self.poll(qid)
            for c in new:
                if c.cid in pending:
                    done[c.cid] = q.completed.pop(c.cid)
                    pending.discard(c.cid)
            if new:
                idle = 0
                continue
            idle += 1
            if time.monotonic() > deadline or self.qt.now_ns > vlimit:
                raise NvmeError('queue %d: %d commands (cids %s) not completed'
                                ' within %.0f s host / %d ns virtual time'
                                ' (virtual time now %d ns)%s'
                                % (qid, len(pending), sorted(pending)[:8],
                                   timeout_s or self.timeout_s,
                                   max_virtual_ns or self.max_virtual_ns,
                                   self.qt.now_ns, self._state()))
            if idle >= self.settle_polls:
                before = self.qt.now_ns
                if not step or self.qt.clock_step() in (None, before):
                    time.sleep(0.0005)
                idle = 0
        return done

    def take(self, qid=1):
        """Claim every completion polled but not waited for (e.g. AERs)."""
        q = self.queues[qid]
        out = sorted(q.completed.values(), key=lambda c: c.complete_ns)
        q.completed = {}
        return out

    def _state(self):
        try:
            return '; CSTS 0x%x' % self.reg32(REG_CSTS)
        except QemuError as e:
            return '; ' + str(e)

    def submit_and_time(self, cmds, qid=1, timeout_s=None,
                        max_virtual_ns=None):
        """Submit cmds as one batch at the current virtual time; return a
        Completion per command, in order, each with submit_ns/complete_ns."""
        submit_ns = self.submit(cmds, qid)
        cids = [c.cid for c in cmds]
        done = self.wait(cids, qid, timeout_s=timeout_s,
                         max_virtual_ns=max_virtual_ns)
        out = []
        for cid in cids:
            c = done[cid]
            c.submit_ns = submit_ns
            out.append(c)
        return out

    def execute(self, cmd, qid=1, timeout_s=None):
        """Submit one command and wait for it; returns its Completion."""
        return self.submit_and_time([cmd], qid, timeout_s)[0]

    def latency_ns(self, cmd, qid=1):
        """Virtual-time latency of one command submitted alone (QD1).

        Raises NvmeError when the command fails."""
        c = self.execute(cmd, qid)
        if not c.ok:
            raise NvmeError('%r failed: status 0x%03x' % (cmd, c.status))
        return c.latency_ns

    def admin_cmd(self, cmd, timeout_s=None):
        return self.execute(cmd, qid=0, timeout_s=timeout_s)

    def _check(self, c, what):
        if not c.ok:
            raise NvmeError('%s failed: status 0x%03x' % (what, c.status))
        return c

    # ---- PRPs ---------------------------------------------------------------
    def prps(self, buf, size):
        """PRP1/PRP2 for a page-aligned-or-not buffer, building a PRP list
        in guest memory when more than two pages are spanned."""
        first = PAGE - (buf % PAGE)
        if size <= first:
            return buf, 0
        rest = buf + first
        if size <= first + PAGE:
            return buf, rest
        npages = (size - first + PAGE - 1) // PAGE
        # One PRP list page holds 511 entries plus a chain pointer; chain.
        pages = [rest + i * PAGE for i in range(npages)]
        per_list = PAGE // 8
        lists = []
        while pages:
            if len(pages) <= per_list:
                lists.append(pages)
                pages = []
            else:
                lists.append(pages[:per_list - 1])
                pages = pages[per_list - 1:]
        addrs = [self.alloc.alloc(PAGE) for _ in lists]
        for i, entries in enumerate(lists):
            chain = [addrs[i + 1]] if i + 1 < len(lists) else []
            self.qt.memwrite(addrs[i], struct.pack('<%dQ' % (len(entries) + len(chain)),
                                                   *(entries + chain)))
        return buf, addrs[0]

    def buffer(self, size):
        """A page-aligned guest buffer and its PRPs."""
        buf = self.alloc.alloc(max(size, 1))
        p1, p2 = self.prps(buf, size)
        return buf, p1, p2

    # ---- admin commands -----------------------------------------------------
    def identify(self, cns, nsid=0, cntid=0):
        buf, p1, p2 = self.buffer(PAGE)
        c = self._check(self.admin_cmd(Cmd(ADM_IDENTIFY, nsid=nsid,
                                           cdw10=cns | (cntid << 16),
                                           prp1=p1, prp2=p2)),
                        'Identify CNS %d' % cns)
        return self.qt.memread(buf, PAGE)

    def identify_controller(self):
        raw = self.identify(1)
        vid, ssvid = struct.unpack_from('<HH', raw, 0)
        return {
            'raw': raw, 'vid': vid, 'ssvid': ssvid,
            'sn': _pstr(raw[4:24]), 'mn': _pstr(raw[24:64]),
            'fr': _pstr(raw[64:72]), 'mdts': raw[77],
            'ver': struct.unpack_from('<I', raw, 80)[0],
            'aerl': raw[259], 'npss': raw[263],
            'sqes': raw[512], 'cqes': raw[513],
            'nn': struct.unpack_from('<I', raw, 516)[0],
            'oncs': struct.unpack_from('<H', raw, 520)[0],
            'vwc': raw[525],
        }

    def identify_namespace(self, nsid=1):
        raw = self.identify(0, nsid=nsid)
        nsze, ncap, nuse = struct.unpack_from('<QQQ', raw, 0)
        flbas = raw[26] & 0xf
        lbaf = struct.unpack_from('<I', raw, 128 + 4 * flbas)[0]
        lbads = (lbaf >> 16) & 0xff
        self.nsze[nsid] = nsze
        self.lba_bytes[nsid] = 1 << lbads
        return {'raw': raw, 'nsze': nsze, 'ncap': ncap, 'nuse': nuse,
                'flbas': flbas, 'lba_bytes': 1 << lbads}

    def get_features(self, fid, cdw11=0, nsid=0, sel=0):
        """Returns the Completion (result in .result)."""
        return self.admin_cmd(Cmd(ADM_GET_FEATURES, nsid=nsid,
                                  cdw10=fid | (sel << 8), cdw11=cdw11))

    def set_features(self, fid, cdw11, nsid=0, save=False):
        return self.admin_cmd(Cmd(ADM_SET_FEATURES, nsid=nsid,
                                  cdw10=fid | (int(save) << 31), cdw11=cdw11))

    def get_log_page(self, lid, size, nsid=0xffffffff, offset=0):
        buf, p1, p2 = self.buffer(size)
        numd = size // 4 - 1
        self._check(self.admin_cmd(Cmd(ADM_GET_LOG_PAGE, nsid=nsid,
                                       cdw10=lid | ((numd & 0xffff) << 16),
                                       cdw11=numd >> 16,
                                       cdw12=offset & 0xffffffff,
                                       cdw13=offset >> 32,
                                       prp1=p1, prp2=p2)),
                    'Get Log Page 0x%02x' % lid)
        return self.qt.memread(buf, size)

    def create_io_queue_pair(self, qid=1, entries=256, cq_addr=None,
                             iv=None):
        """Create a polled (interrupts off) CQ and its SQ with this qid.

        cq_addr puts the CQ at that guest-physical address instead of a
        fresh buffer (e.g. on a device's registers, to test DMA aimed at
        them); such a CQ is left as it is and cannot be poll()ed.  iv turns
        the CQ's interrupts on, with that MSI-X vector (the CQ is still
        polled)."""
        if entries > self.mqes:
            raise NvmeError('%d entries > CAP.MQES+1 = %d' % (entries, self.mqes))
        if cq_addr is None:
            cq = self.alloc.alloc(entries * CQE_SIZE)
            self.qt.memset(cq, entries * CQE_SIZE, 0)
        else:
            cq = cq_addr
        sq = self.alloc.alloc(entries * SQE_SIZE)
        self._check(self.admin_cmd(Cmd(ADM_CREATE_CQ, prp1=cq,
                                       cdw10=((entries - 1) << 16) | qid,
                                       cdw11=1 if iv is None
                                       else (iv << 16) | 3)),
                    'Create I/O CQ %d' % qid)
        self._check(self.admin_cmd(Cmd(ADM_CREATE_SQ, prp1=sq,
                                       cdw10=((entries - 1) << 16) | qid,
                                       cdw11=(qid << 16) | 1)),
                    'Create I/O SQ %d' % qid)
        self.queues[qid] = _Queue(qid, entries, sq, cq,
                                  self._doorbell(qid, False),
                                  self._doorbell(qid, True))
        return self.queues[qid]

    def delete_io_queue_pair(self, qid):
        self._check(self.admin_cmd(Cmd(ADM_DELETE_SQ, cdw10=qid)),
                    'Delete I/O SQ %d' % qid)
        self._check(self.admin_cmd(Cmd(ADM_DELETE_CQ, cdw10=qid)),
                    'Delete I/O CQ %d' % qid)
        del self.queues[qid]

    # ---- I/O command builders -------------------------------------------------
    def _lba_bytes(self, nsid):
        if nsid not in self.lba_bytes:
            self.identify_namespace(nsid)
        return self.lba_bytes[nsid]

    def read_cmd(self, slba, nlb, nsid=1, buf=None):
        """Read nlb blocks at slba into buf (allocated when None)."""
        size = nlb * self._lba_bytes(nsid)
        if buf is None:
            buf = self.alloc.alloc(size)
        p1, p2 = self.prps(buf, size)
        return Cmd(IO_READ, nsid=nsid, cdw10=slba & 0xffffffff,
                   cdw11=slba >> 32, cdw12=nlb - 1, prp1=p1, prp2=p2,
                   buf=buf, buf_len=size)

    def write_cmd(self, slba, data, nsid=1, buf=None):
        """Write data (a whole number of blocks) at slba."""
        lb = self._lba_bytes(nsid)
        if len(data) % lb:
            raise ValueError('write of %d bytes is not a multiple of %d'
                             % (len(data), lb))
        if buf is None:
            buf = self.alloc.alloc(len(data))
        p1, p2 = self.prps(buf, len(data))
        return Cmd(IO_WRITE, nsid=nsid, cdw10=slba & 0xffffffff,
                   cdw11=slba >> 32, cdw12=len(data) // lb - 1,
                   prp1=p1, prp2=p2, data=data, buf=buf, buf_len=len(data))

    def flush_cmd(self, nsid=1):
        return Cmd(IO_FLUSH, nsid=nsid)

    def write_zeroes_cmd(self, slba, nlb, nsid=1):
        return Cmd(IO_WRITE_ZEROES, nsid=nsid, cdw10=slba & 0xffffffff,
                   cdw11=slba >> 32, cdw12=nlb - 1)

    def deallocate_cmd(self, ranges, nsid=1):
        """DSM with AD=1; ranges is a list of (slba, nlb)."""
        payload = b''.join(struct.pack('<IIQ', 0, nlb, slba)
                           for slba, nlb in ranges)
        buf = self.alloc.alloc(len(payload))
        return Cmd(IO_DSM, nsid=nsid, cdw10=len(ranges) - 1, cdw11=1 << 2,
                   prp1=buf, data=payload, buf=buf, buf_len=len(payload))

    def read_data(self, cmd):
        """The bytes a completed read command transferred."""
        return self.qt.memread(cmd.buf, cmd.buf_len)

# SPDX-License-Identifier: GPL-2.0-or-later
"""nvmimic's QMP client in Python (stdlib only): the one the tests
(tests/device/nvmeqtest.py) and the guest tools (qmp-stats.py) share.  The C
one is harness/run/qmp.c.

  LineSocket  a socket read line by line, every read with a deadline
  QMP         QMP over a LineSocket: the greeting, capabilities
              negotiation, commands (with a file descriptor to pass), and
              events set aside until asked for
"""

import json
import socket
import time

DEFAULT_TIMEOUT_S = 30.0


class QemuError(Exception):
    """QEMU died, refused a command, or did not answer in time."""


class LineSocket:
    """A connected socket read line by line.  @on_eof(closed) adds to the
    message of a connection that closed (True) or timed out (False)."""

    def __init__(self, sock, name, on_eof=lambda closed: ''):
        self.sock = sock
        self.name = name
        self.on_eof = on_eof
        self.buf = b''
        # One receive buffer for the socket's life: recv(n) would allocate
        # n bytes per call, and under MALLOC_PERTURB_ (meson test sets it)
        # glibc fills each such block, so a 1 MiB recv() per reply made a
        # test of 4,096 writes take minutes instead of seconds.
        self.rbuf = bytearray(1 << 20)
        self.rview = memoryview(self.rbuf)

    def send(self, data):
        self.sock.sendall(data)

    def readline(self, timeout_s):
        deadline = time.monotonic() + timeout_s
        while True:
            nl = self.buf.find(b'\n')
            if nl >= 0:
                line, self.buf = self.buf[:nl], self.buf[nl + 1:]
                return line.decode('utf-8', 'replace')
            left = deadline - time.monotonic()
            if left <= 0:
                raise QemuError('%s: no answer from QEMU within %.0f s'
                                % (self.name, timeout_s) + self.on_eof(False))
            self.sock.settimeout(left)
            try:
                n = self.sock.recv_into(self.rbuf)
            except socket.timeout:
                continue
            except ConnectionError:
                n = 0
            if not n:
                raise QemuError('%s: QEMU closed the connection'
                                % self.name + self.on_eof(True))
            self.buf += self.rview[:n]      # one copy, into buf

    def close(self):
        self.sock.close()


class QMP:
    """A QMP session on @lsock (a LineSocket): reads the greeting and
    leaves capabilities negotiation."""

    def __init__(self, lsock, timeout_s=DEFAULT_TIMEOUT_S):
        self.ls = lsock
        self.timeout_s = timeout_s
        self.events = []
        self.greeting = json.loads(self.ls.readline(timeout_s))
        if 'QMP' not in self.greeting:
            raise QemuError('QMP: unexpected greeting %r' % self.greeting)
        self.execute('qmp_capabilities')

    @classmethod
    def connect(cls, path, timeout_s=DEFAULT_TIMEOUT_S, alive=None):
        """QMP on the unix socket @path, tried until @timeout_s has passed
        (QEMU creates it as it starts) or @alive() says QEMU is gone."""
        deadline = time.monotonic() + timeout_s
        while True:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(path)
                break
            except OSError:
                s.close()
            if (alive and not alive()) or time.monotonic() > deadline:
                raise QemuError('QMP: cannot connect to %s' % path)
            time.sleep(0.01)
        return cls(LineSocket(s, 'QMP'), timeout_s)

    def execute(self, command, fd=None, **arguments):
        """Run a QMP command; return its 'return' value, raise on 'error'.
        fd is a file descriptor to pass along (SCM_RIGHTS), for getfd and
        add-fd."""
        msg = {'execute': command}
        if arguments:
            msg['arguments'] = arguments
        data = json.dumps(msg).encode() + b'\n'
        if fd is None:
            self.ls.send(data)
        else:
            socket.send_fds(self.ls.sock, [data], [fd])
        while True:
            resp = json.loads(self.ls.readline(self.timeout_s))
            if 'event' in resp:
                self.events.append(resp)
                continue
            if 'error' in resp:
                raise QemuError('QMP %s: %s: %s' % (
                    command, resp['error'].get('class'),
                    resp['error'].get('desc')))
            return resp.get('return')

    def wait_event(self, name, timeout_s=None):
        """The first event @name, from those set aside or the next ones
        within @timeout_s (default: the session's)."""
        for i, ev in enumerate(self.events):
            if ev.get('event') == name:
                return self.events.pop(i)
        deadline = time.monotonic() + (timeout_s or self.timeout_s)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise QemuError('QMP: no %s event within %.0f s'
                                % (name, timeout_s or self.timeout_s))
            resp = json.loads(self.ls.readline(left))
            if resp.get('event') == name:
                return resp
            if 'event' in resp:
                self.events.append(resp)

    def close(self):
        self.ls.close()

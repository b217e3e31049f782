#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qtest checks of the device as host attack surface and as a keeper of
data: what profile= reads and says, the write cache a drive without one
must not have, and the command and lifecycle paths the other tests do not
take (SGL deallocate, device_del with completions held, ioeventfd).

Run one:  python3 tests/device/test_hardening_nvme.py HardeningNvme.test_NAME
"""

import os
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_profile_nvme  # noqa: E402
from test_profile_nvme import (  # noqa: E402
    ProfileTest, Profile, RAW_PROFILE, null_drive, profile_device,
    _replace_key)

FID_VWC = 0x06


class HardeningNvme(ProfileTest):

    # QEMU must exit at once, with one line naming the problem
    refused = test_profile_nvme.ProfileNvme.refused

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.TemporaryDirectory(prefix='nvmimic-hard-')
        self.addCleanup(self.tmp.cleanup)

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def derived_profile(self, name, **keys):
        """A copy of RAW_PROFILE with some keys changed, as NAME.ini."""
        with open(Profile(RAW_PROFILE).path) as f:
            text = f.read()
        for k, v in keys.items():
            text = _replace_key(text, k, v)
        path = self.path(name + '.ini')
        with open(path, 'w') as f:
            f.write(text)
        return path

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


if __name__ == '__main__':
    unittest.main(verbosity=2)

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Crash consistency: ext4 with fsync survives a power cut at a random
instant, in simulated time.

usage: crash_consistency.py QEMU GUEST_DIR PROFILE_DIR PROFILE
           [--seeds 1,2,3] [--repeat 1] [--controls fsync-off,false-plp]
           [--keep DIR]

For each seed, a boot of the initramfs guest (vm-images/) under
-icount shift=0,sleep=off on its own raw disk, an ext4 made on the host:
the writer mounts the filesystem, sends the in-band mark 1, then appends
numbered records to a file, each followed by fsync (busybox sync -d), and
prints "nvmimic-committed: N" on the console once fsync returned.  The
host queued "nvmimic-fault power-cut at-mark=1 delay-ns=D machine=on" with
D drawn from the seed: the whole machine loses power D ns after the mark
(QEMU exits), and the drive loses what it had not made durable.  Then one
boot of the checker, with every run's disk attached (up to 8 a boot, told
apart by their serial numbers), mounts each (ext4 replays its journal) and
prints its records.

A seed passes when every record the writer reported committed is there,
whole, in order.  A seed's run repeated (--repeat: the first N seeds) must
give the same outcome bit for bit: the same disk after the cut (sha256),
from which the recovery follows.  The writer's console is not part of it:
the cut falls at the same virtual instant, but the guest runs on for a few
host-timed instructions until QEMU acts on it, so the last "committed" line
may or may not reach the console (seed 10 of make check-crash: 165 lines
once and 164 the next time, over the same disk holding 165 records).

The controls must lose committed records, or the check could not fail (a
control that lost nothing is cut again at the seed's next delays, up to
CONTROL_TRIES cuts):
- fsync-off: the writer reports a record committed without fsync;
- false-plp: the profile reports no volatile write cache (so Linux sends
  neither Flush nor FUA) but the cut loses the drive's buffer anyway
  (power-cut volatile=on): a drive claiming power-loss protection it lacks.

Prints one JSON line per run and a summary; exits 1 on a failure.
"""

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', 'vm-images'))
import nvmimic_qmp  # noqa: E402  (nvmimic's one Python QMP client)

MB = 1 << 20
FS_BYTES = 256 * MB             # the filesystem: the start of the drive
RECORDS = 2000                  # more than any cut lets the writer reach
DELAY_NS = (20 * 10 ** 6, 400 * 10 ** 6)    # the cut, after mark 1

WRITER = r'''set -e
modprobe crc32c_generic
modprobe ext4
mkdir -p /mnt
mount -t ext4 /dev/nvme0n1 /mnt
nvme admin-passthru /dev/nvme0 --opcode=0xc0 --cdw12=1 >/dev/null
echo "nvmimic-writer-start"
i=1
while [ $i -le %(records)d ]; do
    printf 'record %%06d %%s\n' $i %(pad)s >>/mnt/log
    %(sync)s
    echo "nvmimic-committed: $i"
    i=$((i + 1))
done
echo "nvmimic-writer-done"
'''

CHECKER = r'''set -e
modprobe crc32c_generic
modprobe ext4
for b in /sys/block/nvme*n1; do
    d=$(basename $b)
    s=$(tr -d ' ' <$b/device/serial)
    mkdir -p /mnt/$s
    mount -t ext4 /dev/$d /mnt/$s
    echo "nvmimic-recovered-begin $s"
    if [ -f /mnt/$s/log ]; then sed 's/^/nvmimic-rec: /' /mnt/$s/log; fi
    echo "nvmimic-recovered-end $s"
    umount /mnt/$s
done
echo "nvmimic-checker-done"
'''
# The checker mounts this many drives in one boot at most
CHECK_DISKS = 8
# Cuts a control may take to lose a committed record (main())
CONTROL_TRIES = 4


def die(msg):
    print('crash_consistency: FAIL %s' % msg, file=sys.stderr)
    sys.exit(1)


def job_tar(path, script):
    with tarfile.open(path, 'w') as t:
        data = script.encode()
        info = tarfile.TarInfo('run.sh')
        info.size = len(data)
        info.mode = 0o755
        import io
        t.addfile(info, io.BytesIO(data))


def boot(a, work, name, disks, script, faults, timeout_s=900, append=''):
    """One guest boot with @disks ((serial, image, profile) each, the
    first one nvm0) and @append on the kernel's command line; returns its
    console text."""
    tar = os.path.join(work, name + '.tar')
    job_tar(tar, script)
    console = os.path.join(work, name + '.console')
    qmp = os.path.join(work, name + '.qmp')
    args = [a.qemu, '-L', '/usr/share/qemu', '-L', '/usr/share/seabios',
            '-machine', 'q35', '-accel', 'tcg', '-icount',
            'shift=0,sleep=off', '-rtc', 'clock=vm,base=2025-01-01T00:00:00',
            '-m', '512M', '-nodefaults', '-no-user-config', '-nographic',
            '-no-reboot', '-monitor', 'none', '-serial', 'file:' + console,
            '-kernel', os.path.join(a.guest, 'vmlinuz'),
            '-initrd', os.path.join(a.guest, 'initramfs.cpio.gz'),
            '-append', 'edd=off console=ttyS0 panic=-1 loglevel=4' +
            (' ' + append if append else ''),
            '-fw_cfg', 'name=opt/nvmimic/job.tar,file=' + tar,
            '-qmp', 'unix:%s,server=on,wait=off' % qmp, '-S']
    for i, (serial, img, profile) in enumerate(disks):
        args += ['-drive', 'if=none,id=d%d,format=raw,discard=unmap,file=%s'
                 % (i, img), '-device', 'nvme,id=nvm%d,drive=d%d,addr=0x%x,'
                 '%sprofile=%s' % (i, i, 0x10 + i, 'serial=%s,' % serial
                                   if serial else '', profile)]
    with open(os.path.join(work, name + '.qemu.log'), 'w') as err:
        p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=err,
                             stderr=err)
    try:
        q = nvmimic_qmp.QMP.connect(qmp, timeout_s=60,
                                    alive=lambda: p.poll() is None)
        for f in faults:
            q.execute('nvmimic-fault', id='nvm0', **f)
        q.execute('cont')
        q.close()
        rc = p.wait(timeout=timeout_s)
    except BaseException:
        p.kill()
        p.wait()
        raise
    with open(console, errors='replace') as f:
        text = f.read().replace('\r', '')
    if rc != 0:
        die('%s: QEMU exited with %d (%s)' % (name, rc, os.path.join(
            work, name + '.qemu.log')))
    return text


def make_fs(path, capacity):
    with open(path, 'wb') as f:
        f.truncate(FS_BYTES)
    subprocess.run(['mkfs.ext4', '-q', '-F', '-E',
                    'nodiscard,lazy_itable_init=0,lazy_journal_init=0,'
                    'hash_seed=5e1f3a2b-7c4d-4e8f-9a01-b2c3d4e5f607',
                    '-U', '8a6b1f7e-2c1d-4d8e-9a57-3f6f0e2b9c11',
                    '-T', 'default', path], check=True,
                   env=dict(os.environ, E2FSPROGS_FAKE_TIME='1735689600'))
    with open(path, 'r+b') as f:
        f.truncate(capacity)


def sparse_copy(src, dst):
    """The filesystem's bytes, then the rest of the drive as a hole (a
    plain copy of the sparse image would write its whole capacity)."""
    with open(src, 'rb') as f, open(dst, 'wb') as g:
        left = FS_BYTES
        while left:
            b = f.read(min(left, 4 * MB))
            g.write(b)
            left -= len(b)
        g.truncate(os.fstat(f.fileno()).st_size)


def digest(img):
    h = hashlib.sha256()
    with open(img, 'rb') as f:
        left = FS_BYTES
        while left:
            b = f.read(min(left, 4 * MB))
            h.update(b)
            left -= len(b)
    return h.hexdigest()


def write_run(a, work, pristine, seed, k, mode, draw=0):
    """The writer and its cut on a fresh copy of the filesystem; returns
    the outcome so far (the disk after the cut decides the rest).  The
    cut's delay is draw number @draw (from 0) of the seed's generator."""
    rng = random.Random(seed)
    for _ in range(draw + 1):
        delay = rng.randrange(*DELAY_NS)
    name = 'seed%d-%s-%d' % (seed, mode, k)
    img = os.path.join(work, name + '.raw')
    sparse_copy(pristine, img)
    profile = a.false_plp_profile if mode == 'false-plp' else a.profile
    cut = {'kind': 'power-cut', 'at-mark': 1, 'delay-ns': delay,
           'machine': True}
    if mode == 'false-plp':
        cut['volatile'] = True
    script = WRITER % {
        'records': RECORDS, 'pad': 'x' * (97 + seed % 7),
        'sync': ':' if mode == 'fsync-off' else 'sync -d /mnt/log'}
    t0 = time.monotonic()
    text = boot(a, work, name + '-writer', [(None, img, profile)], script,
                [cut])
    committed = [int(m) for m in re.findall(r'^nvmimic-committed: (\d+)$',
                                            text, re.M)]
    if 'nvmimic-writer-start' not in text:
        die('%s: the writer never started (console %s)'
            % (name, os.path.join(work, name + '-writer.console')))
    if 'nvmimic-writer-done' in text:
        die('%s: the writer finished before the cut (delay %d ns)'
            % (name, delay))
    if committed != list(range(1, len(committed) + 1)):
        die('%s: the writer reported records out of order' % name)
    return {'seed': seed, 'mode': mode, 'run': k, 'delay-ns': delay,
            'committed': len(committed), 'disk-sha256': digest(img)[:16],
            'wall-s': round(time.monotonic() - t0, 1), 'img': img,
            'serial': 's%dm%dr%d' % (seed, ('fsync', 'fsync-off',
                                            'false-plp').index(mode), k)}


def check_runs(a, work, runs):
    """One boot of the checker mounts the disks of @runs (ext4 replays its
    journal) and prints their records; each run gets what was recovered."""
    for i in range(0, len(runs), CHECK_DISKS):
        batch = runs[i:i + CHECK_DISKS]
        name = 'checker%d' % (i // CHECK_DISKS)
        t0 = time.monotonic()
        # Linux gives each DRAM-less drive the Host Memory Buffer it asks
        # for (the P2's 64 MiB): eight of them do not fit the guest's 512
        # MiB (the kernel ran out of memory in nvme_setup_host_mem and
        # panicked).  The checker only reads, so its drives go without.
        text = boot(a, work, name, [(r['serial'], r['img'], a.profile)
                                    for r in batch], CHECKER, [],
                    append='nvme.max_host_mem_size_mb=0')
        if 'nvmimic-checker-done' not in text:
            die('%s: the checker did not finish (console %s)'
                % (name, os.path.join(work, name + '.console')))
        for r in batch:
            m = re.search(r'^nvmimic-recovered-begin %s$(.*?)'
                          r'^nvmimic-recovered-end %s$'
                          % (r['serial'], r['serial']), text, re.M | re.S)
            if not m:
                die('%s: no records of disk %s (console %s)'
                    % (name, r['serial'],
                       os.path.join(work, name + '.console')))
            recs = re.findall(r'^nvmimic-rec: (.*)$', m.group(1), re.M)
            good = []
            for rec in recs:
                mm = re.fullmatch(r'record (\d{6}) (x+)', rec)
                if not mm:
                    break                       # a torn tail ends the file
                good.append(int(mm.group(1)))
            have = set(good)
            r['recovered'] = len(good)
            r['lost-committed'] = sum(1 for n in range(1, r['committed'] + 1)
                                      if n not in have)
            r['in-order'] = good == list(range(1, len(good) + 1))
            r['records-sha256'] = hashlib.sha256(
                '\n'.join(recs).encode()).hexdigest()[:16]
            r['check-wall-s'] = round(time.monotonic() - t0, 1)
            if not a.keep:
                os.unlink(r['img'])
            print(json.dumps({k: v for k, v in r.items() if k != 'img'}),
                  flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('qemu')
    ap.add_argument('guest')
    ap.add_argument('profile_dir')
    ap.add_argument('profile_name')
    ap.add_argument('--seeds', default='1,2,3')
    ap.add_argument('--repeat', type=int, default=1,
                    help='seeds run again (the first N) to compare')
    ap.add_argument('--controls', default='fsync-off,false-plp')
    ap.add_argument('--keep', help='keep images and consoles in DIR')
    a = ap.parse_args()
    for what, path in (('QEMU', a.qemu), ('guest', os.path.join(
            a.guest, 'initramfs.cpio.gz'))):
        if not os.path.exists(path):
            die('%s %s is missing: build it first (make)' % (what, path))
    if not shutil.which('mkfs.ext4'):
        die('mkfs.ext4 not found: install e2fsprogs')
    a.profile = os.path.join(a.profile_dir, a.profile_name + '.ini')
    work = a.keep or tempfile.mkdtemp(prefix='nvmimic-crash-')
    os.makedirs(work, exist_ok=True)
    try:
        with open(a.profile) as f:
            text = f.read()
        capacity = int(re.search(r'(?m)^capacity-bytes\s*=\s*(\d+)',
                                 text).group(1))
        a.false_plp_profile = os.path.join(work, 'false-plp.ini')
        with open(a.false_plp_profile, 'w') as f:
            f.write(re.sub(r'(?m)^volatile-write-cache\s*=.*$',
                           'volatile-write-cache = false', text))
        pristine = os.path.join(work, 'pristine.raw')
        make_fs(pristine, capacity)
        seeds = [int(s) for s in a.seeds.split(',') if s]
        controls = [c for c in a.controls.split(',') if c]
        fails = []
        runs = [write_run(a, work, pristine, seed, 0, 'fsync')
                for seed in seeds]
        for seed, first in zip(seeds[:a.repeat], runs):
            # the same disk after the cut, bit for bit, is the same outcome
            # (the recovery that follows is a function of it)
            again = write_run(a, work, pristine, seed, 1, 'fsync')
            print(json.dumps({k: v for k, v in again.items() if k != 'img'}),
                  flush=True)
            if not a.keep:
                os.unlink(again['img'])
            if again['disk-sha256'] != first['disk-sha256']:
                fails.append('seed %d gave another disk the second time'
                             % seed)
            elif again['committed'] != first['committed']:
                print('crash_consistency: seed %d: the same disk; the '
                      'console reported %d then %d committed records'
                      % (seed, first['committed'], again['committed']))
        # A control loses a committed record only if the cut finds one in
        # the drive's buffer: at some instants the unit being filled holds
        # only the record in progress (seed 1's first false-plp cut lost
        # nothing in one CI run, after losing in the runs before).  What must
        # hold is that the check can fail, so a control that lost nothing
        # tries the seed's next delays, up to CONTROL_TRIES cuts.
        ctls = [write_run(a, work, pristine, seeds[0], 0, mode)
                for mode in controls]
        check_runs(a, work, runs + ctls)
        for r in runs:
            if r['lost-committed'] or not r['in-order']:
                fails.append('seed %d lost %d committed records'
                             % (r['seed'], r['lost-committed']))
        for mode, r in zip(controls, ctls):
            tries = 1
            while not r['lost-committed'] and tries < CONTROL_TRIES:
                print('crash_consistency: control %s lost no committed '
                      'record at %d ns: the next delay' % (mode,
                                                           r['delay-ns']),
                      flush=True)
                r = write_run(a, work, pristine, seeds[0], tries, mode,
                              draw=tries)
                check_runs(a, work, [r])
                tries += 1
            if not r['lost-committed']:
                fails.append('control %s lost no committed record in %d '
                             'cuts: the check cannot fail' % (mode, tries))
        print('crash_consistency: %d seeds, %d repeated, controls %s: %s'
              % (len(seeds), min(a.repeat, len(seeds)), a.controls,
                 'FAIL: ' + '; '.join(fails) if fails else 'ok'))
        return 1 if fails else 0
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())

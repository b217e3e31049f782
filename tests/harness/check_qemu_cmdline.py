#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check_qemu_cmdline.py NVMIMIC SOURCE_ROOT: run, qtest and libvirt-xml
give QEMU the same drive.

harness/qemu/cmdline.c builds QEMU's command line for every way nvmimic
starts it.  This runs each user with a stand-in QEMU that records its
arguments and exits (nvmimic run, plain and on a sparse backing file, and
nvmimic qtest) and reads the <qemu:commandline> of nvmimic libvirt-xml, for
one profile file and one seed, and fails when

  - the -device nvme of the three differ in anything but where the device
    sits (bus=, addr=, serial=) and the names of its node and id, or a
    drive= names no -blockdev node of the same line,
  - the null-co data of run and qtest differ in their options or size, or
    the file-backed data of run and libvirt differ in anything but the
    file's path and the node's name,
  - a line lacks the firmware directories, or run and libvirt spell
    simulated time or the guest's kernel command line differently.
"""
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

PLACEMENT = {'bus', 'addr', 'serial'}
Q = '{http://libvirt.org/schemas/domain/qemu/1.0}'


def fail(msg):
    sys.exit('check_qemu_cmdline: FAIL ' + msg)


def opts(text):
    """QEMU's 'a=b,c=d' as [(a, b), ...] (',,' is a comma in a value)."""
    out, cur, i = [], '', 0
    while i < len(text):
        if text[i] == ',':
            if text[i + 1:i + 2] == ',':
                cur += ','
                i += 2
                continue
            out.append(cur)
            cur = ''
        else:
            cur += text[i]
        i += 1
    out.append(cur)
    return [tuple(o.split('=', 1)) if '=' in o else (o, None) for o in out]


def values(args, flag):
    return [args[i + 1] for i, a in enumerate(args[:-1]) if a == flag]


def drive(who, args):
    """The drive of one line: (device options, data options), each with its
    node and id named generically, placement dropped."""
    devs = [d for d in values(args, '-device') if d.startswith('nvme,')]
    if len(devs) != 1:
        fail('%s: %d -device nvme, not one: %s' % (who, len(devs), args))
    dev = opts(devs[0])
    node = dict(dev[1:]).get('drive')
    blk = [opts(b) for b in values(args, '-blockdev')]
    data = [b for b in blk if dict(b).get('node-name') == node]
    if len(data) != 1:
        fail('%s: drive=%s names no -blockdev node: %s' % (who, node, args))
    dev = [(k, 'NODE' if k == 'drive' else 'ID' if k == 'id' else v)
           for k, v in dev if k not in PLACEMENT]
    data = [(k, 'NODE' if k == 'node-name' else
             'FILE' if k == 'file.filename' else v) for k, v in data[0]]
    return dev, data


def main():
    nvmimic, root = os.path.abspath(sys.argv[1]), sys.argv[2]
    profile = os.path.join(os.path.abspath(root), 'profiles',
                           'crucial-p2-500g.ini')
    with tempfile.TemporaryDirectory(prefix='nvmimic-cmdline.') as t:
        qemu = os.path.join(t, 'qemu')
        with open(qemu, 'w') as f:
            f.write('#!/bin/sh\nprintf "%s\\0" "$@" >"$NVMIMIC_TEST_ARGS"\n'
                    'exit 1\n')
        os.chmod(qemu, 0o755)
        guest = os.path.join(t, 'guest')
        os.mkdir(guest)
        for name in ('vmlinuz', 'initramfs.cpio.gz'):
            open(os.path.join(guest, name), 'w').close()
        disk = os.path.join(t, 'disk, with a comma.raw')
        with open(disk, 'w') as f:     # sparse, the profile's capacity
            f.truncate(500107862016)

        def recorded(name, argv):
            path = os.path.join(t, name + '.args')
            p = subprocess.run(argv, env=dict(os.environ,
                                              NVMIMIC_TEST_ARGS=path),
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True,
                               timeout=300)
            if not os.path.exists(path):
                fail('%s never started QEMU:\n%s' % (name, p.stdout))
            with open(path) as f:
                return f.read().split('\0')[:-1]

        common = ['--profile', profile, '--qemu', qemu]
        common_run = [nvmimic, 'run', *common, '--seed', '7', '--quick',
                      '--suite', 'four-corners', '--guest-dir', guest]
        run = recorded('run', [*common_run, '--out', os.path.join(t, 'r1')])
        run_file = recorded('run-file', [*common_run, '--backing', 'file',
                                         '--out', os.path.join(t, 'r2')])
        qtest = recorded('qtest', [nvmimic, 'qtest', *common, '--seed', '7',
                                   '--quick'])
        xml = subprocess.run(
            [nvmimic, 'libvirt-xml', *common, '--seed', '7', '--disk', disk,
             '--icount', '--guest-dir', guest], stdout=subprocess.PIPE,
            text=True, check=True).stdout
        dom = ET.fromstring(xml)
        lv = [a.get('value') for a in
              dom.findall(Q + 'commandline/' + Q + 'arg')]

        lines = {'run': run, 'run --backing file': run_file, 'qtest': qtest,
                 'libvirt-xml': lv}
        drives = {who: drive(who, a) for who, a in lines.items()}
        for who, (dev, data) in drives.items():
            print('%-18s -device %s' % (who, dev))
            print('%-18s data    %s' % ('', data))
        ref = drives['run'][0]
        if dict(ref).get('profile') != profile or \
           dict(ref).get('profile-seed') != '7':
            fail('run: the device is not profile=%s,profile-seed=7: %s'
                 % (profile, ref))
        for who, (dev, _) in drives.items():
            if dev != ref:
                fail('%s: -device %s, run: %s' % (who, dev, ref))

        def keys_and_size(data):
            return [k for k, _ in data], dict(data).get('size')
        if keys_and_size(drives['run'][1]) != keys_and_size(
                drives['qtest'][1]) or dict(drives['run'][1]).get(
                'driver') != 'null-co':
            fail('null-co: run %s, qtest %s' % (drives['run'][1],
                                                drives['qtest'][1]))
        if drives['run --backing file'][1] != drives['libvirt-xml'][1]:
            fail('file data: run %s, libvirt %s'
                 % (drives['run --backing file'][1],
                    drives['libvirt-xml'][1]))
        lvfile = [v for k, v in opts(values(lv, '-blockdev')[0])
                  if k == 'file.filename']
        if lvfile != [disk]:
            fail('libvirt: the file is %s, not %s' % (lvfile, disk))

        for who, a in lines.items():
            if values(a, '-L') != ['/usr/share/qemu', '/usr/share/seabios']:
                fail('%s: firmware %s' % (who, values(a, '-L')))
        # the shift differs (run's --guest-ips, libvirt-xml's 0): the form
        for who, a in (('run', run), ('libvirt-xml', lv)):
            ic = values(a, '-icount')
            if len(ic) != 1 or not re.fullmatch(r'shift=-?\d+,sleep=off',
                                                ic[0]):
                fail('%s: -icount %s' % (who, ic))
        cmdline = dom.find('os/cmdline').text
        if values(run, '-append') != [cmdline]:
            fail('kernel command line: run %s, libvirt %s'
                 % (values(run, '-append'), cmdline))
        with open(os.path.join(t, 'r1', 'guest', 'qemu-cmdline')) as f:
            if run[-1] not in f.read():
                fail("run's qemu-cmdline lacks its last argument")
    print('PASS: run, qtest and libvirt-xml give QEMU the same drive')


if __name__ == '__main__':
    main()

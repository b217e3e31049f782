#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Print a live QMP session with an nvmimic drive (the example in docs/drive.md).

usage: tests/device/qmp_example.py [PROFILE]

Starts the built QEMU under qtest with -device nvme,id=nvm0,profile=PROFILE
on null-co, fills the drive with nvmimic-set-state, drives 1,024 random 4 KiB
reads at 32 outstanding through the NVMe queues in virtual time, and prints
the two QMP exchanges as a user would see them.
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nvmeqtest import (  # noqa: E402
    Machine, NvmeController, null_drive_args, profile_show, REPO_ROOT)


def capacity_of(profile):
    shown = profile_show(profile, os.path.join(REPO_ROOT, 'profiles'))
    return int(shown['groups']['identity']['capacity-bytes']['value'])


def show(machine, command, **args):
    msg = {'execute': command, 'arguments': dict(id='nvm0', **args)}
    print('-> ' + json.dumps(msg))
    ret = machine.qmp.execute(command, id='nvm0', **args)
    print('<- ' + json.dumps({'return': ret}, indent=1).replace('\n', '\n   '))


def main():
    profile = sys.argv[1] if len(sys.argv) > 1 else 'crucial-p5-2tb'
    cap = capacity_of(profile)
    args = null_drive_args(cap) + [
        '-device', 'nvme,id=nvm0,drive=d,addr=04.0,profile=' + profile]
    with Machine(args) as m:
        ctrl = NvmeController.open(m)
        show(m, 'nvmimic-set-state', **{'fill-pct': 100, 'reset-stats': True})
        rng = random.Random(1)
        nlb = 4096 // ctrl.lba_bytes[1]
        blocks = ctrl.nsze[1] // nlb
        for _ in range(32):
            ctrl.submit_and_time([ctrl.read_cmd(rng.randrange(blocks) * nlb, nlb)
                                  for _ in range(32)])
        show(m, 'query-nvmimic-stats')


if __name__ == '__main__':
    main()

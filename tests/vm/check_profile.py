#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check what a guest saw of a profiled nvme device (tests/vm/profile.sh).

usage: check_profile.py PROFILE_INI RESULTS_DIR [DEVICE_ID]
       check_profile.py --capacity PROFILE_INI

With DEVICE_ID (several drives in one guest): the drive's results are in
RESULTS_DIR/MODEL_NUMBER/ and its statistics are RESULTS_DIR/device-stats.json's
member DEVICE_ID.

Prints one summary line and exits 0 when every check holds; otherwise one
"profile: FAIL ..." line per failed check, exit 1.
"""
import json
import os
import struct
import subprocess
import sys

# Guest CPU time between the device's completion and fio's clock, under
# -icount shift=0 (1 instruction = 1 ns): the nvme driver, libaio, fio.
# fio + libaio + the nvme driver took ~12.6 us of guest time to submit a 4K
# read when the device was designed; allow completion handling too.
GUEST_OVERHEAD_MAX_US = 60.0
# Completions posted after their scheduled time (see below): how many, how late.
LATE_MAX_FRACTION = 0.01
LATE_MAX_US = 50.0


def load_profile(path):
    """The drive profile file PATH as nvmimic reads it (nvmimic profile show
    --json, its parts merged): {group: {key: value as written}}.  nvmimic
    is $NVMIMIC_CLI, else build/nvmimic of this checkout."""
    cli = os.environ.get('NVMIMIC_CLI') or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..', '..', 'build',
        'nvmimic')
    p = subprocess.run([cli, 'profile', 'show', path, '--json'],
                       capture_output=True, text=True, timeout=60)
    if p.returncode:
        sys.exit(f"profile: FAIL nvmimic profile show {path}: "
                 f"{p.stderr.strip()}")
    return {g: {k: v['value'] for k, v in keys.items()}
            for g, keys in json.loads(p.stdout)['groups'].items()}


def num(prof, group, key):
    v = prof[group][key]
    return int(v, 0) if v.lower().startswith('0x') else float(v)


def load_json(results, name, failures):
    try:
        with open(os.path.join(results, name)) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        failures.append(f"{name}: not readable JSON ({e})")
        return None


def check(ini, results, dev_id=None):
    cp = load_profile(ini)
    failures = []
    stats_dir = results
    if dev_id:
        results = os.path.join(results, cp['identity']['model-number'])

    def expect(what, got, want):
        if got != want:
            failures.append(f"{what}: guest saw {got!r}, profile says {want!r}")

    ident = cp['identity']
    idc = load_json(results, 'id-ctrl.json', failures)
    if idc:
        expect('model number', idc['mn'].strip(), ident['model-number'].strip())
        expect('firmware', idc['fr'].strip(), ident['firmware'].strip())
        expect('serial', idc['sn'].strip(), ident['serial'].strip())
        expect('Identify vid', idc['vid'], int(num(cp, 'identity', 'pci-vendor-id')))
        expect('Identify ssvid', idc['ssvid'],
               int(num(cp, 'identity', 'pci-subsystem-vendor-id')))
        expect('warning temperature (K)', idc['wctemp'],
               int(num(cp, 'identity', 'temp-warn-c')) + 273)
        expect('critical temperature (K)', idc['cctemp'],
               int(num(cp, 'identity', 'temp-crit-c')) + 273)
        mdts_pages = int(num(cp, 'identity', 'mdts-pages'))
        expect('MDTS (pages)', 1 << idc['mdts'], mdts_pages)
        nstates = int(num(cp, 'power', 'states'))
        expect('power states (NPSS + 1)', idc['npss'] + 1, nstates)
        nops_any = False
        for i in range(nstates):
            g = f'power-state-{i}'
            psd = idc['psds'][i]
            expect(f'PS{i} entry latency', psd['entry_lat'],
                   int(num(cp, g, 'entry-latency-us')))
            expect(f'PS{i} exit latency', psd['exit_lat'],
                   int(num(cp, g, 'exit-latency-us')))
            nops = cp[g]['non-operational'] == 'true'
            nops_any |= nops
            expect(f'PS{i} non-operational', bool(psd['flags'] & 2), nops)
            scale = 0.0001 if psd['flags'] & 1 else 0.01
            want_w = num(cp, g, 'max-power-w')
            if abs(psd['max_power'] * scale - want_w) > max(0.00005, want_w * 0.01):
                failures.append(f"PS{i} max power: guest saw {psd['max_power'] * scale} W, "
                                f"profile says {want_w} W")
        expect('APSTA', idc['apsta'], 1 if nops_any else 0)

    try:
        with open(os.path.join(results, 'pci-ids.txt')) as f:
            ids = dict(line.split() for line in f if line.strip())
        for key, pkey in (('vendor', 'pci-vendor-id'), ('device', 'pci-device-id'),
                          ('subsystem_vendor', 'pci-subsystem-vendor-id'),
                          ('subsystem_device', 'pci-subsystem-id')):
            expect(f'PCI {key}', int(ids[key], 16), int(num(cp, 'identity', pkey)))
    except (OSError, KeyError, ValueError) as e:
        failures.append(f"pci-ids.txt: {e}")

    try:
        with open(os.path.join(results, 'size.txt')) as f:
            sectors, lbs = (int(x) for x in f.read().split())
        expect('capacity (bytes)', sectors * 512, int(num(cp, 'identity', 'capacity-bytes')))
        expect('logical block size', lbs, int(num(cp, 'identity', 'lba-bytes')))
    except (OSError, ValueError) as e:
        failures.append(f"size.txt: {e}")

    before = load_json(results, 'smart-before.json', failures)
    after = load_json(results, 'smart-after.json', failures)
    if before and after:
        expect('SMART temperature (K)', before['temperature'],
               int(num(cp, 'identity', 'temp-idle-c')) + 273)
        expect('SMART available spare', before['avail_spare'], 100)
        expect('SMART percentage used on a new drive', before['percent_used'], 0)
        # nvme-cli prints the 128-bit counters as strings
        written = int(after['data_units_written']) - int(before['data_units_written'])
        # 8 MiB = 16.8 units of 512,000 bytes; the counter rounds up
        if not 16 <= written <= 18:
            failures.append(f"SMART data units written grew by {written} for 8 MiB, want 16..18")
        if int(after['host_write_commands']) - int(before['host_write_commands']) < 64:
            failures.append("SMART host write commands did not count the 64 writes")

    try:
        with open(os.path.join(results, 'apst.txt')) as f:
            apst = f.read()
        cur = int(apst.split('Current value:')[1].split()[0], 16)
        if idc and idc['apsta'] and not cur & 1:
            failures.append(f"APST: Linux did not enable it (Current value {cur:#x})")
        with open(os.path.join(results, 'apst.bin'), 'rb') as f:
            table = f.read()
        if len(table) < 256:
            failures.append("APST: the 256-byte table did not come back")
        elif idc and idc['apsta']:
            # The table the guest's kernel programmed, walked from PS0 as
            # the device does: the idle time before each state is reached.
            # The profile's idle-before-entry-ms is the model's default, so
            # it must be what the guest programs, or nvmimic sim (default)
            # and the guest's drive (its table) part at every idle gap.
            entries = struct.unpack('<32Q', table[:256])
            got, cur, idle = {}, 0, 0
            while (entries[cur] >> 8) & 0xffffff and len(got) < 32:
                itps = (entries[cur] >> 3) & 0x1f
                if itps <= cur:
                    break
                idle += (entries[cur] >> 8) & 0xffffff
                got[itps] = idle
                cur = itps
            want = {i: int(num(cp, f'power-state-{i}', 'idle-before-entry-ms'))
                    for i in range(int(num(cp, 'power', 'states')))}
            want = {i: v for i, v in want.items() if v}
            if got != want:
                failures.append(f"APST: the guest programmed {got} (state: "
                                f"ms of idle), the profile's defaults are "
                                f"{want}")
    except (OSError, IndexError, ValueError) as e:
        failures.append(f"apst.txt: {e}")

    rr = load_json(results, 'randread.json', failures)
    dev = load_json(stats_dir, 'device-stats.json', failures)
    if dev and dev_id:
        dev = dev.get(dev_id)
        if dev is None:
            failures.append(f"device-stats.json has no {dev_id}")
    summary = ''
    if rr and dev:
        job = rr['jobs'][0]['read']
        # Medians: the device also counts the kernel's few reads at boot,
        # some of which wake the drive from a deep power state.
        fio_p50_us = job['clat_ns']['percentile']['50.000000'] / 1000.0
        cls = {c['class']: c for c in dev['classes']}
        dev_p50_us = cls['read']['p50-us']
        if job['total_ios'] < 2000 or rr['jobs'][0]['error']:
            failures.append(f"fio read {job['total_ios']} I/Os, error {rr['jobs'][0]['error']}")
        if cls['read']['count'] < 2000:
            failures.append(f"device counted {cls['read']['count']} reads, fio did 2000")
        # Under icount the vCPU thread may run the device's deadline timer
        # before the main loop has run null-co's completion bottom half; the
        # device then posts it as soon as it arrives, a few microseconds late.
        late, late_max = cls['read']['late'], cls['read']['late-max-us']
        if late > cls['read']['count'] * LATE_MAX_FRACTION or late_max > LATE_MAX_US:
            failures.append(f"{late} of {cls['read']['count']} reads completed after their "
                            f"scheduled time, by up to {late_max:.1f} us (allowed: "
                            f"{LATE_MAX_FRACTION:.0%}, {LATE_MAX_US} us)")
        over = fio_p50_us - dev_p50_us
        if not 0.0 <= over <= GUEST_OVERHEAD_MAX_US:
            failures.append(f"guest QD1 read median {fio_p50_us:.1f} us vs device "
                            f"{dev_p50_us:.1f} us: the guest should see the model's latency "
                            f"plus at most {GUEST_OVERHEAD_MAX_US} us of its own")
        summary = (f"QD1 4K read median: guest {fio_p50_us:.1f} us, device {dev_p50_us:.1f} us "
                   f"(guest overhead {over:.1f} us), {job['iops']:.0f} IOPS in virtual time; "
                   f"{late} late, max {late_max:.1f} us")

    if failures:
        for f in failures:
            print(f"profile: FAIL {f}")
        return 1
    print(f"profile: {os.path.basename(ini)[:-4]}: identity, PCI IDs, capacity, power "
          f"states, APST, SMART as profiled; {summary}")
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == '--capacity':
        print(int(num(load_profile(sys.argv[2]), 'identity',
                      'capacity-bytes')))
        return 0
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.strip().splitlines()[2])
    return check(*sys.argv[1:])


if __name__ == '__main__':
    sys.exit(main())

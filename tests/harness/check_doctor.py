#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check_doctor.py NVMIMIC: nvmimic doctor's report, without the KVM probe.

- --format json is valid JSON with every member docs/realtime.md names;
  the usable CPUs are 1..online; the self-test ran deadlines and its
  percentiles are ordered (p50 <= p99 <= max) for both waits; the spin
  window it came to lies in 0..--spin-us; the spinning's share of a core
  lies in 0..1;
- the floor test spun for about --seconds, on a usable CPU (--cpu pins
  it there), its gaps' share of the time lies in 0..1 and its lateness
  percentiles are ordered (p50 <= p99 <= p99.9 <= the longest gap);
- --spin-us 0 never spins: its window is 0;
- the table names KVM, the CPUs and the self-test;
- a bad --spin-us, or a --cpu this process may not run on, is refused
  with one line that names it, exit status 2.
No figure is held to a bound: they are the host's (docs/realtime.md)."""
import json
import subprocess
import sys

fails = []


def check(ok, what):
    if not ok:
        fails.append(what)
        print('check_doctor: FAIL ' + what)


def doctor(*args):
    return subprocess.run([sys.argv[1], 'doctor', '--no-kvm-probe'] +
                          list(args), capture_output=True, text=True,
                          timeout=60)


def check_json(spin_us, *extra):
    p = doctor('--format', 'json', '--seconds', '0.3', '--spin-us',
               str(spin_us), *extra)
    check(p.returncode == 0, 'doctor --format json exit status %d: %s'
          % (p.returncode, p.stderr.strip()))
    try:
        r = json.loads(p.stdout)
    except ValueError as e:
        check(False, 'doctor --format json is not JSON (%s): %r'
              % (e, p.stdout[:200]))
        return None
    for k in ('kvm', 'kvm_detail', 'cpus_online', 'cpus_usable',
              'cpufreq_driver', 'cpufreq_governors', 'isolated_cpus',
              'clocksource', 'load1', 'selftest', 'floor'):
        check(k in r, 'member %s missing' % k)
    check(r.get('kvm') is False, 'kvm is %r without the probe'
          % r.get('kvm'))
    check(1 <= r.get('cpus_usable', 0) <= r.get('cpus_online', 0),
          'cpus_usable %r not in 1..cpus_online %r'
          % (r.get('cpus_usable'), r.get('cpus_online')))
    st = r.get('selftest', {})
    check(st.get('events', 0) > 10, 'self-test ran %r deadlines'
          % st.get('events'))
    check(st.get('spin_us') == spin_us, 'self-test spin_us %r, asked %d'
          % (st.get('spin_us'), spin_us))
    for w in ('sleep_late', 'late'):
        p50, p99, mx = (st.get('%s_%s_us' % (w, q)) for q in
                        ('p50', 'p99', 'max'))
        check(None not in (p50, p99, mx) and 0 <= p50 <= p99 <= mx,
              '%s percentiles not ordered: %r %r %r' % (w, p50, p99, mx))
    check(0 <= st.get('window_us', -1) <= spin_us,
          'window %r us not in 0..%d' % (st.get('window_us'), spin_us))
    check(0 <= st.get('spin_share', -1) <= 1,
          'spin_share %r' % st.get('spin_share'))
    fl = r.get('floor', {})
    check(0.25 <= fl.get('seconds', 0) <= 0.35, 'floor spun %r s, asked 0.3'
          % fl.get('seconds'))
    check(-1 <= fl.get('cpu', -9) < r.get('cpus_online', 0),
          'floor cpu %r' % fl.get('cpu'))
    check(fl.get('gaps', -1) >= 0 and 0 <= fl.get('lost_share', -1) <= 1,
          'floor gaps %r, lost share %r' % (fl.get('gaps'),
                                             fl.get('lost_share')))
    q = [fl.get(k) for k in ('late_p50_us', 'late_p99_us', 'late_p999_us',
                             'gap_max_us')]
    check(None not in q and 0 <= q[0] <= q[1] <= q[2] <= q[3] + 0.01,
          'floor percentiles not ordered: %r' % q)
    r['floor'] = fl
    return r


check_json(200)
r = check_json(0, '--cpu', '0')
if r:
    st = r.get('selftest', {})
    check(st.get('window_us') == 0, '--spin-us 0: window %r us'
          % st.get('window_us'))
    check(r['floor'].get('cpu') == 0, '--cpu 0: the floor ran on %r'
          % r['floor'].get('cpu'))

p = doctor('--seconds', '0.2')
check(p.returncode == 0, 'doctor (table) exit status %d' % p.returncode)
for want in ('KVM:', 'CPUs:', 'Self-test', 'Floor'):
    check(want in p.stdout, 'the table has no %r' % want)

p = doctor('--spin-us', '20000')
lines = p.stderr.strip().splitlines()
check(p.returncode == 2, '--spin-us 20000: exit status %d' % p.returncode)
check(len(lines) == 1 and '--spin-us' in lines[0],
      '--spin-us 20000: not one line naming it: %r' % p.stderr)

for cpu in ('1023', '5000'):
    p = doctor('--cpu', cpu, '--seconds', '0.1')
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2, '--cpu %s: exit status %d' % (cpu, p.returncode))
    check(len(lines) == 1 and '--cpu' in lines[0],
          '--cpu %s: not one line naming it: %r' % (cpu, p.stderr))

if fails:
    sys.exit(1)
print('check_doctor: ok')

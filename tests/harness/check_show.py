#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check_show.py NVMIMIC PROFILE_DIR: nvmimic profile show and jobfile show.

profile show, for every profile: each value is what its file says, in the
file it names (the drive file or one of the parts it names), and the die's
keys of a drive built from parts come from its NAND part; --key prints the
same value; a profile that does not load, an unknown key and an unknown
subcommand are one-line errors.  jobfile show: a job file written here
reads back as the mix it describes; a bad value names the file and line.
Prints a line per check; "check_show: FAIL ..." and exit 1 otherwise.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

nvmimic, profile_dir = sys.argv[1:3]
bad = []


def check(cond, what):
    print(f"check_show: {'ok  ' if cond else 'FAIL'} {what}")
    if not cond:
        bad.append(what)


def run(*args):
    return subprocess.run([nvmimic, *args], capture_output=True, text=True,
                          timeout=60)


def line_in_section(path, group, key, value):
    """Does file PATH hold the line 'KEY = VALUE' under [GROUP]?"""
    section = None
    with open(path) as f:
        for line in f:
            m = re.match(r"\[(.+)\]\s*$", line)
            if m:
                section = m.group(1)
            elif section == group and re.fullmatch(
                    r"\s*%s\s*=\s*%s\s*" % (re.escape(key), re.escape(value)),
                    line.rstrip("\n")):
                return True
    return False


names = sorted(f[:-4] for f in os.listdir(profile_dir) if f.endswith(".ini"))
check(len(names) >= 5, f"{len(names)} profiles in {profile_dir}")
for name in names:
    p = run("profile", "show", name, "--profile-dir", profile_dir, "--json")
    if p.returncode:
        check(False, f"profile show {name}: {p.stderr.strip()}")
        continue
    d = json.loads(p.stdout)
    files = {d["file"]} | {part["file"] for part in d["parts"].values()}
    n = wrong = 0
    for group, keys in d["groups"].items():
        for key, kv in keys.items():
            n += 1
            if kv["file"] not in files or not line_in_section(
                    kv["file"], group, key, kv["value"]):
                wrong += 1
                check(False, f"{name}: [{group}] {key} = {kv['value']} is "
                      f"not in {kv['file']}")
    check(n > 50 and not wrong, f"{name}: {n} keys, each as its file "
          f"({len(files)} files) has it")
    if "nand" in d["parts"]:
        # the die's own keys come from its part, the geometry (channels,
        # dies per channel) from the drive
        part = d["parts"]["nand"]["file"]
        nand = d["groups"]["nand"]
        check(nand["cell-mode"]["file"] == part and
              sum(kv["file"] == part for kv in nand.values()) > 10 and
              nand["channels"]["file"] == d["file"],
              f"{name}: [nand] from its part {d['parts']['nand']['name']}, "
              f"its geometry from the drive")
    cap = run("profile", "show", name, "--profile-dir", profile_dir, "--key",
              "identity.capacity-bytes")
    check(cap.returncode == 0 and cap.stdout.strip() ==
          d["groups"]["identity"]["capacity-bytes"]["value"],
          f"{name}: --key identity.capacity-bytes prints {cap.stdout.strip()}")

tmp = tempfile.mkdtemp(prefix="nvmimic-show-")
try:
    # a drive that sets a key its NAND part sets too: refused, naming both
    bad_dir = os.path.join(tmp, "profiles")
    shutil.copytree(profile_dir, bad_dir)
    with open(os.path.join(bad_dir, "crucial-p2-500g.ini"), "a") as f:
        f.write("\n[nand]\nread-us-tlc = 50\n")
    for args, want in [
            (["show", "crucial-p2-500g", "--profile-dir", bad_dir],
             "also set in"),
            (["show", "no-such-drive", "--profile-dir", profile_dir],
             "no such profile"),
            (["show", names[0], "--profile-dir", profile_dir, "--key",
              "identity.no-such-key"], "no key identity.no-such-key"),
            # --json was ignored beside --key, which prints the bare value
            (["show", names[0], "--profile-dir", profile_dir, "--json",
              "--key", "identity.capacity-bytes"],
             "takes --json or --key, not both"),
            (["list", names[0]], "the subcommand is show")]:
        p = run("profile", *args)
        lines = p.stderr.strip().splitlines()
        check(p.returncode in (1, 2) and len(lines) == 1 and want in lines[0],
              f"profile {' '.join(args[:2])}: exit {p.returncode}, "
              f"{p.stderr.strip()}")

    job = os.path.join(tmp, "t.fio")
    with open(job, "w") as f:
        f.write("[global]\nioengine=libaio\n\n[t1]\nrw=randrw\n"
                "rwmixread=70\nbssplit=4k/50:64k/50,8k/100\niodepth=8\n"
                "numjobs=2\nthinktime=20ms\nthinktime_iotime=80ms\n")
    p = run("jobfile", "show", job, "--json")
    j = json.loads(p.stdout) if p.returncode == 0 else {}
    check(j.get("job") == "t1" and j.get("read_pct") == 70 and
          j.get("iodepth") == 8 and j.get("numjobs") == 2 and
          j.get("outstanding") == 16 and
          j.get("thinktime_ns") == 20000000 and
          j.get("thinktime_iotime_ns") == 80000000 and
          j.get("bssplit") == {
              "read": [{"bytes": 4096, "pct": 50}, {"bytes": 65536, "pct": 50}],
              "write": [{"bytes": 8192, "pct": 100}]},
          f"jobfile show: the mix written: {json.dumps(j, sort_keys=True)}")
    with open(job, "w") as f:
        f.write("[t1]\nrw=randread\niodepth=0\n")
    p = run("jobfile", "show", job)
    check(p.returncode == 1 and f"{job}:3: iodepth=0" in p.stderr,
          f"jobfile show of a bad iodepth: {p.stderr.strip()}")
finally:
    shutil.rmtree(tmp)

if bad:
    sys.exit(1)
print(f"check_show: ok: {len(names)} profiles, their keys and sources; "
      f"a job file's mix")

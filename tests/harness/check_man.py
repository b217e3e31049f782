#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check_man.py NVMIMIC MANPAGE: nvmimic.1 against the commands themselves.

- the commands in the man page are those `nvmimic --help` lists;
- per command, the options in the man page are those `nvmimic CMD --help`
  lists, and the reverse;
- every option in the man page is one the command accepts (it does not say
  "unknown option"), and an option given twice is refused (the repeatable
  ones aside);
- nvmimic help COMMAND prints COMMAND --help; unknown commands are refused;
- groff formats the page without warnings;
- the defaults `nvmimic sim --help` states are the ones sim uses: a short
  run with each such option given its stated default prints exactly what
  the run without it prints (the man page and --help come from one option
  table, so comparing them shows the table is printed whole; this shows
  what it says is true).
Exit status 1 with one line per difference.
"""
import re
import subprocess
import sys

nvmimic, manpage = sys.argv[1], sys.argv[2]
fails = 0


def fail(msg):
    global fails
    print("check_man: FAIL " + msg)
    fails += 1


def run(*args):
    return subprocess.run([nvmimic, *args], capture_output=True, text=True,
                          timeout=60)


text = open(manpage, encoding="utf-8").read()
man = {}         # command: {option: (takes a value, repeatable)}
cmd = None
lines = text.splitlines()
for i, line in enumerate(lines):
    m = re.match(r'\.SS "nvmimic (\S+)"', line)
    if m:
        cmd = m.group(1)
        man[cmd] = {}
        continue
    m = re.match(r'\\fB((?:\\-)+[a-z0-9-\\]+)\\fR(?: \\fI(.*)\\fR)?', line)
    if cmd and m and lines[i - 1] == ".TP":
        man[cmd][m.group(1).replace("\\-", "-")] = (
            m.group(2), "(repeatable)" in lines[i + 1])
    if line.startswith(".SH") and not line.startswith(".SH COMMANDS"):
        cmd = None

listed = [l.split()[0] for l in run("--help").stdout.splitlines()
          if re.match(r"  [a-z]", l)]
listed = [c for c in listed if c != "help"]
if sorted(listed) != sorted(man):
    fail("commands: nvmimic --help lists %s, the man page %s"
         % (sorted(listed), sorted(man)))

for cmd, opts in sorted(man.items()):
    p = run(cmd, "--help")
    if p.returncode != 0:
        fail("nvmimic %s --help: exit %d" % (cmd, p.returncode))
    helped = set(re.findall(r"^  (--[a-z0-9-]+)", p.stdout, re.M))
    if helped != set(opts):
        fail("%s: --help has %s, the man page %s"
             % (cmd, sorted(helped - set(opts)), sorted(set(opts) - helped)))
    for opt, (arg, repeatable) in sorted(opts.items()):
        # a value the option takes: its first choice, or a small number
        # (4096: a block size, whose least is 512)
        values = [arg.replace("\\-", "-").split("|")[0], "1", "64",
                  "4096"] if arg else [None]
        for v in values:
            args = [opt, v] if v else [opt]
            p = run(cmd, *args)
            if " must be " not in p.stderr and "not one of" not in p.stderr:
                break
        if "unknown option" in p.stderr:
            fail("nvmimic %s %s: %s" % (cmd, opt, p.stderr.strip()))
        p = run(cmd, *args, *args)
        said_twice = "given twice" in p.stderr
        if said_twice == repeatable:
            fail("nvmimic %s %s twice: %s (repeatable: %s)"
                 % (cmd, opt, p.stderr.strip() or "accepted", repeatable))
    print("ok %s: %d options in the man page and --help, each accepted"
          % (cmd, len(opts)))

# nvmimic help COMMAND is COMMAND --help; an unknown one is refused
if run("help", "run").stdout != run("run", "--help").stdout:
    fail("nvmimic help run differs from nvmimic run --help")
p = run("help", "bogus")
if p.returncode != 2 or "unknown command 'bogus'" not in p.stderr:
    fail("nvmimic help bogus: exit %d, %s" % (p.returncode, p.stderr))
p = run("bogus")
if p.returncode != 2 or "unknown command 'bogus'" not in p.stderr:
    fail("nvmimic bogus: exit %d, %s" % (p.returncode, p.stderr))

# sim's stated defaults, on short runs: each option's "(default V)" given
# as V changes nothing, on a run where another value W does change the
# output (so the run uses the option: on the others V proves nothing).
SIM_RUNS = [["--profile", "crucial-p2-500g", "--suite", "four-corners",
             "--duration-s", "0.05", "--format", "json"],
            ["--profile", "crucial-p2-500g", "--suite", "slc-cliff",
             "--step-gb", "100", "--format", "json"]]


def other_value(meta, val):
    """A value of the option other than its default @val."""
    choices = meta.split("|")
    if len(choices) > 1:
        return next((c for c in choices if c != val), None)
    try:
        v = float(val)
    except ValueError:
        return None
    w = v / 2 if v >= 2 else v + 1
    return str(int(w)) if w == int(w) else str(w)


helptext = re.sub(r"\n {20,}", " ", run("sim", "--help").stdout)
stated = {}
for m in re.finditer(r"^  (--[a-z0-9-]+) (\S+) .*?\(default ([^),]+)[),]",
                     helptext, re.M):
    opt, meta, val = m.groups()
    if re.fullmatch(r"[A-Za-z0-9.]+", val):
        stated[opt] = (meta, val)
base_out = {}
checked, unused = [], []
for opt, (meta, val) in sorted(stated.items()):
    alt = other_value(meta, val)
    for i, base in enumerate(SIM_RUNS):
        if opt in base or alt is None:
            continue
        if i not in base_out:
            p = run("sim", *base)
            if p.returncode:
                fail("nvmimic sim %s: exit %d: %s"
                     % (" ".join(base), p.returncode, p.stderr.strip()))
            base_out[i] = p.stdout
        p = run("sim", *base, opt, alt)
        if p.returncode or p.stdout == base_out[i]:
            continue                    # this run does not use the option
        p = run("sim", *base, opt, val)
        if p.returncode or p.stdout != base_out[i]:
            fail("nvmimic sim %s: %s %s (its stated default) is not what "
                 "the run without it does" % (" ".join(base), opt, val))
        checked.append("%s %s" % (opt, val))
        break
    else:
        unused.append(opt)
if len(checked) < 3:
    fail("sim: only %d stated defaults could be checked (%s) of %s"
         % (len(checked), ", ".join(checked), sorted(stated)))
else:
    print("ok sim's stated defaults are what it uses: %s (not used by these "
          "runs: %s)" % (", ".join(checked), ", ".join(unused) or "none"))

p = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", manpage],
                   capture_output=True, text=True)
if p.returncode or p.stderr.strip():
    fail("groff: %s" % p.stderr.strip()[:500])
else:
    print("ok groff formats nvmimic.1 without warnings")
sys.exit(1 if fails else 0)

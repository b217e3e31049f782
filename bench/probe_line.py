#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The fields of build/bench/vdi-probe's last line, for the scripts that
run it (bench/vdi_five.sh, bench/write_sizes.sh, bench/vdi_budget.py).

The probe's other lines are for people; its last is "probe" and then
tab-separated KEY=VALUE fields (bench/vdi-probe.c says which).

usage: bench/probe_line.py KEY... < PROBE_OUTPUT
  prints the values of KEY..., tab-separated, on one line
"""
import sys


def parse(text):
    """{key: value string} of the probe line in @text; ValueError if none."""
    for line in reversed(text.splitlines()):
        cells = line.split("\t")
        if cells[0] == "probe":
            return dict(c.split("=", 1) for c in cells[1:])
    raise ValueError("no probe line in the output")


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__.split("\n\n")[-1].strip())
    text = sys.stdin.read()
    try:
        fields = parse(text)
        print("\t".join(fields[k] for k in argv[1:]))
    except ValueError as e:
        sys.exit("probe_line: %s: %s" % (e, text.strip().splitlines()[:1]))
    except KeyError as e:
        sys.exit("probe_line: the probe line has no field %s" % e)


if __name__ == "__main__":
    main(sys.argv)

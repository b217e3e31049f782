#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""trace_vs_model.py DEVICE.trace MODEL.trace [MORE.trace ...] [--window-s S]

The device's own trace of a run (nvmimic run --device-trace) against the
model fed the same commands at the same times (nvmimic sim --trace
DEVICE.trace --trace-out MODEL.trace, with --trace-state erased for a
drive whose run writes its span itself).  Prints, per window of S
simulated seconds (default 1), the commands and the mean latency of
reads and writes in each, and the first command whose completion differs
by more than 1 us and 1 %: where device and model part, if they do.  More model traces (the same replay with other --seed
values) add the range of their means per window: how far the model's own
random draws move a window, against which the device's difference is
judged.  A FUA write (write-fua) counts with the writes.
"""
import argparse
import sys

# the columns a command's name counts in: FUA writes with the writes
COLUMN = {"write-fua": "write"}


def load(path):
    cmds = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            sub, op, slba, nlb, done = line.split()[:5]
            cmds.append((int(sub), op, int(slba), int(nlb),
                         None if done == "-" else int(done)))
    return cmds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("device")
    ap.add_argument("model")
    ap.add_argument("more", nargs="*")
    ap.add_argument("--window-s", type=float, default=1.0)
    a = ap.parse_args()
    dev, mod = load(a.device), load(a.model)
    more = [load(p) for p in a.more]
    for path, m in [(a.model, mod)] + list(zip(a.more, more)):
        if len(dev) != len(m):
            sys.exit(f"trace_vs_model: {len(dev)} commands in {a.device}, "
                     f"{len(m)} in {path}: not the same run")
    first = None
    win = {}
    for i, (d, m) in enumerate(zip(dev, mod)):
        if d[0] != m[0] or d[1] != m[1]:
            sys.exit(f"trace_vs_model: command {i} differs in submission "
                     f"or kind: {d} against {m}")
        if d[4] is None or m[4] is None:
            continue            # not timed, or not replayed
        ld, lm = d[4] - d[0], m[4] - m[0]
        if first is None and abs(ld - lm) > max(1000, 0.01 * lm):
            first = (i, d, ld, lm)
        w = win.setdefault(int(d[0] / (a.window_s * 1e9)),
                           {"read": [0, 0, 0] + [0] * len(more),
                            "write": [0, 0, 0] + [0] * len(more)})
        col = COLUMN.get(d[1], d[1])
        if col in w:
            w[col][0] += 1
            w[col][1] += ld
            w[col][2] += lm
            for j, o in enumerate(more):
                if o[i][4] is not None:
                    w[col][3 + j] += o[i][4] - o[i][0]
    rng = f" {'all models':>17}" if more else ""
    print(f"{'window s':>9} {'reads':>8} {'dev us':>9} {'model us':>9}{rng} "
          f"{'writes':>8} {'dev us':>9} {'model us':>9}{rng}")
    for k in sorted(win):
        row = f"{k * a.window_s:9.1f}"
        for op in ("read", "write"):
            n, sd, sm = win[k][op][:3]
            if not n:
                row += f" {0:8d} {'-':>9} {'-':>9}" + (f" {'-':>17}" if more
                                                       else "")
                continue
            row += f" {n:8d} {sd / n / 1e3:9.1f} {sm / n / 1e3:9.1f}"
            if more:
                ms = [sm / n / 1e3] + [x / n / 1e3 for x in win[k][op][3:]]
                row += f" {min(ms):8.0f}-{max(ms):<8.0f}"
        print(row)
    if first is None:
        print(f"all {len(dev)} commands complete within 1 us or 1 % of the "
              "model's time")
    else:
        i, d, ld, lm = first
        print(f"first difference: command {i} ({d[1]} of {d[3]} LBAs at "
              f"{d[2]}, submitted at {d[0] / 1e9:.6f} s): device "
              f"{ld / 1e3:.1f} us, model {lm / 1e3:.1f} us")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Print one fact of an nvmimic drive profile (for the guest recipes' shell scripts).

usage: profile-facts.py NAME|PATH capacity|model|cell|path [PROFILE_DIR]
NAME is looked up as PROFILE_DIR/NAME.ini (default: $NVMIMIC_PROFILE_DIR, else the
repository's profiles/).  Exit 1 with one line when the profile or key is missing.
"""
import configparser
import os
import sys


def main(a):
    if len(a) < 3 or a[2] not in ("capacity", "model", "cell", "path"):
        sys.stderr.write(__doc__)
        return 2
    name = a[1]
    d = a[3] if len(a) > 3 else os.environ.get(
        "NVMIMIC_PROFILE_DIR",
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "profiles"))
    path = name if ("/" in name or name.endswith(".ini")) else os.path.join(d, name + ".ini")
    path = os.path.abspath(path)
    c = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        with open(path) as f:
            c.read_file(f)
    except OSError as e:
        print(f"profile {name}: {path}: {e.strerror} (nvmimic profiles lists them)", file=sys.stderr)
        return 1
    except configparser.Error as e:
        print(f"profile {name}: {path}: not a profile ({e.__class__.__name__})", file=sys.stderr)
        return 1
    keys = {"capacity": ("identity", "capacity-bytes"), "model": ("identity", "model-number"),
            "cell": ("nand", "cell-mode")}
    if a[2] == "path":
        print(path)
        return 0
    sec, key = keys[a[2]]
    v = c.get(sec, key, fallback=None)
    part = c.get("parts", "nand", fallback=None)
    if v is None and sec == "nand" and part is not None:
        # a drive composed of parts: the NAND facts are in its part file
        # (parts/nand/NAME.ini beside the drive file, as backends/profile.c)
        ppath = os.path.join(os.path.dirname(path), "parts", "nand", part.strip() + ".ini")
        pc = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            with open(ppath) as f:
                pc.read_file(f)
        except (OSError, configparser.Error):
            print(f"profile {name}: {path}: [parts] nand: cannot read {ppath}", file=sys.stderr)
            return 1
        v = pc.get(sec, key, fallback=None)
        path = ppath
    if v is None:
        print(f"profile {name}: {path}: no [{sec}] {key}", file=sys.stderr)
        return 1
    print(v.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The documentation points at what exists.

usage: check_docs.py SRCDIR [NVMIMIC]

Fails, with one line per problem, when:
- README.md is longer than README_MAX_LINES;
- a path a Markdown file names does not exist: every relative link target, and
  every word in `code` or a code block whose first component is a tracked
  top-level file or folder of the repository (`docs/run.md`, `hw/`,
  `Makefile`).  An upper-case placeholder (`profiles/NAME.ini`), `<...>` or
  `*` matches any name; `qemu/patches/0006` names the patch numbered 0006.
  Paths under `build/` are build outputs and not checked, nor is a path
  right after "QEMU's" (one in QEMU's tree);
- README.md's map ("What is where") leaves out a tracked top-level folder or
  file, or lists one that is not tracked;
- a folder map (harness/README.md, hw/README.md) leaves out a tracked file of
  its folder;
- qemu/patches/README.md's table leaves out a patch of the series, or has a
  row for a number no patch has;
- with NVMIMIC: an example in README.md's code blocks runs an nvmimic command
  that does not exist, or gives it an option that command does not take.
"""
import fnmatch
import os
import re
import subprocess
import sys

README_MAX_LINES = 300
# Folder maps: the README that must name every tracked file of its folder.
FOLDER_MAPS = ["harness/README.md", "hw/README.md"]
FOLDER_MAP_SKIP = {"README.md", "meson.build"}

problems = []


def problem(where, what):
    problems.append(f"{where}: {what}")


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"],
                             capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"check_docs: cannot list the tracked files of {root} "
                 f"with git ({e}); run it in a git checkout")
    return [p for p in out.decode().split("\0") if p]


def code_spans(text):
    """Yield (line number, text) of `code` spans and code block lines."""
    in_block = False
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_block = not in_block
            continue
        if in_block or line.startswith("    "):
            yield n, line
            continue
        for m in re.finditer(r"`([^`]+)`", line):
            # "QEMU's `scripts/checkpatch.pl`": a path in QEMU's tree
            if not re.search(r"QEMU's\s*$", line[:m.start()]):
                yield n, m.group(1)


def links(text):
    for n, line in enumerate(text.splitlines(), 1):
        for m in re.finditer(r"\]\(([^)\s]+)\)", line):
            yield n, m.group(1)


def as_glob(path):
    """Placeholders in a path as glob patterns."""
    path = re.sub(r"<[^>/]*>", "*", path)
    return re.sub(r"[A-Z][A-Z_]+", "*", path)


def path_exists(root, path, tracked_set, tracked_dirs):
    p = path.rstrip("/")
    if os.path.exists(os.path.join(root, p)):
        return True
    last = p.rsplit("/", 1)[-1]
    if re.fullmatch(r"\d{4}", last):          # qemu/patches/0006
        p += "-*"
    pattern = as_glob(p)
    if pattern == p and "*" not in p and "?" not in p:
        return False
    return any(fnmatch.fnmatchcase(t, pattern) for t in tracked_set) or \
        any(fnmatch.fnmatchcase(d, pattern) for d in tracked_dirs)


def check_paths(root, md, text, top, tracked_set, tracked_dirs):
    for n, span in code_spans(text):
        span = re.sub(r"<[^<>/\s]*>", "*", span)     # <target> placeholders
        for word in re.split(r"[\s,;|&>]+", span):
            word = word.split("=")[-1]
            word = word.strip("()[]{}'\".:")
            if not word or word.startswith(("/", "-", "http")):
                continue
            first = word.split("/")[0]
            if first not in top or ("/" not in word and first in top_dirs):
                continue
            if first == "build":
                continue
            # a folder's README names its own files from there
            # (harness/README.md: `qemu/cmdline.c` is harness/qemu/)
            here = os.path.join(os.path.dirname(md), word)
            if not path_exists(root, word, tracked_set, tracked_dirs) and \
                    not (os.path.dirname(md) and
                         os.path.exists(os.path.join(root, here))):
                problem(f"{md}:{n}", f"names `{word}`, which does not exist")
    base = os.path.dirname(md)
    for n, target in links(text):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        target = target.split("#")[0]
        if not os.path.exists(os.path.join(root, base, target)):
            problem(f"{md}:{n}", f"links to {target}, which does not exist")


def readme_map(text):
    """The first column of the table under "## What is where"."""
    m = re.search(r"^## What is where\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not m:
        problem("README.md", 'has no "## What is where" section')
        return set()
    names = set()
    for line in m.group(1).splitlines():
        if line.startswith("| `"):
            cell = line.split("|")[1]
            names.update(re.findall(r"`([^`]+)`", cell))
    return names


def check_map(text, tracked):
    listed = readme_map(text)
    dirs = {p.split("/")[0] + "/" for p in tracked if "/" in p}
    files = {p for p in tracked
             if "/" not in p and not p.startswith(".") and p != "README.md"}
    for name in sorted(dirs | files):
        if name not in listed:
            problem("README.md", f'"What is where" leaves out {name}')
    for name in sorted(listed):
        if name not in dirs | files and name != "build/":
            problem("README.md", f'"What is where" lists {name}, '
                    "which is not a tracked top-level file or folder")


def check_folder_map(root, md, tracked):
    folder = os.path.dirname(md)
    try:
        with open(os.path.join(root, md), encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        problem(md, f"cannot be read ({e})")
        return
    named = set()
    for line in text.splitlines():
        if line.startswith("|"):
            named.update(re.findall(r"`([^`]+)`", line.split("|")[1]))
    for path in tracked:
        if not path.startswith(folder + "/"):
            continue
        rel = path[len(folder) + 1:]
        if os.path.basename(rel) in FOLDER_MAP_SKIP and "/" not in rel:
            continue
        # a data folder named as a whole (`workloads/`, and none of its
        # files named on their own) covers its files
        parts = rel.split("/")
        covered = False
        for i in range(1, len(parts)):
            d = "/".join(parts[:i]) + "/"
            if d in named and not any(x.startswith(d) and x != d for x in named):
                covered = True
        # a header goes with its .c; a folder's *-int.h is what its files
        # share (harness/README.md says so once)
        stem, ext = os.path.splitext(rel)
        if ext == ".h" and (stem + ".c" in named or rel.endswith("-int.h")):
            covered = True
        if rel not in named and not covered:
            problem(md, f"its table leaves out {rel}")


def check_patch_table(root, tracked):
    md = "qemu/patches/README.md"
    numbers = {re.match(r"\d{4}", os.path.basename(p)).group(0)
               for p in tracked
               if re.fullmatch(r"qemu/patches/\d{4}-[^/]*\.patch", p)}
    try:
        with open(os.path.join(root, md), encoding="utf-8") as f:
            rows = set(re.findall(r"(?m)^\| (\d{4}) \|", f.read()))
    except OSError as e:
        problem(md, f"cannot be read ({e})")
        return
    for n in sorted(numbers - rows):
        problem(md, f"its table leaves out patch {n}")
    for n in sorted(rows - numbers):
        problem(md, f"its table has a row for {n}, but no patch {n}-*.patch")


def nvmimic_options(exe, cmd, cache):
    if cmd not in cache:
        r = subprocess.run([exe, cmd, "--help"], capture_output=True, text=True)
        if r.returncode != 0:
            cache[cmd] = None
        else:
            cache[cmd] = set(re.findall(r"(?m)^\s+(?:-\w, )?(--[a-z0-9-]+)",
                                        r.stdout))
    return cache[cmd]


def check_examples(text, exe):
    cache = {}
    r = subprocess.run([exe, "--help"], capture_output=True, text=True)
    commands = set(re.findall(r"(?m)^  ([a-z0-9-]+)\s", r.stdout))
    if not commands:
        problem(exe, "--help lists no commands")
        return
    lines = text.splitlines()
    in_block = False
    joined = []
    for n, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            in_block = not in_block
            continue
        if not in_block:
            continue
        if joined and joined[-1][1].endswith("\\"):
            joined[-1] = (joined[-1][0], joined[-1][1][:-1] + " " + line)
        else:
            joined.append((n, line))
    for n, line in joined:
        line = line.split("#")[0]
        for seg in re.split(r"[|;]|&&", line):
            m = re.search(r"(?:^|[\s/])nvmimic\s+([a-z0-9-]+)(.*)", seg)
            if not m:
                continue
            cmd, rest = m.group(1), m.group(2)
            if cmd not in commands:
                problem(f"README.md:{n}", f"runs `nvmimic {cmd}`, not a command")
                continue
            opts = nvmimic_options(exe, cmd, cache)
            if opts is None:
                problem(f"README.md:{n}", f"`nvmimic {cmd} --help` failed")
                continue
            for opt in re.findall(r"(?:^|\s)(--[a-z0-9-]+)", rest.split(">")[0]):
                if opt not in opts:
                    problem(f"README.md:{n}",
                            f"gives `nvmimic {cmd}` {opt}, which it does not take")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip().splitlines()[2])
    root = sys.argv[1]
    tracked = tracked_files(root)
    tracked_set = set(tracked)
    tracked_dirs = set()
    for p in tracked:
        parts = p.split("/")
        for i in range(1, len(parts)):
            tracked_dirs.add("/".join(parts[:i]))
    global top_dirs
    top_dirs = {p.split("/")[0] for p in tracked if "/" in p}
    top = top_dirs | {p for p in tracked if "/" not in p} | {"build"}

    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    n = len(readme.splitlines())
    if n > README_MAX_LINES:
        problem("README.md", f"has {n} lines, more than {README_MAX_LINES}: "
                "put the detail in a docs/ page and link it")
    check_map(readme, tracked)
    for md in sorted(p for p in tracked if p.endswith(".md")):
        with open(os.path.join(root, md), encoding="utf-8") as f:
            check_paths(root, md, f.read(), top, tracked_set, tracked_dirs)
    for md in FOLDER_MAPS:
        check_folder_map(root, md, tracked)
    check_patch_table(root, tracked)
    if len(sys.argv) == 3:
        check_examples(readme, sys.argv[2])

    for p in problems:
        print(f"check_docs: {p}")
    if problems:
        print(f"check_docs: {len(problems)} problem(s)")
        return 1
    print(f"check_docs: ok: README.md {n} lines; "
          f"{sum(1 for p in tracked if p.endswith('.md'))} Markdown files checked")
    return 0


top_dirs = set()

if __name__ == "__main__":
    sys.exit(main())

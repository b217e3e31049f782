#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every file under tests/ is run by `make check`, and every unittest method
of a test file is a test that runs.

    python3 tests/check_tests_run.py SOURCE_ROOT BUILD_DIR

`make check` runs every meson test (scripts/run-tests.sh: the guest suites
and all the others).  The meson tests are read from BUILD_DIR's
introspection (meson-info/intro-tests.json, intro-targets.json).  A file
under tests/ (git ls-files; README.md and meson.build aside) runs when:
  - a test's command line or environment names it, or it is a source of a
    target a test runs or depends on; or
  - a file that runs names it: by its path, by its file name, by its module
    name in a Python import, or, for a data file (not .py/.sh/.c/.h/.S/.ld),
    by its folder's path or one above it below tests/X/
    ("tests/fuzz/regressions/$t"/*);
  - tests/fuzz/meson.build and the files it names run when scripts/fuzz.sh
    runs and sets up the -Dfuzzing=true build that compiles them.
A Python file with unittest methods (test_* in a class) must be run whole by
some test, or each of its methods by name (CLASS.METHOD) by some test.

Before the real check, the same rules run on a made-up tree with a file no
test names and a method no test selects, and must report both: the check can
fail.
"""
import ast
import json
import os
import re
import subprocess
import sys
import tempfile

CODE_EXT = ('.py', '.sh', '.c', '.h', '.S', '.ld')
# Runs that no meson test's command line shows: (the file that, when run,
# makes it happen, the text in it that shows it does, what then runs)
EXTRA_ROUTES = [
    ('scripts/fuzz.sh', '-Dfuzzing=true', 'tests/fuzz/meson.build'),
]


def tracked_files(root):
    out = subprocess.run(['git', '-C', root, 'ls-files', '-z', 'tests'],
                         capture_output=True, check=True).stdout
    return sorted(p for p in out.decode().split('\0') if p)


def is_candidate(rel):
    base = os.path.basename(rel)
    return base not in ('README.md', 'meson.build')


def read_text(path):
    try:
        with open(path, 'rb') as f:
            data = f.read(2 << 20)
    except OSError:
        return ''
    return data.decode('utf-8', 'replace')


def test_commands(build):
    with open(os.path.join(build, 'meson-info', 'intro-tests.json')) as f:
        tests = json.load(f)
    with open(os.path.join(build, 'meson-info', 'intro-targets.json')) as f:
        targets = json.load(f)
    return tests, targets


def direct_runs(root, tests, targets):
    """{relative path: why} of the files tests name or build and run."""
    root = os.path.realpath(root)
    by_output = {}
    by_id = {}
    for t in targets:
        srcs = [s for ts in t.get('target_sources', [])
                for s in ts.get('sources', [])]
        by_id[t['id']] = (t['name'], srcs)
        for fn in t.get('filename', []):
            by_output[os.path.realpath(fn)] = (t['name'], srcs)
    out = {}

    def add(path, why):
        path = os.path.realpath(path)
        if path.startswith(root + os.sep):
            out.setdefault(os.path.relpath(path, root), why)

    for t in tests:
        words = list(t['cmd']) + ['%s' % v for v in t.get('env', {}).values()]
        for w in words:
            for part in re.split(r'[=:]', w):
                if os.path.isabs(part):
                    add(part, 'test %s' % t['name'])
                    hit = by_output.get(os.path.realpath(part))
                    if hit:
                        for s in hit[1]:
                            add(s, 'target %s of test %s' % (hit[0],
                                                               t['name']))
        for dep in t.get('depends', []):
            hit = by_id.get(dep)
            if hit:
                for s in hit[1]:
                    add(s, 'target %s of test %s' % (hit[0], t['name']))
    return out


def named_in(text, rel, source_rel):
    """Does @text (of file @source_rel) name the file @rel?"""
    base = os.path.basename(rel)
    b = r'(?<![\w.-])'
    if rel in text:
        return True
    if re.search(b + re.escape(base) + r'(?![\w-])', text):
        return True
    stem, ext = os.path.splitext(base)
    if (ext == '.py' and source_rel.endswith('.py')
            and re.search(r'\b(import|from)\s+' + re.escape(stem) + r'\b',
                          text)):
        return True
    if ext not in CODE_EXT:
        # a data file's folder, or a folder above it below tests/X/
        folder = os.path.dirname(rel)
        while folder.count('/') >= 2:
            if re.search(re.escape(folder) + r'/(?![\w.-])', text):
                return True
            folder = os.path.dirname(folder)
    return False


def reach(root, files, direct):
    """{relative path: why} of every file that runs."""
    reached = dict(direct)
    texts = {}
    todo = list(reached)
    candidates = [f for f in files]
    while todo:
        src = todo.pop()
        if src not in texts:
            texts[src] = read_text(os.path.join(root, src))
        text = texts[src]
        for trigger, sign, target in EXTRA_ROUTES:
            if src == trigger and sign in text and target not in reached:
                reached[target] = '%s (%s)' % (trigger, sign)
                todo.append(target)
        for f in candidates:
            if f in reached or f == src:
                continue
            if named_in(text, f, src):
                reached[f] = 'named in %s' % src
                todo.append(f)
    return reached


def unittest_methods(path):
    """{class: [test methods]} of a Python file."""
    try:
        tree = ast.parse(read_text(path))
    except SyntaxError as e:
        return {'<syntax error %s>' % e: ['?']}
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            ms = [n.name for n in node.body
                  if isinstance(n, ast.FunctionDef)
                  and n.name.startswith('test')]
            if ms:
                out[node.name] = ms
    return out


def check(root, build, files=None):
    """The list of problems (empty when every test runs)."""
    files = files if files is not None else tracked_files(root)
    tests, targets = test_commands(build)
    direct = direct_runs(root, tests, targets)
    reached = reach(root, files, direct)
    problems = []
    for f in files:
        if is_candidate(f) and f not in reached:
            problems.append('%s: no test of make check runs it (no test '
                            'command, target or file that runs names it)' % f)
    real = os.path.realpath(root)
    for f in files:
        if not f.endswith('.py') or f not in reached:
            continue
        methods = unittest_methods(os.path.join(root, f))
        if not methods:
            continue
        path = os.path.join(real, f)
        whole, chosen = False, set()
        for t in tests:
            cmd = [os.path.realpath(c) if os.path.isabs(c) else c
                   for c in t['cmd']]
            if path not in cmd:
                continue
            sel = [c for c in cmd[cmd.index(path) + 1:]
                   if re.fullmatch(r'[A-Za-z_]\w*\.test\w*', c)]
            if sel:
                chosen.update(sel)
            else:
                whole = True
        if whole:
            continue
        for cls, ms in methods.items():
            for m in ms:
                if '%s.%s' % (cls, m) not in chosen:
                    problems.append('%s: %s.%s is not a meson test (no test '
                                    'runs the file whole or selects it)'
                                    % (f, cls, m))
    return problems, len(reached), len(tests)


def self_test():
    """The rules on a made-up tree: they must find what is not run."""
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, 'tests', 'x'))
        os.makedirs(os.path.join(d, 'b', 'meson-info'))
        files = {
            'tests/x/test_a.py': 'import helper\nclass A(object):\n'
                                 '    def test_one(self): pass\n'
                                 '    def test_two(self): pass\n',
            'tests/x/helper.py': 'X = 1\n',
            'tests/x/orphan.sh': 'exit 1\n',
            'tests/x/data.json': '{}\n',
        }
        for rel, text in files.items():
            with open(os.path.join(d, rel), 'w') as f:
                f.write(text)
        test_a = os.path.join(os.path.realpath(d), 'tests/x/test_a.py')
        with open(os.path.join(d, 'b', 'meson-info', 'intro-tests.json'),
                  'w') as f:
            json.dump([{'name': 'a_one', 'cmd': ['/usr/bin/python3', test_a,
                                                  'A.test_one'],
                        'env': {}, 'depends': []}], f)
        with open(os.path.join(d, 'b', 'meson-info', 'intro-targets.json'),
                  'w') as f:
            json.dump([], f)
        problems, _, _ = check(d, os.path.join(d, 'b'), sorted(files))
        want = ['tests/x/orphan.sh: ', 'tests/x/data.json: ',
                'tests/x/test_a.py: A.test_two ']
        text = '\n'.join(problems)
        missing = [w for w in want if w not in text]
        extra = [p for p in problems
                 if not any(p.startswith(w) for w in want)]
        if missing or extra or len(problems) != len(want):
            sys.exit('check_tests_run: the self-test on a made-up tree '
                     'reported %r; it must report exactly %r'
                     % (problems, want))


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: check_tests_run.py SOURCE_ROOT BUILD_DIR')
    self_test()
    problems, nreached, ntests = check(sys.argv[1], sys.argv[2])
    for p in problems:
        print('check_tests_run: ' + p)
    if problems:
        sys.exit('check_tests_run: %d problem(s)' % len(problems))
    print('check_tests_run: %d meson tests; every file under tests/ runs '
          '(%d files reached) and every unittest method is a test'
          % (ntests, nreached))


if __name__ == '__main__':
    main()

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check_run_layers.py [RUN_DIR]: harness/run/'s files call one way, top-down.

run-int.h lists the files of run/ in sections, top first ("/* run.c: ...",
"/* opts.c: ...", ...).  This reads every .c file of the folder, finds what
each defines for the others (functions and variables that are not static)
and what each uses of the others, and fails when
  - a file uses what a file at its own level or above it defines (a call
    back up, or two files calling each other),
  - a function is declared in one file's section of run-int.h but defined
    in another file,
  - a file that includes run-int.h is missing from the list, or a file the
    list names does not exist,
  - a file with a header of its own uses run/'s context: such a file sits
    below all of run/ and knows nothing of a run (QMP, the line sockets
    and QEMU's command line live in harness/qemu/ for that reason).
It prints the calls it found, top-down, so a reader sees the order.

--self-test: the check on copies of the folder with one call back up, and
with a function declared in the wrong section, must fail on each.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

IDENT = re.compile(r'[A-Za-z_]\w*')


def strip(text):
    """The C text without comments, string and character literals."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append('\n' * text.count('\n', i, j))
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def no_preprocessor(text):
    """Without preprocessor lines (and their continuations)."""
    lines, cont = [], False
    for line in text.split('\n'):
        if cont or line.lstrip().startswith('#'):
            cont = line.endswith('\\')
            lines.append('')
        else:
            lines.append(line)
    return '\n'.join(lines)


def exported(text):
    """Names a file's top level defines without static: functions and
    variables."""
    names = set()
    depth, decl = 0, []
    for c in no_preprocessor(text):
        if depth == 0 and c in ';{':
            d = ' '.join(''.join(decl).split())
            decl = []
            if c == '{':
                depth = 1
            words = IDENT.findall(d)
            if not words or words[0] in ('typedef', 'struct', 'enum',
                                         'union', 'extern', 'static'):
                if not (words and words[0] in ('struct', 'enum', 'union')
                        and '=' in d):
                    continue
            if 'static' in words:
                continue
            head = d.split('=')[0]
            if '(' in head:
                if c == '{':            # a function's definition
                    m = re.search(r'(\w+)\s*\($', head[:head.index('(') + 1])
                    if m:
                        names.add(m.group(1))
            else:                       # a variable's definition
                m = re.search(r'(\w+)\s*(\[[^\]]*\])?\s*$', head)
                if m:
                    names.add(m.group(1))
            continue
        if c == '{':
            depth += 1
        elif c == '}':
            depth -= 1
        elif depth == 0:
            decl.append(c)
    return names


def sections(header):
    """run-int.h's files, top-down, and the names each section declares."""
    order, declared, cur = [], {}, None
    text = open(header).read()
    start = text.find('The files of run/, top-down')
    if start < 0:
        sys.exit('check_run_layers: %s has no "The files of run/, top-down" '
                 'list' % header)
    for line in text[start:].split('\n'):
        m = re.match(r'/\* (\w[\w-]*\.c): ', line)
        if m:
            cur = m.group(1)
            order.append(cur)
            declared[cur] = set()
            continue
        if cur and not line.startswith((' ', '/*', '#')):
            m = re.search(r'(\w+)\s*\(', line)
            if m:
                declared[cur].add(m.group(1))
            m = re.match(r'extern .*?(\w+)(\[\])?;', line)
            if m:
                declared[cur].add(m.group(1))
    return order, declared


def self_test(d):
    """Each broken copy of @d must fail the check, naming what is wrong."""
    cases = [
        # the bottom file calling the top one
        ('context.c', lambda t: t + '\nvoid ctx_up(void)\n{\n    '
         'run_main(0, NULL);\n}\n', 'uses run_main of run.c'),
        # two files calling each other: agent.c calls plan.c's back
        ('agent.c', lambda t: t + '\nvoid agent_up(void)\n{\n    '
         'run_plan_free(NULL);\n}\n', 'uses run_plan_free of plan.c'),
        # a declaration in another file's section
        ('run-int.h', lambda t: t.replace(
            'void run_print_table(const Run *r);\n', '').replace(
            'void run_save_results(const Run *r);\n',
            'void run_save_results(const Run *r);\n'
            'void run_print_table(const Run *r);\n'),
         'declares run_print_table in the record.c section'),
    ]
    me = os.path.abspath(__file__)
    for name, edit, want in cases:
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, 'run')
            shutil.copytree(d, copy)
            path = os.path.join(copy, name)
            with open(path) as f:
                text = f.read()
            with open(path, 'w') as f:
                f.write(edit(text))
            p = subprocess.run([sys.executable, me, copy],
                               capture_output=True, text=True)
            if p.returncode == 0 or want not in p.stdout:
                print('check_run_layers: FAIL self-test: a copy with %s '
                      'passed or did not say so:\n%s' % (want, p.stdout))
                return 1
            print('check_run_layers: self-test ok: caught "%s"' % want)
    return 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    args = sys.argv[1:]
    selftest = '--self-test' in args
    args = [a for a in args if a != '--self-test']
    d = args[0] if args else os.path.join(here, '..', '..', 'harness', 'run')
    if selftest and self_test(d):
        return 1
    header = os.path.join(d, 'run-int.h')
    order, declared = sections(header)
    files = sorted(f for f in os.listdir(d) if f.endswith('.c'))
    texts = {f: strip(open(os.path.join(d, f)).read()) for f in files}
    raw = {f: open(os.path.join(d, f)).read() for f in files}
    bad = []

    for f in order:
        if f not in files:
            bad.append('run-int.h lists %s, which is not in %s' % (f, d))
    uses_ctx = [f for f in files if '"run-int.h"' in raw[f]]
    for f in uses_ctx:
        if f not in order:
            bad.append('%s includes run-int.h but run-int.h does not list it'
                       % f)
    defs = {f: exported(texts[f]) for f in files}
    owner = {}
    for f in files:
        for name in defs[f]:
            owner[name] = f
    for f, names in declared.items():
        for name in sorted(names):
            if name in owner and owner[name] != f:
                bad.append('run-int.h declares %s in the %s section, but %s '
                           'defines it' % (name, f, owner[name]))
            elif name not in owner:
                bad.append('run-int.h declares %s in the %s section, but no '
                           'file defines it' % (name, f))
    level = {f: i for i, f in enumerate(order)}
    bottom = len(order)
    edges = []
    for f in files:
        used = set(IDENT.findall(texts[f]))
        for name in sorted(used):
            g = owner.get(name)
            if not g or g == f:
                continue
            lf, lg = level.get(f, bottom), level.get(g, bottom)
            edges.append((f, g, name))
            if f not in level and g in level:
                bad.append('%s (a module with its own header) uses %s of %s: '
                           'it must know nothing of a run' % (f, name, g))
            elif lg <= lf and g in level:
                bad.append('%s uses %s of %s, which run-int.h lists above '
                           'it (calls go top-down)' % (f, name, g))
    calls = {}
    for f, g, name in edges:
        calls.setdefault(f, {}).setdefault(g, []).append(name)
    for f in order + [f for f in files if f not in level]:
        for g in sorted(calls.get(f, {}), key=lambda x: level.get(x, bottom)):
            print('check_run_layers: %s -> %s (%s)'
                  % (f, g, ', '.join(calls[f][g])))
    for b in bad:
        print('check_run_layers: FAIL ' + b)
    if bad:
        return 1
    print('check_run_layers: ok: %d files, %d calls between them, all '
          'top-down' % (len(files), sum(len(v) for v in calls.values())))
    return 0


if __name__ == '__main__':
    sys.exit(main())

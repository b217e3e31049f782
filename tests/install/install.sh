#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# install.sh BUILD: make install into a temporary prefix, then use it with
# nothing of the build tree: the environment holds no NVMIMIC_* variable and
# no build path, the current directory is elsewhere, and no path of the
# build or source tree is compiled into the installed nvmimic.  From the
# install: nvmimic profiles, nvmimic sim (its results validate), the manual
# page, and tests/harness/run_quick.sh with the installed nvmimic (installed
# QEMU and guest).  The prefix is moved first: an installed tree may move.
set -u
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/nvmimic-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "install: FAIL $*"; exit 1; }

# DESTDIR install of the configured prefix: PREFIX lands under $work/root
meson install -C "$build" --no-rebuild --destdir "$work/root" --quiet \
    >"$work/install.log" 2>&1 || fail "meson install: $(tail -5 "$work/install.log")"
prefix=$(meson introspect "$build" --buildoptions |
         /usr/bin/python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"][0])')
root="$work/root$prefix"
nv="$root/bin/nvmimic"
[ -x "$nv" ] || fail "no $nv"
for f in share/nvmimic/profiles/crucial-p5-2tb.ini share/nvmimic/profiles/reviews/four-corners.tsv \
         share/nvmimic/vdi/vdi-boot.fio share/nvmimic/workloads/tpcc/tpcc.sh \
         share/nvmimic/vm-images/run-guest.sh share/nvmimic/vm-images/agent.sh \
         share/nvmimic/vm-images/build-guest.sh share/man/man1/nvmimic.1 \
         libexec/nvmimic/nvmimic-render libexec/nvmimic/qemu-system-x86_64 \
         share/nvmimic/guest/vmlinuz; do
    [ -e "$root/$f" ] || fail "$f was not installed (log: $(tail -3 "$work/install.log"))"
done
[ -x "$root/share/nvmimic/vm-images/run-guest.sh" ] || fail "run-guest.sh is not executable"
[ -e "$root/bin/nvmimic-uninstalled.ini" ] && fail "nvmimic-uninstalled.ini was installed"
# no build or source path in the program's data (debug info aside)
for sec in .rodata .data; do
    if objdump -s -j "$sec" "$nv" 2>/dev/null | cut -c 44- | tr -d '\n' |
       grep -q -e "$build" -e "$src"; then
        fail "the installed nvmimic has a path of the build tree in $sec"
    fi
done
echo "ok: installed into $root; no build path in the program"

# from here on: nothing of the build tree
mv "$root" "$work/moved"         # the prefix moves: nvmimic follows
root=$work/moved nv=$work/moved/bin/nvmimic
cd "$work"
clean=(env -i HOME="$work" PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8)
out=$("${clean[@]}" "$nv" profiles) || fail "nvmimic profiles: $out"
[ "$(echo "$out" | grep -c ' GB ')" -ge 5 ] || fail "nvmimic profiles listed: $out"
echo "ok: nvmimic profiles from the install: $(echo "$out" | wc -l) profiles"
mkdir -p "$work/sim"
"${clean[@]}" "$nv" sim --profile crucial-p5-2tb --suite vdi --duration-s 0.1 \
    --format json >"$work/sim/results.json" || fail "nvmimic sim vdi"
"${clean[@]}" "$nv" sim --profile intel-670p-2tb --suite four-corners --quick \
    --out "$work/simout" >/dev/null || fail "nvmimic sim --out"
/usr/bin/python3 "$src/tests/results/validate.py" "$work/sim" "$work/simout" || fail "sim's results"
echo "ok: nvmimic sim (VDI job files and reviews from the install)"
"${clean[@]}" MANPATH="$root/share/man" man -P cat nvmimic 2>/dev/null | grep -q 'nvmimic run' ||
    "${clean[@]}" man -l -P cat "$root/share/man/man1/nvmimic.1" | grep -q 'nvmimic run' ||
    fail "man nvmimic"
echo "ok: man nvmimic"

# one quick guest run: the installed QEMU, guest, agent and scripts.  It is
# also the harness's quick run check (tests/harness/run_quick.sh: schema,
# guest vs device vs model, results.json read and written back as it was by
# the build's test program results-rewrite, nvmimic report keeps
# results.csv): one boot for both.
"${clean[@]}" bash "$src/tests/harness/run_quick.sh" "$nv" \
    "$build/tests/results/results-rewrite" ||
    fail "run_quick with the installed nvmimic (above)"
echo "install: OK"

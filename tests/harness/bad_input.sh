#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bad_input.sh NVMIMIC: `nvmimic run` refuses an unknown suite, profile, mode
# or workload, with exit status 2 and the list of valid ones, and a missing
# QEMU binary or guest with one line naming it; nothing boots.
set -u
nvmimic=$1
fails=0
expect() {  # expect RC PATTERN ARGS...
    local want=$1 pat=$2 out rc
    shift 2
    out=$("$nvmimic" run "$@" 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" != "$want" ] || ! grep -q -- "$pat" <<<"$out"; then
        echo "bad_input: FAIL 'nvmimic run $*': exit $rc (want $want), said: $out"
        fails=$((fails + 1))
    fi
}
expect 2 "unknown suite 'nope' (valid: four-corners)" --profile crucial-p5-2tb --suite nope
expect 2 "valid profiles: crucial-p2-2tb, crucial-p2-500g, crucial-p5-1tb, crucial-p5-2tb, intel-670p-2tb" \
    --profile no-such-drive --suite four-corners
expect 2 "unknown mode 'fast' (valid: simtime, realtime)" --profile crucial-p5-2tb --suite four-corners --mode fast
expect 2 "unknown workload 'x' (4k-random-read, 4k-random-write, 64k-seq-read, 64k-seq-write)" \
    --profile crucial-p5-2tb --suite four-corners --workloads x --qemu /bin/true
expect 2 "run needs --suite" --profile crucial-p5-2tb
expect 2 "--points" --profile crucial-p5-2tb --suite four-corners --points 0
expect 2 "unknown option '--bogus'" --bogus 1
expect 1 "QEMU '/nonexistent/qemu' not found" --profile crucial-p5-2tb --suite four-corners --qemu /nonexistent/qemu
expect 1 "no guest in '/nonexistent'" --profile crucial-p5-2tb --suite four-corners --guest-dir /nonexistent
[ "$fails" = 0 ] && echo "bad_input: OK"
exit $((fails > 0))

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# gate.sh: nvmimic's performance-regression gate for a CI of a virtualized
# storage stack.  The steps of docs/ci/Dockerfile, .gitlab-ci.yml and
# github-actions.yml live here, in this one script, so they can be run (and
# tested, tests/harness/ci_gate.sh) without a container engine.
#
#   1. build nvmimic: Debian packages, the pinned QEMU, the CLI, the guest
#      (skipped with GATE_BUILD=0, for a tree built already)
#   2. the baseline: the stack as it was (GATE_BASE_* below), unless
#      GATE_BASELINE names a run kept from before (e.g. a CI artifact)
#   3. the candidate: the stack as changed (GATE_NEW_*), gated against the
#      baseline with `nvmimic run --baseline` (= nvmimic diff)
#   4. the report: report.html with the baseline's curves beside
#
# Both runs are in simulated time: the same inputs give the same figures on
# any runner under any load, so the gate's default tolerance is 0 and any
# moved figure fails it, with the table of deltas in the log.
#
# Exit status: 0 nothing moved; 1 a figure moved (the table says which and
# by how much) or the candidate run failed; 2 the gate itself could not run.
#
# Settings (environment):
#   GATE_OUT          where the runs go (default out/gate)
#   GATE_PROFILE      drive profile (default crucial-p2-500g)
#   GATE_WORKLOADS    four-corners workloads (default 4k-random-read,64k-seq-read)
#   GATE_POINTS       curve points in % of the peak (default 20,60)
#   GATE_SEED         seed of the drive model and fio (default 1)
#   GATE_RUN_ARGS     more nvmimic run options for both runs (default --quick)
#   GATE_BASE_APPEND, GATE_NEW_APPEND   guest kernel command line (--guest-append)
#   GATE_BASE_PRE, GATE_NEW_PRE         a guest shell pre-step (--guest-pre)
#   GATE_BASE_FIO, GATE_NEW_FIO         more fio options (--fio-opts)
#   GATE_BASELINE     an existing baseline run directory: step 2 is skipped
#   GATE_TOLERANCE    percent a figure may move (default 0)
#   GATE_BUILD        1 (default) build first; 0 use the tree as built
#   GATE_BUILD_DIR    nvmimic's build directory (default build/)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
say() { echo "gate: $*"; }
die() { echo "gate: $*" >&2; exit 2; }

out=${GATE_OUT:-out/gate}
profile=${GATE_PROFILE:-crucial-p2-500g}
workloads=${GATE_WORKLOADS:-4k-random-read,64k-seq-read}
points=${GATE_POINTS:-20,60}
seed=${GATE_SEED:-1}
run_args=${GATE_RUN_ARGS:---quick}
tolerance=${GATE_TOLERANCE:-0}
nvmimic=${GATE_BUILD_DIR:-$root/build}/nvmimic

# 1. build
if [ "${GATE_BUILD:-1}" = 1 ]; then
    say "building nvmimic (deps, QEMU, CLI, guest)"
    make qemu nvmimic guest || die "the build failed"
fi
[ -x "$nvmimic" ] || die "$nvmimic not built (GATE_BUILD=1 builds it)"

# run NAME APPEND PRE FIO [OPTIONS...]: one run of the stack into $out/NAME
run() {
    name=$1 append=$2 pre=$3 fio=$4
    shift 4
    rm -rf "${out:?}/$name"
    # shellcheck disable=SC2086 # run_args: words
    set -- "$nvmimic" run --profile "$profile" --suite four-corners \
        --mode simtime --workloads "$workloads" --points "$points" \
        --seed "$seed" --out "$out/$name" $run_args "$@"
    [ -z "$append" ] || set -- "$@" --guest-append "$append"
    [ -z "$pre" ] || set -- "$@" --guest-pre "$pre"
    [ -z "$fio" ] || set -- "$@" --fio-opts "$fio"
    say "$name: $*"
    "$@"
}

mkdir -p "$out"
# 2. the baseline
if [ -n "${GATE_BASELINE:-}" ]; then
    base=$GATE_BASELINE
    [ -f "$base/results.json" ] || die "GATE_BASELINE=$base has no results.json"
    say "baseline: $base (kept from before)"
else
    base=$out/base
    run base "${GATE_BASE_APPEND:-}" "${GATE_BASE_PRE:-}" "${GATE_BASE_FIO:-}" ||
        die "the baseline run failed (see $base/results.json)"
fi

# 3. the candidate, gated
set +e
run new "${GATE_NEW_APPEND:-}" "${GATE_NEW_PRE:-}" "${GATE_NEW_FIO:-}" \
    --baseline "$base" --tolerance "$tolerance"
rc=$?
set -e
[ -f "$out/new/results.json" ] || die "the candidate run left no results.json"

# 4. the report, the baseline beside: the run drew it (report.html)
[ -f "$out/new/report.html" ] || say "warning: the run drew no report"
if [ "$rc" = 0 ]; then
    say "PASS: no figure moved beyond ${tolerance} % (report: $out/new/report.html)"
else
    say "FAIL: exit $rc: figures moved (table above, $out/new/diff.txt) or the run failed (report: $out/new/report.html)"
fi
exit "$rc"

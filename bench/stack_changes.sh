#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# stack_changes.sh [--nvmimic B] [--qemu Q] [--guest-dir G] [--out DIR]
#
# The regression gate on real storage-stack changes (docs/gate.md,
# "Shown on real stack changes").  One baseline run in simulated time, then the same run
# again unchanged (the null change) and once per change of the guest's
# stack, each compared with the baseline by nvmimic diff at tolerance 0.
# Prints a table: the change, how many figures moved, and the guest's and
# the device's mean latency at the peak and at 50 % with their deltas.
#
# The run: crucial-p5-2tb (make demo's drive), 4K random read at 128
# outstanding (nvmimic-load in the guest), the peak and 50 % of it,
# --quick, seed 1, the default simulated CPU (4e9 instructions per second).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
nvmimic=$root/build/nvmimic qemu= guestdir= out=
while [ $# -gt 0 ]; do
    case $1 in
        --nvmimic) nvmimic=$2; shift 2 ;;
        --qemu) qemu=$2; shift 2 ;;
        --guest-dir) guestdir=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        *) echo "stack_changes: unknown option '$1'" >&2; exit 2 ;;
    esac
done
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-stack.XXXXXX")
mkdir -p "$out"
common=(--profile crucial-p5-2tb --suite four-corners --mode simtime --quick
        --workloads 4k-random-read --points 50 --seed 1)
[ -n "$qemu" ] && common+=(--qemu "$qemu")
[ -n "$guestdir" ] && common+=(--guest-dir "$guestdir")

run() {  # run NAME ARGS...: one run into $out/NAME
    local name=$1
    shift
    rm -rf "${out:?}/$name"
    "$nvmimic" run "${common[@]}" "$@" --out "$out/$name" >"$out/$name.log" 2>&1 || {
        echo "stack_changes: run $name failed:" >&2
        tail -n 5 "$out/$name.log" >&2
        exit 1
    }
}

# figure FILE POINT KEY: a figure of results.json (POINT peak or 50)
figure() {
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1] + "/results.json"))
w = r["workloads"][0]
pt = w["peak"] if sys.argv[2] == "peak" else \
    next(p for p in w["curve"] if p["target_pct"] == int(sys.argv[2]))
print(repr(pt[sys.argv[3]]))
PY
}

changes=(
    "null|the same inputs again|"
    "io-timeout|nvme_core.io_timeout=255 (off the I/O path)|--guest-append nvme_core.io_timeout=255"
    "threaded-irq|nvme.use_threaded_interrupts=1|--guest-append nvme.use_threaded_interrupts=1"
    "mq-deadline|I/O scheduler mq-deadline (stock: none)|--guest-pre echo mq-deadline >/sys/block/nvme0n1/queue/scheduler"
    "no-iostats|block-layer I/O accounting off (queue/iostats 0)|--guest-pre echo 0 >/sys/block/nvme0n1/queue/iostats"
)

start=$(date +%s)
run base
printf '%-13s %-48s %7s  %-30s %-30s %-30s\n' change what moved \
    "guest lat peak us (delta)" "guest lat 50 % us (delta)" "device lat 50 % us (delta)"
for c in "${changes[@]}"; do
    IFS='|' read -r name what arg <<<"$c"
    if [ -z "$arg" ]; then
        run "$name"
    else
        opt=${arg%% *} val=${arg#* }
        run "$name" "$opt" "$val"
    fi
    set +e
    "$nvmimic" diff "$out/base" "$out/$name" >"$out/$name.diff"
    rc=$?
    set -e
    moved=$(sed -n 's/^\([0-9]*\) figures compared: \([0-9]*\) changed.*/\2/p' "$out/$name.diff")
    cells=()
    for f in "peak lat_us" "50 lat_us" "50 host_lat_us"; do
        set -- $f
        b=$(figure "$out/base" "$1" "$2") n=$(figure "$out/$name" "$1" "$2")
        cells+=("$(python3 -c "b, n = $b, $n; print(f'{n:.3f} ({n - b:+.3f}, {(n / b - 1) * 100:+.3f} %)')")")
    done
    printf '%-13s %-48s %3s/%-3s  %-30s %-30s %-30s\n' "$name" "$what" "$moved" \
        "$(sed -n 's/^\([0-9]*\) figures compared.*/\1/p' "$out/$name.diff")" \
        "${cells[0]}" "${cells[1]}" "${cells[2]}"
    case $name in
        null) [ "$rc" = 0 ] || { echo "stack_changes: the null change moved figures" >&2; exit 1; } ;;
    esac
done
echo "stack_changes: $(( $(date +%s) - start )) s wall; runs in $out"

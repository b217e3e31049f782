#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# lateness.sh: how late the device posts completions in real time.  A guest
# under TCG in real time (no icount: QEMU_CLOCK_VIRTUAL follows the host's
# clock) reads 4K blocks at fixed Poisson rates from the profiled device on
# null-co; after each rate the device's statistics give the lateness of
# every completion, posted minus scheduled time (query-nvmimic-stats'
# late-p50-us and late-p99-us, 0 for one on time).  Each rate boots its own
# guest, so each statistics window holds that rate alone (fio's ramp too).
#
# usage: bench/lateness.sh [--profile NAME|PATH] [--rates R,R,...]
#            [--seconds S] [--qemu PATH] [--guest-dir DIR]
# Defaults: crucial-p5-2tb, 1000,2000,5000,10000 IOPS, 10 s each.
# Prints a table and one JSON line.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
profile=crucial-p5-2tb rates=1000,2000,5000,10000 secs=10
qemu=${NVMIMIC_QEMU:-$root/build/qemu/qemu-system-x86_64}
guest=${NVMIMIC_GUEST_DIR:-$root/build/guest}
while [ $# -gt 0 ]; do
    case $1 in
        --profile) profile=$2; shift 2 ;;
        --rates) rates=$2; shift 2 ;;
        --seconds) secs=$2; shift 2 ;;
        --qemu) qemu=$2; shift 2 ;;
        --guest-dir) guest=$2; shift 2 ;;
        *) echo "lateness: unknown option $1 (see the header)" >&2; exit 2 ;;
    esac
done
case $profile in
    */*|*.ini) ;;
    *) profile=$root/profiles/$profile.ini ;;
esac
[ -f "$profile" ] || { echo "lateness: no profile $profile" >&2; exit 2; }
cap=$(sed -n 's/^capacity-bytes *= *\([0-9]*\).*/\1/p' "$profile")
work=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-lateness.XXXXXX")
trap 'rm -rf "$work"' EXIT
for r in $(echo "$rates" | tr , ' '); do
    mkdir -p "$work/job-$r"
    cat >"$work/job-$r/run.sh" <<EOF
fio --name=late --filename=/dev/nvme0n1 --direct=1 --ioengine=libaio \\
    --rw=randread --bs=4k --iodepth=32 --numjobs=1 --size=10g \\
    --norandommap=1 --randrepeat=0 --rate_iops=$r --rate_process=poisson \\
    --time_based=1 --ramp_time=1 --runtime=$secs --output-format=json \\
    --output=\$RESULTS/fio.json
EOF
    bash "$root/vm-images/run-guest.sh" --accel tcg --device-stats nvm0 \
        "$qemu" "$guest" "$work/job-$r" "$work/res-$r" $((600 + secs * 30)) \
        -drive "if=none,id=d,driver=null-co,size=$cap,read-zeroes=on" \
        -device "nvme,id=nvm0,drive=d,addr=0x10,profile=$profile" \
        >"$work/run-$r.log" 2>&1 || {
            echo "lateness: the guest run at $r IOPS failed:" >&2
            tail -n 5 "$work/run-$r.log" >&2
            exit 1
        }
done
python3 - "$work" "$rates" "$secs" "$(basename "$profile" .ini)" <<'PY'
import json, sys
work, rates, secs, prof = sys.argv[1], sys.argv[2].split(","), sys.argv[3], sys.argv[4]
rows = []
print(f"{prof}, TCG in real time, 4K random reads at fixed Poisson rates, "
      f"{secs} s each; lateness = posted minus scheduled time:")
print(f"  {'rate':>7s} {'guest IOPS':>10s} {'posted':>8s} {'late':>8s} "
      f"{'p50 us':>8s} {'p99 us':>8s} {'max us':>8s}")
for r in rates:
    st = json.load(open(f"{work}/res-{r}/device-stats.json"))
    c = next(k for k in st["classes"] if k["class"] == "read")
    fio = json.load(open(f"{work}/res-{r}/fio.json"))["jobs"][0]["read"]
    row = {"rate": int(r), "guest_iops": round(fio["iops"]),
           "posted": c["posted"], "late": c["late"],
           "late_p50_us": c["late-p50-us"], "late_p99_us": c["late-p99-us"],
           "late_max_us": c["late-max-us"]}
    rows.append(row)
    print(f"  {r:>7s} {row['guest_iops']:10d} {c['posted']:8d} {c['late']:8d} "
          f"{c['late-p50-us']:8.1f} {c['late-p99-us']:8.1f} "
          f"{c['late-max-us']:8.1f}")
print(json.dumps({"profile": prof, "seconds": float(secs), "rates": rows}))
PY

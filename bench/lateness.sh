#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# lateness.sh: how late the device posts completions in real time, by the
# main loop's timer (timing-thread=off, the "before"), by the timing
# thread (timing-thread=on, the default), and by the timing thread that
# also takes the doorbells (path db: timing-doorbells=on, the vCPU queues
# its doorbell writes without the BQL and the thread replays them).  A guest under TCG in real time
# (no icount: QEMU_CLOCK_VIRTUAL follows the host's clock) reads 4K blocks
# at fixed Poisson rates from the profiled device on null-co; after each
# rate the device's statistics give the lateness of every completion,
# posted minus scheduled time (query-nvmimic-stats' late-p50-us,
# late-p99-us, late-max-us; 0 for one on time) and, with the thread, its
# own figures (the wait for the BQL).  Each rate and path boots its own
# guest, so each statistics window holds that rate alone (fio's ramp too).
# Last, per path, a QD1 run without a rate: the guest's mean latency minus
# the device's (the model's scheduled latency plus the lateness), what the
# guest's own stack and TCG add.
#
# usage: bench/lateness.sh [--profile NAME|PATH] [--rates R,R,...]
#            [--seconds S] [--paths off,on,db] [--device-opts ,K=V...]
#            [--qemu-cpus LIST] [--qemu PATH] [--guest-dir DIR] [--keep DIR]
#            [--accel tcg|kvm]
# Defaults: crucial-p5-2tb, 1000,2000,5000,10000,20000,50000,100000 IOPS
# (past some 14,000 the TCG guest cannot keep up: its IOPS say how far it
# got), 10 s each, paths off and on.  Prints a table and one JSON line; docs/
# realtime.md has its output with the commit, date and load it ran at.
# --qemu-cpus runs each QEMU on those host CPUs only (taskset -c LIST; its
# threads inherit them, a timing-cpu= in --device-opts then moves the
# timing thread alone), so the timing thread can have a CPU of its own:
#   --qemu-cpus 0 --device-opts ,timing-cpu=1,timing-fifo=on
# --accel kvm runs the guests under KVM (default tcg; run-guest.sh's probe
# says whether KVM works here, `nvmimic doctor` too).
# --keep DIR keeps each guest's results there (res-RATE-PATH/qemu.log holds
# QEMU's stderr; bench/bql-holders.sh reads it).
# The header prints the host's real-time throttling
# (/proc/sys/kernel/sched_rt_runtime_us), which a SCHED_FIFO thread that
# polls most of the time runs into (docs/realtime.md).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
profile=crucial-p5-2tb rates=1000,2000,5000,10000,20000,50000,100000 secs=10
paths=off,on devopts= qemucpus= keep= accel=tcg
qemu=${NVMIMIC_QEMU:-$root/build/qemu/qemu-system-x86_64}
guest=${NVMIMIC_GUEST_DIR:-$root/build/guest}
while [ $# -gt 0 ]; do
    case $1 in
        --profile) profile=$2; shift 2 ;;
        --rates) rates=$2; shift 2 ;;
        --seconds) secs=$2; shift 2 ;;
        --paths) paths=$2; shift 2 ;;
        --device-opts) devopts=$2; shift 2 ;;
        --qemu-cpus) qemucpus=$2; shift 2 ;;
        --qemu) qemu=$2; shift 2 ;;
        --guest-dir) guest=$2; shift 2 ;;
        --keep) keep=$2; shift 2 ;;
        --accel) accel=$2; shift 2 ;;
        *) echo "lateness: unknown option $1 (see the header)" >&2; exit 2 ;;
    esac
done
case $profile in
    */*|*.ini) ;;
    *) profile=$root/profiles/$profile.ini ;;
esac
[ -f "$profile" ] || { echo "lateness: no profile $profile" >&2; exit 2; }
case $accel in tcg|kvm) ;; *) echo "lateness: --accel takes tcg or kvm, not $accel" >&2; exit 2 ;; esac
for p in $(echo "$paths" | tr , ' '); do
    case $p in on|off|db) ;; *) echo "lateness: --paths takes off, on and db, not $p" >&2; exit 2 ;; esac
done
pin=
if [ -n "$qemucpus" ]; then
    taskset -c "$qemucpus" true 2>/dev/null ||
        { echo "lateness: --qemu-cpus $qemucpus is not a CPU list taskset takes" >&2; exit 2; }
    pin="taskset -c $qemucpus"
fi
rtrun=$(cat /proc/sys/kernel/sched_rt_runtime_us 2>/dev/null || echo unknown)
cap=$(sed -n 's/^capacity-bytes *= *\([0-9]*\).*/\1/p' "$profile")
work=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-lateness.XXXXXX")
if [ -n "$keep" ]; then
    mkdir -p "$keep" || { echo "lateness: cannot make --keep $keep" >&2; exit 2; }
    trap 'cp -r "$work"/. "$keep"/; rm -rf "$work"' EXIT
else
    trap 'rm -rf "$work"' EXIT
fi

# one guest: NAME, the fio options after the job's common ones, the path
run_one() {
    name=$1 fioopts=$2 path=$3
    case $path in
        db) thread=on,timing-doorbells=on ;;
        *) thread=$path ;;
    esac
    mkdir -p "$work/job-$name"
    cat >"$work/job-$name/run.sh" <<EOF
fio --name=late --filename=/dev/nvme0n1 --direct=1 --ioengine=libaio \\
    --rw=randread --bs=4k --numjobs=1 --size=10g --norandommap=1 \\
    --randrepeat=0 $fioopts --time_based=1 --ramp_time=1 --runtime=$secs \\
    --output-format=json --output=\$RESULTS/fio.json
EOF
    $pin bash "$root/vm-images/run-guest.sh" --accel "$accel" --device-stats nvm0 \
        "$qemu" "$guest" "$work/job-$name" "$work/res-$name" $((600 + secs * 30)) \
        -drive "if=none,id=d,driver=null-co,size=$cap,read-zeroes=on" \
        -device "nvme,id=nvm0,drive=d,addr=0x10,profile=$profile,timing-thread=$thread$devopts" \
        >"$work/run-$name.log" 2>&1 || {
            echo "lateness: the guest run $name failed:" >&2
            tail -n 5 "$work/run-$name.log" >&2
            exit 1
        }
}

for r in $(echo "$rates" | tr , ' '); do
    for p in $(echo "$paths" | tr , ' '); do
        run_one "$r-$p" "--iodepth=32 --rate_iops=$r --rate_process=poisson" "$p"
    done
done
for p in $(echo "$paths" | tr , ' '); do
    run_one "qd1-$p" "--iodepth=1" "$p"
done
load=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$work" "$rates" "$secs" "$(basename "$profile" .ini)" "$paths" "$load" \
    "$devopts" "$qemucpus" "$rtrun" "$accel" <<'PY'
import json, sys
work, rates, secs, prof, paths, load, devopts, qemucpus, rtrun, accel = sys.argv[1:11]
rates, paths = rates.split(","), paths.split(",")
name = {"off": "main-loop timer", "on": "timing thread",
        "db": "thread takes doorbells"}


def point(tag):
    st = json.load(open(f"{work}/res-{tag}/device-stats.json"))
    c = next(k for k in st["classes"] if k["class"] == "read")
    fio = json.load(open(f"{work}/res-{tag}/fio.json"))["jobs"][0]["read"]
    rt = st.get("realtime") or {}
    return {"guest_iops": round(fio["iops"]), "posted": c["posted"],
            "early": c["early"], "late": c["late"],
            "late_p50_us": c["late-p50-us"], "late_p99_us": c["late-p99-us"],
            "late_max_us": c["late-max-us"], "model_mean_us": c["mean-us"],
            "late_mean_us": c["late-mean-us"] * c["late"] / max(c["posted"], 1),
            "guest_mean_us": fio["lat_ns"]["mean"] / 1e3,
            "bql_wait_p50_us": rt.get("bql-wait-p50-us"),
            "bql_wait_p99_us": rt.get("bql-wait-p99-us"),
            "wake_late_p99_us": rt.get("wake-late-p99-us"),
            "spin_ms": rt.get("spin-ms"), "poll_ms": rt.get("poll-ms"),
            "poll_hits": rt.get("poll-hits"),
            "fifo_rests": rt.get("fifo-rests"),
            "data_late": rt.get("data-late"),
            "doorbell_writes": rt.get("doorbell-writes"),
            "doorbell_wait_p50_us": rt.get("doorbell-wait-p50-us"),
            "doorbell_wait_p99_us": rt.get("doorbell-wait-p99-us"),
            "doorbell_guard_us": rt.get("doorbell-guard-us")}


rows = []
print(f"{prof}, {accel.upper()} in real time, 4K random reads at fixed Poisson rates "
      f"(QD up to 32), {secs} s each; lateness = posted minus scheduled "
      f"time, us; load average {load}; device options "
      f"'{devopts or '(none)'}', QEMU on CPUs {qemucpus or 'any'}, "
      f"sched_rt_runtime_us {rtrun}:")
hdr = f"  {'rate':>7s} {'guest IOPS':>10s}"
for p in paths:
    hdr += f" | {name[p]:>26s}"
print(hdr)
sub = f"  {'':>7s} {'':>10s}"
for p in paths:
    sub += f" | {'p50':>7s} {'p99':>8s} {'max':>9s}"
print(sub)
for r in rates:
    row = {"rate": int(r)}
    line = ""
    for p in paths:
        pt = point(f"{r}-{p}")
        row[p] = pt
        line += (f" | {pt['late_p50_us']:7.1f} {pt['late_p99_us']:8.1f} "
                 f"{pt['late_max_us']:9.1f}")
    iops = "/".join(str(row[p]["guest_iops"]) for p in paths)
    print(f"  {r:>7s} {iops:>10s}{line}")
    rows.append(row)
print("  (guest IOPS: one figure per path, in the order of the columns)")
print("QD1, no rate: guest mean latency minus the device's (model + "
      "lateness), us:")
qd1 = {}
for p in paths:
    pt = point(f"qd1-{p}")
    # the device's mean: scheduled latency plus the mean lateness
    dev = pt["model_mean_us"] + pt["late_mean_us"]
    qd1[p] = dict(pt, guest_minus_device_us=pt["guest_mean_us"] - dev)
    print(f"  {name[p]:>16s}: guest {pt['guest_mean_us']:7.1f}, model "
          f"{pt['model_mean_us']:7.1f} + late {pt['late_mean_us']:5.1f}; "
          f"guest - device {pt['guest_mean_us'] - dev:7.1f} us "
          f"({pt['guest_iops']} IOPS)")
for p in (x for x in paths if x != "off"):
    print(f"{name[p]}, wait for the BQL at each deadline (p50/p99 us) "
          "and wake-up past its target (p99 us):")
    for r in rates:
        pt = next(x for x in rows if x["rate"] == int(r))[p]
        print(f"  {r:>7s}: BQL {pt['bql_wait_p50_us']:.1f}/"
              f"{pt['bql_wait_p99_us']:.1f}, wake-up {pt['wake_late_p99_us']:.1f}"
              f", spin {pt['spin_ms']:.0f} ms, poll {pt['poll_ms']:.0f} ms"
              f" ({pt['poll_hits']} hits)"
              + (f", {pt['fifo_rests']} FIFO rests" if pt['fifo_rests'] else "")
              + f", {pt['data_late']} of {pt['posted']} posted after their "
                f"deadline for their data"
              + (f"; doorbells {pt['doorbell_writes']}, from the write to "
                 f"its replay {pt['doorbell_wait_p50_us']:.1f}/"
                 f"{pt['doorbell_wait_p99_us']:.1f} us, guard "
                 f"{pt['doorbell_guard_us']} us"
                 if pt['doorbell_writes'] is not None else ""))
print(json.dumps({"profile": prof, "seconds": float(secs), "load": load, "accel": accel,
                  "device_opts": devopts, "qemu_cpus": qemucpus,
                  "sched_rt_runtime_us": rtrun, "rates": rows, "qd1": qd1}))
PY

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# nvmimic-agent: the workload agent of nvmimic's Ubuntu guests.  cloud-init installs it
# (with fio and nvme-cli from Ubuntu's archive) and a systemd unit that runs it at every
# boot after cloud-init.  Same job channel and console contract as the initramfs guest
# (vm-images/guest-init, vm-images/README.md), so the host side is unchanged:
#   virtio disk serial nvmimic-job      read-only; a tar of the job directory
#   virtio disk serial nvmimic-results  the agent writes a tar of /results onto it
#   job: /job/run.sh (sh, cwd /job, $RESULTS=/results) or /job/job.fio (fio, JSON)
#   console (ttyS0): nvmimic-step: ..., nvmimic-rc: N, nvmimic-done; then power off
# Without a job disk it does nothing (a normal boot of the image).
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
CON=/dev/ttyS0
[ -w "$CON" ] || CON=/dev/console
say() { echo "$*"; echo "$*" >"$CON" 2>/dev/null; }
step() { say "nvmimic-step: $*"; }

serial_dev() {
    for d in /sys/block/vd*; do
        [ -r "$d/serial" ] || continue
        [ "$(cat "$d/serial")" = "$1" ] && { echo "/dev/${d##*/}"; return 0; }
    done
    return 1
}

JOBDEV=$(serial_dev nvmimic-job) || { echo "nvmimic-agent: no job disk; nothing to do"; exit 0; }
RESDEV=$(serial_dev nvmimic-results) || RESDEV=
step "agent started ($(uname -r))"

rm -rf /job /results
mkdir -p /job /results
export RESULTS=/results JOB=/job
cut -d' ' -f1 /proc/uptime >/results/boot-to-job-s
rc=0
for t in fio nvme; do
    command -v $t >/dev/null 2>&1 || {
        say "nvmimic: $t is not installed (cloud-init installs fio and nvme-cli from Ubuntu's archive on first boot: did the guest have network?)"
        rc=127
    }
done
# the NVMe drive: wait until every controller is live with its namespace
n=0
while [ "$rc" = 0 ] && [ $n -lt 300 ]; do
    ok=1
    for s in /sys/class/nvme/nvme*/state; do
        [ -r "$s" ] && [ "$(cat "$s")" = live ] || ok=0
    done
    ls /dev/nvme*n1 >/dev/null 2>&1 || ok=0
    [ $ok = 1 ] && break
    sleep 0.1
    n=$((n + 1))
done
step "unpacking job"
if [ "$rc" = 0 ] && ! tar -xf "$JOBDEV" -C /job; then
    say "nvmimic: cannot unpack the job from $JOBDEV"; rc=125
fi
if [ "$rc" = 0 ]; then
    if [ -f /job/run.sh ]; then
        step "running job /job/run.sh"
        (cd /job && sh /job/run.sh) >/results/job.log 2>&1
        rc=$?
    elif [ -f /job/job.fio ]; then
        step "running job /job/job.fio"
        fio /job/job.fio --output-format=json --output=/results/fio.json >/results/job.log 2>&1
        rc=$?
    else
        say "nvmimic: the job has neither run.sh nor job.fio"; rc=125
    fi
    cat /results/job.log >"$CON" 2>/dev/null
fi
echo "$rc" >/results/rc
dmesg >/results/dmesg.txt 2>/dev/null
uname -a >/results/uname.txt
say "nvmimic-rc: $rc"
step "writing results"
if [ -n "$RESDEV" ] && tar -cf "$RESDEV" -C /results . && sync; then
    say "nvmimic-done"
else
    say "nvmimic: cannot write the results disk"
fi
step "powering off"
systemctl poweroff --no-block 2>/dev/null || poweroff

# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the libvirt tests: bring up Debian's system libvirtd on a host
# without systemd, share it between tests, stop it when the last test that
# needed it is done -- but only if nvmimic started it.
#
#   lv_up     use the running daemon, or start virtlogd + libvirtd
#   lv_down   forget this test; the last one out stops what nvmimic started
#
# Bookkeeping in /run/nvmimic-libvirt/: users/PID (one per test using the
# daemon; dead PIDs are swept), started-libvirtd / started-virtlogd (nvmimic
# started them, with their PIDs), all under an flock (fd 8, which the
# daemons must not inherit, or they would hold the lock for ever).
LV_URI=qemu:///system
LV_STATE=/run/nvmimic-libvirt
LV_LOG=${LV_LOG:-/tmp/nvmimic-libvirtd.log}

lv_fail() { echo "libvirt: $*" >&2; exit 1; }

# "virsh version" needs a default emulator in PATH, which a host with only our
# QEMU lacks; "virsh uri" needs only the daemon.
lv_alive() { timeout 10 virsh -q -c "$LV_URI" uri >/dev/null 2>&1 8>&-; }

lv_up() {
    for b in virsh libvirtd virtlogd virt-xml-validate; do
        command -v "$b" >/dev/null 2>&1 ||
            lv_fail "$b not found: install libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients (make deps)"
    done
    [ -e /usr/lib/x86_64-linux-gnu/libvirt/connection-driver/libvirt_driver_qemu.so ] ||
        lv_fail "libvirt's QEMU driver missing: install libvirt-daemon-driver-qemu (make deps)"
    [ "$(id -u)" = 0 ] || lv_fail "must run as root to start the system libvirtd"
    mkdir -p "$LV_STATE/users"
    exec 8>"$LV_STATE/lock"
    flock -w 60 8 || lv_fail "could not lock $LV_STATE/lock within 60 s"
    for f in "$LV_STATE"/users/*; do
        [ -e "$f" ] && ! kill -0 "${f##*/}" 2>/dev/null && rm -f "$f"
    done
    : >"$LV_STATE/users/$$"
    if ! lv_alive; then
        mkdir -p /var/log/libvirt/qemu /var/lib/libvirt/qemu /var/cache/libvirt/qemu /run/libvirt
        getent group libvirt-qemu >/dev/null || groupadd --system libvirt-qemu ||
            lv_fail "cannot create group libvirt-qemu"
        getent passwd libvirt-qemu >/dev/null ||
            useradd --system -g libvirt-qemu -d /var/lib/libvirt -s /usr/sbin/nologin libvirt-qemu ||
            lv_fail "cannot create user libvirt-qemu"
        if ! { [ -f /run/virtlogd.pid ] && kill -0 "$(cat /run/virtlogd.pid)" 2>/dev/null; }; then
            virtlogd -d 8>&- || lv_fail "virtlogd -d failed"
            sleep 0.3
            cat /run/virtlogd.pid >"$LV_STATE/started-virtlogd" 2>/dev/null
        fi
        if ! { [ -f /run/libvirtd.pid ] && kill -0 "$(cat /run/libvirtd.pid)" 2>/dev/null; }; then
            echo "--- $(date) libvirtd started by nvmimic test $$" >>"$LV_LOG"
            LIBVIRT_LOG_OUTPUTS="3:file:$LV_LOG" libvirtd --daemon 8>&- ||
                lv_fail "libvirtd --daemon failed (log: $LV_LOG)"
            for _ in $(seq 50); do [ -f /run/libvirtd.pid ] && break; sleep 0.2; done
            cat /run/libvirtd.pid >"$LV_STATE/started-libvirtd" 2>/dev/null
        fi
        for _ in $(seq 60); do lv_alive && break; sleep 0.5; done
        lv_alive || lv_fail "libvirtd does not answer on $LV_URI after 30 s (log: $LV_LOG)"
    fi
    flock -u 8
}

lv_down() {
    exec 8>"$LV_STATE/lock"
    flock -w 60 8 || return 0
    rm -f "$LV_STATE/users/$$"
    for f in "$LV_STATE"/users/*; do
        [ -e "$f" ] && ! kill -0 "${f##*/}" 2>/dev/null && rm -f "$f"
    done
    if [ -z "$(ls -A "$LV_STATE/users" 2>/dev/null)" ]; then
        for d in libvirtd virtlogd; do
            f=$LV_STATE/started-$d
            [ -f "$f" ] || continue
            pid=$(cat "$f")
            rm -f "$f"
            # only the process nvmimic started, and only if it is still that daemon
            if [ -n "$pid" ] && [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = "$d" ]; then
                kill "$pid" 2>/dev/null
                for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            fi
        done
    fi
    flock -u 8
}

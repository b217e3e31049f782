#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The Windows recipe's run-phase domain (vm-images/windows/make-media.sh --media-only)
# under Debian's libvirt with our QEMU: libvirt defines and starts it (no Windows: the
# firmware finds nothing to boot and waits), and QEMU shows the reviews' SQL VM devices:
# the LSI SAS 1068 controller, the SATA controller, and the profiled NVMe drive at its
# fixed slot answering query-nvmimic-stats through libvirt.  Then destroy and undefine.
#
# usage: windows_shape.sh NVMIMIC
set -u
nvmimic=$(readlink -f "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/libvirtd.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
dom=nvmimic-wintest-$$
work=$(mktemp -d /tmp/nvmimic-lvwin.XXXXXX)
chmod 755 "$work"
defined=0
cleanup() {
    if [ "$defined" = 1 ]; then
        virsh -q -c "$LV_URI" destroy "$dom" >/dev/null 2>&1
        virsh -q -c "$LV_URI" undefine "$dom" >/dev/null 2>&1
    fi
    lv_down
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
lv_up

NVMIMIC=$nvmimic "$root/vm-images/windows/make-media.sh" --media-only --out "$work/m" \
    --profile crucial-p2-500g --name "$dom" --memory 1024 --vcpus 1 >"$work/mm.log" 2>&1 ||
    fail "make-media: $(tail -n 2 "$work/mm.log")"
chmod 666 "$work/m/nvme.raw"
virsh -q -c "$LV_URI" define "$work/m/run.xml" >"$work/def.log" 2>&1 || fail "virsh define: $(cat "$work/def.log")"
defined=1
virsh -q -c "$LV_URI" start "$dom" >"$work/start.log" 2>&1 ||
    fail "virsh start: $(cat "$work/start.log"); QEMU log: $(tail -n 2 /var/log/libvirt/qemu/"$dom".log 2>/dev/null)"
echo "ok: run.xml defined and started"
sleep 2
[ "$(virsh -q -c "$LV_URI" domstate "$dom")" = running ] || fail "domain not running"
virsh -q -c "$LV_URI" qemu-monitor-command "$dom" '{"execute":"query-pci"}' >"$work/pci.json" 2>&1 ||
    fail "query-pci through libvirt: $(cat "$work/pci.json")"
virsh -q -c "$LV_URI" qemu-monitor-command "$dom" \
    '{"execute":"query-nvmimic-stats","arguments":{"id":"nvm0"}}' >"$work/stats.json" 2>&1 ||
    fail "query-nvmimic-stats through libvirt: $(cat "$work/stats.json")"
python3 - "$work/pci.json" "$work/stats.json" <<'PY' || fail "devices"
import json, sys
devs = []
def walk(bus):
    for d in bus["devices"]:
        devs.append(d)
        if "pci_bridge" in d and "devices" in d["pci_bridge"]:
            walk(d["pci_bridge"])
for b in json.load(open(sys.argv[1]))["return"]:
    walk(b)
ids = {(d["id"]["vendor"], d["id"]["device"]) for d in devs}
assert (0x1000, 0x0054) in ids, "no LSI SAS 1068 (mptsas1068)"
assert any(d["class_info"]["class"] == 0x0106 for d in devs), "no SATA (AHCI) controller"
nv = [d for d in devs if d["class_info"]["class"] == 0x0108]
assert len(nv) == 1 and nv[0]["slot"] == 0x10 and nv[0]["bus"] == 0, nv
s = json.load(open(sys.argv[2]))["return"]
assert s["profile"] == "crucial-p2-500g" and s["model-number"] == "CT500P2SSD8", s
print(f"ok: LSI SAS 1068, AHCI, NVMe {nv[0]['id']['vendor']:04x}:{nv[0]['id']['device']:04x} "
      f"at 00:10.0 as {s['model-number']}; query-pci and query-nvmimic-stats through libvirt")
PY
virsh -q -c "$LV_URI" destroy "$dom" >/dev/null 2>&1 || fail "virsh destroy"
virsh -q -c "$LV_URI" undefine "$dom" >/dev/null 2>&1 || fail "virsh undefine"
defined=0
echo "ok: destroyed and undefined"

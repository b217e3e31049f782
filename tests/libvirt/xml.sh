#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# nvmimic libvirt-xml without a daemon: paths with XML and QEMU metacharacters
# come through escaped (parsed back equal), both OS shapes validate against
# libvirt's domain schema, and bad input gets one clear line and a non-zero
# status.
#
# usage: xml.sh NVMIMIC
set -u
nvmimic=$(realpath "$1")   # meson passes it relative to the build directory
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v virt-xml-validate >/dev/null || fail "virt-xml-validate not found: install libvirt-clients (make deps)"
work=$(mktemp -d /tmp/nvmimic-lvxml.XXXXXX)
trap 'rm -rf "$work"' EXIT
cap=500107862016   # crucial-p2-500g
# The XML does not depend on the QEMU build: a stand-in emulator (the boot test
# uses the real one).
printf '#!/bin/sh\nexit 0\n' >"$work/qemu-system-x86_64"
chmod +x "$work/qemu-system-x86_64"
export NVMIMIC_QEMU=$work/qemu-system-x86_64
odd="$work/a&b<c>'d\"e,f g"
mkdir -p "$odd"
truncate -s $cap "$odd/nvme.raw"
: >"$odd/job.tar"; : >"$odd/res.img"; : >"$odd/win.iso"; : >"$odd/c.qcow2"

# --- escaping ------------------------------------------------------------------------
"$nvmimic" libvirt-xml --profile crucial-p2-500g --disk "$odd/nvme.raw" --name 'n.1_a+b-c' \
    --kernel "$odd/job.tar" --append "console=ttyS0 x='<&>'" --job-disk "$odd/job.tar" \
    --results-disk "$odd/res.img" --serial-log "$odd/con.log" --icount >"$work/l.xml" ||
    fail "libvirt-xml refused a valid linux request"
virt-xml-validate "$work/l.xml" domain >/dev/null 2>"$work/v.err" ||
    fail "linux XML does not validate: $(cat "$work/v.err")"
python3 - "$work/l.xml" "$odd" <<'PY' || fail "escaping check failed"
import sys, xml.etree.ElementTree as ET
path, odd = sys.argv[1], sys.argv[2]
Q = '{http://libvirt.org/schemas/domain/qemu/1.0}'
d = ET.parse(path).getroot()
def want(got, exp, what):
    if got != exp:
        sys.exit(f"{what}: got {got!r}, want {exp!r}")
want(d.get('type'), 'qemu', 'domain type')
want(d.find('os/cmdline').text, "console=ttyS0 x='<&>'", 'cmdline')
want(d.find('os/type').get('machine'), 'q35', 'machine')
if d.find('features/acpi') is None: sys.exit('no <acpi/>')
srcs = [s.get('file') for s in d.findall('devices/disk/source')]
want(srcs, [odd + '/job.tar', odd + '/res.img'], 'disk sources')
want([s.text for s in d.findall('devices/disk/serial')], ['nvmimic-job', 'nvmimic-results'], 'serials')
want(d.find('devices/serial/source').get('path'), odd + '/con.log', 'serial log')
args = [a.get('value') for a in d.findall(Q + 'commandline/' + Q + 'arg')]
i = args.index('-blockdev')
want(args[i + 1], 'driver=raw,node-name=nvm0-drive,discard=unmap,detect-zeroes=unmap,file.driver=file,file.filename=' + (odd + '/nvme.raw').replace(',', ',,'), '-blockdev')
want(args[args.index('-device') + 1], 'nvme,id=nvm0,drive=nvm0-drive,bus=pcie.0,addr=0x10,profile=crucial-p2-500g', '-device')
want(args[args.index('-icount') + 1], 'shift=0,sleep=off', '-icount')
if args.count('-L') != 2: sys.exit('-L firmware dirs missing')
PY
echo "ok: paths with & < > ' \" , and space parse back unchanged; linux XML validates"

"$nvmimic" libvirt-xml --os windows --profile crucial-p2-500g --disk "$odd/nvme.raw" \
    --boot-disk "$odd/c.qcow2" --cdrom "$odd/win.iso" --extra-disk "$odd/res.img,serial=results,bus=sata" \
    --net network=default --memory 2048 --vcpus 2 >"$work/w.xml" || fail "libvirt-xml refused a valid windows request"
virt-xml-validate "$work/w.xml" domain >/dev/null 2>"$work/v.err" ||
    fail "windows XML does not validate: $(cat "$work/v.err")"
python3 - "$work/w.xml" <<'PY' || fail "windows shape check failed"
import sys, xml.etree.ElementTree as ET
d = ET.parse(sys.argv[1]).getroot()
c = d.find("devices/controller[@type='scsi']")
if c is None or c.get('model') != 'lsisas1068': sys.exit('no LSI SAS controller')
buses = [t.get('bus') for t in d.findall('devices/disk/target')]
if buses != ['scsi', 'sata', 'sata']: sys.exit(f'buses {buses}')
if d.find("devices/interface/model").get('type') != 'e1000e': sys.exit('nic not e1000e')
if [b.get('dev') for b in d.findall('os/boot')] != ['hd', 'cdrom']: sys.exit('boot order')
if d.find('features/hyperv') is not None: sys.exit('hyperv under TCG')
PY
"$nvmimic" libvirt-xml --os windows --domain-type kvm --profile crucial-p2-500g --disk "$odd/nvme.raw" \
    --boot-disk "$odd/c.qcow2" >"$work/k.xml" && virt-xml-validate "$work/k.xml" domain >/dev/null 2>&1 &&
    grep -q "<hyperv mode='custom'>" "$work/k.xml" || fail "windows kvm XML (hyperv) missing or invalid"
echo "ok: windows XML (LSI SAS boot disk, SATA CD-ROM and results disk, e1000e; hyperv under kvm) validates"

# --- bad input: status != 0 and one line naming what and where ------------------------
bad() {
    local want=$1; shift
    "$nvmimic" libvirt-xml "$@" >"$work/out" 2>"$work/err"
    local rc=$?
    [ "$rc" -ne 0 ] || fail "accepted: $*"
    [ "$(wc -l <"$work/err")" = 1 ] || fail "not one line for: $*: $(cat "$work/err")"
    grep -q -- "$want" "$work/err" || fail "for '$*' wanted '$want', got: $(cat "$work/err")"
    [ -s "$work/out" ] && fail "printed XML although refusing: $*"
    echo "ok: refused ($(cat "$work/err"))"
}
truncate -s 1G "$work/small.raw"
bad "truncate -s $cap $work/small.raw" --profile crucial-p2-500g --disk "$work/small.raw"
bad "truncate -s $cap $work/none.raw" --profile crucial-p2-500g --disk "$work/none.raw"
bad "no-such-drive" --profile no-such-drive --disk "$odd/nvme.raw"
bad "needs --profile" --disk "$odd/nvme.raw"
bad "domain name 'a/b'" --profile crucial-p2-500g --disk "$odd/nvme.raw" --name a/b
bad "domain name" --profile crucial-p2-500g --disk "$odd/nvme.raw" --name "a b"
bad "QEMU binary '$work/noqemu'" --profile crucial-p2-500g --disk "$odd/nvme.raw" --qemu "$work/noqemu"
bad "boot disk '$work/none.qcow2'" --profile crucial-p2-500g --disk "$odd/nvme.raw" --boot-disk "$work/none.qcow2"
bad "CD-ROM image '$work/none.iso'" --profile crucial-p2-500g --disk "$odd/nvme.raw" --cdrom "$work/none.iso"
bad "--os 'bsd' is not one of linux, windows" --profile crucial-p2-500g --disk "$odd/nvme.raw" --os bsd
bad "--net must be" --profile crucial-p2-500g --disk "$odd/nvme.raw" --net user
bad "no guest in '$work'" --profile crucial-p2-500g --disk "$odd/nvme.raw" --guest-dir "$work"
bad "not a qcow2 image" --profile crucial-p2-500g --disk "$odd/nvme.raw" --disk-format qcow2
bad "unknown option '--bogus'" --profile crucial-p2-500g --disk "$odd/nvme.raw" --bogus 1
bad "firmware directory (--firmware-dir) '$work/nofw' not found" --profile crucial-p2-500g --disk "$odd/nvme.raw" --firmware-dir "$work/nofw"
bad "firmware directory (--firmware-dir) '$work/small.raw' is not a directory" --profile crucial-p2-500g --disk "$odd/nvme.raw" --firmware-dir "$work/small.raw"
# a relative firmware directory goes into the XML absolute (libvirt starts QEMU elsewhere)
mkdir "$work/fw"
(cd "$work" && "$nvmimic" libvirt-xml --profile crucial-p2-500g --disk "$odd/nvme.raw" --firmware-dir fw) >"$work/fw.xml" ||
    fail "libvirt-xml refused a relative --firmware-dir"
grep -q "<qemu:arg value='$work/fw'/>" "$work/fw.xml" || fail "relative --firmware-dir not made absolute: $(grep -A1 "'-L'" "$work/fw.xml")"
echo "ok: a relative --firmware-dir is made absolute"
echo "all ok"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make-media.sh: everything a Windows Server + SQL Server guest of nvmimic needs, from
# ISOs and tools the user brings (nothing is downloaded).  See README.md.
#
# usage: make-media.sh --out DIR --profile NAME|PATH --windows-iso ISO
#            [--sql-iso ISO] [--diskspd diskspd.exe] [--hammerdb HAMMERDB_DIR]
#            [--suites four-corners,tpcc] [--image-name NAME] [--product-key KEY]
#            [--admin-password PW] [--name DOMAIN] [--memory MiB] [--vcpus N]
#            [--domain-type qemu|kvm] [--net network=NAME|bridge=BR|none]
#            [--peak-source measured|model] [--threads stated|implied]
#            [--duration-s S] [--system-gb N]
#        make-media.sh --media-only --out DIR --profile NAME ...   (no ISOs/tools
#            needed: builds and validates the media and XML only; for tests)
#
# Writes into DIR:
#   nvmimic-media.iso   CD labelled NVMIMIC: autounattend.xml (Setup finds it there),
#                       nvmimic\ setup.ps1 agent.ps1 job.ini jobs.json four-corners.cmd
#                       ConfigurationFile.ini build.tcl run.tcl tools\ (diskspd, HammerDB)
#   autounattend.xml    the rendered answer file (also on the ISO)
#   admin-password.txt  the Administrator password (mode 600)
#   system.qcow2        the 100 GB system disk (C:), created if missing
#   nvme.raw            the drive under test, sparse, the profile's capacity, if missing
#   results.img         256 MiB disk, MBR + FAT32 labelled NVMRESULTS (collect-results.sh)
#   install.xml         libvirt domain for the install phase: system disk + ISOs only
#   run.xml             libvirt domain for the run phase: + NVMe drive + results disk
set -eu
me=make-media
die() { echo "$me: $*" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
nvmimic=${NVMIMIC:-$root/build/nvmimic}

out= profile= win_iso= sql_iso= diskspd= hammerdb= suites=four-corners,tpcc
image_name="Windows Server 2012 R2 SERVERSTANDARD" product_key= password= name=
memory=65536 vcpus=16 dtype=qemu net=none peak_source=measured threads=stated duration=30
system_gb=100 media_only=0
while [ $# -gt 0 ]; do
    case $1 in
        --out) out=${2:?}; shift 2 ;;
        --profile) profile=${2:?}; shift 2 ;;
        --windows-iso) win_iso=${2:?}; shift 2 ;;
        --sql-iso) sql_iso=${2:?}; shift 2 ;;
        --diskspd) diskspd=${2:?}; shift 2 ;;
        --hammerdb) hammerdb=${2:?}; shift 2 ;;
        --suites) suites=${2:?}; shift 2 ;;
        --image-name) image_name=${2:?}; shift 2 ;;
        --product-key) product_key=${2:?}; shift 2 ;;
        --admin-password) password=${2:?}; shift 2 ;;
        --name) name=${2:?}; shift 2 ;;
        --memory) memory=${2:?}; shift 2 ;;
        --vcpus) vcpus=${2:?}; shift 2 ;;
        --domain-type) dtype=${2:?}; shift 2 ;;
        --net) net=${2:?}; shift 2 ;;
        --peak-source) peak_source=${2:?}; shift 2 ;;
        --threads) threads=${2:?}; shift 2 ;;
        --duration-s) duration=${2:?}; shift 2 ;;
        --system-gb) system_gb=${2:?}; shift 2 ;;
        --media-only) media_only=1; shift ;;
        -h|--help) sed -n '4,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
[ -n "$out" ] || die "needs --out DIR"
[ -n "$profile" ] || die "needs --profile NAME|PATH (nvmimic profiles lists them)"
case ",$suites," in *,four-corners,*|*,tpcc,*) ;; *) die "--suites must name four-corners and/or tpcc, not '$suites'" ;; esac
for s in ${suites//,/ }; do case $s in four-corners|tpcc) ;; *) die "unknown suite '$s' (four-corners, tpcc)" ;; esac; done
case $peak_source in measured|model) ;; *) die "--peak-source must be measured or model" ;; esac
case $threads in stated|implied) ;; *) die "--threads must be stated or implied" ;; esac
case $duration in ''|*[!0-9]*) die "--duration-s must be whole seconds" ;; esac
[ -x "$nvmimic" ] || die "nvmimic not built at $nvmimic (ninja -C build, or set NVMIMIC)"
for t in genisoimage mkfs.fat mcopy python3; do
    command -v $t >/dev/null || die "$t not found: install genisoimage dosfstools mtools (make deps)"
done
has() { case ",$suites," in *,"$1",*) return 0 ;; esac; return 1; }

need_file() { # what, path, hint
    [ -n "$2" ] || die "no $1 given ($3): nvmimic cannot download it; bring your own"
    [ -f "$2" ] || die "$1 '$2' not found"
}
if [ "$media_only" = 0 ]; then
    need_file "Windows Server ISO" "$win_iso" "--windows-iso FILE, e.g. the Windows Server 2012 R2 or later evaluation ISO"
    if has tpcc; then
        need_file "SQL Server ISO" "$sql_iso" "--sql-iso FILE, e.g. SQL Server 2014 or later"
        [ -n "$hammerdb" ] || die "no HammerDB given (--hammerdb DIR, the unpacked Windows HammerDB 4.x with hammerdbcli.bat): nvmimic cannot download it"
        [ -f "$hammerdb/hammerdbcli.bat" ] || die "HammerDB directory '$hammerdb' has no hammerdbcli.bat"
    fi
    if has four-corners; then
        need_file "DiskSpd" "$diskspd" "--diskspd FILE, the x64 diskspd.exe"
    fi
fi

fact() { "$nvmimic" profile show "$profile" --key "$1"; }
cap=$(fact identity.capacity-bytes) || exit 1
model=$(fact identity.model-number) || exit 1
cell=$(fact nand.cell-mode) || exit 1
pname=$(basename "$profile" .ini)
[ -n "$name" ] || name=nvmimic-win-$pname
[ -n "$password" ] || password="Nv$(od -An -N9 -tx1 /dev/urandom | tr -d ' \n')!"
# The reviews: TLC drives tested on 5 % of their capacity, QLC on 1 %; 1 MiB aligned.
pct=5; [ "$cell" = qlc ] && pct=1
span=$(( cap * pct / 100 / 1048576 * 1048576 ))

mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d "${TMPDIR:-/tmp}/nvmimic-winmedia.XXXXXX")
trap 'rm -rf "$stage"' EXIT
m=$stage/nvmimic
mkdir -p "$m/tools"

# --- the answer file ------------------------------------------------------------------
python3 - "$here/autounattend.xml.in" "$stage/autounattend.xml" "$image_name" "$product_key" \
    "$password" "NVMIMIC-SQL" <<'PY' || die "cannot render autounattend.xml"
import sys
from xml.sax.saxutils import escape
src, dst, image, key, pw, host = sys.argv[1:7]
t = open(src, encoding="utf-8").read()
if not key:   # evaluation media take no key: drop the element
    a = t.index("        <ProductKey>")
    b = t.index("</ProductKey>\n") + len("</ProductKey>\n")
    t = t[:a] + t[b:]
for k, v in (("IMAGE_NAME", image), ("PRODUCT_KEY", key), ("ADMIN_PASSWORD", pw),
             ("COMPUTER_NAME", host)):
    t = t.replace("@" + k + "@", escape(v))
import re
assert not re.search(r"@[A-Z_]+@", t), "unfilled field"
open(dst, "w", encoding="utf-8", newline="\r\n").write(t)
PY
cp "$stage/autounattend.xml" "$out/autounattend.xml"
(umask 077; printf '%s\n' "$password" >"$out/admin-password.txt")

# --- the job --------------------------------------------------------------------------
run_id=$(date -u +%Y%m%dT%H%M%SZ)-$$
{
    echo "; nvmimic job, read by setup.ps1 and agent.ps1"
    echo "run_id=$run_id"
    echo "profile=$pname"
    echo "model=$model"
    echo "capacity_bytes=$cap"
    echo "suites=$suites"
    echo "span_bytes=$span"
    echo "duration_s=$duration"
    echo "threads=$threads"
    echo "peak_source=$peak_source"
    echo "sql_max_memory_mb=49152"
} | sed 's/$/\r/' >"$m/job.ini"
"$nvmimic" sim --profile "$profile" --suite four-corners --quick --format json \
    >"$stage/sim.json" 2>"$stage/sim.err" || die "nvmimic sim failed: $(head -n 1 "$stage/sim.err")"
"$here/diskspd_jobs.py" --peaks-from "$stage/sim.json" --threads "$threads" --span-bytes "$span" \
    --duration-s "$duration" --json "$m/jobs.json" --cmd "$m/four-corners.cmd" ||
    die "diskspd_jobs.py failed"
for f in setup.ps1 agent.ps1 ConfigurationFile.ini hammerdb/build.tcl hammerdb/run.tcl; do
    sed 's/\r$//; s/$/\r/' "$here/$f" >"$m/$(basename "$f")"
done
[ -n "$diskspd" ] && cp "$diskspd" "$m/tools/diskspd.exe"
[ -n "$hammerdb" ] && cp -r "$hammerdb" "$m/tools/HammerDB"
cp "$stage/autounattend.xml" "$stage/iso-autounattend.xml"

mkdir "$stage/iso"
cp "$stage/autounattend.xml" "$stage/iso/autounattend.xml"
mv "$m" "$stage/iso/nvmimic"
genisoimage -quiet -J -joliet-long -r -V NVMIMIC -o "$out/nvmimic-media.iso" "$stage/iso" \
    2>"$stage/iso.err" || die "genisoimage failed: $(head -n 1 "$stage/iso.err")"

# --- disks ----------------------------------------------------------------------------
if [ ! -e "$out/system.qcow2" ]; then
    if command -v qemu-img >/dev/null; then
        qemu-img create -q -f qcow2 "$out/system.qcow2" "${system_gb}G" || die "qemu-img create failed"
    else
        die "qemu-img not found (install qemu-utils) to create the system disk"
    fi
fi
[ -e "$out/nvme.raw" ] || truncate -s "$cap" "$out/nvme.raw"
rm -f "$out/results.img"
truncate -s 256M "$out/results.img"
python3 - "$out/results.img" <<'PY' || die "cannot write the results disk's partition table"
import struct, sys
size = 256 << 20
start = 2048
entry = struct.pack("<B3sB3sII", 0, b"\xfe\xff\xff", 0x0C, b"\xfe\xff\xff", start, size // 512 - start)
with open(sys.argv[1], "r+b") as f:
    f.seek(440)
    f.write(struct.pack("<I", 0x6E766D69) + b"\0\0" + entry + b"\0" * 48 + b"\x55\xaa")
PY
mkfs.fat -F 32 -n NVMRESULTS --offset 2048 "$out/results.img" $(( (256 * 2048 - 2048) / 2 )) \
    >"$stage/mkfs.log" 2>&1 || die "mkfs.fat failed: $(tail -n 1 "$stage/mkfs.log")"

# --- libvirt domains ------------------------------------------------------------------
isos=()
[ -n "$win_iso" ] && isos+=(--cdrom "$(readlink -f "$win_iso")")
isos+=(--cdrom "$out/nvmimic-media.iso")
[ -n "$sql_iso" ] && isos+=(--cdrom "$(readlink -f "$sql_iso")")
common=(--os windows --profile "$profile" --disk "$out/nvme.raw" --name "$name"
        --memory "$memory" --vcpus "$vcpus" --domain-type "$dtype" --net "$net"
        --boot-disk "$out/system.qcow2")
"$nvmimic" libvirt-xml "${common[@]}" "${isos[@]}" \
    --extra-disk "$out/results.img,serial=nvmimic-results,format=raw,bus=sata" \
    --out "$out/run.xml" || die "nvmimic libvirt-xml failed (run.xml)"
"$nvmimic" libvirt-xml "${common[@]}" "${isos[@]}" --out "$stage/install-full.xml" ||
    die "nvmimic libvirt-xml failed (install.xml)"
# install phase: no NVMe drive (so Setup's Disk 0 is the system disk, and the drive
# under test is not written by Setup)
python3 - "$stage/install-full.xml" "$out/install.xml" <<'PY' || die "cannot derive install.xml"
import sys
src, dst = sys.argv[1:3]
lines = open(src).read().split("\n")
out, skip = [], 0
for i, l in enumerate(lines):
    if skip:
        skip -= 1
        continue
    if l.strip() in ("<qemu:arg value='-blockdev'/>", "<qemu:arg value='-device'/>") and \
            ("node-name=" in lines[i + 1] or "'nvme," in lines[i + 1]):
        skip = 1
        continue
    out.append(l.replace("nvmimic: Windows guest,", "nvmimic: Windows guest (install phase, "
                         "no NVMe drive),"))
t = "\n".join(out)
assert "nvme," not in t and "node-name=" not in t
open(dst, "w").write(t)
PY
cat <<MSG
$me: media for profile $pname ($model) in $out
  install:  virsh define $out/install.xml && virsh start $name     (powers off when done)
  run:      virsh define $out/run.xml && virsh start --paused $name
            virsh qemu-monitor-command $name '{"execute":"nvmimic-set-state","arguments":{"id":"nvm0","fill-pct":100}}'
            virsh resume $name                                          (powers off when done)
  results:  $here/collect-results.sh $out/results.img $out/results
MSG

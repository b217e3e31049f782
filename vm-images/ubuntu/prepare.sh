#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# prepare.sh: an Ubuntu cloud image the user supplies, as an nvmimic guest.  Builds a
# cloud-init NoCloud seed (ISO labelled cidata) whose user-data installs fio and
# nvme-cli from Ubuntu's archive on first boot, plus nvmimic-agent (the same job /
# results disks by serial as the initramfs guest, so the host side is unchanged), and
# writes the libvirt domain (nvmimic libvirt-xml --os linux) and a plain QEMU command.
# Nothing is downloaded here: the image is yours (e.g. jammy or noble
# server-cloudimg-amd64.img).  See README.md.
#
# usage: prepare.sh --image IMG --out DIR --profile NAME|PATH [--job JOB_DIR]
#            [--name N] [--memory MiB] [--vcpus N] [--net network=NAME|bridge=BR]
#            [--domain-type qemu|kvm] [--ssh-key FILE.pub] [--disk-gb N]
#        prepare.sh --seed-only --out DIR [--ssh-key FILE.pub]   (the seed alone)
#
# DIR receives: seed.iso user-data meta-data; with an image also ubuntu.qcow2 (an
# overlay: your image stays untouched), nvme.raw (the profile's capacity, sparse),
# job/ (a default job unless --job), job.tar, results.img, domain.xml, qemu-run.sh,
# and the serial console goes to console.log.
set -eu
me=ubuntu-prepare
die() { echo "$me: $*" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
nvmimic=${NVMIMIC:-$root/build/nvmimic}

image= out= profile= job= name= memory=2048 vcpus=2 net=network=default dtype=qemu
ssh_key= seed_only=0 disk_gb=20
while [ $# -gt 0 ]; do
    case $1 in
        --image) image=${2:?}; shift 2 ;;
        --out) out=${2:?}; shift 2 ;;
        --profile) profile=${2:?}; shift 2 ;;
        --job) job=${2:?}; shift 2 ;;
        --name) name=${2:?}; shift 2 ;;
        --memory) memory=${2:?}; shift 2 ;;
        --vcpus) vcpus=${2:?}; shift 2 ;;
        --net) net=${2:?}; shift 2 ;;
        --domain-type) dtype=${2:?}; shift 2 ;;
        --ssh-key) ssh_key=${2:?}; shift 2 ;;
        --disk-gb) disk_gb=${2:?}; shift 2 ;;
        --seed-only) seed_only=1; shift ;;
        -h|--help) sed -n '4,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
[ -n "$out" ] || die "needs --out DIR"
if [ "$seed_only" = 0 ]; then
    [ -n "$image" ] || die "no Ubuntu cloud image given (--image FILE, e.g. noble-server-cloudimg-amd64.img from cloud-images.ubuntu.com): nvmimic cannot download one; bring your own"
    [ -f "$image" ] || die "Ubuntu cloud image '$image' not found"
    [ -n "$profile" ] || die "needs --profile NAME|PATH (nvmimic profiles lists them)"
    [ -x "$nvmimic" ] || die "nvmimic not built at $nvmimic (ninja -C build, or set NVMIMIC)"
    command -v qemu-img >/dev/null || die "qemu-img not found: install qemu-utils (make deps)"
    case $disk_gb in ''|*[!0-9]*) die "--disk-gb must be a whole number" ;; esac
fi
[ -z "$ssh_key" ] || [ -f "$ssh_key" ] || die "ssh key '$ssh_key' not found"
[ -z "$job" ] || [ -f "$job/run.sh" ] || [ -f "$job/job.fio" ] ||
    die "job directory '$job' has neither run.sh nor job.fio"
mkdir -p "$out"
out=$(cd "$out" && pwd)

# --- the NoCloud seed --------------------------------------------------------------------
python3 - "$here/nvmimic-agent.sh" "$out/user-data" "$ssh_key" <<'PY' || die "cannot write user-data"
import base64, sys
agent, dst, key = sys.argv[1:4]
b64 = base64.b64encode(open(agent, "rb").read()).decode()
unit = """[Unit]
Description=nvmimic workload agent (job / results disks by serial)
After=cloud-final.service
Wants=cloud-final.service

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/nvmimic-agent
StandardOutput=journal+console

[Install]
WantedBy=multi-user.target
"""
lines = ["#cloud-config",
         "# nvmimic: Ubuntu guest seed (vm-images/ubuntu/prepare.sh)",
         "hostname: nvmimic-ubuntu",
         "package_update: true",
         "package_upgrade: false",
         "packages:",
         "  - fio",
         "  - nvme-cli",
         "write_files:",
         "  - path: /usr/local/sbin/nvmimic-agent",
         "    owner: 'root:root'",
         "    permissions: '0755'",
         "    encoding: b64",
         "    content: " + b64,
         "  - path: /etc/systemd/system/nvmimic-agent.service",
         "    owner: 'root:root'",
         "    permissions: '0644'",
         "    content: |"]
lines += ["      " + l if l else "" for l in unit.rstrip("\n").split("\n")]
if key:
    k = open(key).read().strip()
    if "\n" in k or not k.startswith(("ssh-", "ecdsa-", "sk-")):
        sys.exit("ssh key: not one OpenSSH public key line")
    lines += ["ssh_authorized_keys:", "  - '" + k.replace("'", "''") + "'"]
lines += ["runcmd:",
          "  - [systemctl, daemon-reload]",
          "  - [systemctl, enable, nvmimic-agent.service]",
          "  - [systemctl, start, --no-block, nvmimic-agent.service]"]
open(dst, "w").write("\n".join(lines) + "\n")
PY
iid=nvmimic-$(basename "$out" | tr -c 'A-Za-z0-9-\n' '-')
[ -f "$out/meta-data" ] && iid=$(sed -n 's/^instance-id: //p' "$out/meta-data")
printf 'instance-id: %s\nlocal-hostname: nvmimic-ubuntu\n' "$iid" >"$out/meta-data"
rm -f "$out/seed.iso"
if command -v cloud-localds >/dev/null; then
    cloud-localds "$out/seed.iso" "$out/user-data" "$out/meta-data" 2>"$out/.seed.err" ||
        die "cloud-localds failed: $(head -n 1 "$out/.seed.err")"
elif command -v genisoimage >/dev/null; then
    genisoimage -quiet -output "$out/seed.iso" -volid cidata -joliet -rock \
        "$out/user-data" "$out/meta-data" 2>"$out/.seed.err" ||
        die "genisoimage failed: $(head -n 1 "$out/.seed.err")"
else
    die "neither cloud-localds (cloud-image-utils) nor genisoimage found (make deps)"
fi
rm -f "$out/.seed.err"
if [ "$seed_only" = 1 ]; then
    echo "$me: seed in $out/seed.iso (user-data, meta-data beside it)"
    exit 0
fi

# --- disks ---------------------------------------------------------------------------------
image=$(readlink -f "$image")
fmt=$(qemu-img info --output=json "$image" 2>"$out/.img.err" |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["format"])' 2>/dev/null) ||
    die "'$image' is not a disk image qemu-img can read: $(head -n 1 "$out/.img.err")"
rm -f "$out/.img.err"
case $fmt in qcow2|raw) ;; *) die "'$image' is $fmt; want a qcow2 or raw cloud image" ;; esac
# a raw cloud image is a partitioned disk: MBR signature (GPT keeps a protective MBR)
[ "$fmt" = qcow2 ] || [ "$(od -An -tx1 -j510 -N2 "$image" 2>/dev/null | tr -d ' ')" = 55aa ] ||
    die "'$image' is neither qcow2 nor a partitioned raw disk: not a cloud image"
[ -e "$out/ubuntu.qcow2" ] ||
    qemu-img create -q -f qcow2 -b "$image" -F "$fmt" "$out/ubuntu.qcow2" "${disk_gb}G" ||
    die "cannot create the overlay $out/ubuntu.qcow2 on $image"
cap=$("$nvmimic" profile show "$profile" --key identity.capacity-bytes) || exit 1
[ -e "$out/nvme.raw" ] || truncate -s "$cap" "$out/nvme.raw"
if [ -z "$job" ]; then
    job=$out/job
    mkdir -p "$job"
    cat >"$job/run.sh" <<'JOB'
# nvmimic default Ubuntu job: identity, then 10 s of 4 KiB random reads at QD1
nvme id-ctrl /dev/nvme0 >"$RESULTS/id-ctrl.txt" || exit 10
fio --name=qd1 --filename=/dev/nvme0n1 --rw=randread --bs=4k --direct=1 --ioengine=libaio \
    --iodepth=1 --time_based=1 --runtime=10 --size=10g \
    --output-format=json --output="$RESULTS/fio.json" || exit 11
JOB
fi
tar -cf "$out/job.tar" -C "$job" . || die "cannot archive the job directory '$job'"
rm -f "$out/results.img"
truncate -s 256M "$out/results.img"

# --- libvirt domain and plain QEMU ----------------------------------------------------------
[ -n "$name" ] || name=nvmimic-ubuntu-$(basename "$profile" .ini)
"$nvmimic" libvirt-xml --os linux --profile "$profile" --disk "$out/nvme.raw" --name "$name" \
    --memory "$memory" --vcpus "$vcpus" --domain-type "$dtype" --net "$net" \
    --boot-disk "$out/ubuntu.qcow2" --cdrom "$out/seed.iso" \
    --job-disk "$out/job.tar" --results-disk "$out/results.img" \
    --serial-log "$out/console.log" --out "$out/domain.xml" || die "nvmimic libvirt-xml failed"

qemu=${NVMIMIC_QEMU:-$root/build/qemu/qemu-system-x86_64}
accel=tcg; [ "$dtype" = kvm ] && accel=kvm
case $net in
    bridge=*) netargs="-netdev bridge,id=n0,br=${net#bridge=} -device virtio-net-pci,netdev=n0" ;;
    network=*) netargs="-netdev bridge,id=n0,br=virbr0 -device virtio-net-pci,netdev=n0" ;;
    *) netargs= ;;
esac
q() { printf '%q' "$1"; }
cat >"$out/qemu-run.sh" <<SH
#!/bin/sh
# nvmimic: the same guest without libvirt (written by vm-images/ubuntu/prepare.sh).
# Networking uses QEMU's bridge helper (this QEMU has no user-mode networking):
# /etc/qemu/bridge.conf must allow the bridge.  The console goes to console.log.
exec $(q "$qemu") -L /usr/share/qemu -L /usr/share/seabios \\
    -machine q35,accel=$accel -m $memory -smp $vcpus -nographic -no-user-config \\
    -serial file:$(q "$out/console.log") -monitor none \\
    -qmp unix:$(q "$out/qmp.sock"),server=on,wait=off \\
    -drive file=$(q "$out/ubuntu.qcow2"),if=none,id=sys,format=qcow2 -device virtio-blk-pci,drive=sys,bootindex=1 \\
    -drive file=$(q "$out/seed.iso"),if=none,id=seed,format=raw,readonly=on -device ide-cd,drive=seed,bus=ide.1 \\
    -drive file=$(q "$out/job.tar"),if=none,id=nvmimic-job,format=raw,readonly=on \\
    -device virtio-blk-pci,drive=nvmimic-job,serial=nvmimic-job \\
    -drive file=$(q "$out/results.img"),if=none,id=nvmimic-results,format=raw \\
    -device virtio-blk-pci,drive=nvmimic-results,serial=nvmimic-results \\
    -drive file=$(q "$out/nvme.raw"),if=none,id=nvm,format=raw \\
    -device nvme,id=nvm0,drive=nvm,profile=$(q "$profile") $netargs "\$@"
SH
chmod +x "$out/qemu-run.sh"
cat <<MSG
$me: guest for profile $profile in $out
  libvirt:  virsh define $out/domain.xml && virsh start $name
  QEMU:     $out/qemu-run.sh
  first boot installs fio and nvme-cli (needs the network: $net), then runs the job
  and powers off; results:  mkdir R && tar -xf $out/results.img -C R
MSG

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The Ubuntu cloud-image recipe (vm-images/ubuntu/prepare.sh), offline: no Ubuntu image
# can be fetched here, so a blank qcow2 stands in for it.  Checks the clear refusal
# without an image, the NoCloud seed (ISO 9660 labelled cidata with user-data and
# meta-data), user-data as YAML with its #cloud-config header and what it installs,
# the agent it carries (byte-identical, sh -n), the overlay on the user's image, the
# libvirt domain against libvirt's schema and the plain QEMU command.
#
# usage: ubuntu.sh NVMIMIC
set -u
nvmimic=$(readlink -f "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ub=$root/vm-images/ubuntu
fail() { echo "FAIL: $*" >&2; exit 1; }
for t in virt-xml-validate isoinfo qemu-img cloud-localds; do
    command -v $t >/dev/null || fail "$t not found (make deps)"
done
python3 -c 'import yaml' 2>/dev/null || fail "python3-yaml not installed (make deps)"
work=$(mktemp -d /tmp/nvmimic-ubtest.XXXXXX)
trap 'rm -rf "$work"' EXIT
printf '#!/bin/sh\nexit 0\n' >"$work/qemu"; chmod +x "$work/qemu"
export NVMIMIC=$nvmimic NVMIMIC_QEMU=$work/qemu

"$ub/prepare.sh" --out "$work/x" --profile crucial-p5-1tb >/dev/null 2>"$work/err" &&
    fail "prepare.sh ran without an image"
[ "$(wc -l <"$work/err")" = 1 ] && grep -q "no Ubuntu cloud image given (--image FILE" "$work/err" ||
    fail "missing-image message: $(cat "$work/err")"
echo "ok: without an image: $(cat "$work/err")"
"$ub/prepare.sh" --image "$work/none.img" --out "$work/x" --profile crucial-p5-1tb >/dev/null 2>"$work/err" &&
    fail "prepare.sh ran with a missing image"
grep -q "Ubuntu cloud image '$work/none.img' not found" "$work/err" || fail "missing-file message: $(cat "$work/err")"
echo "not an image" >"$work/text.img"
"$ub/prepare.sh" --image "$work/text.img" --out "$work/x" --profile crucial-p5-1tb >/dev/null 2>"$work/err" &&
    fail "prepare.sh took a text file for a raw image"
echo "ok: refused: $(cat "$work/err")"

# a stand-in cloud image and an ssh key with a quote in its comment
qemu-img create -q -f qcow2 "$work/noble-server-cloudimg-amd64.img" 3G
sum0=$(sha256sum <"$work/noble-server-cloudimg-amd64.img")
echo "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForTestsOnly0000000000000000000000 o'brien@host" >"$work/k.pub"
out=$work/g
"$ub/prepare.sh" --image "$work/noble-server-cloudimg-amd64.img" --out "$out" --profile crucial-p5-1tb \
    --ssh-key "$work/k.pub" --net bridge=br0 >"$work/p.log" 2>&1 || fail "prepare.sh: $(tail -n 3 "$work/p.log")"

file "$out/seed.iso" | grep -q "ISO 9660" || fail "seed is not ISO 9660: $(file "$out/seed.iso")"
[ "$(isoinfo -d -i "$out/seed.iso" | sed -n 's/^Volume id: //p')" = cidata ] || fail "seed volume id is not cidata"
isoinfo -R -f -i "$out/seed.iso" | sort >"$work/files"
[ "$(tr '\n' ' ' <"$work/files")" = "/meta-data /user-data " ] || fail "seed holds: $(cat "$work/files")"
isoinfo -R -i "$out/seed.iso" -x /user-data | cmp -s - "$out/user-data" || fail "seed's user-data differs"
isoinfo -R -i "$out/seed.iso" -x /meta-data >"$work/meta-data"
echo "ok: seed.iso: ISO 9660 'cidata' with user-data and meta-data"

python3 - "$out/user-data" "$work/meta-data" "$ub/nvmimic-agent.sh" "$work/agent" <<'PY' || fail "user-data / meta-data"
import base64, sys, yaml
ud, md, agent, dump = sys.argv[1:5]
text = open(ud).read()
assert text.split("\n", 1)[0] == "#cloud-config", "first line must be exactly #cloud-config"
d = yaml.safe_load(text)
assert isinstance(d, dict), type(d)
known = {"hostname", "package_update", "package_upgrade", "packages", "write_files",
         "runcmd", "ssh_authorized_keys"}
assert set(d) <= known, set(d) - known
assert d["package_update"] is True and d["package_upgrade"] is False
assert d["packages"] == ["fio", "nvme-cli"], d["packages"]
wf = {f["path"]: f for f in d["write_files"]}
a = wf["/usr/local/sbin/nvmimic-agent"]
assert a["encoding"] == "b64" and a["permissions"] == "0755" and a["owner"] == "root:root"
body = base64.b64decode(a["content"], validate=True)
assert body == open(agent, "rb").read(), "agent in user-data differs from nvmimic-agent.sh"
open(dump, "wb").write(body)
u = wf["/etc/systemd/system/nvmimic-agent.service"]["content"]
assert "ExecStart=/usr/local/sbin/nvmimic-agent" in u and "After=cloud-final.service" in u, u
assert "WantedBy=multi-user.target" in u
assert d["ssh_authorized_keys"] == [open(sys.argv[1].replace("g/user-data", "k.pub")).read().strip()]
cmds = [" ".join(c) for c in d["runcmd"]]
assert "systemctl enable nvmimic-agent.service" in cmds and \
    "systemctl start --no-block nvmimic-agent.service" in cmds, cmds
m = yaml.safe_load(open(md))
assert set(m) == {"instance-id", "local-hostname"} and m["instance-id"], m
PY
sh -n "$work/agent" || fail "the agent does not parse (sh -n)"
for s in nvmimic-job nvmimic-results 'nvmimic-rc: ' nvmimic-done 'nvmimic-step: '; do
    grep -q -- "$s" "$work/agent" || fail "agent lacks '$s' (the channel contract of vm-images/guest-init)"
done
echo "ok: user-data is YAML with #cloud-config first; installs fio and nvme-cli; agent byte-identical and parses; unit after cloud-final"

[ "$(sha256sum <"$work/noble-server-cloudimg-amd64.img")" = "$sum0" ] || fail "the user's image was modified"
qemu-img info --output=json "$out/ubuntu.qcow2" | python3 -c '
import json, sys
i = json.load(sys.stdin)
assert i["format"] == "qcow2" and i["full-backing-filename"] == sys.argv[1], i
assert i["backing-filename-format"] == "qcow2", i' "$work/noble-server-cloudimg-amd64.img" ||
    fail "ubuntu.qcow2 is not an overlay on the user's image"
echo "ok: ubuntu.qcow2 is a qcow2 overlay on the untouched user image"

virt-xml-validate "$out/domain.xml" domain >/dev/null 2>"$work/err" || fail "domain.xml: $(cat "$work/err")"
python3 - "$out" <<'PY' || fail "domain.xml content"
import sys, xml.etree.ElementTree as ET
out = sys.argv[1]
d = ET.parse(out + "/domain.xml").getroot()
disks = [(x.get("device"), x.find("source").get("file"), x.find("target").get("bus"),
          x.findtext("serial")) for x in d.findall("devices/disk")]
assert disks == [("disk", out + "/ubuntu.qcow2", "virtio", None),
                 ("cdrom", out + "/seed.iso", "sata", None),
                 ("disk", out + "/job.tar", "virtio", "nvmimic-job"),
                 ("disk", out + "/results.img", "virtio", "nvmimic-results")], disks
assert d.find("devices/disk/driver").get("type") == "qcow2"
assert d.find("devices/interface/source").get("bridge") == "br0"
assert d.find("os/kernel") is None and d.findtext("on_reboot") == "restart"
Q = "{http://libvirt.org/schemas/domain/qemu/1.0}"
args = [a.get("value") for a in d.iter(Q + "arg")]
assert "nvme,id=nvm0,drive=nvm0-drive,bus=pcie.0,addr=0x10,profile=crucial-p5-1tb" in args, args
PY
echo "ok: domain.xml validates: overlay boot disk, seed CD-ROM, job/results disks by serial, bridge, NVMe profile"

bash -n "$out/qemu-run.sh" || fail "qemu-run.sh does not parse"
grep -q "profile=crucial-p5-1tb" "$out/qemu-run.sh" && grep -q "serial=nvmimic-job" "$out/qemu-run.sh" &&
    grep -q "br=br0" "$out/qemu-run.sh" || fail "qemu-run.sh lacks the drive, the job disk or the bridge"
tar -tf "$out/job.tar" | grep -qx './run.sh' || fail "job.tar lacks the default run.sh"
echo "ok: qemu-run.sh parses and has the same disks; default job archived"

"$ub/prepare.sh" --seed-only --out "$work/s" >/dev/null 2>&1 && [ -s "$work/s/seed.iso" ] || fail "--seed-only"
echo "all ok"

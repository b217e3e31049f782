#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The Windows Server + SQL Server recipe (vm-images/windows/), offline: Windows cannot
# run here.  Builds the media without ISOs (--media-only) and checks every file:
# autounattend.xml well-formed with the passes and escaping it needs (Microsoft's
# unattend schema is not in Debian: structure is checked instead), ConfigurationFile.ini
# and job.ini parse, the DiskSpd jobs' rate limits, the HammerDB scripts' parameters,
# the ISO, both domain XMLs against libvirt's schema, the results disk round trip
# through mtools, and the parsers on hand-written samples.
#
# usage: windows.sh NVMIMIC
set -u
nvmimic=$(readlink -f "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
win=$root/vm-images/windows
fail() { echo "FAIL: $*" >&2; exit 1; }
for t in xmllint virt-xml-validate isoinfo mcopy mkfs.fat genisoimage qemu-img; do
    command -v $t >/dev/null || fail "$t not found (make deps)"
done
work=$(mktemp -d /tmp/nvmimic-wintest.XXXXXX)
trap 'rm -rf "$work"' EXIT
printf '#!/bin/sh\nexit 0\n' >"$work/qemu"; chmod +x "$work/qemu"
export NVMIMIC=$nvmimic NVMIMIC_QEMU=$work/qemu

# --- no ISO: one clear line -----------------------------------------------------------
"$win/make-media.sh" --out "$work/x" --profile crucial-p5-2tb >/dev/null 2>"$work/err" &&
    fail "make-media ran without a Windows ISO"
[ "$(wc -l <"$work/err")" = 1 ] && grep -q "no Windows Server ISO given (--windows-iso FILE" "$work/err" ||
    fail "missing-ISO message: $(cat "$work/err")"
echo "ok: without an ISO: $(cat "$work/err")"
: >"$work/win.iso"
"$win/make-media.sh" --out "$work/x" --profile crucial-p5-2tb --windows-iso "$work/win.iso" \
    >/dev/null 2>"$work/err" && fail "make-media ran without SQL Server media"
grep -q "no SQL Server ISO given" "$work/err" || fail "missing-SQL message: $(cat "$work/err")"
echo "ok: without SQL Server: $(cat "$work/err")"

# --- media ----------------------------------------------------------------------------
pw='P<&>"x'"'"'1'
out=$work/m
"$win/make-media.sh" --media-only --out "$out" --profile crucial-p5-2tb --admin-password "$pw" \
    --memory 2048 --vcpus 2 >"$work/mm.log" 2>&1 || fail "make-media --media-only: $(tail -n 3 "$work/mm.log")"
xmllint --noout "$out/autounattend.xml" 2>"$work/err" || fail "autounattend.xml not well-formed: $(cat "$work/err")"
python3 - "$out/autounattend.xml" "$pw" <<'PY' || fail "autounattend.xml structure"
import sys, xml.etree.ElementTree as ET
ns = {"u": "urn:schemas-microsoft-com:unattend"}
r = ET.parse(sys.argv[1]).getroot()
passes = [s.get("pass") for s in r.findall("u:settings", ns)]
assert passes == ["windowsPE", "specialize", "oobeSystem"], passes
for c in r.iter("{urn:schemas-microsoft-com:unattend}component"):
    assert c.get("processorArchitecture") == "amd64" and c.get("publicKeyToken") == "31bf3856ad364e35", c.attrib
    assert c.get("language") == "neutral" and c.get("versionScope") == "nonSxS", c.attrib
setup = r.find("u:settings[@pass='windowsPE']/u:component[@name='Microsoft-Windows-Setup']", ns)
assert setup.findtext("u:DiskConfiguration/u:Disk/u:DiskID", namespaces=ns) == "0"
assert setup.findtext("u:ImageInstall/u:OSImage/u:InstallTo/u:PartitionID", namespaces=ns) == "2"
assert setup.findtext("u:UserData/u:AcceptEula", namespaces=ns) == "true"
assert setup.find("u:UserData/u:ProductKey", ns) is None, "empty product key left in"
oobe = r.find("u:settings[@pass='oobeSystem']/u:component", ns)
pw = [e.text for e in oobe.iter("{urn:schemas-microsoft-com:unattend}Value")]
assert pw == [sys.argv[2]] * 2, pw
cmd = oobe.findtext("u:FirstLogonCommands/u:SynchronousCommand/u:CommandLine", namespaces=ns)
assert "nvmimic\\setup.ps1" in cmd, cmd
PY
grep -q $'\r$' "$out/autounattend.xml" || fail "autounattend.xml lacks CRLF line ends"
echo "ok: autounattend.xml well-formed; passes, disk 0, image, password (with < & > \" ') escaped"

iso=$out/nvmimic-media.iso
file "$iso" | grep -q "ISO 9660" || fail "media is not ISO 9660: $(file "$iso")"
[ "$(isoinfo -d -i "$iso" | sed -n 's/^Volume id: //p')" = NVMIMIC ] || fail "ISO volume id is not NVMIMIC"
isoinfo -J -f -i "$iso" | sort >"$work/isofiles"
for f in /autounattend.xml /nvmimic/setup.ps1 /nvmimic/agent.ps1 /nvmimic/job.ini /nvmimic/jobs.json \
         /nvmimic/four-corners.cmd /nvmimic/ConfigurationFile.ini /nvmimic/build.tcl /nvmimic/run.tcl; do
    grep -qx "$f" "$work/isofiles" || fail "ISO lacks $f"
done
x() { isoinfo -J -i "$iso" -x "$1"; }
x /autounattend.xml | cmp -s - "$out/autounattend.xml" || fail "ISO's autounattend.xml differs"
echo "ok: ISO 9660 + Joliet, volume NVMIMIC, all files"

x /nvmimic/ConfigurationFile.ini >"$work/cf.ini"
x /nvmimic/job.ini >"$work/job.ini"
python3 - "$work/cf.ini" "$work/job.ini" <<'PY' || fail "INI files"
import configparser, sys
c = configparser.ConfigParser(interpolation=None, strict=True)
c.optionxform = str
c.read_string(open(sys.argv[1], newline="").read().replace("\r\n", "\n"))
assert c.sections() == ["OPTIONS"], c.sections()
o = c["OPTIONS"]
for k, v in {"ACTION": '"Install"', "FEATURES": "SQLENGINE", "INSTANCENAME": '"MSSQLSERVER"',
             "QUIET": '"True"', "TCPENABLED": '"1"',
             "SQLSYSADMINACCOUNTS": '"BUILTIN\\Administrators"'}.items():
    assert o.get(k) == v, (k, o.get(k))
for k in ("INSTALLSQLDATADIR", "SQLUSERDBDIR", "SQLUSERDBLOGDIR", "SQLTEMPDBDIR", "SQLTEMPDBLOGDIR",
          "SQLBACKUPDIR"):
    assert o[k].startswith('"D:\\MSSQL'), (k, o[k])
for k, v in o.items():
    assert v.startswith('"') == v.endswith('"'), ("unbalanced quotes", k)
    assert "\\" not in v or v.startswith('"'), ("unquoted path", k)
assert "IACCEPTSQLSERVERLICENSETERMS" not in o  # on setup.exe's command line (setup.ps1)
raw = open(sys.argv[2], newline="").read()
assert raw.endswith("\r\n") and "\n" not in raw.replace("\r\n", ""), "job.ini needs CRLF"
job = dict(l.split("=", 1) for l in raw.splitlines() if l and not l.startswith(";"))
cap = 2000398934016
assert job["model"] == "CT2000P5SSD8" and job["capacity_bytes"] == str(cap), job
span = int(job["span_bytes"])
assert span % (1 << 20) == 0 and cap * 0.05 - (1 << 20) < span <= cap * 0.05, span   # TLC: 5 %
assert job["suites"] == "four-corners,tpcc" and job["sql_max_memory_mb"] == "49152", job
PY
echo "ok: ConfigurationFile.ini (data, logs, tempdb on D:) and job.ini (5 % span of a TLC drive) parse"

x /nvmimic/jobs.json >"$work/jobs.json"
x /nvmimic/four-corners.cmd >"$work/fc.cmd"
python3 - "$work/jobs.json" "$work/fc.cmd" <<'PY' || fail "DiskSpd jobs"
import json, sys
j = json.load(open(sys.argv[1]))["workloads"]
want = {"4k-random-read": (4096, "-r", 0, 128), "4k-random-write": (4096, "-r", 100, 64),
        "64k-seq-read": (65536, "-si", 0, 16), "64k-seq-write": (65536, "-si", 100, 8)}
assert [w["name"] for w in j] == list(want), [w["name"] for w in j]
for w in j:
    b, pat, wp, outst = want[w["name"]]
    assert w["block_bytes"] == b and pat in w["args"] and f"-w{wp}" in w["args"], w["args"]
    assert w["threads"] * w["queue_per_thread"] == outst == w["outstanding"], w
    assert f"-t{w['threads']}" in w["args"] and f"-o{w['queue_per_thread']}" in w["args"]
    for a in ("-Sh", "-L", "-Rxml", "-d30"):
        assert a in w["args"], (a, w["args"])
    pts = w["points"]
    assert [p["target_pct"] for p in pts] == list(range(10, 121, 10))
    for p in pts:
        g = p["g_bytes_per_ms"]
        exp = p["target_pct"] / 100 * w["peak_iops"] * b / w["threads"] / 1000
        assert abs(g - exp) <= 0.5, (w["name"], p, exp)
        # the limit DiskSpd enforces, back in IOPS, is the target within rounding
        iops = g * 1000 * w["threads"] / b
        assert abs(iops - p["target_iops"]) / p["target_iops"] < 0.002, (iops, p)
        assert p["cmd"][-2] == f"-g{g}", p["cmd"]
cmd = open(sys.argv[2], newline="").read()
assert cmd.count("diskspd.exe") == 4 * 13 and "\r\n" in cmd
PY
echo "ok: DiskSpd four corners: 128/64/16/8 outstanding, 12 rate-limited points each, -g = pct x peak x block / threads / 1000"

x /nvmimic/run.tcl >"$work/run.tcl"
x /nvmimic/build.tcl >"$work/build.tcl"
python3 - "$work/build.tcl" "$work/run.tcl" <<'PY' || fail "HammerDB scripts"
import re, sys
def cmds(path):
    t = open(path, newline="").read().replace("\r\n", "\n")
    depth = 0
    for ch in t:
        depth += ch == "{"
        depth -= ch == "}"
        assert depth >= 0, path
    assert depth == 0, f"{path}: unbalanced braces"
    d = {}
    for l in t.splitlines():
        m = re.match(r"\s*(diset|vuset|dbset)\s+(\S+)\s+(\S+)\s*(.*)$", l)
        if m:
            d[(m[1], m[2], m[3])] = m[4]
    return d, t
b, bt = cmds(sys.argv[1])
r, rt = cmds(sys.argv[2])
assert b[("dbset", "db", "mssqls")] == "" and b[("diset", "tpcc", "mssqls_count_ware")] == "1500"
assert "buildschema" in bt
assert r[("diset", "tpcc", "mssqls_driver")] == "timed"
assert r[("diset", "tpcc", "mssqls_rampup")] == "150" and r[("diset", "tpcc", "mssqls_duration")] == "30"
assert r[("diset", "tpcc", "mssqls_keyandthink")] == "true"
assert r[("diset", "tpcc", "mssqls_timeprofile")] == "true"
assert r[("diset", "tpcc", "mssqls_async_scale")] == "true"
vus = [int(k[2]) for k in r if k[:2] == ("vuset", "vu")]
users = vus[0] * int(r[("diset", "tpcc", "mssqls_async_client")])
assert users == 15000, users
for c in ("loadscript", "vucreate", "vurun", "vudestroy"):
    assert re.search(rf"^{c}\s*$", rt, re.M), c
PY
echo "ok: HammerDB: 1500 warehouses; timed, 150 min rampup + 30 min, 150 vu x 100 async clients = 15000 users, keying/think, time profile"

virt-xml-validate "$out/run.xml" domain >/dev/null 2>"$work/err" || fail "run.xml: $(cat "$work/err")"
virt-xml-validate "$out/install.xml" domain >/dev/null 2>"$work/err" || fail "install.xml: $(cat "$work/err")"
grep -q "profile=crucial-p5-2tb" "$out/run.xml" || fail "run.xml lacks the NVMe drive"
grep -q "value='nvme,\|node-name=" "$out/install.xml" && fail "install.xml has the NVMe drive"
grep -q "nvmimic-results" "$out/install.xml" && fail "install.xml has the results disk"
echo "ok: run.xml and install.xml validate; the install phase has neither the NVMe drive nor the results disk"

# --- results disk round trip and parsers ----------------------------------------------
img=$out/results.img
file "$img" | grep -q "partition 1 : ID=0xc" || fail "results disk lacks its FAT32 partition: $(file "$img")"
export MTOOLS_SKIP_CHECK=1
cp "$here/samples/diskspd-4k-random-read-050.xml" "$work/4k-random-read-050.xml"
cp "$here/samples/hammerdb-tpcc-run.log" "$work/hammerdb-run.log"
printf '0\r\n' >"$work/rc"
mcopy -i "$img@@1M" "$work/4k-random-read-050.xml" "$work/hammerdb-run.log" "$work/rc" ::/ ||
    fail "mcopy onto the results disk failed"
"$win/collect-results.sh" "$img" "$work/res" >"$work/cr.log" 2>&1 || fail "collect-results: $(cat "$work/cr.log")"
[ -e "$work/res/results.json" ] && fail "collect-results wrote a results.json (nvmimic's name)"
python3 - "$work/res/windows-results.json" <<'PY' || fail "parsed results"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["format"] == "nvmimic-windows-results" and r["format_version"] == 1, r
d = r["diskspd"]["4k-random-read-050"]
exp = {"iops": 199666.7, "mbps": 817.83, "lat_us": 640.0, "p50_us": 612.0, "p99_us": 1201.0,
       "p999_us": 1874.0, "max_us": 9311.0, "read_ios": 5990000, "write_ios": 0, "threads": 2,
       "block_bytes": 4096, "queue_per_thread": 4, "g_bytes_per_ms": 409600}
for k, v in exp.items():
    assert d[k] == v, (k, d[k], v)
h = r["hammerdb"]
assert h["nopm"] == 18702 and h["tpm"] == 43015 and h["tpm_counter"] == "SQL Server", h
assert sorted(h["procedures"]) == ["DELIVERY", "NEWORD", "OSTAT", "PAYMENT", "SLEV"]
assert h["procedures"]["NEWORD"] == {"calls": 561060, "min_ms": 1.305, "avg_ms": 6.41,
    "max_ms": 412.22, "p99_ms": 21.507, "p95_ms": 12.304, "p50_ms": 5.102}
assert h["txn_calls"] == 1290360 and h["avg_txn_ms"] == 6.204, h["avg_txn_ms"]
PY
echo "ok: results disk round trip (mtools, no mount) and parsers: DiskSpd 199,666.7 IOPS / 640 us; HammerDB 18,702 NOPM, 6.204 ms mean transaction"
# its own schema (docs/windows-results.md), which can fail: a count as a string
validate=$root/tests/results/validate.py
wschema=$root/docs/windows-results.schema.json
python3 "$validate" --schema "$wschema" "$work/res/windows-results.json" >"$work/v.log" ||
    fail "windows-results.json against its schema: $(cat "$work/v.log")"
python3 - "$work/res/windows-results.json" "$work/bad-results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["diskspd"]["4k-random-read-050"]["ios"] = "5990000"
json.dump(r, open(sys.argv[2], "w"))
PY
python3 "$validate" --schema "$wschema" "$work/bad-results.json" >"$work/v.log" &&
    fail "a broken windows-results.json validated"
grep -q "diskspd/4k-random-read-050" "$work/v.log" || fail "schema error does not say where: $(cat "$work/v.log")"
echo "ok: windows-results.json validates against docs/windows-results.schema.json; a broken one does not"

p=$win/parse_results.py
echo 'Vuser 1:TEST RESULT : System achieved 28456 SQL Server TPM at 12345 NOPM' >"$work/h3.log"
[ "$("$p" hammerdb "$work/h3.log" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["nopm"], d["tpm"])')" = "12345 28456" ] ||
    fail "HammerDB 3.x result line"
head -c 2000 "$here/samples/diskspd-4k-random-read-050.xml" >"$work/trunc.xml"
"$p" diskspd "$work/trunc.xml" >/dev/null 2>"$work/err" && fail "truncated DiskSpd XML accepted"
[ "$(wc -l <"$work/err")" = 1 ] || fail "truncated XML: not one line: $(cat "$work/err")"
echo "Vuser 1:FINISHED FAILED" >"$work/bad.log"
"$p" hammerdb "$work/bad.log" >/dev/null 2>"$work/err" && fail "HammerDB log without result accepted"
grep -q "no 'TEST RESULT" "$work/err" || fail "HammerDB no-result message: $(cat "$work/err")"
sed 's#<TestTimeSeconds>30.00#<TestTimeSeconds>0#' "$here/samples/diskspd-4k-random-read-050.xml" >"$work/zero.xml"
"$p" diskspd "$work/zero.xml" >/dev/null 2>&1 && fail "zero test time accepted"
echo "ok: parsers refuse truncated XML, zero test time and a run without a result, in one line each"

# QLC: 1 % span
"$win/make-media.sh" --media-only --out "$work/q" --profile intel-670p-2tb --suites four-corners >/dev/null 2>&1 ||
    fail "make-media for a QLC profile"
span=$(isoinfo -J -i "$work/q/nvmimic-media.iso" -x /nvmimic/job.ini | tr -d '\r' | sed -n 's/^span_bytes=//p')
[ "$span" = $(( 2000398934016 / 100 / 1048576 * 1048576 )) ] || fail "QLC span $span is not 1 %"
echo "ok: QLC profile: 1 % span"
echo "all ok"

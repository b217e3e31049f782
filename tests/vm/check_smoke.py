#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check what the smoke job brought back from the guest, and the disk it wrote.

usage: check_smoke.py RESULTS_DIR DISK_RAW VERIFY_BYTES BLOCK_BYTES

Prints one summary line and exits 0 when every check holds; otherwise prints
each failed check on its own line ("smoke: FAIL ...") and exits 1.
"""
import json
import os
import struct
import sys

# The read job (smoke.sh): time_based, runtime=5, iodepth=1.  Its speed is
# the host's (real-time TCG), so no figure is checked against a number;
# what is checked is that fio ran that job: for 5 s, its I/O count and
# IOPS agreeing, and one I/O at a time (the latencies of its I/Os add up to
# no more than the run time, which two outstanding would exceed).
RUNTIME_MS = 5000

FIO_VERIFY_MAGIC = 0xACCA                   # fio's struct verify_header.magic
FIO_VERIFY_CRC32C = 5                       # enum verify_type: VERIFY_CRC32C


def load_job(path, failures):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        failures.append(f"{os.path.basename(path)}: not readable fio JSON ({e})")
        return None
    jobs = doc.get("jobs") or []
    if len(jobs) != 1:
        failures.append(f"{os.path.basename(path)}: expected 1 job, found {len(jobs)}")
        return None
    return jobs[0]


def check(results, disk, verify_bytes, block_bytes):
    failures = []
    summary = {}

    rc_path = os.path.join(results, "rc")
    rc = open(rc_path).read().strip() if os.path.exists(rc_path) else "missing"
    if rc != "0":
        failures.append(f"guest job exit status {rc} (see job.log)")

    rr = load_job(os.path.join(results, "randread.json"), failures)
    if rr is not None:
        r = rr["read"]
        iops = float(r.get("iops", 0))
        lat_ns = float(r.get("clat_ns", {}).get("mean", 0))
        total_ns = float(r.get("lat_ns", {}).get("mean", 0))
        ios = int(r.get("total_ios", 0))
        run_ms = float(r.get("runtime", 0))
        summary.update(iops=iops, lat_ns=lat_ns, ios=ios)
        if rr.get("error", -1) != 0:
            failures.append(f"randread: fio error {rr.get('error')}")
        if not ios > 0:
            failures.append("randread: no I/O completed")
        if abs(run_ms - RUNTIME_MS) > 0.05 * RUNTIME_MS:
            failures.append(f"randread: ran {run_ms:.0f} ms, not the job's "
                            f"{RUNTIME_MS} ms (time_based)")
        if run_ms > 0 and abs(iops * run_ms / 1000 - ios) > max(1, 0.01 * ios):
            failures.append(f"randread: {iops:.1f} IOPS over {run_ms:.0f} ms is "
                            f"not its {ios} I/Os")
        if not 0 < lat_ns <= total_ns:
            failures.append(f"randread: completion latency {lat_ns:.0f} ns is not "
                            f"within the total {total_ns:.0f} ns")
        if ios * total_ns > 1.01 * run_ms * 1e6:
            failures.append(f"randread: {ios} I/Os of {total_ns:.0f} ns each take "
                            f"longer than the {run_ms:.0f} ms run: not QD1")
        if r.get("io_bytes", 0) != 4096 * r.get("total_ios", -1):
            failures.append("randread: I/Os were not 4 KiB")
        if rr["write"].get("io_bytes", 0) != 0:
            failures.append("randread: the read job wrote")

    wv = load_job(os.path.join(results, "verify.json"), failures)
    if wv is not None:
        wrote = wv["write"].get("io_bytes", 0)
        verified = wv["read"].get("io_bytes", 0)
        summary.update(wrote=wrote, verified=verified)
        if wv.get("error", -1) != 0:
            failures.append(f"write+verify: fio error {wv.get('error')}")
        if wrote != verify_bytes:
            failures.append(f"write+verify: wrote {wrote} bytes, expected {verify_bytes}")
        if verified != verify_bytes:
            failures.append(f"write+verify: verified {verified} bytes, expected {verify_bytes}")
    log = os.path.join(results, "job.log")
    if os.path.exists(log) and "verify:" in open(log, errors="replace").read():
        failures.append("write+verify: fio reported a verify failure in job.log")

    # The host side: each written block must carry fio's verify header for its own
    # offset, i.e. the guest's data went through the NVMe device into this file.
    good = 0
    try:
        with open(disk, "rb") as f:
            for off in range(0, verify_bytes, block_bytes):
                f.seek(off)
                hdr = f.read(24)
                magic, vtype, length, _seed, hoff = struct.unpack("<HHIQQ", hdr)
                if (magic, vtype, length, hoff) == (FIO_VERIFY_MAGIC, FIO_VERIFY_CRC32C,
                                                    block_bytes, off):
                    good += 1
    except (OSError, struct.error) as e:
        failures.append(f"disk: cannot read {disk} ({e})")
    blocks = verify_bytes // block_bytes
    summary.update(disk_blocks=good)
    if good != blocks:
        failures.append(f"disk: {good} of {blocks} blocks on the host file carry "
                        "fio's verify header for their offset")
    return failures, summary


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    results, disk = sys.argv[1], sys.argv[2]
    verify_bytes, block_bytes = int(sys.argv[3]), int(sys.argv[4])
    failures, s = check(results, disk, verify_bytes, block_bytes)
    for f in failures:
        print(f"smoke: FAIL {f}")
    if failures:
        return 1
    print(f"smoke: fio QD1 4K random read {s['iops']:.0f} IOPS, mean latency "
          f"{s['lat_ns'] / 1000:.0f} us ({s['ios']} I/Os); write+verify "
          f"{s['wrote'] >> 20} MiB written, {s['verified'] >> 20} MiB verified, 0 errors; "
          f"{s['disk_blocks']} blocks found on the host disk")
    return 0


if __name__ == "__main__":
    sys.exit(main())

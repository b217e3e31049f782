#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""sql-table.py DIR...: docs/apps.md's SQL tables from `nvmimic run --suite sql`
results (DIR/results.json each), one row per run, in the order given.

Prints two Markdown tables: transactions (tpmC; average, p95, p99 ms per
transaction type and overall) and I/O over the sample (the device's read
and write count and mean latency, the guest's, PostgreSQL's buffer hit
ratio), with each run's profile, topology and size.
"""
import json
import sys

TX = ["new_order", "payment", "order_status", "delivery", "stock_level"]
SHORT = {"new_order": "New-Order", "payment": "Payment",
         "order_status": "Order-Status", "delivery": "Delivery",
         "stock_level": "Stock-Level"}


def fmt(v, digits=1):
    return "–" if v is None else f"{v:,.{digits}f}"


def dev(app, cls):
    d = (app.get("device") or {}).get("classes", {}).get(cls) or {}
    return d.get("count"), d.get("lat_us")


def main():
    runs = []
    for d in sys.argv[1:]:
        with open(f"{d}/results.json") as f:
            r = json.load(f)
        app = next((a for a in r["apps"] if a["suite"] == "sql"), None)
        if not app or not app.get("complete"):
            sys.exit(f"sql-table: {d}: no complete sql suite")
        runs.append((r, app))
    head = ["drive", "topology", "tpmC"]
    for t in TX + ["overall"]:
        name = SHORT.get(t, "overall")
        head += [f"{name} avg", "p95", "p99"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r, app in runs:
        res = app["result"]
        row = [r["profile"], app["params"]["topology"], fmt(res["tpmC"], 0)]
        for t in TX + ["overall"]:
            s = res["overall"] if t == "overall" else res["transactions"][t]
            row += [fmt(s["avg_ms"], 2), fmt(s["p95_ms"], 2), fmt(s["p99_ms"], 2)]
        print("| " + " | ".join(row) + " |")
    print()
    head = ["drive", "topology", "W", "guest RAM", "device reads", "read µs",
            "device writes", "write µs", "flushes", "flush µs",
            "guest read µs", "guest write µs", "PG buffer hits"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r, app in runs:
        res, p, gap = app["result"], app["params"], app.get("latency_gap", {})
        rc, rl = dev(app, "read")
        wc, wl = dev(app, "write")
        fc, fl = dev(app, "flush")
        pg = res.get("pg_buffers") or {}
        hit = pg.get("hit_ratio")
        row = [r["profile"], p["topology"], str(p["warehouses"]),
               f"{p['guest_mem_mib']} MiB", fmt(rc, 0), fmt(rl), fmt(wc, 0),
               fmt(wl), fmt(fc, 0), fmt(fl),
               fmt((gap.get("read") or {}).get("guest_us")),
               fmt((gap.get("write") or {}).get("guest_us")),
               "–" if hit is None else f"{100 * hit:.1f} %"]
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()

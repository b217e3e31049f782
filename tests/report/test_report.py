#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Tests of `nvmimic report` / `nvmimic compare` (meson suite 'harness').

    test_report.py NVMIMIC FIXTURE WORKDIR CHECK

CHECK is one of png, svg, csv, html, chromium, sim-only, minimal, compare,
bad-input, golden, apps, apps-only, apps-tolerant, apps-chromium,
apps-compare, baseline, made-fixture.  Each check renders into its own WORKDIR/CHECK so they can run
in parallel.  Exit 0 pass, 1 fail, 77 skip.

The apps checks read fixture-apps.json (VDI workload, sql, render and seq
suites, all complete) and fixture-apps-only.json (workloads: [], a failed
sql suite with a null result), both beside FIXTURE.  golden compares the
four-corners fixture's report.html, charts' data and render date taken out,
with golden-four-corners.html (written by nvmimic report before application
suites existed); NVMIMIC_UPDATE_GOLDEN=1 rewrites it.
"""
import html.parser
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

SVG = "{http://www.w3.org/2000/svg}"
WORKLOADS = ["4k-random-read", "4k-random-write", "64k-seq-read",
             "64k-seq-write"]


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def run(argv, ok=True):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if ok and p.returncode != 0:
        raise Fail("%s exited %d: %s" % (" ".join(argv), p.returncode,
                                          p.stderr.strip()))
    return p


def render(nvmimic, fixture, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    shutil.copy(fixture, os.path.join(work, "results.json"))
    p = run([nvmimic, "report", work])
    check(p.stdout.strip() == os.path.join(work, "report.html"),
          "report should print the path of report.html, printed %r"
          % p.stdout)
    with open(fixture) as f:
        return json.load(f)


# ---- PNG -------------------------------------------------------------------

def png_info(path):
    """Signature, chunk CRCs, IHDR size; decoded rows' distinct bytes."""
    with open(path, "rb") as f:
        data = f.read()
    check(data[:8] == b"\x89PNG\r\n\x1a\n", "%s: no PNG signature" % path)
    pos, chunks, idat = 8, [], b""
    while pos < len(data):
        check(pos + 8 <= len(data), "%s: truncated chunk header" % path)
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        crc, = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        check(zlib.crc32(kind + body) == crc,
              "%s: bad CRC in %s chunk" % (path, kind))
        chunks.append(kind)
        if kind == b"IDAT":
            idat += body
        pos += 12 + n
    check(chunks[0] == b"IHDR" and chunks[-1] == b"IEND",
          "%s: chunks %s" % (path, chunks[:3]))
    ihdr = data[16:16 + 13]
    w, h, depth, ctype = struct.unpack(">IIBB", ihdr[:10])
    raw = zlib.decompress(idat)
    return w, h, depth, ctype, len(set(raw))


def t_png(nvmimic, fixture, work):
    render(nvmimic, fixture, work)
    for wl in WORKLOADS:
        w, h, depth, ctype, distinct = png_info(
            os.path.join(work, wl + ".png"))
        check((w, h) == (1000, 620), "%s.png is %dx%d, want 1000x620"
              % (wl, w, h))
        check(depth == 8, "%s.png bit depth %d" % (wl, depth))
        # a drawn chart has many colours; a blank image decodes to a few
        check(distinct > 20, "%s.png looks blank (%d distinct bytes)"
              % (wl, distinct))
        print("ok %s.png %dx%d colour type %d" % (wl, w, h, ctype))


# ---- SVG -------------------------------------------------------------------

def svg_series(path):
    """{legend title: [data groups]} from gnuplot's SVG.

    gnuplot wraps each plot in <g id="gnuplot_plot_N">; with an opaque key
    the key entries are drawn again afterwards in groups of the same id that
    hold the legend text, the first group of an id holds the data."""
    root = ET.parse(path).getroot()
    check(root.tag == SVG + "svg", "%s: root is %s" % (path, root.tag))
    groups = {}
    for g in root.iter(SVG + "g"):
        gid = g.get("id") or ""
        if gid.startswith("gnuplot_plot_"):
            groups.setdefault(gid, []).append(g)
    series = {}
    for gid, gs in groups.items():
        title = None
        data = []
        for g in gs:
            texts = ["".join(t.itertext()).strip()
                     for t in g.iter(SVG + "text")]
            texts = [t for t in texts if t]
            if texts:
                title = texts[0]
            else:
                data.append(g)
        check(title, "%s: %s has no legend text" % (path, gid))
        series[title] = data
    return series


def data_points(groups):
    uses = sum(1 for g in groups for _ in g.iter(SVG + "use"))
    verts = 0
    for g in groups:
        for p in g.iter(SVG + "path"):
            verts += len(re.findall(r"[ML]\s*[-\d.]+,[-\d.]+", p.get("d", "")))
    return uses, verts


def find_series(series, prefix):
    hits = [k for k in series if k.startswith(prefix)]
    check(len(hits) == 1, "legend entry starting %r: found %s in %s"
          % (prefix, hits, list(series)))
    return series[hits[0]]


def t_svg(nvmimic, fixture, work):
    doc = render(nvmimic, fixture, work)
    for wl in doc["workloads"]:
        path = os.path.join(work, wl["name"] + ".svg")
        series = svg_series(path)
        guest = [p for p in wl["curve"] if not p.get("host_limited")]
        limited = [p for p in wl["curve"] if p.get("host_limited")]
        # the guest's curve is named by the load generator that ran
        uses, verts = data_points(find_series(
            series, "guest (%s in the VM)" % wl["loadgen"]))
        check(uses == len(guest) and verts == len(guest),
              "%s: guest series has %d markers / %d path vertices, JSON has "
              "%d points not host-limited" % (path, uses, verts, len(guest)))
        uses, verts = data_points(find_series(series, "model (nvmimic sim)"))
        check(uses == len(wl["sim"]["curve"]),
              "%s: model series has %d markers, JSON sim curve %d"
              % (path, uses, len(wl["sim"]["curve"])))
        find_series(series, "device (host view")
        review = find_series(series, "review peak")
        if wl["review"].get("lat_us") is not None:
            check(data_points(review)[0] == 1,
                  "%s: review peak should be one marker" % path)
        if limited:
            uses, _ = data_points(find_series(series, "guest, host-limited"))
            check(uses == len(limited), "%s: %d host-limited markers, JSON "
                  "has %d" % (path, uses, len(limited)))
        else:
            check(not [k for k in series if "host-limited" in k],
                  "%s: host-limited entry without such points" % path)
        text = open(path, encoding="utf-8").read()
        check("IOPS" in text and "average latency (µs)" in text,
              "%s: axis titles missing" % path)
        check(doc["profile"] in text and wl["name"] in text,
              "%s: title lacks profile / workload" % path)
        print("ok %s: %s" % (os.path.basename(path), ", ".join(series)))


# ---- CSV -------------------------------------------------------------------

def t_csv(nvmimic, fixture, work):
    import csv
    doc = render(nvmimic, fixture, work)
    with open(os.path.join(work, "results.csv"), newline="") as f:
        rows = list(csv.reader(f))
    # the columns nvmimic run writes: report keeps them (one writer)
    head = ["profile", "workload", "threads", "point", "target_pct",
            "target_iops", "iops", "mbps", "lat_us", "p50_us", "p99_us",
            "p999_us", "host_iops", "host_lat_us", "host_p99_us",
            "host_limited", "shortfall_pct", "sim_lat_us", "suite"]
    check(rows[0] == head, "header %s" % rows[0])
    want = []
    for wl in doc["workloads"]:
        want.append((wl, wl["peak"], "peak"))
        want += [(wl, p, str(p["target_pct"])) for p in wl["curve"]]
    check(len(rows) - 1 == len(want), "%d rows, want %d"
          % (len(rows) - 1, len(want)))
    for r, (wl, p, point) in zip(rows[1:], want):
        d = dict(zip(head, r))
        where = "%s %s" % (wl["name"], point)
        check(d["profile"] == doc["profile"] and d["workload"] == wl["name"]
              and d["point"] == point and int(d["threads"]) == wl["threads"],
              "%s: row starts %s" % (where, r[:5]))
        check(d["target_pct"] == ("" if point == "peak" else point),
              "%s: target_pct %r" % (where, d["target_pct"]))
        for k in ("iops", "mbps", "lat_us", "p99_us", "host_iops",
                  "host_lat_us", "host_p99_us", "shortfall_pct",
                  "sim_lat_us"):
            if p.get(k) is not None:
                check(abs(float(d[k]) - p[k]) < 0.006, "%s: %s %s vs %s"
                      % (where, k, d[k], p[k]))
            else:
                check(d[k] == "", "%s: %s should be empty" % (where, k))
        check(d["host_limited"] == str(p["host_limited"]).lower(),
              "%s: host_limited %s" % (where, d["host_limited"]))
        check(d["suite"] == wl.get("suite", doc["suite"]),
              "%s: suite %r" % (where, d["suite"]))
    print("ok results.csv: %d rows" % (len(rows) - 1))


# ---- HTML ------------------------------------------------------------------

class Html(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []
        self.sections = []
        self.text = []
        self.rows = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "section" and a.get("id", "").startswith("wl-"):
            self.sections.append([a["id"][3:], 0])
        if tag == "tr" and self.sections:
            self.sections[-1][1] += 1

    def handle_data(self, data):
        self.text.append(data)


def t_html(nvmimic, fixture, work):
    doc = render(nvmimic, fixture, work)
    text = open(os.path.join(work, "report.html"), encoding="utf-8").read()
    h = Html()
    h.feed(text)
    body = " ".join(h.text)
    for tag, a in h.tags:
        for k in ("src", "href"):
            v = a.get(k, "")
            check(not re.match(r"(https?:)?//", v),
                  "report.html fetches %s" % v[:60])
        check(tag not in ("script", "link", "iframe"),
              "report.html has a <%s>" % tag)
    check(not re.search(r"url\(\s*['\"]?(https?:)?//", text),
          "report.html's CSS fetches something")
    imgs = [a for t, a in h.tags if t == "img"]
    check(len(imgs) == len(doc["workloads"]) and
          all(a["src"].startswith("data:image/svg+xml;base64,")
              for a in imgs), "charts not inlined: %d <img>" % len(imgs))
    names = [s[0] for s in h.sections]
    check(names == [w["name"] for w in doc["workloads"]],
          "sections %s" % names)
    for (name, trs), wl in zip(h.sections, doc["workloads"]):
        # peak table: header, review, model, guest, device; curve: header +
        # one per point
        want = 5 + 1 + len(wl["curve"])
        check(trs == want, "%s: %d table rows, want %d" % (name, trs, want))
    for s in (doc["profile"], "guest", "simtime", "partial",
              "Peaks: review vs model vs guest", "guest − device",
              "host-limited", "2025-01-01",
              "Guest run: nvmimic-load inside a QEMU VM",
              "guest (nvmimic-load in the VM)"):
        check(s in body, "report.html lacks %r" % s)
    # the load generator that ran, not another (results.json's loadgen)
    check("fio" not in body, "report.html names fio, which did not run")
    print("ok report.html: %d workloads, %d charts, %d bytes"
          % (len(names), len(imgs), len(text)))


CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage"]

# Records errors and image loads into the DOM for --dump-dom.
PROBE = """<script>
window.__err = [];
window.addEventListener('error', function (e) {
  __err.push('error: ' + (e.message || (e.target && (e.target.src || '').slice(0, 60))));
}, true);
(function () {
  var ce = console.error;
  console.error = function () { __err.push('console.error: ' +
    Array.prototype.join.call(arguments, ' ')); ce.apply(console, arguments); };
})();
window.addEventListener('load', function () {
  var imgs = document.images, ok = 0;
  for (var i = 0; i < imgs.length; i++)
    if (imgs[i].complete && imgs[i].naturalWidth > 0) ok++;
  var d = document.createElement('pre');
  d.id = 'probe';
  d.textContent = 'imgs=' + ok + '/' + imgs.length + ' errors=' +
    JSON.stringify(__err) + ' height=' + document.body.scrollHeight;
  document.body.appendChild(d);
});
</script>"""


def chromium(args, profile):
    return subprocess.run(["chromium"] + CHROME_FLAGS +
                          ["--user-data-dir=" + profile] + args,
                          capture_output=True, text=True, timeout=120)


def t_chromium(nvmimic, fixture, work):
    if not shutil.which("chromium"):
        print("SKIP: chromium not installed (Debian package chromium; "
              "make deps installs it)")
        return 77
    doc = render(nvmimic, fixture, work)
    page = os.path.join(work, "report.html")
    shot = os.path.join(os.path.dirname(work), "report.png")
    chromium_check(page, work, shot, len(doc["workloads"]), 2000)
    return 0


def chromium_check(page, work, shot, n_imgs, min_height):
    """No console messages, @n_imgs images decoded, page > @min_height."""
    with tempfile.TemporaryDirectory() as prof:
        # 1. the report as written (its CSP forbids any fetch and any
        # script): every console message is a failure.
        if os.path.exists(shot):
            os.unlink(shot)
        p = chromium(["--enable-logging=stderr", "--v=0",
                      "--screenshot=" + shot, "--window-size=1280,2000",
                      "file://" + page], prof)
        console = [l for l in p.stderr.splitlines()
                   if ":CONSOLE" in l or "Uncaught" in l]
        check(not console, "console messages:\n  " + "\n  ".join(console))
        check(os.path.exists(shot), "no screenshot (rc %d): %s"
              % (p.returncode, p.stderr[-500:]))
        w, h, _, _, distinct = png_info(shot)
        check((w, h) == (1280, 2000) and distinct > 50,
              "screenshot %dx%d, %d distinct bytes" % (w, h, distinct))
    with tempfile.TemporaryDirectory() as prof:
        # 2. a copy with a probe script (and without the CSP that would
        # block it): script errors, images that did not decode.
        text = open(page, encoding="utf-8").read()
        text = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>',
                      "", text)
        text = text.replace("<head>", "<head>" + PROBE, 1)
        probe = os.path.join(work, "report-probe.html")
        with open(probe, "w", encoding="utf-8") as f:
            f.write(text)
        p = chromium(["--virtual-time-budget=5000", "--dump-dom",
                      "file://" + probe], prof)
        m = re.search(r"imgs=(\d+)/(\d+) errors=(.*?) height=(\d+)",
                      p.stdout)
        check(m, "probe found nothing in the dumped DOM (rc %d): %s"
              % (p.returncode, p.stderr[-500:]))
        ok, total, errs, height = m.groups()
        check(int(total) == n_imgs and ok == total,
              "%s of %s charts decoded, want %d" % (ok, total, n_imgs))
        check(errs == "[]", "page errors: %s" % errs)
        check(int(height) > min_height, "page only %s px high" % height)
    print("ok chromium: no console messages, %s/%s charts decoded, page "
          "%s px" % (ok, total, height))
    print("screenshot: %s" % shot)


# ---- other inputs ----------------------------------------------------------

def t_sim_only(nvmimic, fixture, work):
    """`nvmimic sim --out DIR` writes results.json (what --format json
    prints) and renders it: the model-only schema."""
    shutil.rmtree(work, ignore_errors=True)
    p = run([nvmimic, "sim", "--profile", "crucial-p5-2tb", "--suite",
             "four-corners", "--format", "json", "--duration-s", "0.2",
             "--out", work])
    doc = json.loads(p.stdout)
    with open(os.path.join(work, "results.json")) as f:
        check(json.load(f) == doc, "results.json differs from the output")
    check(os.path.exists(os.path.join(work, "report.html")),
          "sim --out wrote no report.html")
    run([nvmimic, "report", work])
    for wl in doc["workloads"]:
        series = svg_series(os.path.join(work, wl["name"] + ".svg"))
        uses, _ = data_points(find_series(series, "model (nvmimic sim)"))
        check(uses == len(wl["curve"]), "%s: %d model markers, want %d"
              % (wl["name"], uses, len(wl["curve"])))
        check(not [k for k in series if k.startswith("guest")],
              "%s: a guest series in a model-only chart" % wl["name"])
        # the review's peak comes from profiles/reviews/four-corners.tsv
        find_series(series, "review peak")
    html_text = open(os.path.join(work, "report.html"),
                     encoding="utf-8").read()
    check("Model only" in html_text and "complete" in html_text,
          "model-only header")
    print("ok sim-only results.json renders: %s" % ", ".join(series))


def t_made_fixture(nvmimic, fixture, work):
    """make-fixture.py (how fixture-guest.json was made) still turns
    today's `sim --format json` into a guest run that renders with its
    guest, device, model and review curves.  Like the fixture it leaves out keys a
    guest run has today (accel, suites, ...): it is an older run's shape on
    purpose, so it is not held to the schema."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    sim = run([nvmimic, "sim", "--profile", "crucial-p5-2tb", "--suite",
               "four-corners", "--format", "json", "--duration-s",
               "0.05"]).stdout
    p = subprocess.run([sys.executable, sibling(fixture, "make-fixture.py")],
                       input=sim, capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, "make-fixture.py exited %d: %s"
          % (p.returncode, p.stderr.strip()))
    doc = json.loads(p.stdout)
    check(doc["mode"] == "guest" and doc["complete"] is False,
          "made fixture: mode %r, complete %r" % (doc["mode"],
                                                  doc["complete"]))
    limited = [pt["target_pct"] for pt in doc["workloads"][0]["curve"]
               if pt["host_limited"]]
    check(doc["workloads"][0]["name"] == "4k-random-read" and limited,
          "made fixture: no host-limited 4K random read point")
    with open(os.path.join(work, "results.json"), "w") as f:
        f.write(p.stdout)
    run([nvmimic, "report", work])
    for wl in doc["workloads"]:
        series = svg_series(os.path.join(work, wl["name"] + ".svg"))
        for want in ("guest (", "device (", "model (", "review peak"):
            find_series(series, want)
    find_series(svg_series(os.path.join(work, "4k-random-read.svg")),
                "guest, host-limited")
    print("ok make-fixture.py output renders (%d workloads, "
          "4K read host-limited at %s %%)" % (len(doc["workloads"]), limited))


def t_minimal(nvmimic, fixture, work):
    """Only the keys a hand-made or truncated file would have."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    doc = {"mode": "guest", "complete": False, "workloads": [
        {"name": "4k-random-read",
         "curve": [{"target_pct": 10, "iops": 1000, "lat_us": 100},
                   {"target_pct": 20, "iops": 2000, "lat_us": 120,
                    "host_lat_us": 80}]},
        {"name": "odd name/with slash", "curve": []}]}
    with open(os.path.join(work, "results.json"), "w") as f:
        json.dump(doc, f)
    run([nvmimic, "report", work])
    for f in ("4k-random-read.png", "4k-random-read.svg",
              "odd_name_with_slash.svg", "report.html", "results.csv"):
        check(os.path.exists(os.path.join(work, f)), "%s missing" % f)
    # a file that does not say which load generator ran: none is named
    uses, verts = data_points(find_series(
        svg_series(os.path.join(work, "4k-random-read.svg")),
        "guest (in the VM)"))
    check(uses == 2 and verts == 2, "guest series %d/%d" % (uses, verts))
    print("ok minimal results.json renders")


def t_compare(nvmimic, fixture, work):
    shutil.rmtree(work, ignore_errors=True)
    guest = os.path.join(work, "p5-guest")
    model = os.path.join(work, "670p-model")
    out = os.path.join(work, "out")
    render(nvmimic, fixture, guest)
    os.makedirs(model)
    p = run([nvmimic, "sim", "--profile", "intel-670p-2tb", "--suite",
             "four-corners", "--format", "json", "--duration-s", "0.2"])
    with open(os.path.join(model, "results.json"), "w") as f:
        f.write(p.stdout)
    p = run([nvmimic, "compare", guest, model, "--out", out])
    check(p.stdout.strip() == os.path.join(out, "compare.html"),
          "compare printed %r" % p.stdout)
    for wl in WORKLOADS:
        png_info(os.path.join(out, "compare-%s.png" % wl))
        series = svg_series(os.path.join(out, "compare-%s.svg" % wl))
        find_series(series, "crucial-p5-2tb (guest, simtime)")
        find_series(series, "intel-670p-2tb (model)")
        find_series(series, "review peak, crucial-p5-2tb")
        find_series(series, "review peak, intel-670p-2tb")
    text = open(os.path.join(out, "compare.html"), encoding="utf-8").read()
    h = Html()
    h.feed(text)
    check(len([a for t, a in h.tags if t == "img"]) == 4, "4 charts")
    rows = text.count("<tr")
    check(rows == 1 + 2 * 4, "peak table has %d rows, want 9" % rows)
    print("ok compare: 4 charts, 8 peak rows")


def t_bad_input(nvmimic, fixture, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cases = []
    empty = os.path.join(work, "empty")
    os.makedirs(empty)
    cases.append(("missing results.json", [nvmimic, "report", empty],
                  "results.json: not found"))
    cases.append(("missing directory",
                  [nvmimic, "report", os.path.join(work, "nope")],
                  "no such directory"))
    for name, body, msg in (("malformed", '{"workloads": [', "malformed JSON"),
                            ("array", "[1, 2]", "not a results file"),
                            ("no-workloads", '{"profile": "x"}',
                             "no \"workloads\" array"),
                            # json-glib recurses per level: this overflowed
                            # the stack before nvm_json_load's depth check
                            ("deep", '{"workloads": ' + "[" * 100000 +
                             "]" * 100000 + "}",
                             "nested deeper than 512 levels")):
        d = os.path.join(work, name)
        os.makedirs(d)
        with open(os.path.join(d, "results.json"), "w") as f:
            f.write(body)
        cases.append((name, [nvmimic, "report", d], msg))
    cases.append(("compare, one bad dir",
                  [nvmimic, "compare", empty, "--out",
                   os.path.join(work, "c")], "results.json: not found"))
    cases.append(("report without DIR", [nvmimic, "report"], "needs"))
    cases.append(("unknown option", [nvmimic, "report", empty, "--frob"],
                  "unknown option"))
    for what, argv, msg in cases:
        p = run(argv, ok=False)
        err = p.stderr.strip()
        check(p.returncode > 0, "%s: exit %d (0, or a signal)"
              % (what, p.returncode))
        check(len(err.splitlines()) == 1 and msg in err,
              "%s: want one line with %r, got %r" % (what, msg, err))
        print("ok %s: exit %d: %s" % (what, p.returncode, err))


# ---- application suites ----------------------------------------------------

def sibling(fixture, name):
    return os.path.join(os.path.dirname(fixture), name)


def html_of(work):
    text = open(os.path.join(work, "report.html"), encoding="utf-8").read()
    h = Html()
    h.feed(text)
    return text, h


def self_contained(h, text):
    for tag, a in h.tags:
        for k in ("src", "href"):
            v = a.get(k, "")
            check(not re.match(r"(https?:)?//", v) and ":" not in
                  v.split("/")[0].replace("data:", ""),
                  "report.html fetches %s" % v[:60])
        check(tag not in ("script", "link", "iframe"),
              "report.html has a <%s>" % tag)


def section_text(text, sid):
    """The text of <section id=SID> (sections do not nest)."""
    m = re.search(r'<section id="%s">(.*?)</section>' % re.escape(sid),
                  text, re.S)
    check(m, "no section %s" % sid)
    h = Html()
    h.feed(m.group(1))
    return " ".join(h.text), m.group(1)


def t_golden(nvmimic, fixture, work):
    """A four-corners-only file renders exactly as before apps existed."""
    render(nvmimic, fixture, work)
    text = open(os.path.join(work, "report.html"), encoding="utf-8").read()
    text = re.sub(r"data:image/svg\+xml;base64,[A-Za-z0-9+/=]*",
                  "data:image/svg+xml;base64,…", text)
    text = re.sub(r"from results.json on [^·<]* ·",
                  "from results.json on DATE ·", text)
    golden = sibling(fixture, "golden-four-corners.html")
    if os.environ.get("NVMIMIC_UPDATE_GOLDEN"):
        with open(golden, "w", encoding="utf-8") as f:
            f.write(text)
    want = open(golden, encoding="utf-8").read()
    if text != want:
        import difflib
        d = difflib.unified_diff(want.replace(">", ">\n").splitlines(),
                                 text.replace(">", ">\n").splitlines(),
                                 "golden", "now", lineterm="", n=1)
        raise Fail("report.html differs from golden-four-corners.html:\n"
                   + "\n".join(list(d)[:40]))
    print("ok report.html of the four-corners fixture equals the golden "
          "file (%d bytes)" % len(text))


def bar_svg(path, labels, legend):
    """gnuplot's SVG: parses, prints each value of @labels above its bar,
    has the @legend entries."""
    root = ET.parse(path).getroot()
    check(root.tag == SVG + "svg", "%s: root is %s" % (path, root.tag))
    texts = ["".join(t.itertext()).strip() for t in root.iter(SVG + "text")]
    for want in labels + legend:
        check(want in texts, "%s: no text %r (has %s)"
              % (path, want, texts[:40]))
    boxes = sum(1 for g in root.iter(SVG + "g")
                if (g.get("id") or "").startswith("gnuplot_plot_")
                for p in g.iter(SVG + "path") if "Z" in p.get("d", "")
                or "z" in p.get("d", ""))
    return boxes


def t_apps(nvmimic, fixture, work):
    doc = render(nvmimic, sibling(fixture, "fixture-apps.json"), work)
    text, h = html_of(work)
    self_contained(h, text)
    body = " ".join(h.text)
    ids = [a.get("id") for t, a in h.tags if t in ("section", "h2")
           and a.get("id")]
    # the VDI workload under its suite heading, then the applications
    check(ids == ["suite-vdi", "wl-vdi-boot", "apps", "app-sql",
                  "app-render", "app-seq"], "section ids %s" % ids)
    check("Four corners" not in body, "a four-corners heading without "
          "four-corners workloads")
    imgs = [a for t, a in h.tags if t == "img"]
    check(len(imgs) == 4 and all(a["src"].startswith(
        "data:image/svg+xml;base64,") for a in imgs),
        "%d charts inlined, want 4" % len(imgs))
    # summary at the top: one row per app, linking to its section
    links = [a["href"] for t, a in h.tags if t == "a"
             and a.get("href", "").startswith("#app-")]
    check(links == ["#app-sql", "#app-render", "#app-seq"],
          "summary links %s" % links)
    for s in ("Applications: results", "tpmC 120.5, overall avg 5.21 ms, "
              "p99 20.37 ms", "total 10.2 s, swap in/out 183,211 / 201,876 "
              "pages", "best write 3.88 GB/s, best read 6.61 GB/s",
              "vdi, sql, render, seq", "84 % reads", "14.2 KiB",
              "vdi-boot.fio"):
        check(s in body, "report.html lacks %r" % s)

    sql, raw = section_text(text, "app-sql")
    for s in ("TPC-C", "120.5", "270.0", "Warehouses 1", "users 10",
              "new_order", "payment", "order_status", "delivery",
              "stock_level", "overall", "44.8", "7.13", "14.20", "22.60",
              "40.90", "5.21", "12.04", "20.37", "measured sample", "95.1",
              "210.0", "41.7", "97.3", "812.6", "1,650.0", "5,678",
              "guest-sql/console.log", "database disk sas",
              "The guest against the device", "131.4", "36.3", "24.5"):
        check(s in sql, "sql section lacks %r" % s)
    check('href="guest-sql/console.log"' in raw, "no console.log link")
    check("failed" not in sql, "sql marked failed")

    rnd, _ = section_text(text, "app-render")
    for s in ("Guest RAM 256 MiB", "40,000,000", "1.20", "3.40", "5.60",
              "10.20", "183,211", "201,876", "715.7", "788.6", "133.4",
              "388.0", "211.9", "544.0", "23,001", "6,320", "ok"):
        check(s in rnd, "render section lacks %r" % s)

    seq, _ = section_text(text, "app-seq")
    for st in doc["apps"][2]["steps"]:
        check(st["name"] in seq, "seq section lacks step %s" % st["name"])
    for s in ("3.12", "3.47", "3.88", "6.61", "2,975", "2,690.0",
              "3,100.0", "2,990", "3,135.2", "2,651.0", "3,050.0",
              "6,627.0", "5,040.0", "5,700.0"):
        check(s in seq, "seq section lacks %r" % s)

    for name, labels, legend in (
            ("app-seq", ["3.12", "3.47", "3.88", "6.61"], ["write", "read"]),
            ("app-render", ["1.2", "3.4", "5.6", "10.2"], []),
            ("app-sql", ["7.1", "14.2", "22.6", "5.2", "12.0", "20.4"],
             ["average", "p95", "p99"])):
        w, hh, depth, _, distinct = png_info(os.path.join(work,
                                                          name + ".png"))
        check((w, hh) == (1000, 620) and depth == 8 and distinct > 20,
              "%s.png %dx%d depth %d, %d distinct bytes"
              % (name, w, hh, depth, distinct))
        bar_svg(os.path.join(work, name + ".svg"), labels, legend)
        print("ok %s.png and .svg" % name)
    # the VDI workload's chart: the usual series
    series = svg_series(os.path.join(work, "vdi-boot.svg"))
    uses, _ = data_points(find_series(series, "guest (fio in the VM)"))
    check(uses == 4, "vdi-boot: %d guest markers, want 4" % uses)
    find_series(series, "model (nvmimic sim)")
    print("ok apps: %s" % ", ".join(ids))


def t_apps_only(nvmimic, fixture, work):
    """workloads: [] and one failed sql suite with a null result."""
    doc = render(nvmimic, sibling(fixture, "fixture-apps-only.json"), work)
    text, h = html_of(work)
    self_contained(h, text)
    body = " ".join(h.text)
    check("No workloads" not in body and "Peaks:" not in body,
          "a workloads summary in an apps-only report")
    check(not [a for t, a in h.tags if t == "img"], "a chart without data")
    check(not os.path.exists(os.path.join(work, "app-sql.png")),
          "app-sql.png drawn without a result")
    sql, raw = section_text(text, "app-sql")
    for s in ("failed", doc["apps"][0]["error"], "no TPC-C result",
              "No device figures", "Warehouses 1", "guest-sql/console.log"):
        check(s in sql, "sql section lacks %r" % s)
    check('href="guest-sql/console.log"' in raw, "no console.log link")
    check("tpmC" not in sql, "tpmC shown without a result")
    check("no result" in body, "summary should say no result")
    with open(os.path.join(work, "results.csv")) as f:
        rows = f.read().splitlines()
    check(len(rows) == 1, "results.csv has %d rows, want the header only"
          % len(rows))
    print("ok apps-only: failed sql, no charts")


def t_apps_tolerant(nvmimic, fixture, work):
    """Wrong types and missing members are ignored; no "workloads"."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    doc = {"suites": "not-an-array", "apps": [
        1, None, "x",
        {"suite": 5, "steps": "x", "device": [], "result": "bad"},
        {"suite": "seq", "steps": [{"name": "s", "gbps": "fast"}, 3,
                                   {"rw": "read", "qd": 4, "gbps": 1.5,
                                    "device": {"classes": {"read": 7}}}]},
        {"suite": "render", "result": {"load_s": 1, "check": "ok"},
         "swap": None, "guest_dir": "/etc"},
        {"suite": "sql", "result": {"tpmC": "many", "transactions": [],
                                    "overall": {"avg_ms": 3}},
         "guest_dir": "../up"},
        {"suite": "frobnicate", "complete": False, "error": "<b>x</b>",
         "device": {"classes": {"flush": {"count": 3}}}}]}
    with open(os.path.join(work, "results.json"), "w") as f:
        json.dump(doc, f)
    run([nvmimic, "report", work])
    text, h = html_of(work)
    self_contained(h, text)
    ids = [a.get("id") for t, a in h.tags if t == "section" and a.get("id")]
    check(ids == ["app-suite-1", "app-seq", "app-render", "app-sql",
                  "app-frobnicate"], "sections %s" % ids)
    check("&lt;b&gt;x&lt;/b&gt;" in text, "error not escaped")
    check("/etc/console.log" not in text and "../up" not in text,
          "an unsafe guest_dir was linked")
    for f in ("app-seq.png", "app-render.png", "app-sql.png"):
        png_info(os.path.join(work, f))
    print("ok malformed apps render: %s" % ", ".join(ids))


def t_apps_chromium(nvmimic, fixture, work):
    if not shutil.which("chromium"):
        print("SKIP: chromium not installed (Debian package chromium; "
              "make deps installs it)")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    for name, n_imgs, height in (("fixture-apps.json", 4, 2000),
                                 ("fixture-apps-only.json", 0, 400)):
        sub = os.path.join(work, name.replace(".json", ""))
        render(nvmimic, sibling(fixture, name), sub)
        chromium_check(os.path.join(sub, "report.html"), sub,
                       os.path.join(work, name.replace(".json", ".png")),
                       n_imgs, height)
    return 0


def t_apps_compare(nvmimic, fixture, work):
    shutil.rmtree(work, ignore_errors=True)
    dirs = []
    for name in ("fixture-apps.json", "fixture-apps-only.json",
                 os.path.basename(fixture)):
        d = os.path.join(work, name.replace(".json", ""))
        render(nvmimic, sibling(fixture, name), d)
        dirs.append(d)
    out = os.path.join(work, "out")
    run([nvmimic, "compare"] + dirs + ["--out", out])
    text = open(os.path.join(out, "compare.html"), encoding="utf-8").read()
    body, raw = section_text(text, "apps")
    rows = re.findall(r"<tr>(.*?)</tr>", raw, re.S)
    table = {}
    for r in rows[1:]:
        cells = [re.sub(r"<[^>]+>", "", c).strip()
                 for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)]
        table[cells[0]] = cells[1:]
    want = {"seq seq-write-qd8 GB/s": ["3.12", "–", "–"],
            "seq seq-read-qd8 GB/s": ["3.47", "–", "–"],
            "seq seq-write-qd32 GB/s": ["3.88", "–", "–"],
            "seq seq-read-qd32 GB/s": ["6.61", "–", "–"],
            "render total s": ["10.20", "–", "–"],
            "sql tpmC": ["120.5", "failed", "–"],
            "sql overall avg ms": ["5.21", "failed", "–"],
            "sql overall p99 ms": ["20.37", "failed", "–"]}
    check(table == want, "applications table %s" % table)
    # the workloads of all runs still compared: vdi-boot and four corners
    for wl in ["vdi-boot"] + WORKLOADS:
        png_info(os.path.join(out, "compare-%s.png" % wl))
    print("ok compare: applications table %d rows" % len(table))


def t_baseline(nvmimic, fixture, work):
    """report --baseline: the baseline's guest and device curves beside the
    run's in each chart, and a section with what moved since it."""
    shutil.rmtree(work, ignore_errors=True)
    base = os.path.join(work, "base")
    new = os.path.join(work, "new")
    os.makedirs(base)
    os.makedirs(new)
    with open(fixture) as f:
        doc = json.load(f)
    with open(os.path.join(base, "results.json"), "w") as f:
        json.dump(doc, f)
    wl = doc["workloads"][0]
    wl["curve"][0]["lat_us"] = round(wl["curve"][0]["lat_us"] * 1.1, 2)
    with open(os.path.join(new, "results.json"), "w") as f:
        json.dump(doc, f)
    p = run([nvmimic, "report", new, "--baseline", base])
    check(p.stdout.strip() == os.path.join(new, "report.html"),
          "report printed %r" % p.stdout)
    text = open(os.path.join(new, "report.html"), encoding="utf-8").read()
    words, raw = section_text(text, "baseline")
    check("changed" in words and "1 figure moved" in words,
          "baseline section: %r" % words[:300])
    check(re.search(re.escape(wl["name"]) + r" +10 % +lat_us", raw),
          "the moved figure is not in the baseline section")
    for w in doc["workloads"]:
        series = svg_series(os.path.join(new, w["name"] + ".svg"))
        uses, _ = data_points(find_series(series, "baseline guest"))
        check(uses == len([p for p in w["curve"] if p.get("iops")]),
              "%s: baseline guest series has %d markers" % (w["name"], uses))
        find_series(series, "baseline device")
        find_series(series, "guest (nvmimic-load in the VM)")
    # the same run as its own baseline: nothing moved
    run([nvmimic, "report", base, "--baseline", base])
    words, _ = section_text(open(os.path.join(base, "report.html"),
                                 encoding="utf-8").read(), "baseline")
    check("unchanged" in words and "0 figures moved" in words,
          "self baseline: %r" % words[:200])
    p = run([nvmimic, "report", new, "--baseline",
             os.path.join(work, "none")], ok=False)
    check(p.returncode == 1 and "--baseline" in p.stderr and
          p.stderr.count("\n") == 1, "missing baseline: %d %r"
          % (p.returncode, p.stderr))
    print("ok report --baseline: curves beside, 1 moved figure listed")


CHECKS = {"png": t_png, "svg": t_svg, "csv": t_csv, "html": t_html,
          "chromium": t_chromium, "sim-only": t_sim_only,
          "minimal": t_minimal, "compare": t_compare,
          "bad-input": t_bad_input, "golden": t_golden, "apps": t_apps,
          "apps-only": t_apps_only, "apps-tolerant": t_apps_tolerant,
          "apps-chromium": t_apps_chromium, "apps-compare": t_apps_compare,
          "baseline": t_baseline, "made-fixture": t_made_fixture}


def main():
    nvmimic, fixture, workdir, name = sys.argv[1:5]
    try:
        rc = CHECKS[name](nvmimic, fixture, os.path.join(workdir, name))
    except Fail as e:
        print("FAIL %s: %s" % (name, e))
        return 1
    return rc or 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""report.html of `colocsim advise` as people see it: rendered by a real headless Chromium.

Runs `colocsim advise` on a bundled trace slice (its outputs through colocsim_check_outputs), then Debian's
headless Chromium on DIR/report.html twice: `--dump-dom` (the DOM after the browser parsed it) and
`--screenshot` (the page as drawn). Every check compares the page with numbers read independently from
DIR/advise.json (strict JSON, parsed here):

  * the chart has one point per option, the filled points (the front's) are exactly the options advise.json
    puts on the front, and every point and error bar sits where the means and intervals put it: one straight
    map from values to pixels per axis (x grows with the first compared metric, y downwards with the second),
    which the axis' tick labels also follow, and the front's line joins the front's points in order of x;
  * the table has one row per option with advise.json's numbers, formatted as the report formats them
    (mean to 4 significant digits ± the half-width to 2; energy in kWh, times in h);
  * the recommendation is advise.json's and names the option it recommends;
  * the screenshot is not blank: many colours, a fair share of non-white pixels, the chart's frame found,
    and at each point's position the colour of its marker (filled orange on the front, white inside a blue
    ring otherwise).

Exit 0 when everything holds, 1 with the failures listed, 77 (CTest's SKIP_RETURN_CODE) when no Chromium is
installed (scripts/deps.txt installs chromium-headless-shell).

  advise_report_browser.py --colocsim BIN --trace CSV --options LIST --work DIR --check-outputs CHECKER
"""
import argparse
import html.parser
import json
import math
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import zlib

SKIP = 77
BROWSER_TIMEOUT_S = 60
WINDOW = (1280, 1400)
# The chart's geometry in SVG units (cli/CliAdvise.cpp, scatter_svg): the plot frame's corner and size.
FRAME_X, FRAME_Y, FRAME_W, FRAME_H = 80, 20, 620, 400
FRONT_RGB, OTHER_RGB = (0xD5, 0x5E, 0x00), (0x00, 0x72, 0xB2)
# The units the report shows (kWh, h) in the units advise.json holds (J, s).
UNIT_IN_JSON = {"kWh": 3.6e6, "h": 3600.0}

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
    return ok


# ---- the browser


def find_browser():
    """The command line start of a headless Chromium, or None."""
    shell = shutil.which("chromium-headless-shell")
    if shell:
        return [shell]
    full = shutil.which("chromium")
    if full:
        return [full, "--headless"]
    return None


def run_browser(browser, work, extra, url):
    """Runs the browser with a private profile and a timeout; returns its stdout (bytes)."""
    cmd = browser + ["--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1",
                     "--no-first-run", "--user-data-dir=" + os.path.join(work, "chromium-profile")] + extra + [url]
    # A home of its own under the work folder (caches, crash reports), and its own session, so that a hang
    # kills the browser's helper processes too.
    home = os.path.join(work, "chromium-home")
    os.makedirs(home, exist_ok=True)
    env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"),
               XDG_CACHE_HOME=os.path.join(home, ".cache"))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, env=env)
    try:
        out, err = proc.communicate(timeout=BROWSER_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        sys.exit(f"FAIL: {' '.join(cmd)} did not finish in {BROWSER_TIMEOUT_S} s")
    if proc.returncode != 0:
        sys.stderr.write(err.decode(errors="replace"))
        sys.exit(f"FAIL: {' '.join(cmd)} exited with {proc.returncode}")
    return out


# ---- the DOM


class Element:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children = []  # Elements and strings

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def classes(self):
        return self.attrs.get("class", "").split()

    def find_all(self, tag, cls=None):
        found = []
        for c in self.children:
            if isinstance(c, Element):
                if c.tag == tag and (cls is None or cls in c.classes()):
                    found.append(c)
                found.extend(c.find_all(tag, cls))
        return found

    def elements(self):
        return [c for c in self.children if isinstance(c, Element)]


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class DomBuilder(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", [], None)
        self.at = self.root

    def handle_starttag(self, tag, attrs):
        e = Element(tag, attrs, self.at)
        self.at.children.append(e)
        if tag not in VOID:
            self.at = e

    def handle_startendtag(self, tag, attrs):
        self.at.children.append(Element(tag, attrs, self.at))

    def handle_endtag(self, tag):
        e = self.at
        while e is not None and e.tag != tag:
            e = e.parent
        if e is not None and e.parent is not None:
            self.at = e.parent

    def handle_data(self, data):
        self.at.children.append(data)


# ---- the PNG


def decode_png(data):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA, non-interlaced PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("FAIL: the screenshot is not a PNG file")
    pos, idat, header = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        sys.exit("FAIL: the screenshot has no IHDR chunk")
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        sys.exit(f"FAIL: screenshot PNG: bit depth {depth}, colour type {colour}, interlace {interlace}: "
                 "expected 8-bit RGB or RGBA, not interlaced")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    if len(raw) != height * (stride + 1):
        sys.exit(f"FAIL: screenshot PNG: {len(raw)} bytes of image data, expected {height * (stride + 1)}")
    prev = bytearray(stride)
    rows = []
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:  # Sub
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif kind == 2:  # Up
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif kind == 3:  # Average
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif kind == 4:  # Paeth
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        elif kind != 0:
            sys.exit(f"FAIL: screenshot PNG: row {y} has filter type {kind}")
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return width, height, rows


def near(rgb, want, tolerance):
    return max(abs(a - b) for a, b in zip(rgb, want)) <= tolerance


# ---- the checks


def significant(x, digits):
    """A number to `digits` significant digits without an exponent, as the report writes it
    (significant_text in cli/AdviseAnalysis.cpp): 270, 736100, 0.037."""
    if x == 0:
        return "0"
    rounded = float("%.*e" % (digits - 1, x))
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(rounded))))
    text = "%.*f" % (decimals, rounded)
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def interval_cell(iv, scale):
    if iv["n"] == 0:
        return "-"
    text = significant(iv["mean"] / scale, 4)
    if iv["n"] > 1:
        text += " \u00b1 " + significant(iv["half_width"] / scale, 2)
    return text


def change_cell(iv):
    if iv["n"] == 0:
        return "n/a"
    mean = 0.0 if abs(iv["mean"]) < 0.05 else iv["mean"]
    text = ("\u2212" if mean < 0 else "+") + "%.1f %%" % abs(mean)
    if iv["n"] > 1:
        text += " \u00b1 %.1f %%" % iv["half_width"]
    return text


def fit(values, pixels):
    """Least-squares pixel = a + b × value; (a, b, largest residual)."""
    n = len(values)
    mv, mp = sum(values) / n, sum(pixels) / n
    sxx = sum((v - mv) ** 2 for v in values)
    b = sum((v - mv) * (p - mp) for v, p in zip(values, pixels)) / sxx
    a = mp - b * mv
    return a, b, max(abs(a + b * v - p) for v, p in zip(values, pixels))


def short_number_value(text):
    """The number of an axis tick label (svg::short_number: 12, 1.5k, 2.3M, 1.2G)."""
    mult = {"k": 1e3, "M": 1e6, "G": 1e9}.get(text[-1:], 1)
    return float(text[:-1] if mult != 1 else text) * mult


def check_chart(svg, advise, by_label):
    """Checks the chart's points, bars, front and ticks; returns [(label, cx, cy, on_front)] for the screenshot."""
    mx, my = advise["compared"]
    drawn = [o for o in advise["options"] if o["metrics"][mx]["n"] > 0 and o["metrics"][my]["n"] > 0]
    check(len(drawn) >= 3, f"advise.json has {len(drawn)} options with a run: too few to test the chart")
    groups = svg.find_all("g", "point")
    labels = [g.attrs.get("data-label") for g in groups]
    check(sorted(labels) == sorted(o["label"] for o in drawn),
          f"chart points {sorted(labels)}, advise.json's options with a run {sorted(o['label'] for o in drawn)}")
    check(len(svg.find_all("circle")) == len(drawn),
          f"{len(svg.find_all('circle'))} circles in the chart, {len(drawn)} options with a run")
    points, xs, ys = [], [], []
    for g in groups:
        o = by_label.get(g.attrs.get("data-label"))
        circles, lines = g.find_all("circle"), g.find_all("line")
        if not check(o is not None and len(circles) == 1 and len(lines) == 2,
                     f"chart point {g.attrs.get('data-label')!r}: expected an option's circle and two bars"):
            continue
        c = circles[0]
        cx, cy = float(c.attrs["cx"]), float(c.attrs["cy"])
        filled = c.attrs.get("fill", "").lower() == c.attrs.get("stroke", "").lower()
        check(filled == o["on_front"], f"{o['label']}: drawn {'filled' if filled else 'hollow'}, "
              f"advise.json on_front {o['on_front']}")
        check(c.attrs.get("stroke", "").lower() == ("#d55e00" if o["on_front"] else "#0072b2"),
              f"{o['label']}: marker colour {c.attrs.get('stroke')}")
        points.append((o, cx, cy, lines))
        xs.append((o["metrics"][mx], cx))
        ys.append((o["metrics"][my], cy))
    if len(points) < 3:
        return []
    # One straight map from values to pixels per axis, the means at the centres and the intervals at the bars'
    # ends: x grows with the first metric, SVG's y downwards with the second.
    for axis, pairs, grows in (("x", xs, True), ("y", ys, False)):
        values = [iv["mean"] for iv, _ in pairs]
        if not check(len(set(values)) >= 3, f"{axis}: fewer than 3 distinct means, the order is not tested"):
            continue
        a, b, worst = fit(values, [p for _, p in pairs])
        check((b > 0) == grows, f"{axis}: the pixels {'grow' if grows else 'fall'} with the value? slope {b}")
        check(worst < 0.02, f"{axis}: a point is {worst:.3f} px off the line the others give "
              "(positions do not follow advise.json's means)")
        if axis == "x":
            xmap = (a, b)
        else:
            ymap = (a, b)
    if failures:
        return []
    for o, cx, cy, lines in points:
        h, v = lines
        ix, iy = o["metrics"][mx], o["metrics"][my]
        want = {"h.x1": xmap[0] + xmap[1] * ix["low"], "h.x2": xmap[0] + xmap[1] * ix["high"],
                "v.y1": ymap[0] + ymap[1] * iy["low"], "v.y2": ymap[0] + ymap[1] * iy["high"]}
        got = {"h.x1": float(h.attrs["x1"]), "h.x2": float(h.attrs["x2"]), "v.y1": float(v.attrs["y1"]),
               "v.y2": float(v.attrs["y2"])}
        for k in want:
            check(abs(want[k] - got[k]) < 0.02, f"{o['label']}: error bar {k} at {got[k]}, its interval in "
                  f"advise.json puts it at {want[k]:.2f}")
        check(float(h.attrs["y1"]) == cy == float(h.attrs["y2"]) and float(v.attrs["x1"]) == cx ==
              float(v.attrs["x2"]), f"{o['label']}: error bars do not cross at the point")
    # The tick labels read in the report's units follow the same map.
    axis_labels = [t.text() for t in svg.elements() if t.tag == "text" and t.text().endswith(" is better")]
    if check(len(axis_labels) == 2, f"axis titles: {axis_labels}"):
        units = [t.split("(")[-1].split(")")[0] for t in axis_labels]
        ticks = {"x": [], "y": []}
        for t in svg.elements():
            if t.tag != "text" or t.text().endswith(" is better"):
                continue
            if t.attrs.get("text-anchor") == "middle" and t.attrs.get("y") == "438":
                ticks["x"].append((short_number_value(t.text()), float(t.attrs["x"])))
            elif t.attrs.get("text-anchor") == "end" and t.attrs.get("x") == "72":
                ticks["y"].append((short_number_value(t.text()), float(t.attrs["y"]) - 4))
        for axis, mapping, unit in (("x", xmap, units[0]), ("y", ymap, units[1])):
            check(len(ticks[axis]) >= 3, f"{axis}: {len(ticks[axis])} tick labels")
            for value, pixel in ticks[axis]:
                want = mapping[0] + mapping[1] * value * UNIT_IN_JSON.get(unit, 1.0)
                check(abs(want - pixel) < 0.6, f"{axis} tick {value} {unit} at {pixel}, the points' map puts "
                      f"it at {want:.2f}")
    # The front's line joins the front's points in order of x.
    front = sorted((cx, cy) for o, cx, cy, _ in points if o["on_front"])
    lines = svg.find_all("polyline", "front")
    if len(front) > 1 and check(len(lines) == 1, f"{len(lines)} front lines for {len(front)} front points"):
        joined = [tuple(float(n) for n in p.split(",")) for p in lines[0].attrs["points"].split()]
        check(joined == front, f"the front's line joins {joined}, the front's points are {front}")
    return [(o["label"], cx, cy, o["on_front"]) for o, cx, cy, _ in points]


def check_table(doc, advise):
    tables = doc.find_all("table")
    if not check(len(tables) == 1, f"{len(tables)} tables in the page"):
        return
    heads = [th.text() for th in tables[0].find_all("th")]
    metric_names = list(advise["options"][0]["metrics"])
    units = [h.rsplit("(", 1)[-1].rstrip(")") if h.endswith(")") else "" for h in heads[3:3 + len(metric_names)]]
    check(len(heads) == 3 + len(metric_names) + 2 + 1, f"table header: {heads}")
    rows = tables[0].find_all("tr", "option")
    check(len(rows) == len(advise["options"]),
          f"{len(rows)} option rows in the table, {len(advise['options'])} options in advise.json")
    for row, o in zip(rows, advise["options"]):
        want = [o["label"], f"{o['ok']}/{o['runs']}",
                f"{o['jobs_completed']:.1f} of {o['jobs_read']:.1f}" + (" *" if o["lossy"] else "")]
        want += [interval_cell(o["metrics"][m], UNIT_IN_JSON.get(u, 1.0)) for m, u in zip(metric_names, units)]
        for m in advise["compared"]:
            want.append("base" if o["label"] == advise["baseline"]
                        else change_cell(o["change_pct"][m]) if m in o["change_pct"] else "-")
        want.append("yes" if o["on_front"] else
                    "dominated by " + ", ".join(o["dominated_by"]) if o["dominated_by"] else "-")
        got = [td.text() for td in row.find_all("td")]
        check(got == want, f"table row of {o['label']}:\n    shown    {got}\n    expected {want}")
        # People read 270 kWh, not 2.7e+02 (printf's %g wrote the latter for wide intervals).
        check(not any(re.search(r"\de[+-]\d", cell) for cell in got),
              f"table row of {o['label']}: a number in exponent notation: {got}")
        check(("front" in row.classes()) == o["on_front"], f"{o['label']}: row class {row.classes()}")


def check_screenshot(path, points):
    width, height, rows = decode_png(open(path, "rb").read())
    check((width, height) == WINDOW, f"screenshot {width}x{height}, expected {WINDOW[0]}x{WINDOW[1]}")
    colours, ink = set(), 0
    for row in rows:
        colours.update(row)
        ink += sum(1 for p in row if p != (255, 255, 255))
    check(len(colours) >= 100, f"the screenshot has {len(colours)} colours: blank or nearly")
    check(ink >= 0.03 * width * height, f"{ink} of {width * height} pixels are not white: blank or nearly")
    # The plot frame: the only long horizontal grey lines of the page (its top and bottom edges).
    def grey(p):
        return max(p) - min(p) <= 12 and max(p) <= 200

    edges = []
    for y, row in enumerate(rows):
        run = 0
        for x, p in enumerate(row):
            if grey(p):
                run += 1
                if run == FRAME_W - 10:
                    edges.append((y, x - run + 1))
            else:
                run = 0
    if not check(edges, "the chart's frame is not in the screenshot"):
        return
    top, left = edges[0]
    bottom = edges[-1][0]
    check(abs((bottom - top) - FRAME_H) <= 2, f"the chart's frame is {bottom - top} px high, drawn {FRAME_H}")
    inside = sum(1 for y in range(top + 3, bottom - 2) for p in rows[y][left + 3:left + FRAME_W - 2]
                 if p != (255, 255, 255))
    check(inside >= 500, f"the chart's area has {inside} non-white pixels: empty")

    # The SVG's origin in the screenshot to a fraction of a pixel: the frame's 1-unit lines, antialiased, are
    # centred where their pixels' darkness is centred (the top edge at y = 20, the left edge at x = 80).
    def centre(samples):
        weights = [(255 - v, at + 0.5) for at, v in samples if v < 255]
        return sum(w * at for w, at in weights) / sum(w for w, _ in weights)

    xm = left + FRAME_W // 2
    oy = centre([(y, rows[y][xm][0]) for y in range(top - 2, top + 4)]) - FRAME_Y
    ox = sorted(centre([(x, rows[y][x][0]) for x in range(left - 2, left + 4)])
                for y in range(top + 10, bottom - 10))[(bottom - top - 20) // 2] - FRAME_X

    def pixel(x, y):  # the pixel whose centre is nearest to the SVG point (x, y)
        col, row = math.floor(ox + x), math.floor(oy + y)
        return rows[row][col] if 0 <= row < height and 0 <= col < width else (255, 255, 255)

    # Off the error bars (which cross at the centre), on the diagonals: inside the marker at 1.5 units from
    # the centre on each axis, and on a hollow marker's ring (radius 4) at 2.83.
    diagonals = [(sx, sy) for sx in (-1, 1) for sy in (-1, 1)]
    for label, cx, cy, on_front in points:
        where = f"({ox + cx:.1f}, {oy + cy:.1f})"
        inner = [pixel(cx + 1.5 * sx, cy + 1.5 * sy) for sx, sy in diagonals]
        if on_front:
            check(all(near(p, FRONT_RGB, 40) for p in inner),
                  f"{label}: its marker at {where} is not filled with the front's colour: {inner}")
        else:
            check(all(near(p, (255, 255, 255), 16) for p in inner),
                  f"{label}: its hollow marker at {where} is not white inside: {inner}")
            ring = [pixel(cx + 2.83 * sx, cy + 2.83 * sy) for sx, sy in diagonals]
            check(all(p[2] >= p[0] + 25 for p in ring), f"{label}: no blue ring around {where}: {ring}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--colocsim", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--options", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--check-outputs", required=True, help="colocsim_check_outputs (tests/support)")
    args = ap.parse_args()
    browser = find_browser()
    if browser is None:
        print("SKIPPED: chromium-headless-shell not installed (scripts/deps.txt)")
        return SKIP
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    out = os.path.join(work, "advise")
    advise_cmd = [args.colocsim, "advise", args.trace, "--format", "itp", "--platform", "dgx-a100", "--nodes",
                  "1", "--options", args.options, "--replicates", "3", "-j", "2", "-o", out]
    done = subprocess.run(advise_cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if done.returncode != 0:
        sys.stderr.write(done.stderr.decode(errors="replace"))
        sys.exit(f"FAIL: {' '.join(advise_cmd)} exited with {done.returncode}")
    # Every .json and .csv file it wrote, through the suite's strict checks.
    if subprocess.run([args.check_outputs, out], timeout=120).returncode != 0:
        sys.exit(f"FAIL: {args.check_outputs} found problems in {out}")

    def no_constants(name):
        raise ValueError(f"advise.json: {name} is not JSON")

    with open(os.path.join(out, "advise.json"), encoding="utf-8") as f:
        advise = json.load(f, parse_constant=no_constants)
    by_label = {o["label"]: o for o in advise["options"]}
    url = "file://" + os.path.join(out, "report.html")

    dom_html = run_browser(browser, work, ["--dump-dom"], url).decode("utf-8")
    with open(os.path.join(work, "dom.html"), "w", encoding="utf-8") as f:
        f.write(dom_html)
    builder = DomBuilder()
    builder.feed(dom_html)
    doc = builder.root
    check(not doc.find_all("script") and not doc.find_all("link") and not doc.find_all("img"),
          "the page has scripts, links or images: it must be self-contained")
    svgs = doc.find_all("svg")
    points = []
    if check(len(svgs) == 1, f"{len(svgs)} svg elements in the page, expected the chart"):
        points = check_chart(svgs[0], advise, by_label)
    check_table(doc, advise)
    recs = [p for p in doc.find_all("p") if p.attrs.get("id") == "recommendation"]
    if check(len(recs) == 1, f"{len(recs)} recommendation paragraphs"):
        check(recs[0].text() == advise["recommendation"],
              f"recommendation shown: {recs[0].text()!r}\n  advise.json: {advise['recommendation']!r}")
        check(advise["recommended"] is not None and advise["recommended"] in recs[0].text(),
              f"the recommendation does not name {advise['recommended']!r}")

    shot = os.path.join(work, "report.png")
    run_browser(browser, work, ["--screenshot=" + shot, f"--window-size={WINDOW[0]},{WINDOW[1]}"], url)
    if check(os.path.isfile(shot), "the browser wrote no screenshot"):
        check_screenshot(shot, points)

    if failures:
        print(f"FAIL: report.html rendered by {browser[0]} ({out}):")
        for f in failures:
            print("  - " + f)
        return 1
    print(f"report.html rendered by {browser[0]}: {len(points)} chart points, {len(advise['options'])} table rows, "
          f"the recommendation and a non-blank screenshot agree with advise.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())

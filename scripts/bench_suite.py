#!/usr/bin/env python3
"""The scale suite of BENCHMARKS.md ("A million jobs"): `scripts/bench.sh --suite [options]` runs this.

Runs, one process at a time, `colocsim bench` (Max 1550 tiles, one 2-tile card per node, time-slice sharing,
a Poisson workload at offered load 1 over the default profile mix, energy accounting on) with first-fit at
each job count of --sizes on the Aurora-size platform (--tiles, default 127,488 tiles), the other --policies
at the largest size, first-fit at the middle size on --small-tiles too (cost against platform size), and the
raw-SimGrid reference loop (colocsim-rawloop: one SimGrid actor per job on the same number of hosts, no
colocsim code; run "raw") and the same loop without an actor per job (--style split: 16,384 owner actors
that share the arrivals and each wait for their own execs; run "raw-split") beside each first-fit run
(--raw-styles chooses), and the plain C++ reference loop (colocsim-plainloop: the same arrivals and durations,
first-fit 2 per device with a FIFO queue, exact progress and energy between events, no SimGrid; run "plain";
--no-plain leaves it out). Every figure is the median of --reps runs; wall, CPU (user + system)
and peak RSS are the whole process's, taken by the kernel (os.wait4). Writes, under --out:
  suite.md   the Markdown table and the targets' lines
  suite.svg  cost per job against jobs, peak RSS against jobs, both against platform size (stdlib only)
  runs.csv   every run (a single-table CSV)
and with --write splices suite.md between the markers `<!-- table: scripts/bench.sh --suite -->` and
`<!-- end table: scripts/bench.sh --suite -->` of BENCHMARKS.md and copies the plot to docs/bench-scale.svg.
--check FILE.md only checks that a table written by this script is well formed (exit 1 if not).

  scripts/bench.sh --suite                 10k, 100k, 1M jobs; fgd, interference-aware, complementary at 1M
  scripts/bench.sh --suite --quick         10k and 100k jobs (a few minutes)
  scripts/bench.sh --suite --sizes 200,1000 --tiles 64 --small-tiles 16 --reps 1 --out /tmp/s
"""
import argparse
import csv
import os
import resource
import statistics
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEGIN = "<!-- table: scripts/bench.sh --suite -->"
END = "<!-- end table: scripts/bench.sh --suite -->"
COLUMNS = ["run", "policy", "tiles", "jobs", "wall s", "CPU s", "peak RSS MB", "CPU µs/job",
           "simulation CPU µs/job", "RSS KB/job", "peak jobs alive", "makespan s"]
# The raw loop's runs: "raw", one actor per job (SimGrid's own idiom, what sim/Engine.cpp does); "raw-split",
# no actor per job (BENCHMARKS.md, "Without an actor per job").
RAW_STYLES = {"raw": ["--style", "actor"], "raw-split": ["--style", "split", "--owners", "16384"]}
# "plain": the plain C++ reference loop (colocsim-plainloop, no SimGrid): the same arrivals and durations,
# first-fit with 2 jobs per device and a FIFO queue, progress and energy exact between events.
PLAIN_ARGS = ["--placement", "first-fit", "--per-device", "2"]
# The engine-core targets (BENCHMARKS.md, "A million jobs"): the largest first-fit run at most 5x the plain C++
# loop's CPU and 300 MB; every policy within 1.5x first-fit's CPU; the simulation phase's cost per job within
# 1.3x across the sizes. CPU, not wall: on a shared machine the wall time follows the load.
TARGET_PLAIN_RATIO = 5.0
TARGET_RSS_MB = 300.0
TARGET_POLICY_RATIO = 1.5
TARGET_PER_JOB_RATIO = 1.3


def find_binary(name, given):
    if given:
        return given
    for d in ("build", "build-test"):
        p = ROOT / d / "sim" / name
        if p.is_file() and os.access(p, os.X_OK):
            return str(p)
    sys.exit(f"no {name} binary: build it (cmake --build build-test --target {name}) or pass its path")


def run_once(cmd):
    """Runs cmd; returns its key=value lines as a dict and its wall time."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate()
    wall = time.monotonic() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {err.strip()[-400:]}")
    kv = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    return kv, wall


def measure(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    kv, wall = run_once(cmd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # ru_maxrss of RUSAGE_CHILDREN is the largest child's so far; the programs report their own peak too.
    rss = float(kv.get("peak_rss_mb", after.ru_maxrss / 1024.0))
    return {"kv": kv, "wall": wall, "cpu": cpu, "rss": rss}


def median_run(cmd, reps):
    runs = [measure(cmd) for _ in range(reps)]
    med = {k: statistics.median(r[k] for r in runs) for k in ("wall", "cpu", "rss")}
    kv = runs[0]["kv"]
    sim_us = statistics.median(float(r["kv"].get("simulation_us_per_job", "nan")) for r in runs)
    med["sim_us"] = sim_us
    med["makespan"] = float(kv.get("makespan_s", "nan"))
    # colocsim: job states kept at once (waiting or running); the raw loop: jobs running at once (no queue).
    med["alive"] = float(kv.get("peak_live_jobs", kv.get("peak_running", "nan")))
    med["all"] = runs
    return med


def fmt(x, digits):
    if x != x:  # NaN: not measured (the raw loop has no simulation phase apart)
        return "–"
    return f"{x:,.{digits}f}"


def build_rows(args, colocsim, rawloop, plainloop):
    rows = []
    sizes = args.sizes
    largest, middle = sizes[-1], sizes[len(sizes) // 2]

    def add(kind, policy, tiles, jobs):
        if kind == "plain":
            cmd = [plainloop, "--jobs", str(jobs), "--tiles", str(tiles)] + PLAIN_ARGS
        elif kind.startswith("raw"):
            cmd = [rawloop, "--jobs", str(jobs), "--tiles", str(tiles)] + RAW_STYLES[kind]
        else:
            cmd = [colocsim, "bench", "--jobs", str(jobs), "--tiles", str(tiles), "--policy", policy]
        reps = args.largest_reps if jobs == largest and args.largest_reps else args.reps
        print(f"bench-suite: {' '.join(cmd)} ×{reps}", file=sys.stderr, flush=True)
        m = median_run(cmd, reps)
        rows.append({"run": kind, "policy": policy, "tiles": tiles, "jobs": jobs, "reps": reps, **m})

    for jobs in sizes:
        for kind in args.raw_styles:
            add(kind, "(none)", args.tiles, jobs)
        if args.plain:
            add("plain", "first-fit", args.tiles, jobs)
        add("colocsim", "first-fit", args.tiles, jobs)
    for p in args.policies:
        if p != "first-fit":
            add("colocsim", p, args.tiles, largest)
    if args.small_tiles:
        for kind in args.raw_styles:
            add(kind, "(none)", args.small_tiles, middle)
        if args.plain:
            add("plain", "first-fit", args.small_tiles, middle)
        add("colocsim", "first-fit", args.small_tiles, middle)
    return rows


def table(rows):
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        per_job = r["cpu"] / r["jobs"] * 1e6
        cells = [r["run"], r["policy"], f"{r['tiles']:,}", f"{r['jobs']:,}", fmt(r["wall"], 2), fmt(r["cpu"], 2),
                 fmt(r["rss"], 0), fmt(per_job, 1), fmt(r["sim_us"], 1), fmt(r["rss"] * 1024 / r["jobs"], 2),
                 fmt(r["alive"], 0), fmt(r["makespan"], 0)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def targets(rows, args):
    ff = [r for r in rows if r["run"] == "colocsim" and r["policy"] == "first-fit" and r["tiles"] == args.tiles]
    out = []
    if not ff:
        return out
    big, small = max(ff, key=lambda r: r["jobs"]), min(ff, key=lambda r: r["jobs"])
    out.append(f"* first-fit, {big['jobs']:,} jobs on {args.tiles:,} tiles: {big['cpu']:.1f} s CPU "
               f"({big['wall']:.1f} s wall), {big['rss']:,.0f} MB peak RSS (target ≤ {TARGET_RSS_MB:,.0f} MB: "
               f"{'met' if big['rss'] <= TARGET_RSS_MB else 'not met'}).")
    for r in rows:
        if r["run"] == "colocsim" and r["policy"] != "first-fit" and r["jobs"] == big["jobs"]:
            ratio = r["wall"] / big["wall"]
            cpu_ratio = r["cpu"] / big["cpu"]
            out.append(f"* {r['policy']}: {r['cpu']:.1f} s CPU, {cpu_ratio:.2f}× first-fit's (target ≤ "
                       f"{TARGET_POLICY_RATIO}×: {'met' if cpu_ratio <= TARGET_POLICY_RATIO else 'not met'}; wall "
                       f"{ratio:.2f}×), {r['rss']:,.0f} MB.")
    if big is not small:
        c_big, c_small = big["cpu"] / big["jobs"], small["cpu"] / small["jobs"]
        s_ratio = big["sim_us"] / small["sim_us"]
        out.append(f"* CPU per job (whole process) {small['jobs']:,} → {big['jobs']:,} jobs: {c_small * 1e6:.1f} → "
                   f"{c_big * 1e6:.1f} µs ({c_big / c_small:.2f}×; at few jobs the once-per-run setup dominates); "
                   f"simulation phase only: {small['sim_us']:.1f} → {big['sim_us']:.1f} µs ({s_ratio:.2f}×; target "
                   f"within {TARGET_PER_JOB_RATIO}× either way: "
                   f"{'met' if 1 / TARGET_PER_JOB_RATIO <= s_ratio <= TARGET_PER_JOB_RATIO else 'not met'}).")
    raw = [r for r in rows if r["run"] == "raw" and r["jobs"] == big["jobs"] and r["tiles"] == args.tiles]
    if raw:
        out.append(f"* raw-SimGrid loop, same jobs and hosts: {raw[0]['cpu']:.1f} s CPU, "
                   f"{raw[0]['rss']:,.0f} MB (colocsim: {big['cpu'] / raw[0]['cpu']:.2f}× its CPU, "
                   f"{big['rss'] / raw[0]['rss']:.2f}× its RSS).")
    plain = [r for r in rows if r["run"] == "plain" and r["jobs"] == big["jobs"] and r["tiles"] == args.tiles]
    if plain:
        ratio = big["cpu"] / plain[0]["cpu"]
        out.append(f"* plain C++ loop (colocsim-plainloop: first-fit 2 per device, no SimGrid), same jobs and "
                   f"devices: {plain[0]['cpu']:.2f} s CPU, {plain[0]['rss']:,.0f} MB (colocsim first-fit: "
                   f"{ratio:.1f}× its CPU, target ≤ {TARGET_PLAIN_RATIO:.0f}×: "
                   f"{'met' if ratio <= TARGET_PLAIN_RATIO else 'not met'}; {big['rss'] / plain[0]['rss']:.0f}× "
                   f"its RSS).")
    split = [r for r in rows if r["run"] == "raw-split" and r["jobs"] == big["jobs"] and r["tiles"] == args.tiles]
    if split:
        out.append(f"* the same loop without an actor per job (raw-split: 16,384 owner actors): "
                   f"{split[0]['wall']:.1f} s wall, {split[0]['cpu']:.1f} s CPU, {split[0]['rss']:,.0f} MB.")
    return out


# ---- SVG (stdlib only) -------------------------------------------------------------------------------------
RAW_LABELS = {"raw": "raw SimGrid", "raw-split": "raw, no actor/job", "plain": "plain C++ loop"}
COLOURS = {"raw": "#555555", "raw-split": "#9467bd", "plain": "#17becf", "first-fit": "#1f77b4", "fgd": "#ff7f0e", "interference-aware": "#2ca02c",
           "complementary": "#d62728"}


def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def panel(x0, y0, w, h, title, xlabel, ylabel, series, logx):
    """series: [(label, colour, [(x, y)], dashed)]; returns SVG elements."""
    import math
    pts = [p for _, _, s, _ in series for p in s]
    if not pts:
        return []
    xs = [p[0] for p in pts]
    ymax = max(p[1] for p in pts) * 1.1 or 1
    fx = (lambda v: math.log10(v)) if logx else (lambda v: v)
    xlo, xhi = fx(min(xs)), fx(max(xs))
    if xhi == xlo:
        xlo, xhi = xlo - 1, xhi + 1
    X = lambda v: x0 + (fx(v) - xlo) / (xhi - xlo) * w
    Y = lambda v: y0 + h - v / ymax * h
    el = [f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="none" stroke="#999"/>',
          f'<text x="{x0 + w / 2}" y="{y0 - 8}" text-anchor="middle" font-size="13">{esc(title)}</text>',
          f'<text x="{x0 + w / 2}" y="{y0 + h + 34}" text-anchor="middle" font-size="11">{esc(xlabel)}</text>',
          f'<text x="{x0 - 46}" y="{y0 + h / 2}" text-anchor="middle" font-size="11" '
          f'transform="rotate(-90 {x0 - 46} {y0 + h / 2})">{esc(ylabel)}</text>']
    for i in range(5):
        v = ymax * i / 4
        el.append(f'<line x1="{x0 - 4}" y1="{Y(v):.1f}" x2="{x0}" y2="{Y(v):.1f}" stroke="#999"/>')
        label = f"{v:,.0f}" if ymax >= 100 else f"{v:.3g}"
        el.append(f'<text x="{x0 - 6}" y="{Y(v) + 4:.1f}" text-anchor="end" font-size="10">{label}</text>')
    for v in sorted(set(xs)):
        el.append(f'<text x="{X(v):.1f}" y="{y0 + h + 16}" text-anchor="middle" font-size="10">{v:,}</text>')
    for label, colour, s, dashed in series:
        s = sorted(s)
        dash = ' stroke-dasharray="5,3"' if dashed else ""
        if len(s) > 1:
            d = " ".join(f"{X(x):.1f},{Y(y):.1f}" for x, y in s)
            el.append(f'<polyline points="{d}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
        for x, y in s:
            el.append(f'<circle cx="{X(x):.1f}" cy="{Y(y):.1f}" r="3.5" fill="{colour}">'
                      f'<title>{esc(label)}: {y:,.4g}</title></circle>')
    return el


def svg(rows, args):
    def series(metric, axis, pick):
        out = []
        for (run, policy) in sorted({(r["run"], r["policy"]) for r in rows}):
            s = [(r[axis], metric(r)) for r in rows if r["run"] == run and r["policy"] == policy and pick(r)]
            label = RAW_LABELS.get(run, policy)
            out.append((label, COLOURS.get(run if run in RAW_LABELS else policy, "#8c564b"), s, run in RAW_LABELS))
        return out

    at_tiles = lambda r: r["tiles"] == args.tiles
    at_middle = lambda r: r["jobs"] == args.sizes[len(args.sizes) // 2]
    el = []
    el += panel(80, 40, 300, 220, f"CPU µs per job, {args.tiles:,} tiles", "jobs (log)", "CPU µs per job",
                series(lambda r: r["cpu"] / r["jobs"] * 1e6, "jobs", at_tiles), True)
    el += panel(480, 40, 300, 220, f"peak RSS, {args.tiles:,} tiles", "jobs (log)", "MB",
                series(lambda r: r["rss"], "jobs", at_tiles), True)
    el += panel(80, 340, 300, 220, f"wall, {args.sizes[len(args.sizes) // 2]:,} jobs", "tiles (log)", "s",
                series(lambda r: r["wall"], "tiles", at_middle), True)
    el += panel(480, 340, 300, 220, f"peak RSS, {args.sizes[len(args.sizes) // 2]:,} jobs", "tiles (log)", "MB",
                series(lambda r: r["rss"], "tiles", at_middle), True)
    legend_y = 620
    seen = []
    for r in rows:
        key = r["run"] if r["run"] in RAW_LABELS else r["policy"]
        if key not in seen:
            seen.append(key)
    x = 30
    for key in seen:
        label = RAW_LABELS[key] + " (dashed)" if key in RAW_LABELS else key
        colour = COLOURS.get(key, "#8c564b")
        el.append(f'<rect x="{x}" y="{legend_y - 10}" width="12" height="12" fill="{colour}"/>')
        el.append(f'<text x="{x + 18}" y="{legend_y}" font-size="11">{esc(label)}</text>')
        x += 18 + 6 * len(label) + 16  # about 6 px per character at 11 px
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="840" height="640" viewBox="0 0 840 640" '
            'font-family="sans-serif">\n<rect width="840" height="640" fill="white"/>\n' + "\n".join(el) +
            "\n</svg>\n")


def check_table(path):
    """A table written by this script: header, separator, rows of the header's column count, numbers parse."""
    lines = [l for l in Path(path).read_text().splitlines() if l.startswith("|")]
    problems = []
    if len(lines) < 3:
        problems.append("fewer than one row")
    header = [c.strip() for c in lines[0].strip("|").split("|")] if lines else []
    if header != COLUMNS:
        problems.append(f"header {header} is not {COLUMNS}")
    for n, l in enumerate(lines[2:], 3):
        cells = [c.strip() for c in l.strip().strip("|").split("|")]
        if len(cells) != len(COLUMNS):
            problems.append(f"row {n}: {len(cells)} cells, expected {len(COLUMNS)}")
            continue
        for name, c in zip(COLUMNS[2:], cells[2:]):
            if c == "–" and name == "simulation CPU µs/job" and cells[0] in RAW_LABELS:
                continue
            try:
                if not float(c.replace(",", "")) >= 0:
                    raise ValueError
            except ValueError:
                problems.append(f"row {n}: {name} = '{c}' is not a non-negative number")
    for p in problems:
        print(f"{path}: {p}", file=sys.stderr)
    return not problems


def replot(folder, args):
    """The plot again from a suite's runs.csv (medians per run, policy, tiles and jobs)."""
    groups = {}
    with open(folder / "runs.csv", newline="") as f:
        for row in csv.DictReader(f):
            key = (row["run"], row["policy"], int(row["tiles"]), int(row["jobs"]))
            groups.setdefault(key, []).append(row)
    rows = [{"run": k[0], "policy": k[1], "tiles": k[2], "jobs": k[3],
             **{m: statistics.median(float(r[c]) for r in g) for m, c in
                (("wall", "wall_s"), ("cpu", "cpu_s"), ("rss", "peak_rss_mb"))}} for k, g in groups.items()]
    args.tiles = max(r["tiles"] for r in rows)
    args.sizes = sorted({r["jobs"] for r in rows if r["tiles"] == args.tiles and r["policy"] == "first-fit"})
    picture = svg(rows, args)
    (folder / "suite.svg").write_text(picture)
    ET.parse(folder / "suite.svg")
    if args.write:
        (ROOT / "docs" / "bench-scale.svg").write_text(picture)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="10k and 100k jobs only")
    ap.add_argument("--sizes", help="job counts, comma-separated (default 10000,100000,1000000)")
    ap.add_argument("--tiles", type=int, default=127488, help="Aurora: 10,624 nodes × 6 cards × 2 tiles")
    ap.add_argument("--small-tiles", type=int, default=12000, help="the smaller platform (0: none)")
    ap.add_argument("--policies", default="first-fit,fgd,interference-aware,complementary")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--largest-reps", type=int, default=0, help="runs at the largest size (default: --reps)")
    ap.add_argument("--colocsim")
    ap.add_argument("--rawloop")
    ap.add_argument("--plainloop")
    ap.add_argument("--no-plain", dest="plain", action="store_false",
                    help="leave out the plain C++ loop (colocsim-plainloop) beside first-fit")
    ap.add_argument("--raw-styles", default="raw,raw-split",
                    help=f"raw-loop runs beside first-fit, comma-separated, of {', '.join(RAW_STYLES)}")
    ap.add_argument("--out", default=str(ROOT / "build-bench-suite"))
    ap.add_argument("--write", action="store_true", help="update BENCHMARKS.md and docs/bench-scale.svg")
    ap.add_argument("--check", metavar="FILE.md", help="only check a written table")
    ap.add_argument("--replot", metavar="DIR", help="only redraw DIR/suite.svg from DIR/runs.csv")
    args = ap.parse_args()
    if args.check:
        return 0 if check_table(args.check) else 1
    if args.replot:
        return replot(Path(args.replot), args)
    args.sizes = [int(s) for s in (args.sizes or ("10000,100000" if args.quick else "10000,100000,1000000"))
                  .split(",")]
    args.policies = [p for p in args.policies.split(",") if p]
    args.raw_styles = [k for k in args.raw_styles.split(",") if k]
    for k in args.raw_styles:
        if k not in RAW_STYLES:
            sys.exit(f"--raw-styles: '{k}' is not one of {', '.join(RAW_STYLES)}")
    colocsim, rawloop = find_binary("colocsim", args.colocsim), find_binary("colocsim-rawloop", args.rawloop)
    plainloop = find_binary("colocsim-plainloop", args.plainloop) if args.plain else None
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()
    rows = build_rows(args, colocsim, rawloop, plainloop)
    load_after = os.getloadavg()
    with open(out / "runs.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["run", "policy", "tiles", "jobs", "rep", "wall_s", "cpu_s", "peak_rss_mb"])
        for r in rows:
            for i, m in enumerate(r["all"]):
                w.writerow([r["run"], r["policy"], r["tiles"], r["jobs"], i, f"{m['wall']:.3f}", f"{m['cpu']:.3f}",
                            f"{m['rss']:.1f}"])
    reps = f"{args.reps}" + (f" ({args.largest_reps} at {args.sizes[-1]:,} jobs)" if args.largest_reps else "")
    md = [f"Median of {reps} runs each, one at a time; {os.cpu_count()} cores, load average "
          f"{load[0]:.1f} before and {load_after[0]:.1f} after; {time.strftime('%Y-%m-%d', time.gmtime())}. "
          "Wall, CPU (user + system) and peak RSS of the whole process; simulation CPU µs/job is "
          "`colocsim bench`'s simulation phase alone.", ""]
    md += table(rows) + [""] + targets(rows, args)
    (out / "suite.md").write_text("\n".join(md) + "\n")
    (out / "suite.svg").write_text(svg(rows, args))
    ET.parse(out / "suite.svg")  # well-formed XML
    if not check_table(out / "suite.md"):
        return 1
    print("\n".join(md))
    if args.write:
        bench = ROOT / "BENCHMARKS.md"
        text = bench.read_text()
        if BEGIN not in text or END not in text:
            sys.exit(f"{bench}: no '{BEGIN}' … '{END}' markers")
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        bench.write_text(head + BEGIN + "\n" + "\n".join(md) + "\n" + END + tail)
        (ROOT / "docs" / "bench-scale.svg").write_text(svg(rows, args))
        print(f"bench-suite: wrote {bench} and docs/bench-scale.svg", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

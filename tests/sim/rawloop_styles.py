#!/usr/bin/env python3
"""The designs of colocsim-rawloop (BENCHMARKS.md, "Without an actor per job") must simulate the same run.

Runs `colocsim-rawloop --style S` for every style on small platforms, hosts shared by several jobs at once
(fair sharing) or not, and checks that all styles report the same checksum (Σ of the jobs' end times) to
1e-9 relative, the same makespan and the same peak number of jobs running at once: the styles differ only in
which SimGrid actors own and wait for the execs, so a completion noticed late, lost or counted twice, or a
job started at another date, changes the checksum. The `actor` style (one actor per job, SimGrid's own
`this_actor::execute`) is the reference. It also checks that a bad --style and a fractional --jobs are
refused with exit 2.

  tests/sim/rawloop_styles.py PATH/TO/colocsim-rawloop
"""
import subprocess
import sys

STYLES = ["actor", "pool", "sharded", "split"]
CASES = [  # (jobs, tiles, extra options): few hosts (many co-runners per host), many hosts, small owners
    (3000, 50, []),
    (4000, 2000, []),
    (2000, 100, ["--per-owner", "3", "--owners", "7"]),
]


def run(binary, args):
    p = subprocess.run([binary] + args, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        sys.exit(f"{' '.join([binary] + args)} failed ({p.returncode}): {p.stderr.strip()[-400:]}")
    return dict(line.split("=", 1) for line in p.stdout.splitlines() if "=" in line)


def main():
    binary = sys.argv[1]
    failures = []
    for jobs, tiles, extra in CASES:
        ref = None
        for style in STYLES:
            kv = run(binary, ["--jobs", str(jobs), "--tiles", str(tiles), "--style", style] + extra)
            got = (float(kv["checksum"]), float(kv["makespan_s"]), int(kv["peak_running"]))
            print(f"{jobs} jobs, {tiles} tiles {' '.join(extra)}: {style}: checksum {got[0]:.6f}, "
                  f"makespan {got[1]:.6f}, peak running {got[2]}, owners {kv['owners']}")
            if not 0 < got[2] <= jobs:
                failures.append(f"{style}: peak running {got[2]} not in 1..{jobs}")
            if ref is None:
                ref = got
                continue
            if abs(got[0] - ref[0]) > 1e-9 * abs(ref[0]):
                failures.append(f"{style}: checksum {got[0]!r} differs from actor's {ref[0]!r}")
            if abs(got[1] - ref[1]) > 1e-9 * abs(ref[1]):
                failures.append(f"{style}: makespan {got[1]!r} differs from actor's {ref[1]!r}")
            if got[2] != ref[2]:
                failures.append(f"{style}: peak running {got[2]} differs from actor's {ref[2]}")
    bad = subprocess.run([binary, "--style", "maestro"], capture_output=True, text=True)
    if bad.returncode != 2 or "--style expects actor, pool, sharded or split" not in bad.stderr:
        failures.append(f"--style maestro: exit {bad.returncode}, stderr {bad.stderr.strip()!r}")
    # A count is whole: --jobs 2.5 was truncated to 2 before.
    frac = subprocess.run([binary, "--jobs", "2.5"], capture_output=True, text=True)
    if frac.returncode != 2 or "--jobs expects a positive whole number (got '2.5')" not in frac.stderr:
        failures.append(f"--jobs 2.5: exit {frac.returncode}, stderr {frac.stderr.strip()!r}")
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

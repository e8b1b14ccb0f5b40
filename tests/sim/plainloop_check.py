#!/usr/bin/env python3
"""colocsim-plainloop (the plain C++ reference loop of BENCHMARKS.md) against two independent references.

1. SimGrid: with `--placement blind` it does the work of colocsim-rawloop (job j on device j mod H, devices
   of speed 1 shared fairly), so both must report the same checksum (sum of the end times) to 1e-9
   relative, the same makespan and the same peak of jobs running at once.
2. A brute force: for every job, the arrival and work that plainloop drew (--jobs-out), the end time
   recomputed here by the slowest correct method there is: step from event to event, give every resident of
   every device dt / n of service, and take the next event as the nearest arrival or remaining-work
   completion; for `--placement first-fit` this script also decides the placements itself (the first device
   with fewer than --per-device residents, a FIFO queue otherwise). Each job's device, start and end must
   match to 1e-9 relative, and the energy and busy device-seconds must match the brute force's integrals.
It also checks that bad options are refused with exit 2.

  tests/sim/plainloop_check.py PATH/TO/colocsim-plainloop PATH/TO/colocsim-rawloop
"""
import csv
import os
import subprocess
import sys
import tempfile

RAW_CASES = [(3000, 50), (4000, 2000), (2000, 7)]
BRUTE_CASES = [  # (jobs, tiles, extra options)
    (400, 6, ["--placement", "blind"]),
    (400, 6, ["--placement", "first-fit"]),
    (300, 4, ["--placement", "first-fit", "--per-device", "3", "--load", "1.7"]),
    (200, 30, ["--placement", "first-fit", "--per-device", "1", "--idle-w", "2.5", "--busy-w", "7"]),
]


def run(binary, args):
    p = subprocess.run([binary] + args, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        sys.exit(f"{' '.join([binary] + args)} failed ({p.returncode}): {p.stderr.strip()[-400:]}")
    return dict(line.split("=", 1) for line in p.stdout.splitlines() if "=" in line)


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def brute_force(jobs, tiles, first_fit, per_device, idle_w, busy_w):
    """jobs: list of (arrival, work). Returns per-job (device, start, end), energy_j, busy_s."""
    residents = [dict() for _ in range(tiles)]  # device -> {job: remaining work}
    queue = []
    placed = {}
    ends = {}
    now = 0.0
    energy = busy = 0.0
    nxt = 0

    def start(j, d):
        residents[d][j] = jobs[j][1]
        placed[j] = (d, now)

    def room():
        for d in range(tiles):
            if len(residents[d]) < per_device:
                return d
        return None

    while nxt < len(jobs) or any(residents):
        # the next event: the nearest arrival, or the nearest completion at the devices' current rates
        t_next, what = float("inf"), None
        if nxt < len(jobs):
            t_next, what = jobs[nxt][0], ("arrival", nxt)
        for d in range(tiles):
            n = len(residents[d])
            for j, left in residents[d].items():
                t = now + left * n
                if t < t_next:
                    t_next, what = t, ("end", d, j)
        dt = t_next - now
        for d in range(tiles):
            n = len(residents[d])
            if n:
                busy += dt
                energy += busy_w * dt
                for j in residents[d]:
                    residents[d][j] -= dt / n
            else:
                energy += idle_w * dt
        now = t_next
        if what[0] == "arrival":
            j = what[1]
            nxt += 1
            if not first_fit:
                start(j, j % tiles)
            else:
                d = room() if not queue else None
                if d is None:
                    queue.append(j)
                else:
                    start(j, d)
        else:
            _, d, j = what
            del residents[d][j]
            ends[j] = now
            while first_fit and queue:
                r = room()
                if r is None:
                    break
                start(queue.pop(0), r)
    return {j: (placed[j][0], placed[j][1], ends[j]) for j in placed}, energy, busy


def main():
    plain, raw = sys.argv[1], sys.argv[2]
    failures = []
    for jobs, tiles in RAW_CASES:
        args = ["--jobs", str(jobs), "--tiles", str(tiles)]
        p, r = run(plain, args + ["--placement", "blind"]), run(raw, args)
        print(f"{jobs} jobs, {tiles} devices: plainloop checksum {p['checksum']}, makespan {p['makespan_s']}, "
              f"peak {p['peak_running']}; rawloop {r['checksum']}, {r['makespan_s']}, {r['peak_running']}")
        for key in ("checksum", "makespan_s"):
            if not close(float(p[key]), float(r[key])):
                failures.append(f"{args}: {key} {p[key]} (plainloop) against {r[key]} (SimGrid)")
        if p["peak_running"] != r["peak_running"]:
            failures.append(f"{args}: peak_running {p['peak_running']} against {r['peak_running']}")
    with tempfile.TemporaryDirectory() as tmp:
        for jobs, tiles, extra in BRUTE_CASES:
            out = os.path.join(tmp, "jobs.csv")
            args = ["--jobs", str(jobs), "--tiles", str(tiles)] + extra
            kv = run(plain, args + ["--jobs-out", out])
            opt = dict(zip(extra[::2], extra[1::2]))
            with open(out, newline="") as f:
                rows = list(csv.DictReader(f))
            drawn = [(float(x["arrival_s"]), float(x["work"])) for x in rows]
            ref, energy, busy = brute_force(drawn, tiles, opt.get("--placement") == "first-fit",
                                            int(opt.get("--per-device", 2)), float(opt.get("--idle-w", 0)),
                                            float(opt.get("--busy-w", 1)))
            bad = 0
            for x in rows:
                j = int(x["job"])
                d, s, e = ref[j]
                if int(x["device"]) != d or not close(float(x["start_s"]), s) or not close(float(x["end_s"]), e):
                    bad += 1
                    if bad <= 3:
                        failures.append(f"{args}: job {j}: device {x['device']}, start {x['start_s']}, end "
                                        f"{x['end_s']}; brute force {d}, {s!r}, {e!r}")
            for key, want in (("energy_j", energy), ("busy_device_s", busy)):
                if not close(float(kv[key]), want, 1e-8):
                    failures.append(f"{args}: {key} {kv[key]} against the brute force's {want!r}")
            print(f"{' '.join(args)}: {jobs - bad} of {jobs} jobs as the brute force; energy {kv['energy_j']} J "
                  f"(brute force {energy:.6f}), makespan {kv['makespan_s']}")
    for bad_args, text in ((["--placement", "best"], "--placement expects blind or first-fit"),
                           (["--jobs", "2.5"], "--jobs expects a positive whole number (got '2.5')"),
                           (["--busy-w", "nan"], "--busy-w expects a finite number >= 0")):
        p = subprocess.run([plain] + bad_args, capture_output=True, text=True)
        if p.returncode != 2 or text not in p.stderr:
            failures.append(f"{bad_args}: exit {p.returncode}, stderr {p.stderr.strip()!r}")
    for f in failures:
        print("FAIL:", f)
    print(f"{'FAILED' if failures else 'OK'}: plainloop against SimGrid and a brute force")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""validate-easy: colocsim's exclusive-easy against an independent EASY (easy_ref.py), job by job.

Runs `colocsim replay` and easy_ref.py on slices of Parallel Workloads Archive and ALCF Theta SWF logs, each on
an exclusive platform of as many devices as the log's machine has processors (1 processor or node = 1
device), under exact, requested and predicted run-time estimates, and compares every job's start and end.
It prints, per run, the jobs, the identical starts, the largest difference, and mean wait, mean bounded
slowdown and utilisation of both. README.md says what it reproduces.

  validate_easy.py [--colocsim BIN] [--out DIR] [--results FILE] [--check] [--quick]

--check: exit 1 unless every job starts and ends at the same time in both (all three estimate sources);
--quick: the first 300 jobs of each slice (the CTest); --results: write the table as CSV (default:
results.csv beside this script; none with --quick).
"""
import argparse
import csv
import gzip
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, HERE)
import easy_ref  # noqa: E402

# name, slice, machine size (processors, or nodes for Theta), load factor, estimate sources; exact-cut: exact
# estimates of the jobs as requested times leave them (run time cut at the request, what the kills do), the
# baseline against which requested and predicted estimates are compared on the same work
TRACES = [
    ("nasa-ipsc", "data/nasa-ipsc-1500.swf", 128, 2.0, ["exact", "predicted"]),
    ("lublin256", "data/lublin256-1500.swf", 256, 1.0, ["exact"]),
    ("theta2022", "data/theta2022-1500.swf", 4360, 1.0, ["exact", "exact-cut", "requested", "predicted"]),
    ("theta2023", "data/theta2023-1500.swf", 4360, 1.0, ["exact", "exact-cut", "requested", "predicted"]),
]
TAU_S = 10.0  # bounded slowdown threshold (Feitelson et al., JSSPP 1997)


def find_colocsim():
    for build in ("build-test", "build", "build-release", "build-dev"):
        path = os.path.join(HERE, "..", "..", build, "sim", "colocsim")
        if os.access(path, os.X_OK):
            return os.path.normpath(path)
    sys.exit("validate-easy: colocsim not found under build*/sim/; pass --colocsim PATH")


def run_colocsim(binary, trace, procs, load, mode, out):
    cmd = [binary, "replay", trace, "--format", "swf", "--platform", "max1550-testnode", "--nodes", str(procs),
           "--set", "platform.devices_per_card=1", "--sharing", "exclusive", "--policy", "exclusive-easy",
           "--set", "workload.estimates=" + mode, "--set", "outputs.timeseries=false", "-o", out, "--force",
           "--quiet"]
    if load != 1.0:
        cmd += ["--transform", f"load={load:g}"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"validate-easy: {' '.join(cmd)} failed ({done.returncode}):\n{done.stderr}")
    rows = {}
    # jobs.csv, or jobs.csv.gz when the run compressed it (outputs.compress, docs/formats/outputs.md).
    path = os.path.join(out, "jobs.csv")
    opener = (lambda: open(path)) if os.path.exists(path) else (lambda: gzip.open(path + ".gz", "rt"))
    with opener() as f:
        for r in csv.DictReader(f):
            if r["start_s"]:
                rows[int(r["id"])] = (float(r["submit_s"]), float(r["start_s"]), float(r["end_s"]),
                                      len(r["devices"].split(";")))
    return rows


def run_reference(trace, procs, load, mode):
    """Per job (submit, start, end, size), and the number of jobs killed at their requested time."""
    jobs, _ = easy_ref.read_swf(trace, procs, load)
    easy_ref.simulate(jobs, procs, mode)
    killed = sum(1 for j in jobs if j["end"] - j["start"] < j["run"])
    return {j["id"]: (j["submit"], j["start"], j["end"], j["size"]) for j in jobs}, killed


def cut_at_request(trace, out):
    """A copy of an SWF file with each run time (field 4) cut at its requested time (field 9), if stated."""
    with open(trace) as f, open(out, "w") as g:
        for line in f:
            v = line.split()
            if v and not line.startswith(";") and float(v[8]) > 0 and float(v[3]) > float(v[8]):
                v[3] = v[8]
                line = " ".join(v) + "\n"
            g.write(line)
    return out


def metrics(rows, procs):
    """Mean wait (s), mean bounded slowdown (run = end - start, tau 10 s), utilisation (busy processor-time
    over procs x (last end - first submit))."""
    n = len(rows)
    wait = sum(s - t for t, s, e, k in rows.values()) / n
    bsld = sum(max(1.0, (e - t) / max(e - s, TAU_S)) for t, s, e, k in rows.values()) / n
    span = max(e for t, s, e, k in rows.values()) - min(t for t, s, e, k in rows.values())
    util = sum(k * (e - s) for t, s, e, k in rows.values()) / (procs * span)
    return wait, bsld, util


def compare(ref, col):
    same = sum(1 for j in ref if j in col and col[j][1] == ref[j][1] and col[j][2] == ref[j][2])
    diff = max((abs(col[j][1] - ref[j][1]) if j in col else float("inf") for j in ref), default=0.0)
    return same, diff


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--colocsim")
    ap.add_argument("--out", help="folder for colocsim's outputs (default: a temporary one)")
    ap.add_argument("--results")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    binary = a.colocsim or find_colocsim()
    out = a.out or tempfile.mkdtemp(prefix="validate-easy-")
    os.makedirs(out, exist_ok=True)
    table, failures = [], []
    print(f"{'trace':<10} {'estimates':<9} {'jobs':>5} {'killed':>6} {'identical':>9} {'max diff s':>10}  "
          f"{'wait s (colocsim / ref)':>25} {'bsld (colocsim / ref)':>23} {'util':>6}")
    for name, rel, procs, load, modes in TRACES:
        trace = os.path.join(HERE, rel)
        if a.quick:  # the slice's header and first 300 jobs
            trace_q = os.path.join(out, name + "-300.swf")
            with open(trace) as f, open(trace_q, "w") as g:
                rows = [line for line in f if line.strip()]
                g.writelines([r for r in rows if r.startswith(";")] + [r for r in rows if not r.startswith(";")][:300])
            trace = trace_q
        for mode in modes:
            run, estimates = trace, mode
            if mode == "exact-cut":
                run, estimates = cut_at_request(trace, os.path.join(out, f"{name}-cut.swf")), "exact"
            col = run_colocsim(binary, run, procs, load, estimates, os.path.join(out, f"{name}-{mode}"))
            ref, killed = run_reference(run, procs, load, estimates)
            same, diff = compare(ref, col)
            (cw, cb, cu), (rw, rb, ru) = metrics(col, procs), metrics(ref, procs)
            print(f"{name:<10} {mode:<9} {len(ref):>5} {killed:>6} {100.0 * same / len(ref):>8.1f}% {diff:>10g}  "
                  f"{cw:>12.0f} / {rw:<10.0f} {cb:>10.2f} / {rb:<10.2f} {ru:>6.3f}")
            table.append({"trace": name, "estimates": mode, "machine": procs, "load": load, "jobs": len(ref),
                          "killed": killed, "identical_starts": same, "max_start_diff_s": diff, "mean_wait_s": rw,
                          "mean_bsld": rb, "utilisation": ru, "colocsim_mean_wait_s": cw,
                          "colocsim_mean_bsld": cb, "colocsim_utilisation": cu})
            if same != len(ref) or len(col) != len(ref):
                failures.append(f"{name} {mode}: {len(ref) - same} of {len(ref)} jobs start or end differently")
    results = a.results or (None if a.quick else os.path.join(HERE, "results.csv"))
    if results:
        with open(results, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(table[0]), lineterminator="\n")
            w.writeheader()
            for row in table:
                w.writerow({k: f"{v:.6g}" if isinstance(v, float) else v for k, v in row.items()})
        print(f"results in {results}")
    if a.check:
        for f in failures:
            print("validate-easy: FAIL: " + f)
        if failures:
            sys.exit(1)
        print("validate-easy: every job starts and ends at the same time in colocsim and the reference")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Solo deep-learning throughput of each Gavel worker type relative to an NVIDIA V100.

Reads simulation_throughputs.json (from a checkout of stanford-futuredata/gavel @
c4fa40097339e9608ab71fd64c8bdea96a5e4a4c, scheduler/simulation_throughputs.json, MIT licence). Its
structure is

    {worker_type: {"(job_type, scale_factor)": {"null": solo_steps_per_s, "(other, sf)": [thr_self, thr_other]}}}

For each worker type w and each job type measured solo on one GPU (scale factor 1) on both w and the
reference type (default v100), the ratio is thr_w / thr_ref (both in steps/s of the same job, so the
unit cancels). Job types with a missing or non-positive throughput on either side are skipped and
counted. Prints, per worker type, the number of job types, the geometric mean of the ratios (the
aggregate used for DeviceSpec::relative_throughput) and their min and max; then the geometric mean per
model family (the text before " (batch size ...)"), to show the spread behind the aggregate.

The values are copied by hand into models/devices/*.yaml (key relative_throughput, tag measurement) with
this command as their source.

Usage: calibration/tools/gavel_speeds.py THROUGHPUTS.json [--reference v100] [--scale-factor 1]
"""
import argparse
import ast
import collections
import json
import math


def solo_throughputs(data, worker, scale_factor):
    """{job_type: solo steps/s} of one worker type at one scale factor."""
    out = {}
    for key, entry in data[worker].items():
        job_type, sf = ast.literal_eval(key)
        if sf != scale_factor:
            continue
        out[job_type] = entry.get("null")
    return out


def family(job_type):
    return job_type.split(" (")[0]


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("throughputs")
    ap.add_argument("--reference", default="v100")
    ap.add_argument("--scale-factor", type=int, default=1)
    args = ap.parse_args()
    data = json.load(open(args.throughputs))
    ref = solo_throughputs(data, args.reference, args.scale_factor)
    print(f"solo throughput relative to {args.reference} (scale factor {args.scale_factor}; "
          f"ratio of steps/s on the same job type)")
    print(f"{'worker type':<22} {'jobs':>4} {'skipped':>7} {'geomean':>8} {'min':>7} {'max':>7}")
    per_family = {}
    for worker in sorted(data):
        mine = solo_throughputs(data, worker, args.scale_factor)
        ratios = {}
        skipped = 0
        for job_type in sorted(set(mine) | set(ref)):
            a, b = mine.get(job_type), ref.get(job_type)
            if not a or not b or a <= 0 or b <= 0:
                skipped += 1
                continue
            ratios[job_type] = a / b
        if not ratios:
            print(f"{worker:<22} {0:>4} {skipped:>7}  (no common job type)")
            continue
        v = list(ratios.values())
        print(f"{worker:<22} {len(v):>4} {skipped:>7} {geomean(v):>8.3f} {min(v):>7.3f} {max(v):>7.3f}")
        fams = collections.defaultdict(list)
        for job_type, r in ratios.items():
            fams[family(job_type)].append(r)
        per_family[worker] = {f: (len(r), geomean(r)) for f, r in fams.items()}
    print()
    print("geometric mean per model family (job types in parentheses)")
    families = sorted({f for fams in per_family.values() for f in fams})
    workers = sorted(per_family)
    print(f"{'family':<16}" + "".join(f" {w:>22}" for w in workers))
    for f in families:
        cells = []
        for w in workers:
            n, g = per_family[w].get(f, (0, float("nan")))
            cells.append(f" {g:>17.3f} ({n:>2})")
        print(f"{f:<16}" + "".join(cells))


if __name__ == "__main__":
    main()

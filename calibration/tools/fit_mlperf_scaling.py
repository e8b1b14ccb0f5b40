#!/usr/bin/env python3
"""Fit Amdahl-style scaling-efficiency curves to MLPerf Training v4.0 results.

Reads mlperf_training_v4.0_runs.csv, a table derived from a checkout of mlcommons/training_results_v4.0 @
6fe954378efe4a1a1bd665550b18ff8f26018def (Apache-2.0): one row per results/<system>/<benchmark>/result_*.txt
with its run status and time to train, joined with the system's systems/<submitter>/<system>.json (columns
used: submitter, system, benchmark, status, blob_missing, time_to_train_min, total_accelerators,
accelerator_model_name; docs/sources.md, Data sets). For one
system family (default: NVIDIA's "eos" H100-SXM5-80GB DGX systems, one submitter and one software stack,
so that only the accelerator count changes), fits per benchmark

    e(n) = 1 / (s * n + 1 - s)          (Amdahl: s = serial/communication fraction; e(1) = 1)

to the efficiencies relative to the smallest system of the family, n0:

    e_rel(n) = n0 * T(n0) / (n * T(n)) = e(n) / e(n0)

T(n) is the median time-to-train over the successful runs of one system. The fit minimises the squared
residuals of e_rel over s in [0, 1] (golden-section search on a convex 1-D problem). Prints s, the
points, the fitted values and the residuals; the results are copied by hand into
workloads/profiles/default.yaml (key scaling_serial) with this command as their source.

Usage: calibration/tools/fit_mlperf_scaling.py RUNS.csv [--family eos] [--benchmark resnet ...]
"""
import argparse
import collections
import csv
import statistics


def load(path, family):
    times = collections.defaultdict(list)
    for r in csv.DictReader(open(path, newline="")):
        if r["status"] != "success" or r["blob_missing"] != "0" or not r["time_to_train_min"]:
            continue
        if r["submitter"] != "NVIDIA" or not r["system"].startswith(family):
            continue
        if "H100-SXM5-80GB" not in r["accelerator_model_name"]:
            continue
        times[(r["benchmark"], int(r["total_accelerators"]), r["system"])].append(
            float(r["time_to_train_min"]))
    per_bench = collections.defaultdict(dict)
    for (bench, n, system), t in times.items():
        # One system per count (the family has one per count; keep the fastest median if several).
        m = statistics.median(t)
        if n not in per_bench[bench] or m < per_bench[bench][n][0]:
            per_bench[bench][n] = (m, system, len(t))
    return per_bench


def e(s, n):
    return 1.0 / (s * n + 1.0 - s)


def fit(points, n0):
    def sse(s):
        return sum((e(s, n) / e(s, n0) - er) ** 2 for n, er in points)
    lo, hi = 0.0, 1.0
    g = (5 ** 0.5 - 1) / 2
    for _ in range(200):
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        if sse(a) <= sse(b):
            hi = b
        else:
            lo = a
    s = (lo + hi) / 2
    return s, sse(s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runs")
    ap.add_argument("--family", default="eos")
    ap.add_argument("--benchmark", nargs="*")
    args = ap.parse_args()
    data = load(args.runs, args.family)
    for bench in sorted(data):
        if args.benchmark and bench not in args.benchmark:
            continue
        pts = data[bench]
        ns = sorted(pts)
        if len(ns) < 2:
            print(f"{bench}: only n = {ns}: no fit")
            continue
        n0 = ns[0]
        t0 = pts[n0][0]
        points = [(n, n0 * t0 / (n * pts[n][0])) for n in ns[1:]]
        s, sse = fit(points, n0)
        print(f"{bench}: n0 = {n0} ({pts[n0][1]}, T = {t0:.4f} min), s = {s:.6g}, "
              f"rms residual = {(sse / len(points)) ** 0.5:.4f}")
        for n, er in points:
            fitted = e(s, n) / e(s, n0)
            print(f"  n = {n:6d}  T = {pts[n][0]:9.4f} min  e_rel = {er:.4f}  fit = {fitted:.4f}  "
                  f"residual = {er - fitted:+.4f}  ({pts[n][1]}, {pts[n][2]} runs)")


if __name__ == "__main__":
    main()

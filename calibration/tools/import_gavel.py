#!/usr/bin/env python3
"""Import Gavel's pairwise co-location throughputs as a colocsim pair table (format colocsim-pair-table/1).

Reads simulation_throughputs.json of Gavel (Narayanan et al., OSDI'20; stanford-futuredata/gavel @
c4fa40097339e9608ab71fd64c8bdea96a5e4a4c, scheduler/simulation_throughputs.json, MIT licence). Its layout, per
worker type (k80, p100, v100):

    {"(job_type, scale_factor)": {"null": solo_steps_per_s,
                                  "(other_job_type, sf)": [steps_per_s_self, steps_per_s_other], ...}}

where a pair entry is the throughput of both jobs when they share the same GPU(s), and [0, 0] marks a pair
that failed to run (Gavel's profiler, scheduler/scripts/profiling/measure_throughput.py, writes 0 when a
job of the pair failed, e.g. out of memory). For one worker type and scale factor (default v100, 1 GPU per
job) the TOTAL co-location slowdown of job a next to job b is

    S(a, b) = solo(a) / pair(a, b)[0]            (>= 1 for every v100 pair)

which is the whole slowdown of sharing the GPU (and the host: Gavel's jobs bring their own data loaders),
not an extra on top of a sharing-mode factor. colocsim keys interference by job class (C, X, M, MS, L:
models/ResourceSignature.hpp), so each of Gavel's 7 families is mapped to one class (FAMILIES below, with
the reasoning; an estimate) and a cell T[row][col] is the geometric mean of S(a, b) over every measured
pair with a in the row class and b in the column class, all batch sizes (geometric: S is a ratio).

Writes the table as YAML (-o FILE, default stdout) and prints a summary: pairs used, failed pairs left
out, pairs that are exact copies of the solo throughputs, min/median/max S and the table.

Copies: 25 ordered v100 pairs (ResNet-18 with ResNet-18, Recommendation or ResNet-50) give exactly both
jobs' solo throughputs, equal to the last digit. Independent measurements cannot agree so; no k80 or p100
pair does it (their smallest S: 1.157 and 1.009), so they are read as filled-in values, not measurements,
and left out (--keep-solo-copies keeps them, as slowdown 1).

Usage: calibration/tools/import_gavel.py simulation_throughputs.json [-o FILE] [--worker v100]
           [--scale-factor 1] [--modes mps] [--keep-solo-copies]
"""
import argparse
import ast
import json
import math
import statistics
import sys

GAVEL_COMMIT = "c4fa40097339e9608ab71fd64c8bdea96a5e4a4c"
CLASSES = ["C", "X", "M", "MS", "L"]
# Gavel family -> colocsim class, with the reasoning (Gavel's jobs: scheduler/job_table.py @ GAVEL_COMMIT).
FAMILIES = [
    ("CycleGAN", "C",
     "CycleGAN on monet2photo, batch 1 at 256x256: convolutions, instance norms and element-wise layers on "
     "large activation maps, fp32 (no tensor cores on V100): vector compute, like the catalogue's one C "
     "profile (maskrcnn-train) [estimate]"),
    ("ResNet-50", "X",
     "ResNet-50 on ImageNet: the catalogue's resnet50-train-bs32 and resnet50-train-bs128 are class X "
     "(convolutions on the matrix engines)"),
    ("Transformer", "X",
     "Transformer translation on Multi30k: GEMM-dominated like the catalogue's bert-base-train-bs32 and "
     "gpt2-large-train-bs8 (class X) [estimate]"),
    ("LM", "M",
     "LSTM language model on Wikitext-2, batch 5-80: every time step re-reads the recurrent weights "
     "(matrix-vector work at small batch), memory traffic the largest share but a small working set: the "
     "light HBM-bound class M; no catalogue profile [estimate]"),
    ("Recommendation", "MS",
     "Variational autoencoder for collaborative filtering on MovieLens-20M (pro_sg), batch 512-8192: "
     "dense layers over the 20k-item vocabulary stream large batches of wide rows; the most "
     "interference-sensitive family in Gavel's data; no catalogue profile [estimate]"),
    ("ResNet-18", "L",
     "ResNet-18 on CIFAR-10 (32x32 images): the catalogue's cifar-resnet18-train is class L (tiny kernels, "
     "launch- and data-loader-bound); in Gavel's data its small batches co-locate almost for free"),
    ("A3C", "L",
     "A3C on Pong with 4 CPU workers: a small network stepped between CPU-side environment simulation, "
     "engine mostly idle: latency/launch-bound class L [estimate]"),
]


def family_of(job_type):
    """'ResNet-50 (batch size 64)' -> 'ResNet-50'; 'A3C' -> 'A3C'."""
    return job_type.split(" (")[0]


def parse_key(key):
    """'("ResNet-50 (batch size 64)", 1)' -> ('ResNet-50 (batch size 64)', 1)."""
    job_type, scale = ast.literal_eval(key)
    return job_type, int(scale)


def load_pairs(path, worker, scale_factor, keep_solo_copies):
    data = json.load(open(path))
    if worker not in data:
        sys.exit(f"{path}: no worker type '{worker}'; valid: {', '.join(sorted(data))}")
    rows = {}
    for key, row in data[worker].items():
        job_type, sf = parse_key(key)
        if sf == scale_factor:
            rows[job_type] = row
    if not rows:
        sys.exit(f"{path}: worker '{worker}' has no job type at scale factor {scale_factor}")
    known = {f for f, _, _ in FAMILIES}
    for job_type in rows:
        if family_of(job_type) not in known:
            sys.exit(f"{path}: job type '{job_type}' has no class mapping; known families: {', '.join(sorted(known))}")
    pairs, failed, copies = [], [], []
    for a, row in sorted(rows.items()):
        solo_a = row["null"]
        for key, thr in sorted(row.items()):
            if key == "null":
                continue
            b, sf = parse_key(key)
            if sf != scale_factor or b not in rows:
                continue
            if solo_a <= 0 or thr[0] <= 0:
                failed.append((a, b))
                continue
            if thr[0] == solo_a and thr[1] == rows[b]["null"]:
                copies.append((a, b))
                if not keep_solo_copies:
                    continue
            pairs.append((a, b, solo_a / thr[0]))
    return rows, pairs, failed, copies


def geometric_mean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def build_table(pairs, failed, copies, worker, keep_solo_copies):
    cls = {f: c for f, c, _ in FAMILIES}
    table = {}
    for r in CLASSES:
        for c in CLASSES:
            cell = [(a, b, s) for a, b, s in pairs if cls[family_of(a)] == r and cls[family_of(b)] == c]
            def count(which):
                return sum(1 for a, b in which if cls[family_of(a)] == r and cls[family_of(b)] == c)
            if not cell:
                sys.exit(f"no measured pair for row class {r}, column class {c} (worker {worker}); "
                         "the table needs every cell")
            values = [s for _, _, s in cell]
            value = max(1.0, geometric_mean(values))
            rows_f = sorted({family_of(a) for a, _, _ in cell})
            cols_f = sorted({family_of(b) for _, b, _ in cell})
            if len(cell) == 1:
                a, b, _ = cell[0]
                what = f"{a} next to {b}, solo / paired throughput"
            else:
                what = (f"geometric mean of {len(cell)} pairs, {' + '.join(rows_f)} next to "
                        f"{' + '.join(cols_f)}, all batch sizes; range {min(values):.3f}-{max(values):.3f}")
            if count(failed):
                what += f"; {count(failed)} failed pairs (throughput 0) left out"
            if count(copies) and not keep_solo_copies:
                what += f"; {count(copies)} pairs equal to both solo throughputs left out"
            source = f"Gavel simulation_throughputs.json @ {GAVEL_COMMIT[:7]}, {worker}, {what}"
            table[(r, c)] = (value, source)
    return table


def yaml_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_yaml(out, args, rows, pairs, failed, copies, table):
    name = args.name or f"gavel-{args.worker}"
    lines = [
        f"# Total co-location slowdowns of two training jobs sharing one GPU, by job class, imported from Gavel",
        f"# (OSDI'20) for worker type {args.worker}, scale factor {args.scale_factor}. Generated by",
        f"# calibration/tools/import_gavel.py; do not edit: rerun the tool. Format: docs/formats/pair-table.md.",
        f"# T[row][col] = the WHOLE slowdown of a row-class job next to one column-class job (not an extra on",
        f"# top of a sharing factor); 3+ co-runners: 1 + sum of the excesses (models/README.md).",
        "format: colocsim-pair-table/1",
        f"name: {name}",
        "measured_on: " + yaml_string(
            f"NVIDIA {args.worker.upper()} (Gavel worker type {args.worker}), scale factor {args.scale_factor} (GPUs per job)"),
        "status: " + yaml_string(
            f"throughputs measured by Gavel's profiler ({len(rows)} job types alone and {len(pairs)} ordered "
            f"pairs); the mapping of Gavel's families to classes is an estimate"),
        "created: " + yaml_string(
            f"calibration/tools/import_gavel.py --worker {args.worker} --scale-factor {args.scale_factor}"
            + (" --keep-solo-copies" if args.keep_solo_copies else "")
            + f" on simulation_throughputs.json (stanford-futuredata/gavel @ {GAVEL_COMMIT}, MIT)"),
        "modes: [" + ", ".join(args.modes) + "]",
        "classes: [" + ", ".join(CLASSES) + "]",
        "families:",
    ]
    for family, c, reason in FAMILIES:
        n = sum(1 for t in rows if family_of(t) == family)
        if n == 0:
            continue
        lines.append(f"  - {{family: {family}, class: {c}, job_types: {n}, reason: {yaml_string(reason)}}}")
    lines.append("table:")
    for r in CLASSES:
        lines.append(f"  - # row {r}: " + ", ".join(f"{c} {table[(r, c)][0]:.4f}" for c in CLASSES))
        for c in CLASSES:
            value, source = table[(r, c)]
            lines.append(f"    - {{value: {value:.4f}, tag: measurement, source: {yaml_string(source)}}}")
    out.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("throughputs", help="Gavel's simulation_throughputs.json")
    ap.add_argument("-o", "--output", help="YAML file to write (default: stdout; the summary then goes to stderr)")
    ap.add_argument("--worker", default="v100", help="Gavel worker type (default v100)")
    ap.add_argument("--scale-factor", type=int, default=1, help="GPUs per job (default 1)")
    ap.add_argument("--name", help="table name (default gavel-WORKER)")
    ap.add_argument("--modes", nargs="+", default=["mps"],
                    help="sharing modes the table applies in (default mps: Gavel space-shares the GPU)")
    ap.add_argument("--keep-solo-copies", action="store_true",
                    help="keep the pairs whose throughputs are exactly both jobs' solo throughputs (default: "
                         "left out, they are copies, not measurements of the pair)")
    args = ap.parse_args()
    rows, pairs, failed, copies = load_pairs(args.throughputs, args.worker, args.scale_factor,
                                             args.keep_solo_copies)
    table = build_table(pairs, failed, copies, args.worker, args.keep_solo_copies)
    if args.output:
        with open(args.output, "w") as f:
            write_yaml(f, args, rows, pairs, failed, copies, table)
        log = sys.stdout
    else:
        write_yaml(sys.stdout, args, rows, pairs, failed, copies, table)
        log = sys.stderr
    totals = sorted(s for _, _, s in pairs)
    print(f"{args.worker}, scale factor {args.scale_factor}: {len(rows)} job types, {len(pairs)} ordered pairs "
          f"used, {len(failed)} failed pairs (throughput 0) left out, {len(copies)} pairs equal to both solo "
          f"throughputs ({'kept, slowdown 1' if args.keep_solo_copies else 'left out'})", file=log)
    print(f"total slowdown solo/paired over the pairs used: min {totals[0]:.3f}, median "
          f"{statistics.median(totals):.3f}, max {totals[-1]:.3f}", file=log)
    print("table (row = slowed job's class, column = co-runner's class):", file=log)
    print("       " + "".join(f"{c:>8}" for c in CLASSES), file=log)
    for r in CLASSES:
        print(f"  {r:<4} " + "".join(f"{table[(r, c)][0]:8.3f}" for c in CLASSES), file=log)


if __name__ == "__main__":
    main()

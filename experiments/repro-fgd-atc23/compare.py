#!/usr/bin/env python3
"""Ours (results.csv, runs.csv) against the authors' expected results (paper_reference.csv): the README's
per-list tables and the summary of how close (python3, standard library only).

    python3 compare.py              # Markdown tables, one per pod list, then the summary
    python3 compare.py --summary    # the summary only

results.csv: means over seeds 1-10 per (pod list, policy), written by `colocsim-repro-fgd --csv`;
runs.csv: one row per run (`--runs`), for the spread over seeds and the means of the seed pairs that the
reduced CTest run would see.
"""
import csv
import itertools
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
POLICIES = ["random", "dot-product", "gpu-clustering", "gpu-packing", "best-fit", "fgd"]
GPUS = 6212


def table(name):
    with open(os.path.join(HERE, name), newline="") as f:
        return list(csv.DictReader(f))


def keyed(rows):
    return {(r["trace"], r["policy"]): {k: float(v) for k, v in r.items() if k not in ("trace", "policy")}
            for r in rows}


def ranking(d, trace):
    """Policies by allocation at 130 %, best first."""
    return sorted(POLICIES, key=lambda p: -d[(trace, p)]["alloc_at_130_pct"])


def main():
    summary_only = "--summary" in sys.argv
    ours = keyed(table("results.csv"))
    paper = keyed(table("paper_reference.csv"))
    runs = table("runs.csv") if os.path.exists(os.path.join(HERE, "runs.csv")) else []
    traces = list(dict.fromkeys(t for t, _ in ours))
    per_run = {}
    for r in runs:
        per_run.setdefault((r["trace"], r["policy"]), {})[int(r["seed"])] = float(r["alloc_at_130_pct"])

    if not summary_only:
        for t in traces:
            print(f"**{t}**\n")
            print("| policy | allocation at 130 % (ours / paper) | diff. (points) | seed SD (points) "
                  "| frag. at 50 % | at 80 % | at 90 % | unallocated GPUs | dropped pods |")
            print("|---|---|---|---|---|---|---|---|---|")
            for p in POLICIES:
                o, q = ours[(t, p)], paper[(t, p)]
                sd = statistics.stdev(per_run[(t, p)].values()) * 100 if (t, p) in per_run else float("nan")
                print(f"| {p} | {o['alloc_at_130_pct']*100:.2f} % / {q['alloc_at_130_pct']*100:.2f} % "
                      f"| {(o['alloc_at_130_pct']-q['alloc_at_130_pct'])*100:+.2f} | {sd:.2f} "
                      f"| {o['frag_at_50_pct']:.3f} / {q['frag_at_50_pct']:.3f} "
                      f"| {o['frag_at_80_pct']:.3f} / {q['frag_at_80_pct']:.3f} "
                      f"| {o['frag_at_90_pct']:.3f} / {q['frag_at_90_pct']:.3f} "
                      f"| {o['unallocated_gpus']:.0f} / {q['unallocated_gpus']:.0f} | {o['dropped_pods']:.0f} |")
            ro, rp = ranking(ours, t), ranking(paper, t)
            print(f"\nranking ours: {' > '.join(ro)}; paper: {' > '.join(rp)}\n")

    print("| pod list | mean abs. diff. of allocation (points) | largest (policy) | frag. 50 % / 80 % largest "
          "| ranking as the paper's | FGD best | FGD vs best other: unallocated GPUs ours / paper |")
    print("|---|---|---|---|---|---|---|")
    all_diffs, f50s, f80s = [], [], []
    exact = 0
    for t in traces:
        diffs = {p: ours[(t, p)]["alloc_at_130_pct"] - paper[(t, p)]["alloc_at_130_pct"] for p in POLICIES}
        all_diffs += [abs(v) for v in diffs.values()]
        worst = max(POLICIES, key=lambda p: abs(diffs[p]))
        f50 = max(abs(ours[(t, p)]["frag_at_50_pct"] - paper[(t, p)]["frag_at_50_pct"]) for p in POLICIES)
        f80 = max(abs(ours[(t, p)]["frag_at_80_pct"] - paper[(t, p)]["frag_at_80_pct"]) for p in POLICIES)
        f50s.append(f50)
        f80s.append(f80)
        ro, rp = ranking(ours, t), ranking(paper, t)
        if ro == rp:
            exact += 1
            same = "yes"
        else:
            swaps = [f"{a}/{b}" for a, b in itertools.combinations(POLICIES, 2)
                     if (ro.index(a) < ro.index(b)) != (rp.index(a) < rp.index(b))]
            same = "no: " + ", ".join(swaps) + " swapped"
        best_o = min((p for p in POLICIES if p != "fgd"), key=lambda p: ours[(t, p)]["unallocated_gpus"])
        best_p = min((p for p in POLICIES if p != "fgd"), key=lambda p: paper[(t, p)]["unallocated_gpus"])
        mad = statistics.mean(abs(v) for v in diffs.values()) * 100
        print(f"| {t} | {mad:.2f} | {diffs[worst]*100:+.2f} ({worst}) | {f50:.3f} / {f80:.3f} | {same} "
              f"| {'yes' if ro[0] == 'fgd' else 'no'} "
              f"| {ours[(t, 'fgd')]['unallocated_gpus']:.0f} vs {ours[(t, best_o)]['unallocated_gpus']:.0f} "
              f"({best_o}) / {paper[(t, 'fgd')]['unallocated_gpus']:.0f} vs "
              f"{paper[(t, best_p)]['unallocated_gpus']:.0f} ({best_p}) |")
    print(f"\nall {len(traces)} lists x 6 policies: mean abs. diff. of allocation "
          f"{statistics.mean(all_diffs)*100:.2f} points, largest {max(all_diffs)*100:.2f}; "
          f"fragmentation at 50 % largest diff. {max(f50s):.3f}, at 80 % {max(f80s):.3f}; "
          f"ranking exactly the paper's on {exact} of {len(traces)} lists")

    if per_run:
        sds = [statistics.stdev(v.values()) * 100 for v in per_run.values()]
        print(f"seed SD of the allocation: median {statistics.median(sds):.2f}, largest {max(sds):.2f} points")
        # What a 2-seed reduced run sees: the mean of seeds 1-2, and the worst over all seed pairs.
        worst12, worst_any = 0.0, 0.0
        for (t, p), v in per_run.items():
            ref = paper[(t, p)]["alloc_at_130_pct"]
            if 1 in v and 2 in v:
                worst12 = max(worst12, abs((v[1] + v[2]) / 2 - ref))
            for a, b in itertools.combinations(sorted(v), 2):
                worst_any = max(worst_any, abs((v[a] + v[b]) / 2 - ref))
        print(f"2-seed means vs the paper: seeds 1-2 largest diff. {worst12*100:.2f} points; "
              f"any seed pair {worst_any*100:.2f} points")


if __name__ == "__main__":
    main()

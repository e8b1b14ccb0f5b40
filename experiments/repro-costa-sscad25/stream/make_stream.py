#!/usr/bin/env python3
"""Writes stream-SEED.csv, the job streams of experiments/repro-costa-sscad25 (README.md, "The stream").

120 inference jobs of the four workloads that stand in for Costa et al.'s four models (ResNet-50 batch 1,
BERT-base batch 1, Llama-3-8B decode batch 1, Stable Diffusion; workloads/profiles/default.yaml), each drawn
uniformly, with a run time alone uniform in [300, 900] s and Poisson arrivals of mean gap 60 s (60 jobs an
hour against about 8 x 3600 / (600 x 1.2) = 40 an hour that 4 tiles of 2 CCS each run at a mean slowdown
of about 1.2: a queue builds, so the policy's choice of partners matters). Seeds 1-5 with
random.Random(seed): deterministic across Python versions.
Usage: python3 make_stream.py   (rewrites stream-1.csv ... stream-5.csv next to this script)
"""
import os
import random

WORKLOADS = ["resnet50-infer-bs1", "bert-base-infer-bs1", "llama3-8b-decode-bs1", "stable-diffusion-infer"]
HERE = os.path.dirname(os.path.abspath(__file__))

for seed in range(1, 6):
    rng = random.Random(seed)
    lines = ["id,submit_s,duration_s,profile"]
    t = 0.0
    for i in range(120):
        lines.append(f"j{i:03d},{t:.1f},{rng.uniform(300, 900):.1f},{rng.choice(WORKLOADS)}")
        t += rng.expovariate(1 / 60)
    with open(os.path.join(HERE, f"stream-{seed}.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")

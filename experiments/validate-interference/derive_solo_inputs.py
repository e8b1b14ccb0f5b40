#!/usr/bin/env python3
"""Writes the two data files of experiments/validate-interference/ from Gavel's simulation_throughputs.json
(stanford-futuredata/gavel @ c4fa40097339e9608ab71fd64c8bdea96a5e4a4c, scheduler/, MIT; NOTICE.md):

  gavel-v100-pairs.csv  every v100 pair at scale factor 1: job_a, job_b, thr_a, thr_b (steps/s, unchanged)
  solo-inputs.csv       per job type: Gavel's solo steps/s [measurement] and what a user would measure alone,
                        derived here: sm_util = training FLOPs per step x steps/s / V100 fp32 peak [estimate]

Usage: python3 derive_solo_inputs.py simulation_throughputs.json   (writes next to this script)
Stdlib only. The FLOPs per sample are estimates from the models' published architectures (README.md).
"""
import json
import os
import re
import sys

V100_FP32_PEAK = 15.7e12  # FLOP/s, V100 SXM2 boost clock [vendor spec: NVIDIA V100 datasheet]

# Training FLOPs per sample = 3 x forward (forward + backward ~ 2 x forward), 2 FLOP per multiply-add.
# Each with its derivation; all [estimate] (architecture counts, not measured FLOPs).
FAMILY = {
    # kuangliu-style CIFAR ResNet-18 on 32x32 images: 0.56 G multiply-adds forward.
    "ResNet-18": (3 * 2 * 0.56e9, "3 x 2 x 0.56 GMAC (CIFAR ResNet-18, 32x32)"),
    # ResNet-50 on 224x224 ImageNet: 3.8 G multiply-adds forward (He et al. 2016, Table 1).
    "ResNet-50": (3 * 2 * 3.8e9, "3 x 2 x 3.8 GMAC (He et al. 2016 Table 1)"),
    # Transformer base (d_model 512, 6+6 layers, ~55 M weights with embeddings) on Multi30k: ~14 tokens a
    # side per sentence, 2 FLOP per weight per token forward.
    "Transformer": (3 * 2 * 55e6 * 2 * 14, "3 x 2 x 55 M weights x 28 tokens (base model, Multi30k)"),
    # PyTorch word_language_model defaults: 2-layer LSTM, 200 units, Wikitext-2 vocabulary 33,278, bptt 35
    # tokens per sample: decoder 200 x 33,278 + LSTM 2 x 4 x 400 x 200 multiply-adds per token.
    "LM": (3 * 2 * 35 * (200 * 33278 + 2 * 4 * 400 * 200), "3 x 2 x 35 tokens x (200x33278 + 2x4x400x200) MAC"),
    # Mult-VAE on MovieLens-20M (Liang et al. 2018): 20,108 items -> 600 -> 2 x 200 -> 600 -> 20,108.
    "Recommendation": (3 * 2 * (20108 * 600 + 600 * 400 + 200 * 600 + 600 * 20108),
                       "3 x 2 x (2 x 20108x600 + 600x400 + 200x600) MAC (Mult-VAE)"),
    # A3C on Pong, 4 conv layers of 32 3x3 filters on 42x42 frames + LSTM 256, 20 steps per update:
    # ~1 GMAC per update [estimate].
    "A3C": (3 * 2 * 1e9 / 20 * 20, "~1 GMAC per 20-step update (small conv net + LSTM 256)"),
    # CycleGAN at 256x256, batch 1: 6 generator passes (2 forward, 2 cycle, 2 identity) of ~57 GFLOP and 6
    # 70x70 PatchGAN passes of ~3.2 GFLOP per iteration, x 3 for training.
    "CycleGAN": (3 * (6 * 56.9e9 + 6 * 3.2e9), "3 x (6 x 56.9 + 6 x 3.2) GFLOP per iteration"),
}


def parse(key):
    name = re.match(r"\('(.*)', (\d+)\)", key)
    job, sf = name.group(1), int(name.group(2))
    m = re.match(r"(.*) \(batch size (\d+)\)", job)
    return job, (m.group(1) if m else job), (int(m.group(2)) if m else 1), sf


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: derive_solo_inputs.py simulation_throughputs.json")
    data = json.load(open(sys.argv[1]))["v100"]
    here = os.path.dirname(os.path.abspath(__file__))
    keys = [k for k in data if parse(k)[3] == 1]
    with open(os.path.join(here, "solo-inputs.csv"), "w") as out:
        out.write("job_type,family,batch_size,solo_steps_per_s,train_flop_per_step,sm_util,mixed_precision,"
                  "flop_derivation\n")
        for k in keys:
            job, fam, bs, _ = parse(k)
            per_sample, how = FAMILY[fam]
            samples = 1 if fam in ("A3C", "CycleGAN") else bs  # A3C, CycleGAN: per update / iteration
            per_step = per_sample * samples
            solo = data[k]["null"]
            out.write(f"{job},{fam},{bs},{solo!r},{per_step:.6g},{per_step * solo / V100_FP32_PEAK:.6f},0,"
                      f"\"{how}\"\n")
    with open(os.path.join(here, "gavel-v100-pairs.csv"), "w") as out:
        out.write("job_a,job_b,thr_a,thr_b\n")
        for a in keys:
            for b in keys:
                if b in data[a]:
                    ta, tb = data[a][b]
                    out.write(f"{parse(a)[0]},{parse(b)[0]},{ta!r},{tb!r}\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes the data slices of experiments/mlperf-scaling (README.md, data/NOTICE.md) from three upstream tables.

Usage: make_data.py RUNS.csv POWER_RUNS.csv PUBLISHED.csv OUT_DIR

RUNS.csv: one row per results/<system>/<benchmark>/result_*.txt of mlcommons/training_results_v4.0 @
6fe954378efe4a1a1bd665550b18ff8f26018def (Apache-2.0), with its status (run_stop), its time to train
(run_stop - run_start) and the system JSON's fields (columns used: submitter, system, benchmark, result_file,
status, blob_missing, time_to_train_min, total_accelerators, accelerator_model_name, division).
POWER_RUNS.csv: one row per power run of the same repository (results/<system>/<benchmark>/power/result_*/),
node energy integrated over run_start..run_stop (trapezoids over the ~2 s `power_reading` samples of every
node) and the switch estimate times the run time (columns used: submitter, system, benchmark, run_id,
run_minutes, energy_in_run_window_kj, interconnect_energy_in_run_kj).
PUBLISHED.csv: MLCommons' published MLPerf Training v4.0 results with power (mlcommons.org results tables, as
exported in aryatschand/MLPerf-Power-HPCA-2025 @ 49b63de68875ca1d5d0b3fc306d20e0d8ca5e948,
code/data_cleaned_training.csv; columns by position, the export repeats names).

Kept: the paper's four benchmarks (bert, llama2_70b_lora, ssd = RetinaNet, stable_diffusion), closed division,
successful runs with their log present, on NVIDIA H100-SXM5-80GB systems. smc-ac-power and smc-dc-power are
one set of runs metered two ways: only smc-dc-power is kept. The `family` column groups the systems of one
submitter that differ only in node count (same hardware line and software stack), from the system names:
NVIDIA eos_ngcX / eos_nK_ngcX, smc and smc-dc-power NxSMC-..., Supermicro SYS-421GE-TNHR2-LCC-N, Oracle
NxBM.GPU.H100.8, HPE ..._nN_..., JuniperNetworks h100_nN_...; other systems have no family (empty).
"""
import csv
import re
import sys

BENCHMARKS = ("bert", "llama2_70b_lora", "ssd", "stable_diffusion")


def family(submitter, system):
    if submitter == "NVIDIA" and system.startswith("eos"):
        return "nvidia-eos"
    if submitter in ("smc", "smc-dc-power") and re.match(r"\d+xSMC-", system):
        return submitter
    if submitter == "Supermicro" and system.startswith("SYS-421GE-TNHR2-LCC-"):
        return "supermicro-lcc"
    if submitter == "Oracle" and re.match(r"\d+xBM\.GPU\.H100\.8$", system):
        return "oracle"
    if submitter == "HPE" and re.search(r"_n\d+_", system):
        return "hpe-" + re.sub(r"_n\d+_", "_", system).rsplit("_", 1)[-1]  # one family per framework
    if submitter == "JuniperNetworks" and re.search(r"_n\d+_", system):
        return "juniper"
    return ""


def main():
    runs_path, power_path, published_path, out = sys.argv[1:5]
    rows = []
    for r in csv.DictReader(open(runs_path, newline="")):
        if r["benchmark"] not in BENCHMARKS or r["status"] != "success" or r["blob_missing"] != "0":
            continue
        if r["accelerator_model_name"] != "NVIDIA H100-SXM5-80GB" or r["division"] != "closed":
            continue
        if r["submitter"] == "smc-ac-power" or not r["time_to_train_min"]:
            continue
        rows.append((r["benchmark"], r["submitter"], r["system"], family(r["submitter"], r["system"]),
                     int(r["total_accelerators"]), r["result_file"], r["time_to_train_min"]))
    rows.sort(key=lambda x: (x[0], x[4], x[1], x[2], int(re.sub(r"\D", "", x[5]) or 0)))
    with open(f"{out}/runs.csv", "w", newline="") as f:
        f.write("# MLPerf Training v4.0 time-to-train per run (NOTICE.md); written by make_data.py\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["benchmark", "submitter", "system", "family", "gpus", "result_file", "time_to_train_min"])
        w.writerows(rows)

    gpus = {"1xSMC-H100-SXM-80GB": 8, "8xSMC-H100-SXM-80GB": 64, "64xSMC-H100-SXM-80GB": 512}
    prow = []
    for r in csv.DictReader(open(power_path, newline="")):
        if r["benchmark"] not in BENCHMARKS or r["system"] not in gpus:
            continue
        meter = "dc" if r["submitter"] == "smc-dc-power" else "ac"
        prow.append((r["benchmark"], r["system"], meter, gpus[r["system"]], r["run_id"], r["run_minutes"],
                     r["energy_in_run_window_kj"], r["interconnect_energy_in_run_kj"] or "0"))
    prow.sort()
    with open(f"{out}/power_runs.csv", "w", newline="") as f:
        f.write("# MLPerf Training v4.0 power runs of Sustainable Metal Cloud (NOTICE.md); make_data.py\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["benchmark", "system", "meter", "gpus", "run_id", "run_minutes", "node_energy_kj",
                    "switch_energy_kj"])
        w.writerows(prow)

    table = list(csv.reader(open(published_path, newline="")))
    pub = {}
    for x in table[1:]:
        public_id, system, bench, unit, value, accel = x[0], x[3], x[9], x[11], x[20], int(x[21])
        if bench not in BENCHMARKS:
            continue
        key = (bench, system, accel, public_id)
        pub.setdefault(key, {})["kj" if unit == "kJ" else "min"] = value.replace(",", "")
    with open(f"{out}/published.csv", "w", newline="") as f:
        f.write("# MLPerf Training v4.0 published results with power (NOTICE.md); make_data.py\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["benchmark", "system", "meter", "gpus", "public_id", "time_to_train_min", "energy_kj"])
        for (bench, system, accel, public_id), v in sorted(pub.items()):
            meter = "dc" if "DC" in system else "ac"
            w.writerow([bench, system, meter, accel, public_id, v["min"], v["kj"]])


if __name__ == "__main__":
    main()

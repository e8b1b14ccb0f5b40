"""load_run and load_sweep on a real sweep that the command line ran, checked against the files."""
import csv
import gzip
import json
import os
import shutil

import pytest

import colocsim


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory, colocsim_bin):
    import subprocess

    d = tmp_path_factory.mktemp("sweep")
    spec = d / "spec.yaml"
    spec.write_text(
        "scenario: builtin:sim/scenarios/default/scenario.yaml\n"
        "axes:\n"
        "  policy: [first-fit, \"first-fit:max_per_device=3\", exclusive-fcfs]\n"
        "seeds: [1, 2]\n"
    )
    p = subprocess.run([colocsim_bin, "sweep", str(spec), "-o", str(d / "out"), "-j", "2"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return d / "out"


def csv_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_load_sweep_joins_every_runs_parameters_to_its_summary(sweep_dir):
    df = colocsim.load_sweep(sweep_dir)
    rows = csv_rows(sweep_dir / "sweep.csv")
    assert len(df) == len(rows) == 6
    assert list(df.columns[:4]) == ["run", "status", "policy", "seed"]
    for (_, r), row in zip(df.iterrows(), rows):
        summary = json.loads((sweep_dir / r["run"] / "summary.json").read_text())
        assert r["run"] == row["run"] and r["status"] == "ok"
        assert r["policy"] == row["policy"] and r["seed"] == int(row["seed"])  # the axis value as given
        assert r["makespan_s"] == summary["makespan_s"] == float(row["makespan_s"])
        assert r["energy_total_j"] == summary["energy_total_j"]
        assert r["policy_params"] == summary["policy_params"]  # not in sweep.csv: from summary.json
        assert r["scenario"] == summary["scenario"]
    # first-fit:max_per_device=3 reaches the runs: its parameters are in their summary.
    three = df[df["policy"] == "first-fit:max_per_device=3"]
    assert len(three) == 2 and set(three["policy_params"]) == {"max_per_device=3,memory=declared"}


def test_load_sweep_with_jobs_has_one_row_per_job_of_every_run(sweep_dir):
    df = colocsim.load_sweep(sweep_dir, jobs=True)
    total = 0
    for row in csv_rows(sweep_dir / "sweep.csv"):
        jobs = csv_rows(sweep_dir / row["run"] / "jobs.csv")
        mine = df[df["run"] == row["run"]]
        assert len(mine) == len(jobs)
        assert list(mine["id"]) == [j["id"] for j in jobs]
        assert list(mine["wait_s"]) == [float(j["wait_s"]) for j in jobs]
        assert set(mine["policy"]) == {row["policy"]} and set(mine["seed"]) == {int(row["seed"])}
        assert set(mine["run_status"]) == {"ok"} and set(mine["status"]) == {"completed"}
        total += len(jobs)
    assert len(df) == total == 6 * 48


def test_load_run_reads_a_run_directory_and_gzip_tables(sweep_dir, tmp_path):
    run = sweep_dir / "run-0001"
    r = colocsim.load_run(run)
    assert r.summary == json.loads((run / "summary.json").read_text())
    jobs = csv_rows(run / "jobs.csv")
    assert list(r.jobs["jct_s"]) == [float(j["jct_s"]) for j in jobs]
    # The same run with jobs.csv.gz and timeseries.csv.gz instead: the same frames.
    gz = tmp_path / "gz"
    shutil.copytree(run, gz)
    for name in ("jobs", "timeseries"):
        with open(gz / f"{name}.csv", "rb") as f, gzip.open(gz / f"{name}.csv.gz", "wb") as g:
            g.write(f.read())
        os.remove(gz / f"{name}.csv")
    z = colocsim.load_run(gz)
    assert z.jobs.equals(r.jobs) and z.timeseries.equals(r.timeseries)
    with pytest.raises(FileNotFoundError, match="no summary.json"):
        colocsim.load_run(tmp_path)
    with pytest.raises(FileNotFoundError, match="no sweep.csv"):
        colocsim.load_sweep(tmp_path)

"""colocsim.run(): the same code path as `colocsim run`, so the same files and the same summary."""
import csv
import json
import os

import pytest

import colocsim
from conftest import SOURCE, in_fresh_process


def read(path):
    with open(path, "rb") as f:
        return f.read()


def test_run_writes_what_the_command_line_writes(tmp_path, cli, check_outputs):
    # The embedded default scenario with two overrides and a policy with parameters.
    sets = {"platform.sharing": "ccs-2", "seed": 7}
    c = cli("run", "--set", "platform.sharing=ccs-2", "--set", "seed=7", "--policy", "best-fit:max_per_device=2",
            "-o", tmp_path / "cli", "--quiet")
    assert c.returncode == 0, c.stderr
    code = (
        "import sys, json; import colocsim\n"
        f"r = colocsim.run(set={sets!r}, policy='best-fit:max_per_device=2', out=sys.argv[1])\n"
        "print(json.dumps(r.summary))"
    )
    p = in_fresh_process(code, tmp_path / "py")
    assert p.returncode == 0, p.stderr
    for f in ("jobs.csv", "timeseries.csv"):
        assert read(tmp_path / "cli" / f) == read(tmp_path / "py" / f), f
    cli_summary = json.loads(read(tmp_path / "cli" / "summary.json"))
    run_summary = json.loads(p.stdout)
    assert list(run_summary) == list(cli_summary)
    del cli_summary["wall_s"], run_summary["wall_s"]
    assert run_summary == cli_summary
    assert run_summary["sharing"] == "ccs-2" and run_summary["seed"] == 7 and run_summary["policy"] == "best-fit"
    check_outputs(tmp_path / "py")


def test_the_done_when_line_of_the_readme(tmp_path, cli):
    # python3 -c "import colocsim; print(colocsim.run().summary['makespan_s'])" prints the makespan that
    # `colocsim run` writes for the default scenario (12881.2 s in README.md's tutorial).
    c = cli("run", "-o", tmp_path / "cli", "--quiet")
    assert c.returncode == 0, c.stderr
    p = in_fresh_process("import colocsim; print(colocsim.run().summary['makespan_s'])")
    assert p.returncode == 0, p.stderr
    assert float(p.stdout) == json.loads(read(tmp_path / "cli" / "summary.json"))["makespan_s"]
    assert round(float(p.stdout), 1) == 12881.2


def test_the_result_holds_the_files_as_data_frames(tmp_path):
    r = colocsim.run(set={"outputs.timeseries": True}, out=tmp_path / "r")
    assert r.dir == str(tmp_path / "r") or r.dir == tmp_path / "r"
    with open(tmp_path / "r" / "jobs.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(r.jobs) == len(rows) == 48
    assert list(r.jobs["id"]) == [row["id"] for row in rows]
    assert list(r.jobs["end_s"]) == [float(row["end_s"]) for row in rows]
    assert list(r.jobs["status"]) == [row["status"] for row in rows]
    with open(tmp_path / "r" / "timeseries.csv", newline="") as f:
        ts = list(csv.DictReader(f))
    assert list(r.timeseries["total_power_w"]) == [float(row["total_power_w"]) for row in ts]
    assert r.summary == json.loads(read(tmp_path / "r" / "summary.json"))
    # A temporary directory is removed once read.
    t = colocsim.run(set={"outputs.timeseries": False})
    assert t.dir is None and t.timeseries is None and len(t.jobs) == 48


def test_a_run_and_its_summary_need_no_pandas(tmp_path):
    # The README's one-liner on a python3 without pandas (a pyenv or virtualenv python3 first on PATH):
    # sys.modules["pandas"] = None makes `import pandas` fail as if it were not installed.
    code = (
        "import sys; sys.modules['pandas'] = None\n"
        "import colocsim\n"
        "r = colocsim.run()\n"
        "print(r.summary['makespan_s'])\n"
        "try:\n"
        "    r.jobs\n"
        "except ImportError as e:\n"
        "    print('jobs:', e)\n"
    )
    p = in_fresh_process(code)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert float(lines[0]) > 0  # the summary, read without pandas
    assert "python3-pandas" in lines[1], lines


def test_bad_input_raises_input_error_naming_the_key(tmp_path):
    with pytest.raises(colocsim.InputError, match=r"platform\.nodes"):
        colocsim.run(set={"platform.nodes": -3}, out=tmp_path / "x")
    with pytest.raises(colocsim.InputError, match="unknown policy 'no-such-policy'"):
        colocsim.run(policy="no-such-policy", out=tmp_path / "x")
    with pytest.raises(TypeError):
        colocsim.run(policy=3)
    assert not (tmp_path / "x").exists()


def test_runs_after_the_first_in_one_process_write_what_the_command_line_writes(tmp_path, cli):
    # SimGrid's clock used to carry over from one simulation to the next in a process, offsetting every time
    # and changing jobs.csv in the last bits from the second run on; the engine now sets it back to 0.
    c = cli("run", "-o", tmp_path / "cli", "--quiet")
    assert c.returncode == 0, c.stderr
    code = "import sys, colocsim\nfor k in range(3):\n    colocsim.run(out=f'{sys.argv[1]}/run{k}')\n"
    p = in_fresh_process(code, tmp_path)
    assert p.returncode == 0, p.stderr
    for k in range(3):
        for f in ("jobs.csv", "timeseries.csv"):
            assert read(tmp_path / f"run{k}" / f) == read(tmp_path / "cli" / f), (k, f)

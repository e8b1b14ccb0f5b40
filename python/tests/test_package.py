"""The package as a Python package: its version and public names, docstrings from the policy API's C++
comments, colocsim.sweep(), `colocsim sweep --policy-python`, and progress that reaches sys.stderr (what a
notebook's cell shows) rather than file descriptor 2."""
import json
import os
import pydoc
import re

import pytest

import colocsim
from conftest import EXAMPLES, SOURCE

FIRST_FIT = os.path.join(EXAMPLES, "first_fit.py")


def test_version_is_the_projects():
    with open(os.path.join(SOURCE, "CMakeLists.txt"), encoding="utf-8") as f:
        version = re.search(r"project\(colocsim VERSION ([0-9.]+)", f.read()).group(1)
    assert colocsim.__version__ == version


def test_all_names_every_public_name_and_only_those():
    namespace = {}
    exec("from colocsim import *", namespace)
    assert set(colocsim.__all__) <= set(namespace)
    for name in ("run", "sweep", "load_run", "load_sweep", "Result", "Policy", "ClusterView", "Place",
                 "JobSubmitted", "InputError", "DecisionError", "MigChange", "SharingMode"):
        assert name in colocsim.__all__, name
    public = {n for n in dir(colocsim._core) if not n.startswith("_")} - {"run"}
    assert public <= set(colocsim.__all__), public - set(colocsim.__all__)
    assert all(not n.startswith("_") for n in colocsim.__all__)


def header_comment(name):
    """The /// comment right above `name(` in policies/Policy.hpp's ClusterView, as one line."""
    with open(os.path.join(SOURCE, "policies", "Policy.hpp"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines):
        if re.search(r"\b" + name + r"\(", line) and "virtual" in line:
            j = i
            while lines[j - 1].strip().startswith("///"):
                j -= 1
            return " ".join(x.strip()[3:].strip() for x in lines[j:i])
    raise AssertionError(name)


@pytest.mark.parametrize("method", ["predict", "signature", "estimate", "allows", "time_limit", "mig_slowdown_alone"])
def test_docstrings_are_the_policy_headers_comments(method):
    doc = " ".join(getattr(colocsim.ClusterView, method).__doc__.split())
    expected = header_comment(method)
    assert expected and expected in doc
    shown = pydoc.render_doc(colocsim.ClusterView, renderer=pydoc.plaintext)  # what help() prints
    assert expected in " ".join(t for t in shown.split() if t != "|")


def test_docstrings_of_decisions_fields_and_policy():
    assert "active-thread fraction" in colocsim.Place.thread_share.__doc__
    assert "Start a waiting job on these devices" in colocsim.Place.__doc__
    assert "Who calls what, when" in colocsim.Policy.__doc__  # the header's opening comment
    assert "Speed relative to the platform's reference device type" in colocsim.DeviceView.speed.__doc__


def test_run_progress_goes_to_sys_stderr(capsys, monkeypatch):
    monkeypatch.setenv("COLOCSIM_PROGRESS", "0.000001")
    colocsim.run(quiet=False)
    captured = capsys.readouterr()  # sys.stdout / sys.stderr, not the file descriptors
    assert "jobs read" in captured.err and "ended" in captured.err, captured.err
    assert "makespan" in captured.out


SPEC = (
    "scenario: builtin:sim/scenarios/default/scenario.yaml\n"
    "axes:\n"
    "  platform.sharing: [time-slice, ccs-2]\n"
    "seeds: [1]\n"
)


def test_sweep_returns_what_load_sweep_returns(tmp_path, capsys):
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    df = colocsim.sweep(spec, out=tmp_path / "out", parallel=2)
    assert df.equals(colocsim.load_sweep(tmp_path / "out"))
    assert list(df["platform.sharing"]) == ["time-slice", "ccs-2"] and list(df["status"]) == ["ok", "ok"]
    assert "sweep [2/2]" in capsys.readouterr().err  # the progress of the runs, through sys.stderr
    jobs = colocsim.sweep(spec, jobs=True)  # a temporary directory
    assert jobs.equals(colocsim.load_sweep(tmp_path / "out", jobs=True))


def test_sweep_of_a_bad_spec_raises_input_error(tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC.replace("platform.sharing", "platform.no_such_key"))
    with pytest.raises(colocsim.InputError, match="no_such_key"):
        colocsim.sweep(spec)


def test_cli_sweep_policy_python_runs_the_class_in_every_run(tmp_path, cli):
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    assert "--policy-python FILE.py:CLASS" in cli("sweep", "--help").stdout
    p = cli("sweep", spec, "--policy-python", f"{FIRST_FIT}:FirstFit", "-o", tmp_path / "py", "--quiet", "-j", "2")
    assert p.returncode == 0, p.stderr
    spec_cpp = tmp_path / "spec-cpp.yaml"
    spec_cpp.write_text(SPEC + "policy: first-fit\n")
    p = cli("sweep", spec_cpp, "-o", tmp_path / "cpp", "--quiet", "-j", "2")
    assert p.returncode == 0, p.stderr
    for run in ("run-0001", "run-0002"):
        py = json.loads((tmp_path / "py" / run / "summary.json").read_text())
        cpp = json.loads((tmp_path / "cpp" / run / "summary.json").read_text())
        assert py["policy"] == "python" and "class=FirstFit" in py["policy_params"], py["policy_params"]
        assert py["makespan_s"] == cpp["makespan_s"]  # examples/first_fit.py decides as first-fit does
    df = colocsim.sweep(spec, policy_python=f"{FIRST_FIT}:FirstFit")
    assert list(df["policy"]) == ["python", "python"]


def test_cli_sweep_policy_python_refuses_a_spec_that_names_policies(tmp_path, cli):
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC + "policy: first-fit\n")
    p = cli("sweep", spec, "--policy-python", f"{FIRST_FIT}:FirstFit", "-o", tmp_path / "out")
    assert p.returncode == 2 and "names policies" in p.stderr, p.stderr
    spec.write_text(SPEC)
    p = cli("sweep", spec, "--policy-python", "no-colon", "-o", tmp_path / "out2")
    assert p.returncode == 2 and "FILE.py:CLASS" in p.stderr, p.stderr

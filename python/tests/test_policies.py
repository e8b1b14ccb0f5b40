"""Policies written in Python: the example first-fit decides as the C++ first-fit (outputs byte for byte),
from the command line (--policy-python) and from colocsim.run(policy=...); errors end the run cleanly."""
import json
import os

import pytest

from conftest import EXAMPLES, HERE, SOURCE, in_fresh_process

FIRST_FIT = os.path.join(EXAMPLES, "first_fit.py")
POLICIES = os.path.join(HERE, "policies_for_tests.py")
PITFALLS = os.path.join(SOURCE, "experiments", "collocation-pitfalls")
# The second scenario: 8 A100s under MPS, the heavy mix, up to 4 jobs a GPU and memory ignored, so that
# out-of-memory failures and requeues happen (141 of them).
SECOND = [os.path.join(PITFALLS, "scenario.yaml"), "--set", "workload.trace=" + os.path.join(PITFALLS, "heavy.csv"),
          "--set", "platform.sharing=mps", "--set", "outputs.timeseries=true"]
# Fields that name the policy, its parameters or the plugin, and the wall time: the rest must be equal.
NAMING = {"policy", "policy_params", "plugins", "wall_s"}


def read(path):
    with open(path, "rb") as f:
        return f.read()


def assert_same_outputs(a, b, files=("jobs.csv", "timeseries.csv")):
    for f in files:
        assert read(os.path.join(a, f)) == read(os.path.join(b, f)), f
    sa, sb = (json.loads(read(os.path.join(d, "summary.json"))) for d in (a, b))
    assert list(sa) == list(sb)
    assert {k: v for k, v in sa.items() if k not in NAMING} == {k: v for k, v in sb.items() if k not in NAMING}


def test_python_first_fit_equals_cpp_first_fit_on_the_default_scenario(tmp_path, cli, check_outputs):
    cpp = cli("run", "--policy", "first-fit", "-o", tmp_path / "cpp", "--quiet")
    py = cli("run", "--policy-python", FIRST_FIT + ":FirstFit", "-o", tmp_path / "py", "--quiet")
    assert cpp.returncode == 0, cpp.stderr
    assert py.returncode == 0, py.stderr
    assert_same_outputs(tmp_path / "cpp", tmp_path / "py")
    summary = json.loads(read(tmp_path / "py" / "summary.json"))
    assert summary["policy"] == "python"
    assert summary["policy_params"] == f"file={FIRST_FIT},class=FirstFit"
    assert summary["plugins"][0]["path"].endswith("libcolocsim_pybridge.so")
    # 48 jobs, first-fit's 2 per tile: the default scenario's numbers (README.md's tutorial)
    assert summary["jobs_completed"] == 48 and round(summary["makespan_s"], 1) == 12881.2
    check_outputs(tmp_path / "py")


def test_python_first_fit_equals_cpp_first_fit_with_mps_sharing_and_oom_requeues(tmp_path, cli, check_outputs):
    cpp = cli("run", *SECOND, "--policy", "first-fit:max_per_device=4,memory=none", "-o", tmp_path / "cpp", "--quiet")
    py = cli("run", *SECOND, "--policy-python", POLICIES + ":FirstFit4None", "-o", tmp_path / "py", "--quiet")
    assert cpp.returncode == 0, cpp.stderr
    assert py.returncode == 0, py.stderr
    assert_same_outputs(tmp_path / "cpp", tmp_path / "py")
    summary = json.loads(read(tmp_path / "py" / "summary.json"))
    assert summary["sharing"] == "mps" and summary["oom_events"] > 0 and summary["jobs_failed"] > 0
    check_outputs(tmp_path / "py")


def test_a_policy_object_in_colocsim_run_equals_cpp_first_fit(tmp_path, cli):
    cpp = cli("run", *SECOND, "--policy", "first-fit:max_per_device=4,memory=none", "-o", tmp_path / "cpp", "--quiet")
    assert cpp.returncode == 0, cpp.stderr
    args = [SECOND[0]] + [SECOND[i + 1] for i in range(1, len(SECOND), 2)]
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import colocsim; from policies_for_tests import FirstFit4None\n"
        "sets = dict(s.split('=', 1) for s in sys.argv[4:])\n"
        "r = colocsim.run(sys.argv[3], set=sets, policy=FirstFit4None(), out=sys.argv[2])\n"
        "print(r.summary['policy'], r.summary['policy_params'])"
    )
    p = in_fresh_process(code, HERE, tmp_path / "py", *args)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "python class=policies_for_tests.FirstFit4None"
    assert_same_outputs(tmp_path / "cpp", tmp_path / "py")


@pytest.mark.parametrize(
    "cls, expected",
    [
        ("Raises", "policies_for_tests.py:20: policy-python: Raises.decide raised ZeroDivisionError: division by zero"),
        ("ReturnsInt", "ReturnsInt.decide returned a int; expected a list of decisions"),
        ("ReturnsStrings", "ReturnsStrings.decide returned a list whose element 0 is a str; expected a decision"),
        ("NoDecide", "NoDecide defines no decide(self, view, events)"),
        ("Missing", "defines no class Missing"),
    ],
)
def test_errors_of_a_python_policy_end_the_run_with_exit_2_and_the_reason(tmp_path, cli, cls, expected):
    p = cli("run", "--policy-python", POLICIES + ":" + cls, "-o", tmp_path / "out", "--quiet")
    assert p.returncode == 2, p.stderr
    assert expected in p.stderr
    assert not (tmp_path / "out").exists()  # nothing written, as for every failed run


def test_errors_of_a_python_policy_in_colocsim_run_raise_input_error(tmp_path):
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import colocsim; from policies_for_tests import Raises\n"
        "try:\n"
        "    colocsim.run(policy=Raises())\n"
        "except colocsim.InputError as e:\n"
        "    print('InputError:', e)\n"
    )
    p = in_fresh_process(code, HERE)
    assert p.returncode == 0, p.stderr
    assert "InputError: " in p.stdout
    assert "policies_for_tests.py:20: policy-python: Raises.decide raised ZeroDivisionError: division by zero" in p.stdout


def test_an_infeasible_decision_of_a_python_policy_is_the_engines_decision_error(tmp_path, cli):
    p = cli("run", "--policy-python", POLICIES + ":Infeasible", "-o", tmp_path / "out", "--quiet")
    assert p.returncode == 1, p.stderr  # as for a C++ policy's infeasible decision
    assert "1000000" in p.stderr


def test_policy_python_usage_errors(tmp_path, cli):
    p = cli("run", "--policy-python", FIRST_FIT, "-o", tmp_path / "out")
    assert p.returncode == 2 and "--policy-python needs FILE.py:CLASS" in p.stderr
    p = cli("run", "--policy-python", str(tmp_path / "none.py") + ":X", "-o", tmp_path / "out")
    assert p.returncode == 2 and "none.py: no such file" in p.stderr
    p = cli("run", "--policy-python", FIRST_FIT + ":FirstFit", "--policy", "first-fit", "-o", tmp_path / "out")
    assert p.returncode == 2 and "give one" in p.stderr

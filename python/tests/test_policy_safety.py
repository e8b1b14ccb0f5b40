"""Hostile and careless Python policies: a scenario's Python file runs only with this call's consent, a view
kept past its decide() call raises instead of reading freed memory, every index is checked, a SyntaxError is
reported at its line, a policy file never replaces a module of the process, and a scenario's policy file is
resolved against the scenario's folder."""
import json
import os

import colocsim
from conftest import EXAMPLES, HERE, SOURCE, in_fresh_process

POLICIES = os.path.join(HERE, "policies_for_tests.py")
BRIDGE = os.path.join(os.path.dirname(colocsim.__file__), "libcolocsim_pybridge.so")

# A policy file whose import leaves a marker next to it: a marker proves that something imported it.
EVIL = f"""import os, sys
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "marker.txt"), "a") as f:
    f.write("imported\\n")
sys.path.insert(0, {EXAMPLES!r})
from first_fit import FirstFit


class Evil(FirstFit):
    pass
"""


def scenario_text(policy_file, plugins=None):
    return (
        "name: python-policy\n"
        + (f"plugins: [{plugins}]\n" if plugins else "")
        + "platform: {preset: aurora-node}\n"
        + f"workload: {{trace: {SOURCE}/sim/scenarios/default/jobs.csv}}\n"
        + f"policy: {{name: python, params: {{file: {policy_file}, class: Evil}}}}\n"
        + "outputs: {timeseries: false}\n"
    )


def write_evil(folder):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "evil.py").write_text(EVIL)
    return folder / "evil.py"


def test_a_scenarios_python_file_runs_only_with_the_calls_own_consent(tmp_path):
    evil = write_evil(tmp_path / "their")
    their = tmp_path / "their" / "their.yaml"
    their.write_text(scenario_text(evil))
    marker = tmp_path / "their" / "marker.txt"
    # A run with a Python policy object first: it used to leave the policy `python` registered for the rest
    # of the process, so that the next scenario naming a Python file imported it without consent.
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import colocsim; from first_fit import FirstFit\n"
        "colocsim.run(policy=FirstFit())\n"
        "for allow in (False, False, True):\n"
        "    try:\n"
        "        r = colocsim.run(sys.argv[2], allow_plugins=allow)\n"
        "        print('ran', allow, r.summary['jobs_completed'])\n"
        "    except colocsim.InputError as e:\n"
        "        print('refused', allow, e)\n"
    )
    p = in_fresh_process(code, EXAMPLES, their)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 3, p.stdout
    for line in lines[:2]:
        assert line.startswith("refused False"), p.stdout
        assert "policy.params.file" in line and "is not run without consent" in line and str(evil) in line
    assert lines[2] == "ran True 48"
    assert marker.read_text() == "imported\n"  # imported once: by the run that had consent


def test_allow_plugins_is_needed_in_a_fresh_process_too(tmp_path):
    evil = write_evil(tmp_path / "their")
    (tmp_path / "their" / "their.yaml").write_text(scenario_text(evil))
    code = (
        "import sys, colocsim\n"
        "try:\n"
        "    colocsim.run(sys.argv[1])\n"
        "except colocsim.InputError as e:\n"
        "    print('refused')\n"
        "print(colocsim.run(sys.argv[1], allow_plugins=True).summary['policy'])\n"
    )
    p = in_fresh_process(code, tmp_path / "their" / "their.yaml")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["refused", "python"]


def test_the_command_line_needs_allow_plugins_for_a_scenarios_python_file(tmp_path, cli):
    # Consent to the bridge (--policy-plugin) is not consent to whatever Python file the scenario names.
    evil = write_evil(tmp_path / "their")
    (tmp_path / "their" / "their.yaml").write_text(scenario_text(evil))
    p = cli("run", tmp_path / "their" / "their.yaml", "--policy-plugin", BRIDGE, "-o", tmp_path / "out", "--quiet")
    assert p.returncode == 2, p.stderr
    assert "their.yaml:4:" in p.stderr and "is not run without consent" in p.stderr
    assert not (tmp_path / "their" / "marker.txt").exists()
    p = cli("validate", tmp_path / "their" / "their.yaml", "--policy-plugin", BRIDGE)
    assert p.returncode == 2 and "is not run without consent" in p.stderr
    assert not (tmp_path / "their" / "marker.txt").exists()
    p = cli("run", tmp_path / "their" / "their.yaml", "--policy-plugin", BRIDGE, "--allow-plugins",
            "-o", tmp_path / "out", "--quiet")
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "their" / "marker.txt").exists()


def test_a_scenarios_policy_file_is_resolved_against_the_scenarios_folder(tmp_path, cli):
    write_evil(tmp_path / "sub")
    (tmp_path / "sub" / "scenario.yaml").write_text(scenario_text("evil.py", plugins=BRIDGE))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    p = cli("run", tmp_path / "sub" / "scenario.yaml", "--allow-plugins", "-o", tmp_path / "out", "--quiet",
            cwd=elsewhere)
    assert p.returncode == 0, p.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["policy_params"] == f"file={tmp_path / 'sub' / 'evil.py'},class=Evil"
    # The same from colocsim.run (no bridge: the policy `python` is the package's own), from another folder.
    (tmp_path / "sub" / "in-python.yaml").write_text(scenario_text("evil.py"))
    code = "import sys, colocsim\nprint(colocsim.run(sys.argv[1], allow_plugins=True).summary['policy_params'])"
    p = subprocess_in(elsewhere, code, tmp_path / "sub" / "in-python.yaml")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == f"file={tmp_path / 'sub' / 'evil.py'},class=Evil"
    # A file given by the caller (--set) is relative to the current folder, as typed.
    p = cli("run", tmp_path / "sub" / "scenario.yaml", "--allow-plugins", "--set", "policy.params.file=evil.py",
            "-o", tmp_path / "out2", "--quiet", cwd=elsewhere)
    assert p.returncode == 2 and "evil.py: no such file" in p.stderr


def subprocess_in(cwd, code, *args):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=dict(os.environ))


def test_a_view_kept_past_the_run_raises_instead_of_crashing():
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import colocsim; from policies_for_tests import KeepsView\n"
        "p = KeepsView()\n"
        "colocsim.run(policy=p)\n"
        "v = p.view\n"
        "print(p.job.id, p.signature.mem_bytes > 0, p.device.index)\n"  # copies: still valid
        "probes = [lambda: v.now(), lambda: v.device_count(), lambda: v.device(0).type, lambda: v.job(0),\n"
        "          lambda: v.residents(0), lambda: v.signature(0), lambda: v.predict(0, [0]),\n"
        "          lambda: v.mig_geometry(0), lambda: v.mig_instances(0), lambda: v.allows(0, 0),\n"
        "          lambda: v.estimate(0), lambda: v.time_limit(0), lambda: v.mig_slowdown_alone(0, 0, 0)]\n"
        "for probe in probes:\n"
        "    try:\n"
        "        print('returned', probe())\n"
        "    except RuntimeError as e:\n"
        "        print('RuntimeError', 'no longer valid' in str(e))\n"
    )
    p = in_fresh_process(code, HERE)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "job-001 True 0"  # the default trace's first job
    assert lines[1:] == ["RuntimeError True"] * 13


def test_a_view_kept_from_an_earlier_call_raises_in_the_next_one(tmp_path, cli):
    p = cli("run", "--policy-python", POLICIES + ":UsesOldView", "-o", tmp_path / "out", "--quiet")
    assert p.returncode == 2, p.stderr
    assert "UsesOldView.decide raised RuntimeError: this ClusterView was passed to an earlier decide() call" in p.stderr


def test_every_index_out_of_range_raises_index_error(tmp_path, cli):
    # ProbesIndices asks every accessor for the device device_count() (and a job that does not exist) in its
    # first call; it raises AssertionError unless each raised IndexError. It then decides as first-fit.
    p = cli("run", "--policy-python", POLICIES + ":ProbesIndices", "-o", tmp_path / "out", "--quiet")
    assert p.returncode == 0, p.stderr
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import colocsim; from policies_for_tests import ProbesIndices\n"
        "print(colocsim.run(policy=ProbesIndices()).summary['jobs_completed'])\n"
    )
    p = in_fresh_process(code, HERE)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "48"


def test_a_syntax_error_is_reported_at_its_line(tmp_path, cli):
    bad = tmp_path / "bad.py"
    bad.write_text("import colocsim\n\nclass Bad(colocsim.Policy):\n    def decide(self, view, events)\n        return []\n")
    p = cli("run", "--policy-python", f"{bad}:Bad", "-o", tmp_path / "out", "--quiet")
    assert p.returncode == 2, p.stderr
    assert f"{bad}:4: policy-python: cannot make a policy of {bad}:Bad: SyntaxError: " in p.stderr
    assert "frozen" not in p.stderr
    code = (
        "import sys, colocsim\n"
        "try:\n"
        "    colocsim.run(policy=f'python:file={sys.argv[1]},class=Bad')\n"
        "except colocsim.InputError as e:\n"
        "    print(e)\n"
    )
    p = in_fresh_process(code, bad)
    assert p.returncode == 0, p.stderr
    assert f"{bad}:4: policy-python: cannot make a policy of {bad}:Bad: SyntaxError: " in p.stdout


def test_a_policy_file_never_replaces_a_module_of_the_process(tmp_path):
    (tmp_path / "tempfile.py").write_text(
        f"import sys\nsys.path.insert(0, {EXAMPLES!r})\nfrom first_fit import FirstFit\n\nclass P(FirstFit):\n    pass\n"
    )
    (tmp_path / "json.py").write_text((tmp_path / "tempfile.py").read_text())
    code = (
        "import sys, json, tempfile, colocsim\n"
        "before = (sys.modules['tempfile'], sys.modules['json'])\n"
        "for name in ('tempfile', 'json'):\n"
        "    r = colocsim.run(policy=f'python:file={sys.argv[1]}/{name}.py,class=P')\n"
        "    print(r.summary['jobs_completed'])\n"
        "print(sys.modules['tempfile'] is before[0], sys.modules['json'] is before[1])\n"
        "import tempfile as t2\n"
        "print(hasattr(t2, 'TemporaryDirectory'), json.dumps([1]))\n"
        "print(colocsim.run().summary['jobs_completed'])\n"  # uses tempfile.TemporaryDirectory
    )
    p = in_fresh_process(code, tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["48", "48", "True", "True", "True", "[1]", "48"]

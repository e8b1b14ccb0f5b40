"""Runs with a Python policy stop as promised (python/README.md, Stopping a run): WakeAt(now) is one more call
at the same instant, Ctrl-C or SIGTERM while decide sleeps or loops ends the run (exit 130 or 143 from the
command line, KeyboardInterrupt from colocsim.run) with nothing left behind, and os._exit leaves a staging
directory the next run names. Every wait is bounded; a process still alive at the end is killed."""
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import EXAMPLES, HERE

POLICIES = os.path.join(HERE, "policies_that_stop.py")
FIRST_FIT = os.path.join(EXAMPLES, "first_fit.py")


def read(path):
    with open(path, "rb") as f:
        return f.read()


def partial_dirs(parent):
    return sorted(n for n in os.listdir(parent) if n.startswith(".out.partial-"))


def start_and_signal(args, marker, sig, env_extra=None):
    """Starts `args`, waits (at most 60 s) for the policy to write `marker`, sends `sig`, waits (at most 60 s)
    for the end; returns (returncode, stdout, stderr). A process that does not end is killed and fails the test."""
    env = dict(os.environ, COLOCSIM_TEST_MARKER=str(marker), **(env_extra or {}))
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(marker) and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert os.path.exists(marker), "the policy never started deciding: " + p.communicate(timeout=60)[1]
        time.sleep(0.2)  # well inside decide (the sleep or the loop)
        p.send_signal(sig)
        out, err = p.communicate(timeout=60)
    except BaseException:
        p.kill()
        p.communicate()
        raise
    return p.returncode, out, err


def test_wake_at_now_is_one_more_call_at_the_same_instant(tmp_path, cli):
    cpp = cli("run", "--policy", "first-fit", "-o", tmp_path / "cpp", "--quiet")
    py = cli("run", "--policy-python", POLICIES + ":WakeNowFirstFit", "-o", tmp_path / "py", "--quiet")
    assert cpp.returncode == 0, cpp.stderr
    assert py.returncode == 0, py.stderr
    assert read(tmp_path / "cpp" / "jobs.csv") == read(tmp_path / "py" / "jobs.csv")


def test_wake_at_now_forever_is_a_decision_error_naming_the_policy_and_the_time(tmp_path, cli):
    p = cli("run", "--policy-python", POLICIES + ":AlwaysWakeNow", "-o", tmp_path / "out", "--quiet")
    assert p.returncode == 1, p.stderr
    assert "colocsim: policy 'python' kept simulated time from advancing at t=0.000000 s" in p.stderr
    assert "WakeAt(now + delay)" in p.stderr
    assert "Deadlock" not in p.stderr
    assert not (tmp_path / "out").exists() and partial_dirs(tmp_path) == []


@pytest.mark.parametrize("cls", ["Sleeps", "Loops", "SwallowsInterrupt"])
@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_while_python_decides_ends_the_command_line_run(tmp_path, colocsim_bin, cls, sig, code):
    out = tmp_path / "out"
    rc, _, err = start_and_signal([colocsim_bin, "run", "--policy-python", POLICIES + ":" + cls, "-o", str(out),
                                   "--quiet"], tmp_path / "marker", sig)
    name = signal.Signals(sig).name
    assert rc == code, err
    assert f"colocsim: interrupted by {name}, stopped at t=0.000000 s of simulated time, in {cls}.decide; " \
           f"no results written to {out}" in err
    assert "Traceback" not in err
    assert not out.exists() and partial_dirs(tmp_path) == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_python_decides_raises_keyboard_interrupt_from_colocsim_run(tmp_path, sig):
    code = (
        "import signal, sys; sys.path.insert(0, sys.argv[1]); import colocsim; from policies_that_stop import Loops\n"
        "before = signal.getsignal(signal.SIGINT)\n"
        "try:\n"
        "    colocsim.run(policy=Loops(), out=sys.argv[2])\n"
        "except KeyboardInterrupt as e:\n"
        "    print('KeyboardInterrupt:', e)\n"
        "print('handler restored:', signal.getsignal(signal.SIGINT) is before)\n"
        "colocsim.run(policy='first-fit', out=sys.argv[3])\n"  # the process goes on: another run works
        "print('second run done')\n"
    )
    rc, out, err = start_and_signal([sys.executable, "-c", code, HERE, str(tmp_path / "out"),
                                     str(tmp_path / "again")], tmp_path / "marker", sig)
    name = signal.Signals(sig).name
    assert rc == 0, err
    assert f"KeyboardInterrupt: {name}, stopped at t=0.000000 s of simulated time, in Loops.decide; " \
           f"no results written to {tmp_path / 'out'}" in out
    assert "handler restored: True" in out and "second run done" in out
    assert not (tmp_path / "out").exists() and (tmp_path / "again" / "summary.json").exists()
    assert partial_dirs(tmp_path) == []


def test_os_exit_in_decide_leaves_a_staging_directory_the_next_run_names_and_keeps(tmp_path, cli):
    out = tmp_path / "out"
    p = cli("run", "--policy-python", POLICIES + ":Exits", "-o", out, "--quiet")
    # os._exit cannot be intercepted: the status is the policy's, nothing is said (python/README.md).
    assert p.returncode == 0 and p.stderr == ""
    assert not out.exists()
    left = partial_dirs(tmp_path)
    assert len(left) == 1
    pid = left[0][len(".out.partial-"):]
    again = cli("run", "--policy", "first-fit", "-o", out, "--quiet")
    assert again.returncode == 0, again.stderr
    assert f"colocsim: note: {tmp_path / left[0]} is the staging directory of an earlier run into {out} by process " \
           f"{pid}, which ended before finishing" in again.stderr
    assert "delete it (rm -r) once you no longer need it" in again.stderr
    assert (out / "summary.json").exists()
    assert partial_dirs(tmp_path) == left  # kept: only the user deletes it

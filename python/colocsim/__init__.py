"""colocsim in Python (python/README.md): run scenarios in-process, read run and sweep directories as
pandas DataFrames, and write co-location policies in Python.

    import colocsim
    r = colocsim.run()                          # the embedded default scenario
    r.summary["makespan_s"], r.jobs, r.timeseries
    r = colocsim.run("my.yaml", set={"policy": "exclusive-fcfs", "platform.nodes": 4})
    r = colocsim.run(policy=MyPolicy())         # a subclass of colocsim.Policy
    df = colocsim.load_sweep("sweep-out/spec")  # every run's parameters and summary, one row per run
    df = colocsim.sweep("spec.yaml")            # runs `colocsim sweep spec.yaml`, returns that DataFrame
"""
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import warnings

from ._core import (  # noqa: F401  (the policy API of policies/Policy.hpp, as it is)
    ClusterView,
    DecisionError,
    DeviceRepartitioned,
    DeviceView,
    InputError,
    Job,
    JobClass,
    JobCompleted,
    JobFailed,
    JobSubmitted,
    MigChange,
    MigGeometry,
    MigInstance,
    MigProfile,
    MigSlot,
    NodePowered,
    Place,
    PlacementPrediction,
    Policy,
    ReconfigureMig,
    Reject,
    Repartition,
    ResourceSignature,
    SetFrequency,
    SetNodePower,
    SharingMode,
    WakeAt,
    Wakeup,
    max_residents,
)
from . import _core
from .results import Result, load_run, load_sweep  # noqa: F401

__version__ = _core.__version__

# The public names: the functions, the results, and the policy API of policies/Policy.hpp (help(colocsim.X)
# shows each one's documentation, taken from that header's comments).
__all__ = [
    "run",
    "sweep",
    "load_run",
    "load_sweep",
    "Result",
    "InputError",
    "DecisionError",
    "Policy",
    "ClusterView",
    "DeviceView",
    "Job",
    "JobClass",
    "ResourceSignature",
    "PlacementPrediction",
    "SharingMode",
    "max_residents",
    "MigGeometry",
    "MigProfile",
    "MigInstance",
    "MigSlot",
    "MigChange",
    "JobSubmitted",
    "JobCompleted",
    "JobFailed",
    "Wakeup",
    "DeviceRepartitioned",
    "NodePowered",
    "Place",
    "Reject",
    "WakeAt",
    "SetFrequency",
    "Repartition",
    "SetNodePower",
    "ReconfigureMig",
]


def _value_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    return str(v)


def run(scenario=None, set=None, policy=None, out=None, force=False, quiet=True, allow_plugins=False):
    """Runs a scenario in this process, exactly as `colocsim run SCENARIO --set K=V ... --policy P -o OUT`.

    scenario: a scenario file (None: the embedded default scenario).
    set: {"key": value} (or a list of "key=value"), the --set overrides; values are written as text.
    policy: a policy name "name[:k=v,...]" (--policy), or a colocsim.Policy object (a policy in Python).
    out: the output directory to keep (None: a temporary one, removed once read); force: overwrite it.
    quiet: False prints the summary table as the command line does.
    allow_plugins: run the code the scenario file names (its policy plugins, the Python file of a `policy:
    python`), as --allow-plugins does; without it such a scenario raises InputError listing that code. It is
    this call's consent only: earlier runs of the process change nothing.
    Returns a Result (.summary dict, .jobs and .timeseries DataFrames, .dir). Bad input raises
    colocsim.InputError (the command line's exit status 2), an infeasible decision colocsim.DecisionError.
    """
    if set is None:
        sets = []
    elif isinstance(set, dict):
        sets = [f"{k}={_value_text(v)}" for k, v in set.items()]
    else:
        sets = [str(s) for s in set]
    name, obj = "", None
    if isinstance(policy, Policy):
        obj = policy
    elif isinstance(policy, str):
        name = policy
    elif policy is not None:
        raise TypeError(f"policy must be a policy name (str) or a colocsim.Policy object, not {type(policy).__name__}")
    scenario = None if scenario is None else os.fspath(scenario)
    if out is not None:
        _core.run(scenario, sets, name, obj, os.fspath(out), force, quiet, bool(allow_plugins))
        return load_run(out)
    with tempfile.TemporaryDirectory(prefix="colocsim-run-") as tmp:
        d = os.path.join(tmp, "out")
        _core.run(scenario, sets, name, obj, d, False, quiet, bool(allow_plugins))
        result = load_run(d)
        result._keep_tables()  # read with pandas on first use, after the directory is gone
        result.dir = None
        return result


def _executable():
    """The colocsim command line this package runs: its own copy (colocsim/bin/colocsim, installed by pip),
    else the build tree's that built this module, else the first `colocsim` on PATH."""
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(here, "bin", "colocsim"), _core._executable):
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    found = shutil.which("colocsim")
    if found:
        return found
    raise FileNotFoundError(
        f"no colocsim executable: not in {os.path.join(here, 'bin')} (pip install puts it there), not at "
        f"{_core._executable} (the build tree's), not on PATH; expected one of them"
    )


def _bridge():
    """The Python bridge of this package (libcolocsim_pybridge.so next to it), or None."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libcolocsim_pybridge.so")
    return path if os.path.exists(path) else None


def _pump(stream, sink, keep=None):
    for line in iter(stream.readline, ""):
        sink.write(line)
        sink.flush()
        if keep is not None:
            keep.append(line)


def sweep(spec, out=None, parallel=None, force=False, resume=False, policy_python=None, policy_plugins=(),
          allow_plugins=False, quiet=True, jobs=False):
    """Runs a sweep, exactly as `colocsim sweep SPEC -o OUT [-j N] [--force|--resume] [--policy-python F:C]
    [--policy-plugin P ...] [--allow-plugins] [--quiet]` (docs/sweeps.md), and returns what
    colocsim.load_sweep(OUT, jobs=jobs) returns: one row per run (jobs=True: per job of every run).

    spec: the sweep spec (YAML, docs/formats/sweep.md). out: the sweep directory to keep (None: a temporary
    one, removed once read). parallel: runs at a time (None: the number of cores). policy_python:
    "FILE.py:CLASS", the policy of every run, a subclass of colocsim.Policy. quiet: False prints the table of
    means as the command line does. The progress of the runs goes to sys.stderr as it comes (in a notebook:
    the cell's output). A bad spec raises colocsim.InputError with the command line's message; runs that
    failed are rows whose status says so (and a warning).
    """
    args = [_executable(), "sweep", os.fspath(spec)]
    if parallel is not None:
        args += ["-j", str(int(parallel))]
    if force:
        args.append("--force")
    if resume:
        args.append("--resume")
    if policy_python is not None:
        args += ["--policy-python", os.fspath(policy_python)]
    for p in policy_plugins:
        args += ["--policy-plugin", os.fspath(p)]
    if allow_plugins:
        args.append("--allow-plugins")
    if quiet:
        args.append("--quiet")
    env = dict(os.environ)
    if _bridge() and not env.get("COLOCSIM_PYTHON_BRIDGE"):
        env["COLOCSIM_PYTHON_BRIDGE"] = _bridge()

    def execute(directory):
        proc = subprocess.Popen(args + ["-o", directory], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env)
        errors = []
        reader = threading.Thread(target=_pump, args=(proc.stdout, sys.stdout), daemon=True)
        reader.start()
        try:
            _pump(proc.stderr, sys.stderr, errors)
            status = proc.wait()
        except BaseException:
            proc.terminate()  # Ctrl-C in Python: the sweep stops its runs as on SIGTERM
            proc.wait()
            raise
        finally:
            reader.join()
        message = "".join(errors).strip()
        if status == 2:
            raise InputError(message or "colocsim sweep: bad spec or usage (exit status 2)")
        if status == 1:
            warnings.warn(message.splitlines()[-1] if message else "colocsim sweep: some runs failed", stacklevel=3)
        elif status != 0:
            raise RuntimeError(f"colocsim sweep ended with status {status}: {message}")
        return load_sweep(directory, jobs=jobs)

    if out is not None:
        return execute(os.fspath(out))
    with tempfile.TemporaryDirectory(prefix="colocsim-sweep-") as tmp:
        return execute(os.path.join(tmp, "sweep"))


def _load_policy(file, cls):
    """The object of class `cls` (dotted names allowed) defined in the Python file `file`, constructed
    without arguments: what `colocsim run --policy-python FILE:CLASS` runs."""
    path = os.path.abspath(file)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{file}: no such file; expected a Python file that defines class {cls}")
    # A module name of its own, never the file's bare name: a policy file called tempfile.py must not stand in
    # for the standard module tempfile (nor replace a module already imported) for the rest of the process.
    # It is in sys.modules (dataclasses and pickle look classes up there), once per file.
    name = "_colocsim_policy_" + hashlib.sha256(path.encode()).hexdigest()[:16] + "_" + "".join(
        c if c.isalnum() else "_" for c in os.path.splitext(os.path.basename(path))[0])
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    obj = module
    for part in cls.split("."):
        if not hasattr(obj, part):
            raise AttributeError(f"{file} defines no class {cls}")
        obj = getattr(obj, part)
    if not (isinstance(obj, type) and issubclass(obj, Policy)):
        raise TypeError(f"{cls} in {file} is not a subclass of colocsim.Policy")
    return obj()

"""colocsim in Python (python/README.md): run scenarios in-process, read run and sweep directories as
pandas DataFrames, and write co-location policies in Python.

    import colocsim
    r = colocsim.run()                          # the embedded default scenario
    r.summary["makespan_s"], r.jobs, r.timeseries
    r = colocsim.run("my.yaml", set={"policy": "exclusive-fcfs", "platform.nodes": 4})
    r = colocsim.run(policy=MyPolicy())         # a subclass of colocsim.Policy
    df = colocsim.load_sweep("sweep-out/spec")  # every run's parameters and summary, one row per run
"""
import hashlib
import importlib.util
import os
import sys
import tempfile

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

__all__ = ["run", "load_run", "load_sweep", "Result", "Policy", "InputError", "DecisionError"]


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

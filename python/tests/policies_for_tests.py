"""Python policies the tests run (python/tests/test_policies.py), next to the example first-fit."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))

import colocsim  # noqa: E402
from first_fit import FirstFit  # noqa: E402


class FirstFit4None(FirstFit):
    """first-fit:max_per_device=4,memory=none (many out-of-memory failures and requeues on heavy.csv)."""

    def __init__(self):
        super().__init__(max_per_device=4, memory="none")


class Raises(colocsim.Policy):
    def decide(self, view, events):
        return [colocsim.WakeAt(1 / (len(events) - len(events)))]  # line 20: ZeroDivisionError


class ReturnsInt(colocsim.Policy):
    def decide(self, view, events):
        return 42


class ReturnsStrings(colocsim.Policy):
    def decide(self, view, events):
        return ["place job 0"]


class NoDecide(colocsim.Policy):
    pass


class Infeasible(colocsim.Policy):
    """Places job 0 on a device that does not exist: the engine's DecisionError."""

    def decide(self, view, events):
        return [colocsim.Place(e.job, [10**6]) for e in events if isinstance(e, colocsim.JobSubmitted)]


class KeepsView(FirstFit):
    """Keeps the view of its last call, and copies of what the view returned for the first job."""

    def __init__(self):
        super().__init__()
        self.view = self.job = self.signature = self.device = None

    def decide(self, view, events):
        self.view = view
        for e in events:
            if isinstance(e, colocsim.JobSubmitted) and self.job is None:
                self.job, self.signature, self.device = view.job(e.job), view.signature(e.job), view.device(0)
        return super().decide(view, events)


class UsesOldView(FirstFit):
    """Reads the view of its first call in its second call."""

    def __init__(self):
        super().__init__()
        self.first = None

    def decide(self, view, events):
        if self.first is None:
            self.first = view
        else:
            self.first.now()
        return super().decide(view, events)


class ProbesIndices(FirstFit):
    """In its first call with a submitted job, asks every accessor of the view for a device (or a job) that
    does not exist: each must raise IndexError. Then decides as first-fit."""

    def __init__(self):
        super().__init__()
        self.probed = False

    def decide(self, view, events):
        submitted = [e.job for e in events if isinstance(e, colocsim.JobSubmitted)]
        if not self.probed and submitted:
            self.probed = True
            n, j, no_job = view.device_count(), submitted[0], 10**6
            probes = {
                "device": lambda: view.device(n),
                "residents": lambda: view.residents(n),
                "predict": lambda: view.predict(j, [n]),
                "mig_geometry": lambda: view.mig_geometry(n),
                "mig_instances": lambda: view.mig_instances(n),
                "allows": lambda: view.allows(j, n),
                "mig_slowdown_alone": lambda: view.mig_slowdown_alone(j, n, 0),
                "job": lambda: view.job(no_job),
                "signature": lambda: view.signature(no_job),
                "estimate": lambda: view.estimate(no_job),
                "time_limit": lambda: view.time_limit(no_job),
                "predict (job)": lambda: view.predict(no_job, [0]),
                "predict (also)": lambda: view.predict(j, [0], [no_job]),
                "allows (job)": lambda: view.allows(no_job, 0),
                "mig_slowdown_alone (job)": lambda: view.mig_slowdown_alone(no_job, 0, 0),
            }
            wrong = []
            for name, probe in probes.items():
                try:
                    wrong.append(f"{name} returned {probe()!r}")
                except IndexError:
                    pass
            if wrong:
                raise AssertionError("expected IndexError: " + "; ".join(wrong))
        return super().decide(view, events)

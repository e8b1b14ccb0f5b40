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

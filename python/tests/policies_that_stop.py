"""Python policies that stop a run, or try to keep it from stopping (python/tests/test_stopping.py): a wake-up
at the current time, a decide that sleeps, loops or swallows KeyboardInterrupt, and one that calls os._exit.
The blocking ones write the file $COLOCSIM_TEST_MARKER when decide starts, for the test to signal then."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))

import colocsim  # noqa: E402
from first_fit import FirstFit  # noqa: E402


def mark():
    with open(os.environ["COLOCSIM_TEST_MARKER"], "w") as f:
        f.write("deciding\n")


class WakeNowFirstFit(FirstFit):
    """first-fit that also asks WakeAt(view.now()) at every call with a submission: one more call at the same
    instant each time, which changes no decision (the outputs are first-fit's)."""

    def decide(self, view, events):
        out = super().decide(view, events)
        if any(isinstance(e, colocsim.JobSubmitted) for e in events):
            out.append(colocsim.WakeAt(view.now()))
        return out


class AlwaysWakeNow(colocsim.Policy):
    def decide(self, view, events):
        return [colocsim.WakeAt(view.now())]


class Sleeps(colocsim.Policy):
    def decide(self, view, events):
        mark()
        time.sleep(1000)
        return []


class Loops(colocsim.Policy):
    def decide(self, view, events):
        mark()
        n = 0
        while True:
            n += 1


class SwallowsInterrupt(colocsim.Policy):
    """Catches the KeyboardInterrupt and returns normally: the run stops all the same."""

    def decide(self, view, events):
        mark()
        try:
            time.sleep(1000)
        except KeyboardInterrupt:
            pass
        return []


class Exits(colocsim.Policy):
    def decide(self, view, events):
        os._exit(0)

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("COLOCSIM_SOURCE_DIR", os.path.abspath(os.path.join(HERE, "..", "..")))
EXAMPLES = os.path.join(SOURCE, "python", "examples")


@pytest.fixture(scope="session")
def colocsim_bin():
    path = os.environ.get("COLOCSIM_BIN")
    if not path or not os.path.exists(path):
        pytest.skip("COLOCSIM_BIN does not name the built colocsim executable (the CTest sets it)")
    return path


@pytest.fixture(scope="session")
def cli(colocsim_bin):
    """Runs `colocsim ARGS...` in a separate process; returns the CompletedProcess (text)."""

    def run(*args, cwd=None):
        return subprocess.run([colocsim_bin, *map(str, args)], capture_output=True, text=True, cwd=cwd)

    return run


def in_fresh_process(code, *args):
    """Runs Python `code` in a fresh interpreter (one SimGrid engine per run: a run compared with the command
    line's must be its process's first, sim/README.md); returns the CompletedProcess."""
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True,
                          env=dict(os.environ))


@pytest.fixture(scope="session")
def check_outputs():
    """Runs the strict output checker (tests/support/check_outputs.cpp) on a run directory."""
    path = os.environ.get("COLOCSIM_CHECK")

    def check(directory):
        if not path:
            return
        p = subprocess.run([path, str(directory)], capture_output=True, text=True)
        assert p.returncode == 0, p.stdout + p.stderr

    return check

"""The command `colocsim` that `pip install` puts on PATH, and `python -m colocsim`: the C++ command line
installed with the package (colocsim/bin/colocsim), run with this package's Python bridge for
`--policy-python` (unless COLOCSIM_PYTHON_BRIDGE names another)."""
import os
import sys


def main():
    from . import _bridge, _executable

    try:
        exe = _executable()
    except FileNotFoundError as e:
        print(f"colocsim: {e}", file=sys.stderr)
        return 2
    env = dict(os.environ)
    bridge = _bridge()
    if bridge and not env.get("COLOCSIM_PYTHON_BRIDGE"):
        env["COLOCSIM_PYTHON_BRIDGE"] = bridge
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(exe, ["colocsim", *sys.argv[1:]], env)


if __name__ == "__main__":
    sys.exit(main())

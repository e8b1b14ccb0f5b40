"""The CTest python/pip-install: the package installs with pip, offline, into a fresh virtualenv, and works
there. `PY -m venv V && V/bin/pip install --no-build-isolation --no-index SOURCE` (the backend of
pyproject.toml, python/packaging/colocsim_build.py), then, from another folder and without PYTHONPATH:
`V/bin/python -c "import colocsim; colocsim.run()"`, `V/bin/colocsim run --policy-python ...` (the
executable and the bridge installed with the package) and `V/bin/python -m colocsim`.

PY: an interpreter that is not Debian's (not under /usr), of the ABI the build's module has (e.g. pyenv's
3.11 for Debian 12's 3.11), when the machine has one; else the build's own. The test prints which.
COLOCSIM_BUILD_DIR (CTest sets it to the build tree) makes pip take the module the build made rather than
build it again; the build from scratch is the same command without it (python/README.md).
Exit 77 (skipped) when no interpreter can make a virtualenv (Debian: python3-venv)."""
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

SOURCE = os.environ["COLOCSIM_SOURCE_DIR"]
BUILD_PYTHON = os.environ.get("COLOCSIM_BUILD_PYTHON", sys.executable)
PROBE = ("import os, sys, sysconfig, venv, ensurepip; "
         "print(os.path.realpath(sys.executable)); print(sysconfig.get_config_var('EXT_SUFFIX'))")


def probe(python):
    try:
        p = subprocess.run([python, "-c", PROBE], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if p.returncode != 0:
        return None
    real, suffix = p.stdout.split()
    return real, suffix


def candidates():
    names = [os.path.join(d, n) for d in os.environ.get("PATH", "").split(os.pathsep) if os.path.isdir(d)
             for n in sorted(os.listdir(d)) if n.startswith("python3")]
    pyenv = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    names += sorted(glob.glob(os.path.join(pyenv, "versions", "*", "bin", "python3")))
    names += sorted(glob.glob("/usr/local/bin/python3*")) + sorted(glob.glob("/opt/*/bin/python3"))
    return [n for n in names if os.access(n, os.X_OK) and not n.endswith("-config")]


def choose():
    build = probe(BUILD_PYTHON)
    if build is None:
        return None, "the build's Python cannot make a virtualenv (Debian: python3-venv)"
    seen = set()
    for c in candidates():
        found = probe(c)
        if found and found[0] not in seen:
            seen.add(found[0])
            if found[1] == build[1] and not found[0].startswith("/usr/"):
                return found[0], f"{found[0]}: not Debian's, the build's ABI ({found[1]})"
    return build[0], f"{build[0]}: the build's own (no other interpreter of the ABI {build[1]} found)"


def run(cmd, **kw):
    t = time.monotonic()
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    print(f"$ {' '.join(map(str, cmd))}  ({time.monotonic() - t:.1f} s, exit {p.returncode})", flush=True)
    if p.returncode != 0:
        print(p.stdout[-4000:], p.stderr[-4000:], sep="\n")
        raise SystemExit(f"FAILED: {cmd[0]} exited with status {p.returncode}")
    return p


def main():
    python, why = choose()
    if python is None:
        print(f"python/pip-install skipped: {why}")
        return 77
    print(f"interpreter: {why}", flush=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "COLOCSIM_PYTHON_BRIDGE", "COLOCSIM_BIN", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PIP_CONFIG_FILE"] = os.devnull  # this machine's pip configuration plays no part
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    with tempfile.TemporaryDirectory(prefix="colocsim-pip-") as tmp:
        v = os.path.join(tmp, "v")
        run([python, "-m", "venv", v], env=env)
        run([os.path.join(v, "bin", "pip"), "install", "--no-build-isolation", "--no-index", SOURCE], env=env, cwd=tmp)
        vpython, vcolocsim = os.path.join(v, "bin", "python"), os.path.join(v, "bin", "colocsim")
        code = ("import colocsim, json; r = colocsim.run(); "
                "print(json.dumps({'file': colocsim.__file__, 'version': colocsim.__version__, "
                "'makespan': r.summary['makespan_s']}))")
        got = json.loads(run([vpython, "-c", code], env=env, cwd=tmp).stdout.splitlines()[-1])
        assert os.path.realpath(got["file"]).startswith(os.path.realpath(v)), got
        out = os.path.join(tmp, "cpp")
        run([vcolocsim, "run", "--policy", "first-fit", "-o", out, "--quiet"], env=env, cwd=tmp)
        out_py = os.path.join(tmp, "py")
        run([vcolocsim, "run", "--policy-python", os.path.join(SOURCE, "python", "examples", "first_fit.py") + ":FirstFit",
             "-o", out_py, "--quiet"], env=env, cwd=tmp)
        default = os.path.join(tmp, "default")
        run([vpython, "-m", "colocsim", "run", "-o", default, "--quiet"], env=env, cwd=tmp)
        summary = {d: json.load(open(os.path.join(tmp, d, "summary.json"))) for d in ("cpp", "py", "default")}
        assert summary["default"]["makespan_s"] == got["makespan"], (summary["default"]["makespan_s"], got)
        assert summary["py"]["policy"] == "python", summary["py"]["policy"]
        assert summary["py"]["makespan_s"] == summary["cpp"]["makespan_s"]  # first_fit.py decides as first-fit
        bridge = summary["py"]["plugins"][0]["path"]
        assert os.path.realpath(bridge).startswith(os.path.realpath(v)), f"the bridge {bridge} is not the venv's"
        print(f"ok: colocsim {got['version']} in {v} from {got['file']}; makespan {got['makespan']} s; "
              f"--policy-python through {bridge}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
